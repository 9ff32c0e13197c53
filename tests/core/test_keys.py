"""The (topic, document) pair index against a plain dict, on ids of every length."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from pateval.core.keys import PairIndex, StringKeys

# short alphabets make repeats and shared prefixes common; lengths cross the 8-byte words
IDS = st.text(alphabet="ab\u00e9", min_size=0, max_size=3) | st.text(alphabet="xy", min_size=6, max_size=20)


def _naive(groups, ids, priority):
    first: dict = {}
    repeated = np.zeros(len(ids), dtype=bool)
    earliest = np.full(len(ids), -1)
    for row in sorted(range(len(ids)), key=lambda r: priority[r]):
        pair = (groups[row], ids[row])
        if pair in first:
            repeated[row] = True
            earliest[row] = first[pair]
        else:
            first[pair] = row
    return first, repeated, earliest


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), IDS), max_size=60), st.lists(st.tuples(st.integers(-1, 4), IDS),
                                                                          max_size=30),
       st.randoms(use_true_random=False), st.booleans(), st.booleans())
def test_pair_index_agrees_with_a_dict(rows, queries, random, tied, contiguous):
    if contiguous:  # each group's rows together, as a run's topics: sorted in slices of whole groups
        rows = sorted(rows, key=lambda row: row[0])
    groups = np.array([g for g, _ in rows], dtype=np.int64)
    ids = [d for _, d in rows]
    priority = list(range(len(rows)))
    random.shuffle(priority)
    if tied:  # equal priorities (rank_run gives rows left out of the ranking one): row order decides
        priority = [p // 3 for p in priority]
    index = PairIndex.build(groups, StringKeys.of(pa.array(ids, type=pa.string())), n_groups=5,
                            priority=np.asarray(priority, dtype=np.int64))
    first, repeated, earliest = _naive(groups.tolist(), ids, priority)
    assert index.repeated.tolist() == repeated.tolist()
    assert index.first.tolist() == earliest.tolist()
    query_groups = np.array([g for g, _ in queries], dtype=np.int64)
    found = index.find(query_groups, StringKeys.of(pa.array([d for _, d in queries], type=pa.string())))
    assert found.tolist() == [first.get((g, d), -1) if g >= 0 else -1 for g, d in queries]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), IDS), max_size=60), st.lists(st.tuples(st.integers(-1, 4), IDS),
                                                                          max_size=30),
       st.randoms(use_true_random=False), st.booleans())
def test_pair_index_is_exact_when_every_hash_collides(rows, queries, random, contiguous):
    """Hashes only propose matches: with a hash that puts every pair of a group together,
    repeats and lookups still agree with a dict."""
    import pateval.core.keys as keys_module

    if contiguous:
        rows = sorted(rows, key=lambda row: row[0])
    groups = np.array([g for g, _ in rows], dtype=np.int64)
    ids = [d for _, d in rows]
    priority = list(range(len(rows)))
    random.shuffle(priority)
    weak = keys_module._pair_hashes
    keys_module._pair_hashes = lambda keys, group, rows=None: (np.asarray(group if rows is None else group[rows])
                                                              .astype(np.uint64) << np.uint64(60))
    try:
        index = PairIndex.build(groups, StringKeys.of(pa.array(ids, type=pa.string())), n_groups=5,
                                priority=np.asarray(priority, dtype=np.int64))
        query_groups = np.array([g for g, _ in queries], dtype=np.int64)
        found = index.find(query_groups, StringKeys.of(pa.array([d for _, d in queries], type=pa.string())))
    finally:
        keys_module._pair_hashes = weak
    first, repeated, earliest = _naive(groups.tolist(), ids, priority)
    assert index.repeated.tolist() == repeated.tolist()
    assert index.first.tolist() == earliest.tolist()
    assert found.tolist() == [first.get((g, d), -1) if g >= 0 else -1 for g, d in queries]


def test_fingerprints_of_sliced_and_chunked_arrays_match_plain_ones():
    ids = pa.array([f"EP-{n:07d}-B1" for n in range(300)] + ["x", ""])
    plain = StringKeys.of(ids)
    sliced = StringKeys.of(ids.slice(100, 150))
    chunked = StringKeys.of(pa.chunked_array([ids.slice(0, 120), ids.slice(120)]))
    assert np.array_equal(sliced.fingerprint, plain.fingerprint[100:250])
    assert np.array_equal(chunked.fingerprint, plain.fingerprint)
    assert not plain.exact and StringKeys.of(pa.array(["d1", "d22"])).exact


def test_many_rows_over_several_rounds_find_every_pair():
    rng = np.random.default_rng(7)
    n = 200_000  # several blocks and probing rounds
    groups = np.sort(rng.integers(0, 300, n))
    ids = pa.array([f"D{x}" for x in rng.permutation(n)])
    index = PairIndex.build(groups, StringKeys.of(ids), n_groups=300)
    places = index.packed & np.uint64((1 << index.bits) - 1)
    assert np.array_equal(np.sort(places), np.arange(n)) and not index.repeated.any()
    probe = rng.choice(n, 5000, replace=False)
    found = index.find(groups[probe], StringKeys.of(ids.take(pa.array(probe))))
    assert found.tolist() == probe.tolist()
    absent = index.find(groups[probe], StringKeys.of(pa.array([f"Z{x}" for x in probe])))
    assert (absent == -1).all()


def test_patent_publications_of_a_topic_left_out_do_not_upset_the_ranking():
    from pateval.core.qrels import Qrels
    from pateval.core.ranking import JudgementIndex, rank_run
    from pateval.core.run import Run

    qrels = Qrels.from_records([("q1", "EP-0971326-A1", 1)])
    run = Run.from_records([("q1", "EP-0971326-A1", 3.0), ("q1", "EP-0971326-B1", 2.0),
                            ("q9", "EP-1000000-A1", 1.0), ("q9", "EP-1000000-B1", 0.5)])
    ranked = rank_run(run, JudgementIndex.build(qrels, qrels.topic_ids, doc_key="patent"))
    assert list(ranked.docno) == ["EP-0971326-A1"]
    assert any("1 later publication" in note for note in ranked.notes)


def test_many_copies_of_one_pair_point_to_the_first():
    """200,000 copies of one (topic, document): every copy but the first repeats the first
    (issue 33: a run of equal hashes was walked back one step at a time, O(N^2))."""
    n = 200_000
    ids = pa.array(["EP-1234567-A1"] * n + ["EP-7654321-B1"] * 3)
    groups = np.r_[np.zeros(n, dtype=np.int64), [0, 1, 0]]
    index = PairIndex.build(groups, StringKeys.of(ids), n_groups=2)
    assert not index.repeated[0] and index.repeated[1:n].all() and (index.first[1:n] == 0).all()
    assert index.repeated[n:].tolist() == [False, False, True] and index.first[n + 2] == n
    found = index.find(np.array([0, 1, 1, 0]), StringKeys.of(pa.array(["EP-1234567-A1", "EP-7654321-B1",
                                                                        "EP-1234567-A1", "x"])))
    assert found.tolist() == [0, n + 1, -1, -1]


def test_many_different_pairs_behind_one_hash_are_told_apart(monkeypatch):
    """Every hash equal: thousands of distinct pairs, each repeated, are still matched exactly
    (on their ids, past the first few of a lookup's hash)."""
    import pateval.core.keys as keys_module

    monkeypatch.setattr(keys_module, "_pair_hashes", lambda keys, group, rows=None: np.zeros(
        len(group) if rows is None else len(rows), dtype=np.uint64))
    distinct = [f"document-{k:05d}" for k in range(3000)]
    ids = distinct + distinct[::-1]
    groups = np.r_[np.arange(3000) % 3, (np.arange(3000) % 3)[::-1]]
    index = PairIndex.build(groups, StringKeys.of(pa.array(ids)), n_groups=3)
    assert not index.repeated[:3000].any() and index.repeated[3000:].all()
    assert index.first[3000:].tolist() == list(range(2999, -1, -1))
    asked = [0, 1, 2999, 5]
    found = index.find(np.array([k % 3 for k in asked] + [1]), StringKeys.of(pa.array(
        [distinct[k] for k in asked] + [distinct[0]])))
    assert found.tolist() == [*asked, -1]


def test_contiguous_groups_sorted_in_slices_are_indexed_as_one_sort(monkeypatch):
    """Groups whose rows are contiguous (in any order of groups) are sorted slice by slice
    of whole groups: with slices of a few rows, repeats and lookups are those of one sort."""
    import pateval.core.keys as keys_module

    rng = np.random.default_rng(7)
    sizes = rng.integers(1, 40, size=60)
    order = rng.permutation(60)  # groups appear out of numeric order
    groups = np.repeat(order, sizes)
    ids = [f"d{v}" for v in rng.integers(0, 30, size=len(groups))]
    keys = StringKeys.of(pa.array(ids, type=pa.string()))
    queries = rng.integers(-1, 61, size=500)
    asked = StringKeys.of(pa.array([f"d{v}" for v in rng.integers(0, 35, size=500)], type=pa.string()))
    import pateval.core.segments as segments_module

    monkeypatch.setattr(segments_module, "SORT_SLICE_ROWS", 7)
    sliced = PairIndex.build(groups, keys, n_groups=61)
    assert sliced.segment_of_group is not None
    monkeypatch.setattr(keys_module, "_segments", lambda group, n_groups, bits: (None, None))
    whole = PairIndex.build(groups, keys, n_groups=61)
    assert whole.segment_of_group is None
    assert sliced.repeated.tolist() == whole.repeated.tolist()
    assert sliced.first.tolist() == whole.first.tolist()
    assert np.all(sliced.packed[1:] >= sliced.packed[:-1])  # one sorted whole: lookups binary-search it
    assert sliced.find(queries, asked).tolist() == whole.find(queries, asked).tolist()
