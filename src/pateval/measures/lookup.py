"""String lookups of the measure kernels with integer operations.

:meth:`SortedKeys.find` gives exactly what ``pyarrow.compute.index_in`` gives; it is only
faster on millions of values, and falls back to it when its shortcut does not apply.
(The sorts the kernels share are in :mod:`pateval.core.order`.)
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..core.order import string_words

__all__ = ["SortedKeys"]

_MIX1 = np.uint64(0x9E3779B97F4A7C15)  # odd constants of splitmix64
_MIX2 = np.uint64(0xBF58476D1CE4E5B9)
_MIX3 = np.uint64(0x94D049BB133111EB)


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
    and lengths themselves, kept in print order (then at the next keys of that print, should
    a different string share it): the result is exact, whatever the hash does. On millions
    of ids this reads the keys' memory in order, where a hash table probes it at random.
    """

    def __init__(self, keys: pa.Array | pa.ChunkedArray):
        self.keys = keys
        self.n = len(keys)
        # room for the positions of 16 million ids too, so that both sides pack alike
        self.bits = max(24, (max(self.n, 1) - 1).bit_length())
        self.low = np.uint64((1 << self.bits) - 1)
        read = string_words(keys, big_endian=False) if self.n else None
        self.words = self.lengths = None
        if read is not None:
            packed = (_fingerprints(*read) & ~self.low) | np.arange(self.n, dtype=np.uint64)
            packed.sort()
            self.print = packed & ~self.low
            self.position = (packed & self.low).astype(np.int64)
            # the words and lengths in print order: the searches read them forward, not at random
            self.words, self.lengths = read[0][:, self.position], read[1][self.position]

    def find(self, ids: pa.Array | pa.ChunkedArray) -> np.ndarray:
        """``pc.index_in(ids, value_set=keys)`` as int64 (-1 where absent)."""
        n = len(ids)
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        if self.n == 0:
            return np.full(n, -1, dtype=np.int64)
        key_words, key_lengths = self.words, self.lengths
        read = None if key_words is None else string_words(ids, words=len(key_words), big_endian=False)
        if read is None or key_words is None or key_lengths is None or n > int(self.low) + 1:
            # ids longer than any key's words, or too many
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
            ids_here = id_at[pending]
            same = np.take(key_lengths, at) == np.take(lengths, ids_here)
            for k in range(len(key_words)):
                same &= np.take(key_words[k], at) == np.take(words[k], ids_here)
            where[ids_here[same]] = np.take(self.position, at[same])
            # a different string of the same print: the next key, if it has that print too
            at, pending = at[~same] + 1, pending[~same]
            more = np.flatnonzero(at < self.n)
            at, pending = at[more], pending[more]
            more = np.flatnonzero(self.print[at] == wanted[pending])
            at, pending = at[more], pending[more]
        return where
