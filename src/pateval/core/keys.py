"""(topic, document id) pairs as integers: duplicate detection and lookups with array operations.

Evaluating a run means finding, for each of millions of retrieved documents, whether the
same topic's qrels judge it, and refusing a run that lists a document twice for a topic.
Hashing every id into one global table (Arrow's dictionary encoding) spends most of its
time on cache misses once there are millions of ids. Here each id gets a 64-bit
fingerprint computed from its bytes with NumPy (:class:`StringKeys`), and
:class:`PairIndex` sorts the pairs by a hash of (topic, fingerprint): repeats sort next to
each other, and a lookup is a binary search. Fingerprints and hashes only propose
matches; every match is confirmed on the ids themselves, so the result is exact whatever
they do.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .segments import contiguous_starts, segment_of, sort_in_slices

__all__ = ["StringKeys", "PairIndex", "take", "words_at", "string_parts"]

_U64 = np.uint64
_MIX = _U64(0x9E3779B97F4A7C15)  # odd constants of splitmix64
_MIX2 = _U64(0xBF58476D1CE4E5B9)
_MIX3 = _U64(0x94D049BB133111EB)
# _LOW_BYTES[k]: the low k bytes of a little-endian word (k = 0..8)
_WALK = 8  # a lookup steps past at most this many other pairs of its hash, then matches on the ids
_BLOCK = 1 << 16  # rows per block: scratch arrays stay in cache and are reused
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
# _HIGH_BYTES[k]: the first k bytes of a big-endian word
_HIGH_BYTES = np.array([0] + [((1 << (8 * k)) - 1) << (8 * (8 - k)) for k in range(1, 9)], dtype=np.uint64)


def take(strings: pa.Array | pa.ChunkedArray, rows: np.ndarray) -> pa.Array:
    """``strings[rows]`` as one Arrow array.

    Arrow's take on a chunked array first concatenates every chunk (a copy of millions of
    ids for a few thousand wanted); here each chunk gives its own rows.

    Examples
    --------
    >>> import pyarrow as pa
    >>> take(pa.chunked_array([["a", "b"], ["c"]]), np.array([2, 0, 2])).to_pylist()
    ['c', 'a', 'c']
    """
    rows = np.asarray(rows, dtype=np.int64)
    if isinstance(strings, pa.Array):
        return strings.take(pa.array(rows))
    if strings.num_chunks == 1:
        return strings.chunk(0).take(pa.array(rows))
    bounds = np.cumsum([0] + [len(chunk) for chunk in strings.chunks])
    chunk_of = np.searchsorted(bounds, rows, side="right") - 1
    order = np.argsort(chunk_of, kind="stable")
    pieces = []
    for k in np.unique(chunk_of):
        wanted = order[chunk_of[order] == k]
        pieces.append(strings.chunk(int(k)).take(pa.array(rows[wanted] - bounds[k])))
    grouped = pa.concat_arrays(pieces) if pieces else pa.array([], type=strings.type)
    back = np.empty(len(rows), dtype=np.int64)
    back[order] = np.arange(len(rows), dtype=np.int64)
    return grouped.take(pa.array(back))


def _scramble(h: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: every output bit depends on every input bit."""
    h = h ^ (h >> _U64(30))
    h *= _MIX2
    h ^= h >> _U64(27)
    h *= _MIX3
    return h ^ (h >> _U64(31))


