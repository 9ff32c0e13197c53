"""Benchmark: pateval on PyTerrier / ir_measures frames, against ir_measures on the same frames.

A synthetic PyTerrier results frame (``qid, docno, score, rank``; T topics x D documents,
default 2,000 x 1,000 = 2M rows, fixed seed, distinct scores) and its qrels frame
(``qid, docno, label``; 60 judged documents per topic, graded 0-2). In one process:

* ``pateval.evaluate(qrels_frame, results_frame, ["AP", "nDCG@10", "P@10"])``: the frames read
  by column name (:meth:`Run.from_frame`, :meth:`Qrels.from_frame`), then pateval's core;
* ``ir_measures.calc_aggregate`` on the same frames (renamed to ir_measures' columns), which
  PyTerrier's ``pt.Experiment`` calls: its pytrec_eval provider for these measures;
* PRES@100 computed by ``pateval.ir_measures`` inside ir_measures (its runtime provider hands
  pateval sorted frames) against ``pateval.evaluate`` directly: the cost of going through
  ir_measures.

The means are printed with their largest difference (pytrec_eval rounds scores to 32 bits, so
ties may differ there; the scores here are distinct at 32 bits). Wall-clock seconds, best of
``--repeats``; the machine may be shared. Run:

    .venv/bin/python benchmarks/bench_ecosystem.py [--topics 2000 --depth 1000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd


def build(n_topics: int, depth: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    qids = np.repeat(np.array([f"q{t}" for t in range(n_topics)], dtype=object), depth)
    docs = rng.integers(0, 5_000_000, (n_topics, depth))
    docs.sort(axis=1)
    docs += np.arange(depth)  # distinct within a topic
    docnos = np.array([f"D{d}" for d in docs.ravel()], dtype=object)
    scores = (np.tile(np.arange(depth, 0, -1, dtype=np.float64), n_topics) * 4.0) + rng.random(n_topics * depth)
    results = pd.DataFrame({"qid": qids, "docno": docnos, "score": scores,
                            "rank": np.tile(np.arange(depth), n_topics)})
    judged = rng.integers(0, depth, (n_topics, 60))
    rows = (np.arange(n_topics)[:, None] * depth + judged).ravel()
    qrels = pd.DataFrame({"qid": qids[rows], "docno": docnos[rows], "label": rng.integers(0, 3, rows.size)})
    qrels = qrels.drop_duplicates(["qid", "docno"]).reset_index(drop=True)
    return results, qrels


def best(fn, repeats: int):
    times, value = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - started)
    return min(times), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--topics", type=int, default=2000)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import ir_measures

    import pateval
    import pateval.ir_measures  # noqa: F401  (PRES in ir_measures)

    results, qrels = build(args.topics, args.depth, args.seed)
    print(f"results frame: {len(results):,} rows, {args.topics:,} topics; qrels frame: {len(qrels):,} rows")
    ir_run = results.rename(columns={"qid": "query_id", "docno": "doc_id"})[["query_id", "doc_id", "score"]]
    ir_qrels = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    names = ["AP", "nDCG@10", "P@10"]
    measures = [ir_measures.parse_measure(n) for n in names]

    ours, frame = best(lambda: pateval.evaluate(qrels, results, names), args.repeats)
    theirs, values = best(lambda: ir_measures.calc_aggregate(measures, ir_qrels, ir_run), args.repeats)
    means = frame.groupby("measure")["value"].mean()
    difference = max(abs(means[n] - values[m]) for n, m in zip(names, measures, strict=False))
    print(f"AP, nDCG@10, P@10 from the frames: pateval {ours:.2f} s, ir_measures (pytrec_eval) {theirs:.2f} s, "
          f"ratio {theirs / ours:.1f}x; largest difference of the means {difference:.1e}")

    pres = ir_measures.parse_measure("PRES@100")
    direct, frame = best(lambda: pateval.evaluate(qrels, results, ["PRES@100"]), args.repeats)
    inside, value = best(lambda: ir_measures.calc_aggregate([pres], ir_qrels, ir_run), args.repeats)
    print(f"PRES@100: pateval.evaluate {direct:.2f} s, through ir_measures {inside:.2f} s "
          f"({inside / direct:.1f}x the direct call); difference {abs(frame['value'].mean() - value[pres]):.1e}")


if __name__ == "__main__":
    main()
