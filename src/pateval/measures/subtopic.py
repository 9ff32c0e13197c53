"""Subtopic (diversity, intent-aware) measures: ndeval's family and Sakai's D-measures.

Every kernel computes one value per topic for all topics at once from a
:class:`pateval.core.ranking.RankedTopics` and its :class:`~pateval.core.ranking.SubtopicView`
(subtopic qrels: ``--qrels-format subtopic`` or ``dd``; a document judged several times
for one subtopic keeps its highest grade).

Notation: topic q with intents (subtopics) i; J_i(r) = 1 when the document at rank r has
grade >= ``rel`` for i (ndeval binarises grades); C_i(r-1) = the documents at ranks
1..r-1 relevant to i; P(i|q) the intent probabilities; S the intents of q with at least
one relevant document (the only ones ndeval counts). With ``intents=uniform`` the ndeval
measures weight every such intent 1 (exactly ndeval's arithmetic); with ``sakai`` or
``file`` they weight intent i by P(i|q), renormalised over those S intents.

ndeval family (TREC Web track 2009-2014, ``ndeval`` v4.5; checked against pyndeval):

- alpha-nDCG@k = alpha-DCG@k / ideal alpha-DCG@k, with
  alpha-DCG@k = sum_{r<=k} sum_i w_i J_i(r) (1-alpha)^{C_i(r-1)} / log2(r+1)
  (Clarke et al., SIGIR 2008). The ideal ranking is ndeval's greedy one: at each rank the
  judged document with the largest novelty-discounted gain, ties to the largest docno.
  The greedy ranking is not always optimal, so a run can (rarely) score above 1.
- ERR-IA@k (ndeval's alpha-based form, "collection-independent" normalisation):
  sum_{r<=k} sum_i w_i J_i(r) (1-alpha)^{C_i(r-1)} / r, divided by
  W * sum_{r<=k} (1-alpha)^{r-1} / r (W = sum of the S intents' weights): the value of a
  ranking whose every document is relevant to every intent. ndeval leaves the value at
  k = 1 undivided (a quirk of its loop); pateval divides at every k, and
  ``ERR_IA(compat=ndeval)@1`` gives ndeval's number.
- nERR-IA@k = the same sum / its value on the greedy ideal ranking.
- P-IA@k = sum_i w_i |{r <= k: J_i(r)}| / (k W).
- MAP-IA (optionally @k) = sum_i w_i AP_i / W, AP_i = (1/R_i) sum_{r: J_i(r)} |{r' <= r: J_i(r')}| / r.
- I-rec@k (ndeval's ``strec``) = |{i: J_i(r) for some r <= k}| / S.

Sakai & Song (2011), NTCIREVAL:

- D-nDCG@k = sum_{r<=k} GG(r)/log2(r+1) / the same over the documents sorted by GG
  (an exact ideal), with global gain GG(d) = sum_i P(i|q) g_i(d), g_i(d) = the grade
  (linear gains; grades <= 0 gain nothing).
- D#-nDCG@k = gamma I-rec@k + (1 - gamma) D-nDCG@k, gamma = 0.5 in the paper.

Intent probabilities (``intents=``): ``uniform``; ``sakai``, Sakai's non-uniform
P(i|q) = 2^{n-i+1} / sum_{k=1}^{n} 2^k over the topic's n intents (the subtopics its
qrels name) in intent order -- by number when every subtopic id of the topic is an
integer, otherwise by string; ``file``, read with ``--intents FILE`` (lines
``qid subtopic probability``, see :mod:`pateval.formats.intents`).

A topic with no relevant subtopic judgement scores 0 and counts in the mean (ndeval's
rule). Documents are ranked by the core (``order=score``: score descending, ties by docno
descending, which is ndeval's ``-traditional``; ndeval's default is ``order=rank``).

Examples
--------
>>> import pateval
>>> from pateval.core.qrels import Qrels
>>> qrels = Qrels.from_records([("1", "s1", "A", 1), ("1", "s2", "B", 1), ("1", "s2", "D", 1), ("1", "s3", "C", 1)],
...                             fields=("topic", "subtopic", "docno", "rel"))
>>> run = {"1": {"A": 9.3, "D": 8.4, "E": 8.1, "B": 7.6}}
>>> frame = pateval.evaluate(qrels, run, ["alpha_nDCG@5", "ERR_IA@5", "I_rec@5"])
>>> [round(v, 6) for v in frame["value"]]
[0.786896, 0.393343, 0.666667]
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .._lazy import lazy_module
from ..core.order import stable_order, string_ranks
from ..core.ranking import RankedTopics, SubtopicView
from ..core.segments import (
    expand,
    offsets,
    place_in_runs,
    place_in_segments,
    run_lengths,
    run_starts,
    segment_of,
    starts_of,
)
from ..errors import ParameterError
from ..validation import Interval
from .base import EvaluationContext, Measure, MeasureSpec, Param, divide_or_zero
from .registry import register
from .relevance import per_topic

pd = lazy_module("pandas")  # a few functions build frames; scoring runs never needs pandas

__all__ = ["alpha_ndcg", "err_ia", "nerr_ia", "precision_ia", "map_ia", "intent_recall", "d_ndcg", "d_sharp_ndcg",
           "intent_probabilities"]

NDEVAL = ("ndeval v4.5 (TREC Web track, github.com/trec-web/trec-web-2014 src/eval/ndeval.c; pyndeval wraps it); "
          "Agrawal et al., WSDM 2009 (intent-aware measures)")
SAKAI = "Sakai & Song, SIGIR 2011 (NTCIREVAL, http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html)"

ALPHA = Param("alpha", float, 0.5, "redundancy penalty: each earlier document relevant to an intent "
              "multiplies its gain by (1-alpha)", interval=Interval(0.0, 1.0))
REL = Param("rel", int, 1, "minimum subtopic grade counted as relevant (grades are binarised, as in ndeval)",
            interval=Interval(1, None))
INTENTS = Param("intents", str, "uniform", "intent probabilities P(i|q): uniform; sakai = 2^(n-i+1)/sum_k 2^k "
                "over the topic's intents in order; file = read with --intents", choices=("uniform", "sakai", "file"))
ERR_COMPAT = Param("compat", str, "none", "ndeval: ERR-IA@1 left undivided, as ndeval v4.5 prints it (its "
                   "normalisation loop starts at rank 2); none: divided at every k", choices=("none", "ndeval"))
GAMMA = Param("gamma", float, 0.5, "weight of I-rec in D#-nDCG = gamma I-rec + (1-gamma) D-nDCG",
              interval=Interval(0.0, 1.0))

def _view(ranked: RankedTopics, context: EvaluationContext) -> SubtopicView:
    """The ranking's subtopic view, made once per evaluation for every subtopic measure."""
    return context.memo.get("subtopic view", lambda: ranked.subtopic_view(aggregate="max"), ranking=ranked)


