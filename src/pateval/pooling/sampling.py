"""Stratified samples of a pool, and the estimates that read them (xinfAP, infNDCG).

:func:`sample_pool` stratifies each topic's pool by place in the judging order (strata by
depth, ``1-10:1,11-100:0.2,101-:0.05``) and draws a simple random sample of each stratum at
its rate (at least one document of a stratum that has any): a document's inclusion
probability is its stratum's drawn / pooled. With judgements at hand it writes
``sample_eval.pl``'s sampled qrels (``topic 0 docno stratum grade``, -1 for a pooled document
not drawn).

:func:`estimate` computes, per run and topic, the estimates of ``sample_eval.pl`` (NIST, the
xinfAP family of Yilmaz, Kanoulas and Aslam, SIGIR 2008) from sampled qrels: with strata c,
N_c pooled and n_c drawn documents of which r_c relevant (grade > 0),

- ``inum_rel`` = sum_c r_c N_c / n_c, the estimated number of relevant documents;
- ``xinfAP`` = sum_c (r_c N_c / n_c) / inum_rel * (mean over the drawn relevant documents of
  stratum c retrieved of their estimated precision), the precision at a relevant document at
  rank k being 1/k + (m/k) sum_c' (m_c'/m) (rel_c' + 1e-5) / (drawn_c' + 3e-5), with m the
  pooled documents above it, m_c' those of stratum c', drawn_c' and rel_c' the drawn and
  relevant ones among them;
- ``infNDCG``: the gains grade / log2(rank + 1) of the drawn relevant documents, averaged per
  stratum over its drawn documents retrieved and weighted by the stratum's share of the pooled
  documents retrieved, over the ideal DCG of the estimated number of documents of each grade
  (each rounded to an integer, the ideal ranking cut at 1,000);
- ``inum_rel_ret`` = sum_c m_c (rel_c + 1e-5) / (drawn_c + 3e-5) over the whole ranking.

Runs are ranked by the ranking step (score descending, equal scores by docno descending, as
sample_eval.pl) and cut at 1,000 documents (sample_eval.pl's ``$maxResultSize``). A topic the
run has and the qrels lack is left out; the mean is over the topics of both.

statAP (Aslam, Pavlu and Yilmaz, SIGIR 2006; ``statAP_MQ_eval_v3.pl`` of the Million Query
track, Carterette et al., TREC 2007, 2008) reads the same sampled qrels through each document's
inclusion probability ``pi`` (its stratum's drawn / pooled): with ``S`` the drawn relevant
documents (grade > 0),

- ``R^ = sum_{d in S} 1 / pi_d``, the Horvitz-Thompson estimate of the number of relevant
  documents (for a stratified sample it is ``inum_rel``);
- the precision at the rank ``r`` of a retrieved ``d`` in ``S``,
  ``PC^(r) = (1 + sum_{d' in S, rank(d') < r} 1 / pi_d') / r``;
- ``statAP = sum_{d in S retrieved} PC^(rank(d)) / pi_d / R^``.

statAP ranks the whole run (no cut at 1,000, as statAP_MQ_eval); a topic with no drawn relevant
document (R^ = 0) has no statAP and is left out of its mean, as statAP_MQ_eval leaves it out of
statMAP. The estimates are unbiased for R and, as a ratio of unbiased estimates, nearly so for AP
(the bias shrinks with the sample); a pool in AP-prior order
(:class:`~pateval.pooling.strategies.WeightedOrder`) stratified with falling rates samples in
the spirit of the paper's AP-prior distribution.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..core.qrels import Qrels
from ..core.ranking import evaluation_order
from ..core.run import Run
from ..core.segments import place_in_runs
from ..errors import ParameterError
from ..formats.pools import Pool, Sample
from .names import ESTIMATES, STAT_ESTIMATES

__all__ = ["ESTIMATES", "STAT_ESTIMATES", "parse_strata", "sample_pool", "estimate", "statap_precisions"]


_EPS_REL, _EPS_DRAWN = 0.00001, 0.00003  # sample_eval.pl's smoothing
_MAX_RESULTS = 1000  # sample_eval.pl's $maxResultSize


def parse_strata(text: str) -> list[tuple[int, int | None, float]]:
    """``"1-10:1,11-100:0.2,101-:0.05"`` -> ``[(1, 10, 1.0), (11, 100, 0.2), (101, None, 0.05)]``:
    places by depth in the judging order, contiguous from 1, each with a rate in (0, 1]."""
    strata: list[tuple[int, int | None, float]] = []
    expected = 1
    for part in text.split(","):
        try:
            span, rate_text = part.split(":")
            low_text, high_text = span.split("-")
            low, high = int(low_text), (int(high_text) if high_text.strip() else None)
            rate = float(rate_text)
        except ValueError:
            raise ParameterError(f"a stratum is FIRST-LAST:RATE (LAST may be left out for the rest), not {part!r}") \
                from None
        if not 0 < rate <= 1:
            raise ParameterError(f"stratum {part!r}: the rate (an inclusion probability) must lie in (0, 1]")
        if low != expected or (high is not None and high < low):
            raise ParameterError(f"stratum {part!r}: strata must follow each other from place 1 (expected "
                                 f"{expected}-...)")
        if strata and strata[-1][1] is None:
            raise ParameterError(f"stratum {part!r} follows an open stratum")
        strata.append((low, high, rate))
        expected = (high or 0) + 1
    return strata


def sample_pool(pool: Pool, strata: Sequence[tuple[int, int | None, float]] | str, *, seed: int = 0,
                qrels: Qrels | None = None) -> Sample:
    """A stratified random sample of ``pool`` (see the module); with ``qrels``, its grades
    (a drawn document the qrels lack: 0; not drawn: -1)."""
    spans = parse_strata(strata) if isinstance(strata, str) else list(strata)
    rng = np.random.default_rng(seed)
    place = pool.place
    stratum = np.full(len(place), -1, dtype=np.int64)
    for i, (low, high, _) in enumerate(spans):
        stratum[(place >= low) & (place <= (high if high is not None else np.iinfo(np.int64).max))] = i
    if (stratum < 0).any():
        row = int(np.flatnonzero(stratum < 0)[0])
        raise ParameterError(f"place {int(place[row])} of topic {pool.topic[row]!r} is in no stratum: end the last "
                             "one open (e.g. 101-:0.05)")
    sampled = np.zeros(len(place), dtype=bool)
    probability = np.zeros(len(place))
    topics = pool.topic.astype(str)
    key = np.char.add(np.char.add(topics, "\x00"), stratum.astype(str))
    _, inverse = np.unique(key, return_inverse=True)
    for group in range(int(inverse.max()) + 1 if len(inverse) else 0):
        members = np.flatnonzero(inverse == group)
        rate = spans[int(stratum[members[0]])][2]
        k = min(len(members), max(1, int(round(rate * len(members)))))
        sampled[rng.choice(members, size=k, replace=False)] = True
        probability[members] = k / len(members)
    labels = np.asarray([f"{low}-{'' if high is None else high}" for low, high, _ in spans], dtype=object)[stratum]
    grade = None
    if qrels is not None:
        grades: dict[tuple[str, str], int] = {}
        for t, d, g in zip(np.asarray(qrels.topic).astype(str).tolist(), np.asarray(qrels.docno).astype(str).tolist(),
                           qrels.rel.tolist(), strict=True):
            grades[t, d] = max(int(g), grades.get((t, d), 0))
        grade = np.asarray([grades.get((t, d), 0) if s else -1
                            for t, d, s in zip(topics.tolist(), pool.docno.astype(str).tolist(), sampled.tolist(),
                                               strict=True)], dtype=np.int64)
    return Sample(topic=pool.topic, docno=pool.docno, stratum=labels, probability=probability, sampled=sampled,
                  grade=grade)


class _Topic:
    """One topic of sampled qrels: per document its stratum and grade; per stratum N_c, n_c, r_c."""

    def __init__(self, docs: Sequence[str], strata: Sequence[str], grades: Sequence[int]) -> None:
        self.strata = sorted(set(strata))
        code = {c: i for i, c in enumerate(self.strata)}
        self.doc = {d: (code[c], g) for d, c, g in zip(docs, strata, grades, strict=True)}
        n = len(self.strata)
        self.pooled, self.drawn, self.relevant = np.zeros(n), np.zeros(n), np.zeros(n)
        per_grade: dict[int, np.ndarray] = {}
        for c, g in self.doc.values():
            self.pooled[c] += 1
            if g >= 0:
                self.drawn[c] += 1
            if g > 0:
                self.relevant[c] += 1
                per_grade.setdefault(g, np.zeros(n))[c] += 1
        share = np.divide(self.pooled, self.drawn, out=np.zeros(n), where=self.drawn > 0)
        self.estimated = self.relevant * share  # r_c N_c / n_c
        self.num_rel = float(self.estimated.sum())
        self.ideal = 0.0
        start = 0
        for g in sorted(per_grade, key=str, reverse=True):  # sample_eval.pl: grades in reverse string order
            count = int(float((per_grade[g] * share).sum()) + 0.5)
            for r in range(start + 1, start + count + 1):
                self.ideal += g / math.log2(r + 1)
                if r >= _MAX_RESULTS:
                    break
            start += count


def _estimate_topic(info: _Topic, ranked: Sequence[str]) -> tuple[float, float, float]:
    n = len(info.strata)
    seen, drawn, relevant = np.zeros(n), np.zeros(n), np.zeros(n)
    sap, gain = np.zeros(n), np.zeros(n)
    depth = 0
    for rank, docno in enumerate(ranked[:_MAX_RESULTS], start=1):
        judged = info.doc.get(docno)
        if judged is None:
            continue
        c, g = judged
        if g > 0:
            above = 0.0
            if depth:
                shares = seen / depth
                above = float(np.sum(np.where(shares != 0, shares * (relevant + _EPS_REL) / (drawn + _EPS_DRAWN),
                                              0.0)))
            sap[c] += 1 / rank + (depth / rank) * above
            relevant[c] += 1
            gain[c] += g / math.log2(rank + 1)
        depth += 1
        seen[c] += 1
        if g >= 0:
            drawn[c] += 1
    num_rel_ret = float(np.sum(seen * (relevant + _EPS_REL) / (drawn + _EPS_DRAWN)))
    ap = 0.0
    if info.num_rel:
        for c in range(n):
            if info.drawn[c] and info.relevant[c]:
                ap += info.estimated[c] / info.num_rel * sap[c] / info.relevant[c]
    dcg = 0.0
    if depth:
        dcg = float(np.sum(np.divide(seen / depth * gain, drawn, out=np.zeros(n), where=drawn > 0)))
    ndcg = depth * dcg / info.ideal if info.ideal else 0.0
    return ap, ndcg, num_rel_ret


def _check_estimates(estimates: Sequence[str] | None) -> tuple[str, ...]:
    if estimates is None:
        return ESTIMATES
    chosen = tuple(dict.fromkeys(estimates))
    known = ESTIMATES + STAT_ESTIMATES
    unknown = [name for name in chosen if name not in known]
    if unknown or not chosen:
        raise ParameterError(f"unknown estimate {(unknown or [''])[0]!r}: choose among {', '.join(known)}")
    return chosen


class _Drawn:
    """The drawn relevant documents of sampled qrels, keyed ``topic NUL docno``, with their
    weight 1 / pi; and R^ per topic."""

    def __init__(self, sample: Sample) -> None:
        assert sample.grade is not None
        relevant = sample.grade > 0
        self.keys = _keys(sample.topic[relevant].astype(str), sample.docno[relevant].astype(str))
        self.probability = sample.probability[relevant]
        self.weight = 1.0 / self.probability
        names, inverse = np.unique(sample.topic.astype(str), return_inverse=True)
        self.num_rel = dict(zip(names.tolist(), np.bincount(inverse[relevant], weights=self.weight,
                                                            minlength=len(names)).tolist(), strict=True))


def _keys(topics: np.ndarray, docnos: np.ndarray) -> pa.Array:
    """Each row's ``topic NUL docno`` (both arrays of str), the key of a drawn document."""
    return pc.binary_join_element_wise(pa.array(topics.tolist(), type=pa.string()),
                                       pa.array(docnos.tolist(), type=pa.string()), "\x00")


