"""Effect sizes, intervals, rank correlation, discriminative power, agreement, score matrices."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from pateval.errors import ParameterError
from pateval.stats import (
    agreement_chart,
    agreement_counts,
    bootstrap_confidence_interval,
    discriminative_power,
    kendall_tau,
    pair_verdicts,
    paired_effect_size,
    ranking_correlations,
    residual_effect_sizes,
    score_matrix,
    t_confidence_interval,
    tau_ap,
)

# ---- effect sizes and intervals ----------------------------------------------------------


def test_effect_size_and_t_interval_by_hand():
    z = np.array([0.1, 0.3, 0.2, 0.4])
    assert paired_effect_size(z)[0] == pytest.approx(0.25 / np.std(z, ddof=1))
    low, high = t_confidence_interval(z, confidence=0.95)
    margin = sps.t.ppf(0.975, 3) * np.std(z, ddof=1) / 2
    assert (low[0], high[0]) == pytest.approx((0.25 - margin, 0.25 + margin))
    reference = sps.ttest_1samp(z, 0).confidence_interval(0.95)
    assert (low[0], high[0]) == pytest.approx((reference.low, reference.high))


def test_bootstrap_interval_covers_the_mean_and_is_reproducible():
    z = np.random.default_rng(2).normal(0.1, 0.2, (50, 3))
    low, high = bootstrap_confidence_interval(z, B=500, seed=4)
    again = bootstrap_confidence_interval(z, B=500, seed=4)
    np.testing.assert_array_equal(low, again[0])
    assert (low < z.mean(axis=0)).all() and (z.mean(axis=0) < high).all()


def test_residual_effect_sizes_by_hand():
    x = np.array([[0.2, 0.4], [0.4, 0.4], [0.6, 0.9]])
    effect, v_e = residual_effect_sizes(x)
    residual = x - x.mean(1, keepdims=True) - x.mean(0, keepdims=True) + x.mean()
    assert v_e == pytest.approx((residual**2).sum() / 2)
    assert effect[1, 0] == pytest.approx((x[:, 1].mean() - x[:, 0].mean()) / math.sqrt(v_e))
    assert effect[0, 1] == pytest.approx(-effect[1, 0])


# ---- rank correlation --------------------------------------------------------------------


def test_tau_ap_weighs_errors_at_the_top_more():
    x = [3.0, 2.0, 1.0]  # ranking a, b, c
    assert tau_ap(x, [2.0, 3.0, 1.0]) == pytest.approx(0.0)  # a and b swapped at the top
    assert tau_ap(x, [3.0, 1.0, 2.0]) == pytest.approx(0.5)  # b and c swapped at the bottom
    # Kendall's tau cannot tell the two apart.
    assert kendall_tau(x, [2.0, 3.0, 1.0]) == pytest.approx(kendall_tau(x, [3.0, 1.0, 2.0]))


def test_tau_ap_extremes_and_symmetric_form():
    rng = np.random.default_rng(3)
    x = rng.random(12)
    assert tau_ap(x, x) == pytest.approx(1.0)
    assert tau_ap(x, -x) == pytest.approx(-1.0)
    y = x + rng.normal(0, 0.2, 12)
    assert tau_ap(x, y, symmetric=True) == pytest.approx(0.5 * (tau_ap(x, y) + tau_ap(y, x)))
    assert -1.0 <= tau_ap(x, y) <= 1.0


def test_kendall_matches_scipy_and_table():
    rng = np.random.default_rng(4)
    means = pd.DataFrame(rng.random((10, 3)), columns=["AP", "P@10", "PRES@100"])
    table = ranking_correlations(means)
    assert list(zip(table["measure_a"], table["measure_b"], strict=False)) == [("AP", "P@10"), ("AP", "PRES@100"),
                                                                              ("P@10",
                                                                                                      "PRES@100")]
    assert table["kendall_tau"].iloc[0] == pytest.approx(sps.kendalltau(means["AP"], means["P@10"]).statistic)
    with pytest.raises(ParameterError):
        kendall_tau([1, 1, 1], [1, 2, 3])


# ---- discriminative power ----------------------------------------------------------------


def make_measures(seed: int = 5, n: int = 40) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    runs = [f"r{i}" for i in range(6)]
    topic_effect = rng.random((n, 1))
    separated = topic_effect + np.linspace(0, 0.5, 6) + rng.normal(0, 0.05, (n, 6))
    noisy = topic_effect + rng.normal(0, 0.3, (n, 6))
    return {"sharp": pd.DataFrame(separated, columns=runs), "noisy": pd.DataFrame(noisy, columns=runs)}


def test_discriminative_power_tells_a_sharp_measure_from_a_noisy_one():
    result = discriminative_power(make_measures(), test="bootstrap", B=500, seed=1)
    summary = result.summary.set_index("measure")
    assert summary.loc["sharp", "discriminative_power"] == 1.0
    assert summary.loc["noisy", "discriminative_power"] < 0.5
    assert summary.loc["sharp", "pairs"] == 15 and summary.loc["sharp", "B"] == 500
    curve = result.curves[result.curves["measure"] == "noisy"]["asl"].to_numpy()
    assert len(curve) == 15 and np.all(np.diff(curve) >= 0)


def test_difference_needed_for_the_t_test_is_the_largest_critical_difference():
    matrices = make_measures()
    result = discriminative_power(matrices, test="t")
    x = matrices["noisy"].to_numpy()
    first, second = np.triu_indices(6, k=1)
    z = x[:, first] - x[:, second]
    critical = sps.t.ppf(0.975, z.shape[0] - 1) * z.std(axis=0, ddof=1) / math.sqrt(z.shape[0])
    summary = result.summary.set_index("measure")
    assert summary.loc["noisy", "difference_needed"] == pytest.approx(critical.max())
    # A pair is significant exactly when its difference exceeds its critical difference.
    tests = result.tests[result.tests["measure"] == "noisy"]
    np.testing.assert_array_equal(tests["p_value"] < 0.05, np.abs(tests["difference"]) > tests["critical_difference"])


# ---- agreement ---------------------------------------------------------------------------


def test_verdicts_and_agreement_counts():
    matrices = make_measures()
    matrices["reversed"] = -matrices["sharp"]
    verdicts = pair_verdicts(matrices, test="t", alpha=0.05)
    assert set(verdicts["sharp"]) <= {"A", "B", "tie"}
    # r0 < r5 on "sharp": the second run is better; "reversed" says the opposite.
    row = verdicts[(verdicts["run_a"] == "r0") & (verdicts["run_b"] == "r5")].iloc[0]
    assert row["sharp"] == "B" and row["reversed"] == "A"
    counts = agreement_counts(verdicts).set_index(["measure_a", "measure_b"])
    assert counts.loc[("sharp", "reversed"), "opposite"] == 15
    assert counts.loc[("sharp", "reversed"), "agree"] == 0
    chart = agreement_chart(verdicts)
    assert chart["pairs"].sum() == 15
    assert chart["share"].sum() == pytest.approx(1.0)


def test_agreement_chart_by_hand():
    verdicts = pd.DataFrame(
        {
            "run_a": ["a", "a", "b", "a"],
            "run_b": ["b", "c", "c", "d"],
            "MAP": ["A", "tie", "B", "A"],
            "PRES": ["A", "A", "B", "A"],
        }
    )
    counts = agreement_counts(verdicts).iloc[0]
    assert (counts["agree"], counts["opposite"], counts["one_tied"], counts["both_tied"]) == (3, 0, 1, 0)
    chart = agreement_chart(verdicts)
    assert chart.iloc[0][["MAP", "PRES", "pairs"]].tolist() == ["A", "A", 2]
    assert chart["all_agree"].tolist() == [True, True, False]


# ---- score matrices ----------------------------------------------------------------------


def test_score_matrix_pivots_and_keeps_shared_topics():
    frame = pd.DataFrame(
        {
            "run": ["x", "x", "x", "y", "y", "x", "y"],
            "topic": ["t1", "t2", "t3", "t1", "t2", "all", "all"],
            "measure": ["AP"] * 7,
            "value": [0.1, 0.2, 0.3, 0.4, 0.5, 0.2, 0.45],
        }
    )
    matrix = score_matrix(frame)
    assert list(matrix.columns) == ["x", "y"] and list(matrix.index) == ["t1", "t2"]
    assert matrix.loc["t2", "y"] == 0.5
    with pytest.raises(ParameterError, match="t3"):
        score_matrix(frame, topics="strict")
    with pytest.raises(ParameterError):
        score_matrix(frame, "nDCG")


def test_exported_names_are_not_shadowed_by_submodules():
    # Importing a submodule binds its name on the package; none may hide an exported function.
    import importlib

    import pateval.stats as package

    for module in set(package._EXPORTS.values()):
        importlib.import_module(f"pateval.stats.{module}")
    for name in package.__all__:
        assert not inspect.ismodule(getattr(package, name)), name
