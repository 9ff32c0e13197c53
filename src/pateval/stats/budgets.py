"""Judging budgets simulated before they are spent, and the reusability of a pool.

Given complete qrels and runs, :func:`simulate_budgets` replays judging orders
(:mod:`pateval.pooling.strategies`: depth, weighted, fused, move-to-front, bandits) at budgets
B1..Bn of judgements per topic. At budget B, each topic's first B documents of the order are
judged (their grades read from the complete qrels; a document the qrels lack is
non-relevant, as it stays); the runs' other documents are unjudged, i.e. left out of the qrels. The
qrels' documents no run retrieved stay as they are: no pool of these runs could judge them,
so the simulation measures what judging fewer of the runs' documents changes, and at the
full budget the qrels are the complete ones (tau 1). Reported per (order, budget):
judgements made, relevant documents found and found per judgement, and, for the system
ranking by the mean of a measure against the ranking under the complete qrels, Kendall's
tau, tau_ap (Yilmaz, Aslam and Robertson 2008) and the largest change of a run's rank.

:func:`leave_out` is the reusability test of Zobel (1998) and Buettcher et al. (2007): the
depth-k pool is rebuilt without the documents only one run (or only the runs of one group)
contributed, those documents leave the qrels, and the left-out runs are scored on what is
left: their score and rank against the complete qrels tell how far the collection can be
trusted to score a run that did not contribute to it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from ..core.qrels import Qrels
from ..core.run import Run
from ..core.segments import place_in_segments
from ..errors import ParameterError
from ..evaluation import evaluate_runs
from ..options import EvaluationOptions
from ..pooling.pools import judged_flags, qrels_pairs
from ..pooling.stack import RunStack, stack_runs
from ..pooling.strategies import DepthOrder, JudgingOrder
from .correlation import kendall_tau, tau_ap

__all__ = ["BUDGET_COLUMNS", "LEAVE_OUT_COLUMNS", "simulate_budgets", "leave_out"]

BUDGET_COLUMNS = ["order", "budget", "judgements", "relevant_found", "found_per_judgement", "tau", "tau_ap",
                  "max_rank_change"]
LEAVE_OUT_COLUMNS = ["left_out", "run", "unique_documents", "unique_relevant", "score", "score_reduced",
                     "score_change", "rank", "rank_reduced", "rank_change"]


class _QrelsOfPairs:
    """The qrels' rows matched once to the pairs of a stack, so that each reduced set of qrels
    is one boolean selection."""

    def __init__(self, qrels: Qrels, stack: RunStack) -> None:
        self.topic = np.asarray(qrels.topic, dtype=object)
        self.docno = np.asarray(qrels.docno, dtype=object)
        self.rel = qrels.rel
        self.source = qrels.source
        self.pair = qrels_pairs(stack, qrels)

    def without(self, unjudged: np.ndarray) -> Qrels:
        keep = (self.pair < 0) | ~unjudged[np.maximum(self.pair, 0)]
        return Qrels.from_columns(self.topic[keep], self.docno[keep], self.rel[keep], source=f"{self.source} (reduced)")


def _means(qrels: Qrels, runs: Sequence[Run], options: EvaluationOptions) -> pd.Series:
    summary = evaluate_runs(qrels, runs, options).summary()
    return summary.set_index("run")["value"].reindex([r.name for r in runs])


def _ranks(scores: pd.Series) -> np.ndarray:
    """Each run's place (1 = best) in the ranking by ``scores``, ties by run order."""
    order = np.argsort(-scores.to_numpy(), kind="stable")
    place = np.empty(len(order), dtype=np.int64)
    place[order] = np.arange(1, len(order) + 1)
    return place


def _options(measure: str, options: EvaluationOptions | None) -> EvaluationOptions:
    base = options or EvaluationOptions()
    return replace(base, measures=[measure], block_bytes=0)


