"""Scale: a 100M-line run, and 100 runs of 1M lines, evaluated in blocks of whole topics.

    python benchmarks/bench_scale.py big [--topics 100000] [--trec-eval PATH] [--repeat N] [--check-lines 5000000]
    python benchmarks/bench_scale.py many [--runs 100] [--topics 1000] [--trec-eval PATH]
    python benchmarks/bench_scale.py clean

``big`` writes (once, under benchmarks/_work/, ~3.6 GB) a run of TOPICS x 1,000 lines and
its qrels, then times `pateval.evaluate` on it in a fresh child process (peak memory by
/usr/bin/time) beside trec_eval (if a binary is given; it holds the whole run in memory:
about 9 GB for 100M lines). "Same numbers": the first and the last CHECK_LINES lines (whole
topics) are copied to their own files and evaluated with the whole run in memory
(``block_bytes=0``); their per-topic values must equal those of the blocked evaluation of
the big run. ``many`` evaluates RUNS runs of TOPICS x 1,000 lines (sharing one qrels) in one
call, beside trec_eval run on each. ``clean`` deletes the generated files.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import WORK, make_large_inputs  # noqa: E402

MEASURES = ["AP", "P@10", "nDCG@10", "R@1000"]
TREC_NAMES = {"map": "AP", "P_10": "P@10", "ndcg_cut_10": "nDCG@10", "recall_1000": "R@1000"}

CHILD = f"""
import json, sys, time
import pateval
qrels, out, block = sys.argv[1], sys.argv[2], int(sys.argv[3])
runs = sys.argv[4:]
start = time.perf_counter()
from pathlib import Path
named = {{Path(r).stem: r for r in runs}} if len(runs) > 1 else runs[0]  # several runs share the tag: named by file
frame = pateval.evaluate(qrels, named, {MEASURES!r}, block_bytes=block)
seconds = time.perf_counter() - start
frame.to_parquet(out)
means = frame.groupby(['run', 'measure'])['value'].mean()
print(json.dumps({{'seconds': seconds, 'rows': len(frame),
                  'means': {{f'{{r}} {{m}}': v for (r, m), v in means.items()}}}}))
