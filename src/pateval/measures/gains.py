"""trec_eval's gain measures: graded gains, a gain per relevance level, and the ideal ranking.

Every measure here gives a retrieved document the gain of its relevance level: its grade,
unless the ``gains`` parameter maps the level to another number (trec_eval's parameter
syntax ``level=gain,...``: ``nDCG(gains='1=3,2=9')`` is ``trec_eval -m ndcg.1=3,2=9``;
gains may be 0 or negative). Unjudged documents and those graded negative gain 0. The ideal
ranking is the topic's judged documents by gain, highest first, down to the last positive
gain.

- ``nDCG`` with ``gains`` (:mod:`pateval.measures.standard` declares it; this module
  computes it): DCG = sum_i g_i / log2(i + 1) over the ranking, over the ideal DCG.
- ``DCG`` and ``IDCG``: the two sums of nDCG, DCG and the ideal DCG (trec_eval's ``dcg``
  and ``ideal_dcg``).
- ``nDCG_rel``: nDCG averaged over the relevant documents (those of positive gain): at the
  rank of each one retrieved, DCG@i / IDCG@min(i, R'), R' the documents of positive gain;
  each one missed scores the final DCG / IDCG (trec_eval's ``ndcg_rel``).
- ``RnDCG``: nDCG averaged at the ranks where the ideal gain changes (the R-levels:
  DCG@k / IDCG@k for k the last rank of each gain in the ideal ranking), and at the end of
  the ranking when it runs past R' + 1 (trec_eval's ``Rndcg``); 0 when nothing is
  relevant (grade >= ``rel``).
- ``G``: sum_i g_i / log2(2 + C_i - S_i) / sum(ideal gains), S_i the gain retrieved at
  ranks <= i and C_i = sum_{r <= i} max(ideal gain at r, 1) (trec_eval's ``G``).
- ``binG``: (1/R) sum over relevant retrieved d of 1 / log2(2 + non-relevant above d)
  (trec_eval's ``binG``; binary: grade >= ``rel``).
- ``RBP``: rank-biased precision (Moffat & Zobel 2008), (1 - p) sum_i g_i p^(i-1). With
  ``rel`` >= 1 a document gains 1 when its grade is at least ``rel`` (cwl_eval's RBP, as
  ir_measures' ``RBP(rel=1)`` runs it; cwl_eval stops at rank 1000 and divides by
  1 - p^1000, which moves no value by 1e-9 for p <= 0.979); with ``rel=0`` (the default)
  the gains are graded and, when some lies outside [0, 1], rescaled to
  (g - min) / (max - min) over the topic's levels and 0 (trec_eval's ``rbp``).
- ``RBP_resid``: the most RBP could rise if the unjudged retrieved documents were relevant:
  (1 - p) sum_{i unjudged} p^(i-1) + p^n (n retrieved), and 0 when none is unjudged
  (trec_eval's ``rbp_resid``: the residual alone, not RBP plus it).

One deliberate difference: pateval sorts the ideal gains exactly, where trec_eval's sort
compares gains by their difference truncated to an integer, so that with a gain map whose
gains differ by less than 1 (``2=2.5``) its ideal ranking may put 2 before 2.5.

Reference: trec_eval 10.0 (NIST) ``ndcg``, ``dcg``, ``ideal_dcg``, ``ndcg_rel``, ``Rndcg``, ``G``, ``binG``, ``rbp``,
``rbp_resid`` (its setup_gains and get_gain); Moffat & Zobel, TOIS 27(1), 2008; cwl_eval
(Azzopardi, Thomas & Moffat, SIGIR 2019).
"""

from __future__ import annotations

import numpy as np

from ..core.ranking import RankedTopics
from ..core.segments import offsets, place_in_runs, place_in_segments, run_starts, running_count
from ..validation import Interval
from .base import EvaluationContext, Measure, MeasureSpec, Param, TrecEval, divide_or_zero
from .registry import register
from .relevance import GAINS, REL, TREC_EVAL, gain_map, gains_of, ideal_grades, per_topic, relevant

