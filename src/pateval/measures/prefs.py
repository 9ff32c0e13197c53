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

A topic without preferences scores 0 (every ratio 0/0 is 0). As trec_eval, a PrefAvgJG
mean whose sum is not above 0 is 0, and a group of a Rnonrel measure whose ratio is 0/0
makes its topic 0. Two of trec_eval's quirks are kept, for its numbers: Rnonrel with R < N
in a one-sub-group group also pairs the kept non-relevant documents with the rest of the
lowest class (their own), and PrefAvgJG_RnonrelRet with R >= N adds R (R - N) possible
preferences with R counting every relevant document, retrieved or not. Where trec_eval
reads past the lowest class (R above its size, with levels below 0), pateval keeps the
class.

Reference: C. Buckley, trec_eval 10.0 (NIST), form_prefs_counts.c and m_prefs_*.c.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._lazy import lazy_module
from ..core.ranking import RankedTopics
from ..core.segments import expand, place_in_runs, place_in_segments, run_lengths
from ..errors import malformed
from .base import EvaluationContext, Measure, MeasureSpec, divide_or_zero
from .registry import register

pd = lazy_module("pandas")

__all__ = ["preference_counts", "ascending_docno_ties"]

REFERENCE = "C. Buckley, trec_eval 10.0 (NIST), form_prefs_counts.c, m_prefs_*.c (-R prefs, -R qrels_prefs)"


