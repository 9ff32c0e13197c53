"""Segments of flat arrays: offsets, places within a segment, running sums per segment.

Every ranking, judgement list and pair list of pateval is one flat array cut into
contiguous segments (a topic's rows, a subtopic's pairs, a document's passages), given
either as CSR offsets ``ptr`` (segment ``s`` is ``ptr[s]:ptr[s+1]``), as the segments'
sizes, or as a grouped array of codes whose runs of equal values are the segments. These
helpers turn one description into another. Running sums add each segment's values one by
one from its start, as a loop would: no sum crosses a segment, so the numbers are those
of a per-segment loop to the last bit.
"""

from __future__ import annotations

import numpy as np

from .._lazy import lazy_module
from ..tuning import SORT_SLICE_ROWS, TABLE_SLACK

pd = lazy_module("pandas")  # duplicates_of_earlier factorises labels that are not integers

__all__ = ["offsets", "contiguous_starts", "sort_in_slices",
           "starts_of", "segment_of", "run_starts", "run_lengths", "place_in_segments", "place_in_runs",
           "expand", "running_count", "running_sum", "segment_running_sum", "grouped_running_sum",
           "segment_exclusive_cumsum", "segment_exclusive_cumsum_at", "duplicates_of_earlier"]


def offsets(counts: np.ndarray) -> np.ndarray:
    """CSR offsets (int64, ``len(counts) + 1``) of consecutive segments of ``counts`` elements."""
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def starts_of(counts: np.ndarray) -> np.ndarray:
    """Where each of consecutive segments of ``counts`` elements starts: ``offsets(counts)[:-1]``."""
    return np.cumsum(counts) - counts


def segment_of(ptr: np.ndarray) -> np.ndarray:
    """Each element's segment (int64), for the segments ``ptr[s]:ptr[s+1]``."""
    return np.repeat(np.arange(len(ptr) - 1, dtype=np.int64), np.diff(ptr))


def run_starts(*columns: np.ndarray) -> np.ndarray:
    """Where each run of equal values (of every one of ``columns``, rows grouped by them)
    begins, ascending int64."""
    first = columns[0]
    if len(first) == 0:
        return np.zeros(0, dtype=np.int64)
    change = np.empty(len(first), dtype=bool)
    change[0] = True
    np.not_equal(first[1:], first[:-1], out=change[1:])
    for column in columns[1:]:
        change[1:] |= column[1:] != column[:-1]
    return np.flatnonzero(change)


def run_lengths(starts: np.ndarray, n: int) -> np.ndarray:
    """The length of each run, from the runs' ``starts`` (ascending) in ``n`` elements."""
    return np.diff(np.r_[starts, n])


def place_in_segments(counts: np.ndarray, *, first: int = 0) -> np.ndarray:
    """Each element's place in its segment (``first`` for the first), for consecutive
    segments of ``counts`` elements (int64).

    One running sum of steps of 1 that fall back at each segment's start: one array of the
    size of the output, not three.
    """
    counts = np.asarray(counts)
    steps = np.ones(int(counts.sum()), dtype=np.int64)
    if len(steps) == 0:
        return steps
    used = counts[counts > 0]
    steps[starts_of(used)[1:]] = 1 - used[:-1]  # back to ``first`` where a segment starts
    steps[0] = first
    return np.cumsum(steps, out=steps)


def place_in_runs(values: np.ndarray) -> np.ndarray:
    """Each element's 0-based place in its run of equal ``values`` (``values`` grouped)."""
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    first = np.r_[True, values[1:] != values[:-1]]
    index = np.arange(n, dtype=np.int64)
    return index - np.maximum.accumulate(np.where(first, index, 0))


def contiguous_starts(group: np.ndarray) -> np.ndarray | None:
    """The starts of the runs of equal values of ``group`` and, last, its length, when each
    value forms one run (a run's topics as engines write them); else None.

    >>> contiguous_starts(np.array([7, 7, 2, 5, 5])).tolist(), contiguous_starts(np.array([7, 2, 7]))
    ([0, 2, 3, 5], None)
    """
    if len(group) == 0:
        return None
    heads = run_starts(group)
    return np.r_[heads, len(group)] if len(np.unique(group[heads])) == len(heads) else None


def sort_in_slices(values: np.ndarray, starts: np.ndarray) -> None:
    """Sort ``values`` in place slice by slice, each of whole runs (``starts``, as
    :func:`contiguous_starts` gives them) and about :data:`pateval.tuning.SORT_SLICE_ROWS`
    long: the whole is then sorted when the values ascend from run to run (the run's number
    leading them), at about half the time of one sort of them all."""
    n = len(values)
    cuts = np.unique(starts[np.searchsorted(starts, np.arange(0, n, SORT_SLICE_ROWS))])
    for a, b in zip(cuts.tolist(), [*cuts[1:].tolist(), n], strict=True):
        values[a:b].sort()


