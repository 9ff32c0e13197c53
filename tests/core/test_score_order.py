"""core.order.score_order (packed SIMD sort + collision fix-up) against np.lexsort."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pateval.core.order import descending_keys, score_order

# scores chosen to collide in their leading bits: near-equal values, signed zeros, infinities
_SCORES = st.one_of(
    st.floats(allow_nan=False),
    st.sampled_from([0.0, -0.0, 1.0, 1.0 + 2**-52, 1.0 + 2**-40, 1.0 - 2**-53, -1.0, 5e-324, -5e-324,
                     np.inf, -np.inf, 1e300, 1e300 * (1 + 2**-50)]),
)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_score_order_is_a_lexsort_by_group_then_score_descending(data):
    n = data.draw(st.integers(1, 200))
    top = data.draw(st.sampled_from([1, 3, 50, 2**20, 2**40]))  # many groups: fewer score bits
    group = data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, top - 1)))
    if data.draw(st.booleans()):  # each group's rows together, groups out of order: sorted in slices
        group = np.sort(group)[::-1 if data.draw(st.booleans()) else 1].copy()
    score = data.draw(hnp.arrays(np.float64, n, elements=_SCORES))
    assert score_order(group, score).tolist() == np.lexsort((-score, group)).tolist()


def test_score_order_of_contiguous_groups_in_many_slices(monkeypatch):
    # groups as a run's topics, in an order that is not theirs, over many small slices
    import pateval.core.segments as segments

    monkeypatch.setattr(segments, "SORT_SLICE_ROWS", 5)
    rng = np.random.default_rng(11)
    group = np.repeat(rng.permutation(40), rng.integers(1, 12, size=40))
    score = rng.choice([0.5, 1.0, 1.0 + 2**-45, 2.0, -0.0, 0.0], size=len(group))
    assert score_order(group, score).tolist() == np.lexsort((-score, group)).tolist()


def test_score_order_keeps_equal_scores_in_row_order_and_zeros_equal():
    group = np.array([0, 0, 0, 0, 1])
    score = np.array([-0.0, 0.5, 0.0, 0.5, 9.0])
    assert score_order(group, score).tolist() == [1, 3, 0, 2, 4]


def test_descending_keys_order_as_the_negated_floats():
    values = np.array([np.inf, 3.5, 1.0, 5e-324, 0.0, -0.0, -5e-324, -1.0, -np.inf])
    keys = descending_keys(values)
    assert np.all(keys[1:] >= keys[:-1]) and keys[4] == keys[5]
    assert np.all(keys[:4] < keys[4]) and np.all(keys[6:] > keys[5])