"""


def _pateval(qrels: Path, runs: list[Path], out: Path, *, block_bytes: int | None = None) -> dict:
    block = -1 if block_bytes is None else block_bytes
    code = CHILD.replace("block_bytes=block", "block_bytes=None if block < 0 else block")
    done = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-c", code, str(qrels), str(out), str(block),
                           *map(str, runs)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"pateval failed: {done.stderr[-2000:]}")
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    outcome["peak_mb"] = float(done.stderr.strip().splitlines()[-1]) / 1024
    return outcome


def _trec_eval(binary: str, qrels: Path, run: Path) -> dict:
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M", binary, "-m", "map", "-m", "P.10", "-m", "ndcg_cut.10",
                           "-m", "recall.1000", str(qrels), str(run)], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        return {"seconds": seconds, "peak_mb": float("nan"), "means": {}, "failed": done.stderr[-300:]}
    means = {TREC_NAMES[m]: float(v) for m, t, v in (line.split() for line in done.stdout.splitlines())
             if t == "all" and m in TREC_NAMES}
    return {"seconds": seconds, "peak_mb": float(done.stderr.strip().splitlines()[-1]) / 1024, "means": means}


def _copy_lines(source: Path, target: Path, *, first: int | None = None, last: int | None = None) -> Path:
    command = ["head", "-n", str(first)] if first is not None else ["tail", "-n", str(last)]
    with open(target, "wb") as out:
        subprocess.run([*command, str(source)], stdout=out, check=True)
    return target


def _same_numbers(big_frame: Path, pieces: list[tuple[Path, Path]], qrels: Path) -> float:
    """Largest difference between the big run's blocked per-topic values and those of
    pieces of it evaluated whole in memory (the piece's topics must all be there)."""
    import pandas as pd

    big = pd.read_parquet(big_frame).set_index(["topic", "measure"])["value"]
    worst = 0.0
    for piece, out in pieces:
        whole = _pateval(qrels, [piece], out, block_bytes=0)
        frame = pd.read_parquet(out).set_index(["topic", "measure"])["value"]
        missing = frame.index.difference(big.index)
        if len(missing):
            raise SystemExit(f"topics of {piece.name} missing from the big run's values: {list(missing[:3])}")
        worst = max(worst, float((big.loc[frame.index] - frame).abs().max()))
        print(f"  {piece.name}: {len(frame):,} per-topic values, in memory {whole['seconds']:.1f} s, "
              f"{whole['peak_mb']:.0f} MB")
    return worst


def _big(args) -> None:
    qrels, run = make_large_inputs(n_topics=args.topics, depth=1_000)
    lines = args.topics * 1_000
    print(f"run: {run.name} ({run.stat().st_size / 1e9:.2f} GB, {lines:,} lines); {os.cpu_count()} cores")
    timings = []
    for k in range(args.repeat):
        load = os.getloadavg()[0]
        outcome = _pateval(qrels, [run], WORK / "scale_big_values.parquet")
        timings.append(outcome)
        print(f"  pateval #{k + 1}: {outcome['seconds']:.1f} s, peak {outcome['peak_mb']:.0f} MB "
              f"(load average before {load:.2f})")
    means = timings[0]["means"]
    if args.trec_eval:
        load = os.getloadavg()[0]
        theirs = _trec_eval(args.trec_eval, qrels, run)
        print(f"  trec_eval: {theirs['seconds']:.1f} s, peak {theirs['peak_mb']:.0f} MB (load average before "
              f"{load:.2f})"
              + (f" FAILED: {theirs['failed']}" if "failed" in theirs else ""))
        diff = max((abs(theirs["means"][m] - v) for k,
                    v in means.items() for m in theirs["means"] if k.endswith(" " + m)),
                   default=float("nan"))
        print(f"  largest difference of the means from trec_eval's (4 decimals printed): {diff:.2e}")
    check = [(_copy_lines(run, WORK / "scale_head.txt", first=args.check_lines), WORK / "scale_head.parquet"),
             (_copy_lines(run, WORK / "scale_tail.txt", last=args.check_lines), WORK / "scale_tail.parquet")]
    worst = _same_numbers(WORK / "scale_big_values.parquet", check, qrels)
    for piece, out in check:
        piece.unlink()
        out.unlink()
    seconds = [t["seconds"] for t in timings]
    peaks = [t["peak_mb"] for t in timings]
    print(f"\npateval, {lines:,} lines: {min(seconds):.1f}-{max(seconds):.1f} s, peak "
          f"{min(peaks):.0f}-{max(peaks):.0f} MB "
          f"(limit 8192 MB); means {', '.join(f'{k.split()[-1]} {v:.6f}' for k, v in means.items())}")
    print(f"largest difference from the whole-run-in-memory values (first and last {args.check_lines:,} lines): "
          f"{worst:.2e}")


def _many(args) -> None:
    runs = []
    for k in range(args.runs):
        qrels, run = make_large_inputs(n_topics=args.topics, depth=1_000, seed=7, score_seed=1000 + k, name=f"many{k}")
        runs.append(run)
    total = sum(r.stat().st_size for r in runs)
    print(f"{len(runs)} runs of {args.topics * 1_000:,} lines ({total / 1e9:.2f} GB); {os.cpu_count()} cores")
    load = os.getloadavg()[0]
    ours = _pateval(qrels, runs, WORK / "scale_many_values.parquet")
    print(f"  pateval (one call, all runs): {ours['seconds']:.1f} s, peak {ours['peak_mb']:.0f} MB, "
          f"{ours['rows']:,} values (load average before {load:.2f})")
    if args.trec_eval:
        load = os.getloadavg()[0]
        theirs = [_trec_eval(args.trec_eval, qrels, run) for run in runs]
        print(f"  trec_eval (one call per run): {sum(t['seconds'] for t in theirs):.1f} s in all, "
              f"peak {max(t['peak_mb'] for t in theirs):.0f} MB (load average before {load:.2f})")
        worst = max(abs(ours["means"][f"{run.stem} {m}"] - v) for run, t in zip(runs, theirs, strict=False) for m,
                    v in t["means"].items())
        print(f"  largest difference of the {len(runs) * len(MEASURES)} means from trec_eval's (4 decimals printed): "
              f"{worst:.2e}")
    (WORK / "scale_many_values.parquet").unlink()


def _clean(_args) -> None:
    for path in list(WORK.glob("run_large_*")) + list(WORK.glob("qrels_large_*")) + list(WORK.glob("scale_*")):
        print(f"removing {path.name} ({path.stat().st_size / 1e9:.2f} GB)")
        path.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    big = sub.add_parser("big")
    big.add_argument("--topics", type=int, default=100_000)
    big.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL"))
    big.add_argument("--repeat", type=int, default=1)
    big.add_argument("--check-lines", type=int, default=5_000_000)
    big.set_defaults(run=_big)
    many = sub.add_parser("many")
    many.add_argument("--runs", type=int, default=100)
    many.add_argument("--topics", type=int, default=1_000)
    many.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL"))
    many.set_defaults(run=_many)
    sub.add_parser("clean").set_defaults(run=_clean)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
