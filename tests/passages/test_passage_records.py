"""PassageRun.from_records: records read by field name only, plain tuples refused.

The refusals are checked with their exact text; ``fields=`` is checked to give the same
P_psg / MAP_psg (and document-level numbers, which read the passage ranks) in all 120
orders of the five columns, and hypothesis draws runs, column orders, the tools' names
for each column and columns pateval does not read.
"""

from __future__ import annotations

import itertools
from collections import namedtuple

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pateval
from pateval.core.qrels import Qrels
from pateval.errors import ParameterError
from pateval.formats.passages import PassageRun, normalise_xpath

D = "/patent-document/description"
EXPECTED = ("named records (namedtuples or dicts with fields such as qid, docno, xpath, rank, score, or query_id, "
            "doc_id, "
            "passage, rank, score), a DataFrame's itertuples(), or the tuples with fields= naming their order, e.g. "
            "PassageRun.from_records(tuples, fields=(\"topic\", \"docno\", \"xpath\", \"rank\", \"score\"))")
COLUMNS_EXPECTED = ("Expected a topic column (topic, qid, query_id or q_id), a document column (docno or doc_id), a "
                    "passage column (xpath or passage), rank and score")


def refusal(row) -> str:
    return ("plain tuples are not read by position for a passage run, since its rank and score could be either way "
            f"round; got {row!r}. Give {EXPECTED}")


# ---- refusals, with the exact message --------------------------------------------------------

@pytest.mark.parametrize("rows", [
    [("t", "d", f"{D}/p[1]", 1, 2.0)],                      # the old (topic, docno, xpath, rank, score)
    [("t", "d", f"{D}/p[1]", 2.0, 1)],                      # the same with score before rank
    [("t", "d", f"{D}/p[1]", 1, 1)],                        # integer scores: no value tells which is which
    [("t", "Q0", "d", f"{D}/p[1]", 1, 2.0)],                # a passage-run file line
    [("t", "d", f"{D}/p[1]", 2.0)],                         # no rank
    [("t", "d", f"{D}/p[1]")],
    [("t", "d", f"{D}/p[1]", 1, 2.0), {"qid": "t"}],        # the first record decides; it is named by value
])
def test_plain_tuples_are_refused_with_one_message(rows):
    with pytest.raises(ParameterError) as error:
        PassageRun.from_records(rows)
    assert str(error.value) == refusal(tuple(rows[0]))


def test_named_records_without_a_role_or_with_two_names_for_one_are_refused():
    with pytest.raises(ParameterError) as error:
        PassageRun.from_records([{"qid": "t", "docno": "d", "xpath": f"{D}/p[1]", "score": 2.0}])
    assert str(error.value) == ("records with fields (qid, docno, xpath, score) has no rank column (columns: qid, "
                                f"docno, xpath, score). {COLUMNS_EXPECTED}")
    Scored = namedtuple("Scored", "query_id doc_id rank score")  # a document run given as a passage run
    with pytest.raises(ParameterError) as error:
        PassageRun.from_records([Scored("t", "d", 1, 2.0)])
    assert str(error.value) == ("records with fields (query_id, doc_id, rank, score) has no passage column (columns: "
                                f"query_id, doc_id, rank, score). {COLUMNS_EXPECTED}")
    with pytest.raises(ParameterError) as error:
        PassageRun.from_records([{"qid": "t", "docno": "d", "passage": f"{D}/p[1]", "xpath": f"{D}/p[1]", "rank": 1,
                                  "score": 2.0}])
    assert str(error.value) == ("records with fields (qid, docno, passage, xpath, rank, score) has columns passage and "
                                f"xpath, which both name the passage: keep one. {COLUMNS_EXPECTED}")


