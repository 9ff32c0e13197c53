"""Inferred AP: AP estimated from a judged random sample of the pool (trec_eval's infAP).

The qrels list the pool: documents judged (grade >= 0) and documents pooled but not judged
(a negative grade). For the relevant retrieved document at rank k (k >= 2), with r judged
relevant, n judged non-relevant and u pooled-unjudged documents above it,

    term_k = 1/k + ((k-1)/k) * ((r + n + u)/(k-1)) * ((r + eps)/(r + n + 2 eps)),  eps = 0.00001,

the expected precision at k when the documents above it that are in the pool are relevant in
the proportion of the judged ones and those outside the pool are not; term_1 = 1.
infAP = (1/R) sum of the terms, R the judged relevant documents. With every pooled document
judged it is AP (up to eps).

Reference: Yilmaz & Aslam, "Estimating average precision with incomplete and imperfect
judgments", CIKM 2006; trec_eval 10.0 (NIST) ``infAP`` (ir_measures' infAP, its pytrec_eval
provider).
"""

from __future__ import annotations

import numpy as np

from ..core.ranking import RankedTopics
from ..core.segments import place_in_runs, run_starts, running_count
from .base import EvaluationContext, Measure, MeasureSpec, TrecEval, divide_or_zero
from .registry import register
from .relevance import REL, TREC_EVAL

__all__ = ["inferred_average_precision"]

EPSILON = 0.00001  # trec_eval's INFAP_EPSILON


def inferred_average_precision(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """infAP = (1/R) sum over relevant retrieved d of term(d) (see the module notes)."""
    level = measure["rel"]
    grade = ranked.judged_grade
    topic = ranked.judged_topic  # the pooled rows, judged or not, in ranking order
    relevant = grade >= level
    judged_nonrel = (grade >= 0) & ~relevant
    # entries of the topic above each relevant one: judged relevant, judged non-relevant
    starts = run_starts(topic)
    rel_above = (running_count(relevant.astype(np.int64), starts) - relevant)[relevant]
    nonrel_above = (running_count(judged_nonrel.astype(np.int64), starts) - judged_nonrel)[relevant]
    pooled_above = place_in_runs(topic)[relevant]  # judged or not
    position = ranked.judged_row[relevant] - ranked.ptr[topic[relevant]] + 1
    j = (position - 1).astype(np.float64)
    safe_j = np.maximum(j, 1.0)
    term = np.where(j == 0, 1.0,
                    1.0 / (j + 1.0) + (j / (j + 1.0)) * (pooled_above / safe_j)
                    * ((rel_above + EPSILON) / (rel_above + nonrel_above + 2 * EPSILON)))
    total = np.bincount(topic[relevant], weights=term, minlength=ranked.n_topics).astype(np.float64)
    return divide_or_zero(total, ranked.num_rel(level).astype(np.float64))


register(MeasureSpec("infAP", "standard", "inferred average precision (AP from a sampled pool)",
                     "infAP = (1/R) sum_d [1/k + ((k-1)/k)((r+n+u)/(k-1))((r+eps)/(r+n+2eps))]",
                     TREC_EVAL + " infAP; Yilmaz & Aslam, CIKM 2006; ir_measures infAP",
                     inferred_average_precision, (REL,), trec_eval=TrecEval("infAP")))
