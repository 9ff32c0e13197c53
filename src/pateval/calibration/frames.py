"""The user model over runs and qrels, as tables: T(k) per rank, simulated users per topic.

These are what :func:`pateval.api.time_to_rank` and :func:`pateval.api.simulate_users`
return. The calibration is given as a TBG measure name (``"TBG(halflife=600,read_slope=0.03)"``),
so that a plot, a simulation and an evaluation of the same name use the same model.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..core.qrels import Qrels
from ..core.ranking import RankedTopics
from ..core.run import Run
from ..errors import ParameterError
from ..executor import rank
from ..measures import EvaluationContext, Measure, parse_measure
from ..measures.base import divide_or_zero
from ..measures.tbg import normaliser, tbg_rows
from ..usermodel.simulation import simulate_users as _simulate
from ..usermodel.time import time_to_rank

__all__ = ["tbg_measure", "ranked_runs", "time_to_rank_frame", "simulation_frame"]


def tbg_measure(model: str | Measure) -> Measure:
    """The TBG measure whose parameters give the user model (``"TBG"`` for the paper's)."""
    measure = parse_measure(model)
    if measure.spec.name != "TBG":
        raise ParameterError(f"the user model is given as a TBG measure name, e.g. 'TBG(halflife=600)'; got "
                             f"{str(measure)!r}")
    return measure


def ranked_runs(qrels: Qrels, runs: Sequence[Run], *, order: str, doc_key: str) -> list[RankedTopics]:
    """Each run ranked over the topics it shares with the qrels (as :func:`pateval.evaluation.evaluate_runs`)."""
    return [rank(run, qrels, order=order, doc_key=doc_key).ranked for run in runs]


def time_to_rank_frame(ranked_list: Sequence[RankedTopics], measure: Measure,
                       context: EvaluationContext) -> pd.DataFrame:
    """One row per retrieved document: when the user reaches it, and what it earns.

    Columns ``run, topic, rank, docno, relevant, length, duplicate, time`` (T(k), seconds),
    ``decay`` (D(T(k))), ``gain`` (g_k D(T(k)) / N, the rank's share of the measure's value)
    and ``cumulative_gain`` (its running sum: the measure's value at the last rank).
    """
    pieces = []
    for ranked in ranked_list:
        rows = tbg_rows(ranked, measure, context)
        times = time_to_rank(rows.relevant, rows.lengths, model=rows.model, duplicate=rows.duplicate, ptr=ranked.ptr)
        decay = rows.model.decay(times)
        scale = normaliser(ranked, measure, context, rows.model)[ranked.row_topic]
        gain = divide_or_zero(rows.gain * decay, scale)
        pieces.append(pd.DataFrame({
            "run": ranked.run_name, "topic": ranked.topic_ids[ranked.row_topic], "rank": ranked.position,
            "docno": ranked.docno, "relevant": rows.relevant, "length": rows.lengths, "duplicate": rows.duplicate,
            "time": times, "decay": decay, "gain": gain, "cumulative_gain": ranked.cumulative(gain)}))
    return pd.concat(pieces, ignore_index=True) if pieces else pd.DataFrame(
        columns=["run", "topic", "rank", "docno", "relevant", "length", "duplicate", "time", "decay", "gain",
                 "cumulative_gain"])


def simulation_frame(ranked_list: Sequence[RankedTopics], measure: Measure, context: EvaluationContext, *,
                     n_users: int, seed: int, confidence: float) -> pd.DataFrame:
    """Simulated users per (run, topic), scaled by the measure's normalisation.

    Columns ``run, topic, mean, std, ci_low, ci_high`` (simulated gain), ``expected`` (exact
    expectation of the stochastic model), ``tbg`` (the measure's value, the closed form) and
    ``n_users``. Runs are simulated with seeds ``seed, seed+1, ...`` in the order given.
    """
    pieces = []
    for offset, ranked in enumerate(ranked_list):
        rows = tbg_rows(ranked, measure, context)
        result = _simulate(rows.relevant, rows.lengths, model=rows.model, duplicate=rows.duplicate, earns=rows.earns,
                           ptr=ranked.ptr, n_users=n_users, seed=seed + offset, confidence=confidence)
        scale = normaliser(ranked, measure, context, rows.model)
        pieces.append(pd.DataFrame({
            "run": ranked.run_name, "topic": ranked.topic_ids, "mean": divide_or_zero(result.mean, scale),
            "std": divide_or_zero(result.std, scale), "ci_low": divide_or_zero(result.ci_low, scale),
            "ci_high": divide_or_zero(result.ci_high, scale), "expected": divide_or_zero(result.expected, scale),
            "tbg": divide_or_zero(result.closed_form, scale), "n_users": n_users}))
    return pd.concat(pieces, ignore_index=True) if pieces else pd.DataFrame(
        columns=["run", "topic", "mean", "std", "ci_low", "ci_high", "expected", "tbg", "n_users"])
