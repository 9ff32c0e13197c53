"""The ecosystem's objects in and out: frames, named records, ranx objects, ir_measures measures.

Each silent failure the issue lists is checked to give the right numbers or a clear refusal.
"""

from __future__ import annotations

import pandas as pd
import pytest

import pateval
from pateval.core.qrels import Qrels
from pateval.core.run import Run
from pateval.errors import InputFormatError, ParameterError

ir_measures = pytest.importorskip("ir_measures")
ir_datasets_formats = pytest.importorskip("ir_datasets.formats")

QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1}}
RUN = {"q1": {"d2": 3.0, "d1": 2.0, "d3": 1.0}, "q2": {"d5": 2.0, "d4": 1.0}}


def _expected(measures=("AP", "P@1", "PRES@10")):
    return pateval.evaluate(QRELS, RUN, list(measures))["value"].tolist()


def _pyterrier_res():
    rows = [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    frame = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    frame["rank"] = frame.groupby("qid").cumcount()  # PyTerrier ranks from 0
    frame["docid"] = range(len(frame))
    frame["query"] = "some words"
    return frame


def test_pyterrier_frames_are_one_run_not_column_names():
    qrels = pd.DataFrame([(q, d, r) for q, docs in QRELS.items() for d, r in docs.items()], columns=["qid", "docno",
                                                                                                     "label"])
    assert pateval.evaluate(qrels, _pyterrier_res(), ["AP", "P@1", "PRES@10"])["value"].tolist() == _expected()


def test_ir_measures_and_ranx_frames():
    run = _pyterrier_res().rename(columns={"qid": "query_id", "docno": "doc_id"})[["query_id", "doc_id", "score"]]
    qrels = pd.DataFrame([(q, d, r) for q, docs in QRELS.items() for d, r in docs.items()],
                         columns=["query_id", "doc_id", "relevance"])
    assert pateval.evaluate(qrels, run, ["AP", "P@1", "PRES@10"])["value"].tolist() == _expected()
    ranx_run = run.rename(columns={"query_id": "q_id"})
    ranx_qrels = qrels.rename(columns={"query_id": "q_id", "relevance": "score"})
    assert pateval.evaluate(ranx_qrels, ranx_run, ["AP", "P@1", "PRES@10"])["value"].tolist() == _expected()


def test_trec_qrel_records_read_by_name_not_as_subtopics():
    """ir_datasets' TrecQrel(query_id, doc_id, relevance, iteration) used to be read by
    position as (topic, subtopic, docno, rel): every AP 0.0."""
    TrecQrel = ir_datasets_formats.TrecQrel
    records = [TrecQrel(q, d, r, "0") for q, docs in QRELS.items() for d, r in docs.items()]
    qrels = Qrels.from_records(iter(records))
    assert not qrels.has_subtopics and qrels.to_dict() == QRELS
    assert pateval.evaluate(records, RUN, ["AP", "P@1", "PRES@10"])["value"].tolist() == _expected()
    with pytest.raises(ParameterError, match=r"plain tuples are read by position only as \(topic, docno, rel\) with an "
                                             r"integer rel; got \('q1', 'd1', 1, '0'\)"):
        Qrels.from_records([tuple(r) for r in records])
    assert Qrels.from_records([tuple(r) for r in records], fields=TrecQrel._fields).to_dict() == QRELS


def test_trec_sub_qrels_keep_subtopics():
    TrecSubQrel = ir_datasets_formats.TrecSubQrel
    records = [TrecSubQrel("q1", "d1", 1, "s1"), TrecSubQrel("q1", "d2", 1, "s2"), TrecSubQrel("q1", "d1", 2, "s2")]
    qrels = Qrels.from_records(records)
    assert qrels.has_subtopics and qrels.subtopic.tolist() == ["s1", "s2", "s2"]
    by_tuples = Qrels.from_records([("q1", "s1", "d1", 1), ("q1", "s2", "d2", 1), ("q1", "s2", "d1", 2)],
                                   fields=("topic", "subtopic", "docno", "rel"))
    run = {"q1": {"d2": 2.0, "d1": 1.0}}
    assert (pateval.evaluate(qrels, run, ["alpha_nDCG@2", "I_rec@1"])["value"].tolist()
            == pateval.evaluate(by_tuples, run, ["alpha_nDCG@2", "I_rec@1"])["value"].tolist())


def test_ir_measures_namedtuples():
    qrels = [ir_measures.Qrel(q, d, r) for q, docs in QRELS.items() for d, r in docs.items()]
    run = [ir_measures.ScoredDoc(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    assert pateval.evaluate(qrels, run, ["AP", "P@1", "PRES@10"])["value"].tolist() == _expected()
    # iteration as subtopics only on request (ir_measures' convention for diversity qrels)
    diverse = Qrels.from_records([ir_measures.Qrel("q1", "d1", 1, "s1"), ir_measures.Qrel("q1", "d2", 1, "s2")],
                                 subtopics="iteration")
    assert diverse.subtopic.tolist() == ["s1", "s2"]


def test_pyterrier_column_order_as_plain_tuples_is_refused_not_swapped():
    """Run.from_records with PyTerrier's (qid, docno, score, rank) used to swap score and rank."""
    rows = list(_pyterrier_res()[["qid", "docno", "score", "rank"]].itertuples(index=False, name=None))
    with pytest.raises(ParameterError,
                       match=r"plain tuples are read by position only as \(topic, docno, score\) with a "
                                             r"numeric score; got \('q1', 'd2', 3.0, 0\)"):
        Run.from_records(rows)
    named = Run.from_records(_pyterrier_res()[["qid", "docno", "score", "rank"]].itertuples(index=False))
    assert named.to_dict() == RUN
    explicit = Run.from_records(rows, fields=("qid", "docno", "score", "rank"))
    assert explicit.to_dict() == RUN and explicit.rank.tolist() == [0, 1, 2, 0, 1]


def test_ranx_objects():
    ranx = pytest.importorskip("ranx")
    qrels = ranx.Qrels.from_dict(QRELS)
    run = ranx.Run.from_dict(RUN, name="rx")
    frame = pateval.evaluate(qrels, run, ["AP", "P@1", "PRES@10"])
    assert frame["value"].tolist() == _expected() and set(frame["run"]) == {"rx"}
    # and back: a pateval run into ranx.evaluate gives ranx's number for a measure both define
    ours = Run.from_dict(RUN, name="r")
    back = ranx.Run.from_df(ours.to_frame(style="ranx"))
    assert ranx.evaluate(ranx.Qrels.from_df(Qrels.from_dict(QRELS).to_frame(style="ranx")), back, "map") == \
        pytest.approx(pateval.aggregate(pateval.evaluate(QRELS, RUN, "AP"))["value"][0], abs=1e-12)
    # fused by ranx, evaluated by pateval: the fused run is ranx's, read as it is
    other = ranx.Run.from_df(Run.from_dict({"q1": {"d1": 5.0, "d3": 4.0}, "q2": {"d4": 3.0}},
                                           name="o").to_frame(style="ranx"))
    fused = ranx.fuse([back, other], method="rrf")
    frame = pateval.evaluate(QRELS, fused, ["AP"])
    assert frame["value"].tolist() == pateval.evaluate(QRELS, fused.to_dict(), ["AP"])["value"].tolist()


def test_ir_measures_measure_objects():
    frame = pateval.evaluate(QRELS, RUN, [ir_measures.AP, ir_measures.P @ 1, ir_measures.nDCG @ 10,
                                          ir_measures.RR(rel=2)])
    assert list(pd.unique(frame["measure"])) == ["AP", "P@1", "nDCG@10", "RR(rel=2)"]
    assert frame["value"].tolist()[:4] == _expected(["AP", "P@1"])
    # Judged@k is pateval's too (issue 14): the same values as ir_measures' own
    judged = pateval.evaluate(QRELS, RUN, [ir_measures.Judged @ 2])
    assert list(pd.unique(judged["measure"])) == ["Judged@2"]
    assert judged["value"].mean() == pytest.approx(ir_measures.calc_aggregate([ir_measures.Judged @ 2], QRELS, RUN)[
        ir_measures.Judged @ 2], abs=1e-12)
    # ERR is pateval's too (issue 22): gdeval's values (gdeval reads numeric topics only; it prints 5 decimals)
    qrels, run = ({topic[1:]: docs for topic, docs in given.items()} for given in (QRELS, RUN))
    err = pateval.evaluate(qrels, run, [ir_measures.ERR @ 10])
    assert list(pd.unique(err["measure"])) == ["ERR@10"]
    assert err["value"].mean() == pytest.approx(ir_measures.calc_aggregate([ir_measures.ERR @ 10], qrels, run)[
        ir_measures.ERR @ 10], abs=5e-6)
    # every measure of ir_measures' catalogue has a pateval equivalent now; some of their parameters do not
    with pytest.raises(ParameterError, match=r"the ir_measures measure nDCG\(dcg='exp-log2'\)@10 has no pateval "
                                             r"equivalent \(nDCG has no parameter 'dcg'"):
        pateval.evaluate(QRELS, RUN, [ir_measures.nDCG(dcg="exp-log2") @ 10])


@pytest.mark.parametrize("frame, message", [
    (pd.DataFrame({"qid": ["q1"], "docid": [3], "score": [1.0]}),
     "the run frame has no docno column (columns: qid, docid, score) (PyTerrier's docid is Terrier's internal number, "
     "not a document name: add docno). Expected a topic column"),
    (pd.DataFrame({"qid": ["q1"], "query_id": ["q1"], "docno": ["d"], "score": [1.0]}),
     "the run frame has columns qid and query_id, which both name the topic: keep one"),
    (pd.DataFrame({"a": [1], "b": [2], "c": [3]}),
     "the run frame has no topic or docno or score column (columns: a, b, c)"),
])
def test_frames_with_unknown_or_ambiguous_columns_are_refused(frame, message):
    with pytest.raises(ParameterError) as error:
        pateval.evaluate(QRELS, frame, "AP")
    assert str(error.value).startswith(message)


def test_bare_qrels_frame_without_grade_is_refused():
    with pytest.raises(ParameterError, match=r"the qrels frame has no rel column \(columns: qid, docno\)"):
        Qrels.from_frame(pd.DataFrame({"qid": ["q1"], "docno": ["d1"]}))
    # issue 30: a fractional grade is read as it is (float64 grades), no longer refused
    assert Qrels.from_frame(pd.DataFrame({"qid": ["q1"], "docno": ["d1"], "label": [0.5]})).rel.tolist() == [0.5]


@pytest.mark.parametrize("style, columns", [
    ("pateval", ["topic", "docno", "score", "rank"]), ("pyterrier", ["qid", "docno", "score", "rank"]),
    ("ir_measures", ["query_id", "doc_id", "score"]), ("ranx", ["q_id", "doc_id", "score"]),
])
def test_run_to_frame_round_trips(style, columns):
    run = Run.from_dict(RUN, name="r")
    frame = run.to_frame(style=style)
    assert list(frame.columns) == columns
    assert Run.from_frame(frame).to_dict() == RUN
    assert pateval.evaluate(QRELS, frame, ["AP", "P@1", "PRES@10"])["value"].tolist() == _expected()


def test_pyterrier_style_sorts_and_ranks_from_zero():
    frame = Run.from_records([("q1", "b", 1.0), ("q1", "a", 1.0), ("q1", "c", 5.0)]).to_frame(style="pyterrier")
    assert frame["docno"].tolist() == ["c", "b", "a"] and frame["rank"].tolist() == [0, 1, 2]


@pytest.mark.parametrize("style, columns", [
    ("pateval", ["topic", "docno", "rel"]), ("pyterrier", ["qid", "docno", "label"]),
    ("ir_measures", ["query_id", "doc_id", "relevance"]), ("ranx", ["q_id", "doc_id", "score"]),
])
def test_qrels_to_frame_round_trips(style, columns):
    qrels = Qrels.from_dict(QRELS)
    frame = qrels.to_frame(style=style)
    assert list(frame.columns) == columns
    assert Qrels.from_frame(frame).to_dict() == QRELS


def test_subtopic_qrels_to_ir_measures_keep_subtopics_in_iteration():
    qrels = Qrels.from_records([("q1", "s1", "d1", 1), ("q1", "s2", "d1", 2)], fields=("topic", "subtopic", "docno",
                                                                                       "rel"))
    assert qrels.to_frame(style="ir_measures")["iteration"].tolist() == ["s1", "s2"]
    assert qrels.to_frame(style="pyterrier").to_dict("records") == [{"qid": "q1", "docno": "d1", "label": 2}]
    with pytest.raises(ParameterError, match="style must be one of"):
        qrels.to_frame(style="trec")


def test_results_with_pyterrier_column_names():
    frame = pateval.evaluate(QRELS, RUN, ["AP"], style="pyterrier")
    assert list(frame.columns) == ["name", "qid", "measure", "value"] and frame["value"].tolist() == _expected(["AP"])
    with pytest.raises(ParameterError, match=r"style must be one of 'pateval', 'pyterrier'; got 'ranx'"):
        pateval.evaluate(QRELS, RUN, ["AP"], style="ranx")


def test_a_document_twice_for_a_topic_is_refused():
    frame = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["d1", "d1", "d1"], "score": [2.0, 1.0, 1.0]})
    # refused as the same rows in a Parquet file are, naming the row (issue 21)
    with pytest.raises(InputFormatError,
                       match=r"^<memory>: document 'd1' retrieved twice for topic 'q1' \(row 2\); use on_duplicate"):
        Run.from_frame(frame)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(st.tuples(st.sampled_from(["q1", "q2", "10"]), st.text("abcd", min_size=1, max_size=3)),
                       st.floats(-100, 100, allow_nan=False), min_size=1, max_size=15),
       st.sampled_from(["pateval", "pyterrier", "ir_measures", "ranx"]), st.randoms(use_true_random=False))
