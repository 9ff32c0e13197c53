"""ndeval's other novelty measures: alpha-DCG (ideal-ideal normalised) and NRBP, nNRBP.

Notation as in :mod:`pateval.measures.subtopic` (whose helpers these kernels share): J_i(r),
C_i(r-1), intent weights w_i (1 per intent with a relevant document under
``intents=uniform``, ndeval's arithmetic) and W = sum_i w_i.

- alpha-DCG@k = sum_{r<=k} sum_i w_i J_i(r) (1-alpha)^{C_i(r-1)} / log2(r+1), divided as
  ndeval divides it by W sum_{r<=k} (1-alpha)^{r-1} / log2(r+1), the value of a ranking whose
  every document is relevant to every intent (its "ideal ideal"). ndeval leaves k = 1
  undivided (its loop starts at rank 2): ``compat=ndeval`` gives that number.
- NRBP = (1 - (1-alpha) beta) / W * sum_r beta^(r-1) sum_i w_i J_i(r) (1-alpha)^{C_i(r-1)}
  over the whole ranking (Clarke, Kolla & Vechtomova, ICTIR 2009: novelty- and rank-biased
  precision); nNRBP = the same sum over its value on ndeval's greedy ideal ranking.

ndeval's ``MAP-IA`` and ``strec`` are :mod:`pateval.measures.subtopic`'s MAP_IA and I_rec
(ir_measures calls them AP_IA and StRecall; both spellings parse).

Reference: ndeval v4.5 (TREC Web track; ir_measures' pyndeval provider).
"""

from __future__ import annotations

import numpy as np

from ..core.ranking import RankedTopics
from ..validation import Interval
from .base import EvaluationContext, Measure, MeasureSpec, Param, divide_or_zero
from .registry import register
from .subtopic import (
    ALPHA,
    INTENTS,
    NDEVAL,
    REL,
    SUBTOPICS,
    _ideal_gains,
    _log_discount,
    _novelty_sums,
    _weights,
)

__all__ = ["alpha_dcg", "nrbp", "normalised_nrbp"]


def alpha_dcg(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """alpha-DCG@k over W sum_{r<=k} (1-alpha)^{r-1} / log2(r+1) (undivided at k = 1 with compat=ndeval)."""
    run, _, total = _novelty_sums(ranked, measure, context, _log_discount)
    k = measure.cutoff or 0  # (the spec requires a cutoff)
    if k == 1 and measure["compat"] == "ndeval":
        return run
    rank = np.arange(1, k + 1, dtype=np.float64)
    bound = float(np.sum(np.power(1.0 - measure["alpha"], rank - 1.0) * _log_discount(rank)))
    return divide_or_zero(run, total * bound)


def _nrbp_sum(ranked: RankedTopics, measure: Measure, context: EvaluationContext):
    relevance, weight, total = _weights(ranked, measure, context)
    alpha, beta = measure["alpha"], measure["beta"]
    terms = (weight[relevance.rank_subtopic] * np.power(1.0 - alpha, relevance.rank_seen_before)
             * np.power(beta, relevance.rank_position - 1.0))
    return np.bincount(relevance.rank_topic, weights=terms, minlength=ranked.n_topics), relevance, weight, total


def nrbp(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """NRBP = (1 - (1-alpha) beta) / W sum_r beta^(r-1) sum_i w_i J_i(r) (1-alpha)^{C_i(r-1)}."""
    run, _, _, total = _nrbp_sum(ranked, measure, context)
    return divide_or_zero(run * (1.0 - (1.0 - measure["alpha"]) * measure["beta"]), total)


def normalised_nrbp(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """nNRBP = NRBP's sum over its value on the greedy ideal ranking."""
    run, relevance, weight, _ = _nrbp_sum(ranked, measure, context)
    # the ideal ranks every document relevant to some intent (a document-level judgement is of one topic)
    documents = np.unique(relevance.judged_doc)
    depth = int(np.bincount(ranked.judgements.topic_position[documents]).max(initial=0))
    ideal = _ideal_gains(ranked, measure, context, relevance, weight, depth)
    ideal_sum = ideal @ np.power(measure["beta"], np.arange(depth, dtype=np.float64))
    return divide_or_zero(run, ideal_sum)


BETA = Param("beta", float, 0.5, "patience: the chance of reading on to the next document",
             interval=Interval(0.0, 1.0, closed="left"))
DCG_COMPAT = Param("compat", str, "none", "ndeval: alpha-DCG@1 left undivided, as ndeval v4.5 prints it; "
                   "none: divided at every k", choices=("none", "ndeval"))

register(
    MeasureSpec("alpha_DCG", "subtopic", "alpha-DCG over its value when every document is relevant to every intent",
                "sum_{r<=k} sum_i w_i J_i(r) (1-alpha)^{C_i(r-1)} / log2(r+1) "
                "/ (W sum_{r<=k} (1-alpha)^{r-1}/log2(r+1))",
                NDEVAL + "; Clarke et al., SIGIR 2008", alpha_dcg, (ALPHA, REL, INTENTS, DCG_COMPAT),
                cutoff="required", requires=SUBTOPICS, aliases=("alpha-DCG",)),
    MeasureSpec("NRBP", "subtopic", "novelty- and rank-biased precision (ndeval)",
                "(1-(1-alpha)beta)/W sum_r beta^(r-1) sum_i w_i J_i(r) (1-alpha)^{C_i(r-1)}",
                NDEVAL + "; Clarke, Kolla & Vechtomova, ICTIR 2009", nrbp, (ALPHA, BETA, REL, INTENTS),
                requires=SUBTOPICS),
    MeasureSpec("nNRBP", "subtopic", "NRBP normalised by the greedy ideal ranking (ndeval)",
                "NRBP's sum / the same on the greedy ideal", NDEVAL + "; Clarke, Kolla & Vechtomova, ICTIR 2009",
                normalised_nrbp, (ALPHA, BETA, REL, INTENTS), requires=SUBTOPICS),
)
