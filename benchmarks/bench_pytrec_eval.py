"""Benchmark: pytrec_eval's shape -- dicts of dicts -- in pateval, beside pytrec_eval, ir_measures and ranx.

Synthetic ``{qid: {docno: score}}`` run and ``{qid: {docno: grade}}`` qrels (T topics x D
documents, default 10,000 x 1,000 = 10M scores; 100 judged documents per topic, grades 0-2;
fixed seed). Each tool runs in a fresh process, which builds the dicts and then times only
the evaluation of AP, nDCG@10, R@100 and P@10 per topic:

* ``pytrec_eval``: ``RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "recall.100", "P.10"})``
  and ``evaluate(run)`` (pytrec-eval-terrier);
* ``pateval.pytrec_eval``: the same two calls, the import line changed;
* ``pateval.evaluate``: ``pateval.evaluate(qrels, run, ["AP", "nDCG@10", "R@100", "P@10"])``
  (a frame of the per-topic values, pandas imported by it);
* ``ir_measures``: ``ir_measures.iter_calc`` over the dicts, consumed;
* ``ranx``: ``ranx.evaluate(Qrels(qrels), Run(run), ["map", "ndcg@10", "recall@100", "precision@10"])``
  with ``return_mean=False`` (its numba compilation included, as a fresh process pays it).

The tools alternate, ``--repeats`` times each; printed are the medians of wall-clock and CPU
seconds, the peak resident memory of the process (dicts included) and its growth over the
dicts, and each tool's ratio to pytrec_eval. The machine may be shared: compare CPU times
and ratios, never one wall-clock figure. Run:

    .venv/bin/python benchmarks/bench_pytrec_eval.py [--topics 10000 --depth 1000 --repeats 3]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

TOOLS = ("pytrec_eval", "pateval.pytrec_eval", "pateval.evaluate", "ir_measures", "ranx")


def build(n_topics: int, depth: int, judged: int = 100, seed: int = 42) -> tuple[dict, dict]:
    import numpy as np

    rng = np.random.default_rng(seed)
    docs = rng.integers(0, 5_000_000, (n_topics, depth))
    docs.sort(axis=1)
    docs += np.arange(depth)  # distinct within a topic
    scores = rng.random((n_topics, depth)) * 100
    run, qrels = {}, {}
    for t in range(n_topics):
        names = [f"D{d}" for d in docs[t].tolist()]
        run[f"q{t}"] = dict(zip(names, scores[t].tolist(), strict=True))
        picked = rng.choice(depth, judged, replace=False).tolist()
        qrels[f"q{t}"] = dict(zip([names[k] for k in picked], rng.integers(0, 3, judged).tolist(), strict=True))
    return qrels, run


def _resident_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def worker(tool: str, n_topics: int, depth: int) -> dict:
    qrels, run = build(n_topics, depth)
    before = _resident_mb()
    wall, cpu = time.perf_counter(), time.process_time()
    if tool in ("pytrec_eval", "pateval.pytrec_eval"):
        import importlib

        module = importlib.import_module(tool)
        result = module.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "recall.100", "P.10"}).evaluate(run)
        means = {m: sum(v[m] for v in result.values()) / len(result) for m in ("map", "ndcg_cut_10", "recall_100",
                                                                             "P_10")}
    elif tool == "pateval.evaluate":
        import pateval

        frame = pateval.evaluate(qrels, run, ["AP", "nDCG@10", "R@100", "P@10"])
        means = frame.groupby("measure")["value"].mean().to_dict()
    elif tool == "ir_measures":
        import ir_measures
        from ir_measures import AP, P, R, nDCG

        totals: dict = {}
        for metric in ir_measures.iter_calc([AP, nDCG @ 10, R @ 100, P @ 10], qrels, run):
            totals[str(metric.measure)] = totals.get(str(metric.measure), 0.0) + metric.value
        means = {m: v / len(qrels) for m, v in totals.items()}
    elif tool == "ranx":
        from ranx import Qrels, Run, evaluate

        values = evaluate(Qrels(qrels), Run(run), ["map", "ndcg@10", "recall@100", "precision@10"], return_mean=False)
        means = {m: float(v.mean()) for m, v in values.items()}
    else:
        raise SystemExit(f"unknown tool {tool}")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"tool": tool, "wall": wall, "cpu": cpu, "peak_mb": peak, "growth_mb": peak - before,
            "means": {k: round(float(v), 6) for k, v in means.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=1_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.topics, args.depth)))
        return
    tools = args.tools.split(",")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _data import compile_pateval

    compile_pateval()  # bytecode, as an installed package has it
    runs: dict[str, list[dict]] = {tool: [] for tool in tools}
    for repeat in range(args.repeats):
        for tool in tools:  # alternated, each in a fresh process
            done = subprocess.run([sys.executable, __file__, "--worker", tool, "--topics", str(args.topics),
                                   "--depth", str(args.depth)], capture_output=True, text=True)
            if done.returncode != 0:
                why = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode
                print(f"{tool}: failed ({why})")
                continue
            result = json.loads(done.stdout.strip().splitlines()[-1])
            runs[tool].append(result)
            print(f"  [{repeat + 1}/{args.repeats}] {tool}: {result['wall']:.2f} s, cpu {result['cpu']:.2f} s",
                  file=sys.stderr, flush=True)
    print(f"{args.topics} topics x {args.depth} documents (AP, nDCG@10, R@100, P@10); medians of {args.repeats} "
          "fresh processes; the machine may be shared")
    median = {tool: {key: statistics.median(r[key] for r in results) for key in ("wall", "cpu", "peak_mb", "growth_mb")}
              for tool, results in runs.items() if results}
    base = median.get("pytrec_eval")
    print(f"{'tool':22s} {'wall s':>8s} {'cpu s':>8s} {'peak MB':>8s} {'+MB':>7s} {'wall x':>7s} {'cpu x':>7s} "
          f"{'peak x':>7s}")
    for tool, m in median.items():
        ratios = ("", "", "") if base is None else (f"{m['wall'] / base['wall']:.2f}", f"{m['cpu'] / base['cpu']:.2f}",
                                                    f"{m['peak_mb'] / base['peak_mb']:.2f}")
        print(f"{tool:22s} {m['wall']:8.2f} {m['cpu']:8.2f} {m['peak_mb']:8.0f} {m['growth_mb']:7.0f} {ratios[0]:>7s} "
              f"{ratios[1]:>7s} {ratios[2]:>7s}")
    for tool, results in runs.items():
        if results:
            print(f"means {tool}: {results[-1]['means']}")


if __name__ == "__main__":
    main()
