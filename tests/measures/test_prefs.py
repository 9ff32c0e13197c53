"""The preference measures (trec_eval -R prefs / qrels_prefs) and the judgement-group averages
(-R qrels_jg): values worked out by hand on the examples of trec_eval's get_prefs.c, names,
and the side input's refusals. tests/measures/test_prefs_trec_eval.py compares them with the
trec_eval binary on random inputs."""

from __future__ import annotations

import pytest

import pateval.api as api
from pateval.core.run import Run
from pateval.errors import InputFormatError, ParameterError
from pateval.formats.prefs import read_prefs, read_qrels_jg
from pateval.measures import parse_measure
from pateval.measures.registry import trec_eval_name

PREFS_MEASURES = ["NumPrefs", "NumPrefsFul", "NumPrefsFulRet", "PrefSimp", "PrefSimpRet", "PrefSimpImp", "PrefPair",
                  "PrefPairRet", "PrefPairImp", "PrefAvgJG", "PrefAvgJGRet", "PrefAvgJGImp", "PrefAvgJG_Rnonrel",
                  "PrefAvgJG_RnonrelRet"]


def _scores(tmp_path, text: str, ranking: list[tuple[str, float]], measures, *, reader=read_prefs,
            resource="preferences", **options) -> dict[str, float]:
    path = tmp_path / "judgements"
    path.write_text(text)
    judgements = reader(path)
    run = Run.from_records([("q", doc, i + 1, score) for i, (doc, score) in enumerate(ranking)], name="r",
                           fields=("topic", "docno", "rank", "score"))
    frame = api.evaluate(judgements.qrels(), run, measures, resources={resource: judgements}, **options)
    return dict(zip(frame["measure"], frame["value"], strict=True))


def test_one_subgroup_levels_are_classes(tmp_path):
    # get_prefs.c: "establishes a total of 13 preferences"; the run finds docno4, docno1, docno3 in
    # this order: places 0, 1, 2, then docno2, docno5, docno6 (not retrieved, in docno order).
    # docno4 > docno1, docno3 and docno1 > docno3 are kept among the retrieved (3 of 3); docno4 and
    # docno1 over the three not retrieved are kept by implication (6); docno2 and docno6 over docno3
    # are not (2 of 8 implied fail); docno2, docno6 over docno5 occur nowhere (2)
    text = "".join(f"qid1 ujg1 sub1 docno{i} {level}\n" for i, level in enumerate([3, 2, 0, 6, 0, 2], start=1))
    got = _scores(tmp_path, text.replace("qid1", "q"), [("docno4", 3), ("docno1", 2), ("docno3", 1)],
                  PREFS_MEASURES)
    assert (got["NumPrefs"], got["NumPrefsFul"], got["NumPrefsFulRet"]) == (13, 9, 3)
    assert got["PrefSimp"] == got["PrefAvgJG"] == got["PrefPair"] == pytest.approx(9 / 13)
    assert got["PrefSimpRet"] == got["PrefPairRet"] == 1
    assert got["PrefSimpImp"] == got["PrefPairImp"] == pytest.approx(9 / 11)
    # R = 4 relevant, N = 2 non-relevant: 2 non-relevant documents added under everything
    assert got["PrefAvgJG_Rnonrel"] == pytest.approx((9 + 2 * 2) / (13 + 4 * 2))
    # retrieved: R = 2, N = 1 (R (R - N) possible preferences added with R counting every
    # relevant document, as trec_eval)
    assert got["PrefAvgJG_RnonrelRet"] == pytest.approx((3 + 2 * 1) / (3 + 4 * 1))


def test_subgroups_are_closed_under_transitivity(tmp_path):
    # get_prefs.c: "expresses 5 preferences (1>2, 1>3, 2>3, 2>4, 1>4)"
    text = "q u sub1 d1 3\nq u sub1 d2 2\nq u sub1 d3 1\nq u sub2 d2 5\nq u sub2 d4 4\n"
    got = _scores(tmp_path, text, [("d4", 2), ("d1", 1)], ["NumPrefs", "NumPrefsFul", "NumPrefsFulRet"])
    # d1 over d2, d3 (implied) kept; d1 over d4 not (d4 above it); d2 over d3 occurs nowhere; d2 over d4 fails
    assert got == {"NumPrefs": 5, "NumPrefsFul": 2, "NumPrefsFulRet": 0}