def test_any_style_and_column_order_reads_back_the_same_run(rows, style, random):
    run = Run.from_records([(t, d, s) for (t, d), s in rows.items()], name="r")
    frame = run.to_frame(style=style)
    columns = list(frame.columns)
    random.shuffle(columns)
    again = Run.from_frame(frame[columns])
    assert again.to_dict() == run.to_dict()
    named = Run.from_records(frame[columns].itertuples(index=False))
    assert named.to_dict() == run.to_dict()
    qrels = Qrels.from_records([(t, d, int(s)) for (t, d), s in rows.items()])
    assert Qrels.from_frame(qrels.to_frame(style=style)).to_dict() == qrels.to_dict()


def test_iterators_of_records_and_lists_of_run_dicts():
    qrels = (ir_measures.Qrel(q, d, r) for q, docs in QRELS.items() for d, r in docs.items())  # like qrels_iter()
    run = (ir_measures.ScoredDoc(q, d, s) for q, docs in RUN.items() for d, s in docs.items())
    assert pateval.evaluate(qrels, run, ["AP", "P@1", "PRES@10"])["value"].tolist() == _expected()
    # a list holding a {topic: {docno: score}} run is a list of runs, not dict records
    assert pateval.evaluate(QRELS, [RUN], ["AP"])["value"].tolist() == _expected(["AP"])
    records = [{"qid": q, "docno": d, "score": s} for q, docs in RUN.items() for d, s in docs.items()]
    assert pateval.evaluate(QRELS, records, ["AP"])["value"].tolist() == _expected(["AP"])


