"""Orders of integers and strings by plain sorts: what ``np.argsort(kind="stable")`` and
Arrow's ``sort_indices`` give, quicker on millions of values.

NumPy's plain sort of 64-bit integers is several times quicker than its stable argsort,
so a stable order is taken by sorting (value, index) packed in one integer where they fit;
short strings are ordered by integer sorts of their bytes read as big-endian words.
Each function falls back to the plain counterpart where its shortcut does not apply.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..tuning import SHORT_STRING_BYTES
from .keys import string_parts, words_at
from .segments import contiguous_starts, expand, segment_of, sort_in_slices

__all__ = ["stable_order", "score_order", "unique_inverse", "string_words", "byte_order", "string_ranks",
           "positions_in"]

def stable_order(values: np.ndarray) -> np.ndarray:
    """``np.argsort(values, kind="stable")``, by one plain sort of (value, index) packed in
    one integer for non-negative integers (NumPy's radix sort for 16-bit ones).

    Examples
    --------
    >>> stable_order(np.array([3, 1, 3, 0])).tolist()
    [3, 1, 0, 2]
    """
    values = np.asarray(values)
    n = len(values)
    bits = max(1, (n - 1).bit_length())
    if n == 0 or values.dtype.kind not in "iu" or values.min() < 0 or int(values.max()) >= (1 << (63 - bits)):
        return np.argsort(values, kind="stable")
    if int(values.max()) < 1 << 16:  # NumPy's stable sort of 16-bit integers is a radix sort
        return np.argsort(values.astype(np.uint16), kind="stable")
    packed = (values.astype(np.int64) << bits) | np.arange(n, dtype=np.int64)
    packed.sort()
    return packed & ((1 << bits) - 1)


def descending_keys(score: np.ndarray) -> np.ndarray:
    """Each float's place in descending order as a uint64 (larger score: smaller key; -0.0
    and 0.0 equal; NaN not allowed): IEEE-754 doubles compare as their bits once the sign
    is folded in."""
    bits = (np.asarray(score, dtype=np.float64) + 0.0).view(np.uint64)  # + 0.0 turns -0.0 into 0.0
    # ascending order: negative numbers with every bit flipped, others with the sign bit
    # set; descending is the complement: bits ^ (0x7FF...F if positive else 0)
    keys = bits >> np.uint64(63)
    keys -= np.uint64(1)
    keys >>= np.uint64(1)
    keys ^= bits
    return keys


def score_order(group: np.ndarray, score: np.ndarray) -> np.ndarray:
    """``np.lexsort((-score, group))``: rows by group ascending, then score descending,
    equal scores in row order (int64).

    ``group``: non-negative integers. (group, the score's leading bits, row) are packed in
    one integer and sorted by NumPy's plain (SIMD) sort, many times quicker than a lexsort
    of millions of rows; rows whose packed scores collide without being equal are then put
    in order by their full scores.

    Examples
    --------
    >>> score_order(np.array([1, 0, 0, 1]), np.array([0.5, 1.0, 2.0, 0.5])).tolist()
    [2, 1, 0, 3]
    """
    group = np.asarray(group, dtype=np.int64)
    n = len(group)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    row_bits = max(1, (n - 1).bit_length())
    # each group's rows together (a run's topics, as engines write them): the groups' numbers in
    # order of appearance lead, the slices of whole groups are sorted apart, then the groups put in order
    starts = contiguous_starts(group) if int(group.min()) >= 0 else None
    lead = group if starts is None else segment_of(starts)
    group_bits = int(lead.max()).bit_length() if int(lead.min()) >= 0 else 64
    score_bits = 63 - row_bits - group_bits
    if score_bits < 16:  # too few bits left to rank scores: the plain lexsort
        return np.lexsort((-np.asarray(score, dtype=np.float64), group))
    keys = descending_keys(score)
    packed = keys >> np.uint64(64 - score_bits)
    packed <<= np.uint64(row_bits)
    packed |= np.arange(n, dtype=np.uint64)
    packed |= lead.astype(np.uint64) << np.uint64(score_bits + row_bits)
    del lead
    if starts is None:
        packed.sort()
    else:
        sort_in_slices(packed, starts)
    perm = (packed & np.uint64((1 << row_bits) - 1)).astype(np.int64)
    prefix = packed >> np.uint64(row_bits)
    collide = np.flatnonzero(prefix[1:] == prefix[:-1])  # equal (group, leading score bits)
    if len(collide) == 0 or not np.any(keys[perm[collide]] > keys[perm[collide + 1]]):
        return _groups_in_order(perm, group, starts)  # only true ties collide, in row order already
    involved = np.zeros(n, dtype=bool)
    involved[collide] = True
    involved[collide + 1] = True
    places = np.flatnonzero(involved)
    run_id = np.cumsum(np.r_[True, places[1:] != places[:-1] + 1] | np.r_[True,
                                                                          prefix[places[1:]] != prefix[places[:-1]]])
    rows = perm[places]
    perm[places] = rows[np.lexsort((rows, keys[rows], run_id))]
    return _groups_in_order(perm, group, starts)


def _groups_in_order(perm: np.ndarray, group: np.ndarray, starts: np.ndarray | None) -> np.ndarray:
    """``perm``, its runs of whole groups (``starts``, in order of appearance) put in the
    order of their groups' numbers."""
    if starts is None:
        return perm
    heads = group[starts[:-1]]
    if np.all(heads[1:] > heads[:-1]):
        return perm
    by_group = np.argsort(heads, kind="stable")
    return perm[expand(starts[:-1][by_group], np.diff(starts)[by_group])]


def unique_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` for non-negative integers (int64 results):
    by a table of the values present when they are few, else by one plain sort of (value,
    index) packed in one integer (NumPy 2.4's ``np.unique`` hashes, many times slower).

    Examples
    --------
    >>> uniques, inverse = unique_inverse(np.array([7, 3, 7, 0]))
    >>> uniques.tolist(), inverse.tolist()
    ([0, 3, 7], [2, 1, 2, 0])
    """
    values = np.asarray(values, dtype=np.int64)
    n = len(values)
    if n == 0:
        return values.copy(), np.zeros(0, dtype=np.int64)
    if values.min() < 0:
        uniques, inverse = np.unique(values, return_inverse=True)
        return uniques, inverse.ravel().astype(np.int64)
    top = int(values.max()) + 1
    if top <= 4 * n + 1024:
        present = np.zeros(top, dtype=bool)
        present[values] = True
        code = np.cumsum(present, dtype=np.int64) - 1
        return np.flatnonzero(present), code[values]
    order = stable_order(values)
    ordered = values[order]
    first = np.r_[True, ordered[1:] != ordered[:-1]]
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.cumsum(first) - 1
    return ordered[first], inverse


def string_words(strings: pa.Array | pa.ChunkedArray, *, words: int | None = None, longest: int = SHORT_STRING_BYTES,
                 big_endian: bool = True) -> tuple[np.ndarray, np.ndarray] | None:
    """Each string's bytes as 64-bit words, zero-padded, and its length in bytes.

    Returns ``(words, lengths)``, ``words`` of shape (W, N) (W = ``words``, or enough for the
    longest string), or None for strings longer than ``longest`` bytes, with nulls, or of a
    type other than (large) string or binary. Words and length together identify a string;
    big-endian words also compare as the bytes do.
    """
    if isinstance(strings, pa.ChunkedArray):
        strings = strings.combine_chunks() if strings.num_chunks != 1 else strings.chunk(0)
    kind = strings.type
    if strings.null_count or not (pa.types.is_string(kind) or pa.types.is_binary(kind)
                                  or pa.types.is_large_string(kind) or pa.types.is_large_binary(kind)):
        return None
    offsets, data = string_parts(strings)
    lengths = np.diff(offsets).astype(np.int64)
    width = int(lengths.max()) if len(lengths) else 0
    if width > longest:
        return None
    count = max(1, -(-width // 8)) if words is None else words
    if count * 8 < width:
        return None
    out = words_at(offsets.astype(np.int64), data, 0, len(lengths), count, big_endian=big_endian)
    return out, lengths


def byte_order(strings: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """``pyarrow.compute.sort_indices(strings)``: the strings' byte order (memcmp, then the
    shorter first), stable; by integer sorts of their words for short strings."""
    read = string_words(strings)
    if read is None:
        return pc.sort_indices(strings).to_numpy()
    words, lengths = read
    if int(lengths.max(initial=0)) <= 7:  # the last byte of the one word is free: the length goes there
        return np.argsort(words[0] | lengths.astype(np.uint64), kind="stable")
    return np.lexsort((lengths, *words[::-1]))


def string_ranks(strings) -> np.ndarray:
    """Each string's place in byte (strcmp) order, equal strings in their order (int64).

    ``strings``: an Arrow string array (chunked or not) or an array of str.

    Examples
    --------
    >>> string_ranks(np.array(["b", "a", "ab", "B"], dtype=object)).tolist()
    [3, 1, 2, 0]
    """
    if len(strings) == 0:
        return np.zeros(0, dtype=np.int64)
    if not isinstance(strings, (pa.Array, pa.ChunkedArray)):
        strings = pa.array(np.asarray(strings, dtype=object), type=pa.string())
    order = byte_order(strings)
    ranks = np.empty(len(strings), dtype=np.int64)
    ranks[order] = np.arange(len(strings), dtype=np.int64)
    return ranks


def positions_in(distinct, values) -> np.ndarray:
    """The position of each of ``values`` in ``distinct`` (ids without repeats, or a dict of
    each id's position, made once for many lookups), -1 where absent: hash lookups, as
    ``pandas.Index.get_indexer`` (without loading pandas).

    >>> positions_in(np.array(["q1", "q2", "q3"], dtype=object), ["q3", "q9", "q1"]).tolist()
    [2, -1, 0]
    """
    where = distinct if isinstance(distinct, dict) else {
        value: i for i, value in enumerate(distinct.tolist() if hasattr(distinct, "tolist") else distinct)}
    found = values.tolist() if hasattr(values, "tolist") else values
    return np.fromiter((where.get(value, -1) for value in found), dtype=np.intp, count=len(found))
