"""Agreement between the run rankings that two measures produce.

Kendall's tau counts concordant minus discordant run pairs (scipy's tau-b, which handles
ties). tau_ap (Yilmaz, Aslam & Robertson, SIGIR 2008) weighs disagreements near the top
of the ranking more: a measure that swaps the two best runs matters more than one that
swaps two poor ones. Smucker & Clarke (2012) report tau between TBG and MAP (0.794);
Magdy & Jones (2010) between PRES, MAP and recall.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from .._optional import needs_extra
from ..errors import ParameterError

with needs_extra("stats"):
    from scipy import stats as sps

__all__ = ["kendall_tau", "ranking_correlations", "tau_ap"]


def _paired_vectors(x, y) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if a.shape != b.shape:
        raise ParameterError(f"rank correlation needs scores of the same runs: {a.size} against {b.size}")
    if a.size < 2:
        raise ParameterError("rank correlation needs at least 2 runs")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ParameterError("rank correlation needs finite scores")
    return a, b


def kendall_tau(x, y) -> float:
    """Kendall's tau-b between the run orders given by scores ``x`` and ``y`` (scipy)."""
    a, b = _paired_vectors(x, y)
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        raise ParameterError("Kendall's tau is undefined when one measure gives every run the same score")
    return float(sps.kendalltau(a, b).statistic)


def tau_ap(x, y, *, symmetric: bool = False) -> float:
    """AP rank correlation of the ranking by ``x`` against the reference ranking by ``y``.

    Runs are ranked by ``x`` descending; for the run at position i (i = 2..N), C(i) is the
    number of runs above it that ``y`` also ranks above it, and
    ``tau_ap = 2 / (N - 1) * sum_{i=2..N} C(i) / (i - 1) - 1`` (Yilmaz et al. 2008, eq. 2).
    It lies in [-1, 1] and equals Kendall's tau's extremes for identical and reversed
    rankings. tau_ap is not symmetric; ``symmetric=True`` returns the mean of both
    directions. Ties, which the definition does not cover, count half: a run above run i
    with the same ``y`` score, or the same ``x`` score, adds 1/2 to C(i).
    """
    a, b = _paired_vectors(x, y)
    if symmetric:
        return 0.5 * (tau_ap(a, b) + tau_ap(b, a))
    n = a.size
    order = np.argsort(-a, kind="stable")
    ranked_x, ranked_y = a[order], b[order]
    total = 0.0
    for i in range(1, n):  # the runs above position i: those y ranks above it count 1, ties 1/2
        tied = (ranked_y[:i] == ranked_y[i]) | (ranked_x[:i] == ranked_x[i])
        total += np.where(tied, 0.5, (ranked_y[:i] > ranked_y[i]).astype(float)).sum() / i
    return float(2.0 / (n - 1) * total - 1.0)


def ranking_correlations(means: pd.DataFrame) -> pd.DataFrame:
    """Kendall's tau and tau_ap for every pair of measures, from mean scores per run.

    Parameters
    ----------
    means : pandas.DataFrame
        Runs as rows, measures as columns (each run's mean score under each measure).

    Returns
    -------
    pandas.DataFrame
        ``measure_a, measure_b, kendall_tau, tau_ap_a_b`` (ranking by a against reference
        b), ``tau_ap_b_a, tau_ap`` (the symmetric mean), ``runs``.
    """
    if not isinstance(means, pd.DataFrame) or means.shape[1] < 2:
        raise ParameterError("ranking correlations need a runs x measures frame with at least two measures")
    rows = []
    for first, second in combinations(means.columns, 2):
        x, y = means[first].to_numpy(dtype=float), means[second].to_numpy(dtype=float)
        forward, backward = tau_ap(x, y), tau_ap(y, x)
        rows.append({"measure_a": first, "measure_b": second, "kendall_tau": kendall_tau(x, y), "tau_ap_a_b": forward,
                     "tau_ap_b_a": backward, "tau_ap": 0.5 * (forward + backward), "runs": len(x)})
    return pd.DataFrame(rows)
