"""Discriminative power of evaluation measures (Sakai 2006).

A measure that tells more run pairs apart, on the same topics and with the same test, has
more discriminative power. For each measure, every pair of runs is tested; the
discriminative power is the share of pairs whose ASL (achieved significance level, the
p-value) is below alpha, and the ASL curve plots all pairs' ASLs sorted ascending. Sakai
also estimates the difference in the measure needed for significance: for each pair, the
smallest mean difference the test would call significant given that pair's spread, and over
all pairs the largest of these (a conservative estimate) -- we also report the median.
The seed papers use this to compare TBG with MAP, P@10 and nDCG (Smucker & Clarke 2012,
table 2) and the Cube Test variants with other measures (Luo et al. 2013, table 3).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import ParameterError
from .scores import SeedLike
from .significance import pairwise_tests

__all__ = ["DiscriminativePower", "asl_curves", "discriminative_power", "summarise_discriminative_power"]


@dataclass(frozen=True)
class DiscriminativePower:
    """What :func:`discriminative_power` returns.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per measure: ``measure, test, pairs, significant, discriminative_power,
        difference_needed, difference_needed_median, alpha, B, seed``.
    tests : pandas.DataFrame
        Every pair's test for every measure (the rows of
        :func:`pateval.stats.pairwise_tests` with a ``measure`` column first).
    curves : pandas.DataFrame
        ``measure, rank, asl``: each measure's ASLs sorted ascending (Sakai's ASL curves).
    """

    summary: pd.DataFrame
    tests: pd.DataFrame
    curves: pd.DataFrame


def asl_curves(tests: pd.DataFrame) -> pd.DataFrame:
    """Sort each measure's pair ASLs ascending: ``measure, rank`` (1 = smallest ASL) ``, asl``."""
    if not {"measure", "p_value"} <= set(tests.columns):
        raise ParameterError("ASL curves need a tests frame with the columns measure and p_value")
    parts = []
    for measure, group in tests.groupby("measure", sort=False):
        asl = np.sort(group["p_value"].to_numpy(dtype=float))
        parts.append(pd.DataFrame({"measure": measure, "rank": np.arange(1, len(asl) + 1), "asl": asl}))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["measure", "rank", "asl"])


def summarise_discriminative_power(tests: pd.DataFrame, *, alpha: float = 0.05) -> pd.DataFrame:
    """One summary row per measure from a tests frame (raw ASLs, no correction, as Sakai)."""
    rows = []
    for measure, group in tests.groupby("measure", sort=False):
        asl = group["p_value"].to_numpy(dtype=float)
        critical = group["critical_difference"].to_numpy(dtype=float)
        finite = critical[np.isfinite(critical)]
        significant = int((asl < alpha).sum())
        rows.append({"measure": measure, "test": group["test"].iloc[0], "pairs": len(group), "significant": significant,
                     "discriminative_power": significant / len(group) if len(group) else float("nan"),
                     "difference_needed": float(finite.max()) if finite.size else float("nan"),
                     "difference_needed_median": float(np.median(finite)) if finite.size else float("nan"),
                     "alpha": alpha, "B": group["B"].iloc[0], "seed": group["seed"].iloc[0]})
    return pd.DataFrame(rows)


def discriminative_power(matrices: Mapping[str, object], *, test: str = "bootstrap", alpha: float = 0.05,
                         B: int | None = None, seed: SeedLike = 0) -> DiscriminativePower:
    """Test all run pairs under each measure and summarise how many each measure tells apart.

    Parameters
    ----------
    matrices : mapping measure name -> topics x runs scores
        The same runs under every measure (see :func:`pateval.stats.score_matrices`).
    test : {"bootstrap", "randomisation", "t", "wilcoxon", "tukey"}
        Sakai (2006) uses the paired bootstrap; Smucker & Clarke (2012) report the t-test,
        randomisation and bootstrap side by side.
    alpha : float
        Significance level (0.05 in all three seed papers).
    B, seed
        For the resampling tests. With an int seed every measure is tested on the same
        resamples (same topics), so measures are compared on equal terms.
    """
    if not isinstance(matrices, Mapping) or not matrices:
        raise ParameterError("discriminative power needs a mapping of measure name -> score matrix")
    # each measure's tests, a measure column first
    tests = pd.concat({measure: pairwise_tests(scores, test=test, correction=None, alpha=alpha, seed=seed, B=B)
                       for measure, scores in matrices.items()}, names=["measure"])
    tests = tests.reset_index(level="measure").reset_index(drop=True)
    return DiscriminativePower(summarise_discriminative_power(tests, alpha=alpha), tests, asl_curves(tests))
