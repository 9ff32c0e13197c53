"""Passage-level measures of CLEF-IP 2012/2013: Precision(D) and MAP(D).

The passage retrieval task asked, for a set of claims, for relevant documents and, in each,
the relevant passages (XPaths). The organisers scored passages only inside the relevant
documents a run found, in the manner of INEX's "Relevant in Context" task:

For topic q, RelRet(q) is the set of documents relevant at document level that the run
retrieved. For d in RelRet(q), p_1..p_m are the run's passages of d in passage-rank order
and Q_d the judged passages of d:

    Precision(d) = |{j : p_j in Q_d}| / m
    AP(d)        = (1/|Q_d|) sum_{j : p_j in Q_d} |{p_1..p_j} ∩ Q_d| / j

Precision(D)(q) and MAP(D)(q) are the means of Precision(d) and AP(d) over RelRet(q), 0 when
RelRet(q) is empty; the reported values are their means over topics. Heading passages are
removed from runs and qrels first, and XPaths are compared normalised
(:func:`pateval.formats.passages.normalise_xpath`).

Inputs (see :mod:`pateval.formats.passages`): the ranking is the document-level run of a
passage run (each document at its first occurrence); the passage rows come from the
evaluation context's ``passage_runs`` (run name -> :class:`PassageRun`, or one
PassageRun for every run) and the passage judgements from ``passage_qrels`` (a
:class:`~pateval.core.qrels.Qrels` with ``passage`` XPaths). ``pateval evaluate`` fills
both when given a passage run and passage qrels.

A relevant document whose judged passages are all headings has |Q_d| = 0 after the
headings are removed: its AP(d) is taken as 0 (it still counts in RelRet).

Reference: F. Piroi, M. Lupu, A. Hanbury, V. Zenz, "CLEF-IP 2011: Retrieval in the
Intellectual Property Domain" and F. Piroi, M. Lupu, A. Hanbury, "Passage Retrieval Starting
from Patent Claims. A CLEF-IP 2013 Task Overview" (CLEF 2012/2013 working notes); INEX
Relevant in Context (Kamps et al., INEX 2007).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._lazy import lazy_module
from ..core.qrels import vectorised_heading
from ..core.ranking import RankedTopics
from ..core.segments import place_in_segments, run_lengths, run_starts, running_count, segment_of
from ..errors import ParameterError
from .base import EvaluationContext, Measure, MeasureSpec, divide_or_zero
from .registry import register
from .relevance import REL

pd = lazy_module("pandas")  # a few functions build frames; scoring runs never needs pandas

__all__ = ["passage_scores", "precision_d", "map_d"]

REFERENCE = ("Piroi, Lupu, Hanbury: Passage Retrieval Starting from Patent Claims, CLEF-IP 2013 task overview "
             "(CLEF 2013 working notes); CLEF-IP 2012 overview; INEX Relevant in Context")
RESOURCES = frozenset({"passage_runs", "passage_qrels"})


def _arrow(values) -> pa.Array:
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return values
    return pa.array(np.asarray(values, dtype=object), type=pa.string())


def _index_in(values, value_set: pa.Array) -> np.ndarray:
    """Position of each of ``values`` in ``value_set`` (distinct strings), -1 when absent (Arrow hashing)."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    found = pc.index_in(_arrow(values), value_set=value_set)
    return pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)


