"""Counts of the top k under other toolkits' names: ir_measures' ``Judged@k``, ranx's
``Hits@k``, and ``Success@k`` (ir_measures' Success, ranx's hit_rate, trec_eval's success).

``Judged@k`` (how much of the top k the qrels judge) is the usual check that a run's
scores can be trusted: a run far outside the pool scores low because its documents were
never judged. ``Hits@k`` is ranx's ``hits@k``: relevant documents in the top k, averaged
over topics (trec_eval's ``num_rel_ret`` with a cutoff, but a mean, not a sum).
``Success@k`` is 1 when a relevant document is in the top k, else 0 (its mean: the share
of topics answered in the top k).
"""

from __future__ import annotations

import numpy as np

from ..core.ranking import RankedTopics
from .base import EvaluationContext, Measure, MeasureSpec
from .registry import register
from .standard import REL

__all__ = ["judged_fraction", "hits", "success"]

IR_MEASURES = "ir_measures (Judged), https://github.com/terrierteam/ir_measures"
RANX = "ranx (hits), https://github.com/AmenRa/ranx"


def _in_top(ranked: RankedTopics, rows: np.ndarray, cutoff: int | None) -> np.ndarray:
    """How many of ``rows`` (row numbers in ranking order) lie in each topic's top ``cutoff``."""
    topic = ranked.topic_of(rows)
    if cutoff is not None:
        position = rows - ranked.ptr[topic] + 1
        topic = topic[position <= cutoff]
    return np.bincount(topic, minlength=ranked.n_topics).astype(np.float64)


def judged_fraction(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Judged@k = |judged documents in the top k| / k.

    A document is judged when the qrels list it for the topic, whatever its grade
    (negative grades included), as ir_measures counts it. Like P@k, the divisor is k even
    when fewer documents are retrieved.
    """
    return _in_top(ranked, ranked.judged_row, measure.cutoff) / measure.cutoff


def hits(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Hits@k = |relevant documents in the top k| (every retrieved one without k)."""
    return _in_top(ranked, ranked.relevant_rows(measure["rel"]), measure.cutoff)


def success(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Success@k = 1 if a relevant document is in the top k (any retrieved one without k), else 0."""
    return np.minimum(hits(ranked, measure, context), 1.0)


for _spec in (
    MeasureSpec("Judged", "standard", "fraction of the top k that the qrels judge",
                "Judged@k = |judged in top k| / k", IR_MEASURES, judged_fraction, (), cutoff="required"),
    MeasureSpec("Hits", "standard", "relevant documents in the top k (mean over topics)",
                "Hits@k = |relevant in top k|", RANX, hits, (REL,), cutoff="optional"),
    MeasureSpec("Success", "standard", "whether a relevant document is in the top k",
                "Success@k = 1 if |relevant in top k| > 0 else 0",
                "trec_eval (NIST) success; ir_measures Success; ranx hit_rate", success, (REL,), cutoff="optional",
                aliases=("success", "hit_rate")),
):
    register(_spec)
