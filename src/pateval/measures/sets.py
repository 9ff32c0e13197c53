"""Measures of the retrieved set, unranked, and the counts trec_eval prints beside them.

The set measures judge everything a run retrieved for a topic as one set (cut a run with
``pateval evaluate``'s depth, trec_eval's ``-M``, to judge a set of another size):

- ``SetP`` = rel_ret / ret, ``SetR`` = rel_ret / R, ``SetRelP`` = rel_ret / min(ret, R),
  ``SetAP`` = rel_ret^2 / (ret * R) (set precision times set recall);
- ``SetF`` = (beta + 1) P R / (beta P + R), with trec_eval's beta (not beta squared);
- ``Utility`` = a rel_ret + b (ret - rel_ret) + c (R - rel_ret) + d (N - ret - R + rel_ret),
  N the collection size (trec_eval's ``-N``);

and the counts: ``NumNonrelJudgedRet`` (judged non-relevant documents retrieved), ``NumQ``
(1 per topic, summed: the topics evaluated) and ``Unj@k`` (the share of the top k the qrels
do not judge, or judge with a negative grade). Conventions are trec_eval's (see
:mod:`pateval.measures.standard`): a set measure of a topic with nothing retrieved or
nothing relevant is 0.

Reference: trec_eval 10.0 (NIST), ``set_P``, ``set_recall``, ``set_relative_P``, ``set_map``,
``set_F``, ``utility``, ``num_nonrel_judged_ret``, ``num_q``, ``unj``; ir_measures' SetP,
SetR, SetF, SetAP and NumQ (its pytrec_eval provider).
"""

from __future__ import annotations

import numpy as np

from ..core.ranking import RankedTopics
from ..validation import Interval
from .base import EvaluationContext, Measure, MeasureSpec, Param, TrecEval, divide_or_zero
from .registry import register
from .relevance import REL, TREC_EVAL, relevant_by_rank

__all__ = ["set_precision", "set_recall", "set_relative_precision", "set_average_precision", "set_f",
           "utility", "num_nonrel_judged_ret", "num_q", "unjudged"]

IR_MEASURES = "ir_measures (pytrec_eval provider)"


def _set_counts(ranked: RankedTopics, level: int, context: EvaluationContext) -> tuple[np.ndarray, np.ndarray,
                                                                                        np.ndarray]:
    """Per topic: documents retrieved, relevant judged, relevant retrieved (float64)."""
    rel_ret = relevant_by_rank(ranked, level, context).count(None)
    return (ranked.num_ret().astype(np.float64), ranked.num_rel(level).astype(np.float64),
            rel_ret.astype(np.float64))