def _statap_rows(drawn: _Drawn, run: Run) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The run's retrieved drawn relevant documents, in evaluation order: topic, docno, rank,
    index into ``drawn``, and the estimated precision at the rank (see the module)."""
    perm = evaluation_order(run, order="score")
    topic_of = run.topic_ids[run.topic[perm]].astype(str)
    docnos = np.asarray(run.docnos[perm]).astype(str)
    rank = place_in_runs(topic_of) + 1
    keys = _keys(topic_of, docnos)
    found = pc.index_in(keys, value_set=drawn.keys).fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    rows = np.flatnonzero(found >= 0)
    which = found[rows]
    weight = drawn.weight[which]
    topic = topic_of[rows]
    first = np.r_[True, topic[1:] != topic[:-1]] if len(rows) else np.zeros(0, dtype=bool)
    running = np.cumsum(weight) - weight  # weights of the drawn relevant rows above, over all topics
    above = running - np.maximum.accumulate(np.where(first, running, 0.0)) if len(rows) else running
    precision = (1.0 + above) / rank[rows]
    return topic, docnos[rows], rank[rows], which, precision


def statap_precisions(sample: Sample, run: Run) -> pd.DataFrame:
    """statAP's estimated precision at the rank of each drawn relevant document ``run``
    retrieved (see the module): columns ``topic, docno, rank, probability, precision``, in
    the run's order."""
    if sample.grade is None:
        raise ParameterError(f"{sample.source}: a sample without grades estimates nothing; judge it first (sampled "
                             "qrels: topic 0 docno stratum grade)")
    drawn = _Drawn(sample)
    topic, docno, rank, which, precision = _statap_rows(drawn, run)
    return pd.DataFrame({"topic": topic, "docno": docno, "rank": rank, "probability": drawn.probability[which],
                         "precision": precision})


