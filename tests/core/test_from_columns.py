"""The one door of runs and qrels: every in-memory form checked as the file readers check."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import pateval
from pateval.core.qrels import Qrels
from pateval.core.run import Run
from pateval.errors import InputFormatError

RUN = {"q1": {"d1": 1.0, "d2": 0.5}}


def _values(frame: pd.DataFrame) -> dict[str, float]:
    return dict(zip(frame["measure"], frame["value"], strict=True))


@pytest.mark.parametrize("qrels", [
    pd.DataFrame({"qid": ["q1"] * 3, "docno": ["d1"] * 3, "label": [1, 1, 1]}),
    [{"qid": "q1", "docno": "d1", "label": 1}] * 3,
    [("q1", "d1", 1)] * 3,
])
def test_a_judgement_repeated_in_memory_counts_once(qrels):
    values = _values(pateval.evaluate(qrels, RUN, ["AP", "P@1"]))
    assert values == {"AP": 1.0, "P@1": 1.0}  # before: AP 2.0, P@1 3.0


def test_repeated_judgements_are_merged_with_a_note():
    qrels = Qrels.from_frame(pd.DataFrame({"qid": ["q1"] * 3, "docno": ["d1"] * 3, "label": [1, 1, 1]}))
    assert len(qrels) == 1 and qrels.notes == ("<memory>: 2 repeated judgement row(s) merged",)


@pytest.mark.parametrize("make", [
    lambda: Qrels.from_frame(pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "d1"], "label": [1, 2]})),
    lambda: Qrels.from_records([("q1", "d1", 1), ("q1", "d1", 2)]),
])
def test_conflicting_grades_in_memory_are_refused(make):
    with pytest.raises(InputFormatError) as error:
        make()
    assert str(error.value) == ("<memory>: conflicting judgements of document 'd1' for topic 'q1': 1 on row 1, "
                                "2 on row 2; use on_duplicate='first' (--on-duplicate first) to keep the first")


def test_conflicting_grades_keep_the_first_when_asked():
    qrels = Qrels.from_records([("q1", "d1", 1), ("q1", "d1", 2), ("q1", "d2", 0)], on_duplicate="first")
    assert qrels.to_dict() == {"q1": {"d1": 1, "d2": 0}}


def test_conflicting_subtopic_grades_name_the_subtopic():
    with pytest.raises(InputFormatError, match="document 'd1' subtopic 's1' for topic 'q1': 1 on row 1, 2 on row 3"):
        Qrels.from_records([("q1", "s1", "d1", 1), ("q1", "s2", "d1", 2), ("q1", "s1", "d1", 2)],
                           fields=("topic", "subtopic", "docno", "rel"))


@pytest.mark.parametrize("make", [
    lambda: Run.from_frame(pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "score": [1.0, math.nan]})),
    lambda: Run.from_dict({"q1": {"d1": 1.0, "d2": math.nan}}),
    lambda: Run.from_records([("q1", "d1", 1.0), ("q1", "d2", math.nan)]),
])
def test_a_nan_score_in_memory_is_refused(make):
    with pytest.raises(InputFormatError, match=r"^<memory>: a NaN in column 'score' \(row 2\)$"):
        make()


def test_a_nan_score_in_a_ranx_run_is_refused():
    ranx = pytest.importorskip("ranx")
    with pytest.raises(InputFormatError, match="a NaN in column 'score'"):
        pateval.evaluate({"q1": {"d1": 1}}, ranx.Run({"q1": {"d1": 1.0, "d2": math.nan}}), ["AP"])


def test_a_frame_with_a_document_twice_honours_on_duplicate():
    frame = pd.DataFrame({"qid": ["q1", "q1", "q1"], "docno": ["d2", "d1", "d2"], "score": [3.0, 2.0, 1.0]})
    with pytest.raises(InputFormatError, match=r"document 'd2' retrieved twice for topic 'q1' \(row 3\)"):
        pateval.evaluate({"q1": {"d1": 1}}, frame, ["AP"])
    values = _values(pateval.evaluate({"q1": {"d1": 1}}, frame, ["AP"], on_duplicate="first"))
    assert values == {"AP": 0.5}
    assert Run.from_frame(frame, on_duplicate="first").notes == (
        "<memory>: 1 duplicate document row(s) dropped (kept the first)",)


def test_an_empty_id_in_memory_is_refused():
    with pytest.raises(InputFormatError, match=r"an empty id in column 'docno' \(row 2\)"):
        Run.from_records([("q1", "d1", 1.0), ("q1", "", 0.5)])
    with pytest.raises(InputFormatError, match=r"an empty id in column 'topic' \(row 1\)"):
        Qrels.from_records([("", "d1", 1)])


def test_columns_with_lines_are_refused_at_their_line():
    with pytest.raises(InputFormatError) as error:
        Run.from_columns(["q1", "q1"], ["d1", "d1"], [1.0, 0.5], name="r", source="run.txt", lines=[4, 9])
    assert str(error.value) == ("run.txt, line 9: document 'd1' retrieved twice for topic 'q1' (first on line 4); "
                                "use on_duplicate='first' (--on-duplicate first) to keep the first")
