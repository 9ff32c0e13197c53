"""Standard measures, end to end: pateval against trec_eval, pytrec_eval and ranx.

Builds (once, cached in benchmarks/_work/) a run of N topics x 1,000 documents with its
qrels, then times each tool reading both files and computing AP, P@10, nDCG@10 and
R@1000 -- each in a fresh child process, so that peak memory and start-up costs (ranx's
numba compilation) are each tool's own. The floor is pyarrow reading the run file alone.
Prints times, peak memory, the means each tool computed, and the ratios.

    python benchmarks/bench_standard.py [--topics 10000] [--trec-eval PATH] [--unordered] [--repeat N]
                                        [--only pateval,trec_eval]

trec_eval is run if a binary is given (--trec-eval or $TREC_EVAL); pytrec_eval and ranx
if installed (`pip install -e ".[bench]"`). ``--unordered`` writes each topic's lines in
random order (the rank column counting lines in file order), so every tool must sort.
"pateval" reads the run in blocks of whole topics (the default); "pateval (whole run)"
reads it at once (``block_bytes=0``). ``--repeat`` runs each tool N times and prints the
range of its times and peak memory.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import make_standard_inputs  # noqa: E402

MEASURES = {"AP": ("map", "map"), "P@10": ("P_10", "precision@10"), "nDCG@10": ("ndcg_cut_10", "ndcg@10"),
            "R@1000": ("recall_1000", "recall@1000")}

CHILD = {
    "floor (pyarrow read)": """
import pyarrow as pa, pyarrow.csv as c
t = c.read_csv(RUN, read_options=c.ReadOptions(column_names=['q','z','d','k','s','t']),
               parse_options=c.ParseOptions(delimiter=' '))
result = {}
""",
    "pateval": """
import pateval
frame = pateval.evaluate(QRELS, RUN, ['AP', 'P@10', 'nDCG@10', 'R@1000'])
result = frame.groupby('measure')['value'].mean().to_dict()
""",
    "pateval (whole run)": """
import pateval
frame = pateval.evaluate(QRELS, RUN, ['AP', 'P@10', 'nDCG@10', 'R@1000'], block_bytes=0)
result = frame.groupby('measure')['value'].mean().to_dict()
""",
    "pytrec_eval": """
import pytrec_eval
qrels, run = {}, {}
with open(QRELS) as f:
    for line in f:
        t, _, d, r = line.split(); qrels.setdefault(t, {})[d] = int(r)
with open(RUN) as f:
    for line in f:
        t, _, d, _, s, _ = line.split(); run.setdefault(t, {})[d] = float(s)
values = pytrec_eval.RelevanceEvaluator(qrels, {'map', 'P_10', 'ndcg_cut_10', 'recall_1000'}).evaluate(run)
names = {'AP': 'map', 'P@10': 'P_10', 'nDCG@10': 'ndcg_cut_10', 'R@1000': 'recall_1000'}
result = {m: sum(v[n] for v in values.values()) / len(values) for m, n in names.items()}
""",
    "ranx": """
import time as _t
from ranx import Qrels, Run, evaluate
start = _t.perf_counter()
evaluate(Qrels({'q': {'d': 1}}), Run({'q': {'d': 1.0}}), ['map', 'precision@10', 'ndcg@10', 'recall@1000'])
compile_seconds = _t.perf_counter() - start
qrels = Qrels.from_file(QRELS, kind='trec')
run = Run.from_file(RUN, kind='trec')
values = evaluate(qrels, run, ['map', 'precision@10', 'ndcg@10', 'recall@1000'])
result = {'AP': values['map'], 'P@10': values['precision@10'], 'nDCG@10': values['ndcg@10'],
          'R@1000': values['recall@1000']}
