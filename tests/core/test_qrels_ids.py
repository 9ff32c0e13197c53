"""pateval.core.qrels's own tests: the short-id helpers that tell, without an index, that
every (topic, document) item of large qrels is distinct (moved here from the DD qrels
reader's tests, which reach them through Qrels.from_columns)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from pateval import tuning
from pateval.core.qrels import _all_distinct, _short_ids, _short_ids_distinct


def test_short_ids_are_the_bytes_as_numbers():
    values = ["1", "22", "333", "abcdefgh", "x", "12345678", "9", "\x01a", "a", "é"]
    array = pa.array(values * 3)[4:]  # an offset into the buffers, first strings near its start
    expected = [int.from_bytes(v.encode(), "big") for v in array.to_pylist()]
    assert _short_ids(array).tolist() == expected
    array = pa.array(values)  # the first strings end within the buffer's first 8 bytes
    assert _short_ids(array).tolist() == [int.from_bytes(v.encode(), "big") for v in values]
    assert _short_ids(pa.array(["1", "abcdefghi", "2"])) is None
    assert _short_ids(pa.array(["a"])) is None  # fewer than 8 bytes in all: left to the index
    many = pa.array([str(k) for k in range(20000)] + ["123456789"])
    assert _short_ids(many) is None  # the long one in a later block


@pytest.mark.parametrize("values, distinct", [
    ([], True), ([5], True), ([1, 2, 3], True), ([3, 2, 1], True), ([1, 2, 2], False), ([2, 1, 2], False),
    (list(range(1000)) + [500], False), (list(range(1000))[::-1], True),
])
def test_all_distinct(values, distinct):
    assert _all_distinct(np.asarray(values, dtype=np.uint64)) == distinct


@pytest.mark.parametrize("block", [3, 16, 1 << 13])
@pytest.mark.parametrize("ids, distinct", [
    ([str(k) for k in range(1, 60)], True),  # ascending through the blocks
    ([str(k) for k in range(1, 31)] * 2, False),  # each block ascends, the second half repeats the first
    ([str(k) for k in range(1, 31)] + [str(k) for k in range(31, 61)][::-1], True),  # a descent: the sort
    ([str(k) for k in range(1, 40)] + ["long-passage-id"], False),  # too long: left to the index
    ([str(k) for k in range(1, 40)] + ["39"], False),
])
def test_short_ids_distinct_by_blocks(monkeypatch, block, ids, distinct):
    monkeypatch.setattr(tuning, "ID_BLOCK_ROWS", block)
    assert _short_ids_distinct(pa.array(ids)) == distinct
