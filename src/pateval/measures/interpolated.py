"""Precision read off the recall-precision curve, and at ranks set by the number relevant.

- ``IPrec(recall=x)``: interpolated precision at recall x, the highest precision at any
  rank where recall is at least x (the recall-precision curve of every TREC report;
  trec_eval's ``iprec_at_recall``, ir_measures' ``IPrec@x``). trec_eval's rule: recall x
  is reached at the c-th relevant document, c = round(x R) (half away from zero), so
  IPrec = max_{j >= c} j / p_j over the relevant retrieved documents (p_j the rank of
  the j-th), the maximum over all of them when c = 0, and 0 when c exceeds the relevant
  retrieved. trec_eval 9 (and so pytrec_eval and ir_measures) took c = floor(x R + 0.9)
  instead: ``rounding=trec_eval9`` gives its values, and ir_measures' spelling ``IPrec@x``
  reads as ``IPrec(recall=x,rounding=trec_eval9)``, ir_measures' numbers.
- ``IPrec_11pt``: the mean of IPrec at recall 0, 0.1, ..., 1 (trec_eval's ``11pt_avg``).
- ``Rprec_mult(mult=x)``: precision at rank c = floor(x R + 0.9) (trec_eval's
  ``Rprec_mult``), counting ranks past the end of the ranking as non-relevant; 0 when c = 0.
- ``RelP@k``: relevant documents in the top k over min(k, R), the best possible count
  (trec_eval's ``relative_P``); 0 when nothing is relevant.

Reference: trec_eval 10.0 (NIST) ``iprec_at_recall``, ``11pt_avg``, ``Rprec_mult``,
``relative_P``; Salton & McGill, Introduction to Modern Information Retrieval, 1983
(interpolated precision).
"""

from __future__ import annotations

import numpy as np

from ..core.ranking import RankedTopics
from ..core.segments import place_in_runs, starts_of
from ..errors import ParameterError
from ..validation import Interval
from .base import EvaluationContext, Measure, MeasureSpec, Param, TrecEval, divide_or_zero
from .registry import register
from .relevance import ELEVEN_POINTS, REL, TREC_EVAL, relevant, relevant_by_rank

__all__ = ["interpolated_precision", "eleven_point_average", "precision_at_r_multiple", "relative_precision",
           "ELEVEN_POINTS"]

def _round_half_away(values: np.ndarray) -> np.ndarray:
    """C's lround for values >= 0 (exact: no 0.5 added in floating point)."""
    floor = np.floor(values)
    return (floor + (values - floor >= 0.5)).astype(np.int64)


def _interpolated(ranked: RankedTopics, level: int, recalls, rounding: str,
                  context: EvaluationContext) -> np.ndarray:
    """Interpolated precision per topic (rows) at each recall level (columns)."""
    best_after, rel_ret, first, num_rel = context.memo.get(("precision curve", level),
                                                           lambda: _curve(ranked, level, context), ranking=ranked)
    out = np.zeros((ranked.n_topics, len(recalls)), dtype=np.float64)
    for column, recall in enumerate(recalls):
        c = _round_half_away(recall * num_rel) if rounding == "nearest" else np.floor(recall * num_rel + 0.9)
        c = np.maximum(c.astype(np.int64), 1)  # c = 0 reads the first relevant's value
        reached = (rel_ret > 0) & (c <= rel_ret)
        out[reached, column] = best_after[first[reached] + c[reached] - 1]
    return out


def _curve(ranked: RankedTopics, level: int, context: EvaluationContext) -> tuple[np.ndarray, ...]:
    """What every recall level reads: the best precision from each relevant retrieved
    document on, the relevant retrieved per topic, where each topic's first is, and R."""
    _, topic, position = relevant(ranked, level, None, context)
    j = place_in_runs(topic) + 1
    # max_{j' >= j} j'/p_j' within the topic, exactly (doubling steps, no offsets added to the values)
    best_after = j / position
    step = 1
    while step < len(best_after):
        same = topic[step:] == topic[:-step]
        np.maximum(best_after[:-step], np.where(same, best_after[step:], -np.inf), out=best_after[:-step])
        step *= 2
    rel_ret = np.bincount(topic, minlength=ranked.n_topics)
    first = starts_of(rel_ret)  # the index of each topic's first relevant retrieved
    return best_after, rel_ret, first, ranked.num_rel(level).astype(np.float64)