def test_fields_and_values_that_do_not_fit_are_refused():
    row = ("t", "d", f"{D}/p[1]", 1, 2.0)
    cases = [
        (dict(fields=("topic", "Q0", "docno", "xpath", "rank", "score")),
         f"fields=(topic, Q0, docno, xpath, rank, score) names 6 columns but a record has 5 values: {row!r}"),
        (dict(fields=("topic", "docno", "xpath", "score")),
         "records with fields (topic, docno, xpath, score) has no rank column (columns: topic, docno, xpath, score). "
         + COLUMNS_EXPECTED),
        (dict(fields="topic docno xpath rank score"),
         "fields must be a tuple of column names, e.g. fields=(\"qid\", \"docno\", \"xpath\", \"rank\", \"score\"); "
         "got 'topic docno xpath rank score'"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ParameterError) as error:
            PassageRun.from_records([row], **kwargs)
        assert str(error.value) == message
    fields = ("topic", "docno", "xpath", "rank", "score")
    with pytest.raises(ParameterError) as error:
        PassageRun.from_records([("t", "d", f"{D}/p[1]", 1.5, 2.0)], fields=fields)
    assert str(error.value) == "passage run ranks must be integers; the records hold a rank that is not"
    with pytest.raises(ParameterError) as error:
        PassageRun.from_records([("t", "d", f"{D}/p[1]", True, 2.0)], fields=fields)
    assert str(error.value) == "passage run ranks must be integers; the records hold a rank that is not"
    with pytest.raises(ParameterError) as error:
        PassageRun.from_records([("t", "d", f"{D}/p[1]", 1, "high")], fields=fields)
    assert str(error.value) == "passage run scores must be numbers; the records hold a score that is not"
    with pytest.raises(ParameterError) as error:
        PassageRun.from_records([("t", "d", "description/p[1]", 1, 2.0)], fields=fields)
    assert str(error.value) == "not a passage XPath: 'description/p[1]' (expected /patent-document/...[n])"


def test_named_records_of_every_kind_read_alike():
    frame = pd.DataFrame({"query_id": ["t", "t"], "doc_id": ["d1", "d2"], "passage": [f"{D}/p", f"{D}/p[3]"],
                          "rank": [1, 2], "score": [2.0, 1.0], "Q0": "Q0"})
    Record = namedtuple("Record", "qid docno xpath rank score")
    readings = [
        PassageRun.from_records(frame.itertuples(index=False)),
        PassageRun.from_records(frame.itertuples()),  # with the frame's Index field, left unread
        PassageRun.from_records(frame.to_dict("records")),
        PassageRun.from_records([Record(*r) for r in frame[["query_id", "doc_id", "passage", "rank", "score"]]
                                 .itertuples(index=False)]),
        PassageRun.from_records(frame.itertuples(index=False, name=None), fields=tuple(frame.columns)),
    ]
    for run in readings:
        assert run.topic.tolist() == ["t", "t"] and run.docno.tolist() == ["d1", "d2"]
        assert run.xpath.tolist() == [f"{D}/p[1]", f"{D}/p[3]"]
        assert run.rank.dtype == np.int64 and run.rank.tolist() == [1, 2] and run.score.tolist() == [2.0, 1.0]
    assert len(PassageRun.from_records(iter([]))) == 0


# ---- fields= in every order gives the same numbers -------------------------------------------

# Passage ranks that disagree with the scores (rank 1 has the lowest score): reading the two
# the wrong way round changes both the document order and the passage order.
RUN = {"topic": ["t1", "t1", "t1", "t1", "t1", "t2", "t2", "t2"],
       "docno": ["A", "B", "A", "C", "B", "A", "D", "D"],
       "xpath": [f"{D}/p[1]", f"{D}/p[2]", f"{D}/p[3]", f"{D}/p[1]", f"{D}/p[1]", f"{D}/p[2]", f"{D}/p[1]",
                 f"{D}/p[4]"],
       "rank": [1, 2, 3, 4, 5, 1, 2, 3],
       "score": [0.1, 0.2, 0.3, 0.4, 0.5, 0.1, 0.2, 0.3]}
JUDGED = [("t1", "A", f"{D}/p[3]"), ("t1", "A", f"{D}/p[1]"), ("t1", "B", f"{D}/p[1]"), ("t1", "C", f"{D}/p[9]"),
          ("t2", "D", f"{D}/p[4]"), ("t2", "A", f"{D}/p[7]")]
MEASURES = ["P_psg", "MAP_psg", "AP", "P@1", "PRES@10"]


def _qrels() -> Qrels:
    return Qrels(topic=np.asarray([j[0] for j in JUDGED], dtype=object),
                 docno=np.asarray([j[1] for j in JUDGED], dtype=object),
                 passage=np.asarray([j[2] for j in JUDGED], dtype=object), rel=np.ones(len(JUDGED), dtype=np.int64),
                 format="clefip-psg")


def _scores(run: PassageRun) -> list[float]:
    qrels = _qrels()
    return pateval.evaluate(qrels, {"r": run}, MEASURES, resources={"passage_qrels": qrels})["value"].tolist()


def _reference() -> list[float]:
    # built from the arrays themselves, without from_records
    return _scores(PassageRun(name="r", topic=np.asarray(RUN["topic"], dtype=object),
                              docno=np.asarray(RUN["docno"], dtype=object),
                              xpath=np.asarray(RUN["xpath"], dtype=object), rank=np.asarray(RUN["rank"],
                                                                                            dtype=np.int64),
                              score=np.asarray(RUN["score"], dtype=np.float64), line=np.zeros(8, dtype=np.int64)))


def _tuples(columns: dict, order) -> list[tuple]:
    return list(zip(*(columns[name] for name in order), strict=False))


def test_the_case_tells_rank_from_score():
    with pytest.raises(ParameterError):  # scores 0.1 ... are no ranks
        PassageRun.from_records(_tuples(RUN, ("topic", "docno", "xpath", "rank", "score")),
                                fields=("topic", "docno", "xpath", "score", "rank"))
    integral = {**RUN, "score": [float(5 - r) if t == "t1" else float(r) for t, r in zip(RUN["topic"], RUN["rank"],
                                                                                         strict=False)]}
    right = PassageRun.from_records(_tuples(integral, ("topic", "docno", "xpath", "rank", "score")),
                                    fields=("topic", "docno", "xpath", "rank", "score"))
    wrong = PassageRun.from_records(_tuples(integral, ("topic", "docno", "xpath", "rank", "score")),
                                    fields=("topic", "docno", "xpath", "score", "rank"))
    assert _scores(right) != _scores(wrong)
    assert min(_reference()[:2]) > 0


@pytest.mark.parametrize("order", list(itertools.permutations(("topic", "docno", "xpath", "rank", "score"))))
def test_fields_in_every_order_give_the_same_numbers(order):
    run = PassageRun.from_records(_tuples(RUN, order), fields=order, name="r")
    assert run.rank.tolist() == RUN["rank"] and run.score.tolist() == RUN["score"]
    assert _scores(run) == _reference()


RUN_NAMES = {"topic": ["topic", "qid", "query_id", "q_id"], "docno": ["docno", "doc_id"], "xpath": ["xpath", "passage"],
             "rank": ["rank"], "score": ["score"]}
UNREAD = ["Q0", "tag", "query", "docid", "text"]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n_topics=st.integers(1, 3), seed=st.integers(0, 2**31))
def test_any_column_order_and_names_read_the_same_passage_run(data, n_topics, seed):
    rng = np.random.default_rng(seed)
    columns = {"topic": [], "docno": [], "xpath": [], "rank": [], "score": []}
    for t in range(n_topics):
        rank = 0
        for d in rng.choice(10, size=int(rng.integers(1, 5)), replace=False):
            for k in rng.choice(6, size=int(rng.integers(1, 4)), replace=False):
                rank += 1
                columns["topic"].append(f"t{t}")
                columns["docno"].append(f"d{d}")
                columns["xpath"].append(f"{D}/p[{k + 1}]")
                columns["rank"].append(rank)
                columns["score"].append(float(rng.integers(0, 4)))  # ties and integral scores
    roles = data.draw(st.permutations(list(columns) + data.draw(st.lists(st.sampled_from(UNREAD), unique=True,
                                                                            max_size=2))))
    names = tuple(data.draw(st.sampled_from(RUN_NAMES[role])) if role in RUN_NAMES else role for role in roles)
    values = {**columns, **{u: ["x"] * len(columns["topic"]) for u in UNREAD}}
    rows = _tuples(values, roles)
    run = PassageRun.from_records(rows, fields=names)
    for role in columns:
        assert getattr(run, role).tolist() == columns[role]
    as_dicts = PassageRun.from_records([dict(zip(names, row, strict=False)) for row in rows])
    as_named = PassageRun.from_records(pd.DataFrame(rows, columns=names).itertuples(index=False))
    for other in (as_dicts, as_named):
        for role in columns:
            assert getattr(other, role).tolist() == columns[role]
    # every topic's first passage judged (so every topic is scored), others by a stable parity
    judged = [(t, d, x) for i, (t, d, x) in enumerate(zip(columns["topic"], columns["docno"], columns["xpath"],
                                                          strict=False))
              if sum(map(ord, d + x)) % 2 or columns["topic"].index(t) == i]
    qrels = Qrels.from_frame(pd.DataFrame(judged, columns=["qid", "docno", "xpath"]).assign(label=1))
    scores = [pateval.evaluate(qrels, {"r": r}, ["P_psg", "MAP_psg", "AP"], resources={"passage_qrels": qrels})[
        "value"].tolist() for r in (run, as_dicts, as_named)]
    assert scores[0] == scores[1] == scores[2]