@dataclass(frozen=True, eq=False)
class _Groups:
    """The preferences of one ranking, judgement group by judgement group (topic-major,
    groups in the byte order of their names within a topic), and every preference as a
    pair of places (``first`` preferred to ``second``) with its group."""

    n_topics: int
    topic: np.ndarray  # (G,) each group's topic
    retrieved: np.ndarray  # (T,) judged documents retrieved, per topic
    pair_group: np.ndarray
    first: np.ndarray
    second: np.ndarray
    one_class: np.ndarray  # (G,) the group has one sub-group: its levels are classes
    # documents of each group: relevant (level > 0) or not, retrieved or not
    num_rel: np.ndarray
    num_rel_ret: np.ndarray
    num_nonrel: np.ndarray
    num_nonrel_ret: np.ndarray
    # where the second document of a pair is in the lowest class of its group (one-class groups)
    second_in_lowest: np.ndarray
    second_place_in_class: np.ndarray
    lowest_size: np.ndarray  # (G,) documents in the lowest class
    lowest_retrieved: np.ndarray  # (G,) retrieved documents in it
    # the place of each document among its group's non-relevant documents (-1: relevant)
    first_nonrel_place: np.ndarray
    second_nonrel_place: np.ndarray

    def per_topic(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.topic, weights=values, minlength=self.n_topics)

    def per_group(self, mask: np.ndarray) -> np.ndarray:
        return np.bincount(self.pair_group[mask], minlength=len(self.topic)).astype(np.float64)

    def counts(self) -> dict[str, np.ndarray]:
        """Per group: fulfilled and possible preferences, retrieved, implied, not occurring."""
        njr = self.retrieved[self.topic[self.pair_group]]
        ret1, ret2 = self.first < njr, self.second < njr
        kept = ret1 & (self.first < self.second)
        both, one = ret1 & ret2, ret1 ^ ret2
        return {"ful_ret": self.per_group(kept & both), "poss_ret": self.per_group(both),
                "ful_imp": self.per_group(kept & one), "poss_imp": self.per_group(one),
                "none": self.per_group(~(ret1 | ret2))}


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

    # the judged documents of each topic, in docno order
    by_doc = np.lexsort((docno, topic))
    new = np.r_[True, (topic[by_doc][1:] != topic[by_doc][:-1]) | (docno[by_doc][1:] != docno[by_doc][:-1])]
    doc = np.empty(len(keep), dtype=np.int64)
    doc[by_doc] = np.cumsum(new) - 1
    doc_topic, doc_docno = topic[by_doc][new], docno[by_doc][new]

    # the retrieved ones, in ranking order with equal scores in ascending docno order: the
    # ranking breaks ties by descending docno, so each run of equal scores is read backwards
    row_topic = ranked.row_topic
    row_doc = np.full(ranked.n_rows, -1, dtype=np.int64)
    if len(doc_topic) and ranked.n_rows:
        index = pd.MultiIndex.from_arrays([doc_topic, doc_docno])
        row_doc = index.get_indexer(pd.MultiIndex.from_arrays([row_topic, np.asarray(ranked.docno).astype(str)]))
    order = ascending_docno_ties(row_topic, np.asarray(ranked.score, dtype=np.float64))
    judged_rows = order[row_doc[order] >= 0]
    judged_topic = row_topic[judged_rows]
    retrieved = np.bincount(judged_topic, minlength=n_topics).astype(np.int64)
    place = np.full(len(doc_topic), -1, dtype=np.int64)
    place[row_doc[judged_rows]] = place_in_runs(judged_topic)
    missing = np.flatnonzero(place < 0)  # judged, not retrieved: after the retrieved, in docno order
    place[missing] = retrieved[doc_topic[missing]] + place_in_runs(doc_topic[missing])
    rank = place[doc]

    # judgement groups, sub-groups and level classes: rows by topic, group, sub-group, level
    # descending, place
    rows = np.lexsort((rank, -level, subgroup, group, topic))
    topic, group, subgroup, level, rank = topic[rows], group[rows], subgroup[rows], level[rows], rank[rows]
    docno_sorted = docno[rows]
    group_start = _runs(topic, group)
    n_groups = len(group_start)
    group_of = np.repeat(np.arange(n_groups), run_lengths(group_start, len(rows)))
    sub_start = _runs(topic, group, subgroup)
    class_start = _runs(topic, group, subgroup, level)
    subgroups = np.bincount(group_of[sub_start], minlength=n_groups)
    one_class = subgroups == 1

    # the stated preferences: each document over every lower level of its sub-group
    sub_end = np.repeat(np.r_[sub_start[1:], len(rows)], run_lengths(sub_start, len(rows)))
    class_end = np.repeat(np.r_[class_start[1:], len(rows)], run_lengths(class_start, len(rows)))
    count = sub_end - class_end
    a = np.repeat(np.arange(len(rows)), count)
    b = expand(class_end, count)
    stated = one_class[group_of[a]]
    pair_group, first, second = group_of[a[stated]], rank[a[stated]], rank[b[stated]]
    class_of = np.repeat(np.arange(len(class_start)), run_lengths(class_start, len(rows)))
    class_place = np.arange(len(rows)) - class_start[class_of]
    lowest_class = np.r_[class_of[group_start[1:] - 1], class_of[-1]] if n_groups else np.zeros(0, np.int64)
    second_in_lowest = class_of[b[stated]] == lowest_class[pair_group]
    second_place_in_class = class_place[b[stated]]
    lowest_size = np.bincount(class_of, minlength=len(class_start))[lowest_class]
    njr_row = retrieved[topic]
    lowest_retrieved = np.bincount(class_of[rank < njr_row], minlength=len(class_start))[lowest_class]

    # groups of several sub-groups: the transitive closure of their preferences
    several = np.flatnonzero(~one_class)
    if len(several):
        a, b = a[~stated], b[~stated]
        cut = np.searchsorted(group_of[a], several, side="left"), np.searchsorted(group_of[a], several, side="right")
        closed = [_closure(rank[a[i:j]], rank[b[i:j]], dict(zip(rank[a[i:j]], docno_sorted[a[i:j]], strict=True))
                           | dict(zip(rank[b[i:j]], docno_sorted[b[i:j]], strict=True)), prefs.source,
                           str(topic_ids[topic[group_start[g]]]), group[group_start[g]])
                  for g, i, j in zip(several, *cut, strict=True)]
        pad = sum(len(c[0]) for c in closed)
        pair_group = np.concatenate([pair_group, *[np.full(len(c[0]), g) for g, c in
                                                   zip(several, closed, strict=True)]])
        first = np.concatenate([first, *[c[0] for c in closed]])
        second = np.concatenate([second, *[c[1] for c in closed]])
        second_in_lowest = np.r_[second_in_lowest, np.zeros(pad, dtype=bool)]
        second_place_in_class = np.r_[second_place_in_class, np.zeros(pad, dtype=np.int64)]

    # each group's documents (once each, whatever its sub-groups): relevant or not, retrieved or not
    by_rank = np.lexsort((rank, group_of))
    seen = np.r_[True, (group_of[by_rank][1:] != group_of[by_rank][:-1]) | (rank[by_rank][1:] != rank[by_rank][:-1])]
    distinct = np.zeros(len(rows), dtype=bool)
    distinct[by_rank[seen[: len(rows)]]] = True
    relevant, ret = level > 0, rank < njr_row
    g_distinct = group_of[distinct]

    def tally(mask):
        return np.bincount(g_distinct[mask[distinct]], minlength=n_groups).astype(np.float64)

    # each group's non-relevant documents in place order (for Rnonrel's first R of them)
    nonrel_key = np.flatnonzero(distinct & ~relevant)
    nonrel_key = nonrel_key[np.lexsort((rank[nonrel_key], group_of[nonrel_key]))]
    width = int(rank.max()) + 1 if len(rank) else 1
    nonrel_codes = group_of[nonrel_key] * width + rank[nonrel_key]
    nonrel_place = place_in_runs(group_of[nonrel_key])

    def nonrel_place_of(places):
        if not len(nonrel_codes):
            return np.full(len(places), -1, dtype=np.int64)
        codes = pair_group * width + places
        at = np.minimum(np.searchsorted(nonrel_codes, codes), len(nonrel_codes) - 1)
        return np.where(nonrel_codes[at] == codes, nonrel_place[at], -1)

    return _Groups(n_topics=n_topics, topic=topic[group_start], retrieved=retrieved, pair_group=pair_group,
                   first=first, second=second, one_class=one_class, num_rel=tally(relevant),
                   num_rel_ret=tally(relevant & ret), num_nonrel=tally(~relevant),
                   num_nonrel_ret=tally(~relevant & ret),
                   second_in_lowest=second_in_lowest, second_place_in_class=second_place_in_class,
                   lowest_size=lowest_size.astype(np.float64), lowest_retrieved=lowest_retrieved.astype(np.float64),
                   first_nonrel_place=nonrel_place_of(first), second_nonrel_place=nonrel_place_of(second))


