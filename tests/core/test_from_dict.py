"""``{topic: {docno: value}}`` dicts (pytrec_eval's, ranx's shape) as runs and qrels: the
columns gathered without a step per row give what the records path gave."""

from __future__ import annotations

import pytest

import pateval
from pateval.core.qrels import Qrels
from pateval.core.run import Run
from pateval.errors import InputFormatError, ParameterError
from pateval.formats.inputs import is_single_run_dict

RUN = {"q2": {"d3": 1.0, "d1": 3.0}, "q1": {"d1": 2.0, "d2": 2.0, "d9": 0.5}, "q10": {"d4": 1.5}}
QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 2, "d3": 1}, "q10": {"d4": 1}}


def test_run_from_dict_equals_records():
    ours = Run.from_dict(RUN, name="r")
    records = Run.from_records([(q, d, s) for q, docs in RUN.items() for d, s in docs.items()], name="r")
    assert ours.topic_ids.tolist() == records.topic_ids.tolist() == ["q1", "q10", "q2"]
    assert ours.topic_ids[ours.topic].tolist() == records.topic_ids[records.topic].tolist()
    assert ours.docnos.tolist() == records.docnos.tolist()
    assert ours.score.tolist() == records.score.tolist()
    assert ours.rank.tolist() == records.rank.tolist()
    assert ours.to_dict() == RUN


def test_qrels_from_dict_equals_records():
    ours = Qrels.from_dict(QRELS)
    records = Qrels.from_records([(q, d, r) for q, docs in QRELS.items() for d, r in docs.items()])
    assert ours.to_dict() == records.to_dict() == QRELS
    assert ours.topic_ids.tolist() == ["q1", "q10", "q2"]


def test_a_topic_with_an_empty_dict():
    # a run topic that retrieved nothing is a topic of the run: scored as an empty ranking
    run = Run.from_dict({"q1": {"d1": 1.0}, "q2": {}})
    assert run.topic_ids.tolist() == ["q1", "q2"] and len(run) == 1
    frame = pateval.evaluate({"q1": {"d1": 1}, "q2": {"d2": 1}}, {"q1": {"d1": 1.0}, "q2": {}}, ["AP", "NumRel"])
    assert sorted(frame["topic"].unique()) == ["q1", "q2"]
    assert frame.set_index(["topic", "measure"])["value"].to_dict() == {
        ("q1", "AP"): 1.0, ("q2", "AP"): 0.0, ("q1", "NumRel"): 1.0, ("q2", "NumRel"): 1.0}
    # qrels: a topic without judgements is no topic of the qrels
    assert Qrels.from_dict({"q1": {"d1": 1}, "q2": {}}).topic_ids.tolist() == ["q1"]


def test_ids_that_are_not_strings_are_written_as_text():
    run = Run.from_dict({1: {2: 1.0, "d": 0.5}})
    assert run.topic_ids.tolist() == ["1"] and run.docnos.tolist() == ["2", "d"]
    assert Qrels.from_dict({1: {2: 1}}).to_dict() == {"1": {"2": 1}}


@pytest.mark.parametrize(("build", "message"), [
    (lambda: Run.from_dict({"q1": {"d1": "high"}}), "run scores must be numbers"),
    (lambda: Run.from_dict({"q1": ["d1"]}), "topic 'q1' maps to list"),
    (lambda: Run.from_dict({1: {"d1": 1.0}, "1": {"d2": 1.0}}), "two topics are the id '1'"),
    (lambda: Qrels.from_dict({"q1": 3}), "topic 'q1' maps to int"),
])
def test_bad_dicts_are_refused_with_one_line(build, message):
    with pytest.raises(ParameterError, match=message):
        build()


def test_bad_values_keep_their_messages():
    with pytest.raises(InputFormatError, match="NaN"):
        Run.from_dict({"q1": {"d1": float("nan")}})
    with pytest.raises(ParameterError, match="relevance grades must be"):
        Qrels.from_dict({"q1": {"d1": "x"}})


def test_single_run_dict_is_told_by_the_first_value_of_each_topic():
    assert is_single_run_dict(RUN)
    assert is_single_run_dict({"q1": {}})
    assert not is_single_run_dict({"a": RUN, "b": RUN})
    assert not is_single_run_dict({"a": "run.txt"})


def test_qrels_ids_that_meet_when_written_as_text_are_still_checked():
    # a dict's string keys differ (no index of items is built); ids written with str may meet
    with pytest.raises(InputFormatError, match="conflicting judgements of document '1'"):
        Qrels.from_dict({"q1": {1: 1, "1": 2}})
    merged = Qrels.from_dict({"q1": {1: 1, "1": 1, "d": 0}})
    assert merged.to_dict() == {"q1": {"1": 1, "d": 0}} and "merged" in merged.notes[0]