extra['numba compile s (excluded)'] = compile_seconds
""",
}

WRAPPER = """
import json, sys, time
QRELS, RUN = sys.argv[1], sys.argv[2]
extra = {{}}
start = time.perf_counter()
{body}
elapsed = time.perf_counter() - start - extra.get('numba compile s (excluded)', 0.0)
print(json.dumps({{'seconds': elapsed, 'means': result, 'extra': extra}}))
"""


def _run_child(name: str, qrels: Path, run: Path) -> dict | None:
    code = WRAPPER.format(body=CHILD[name])
    # /usr/bin/time measures the child's peak memory: ru_maxrss read inside a child would
    # include this (parent) process's, inherited across fork on Linux
    done = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", sys.executable, "-c", code, str(qrels), str(run)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if "Command exited" not in line]
        print(f"  {name}: not run ({lines[-2] if len(lines) > 1 else 'failed'})")
        return None
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    peak, user, system = done.stderr.strip().splitlines()[-1].split()
    outcome["peak_mb"] = float(peak) / 1024
    outcome["cpu"] = float(user) + float(system)  # the whole process's, start-up included
    return outcome


def _run_trec_eval(binary: str, qrels: Path, run: Path) -> dict:
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", binary, "-m", "map", "-m", "P.10", "-m", "ndcg_cut.10",
                           "-m", "recall.1000", str(qrels), str(run)], capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    means = {}
    names = {"map": "AP", "P_10": "P@10", "ndcg_cut_10": "nDCG@10", "recall_1000": "R@1000"}
    for line in done.stdout.splitlines():
        measure, topic, value = line.split()
        if topic == "all" and measure in names:
            means[names[measure]] = float(value)
    peak, user, system = done.stderr.strip().splitlines()[-1].split()
    return {"seconds": seconds, "peak_mb": float(peak) / 1024, "cpu": float(user) + float(system), "means": means,
            "extra": {}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=1_000)
    parser.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL") or shutil.which("trec_eval"))
    parser.add_argument("--unordered", action="store_true", help="a run whose lines are not in score order")
    parser.add_argument("--repeat", type=int, default=1, help="run each tool N times (interleaved); print ranges")
    parser.add_argument("--only", help="comma-separated tools to run (default: all)")
    args = parser.parse_args()
    qrels, run = make_standard_inputs(n_topics=args.topics, depth=args.depth, score_order=not args.unordered)
    print(f"run: {run.name} ({run.stat().st_size / 1e6:.0f} MB, {args.topics * args.depth:,} lines"
          f"{', not in score order' if args.unordered else ''}); qrels: {qrels.name}; {os.cpu_count()} cores; "
          f"load average before: {os.getloadavg()[0]:.2f}")
    wanted = set(args.only.split(",")) if args.only else None
    runs: dict[str, list[dict]] = {}
    for _ in range(args.repeat):
        for name in CHILD:
            if wanted is None or name in wanted:
                outcome = _run_child(name, qrels, run)
                if outcome is not None:
                    runs.setdefault(name, []).append(outcome)
        if wanted is None or "trec_eval" in wanted:
            if args.trec_eval and Path(args.trec_eval).exists():
                runs.setdefault("trec_eval", []).append(_run_trec_eval(args.trec_eval, qrels, run))
            elif _ == 0:
                print("  trec_eval: not run (give --trec-eval PATH or set TREC_EVAL)")
    # each tool's best time and lowest peak stand for it; the ranges are printed
    results = {name: {**outs[0], "seconds": min(o["seconds"] for o in outs), "peak_mb": min(o["peak_mb"] for o in outs),
                      "range": (min(o["seconds"] for o in outs), max(o["seconds"] for o in outs),
                                min(o["peak_mb"] for o in outs), max(o["peak_mb"] for o in outs),
                                min(o["cpu"] for o in outs), max(o["cpu"] for o in outs))}
               for name, outs in runs.items()}
    print(f"\n{'tool':<22}{'seconds':>14}{'CPU s':>14}{'peak MB':>12}   means (AP, P@10, nDCG@10, R@1000)")
    for name, r in results.items():
        means = ", ".join(f"{r['means'][m]:.6f}" for m in MEASURES if m in r["means"])
        extra = "".join(f"  [{k}: {v:.2f}]" for k, v in r["extra"].items())
        low, high, mlow, mhigh, clow, chigh = r["range"]
        print(f"{name:<22}{low:>7.2f}-{high:<6.2f}{clow:>7.2f}-{chigh:<6.2f}{mlow:>6.0f}-{mhigh:<5.0f}   "
              f"{means}{extra}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if "pateval" not in results:
        return
    ours = results["pateval"]
    peers = {n: r for n, r in results.items() if n not in ("pateval", "pateval (whole run)", "floor (pyarrow read)")}
    if peers:
        fastest = min(peers, key=lambda n: peers[n]["seconds"])
        print(f"\nspeed-up over the fastest peer ({fastest}): {peers[fastest]['seconds'] / ours['seconds']:.2f}x")
        for name, r in peers.items():
            print(f"  vs {name}: {r['seconds'] / ours['seconds']:.2f}x faster, memory "
                  f"{ours['peak_mb'] / r['peak_mb']:.2f}x theirs")
            diff = max((abs(r["means"][m] - ours["means"][m]) for m in r["means"]), default=float("nan"))
            print(f"     largest difference of the means: {diff:.2e}")
    if "floor (pyarrow read)" in results:
        floor = results["floor (pyarrow read)"]["seconds"]
        print(f"pateval / floor (pyarrow reading the run): {ours['seconds'] / floor:.2f}x")


if __name__ == "__main__":
    main()
