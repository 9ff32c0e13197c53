"""Benchmark: pooling against trectools, fusion against ranx, and a budget simulation.

Synthetic TREC runs, fixed seed: R runs x T topics x D documents (default 100 x 50 x 1,000,
the size issue 32 names), each topic's documents drawn from a topic pool of 20,000 ids so
that runs overlap, scores distinct. In one process:

* pooling from the run files: ``pateval.api.make_pool(files, "depth", depth=K)`` and
  ``"rbp"`` (size K), against trectools' ``TrecPoolMaker().make_pool_from_files(files,
  strategy="topX" / "rbp", topX=K)`` (trectools reads the files with pandas, as pateval reads
  them with its run reader); the pools are checked equal;
* fusion of the first ``--fuse-runs`` runs held in memory: ``pateval.pooling.fusion`` (CombSUM
  of min-max scores, RRF) against ``ranx.fuse`` on the same runs as ranx Runs, ranx's numba
  compilation excluded (a first call on a small run); the fused scores are checked equal;
* a budget simulation of 10 budgets x R runs (``pateval.api.simulate_budgets``, move-to-front
  and depth order, AP), pateval alone (no peer simulates budgets).

Wall-clock and CPU seconds (the process's, every thread), medians of ``--repeats``; the
machine may be shared: say so with the numbers, and compare CPU seconds there.
trectools is not a dependency of pateval: give its checkout with ``--trectools DIR``
(its own dependencies -- pandas, scipy, scikit-learn, sarge, lxml, bs4 -- importable). Run:

    PYTHONPATH=src:/path/to/trectools python benchmarks/bench_pooling.py --trectools /path/to/trectools
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

WORK = Path(__file__).resolve().parent / "_work"


def write_runs(n_runs: int, n_topics: int, depth: int, seed: int = 7) -> list[Path]:
    folder = WORK / f"pool_{n_runs}_{n_topics}_{depth}_{seed}"
    paths = [folder / f"run{r:03d}.txt" for r in range(n_runs)]
    if all(p.exists() for p in paths):
        return paths
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    for r, path in enumerate(paths):
        lines = []
        for t in range(n_topics):
            docs = rng.choice(20_000, size=depth, replace=False)
            scores = np.sort(rng.random(depth))[::-1] * 100 + (depth - np.arange(depth)) * 1e-3
            lines.extend(f"{301 + t} Q0 D{t}-{d} {i + 1} {s:.9f} run{r:03d}\n"
                         for i, (d, s) in enumerate(zip(docs, scores, strict=True)))
        path.write_text("".join(lines))
    return paths


def qrels_for(paths: list[Path], n_topics: int, seed: int = 7) -> Path:
    path = paths[0].parent / "qrels.txt"
    if path.exists():
        return path
    rng = np.random.default_rng(seed + 1)
    lines = []
    for t in range(n_topics):
        judged = rng.choice(20_000, size=400, replace=False)
        lines.extend(f"{301 + t} 0 D{t}-{d} {int(i < 60)}\n" for i, d in enumerate(judged))
    path.write_text("".join(lines))
    return path


CPU: dict[int, float] = {}  # id of the last timed function's result -> its median CPU seconds


def median_time(fn, repeats: int):
    """Median wall-clock seconds of ``fn`` over ``repeats`` calls, and its last result; the
    median CPU seconds of the process (every thread) are kept in :data:`CPU` (see :func:`cpu`)."""
    times, cpus, result = [], [], None
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = fn()
        times.append(time.perf_counter() - start)
        cpus.append(time.process_time() - start_cpu)
    CPU[id(result)] = statistics.median(cpus)
    return statistics.median(times), result


def cpu(result) -> float:
    """The median CPU seconds of the call that made ``result`` (:func:`median_time`)."""
    return CPU[id(result)]


def pool_sets(pool) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for t, d in zip(pool.topic.tolist(), pool.docno.tolist(), strict=True):
        out.setdefault(str(t), set()).add(d)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--pool-depth", type=int, default=100)
    parser.add_argument("--fuse-runs", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--trectools", metavar="DIR", help="a trectools checkout (its package folder's parent)")
    parser.add_argument("--skip-simulation", action="store_true")
    parser.add_argument("--only-simulation", action="store_true", help="time the budget simulation alone")
    args = parser.parse_args()
    from _data import compile_pateval

    compile_pateval()
    from pateval import api
    from pateval.pooling.fusion import fuse_stack
    from pateval.pooling.stack import stack_runs

    paths = write_runs(args.runs, args.topics, args.depth)
    print(f"{args.runs} runs x {args.topics} topics x {args.depth} documents; pool depth {args.pool_depth}; "
          f"median of {args.repeats} (wall clock, shared machine)")
    k = args.pool_depth
    if args.only_simulation:
        simulate(api, paths, args)
        return
    ours_depth, pool = median_time(lambda: api.make_pool(paths, "depth", depth=k), args.repeats)
    ours_rbp, rbp = median_time(lambda: api.make_pool(paths, "rbp", size=k, p=0.8), args.repeats)
    print(f"pooling  pateval depth-{k}: {ours_depth:.2f} s ({cpu(pool):.2f} CPU-s)   rbp size {k}: {ours_rbp:.2f} s "
          f"({cpu(rbp):.2f} CPU-s)")
    if args.trectools:
        sys.path.insert(0, args.trectools)
        from trectools import TrecPoolMaker

        maker = TrecPoolMaker()
        files = [str(p) for p in paths]
        theirs_depth, tpool = median_time(lambda: maker.make_pool_from_files(files, strategy="topX", topX=k),
                                          args.repeats)
        theirs_rbp, trbp = median_time(lambda: maker.make_pool_from_files(files, strategy="rbp", topX=k, rbp_p=0.8),
                                       args.repeats)
        same = pool_sets(pool) == {str(q): set(d) for q, d in tpool.pool.items()}
        same_rbp = pool_sets(rbp) == {str(q): set(d) for q, d in trbp.pool.items()}
        print(f"pooling  trectools depth-{k}: {theirs_depth:.2f} s ({cpu(tpool):.2f} CPU-s)   rbp: {theirs_rbp:.2f} s "
              f"({cpu(trbp):.2f} CPU-s)   ratio pateval/trectools: depth {ours_depth / theirs_depth:.3f} (CPU "
              f"{cpu(pool) / cpu(tpool):.3f}), rbp {ours_rbp / theirs_rbp:.3f} (CPU {cpu(rbp) / cpu(trbp):.3f}); "
              f"pools equal: {same} {same_rbp}")
    runs = [api.read_run(p) for p in paths[:args.fuse_runs]]
    try:
        import ranx
    except ImportError:
        ranx = None

    def ours_fuse(method, norm):
        return fuse_stack(stack_runs(runs), method, norm=norm)

    for method, norm, ranx_method in (("combsum", "min-max", "sum"), ("rrf", None, "rrf")):
        ours, fused = median_time(lambda m=method, n=norm: ours_fuse(m, n), args.repeats)
        line = f"fusion   {method} of {len(runs)} runs: pateval {ours:.2f} s"
        if ranx is not None:
            small = [ranx.Run({"q": {"a": 1.0, "b": 0.5}}), ranx.Run({"q": {"a": 0.2, "c": 0.1}})]
            ranx.fuse(small, norm="min-max", method=ranx_method)  # numba compiles here, not in the timing
            ranx_runs = [ranx.Run(r.to_dict(), name=r.name) for r in runs]
            theirs, result = median_time(lambda rm=ranx_method, rr=ranx_runs: ranx.fuse(rr, norm="min-max", method=rm),
                                         args.repeats)
            expected = result.to_dict()
            got = fused.to_run().to_dict()
            worst = max(abs(got[t][d] - v) for t, docs in expected.items() for d, v in docs.items())
            line += f"; ranx {theirs:.2f} s; ratio {ours / theirs:.3f}; largest difference {worst:.1e}"
        print(line)
    if not args.skip_simulation:
        simulate(api, paths, args)


def simulate(api, paths: list[Path], args) -> None:
    qrels = qrels_for(paths, args.topics)
    budgets = [10, 20, 30, 50, 75, 100, 150, 200, 300, 500]
    seconds, table = median_time(lambda: api.simulate_budgets(qrels, paths, budgets, orders="mtf"), args.repeats)
    print(f"simulation 10 budgets x {args.runs} runs (move-to-front, AP): {seconds:.1f} s ({cpu(table):.1f} CPU-s); "
          f"tau at {budgets[-1]}: {table['tau'].iloc[-1]:.3f}")


if __name__ == "__main__":
    main()
