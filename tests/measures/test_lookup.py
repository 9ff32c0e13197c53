"""TBG's length lookups (core.keys.PairIndex, one group) give exactly what Arrow's index_in gives."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pateval.core import keys as core_keys
from pateval.measures.tbg import LengthTable


def _table(keys: pa.Array) -> LengthTable:
    return LengthTable(keys, np.zeros(len(keys)))


def test_sorted_keys_find_what_arrow_index_in_finds():
    rng = np.random.default_rng(7)
    alphabet = np.array(list("ab\x00\x01Z9-é"))
    for longest in (3, 9, 17, 30):  # one word, two, three, longer
        base = sorted({"".join(rng.choice(alphabet, size=int(n))) for n in rng.integers(0, longest + 1, 70_000)})
        keys = pa.array(base[: len(base) * 3 // 4] + rng.choice(base, 3000).tolist())  # repeated keys: the first counts
        ids = pa.chunked_array([pa.array(base[:100]), pa.array(rng.permutation(base).tolist() + ["absent"])])
        expected = pc.index_in(ids, value_set=keys).fill_null(-1).to_numpy(zero_copy_only=False)
        assert np.array_equal(_table(keys).find(ids), expected)


def test_sorted_keys_resolve_shared_fingerprints(monkeypatch):
    real = core_keys._pair_hashes
    # 8 hashes for every string: most matches meet other strings first
    monkeypatch.setattr(core_keys, "_pair_hashes",
                        lambda keys, group, rows=None: (real(keys, group, rows) & np.uint64(7)) << np.uint64(61))
    rng = np.random.default_rng(3)
    base = sorted({f"d{i}" * int(k) for i, k in enumerate(rng.integers(1, 4, 3000))})
    keys = pa.array(base[:2000] + base[:50])
    ids = pa.array(rng.permutation(base).tolist() + ["absent"])
    expected = pc.index_in(ids, value_set=keys).fill_null(-1).to_numpy(zero_copy_only=False)
    assert np.array_equal(_table(keys).find(ids), expected)