def _statap(drawn: _Drawn, run: Run) -> dict[str, float]:
    """statAP per topic of the run and the sample with R^ > 0."""
    topic, _, _, which, precision = _statap_rows(drawn, run)
    names, inverse = np.unique(topic, return_inverse=True)
    up = np.bincount(inverse, weights=precision * drawn.weight[which], minlength=len(names))
    sums = dict(zip(names.tolist(), up.tolist(), strict=True))
    retrieved = set(run.topic_ids.astype(str).tolist())
    return {t: sums.get(t, 0.0) / r for t, r in drawn.num_rel.items() if r > 0 and t in retrieved}


def estimate(sample: Sample, runs: Sequence[Run] | Mapping[str, Run],
             estimates: Sequence[str] | None = None) -> pd.DataFrame:
    """Per run and topic, ``estimates`` (default :data:`ESTIMATES`, sample_eval.pl's; also
    :data:`STAT_ESTIMATES`) from sampled qrels (see the module); columns ``run, topic,
    measure, value``, with each run's mean as topic ``all`` (inum_rel and inum_rel_ret: sums,
    as sample_eval.pl prints them; statAP: the mean over the topics that have it, statMAP).
    ``table.attrs["statAP_left_out"]``: the topics left without statAP (no drawn relevant
    document), sorted."""
    chosen = _check_estimates(estimates)
    if sample.grade is None:
        raise ParameterError(f"{sample.source}: a sample without grades estimates nothing; judge it first (sampled "
                             "qrels: topic 0 docno stratum grade)")
    inferred = [name for name in chosen if name in ESTIMATES]
    topics: dict[str, _Topic] = {}
    order = np.lexsort((sample.docno.astype(str), sample.topic.astype(str)))
    t_all, d_all, s_all, g_all = (sample.topic[order].astype(str), sample.docno[order].astype(str),
                                  sample.stratum[order].astype(str), sample.grade[order])
    bounds = np.flatnonzero(np.r_[True, t_all[1:] != t_all[:-1], True])
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        topics[t_all[lo]] = _Topic(d_all[lo:hi].tolist(), s_all[lo:hi].tolist(), g_all[lo:hi].tolist())
    drawn = _Drawn(sample) if "statAP" in chosen else None
    rows: list[tuple[str, str, str, float]] = []
    left_out: set[str] = set()  # topics of a run and the sample without statAP: no drawn relevant document
    for run in (runs.values() if isinstance(runs, Mapping) else runs):
        perm = evaluation_order(run, order="score")
        topic_of = run.topic_ids[run.topic[perm]].astype(str)
        docnos = run.docnos[perm]
        bounds = np.flatnonzero(np.r_[True, topic_of[1:] != topic_of[:-1], True])
        stat = _statap(drawn, run) if drawn is not None else {}
        values: list[tuple[str, dict[str, float]]] = []
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
            info = topics.get(topic_of[lo])
            if info is None:
                continue
            numbers: dict[str, float] = {}
            if inferred:
                ap, ndcg, num_rel_ret = _estimate_topic(info, docnos[lo:hi].tolist())
                numbers.update(zip(ESTIMATES, (ap, ndcg, info.num_rel, num_rel_ret), strict=True))
            if topic_of[lo] in stat:
                numbers["statAP"] = stat[topic_of[lo]]
            elif drawn is not None:
                left_out.add(topic_of[lo])
            values.append((topic_of[lo], numbers))
        for topic, numbers in values:
            rows.extend((run.name, topic, name, numbers[name]) for name in chosen if name in numbers)
        for name in chosen:
            if column := [numbers[name] for _, numbers in values if name in numbers]:
                total = float(np.sum(column) if name in ("inum_rel", "inum_rel_ret") else np.mean(column))
                rows.append((run.name, "all", name, total))
    table = pd.DataFrame(rows, columns=["run", "topic", "measure", "value"])
    table.attrs["statAP_left_out"] = sorted(left_out)
    return table