def test_qrels_read_an_xpath_column_as_the_passage():
    frame = pd.DataFrame({"qid": ["t1", "t1"], "docno": ["A", "B"], "xpath": [f"{D}/p[3]", f"{D}/p[1]"], "label": 1})
    qrels = Qrels.from_frame(frame)
    assert qrels.passage.tolist() == [f"{D}/p[3]", f"{D}/p[1]"]
    assert normalise_xpath(qrels.passage[0]) == qrels.passage[0]


def test_the_docs_example_of_passage_records_runs_as_written():
    import re
    import textwrap
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs/guides/ir-measures-pyterrier.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "PassageRun.from_records" in b]
    lines = textwrap.dedent(block).splitlines()
    refused = [line for line in lines if line.startswith("PassageRun.from_records")]
    namespace: dict = {}
    exec("\n".join(line for line in lines if line not in refused), namespace)  # noqa: S102 - the page's own code
    for run in (namespace["passage_run"], namespace["same"]):
        assert run.topic.tolist() == ["PSG-1"] and run.xpath.tolist() == ["/patent-document/abstract/p[1]"]
        assert run.rank.tolist() == [1] and run.score.tolist() == [2.5]
    (line,) = refused
    with pytest.raises(ParameterError) as error:
        exec(line, namespace)  # noqa: S102
    assert str(error.value) == refusal(("PSG-1", "EP-1", "/patent-document/abstract/p", 1, 2.5))
    assert "could be either way round; ..." in block
