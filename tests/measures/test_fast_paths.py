"""The array shortcuts of the measure kernels give exactly what the plain definitions give."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from pateval.core.order import byte_order, stable_order, unique_inverse
from pateval.core.segments import running_sum, segment_running_sum
from pateval.measures.tbg import row_steps, times_at
from pateval.usermodel.time import (
    TimeModel,
    duplicates_of_earlier,
    segment_exclusive_cumsum,
    segment_exclusive_cumsum_at,
)

_sizes = st.lists(st.integers(0, 12), min_size=1, max_size=12)


def _ptr(sizes):
    return np.r_[0, np.cumsum(sizes)].astype(np.int64)


@settings(max_examples=60, deadline=None)
@given(sizes=_sizes, seed=st.integers(0, 2**32 - 1), big=st.booleans())
def test_running_sums_add_like_a_loop(sizes, seed, big):
    rng = np.random.default_rng(seed)
    sizes = sizes + ([300] if big else [])
    groups = np.repeat(np.arange(len(sizes)), sizes)
    values = rng.random(len(groups)) * 10.0 ** rng.integers(-3, 12, len(groups))
    expected, total, previous = np.empty(len(values)), 0.0, None
    for i, (g, v) in enumerate(zip(groups, values, strict=False)):
        total = v if g != previous else total + v
        expected[i], previous = total, g
    assert np.array_equal(running_sum(values, groups), expected)
    assert np.array_equal(segment_running_sum(values, _ptr(sizes)), expected)
    shuffled = rng.permutation(len(values))
    order = np.argsort(groups[shuffled], kind="stable")
    back = running_sum(values[shuffled], groups[shuffled])
    assert np.array_equal(back[order], np.concatenate([np.cumsum(values[shuffled][order][groups[shuffled][order] == g])
                                                       for g in range(len(sizes)) if sizes[g]] + [np.zeros(0)]))


@settings(max_examples=60, deadline=None)
@given(sizes=_sizes, seed=st.integers(0, 2**32 - 1), n_groups=st.integers(1, 6))
def test_time_shortcuts(sizes, seed, n_groups):
    rng = np.random.default_rng(seed)
    ptr = _ptr(sizes)
    values = rng.random(int(ptr[-1])) * 100
    rows = np.flatnonzero(rng.random(len(values)) < 0.3)
    assert np.array_equal(segment_exclusive_cumsum_at(values.copy(), ptr, rows, overwrite=True),
                          segment_exclusive_cumsum(values, ptr)[rows])
    groups = rng.integers(0, n_groups, len(values))
    seen, expected = set(), np.zeros(len(values), dtype=bool)
    for t in range(len(sizes)):
        seen.clear()
        for i in range(ptr[t], ptr[t + 1]):
            expected[i] = groups[i] in seen
            seen.add(groups[i])
    assert np.array_equal(duplicates_of_earlier(groups, ptr), expected)
    # rankings of one depth (a table of them)
    assert duplicates_of_earlier(np.tile([0, 1, 0, 1], 3), np.arange(0, 13, 4)).tolist() == [False, False, True,
                                                                                             True] * 3


@settings(max_examples=80, deadline=None)
@given(sizes=st.lists(st.integers(0, 30), min_size=1, max_size=15), seed=st.integers(0, 2**32 - 1),
       block=st.integers(1, 40), with_duplicates=st.booleans())
def test_step_times_in_blocks_are_bit_identical(sizes, seed, block, with_duplicates):
    """TBG's blocked T(k) at the earning rows: exactly the running sums of every row's steps,
    whatever the block size (topics longer than a block, empty topics, near-duplicates)."""
    rng = np.random.default_rng(seed)
    ptr = _ptr(sizes)
    n = int(ptr[-1])
    lengths = rng.integers(0, 5000, 7).astype(np.float64) * rng.random(7)
    codes = rng.integers(0, 7, n).astype(np.int32)
    relevant_rows = np.flatnonzero(rng.random(n) < 0.3)
    duplicate = rng.random(n) < 0.2 if with_duplicates else None
    rows = relevant_rows[rng.random(len(relevant_rows)) < 0.7]
    model = TimeModel(summary_time=4.4, read_slope=0.018, read_intercept=7.8, p_click_rel=0.64, p_click_nonrel=0.39,
                      p_save_rel=0.77, halflife=224.0)
    expected = segment_exclusive_cumsum(row_steps(codes, lengths, relevant_rows, duplicate, model), ptr)[rows]
    got = times_at(codes, lengths, relevant_rows, duplicate, model, ptr, rows, block_rows=block)
    assert np.array_equal(got, expected)


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(-5, 2**40), max_size=40))
def test_unique_inverse_on_sparse_and_negative_values(values):
    """The sort path (values far apart) and the fallback (negative values) give np.unique's answer."""
    values = np.array(values, dtype=np.int64)
    for case in (values, np.abs(values)):
        uniques, inverse = unique_inverse(case)
        reference = np.unique(case, return_inverse=True)
        assert np.array_equal(uniques, reference[0]) and np.array_equal(inverse, reference[1].ravel())


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(0, 50), max_size=40))
def test_distinct(values):
    values = np.array(values, dtype=np.int64)
    distinct, inverse = unique_inverse(values)
    reference = np.unique(values, return_inverse=True)
    assert np.array_equal(distinct, reference[0]) and np.array_equal(inverse, reference[1].ravel())


@settings(max_examples=80, deadline=None)
@given(strings=st.lists(st.text(alphabet=st.sampled_from(list("aAbZ09-_\x00\x01\x7fé")), max_size=20), max_size=30),
       offset=st.integers(0, 2))
def test_short_strings_in_arrow_byte_order(strings, offset):
    array = pa.array(strings, type=pa.string()).slice(min(offset, len(strings)))
    assert np.array_equal(byte_order(array), pc.sort_indices(array).to_numpy())
    values = np.array([len(x) for x in strings], dtype=np.int64)
    assert np.array_equal(stable_order(values), np.argsort(values, kind="stable"))