def string_parts(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Offsets (int64, N+1) and bytes (uint8) of a string array, without copying the bytes."""
    if strings.null_count:
        raise ValueError("document ids must not be null")
    if len(strings) == 0:
        return np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.uint8)
    wide = pa.types.is_large_string(strings.type) or pa.types.is_large_binary(strings.type)
    _, offset_buffer, data_buffer = strings.buffers()
    offsets = np.frombuffer(offset_buffer, dtype=np.int64 if wide else np.int32)
    offsets = offsets[strings.offset : strings.offset + len(strings) + 1]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    return offsets, data


def words_at(offsets: np.ndarray, data: np.ndarray, lo: int, hi: int, count: int, *,
             big_endian: bool = False) -> np.ndarray:
    """Words 0..count-1 of strings ``lo:hi`` (``offsets`` into ``data``), zero-padded past
    each string's end: shape (count, hi - lo), uint64.

    Eight bytes are read from any offset through a view of the buffer with a stride of one
    byte; strings near the end of the buffer are read from a zero-padded copy of its tail.
    Little-endian words are the fingerprints' input; big-endian ones compare as the bytes do.
    """
    start = offsets[lo:hi]
    length = offsets[lo + 1 : hi + 1] - start
    keep = _HIGH_BYTES if big_endian else _LOW_BYTES
    out = np.empty((count, hi - lo), dtype=np.uint64)
    tail_from = max(0, len(data) - 8 * count - 8)
    split = int(np.searchsorted(start, tail_from, side="left"))
    tail = np.zeros(len(data) - tail_from + 8 * count + 8, dtype=np.uint8)
    tail[: len(data) - tail_from] = data[tail_from:]
    for a, b, buffer, shift in ((0, split, data, 0), (split, hi - lo, tail, tail_from)):
        if b <= a:
            continue
        view = np.ndarray(shape=(len(buffer) - 7,), dtype=">u8" if big_endian else "<u8", buffer=buffer, strides=(1,))
        for k in range(count):
            out[k, a:b] = view[start[a:b] - shift + 8 * k] & keep[np.clip(length[a:b] - 8 * k, 0, 8)]
    return out


def _fingerprints(offsets: np.ndarray, data: np.ndarray, *, out: np.ndarray) -> None:
    """Write the fingerprint of each string (``offsets`` into ``data``) to ``out``."""
    length = np.diff(offsets)
    n = len(length)
    words = max(1, -(-int(length.max()) // 8)) if n else 1
    for b0 in range(0, n, _BLOCK):
        b1 = min(n, b0 + _BLOCK)
        block = words_at(offsets, data, b0, b1, words)
        value = block[0]
        size = length[b0:b1]
        for k in range(1, words):
            # only strings longer than 8k bytes take word k in: a string's fingerprint
            # must not depend on the other strings of the array
            longer = np.flatnonzero(size > 8 * k)
            value[longer] = _scramble((value[longer] ^ block[k, longer]) * _MIX)
        out[b0:b1] = value


@dataclass(frozen=True, eq=False)
class StringKeys:
    """A 64-bit fingerprint and the byte length of each string of an Arrow array.

    The fingerprint of a string of up to 8 bytes *is* the string (its bytes as a
    zero-padded word), so that fingerprint plus length identify it; longer strings mix
    in their further words, and equal fingerprints are confirmed by comparing the
    strings (:meth:`same`). A string's fingerprint depends on nothing else, so keys of
    different arrays compare.

    Examples
    --------
    >>> import pyarrow as pa
    >>> keys = StringKeys.of(pa.array(["d1", "d2", "d1"]))
    >>> keys.same(np.array([0, 0]), keys, np.array([1, 2])).tolist()
    [False, True]
    """

    strings: pa.Array
    fingerprint: np.ndarray  # uint64 (N,)
    length: np.ndarray  # (N,) byte lengths
    exact: bool  # fingerprint + length identify a string

    @classmethod
    def of(cls, strings: pa.Array | pa.ChunkedArray) -> StringKeys:
        chunks = strings.chunks if isinstance(strings, pa.ChunkedArray) else [strings]
        parts = [string_parts(chunk) for chunk in chunks]
        length = np.concatenate([np.diff(offsets) for offsets, _ in parts] + [np.zeros(0, np.int32)])
        fingerprint = np.empty(len(length), dtype=np.uint64)
        at = 0
        for offsets, data in parts:
            _fingerprints(offsets, data, out=fingerprint[at : at + len(offsets) - 1])
            at += len(offsets) - 1
        return cls(strings=strings, fingerprint=fingerprint, length=length,
                   exact=not len(length) or int(length.max()) <= 8)

    def __len__(self) -> int:
        return len(self.length)

    def same(self, rows: np.ndarray, other: StringKeys, other_rows: np.ndarray) -> np.ndarray:
        """Whether string ``rows[i]`` here equals string ``other_rows[i]`` of ``other``."""
        equal = (self.fingerprint[rows] == other.fingerprint[other_rows]) & (self.length[rows]
                                                                             == other.length[other_rows])
        if not (self.exact and other.exact):
            check = np.flatnonzero(equal)
            if len(check):
                left = take(self.strings, rows[check])
                right = take(other.strings, other_rows[check])
                equal[check] = pc.equal(left, right).to_numpy(zero_copy_only=False)
        return equal


def _pair_hashes(keys: StringKeys, group: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """A 64-bit hash of each pair (``rows`` of ``keys``/``group``, or all): equal pairs hash
    alike, so that repeats sort next to each other."""
    n = len(group) if rows is None else len(rows)
    out = np.empty(n, dtype=np.uint64)
    for b0 in range(0, n, _BLOCK):  # scratch arrays of a block stay in cache
        b1 = min(n, b0 + _BLOCK)
        if rows is None:
            f, g = keys.fingerprint[b0:b1], group[b0:b1]
        else:
            f, g = keys.fingerprint[rows[b0:b1]], group[rows[b0:b1]]
        out[b0:b1] = _scramble(f ^ (g.astype(np.uint64) * _MIX))
    return out


# the bits of hash kept below the segment number at least, and the expected share of rows whose
# hash they share with another pair of their segment (each then confirmed on its ids) at most
_MIN_HASH_BITS = 24
_COLLISION_SHARE = 1e-3


def _segments(group: np.ndarray, n_groups: int, bits: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """When each group's rows are contiguous: each group's segment number (in order of
    appearance; -1 for a group without rows) and the segments' starts (and the end);
    else (or when too few hash bits would be left) None."""
    starts = contiguous_starts(group)
    if starts is None or len(starts) < 3:
        return None, None
    n_segments = len(starts) - 1
    hash_bits = 64 - bits - (n_segments - 1).bit_length()
    sizes = np.diff(starts).astype(np.float64)
    if hash_bits < _MIN_HASH_BITS or float(sizes @ sizes) / 2.0 ** (hash_bits + 1) > _COLLISION_SHARE * len(group):
        return None, None
    segment_of_group = np.full(n_groups, -1, dtype=np.int64)
    segment_of_group[group[starts[:-1]]] = np.arange(n_segments)
    return segment_of_group, starts


def _lead(values: np.ndarray, segment: np.ndarray, segment_of_group: np.ndarray, bits: int) -> None:
    """In place: pair hashes ``values`` become (segment << hash bits | the hash's top bits) << ``bits``."""
    segment_bits = int(segment_of_group.max()).bit_length()
    values >>= _U64(segment_bits + bits)
    values <<= _U64(bits)
    segment = segment.astype(np.uint64)  # (the caller's array stays as it was)
    segment <<= _U64(64 - segment_bits)
    values |= segment


@dataclass(frozen=True, eq=False)
class PairIndex:
    """An index of rows keyed by (group, string): a run's (topic, document) pairs.

    Each row's place (its row, or its rank by ``priority``) is packed with the top bits of
    its pair's hash into one integer, and the integers are sorted: the places of a pair
    then sit together, earliest first. Rows whose hashes share their top bits are only
    candidates; each is confirmed on the group and the string itself
    (:meth:`StringKeys.same`), so the result is exact whatever the hashes do. A lookup is a
    binary search of its hash, then the same confirmation.

    When each group's rows are contiguous (a run's topics, as engines write them), the
    groups' numbers in order of appearance lead the integers: they then ascend along the
    rows, and sorting slices of whole groups sorts the whole
    (:func:`~pateval.core.segments.sort_in_slices`).

    Attributes
    ----------
    repeated : ndarray of bool, shape (N,)
        Rows whose (group, string) pair already occurred at a row of lower ``priority``.
    first : ndarray of int64, shape (N,)
        For a repeated row, the row it repeats; -1 elsewhere.

    Examples
    --------
    >>> import pyarrow as pa
    >>> keys = StringKeys.of(pa.array(["a", "b", "a", "a"]))
    >>> index = PairIndex.build(np.array([0, 0, 0, 1]), keys, n_groups=2)
    >>> index.repeated.tolist(), index.first.tolist()
    ([False, False, True, False], [-1, -1, 0, -1])
    >>> index.find(np.array([1, 1, 0]), StringKeys.of(pa.array(["a", "b", "b"]))).tolist()
    [3, -1, 1]
    """

    group: np.ndarray
    keys: StringKeys
    packed: np.ndarray  # uint64, sorted: (segment << hash bits | hash's top bits) << bits | place
    bits: int  # the low bits holding a place
    segment_of_group: np.ndarray | None  # each group's segment (-1: no row), None: one sort of every row
    row_of_place: np.ndarray | None  # the row at each place by priority (None: place = row)
    repeated: np.ndarray
    first: np.ndarray
    distinct: np.ndarray  # the packed places of each pair's first row, sorted (lookups walk only these)

    @classmethod
    def build(cls, group: np.ndarray, keys: StringKeys, *, n_groups: int,
              priority: np.ndarray | None = None) -> PairIndex:
        """Index rows (``group[i]``, string ``i`` of ``keys``); ``priority`` (integers, lower
        first, ties in row order; default the row order) decides which of repeated rows comes
        first. ``n_groups``: the number of groups (``group`` holds 0 .. n_groups - 1)."""
        group = np.asarray(group)
        n = len(group)
        bits = max(1, (n - 1).bit_length())
        row_of_place = None
        segment_of_group, starts = _segments(group, n_groups, bits)
        packed = _pair_hashes(keys, group)
        if segment_of_group is None:
            packed >>= _U64(bits)
            packed <<= _U64(bits)
        else:
            assert starts is not None  # (given with segment_of_group)
            _lead(packed, segment_of(starts), segment_of_group, bits)
        if priority is None:  # a row's place is the row (in blocks: no array of every place at once)
            for b0 in range(0, n, _BLOCK):
                packed[b0 : b0 + _BLOCK] |= np.arange(b0, min(n, b0 + _BLOCK), dtype=np.uint64)
        else:
            row_of_place = np.argsort(np.asarray(priority, dtype=np.int64), kind="stable")
            place = np.empty(n, dtype=np.uint64)
            place[row_of_place] = np.arange(n, dtype=np.uint64)
            packed |= place
            del place
        if starts is None:
            packed.sort()
        else:
            sort_in_slices(packed, starts)
        # no repeat (nearly always): one read-only value stands for every row of each
        repeated: np.ndarray = np.broadcast_to(np.False_, (n,))
        first: np.ndarray = np.broadcast_to(np.int64(-1), (n,))
        # runs of places whose hashes share their top bits: repeats, or (seldom) different pairs
        prefix = packed >> _U64(bits)
        new_run = np.r_[True, prefix[1:] != prefix[:-1]]
        del prefix
        if not new_run.all():
            repeated, first = np.zeros(n, dtype=bool), np.full(n, -1, dtype=np.int64)
            rows = cls._rows(packed, bits, row_of_place)
            head = np.flatnonzero(new_run)  # each run's first (earliest) place
            later = np.flatnonzero(~new_run)  # the places after it
            there = rows[head[np.searchsorted(head, later, side="right") - 1]]
            here = rows[later]
            # a place equal to its run's head repeats it: one comparison each, however long the run
            equal = (group[here] == group[there]) & keys.same(here, keys, there)
            repeated[here[equal]] = True
            first[here[equal]] = there[equal]
            other = later[~equal]
            if len(other):  # different pairs behind a shared hash: told apart by their ids themselves
                here = rows[other]
                _, earliest, inverse = np.unique(_exact_pairs(group[here], take(keys.strings, here)),
                                                 return_index=True, return_inverse=True)
                there = here[earliest[inverse]]  # the places are in order: the first is the earliest
                later = there != here
                repeated[here[later]] = True
                first[here[later]] = there[later]
            distinct = packed[~repeated[rows]]
        else:
            distinct = packed
        return cls(group=group, keys=keys, packed=packed, bits=bits, segment_of_group=segment_of_group,
                   row_of_place=row_of_place, repeated=repeated, first=first, distinct=distinct)

    @staticmethod
    def _rows(packed: np.ndarray, bits: int, row_of_place: np.ndarray | None) -> np.ndarray:
        places = (packed & _U64((1 << bits) - 1)).astype(np.int64)
        return places if row_of_place is None else row_of_place[places]

    def find(self, group: np.ndarray, keys: StringKeys) -> np.ndarray:
        """For each query (``group[i]``, string ``i`` of ``keys``), the earliest row holding
        that pair, or -1. Queries with a negative group match nothing."""
        group = np.asarray(group, dtype=np.int64)
        found = np.full(len(group), -1, dtype=np.int64)
        pending = np.flatnonzero(group >= 0)
        packed = self.distinct
        n = len(packed)
        if not len(pending) or not n:
            return found
        low = _pair_hashes(keys, group, pending)
        if self.segment_of_group is None:
            low >>= _U64(self.bits)
            low <<= _U64(self.bits)
        else:  # a group without rows here matches nothing
            segment = self.segment_of_group[np.minimum(group[pending], len(self.segment_of_group) - 1)]
            segment[group[pending] >= len(self.segment_of_group)] = -1
            held = segment >= 0
            pending, low, segment = pending[held], low[held], segment[held]
            if not len(pending):
                return found
            _lead(low, segment, self.segment_of_group, self.bits)
        # the queries in hash order: their binary searches walk the sorted places once
        order = np.argsort(low)
        pending, low = pending[order], low[order]
        at = np.searchsorted(packed, low)
        high = _U64(~((1 << self.bits) - 1) & 0xFFFFFFFFFFFFFFFF)
        for _ in range(_WALK):  # the pairs of the query's hash, earliest first, until one is its pair
            value = packed[np.minimum(at, n - 1)]
            same_hash = ((value & high) == low) & (at < n)
            pending, low, at, value = pending[same_hash], low[same_hash], at[same_hash], value[same_hash]
            rows = self._rows(value, self.bits, self.row_of_place)
            hit = (self.group[rows] == group[pending]) & self.keys.same(rows, keys, pending)
            found[pending[hit]] = rows[hit]
            missed = ~hit
            pending, low, at = pending[missed], low[missed], at[missed] + 1
            if not len(pending):
                return found
        # many different pairs behind one hash: the rest are matched on their ids, in one pass
        candidates = packed[np.isin(packed & high, low)]
        rows = self._rows(candidates, self.bits, self.row_of_place)
        pairs = _exact_pairs(np.r_[self.group[rows], group[pending]],
                             pa.concat_arrays([take(self.keys.strings, rows).cast(pa.large_binary()),
                                               take(keys.strings, pending).cast(pa.large_binary())]))
        indexed, asked = pairs[: len(rows)], pairs[len(rows) :]
        order = np.argsort(indexed)
        at = np.minimum(np.searchsorted(indexed, asked, sorter=order), len(rows) - 1)
        hit = indexed[order[at]] == asked
        found[pending[hit]] = rows[order[at[hit]]]
        return found


def _exact_pairs(group: np.ndarray, strings: pa.Array) -> np.ndarray:
    """An integer per (group, string) pair, equal exactly when the pairs are: the strings
    numbered by Arrow's hash table (linear time whatever the fingerprints do)."""
    ids = pc.dictionary_encode(strings).indices.to_numpy(zero_copy_only=False).astype(np.int64)
    span = int(group.max()) + 1 if len(group) else 1
    return ids * span + group.astype(np.int64)
