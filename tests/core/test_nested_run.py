"""Runs of nested dicts (pytrec_eval's shape) ranked without converting their ids
(``rank_nested``): the same ranking, judgements, values and refusals as the run converted
to columns (``Run.from_dict`` and ``rank_run``)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pateval
from pateval.core.qrels import Qrels
from pateval.core.ranking import rank_run
from pateval.core.run import NestedRun, Run
from pateval.errors import InputFormatError, ParameterError
from pateval.evaluation import evaluate_runs
from pateval.executor import rank
from pateval.options import EvaluationOptions

# few scores and ids: ties between documents, and ids that sort before and after each other
SCORES = st.one_of(st.sampled_from([0.0, -0.0, 1.0, 2.5, float("inf"), -float("inf"), 1e-300]),
                   st.integers(-2, 3), st.floats(-5, 5, allow_nan=False))
DOCS = st.sampled_from(["d1", "d10", "d2", "D2", "é", "d1 ", "z", "a"])
TOPICS = st.sampled_from(["q1", "q2", "q10", "q3"])
NESTED = st.dictionaries(TOPICS, st.dictionaries(DOCS, SCORES, max_size=8), max_size=4)
JUDGED = st.dictionaries(TOPICS, st.dictionaries(DOCS, st.integers(-1, 3), min_size=1, max_size=6), min_size=1,
                         max_size=4)


def _same_ranking(a, b) -> None:
    assert a.topic_ids.tolist() == b.topic_ids.tolist()
    assert a.ptr.tolist() == b.ptr.tolist()
    assert a.score.tolist() == b.score.tolist()
    assert a.judged_row.tolist() == b.judged_row.tolist()
    assert a.judged_grade.tolist() == b.judged_grade.tolist()
    assert a.judged_entry.tolist() == b.judged_entry.tolist()
    assert a.docno.tolist() == b.docno.tolist()


class TestSameRankingAsColumns:
    @settings(max_examples=300, deadline=None)
    @given(NESTED, JUDGED, st.booleans())
    def test_rank_nested_equals_rank_run(self, run, judged, complete):
        qrels = Qrels.from_dict(judged)
        ours = rank(NestedRun.of(run), qrels, complete=complete)
        theirs = rank(Run.from_dict(run), qrels, complete=complete)
        _same_ranking(ours.ranked, theirs.ranked)
        assert ours.notes == theirs.notes
        assert ours.missing.tolist() == theirs.missing.tolist()

    @settings(max_examples=100, deadline=None)
    @given(NESTED, JUDGED, st.booleans(), st.booleans())
    def test_values_equal_the_columns_path(self, run, judged, complete, judged_only):
        measures = ["AP", "P@2", "nDCG@3", "R@5", "RR", "bpref", "Rprec", "NumRet", "NumRelRet", "Judged@3",
                    "infAP", "ERR@3", "RBP(p=0.5)"]
        options = EvaluationOptions(measures=measures, complete=complete, judged_only=judged_only)
        qrels = Qrels.from_dict(judged)
        if not set(run) & set(qrels.topic_ids) and not complete:
            return
        ours = evaluate_runs(qrels, [NestedRun.of(run)], options)
        theirs = evaluate_runs(qrels, [Run.from_dict(run)], options)
        assert ours.scored[0].topics == theirs.scored[0].topics
        np.testing.assert_array_equal(ours.scored[0].values, theirs.scored[0].values)
        assert ours.notes == theirs.notes

    def test_many_equal_scores_are_put_in_docno_order(self):
        run = {"q1": {f"d{i:03d}": 1.0 for i in range(200)} | {"top": 2.0}}
        qrels = Qrels.from_dict({"q1": {"d000": 1, "d199": 1, "d100": 0, "top": 1, "absent": 1}})
        ours = rank(NestedRun.of(run), qrels).ranked
        _same_ranking(ours, rank_run(Run.from_dict(run), rank(Run.from_dict(run), qrels).judgements))
        # docno descending among ties: d199 right after "top", d000 last
        assert dict(zip(ours.docno[ours.judged_row].tolist(), (ours.judged_row + 1).tolist(), strict=True)) == {
            "top": 1, "d199": 2, "d100": 101, "d000": 201}

    def test_document_ids_are_made_only_when_asked(self):
        ranked = rank(NestedRun.of({"q1": {"d1": 1.0, "d2": 2.0}}), Qrels.from_dict({"q1": {"d1": 1}})).ranked
        assert "documents" not in ranked._cache
        assert ranked.docno.tolist() == ["d2", "d1"]
        assert ranked.subset(np.array([0])).docno.tolist() == ["d2", "d1"]


class TestRefusals:
    @pytest.mark.parametrize("run", [
        {"q1": {"d1": "high"}},
        {"q1": {"d1": float("nan")}},
        {"q1": {"": 1.0}},
        {"q1": ["d1"]},
        {1: {"d1": 1.0}, "1": {"d2": 1.0}},
        {"q1": {1: 1.0, "1": 2.0}},
    ])
    def test_the_messages_of_run_from_dict(self, run):
        with pytest.raises((ParameterError, InputFormatError)) as theirs:
            Run.from_dict(run)
        with pytest.raises(type(theirs.value), match=re.escape(str(theirs.value))):
            evaluate_runs(Qrels.from_dict({"q1": {"d1": 1}}), [NestedRun.of(run)], EvaluationOptions(measures=["AP"]))

    def test_a_bad_score_in_a_topic_without_judgements_is_refused_too(self):
        run = NestedRun.of({"q1": {"d1": 1.0}, "q9": {"d1": float("nan")}})
        with pytest.raises(InputFormatError, match="NaN"):
            evaluate_runs(Qrels.from_dict({"q1": {"d1": 1}}), [run], EvaluationOptions(measures=["AP"]))

    def test_ids_that_are_numbers_are_written_as_text(self):
        frame = pateval.evaluate({"1": {"2": 1}}, {1: {2: 1.0, "d": 3.0}}, ["AP", "NumRet"])
        assert frame.set_index("measure")["value"].to_dict() == {"AP": 0.5, "NumRet": 2.0}