def expand(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + n) for s, n in zip(starts, lengths)])`` (int64)."""
    return np.repeat(starts, lengths) + place_in_segments(lengths)


def running_count(flags: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Inclusive running count (or integer sum) of ``flags`` within the runs that begin at
    ``starts`` (see :func:`run_starts`); integers, so one global running sum is exact."""
    total = np.cumsum(flags)
    return total - np.repeat(np.r_[0, total][starts], run_lengths(starts, len(flags)))


def running_sum(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Inclusive running sum within groups, added one by one in row order, exactly as a loop
    would: no loss of precision from a global running sum, and no compensated summation.
    ``groups`` need not be sorted (each group's values are summed in row order)."""
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    if not bool(np.all(groups[1:] >= groups[:-1])):  # callers give their groups in order; others are put so
        order = np.argsort(groups, kind="stable")
        out = np.empty(n, dtype=np.float64)
        out[order] = running_sum(values[order], groups[order])
        return out
    first = np.r_[True, groups[1:] != groups[:-1]]
    starts = np.flatnonzero(first)
    group = np.cumsum(first) - 1
    return grouped_running_sum(values, group, np.arange(n, dtype=np.int64) - starts[group], len(starts))


def segment_running_sum(values: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """:func:`running_sum` over the contiguous segments ``ptr[s]:ptr[s+1]``."""
    counts = np.diff(ptr)
    width = int(counts.max()) if len(counts) else 0
    if width and bool(np.all(counts == width)):  # one size: the rows of a table
        return np.cumsum(np.asarray(values, dtype=np.float64).reshape(len(counts), width), axis=1).ravel()
    used = np.flatnonzero(counts)
    group = np.repeat(np.arange(len(used), dtype=np.int64), counts[used])
    return grouped_running_sum(values, group, np.arange(len(group), dtype=np.int64) - ptr[used][group], len(used))


def grouped_running_sum(values: np.ndarray, group: np.ndarray, column: np.ndarray, n_groups: int) -> np.ndarray:
    """Running sums of ``values`` within groups (``group``: 0, 1, ... ascending; ``column``:
    each element's place in its group), each group's added in order from 0.

    Groups of similar sizes (all, or those of the same power of two) are the rows of a
    table, padded with zeros at their ends, summed along the rows.
    """
    n = len(values)
    values = np.asarray(values, dtype=np.float64)
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    counts = np.bincount(group, minlength=n_groups)
    width = int(counts.max())
    if bool(np.all(counts == width)):
        return np.cumsum(values.reshape(n_groups, width), axis=1).ravel()
    out = np.empty(n, dtype=np.float64)
    size_class: np.ndarray | None = None
    classes: list = [None]
    if n_groups * width > 2 * n + TABLE_SLACK:
        size_class = np.ceil(np.log2(np.maximum(counts, 1))).astype(np.int64)
        classes = np.unique(size_class[counts > 0]).tolist()
    for size in classes:
        chosen: np.ndarray | None = None
        members: np.ndarray | slice = slice(None)
        lengths = counts
        if size_class is not None:
            chosen = np.flatnonzero((size_class == size) & (counts > 0))
            members = np.flatnonzero(size_class[group] == size)
            lengths = counts[chosen]
        span = int(lengths.max())
        row = group[members] if chosen is None else np.searchsorted(chosen, group[members])
        slot = row * span + column[members]
        flat = np.zeros(len(lengths) * span)
        flat[slot] = values[members]
        table = flat.reshape(len(lengths), span)
        np.cumsum(table, axis=1, out=table)
        out[members] = flat[slot]
    return out


def _segment_table(values: np.ndarray, counts: np.ndarray, longest: int, *,
                   copy: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """``values`` as a table of one segment a row, padded with zeros, and where the values sit
    in it (None: every segment is ``longest`` long and the table is ``values`` reshaped)."""
    if bool(np.all(counts == longest)):
        return (values.copy() if copy else values).reshape(len(counts), longest), None
    inside = np.arange(longest)[None, :] < counts[:, None]
    table = np.zeros((len(counts), longest))
    table[inside] = values
    return table, inside


def segment_exclusive_cumsum(values: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Running sum of ``values`` within each segment ``ptr[t]:ptr[t+1]``, excluding the row itself."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) == 0:
        return values.copy()
    counts = np.diff(ptr)
    longest = int(counts.max())
    if len(counts) * longest <= 2 * len(values) + 4096:
        # rankings of similar depth: one row per segment, so that sums never run across
        # segments (exact to the last bit of a plain per-ranking loop)
        padded, inside = _segment_table(values, counts, longest, copy=False)
        before = np.empty_like(padded)
        before[:, 0] = 0.0
        np.cumsum(padded[:, :-1], axis=1, out=before[:, 1:])
        return before.ravel() if inside is None else before[inside]
    total = np.cumsum(values)
    before = np.r_[0.0, total][ptr[:-1]]
    return total - values - np.repeat(before, np.diff(ptr))


def segment_exclusive_cumsum_at(values: np.ndarray, ptr: np.ndarray, rows: np.ndarray, *,
                                overwrite: bool = False) -> np.ndarray:
    """``segment_exclusive_cumsum(values, ptr)[rows]``, the same numbers to the last bit.

    For kernels that need the running sums at a few rows only (TBG: the relevant ones):
    the sums are made in place (on ``values`` itself with ``overwrite=True``) and only
    ``rows`` (ascending or not) are read out, instead of a second array of every row.
    """
    values = np.asarray(values, dtype=np.float64)
    rows = np.asarray(rows, dtype=np.int64)
    ptr = np.asarray(ptr, dtype=np.int64)
    if len(rows) == 0:
        return np.zeros(0, dtype=np.float64)
    counts = np.diff(ptr)
    longest = int(counts.max())
    if longest and bool(np.all(counts == longest)):
        segment, column = np.divmod(rows, longest)  # rankings of one depth
    else:
        segment = np.searchsorted(ptr, rows, side="right") - 1
        column = rows - ptr[segment]
    if len(counts) * longest <= 2 * len(values) + 4096:
        # as segment_exclusive_cumsum: one row per segment, sums never run across segments;
        # the exclusive sum at column c is the inclusive one at c - 1
        grid, _ = _segment_table(values, counts, longest, copy=not overwrite)
        np.cumsum(grid, axis=1, out=grid)
        return np.where(column > 0, grid[segment, np.maximum(column - 1, 0)], 0.0)
    total = np.cumsum(values)
    before = np.r_[0.0, total][ptr[:-1]]
    return total[rows] - values[rows] - before[segment]


def duplicates_of_earlier(groups: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Rows whose duplicate group already occurred higher in the same segment.

    Parameters
    ----------
    groups : array, shape (N,)
        A group label per row (any hashable values; rows of different groups never match).
    ptr : ndarray of int64, shape (T+1,)
    """
    n = len(groups)
    if n == 0:
        return np.zeros(0, dtype=bool)
    counts = np.diff(ptr)
    groups = np.asarray(groups)
    if groups.dtype.kind in "iu" and groups.min() >= 0:
        codes = groups.astype(np.int64, copy=False)
    else:
        codes, _ = pd.factorize(pd.Index(groups, dtype=object), use_na_sentinel=False)
    width = int(codes.max()) + 1
    duplicate = np.zeros(n, dtype=bool)
    longest = int(counts.max())
    column_bits = max(1, (longest - 1).bit_length())
    if bool(np.all(counts == longest)) and width < (1 << (63 - column_bits)):
        # rankings of one depth: (group, rank) packed per row of a table, each row sorted
        # on its own (short sorts that stay in cache)
        key = codes.reshape(len(counts), longest) << column_bits
        key |= np.arange(longest, dtype=np.int64)
        key.sort(axis=1)
        pair = key >> column_bits
        repeat = np.zeros(key.shape, dtype=bool)
        repeat[:, 1:] = pair[:, 1:] == pair[:, :-1]
        segment, _ = np.nonzero(repeat)
        duplicate[segment * longest + (key[repeat] & ((1 << column_bits) - 1))] = True
        return duplicate
    row_bits = max(1, (n - 1).bit_length())
    if (len(counts) * width) < (1 << (63 - row_bits)):
        # one integer per row, (segment, group, row) packed: a plain sort puts each
        # (segment, group)'s rows together in rank order (as a stable sort of the pair would)
        key = np.repeat(np.arange(len(counts), dtype=np.int64) * width, counts)
        key += codes
        key <<= row_bits
        key |= np.arange(n, dtype=np.int64)
        key.sort()
        pair = key >> row_bits
        key &= (1 << row_bits) - 1
        duplicate[key[1:][pair[1:] == pair[:-1]]] = True
        return duplicate
    segment = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    key = segment * width + codes
    # a stable sort keeps each (ranking, group)'s rows in rank order: all but the first repeat it
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    duplicate[order[1:][ordered[1:] == ordered[:-1]]] = True
    return duplicate