def _member(values: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """``values`` in ``allowed`` (int64 keys) by hashing: np.isin sorts both, which costs more here."""
    if len(values) == 0 or len(allowed) == 0:
        return np.zeros(len(values), dtype=bool)
    return pd.Series(values, copy=False).isin(allowed).to_numpy()


def passage_scores(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> tuple[np.ndarray, np.ndarray]:
    """Precision(D) and MAP(D) of every topic of ``ranked`` (computed once, for both measures).

    Vectorised over all topics: passages of the relevant retrieved documents are grouped by
    (topic, document) in passage-rank order; running hit counts within each group give
    AP(d), group sums give Precision(d), and per-topic sums divided by |RelRet(q)| give
    the topic values.
    """
    key = ("passage scores", measure["rel"], context.resources.get("passage_runs"),
           context.resources.get("passage_qrels"))
    return context.memo.get(key, lambda: _passage_scores(ranked, measure, context), ranking=ranked)


def _passage_scores(ranked: RankedTopics, measure: Measure,
                    context: EvaluationContext) -> tuple[np.ndarray, np.ndarray]:
    level = measure["rel"]
    run = context.require("passage_runs", measure)
    if isinstance(run, Mapping):  # passage runs by run name
        if ranked.run_name not in run:
            listed = ", ".join(sorted(map(str, run))) or "none"
            raise ParameterError(f"{measure}: run {ranked.run_name!r} is not a passage run (passage runs: {listed})")
        run = run[ranked.run_name]
    run = run.without_headings()
    qrels = context.require("passage_qrels", measure)
    if getattr(qrels, "passage", None) is None:
        raise ParameterError(f"{measure} needs passage qrels (XPaths); {qrels.source} has none")
    n_topics = ranked.n_topics
    topic_set = _arrow(ranked.topic_ids)
    # everything is matched as integer codes of the passage run's distinct topics,
    # documents and XPaths (hashed once per run, by Arrow), never as strings row by row
    order = run.passage_order()
    topic_code, topic_distinct = run.codes("topic")
    doc_code, doc_distinct = run.codes("docno")
    xpath_code, xpath_distinct = run.codes("xpath")
    doc_set = run.distinct_arrow("docno")
    n_docs = max(len(doc_distinct), 1)
    n_x = max(len(xpath_distinct), 1)
    empty = np.zeros(0, dtype=np.int64)
    run_topic = _index_in(_arrow(topic_distinct), topic_set)[topic_code[order]] if len(order) else empty
    run_doc_key = run_topic * n_docs + doc_code[order]

    # RelRet(q): the relevant documents the document-level ranking retrieved
    relevant = ranked.relevant(level)
    rel_count = ranked.per_topic_sum(relevant.astype(np.float64))
    vocabulary_in_run = _index_in(ranked.doc_ids, doc_set)
    relret_doc = vocabulary_in_run[ranked.doc[relevant]] if relevant.any() else empty
    relret_key = (ranked.row_topic[relevant] * n_docs + relret_doc)[relret_doc >= 0]
    in_relret = (run_topic >= 0) & _member(run_doc_key, relret_key)
    rows = order[in_relret]
    group_key = run_doc_key[in_relret]

    # Q_d: judged passages of the documents the run has (headings out: the reader removed
    # them from qrels files, qrels built in memory may still hold some)
    qrels_topic = _index_in(qrels.arrow("topic"), topic_set)
    qrels_doc = _index_in(qrels.arrow("docno"), doc_set)
    judged = pc.dictionary_encode(qrels.arrow("passage"))
    judged_all_code = judged.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    heading = vectorised_heading(judged.dictionary.to_numpy(zero_copy_only=False).astype(object))
    keep_q = (qrels_topic >= 0) & (qrels_doc >= 0)
    if len(heading):
        keep_q &= ~heading[judged_all_code]
    qrels_doc_key = qrels_topic[keep_q] * n_docs + qrels_doc[keep_q]
    judged_code = judged_all_code[keep_q]
    width = max(n_x, len(heading), 1)
    if n_topics * n_docs * width >= 2 ** 62:
        raise ParameterError(f"{measure}: too many distinct topics x documents x passages to index")
    # |Q_d| counts every distinct judged passage of d, retrieved or not
    distinct_judged = pd.unique(qrels_doc_key * width + judged_code)
    judged_docs, judged_counts = np.unique(distinct_judged // width, return_counts=True)
    judged_in_run = _index_in(judged.dictionary,
                              run.distinct_arrow("xpath"))[judged_code] if len(judged_code) else empty
    judged_passage_key = (qrels_doc_key * n_x + judged_in_run)[judged_in_run >= 0]
    hit = _member(group_key * n_x + xpath_code[rows], judged_passage_key)

    # groups: consecutive rows of one (topic, document), already in passage-rank order
    n = len(rows)
    if n == 0:
        return np.zeros(n_topics), np.zeros(n_topics)
    starts = run_starts(group_key)
    sizes = run_lengths(starts, n)
    group_of_row = segment_of(np.r_[starts, n])
    j = place_in_segments(sizes) + 1
    hits_so_far = running_count(hit, starts)
    group_hits = np.bincount(group_of_row, weights=hit.astype(np.float64), minlength=len(starts))
    ap_sum = np.bincount(group_of_row, weights=np.where(hit, hits_so_far / j, 0.0), minlength=len(starts))
    group_doc_key = group_key[starts]
    q_d = np.zeros(len(starts))
    if len(judged_docs):
        where = np.minimum(np.searchsorted(judged_docs, group_doc_key), len(judged_docs) - 1)
        q_d = np.where(judged_docs[where] == group_doc_key, judged_counts[where], 0).astype(np.float64)
    precision_doc = group_hits / sizes
    ap_doc = divide_or_zero(ap_sum, q_d)
    group_topic = group_doc_key // n_docs
    precision_sum = np.bincount(group_topic, weights=precision_doc, minlength=n_topics)
    ap_total = np.bincount(group_topic, weights=ap_doc, minlength=n_topics)
    return divide_or_zero(precision_sum, rel_count), divide_or_zero(ap_total, rel_count)


def precision_d(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Precision(D)(q) = (1/|RelRet(q)|) sum_{d in RelRet(q)} |{j : p_j in Q_d}| / m_d (0 if RelRet(q) is empty)."""
    return passage_scores(ranked, measure, context)[0]


def map_d(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """MAP(D)(q) = (1/|RelRet(q)|) sum_{d in RelRet(q)} AP(d),
    AP(d) = (1/|Q_d|) sum_{p_j in Q_d} |{p_1..p_j} ∩ Q_d| / j."""
    return passage_scores(ranked, measure, context)[1]


register(
    MeasureSpec("P_psg", "passage", "Precision(D): passage precision in the relevant documents retrieved (CLEF-IP)",
                "Precision(D) = mean_{d in RelRet} |{p_j in Q_d}| / m_d, 0 if RelRet is empty",
                REFERENCE, precision_d, (REL,), requires=RESOURCES, aliases=("PrecisionD",)),
    MeasureSpec("MAP_psg", "passage", "MAP(D): passage average precision in the relevant documents retrieved (CLEF-IP)",
                "MAP(D) = mean_{d in RelRet} (1/|Q_d|) sum_{p_j in Q_d} |{p_1..p_j} ∩ Q_d| / j, 0 if RelRet is empty",
                REFERENCE, map_d, (REL,), requires=RESOURCES, aliases=("MAPD",)),
)
