"""Measures averaged over judgement groups: trec_eval's ``map_avgjg``, ``P_avgjg`` and
``Rprec_mult_avgjg`` (``-R qrels_jg``).

The side input ``judgement_groups`` (:func:`pateval.formats.prefs.read_qrels_jg`) holds
several sets of judgements of a topic, one per judgement group (JG, e.g. one per user). Each
measure is computed against each group's judgements alone, then averaged over the topic's
groups:

- ``AP_avgJG`` = (1/#JG) sum_JG AP_JG, AP_JG = (1/R_JG) sum_{relevant d retrieved}
  |relevant in top rank(d)| / rank(d), R_JG the documents the group judges relevant
  (grade >= rel);
- ``P_avgJG@k`` = (1/#JG) sum_JG |relevant to the group in the top k| / k;
- ``Rprec_mult_avgJG(mult=x)`` = (1/#JG) sum_JG |relevant in the top c| / c, c =
  floor(x R_JG + 0.9) (0 when c = 0).

The ranking is the run's (score descending, ties by descending docno); with
``judged_only`` (trec_eval -J) each group's ranking keeps only the documents that group
judges (grade >= 0). A topic without groups scores 0.

Reference: C. Buckley, trec_eval 10.0 (NIST), form_res_rels_jg.c, m_map_avgjg.c, m_P_avgjg.c,
m_Rprec_mult_avgjg.c.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .._lazy import lazy_module
from ..core.ranking import RankedTopics
from ..core.segments import expand, offsets, place_in_runs, run_starts, segment_of
from .base import EvaluationContext, Measure, MeasureSpec, TrecEval, divide_or_zero
from .interpolated import MULT, R_MULTIPLES
from .registry import register
from .relevance import REL

pd = lazy_module("pandas")

__all__ = ["group_rankings"]

REFERENCE = "C. Buckley, trec_eval 10.0 (NIST), form_res_rels_jg.c, m_{map,P,Rprec_mult}_avgjg.c (-R qrels_jg)"


@dataclass(frozen=True, eq=False)
class GroupRankings:
    """The ranking as each judgement group sees it: one entry per (group, retrieved row), in
    ranking order within each group (groups topic-major, in the byte order of their names)."""

    n_topics: int
    topic: np.ndarray  # (G,) each group's topic
    num_rel: np.ndarray  # (G,) documents the group judges relevant
    group: np.ndarray  # (E,) each entry's group
    position: np.ndarray  # (E,) its 1-based rank in the group's ranking
    relevant: np.ndarray  # (E,) bool

    def mean_over_groups(self, per_group: np.ndarray) -> np.ndarray:
        """trec_eval's average: the sum over a topic's groups, divided by their number."""
        total = np.bincount(self.topic, weights=per_group, minlength=self.n_topics).astype(np.float64)
        n = np.bincount(self.topic, minlength=self.n_topics).astype(np.float64)
        return np.where(n > 1, total / np.maximum(n, 1), total)

    def relevant_within(self, depth: np.ndarray) -> np.ndarray:
        """Per group: relevant entries ranked at or above ``depth`` (a depth per group)."""
        within = self.relevant & (self.position <= depth[self.group])
        return np.bincount(self.group[within], minlength=len(self.topic)).astype(np.float64)


def group_rankings(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> GroupRankings:
    """The run's ranking against each judgement group (see :class:`GroupRankings`)."""
    groups = context.require("judgement_groups", measure)
    key = ("group rankings", groups, measure["rel"], measure.judged_only)
    return context.memo.get(key, lambda: _make(ranked, groups, measure["rel"], measure.judged_only), ranking=ranked)