def test_groups_that_disagree(tmp_path):
    # get_prefs.c: "expresses 5 preferences (1>2, 3>1, 4>1, 3>4, 2>1)": ujg1 prefers 1 to 2, ujg2 2 to 1.
    # The run: docno1 then docno2. ujg1 keeps 1 of 1, ujg2 0 of 4; the pair (1, 2) is kept by half its
    # preferences, (1, 3) and (1, 4) by none (implied), (3, 4) occurs nowhere
    text = ("q ujg1 sub1 docno1 3.0\nq ujg1 sub1 docno2 2.0\nq ujg2 sub1 docno1 0.0\nq ujg2 sub1 docno3 6.0\n"
            "q ujg2 sub1 docno4 2.0\nq ujg2 sub2 docno1 0.0\nq ujg2 sub2 docno2 8.0\n")
    got = _scores(tmp_path, text, [("docno1", 3), ("docno2", 2)], PREFS_MEASURES)
    assert (got["NumPrefs"], got["NumPrefsFul"], got["PrefSimp"], got["PrefSimpRet"]) == (5, 1, 0.2, 0.5)
    assert got["PrefAvgJG"] == 0.5 and got["PrefAvgJGRet"] == 0.5
    assert got["PrefPair"] == 0.5 / 4 and got["PrefPairRet"] == 0.5 and got["PrefPairImp"] == pytest.approx(0.5 / 3)


def test_ties_are_broken_by_ascending_docno(tmp_path):
    # trec_eval's preference code puts equal scores in ascending docno order (its other measures:
    # descending): a above b is kept
    got = _scores(tmp_path, "q u s a 2\nq u s b 1\n", [("b", 1.0), ("a", 1.0)], ["PrefSimp"])
    assert got == {"PrefSimp": 1.0}


def test_a_topic_without_preferences_scores_zero_but_with_rnonrel(tmp_path):
    # two relevant documents of one level, a retrieved: no preference; Rnonrel adds R - N = 2
    # non-relevant documents under them (a's 2 preferences kept of 4), RnonrelRet R - N = 1 (1 of 2)
    got = _scores(tmp_path, "q u s a 1\nq u s b 1\n", [("a", 1.0)], PREFS_MEASURES)
    assert got.pop("PrefAvgJG_Rnonrel") == got.pop("PrefAvgJG_RnonrelRet") == 0.5
    assert set(got.values()) == {0.0}


def test_a_cycle_through_subgroups_is_refused(tmp_path):
    text = "q u s1 a 2\nq u s1 b 1\nq u s2 b 2\nq u s2 a 1\n"
    with pytest.raises(InputFormatError, match="judgement group 'u' of topic 'q' prefers 'a' to 'b' and 'b' to 'a'"):
        _scores(tmp_path, text, [("a", 1.0)], ["PrefSimp"])


def test_judgement_groups_average_over_groups(tmp_path):
    # group A: d1, d3 relevant (AP 5/6); group B: d2, d4 relevant, d2 at rank 2 (AP 1/4)
    text = "q A d1 1\nq A d2 0\nq A d3 1\nq B d2 1\nq B d4 1\n"
    ranking = [("d1", 3), ("d2", 2), ("d3", 1)]
    got = _scores(tmp_path, text, ranking, ["AP_avgJG", "P_avgJG@2", "Rprec_mult_avgJG"], reader=read_qrels_jg,
                  resource="judgement_groups")
    assert got == {"AP_avgJG": pytest.approx(13 / 24), "P_avgJG@2": 0.5, "Rprec_mult_avgJG": 0.5}
    # judged only (trec_eval -J): group B ranks only d2, first
    got = _scores(tmp_path, text, ranking, ["AP_avgJG(judged_only=true)"], reader=read_qrels_jg,
                  resource="judgement_groups")
    assert got == {"AP_avgJG(judged_only=true)": pytest.approx(2 / 3)}


@pytest.mark.parametrize(("trec", "ours"), [
    ("prefs_simp", "PrefSimp"), ("prefs_avgjg_Rnonrel_ret", "PrefAvgJG_RnonrelRet"),
    ("prefs_num_prefs_poss", "NumPrefs"), ("map_avgjg", "AP_avgJG"), ("P_avgjg_10", "P_avgJG@10"),
    ("Rprec_mult_avgjg_0.20", "Rprec_mult_avgJG(mult=0.2)")])
def test_trec_eval_names_are_aliases(trec, ours):
    assert str(parse_measure(trec)) == ours
    assert parse_measure(ours) == parse_measure(trec)


def test_trec_eval_names_of_the_group_measures():
    assert [trec_eval_name(m) for m in ("AP_avgJG", "P_avgJG@5", "Rprec_mult_avgJG(mult=0.4)")] == \
        ["map_avgjg", "P_avgjg_5", "Rprec_mult_avgjg_0.40"]


def test_the_side_input_is_required(tmp_path):
    run = Run.from_records([("q", "d", 1, 1.0)], name="r", fields=("topic", "docno", "rank", "score"))
    path = tmp_path / "qrels"
    path.write_text("q A d 1\n")
    with pytest.raises(ParameterError, match="PrefSimp needs preferences; none was given \\(give --prefs FILE"):
        api.evaluate(read_qrels_jg(path).qrels(), run, ["PrefSimp"])
    with pytest.raises(ParameterError, match="AP_avgJG needs judgement groups; none was given \\(give --qrels-jg"):
        api.evaluate(read_qrels_jg(path).qrels(), run, ["AP_avgJG"])
