"""Parquet runs read and scored in blocks of whole topics (row ranges cut where the topic
changes) give the frame, notes and errors of the same run as text, and of the Parquet file
read whole: tiny blocks, small row groups, scattered topics, every order."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pateval
from pateval import api
from pateval.errors import InputFormatError
from pateval.formats.parquet import ParquetBlockReader, parquet_run_blocks, read_parquet_run
from pateval.formats.runblocks import RunFile, readable_in_blocks

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # topics left out: told, and the same both ways

MEASURES = ["AP", "P@5", "nDCG@10", "R@1000", "RR", "NumRet", "NumRelRet", "bpref", "PRES@20"]


def _rows(rng: random.Random, topics: int, *, ties: bool = True) -> list[tuple[str, str, int, float]]:
    rows = []
    for t in range(topics):
        docs = rng.sample(range(60), rng.randint(1, 25))
        for k, d in enumerate(docs):
            score = rng.choice([1.0, 2.0, 2.5]) if ties else round(rng.uniform(-3, 3), 3)
            rows.append((f"q{t}", f"EP-{d % 20:07d}-{'AB'[d // 20 % 2]}{1 + d // 40}", k + 1, score))
    return rows


def _qrels(path, rng: random.Random, topics: int):
    lines = []
    for t in range(topics):
        for d in rng.sample(range(60), rng.randint(1, 15)):
            lines.append(f"q{t} 0 EP-{d % 20:07d}-{'AB'[d // 20 % 2]}{1 + d // 40} {rng.choice([-1, 0, 0, 1, 2])}\n")
    path.write_text("".join(lines))
    return path


def _write(tmp, rows, *, row_group_size=None, tag="sys"):
    text = tmp / "run.txt"
    text.write_text("".join(f"{t} Q0 {d} {k} {s!r} {tag}\n" for t, d, k, s in rows))
    parquet = tmp / "run.parquet"
    pq.write_table(pa.table({"qid": [r[0] for r in rows], "docno": [r[1] for r in rows], "score": [r[3] for r in rows],
                             "rank": [r[2] for r in rows], "run": [tag] * len(rows)}), parquet,
                   row_group_size=row_group_size)
    return text, parquet


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), block_bytes=st.sampled_from([1, 7, 60, 300, 5000, 0]), scatter=st.booleans(),
       row_group_size=st.sampled_from([None, 1, 5, 13]), complete=st.booleans(),
       order=st.sampled_from(["score", "rank", "file"]), doc_key=st.sampled_from(["publication", "patent"]))
def test_parquet_blocks_give_the_frame_and_notes_of_the_text_run(tmp_path_factory, seed, block_bytes, scatter,
                                                                   row_group_size, complete, order, doc_key):
    rng = random.Random(seed)
    tmp = tmp_path_factory.mktemp("pqblocks")
    rows = _rows(rng, rng.randint(1, 12))
    if scatter:  # one topic's rows over the whole file: read as one block
        rng.shuffle(rows)
    text, parquet = _write(tmp, rows, row_group_size=row_group_size)
    qrels = _qrels(tmp / "qrels.txt", rng, rng.randint(1, 14))
    options = dict(complete=complete, order=order, doc_key=doc_key, work_dir=tmp)
    from_text = api.evaluation(qrels, text, MEASURES, block_bytes=0, **options)
    whole = api.evaluation(qrels, parquet, MEASURES, block_bytes=0, **options)
    blocks = api.evaluation(qrels, parquet, MEASURES, block_bytes=block_bytes, **options)
    for other in (whole, blocks):
        pd.testing.assert_frame_equal(from_text.frame, other.frame, check_exact=True)
        assert np.array_equal(from_text.frame["value"].to_numpy().view(np.int64),
                              other.frame["value"].to_numpy().view(np.int64))
        assert from_text.notes == other.notes
    ranges, name = parquet_run_blocks(parquet, block_bytes or 1)
    assert name == "sys" and ranges[0][0] == 0 and ranges[-1][1] == len(rows)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))


def test_block_ranges_hold_whole_topics_across_row_groups(tmp_path):
    rows = [(f"q{t}", f"D{d}", d + 1, 30.0 - d) for t in range(5) for d in range(30)]
    _, parquet = _write(tmp_path, rows, row_group_size=7)  # row groups cut through every topic
    ranges, _ = parquet_run_blocks(parquet, 1)
    assert ranges == [(30 * t, 30 * t + 30) for t in range(5)]  # one topic per block
    reader = ParquetBlockReader(parquet)
    whole = read_parquet_run(parquet)
    for start, stop in ranges:
        block = reader.read(start, stop, name="sys")
        assert list(block.topic_ids) == [rows[start][0]]  # the row group's other topics are not the block's
        assert block.row_doc_ids().to_pylist() == whole.row_doc_ids().to_pylist()[start:stop]
        assert block.score.tolist() == whole.score[start:stop].tolist()
    assert readable_in_blocks(parquet)


def test_scattered_topics_make_one_block(tmp_path):
    rows = [("q1", "a", 1, 3.0), ("q2", "b", 1, 2.0), ("q1", "c", 2, 1.0)]
    _, parquet = _write(tmp_path, rows, row_group_size=1)
    assert parquet_run_blocks(parquet, 1) == ([(0, 3)], "sys")


def test_the_run_name_is_the_same_whatever_the_block(tmp_path):
    path = tmp_path / "bm25.parquet"
    pq.write_table(pa.table({"qid": ["q1", "q2"], "docno": ["a", "b"], "score": [2.0, 1.0], "run": ["x", "y"]}), path)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\n")
    assert parquet_run_blocks(path, 1) == ([(0, 2)], None)  # two tags: read whole, which refuses or takes the last
    for block_bytes in (1, 0):
        with pytest.raises(InputFormatError) as caught:
            pateval.evaluate(qrels, path, ["AP"], block_bytes=block_bytes)
        assert str(caught.value) == f"{path}: mixed run tags: 'x' on row 1, 'y' (row 2)"
    assert set(pateval.evaluate(qrels, [RunFile(path, mixed_tags="last")], ["AP"], block_bytes=1)["run"]) == {"y"}
    assert set(pateval.evaluate(qrels, [RunFile(path, mixed_tags="last")], ["AP"], block_bytes=0)["run"]) == {"y"}
    assert read_parquet_run(path, mixed_tags="last").name == "y"
    for tags, name in ((["x", "x"], "x"), ([7, 7], "7")):
        pq.write_table(pa.table({"qid": ["q1", "q2"], "docno": ["a", "b"], "score": [2.0, 1.0], "run": tags}), path,
                       row_group_size=1)
        assert parquet_run_blocks(path, 1)[1] == name
        assert set(pateval.evaluate(qrels, path, ["AP"],
                                    block_bytes=1)["run"]) == {name} == {read_parquet_run(path).name}
    pq.write_table(pa.table({"qid": ["q1", "q2"], "docno": ["a", "b"], "score": [2.0, 1.0], "run": ["x", None]}), path,
                   row_group_size=1)
    for block_bytes in (1, 0):  # a null tag, as a null anywhere
        with pytest.raises(InputFormatError, match=r"a null value in column 'run' \(row 2\)"):
            pateval.evaluate(qrels, path, ["AP"], block_bytes=block_bytes)


def _error(function):
    with pytest.raises(InputFormatError) as caught:
        function()
    return str(caught.value)


@pytest.mark.parametrize("column, value, expected", [
    ("docno", None, "a null value in column 'docno' (row 32)"),
    ("docno", "", "an empty id in column 'docno' (row 32)"),
    ("score", float("nan"), "a NaN in column 'score' (row 32)"),
    ("docno", "D1", "document 'D1' retrieved twice for topic 'q3' (row 32); use on_duplicate='first' "
                    "(--on-duplicate first) to keep the first"),
])
def test_a_bad_row_in_a_later_block_is_named_as_in_the_whole_file(tmp_path, column, value, expected):
    rows = [(f"q{t}", f"D{d}", d, 10.0 - d) for t in range(6) for d in range(1, 11)]
    table = {"qid": [r[0] for r in rows], "docno": [r[1] for r in rows], "score": [r[3] for r in rows]}
    table[column][31] = value  # row 32: topic q3, in the fourth block
    path = tmp_path / "run.parquet"
    pq.write_table(pa.table(table), path, row_group_size=8)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 D3 1\n")
    whole = _error(lambda: read_parquet_run(path))
    assert whole.endswith(expected)
    assert len(parquet_run_blocks(path, 1)[0]) == 6
    assert _error(lambda: pateval.evaluate(qrels, path, ["AP"], block_bytes=1)) == whole


def test_repeats_dropped_in_blocks_are_counted_once(tmp_path):
    rows = [(f"q{t}", f"D{d}", d, 10.0 - d) for t in range(4) for d in range(1, 6)]
    rows.insert(7, ("q1", "D2", 9, 0.5))
    rows.insert(18, ("q3", "D1", 9, 0.5))
    text, parquet = _write(tmp_path, rows, row_group_size=3)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 D2 1\nq3 0 D1 1\n")
    whole = api.evaluation(qrels, parquet, MEASURES, block_bytes=0, on_duplicate="first")
    blocks = api.evaluation(qrels, parquet, MEASURES, block_bytes=1, on_duplicate="first")
    pd.testing.assert_frame_equal(whole.frame, blocks.frame, check_exact=True)
    assert whole.notes == blocks.notes
    assert any("2 duplicate document row(s) dropped" in note for note in blocks.notes)


def test_parquet_blocks_on_a_dask_cluster_give_the_local_frame(tmp_path):
    distributed = pytest.importorskip("distributed")
    rng = random.Random(3)
    rows = _rows(rng, 9, ties=False)
    _, parquet = _write(tmp_path, rows, row_group_size=11)
    qrels = _qrels(tmp_path / "qrels.txt", rng, 9)
    local = api.evaluation(qrels, parquet, MEASURES, block_bytes=1)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        spread = api.evaluation(qrels, parquet, MEASURES, block_bytes=1, scheduler=cluster.scheduler_address)
    pd.testing.assert_frame_equal(local.frame, spread.frame, check_exact=True)
    assert local.notes == spread.notes
