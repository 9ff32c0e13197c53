"""Synthetic corpus generation, and the whole collection pipeline on it, timed.

Phases, each run as its own process through the command line so that its peak memory
(resident set of the process and its workers, from ``wait4``) is its own:

* ``generate`` -- ``pateval corpus generate``: documents/s and MB/s written.
* ``ingest``   -- ``pateval corpus ingest`` of the generated files (with ``--pipeline``).
* ``build``    -- ``pateval collection build`` (Roda 2009 criteria, passages on), and the
  selection funnel it reports (``--pipeline``).

Memory must stay flat in corpus size: run two sizes and compare the peaks.

Usage::

    python benchmarks/bench_synthetic.py                          # 3,000 patents, generation only (< 1 min)
    python benchmarks/bench_synthetic.py --patents 53000 --pipeline --keep /data/bench100k
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run_phase(name: str, argv: list[str]) -> dict:
    """Run one command; its wall time, and peak RSS (MB) of it and its children."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # wait4 gives the usage of this child (and the descendants it waited for) alone.
    _pid, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    stdout = process.stdout.read() if process.stdout else ""
    stderr = process.stderr.read() if process.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.stderr.write(stderr)
        raise SystemExit(f"{name} failed with exit status {code}")
    # ru_maxrss is in kilobytes on Linux.
    return {"phase": name, "seconds": round(seconds, 2), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2), "stdout": stdout}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--patents", type=int, default=3000, help="EP patents to generate (about 2.1 files each)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--pipeline", action="store_true", help="also ingest the corpus and build a collection")
    parser.add_argument("--keep", metavar="DIR", help="work in DIR (must not exist) and keep the outputs")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="pateval-bench-synthetic-"))
    if args.keep:
        work.mkdir(parents=True, exist_ok=False)
    pateval = [sys.executable, "-m", "pateval.cli"]
    results = []
    try:
        generated = run_phase("generate", pateval + [
            "corpus", "generate", "--out", str(work / "corpus"), "--patents", str(args.patents),
            "--seed", str(args.seed), "--workers", str(args.workers), "--no-progress"])
        manifest = json.loads((work / "corpus" / "corpus.json").read_text())
        size = sum(p.stat().st_size for p in (work / "corpus").rglob("*.xml"))
        documents = manifest["counts"]["documents"]
        generated.update(documents=documents, megabytes=round(size / 1e6, 1),
                         documents_per_second=round(documents / generated["seconds"], 1),
                         megabytes_per_second=round(size / 1e6 / generated["seconds"], 2),
                         documents_per_cpu_second=round(documents / max(generated["cpu_seconds"], 1e-9), 1))
        results.append(generated)
        if args.pipeline:
            ingested = run_phase("ingest", pateval + [
                "corpus", "ingest", str(work / "corpus"), "--out", str(work / "store"),
                "--workers", str(args.workers), "--no-progress"])
            ingested.update(documents_per_second=round(documents / ingested["seconds"], 1),
                            documents_per_cpu_second=round(documents / max(ingested["cpu_seconds"], 1e-9), 1))
            results.append(ingested)
            built = run_phase("build", pateval + [
                "collection", "build", "--store", str(work / "store"), "--out", str(work / "collection"),
                "--threads", str(args.workers), "--format", "json"])
            summary = json.loads(built["stdout"])
            built.update(selection=summary["selection"], counts=summary["counts"], checks=summary["checks"],
                         timings=summary["timings"])
            results.append(built)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    for result in results:
        result.pop("stdout", None)
    if args.json:
        print(json.dumps({"patents": args.patents, "workers": args.workers, "phases": results}, indent=2))
        return 0
    for result in results:
        line = (f"{result['phase']:<9} {result['seconds']:>9.1f} s (CPU {result['cpu_seconds']:.1f} s)"
                f"  peak RSS {result['peak_rss_mb']:>8.1f} MB")
        if result["phase"] == "generate":
            line += (f"  {result['documents']} documents, {result['megabytes']} MB: "
                     f"{result['documents_per_second']} docs/s, {result['megabytes_per_second']} MB/s, "
                     f"{result['documents_per_cpu_second']} docs per CPU-second")
        if result["phase"] == "ingest":
            line += (f"  {result['documents_per_second']} docs/s, "
                     f"{result['documents_per_cpu_second']} docs per CPU-second")
        print(line)
        if result["phase"] == "build":
            selection = result["selection"]
            print(f"          {selection['candidates']} candidate topics")
            for step in selection["steps"]:
                print(f"          - {step['description']}: removed {step['removed']}, {step['after']} left")
            print(f"          counts {result['counts']}")
            print(f"          checks {result['checks']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
