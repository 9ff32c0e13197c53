"""Subtopic (diversity) measures: the spec's values, ndeval (pyndeval) agreement, Sakai's D-measures."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pateval.api as api
from pateval.core.qrels import Qrels
from pateval.core.run import Run
from pateval.errors import InputFormatError, ParameterError
from pateval.formats.intents import read_intents
from pateval.measures import parse_measure

pyndeval = pytest.importorskip("pyndeval")

# The spec's ndeval example (also pyndeval's README): qrels A:s1, B:s2, D:s2, C:s3; run A, D, E, B.
SPEC_QRELS = [("1", "s1", "A", 1), ("1", "s2", "B", 1), ("1", "s2", "D", 1), ("1", "s3", "C", 1)]
RANKED_RUN = ("topic", "docno", "rank", "score")
SPEC_RUN = [("1", "A", 1, 9.3), ("1", "D", 2, 8.4), ("1", "E", 3, 8.1), ("1", "B", 4, 7.6)]
# The spec's D-measure example: P(i|q) = 0.5/0.3/0.2; A: i1 L2, i2 L1; B: i2 L1; D: i2 L2; C: i3 L1.
D_QRELS = [("1", "i1", "A", 2), ("1", "i2", "A", 1), ("1", "i2", "B", 1), ("1", "i2", "D", 2), ("1", "i3", "C", 1)]
D_INTENTS = {"1": {"i1": 0.5, "i2": 0.3, "i3": 0.2}}


def _values(qrels_rows, run_rows, measures, **options) -> dict[str, np.ndarray]:
    qrels = Qrels.from_records(qrels_rows, fields=("topic", "subtopic", "docno", "rel"))
    # this file's runs: SPEC_RUN's (topic, docno, rank, score) or the random cases' (topic, docno, score)
    run = Run.from_records(run_rows, name="r", fields=RANKED_RUN if len(run_rows[0]) == 4 else ("topic", "docno",
                                                                                                "score"))
    frame = api.evaluate(qrels, run, measures, **options)
    return {m: g.sort_values("topic")["value"].to_numpy() for m, g in frame.groupby("measure")}


def _one(qrels_rows, run_rows, measure, **options) -> float:
    (values,) = _values(qrels_rows, run_rows, [measure], **options).values()
    assert len(values) == 1
    return float(values[0])


@pytest.mark.parametrize("measure, expected", [
    ("alpha_nDCG@5", 0.786896),
    ("nERR_IA@5", 0.829787),
    ("ERR_IA@5", 0.393343),
    ("I_rec@5", 0.666667),
    ("P_IA@5", 0.2),
    ("MAP_IA", 0.5),
])
def test_spec_ndeval_example(measure, expected):
    assert _one(SPEC_QRELS, SPEC_RUN, measure) == pytest.approx(expected, abs=5e-7)


@pytest.mark.parametrize("measure, expected", [
    ("D_nDCG(intents=file)@10", 0.9442),
    ("I_rec@10", 0.6667),
    ("Dsharp_nDCG(intents=file)@10", 0.8054),
])
def test_spec_d_measures_example(measure, expected):
    value = _one(D_QRELS, SPEC_RUN, measure, resources={"intent_probabilities": D_INTENTS})
    assert value == pytest.approx(expected, abs=5e-5)


def test_d_ndcg_by_hand():
    # GG: A = 0.5*2 + 0.3*1 = 1.3, D = 0.6, B = 0.3, C = 0.2; run A D E B; ideal A D B C
    log2 = math.log2
    dcg = 1.3 + 0.6 / log2(3) + 0.3 / log2(5)
    ideal = 1.3 + 0.6 / log2(3) + 0.3 / log2(4) + 0.2 / log2(5)
    value = _one(D_QRELS, SPEC_RUN, "D_nDCG(intents=file)@10", resources={"intent_probabilities": D_INTENTS})
    assert value == pytest.approx(dcg / ideal, abs=1e-12)
    sharp = _one(D_QRELS, SPEC_RUN, "Dsharp_nDCG(gamma=0.2,intents=file)@10",
                 resources={"intent_probabilities": D_INTENTS})
    assert sharp == pytest.approx(0.2 * 2 / 3 + 0.8 * dcg / ideal, abs=1e-12)


def test_intents_from_a_file(tmp_path):
    path = tmp_path / "intents.txt"
    path.write_text("1 i1 0.5\n1 i2 0.3\n1 i3 0.2\n")
    intents = read_intents(path)
    value = _one(D_QRELS, SPEC_RUN, "D_nDCG(intents=file)@10", resources={"intent_probabilities": intents})
    assert value == pytest.approx(0.9442, abs=5e-5)


def test_sakai_intent_probabilities_follow_the_intent_numbers():
    # intents 1, 2, 10 (numbers: 10 is last, although "10" < "2" as strings): P = 4/7, 2/7, 1/7
    qrels = [("q", "1", "a", 1), ("q", "2", "b", 1), ("q", "10", "c", 1)]
    run = [("q", "c", 1, 3.0), ("q", "b", 2, 2.0), ("q", "a", 3, 1.0)]
    weights = {"a": 4 / 7, "b": 2 / 7, "c": 1 / 7}
    dcg = weights["c"] + weights["b"] / math.log2(3) + weights["a"] / 2
    ideal = weights["a"] + weights["b"] / math.log2(3) + weights["c"] / 2
    assert _one(qrels, run, "D_nDCG(intents=sakai)") == pytest.approx(dcg / ideal, abs=1e-12)
    # the same probabilities given in a file give the same value
    given = {"q": {"1": 4 / 7, "2": 2 / 7, "10": 1 / 7}}
    assert _one(qrels, run, "D_nDCG(intents=file)",
                resources={"intent_probabilities": given}) == pytest.approx(dcg / ideal, abs=1e-12)
    # ids that are not all numbers are ordered as strings: x1 (a) < x10 (c) < x2 (b)
    named = [(t, "x" + s, d, g) for t, s, d, g in qrels]
    weights = {"a": 4 / 7, "c": 2 / 7, "b": 1 / 7}
    dcg = weights["c"] + weights["b"] / math.log2(3) + weights["a"] / 2
    ideal = weights["a"] + weights["c"] / math.log2(3) + weights["b"] / 2
    assert _one(named, run, "D_nDCG(intents=sakai)") == pytest.approx(dcg / ideal, abs=1e-12)


def test_sakai_probabilities_do_not_overflow_with_many_intents():
    qrels = [("q", str(i), f"d{i}", 1) for i in range(1, 1501)]
    run = [("q", f"d{i}", i, 2000.0 - i) for i in range(1, 1501)]
    assert _one(qrels, run, "D_nDCG(intents=sakai)") == pytest.approx(1.0, abs=1e-12)
    assert _one(qrels, run, "ERR_IA(intents=sakai)@10") > 0


def test_weighted_ia_measures_with_uniform_file_equal_uniform():
    intents = {"1": {"s1": 1 / 3, "s2": 1 / 3, "s3": 1 / 3}}
    for name in ("alpha_nDCG{}@5", "ERR_IA{}@5", "nERR_IA{}@5", "P_IA{}@5", "MAP_IA{}"):
        plain = _one(SPEC_QRELS, SPEC_RUN, name.format(""))
        weighted = _one(SPEC_QRELS, SPEC_RUN, name.format("(intents=file)"),
                        resources={"intent_probabilities": intents})
        assert weighted == pytest.approx(plain, abs=1e-12), name


def test_intent_weights_are_renormalised_over_intents_with_relevant_documents():
    # s4 has only a non-relevant judgement: ndeval ignores it, so its probability is dropped
    qrels = SPEC_QRELS + [("1", "s4", "Z", 0)]
    intents = {"1": {"s1": 0.4, "s2": 0.2, "s3": 0.2, "s4": 0.2}}
    # P-IA@5 = sum_i w_i hits_i / (5 W): hits s1 = 1 (A), s2 = 2 (D, B), s3 = 0
    expected = (0.4 * 1 + 0.2 * 2) / (5 * 0.8)
    assert _one(qrels, SPEC_RUN, "P_IA(intents=file)@5",
                resources={"intent_probabilities": intents}) == pytest.approx(expected)
    # MAP-IA: AP_s1 = 1, AP_s2 = (1/2 + 2/4)/2 = 0.5, AP_s3 = 0
    assert _one(qrels, SPEC_RUN, "MAP_IA(intents=file)",
                resources={"intent_probabilities": intents}) == pytest.approx((0.4 + 0.1) / 0.8)


def test_map_ia_with_a_cutoff_keeps_all_relevant_documents_in_the_denominator():
    # AP_s1 = 1 (A at 1); AP_s2 = (1/2) / 2 (D at 2; B at 4 is beyond @2); AP_s3 = 0
    assert _one(SPEC_QRELS, SPEC_RUN, "MAP_IA@2") == pytest.approx((1 + 0.25 + 0) / 3)


def test_err_ia_is_normalised_at_every_cutoff():
    # ndeval leaves ERR-IA@1 undivided (its loop starts at rank 2): pyndeval gives 1 here, pateval 1/3
    assert pyndeval.ndeval([(q, s, d, r) for q, s, d, r in SPEC_QRELS], [("1", "A", 9.3)],
                           measures=["ERR-IA@1"])["1"]["ERR-IA@1"] == 1.0
    assert _one(SPEC_QRELS, SPEC_RUN, "ERR_IA@1") == pytest.approx(1 / 3)
    assert _one(SPEC_QRELS, SPEC_RUN, "nERR_IA@1") == pytest.approx(1.0)
    # compat=ndeval gives ndeval's number at k = 1, and changes nothing at any other k
    assert _one(SPEC_QRELS, SPEC_RUN, "ERR_IA(compat=ndeval)@1") == 1.0
    for k in (2, 5, 20):
        assert _one(SPEC_QRELS, SPEC_RUN, f"ERR_IA(compat=ndeval)@{k}") == _one(SPEC_QRELS, SPEC_RUN, f"ERR_IA@{k}")


def test_a_run_can_beat_the_greedy_ideal_as_in_ndeval():
    qrels = [("1", "s1", "d0", 1), ("1", "s3", "d0", 1), ("1", "s0", "d1", 1), ("1", "s2", "d1", 1),
             ("1", "s3", "d2", 1), ("1", "s0", "d3", 1), ("1", "s3", "d3", 1)]
    run = [("1", "d0", 1, 3.0), ("1", "d1", 2, 2.0), ("1", "d3", 3, 1.0)]
    reference = pyndeval.ndeval(qrels, [(q, d, s) for q, d, _, s in run], measures=["alpha-nDCG@3", "nERR-IA@3"])["1"]
    assert reference["alpha-nDCG@3"] > 1
    assert _one(qrels, run, "alpha_nDCG@3") == pytest.approx(reference["alpha-nDCG@3"], abs=1e-12)
    assert _one(qrels, run, "nERR_IA@3") == pytest.approx(reference["nERR-IA@3"], abs=1e-12)


def test_greedy_ideal_ties_go_to_the_largest_docno():
    # a and b tie at rank 1 (one new intent each); ndeval puts b first, then c (new intent s3) ...
    qrels = [("1", "s1", "a", 1), ("1", "s2", "b", 1), ("1", "s3", "c", 1), ("1", "s3", "b", 1)]
    # b covers s2 and s3: gain 2 at rank 1 whatever the tie rule; then a (s1, gain 1) beats c (s3 seen: 0.5)
    run = [("1", "b", 1, 3.0), ("1", "a", 2, 2.0)]
    assert _one(qrels, run, "alpha_nDCG@2") == pytest.approx(1.0)
    # the tie rule decides which of two equal documents is ideal; the value is the same either way,
    # so check the ranking through nERR-IA of a run that equals ndeval's ideal exactly
    tied = [("1", "s1", "x", 1), ("1", "s1", "y", 1), ("1", "s2", "y", 1), ("1", "s2", "z", 1)]
    run = [("1", "z", 1, 3.0), ("1", "y", 2, 2.0), ("1", "x", 3, 1.0)]
    reference = pyndeval.ndeval(tied, [(q, d, s) for q, d, _, s in run], measures=["alpha-nDCG@3", "nERR-IA@3"])["1"]
    assert _one(tied, run, "alpha_nDCG@3") == pytest.approx(reference["alpha-nDCG@3"], abs=1e-12)
    assert _one(tied, run, "nERR_IA@3") == pytest.approx(reference["nERR-IA@3"], abs=1e-12)


def test_topics_without_relevant_subtopics_score_zero_and_count():
    qrels = SPEC_QRELS + [("2", "s1", "A", 0)]
    run = SPEC_RUN + [("2", "A", 1, 1.0)]
    for name in ("alpha_nDCG@5", "ERR_IA@5", "nERR_IA@5", "P_IA@5", "MAP_IA", "I_rec@5", "D_nDCG@5", "Dsharp_nDCG@5"):
        values = _values(qrels, run, [name])[name]
        assert len(values) == 2 and values[1] == 0.0, name


def test_empty_topic_with_complete_averaging():
    qrels = SPEC_QRELS + [("2", "s1", "A", 1)]
    values = _values(qrels, SPEC_RUN, ["alpha_nDCG@5", "I_rec", "D_nDCG"], complete=True)
    for name, v in values.items():
        assert len(v) == 2 and v[1] == 0.0, name


def test_document_level_measures_in_the_same_call_use_the_highest_grade():
    values = _values(D_QRELS, SPEC_RUN, ["nDCG", "D_nDCG(intents=file)@10"],
                     resources={"intent_probabilities": D_INTENTS})
    # document grades: A 2, B 1, D 2, C 1; run A D E B
    dcg = 2 + 2 / math.log2(3) + 1 / math.log2(5)
    ideal = 2 + 2 / math.log2(3) + 1 / 2 + 1 / math.log2(5)
    assert values["nDCG"][0] == pytest.approx(dcg / ideal)


def test_dd_qrels_give_document_measures_the_highest_passage_rating(tmp_path):
    """--qrels-format dd: a document's grade is its highest passage rating over all its
    subtopics (not their sum, not the last one read), as for subtopic qrels."""
    from pateval.api import evaluate

    lines = ["T1\tT1.1\td1\tp1\t1", "T1\tT1.2\td1\tp2\t3", "T1\tT1.2\td1\tp3\t2",
             "T1\tT1.1\td2\tp4\t2", "T1\tT1.2\td3\tp5\t0"]
    path = tmp_path / "dd.qrels"
    path.write_text("\n".join(lines) + "\n")
    run = {"T1": {"d2": 3.0, "d1": 2.0, "d3": 1.0}}
    got = evaluate(str(path), run, ["nDCG", "P(rel=3)@2", "P(rel=4)@2", "NumRel"], qrels_format="dd")
    got = dict(zip(got["measure"], got["value"], strict=False))
    # grades d1 3, d2 2, d3 0: run d2 d1 d3
    assert got["nDCG"] == pytest.approx((2 + 3 / math.log2(3)) / (3 + 2 / math.log2(3)))
    assert got["P(rel=3)@2"] == pytest.approx(0.5) and got["P(rel=4)@2"] == 0.0  # a sum would make d1 6
    assert got["NumRel"] == 2


def test_ndeval_rank_order_uses_the_rank_column():
    # scores disagree with ranks; order=rank follows the ranks (ndeval's default)
    run = [("1", "A", 4, 9.3), ("1", "D", 3, 8.4), ("1", "E", 2, 8.1), ("1", "B", 1, 7.6)]
    by_rank = _one(SPEC_QRELS, run, "alpha_nDCG@5", order="rank")
    reference = pyndeval.ndeval(SPEC_QRELS, [("1", "B", 4.0), ("1", "E", 3.0), ("1", "D", 2.0), ("1", "A", 1.0)],
                                measures=["alpha-nDCG@5"])["1"]["alpha-nDCG@5"]
    assert by_rank == pytest.approx(reference, abs=1e-12)
    assert by_rank != pytest.approx(_one(SPEC_QRELS, run, "alpha_nDCG@5"))


def test_names_parameters_and_aliases():
    m = parse_measure("alpha_nDCG(alpha=0.5)@20")
    assert str(m) == "alpha_nDCG@20"
    assert str(parse_measure("alpha-nDCG(alpha=0.25)@20")) == "alpha_nDCG(alpha=0.25)@20"
    assert str(parse_measure("strec@10")) == "I_rec@10"
    assert str(parse_measure("Dsharp_nDCG(gamma=0.7,intents=sakai)@10")) == "Dsharp_nDCG(gamma=0.7,intents=sakai)@10"
    for bad in ("alpha_nDCG(alpha=1.5)@5", "alpha_nDCG", "D_nDCG(intents=zipf)", "MAP_IA(rel=0)",
                "Dsharp_nDCG(gamma=-1)"):
        with pytest.raises(ParameterError):
            parse_measure(bad)


def test_needs_subtopic_qrels():
    with pytest.raises(ParameterError, match="subtopic"):
        api.evaluate({"1": {"A": 1}}, {"1": {"A": 1.0}}, ["alpha_nDCG@5"])


def test_intents_file_needs_the_resource():
    with pytest.raises(ParameterError, match="intent probabilities"):
        _one(D_QRELS, SPEC_RUN, "D_nDCG(intents=file)@10")


def test_a_relevant_intent_missing_from_the_file_is_an_error():
    with pytest.raises(ParameterError, match="'i3'"):
        _one(D_QRELS, SPEC_RUN, "D_nDCG(intents=file)@10", resources={"intent_probabilities": {"1": {"i1": 0.6,
                                                                                                     "i2": 0.4}}})


@pytest.mark.parametrize("text, line, words", [
    ("1 i1 0.5\n1 i2\n", 2, "columns"),
    ("1 i1 0.5\n1 i2 abc\n", 2, "not a number"),
    ("1 i1 1.5\n", 1, "outside"),
    ("1 i1 0.5\n1 i1 0.5\n", 2, "twice"),
    ("1 i1 0.5\n2 j1 1.0\n1 i2 0.3\n", 1, "sum to 0.8"),
])
def test_intents_reader_errors_name_the_line(tmp_path, text, line, words):
    path = tmp_path / "intents.txt"
    path.write_text(text)
    with pytest.raises(InputFormatError, match=words) as caught:
        read_intents(path)
    assert f":{line}" in str(caught.value) or f"line {line}" in str(caught.value)


def test_intents_reader_rescales_sums_within_the_tolerance(tmp_path):
    path = tmp_path / "intents.txt"
    path.write_text("q 1 0.33\nq 2 0.33\nq 3 0.33\n")
    intents = read_intents(path)
    np.testing.assert_allclose(intents.probability, [1 / 3] * 3)
    assert intents.to_dict() == {"q": {"1": pytest.approx(1 / 3), "2": pytest.approx(1 / 3), "3": pytest.approx(1 / 3)}}


# ---------------------------------------------------------------- agreement with ndeval (pyndeval)

NDEVAL_MEASURES = ("alpha-nDCG", "nERR-IA", "ERR-IA", "P-IA", "strec")


def _random_diversity_case(seed: int, n_topics: int):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for t in range(n_topics):
        topic = f"{t + 1}"
        # docnos of different lengths, so that string order is not number order
        pool = [f"d{i}" for i in rng.choice(40, size=int(rng.integers(2, 14)), replace=False)]
        subtopics = [f"s{j}" for j in range(int(rng.integers(1, 6)))]
        for d in pool:
            for s in rng.choice(subtopics, size=int(rng.integers(1, len(subtopics) + 1)), replace=False):
                qrels.append((topic, str(s), d, int(rng.choice([0, 1, 1, 2, 3]))))
        extra = [f"u{i}" for i in range(int(rng.integers(0, 6)))]  # never judged
        candidates = pool + extra
        retrieved = rng.choice(candidates, size=int(rng.integers(1, len(candidates) + 1)), replace=False)
        scores = rng.permutation(len(retrieved)) + 1.0  # distinct: pyndeval breaks ties by docno ascending
        run.extend((topic, str(d), float(s)) for d, s in zip(retrieved, scores, strict=False))
    return qrels, run


def _pyndeval_values(qrels, run, measures, *, alpha: float, rel: int) -> dict[str, np.ndarray]:
    # subtopic numbers in string order, as pateval orders them (the order ndeval sums gains in)
    ordered = sorted(qrels, key=lambda row: row[1])
    grouped = sorted(run, key=lambda row: row[0])
    evaluator = pyndeval.RelevanceEvaluator(ordered, measures, relevance_level=rel, alpha=alpha)
    result = evaluator.evaluate(grouped)
    topics = sorted(result)
    return {m: np.array([result[t][m] for t in topics]) for m in measures}


def _pateval_values(qrels, run, measures, *, alpha: float, rel: int) -> dict[str, np.ndarray]:
    names = {}
    for m in measures:
        base, _, k = m.partition("@")
        params = []
        if base in ("alpha-nDCG", "nERR-IA", "ERR-IA") and alpha != 0.5:
            params.append(f"alpha={alpha!r}")
        if rel != 1:
            params.append(f"rel={rel}")
        if base == "ERR-IA":
            params.append("compat=ndeval")  # ndeval's ERR-IA@1 (the same number at every other k)
        names[m] = base + (f"({','.join(params)})" if params else "") + (f"@{k}" if k else "")
    values = _values(qrels, [(t, d, s) for t, d, s in run], list(names.values()))
    return {m: values[str(parse_measure(n))] for m, n in names.items()}


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), k=st.integers(1, 20), alpha=st.sampled_from([0.5, 0.25, 0.75, 0.3, 0.0, 1.0]),
       rel=st.sampled_from([1, 1, 2]), n_topics=st.integers(1, 5))
def test_agrees_with_pyndeval(seed, k, alpha, rel, n_topics):
    qrels, run = _random_diversity_case(seed, n_topics)
    measures = [f"{m}@{k}" for m in NDEVAL_MEASURES] + ["MAP-IA"]
    expected = _pyndeval_values(qrels, run, measures, alpha=alpha, rel=rel)
    got = _pateval_values(qrels, run, measures, alpha=alpha, rel=rel)
    for m in measures:
        np.testing.assert_allclose(got[m], expected[m], rtol=0, atol=1e-12, err_msg=m)


def test_agrees_with_pyndeval_on_many_topics():
    qrels, run = _random_diversity_case(12345, 400)
    measures = [f"{m}@{k}" for m in NDEVAL_MEASURES for k in (1, 2, 5, 10, 20)] + ["MAP-IA"]
    expected = _pyndeval_values(qrels, run, measures, alpha=0.5, rel=1)
    got = _pateval_values(qrels, run, measures, alpha=0.5, rel=1)
    for m in measures:
        np.testing.assert_allclose(got[m], expected[m], rtol=0, atol=1e-12, err_msg=m)


# ---------------------------------------------------------------- D-measures against the plain definitions

def _plain_d_ndcg(qrels, run, probabilities, k):
    """Sakai & Song's D-nDCG@k for one topic, written as loops over the definition."""
    gain = {}
    for _, s, d, g in qrels:
        gain[d] = gain.get(d, 0.0) + probabilities[s] * max(g, 0)
    ranking = [d for _, d, _ in sorted(run, key=lambda row: -row[2])]
    dcg = sum(gain.get(d, 0.0) / math.log2(r + 2) for r, d in enumerate(ranking[:k]))
    ideal_gains = sorted(gain.values(), reverse=True)[:k]
    ideal = sum(g / math.log2(r + 2) for r, g in enumerate(ideal_gains))
    return dcg / ideal if ideal > 0 else 0.0


