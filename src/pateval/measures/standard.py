"""The standard measures, identical to trec_eval's (checked against pytrec-eval-terrier).

Each kernel computes one value per topic for all topics at once from a
:class:`pateval.core.ranking.RankedTopics`. Conventions, all trec_eval's: documents are
ranked by score descending, ties by docno descending; a document is relevant when its
grade is at least ``rel`` (default 1); unjudged documents are non-relevant; a topic with
no relevant document scores 0 and still counts in the mean.

Reference: trec_eval 9/10 (NIST, usnistgov/trec_eval), measures ``map``, ``map_cut``, ``yaap``,
``P``, ``recall``, ``Rprec``, ``recip_rank``, ``ndcg``, ``ndcg_cut``, ``bpref``,
``num_ret``, ``num_rel``, ``num_rel_ret``.
"""

from __future__ import annotations

import numpy as np

from ..core.ranking import RankedTopics
from ..core.segments import place_in_runs, run_starts, running_count
from .base import EvaluationContext, Measure, MeasureSpec, TrecEval, divide_or_zero, shared_topic_values
from .coverage import hits
from .gains import ndcg_with_gains
from .registry import register
from .relevance import (
    GAINS,
    REL,
    TREC_EVAL,
    RowsByRank,
    ideal_grades,
    per_topic,
    relevant,
    relevant_by_rank,
    relevant_running_sums,
)

__all__ = ["average_precision", "yaap", "precision", "recall", "r_precision", "reciprocal_rank", "ndcg", "bpref"]