def test_trec_order_with_numeric_iteration_as_plain_tuples_is_refused():
    with pytest.raises(ParameterError, match=r"got \('q1', 'd1', 1, 0\)"):
        Qrels.from_records([("q1", "d1", 1, 0)])


def test_judged_counts_negative_grades_as_judged_as_ir_measures_does():
    """A qrels entry with a negative grade is judged for Judged@k (ir_measures' rule): qrels
    d1 1, d2 -1, d3 0 and a run d1, d2, d4 give 2/3, not 1/3."""
    qrels = [ir_measures.Qrel("q1", "d1", 1), ir_measures.Qrel("q1", "d2", -1), ir_measures.Qrel("q1", "d3", 0)]
    run = [ir_measures.ScoredDoc("q1", "d1", 3.0), ir_measures.ScoredDoc("q1", "d2", 2.0),
           ir_measures.ScoredDoc("q1", "d4", 1.0)]
    ours = pateval.evaluate(qrels, run, ["Judged@3"])["value"].tolist()
    theirs = ir_measures.calc_aggregate([ir_measures.Judged @ 3], qrels, run)[ir_measures.Judged @ 3]
    assert ours == [pytest.approx(2 / 3, abs=1e-12)]
    assert theirs == pytest.approx(2 / 3, abs=1e-12)


@pytest.mark.parametrize("rel", [1, 2])
def test_ir_measures_num_rel_ret_is_accepted(rel):
    """ir_measures' NumRelRet is its NumRet(rel=1): pateval's NumRelRet, per topic equal to ir_measures'."""
    measure = ir_measures.NumRelRet if rel == 1 else ir_measures.NumRet(rel=rel)
    ours = pateval.evaluate(QRELS, RUN, [measure])
    assert list(pd.unique(ours["measure"])) == ["NumRelRet" if rel == 1 else f"NumRelRet(rel={rel})"]
    theirs = {m.query_id: m.value for m in ir_measures.iter_calc([measure], QRELS, RUN)}
    assert dict(zip(ours["topic"], ours["value"], strict=True)) == theirs
    assert pateval.evaluate(QRELS, RUN, [ir_measures.NumRet])["value"].tolist() == [3, 2]