__all__ = ["ndcg_with_gains", "dcg", "ideal_dcg", "ndcg_rel", "r_ndcg", "normalised_gain", "binary_gain",
           "rank_biased_precision", "rbp_residual"]

class _Gains:
    """A ranking's gains and its ideal ranking, per topic (trec_eval's setup_gains)."""

    def __init__(self, ranked: RankedTopics, text: str):
        pairs = gain_map(text)
        judged = ranked.judged_grade >= 0
        rows = ranked.judged_row[judged]
        gain = gains_of(ranked.judged_grade[judged], pairs)
        nonzero = gain != 0
        #: the retrieved rows of nonzero gain, in ranking order, their topic, rank and gain
        self.rows, self.gain = rows[nonzero], gain[nonzero]
        self.topic = ranked.judged_topic[judged][nonzero]
        self.position = self.rows - ranked.ptr[self.topic] + 1
        self.discounted = self.gain / np.log2(self.position + 1.0)  # g_i / log2(i + 1)
        judgements = ranked.judgements
        if pairs:
            levels = judgements.grade
            ideal = gains_of(levels, pairs)
            keep = (levels >= 0) & (ideal > 0)
            ideal, ideal_topic = ideal[keep], judgements.topic_position[keep]
            order = np.lexsort((-ideal, ideal_topic))
            ideal, ideal_topic = ideal[order], ideal_topic[order]
        else:  # each grade gains itself: the judgements' grades, best first, as nDCG reads them
            ideal, ideal_topic, _ = ideal_grades(ranked)
        #: each topic's positive ideal gains, highest first (CSR by ``ideal_ptr``)
        self.ideal, self.ideal_topic = ideal, ideal_topic
        self.n_ideal = np.bincount(self.ideal_topic, minlength=ranked.n_topics)
        self.ideal_ptr = offsets(self.n_ideal)
        self.ideal_position = place_in_segments(self.n_ideal, first=1)
        self.ideal_dcg = _per_topic_cumsum(self.ideal / np.log2(self.ideal_position + 1.0), self.ideal_topic)
        self.pairs = pairs
        self.n_topics = ranked.n_topics  # not the ranking: the memo drops this with it

    def idcg_at(self, topic: np.ndarray, k: np.ndarray) -> np.ndarray:
        """IDCG@k of some topics (k >= 1, k <= their number of positive ideal gains)."""
        return self.ideal_dcg[self.ideal_ptr[topic] + k - 1]

    def idcg(self, k: int | None = None) -> np.ndarray:
        """IDCG@k of every topic (k: all without a cutoff); 0 for a topic without positive gains."""
        total = np.zeros(self.n_topics)
        topics = np.flatnonzero(self.n_ideal > 0)
        depth = self.n_ideal[topics]
        total[topics] = self.idcg_at(topics, depth if k is None else np.minimum(depth, k))
        return total


def _per_topic_cumsum(values: np.ndarray, topic: np.ndarray) -> np.ndarray:
    """Running sums of ``values`` within each run of equal ``topic`` (grouped), from one global running sum."""
    return running_count(values, run_starts(topic))


def _gains(ranked: RankedTopics, text: str, context: EvaluationContext) -> _Gains:
    return context.memo.get(("trec gains", text), lambda: _Gains(ranked, text), ranking=ranked)