@shared_topic_values  # GMAP's too
def average_precision(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Average precision: AP = (1/R) * sum over relevant retrieved d of P@rank(d).

    With a cutoff k (``AP@k``, trec_eval's map_cut), only ranks <= k contribute; R is all
    relevant documents of the topic.
    """
    rel = measure["rel"]
    precisions = relevant_running_sums(ranked, rel, context, "precision", _precision_at)
    return divide_or_zero(relevant_by_rank(ranked, rel, context).total(precisions, measure.cutoff), ranked.num_rel(rel))


def _precision_at(grades: np.ndarray, topic: np.ndarray, position: np.ndarray) -> np.ndarray:
    """P@rank of each relevant retrieved row (its relevant rows so far over its rank)."""
    return (place_in_runs(topic) + 1) / position


def yaap(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Yet another average precision (Robertson, "On smoothing average precision", ECIR 2012):
    YAAP = log((1 + S) / (1 + R - S)), S = sum over relevant retrieved d of P@rank(d) (= R * AP)."""
    grades, topic, position = relevant(ranked, measure["rel"], None, context)
    total = per_topic(topic, ranked, _precision_at(grades, topic, position))
    return np.log((1.0 + total) / (1.0 + ranked.num_rel(measure["rel"]) - total))


def precision(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Precision at k: P@k = |relevant in the top k| / k (k even when fewer are retrieved)."""
    return relevant_by_rank(ranked, measure["rel"], context).count(measure.cutoff) / measure.cutoff


def recall(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Recall: R@k = |relevant in the top k| / R (all retrieved without a cutoff)."""
    return divide_or_zero(relevant_by_rank(ranked, measure["rel"], context).count(measure.cutoff),
                          ranked.num_rel(measure["rel"]))


def r_precision(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """R-precision: |relevant in the top R| / R, R the number of relevant documents."""
    num_rel = ranked.num_rel(measure["rel"])
    return divide_or_zero(relevant_by_rank(ranked, measure["rel"], context).count(num_rel), num_rel)


def reciprocal_rank(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Reciprocal rank: 1 / rank of the first relevant document (0 if none; within k with @k)."""
    _, topic, position = relevant(ranked, measure["rel"], measure.cutoff, context)
    first = run_starts(topic)
    values = np.zeros(ranked.n_topics, dtype=np.float64)
    values[topic[first]] = 1.0 / position[first]
    return values


def ndcg(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Normalised discounted cumulative gain (Jarvelin & Kekalainen 2002), trec_eval's form.

    DCG@k = sum_{i<=k} gain_i / log2(i + 1), gain = the judged grade (negative grades and
    unjudged documents gain 0); nDCG@k = DCG@k / IDCG@k, the ideal from all of the topic's
    judged grades sorted descending; 0 when IDCG is 0. Without a cutoff, k = all. With
    ``gains``, the gains of :mod:`pateval.measures.gains` (trec_eval's ``ndcg.1=3,2=9``).
    """
    if measure["gains"] or ranked.judged_grade.dtype.kind == "f":
        # fractional grades (float64, core.qrels): every positive grade gains itself, as with gains
        return ndcg_with_gains(ranked, measure, context)
    discounted = relevant_running_sums(ranked, 1, context, "discounted grade", _discounted)  # only grades >= 1 gain
    ideal, ideal_discounted = context.memo.get("ideal gains", lambda: _ideal_gains(ranked), ranking=ranked)
    return divide_or_zero(relevant_by_rank(ranked, 1, context).total(discounted, measure.cutoff),
                          ideal.total(ideal_discounted, measure.cutoff))


def _discounted(grades: np.ndarray, topic: np.ndarray, position: np.ndarray) -> np.ndarray:
    """grade / log2(rank + 1) of each row: its gain, discounted."""
    return grades / np.log2(position + 1.0)


def _ideal_gains(ranked: RankedTopics) -> tuple[RowsByRank, np.ndarray]:
    """The ideal rankings' documents that gain (grade >= 1), and the running sums of their
    discounted gains."""
    ideal, topic, position = ideal_grades(ranked)
    rows = RowsByRank(topic, position, n_topics=ranked.n_topics)
    return rows, rows.running(_discounted(ideal, topic, position))


@shared_topic_values  # GM_Bpref's too
def bpref(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Binary preference (Buckley & Voorhees 2004), trec_eval's form.

    bpref = (1/R) * sum over judged relevant retrieved r of
    (1 - min(n_r, R) / min(N, R)), n_r the judged non-relevant documents ranked above r,
    N all judged non-relevant documents of the topic; a term is 1 when n_r = 0.
    Unjudged documents are ignored.
    """
    level = measure["rel"]
    judged = ranked.judged_grade >= 0
    topic = ranked.judged_topic[judged]
    relevant = ranked.judged_grade[judged] >= level
    # judged non-relevant rows above each judged row of its topic
    nonrel_above = place_in_runs(topic) + 1 - running_count(relevant, run_starts(topic))
    num_rel = ranked.num_rel(level)
    num_nonrel = ranked.num_rel(0) - num_rel  # (level 0: every judged document; rel is at least 1)
    topic, nonrel_above = topic[relevant], nonrel_above[relevant]
    r = num_rel[topic].astype(np.float64)
    denominator = np.minimum(num_nonrel[topic], r)
    penalty = divide_or_zero(np.minimum(nonrel_above, r), denominator)
    term = np.where(nonrel_above > 0, 1.0 - penalty, 1.0)
    return divide_or_zero(per_topic(topic, ranked, term), num_rel)


def num_ret(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Number of documents retrieved for the topic."""
    return ranked.num_ret().astype(np.float64)


def num_rel(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Number of relevant (grade >= rel) documents judged for the topic."""
    return ranked.num_rel(measure["rel"]).astype(np.float64)


register(
    MeasureSpec("AP", "standard", "average precision (mean: MAP)",
                "AP@k = (1/R) sum_{i<=k, d_i relevant} P@i", TREC_EVAL + " map, map_cut",
                average_precision, (REL,), cutoff="optional", trec_eval=TrecEval("map", "map_cut")),
    MeasureSpec("YAAP", "standard", "yet another average precision: AP smoothed to average across topics",
                "YAAP = log((1 + S) / (1 + R - S)), S = sum_{d relevant retrieved} P@rank(d)",
                TREC_EVAL + " yaap; Robertson, ECIR 2012", yaap, (REL,), trec_eval=TrecEval("yaap")),
    MeasureSpec("P", "standard", "precision at cutoff k", "P@k = |relevant in top k| / k",
                TREC_EVAL + " P", precision, (REL,), cutoff="required", trec_eval=TrecEval(cut="P")),
    MeasureSpec("R", "standard", "recall (at cutoff k)", "R@k = |relevant in top k| / R",
                TREC_EVAL + " recall", recall, (REL,), cutoff="optional", trec_eval=TrecEval(cut="recall")),
    MeasureSpec("Rprec", "standard", "R-precision", "Rprec = |relevant in top R| / R",
                TREC_EVAL + " Rprec", r_precision, (REL,), aliases=("R-prec",), trec_eval=TrecEval("Rprec")),
    MeasureSpec("RR", "standard", "reciprocal rank of the first relevant document", "RR = 1 / rank_first_relevant",
                TREC_EVAL + " recip_rank", reciprocal_rank, (REL,), cutoff="optional", aliases=("recip_rank", "MRR"),
                trec_eval=TrecEval("recip_rank")),
    MeasureSpec("nDCG", "standard", "normalised discounted cumulative gain (gain = grade, log2(i+1) discount)",
                "nDCG@k = sum_{i<=k} g_i/log2(i+1) / IDCG@k",
                TREC_EVAL + " ndcg, ndcg_cut; Jarvelin & Kekalainen, TOIS 2002",
                ndcg, (GAINS,), cutoff="optional",
                trec_eval=TrecEval("ndcg", "ndcg_cut", syntax="text", params=("gains",))),
    MeasureSpec("Bpref", "standard", "binary preference", "bpref = (1/R) sum_r (1 - min(n_r,R)/min(N,R))",
                TREC_EVAL + " bpref; Buckley & Voorhees, SIGIR 2004", bpref, (REL,), trec_eval=TrecEval("bpref")),
    MeasureSpec("NumRet", "standard", "documents retrieved", "|retrieved|", TREC_EVAL + " num_ret",
                num_ret, (), aggregate="sum", integer=True, trec_eval=TrecEval("num_ret")),
    MeasureSpec("NumRel", "standard", "relevant documents judged", "R", TREC_EVAL + " num_rel",
                num_rel, (REL,), aggregate="sum", integer=True, trec_eval=TrecEval("num_rel")),
    MeasureSpec("NumRelRet", "standard", "relevant documents retrieved", "|relevant retrieved|",
                TREC_EVAL + " num_rel_ret", hits, (REL,), aggregate="sum", integer=True,  # Hits without a cutoff
                trec_eval=TrecEval("num_rel_ret")),
)
