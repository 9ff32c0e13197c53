"""Pairwise preference measures: how often the ranking puts a relevant document above a
non-relevant one.

``Accuracy@k`` (ir_measures' Accuracy): among the top k (all retrieved without k), the share
of (relevant, non-relevant) pairs ranked in the right order,

    Accuracy = 1 - sum_{relevant d} nonrel_above(d) / (N m),

m the relevant documents retrieved, N the non-relevant ones (unjudged documents count as
non-relevant). A diagnostic of a ranker's ordering, not of its recall: relevant documents
not retrieved do not count. A topic with no relevant document retrieved scores 0 (ir_measures
reports no value for it); one with no non-relevant document retrieved scores 1 (ir_measures
divides by zero there).

Reference: ir_measures' accuracy provider (Accuracy).
"""

from __future__ import annotations

import numpy as np

from ..core.ranking import RankedTopics
from ..core.segments import place_in_runs
from .base import EvaluationContext, Measure, MeasureSpec
from .registry import register
from .relevance import REL, relevant

__all__ = ["pairwise_accuracy"]


def pairwise_accuracy(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Accuracy@k = 1 - sum_{relevant d} nonrel_above(d) / (N m) over the top k."""
    _, topic, position = relevant(ranked, measure["rel"], measure.cutoff, context)
    nonrel_above = (position - place_in_runs(topic) - 1).astype(np.float64)
    m = np.bincount(topic, minlength=ranked.n_topics).astype(np.float64)
    shown = ranked.num_ret() if measure.cutoff is None else np.minimum(ranked.num_ret(), measure.cutoff)
    nonrel = shown - m
    misordered = np.bincount(topic, weights=nonrel_above, minlength=ranked.n_topics).astype(np.float64)
    pairs = nonrel * m
    out = np.where(m > 0, 1.0, 0.0)
    np.subtract(1.0, misordered / np.where(pairs > 0, pairs, 1.0), out=out, where=pairs > 0)
    return out


register(MeasureSpec("Accuracy", "standard", "share of (relevant, non-relevant) retrieved pairs in the right order",
                     "1 - sum_{relevant d} nonrel_above(d) / (N m)", "ir_measures' accuracy provider (Accuracy)",
                     pairwise_accuracy, (REL,), cutoff="optional"))
