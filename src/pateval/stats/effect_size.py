"""Effect sizes and confidence intervals for paired comparisons of runs.

A p-value says whether a difference is distinguishable from chance on these topics; an
effect size says how large it is relative to the topic-to-topic variation, and an interval
says how precisely the mean difference is known (Sakai 2014, "Statistical reform in
information retrieval?").
"""

from __future__ import annotations

import math

import numpy as np

from .._optional import needs_extra
from ..errors import ParameterError
from .scores import SeedLike, as_generator, as_run_scores, check_level, resample_counts

with needs_extra("stats"):
    from scipy import stats as sps

__all__ = ["bootstrap_confidence_interval", "paired_effect_size", "residual_effect_sizes", "t_confidence_interval"]


def as_differences(differences) -> np.ndarray:
    """Paired score differences as a topics x pairs matrix (a vector is one pair), checked:
    at least 2 topics, finite numbers (the paired tests read them through this too)."""
    z = np.asarray(differences, dtype=float)
    if z.ndim == 1:
        z = z[:, None]
    if z.ndim != 2:
        raise ParameterError("differences must be a vector or a topics x pairs matrix")
    if z.shape[0] < 2:
        raise ParameterError(f"paired tests need at least 2 topics, got {z.shape[0]}")
    if not np.isfinite(z).all():
        raise ParameterError("score differences must be finite numbers")
    return z


def t_values(mean: np.ndarray, sd: np.ndarray | float, n: int) -> np.ndarray:
    """mean / (sd / sqrt n), with 0/0 = 0 and m/0 = +-inf (differences without spread); with
    n = 1, the mean in units of the spread, as an effect size reads it."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / math.sqrt(n))
    flat = sd == 0
    t = np.where(flat & (mean == 0), 0.0, t)
    return np.where(flat & (mean != 0), np.copysign(np.inf, mean), t)


def paired_effect_size(differences) -> np.ndarray:
    """Cohen's d_z for paired data: ``mean(z) / sd(z)`` (sample sd, n - 1), per column.

    Differences without spread give 0 (all zero) or +-inf. Sakai (2014), eq. for ES_paired.
    """
    z = as_differences(differences)
    return t_values(z.mean(axis=0), z.std(axis=0, ddof=1), 1)


def t_confidence_interval(differences, *, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The t interval of the mean difference: ``mean(z) +- t_{n-1,(1+c)/2} sd(z) / sqrt(n)``."""
    z = as_differences(differences)
    confidence = check_level("confidence", confidence)
    n = z.shape[0]
    mean = z.mean(axis=0)
    margin = sps.t.ppf((1.0 + confidence) / 2.0, n - 1) * z.std(axis=0, ddof=1) / math.sqrt(n)
    return mean - margin, mean + margin


def bootstrap_confidence_interval(differences, *, confidence: float = 0.95, B: int = 1000,
                                  seed: SeedLike = 0) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of the mean difference (Efron & Tibshirani 1993).

    Topics are resampled with replacement B times (one set of resamples for all columns);
    the interval runs from the (1-c)/2 to the (1+c)/2 quantile of the resampled means.
    """
    z = as_differences(differences)
    confidence = check_level("confidence", confidence)
    if isinstance(B, bool) or not isinstance(B, (int, np.integer)) or B < 1:
        raise ParameterError(f"B must be a positive int, not {B!r}")
    rng = as_generator(seed)
    n = z.shape[0]
    means = resample_counts(rng, int(B), n) @ z / n
    tail = (1.0 - confidence) / 2.0
    return np.quantile(means, tail, axis=0), np.quantile(means, 1.0 - tail, axis=0)


def residual_effect_sizes(scores) -> tuple[np.ndarray, float]:
    """Sakai's effect sizes for many runs: mean differences over sqrt(V_E).

    V_E is the residual variance of the two-way ANOVA without replication (runs x topics):
    ``V_E = sum (x_ij - mean_i. - mean_.j + mean..)^2 / ((n - 1)(m - 1))``. Returns the
    m x m matrix ``(mean_a - mean_b) / sqrt(V_E)`` and V_E itself. Sakai (2014, 2018 ch. 5).
    """
    x = as_run_scores(scores).values
    n, m = x.shape
    residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    v_e = float((residual**2).sum() / ((n - 1) * (m - 1)))
    means = x.mean(axis=0)
    difference = means[:, None] - means[None, :]
    return t_values(difference, math.sqrt(v_e), 1), v_e
