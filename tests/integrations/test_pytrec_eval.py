"""``pateval.pytrec_eval``: pytrec_eval's API, computed by pateval.

The behaviours of pytrec_eval's own test file (nicknames, measure parameters, empty inputs,
nDCG) and of its examples, checked on our own data; random cases against the real
pytrec_eval (``pytrec-eval-terrier``): nested dicts with ties, negative grades and empty
topics, every measure family and nickname, ``relevance_level``, ``judged_docs_only_flag``;
the interpolated measures, where pateval follows trec_eval 10.0, against the trec_eval 10.0
binary when ``TREC_EVAL`` names it; and the calls BEIR and MTEB make.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess

import numpy as np
import pytest

import pateval.pytrec_eval as ours

real = pytest.importorskip("pytrec_eval")

QREL = {"q1": {"d1": 0, "d2": 1, "d3": 0}, "q2": {"d2": 1, "d3": 1}}
# trec_eval 10.0 corrected these (rounded cut-offs of recall levels, 9.0.8 truncated them)
TEN = ("iprec_at_recall", "11pt_avg")


def test_ndcg_as_pytrec_eval_tests_it():
    evaluator = ours.RelevanceEvaluator(QREL, {"map", "ndcg"})
    assert evaluator.evaluate({"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {}})["q1"]["ndcg"] == pytest.approx(0.5)
    assert evaluator.evaluate({"q1": {"d1": 1.0, "d2": 2.0, "d3": 1.5}, "q2": {}})["q1"]["ndcg"] == 1.0
    assert evaluator.evaluate({"q1": {"d1": 4.0, "d2": 2.0, "d3": 1.5}})["q1"]["ndcg"] == \
        pytest.approx(0.6309297535714575)
    # each call is independent of the last (pytrec_eval's state bug is not reproduced)
    assert evaluator.evaluate({"q1": {"d1": 1.0, "d2": 2.0, "d3": 1.5}, "q2": {}})["q1"]["ndcg"] == 1.0


CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
LEVELS = [f"iprec_at_recall_{x / 10:.2f}" for x in range(11)]
# the keys pytrec_eval gives (its own test lists them; the real pytrec_eval crashes on all_trec when
# every topic of the run is empty, unless other evaluations ran before)
OFFICIAL = {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            *LEVELS, *(f"P_{k}" for k in CUTS)}
SET = {"num_q", "num_rel", "num_rel_ret", "num_ret", "runid", "set_F", "set_map", "set_P", "set_recall",
       "set_relative_P", "utility"}
ALL_TREC = OFFICIAL | SET | {"11pt_avg", "binG", "G", "gm_bpref", "infAP", "ndcg", "ndcg_rel", "Rndcg", "relstring",
                             "num_nonrel_judged_ret", "success_1", "success_5", "success_10",
                             *(f"Rprec_mult_{x / 10:.2f}" for x in range(2, 21, 2)),
                             *(f"{base}_{k}" for base in ("map_cut", "ndcg_cut", "recall", "relative_P") for k in CUTS)}


def test_nicknames_give_pytrec_eval_keys():
    for nickname, expected in (("all_trec", ALL_TREC), ("set", SET), ("official", OFFICIAL)):
        assert set(ours.RelevanceEvaluator(QREL, {nickname}).evaluate({"q1": {}, "q2": {}})["q1"]) == expected
    both = ours.RelevanceEvaluator(QREL, {"official", "set", "ndcg"}).evaluate({"q1": {}, "q2": {}})["q1"]
    assert set(both) == OFFICIAL | SET | {"ndcg"}
    assert ours.supported_nicknames == real.supported_nicknames
    assert ours.supported_measures == real.supported_measures | {"rbp", "rbp_resid", "unj"}


def test_measure_parameters_are_combined_as_pytrec_eval_does():
    run = {"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {}}
    measures = ["ndcg_cut", "ndcg_cut.1,4", "ndcg_cut_20,4", "ndcg_cut_15", "recall.1000", "P"]
    keys = set(ours.RelevanceEvaluator(QREL, measures).evaluate(run)["q1"])
    assert keys == {"ndcg_cut_1", "ndcg_cut_4", "ndcg_cut_15", "ndcg_cut_20", "recall_1000", "P_200", "P_15",
                    "P_10", "P_5", "P_30", "P_100", "P_20", "P_500", "P_1000"}
    assert keys == set(real.RelevanceEvaluator(QREL, measures).evaluate(run)["q1"])
    result = ours.RelevanceEvaluator(QREL, {"ndcg_cut.1,2,3,1000"}).evaluate(run)["q1"]
    assert result == pytest.approx({"ndcg_cut_1": 0.0, "ndcg_cut_2": 0.0, "ndcg_cut_3": 0.5, "ndcg_cut_1000": 0.5})
    # families without a cut-off get trec_eval's cut-offs, as pytrec_eval expands them
    assert set(ours.RelevanceEvaluator(QREL, {"map_cut"}).evaluate(run)["q1"]) == {
        f"map_cut_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)}
    assert set(ours.RelevanceEvaluator(QREL, {"success"}).evaluate(run)["q1"]) == {"success_1", "success_5",
                                                                                     "success_10"}


def test_empty_inputs():
    run = {"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {}}
    assert ours.RelevanceEvaluator(QREL, {"map", "ndcg"}).evaluate({}) == {}
    assert ours.RelevanceEvaluator(QREL, set()).evaluate(run) == {"q1": {}, "q2": {}}
    assert ours.RelevanceEvaluator({}, {"map", "ndcg"}).evaluate(run) == {}
    assert ours.RelevanceEvaluator({}, {"map", "ndcg"}).evaluate({}) == {}
    assert ours.RelevanceEvaluator(QREL, set()).evaluate({}) == {}
    assert ours.RelevanceEvaluator({}, set()).evaluate(run) == {}
    assert ours.RelevanceEvaluator({}, {}).evaluate({}) == {}
    # a topic whose judgements are an empty dict has none (pytrec_eval drops it)
    assert ours.RelevanceEvaluator({"q1": {"d1": 1}, "q2": {}}, {"map"}).evaluate({"q1": {"d1": 1}, "q2": {"x": 1}}) \
        == {"q1": {"map": 1.0}}


def test_topics_are_the_runs_topics_with_judgements_in_the_runs_order():
    qrel = {"a": {"d1": 1}, "b": {"d2": 1}, "c": {"d3": 1}}
    result = ours.RelevanceEvaluator(qrel, {"P.1"}).evaluate({"c": {"d3": 1.0}, "z": {"d1": 2.0}, "a": {"d9": 1.0}})
    assert list(result) == ["c", "a"] and result == {"c": {"P_1": 1.0}, "a": {"P_1": 0.0}}


def test_bad_arguments():
    with pytest.raises(ValueError, match="unsupported measure foo"):
        ours.RelevanceEvaluator(QREL, {"foo"})
    with pytest.raises(TypeError, match="relevance_level should be positive"):
        ours.RelevanceEvaluator(QREL, {"map"}, relevance_level=0)
    with pytest.raises(TypeError, match="query_relevance must be a dict"):
        ours.RelevanceEvaluator([], {"map"})
    with pytest.raises(TypeError, match="a set of measure names"):
        ours.RelevanceEvaluator(QREL, "map")
    with pytest.raises(ValueError, match="relevance grades must be integers"):
        ours.RelevanceEvaluator({"q1": {"d1": 1.5}}, {"map"})
    with pytest.raises(ValueError, match="preference or judgement-group"):
        ours.RelevanceEvaluator(QREL, {"prefs"})
    with pytest.raises(ValueError, match="ndcg"):  # pytrec_eval crashes here: gains are rel=gain pairs
        ours.RelevanceEvaluator(QREL, {"ndcg.2"})
    evaluator = ours.RelevanceEvaluator(QREL, {"map"})
    with pytest.raises(TypeError, match="must be a dict"):
        evaluator.evaluate([("q1", "d1", 1.0)])
    with pytest.raises(ValueError, match="run scores must be numbers"):
        evaluator.evaluate({"q1": {"d1": "x"}})
    with pytest.raises(ValueError, match="topic 'q1' maps to list"):
        evaluator.evaluate({"q1": []})
    with pytest.raises(TypeError, match="query ids must be strings; got 1 in the run"):
        evaluator.evaluate({1: {"d1": 1.0}})
    with pytest.raises(ValueError, match="NaN"):
        evaluator.evaluate({"q1": {"d1": math.nan}})


def test_trec_eval_parameter_syntax_where_pytrec_eval_mangles_it():
    # pytrec_eval reads utility.2,-1,0,0 as utility.2 (and returns 0); trec_eval's -m reading is kept
    run = {"q1": {"d1": 1.0, "d2": 0.5, "d3": 1.5}}
    value = ours.RelevanceEvaluator(QREL, {"utility.2,-1,0,0"}).evaluate(run)["q1"]["utility"]
    assert value == 2 * 1 - 1 * 2


def test_parse_and_aggregate():
    run = ours.parse_run(["q1 Q0 d1 1 2.5 tag", "q1 Q0 d2 2 1.5 tag"])
    assert run == real.parse_run(["q1 Q0 d1 1 2.5 tag", "q1 Q0 d2 2 1.5 tag"]) == {"q1": {"d1": 2.5, "d2": 1.5}}
    assert ours.parse_qrel(["q1 0 d1 1", "q2 0 d2 0"]) == {"q1": {"d1": 1}, "q2": {"d2": 0}}
    with pytest.raises(ValueError, match="run line 2: document 'd1' twice"):
        ours.parse_run(["q1 Q0 d1 1 2.5 tag", "q1 Q0 d1 2 1.5 tag"])
    with pytest.raises(ValueError, match="qrels line 1: 3 fields"):
        ours.parse_qrel(["q1 d1 1"])
    for measure, values in (("map", [0.5, 0.25]), ("num_ret", [3.0, 4.0]), ("gm_map", [math.log(0.5), math.log(0.2)])):
        assert ours.compute_aggregated_measure(measure, values) == pytest.approx(
            real.compute_aggregated_measure(measure, values))


# ---- random cases against the real pytrec_eval ----------------------------------------------

def _random_case(seed: int):
    """Qrels with negative grades, topics without judgements or relevant documents; a run with
    ties (scores exact at 32 bits, so pytrec_eval's rounding to float32 breaks no tie and
    makes none), an empty topic and topics without judgements."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(40)]
    qrels, run = {}, {}
    for t in range(12):
        topic = f"t{t}"
        judged = rng.choice(docs, size=int(rng.integers(0, 15)), replace=False)
        qrels[topic] = {str(d): int(rng.integers(-1, 4)) for d in judged}
        if t % 5 == 4:
            run[topic] = {}
        elif t != 7:
            ranked = rng.choice(docs, size=int(rng.integers(1, 30)), replace=False)
            run[topic] = {str(d): float(rng.integers(0, 12)) / 4 for d in ranked}
    run["t99"] = {"d1": 1.0}
    return qrels, run


