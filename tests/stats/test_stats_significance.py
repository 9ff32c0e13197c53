"""Paired tests: reference values (Sakai's book), scipy on random data, the plain loops."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import reference_significance as _reference
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from pateval.errors import ParameterError
from pateval.stats import (
    bootstrap_asl,
    paired_t,
    paired_test,
    pairwise_tests,
    randomisation_asl,
    significance,
    tukey_hsd_asl,
    wilcoxon_signed_rank,
)

# Sakai, Laboratory Experiments in Information Retrieval, table 5.1 (restated in the project spec of the measures).
SAKAI_A = [0.70, 0.30, 0.20, 0.60, 0.40, 0.40, 0.00, 0.70, 0.10, 0.30, 0.50, 0.40, 0.00, 0.60, 0.50, 0.30, 0.10, 0.50,
           0.20, 0.10]
SAKAI_B = [0.50, 0.10, 0.00, 0.20, 0.40, 0.30, 0.00, 0.50, 0.30, 0.30, 0.40, 0.40, 0.10, 0.40, 0.20, 0.10, 0.10, 0.60,
           0.30, 0.20]


def within_monte_carlo(asl: float, expected: float, B: int) -> bool:
    """|asl - expected| within 3 standard errors of a proportion estimated from B resamples."""
    return abs(asl - expected) <= 3 * math.sqrt(expected * (1 - expected) / B)


def all_pair_differences(x: np.ndarray) -> np.ndarray:
    first, second = np.triu_indices(x.shape[1], k=1)
    return x[:, first] - x[:, second]


# ---- Sakai's example ---------------------------------------------------------------------


def test_sakai_paired_t_is_exact():
    result = paired_test(SAKAI_A, SAKAI_B, test="t")
    assert round(result.statistic, 3) == 2.116
    assert round(result.p_value, 4) == 0.0478
    assert result.n_topics == 20 and result.B is None
    assert result.mean_difference == pytest.approx(0.075)


@pytest.mark.parametrize(("B", "expected"), [(1_000, 0.043), (10_000, 0.052)])
def test_sakai_bootstrap_asl_within_monte_carlo_error(B, expected):
    result = paired_test(SAKAI_A, SAKAI_B, test="bootstrap", B=B, seed=1)
    assert result.B == B and result.seed == 1
    assert within_monte_carlo(result.p_value, expected, B), result.p_value


def test_sakai_randomisation_asl_and_its_exact_limit():
    random = paired_test(SAKAI_A, SAKAI_B, test="randomisation", B=100_000, seed=2)
    assert within_monte_carlo(random.p_value, 0.065, 100_000), random.p_value
    exact = paired_test(SAKAI_A, SAKAI_B, test="randomisation", exact=True)
    assert exact.B == 2**20 and exact.seed is None
    assert within_monte_carlo(random.p_value, exact.p_value, 100_000)
    # Exact count over all 2**20 sign vectors.
    assert exact.p_value * 2**20 == pytest.approx(round(exact.p_value * 2**20))


# ---- against scipy on random data --------------------------------------------------------


def test_t_test_matches_scipy_ttest_rel():
    rng = np.random.default_rng(7)
    x = rng.random((40, 8))
    z = all_pair_differences(x)
    ours = paired_t(z)
    first, second = np.triu_indices(8, k=1)
    reference = sps.ttest_rel(x[:, first], x[:, second], axis=0)
    np.testing.assert_allclose(ours["statistic"], reference.statistic, rtol=1e-10)
    np.testing.assert_allclose(ours["p_value"], reference.pvalue, rtol=1e-10)


@pytest.mark.parametrize(
    ("n", "make"),
    [
        (30, lambda rng, n: rng.random((n, 6))),  # exact distribution
        (80, lambda rng, n: rng.random((n, 6))),  # normal approximation
        (60, lambda rng, n: rng.integers(0, 6, (n, 6)).astype(float)),  # ties and zeros
        (11, lambda rng, n: rng.integers(0, 4, (n, 3)).astype(float)),  # ties, enumerated (scipy is slow here)
        (25, lambda rng, n: rng.integers(0, 5, (n, 6)).astype(float)),  # ties, normal approximation
    ],
)
def test_wilcoxon_matches_scipy_per_pair(n, make):
    rng = np.random.default_rng(n)
    z = all_pair_differences(make(rng, n))
    ours = wilcoxon_signed_rank(z)
    for column in range(z.shape[1]):
        if not z[:, column].any():
            assert ours["p_value"][column] == 1.0
            continue
        reference = sps.wilcoxon(z[:, column])
        assert ours["statistic"][column] == pytest.approx(reference.statistic)
        assert ours["p_value"][column] == pytest.approx(reference.pvalue, rel=1e-9, abs=1e-12)


def test_wilcoxon_counts_floating_point_equal_differences_as_ties():
    # 0.7 - 0.5 and 0.3 - 0.1 differ in the last bit; they are the same difference.
    result = paired_test(SAKAI_A, SAKAI_B, test="wilcoxon")
    rounded = np.round(np.subtract(SAKAI_A, SAKAI_B), 10)
    assert result.p_value == pytest.approx(sps.wilcoxon(rounded).pvalue, rel=1e-12)


def test_exact_randomisation_matches_scipy_permutation_test():
    rng = np.random.default_rng(3)
    x, y = rng.random(12), rng.random(12)
    ours = randomisation_asl(x - y, B=10_000, exact="auto")
    assert ours["exact"] and ours["B"] == 2**12
    reference = sps.permutation_test(
        (x, y), lambda a, b, axis: np.mean(a - b, axis=axis), permutation_type="samples", n_resamples=np.inf,
                                     vectorized=True
    )
    assert ours["p_value"][0] == pytest.approx(reference.pvalue, rel=1e-12)


# ---- vectorised against the plain loops, same seed ---------------------------------------


def test_bootstrap_matches_plain_loop():
    x = np.random.default_rng(11).random((17, 5))
    z = all_pair_differences(x)
    np.testing.assert_array_equal(bootstrap_asl(z, B=400, seed=5)["p_value"], _reference.loop_bootstrap_asl(z, B=400,
                                                                                                            seed=5))


def test_randomisation_matches_plain_loop():
    x = np.random.default_rng(12).random((23, 5))
    z = all_pair_differences(x)
    ours = randomisation_asl(z, B=400, seed=5, exact=False)
    np.testing.assert_array_equal(ours["p_value"], _reference.loop_randomisation_asl(z, B=400, seed=5))


def test_tukey_matches_plain_loop():
    x = np.random.default_rng(13).random((9, 4))
    np.testing.assert_array_equal(tukey_hsd_asl(x, B=300, seed=5)["p_value"], _reference.loop_tukey_hsd_asl(x, B=300,
                                                                                                            seed=5))


@pytest.mark.parametrize("test", ["bootstrap", "randomisation", "tukey"])
def test_chunk_size_does_not_change_p_values(monkeypatch, test):
    x = np.random.default_rng(14).random((30, 6))
    whole = pairwise_tests(x, test=test, B=500, seed=9, exact=False)
    monkeypatch.setattr(significance, "RESAMPLE_CHUNK_VALUES", 37)
    chunked = pairwise_tests(x, test=test, B=500, seed=9, exact=False)
    np.testing.assert_array_equal(whole["p_value"], chunked["p_value"])
    np.testing.assert_allclose(whole["critical_difference"], chunked["critical_difference"], rtol=1e-12)


def test_generator_seed_is_consumed_like_the_int_seed():
    x = np.random.default_rng(15).random((20, 3))
    by_int = pairwise_tests(x, test="bootstrap", seed=4)
    by_generator = pairwise_tests(x, test="bootstrap", seed=np.random.default_rng(4))
    np.testing.assert_array_equal(by_int["p_value"], by_generator["p_value"])
    assert set(by_generator["seed"]) == {"generator"}


# ---- properties --------------------------------------------------------------------------

scores_strategy = st.integers(min_value=3, max_value=25).flatmap(
    lambda n: st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=n, max_size=n)
)


@settings(max_examples=40, deadline=None)
@given(pairs=scores_strategy, test=st.sampled_from(["t", "wilcoxon", "randomisation", "bootstrap"]),
       seed=st.integers(0, 2**16))
def test_p_in_unit_interval_symmetric_and_reproducible(pairs, test, seed):
    x = [a for a, _ in pairs]
    y = [b for _, b in pairs]
    forward = paired_test(x, y, test=test, B=200, seed=seed)
    backward = paired_test(y, x, test=test, B=200, seed=seed)
    again = paired_test(x, y, test=test, B=200, seed=seed)
    assert 0.0 <= forward.p_value <= 1.0
    assert forward.p_value == pytest.approx(backward.p_value, abs=1e-12)
    assert forward.p_value == again.p_value


def test_identical_runs_are_not_significant():
    x = np.random.default_rng(16).random(15)
    for test in ("t", "wilcoxon", "randomisation", "bootstrap", "tukey"):
        assert paired_test(x, x, test=test, B=100).p_value == 1.0


def test_constant_nonzero_difference_is_significant():
    x = np.random.default_rng(17).random(30)
    for test in ("t", "randomisation", "bootstrap"):
        assert paired_test(x + 0.25, x, test=test, B=200).p_value < 0.05


def test_tukey_asl_decreases_with_the_difference():
    rng = np.random.default_rng(18)
    x = rng.random((25, 6)) + np.linspace(0, 0.3, 6)
    result = pairwise_tests(x, test="tukey", B=1000, seed=1)
    order = np.argsort(np.abs(result["difference"].to_numpy()))
    assert np.all(np.diff(result["p_value"].to_numpy()[order]) <= 0)
    # A family-wise test is never more liberal than the unadjusted randomisation test here.
    randomised = pairwise_tests(x, test="randomisation", B=1000, seed=1, correction=None)
    assert (result["p_value"].to_numpy() >= randomised["p_value"].to_numpy() - 0.05).all()
    assert set(result["correction"]) == {"none"}


# ---- the all-pairs frame -----------------------------------------------------------------


def test_pairwise_frame_against_a_baseline():
    rng = np.random.default_rng(19)
    frame = pd.DataFrame(rng.random((30, 3)), columns=["base", "r1", "r2"])
    frame["r2"] += 0.3
    result = pairwise_tests(frame, test="t", baseline="base", correction="holm")
    assert list(result["run_a"]) == ["r1", "r2"] and set(result["run_b"]) == {"base"}
    r2 = result.set_index("run_a").loc["r2"]
    assert r2["difference"] == pytest.approx(frame["r2"].mean() - frame["base"].mean())
    assert r2["significant"] and r2["ci_low"] > 0
    assert (result["p_adjusted"] >= result["p_value"]).all()
    assert result["B"].isna().all()


def test_pairwise_all_pairs_count_and_columns():
    result = pairwise_tests(np.random.default_rng(20).random((10, 5)), test="bootstrap", B=100, seed=3)
    assert len(result) == 10
    assert set(result["B"]) == {100} and set(result["seed"]) == {3}
    assert {"effect_size", "ci_low", "ci_high", "critical_difference"} <= set(result.columns)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"test": "anova"},
        {"test": "bootstrap", "B": 0},
        {"test": "bootstrap", "B": 1.5},
        {"alpha": 1.5},
        {"test": "bootstrap", "seed": -1},
        {"test": "bootstrap", "seed": None},
        {"correction": "sidak"},
        {"baseline": "nope"},
        {"test": "randomisation", "exact": "sometimes"},
    ],
)
def test_bad_parameters_raise_parameter_error(kwargs):
    with pytest.raises(ParameterError):
        pairwise_tests(np.random.default_rng(21).random((10, 3)), **kwargs)


def test_bad_scores_raise_parameter_error():
    with pytest.raises(ParameterError):
        pairwise_tests(np.array([[0.1, np.nan], [0.2, 0.3]]))
    with pytest.raises(ParameterError):
        pairwise_tests(np.ones((1, 3)))
    with pytest.raises(ParameterError):
        paired_test([0.1, 0.2, 0.3], [0.1, 0.2])
    with pytest.raises(ParameterError):
        randomisation_asl(np.ones(30), exact=True)
