"""Counts of the top k under other toolkits' names: ir_measures' ``Judged@k``, ranx's
``Hits@k``, and ``Success@k`` (ir_measures' Success, ranx's hit_rate, trec_eval's success).

``Judged@k`` (how much of the top k the qrels judge) is the usual check that a run's
scores can be trusted: a run far outside the pool scores low because its documents were
never judged. It is ir_measures' number: a short list is divided by its length, and equal
scores are ranked as ir_measures ranks them (trec_eval's ``Unj@k`` divides by k).
``Hits@k`` is ranx's ``hits@k``: relevant documents in the top k, averaged
over topics (trec_eval's ``num_rel_ret`` with a cutoff, but a mean, not a sum).
``Success@k`` is 1 when a relevant document is in the top k, else 0 (its mean: the share
of topics answered in the top k).
"""

from __future__ import annotations

import numpy as np
import pyarrow.compute as pc

from ..core.keys import take
from ..core.order import string_ranks
from ..core.ranking import RankedTopics
from .base import EvaluationContext, Measure, MeasureSpec, TrecEval, divide_or_zero
from .registry import register
from .relevance import REL, relevant_by_rank

__all__ = ["judged_fraction", "hits", "success"]

IR_MEASURES = "ir_measures (Judged), https://github.com/terrierteam/ir_measures"
RANX = "ranx (hits), https://github.com/AmenRa/ranx"


def judged_fraction(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Judged@k = |judged documents in the top k| / min(k, |retrieved|), ir_measures' judgement rate.

    As ir_measures counts it: a document is judged when the qrels list it for the topic,
    whatever its grade (negative grades included); the top k is ir_measures' ranking, score
    descending and equal scores by docno ascending, whatever order the other measures read;
    a list shorter than k is divided by its length (without k: the whole list); a topic with
    nothing retrieved scores 0.
    """
    rows = ranked.judged_row
    topic = ranked.topic_of(rows)
    retrieved = ranked.num_ret()
    depth = retrieved if measure.cutoff is None else np.minimum(retrieved, measure.cutoff)
    in_top = _ir_measures_position(ranked, rows, topic) <= depth[topic]
    judged = np.bincount(topic[in_top], minlength=ranked.n_topics).astype(np.float64)
    return divide_or_zero(judged, depth)


def _ir_measures_position(ranked: RankedTopics, rows: np.ndarray, topic: np.ndarray) -> np.ndarray:
    """The 1-based rank of ``rows`` (in topics ``topic``) when each topic is ranked as
    ir_measures ranks it: score descending, equal scores by docno ascending."""
    score, n = ranked.score, ranked.n_rows
    starts = np.zeros(n, dtype=bool)
    starts[ranked.ptr[:-1][np.diff(ranked.ptr) > 0]] = True
    within = ~starts[1:]  # row i + 1 is in the topic of row i
    tie = within & (score[1:] == score[:-1])
    ids = ranked.doc_ids
    i = np.flatnonzero(tie)
    if (np.all(score[1:][within] <= score[:-1][within])
            and pc.all(pc.greater(take(ids, ranked.doc[i]), take(ids, ranked.doc[i + 1]))).as_py() is not False):
        # trec_eval's order (equal scores by docno descending): each tie group read backwards
        group_start = np.flatnonzero(np.r_[True, ~tie])
        group = np.searchsorted(group_start, rows, side="right") - 1
        group_end = np.r_[group_start[1:], n] - 1
        place = group_start[group] + group_end[group] - rows
    else:
        order = np.lexsort((string_ranks(take(ids, ranked.doc)), -score, ranked.row_topic))
        where = np.empty(n, dtype=np.int64)
        where[order] = np.arange(n, dtype=np.int64)
        place = where[rows]
    return place - ranked.ptr[topic] + 1


def hits(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Hits@k = |relevant documents in the top k| (every retrieved one without k)."""
    return relevant_by_rank(ranked, measure["rel"], context).count(measure.cutoff).astype(np.float64)


def success(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Success@k = 1 if a relevant document is in the top k (any retrieved one without k), else 0."""
    return np.minimum(hits(ranked, measure, context), 1.0)


register(
    MeasureSpec("Judged", "standard", "fraction of the top k that the qrels judge (ir_measures' Judged)",
                "Judged@k = |judged in top k| / min(k, |retrieved|)", IR_MEASURES, judged_fraction, (),
                cutoff="optional"),
    MeasureSpec("Hits", "standard", "relevant documents in the top k (mean over topics)",
                "Hits@k = |relevant in top k|", RANX, hits, (REL,), cutoff="optional"),
    MeasureSpec("Success", "standard", "whether a relevant document is in the top k",
                "Success@k = 1 if |relevant in top k| > 0 else 0",
                "trec_eval (NIST) success; ir_measures Success; ranx hit_rate", success, (REL,), cutoff="optional",
                aliases=("success", "hit_rate"), trec_eval=TrecEval(cut="success", cutoffs=(1, 5, 10))),
)