def simulate_budgets(runs: Sequence[Run], qrels: Qrels, orders: Mapping[str, JudgingOrder], budgets: Sequence[int],
                     *, measure: str = "AP", level: int = 1, options: EvaluationOptions | None = None,
                     ties: str = "ascending") -> pd.DataFrame:
    """Replay each judging order at each budget against complete ``qrels`` (see the module).

    Returns a frame of :data:`BUDGET_COLUMNS`, one row per (order, budget).
    """
    if len(runs) < 2:
        raise ParameterError("a budget simulation compares the ranking of at least 2 runs")
    if not budgets or any(isinstance(b, bool) or int(b) < 1 for b in budgets):
        raise ParameterError(f"budgets are positive numbers of judgements per topic, not {list(budgets)!r}")
    settings = _options(measure, options)
    stack = stack_runs(list(runs), order=settings.order, ties=ties)
    relevant, _ = judged_flags(stack, qrels, level=level)
    full = _means(qrels, runs, settings)
    full_rank = _ranks(full)
    matched = _QrelsOfPairs(qrels, stack)
    rows = []
    top = max(int(b) for b in budgets)
    for name, order in orders.items():
        ordered = order.order(stack, relevant, top)
        place = np.zeros(len(relevant), dtype=np.int64)  # each pair's place in its topic's judging order; 0: never
        place[ordered.pair] = place_in_segments(np.diff(ordered.ptr), first=1)
        for budget in sorted(int(b) for b in budgets):
            judged = (place >= 1) & (place <= budget)
            scores = _means(matched.without(~judged), runs, settings)
            try:
                tau, tau_ap_value = kendall_tau(scores, full), tau_ap(scores, full)
            except ParameterError:  # every run the same score (nothing relevant judged yet): undefined
                tau = tau_ap_value = float("nan")
            found = int(relevant[judged].sum())
            made = int(judged.sum())
            rows.append((name, budget, made, found, found / made if made else 0.0, tau, tau_ap_value,
                         int(np.abs(_ranks(scores) - full_rank).max())))
    return pd.DataFrame(rows, columns=BUDGET_COLUMNS)


def leave_out(runs: Sequence[Run], qrels: Qrels, *, depth: int = 100, groups: Mapping[str, str] | None = None,
              measure: str = "AP", options: EvaluationOptions | None = None, ties: str = "ascending") -> pd.DataFrame:
    """Leave-one-run-out (``groups`` None) or leave-one-group-out (``groups``: run name ->
    group) reusability of the depth-``depth`` pool (see the module).

    Returns a frame of :data:`LEAVE_OUT_COLUMNS`, one row per left-out run.
    """
    if len(runs) < 2:
        raise ParameterError("leaving a run out needs at least 2 runs")
    settings = _options(measure, options)
    names = [r.name for r in runs]
    if groups is not None and (missing := [n for n in names if n not in groups]):
        raise ParameterError(f"runs without a group: {', '.join(missing[:5])}")
    group_of = {n: (groups[n] if groups is not None else n) for n in names}
    stack = stack_runs(list(runs), order=settings.order, ties=ties)
    relevant, _ = judged_flags(stack, qrels)
    topic, _, inverse = stack.pairs()
    pooled = DepthOrder(depth).order(stack, relevant, None)
    in_pool = np.zeros(len(topic), dtype=bool)
    in_pool[pooled.pair] = True
    considered = pooled.considered
    group_names = list(dict.fromkeys(group_of[n] for n in names))
    group_code = np.asarray([group_names.index(group_of[n]) for n in names])
    row_group = group_code[stack.run[considered]]
    pairs = inverse[considered]
    first = np.full(len(topic), -1, dtype=np.int64)
    np.maximum.at(first, pairs, row_group)  # the groups contributing each pooled pair: the highest code ...
    low = np.full(len(topic), len(group_names), dtype=np.int64)
    np.minimum.at(low, pairs, row_group)  # ... and the lowest; equal: one group alone contributed it
    alone = in_pool & (first == low)
    full = _means(qrels, runs, settings)
    full_rank = _ranks(full)
    matched = _QrelsOfPairs(qrels, stack)
    rows = []
    for g, group in enumerate(group_names):
        unique = alone & (first == g)
        scores = _means(matched.without(unique), runs, settings)
        rank = _ranks(scores)
        for i, name in enumerate(names):
            if group_of[name] != group:
                continue
            rows.append((group, name, int(unique.sum()), int((unique & relevant).sum()), float(full.iloc[i]),
                         float(scores.iloc[i]), float(scores.iloc[i] - full.iloc[i]), int(full_rank[i]), int(rank[i]),
                         int(rank[i] - full_rank[i])))
    return pd.DataFrame(rows, columns=LEAVE_OUT_COLUMNS)