def interpolated_precision(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """IPrec(recall=x) = max precision at ranks where recall >= x (trec_eval's rounding)."""
    return _interpolated(ranked, measure["rel"], (measure["recall"],), measure["rounding"], context)[:, 0]


def eleven_point_average(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """IPrec_11pt = (1/11) sum_{x in 0, 0.1, ..., 1} IPrec(recall=x); with ``levels``, the mean
    of IPrec over those recall levels (trec_eval's ``11pt_avg.0.2,0.5,0.8``)."""
    levels: tuple[float, ...] = ELEVEN_POINTS
    if measure["levels"]:  # '.25,.5,.75': numbers in [0, 1], ascending as trec_eval expects
        try:
            levels = tuple(float(x) for x in measure["levels"].split(","))
        except ValueError:
            raise ParameterError(f"{measure}: levels must be recall levels separated by commas, such as "
                                 "'.25,.5,.75'") from None
        if any(not 0 <= x <= 1 for x in levels) or list(levels) != sorted(levels):
            raise ParameterError(f"{measure}: levels must be ascending recall levels between 0 and 1")
    return _interpolated(ranked, measure["rel"], levels, measure["rounding"], context).sum(axis=1) / len(levels)


def precision_at_r_multiple(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Rprec_mult(mult=x) = |relevant in the top c| / c, c = floor(x R + 0.9); 0 when c = 0."""
    num_rel = ranked.num_rel(measure["rel"]).astype(np.float64)
    c = np.floor(measure["mult"] * num_rel + 0.9)
    return divide_or_zero(relevant_by_rank(ranked, measure["rel"], context).count(c.astype(np.int64)), c)


def relative_precision(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """RelP@k = |relevant in the top k| / min(k, R); 0 when R = 0."""
    num_rel = ranked.num_rel(measure["rel"]).astype(np.float64)
    return divide_or_zero(relevant_by_rank(ranked, measure["rel"], context).count(measure.cutoff),
                          np.minimum(num_rel, measure.cutoff or 0))


RECALL = Param("recall", float, 0.0, "the recall level x (ir_measures writes IPrec@x; trec_eval "
               "iprec_at_recall_x)", interval=Interval(0, 1))
ROUNDING = Param("rounding", str, "nearest", "how recall x becomes the c-th relevant document: nearest, "
                 "c = round(x R) (trec_eval 10); trec_eval9, c = floor(x R + 0.9) (trec_eval 9, pytrec_eval, "
                 "ir_measures)", choices=("nearest", "trec_eval9"))
LEVELS = Param("levels", str, "", "the recall levels averaged, ascending, separated by commas (trec_eval's "
               "11pt_avg.0.2,0.5,0.8); empty: 0, 0.1, ..., 1")
MULT = Param("mult", float, 1.0, "the rank as a multiple of R, the number of relevant documents "
             "(trec_eval Rprec_mult_x)", interval=Interval(0, None))
#: trec_eval's Rprec_mult: one measure per multiple of R, 0.2 to 2 by default
R_MULTIPLES = TrecEval("Rprec_mult", syntax="each", params=("mult",), levels=tuple(k / 5 for k in range(1, 11)))

register(
    MeasureSpec("IPrec", "standard", "interpolated precision at a recall level",
                "IPrec(x) = max_{j >= round(x R)} j / rank_j", TREC_EVAL + " iprec_at_recall; ir_measures IPrec",
                interpolated_precision, (RECALL, ROUNDING, REL),
                trec_eval=TrecEval("iprec_at_recall", syntax="each", params=("recall",), levels=ELEVEN_POINTS)),
    MeasureSpec("IPrec_11pt", "standard", "mean interpolated precision at the 11 recall levels 0, 0.1, ..., 1",
                "(1/11) sum_{x = 0, 0.1, ..., 1} IPrec(x)", TREC_EVAL + " 11pt_avg", eleven_point_average,
                (ROUNDING, REL, LEVELS), trec_eval=TrecEval("11pt_avg", syntax="numbers", params=("levels",))),
    MeasureSpec("Rprec_mult", "standard", "precision at a multiple of R",
                "|relevant in top c| / c, c = floor(x R + 0.9)", TREC_EVAL + " Rprec_mult",
                precision_at_r_multiple, (MULT, REL), trec_eval=R_MULTIPLES),
    MeasureSpec("RelP", "standard", "precision at k relative to the best possible",
                "RelP@k = |relevant in top k| / min(k, R)", TREC_EVAL + " relative_P", relative_precision, (REL,),
                cutoff="required", trec_eval=TrecEval(cut="relative_P")),
)
