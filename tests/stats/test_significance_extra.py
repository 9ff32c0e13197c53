"""Degenerate differences: resamples without spread must not yield absurd critical values."""

import numpy as np

from pateval.stats.significance import bootstrap_asl


def test_bootstrap_critical_difference_is_not_blown_up_by_rounding():
    # a few topics differ, the rest tie (recall at a deep cutoff): many resamples have no
    # spread, and rounding used to give them t values in the millions
    rng = np.random.default_rng(1)
    worst = 0.0
    for _ in range(60):
        z = np.zeros((46, 1))
        idx = rng.choice(46, rng.integers(1, 4), replace=False)
        z[idx, 0] = rng.choice([1 / 3, 1 / 7, 0.05, 1 / 11, 2 / 9], len(idx)) * rng.choice([-1, 1], len(idx))
        critical = bootstrap_asl(z, B=1000, seed=0)["critical_difference"][0]
        if np.isfinite(critical):
            worst = max(worst, critical)
    assert worst < 1.0  # differences of scores in [0, 1]
