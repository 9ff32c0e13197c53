"""The PRES paper's agreement chart: do two measures reach the same verdict on a run pair?

Magdy & Jones (2010, section 6, figure 7) compare 48 CLEF-IP runs pairwise under MAP,
recall and PRES: for each of the 1,128 pairs and each measure the verdict is "the first run
is significantly better", "the second is" or "statistically indistinguishable" (Wilcoxon,
alpha 0.05), and the chart counts how often the measures' verdicts agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations

import numpy as np
import pandas as pd

from ..errors import ParameterError
from .scores import SeedLike, check_matrices
from .significance import pairwise_tests

__all__ = ["VERDICTS", "agreement_chart", "agreement_counts", "pair_verdicts"]

#: The three verdicts on a pair (run_a, run_b): run_a better, run_b better, indistinguishable.
VERDICTS = ("A", "B", "tie")


def pair_verdicts(matrices: Mapping[str, object], *, test: str = "wilcoxon", alpha: float = 0.05,
                  correction: str | None = None, seed: SeedLike = 0, B: int | None = None) -> pd.DataFrame:
    """Each measure's verdict on every run pair.

    Returns a frame with ``run_a, run_b`` and one column per measure holding ``"A"`` (run_a
    significantly better), ``"B"`` (run_b significantly better) or ``"tie"``. Every measure
    must score the same runs; pairs are taken in the run order of the first measure.
    """
    frame: pd.DataFrame | None = None
    for measure, ordered in check_matrices(matrices, purpose="verdicts").items():
        tests = pairwise_tests(ordered, test=test, correction=correction, alpha=alpha, seed=seed, B=B)
        verdict = np.where(~tests["significant"], "tie", np.where(tests["difference"] > 0, "A", "B"))
        if frame is None:
            frame = tests[["run_a", "run_b"]].copy()
        frame[measure] = verdict
    return frame


def agreement_counts(verdicts: pd.DataFrame) -> pd.DataFrame:
    """For every pair of measures, how often their verdicts agree.

    Returns ``measure_a, measure_b, pairs, agree, agree_share, opposite`` (one says A, the
    other B), ``one_tied`` (one significant, the other not) and ``both_tied``.
    """
    measures = [c for c in verdicts.columns if c not in ("run_a", "run_b")]
    if len(measures) < 2:
        raise ParameterError("agreement needs verdicts under at least two measures")
    rows = []
    for first, second in combinations(measures, 2):
        a, b = verdicts[first].to_numpy(), verdicts[second].to_numpy()
        agree = a == b
        rows.append({"measure_a": first, "measure_b": second, "pairs": len(a), "agree": int(agree.sum()),
                     "agree_share": float(agree.mean()) if len(a) else float("nan"),
                     "opposite": int((((a == "A") & (b == "B")) | ((a == "B") & (b == "A"))).sum()),
                     "one_tied": int(((a == "tie") != (b == "tie")).sum()),
                     "both_tied": int(((a == "tie") & (b == "tie")).sum())})
    return pd.DataFrame(rows)


def agreement_chart(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Count the run pairs per combination of verdicts (the bars of Magdy & Jones' figure 7).

    Returns one row per combination that occurs, with one column per measure, ``pairs`` and
    ``share``, and ``all_agree`` (every measure gave the same verdict); sorted by count.
    """
    measures = [c for c in verdicts.columns if c not in ("run_a", "run_b")]
    if not measures:
        raise ParameterError("the verdicts frame holds no measure columns")
    counts = verdicts.groupby(measures, sort=False).size().reset_index(name="pairs")
    counts["share"] = counts["pairs"] / len(verdicts)
    counts["all_agree"] = counts[measures].nunique(axis=1) == 1
    return counts.sort_values(["pairs"] + measures, ascending=[False] + [True] * len(measures), ignore_index=True)
