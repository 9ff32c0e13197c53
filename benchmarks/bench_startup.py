"""Start-up: how long a shell loop pays per pateval call, beside trec_eval on the same files.

Times, in fresh processes, ``pateval --help``, ``pateval evaluate --example -m AP`` (the
three example runs), ``pateval evaluate QRELS RUN1 -m AP``, ``python -c "import pateval"``
and the interpreter alone, against ``trec_eval -m map QRELS RUN1`` (and three trec_eval
calls for the three runs). Each command runs N times (interleaved, so that a change in the
machine's load hits every command alike); the medians of wall time and of CPU time (user +
system, which the load of other processes disturbs less) are printed with the targets and
the load average.

    python benchmarks/bench_startup.py [--repeats 10] [--trec-eval PATH]

trec_eval is run if a binary is given (--trec-eval or $TREC_EVAL).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGETS = {"pateval --help": 0.15, "pateval evaluate --example -m AP": 0.35, "import pateval": 0.10}


def _example_files() -> tuple[str, list[str]]:
    import pateval

    qrels, runs = pateval.example_files()
    return str(qrels), [str(r) for r in runs]


def _timed(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL"), help="trec_eval binary")
    args = parser.parse_args()

    python = sys.executable
    script = shutil.which("pateval", path=str(Path(python).parent)) or shutil.which("pateval")
    if script is None:
        raise SystemExit("no `pateval` command beside this interpreter: pip install -e . first")
    qrels, runs = _example_files()
    commands: dict[str, list[list[str]]] = {
        "python -c pass (floor)": [[python, "-c", "pass"]],
        "import pateval": [[python, "-c", "import pateval"]],
        "pateval --help": [[script, "--help"]],
        "pateval evaluate --help": [[script, "evaluate", "--help"]],
        "pateval evaluate --example -m AP": [[script, "evaluate", "--example", "-m", "AP"]],
        "pateval evaluate QRELS RUN1 -m AP": [[script, "evaluate", qrels, runs[0], "-m", "AP"]],
    }
    if args.trec_eval:
        commands["trec_eval -m map QRELS RUN1"] = [[args.trec_eval, "-m", "map", qrels, runs[0]]]
        commands["trec_eval x3 (the example's 3 runs)"] = [[args.trec_eval, "-m", "map", qrels, run] for run in runs]

    for argv_list in commands.values():  # warm the file cache and byte-code once
        for argv in argv_list:
            _timed(argv)
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    load_before = os.getloadavg()
    for _ in range(args.repeats):
        for name, argv_list in commands.items():
            results = [_timed(argv) for argv in argv_list]
            walls[name].append(sum(w for w, _ in results))
            cpus[name].append(sum(c for _, c in results))
    load_after = os.getloadavg()

    print(f"{os.cpu_count()} cores; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after "
          f"({args.repeats} runs of each command, interleaved; medians)")
    print(f"{'command':<38}{'wall s':>9}{'(min)':>8}{'CPU s':>9}{'target':>9}")
    for name in commands:
        target = TARGETS.get(name)
        print(f"{name:<38}{statistics.median(walls[name]):>9.3f}{min(walls[name]):>8.3f}"
              f"{statistics.median(cpus[name]):>9.3f}{'' if target is None else f'<= {target:.2f}':>9}")
    if args.trec_eval:
        ours = statistics.median(walls["pateval evaluate QRELS RUN1 -m AP"])
        theirs = statistics.median(walls["trec_eval -m map QRELS RUN1"])
        print(f"pateval / trec_eval on one example run: {ours / theirs:.1f}x the wall time "
              f"({ours * 1000:.0f} ms against {theirs * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