def ascending_docno_ties(topic: np.ndarray, score: np.ndarray) -> np.ndarray:
    """The order of rows ranked by score with ties in descending docno order (trec_eval's
    ranking, pateval's) that puts the ties in ascending docno order instead (trec_eval's
    preference code): each run of equal scores of a topic read backwards.

    >>> ascending_docno_ties(np.array([0, 0, 0, 1]), np.array([2.0, 1.0, 1.0, 1.0])).tolist()
    [0, 2, 1, 3]
    """
    ties = _runs(topic, score)
    lengths = run_lengths(ties, len(topic))
    return np.repeat(ties + lengths - 1, lengths) - place_in_segments(lengths)


def _runs(*columns: np.ndarray) -> np.ndarray:
    """Where each run of equal values of all ``columns`` (rows sorted by them) begins."""
    n = len(columns[0])
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for column in columns:
        change[1:] |= column[1:] != column[:-1]
    return np.flatnonzero(change)


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
        one, other = docnos[docs[both[0, 0]]], docnos[docs[both[0, 1]]]
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
        counts = groups.counts()
        return divide_or_zero(groups.per_topic(_total(counts, parts, _FULFILLED)),
                              groups.per_topic(_total(counts, parts, _POSSIBLE)))
    return kernel


def _per_group(parts: tuple[str, ...]):
    def kernel(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
        groups = _groups(ranked, context, measure)
        counts = groups.counts()
        return _mean_over_groups(groups, divide_or_zero(_total(counts, parts, _FULFILLED),
                                                        _total(counts, parts, _POSSIBLE)))
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
        return groups.per_topic(_total(groups.counts(), parts, kind))
    return kernel


def _pairs(parts: tuple[str, ...]):
    """The mean over document pairs of the share of the groups' preferences for the pair kept."""

    def kernel(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
        groups = _groups(ranked, context, measure)
        topic = groups.topic[groups.pair_group]
        low, high = np.minimum(groups.first, groups.second), np.maximum(groups.first, groups.second)
        njr = groups.retrieved[topic]
        kind = np.where(high < njr, 0, np.where(low < njr, 1, 2))  # both, one, neither retrieved
        key = np.lexsort((high, low, kind, topic))
        topic, low, high, kind = topic[key], low[key], high[key], kind[key]
        kept = (groups.first < groups.second)[key]
        start = _runs(topic, low, high)
        total = run_lengths(start, len(key)).astype(np.float64)
        fulfilled = np.add.reduceat(kept.astype(np.float64), start) if len(start) else total
        wanted = np.isin(kind[start], [{"ret": 0, "imp": 1, "none": 2}[p] for p in parts])
        share = np.where(kind[start] < 2, fulfilled / np.where(total > 0, total, 1), 0.0)
        t = topic[start][wanted]
        sums = np.bincount(t, weights=share[wanted], minlength=groups.n_topics)
        return divide_or_zero(sums, np.bincount(t, minlength=groups.n_topics).astype(np.float64))
    return kernel


def _rnonrel(retrieved_only: bool):
    """PrefAvgJG with the non-relevant documents of each group as many as its relevant ones."""

    def kernel(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
        g = _groups(ranked, context, measure)
        counts = g.counts()
        if retrieved_only:
            r, n = g.num_rel_ret, g.num_nonrel_ret
            ful, poss = counts["ful_ret"], counts["poss_ret"]
        else:
            r, n = g.num_rel, g.num_nonrel
            ful = counts["ful_ret"] + counts["ful_imp"]
            poss = counts["poss_ret"] + counts["poss_imp"] + counts["none"]
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
    group = g.pair_group
    njr = g.retrieved[g.topic[group]]
    one = g.one_class[group]
    # one sub-group: the lowest class cut to its first K documents, K = R (the class's first
    # K ones then also paired with the whole class); several: the non-relevant documents
    # after the first num_rel of them left out
    k = r if retrieved_only else g.num_rel
    kept = np.where(one, ~g.second_in_lowest | (g.second_place_in_class < k[group]),
                    ((g.first_nonrel_place < 0) | (g.first_nonrel_place < g.num_rel[group]))
                    & ((g.second_nonrel_place < 0) | (g.second_nonrel_place < g.num_rel[group])))
    before = g.first < g.second
    if retrieved_only:
        kept &= (g.first < njr) & (g.second < njr)
        ful = g.per_group(kept & before)
    else:
        ful = g.per_group(kept & before & (g.first < njr))
    poss = g.per_group(kept)
    # the lowest class with its own first K documents (one-sub-group groups)
    size = g.lowest_size
    m = g.lowest_retrieved
    if retrieved_only:
        cut = np.minimum(np.minimum(k, size), m)
        extra_poss, extra_ful = m * cut, cut * (cut - 1) / 2
    else:
        cut = np.minimum(k, size)
        extra_poss = size * cut
        extra_ful = np.where(cut - 1 <= m, cut * (cut - 1) / 2, m * (m + 1) / 2 + m * (cut - 1 - m))
    ful = ful + np.where(g.one_class, extra_ful, 0)
    poss = poss + np.where(g.one_class, extra_poss, 0)
    return ful, poss


def preference_counts(ranked: RankedTopics, context: EvaluationContext, measure: Measure) -> dict[str, np.ndarray]:
    """Per topic: fulfilled and possible preferences, retrieved (``ful_ret``, ``poss_ret``),
    implied (``ful_imp``, ``poss_imp``) and not occurring (``none``)."""
    groups = _groups(ranked, context, measure)
    return {name: groups.per_topic(values) for name, values in groups.counts().items()}


_NEEDS = frozenset({"preferences"})
_ALL, _RET, _IMP = ("ret", "imp", "none"), ("ret",), ("ret", "imp")
for _spec in (
    MeasureSpec("NumPrefs", "preferences", "preferences stated by the judgement groups (trec_eval, summed)",
                "poss = the preferences of every group", REFERENCE, _count(_ALL, _POSSIBLE), aggregate="sum",
                integer=True, requires=_NEEDS, aliases=("prefs_num_prefs_poss",)),
    MeasureSpec("NumPrefsFul", "preferences", "preferences fulfilled, retrieved or implied (trec_eval, summed)",
                "ful = preferences A > B with A retrieved above B or B not retrieved", REFERENCE,
                _count(_IMP, _FULFILLED), aggregate="sum", integer=True, requires=_NEEDS,
                aliases=("prefs_num_prefs_ful",)),
    MeasureSpec("NumPrefsFulRet", "preferences", "preferences fulfilled among retrieved documents (summed)",
                "ful_ret = preferences A > B with both retrieved, A above B", REFERENCE, _count(_RET, _FULFILLED),
                aggregate="sum", integer=True, requires=_NEEDS, aliases=("prefs_num_prefs_ful_ret",)),
    MeasureSpec("PrefSimp", "preferences", "share of all preferences fulfilled",
                "sum_JG ful / sum_JG poss", REFERENCE, _simple(_ALL), requires=_NEEDS, aliases=("prefs_simp",)),
    MeasureSpec("PrefSimpRet", "preferences", "share of the preferences among retrieved documents fulfilled",
                "sum_JG ful_ret / sum_JG poss_ret", REFERENCE, _simple(_RET), requires=_NEEDS,
                aliases=("prefs_simp_ret",)),
    MeasureSpec("PrefSimpImp", "preferences", "share of the preferences with a document retrieved fulfilled",
                "sum_JG (ful_ret + ful_imp) / sum_JG (poss_ret + poss_imp)", REFERENCE, _simple(_IMP),
                requires=_NEEDS, aliases=("prefs_simp_imp",)),
    MeasureSpec("PrefPair", "preferences", "mean over preferred document pairs of the share of preferences kept",
                "mean_{pairs} |groups' preferences for the pair kept| / |groups' preferences for the pair|",
                REFERENCE, _pairs(_ALL), requires=_NEEDS, aliases=("prefs_pair",)),
    MeasureSpec("PrefPairRet", "preferences", "PrefPair over pairs of retrieved documents",
                "mean_{pairs, both retrieved} kept / preferences", REFERENCE, _pairs(_RET), requires=_NEEDS,
                aliases=("prefs_pair_ret",)),
    MeasureSpec("PrefPairImp", "preferences", "PrefPair over pairs with a document retrieved",
                "mean_{pairs, one or both retrieved} kept / preferences", REFERENCE, _pairs(_IMP),
                requires=_NEEDS, aliases=("prefs_pair_imp",)),
    MeasureSpec("PrefAvgJG", "preferences", "share of preferences fulfilled, averaged over judgement groups",
                "(1/#JG) sum_JG ful_JG / poss_JG", REFERENCE, _per_group(_ALL), requires=_NEEDS,
                aliases=("prefs_avgjg",)),
    MeasureSpec("PrefAvgJGRet", "preferences", "PrefAvgJG among retrieved documents",
                "(1/#JG) sum_JG ful_ret / poss_ret", REFERENCE, _per_group(_RET), requires=_NEEDS,
                aliases=("prefs_avgjg_ret",)),
    MeasureSpec("PrefAvgJGImp", "preferences", "PrefAvgJG over preferences with a document retrieved",
                "(1/#JG) sum_JG (ful_ret + ful_imp) / (poss_ret + poss_imp)", REFERENCE, _per_group(_IMP),
                requires=_NEEDS, aliases=("prefs_avgjg_imp",)),
    MeasureSpec("PrefAvgJG_Rnonrel", "preferences", "PrefAvgJG with as many non-relevant documents as relevant",
                "(1/#JG) sum_JG ful / poss, non-relevant documents cut or padded to R per group", REFERENCE,
                _rnonrel(False), requires=_NEEDS, aliases=("prefs_avgjg_Rnonrel",)),
    MeasureSpec("PrefAvgJG_RnonrelRet", "preferences", "PrefAvgJG_Rnonrel among retrieved documents",
                "(1/#JG) sum_JG ful_ret / poss_ret, retrieved non-relevant documents cut or padded to R_ret",
                REFERENCE, _rnonrel(True), requires=_NEEDS, aliases=("prefs_avgjg_Rnonrel_ret",)),
):
    register(_spec)
