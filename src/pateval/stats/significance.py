"""Paired significance tests between runs over topics, vectorised over run pairs and resamples.

Every test compares run a with run b on the same n topics through the per-topic differences
``z = x_a - x_b``. All pairs are tested at once: the differences form an n x P matrix and a
resampling test draws one set of B resamples (sign vectors, topic resamples or within-topic
permutations) that every pair shares, as Sakai (2006) does, so a resample step is a matrix
product over all pairs.

Reproducibility: a test takes ``seed`` (an int or a :class:`numpy.random.Generator`) and draws
its resamples from the generator in one fixed order, B rows one after another. The B
dimension is processed in chunks to bound memory, but a chunk draws exactly the numbers the
same rows would get in one large draw, so neither the chunk size nor the number of BLAS
threads changes a p-value. (Comparisons of resampled statistics with the observed one use a
relative tolerance of 1e-10, so that a summation order changed by BLAS cannot turn a tie
into a non-tie.)

References
----------
Sakai, T. (2006). Evaluating evaluation metrics based on the bootstrap. SIGIR 2006.
Sakai, T. (2014). Statistical reform in information retrieval? SIGIR Forum 48(1).
Sakai, T. (2018). Laboratory Experiments in Information Retrieval. Springer (ch. 5).
Smucker, M. D., Allan, J., Carterette, B. (2007). A comparison of statistical significance
tests for information retrieval evaluation. CIKM 2007.
Carterette, B. (2012). Multiple testing in statistical analysis of systems-based information
retrieval experiments. ACM TOIS 30(1).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._optional import needs_extra
from ..errors import ParameterError
from ..tuning import EXACT_SIGN_TOPICS, RESAMPLE_CHUNK_VALUES
from .corrections import CORRECTIONS, adjust_p_values
from .effect_size import as_differences, paired_effect_size, t_confidence_interval, t_values
from .names import DEFAULT_B, TESTS
from .scores import SeedLike, as_generator, as_run_scores, check_level, describe_seed, resample_counts, run_pairs

with needs_extra("stats"):
    from scipy import stats as sps

__all__ = ["DEFAULT_B", "TESTS", "PairedTestResult", "bootstrap_asl", "paired_t", "paired_test", "pairwise_tests",
           "randomisation_asl", "tukey_hsd_asl", "wilcoxon_signed_rank"]


# Comparisons "resampled >= observed" allow this relative slack (see the module docstring).
_RTOL = 1e-10
# Differences are rounded to 12 decimals before ranking, so that equal differences computed in
# floating point (0.7 - 0.5 and 0.3 - 0.1) count as the tie they are.
_TIE_DECIMALS = 12


def _chunk_rows(width: int) -> int:
    return max(1, RESAMPLE_CHUNK_VALUES // max(1, width))


def _check_B(B, test: str) -> int:
    if B is None:
        return DEFAULT_B[test]
    if isinstance(B, (bool, np.bool_)) or not isinstance(B, (int, np.integer)) or B < 1:
        raise ParameterError(f"B (the number of resamples) must be a positive int, not {B!r}")
    return int(B)


def _critical_rank(alpha: float, B: int) -> int:
    """Rank (1 = largest) of the resampled statistic that marks the alpha level: ceil(alpha B)."""
    return max(1, min(B, math.ceil(alpha * B - 1e-9)))


def _resampled_tail(statistics: Callable[[int, int], np.ndarray], total: int, threshold: np.ndarray, alpha: float,
                    step: int) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``total`` rows of resampled statistics, ``step`` rows at a time (``statistics(start,
    rows)`` gives rows x columns), and count per column those >= ``threshold``; also return
    each column's ceil(alpha total)-th largest, the k largest being kept across chunks."""
    k = _critical_rank(alpha, total)
    count = np.zeros(len(threshold), dtype=np.int64)
    top = np.empty((0, len(threshold)))
    for start in range(0, total, step):
        resampled = statistics(start, min(step, total - start))
        count += (resampled >= threshold).sum(axis=0)
        top = np.concatenate([top, resampled], axis=0)
        if top.shape[0] > k:
            top = np.partition(top, top.shape[0] - k, axis=0)[-k:]
    return count, top.min(axis=0)