# ----------------------------------------------------------------------------- intents

def _intent_order(view: SubtopicView, n_topics: int) -> np.ndarray:
    """Each subtopic's 1-based place in its topic's intent order (number order if all ids are integers)."""
    ids = pd.Series(view.subtopic_ids, dtype=object).astype(str)
    is_integer = ids.str.fullmatch(r"[+-]?\d+").to_numpy(dtype=bool)
    topic = view.subtopic_topic
    others = np.bincount(topic[~is_integer], minlength=n_topics)
    numbered = (others == 0)[topic]
    value = np.where(numbered, pd.to_numeric(ids.where(is_integer, "0")).to_numpy(dtype=np.float64), 0.0)
    codes = np.arange(len(ids), dtype=np.int64)  # subtopic codes run in string order within a topic
    order = np.lexsort((codes, value, topic))
    place = np.empty(len(ids), dtype=np.int64)
    place[order] = place_in_segments(np.diff(view.subtopic_ptr)) + 1  # ``order`` runs topic by topic
    return place


def intent_probabilities(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """P(i|q) for every subtopic of the view (aligned with ``SubtopicView.subtopic_ids``).

    The topic's intents are the subtopics its qrels name. ``uniform``: 1/n. ``sakai``:
    2^{n-i+1} / sum_{k=1}^{n} 2^k for the i-th intent (computed as 2^{1-i} / (2 - 2^{1-n}),
    which cannot overflow). ``file``: the ``intent_probabilities`` resource; a subtopic
    with a relevant judgement that the file does not list is an error.
    """
    mode = measure["intents"]
    view = _view(ranked, context)
    topic = view.subtopic_topic
    n = np.diff(view.subtopic_ptr)[topic].astype(np.float64)
    if mode == "uniform":
        return 1.0 / n
    if mode == "sakai":
        place = context.memo.get("intent order", lambda: _intent_order(view, ranked.n_topics),
                                 ranking=ranked).astype(np.float64)
        return np.exp2(1.0 - place) / (2.0 - np.exp2(1.0 - n))
    given = context.require("intent_probabilities", measure)
    found = given.lookup(ranked.topic_ids[topic], view.subtopic_ids)
    missing = np.isnan(found)
    needed = missing & (np.bincount(view.judged_subtopic[view.judged_grade > 0], minlength=len(topic)) > 0)
    if needed.any():
        s = int(np.flatnonzero(needed)[0])
        raise ParameterError(f"{measure}: the intent probabilities ({given.source}) give none for topic "
                             f"{ranked.topic_ids[topic[s]]!r} subtopic {view.subtopic_ids[s]!r}, "
                             f"which has relevant documents ({int(needed.sum())} such subtopic(s) in all)")
    return np.where(missing, 0.0, found)


# ----------------------------------------------------------------------------- ndeval family

class _Relevance:
    """Binary subtopic relevance at one ``rel`` level, for the run's rows and the qrels.

    The run's (row, subtopic) pairs are also kept in rank order (``rank_*``; a stable order:
    within a topic they stay as the ranking has them), so that a cutoff is a prefix and
    per-topic sums over it add the same numbers in the same order as over the rows.
    """

    def __init__(self, ranked: RankedTopics, view: SubtopicView, rel: int):
        self.view = view
        keep = np.flatnonzero(view.pair_grade >= rel)  # (positions and takes: quicker than a mask on each array)
        self.row = np.take(view.pair_row, keep)
        self.subtopic = np.take(view.pair_subtopic, keep)
        # C_i(r-1): earlier relevant rows for the same subtopic (a stable order keeps rank order)
        self.seen_before = np.empty(len(self.row), dtype=np.int64)
        by_subtopic = stable_order(self.subtopic)
        self.seen_before[by_subtopic] = place_in_runs(self.subtopic[by_subtopic])
        self.topic = np.searchsorted(ranked.ptr, self.row, side="right") - 1  # rows ascending: no row array needed
        self.position = self.row - ranked.ptr[self.topic] + 1
        by_rank = stable_order(self.position)
        self.rank_topic, self.rank_subtopic, self.rank_seen_before, self.rank_position = (
            np.take(values, by_rank) for values in (self.topic, self.subtopic, self.seen_before, self.position))
        judged = np.flatnonzero(view.judged_grade >= rel)
        self.judged_topic, self.judged_doc, self.judged_subtopic = (
            np.take(values, judged) for values in (view.judged_topic, view.judged_doc, view.judged_subtopic))
        self.n_relevant = np.bincount(self.judged_subtopic, minlength=len(view.subtopic_ids))  # R_i
        self.actual = self.n_relevant > 0
        self.n_actual = np.bincount(view.subtopic_topic[self.actual], minlength=ranked.n_topics)

    def within(self, cutoff: int | None) -> int:
        """How many pairs (in rank order) are at ranks <= ``cutoff``."""
        return (len(self.rank_position) if cutoff is None
                else int(np.searchsorted(self.rank_position, cutoff, side="right")))


def _relevance(ranked: RankedTopics, context: EvaluationContext, rel: int) -> _Relevance:
    return context.memo.get(("relevance", rel), lambda: _Relevance(ranked, _view(ranked, context), rel), ranking=ranked)


def _weights(ranked: RankedTopics, measure: Measure, context: EvaluationContext):
    """The relevance at the measure's ``rel``, the intent weights w_i (zero for intents without
    relevant documents) and their sum W per topic."""
    relevance = _relevance(ranked, context, measure["rel"])
    if measure["intents"] == "uniform":
        weight = relevance.actual.astype(np.float64)  # 1 per intent: ndeval's own arithmetic
    else:
        weight = np.where(relevance.actual, intent_probabilities(ranked, measure, context), 0.0)
    total = np.bincount(relevance.view.subtopic_topic, weights=weight, minlength=ranked.n_topics)
    return relevance, weight, total


def _greedy_ideal(ranked: RankedTopics, relevance: _Relevance, weight: np.ndarray, alpha: float,
                  depth: int) -> np.ndarray:
    """Gains of ndeval's greedy ideal ranking, ranks 1..depth, shape (T, depth).

    All topics advance in lock-step: each step scores every remaining candidate (a judged
    document relevant to some intent) by its novelty-discounted gain, takes per topic the
    best one with ties to the largest docno (ndeval v4.5), and discounts its intents.
    Gains are summed in subtopic order and discounted by repeated multiplication, as
    ndeval does, so that ties come out the same.
    """
    n_topics = ranked.n_topics
    ideal = np.zeros((n_topics, depth), dtype=np.float64)
    if len(relevance.judged_doc) == 0 or depth == 0:
        return ideal
    view = relevance.view
    n_keys = max(len(view.judged_docnos), 1)
    # docno order among the documents that can be ideal (ndeval's tie rule), not all judged ones
    present = np.zeros(n_keys, dtype=bool)
    present[relevance.judged_doc] = True
    documents = np.flatnonzero(present)
    key_rank = np.zeros(n_keys, dtype=np.int64)
    key_rank[documents] = string_ranks(view.judged_docnos.take(pa.array(documents)))
    n_subtopics = len(weight)
    candidate_key = relevance.judged_topic * n_keys + key_rank[relevance.judged_doc]
    if int(candidate_key.max()) < np.iinfo(np.int64).max // max(n_subtopics, 1):
        # (topic, docno, subtopic) packed in one integer, unique per pair: one plain sort
        packed = np.sort(candidate_key * n_subtopics + relevance.judged_subtopic)
        sorted_key, pair_subtopic = packed // n_subtopics, packed % n_subtopics
    else:
        order = np.lexsort((relevance.judged_subtopic, candidate_key))  # by topic, docno, subtopic
        sorted_key, pair_subtopic = candidate_key[order], relevance.judged_subtopic[order]
    first = run_starts(sorted_key)  # each candidate's first pair
    candidates = sorted_key[first]
    pairs_per_candidate = run_lengths(first, len(sorted_key))
    pair_candidate = segment_of(offsets(pairs_per_candidate))
    n_candidates = len(candidates)
    candidate_topic = candidates // n_keys
    per_topic = np.bincount(candidate_topic, minlength=n_topics)
    topics = np.flatnonzero(per_topic > 0)
    counts = per_topic[topics]
    starts = starts_of(counts)
    # A picked candidate's pairs are pointed at a last, "blocked" subtopic whose gain is
    # -inf, so that it drops out of the next sums without a pass of its own.
    blocked = n_subtopics
    live_subtopic = pair_subtopic.copy()
    index = np.arange(n_candidates, dtype=np.int64)
    subtopic_gain = np.r_[weight.astype(np.float64), -np.inf]
    decay = 1.0 - alpha
    for step in range(depth):
        gain = np.bincount(pair_candidate, weights=np.take(subtopic_gain, live_subtopic), minlength=n_candidates)
        best = np.maximum.reduceat(gain, starts)
        # the last of the best: candidates run in docno order, ties go to the largest docno
        pick = np.maximum.reduceat(np.where(gain == np.repeat(best, counts), index, -1), starts)
        live = best > -np.inf
        if not live.any():
            break
        pick = pick[live]
        ideal[topics[live], step] = best[live]
        rows = expand(first[pick], pairs_per_candidate[pick])
        subtopic_gain[pair_subtopic[rows]] *= decay  # one pick per topic: no subtopic twice
        live_subtopic[rows] = blocked
        if not (best[live] > 0.0).any():
            break  # gains only shrink: every later rank gains 0
    return ideal


def _ideal_gains(ranked, measure, context, relevance, weight, depth) -> np.ndarray:
    source = context.resources.get("intent_probabilities") if measure["intents"] == "file" else None
    # the ideal depends on the qrels only: computed once for all runs judged by the same index
    made = context.memo.get(("greedy", measure["rel"], measure["alpha"], measure["intents"], source), dict,
                            ranking=ranked.judgements)
    if "gains" not in made or made["gains"].shape[1] < depth:
        # at least ndeval's depth (20) at once: the usual @5, @10, @20 then share one pass
        made["gains"] = _greedy_ideal(ranked, relevance, weight, measure["alpha"], max(depth, 20))
    return made["gains"][:, :depth]


def _novelty_sums(ranked, measure, context, discount) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per topic: the run's discounted novelty gain to the cutoff, the greedy ideal's, and W."""
    relevance, weight, total = _weights(ranked, measure, context)
    k = measure.cutoff
    # pair by pair (rows without a relevant intent gain nothing): w_i (1-alpha)^{C_i(r-1)} discount(r);
    # w_i (1-alpha)^{C_i(r-1)} made once for all the cutoffs and discounts of one (rel, alpha, intents)
    source = context.resources.get("intent_probabilities") if measure["intents"] == "file" else None
    novelty = context.memo.get(("novelty", measure["rel"], measure["alpha"], measure["intents"], source),
                               lambda: weight[relevance.rank_subtopic] * np.power(1.0 - measure["alpha"],
                                                                                  relevance.rank_seen_before),
                               ranking=ranked)
    n = relevance.within(k)
    contribution = novelty[:n] * discount(np.arange(1, k + 1))[relevance.rank_position[:n] - 1]  # discount(r), r <= k
    run = np.bincount(relevance.rank_topic[:n], weights=contribution, minlength=ranked.n_topics)
    ideal = _ideal_gains(ranked, measure, context, relevance, weight, k) @ discount(np.arange(1, k + 1))
    return run, ideal, total


def _log_discount(position: np.ndarray) -> np.ndarray:
    return 1.0 / np.log2(np.asarray(position, dtype=np.float64) + 1.0)


def _reciprocal(position: np.ndarray) -> np.ndarray:
    return 1.0 / np.asarray(position, dtype=np.float64)


def alpha_ndcg(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """alpha-nDCG@k (Clarke et al. 2008) with ndeval's greedy ideal.

    alpha-DCG@k = sum_{r<=k} sum_i w_i J_i(r) (1-alpha)^{C_i(r-1)} / log2(r+1);
    alpha-nDCG@k = alpha-DCG@k / alpha-DCG@k of the greedy ideal ranking (0 when that is 0).
    """
    run, ideal, _ = _novelty_sums(ranked, measure, context, _log_discount)
    return divide_or_zero(run, ideal)


def err_ia(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """ERR-IA@k, ndeval's alpha-based form with its collection-independent normalisation.

    ERR-IA@k = sum_{r<=k} sum_i w_i J_i(r) (1-alpha)^{C_i(r-1)} / r  /  (W sum_{r<=k} (1-alpha)^{r-1} / r).
    With ``compat=ndeval``, ERR-IA@1 is the sum alone, undivided (ndeval v4.5 normalises
    from rank 2 on).

    Examples
    --------
    Three intents; the run's first document is relevant to one of them.

    >>> from pateval.api import evaluate
    >>> from pateval.core.qrels import Qrels
    >>> qrels = Qrels.from_records([("1", "s1", "A", 1), ("1", "s2", "B", 1), ("1", "s3", "C", 1)],
    ...                             fields=("topic", "subtopic", "docno", "rel"))
    >>> frame = evaluate(qrels, {"1": {"A": 2.0, "E": 1.0}}, ["ERR_IA@1", "ERR_IA(compat=ndeval)@1"])
    >>> [round(v, 6) for v in frame["value"]]
    [0.333333, 1.0]
    """
    run, _, total = _novelty_sums(ranked, measure, context, _reciprocal)
    k = int(measure.cutoff or 0)  # (ERR-IA takes a cutoff: never 0)
    if k == 1 and measure["compat"] == "ndeval":
        return run
    bound = np.sum(np.power(1.0 - measure["alpha"], np.arange(k, dtype=np.float64)) / np.arange(1, k + 1))
    return divide_or_zero(run, total * bound)


def nerr_ia(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """nERR-IA@k: ERR-IA@k's sum over its value on the greedy ideal ranking (ndeval)."""
    run, ideal, _ = _novelty_sums(ranked, measure, context, _reciprocal)
    return divide_or_zero(run, ideal)


def precision_ia(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """P-IA@k = sum_i w_i |{r <= k: J_i(r)}| / (k W) (ndeval; k even when fewer are retrieved)."""
    relevance, weight, total = _weights(ranked, measure, context)
    n = relevance.within(measure.cutoff)
    hits = np.bincount(relevance.rank_topic[:n], weights=weight[relevance.rank_subtopic[:n]], minlength=ranked.n_topics)
    return divide_or_zero(hits, total * measure.cutoff)


def map_ia(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """MAP-IA = sum_i w_i AP_i / W; AP_i = (1/R_i) sum_{r: J_i(r)} |{r' <= r: J_i(r')}| / r (ndeval).

    With a cutoff k only ranks <= k contribute (R_i stays all documents relevant to i).
    """
    relevance, weight, total = _weights(ranked, measure, context)
    n = relevance.within(measure.cutoff)
    subtopic = relevance.rank_subtopic[:n]
    precision_at_hit = (relevance.rank_seen_before[:n] + 1.0) / relevance.rank_position[:n]
    terms = weight[subtopic] * precision_at_hit / relevance.n_relevant[subtopic]
    return divide_or_zero(np.bincount(relevance.rank_topic[:n], weights=terms, minlength=ranked.n_topics), total)


def _intent_recall(ranked: RankedTopics, context: EvaluationContext, rel: int, cutoff: int | None) -> np.ndarray:
    relevance = _relevance(ranked, context, rel)
    n = relevance.within(cutoff)
    covered = per_topic(relevance.rank_topic[:n][relevance.rank_seen_before[:n] == 0], ranked)
    return divide_or_zero(covered, relevance.n_actual.astype(np.float64))


def intent_recall(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """I-rec@k (subtopic recall, ndeval's strec): intents covered in the top k / intents with a relevant document."""
    return _intent_recall(ranked, context, measure["rel"], measure.cutoff)


# ----------------------------------------------------------------------------- D-measures

def d_ndcg(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """D-nDCG@k (Sakai & Song 2011): nDCG over the global gain GG(d) = sum_i P(i|q) g_i(d).

    g_i(d) is the grade of d for intent i (linear gains, grades <= 0 gain 0);
    D-nDCG@k = sum_{r<=k} GG(d_r)/log2(r+1) / sum_{r<=k} GG*(r)/log2(r+1), GG* the judged
    documents' global gains sorted descending (an exact ideal). 0 when the ideal is 0.
    """
    view = _view(ranked, context)
    probability = intent_probabilities(ranked, measure, context)
    k = measure.cutoff
    pair_gain = probability[view.pair_subtopic] * np.maximum(view.pair_grade, 0)
    # only the rows judged for some subtopic (the pairs come by row): the others add 0 to their topic's sum
    first = run_starts(view.pair_row)
    rows = view.pair_row[first]
    row_gain = np.bincount(segment_of(np.r_[first, len(view.pair_row)]), weights=pair_gain, minlength=len(first))
    topic, position = ranked.topic_of(rows), ranked.position_of(rows)
    keep = slice(None) if k is None else position <= k
    dcg = np.bincount(topic[keep], weights=row_gain[keep] * _log_discount(position[keep]), minlength=ranked.n_topics)
    judged_gain = probability[view.judged_subtopic] * np.maximum(view.judged_grade, 0)
    documents, which = np.unique(view.judged_doc, return_inverse=True)  # judgements of one topic, topic by topic
    global_gain = np.bincount(which.ravel(), weights=judged_gain, minlength=len(documents))
    document_topic = ranked.judgements.topic_position[documents]
    order = np.lexsort((-global_gain, document_topic))
    sorted_gain = global_gain[order]
    place = place_in_runs(document_topic[order]) + 1
    keep = sorted_gain > 0
    if k is not None:
        keep &= place <= k
    ideal = np.bincount(document_topic[order][keep], weights=sorted_gain[keep] * _log_discount(place[keep]),
                        minlength=ranked.n_topics)
    return divide_or_zero(dcg, ideal)


def d_sharp_ndcg(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """D#-nDCG@k = gamma I-rec@k + (1 - gamma) D-nDCG@k (Sakai & Song 2011; gamma = 0.5)."""
    gamma = measure["gamma"]
    return gamma * _intent_recall(ranked, context, 1, measure.cutoff) + (1.0 - gamma) * d_ndcg(ranked, measure, context)


SUBTOPICS = frozenset({"subtopics"})

register(
    MeasureSpec("alpha_nDCG", "subtopic", "alpha-nDCG: novelty-discounted nDCG over intents, greedy ideal (ndeval)",
                "alpha-DCG@k = sum_{r<=k} sum_i w_i J_i(r) (1-alpha)^{C_i(r-1)} / log2(r+1); / greedy ideal",
                NDEVAL + "; Clarke et al., SIGIR 2008", alpha_ndcg, (ALPHA, REL, INTENTS), cutoff="required",
                requires=SUBTOPICS, aliases=("alpha-nDCG",)),
    MeasureSpec("ERR_IA", "subtopic", "intent-aware expected reciprocal rank (ndeval's alpha-based form)",
                "sum_{r<=k} sum_i w_i J_i(r) (1-alpha)^{C_i(r-1)} / r / (W sum_{r<=k} (1-alpha)^{r-1}/r)",
                NDEVAL + "; Chapelle et al., CIKM 2009", err_ia, (ALPHA, REL, INTENTS, ERR_COMPAT), cutoff="required",
                requires=SUBTOPICS, aliases=("ERR-IA",)),
    MeasureSpec("nERR_IA", "subtopic", "ERR-IA normalised by the greedy ideal ranking (ndeval)",
                "sum_{r<=k} sum_i w_i J_i(r) (1-alpha)^{C_i(r-1)} / r / (same on the greedy ideal)",
                NDEVAL + "; Chapelle et al., CIKM 2009", nerr_ia, (ALPHA, REL, INTENTS), cutoff="required",
                requires=SUBTOPICS, aliases=("nERR-IA",)),
    MeasureSpec("P_IA", "subtopic", "intent-aware precision at k",
                "P-IA@k = sum_i w_i |relevant to i in top k| / (k W)",
                NDEVAL, precision_ia, (REL, INTENTS), cutoff="required", requires=SUBTOPICS, aliases=("P-IA",)),
    MeasureSpec("MAP_IA", "subtopic", "intent-aware average precision", "MAP-IA = sum_i w_i AP_i / W",
                NDEVAL, map_ia, (REL, INTENTS), cutoff="optional", requires=SUBTOPICS, aliases=("MAP-IA",)),
    MeasureSpec("I_rec", "subtopic", "intent (subtopic) recall: intents covered in the top k",
                "I-rec@k = |intents with a relevant document in the top k| / |intents with a relevant document|",
                NDEVAL + " (strec); Zhai, Cohen & Lafferty, SIGIR 2003; " + SAKAI, intent_recall, (REL,),
                cutoff="optional", requires=SUBTOPICS, aliases=("I-rec", "strec")),
    MeasureSpec("D_nDCG", "subtopic", "nDCG over the global gain sum_i P(i|q) g_i(d), exact ideal",
                "D-nDCG@k = sum_{r<=k} GG(r)/log2(r+1) / ideal; GG(d) = sum_i P(i|q) g_i(d)",
                SAKAI, d_ndcg, (INTENTS,), cutoff="optional", requires=SUBTOPICS, aliases=("D-nDCG",)),
    MeasureSpec("Dsharp_nDCG", "subtopic", "D#-nDCG: gamma I-rec + (1-gamma) D-nDCG",
                "D#-nDCG@k = gamma I-rec@k + (1-gamma) D-nDCG@k", SAKAI, d_sharp_ndcg, (GAMMA, INTENTS),
                cutoff="optional", requires=SUBTOPICS, aliases=("Dsharp-nDCG", "D_sharp_nDCG")),
)
