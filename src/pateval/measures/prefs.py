"""trec_eval's preference measures: how many of the users' document preferences a ranking keeps.

The preferences come from judgement groups (JG, one user's judgements of a topic) read by
:mod:`pateval.formats.prefs` (trec_eval ``-R prefs`` or ``-R qrels_prefs``) and given as the
side input ``preferences``. Within a judgement sub-group (JSG) a document of a higher level
is preferred to one of a lower level; a group of one sub-group prefers each level to every
lower one; the sub-groups of a group state a partial order, closed under transitivity (a
preference both ways is an error).

Only judged documents take part. Each is given a place: the judged documents retrieved in
ranking order first (score descending, equal scores in ascending docno order, as
trec_eval's preference code breaks ties), then the judged documents not retrieved. A
preference A > B is

- *fulfilled* when A is retrieved and placed above B (B retrieved lower, or not retrieved);
- *retrieved* when both are retrieved, *implied* when one is, *not occurring* when neither.

Per topic, with ful / poss the fulfilled / possible preferences:

- ``NumPrefs`` = poss (all), ``NumPrefsFul`` = ful (retrieved and implied), ``NumPrefsFulRet``
  = ful (retrieved): counts, summed over topics.
- ``PrefSimp`` = ful / poss over all preferences of every group; ``PrefSimpRet`` over the
  retrieved ones; ``PrefSimpImp`` over retrieved and implied.
- ``PrefPair``: the mean over document pairs preferred by some group of the share of the
  groups' preferences for the pair that the ranking keeps (pairs of which neither is
  retrieved count 0); ``PrefPairRet`` / ``PrefPairImp`` over retrieved / retrieved and
  implied pairs.
- ``PrefAvgJG`` = (1/#JG) sum_JG ful_JG / poss_JG (a group without preferences adds 0),
  ``PrefAvgJGRet``, ``PrefAvgJGImp`` likewise.
- ``PrefAvgJG_Rnonrel``: as PrefAvgJG with the number N of non-relevant documents
  (level <= 0) of each group set to its number R of relevant ones (level > 0): when R >= N,
  R - N non-relevant documents are added below everything (ful += R_ret (R - N), poss +=
  R (R - N)); when R < N only the first R non-relevant documents in place order stay.
  ``PrefAvgJG_RnonrelRet``: the same among the retrieved documents (R, N counting retrieved
  ones only).

A topic without preferences scores 0 (every ratio 0/0 is 0; the Rnonrel measures pad
relevant documents with non-relevant ones and may score above 0). As trec_eval, a PrefAvgJG
mean whose sum is not above 0 is 0, and a group of a Rnonrel measure whose ratio is 0/0
makes its topic 0. Two of trec_eval's quirks are kept, for its numbers: Rnonrel with R < N
in a one-sub-group group also pairs the kept non-relevant documents with the rest of the
lowest class (their own), and PrefAvgJG_RnonrelRet with R >= N adds R (R - N) possible
preferences with R counting every relevant document, retrieved or not. Where trec_eval
reads past the lowest class (R above its size, with levels below 0), pateval keeps the
class.

trec_eval's -M keeps each ranking's first documents in that same order (ties by ascending
docno) and its -J leaves them all, as ``compat="trec_eval"`` does; pateval's rules cut in the
evaluation's order (ties by descending docno) and drop unjudged documents, as for any measure.

Reference: C. Buckley, trec_eval 10.0 (NIST), form_prefs_counts.c and m_prefs_*.c.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .._lazy import lazy_module
from ..core.ranking import RankedTopics
from ..core.segments import (
    expand,
    place_in_runs,
    place_in_segments,
    run_lengths,
    run_starts,
    running_count,
    segment_of,
)
from ..errors import malformed
from .base import EvaluationContext, Measure, MeasureSpec, TrecEval, divide_or_zero
from .registry import register

pd = lazy_module("pandas")

__all__ = ["ascending_docno_ties"]

REFERENCE = "C. Buckley, trec_eval 10.0 (NIST), form_prefs_counts.c, m_prefs_*.c (-R prefs, -R qrels_prefs)"


@dataclass(frozen=True, eq=False)
class _Groups:
    """The preferences of one ranking, judgement group by judgement group (topic-major,
    groups in the byte order of their names within a topic).

    A group of one sub-group is kept as its documents in level classes (``row_*``: by group,
    level descending, place), its preferences counted class by class without listing them;
    a group of several sub-groups as its preferences, closed under transitivity, each a pair
    of places (``first`` preferred to ``second``)."""

    n_topics: int
    topic: np.ndarray  # (G,) each group's topic
    retrieved: np.ndarray  # (T,) judged documents retrieved, per topic
    one_class: np.ndarray  # (G,) the group has one sub-group
    # documents of each group: relevant (level > 0) or not, retrieved or not
    num_rel: np.ndarray
    num_rel_ret: np.ndarray
    num_nonrel: np.ndarray
    num_nonrel_ret: np.ndarray
    lowest_size: np.ndarray  # (G,) documents in the lowest class (one-sub-group groups)
    lowest_retrieved: np.ndarray  # (G,) retrieved documents in it
    # the documents of the one-sub-group groups
    row_group: np.ndarray
    row_class: np.ndarray  # global class number (classes of a group consecutive, highest level first)
    row_ordinal: np.ndarray  # the class's number within its group (0: highest level)
    row_rank: np.ndarray  # the document's place
    row_lowest: np.ndarray  # in its group's lowest class
    row_place_in_class: np.ndarray
    class_last: np.ndarray  # (C,) the last class of each class's group
    class_end: np.ndarray  # (C,) one past the class's last row
    # the preferences of the groups of several sub-groups
    pair_group: np.ndarray
    first: np.ndarray
    second: np.ndarray
    first_nonrel_place: np.ndarray  # the document's place among its group's non-relevant ones (-1: relevant)
    second_nonrel_place: np.ndarray

    def per_topic(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.topic, weights=values, minlength=self.n_topics).astype(np.float64)

    def per_group(self, mask: np.ndarray) -> np.ndarray:
        return np.bincount(self.pair_group[mask], minlength=len(self.topic)).astype(np.float64)

    @functools.cached_property
    def row_retrieved(self) -> np.ndarray:
        return self.row_rank < self.retrieved[self.topic[self.row_group]]

    @functools.cached_property
    def counts(self) -> dict[str, np.ndarray]:
        """Per group: fulfilled and possible preferences, retrieved (``ful_ret``,
        ``poss_ret``), implied (``ful_imp``, ``poss_imp``), not occurring (``none``)."""
        everywhere = np.ones(len(self.row_group), dtype=bool)
        counts = self.class_counts(everywhere, everywhere)
        njr = self.retrieved[self.topic[self.pair_group]]
        ret1, ret2 = self.first < njr, self.second < njr
        kept = ret1 & (self.first < self.second)
        both, one = ret1 & ret2, ret1 ^ ret2
        for name, mask in (("ful_ret", kept & both), ("poss_ret", both), ("ful_imp", kept & one),
                           ("poss_imp", one), ("none", ~(ret1 | ret2))):
            counts[name] += self.per_group(mask)
        return counts

    def class_counts(self, a: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
        """Per group, the preferences x > y of the one-sub-group groups with x a row where
        ``a``, y a row where ``b`` in a lower class of its group: fulfilled and possible,
        retrieved, implied, not occurring (as :attr:`counts`)."""
        n_groups, n_classes = len(self.topic), len(self.class_end)
        ret = self.row_retrieved

        def below(mask):  # per row: the rows where ``mask`` in lower classes of its group
            per_class = np.cumsum(np.bincount(self.row_class[mask], minlength=n_classes))
            return (per_class[self.class_last] - per_class)[self.row_class]

        def per_group(mask, weights):
            return np.bincount(self.row_group[mask], weights=weights[mask], minlength=n_groups).astype(np.float64)

        ret_below, unret_below = below(b & ret).astype(np.float64), below(b & ~ret).astype(np.float64)
        counts = {"poss_ret": per_group(a & ret, ret_below), "ful_imp": per_group(a & ret, unret_below),
                  "none": per_group(a & ~ret, unret_below)}
        counts["poss_imp"] = counts["ful_imp"] + per_group(a & ~ret, ret_below)
        # fulfilled among retrieved: x placed above y; for each class number j in turn, the
        # rows of lower classes after each x of class j, in place order within each group
        seq = np.flatnonzero(ret & (a | b))
        seq = seq[np.lexsort((self.row_rank[seq], self.row_group[seq]))]
        group, ordinal = self.row_group[seq], self.row_ordinal[seq]
        starts = run_starts(group)
        ends = np.r_[starts[1:], len(seq)] - 1
        lengths = run_lengths(starts, len(seq))
        ful = np.zeros(n_groups, dtype=np.float64)
        for j in range(int(ordinal.max()) if len(seq) else 0):
            later = b[seq] & (ordinal > j)
            so_far = running_count(later, starts)
            after = np.repeat(so_far[ends], lengths) - so_far
            x = a[seq] & (ordinal == j)
            ful += np.bincount(group[x], weights=after[x], minlength=n_groups)
        counts["ful_ret"] = ful
        return counts

    @functools.cached_property
    def pair_shares(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The document pairs of the topics of several groups that some group prefers, in
        trec_eval's order of adding them (by topic: both retrieved, one, neither; then by
        places): each pair's topic, kind (0, 1, 2: both, one, neither retrieved) and the share
        of its preferences kept (0 when neither is retrieved); and those topics (a mask)."""
        several = np.bincount(self.topic, minlength=self.n_topics) > 1
        pair_group, first, second = self.listed(several[self.topic])
        topic = self.topic[pair_group]
        low, high = np.minimum(first, second), np.maximum(first, second)
        njr = self.retrieved[topic]
        kind = np.where(high < njr, 0, np.where(low < njr, 1, 2))
        key = np.lexsort((high, low, kind, topic))
        topic, low, high, kind = topic[key], low[key], high[key], kind[key]
        start = run_starts(topic, low, high)
        total = run_lengths(start, len(key)).astype(np.float64)
        kept = np.add.reduceat((first < second)[key].astype(np.float64), start) if len(start) else total
        return topic[start], kind[start], np.where(kind[start] < 2, kept / total, 0.0), several

    def listed(self, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The preferences of ``groups`` (a mask over groups) as pairs: group, first, second."""
        rows = np.flatnonzero(groups[self.row_group])
        count = self.class_end[self.class_last[self.row_class[rows]]] - self.class_end[self.row_class[rows]]
        x = np.repeat(rows, count)
        y = expand(self.class_end[self.row_class[rows]], count)
        several = groups[self.pair_group]
        return (np.r_[self.row_group[x], self.pair_group[several]], np.r_[self.row_rank[x], self.first[several]],
                np.r_[self.row_rank[y], self.second[several]])


def _groups(ranked: RankedTopics, context: EvaluationContext, measure: Measure) -> _Groups:
    prefs = context.require("preferences", measure)
    return context.memo.get(("preference groups", prefs), lambda: _make_groups(ranked, prefs), ranking=ranked)


def _make_groups(ranked: RankedTopics, prefs) -> _Groups:
    n_topics = ranked.n_topics
    topic_ids = np.asarray(ranked.topic_ids).astype(str)
    topic = pd.Index(topic_ids).get_indexer(prefs.topic.astype(str))
    keep = np.flatnonzero(topic >= 0)
    topic = topic[keep].astype(np.int64)
    group, subgroup = prefs.group[keep].astype(str), prefs.subgroup[keep].astype(str)
    docno, level = prefs.docno[keep].astype(str), prefs.level[keep]

    place, retrieved = _places(ranked, topic, docno)

    # rows by topic, group, sub-group, level descending, place
    rows = np.lexsort((place, -level, subgroup, group, topic))
    topic, group, subgroup, level, docno = topic[rows], group[rows], subgroup[rows], level[rows], docno[rows]
    rank = place[rows]
    n = len(rows)
    group_start = run_starts(topic, group)
    n_groups = len(group_start)
    group_of = segment_of(np.r_[group_start, n])
    sub_start = run_starts(topic, group, subgroup)
    one_class = np.bincount(group_of[sub_start], minlength=n_groups) == 1
    ret = rank < retrieved[topic]

    # each group's documents once (a document may be in several sub-groups)
    by_rank = np.lexsort((rank, group_of))
    distinct = np.zeros(n, dtype=bool)
    distinct[by_rank[run_starts(group_of[by_rank], rank[by_rank])]] = True
    relevant = level > 0

    def tally(mask):
        return np.bincount(group_of[distinct & mask], minlength=n_groups).astype(np.float64)

    # the one-sub-group groups: their level classes
    single = np.flatnonzero(one_class[group_of])
    row_group, row_level, row_rank = group_of[single], level[single], rank[single]
    class_start = run_starts(row_group, row_level)
    row_class = segment_of(np.r_[class_start, len(single)])
    class_group = row_group[class_start]
    group_first_class = run_starts(class_group)
    classes_of_group = run_lengths(group_first_class, len(class_start))
    class_ordinal = np.arange(len(class_start)) - np.repeat(group_first_class, classes_of_group)
    last = classes_of_group + group_first_class - 1
    class_last = np.repeat(last, classes_of_group)
    class_end = np.r_[class_start[1:], len(single)]
    row_lowest = row_class == class_last[row_class]
    row_place_in_class = np.arange(len(single)) - class_start[row_class]
    lowest_size = np.zeros(n_groups)
    lowest_size[class_group[last]] = (class_end - class_start)[last]
    lowest_retrieved = np.bincount(row_group[row_lowest & ret[single]], minlength=n_groups).astype(np.float64)

    # the groups of several sub-groups: each document over every lower level of its
    # sub-group, closed under transitivity
    several = np.flatnonzero(~one_class)
    pair_group, first, second = np.zeros((3, 0), dtype=np.int64)
    if len(several):
        sub_end = np.repeat(np.r_[sub_start[1:], n], run_lengths(sub_start, n))
        level_start = run_starts(topic, group, subgroup, level)
        level_end = np.repeat(np.r_[level_start[1:], n], run_lengths(level_start, n))
        count = np.where(one_class[group_of], 0, sub_end - level_end)
        x, y = np.repeat(np.arange(n), count), expand(level_end, count)
        cut = np.searchsorted(group_of[x], several, side="left"), np.searchsorted(group_of[x], several, side="right")
        closed = [_closure(rank[x[i:j]], rank[y[i:j]], dict(zip(rank[x[i:j]], docno[x[i:j]], strict=True))
                           | dict(zip(rank[y[i:j]], docno[y[i:j]], strict=True)), prefs.source,
                           str(topic_ids[topic[group_start[g]]]), str(group[group_start[g]]))
                  for g, i, j in zip(several, *cut, strict=True)]
        pair_group = np.concatenate([np.full(len(c[0]), g) for g, c in zip(several, closed, strict=True)])
        first = np.concatenate([c[0] for c in closed])
        second = np.concatenate([c[1] for c in closed])

    # the place of each document of those groups among the group's non-relevant documents
    nonrel = np.flatnonzero(distinct & ~relevant & ~one_class[group_of])
    nonrel = nonrel[np.lexsort((rank[nonrel], group_of[nonrel]))]
    width = int(rank.max()) + 1 if n else 1
    nonrel_codes = group_of[nonrel] * width + rank[nonrel]
    nonrel_place = place_in_runs(group_of[nonrel])

    def nonrel_place_of(places):
        if not len(nonrel_codes):
            return np.full(len(places), -1, dtype=np.int64)
        codes = pair_group * width + places
        at = np.minimum(np.searchsorted(nonrel_codes, codes), len(nonrel_codes) - 1)
        return np.where(nonrel_codes[at] == codes, nonrel_place[at], -1)

    return _Groups(n_topics=n_topics, topic=topic[group_start], retrieved=retrieved, one_class=one_class,
                   num_rel=tally(relevant), num_rel_ret=tally(relevant & ret), num_nonrel=tally(~relevant),
                   num_nonrel_ret=tally(~relevant & ret), lowest_size=lowest_size, lowest_retrieved=lowest_retrieved,
                   row_group=row_group, row_class=row_class, row_ordinal=class_ordinal[row_class], row_rank=row_rank,
                   row_lowest=row_lowest, row_place_in_class=row_place_in_class, class_last=class_last,
                   class_end=class_end, pair_group=pair_group, first=first, second=second,
                   first_nonrel_place=nonrel_place_of(first), second_nonrel_place=nonrel_place_of(second))


def _places(ranked: RankedTopics, topic: np.ndarray, docno: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The place of the document of each judgement (``topic`` positions, ``docno``) among its
    topic's judged documents, and the judged documents retrieved per topic: the retrieved ones
    first, in ranking order with equal scores in ascending docno order, then the others in
    docno order."""
    # the judged documents of each topic, in docno order
    by_doc = np.lexsort((docno, topic))
    doc_start = run_starts(topic[by_doc], docno[by_doc])
    doc = np.empty(len(topic), dtype=np.int64)
    doc[by_doc] = segment_of(np.r_[doc_start, len(topic)])
    doc_topic, doc_docno = topic[by_doc][doc_start], docno[by_doc][doc_start]

    row_topic = ranked.row_topic
    row_doc = np.full(ranked.n_rows, -1, dtype=np.int64)
    if len(doc_topic) and ranked.n_rows:
        index = pd.MultiIndex.from_arrays([doc_topic, doc_docno])
        row_doc = index.get_indexer(pd.MultiIndex.from_arrays([row_topic, np.asarray(ranked.docno).astype(str)]))
    order = ascending_docno_ties(row_topic, np.asarray(ranked.score, dtype=np.float64))
    judged_rows = order[row_doc[order] >= 0]
    judged_topic = row_topic[judged_rows]
    retrieved = np.bincount(judged_topic, minlength=ranked.n_topics).astype(np.int64)
    place = np.full(len(doc_topic), -1, dtype=np.int64)
    place[row_doc[judged_rows]] = place_in_runs(judged_topic)
    missing = np.flatnonzero(place < 0)
    place[missing] = retrieved[doc_topic[missing]] + place_in_runs(doc_topic[missing])
    return place[doc], retrieved


def ascending_docno_ties(topic: np.ndarray, score: np.ndarray) -> np.ndarray:
    """The order of rows ranked by score with ties in descending docno order (trec_eval's
    ranking, pateval's) that puts the ties in ascending docno order instead (trec_eval's
    preference code): each run of equal scores of a topic read backwards.

    >>> ascending_docno_ties(np.array([0, 0, 0, 1]), np.array([2.0, 1.0, 1.0, 1.0])).tolist()
    [0, 2, 1, 3]
    """
    ties = run_starts(topic, score)
    lengths = run_lengths(ties, len(topic))
    return np.repeat(ties + lengths - 1, lengths) - place_in_segments(lengths)


def _closure(first: np.ndarray, second: np.ndarray, docnos: dict, source: str, topic: str, name: str):
    """The preferences of a group of several sub-groups, closed under transitivity: pairs of
    places (each once). Two documents each preferred to the other is an error."""
    docs, local = np.unique(np.r_[first, second], return_inverse=True)
    n = len(docs)
    reach = np.eye(n, dtype=bool)
    reach[local[: len(first)], local[len(first):]] = True
    while True:  # square the reachability matrix until it no longer grows
        step = reach.astype(np.float32)
        grown = (step @ step) > 0
        if np.array_equal(grown, reach):
            break
        reach = grown
    np.fill_diagonal(reach, False)
    both = np.argwhere(reach & reach.T)
    if len(both):
        one, other = str(docnos[docs[both[0, 0]]]), str(docnos[docs[both[0, 1]]])
        malformed(source, None, f"judgement group {name!r} of topic {topic!r} prefers {one!r} to {other!r} and "
                  f"{other!r} to {one!r} (through its sub-groups)")
    i, j = np.nonzero(reach)
    return docs[i], docs[j]


_FULFILLED = {"ret": "ful_ret", "imp": "ful_imp"}
_POSSIBLE = {"ret": "poss_ret", "imp": "poss_imp", "none": "none"}


def _total(counts: dict[str, np.ndarray], parts: tuple[str, ...], kind: dict[str, str]) -> np.ndarray:
    """The sum of the counts of ``parts`` (retrieved, implied, not occurring) of one kind."""
    return np.sum([counts[kind[p]] for p in parts if p in kind], axis=0)


def _simple(parts: tuple[str, ...]):
    def kernel(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
        groups = _groups(ranked, context, measure)
        return divide_or_zero(groups.per_topic(_total(groups.counts, parts, _FULFILLED)),
                              groups.per_topic(_total(groups.counts, parts, _POSSIBLE)))
    return kernel


def _per_group(parts: tuple[str, ...]):
    def kernel(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
        groups = _groups(ranked, context, measure)
        return _mean_over_groups(groups, divide_or_zero(_total(groups.counts, parts, _FULFILLED),
                                                        _total(groups.counts, parts, _POSSIBLE)))
    return kernel


def _mean_over_groups(groups: _Groups, ratio: np.ndarray) -> np.ndarray:
    """trec_eval's mean over a topic's groups: the sum over its number of groups, 0 unless
    the sum is above 0 (a NaN sum too)."""
    total = groups.per_topic(ratio)
    n = np.bincount(groups.topic, minlength=groups.n_topics)
    out = np.zeros(groups.n_topics, dtype=np.float64)
    np.divide(total, n, out=out, where=total > 0)
    return out


def _count(parts: tuple[str, ...], kind: dict[str, str]):
    def kernel(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
        groups = _groups(ranked, context, measure)
        return groups.per_topic(_total(groups.counts, parts, kind))
    return kernel


def _pairs(parts: tuple[str, ...]):
    """The mean over document pairs of the share of the groups' preferences for the pair kept."""
    kinds = [{"ret": 0, "imp": 1, "none": 2}[p] for p in parts]
    simple = _simple(parts)

    def kernel(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
        groups = _groups(ranked, context, measure)
        # a topic of one group prefers each pair once: the share is 1 or 0, the mean PrefSimp's
        out = simple(ranked, measure, context)
        topic, kind, share, several = groups.pair_shares
        wanted = np.isin(kind, kinds)
        sums = np.bincount(topic[wanted], weights=share[wanted], minlength=groups.n_topics)
        pairs = np.bincount(topic[wanted], minlength=groups.n_topics).astype(np.float64)
        out[several] = divide_or_zero(sums, pairs)[several]
        return out
    return kernel


def _rnonrel(retrieved_only: bool):
    """PrefAvgJG with the non-relevant documents of each group as many as its relevant ones."""

    def kernel(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
        g = _groups(ranked, context, measure)
        r, n = (g.num_rel_ret, g.num_nonrel_ret) if retrieved_only else (g.num_rel, g.num_nonrel)
        parts = _RET if retrieved_only else _ALL
        ful, poss = _total(g.counts, parts, _FULFILLED), _total(g.counts, parts, _POSSIBLE)
        padded_ful = ful + g.num_rel_ret * (r - n)
        padded_poss = poss + g.num_rel * (r - n)
        cut_ful, cut_poss = _fewer_nonrelevant(g, r, retrieved_only)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(r >= n, padded_ful / padded_poss, cut_ful / cut_poss)
        return _mean_over_groups(g, ratio)
    return kernel


def _fewer_nonrelevant(g: _Groups, r: np.ndarray, retrieved_only: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per group, the preferences counted again with only the first R non-relevant documents
    (trec_eval's recalculate in m_prefs_avgjg_Rnonrel*.c)."""
    # one sub-group: the lowest class cut to its first R documents, which are then also
    # paired with the whole class
    cut_lowest = ~g.row_lowest | (g.row_place_in_class < r[g.row_group])
    size, m = g.lowest_size, g.lowest_retrieved
    chosen = g.row_retrieved if retrieved_only else np.ones(len(g.row_group), dtype=bool)
    counts = g.class_counts(chosen, chosen & cut_lowest)
    parts = _RET if retrieved_only else _ALL
    ful, poss = _total(counts, parts, _FULFILLED), _total(counts, parts, _POSSIBLE)
    if retrieved_only:
        cut = np.minimum(np.minimum(r, size), m)
        extra_poss, extra_ful = m * cut, cut * (cut - 1) / 2
    else:
        cut = np.minimum(r, size)
        extra_poss = size * cut
        extra_ful = np.where(cut - 1 <= m, cut * (cut - 1) / 2, m * (m + 1) / 2 + m * (cut - 1 - m))
    ful = ful + np.where(g.one_class, extra_ful, 0)
    poss = poss + np.where(g.one_class, extra_poss, 0)
    # several sub-groups: the non-relevant documents after the first num_rel of them left out
    # (num_rel counting every relevant document, in both measures)
    group = g.pair_group
    njr = g.retrieved[g.topic[group]]
    limit = g.num_rel[group]
    kept = (g.first_nonrel_place < limit) & (g.second_nonrel_place < limit)  # -1: relevant
    before = g.first < g.second
    if retrieved_only:
        kept &= (g.first < njr) & (g.second < njr)
        ful = ful + g.per_group(kept & before)
    else:
        ful = ful + g.per_group(kept & before & (g.first < njr))
    return ful, poss + g.per_group(kept)


_NEEDS = frozenset({"preferences"})
_ALL, _RET, _IMP = ("ret", "imp", "none"), ("ret",), ("ret", "imp")
# name, summary, formula, kernel, trec_eval's name; the counts (Num*) are summed over topics
for _name, _summary, _formula, _kernel, _alias in (
    ("NumPrefs", "preferences stated by the judgement groups (trec_eval, summed)",
     "poss = the preferences of every group", _count(_ALL, _POSSIBLE), "prefs_num_prefs_poss"),
    ("NumPrefsFul", "preferences fulfilled, retrieved or implied (trec_eval, summed)",
     "ful = preferences A > B with A retrieved above B or B not retrieved", _count(_IMP, _FULFILLED),
     "prefs_num_prefs_ful"),
    ("NumPrefsFulRet", "preferences fulfilled among retrieved documents (summed)",
     "ful_ret = preferences A > B with both retrieved, A above B", _count(_RET, _FULFILLED),
     "prefs_num_prefs_ful_ret"),
    ("PrefSimp", "share of all preferences fulfilled", "sum_JG ful / sum_JG poss", _simple(_ALL), "prefs_simp"),
    ("PrefSimpRet", "share of the preferences among retrieved documents fulfilled",
     "sum_JG ful_ret / sum_JG poss_ret", _simple(_RET), "prefs_simp_ret"),
    ("PrefSimpImp", "share of the preferences with a document retrieved fulfilled",
     "sum_JG (ful_ret + ful_imp) / sum_JG (poss_ret + poss_imp)", _simple(_IMP), "prefs_simp_imp"),
    ("PrefPair", "mean over preferred document pairs of the share of preferences kept",
     "mean_{pairs} |groups' preferences for the pair kept| / |groups' preferences for the pair|", _pairs(_ALL),
     "prefs_pair"),
    ("PrefPairRet", "PrefPair over pairs of retrieved documents", "mean_{pairs, both retrieved} kept / preferences",
     _pairs(_RET), "prefs_pair_ret"),
    ("PrefPairImp", "PrefPair over pairs with a document retrieved",
     "mean_{pairs, one or both retrieved} kept / preferences", _pairs(_IMP), "prefs_pair_imp"),
    ("PrefAvgJG", "share of preferences fulfilled, averaged over judgement groups", "(1/#JG) sum_JG ful_JG / poss_JG",
     _per_group(_ALL), "prefs_avgjg"),
    ("PrefAvgJGRet", "PrefAvgJG among retrieved documents", "(1/#JG) sum_JG ful_ret / poss_ret", _per_group(_RET),
     "prefs_avgjg_ret"),
    ("PrefAvgJGImp", "PrefAvgJG over preferences with a document retrieved",
     "(1/#JG) sum_JG (ful_ret + ful_imp) / (poss_ret + poss_imp)", _per_group(_IMP), "prefs_avgjg_imp"),
    ("PrefAvgJG_Rnonrel", "PrefAvgJG with as many non-relevant documents as relevant",
     "(1/#JG) sum_JG ful / poss, non-relevant documents cut or padded to R per group", _rnonrel(False),
     "prefs_avgjg_Rnonrel"),
    ("PrefAvgJG_RnonrelRet", "PrefAvgJG_Rnonrel among retrieved documents",
     "(1/#JG) sum_JG ful_ret / poss_ret, retrieved non-relevant documents cut or padded to R_ret", _rnonrel(True),
     "prefs_avgjg_Rnonrel_ret"),
):
    _counts = _name.startswith("Num")
    register(MeasureSpec(_name, "preferences", _summary, _formula, REFERENCE, _kernel,
                         aggregate="sum" if _counts else "mean", integer=_counts, requires=_NEEDS,
                         trec_eval=TrecEval(_alias)))
