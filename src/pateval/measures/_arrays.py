"""Array helpers shared by the measure kernels: sorts and string joins with integer operations.

Every helper gives exactly what its plain counterpart gives (``np.argsort(kind="stable")``,
Arrow's byte order, ``pyarrow.compute.index_in``); they are only faster on millions of
values, and each falls back to the plain counterpart when its shortcut does not apply.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..core.keys import string_parts, words_at

__all__ = ["stable_order", "string_words", "byte_order", "SortedKeys", "positions_in"]

_MIX1 = np.uint64(0x9E3779B97F4A7C15)  # odd constants of splitmix64
_MIX2 = np.uint64(0xBF58476D1CE4E5B9)
_MIX3 = np.uint64(0x94D049BB133111EB)
_SHORT = 24  # ids up to this many bytes are read as words; longer ones take the plain path


def stable_order(values: np.ndarray) -> np.ndarray:
    """``np.argsort(values, kind="stable")`` for non-negative integers, by one plain sort of
    (value, index) packed in one integer (a sort that is much faster than a stable argsort)."""
    values = np.asarray(values)
    n = len(values)
    bits = max(1, (n - 1).bit_length())
    if n == 0 or values.min() < 0 or int(values.max()) >= (1 << (63 - bits)):
        return np.argsort(values, kind="stable")
    if int(values.max()) < 1 << 16:  # NumPy's stable sort of 16-bit integers is a radix sort
        return np.argsort(values.astype(np.uint16), kind="stable")
    packed = (values.astype(np.int64) << bits) | np.arange(n, dtype=np.int64)
    packed.sort()
    return packed & ((1 << bits) - 1)


def string_words(strings: pa.Array | pa.ChunkedArray, *, words: int | None = None, longest: int = _SHORT,
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


def _fingerprints(words: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    h = lengths.astype(np.uint64) * _MIX1
    for word in words:
        h ^= word
        h *= _MIX2
        h ^= h >> np.uint64(31)
    h *= _MIX3
    h ^= h >> np.uint64(29)
    return h


class SortedKeys:
    """Strings indexed for :meth:`find` by sorted fingerprints (made once, used for many lookups).

    Each key's fingerprint (a hash of its words and length) keeps its top bits, packed with
    the key's position in one integer and sorted: equal prints run in position order. An id
    is looked for at the first key of its print, and every match is confirmed on the words
    and lengths themselves (then at the next keys of that print, should a different string
    share it): the result is exact, whatever the hash does. On millions of ids this reads
    memory in order, where a hash table probes it at random.
    """

    def __init__(self, keys: pa.Array | pa.ChunkedArray):
        self.keys = keys
        self.n = len(keys)
        # room for the positions of 16 million ids too, so that both sides pack alike
        self.bits = max(24, (max(self.n, 1) - 1).bit_length())
        self.low = np.uint64((1 << self.bits) - 1)
        read = string_words(keys, big_endian=False) if self.n else None
        self.words, self.lengths = read if read is not None else (None, None)
        if read is not None:
            packed = (_fingerprints(*read) & ~self.low) | np.arange(self.n, dtype=np.uint64)
            packed.sort()
            self.print = packed & ~self.low
            self.position = (packed & self.low).astype(np.int64)

    def find(self, ids: pa.Array | pa.ChunkedArray) -> np.ndarray:
        """``pc.index_in(ids, value_set=keys)`` as int64 (-1 where absent)."""
        n = len(ids)
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        if self.n == 0:
            return np.full(n, -1, dtype=np.int64)
        read = None if self.words is None else string_words(ids, words=len(self.words), big_endian=False)
        if read is None or n > int(self.low) + 1:  # ids longer than any key's words, or too many
            return pc.index_in(ids, value_set=self.keys).fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
        words, lengths = read
        packed = (_fingerprints(words, lengths) & ~self.low) | np.arange(n, dtype=np.uint64)
        packed.sort()  # ids in print order: the searches move forward through the keys
        wanted = packed & ~self.low
        id_at = (packed & self.low).astype(np.int64)
        start = np.minimum(np.searchsorted(self.print, wanted), self.n - 1)
        where = np.full(n, -1, dtype=np.int64)
        pending = np.flatnonzero(self.print[start] == wanted)  # (in print order) ids with keys of their print
        at = start[pending]
        while len(pending):
            key = self.position[at]
            ids_here = id_at[pending]
            same = np.take(self.lengths, key) == np.take(lengths, ids_here)
            for k in range(len(self.words)):
                same &= np.take(self.words[k], key) == np.take(words[k], ids_here)
            where[ids_here[same]] = key[same]
            # a different string of the same print: the next key, if it has that print too
            at, pending = at[~same] + 1, pending[~same]
            more = np.flatnonzero(at < self.n)
            at, pending = at[more], pending[more]
            more = np.flatnonzero(self.print[at] == wanted[pending])
            at, pending = at[more], pending[more]
        return where


def positions_in(ids: pa.Array | pa.ChunkedArray, keys: pa.Array | pa.ChunkedArray | SortedKeys) -> np.ndarray:
    """``pc.index_in(ids, value_set=keys)`` as int64 (-1 where absent): where each id first
    occurs among the keys (short ids by :class:`SortedKeys`, which ``keys`` may already be)."""
    if isinstance(keys, SortedKeys):
        return keys.find(ids)
    if min(len(ids), len(keys)) < 50_000:  # Arrow's hash table is as quick
        if len(ids) == 0:
            return np.zeros(0, dtype=np.int64)
        return pc.index_in(ids, value_set=keys).fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    return SortedKeys(keys).find(ids)
