"""PyTerrier pieces on a real built collection (no Java): topics, the tantivy baselines as
transformers, pt.Experiment with pateval measures and pateval's paired tests; the
collection as an ir_datasets-style dataset."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pt = pytest.importorskip("pyterrier")

import pateval  # noqa: E402
import pateval.pyterrier as ppt  # noqa: E402
from pateval.collection import open_dataset  # noqa: E402
from pateval.errors import ParameterError  # noqa: E402
from pateval.options import EvaluationOptions  # noqa: E402


@pytest.fixture(scope="module")
def frames(collection):
    topics = ppt.topics(collection["collection"])
    bm25 = ppt.TantivyRetriever(collection["index"], model="bm25", query="claims", depth=100)
    lm = ppt.TantivyRetriever(collection["index"], model="lm", query="title", depth=100)
    return {"topics": topics, "bm25": bm25, "lm": lm, "bm25_res": bm25(topics), "lm_res": lm(topics)}


def test_java_is_not_started(frames):
    assert not pt.java.started()


def test_topics_frame(frames, topics):
    frame = frames["topics"]
    assert list(frame.columns) == ["qid", "query", "patent"]
    assert frame["qid"].tolist() == [t.qid for t in topics]
    assert frame["query"].str.len().min() > 0


def test_retriever_gives_the_runs_of_pateval_search(frames, collection, tmp_path):
    res = frames["bm25_res"]
    assert list(res.columns[:4]) == ["qid", "docno", "score", "rank"]
    assert (res.groupby("qid")["rank"].min() == 0).all()
    expected = pateval.api.search(collection["index"], collection["collection"], model="bm25", query="claims",
                                  depth=100).as_dict()
    assert pateval.core.run.Run.from_frame(res).to_dict() == expected


def test_retriever_refuses_a_frame_without_the_topic_document(frames):
    with pytest.raises(ParameterError,
                       match=r"TantivyRetriever needs the columns qid and patent \(the topic document\); "
                                             r"the frame has no patent \(columns: qid, query\)"):
        frames["bm25"](pd.DataFrame({"qid": ["1"], "query": ["chair"]}))


def test_experiment_with_pateval_measures_equals_pateval_evaluate(frames, collection):
    qrels = ppt.qrels(collection["collection"])
    names = ["AP", "PRES@100", "R@100", "nDCG@10"]
    table = pt.Experiment([frames["bm25_res"], frames["lm_res"]], frames["topics"][["qid", "query"]], qrels,
                          ppt.measures(*names), names=["bm25", "lm"])
    runs = {"bm25": frames["bm25_res"], "lm": frames["lm_res"]}
    expected = pateval.aggregate(pateval.evaluate(collection["qrels"], runs, names, complete=True))
    for _, row in expected.iterrows():
        got = table.loc[table["name"] == row["run"], row["measure"]].iloc[0]
        assert got == pytest.approx(row["value"], abs=1e-12, rel=0), (row["run"], row["measure"])
    assert table["PRES@100"].max() > 0


def test_experiment_with_cube_test_and_tbg(frames, collection, tmp_path):
    """Claim-level qrels (claims in iteration) for CT/ACT, document lengths for TBG."""
    with pateval.api.open_corpus(collection["store"]) as store:
        lengths = store.doc_lengths()
    ppt_qrels = ppt.qrels(collection["collection"], level="claims")
    assert "iteration" in ppt_qrels.columns
    names = ["CT(gamma=0.5)@10", "ACT@10", "TBG"]
    import pateval.ir_measures as pim

    pim.set_resources(doc_lengths=lengths)
    try:
        table = pt.Experiment([frames["bm25_res"], frames["lm_res"]], frames["topics"][["qid", "query"]], ppt_qrels,
                              ppt.measures(*names), names=["bm25", "lm"], perquery=True)
    finally:
        pim.clear_resources()
    claims = collection["collection"] / "qrels_PAC_claims.txt"
    expected = pateval.evaluate(claims, {"bm25": frames["bm25_res"], "lm": frames["lm_res"]},
                                ["CT(gamma=0.5)@10", "ACT@10", "TBG"], qrels_format="subtopic",
                                resources={"doc_lengths": lengths}, complete=True)
    merged = expected.merge(table, left_on=["run", "topic", "measure"], right_on=["name", "qid", "measure"])
    assert len(merged) == len(expected) > 0
    assert np.max(np.abs(merged["value_x"] - merged["value_y"])) <= 1e-12
    assert merged["value_x"].max() > 0


@pytest.mark.parametrize("test", ["randomisation", "bootstrap", "t"])
def test_paired_tests_in_experiment_equal_pateval_compare(frames, collection, test):
    qrels = ppt.qrels(collection["collection"])
    table = pt.Experiment([frames["bm25_res"], frames["lm_res"]], frames["topics"][["qid", "query"]], qrels,
                          ppt.measures("AP", "PRES@100"), names=["bm25", "lm"], baseline=0,
                          test=ppt.PairedTest(test, B=2000, seed=7))
    comparison = pateval.api.compare(collection["qrels"], {"bm25": frames["bm25_res"], "lm": frames["lm_res"]},
                                     ["AP", "PRES@100"], baseline="bm25", test=test, correction=None, seed=7, B=2000,
                                     options=EvaluationOptions(complete=True))
    tests = comparison.tests
    for measure in ("AP", "PRES@100"):
        p = tests.loc[tests["measure"] == measure, "p_value"].iloc[0]
        assert table.loc[table["name"] == "lm", f"{measure} p-value"].iloc[0] == pytest.approx(p, abs=1e-12)


def test_paired_test_refuses_unknown_tests():
    with pytest.raises(ParameterError, match="test must be one of t, wilcoxon, randomisation, bootstrap; got 'tukey'"):
        ppt.PairedTest("tukey")


def test_open_dataset(collection):
    ds = open_dataset(collection["collection"], store=collection["store"])
    queries = list(ds.queries_iter())
    qrels = list(ds.qrels_iter())
    assert queries and qrels and type(qrels[0]).__name__ == "TrecQrel" and qrels[0]._fields == (
        "query_id", "doc_id", "relevance", "iteration")
    claims = list(ds.qrels_iter(level="claims"))
    assert claims[0]._fields == ("query_id", "doc_id", "relevance", "subtopic_id")
    # code written for ir_datasets: qrels records straight into pateval, read by name
    from pateval.core.qrels import Qrels

    assert Qrels.from_records(qrels).to_dict() == pateval.read_qrels(collection["qrels"]).to_dict()
    assert Qrels.from_records(claims).has_subtopics
    if (collection["collection"] / "qrels_PSG.txt").is_file():
        passages = list(ds.qrels_iter(level="passage"))
        assert passages and passages[0]._fields == ("query_id", "doc_id", "passage", "relevance")
        assert all(p.passage.startswith("/patent-document/") for p in passages)
    with pytest.raises(ParameterError, match="level must be one of document, claims, passage; got 'claim'"):
        list(ds.qrels_iter(level="claim"))
    docs = list(ds.docs_iter())
    assert len(docs) == ds.docs_count() > 0
    assert all(d.doc_id for d in docs) and sum(bool(d.claims) for d in docs) > len(docs) / 2
    judged = {q.doc_id for q in qrels}
    assert judged <= {d.doc_id for d in docs}
    with pytest.raises(ParameterError, match="documents need the corpus store the collection was built from"):
        next(open_dataset(collection["collection"]).docs_iter())


def test_experiment_runs_the_transformer_beside_another_systems_frame(frames, collection):
    """pt.Experiment calls TantivyRetriever itself; a frame from another engine (here the LM
    run's frame, as a PISA or Terrier run would come) stands beside it."""
    qrels = ppt.qrels(collection["collection"])
    table = pt.Experiment([frames["bm25"], frames["lm_res"]], frames["topics"], qrels, ppt.measures("AP", "PRES@100"),
                          names=["tantivy-bm25", "other-engine"])
    expected = pateval.aggregate(pateval.evaluate(collection["qrels"], {"bm25": frames["bm25_res"]}, ["AP", "PRES@100"],
                                                  complete=True))
    for measure in ("AP", "PRES@100"):
        value = expected.loc[expected["measure"] == measure, "value"].iloc[0]
        assert table.loc[table["name"] == "tantivy-bm25", measure].iloc[0] == pytest.approx(value, abs=1e-12, rel=0)
    assert not pt.java.started()
