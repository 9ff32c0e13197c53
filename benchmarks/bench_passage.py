"""Benchmark: CLEF-IP Precision(D) and MAP(D), vectorised over topics, against a plain
per-document loop.

A synthetic passage run of T topics x D documents x K passages (default 10,000 x 50 x 5,
fixed seed; passage ranks down each topic, one passage in twenty a heading); each topic has
15 relevant documents (10 of them retrieved) with 4 judged passages each among a
document's first 12 paragraphs. In this one process:

* ``pateval``: the two kernels over all topics at once, from the document-level run ranked
  once (:func:`pateval.core.ranking.rank_run`), with the passage run and qrels as arrays;
* ``reference``: the definition as a plain Python loop over each topic's relevant retrieved
  documents and their passages, given the same inputs already in Python form (passages per
  (topic, document) in rank order, a set of judged passages per (topic, document)).

Both give one value per topic; the largest absolute difference is printed with the times
and the ratio. Run:

    .venv/bin/python benchmarks/bench_passage.py [--topics 10000 --documents 50 --passages 5]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pateval.core.qrels import Qrels
from pateval.core.ranking import JudgementIndex, rank_run
from pateval.formats.passages import PassageRun
from pateval.measures import EvaluationContext, parse_measure

RELEVANT_RETRIEVED = 10
RELEVANT_MISSED = 5
JUDGED_PER_DOCUMENT = 4
PARAGRAPHS = 12


def build(n_topics: int, n_documents: int, n_passages: int, seed: int):
    rng = np.random.default_rng(seed)
    xpath_names = np.array([f"/patent-document/description/p[{k}]" for k in range(1, PARAGRAPHS + 1)]
                           + ["/patent-document/description/heading[1]"], dtype=object)
    topic_ids = np.array([f"PSG-{t}" for t in range(n_topics)], dtype=object)
    per_topic = n_documents * n_passages
    docs = (rng.integers(0, 10**6, n_topics)[:, None] + 7919 * np.arange(n_documents + RELEVANT_MISSED)[None,
                                                                                                        :]) % 10**6
    vocabulary = np.array([f"EP-{i:07d}-A1" for i in range(10**6)], dtype=object)
    # each document's passages: K distinct paragraphs, 5% replaced by a heading
    paragraph = np.argsort(rng.random((n_topics * n_documents, PARAGRAPHS)), axis=1)[:, :n_passages]
    paragraph = np.where(rng.random(paragraph.shape) < 0.05, PARAGRAPHS, paragraph)
    # passage ranks: documents in order, passages interleaved a little (rank noise within a topic)
    rank = np.tile(np.arange(1, per_topic + 1), n_topics) + rng.integers(0, 3, n_topics * per_topic)
    run = PassageRun(
        name="bench",
        topic=np.repeat(topic_ids, per_topic),
        docno=vocabulary[np.repeat(docs[:, :n_documents].ravel(), n_passages)],
        xpath=xpath_names[paragraph.ravel()],
        rank=rank.astype(np.int64),
        score=-rank.astype(np.float64),
        line=np.arange(1, n_topics * per_topic + 1, dtype=np.int64),
    )
    relevant_positions = np.argsort(rng.random((n_topics, n_documents)), axis=1)[:, :RELEVANT_RETRIEVED]
    relevant = np.concatenate([np.take_along_axis(docs, relevant_positions, axis=1), docs[:, n_documents:]], axis=1)
    n_rel = relevant.shape[1]
    judged = np.argsort(rng.random((n_topics * n_rel, PARAGRAPHS)), axis=1)[:, :JUDGED_PER_DOCUMENT]
    qrels = Qrels(
        topic=np.repeat(topic_ids, n_rel * JUDGED_PER_DOCUMENT),
        docno=vocabulary[np.repeat(relevant.ravel(), JUDGED_PER_DOCUMENT)],
        rel=np.ones(n_topics * n_rel * JUDGED_PER_DOCUMENT, dtype=np.int64),
        passage=xpath_names[judged.ravel()],
    )
    return run, qrels


def reference(run: PassageRun, qrels: Qrels):
    """Precision(D) and MAP(D) per topic by the definition, in plain Python."""
    judged: dict = {}
    for t, d, x in zip(qrels.topic.tolist(), qrels.docno.tolist(), qrels.passage.tolist(), strict=False):
        judged.setdefault((t, d), set()).add(x)
    order = np.lexsort((np.arange(len(run)), run.rank, run.topic.astype(str)))
    passages: dict = {}
    for i in order.tolist():
        x = run.xpath[i]
        if x.rsplit("/", 1)[1].startswith("heading"):
            continue
        passages.setdefault(run.topic[i], {}).setdefault(run.docno[i], []).append(x)
    precision, average = {}, {}
    for topic, documents in passages.items():
        p_sum = ap_sum = 0.0
        relret = 0
        for docno, ranked in documents.items():
            q = judged.get((topic, docno))
            if not q:
                continue
            relret += 1
            hits, ap = 0, 0.0
            for j, x in enumerate(ranked, start=1):
                if x in q:
                    hits += 1
                    ap += hits / j
            p_sum += hits / len(ranked)
            ap_sum += ap / len(q)
        precision[topic] = p_sum / relret if relret else 0.0
        average[topic] = ap_sum / relret if relret else 0.0
    return precision, average


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--documents", type=int, default=50)
    parser.add_argument("--passages", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()
    run, qrels = build(args.topics, args.documents, args.passages, args.seed)
    print(f"{args.topics} topics x {args.documents} documents x {args.passages} passages = {len(run):,} passage rows, "
          f"{len(qrels):,} judged passages (built in {time.perf_counter() - started:.1f} s)")

    started = time.perf_counter()
    document_run = run.document_run()
    level = qrels.document_level()
    ranked = rank_run(document_run, JudgementIndex.build(level, np.asarray(level.topic_ids, dtype=object)),
                      order="rank")
    prepare = time.perf_counter() - started
    context = EvaluationContext({"passage_runs": run, "passage_qrels": qrels})
    started = time.perf_counter()
    fast_p = parse_measure("P_psg").compute(ranked, context)
    fast_ap = parse_measure("MAP_psg").compute(ranked, context)  # shares the first call's work
    fast = time.perf_counter() - started
    started = time.perf_counter()
    slow_p, slow_ap = reference(run, qrels)
    slow = time.perf_counter() - started
    position = {t: i for i, t in enumerate(ranked.topic_ids)}
    diff = max(max(abs(fast_p[position[t]] - v) for t, v in slow_p.items()),
               max(abs(fast_ap[position[t]] - v) for t, v in slow_ap.items()))
    print(f"document run + ranking (once, shared with PRES/R/AP): {prepare:.2f} s")
    print(f"P_psg + MAP_psg  pateval {fast:.2f} s   plain loop {slow:.2f} s   ratio {slow / fast:.1f}x   "
          f"max |diff| {diff:.2e}   means {fast_p.mean():.4f} {fast_ap.mean():.4f}")


if __name__ == "__main__":
    main()