def _make(ranked: RankedTopics, groups, level: int, judged_only: bool) -> GroupRankings:
    topic = pd.Index(np.asarray(ranked.topic_ids).astype(str)).get_indexer(groups.topic.astype(str))
    keep = np.flatnonzero(topic >= 0)
    topic, name = topic[keep].astype(np.int64), groups.group[keep].astype(str)
    docno, grade = groups.docno[keep].astype(str), groups.level[keep]
    rows = np.lexsort((name, topic))
    topic, name, docno, grade = topic[rows], name[rows], docno[rows], grade[rows]
    group_start = run_starts(topic, name)
    group_of = segment_of(np.r_[group_start, len(rows)])
    group_topic = topic[group_start]
    n_groups = len(group_topic)
    num_rel = np.bincount(group_of[grade >= level], minlength=n_groups).astype(np.float64)

    # every group's view of its topic's ranking: the grade it gives each retrieved row
    counts = np.diff(ranked.ptr)[group_topic]
    entry_group = segment_of(offsets(counts))
    entry_row = expand(ranked.ptr[group_topic], counts)
    found = np.full(len(entry_row), -1, dtype=np.int64)
    if len(entry_row):
        index = pd.MultiIndex.from_arrays([group_of, docno])
        entry_docno = np.asarray(ranked.docno)[entry_row].astype(str)
        found = index.get_indexer(pd.MultiIndex.from_arrays([entry_group, entry_docno]))
    entry_grade = np.where(found >= 0, grade[np.maximum(found, 0)] if len(grade) else -1.0, -1.0)
    if judged_only:  # each group's ranking without the documents it does not judge
        judged = np.flatnonzero(entry_grade >= 0)
        entry_group, entry_grade = entry_group[judged], entry_grade[judged]
    return GroupRankings(n_topics=ranked.n_topics, topic=group_topic, num_rel=num_rel, group=entry_group,
                         position=place_in_runs(entry_group) + 1, relevant=entry_grade >= level)


def average_precision_over_groups(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """AP_avgJG = (1/#JG) sum_JG (1/R_JG) sum_{relevant d} |relevant in top rank(d)| / rank(d)."""
    g = group_rankings(ranked, measure, context)
    hits = np.flatnonzero(g.relevant)
    group = g.group[hits]
    so_far = place_in_runs(group) + 1  # the group's relevant entries up to this one
    precision_sum = np.bincount(group, weights=so_far / g.position[hits], minlength=len(g.topic)).astype(np.float64)
    return g.mean_over_groups(divide_or_zero(precision_sum, g.num_rel))


def precision_over_groups(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """P_avgJG@k = (1/#JG) sum_JG |relevant in top k| / k."""
    g = group_rankings(ranked, measure, context)
    k = float(measure.cutoff or 0)
    return g.mean_over_groups(g.relevant_within(np.full(len(g.topic), k)) / k)


def r_multiple_precision_over_groups(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Rprec_mult_avgJG(mult=x) = (1/#JG) sum_JG |relevant in top c| / c, c = floor(x R_JG + 0.9)."""
    g = group_rankings(ranked, measure, context)
    c = np.floor(measure["mult"] * g.num_rel + 0.9)
    return g.mean_over_groups(divide_or_zero(g.relevant_within(c), c))


_NEEDS = frozenset({"judgement_groups"})
register(
    MeasureSpec("AP_avgJG", "judgement_groups", "average precision, averaged over judgement groups",
                "(1/#JG) sum_JG AP against the group's judgements", REFERENCE, average_precision_over_groups,
                (REL,), requires=_NEEDS, trec_eval=TrecEval("map_avgjg")),
    MeasureSpec("P_avgJG", "judgement_groups", "precision at k, averaged over judgement groups",
                "(1/#JG) sum_JG |relevant to the group in top k| / k", REFERENCE, precision_over_groups, (REL,),
                cutoff="required", requires=_NEEDS, trec_eval=TrecEval(cut="P_avgjg")),
    MeasureSpec("Rprec_mult_avgJG", "judgement_groups", "precision at a multiple of R, averaged over judgement groups",
                "(1/#JG) sum_JG |relevant in top c| / c, c = floor(x R_JG + 0.9)", REFERENCE,
                r_multiple_precision_over_groups, (MULT, REL), requires=_NEEDS, aliases=(),  # read case-folded
                trec_eval=replace(R_MULTIPLES, name="Rprec_mult_avgjg")),
)