def _plain_i_rec(qrels, run, k):
    relevant = {(s, d) for _, s, d, g in qrels if g >= 1}
    intents = {s for s, _ in relevant}
    ranking = [d for _, d, _ in sorted(run, key=lambda row: -row[2])][:k]
    covered = {s for s, d in relevant if d in ranking}
    return len(covered) / len(intents) if intents else 0.0


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), k=st.integers(1, 15), gamma=st.sampled_from([0.5, 0.0, 1.0, 0.3]))
def test_d_measures_match_the_plain_definitions(seed, k, gamma):
    qrels, run = _random_diversity_case(seed, 1)
    subtopics = sorted({s for _, s, _, _ in qrels})
    n = len(subtopics)
    sakai = {s: 2.0 ** (n - i) / sum(2.0 ** j for j in range(1, n + 1)) for i, s in enumerate(subtopics)}
    uniform = {s: 1 / n for s in subtopics}
    names = {mode: (str(parse_measure(f"D_nDCG(intents={mode})@{k}")),
                    str(parse_measure(f"Dsharp_nDCG(gamma={gamma!r},intents={mode})@{k}"))) for mode in ("uniform",
                                                                                                         "sakai")}
    values = _values(qrels, run, [name for pair in names.values() for name in pair])
    for mode, probabilities in (("uniform", uniform), ("sakai", sakai)):
        d_name, sharp_name = names[mode]
        expected = _plain_d_ndcg(qrels, run, probabilities, k)
        assert values[d_name][0] == pytest.approx(expected, abs=1e-12)
        sharp = gamma * _plain_i_rec(qrels, run, k) + (1 - gamma) * expected
        assert values[sharp_name][0] == pytest.approx(sharp, abs=1e-12)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_more_depth_never_lowers_intent_recall(seed):
    qrels, run = _random_diversity_case(seed, 3)
    values = _values(qrels, run, ["I_rec@1", "I_rec@3", "I_rec@10", "I_rec"])
    assert np.all(values["I_rec@1"] <= values["I_rec@3"]) and np.all(values["I_rec@3"] <= values["I_rec@10"])
    assert np.all(values["I_rec@10"] <= values["I_rec"])