# ---- the t-test --------------------------------------------------------------------------


def paired_t(differences, *, alpha: float = 0.05) -> dict[str, np.ndarray]:
    """Student's paired t-test on each column of per-topic differences.

    ``t = mean(z) / (sd(z) / sqrt(n))`` with the sample standard deviation (n - 1), and the
    two-sided p-value ``2 P(T_{n-1} >= |t|)``. Differences without spread give t = 0 (all
    zero, p = 1) or t = +-inf (p = 0). Sakai (2018), section 5.2.

    Returns
    -------
    dict
        ``statistic``, ``p_value`` and ``critical_difference`` (the smallest |mean
        difference| that would reach ``alpha`` with this pair's spread:
        ``t_{n-1, 1-alpha/2} sd / sqrt(n)``), one value per column.
    """
    z = as_differences(differences)
    alpha = check_level("alpha", alpha)
    n = z.shape[0]
    mean = z.mean(axis=0)
    sd = z.std(axis=0, ddof=1)
    t = t_values(mean, sd, n)
    p = np.minimum(1.0, 2.0 * sps.t.sf(np.abs(t), n - 1))
    critical = sps.t.ppf(1.0 - alpha / 2.0, n - 1) * sd / math.sqrt(n)
    return {"statistic": t, "p_value": p, "critical_difference": critical}


# ---- Wilcoxon signed-rank ----------------------------------------------------------------


def _enumerated_signed_rank_p(ranks: np.ndarray, w_plus: float) -> float:
    """Two-sided p of W+ over all 2**k sign assignments of the (possibly tied) ranks."""
    k = len(ranks)
    codes = np.arange(2**k, dtype=np.int64)
    positive = ((codes[:, None] >> np.arange(k)) & 1).astype(float)
    null = positive @ ranks
    slack = _RTOL * max(1.0, abs(w_plus))
    upper = np.mean(null >= w_plus - slack)
    lower = np.mean(null <= w_plus + slack)
    return float(min(1.0, 2.0 * min(upper, lower)))


