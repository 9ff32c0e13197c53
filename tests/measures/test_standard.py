"""The standard measures equal trec_eval's (pytrec-eval-terrier) to 1e-9."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

import pateval.api as api
from pateval.core.qrels import Qrels
from pateval.core.run import Run

# pateval name -> trec_eval name
TREC_NAMES = {
    "AP": "map", "AP@10": "map_cut_10", "P@5": "P_5", "P@10": "P_10", "P@100": "P_100",
    "R@10": "recall_10", "R@1000": "recall_1000", "Rprec": "Rprec", "RR": "recip_rank",
    "nDCG": "ndcg", "nDCG@10": "ndcg_cut_10", "nDCG@5": "ndcg_cut_5", "Bpref": "bpref",
    "NumRet": "num_ret", "NumRel": "num_rel", "NumRelRet": "num_rel_ret",
}
FAMILIES = {"map", "map_cut", "P", "recall", "Rprec", "recip_rank", "ndcg", "ndcg_cut", "bpref",
            "num_ret", "num_rel", "num_rel_ret"}


def _read_dicts(qrels_path, run_path):
    qrels, run = {}, {}
    for line in Path(qrels_path).read_text().splitlines():
        t, _, d, r = line.split()
        qrels.setdefault(t, {})[d] = int(r)
    for line in Path(run_path).read_text().splitlines():
        t, _, d, _, s, _ = line.split()
        run.setdefault(t, {})[d] = float(s)
    return qrels, run


def _compare(frame, reference, tolerance=1e-9):
    assert len(frame)
    for row in frame.itertuples():
        expected = reference[row.topic][TREC_NAMES[row.measure]]
        assert abs(row.value - expected) <= tolerance, (row, expected)


@pytest.mark.parametrize("qrels_name", ["qrels.test", "qrels.rel_level"])
def test_equal_to_trec_eval_on_its_test_data(test_data, qrels_name):
    qrels_path, run_path = test_data / "trec" / qrels_name, test_data / "trec" / "results.test"
    qrels, run = _read_dicts(qrels_path, run_path)
    reference = pytrec_eval.RelevanceEvaluator(qrels, FAMILIES).evaluate(run)
    frame = api.evaluate(qrels_path, run_path, list(TREC_NAMES))
    _compare(frame, reference)
    assert frame["topic"].nunique() == len(reference)


def test_relevance_level_option(test_data):
    qrels_path, run_path = test_data / "trec" / "qrels.rel_level", test_data / "trec" / "results.test"
    qrels, run = _read_dicts(qrels_path, run_path)
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P", "bpref"}, relevance_level=2).evaluate(run)
    frame = api.evaluate(qrels_path, run_path, ["AP(rel=2)", "P(rel=2)@10", "Bpref(rel=2)"])
    names = {"AP(rel=2)": "map", "P(rel=2)@10": "P_10", "Bpref(rel=2)": "bpref"}
    for row in frame.itertuples():
        assert abs(row.value - reference[row.topic][names[row.measure]]) <= 1e-9


case = st.integers(0, 2**32 - 1)


@settings(max_examples=60, deadline=None)
@given(seed=case, n_topics=st.integers(1, 5), grades=st.integers(1, 4), tie_values=st.integers(1, 6))
def test_equal_to_trec_eval_on_random_runs_with_ties_and_grades(seed, n_topics, grades, tie_values):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for t in range(n_topics):
        topic = f"q{t}"
        docs = [f"d{i:02d}" for i in rng.choice(40, size=rng.integers(1, 25), replace=False)]
        qrels[topic] = {d: int(rng.integers(-1, grades + 1)) for d in docs}
        # trec_eval (and so pytrec_eval) crashes on a topic whose grades are all negative
        # (max_rel = -1: it allocates no rel_levels); pateval's answer is tested below
        qrels[topic][docs[0]] = max(qrels[topic][docs[0]], 0)
        retrieved = [f"d{i:02d}" for i in rng.choice(40, size=rng.integers(1, 30), replace=False)]
        # few distinct scores: many ties, broken by docno descending
        run[topic] = {d: float(rng.integers(0, tie_values)) / 4 for d in retrieved}
    reference = pytrec_eval.RelevanceEvaluator(qrels, FAMILIES).evaluate(run)
    frame = api.evaluate(qrels, run, list(TREC_NAMES))
    _compare(frame, reference)


def test_topics_without_relevant_documents_score_zero_and_count():
    qrels = {"q1": {"d1": 1}, "q2": {"d3": 0}}
    run = {"q1": {"d1": 1.0}, "q2": {"d3": 1.0}}
    result = api.evaluation(qrels, run, ["AP"])
    assert list(result.frame["value"]) == [1.0, 0.0]
    assert result.summary()["value"].iloc[0] == 0.5  # as trec_eval: q2 counts


def test_complete_averaging_counts_missing_topics_as_zero():
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    run = {"q1": {"d1": 1.0}}
    default = api.evaluation(qrels, run, ["AP", "NumRel"])
    assert default.summary().set_index("measure")["value"].to_dict() == {"AP": 1.0, "NumRel": 1.0}
    assert any("q2" in note and "left out" in note for note in default.notes)
    complete = api.evaluation(qrels, run, ["AP", "NumRel"], complete=True)
    assert complete.summary().set_index("measure")["value"].to_dict() == {"AP": 0.5, "NumRel": 2.0}


def test_run_topics_missing_from_qrels_are_reported():
    result = api.evaluation({"q1": {"d1": 1}}, {"q1": {"d1": 1.0}, "q9": {"d1": 1.0}}, ["AP"])
    assert list(result.frame["topic"]) == ["q1"]
    assert any("1 topic(s) not in the qrels, not evaluated: q9" in note for note in result.notes)


def test_order_options():
    qrels = {"q1": {"a": 1}}
    run = Run.from_records([("q1", "b", 1, 5.0), ("q1", "a", 2, 9.0)], fields=("topic", "docno", "rank", "score"))
    by_score = api.evaluate(qrels, run, ["RR"])["value"].iloc[0]
    by_rank = api.evaluate(qrels, run, ["RR"], order="rank")["value"].iloc[0]
    by_file = api.evaluate(qrels, run, ["RR"], order="file")["value"].iloc[0]
    assert (by_score, by_rank, by_file) == (1.0, 0.5, 0.5)


def test_patent_level_matching():
    qrels = Qrels.from_records([("PAC-1", "EP-0971326-B1", 2), ("PAC-1", "EP-1000000-A1", 1)])
    run = Run.from_records([("PAC-1", "EP-0971326-A1", 3.0), ("PAC-1", "EP-0971326-B1", 2.0),
                            ("PAC-1", "EP-1000000-B1", 1.0)])
    # publication level: only EP-0971326-B1 itself matches
    assert api.evaluate(qrels, run, ["NumRelRet"])["value"].iloc[0] == 1
    result = api.evaluation(qrels, run, ["NumRelRet", "P@2"], doc_key="patent")
    values = result.frame.set_index("measure")["value"].to_dict()
    # the second publication of EP0971326 is left out, so EP1000000 moves up to rank 2
    assert values == {"NumRelRet": 2.0, "P@2": 1.0}
    assert any("1 later publication(s) of patents" in note for note in result.notes)


def test_topic_with_only_unjudged_pool_entries_scores_zero():
    # trec_eval crashes here (see above); every measure is 0 and nothing is relevant
    qrels = {"q0": {"d1": -1, "d2": -1}}
    run = {"q0": {"d1": 1.0, "d3": 0.5}}
    frame = api.evaluate(qrels, run, ["AP", "nDCG", "Bpref", "NumRel", "NumRet"])
    assert frame.set_index("measure")["value"].to_dict() == {"AP": 0.0, "nDCG": 0.0, "Bpref": 0.0, "NumRel": 0.0,
                                                             "NumRet": 2.0}
