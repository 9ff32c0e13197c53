"""Parquet runs and qrels: read by content, with PyTerrier's, ir_measures' or pateval's column
names, the same numbers as the text files, and worded errors."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pateval
from pateval.errors import InputFormatError
from pateval.formats.qrels import read_qrels
from pateval.formats.trec import read_run

MEASURES = ["AP", "P@5", "nDCG@10", "R@100", "Bpref", "NumRet"]


def _text_files(tmp_path, qrels_rows, run_rows):
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"{t} 0 {d} {r}\n" for t, d, r in qrels_rows))
    run = tmp_path / "r.txt"
    run.write_text("".join(f"{t} Q0 {d} {k} {s!r} tagged\n" for t, d, s, k in run_rows))
    return qrels, run


def _values(qrels, run):
    frame = pateval.evaluate(qrels, run, MEASURES)
    return {(t, m): v for t, m, v in zip(frame["topic"], frame["measure"], frame["value"], strict=False)}


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), names=st.sampled_from([("qid", "docno", "label"), ("query_id", "doc_id",
                                                                                       "relevance"),
                                                           ("topic", "docno", "rel")]),
       rank=st.booleans(), row_groups=st.sampled_from([None, 7]))
def test_parquet_gives_the_text_files_numbers(tmp_path_factory, seed, names, rank, row_groups):
    tmp_path = tmp_path_factory.mktemp("pq")
    rng = np.random.default_rng(seed)
    topics = [f"t{k}" for k in range(int(rng.integers(1, 5)))]
    run_rows, qrels_rows = [], []
    for t in topics:
        docs = rng.permutation(40)[: int(rng.integers(1, 25))]
        scores = np.round(rng.random(len(docs)) * 10, 1)  # ties, broken by docno as trec_eval does
        run_rows += [(t, f"d{d}", float(s), k) for k, (d, s) in enumerate(zip(docs, scores, strict=False), start=1)]
        qrels_rows += [(t, f"d{d}", int(rng.integers(0, 3))) for d in rng.permutation(40)[:15]]
    text_qrels, text_run = _text_files(tmp_path, qrels_rows, run_rows)
    topic_name, doc_name, grade_name = names
    run_table = {topic_name: [r[0] for r in run_rows], doc_name: [r[1] for r in run_rows],
                 "score": [r[2] for r in run_rows]}
    if rank:
        run_table["rank"] = [r[3] for r in run_rows]
    pq.write_table(pa.table(run_table), tmp_path / "run.parquet", row_group_size=row_groups)
    pq.write_table(pa.table({topic_name: [r[0] for r in qrels_rows], doc_name: [r[1] for r in qrels_rows],
                             grade_name: [r[2] for r in qrels_rows]}), tmp_path / "qrels.bin")  # any name
    assert _values(tmp_path / "qrels.bin", tmp_path / "run.parquet") == _values(text_qrels, text_run)
    run = read_run(tmp_path / "run.parquet")
    assert run.name == "run" and len(run) == len(run_rows)


def test_the_run_name_comes_from_a_run_column(tmp_path):
    path = tmp_path / "bm25.res.parquet"
    pq.write_table(pa.table({"qid": ["q1", "q1"], "docno": ["a", "b"], "score": [2.0, 1.0], "run": ["BM25", "BM25"]}),
                   path)
    assert read_run(path).name == "BM25"
    pq.write_table(pa.table({"qid": ["q1"], "docno": ["a"], "score": [2.0]}), path)
    assert read_run(path).name == "bm25" and read_run(path, name="x").name == "x"


@pytest.mark.parametrize("table, message", [
    ({"qid": ["q1"], "score": [1.0]},
     "a Parquet run needs a document column (expected docno or doc_id, found 'columns qid, score')"),
    ({"qid": ["q1"], "docno": ["a"]},
     "a Parquet run needs a score column (expected score, found 'columns qid, docno')"),
    ({"qid": ["q1", "q1"], "docno": ["a", None], "score": [1.0, 2.0]}, "a null value in column 'docno' (row 2)"),
    ({"qid": ["q1", "q1"], "docno": ["a", ""], "score": [1.0, 2.0]}, "an empty id in column 'docno' (row 2)"),
    ({"qid": ["q1", "q1", "q1"], "docno": ["a", "b", "c"], "score": [1.0, 2.0, float("nan")]},
     "a NaN in column 'score' (row 3)"),
    ({"qid": ["q1"], "docno": ["a"], "score": ["high"]}, "column 'score' holds string, not numbers"),
    ({"qid": ["q1", "q1"], "docno": ["a", "a"], "score": [1.0, 2.0]},
     "document 'a' retrieved twice for topic 'q1' (row 2); use on_duplicate='first' (--on-duplicate first) to keep the "
     "first"),
])
def test_bad_parquet_runs_are_worded(tmp_path, table, message):
    path = tmp_path / "run.parquet"
    pq.write_table(pa.table(table), path)
    with pytest.raises(InputFormatError) as error:
        read_run(path)
    assert str(error.value) == f"{path}: {message}"


def test_parquet_qrels_repeats(tmp_path):
    path = tmp_path / "q.parquet"
    pq.write_table(pa.table({"qid": ["q1", "q1", "q1"], "docno": ["a", "b", "a"], "label": [1, 0, 1]}), path)
    qrels = read_qrels(path)
    assert len(qrels) == 2 and qrels.notes == (f"{path}: 1 repeated judgement row(s) merged",)
    pq.write_table(pa.table({"qid": ["q1", "q1"], "docno": ["a", "a"], "label": [1, 2]}), path)
    with pytest.raises(InputFormatError) as error:
        read_qrels(path)
    assert str(error.value) == (f"{path}: conflicting judgements of document 'a' for topic 'q1': 1 on row 1, 2 on row "
                                f"2; "
                                "use on_duplicate='first' (--on-duplicate first) to keep the first")
    assert list(read_qrels(path, on_duplicate="first").rel) == [1]


def test_a_damaged_parquet_file_is_named(tmp_path):
    path = tmp_path / "run.parquet"
    path.write_bytes(b"PAR1" + b"\x00" * 20)
    with pytest.raises(InputFormatError, match=r"run\.parquet: not a readable Parquet file"):
        read_run(path)


def test_run_null_reported_at_earliest_row_across_columns(tmp_path):
    # doc_id null at row 2, query_id null at row 3: row 2 is named (it named row 3 before)
    from pateval.formats.parquet import read_parquet_run

    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({"query_id": ["q1", "q1", None], "doc_id": ["d1", None, "d3"],
                             "score": [3.0, 2.0, 1.0]}), path)
    with pytest.raises(InputFormatError) as raised:
        read_parquet_run(path)
    assert str(raised.value) == f"{path}: a null value in column 'doc_id' (row 2)"
