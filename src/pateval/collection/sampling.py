"""Step 4: drawing the topic set -- stratified sampling and topic-set sizes.

CLEF-IP 2013 grouped the candidate patents by their number of citations and drew 20 at
random from each group, each from a different IPC class, so that no technology dominates
the topic set (:func:`stratified_sample`). Roda et al. proposed offering topic sets of
several sizes -- S, M, L, XL -- so that users trade evaluation cost against stability
(:func:`topic_set`); the sets drawn here are nested (S within M within L within XL) for one
seed, which is what a stability analysis over growing topic sets needs.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..patents.records import ipc_prefix

__all__ = ["TOPIC_SET_SIZES", "StratumCount", "StratifiedReport", "stratified_sample", "topic_set", "resolve_size",
           "ranking_stability"]

#: Topic-set sizes offered by CLEF-IP 2009 (S 500, M 1,000, L 5,000, XL 10,000 topics).
TOPIC_SET_SIZES = {"S": 500, "M": 1000, "L": 5000, "XL": 10000}


def resolve_size(size: str | int | None) -> int | None:
    """``"S"``/``"M"``/``"L"``/``"XL"`` or a positive integer -> number of topics (None: all)."""
    if size is None:
        return None
    if isinstance(size, str):
        key = size.strip().upper()
        if key in TOPIC_SET_SIZES:
            return TOPIC_SET_SIZES[key]
        if key.isdigit():
            size = int(key)
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ParameterError(f"topic-set size must be S, M, L, XL or a positive integer, not {size!r}")
    return size


@dataclass(frozen=True)
class StratumCount:
    """One group of the stratified sample."""

    n_citations: int
    candidates: int
    ipc_classes: int
    drawn: int


@dataclass
class StratifiedReport:
    per_group: int
    ipc_level: str
    strata: list[StratumCount] = field(default_factory=list)

    @property
    def drawn(self) -> int:
        return sum(s.drawn for s in self.strata)

    def as_dict(self) -> dict:
        return {"per_group": self.per_group, "ipc_level": self.ipc_level, "drawn": self.drawn,
                "strata": [asdict(s) for s in self.strata]}


def stratified_sample(candidates: pd.DataFrame, *, per_group: int = 20, seed: int = 0,
                      count_column: str = "n_search_in_corpus",
                      ipc_level: str = "class") -> tuple[pd.DataFrame, StratifiedReport]:
    """Group candidates by number of citations and draw up to ``per_group`` from each
    group at random, no two from the same IPC class (CLEF-IP 2013).

    Parameters
    ----------
    candidates : pandas.DataFrame
        Needs ``patent_key``, ``ipc`` (an IPC symbol, or None) and ``count_column``.
    per_group : int
        Patents drawn per group (fewer when the group has fewer distinct classes).
    seed : int
    count_column : str
        The citation count that defines the groups (default: search-report citations in
        the corpus, as CLEF-IP 2013).
    ipc_level : {"section", "class", "subclass", "group"}
        What "a different IPC class" means (CLEF-IP 2013: class, e.g. ``G11``).
        Candidates without IPC class are never drawn.

    Returns
    -------
    sample : pandas.DataFrame
        The drawn rows, ordered by group then draw order.
    report : StratifiedReport
    """
    if isinstance(per_group, bool) or not isinstance(per_group, int) or per_group < 1:
        raise ParameterError(f"per_group must be a positive integer, not {per_group!r}")
    for column in ("patent_key", "ipc", count_column):
        if column not in candidates.columns:
            raise ParameterError(f"candidates lack the column {column!r}")
    ipc_prefix("A01B", level=ipc_level)  # validates the level
    rng = np.random.default_rng(seed)
    report = StratifiedReport(per_group=per_group, ipc_level=ipc_level)
    # Sorting first makes the draw a function of the seed and the candidate set only.
    ordered = candidates.sort_values("patent_key", kind="stable").reset_index(drop=True)
    classes = ordered["ipc"].map(lambda s: ipc_prefix(s, level=ipc_level) if isinstance(s, str) and s else None)
    chosen: list[int] = []
    for count, group in ordered.groupby(count_column, sort=True):
        # in draw order, the first row of each class not drawn before (rows are their positions)
        drawn_classes = classes.iloc[rng.permutation(group.index.to_numpy())].dropna()
        drawn = drawn_classes.drop_duplicates().index[:per_group].tolist()
        chosen.extend(drawn)
        n_classes = classes.iloc[group.index].dropna().nunique()
        report.strata.append(StratumCount(int(count), len(group), int(n_classes), len(drawn)))
    return ordered.iloc[chosen].reset_index(drop=True), report


def topic_set(keys, size: str | int | None, *, seed: int = 0) -> list[str]:
    """A random topic set of ``size`` patents out of ``keys`` (all of them when None).

    The sets for one seed are nested: each is the first ``size`` keys of one seeded
    permutation of the sorted keys, so S is within M, M within L, and so on. Asking for
    more topics than there are gives all of them (callers report the shortfall).
    """
    n = resolve_size(size)
    ordered = sorted(set(keys))
    permutation = np.random.default_rng(seed).permutation(len(ordered))
    shuffled = [ordered[i] for i in permutation]
    return shuffled if n is None else shuffled[:n]


def ranking_stability(scores: pd.DataFrame, *, sizes=(10, 25, 50, 100, "S", "M", "L", "XL"), trials: int = 20,
                      seed: int = 0) -> pd.DataFrame:
    """How stable the ranking of systems is on topic sets of growing size (Roda et al.).

    For each size, ``trials`` random topic subsets are drawn; the systems are ranked by
    their mean score on the subset and the ranking is compared with the ranking on all
    topics by Kendall's tau. Sizes larger than the number of topics are skipped.

    Parameters
    ----------
    scores : pandas.DataFrame
        Per-topic scores: columns ``system``, ``qid``, ``score`` (one row per system and
        topic; every system scored on the same topics).
    sizes : sequence of int or {"S", "M", "L", "XL"}
    trials : int
    seed : int

    Returns
    -------
    pandas.DataFrame
        ``size``, ``topics``, ``trials``, ``mean_tau``, ``min_tau``, ``max_tau``.
    """
    from scipy.stats import kendalltau

    for column in ("system", "qid", "score"):
        if column not in scores.columns:
            raise ParameterError(f"scores lack the column {column!r}")
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise ParameterError(f"trials must be a positive integer, not {trials!r}")
    table = scores.pivot_table(index="qid", columns="system", values="score", aggfunc="first")
    if table.isna().any().any():
        raise ParameterError("every system needs a score on every topic (missing values in the score table)")
    if table.shape[1] < 2:
        raise ParameterError("ranking stability needs at least two systems")
    values = table.to_numpy(dtype=float)
    full = values.mean(axis=0)
    rng = np.random.default_rng(seed)
    rows = []
    for size in sizes:
        n = resolve_size(size)
        if n > values.shape[0]:
            continue
        taus = np.array([kendalltau(values[rng.choice(values.shape[0], size=n, replace=False)].mean(axis=0),
                                    full).statistic for _ in range(trials)], dtype=float)  # NaN: a ranking all ties
        summary = (np.nanmean(taus), np.nanmin(taus), np.nanmax(taus)) if not np.isnan(taus).all() else (np.nan,) * 3
        rows.append((str(size), n, trials, *(float(value) for value in summary)))
    return pd.DataFrame(rows, columns=["size", "topics", "trials", "mean_tau", "min_tau", "max_tau"])