def wilcoxon_signed_rank(differences) -> dict[str, np.ndarray]:
    """Wilcoxon's signed-rank test on each column of per-topic differences (two-sided).

    Zero differences are dropped (Wilcoxon's rule); the rest are ranked by |z| with average
    ranks for ties, and ``W+`` is the sum of the ranks of positive differences. The p-value
    follows ``scipy.stats.wilcoxon``'s default ``method="auto"`` column by column: with at
    most 50 topics and neither ties nor zeros, the exact null distribution; with ties or
    zeros and at most 13 topics, all 2**k sign assignments; otherwise the normal
    approximation ``z = (W+ - k(k+1)/4) / sqrt((k(k+1)(2k+1) - sum(t^3 - t)/2) / 24)``
    without continuity correction. A pair whose differences are all zero gets p = 1.
    Wilcoxon (1945); used for run pairs by Magdy & Jones (2010).

    Differences are rounded to 12 decimals before ranking, so that differences that are
    equal but computed in floating point (0.7 - 0.5 and 0.3 - 0.1) tie. scipy, given the raw
    differences, sees them as distinct: on Sakai's table 5.1 it reports p = 0.0404 where the
    tied ranks give 0.0372 (scipy on the rounded differences agrees).

    Returns
    -------
    dict
        ``statistic`` (min(W+, W-), as scipy reports it), ``w_plus`` and ``p_value``.
    """
    z = np.round(as_differences(differences), _TIE_DECIMALS)
    n_total, width = z.shape
    nonzero = z != 0
    k = nonzero.sum(axis=0)
    magnitude = np.where(nonzero, np.abs(z), -1.0)  # zeros rank below every non-zero value
    low = sps.rankdata(magnitude, method="min", axis=0)
    high = sps.rankdata(magnitude, method="max", axis=0)
    n_zero = (n_total - k)[None, :]
    ranks = np.where(nonzero, (low + high) / 2.0 - n_zero, 0.0)
    tie_size = np.where(nonzero, high - low + 1.0, 1.0)
    tie_term = (tie_size**2 - 1.0).sum(axis=0)  # = sum over tie groups of t^3 - t
    w_plus = np.where(z > 0, ranks, 0.0).sum(axis=0)
    w_minus = np.where(z < 0, ranks, 0.0).sum(axis=0)
    has_ties = tie_term > 0
    # Normal approximation for every column (no continuity correction, as scipy's default);
    # small samples below replace it with exact p-values.
    mean = k * (k + 1) / 4.0
    se = np.sqrt(np.maximum(k * (k + 1) * (2 * k + 1) - tie_term / 2.0, 0.0) / 24.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        normal = np.abs(w_plus - mean) / se
    p = np.where(se > 0, np.minimum(1.0, 2.0 * sps.norm.sf(normal)), 1.0)
    for column in range(width if n_total <= 50 else 0):
        if (kc := int(k[column])) == 0:
            continue
        if not has_ties[column] and kc == n_total:
            # the number of the 2**k sign assignments giving W+ = 0 .. k(k+1)/2, for ranks 1..k untied
            counts = np.zeros(kc * (kc + 1) // 2 + 1)
            counts[0] = 1.0
            for rank in range(1, kc + 1):
                counts[rank:] = counts[rank:] + counts[:-rank].copy()
            total = counts.sum()
            w = w_plus[column]
            upper = counts[math.floor(w + 1e-9) :].sum() / total
            lower = counts[: math.ceil(w - 1e-9) + 1].sum() / total
            p[column] = min(1.0, 2.0 * min(upper, lower))
        elif n_total <= 13:
            p[column] = _enumerated_signed_rank_p(ranks[nonzero[:, column], column], float(w_plus[column]))
    return {"statistic": np.minimum(w_plus, w_minus), "w_plus": w_plus, "p_value": p}


# ---- randomisation (sign flip) -----------------------------------------------------------


def _sign_rows(rng: np.random.Generator | None, start: int, rows: int, n: int) -> np.ndarray:
    """Rows of +-1: drawn (each sign a fair coin from ``rng.random``) or enumerated (rng None)."""
    if rng is None:
        codes = np.arange(start, start + rows, dtype=np.int64)
        bits = (codes[:, None] >> np.arange(n, dtype=np.int64)) & 1
        return 1.0 - 2.0 * bits
    return np.where(rng.random((rows, n)) < 0.5, -1.0, 1.0)


def randomisation_asl(differences, *, B: int | None = None, seed: SeedLike = 0, exact: bool | str = "auto",
                      alpha: float = 0.05) -> dict:
    """Paired randomisation (sign-flip) test of the mean difference, for each column.

    Under the null hypothesis the labels a/b of each topic are exchangeable, so each
    difference keeps or flips its sign with probability 1/2. With sign vectors s_1..s_B,
    ``ASL = #{ |mean(s_b * z)| >= |mean(z)| } / B`` (two-sided; Smucker, Allan & Carterette
    2007, who use B = 100,000). One set of sign vectors serves all columns.

    Parameters
    ----------
    differences : array, topics x pairs (or one vector)
    B : int, optional
        Number of random sign vectors (default 10,000).
    seed : int or numpy.random.Generator
    exact : {"auto", True, False}
        Enumerate all 2**n sign vectors instead of drawing: ``"auto"`` does so when
        2**n <= B (the exact test then costs no more than the random one); True forces it
        (n <= 24). The exact ASL is the limit of the random one as B grows.
    alpha : float
        Level for ``critical_difference``.

    Returns
    -------
    dict
        ``statistic`` (mean difference), ``p_value`` (the ASL), ``critical_difference``
        (the ceil(alpha B)-th largest resampled |mean|), ``B`` (the number of sign vectors
        used: 2**n when exact) and ``exact``.
    """
    z = as_differences(differences)
    B = _check_B(B, "randomisation")
    alpha = check_level("alpha", alpha)
    n, width = z.shape
    if exact not in ("auto", True, False):
        raise ParameterError(f"exact must be 'auto', True or False, not {exact!r}")
    if exact is True and n > EXACT_SIGN_TOPICS:
        raise ParameterError(f"an exact randomisation test enumerates 2**n sign vectors; n = {n} topics is too many "
                             f"(at most {EXACT_SIGN_TOPICS})")
    enumerate_all = exact is True or (exact == "auto" and n <= EXACT_SIGN_TOPICS and 2**n <= B)
    rng = None if enumerate_all else as_generator(seed)
    total = 2**n if enumerate_all else B
    observed = np.abs(np.ones(n) @ z) / n
    count, critical = _resampled_tail(lambda start, rows: np.abs(_sign_rows(rng, start, rows, n) @ z) / n, total,
                                      observed * (1.0 - _RTOL), alpha, _chunk_rows(max(n, width)))
    return {"statistic": z.mean(axis=0), "p_value": count / total, "critical_difference": critical, "B": total,
            "exact": enumerate_all}


# ---- Sakai's paired bootstrap ------------------------------------------------------------


def bootstrap_asl(differences, *, B: int | None = None, seed: SeedLike = 0, alpha: float = 0.05) -> dict:
    """Sakai's paired bootstrap test (shift method) for each column of differences.

    With ``z`` the n per-topic differences, ``t(z) = mean(z) / (sd(z) / sqrt(n))`` and
    ``w = z - mean(z)`` (z shifted to obey the null hypothesis), draw B bootstrap samples
    w*_b of n topics with replacement (the same topic indices for every column) and report
    ``ASL = #{ |t(w*_b)| >= |t(z)| } / B``. Sakai (2006), figure 2; Sakai (2014).

    A bootstrap sample without spread gets t = 0 when its mean is 0 (and +-inf otherwise).

    Returns
    -------
    dict
        ``statistic`` (the observed t), ``p_value`` (the ASL), ``critical_difference``
        (Sakai's estimate ``t_crit sd(z) / sqrt(n)``, t_crit the ceil(alpha B)-th largest
        |t(w*_b)|) and ``B``.
    """
    z = as_differences(differences)
    B = _check_B(B, "bootstrap")
    alpha = check_level("alpha", alpha)
    rng = as_generator(seed)
    n, width = z.shape
    mean = z.mean(axis=0)
    sd = z.std(axis=0, ddof=1)
    t_observed = t_values(mean, sd, n)
    threshold = np.abs(t_observed) * (1.0 - _RTOL)
    w = z - mean
    w_squared = w * w
    # counts @ w^2 - n mean^2 cancels: a sample without spread comes out with a variance of
    # rounding noise (and a t in the millions); below this it is treated as exactly 0
    noise = 1e-12 * np.max(w_squared, axis=0, initial=0.0)

    def t_star(_start: int, rows: int) -> np.ndarray:
        counts = resample_counts(rng, rows, n)
        sample_mean = (counts @ w) / n
        sample_var = (counts @ w_squared - n * sample_mean**2) / (n - 1)
        return np.abs(t_values(sample_mean, np.sqrt(np.where(sample_var <= noise, 0.0, sample_var)), n))

    count, t_critical = _resampled_tail(t_star, B, threshold, alpha, _chunk_rows(max(n, width)))
    return {"statistic": t_observed, "p_value": count / B, "critical_difference": t_critical * sd / math.sqrt(n),
            "B": B}


# ---- randomised Tukey HSD ----------------------------------------------------------------


def tukey_hsd_asl(scores, pairs: tuple[np.ndarray, np.ndarray] | None = None, *, B: int | None = None,
                  seed: SeedLike = 0, alpha: float = 0.05) -> dict:
    """Randomised Tukey HSD test over all runs at once (Carterette 2012; Sakai 2014).

    For b = 1..B, permute each topic's scores across the m runs (independently per topic),
    compute the m run means, and record their range ``r_b = max - min``. The ASL of a pair
    is ``#{ r_b >= |mean_a - mean_b| } / B``. Comparing every pair's difference with the
    largest difference under the null hypothesis controls the family-wise error over all
    pairs, so no further correction is applied.

    Parameters
    ----------
    scores : topics x runs matrix (DataFrame or array)
    pairs : (a, b) index arrays, optional
        Which pairs to report (default: all).
    B : int, optional
        Number of permutations (default 5,000).

    Returns
    -------
    dict
        ``statistic`` (mean difference), ``p_value`` (the ASL per pair),
        ``critical_difference`` (the ceil(alpha B)-th largest range, the same for every
        pair) and ``B``.
    """
    matrix = as_run_scores(scores).values
    B = _check_B(B, "tukey")
    alpha = check_level("alpha", alpha)
    rng = as_generator(seed)
    n, m = matrix.shape
    first, second = run_pairs([str(i) for i in range(m)]) if pairs is None else pairs
    means = matrix.mean(axis=0)
    difference = means[first] - means[second]
    ranges = np.empty(B)
    step = _chunk_rows(n * m)
    topic_index = np.arange(n)[None, :, None]
    identity = np.arange(m)
    for start in range(0, B, step):
        rows = min(step, B - start)
        permutation = rng.permuted(np.broadcast_to(identity, (rows, n, m)), axis=-1)
        permuted_means = matrix[topic_index, permutation].mean(axis=1)
        ranges[start : start + rows] = permuted_means.max(axis=1) - permuted_means.min(axis=1)
    ordered = np.sort(ranges)
    threshold = np.abs(difference) * (1.0 - _RTOL)
    count = B - np.searchsorted(ordered, threshold, side="left")
    return {"statistic": difference, "p_value": count / B,
            "critical_difference": np.full(len(first), ordered[B - _critical_rank(alpha, B)]), "B": B}


# ---- one pair, all pairs ---------------------------------------------------------------


@dataclass(frozen=True)
class PairedTestResult:
    """The outcome of one paired test between two runs.

    Attributes
    ----------
    test : str
        One of :data:`TESTS`.
    n_topics : int
    mean_difference : float
        mean(x) - mean(y).
    statistic : float
        t (t-test, bootstrap), min(W+, W-) (Wilcoxon), the mean difference (randomisation,
        Tukey HSD).
    p_value : float
        Two-sided p-value or achieved significance level.
    B : int or None
        Resamples used (None for the t-test and Wilcoxon).
    seed : int, str or None
        The seed reported for a resampling test.
    """

    test: str
    n_topics: int
    mean_difference: float
    statistic: float
    p_value: float
    B: int | None
    seed: int | str | None


def _run_test(test: str, x: np.ndarray, first: np.ndarray, second: np.ndarray, *, B, seed, alpha, exact) -> dict:
    if test not in TESTS:
        raise ParameterError(f"unknown test {test!r}; choose one of {', '.join(TESTS)}")
    if test == "tukey":
        return tukey_hsd_asl(x, (first, second), B=B, seed=seed, alpha=alpha)
    z = x[:, first] - x[:, second]
    if test == "t":
        return paired_t(z, alpha=alpha) | {"B": None}
    if test == "wilcoxon":
        result = wilcoxon_signed_rank(z)
        return {"statistic": result["statistic"], "p_value": result["p_value"],
                "critical_difference": np.full(z.shape[1], np.nan), "B": None}
    if test == "randomisation":
        return randomisation_asl(z, B=B, seed=seed, exact=exact, alpha=alpha)
    return bootstrap_asl(z, B=B, seed=seed, alpha=alpha)


def paired_test(x, y, *, test: str = "t", B: int | None = None, seed: SeedLike = 0,
                exact: bool | str = "auto") -> PairedTestResult:
    """Test whether two runs differ, given their scores on the same topics in the same order.

    ``test`` is one of ``"t"``, ``"wilcoxon"``, ``"randomisation"``, ``"bootstrap"`` (see
    :func:`paired_t`, :func:`wilcoxon_signed_rank`, :func:`randomisation_asl`,
    :func:`bootstrap_asl`); ``"tukey"`` with two runs is the randomisation test of the
    range, see :func:`tukey_hsd_asl`.

    Examples
    --------
    Sakai's book, table 5.1 (20 topics): ``paired_test(a, b).statistic`` is 2.116 and its
    p-value 0.0478.
    """
    a, b = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if a.shape != b.shape:
        raise ParameterError(f"paired scores need the same topics: {a.size} scores against {b.size}")
    matrix = as_run_scores(np.column_stack([a, b])).values
    result = _run_test(test, matrix, np.array([0]), np.array([1]), B=B, seed=seed, alpha=0.05, exact=exact)
    resampling = result["B"] is not None
    return PairedTestResult(test=test, n_topics=len(a), mean_difference=float(a.mean() - b.mean()),
                            statistic=float(np.asarray(result["statistic"])[0]),
                            p_value=float(np.asarray(result["p_value"])[0]), B=int(result["B"]) if resampling else None,
                            seed=describe_seed(seed) if resampling and not result.get("exact", False) else None)


def pairwise_tests(scores, *, test: str = "t", baseline: str | None = None, correction: str | None = "holm",
                   alpha: float = 0.05, seed: SeedLike = 0, B: int | None = None, exact: bool | str = "auto",
                   confidence: float = 0.95) -> pd.DataFrame:
    """Test every pair of runs (or every run against a baseline) on one measure.

    Parameters
    ----------
    scores : pandas.DataFrame or array
        Topics x runs (see :func:`pateval.stats.score_matrix`).
    test : {"t", "wilcoxon", "randomisation", "bootstrap", "tukey"}
    baseline : str, optional
        Test each other run against this one (differences are run minus baseline);
        default all pairs.
    correction : {"holm", "bonferroni", "bh", None}
        Multiple-comparison correction over the pairs tested. The Tukey HSD test already
        controls the family-wise error, so its p-values are left as they are.
    alpha : float
        Significance level for ``significant`` and ``critical_difference``.
    seed, B, exact
        For the resampling tests (see :func:`randomisation_asl`, :func:`bootstrap_asl`,
        :func:`tukey_hsd_asl`).
    confidence : float
        Level of the t interval of the mean difference.

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``run_a, run_b, n_topics, mean_a, mean_b, difference, statistic,
        p_value, p_adjusted, significant, effect_size`` (Cohen's d_z, see
        :func:`pateval.stats.paired_effect_size`), ``ci_low, ci_high, critical_difference,
        test, correction, alpha, B, seed``.
    """
    matrix = as_run_scores(scores)
    alpha = check_level("alpha", alpha)
    if correction is not None and correction not in CORRECTIONS:
        raise ParameterError(f"unknown correction {correction!r}; choose one of {', '.join(CORRECTIONS)} or None")
    first, second = run_pairs(matrix.runs, baseline)
    x = matrix.values
    result = _run_test(test, x, first, second, B=B, seed=seed, alpha=alpha, exact=exact)
    p = np.asarray(result["p_value"], dtype=float)
    applied = None if test == "tukey" else correction
    adjusted = p if applied is None else adjust_p_values(p, method=applied)
    z = x[:, first] - x[:, second]
    low, high = t_confidence_interval(z, confidence=confidence)
    resampling = result["B"] is not None
    means = x.mean(axis=0)
    return pd.DataFrame({
        "run_a": [matrix.runs[i] for i in first], "run_b": [matrix.runs[i] for i in second],
        "n_topics": matrix.n_topics, "mean_a": means[first], "mean_b": means[second],
        "difference": means[first] - means[second], "statistic": np.asarray(result["statistic"], dtype=float),
        "p_value": p, "p_adjusted": adjusted, "significant": adjusted < alpha, "effect_size": paired_effect_size(z),
        "ci_low": low, "ci_high": high,
        "critical_difference": np.asarray(result["critical_difference"], dtype=float),
        "test": test, "correction": applied if applied is not None else "none", "alpha": alpha,
        "B": int(result["B"]) if resampling else pd.NA,
        "seed": describe_seed(seed) if resampling and not result.get("exact", False) else pd.NA,
    })
