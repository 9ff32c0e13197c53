"""Benchmark: PRES and time-biased gain, vectorised over topics, against plain per-document loops.

A synthetic run of T topics x D documents (default 10,000 x 1,000, fixed seed) over a
collection of 1,000,000 documents with lengths; each topic has 60 relevant documents (50 of
them retrieved at random ranks) and 100 judged non-relevant ones. The run is ranked once
(:func:`pateval.core.ranking.rank_run`); then, in this one process:

* ``pateval``: the measure's kernel over all topics at once (what ``pateval evaluate`` runs
  once the run is ranked), the lengths in the form its reader gives them
  (:class:`pateval.formats.doclengths.DocLengths`: the ids and the lengths as two arrays);
* ``reference``: the paper's definition as a plain Python loop over each topic's documents,
  given the same inputs already in Python form (a ranking list per topic, a set of relevant
  documents per topic, a dict of lengths).

Both produce one value per topic; the largest absolute difference is printed with the times
and the ratio. Measures: PRES@1000 (the whole ranking), PRES@100, TBG, TBG(norm=ideal) and
TBG(duplicates=patent) (the reference for the latter tracks patent keys with
:func:`pateval.core.docids.patent_key`, the plain-Python key of one id).

Times are CPU seconds of this process (``time.process_time``: the machine may be shared).
pateval's is the best of ``--repeats`` calls, each with a new
:class:`~pateval.measures.EvaluationContext` (every document's length looked up again:
nothing carried over from the previous call but the lengths table's lookup index, made once
per table before the timings as the reference's dict is); the reference runs once. Run:

    .venv/bin/python benchmarks/bench_professional.py [--topics 10000 --depth 1000]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pyarrow as pa

from pateval.core.docids import patent_key
from pateval.core.qrels import Qrels
from pateval.core.ranking import JudgementIndex, rank_run
from pateval.core.run import Run
from pateval.formats.doclengths import DocLengths
from pateval.measures import EvaluationContext, parse_measure
from pateval.measures.tbg import LengthTable

COLLECTION = 1_000_000
RELEVANT_RETRIEVED = 50
RELEVANT_MISSED = 10
JUDGED_NONRELEVANT = 100


def build(n_topics: int, depth: int, seed: int):
    """Run and qrels as arrays (no Python object per row), and the document lengths."""
    rng = np.random.default_rng(seed)
    vocabulary = np.array([f"EP-{i:07d}-A1" for i in range(COLLECTION)], dtype=object)
    lengths = rng.integers(50, 6000, COLLECTION)
    # each topic's documents: distinct ids (a_t + 997 j mod N, j < 1000 distinct)
    offset = rng.integers(0, COLLECTION, n_topics)
    doc = (offset[:, None] + 997 * np.arange(depth)[None, :]) % COLLECTION
    topic_ids = np.array([f"T{t:05d}" for t in range(n_topics)], dtype=object)
    run = Run(
        name="bench",
        topic_ids=topic_ids,
        topic=np.repeat(np.arange(n_topics, dtype=np.int32), depth),
        doc_ids=pa.array(vocabulary, type=pa.string()),
        doc=doc.ravel().astype(np.int32),
        score=np.tile(np.arange(depth, 0, -1, dtype=np.float64), n_topics),
        rank=np.tile(np.arange(1, depth + 1, dtype=np.int64), n_topics),
    )
    judged_ranks = np.argsort(rng.random((n_topics, depth)), axis=1)[:, : RELEVANT_RETRIEVED + JUDGED_NONRELEVANT]
    judged_docs = np.take_along_axis(doc, judged_ranks, axis=1)
    missed = (offset[:, None] + 997 * (depth + np.arange(RELEVANT_MISSED))[None, :]) % COLLECTION
    qrels_docs = np.concatenate([judged_docs, missed], axis=1)
    grades = np.concatenate([rng.integers(1, 3, (n_topics, RELEVANT_RETRIEVED)),
                             np.zeros((n_topics, JUDGED_NONRELEVANT), dtype=np.int64),
                             np.ones((n_topics, RELEVANT_MISSED), dtype=np.int64)], axis=1)
    per_topic = qrels_docs.shape[1]
    qrels = Qrels(topic=np.repeat(topic_ids, per_topic), docno=vocabulary[qrels_docs.ravel()],
                  rel=grades.ravel().astype(np.int64))
    # each side's lengths in its own form: a dict for the loops, the reader's table for pateval
    length_of = dict(zip(vocabulary.tolist(), lengths.tolist(), strict=False))
    table = DocLengths(pa.array(vocabulary, type=pa.string()), lengths)
    return run, qrels, length_of, table


def reference_pres(rankings, relevant_sets, nmax):
    values = []
    for ranking, relevant in zip(rankings, relevant_sets, strict=False):
        n = len(relevant)
        if n == 0:
            values.append(0.0)
            continue
        found, rank_sum = 0, 0
        for rank, docno in enumerate(ranking, start=1):
            if rank > nmax:
                break
            if docno in relevant:
                found += 1
                rank_sum += rank
        for i in range(found + 1, n + 1):
            rank_sum += nmax + i
        values.append(1 - (rank_sum / n - (n + 1) / 2) / nmax)
    return np.array(values)


def reference_tbg(rankings, relevant_sets, lengths, *, patent=False, ideal=False,
                  summary_time=4.4, slope=0.018, intercept=7.8, p_rel=0.64, p_nonrel=0.39, p_save=0.77, halflife=224.0):
    gain = p_rel * p_save
    values = []
    for ranking, relevant in zip(rankings, relevant_sets, strict=False):
        elapsed, total, seen = 0.0, 0.0, set()
        for docno in ranking:
            duplicate = False
            if patent:
                key = patent_key(docno)
                duplicate = key in seen
                seen.add(key)
            is_relevant = docno in relevant
            if is_relevant:
                total += gain * math.exp(-elapsed * math.log(2) / halflife)
            length = 0 if duplicate else lengths[docno]
            elapsed += summary_time + (slope * length + intercept) * (p_rel if is_relevant else p_nonrel)
        if ideal:
            best, elapsed = 0.0, 0.0
            for length in sorted(lengths[d] for d in relevant):
                best += gain * math.exp(-elapsed * math.log(2) / halflife)
                elapsed += summary_time + (slope * length + intercept) * p_rel
            total = total / best if best > 0 else 0.0
        values.append(total)
    return np.array(values)


def timed(function, *args, **kwargs):
    """CPU seconds of one call, and its result."""
    start = time.process_time()
    result = function(*args, **kwargs)
    return time.process_time() - start, result


def best_of(repeats, function, *args, **kwargs):
    """Shortest of ``repeats`` timings (the machine may be shared)."""
    runs = [timed(function, *args, **kwargs) for _ in range(repeats)]
    return min(t for t, _ in runs), runs[0][1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3, help="pateval timings: best of this many")
    args = parser.parse_args()

    seconds, (run, qrels, lengths, length_table) = timed(build, args.topics, args.depth, args.seed)
    print(f"built {args.topics:,} topics x {args.depth:,} documents ({len(run):,} rows, {len(qrels):,} judgements) "
          f"in {seconds:.1f} CPU s")
    seconds, ranked = timed(lambda: rank_run(run, JudgementIndex.build(qrels, np.asarray(qrels.topic_ids,
                                                                                         dtype=object))))
    print(f"ranked once (shared by every measure) in {seconds:.1f} CPU s")

    # the reference's inputs, in Python form, made outside the timings
    docnos = ranked.docno.tolist()
    rankings = [docnos[a:b] for a, b in zip(ranked.ptr[:-1], ranked.ptr[1:], strict=False)]
    relevant_sets = [set() for _ in range(ranked.n_topics)]
    position = {t: i for i, t in enumerate(ranked.topic_ids)}
    for topic, docno, rel in zip(qrels.topic.tolist(), qrels.docno.tolist(), qrels.rel.tolist(), strict=False):
        if rel >= 1:
            relevant_sets[position[topic]].add(docno)

    # each side's lengths indexed before its timings: the reference's dict above, pateval's
    # lookup index of the lengths table (made once per evaluation, as the dict is)
    length_table = LengthTable.of(length_table)
    _ = length_table.index
    cases = [
        ("PRES@1000", lambda: reference_pres(rankings, relevant_sets, 1000)),
        ("PRES@100", lambda: reference_pres(rankings, relevant_sets, 100)),
        ("TBG", lambda: reference_tbg(rankings, relevant_sets, lengths)),
        ("TBG(norm=ideal)", lambda: reference_tbg(rankings, relevant_sets, lengths, ideal=True)),
        ("TBG(duplicates=patent)", lambda: reference_tbg(rankings, relevant_sets, lengths, patent=True)),
    ]
    print(f"{'measure':<24}{'pateval s':>11}{'reference s':>13}{'ratio':>9}{'max |diff|':>13}   (CPU seconds)")
    for name, reference in cases:
        measure = parse_measure(name)
        ours_time, ours = best_of(args.repeats,
                                  lambda m=measure: m.compute(ranked, EvaluationContext({"doc_lengths": length_table})))
        reference_time, theirs = timed(reference)
        difference = float(np.max(np.abs(ours - theirs)))
        print(f"{name:<24}{ours_time:>11.3f}{reference_time:>13.2f}{reference_time / ours_time:>8.1f}x"
              f"{difference:>13.2e}")


if __name__ == "__main__":
    main()
