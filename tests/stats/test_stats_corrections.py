"""Multiple-comparison corrections: hand-computed values, scipy's BH, and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as sps

from pateval.errors import ParameterError
from pateval.stats import adjust_p_values, benjamini_hochberg, bonferroni, holm

P = [0.01, 0.04, 0.03, 0.005]


def test_hand_computed_values():
    np.testing.assert_allclose(bonferroni(P), [0.04, 0.16, 0.12, 0.02])
    # Holm: sorted 0.005*4, 0.01*3, 0.03*2, 0.04*1 -> 0.02, 0.03, 0.06, max(0.06, 0.04)
    np.testing.assert_allclose(holm(P), [0.03, 0.06, 0.06, 0.02])
    # BH: sorted 4p/i = 0.02, 0.02, 0.04, 0.04; running minimum from the largest
    np.testing.assert_allclose(benjamini_hochberg(P), [0.02, 0.04, 0.04, 0.02])


def test_bh_matches_scipy_false_discovery_control():
    p = np.random.default_rng(1).random(200) ** 3
    np.testing.assert_allclose(benjamini_hochberg(p), sps.false_discovery_control(p, method="bh"), rtol=1e-12)


@given(st.lists(st.floats(0, 1), min_size=1, max_size=60))
def test_corrections_are_monotone_bounded_and_ordered(p_values):
    p = np.array(p_values)
    order = np.argsort(p, kind="stable")
    adjusted = {name: adjust_p_values(p, method=name) for name in ("bonferroni", "holm", "bh")}
    for values in adjusted.values():
        assert (values >= p - 1e-15).all() and (values <= 1).all()
        assert np.all(np.diff(values[order]) >= -1e-15)
    assert (adjusted["holm"] <= adjusted["bonferroni"] + 1e-15).all()
    assert (adjusted["bh"] <= adjusted["holm"] + 1e-15).all()
    np.testing.assert_array_equal(adjust_p_values(p, method="none"), p)


def test_bad_input():
    with pytest.raises(ParameterError):
        holm([0.1, 1.2])
    with pytest.raises(ParameterError):
        adjust_p_values([0.1], method="sidak")
    with pytest.raises(ParameterError):
        bonferroni([[0.1, 0.2]])
