"""Plain (unnamed) tuples: read by position only as (topic, docno, score|rel); every other
layout refused with one message saying what is expected, unless ``fields=`` names it.

The refusals are checked with their exact text; ``fields=`` is checked to give the same
numbers in every column order (all 24 orders of 4 columns, and hypothesis over random
runs, qrels and orders with columns pateval does not read).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pateval
from pateval.core.qrels import Qrels
from pateval.core.run import Run
from pateval.errors import ParameterError

RUN_EXPECTED = ("named records (ir_measures' ScoredDoc, a DataFrame's itertuples()), dicts with keys such as qid, "
                "docno, score, rank, a DataFrame, or the tuples with fields= naming their order, e.g. "
                "Run.from_records(tuples, fields=(\"qid\", \"docno\", \"score\", \"rank\"))")
QRELS_EXPECTED = ("named records (ir_measures' Qrel, ir_datasets' TrecQrel or TrecSubQrel), dicts with keys such as "
                  "qid, "
                  "docno, label, a DataFrame, or the tuples with fields= naming their order, e.g. "
                  "Qrels.from_records(tuples, fields=(\"topic\", \"subtopic\", \"docno\", \"rel\"))")


def run_refusal(row) -> str:
    return (f"plain tuples are read by position only as (topic, docno, score) with a numeric score; got {row!r}. "
            f"For any other layout give {RUN_EXPECTED}")


def qrels_refusal(row) -> str:
    return (f"plain tuples are read by position only as (topic, docno, rel) with an integer rel; got {row!r}. "
            f"For any other layout give {QRELS_EXPECTED}")


# ---- refusals, with the exact message --------------------------------------------------------

@pytest.mark.parametrize("rows, bad", [
    ([("q1", "d1", 3.0, 0)], ("q1", "d1", 3.0, 0)),                 # PyTerrier's (qid, docno, score, rank)
    ([("q1", "d1", 1, 3.0)], ("q1", "d1", 1, 3.0)),                 # pateval's old (topic, docno, rank, score)
    ([("q1", "d1", 2, 1)], ("q1", "d1", 2, 1)),                     # integer scores: no way to tell which is which
    ([("q1", "Q0", "d1", 1, 3.0, "tag")], ("q1", "Q0", "d1", 1, 3.0, "tag")),  # a TREC run line
    ([("q1", "d1")], ("q1", "d1")),
    ([("q1", "d1", 3.0), ("q1", "d2", 2.0, 2)], ("q1", "d2", 2.0, 2)),  # widths that differ: the first wrong row named
    ([("q1", "d1", "3.0")], ("q1", "d1", "3.0")),                   # a score that is text
    ([("q1", "d1", True)], ("q1", "d1", True)),
    ([("q1", "d1", None)], ("q1", "d1", None)),
    ([("q1", 2.5, 1.0)], ("q1", 2.5, 1.0)),                         # a document id that is a float
])
def test_run_plain_tuples_other_than_topic_docno_score_are_refused(rows, bad):
    with pytest.raises(ParameterError) as error:
        Run.from_records(rows)
    assert str(error.value) == run_refusal(bad)


@pytest.mark.parametrize("rows, bad", [
    ([("q1", "s1", "d1", 1)], ("q1", "s1", "d1", 1)),               # pateval's old (topic, subtopic, docno, rel)
    # TREC's / TrecQrel's (query_id, doc_id, relevance, iteration)
    ([("q1", "d1", 1, "0")], ("q1", "d1", 1, "0")),
    ([("q1", "d1", 1, 0)], ("q1", "d1", 1, 0)),
    # TrecSubQrel's (query_id, doc_id, relevance, subtopic_id)
    ([("q1", "d1", 1, "s1")], ("q1", "d1", 1, "s1")),
    ([("q1", "0", "d1", 1)], ("q1", "0", "d1", 1)),                 # a TREC qrels line
    ([("q1", "d1", 1.0)], ("q1", "d1", 1.0)),                       # a run's float score given as qrels
    ([("q1", "d1", "1")], ("q1", "d1", "1")),
    ([("q1", "d1", 1), ("q1", "d2")], ("q1", "d2")),
])
def test_qrels_plain_tuples_other_than_topic_docno_rel_are_refused(rows, bad):
    with pytest.raises(ParameterError) as error:
        Qrels.from_records(rows)
    assert str(error.value) == qrels_refusal(bad)


def test_evaluate_refuses_plain_4_tuples_with_the_same_message():
    with pytest.raises(ParameterError) as error:
        pateval.evaluate({"q1": {"d1": 1}}, [("q1", "d1", 3.0, 0)], ["AP"])
    assert str(error.value) == run_refusal(("q1", "d1", 3.0, 0))
    with pytest.raises(ParameterError) as error:
        pateval.evaluate([("q1", "s1", "d1", 1)], {"q1": {"d1": 3.0}}, ["AP"])
    assert str(error.value) == qrels_refusal(("q1", "s1", "d1", 1))


def test_plain_3_tuples_are_read_by_position_also_through_evaluate():
    qrels = [("q1", "d1", 1), ("q1", "d2", 0), (401, 7, 2)]  # integer ids written as text
    run = [("q1", "d2", 2), ("q1", "d1", 1.5), (401, 7, np.float32(1.0))]
    assert Qrels.from_records(qrels).to_dict() == {"q1": {"d1": 1, "d2": 0}, "401": {"7": 2}}
    assert Run.from_records(run).to_dict() == {"q1": {"d2": 2.0, "d1": 1.5}, "401": {"7": 1.0}}
    frame = pateval.evaluate(qrels, run, ["AP"])
    assert frame["value"].tolist() == [1.0, 0.5]


def test_fields_that_do_not_fit_the_records_are_refused():
    with pytest.raises(ParameterError) as error:
        Run.from_records([("q1", "d1", 3.0, 0)], fields=("qid", "docno", "score"))
    assert str(error.value) == ("fields=(qid, docno, score) names 3 columns but a record has 4 values: "
                                "('q1', 'd1', 3.0, 0)")
    with pytest.raises(ParameterError) as error:
        Run.from_records([("q1", "d1", 3.0)], fields="qid docno score")
    assert str(error.value) == ("fields must be a tuple of column names, e.g. fields=(\"qid\", \"docno\", \"score\", "
                                "\"rank\"); got 'qid docno score'")
    with pytest.raises(ParameterError) as error:
        Qrels.from_records([("q1", "d1", 1)], fields=("qid", "docno", "grade"))
    assert str(error.value) == ("records with fields (qid, docno, grade) has no rel column (columns: qid, docno, "
                                "grade). "
                                "Expected a topic column (topic, qid, query_id or q_id), a document column (docno or "
                                "doc_id) and a relevance column (rel, label, relevance; score with ranx's q_id) [and "
                                "subtopic, subtopic_id, passage or xpath]")
    with pytest.raises(ParameterError) as error:
        Run.from_records([("q1", "d1", 3.0, 1.5)], fields=("qid", "docno", "score", "rank"))
    assert str(error.value) == "run ranks must be integers; the records hold a rank that is not"
    with pytest.raises(ParameterError) as error:
        Run.from_records([("q1", "d1", "high")], fields=("qid", "docno", "score"))
    assert str(error.value) == "run scores must be numbers; the records hold a score that is not"


def test_fields_read_named_records_and_tuples_alike_and_skip_unknown_columns():
    trec_lines = [("q1", "Q0", "d1", 1, 3.0, "tag"), ("q1", "Q0", "d2", 2, 2.0, "tag")]
    run = Run.from_records(trec_lines, fields=("qid", "Q0", "docno", "rank", "score", "tag"))
    assert run.to_dict() == {"q1": {"d1": 3.0, "d2": 2.0}} and run.rank.tolist() == [1, 2]
    qrels = Qrels.from_records([("q1", "0", "d1", 2)], fields=("topic", "iteration", "docno", "rel"))
    assert not qrels.has_subtopics and qrels.to_dict() == {"q1": {"d1": 2}}
    diverse = Qrels.from_records([("q1", "s1", "d1", 2)], fields=("topic", "iteration", "docno", "rel"),
                                 subtopics="iteration")
    assert diverse.subtopic.tolist() == ["s1"]


# ---- fields= in every order gives the same numbers -------------------------------------------

RUN_ROWS = {"topic": ["q1", "q1", "q1", "q2", "q2"], "docno": ["d2", "d1", "d3", "d5", "d4"],
            "rank": [1, 2, 3, 1, 2], "score": [3.0, 2.0, 1.0, 2.0, 1.0]}
SUBTOPIC_ROWS = {"topic": ["q1", "q1", "q1", "q2"], "subtopic": ["s1", "s2", "s2", "s1"],
                 "docno": ["d1", "d1", "d3", "d4"], "rel": [1, 2, 1, 1]}
MEASURES = ["AP", "nDCG@3", "PRES@10", "alpha_nDCG@3", "I_rec@2", "CT@3"]


def _tuples(columns: dict, order) -> list[tuple]:
    return list(zip(*(columns[name] for name in order), strict=False))


def _reference() -> list[float]:
    run = Run.from_columns(RUN_ROWS["topic"], RUN_ROWS["docno"], RUN_ROWS["score"], RUN_ROWS["rank"])
    qrels = Qrels(topic=np.asarray(SUBTOPIC_ROWS["topic"], dtype=object),
                  subtopic=np.asarray(SUBTOPIC_ROWS["subtopic"], dtype=object),
                  docno=np.asarray(SUBTOPIC_ROWS["docno"], dtype=object), rel=SUBTOPIC_ROWS["rel"])
    return pateval.evaluate(qrels, run, MEASURES, order="file")["value"].tolist()


@pytest.mark.parametrize("order", list(itertools.permutations(("topic", "docno", "rank", "score"))))
def test_run_fields_in_every_order_give_the_same_numbers(order):
    qrels = Qrels.from_records(_tuples(SUBTOPIC_ROWS, ("topic", "subtopic", "docno", "rel")),
                               fields=("topic", "subtopic", "docno", "rel"))
    run = Run.from_records(_tuples(RUN_ROWS, order), fields=order)
    assert run.rank.tolist() == RUN_ROWS["rank"]
    # order="file" reads the rank column, so a swapped score and rank would change the numbers
    assert pateval.evaluate(qrels, run, MEASURES, order="file")["value"].tolist() == _reference()
    assert pateval.evaluate(qrels, run, MEASURES)["value"].tolist() == pateval.evaluate(
        qrels, Run.from_dict({"q1": {"d2": 3.0, "d1": 2.0, "d3": 1.0}, "q2": {"d5": 2.0, "d4": 1.0}}), MEASURES)[
        "value"].tolist()


@pytest.mark.parametrize("order", list(itertools.permutations(("topic", "subtopic", "docno", "rel"))))
def test_qrels_fields_in_every_order_give_the_same_numbers(order):
    qrels = Qrels.from_records(_tuples(SUBTOPIC_ROWS, order), fields=order)
    run = Run.from_records(_tuples(RUN_ROWS, ("topic", "docno", "rank", "score")), fields=("topic", "docno", "rank",
                                                                                           "score"))
    assert qrels.subtopic.tolist() == SUBTOPIC_ROWS["subtopic"]
    assert pateval.evaluate(qrels, run, MEASURES, order="file")["value"].tolist() == _reference()


# the names each role goes by in the tools pateval reads (core.fields.ROLE_NAMES), and columns it leaves unread
RUN_NAMES = {"topic": ["topic", "qid", "query_id", "q_id"], "docno": ["docno", "doc_id"], "rank": ["rank"],
             "score": ["score"]}
QRELS_NAMES = {"topic": ["topic", "qid", "query_id"], "docno": ["docno", "doc_id"], "rel": ["rel", "label",
                                                                                            "relevance"],
               "subtopic": ["subtopic", "subtopic_id"]}
UNREAD = ["Q0", "tag", "query", "docid"]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n_topics=st.integers(1, 3), seed=st.integers(0, 2**31))
def test_any_column_order_and_names_read_the_same_run(data, n_topics, seed):
    rng = np.random.default_rng(seed)
    columns = {"topic": [], "docno": [], "rank": [], "score": []}
    for t in range(n_topics):
        docs = rng.choice(30, size=int(rng.integers(1, 8)), replace=False)
        for rank, d in enumerate(docs, start=1):
            columns["topic"].append(f"t{t}")
            columns["docno"].append(f"d{d}")
            columns["rank"].append(rank)
            columns["score"].append(float(rng.integers(0, 4)))  # ties and integral scores
    roles = data.draw(st.permutations(list(columns) + data.draw(st.lists(st.sampled_from(UNREAD), unique=True,
                                                                            max_size=2))))
    names = tuple(data.draw(st.sampled_from(RUN_NAMES[role])) if role in RUN_NAMES else role for role in roles)
    values = {**columns, **{u: ["x"] * len(columns["topic"]) for u in UNREAD}}
    run = Run.from_records(_tuples(values, roles), fields=names)
    assert run.topic_ids[run.topic].tolist() == columns["topic"] and run.docnos.tolist() == columns["docno"]
    assert run.rank.tolist() == columns["rank"] and run.score.tolist() == columns["score"]
    as_dicts = Run.from_records([dict(zip(names, row, strict=False)) for row in _tuples(values, roles)])
    assert as_dicts.rank.tolist() == columns["rank"] and as_dicts.to_dict() == run.to_dict()


@settings(max_examples=60, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**31), with_subtopics=st.booleans())
def test_any_column_order_and_names_read_the_same_qrels(data, seed, with_subtopics):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    # each document judged once (qrels judging an item twice are merged or refused, as files are)
    columns = {"topic": [f"t{i}" for i in rng.integers(0, 3, n)], "docno": [f"d{i}" for i in rng.permutation(20)[:n]],
               "rel": [int(g) for g in rng.integers(-1, 4, n)]}
    if with_subtopics:
        columns["subtopic"] = [f"s{i}" for i in rng.integers(0, 3, n)]
    roles = data.draw(st.permutations(list(columns) + data.draw(st.lists(st.sampled_from(UNREAD), unique=True,
                                                                            max_size=2))))
    names = tuple(data.draw(st.sampled_from(QRELS_NAMES[role])) if role in QRELS_NAMES else role for role in roles)
    values = {**columns, **{u: ["x"] * n for u in UNREAD}}
    qrels = Qrels.from_records(_tuples(values, roles), fields=names)
    assert qrels.topic.tolist() == columns["topic"] and qrels.docno.tolist() == columns["docno"]
    assert qrels.rel.tolist() == columns["rel"]
    assert (qrels.subtopic.tolist() if with_subtopics else qrels.subtopic) == columns.get("subtopic")


def test_the_docs_example_of_fields_runs_as_written():
    import re
    import textwrap
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs/guides/ir-measures-pyterrier.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "fields=(" in b and "Run.from_records" in b
                and "PassageRun" not in b]
    lines = textwrap.dedent(block).splitlines()
    refused = [line for line in lines if line.startswith("Run.from_records") and "fields=" not in line]
    namespace: dict = {}
    exec("\n".join(line for line in lines if line not in refused), namespace)  # noqa: S102 - the page's own code
    assert namespace["run"].rank.tolist() == [0, 1] and namespace["run"].to_dict() == {"q1": {"d1": 2.0, "d2": 1.0}}
    assert namespace["qrels"].subtopic.tolist() == ["s1", "s2"]
    (line,) = refused
    with pytest.raises(ParameterError) as error:
        exec(line, namespace)  # noqa: S102
    assert str(error.value) == run_refusal(("q1", "d1", 2.0, 0))
    assert "got ('q1', 'd1', 2.0, 0). For any other layout give named records" in " ".join(lines)