def set_precision(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """SetP = rel_ret / ret (0 when nothing is retrieved)."""
    ret, _, rel_ret = _set_counts(ranked, measure["rel"], context)
    return divide_or_zero(rel_ret, ret)


def set_recall(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """SetR = rel_ret / R (0 when nothing is relevant)."""
    _, rel, rel_ret = _set_counts(ranked, measure["rel"], context)
    return divide_or_zero(rel_ret, rel)


def set_relative_precision(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """SetRelP = rel_ret / min(ret, R): the set precision over the best one possible."""
    ret, rel, rel_ret = _set_counts(ranked, measure["rel"], context)
    return divide_or_zero(rel_ret, np.minimum(ret, rel))


def set_average_precision(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """SetAP = rel_ret^2 / (ret * R): AP of an unranked set (each relevant retrieved document
    scores the set precision, each one missed 0)."""
    ret, rel, rel_ret = _set_counts(ranked, measure["rel"], context)
    return divide_or_zero(rel_ret * rel_ret, ret * rel)


def set_f(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """SetF = (beta + 1) P R / (beta P + R), P and R the set precision and recall; 0 when
    nothing relevant is retrieved. As trec_eval (and so ir_measures), beta weighs P and R
    directly: beta = 1 is the harmonic mean, larger beta favours recall."""
    ret, rel, rel_ret = _set_counts(ranked, measure["rel"], context)
    beta = measure["beta"]
    p, r = divide_or_zero(rel_ret, ret), divide_or_zero(rel_ret, rel)
    return divide_or_zero((beta + 1.0) * p * r, np.where(rel_ret > 0, beta * p + r, 0.0))


def utility(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Utility = a rel_ret + b nonrel_ret + c rel_missed + d nonrel_missed, with nonrel_missed
    = N - ret - R + rel_ret for a collection of N documents (``num_docs``, trec_eval -N)."""
    ret, rel, rel_ret = _set_counts(ranked, measure["rel"], context)
    return (measure["a"] * rel_ret + measure["b"] * (ret - rel_ret) + measure["c"] * (rel - rel_ret)
            + measure["d"] * (measure["num_docs"] + rel_ret - ret - rel))


def num_nonrel_judged_ret(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Judged non-relevant documents retrieved: grade >= 0 and below ``rel``."""
    judged = relevant_by_rank(ranked, 0, context).count(None)  # (level 0: every judged row)
    return (judged - relevant_by_rank(ranked, measure["rel"], context).count(None)).astype(np.float64)


def num_q(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """1 for every topic evaluated (summed over topics: their number)."""
    return np.ones(ranked.n_topics, dtype=np.float64)


def unjudged(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Unj@k = |top k not judged| / k: documents the qrels omit or grade negative (pooled,
    not judged); the ranks past the end of a short ranking count as judged, as trec_eval's."""
    k = measure.cutoff or 0  # (the spec requires a cutoff)
    in_top = np.minimum(ranked.num_ret(), k).astype(np.float64)
    return (in_top - relevant_by_rank(ranked, 0, context).count(k)) / k  # (level 0: every judged row)


BETA = Param("beta", float, 1.0, "weight of recall against precision (trec_eval's set_F parameter: "
             "F = (beta+1)PR/(beta P+R))", interval=Interval(0, None, closed="neither"))
UTILITY = (
    Param("a", float, 1.0, "gain of each relevant document retrieved"),
    Param("b", float, -1.0, "gain of each non-relevant document retrieved"),
    Param("c", float, 0.0, "gain of each relevant document not retrieved"),
    Param("d", float, 0.0, "gain of each non-relevant document not retrieved"),
    Param("num_docs", int, 0, "documents in the collection (trec_eval -N), for d", interval=Interval(0, None)),
    REL,
)

register(
    MeasureSpec("SetP", "standard", "precision of the retrieved set", "SetP = rel_ret / ret",
                TREC_EVAL + " set_P; " + IR_MEASURES + " SetP", set_precision, (REL,), trec_eval=TrecEval("set_P")),
    MeasureSpec("SetR", "standard", "recall of the retrieved set", "SetR = rel_ret / R",
                TREC_EVAL + " set_recall; " + IR_MEASURES + " SetR", set_recall, (REL,),
                trec_eval=TrecEval("set_recall")),
    MeasureSpec("SetRelP", "standard", "precision of the retrieved set relative to the best possible",
                "SetRelP = rel_ret / min(ret, R)", TREC_EVAL + " set_relative_P", set_relative_precision, (REL,),
                trec_eval=TrecEval("set_relative_P")),
    MeasureSpec("SetAP", "standard", "average precision of the unranked retrieved set", "SetAP = rel_ret^2 / (ret R)",
                TREC_EVAL + " set_map; " + IR_MEASURES + " SetAP", set_average_precision, (REL,),
                trec_eval=TrecEval("set_map")),
    MeasureSpec("SetF", "standard", "F-measure of the retrieved set", "SetF = (beta+1) P R / (beta P + R)",
                TREC_EVAL + " set_F; " + IR_MEASURES + " SetF; van Rijsbergen, Information Retrieval, 1979",
                set_f, (BETA, REL), trec_eval=TrecEval("set_F", syntax="list", params=("beta",))),
    MeasureSpec("Utility", "standard", "linear utility of the retrieved set",
                "a rel_ret + b nonrel_ret + c rel_missed + d nonrel_missed",
                TREC_EVAL + " utility; Lewis, TREC-4 filtering track, 1995", utility, UTILITY,
                trec_eval=TrecEval("utility", syntax="list", params=("a", "b", "c", "d"))),
    MeasureSpec("NumNonrelJudgedRet", "standard", "judged non-relevant documents retrieved",
                "|judged nonrel retrieved|",
                TREC_EVAL + " num_nonrel_judged_ret", num_nonrel_judged_ret, (REL,), aggregate="sum", integer=True,
                trec_eval=TrecEval("num_nonrel_judged_ret")),
    MeasureSpec("NumQ", "standard", "topics evaluated", "1 per topic, summed", TREC_EVAL + " num_q; "
                + IR_MEASURES + " NumQ", num_q, (), aggregate="sum", integer=True, trec_eval=TrecEval("num_q")),
    MeasureSpec("Unj", "standard", "share of the top k not judged", "Unj@k = |unjudged in top k| / k",
                TREC_EVAL + " unj", unjudged, (), cutoff="required",
                trec_eval=TrecEval(cut="unj", cutoffs=(5, 10, 20))),
)