MEASURE_SETS = [
    {"all_trec"}, {"official"}, {"set"},
    {"P.1,3,7", "recall_2,50", "ndcg_cut.2,7", "map_cut.3", "success.2", "relative_P.4", "Rprec_mult.0.5,1.5",
     "set_F.0.5", "ndcg_rel", "Rndcg", "binG", "G", "infAP", "num_nonrel_judged_ret", "utility", "gm_bpref"},
    {"map_cut.1,3,5,10,100,1000", "ndcg_cut.1,3,5,10,100,1000", "recall.1,3,5,10,100,1000", "P.1,3,5,10,100,1000"},
]


def _close(ours_value: float, real_value: float) -> bool:
    return (math.isnan(ours_value) and math.isnan(real_value)) or ours_value == pytest.approx(real_value, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("measures", MEASURE_SETS, ids=lambda m: sorted(m)[0])
def test_random_cases_equal_pytrec_eval(seed, measures):
    qrels, run = _random_case(seed)
    for level in (1, 2):
        for judged_only in (False, True):
            expected = real.RelevanceEvaluator(qrels, measures, relevance_level=level,
                                               judged_docs_only_flag=judged_only).evaluate(run)
            got = ours.RelevanceEvaluator(qrels, measures, relevance_level=level,
                                          judged_docs_only_flag=judged_only).evaluate(run)
            assert list(got) == list(expected)
            for topic, values in expected.items():
                assert set(got[topic]) == set(values)
                wrong = {key: (got[topic][key], value) for key, value in values.items()
                         if not key.startswith(TEN) and not _close(got[topic][key], value)}
                assert not wrong, (topic, level, judged_only)


@pytest.mark.skipif(not (os.environ.get("TREC_EVAL") and shutil.which(os.environ.get("TREC_EVAL", ""))),
                    reason="no trec_eval binary (set TREC_EVAL)")
@pytest.mark.parametrize("seed", range(4))
def test_interpolated_precision_is_trec_eval_10s(tmp_path, seed):
    """iprec_at_recall and 11pt_avg, where pateval follows trec_eval 10.0: its -q values."""
    qrels, run = _random_case(seed)
    # trec_eval reads no empty topic; -J empties the topics that retrieved only unjudged documents
    run = {topic: docs for topic, docs in run.items() if docs}
    run["t4"] = {"unjudged": 1.0}
    (tmp_path / "qrels").write_text("".join(f"{t} 0 {d} {r}\n" for t, docs in qrels.items() for d, r in docs.items()))
    (tmp_path / "run").write_text("".join(f"{t} Q0 {d} 1 {s!r} r\n" for t, docs in run.items()
                                          for d, s in docs.items()))
    for flags in ([], ["-J"]):
        done = subprocess.run([os.environ["TREC_EVAL"], "-q", "-c", *flags, "-m", "iprec_at_recall", "-m", "11pt_avg",
                               str(tmp_path / "qrels"), str(tmp_path / "run")], capture_output=True, text=True,
                              check=True)
        expected = {(line.split()[1], line.split()[0]): float(line.split()[2].replace("-nan", "nan"))
                    for line in done.stdout.splitlines() if line.split()[1] != "all"}
        got = ours.RelevanceEvaluator(qrels, {"iprec_at_recall", "11pt_avg"},
                                      judged_docs_only_flag=bool(flags)).evaluate(run)
        assert {(topic, key) for topic, values in got.items() for key in values} <= set(expected)
        assert any(math.isnan(value) for values in got.values() for value in values.values()) == bool(flags)
        for (topic, key), value in expected.items():
            if topic in got:
                assert _close(got[topic][key], value) or got[topic][key] == pytest.approx(value, abs=5e-5), \
                    (topic, key, flags)


def test_beir_and_mteb_calls():
    """BEIR's EvaluateRetrieval.evaluate and MTEB's retrieval evaluator: map_cut, ndcg_cut,
    recall and P at their k values, the results read by key (``ndcg_cut_10``...)."""
    qrels, run = _random_case(3)
    k_values = [1, 3, 5, 10, 100, 1000]
    strings = {f"map_cut.{','.join(map(str, k_values))}", f"ndcg_cut.{','.join(map(str, k_values))}",
               f"recall.{','.join(map(str, k_values))}", f"P.{','.join(map(str, k_values))}"}
    got = ours.RelevanceEvaluator(qrels, strings).evaluate(run)
    expected = real.RelevanceEvaluator(qrels, strings).evaluate(run)
    for k in k_values:
        for name in (f"ndcg_cut_{k}", f"map_cut_{k}", f"recall_{k}", f"P_{k}"):
            mean = sum(values[name] for values in got.values()) / len(got)
            assert mean == pytest.approx(sum(values[name] for values in expected.values()) / len(expected))


def test_groups_of_topics_give_the_same_values(monkeypatch):
    """The run is converted and scored by groups of judged topics: any group size, the same results."""
    qrels, run = _random_case(5)
    whole = ours.RelevanceEvaluator(qrels, MEASURE_SETS[3], judged_docs_only_flag=True).evaluate(run)
    monkeypatch.setattr("pateval.tuning.DICT_GROUP_TOPICS", 2)
    grouped = ours.RelevanceEvaluator(qrels, MEASURE_SETS[3], judged_docs_only_flag=True)
    assert len(grouped._groups) > 3
    result = grouped.evaluate(run)
    assert list(result) == list(whole)
    for topic, values in whole.items():  # a running sum over other topics can move the last bit (ndcg_rel)
        assert result[topic] == pytest.approx(values, rel=1e-14, abs=1e-15, nan_ok=True)
    assert list(grouped.evaluate(run)) == list(real.RelevanceEvaluator(qrels, {"map"}).evaluate(run))