def _dcg_and_ideal(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> tuple[np.ndarray, np.ndarray]:
    """DCG@k = sum_{i<=k} g_i / log2(i+1) and IDCG@k, gains by ``gains`` (k: all without a cutoff)."""
    g = _gains(ranked, measure["gains"], context)
    within = slice(None) if measure.cutoff is None else g.position <= measure.cutoff
    return per_topic(g.topic[within], ranked, g.discounted[within]), g.idcg(measure.cutoff)


def ndcg_with_gains(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """nDCG@k = DCG@k / IDCG@k (0 when IDCG@k is 0), gains by ``gains`` (trec_eval's ndcg)."""
    return divide_or_zero(*_dcg_and_ideal(ranked, measure, context))


def dcg(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """DCG@k = sum_{i<=k} g_i / log2(i+1), unnormalised (trec_eval's dcg)."""
    return _dcg_and_ideal(ranked, measure, context)[0]


def ideal_dcg(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """IDCG@k: the DCG@k of the ideal ranking, the topic's positive gains highest first (trec_eval's ideal_dcg)."""
    return _dcg_and_ideal(ranked, measure, context)[1]


def ndcg_rel(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """nDCG_rel = (1/R') [sum_{retrieved d, g_d > 0} DCG@i_d / IDCG@min(i_d, R')
    + (R' - |retrieved of positive gain|) DCG / IDCG]."""
    g = _gains(ranked, measure["gains"], context)
    running = _per_topic_cumsum(g.discounted, g.topic)
    positive = g.gain > 0
    topic, position = g.topic[positive], g.position[positive]
    k = np.minimum(position, g.n_ideal[topic])
    terms = running[positive] / g.idcg_at(topic, np.maximum(k, 1))
    total = per_topic(topic, ranked, terms)
    missed = g.n_ideal - per_topic(topic, ranked)
    total += missed * ndcg_with_gains(ranked, measure, context)  # DCG / IDCG (nDCG_rel takes no cutoff)
    return np.where(total > 0, divide_or_zero(total, g.n_ideal.astype(np.float64)), 0.0)


def r_ndcg(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """RnDCG = mean of DCG@k / IDCG@k at the ideal ranking's gain changes (and at the end of
    a ranking longer than R' + 1: DCG / IDCG)."""
    g = _gains(ranked, measure["gains"], context)
    running = _per_topic_cumsum(g.discounted, g.topic)
    # the last rank of each ideal gain value: a change before the next, or the last positive gain
    last = np.r_[g.ideal_topic[1:] != g.ideal_topic[:-1], True] if len(g.ideal) else np.zeros(0, dtype=bool)
    change = last | np.r_[g.ideal[1:] != g.ideal[:-1], True] if len(g.ideal) else last
    topic, k = g.ideal_topic[change], g.ideal_position[change]
    # DCG@k at each change: the running DCG at the last nonzero-gain row at or above rank k
    span = int(max(g.position.max(initial=0), k.max(initial=0))) + 1
    keys = g.topic * span + g.position
    at = np.searchsorted(keys, topic * span + k, side="right") - 1
    found = (at >= 0) & (g.topic[np.maximum(at, 0)] == topic) if len(keys) else np.zeros(len(topic), dtype=bool)
    at_change = np.where(found, running[np.maximum(at, 0)] if len(keys) else 0.0, 0.0) / g.ideal_dcg[change]
    total = per_topic(topic, ranked, at_change)
    count = per_topic(topic, ranked)
    num_ret = ranked.num_ret()
    end = (g.n_ideal > 0) & (num_ret > g.n_ideal + 1)
    total += np.where(end, ndcg_with_gains(ranked, measure, context), 0.0)  # DCG / IDCG (RnDCG takes no cutoff)
    count += end
    values = divide_or_zero(total, count)
    return np.where(ranked.num_rel(measure["rel"]) > 0, values, 0.0)


def normalised_gain(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """G = sum_i g_i / log2(2 + C_i - S_i) / sum(ideal gains) (see the module notes)."""
    g = _gains(ranked, measure["gains"], context)
    earned = _per_topic_cumsum(g.gain, g.topic)  # S_i at the rows of nonzero gain
    excess = _per_topic_cumsum(np.maximum(g.ideal - 1.0, 0.0), g.ideal_topic)
    k = np.minimum(g.position, g.n_ideal[g.topic])
    extra = np.where(k > 0, excess[np.maximum(g.ideal_ptr[g.topic] + k - 1, 0)] if len(excess) else 0.0, 0.0)
    cost = g.position + extra
    total = per_topic(g.topic, ranked, g.gain / np.log2(2.0 + cost - earned))
    ideal_total = per_topic(g.ideal_topic, ranked, g.ideal)
    return divide_or_zero(total, ideal_total)


def binary_gain(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """binG = (1/R) sum_{relevant retrieved d} 1 / log2(2 + non-relevant ranked above d)."""
    _, topic, position = relevant(ranked, measure["rel"], None, context)
    nonrel_above = position - place_in_runs(topic) - 1
    total = per_topic(topic, ranked, 1.0 / np.log2(2.0 + nonrel_above))
    return divide_or_zero(total, ranked.num_rel(measure["rel"]).astype(np.float64))


def _rbp_gains(ranked: RankedTopics, measure: Measure,
               context: EvaluationContext) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``topic, position, gain`` of the retrieved rows RBP credits (see the module notes)."""
    if measure["rel"] >= 1:
        _, topic, position = relevant(ranked, measure["rel"], None, context)
        return topic, position, np.ones(len(topic))
    pairs = gain_map(measure["gains"])
    judged = ranked.judged_grade >= 0
    rows, grades, topic = ranked.judged_row[judged], ranked.judged_grade[judged], ranked.judged_topic[judged]
    gain = gains_of(grades, pairs)
    # trec_eval rescales when a level's gain (a listed one, or an unlisted level's grade up to the
    # topic's highest) lies outside [0, 1]
    judgements = ranked.judgements
    top = np.full(ranked.n_topics, -1, dtype=np.int64)
    np.maximum.at(top, judgements.topic_position, judgements.grade)
    listed = np.array([level for level, _ in pairs], dtype=np.int64)
    unlisted = top.copy()
    for _ in range(len(listed)):
        unlisted = np.where(np.isin(unlisted, listed), unlisted - 1, unlisted)
    mapped = np.array([gain for _, gain in pairs])
    high = np.maximum(np.maximum(unlisted, 0), mapped.max(initial=0.0))
    low = np.full(ranked.n_topics, min(mapped.min(initial=0.0), 0.0))
    rescale = (low < 0) | (high > 1)
    span = np.where(rescale, high - low, 1.0)
    gain = np.where(rescale[topic], (gain - low[topic]) / span[topic], gain)
    return topic, rows - ranked.ptr[topic] + 1, gain


def _persistence_powers(p: float, n: int) -> np.ndarray:
    """p^0 ... p^n, each by multiplying the one before by p, as trec_eval's rbp and rbp_resid
    walk the ranking (p ** k can differ in the last bit, and a mean can then print differently)."""
    return np.cumprod(np.r_[1.0, np.full(n, p)])


def rank_biased_precision(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """RBP = (1 - p) sum_i g_i p^(i-1)."""
    p = measure["p"]
    topic, position, gain = _rbp_gains(ranked, measure, context)
    powers = _persistence_powers(p, int(position.max()) if len(position) else 0)
    return (1.0 - p) * per_topic(topic, ranked, gain * powers[position - 1])


def rbp_residual(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """RBP_resid = (1 - p) sum_{i unjudged} p^(i-1) + p^n if some retrieved document is unjudged, else 0."""
    p = measure["p"]
    num_ret = ranked.num_ret()
    powers = _persistence_powers(p, int(num_ret.max()) if len(num_ret) else 0)
    weight = powers[ranked.position - 1]
    is_judged = ranked.judged_grade >= 0
    # summed down each ranking as trec_eval sums the unjudged documents (not all minus the judged:
    # no cancellation); a judged row adds 0.0, which leaves a running sum exactly as it was
    weight[ranked.judged_row[is_judged]] = 0.0
    total = per_topic(ranked.row_topic, ranked, weight)
    unjudged = num_ret - per_topic(ranked.judged_topic[is_judged], ranked)
    return np.where(unjudged > 0, powers[num_ret] + (1.0 - p) * total, 0.0)


P = Param("p", float, 0.8, "persistence: the chance of going on to the next document (ir_measures' default 0.8; "
          "trec_eval's rbp: 0.9)", interval=Interval(0, 1, closed="left"))
RBP_REL = Param("rel", int, 0, "0: graded gains (trec_eval's rbp); k >= 1: a document gains 1 when its grade is "
                "at least k (cwl_eval's, ir_measures' RBP(rel=k))", interval=Interval(0, None))

register(
    MeasureSpec("DCG", "standard", "discounted cumulative gain, unnormalised (gain = grade, log2(i+1) discount)",
                "DCG@k = sum_{i<=k} g_i / log2(i+1)", TREC_EVAL + " dcg; Jarvelin & Kekalainen, TOIS 2002",
                dcg, (GAINS,), cutoff="optional", trec_eval=TrecEval("dcg", syntax="text", params=("gains",))),
    MeasureSpec("IDCG", "standard", "ideal discounted cumulative gain: the DCG of the best ranking",
                "IDCG@k = sum_{i<=k} g*_i / log2(i+1), g* the judged gains descending",
                TREC_EVAL + " ideal_dcg; Jarvelin & Kekalainen, TOIS 2002", ideal_dcg, (GAINS,), cutoff="optional",
                trec_eval=TrecEval("ideal_dcg", syntax="text", params=("gains",))),
    MeasureSpec("nDCG_rel", "standard", "nDCG averaged over the relevant documents",
                "(1/R') [sum_{rel ret} DCG@i/IDCG@min(i,R') + (R' - rel_ret) DCG/IDCG]", TREC_EVAL + " ndcg_rel",
                ndcg_rel, (GAINS,), trec_eval=TrecEval("ndcg_rel", syntax="text", params=("gains",))),
    MeasureSpec("RnDCG", "standard", "nDCG averaged at the ideal ranking's gain changes (R-levels)",
                "mean over R-levels k of DCG@k / IDCG@k", TREC_EVAL + " Rndcg", r_ndcg, (GAINS, REL),
                trec_eval=TrecEval("Rndcg", syntax="text", params=("gains",))),
    MeasureSpec("G", "standard", "normalised gain (trec_eval's experimental G)",
                "sum_i g_i / log2(2 + C_i - S_i) / sum ideal gains", TREC_EVAL + " G", normalised_gain, (GAINS,),
                trec_eval=TrecEval("G", syntax="text", params=("gains",))),
    MeasureSpec("binG", "standard", "binary G: relevant documents discounted by the non-relevant above them",
                "(1/R) sum_{rel ret d} 1 / log2(2 + nonrel above d)", TREC_EVAL + " binG", binary_gain, (REL,),
                trec_eval=TrecEval("binG")),
    MeasureSpec("RBP", "standard", "rank-biased precision", "RBP = (1-p) sum_i g_i p^(i-1)",
                TREC_EVAL + " rbp; Moffat & Zobel, TOIS 2008; cwl_eval RBP (ir_measures)", rank_biased_precision,
                (P, RBP_REL, GAINS),
                trec_eval=TrecEval("rbp", syntax="pairs", params=("p",), defaults=(("p", 0.9), ("rel", 0)))),
    MeasureSpec("RBP_resid", "standard", "RBP's residual: what the unjudged retrieved documents could add",
                "(1-p) sum_{i unjudged} p^(i-1) + p^n (0 if none is unjudged)", TREC_EVAL + " rbp_resid",
                rbp_residual, (P,),
                trec_eval=TrecEval("rbp_resid", syntax="pairs", params=("p",), defaults=(("p", 0.9),))),
)
