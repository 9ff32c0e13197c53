"""`pateval trec_eval` against trec_eval itself: time, CPU and peak memory on a 10M-line run.

Builds (once, cached in benchmarks/_work/) a run of N topics x 1,000 documents and its
qrels, then runs `trec_eval -m official` and `-m all_trec` and the same `pateval trec_eval`
commands, each in a fresh child process (wall time, CPU time of every thread, and peak
resident memory, by /usr/bin/time; pateval's modules compiled to bytecode first, as installed),
trec_eval and pateval taking turns (``--repeat``: the medians, and the median of each turn's
ratio, so that the machine's speed, which drifts by a fifth over minutes on the development
VM, changes both sides of a ratio alike), on the run as engines write it (each topic's
lines by score) and with each topic's lines in random order (``--orders``; ``interleaved``
also writes every topic's first 500 lines and then their last 500, so that topics are
scattered over the file). Prints the figures, pateval's ratios and the targets of issue 33
(wall time at most 0.2 of trec_eval's, CPU time at most 0.35, peak memory at most 0.5, for
both measure sets and both orders), and checks that both print the same bytes.

    TREC_EVAL=/path/to/trec_eval python benchmarks/bench_trec_eval.py [--topics 10000]
        [--orders ordered,unordered] [--measures official,all_trec] [--repeat N] [--rbp-reference PATH]

trec_eval is built from https://github.com/usnistgov/trec_eval (never committed here) with
optimisation, as users run it::

    git clone https://github.com/usnistgov/trec_eval && make -C trec_eval CFLAGS="-O3 -g"

Lines left out of the comparison: ``rbp`` and ``rbp_resid`` of all_trec, because trec_eval
10.0 built with -O3 reads uninitialised variables (the grades' minimum and maximum) there,
so its own values are garbage; ``--rbp-reference`` names an unoptimised (-O0) build whose
rbp lines are compared instead (on the first order only: it is slow).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import WORK, compile_pateval, make_standard_inputs  # noqa: E402

TARGETS = {"wall": 0.20, "CPU": 0.35, "memory": 0.50}  # pateval's / trec_eval's (issue 33)
GARBAGE_UNDER_O3 = ("rbp", "rbp_resid")  # trec_eval -O3 reads uninitialised values for these


def interleaved_copy(run: Path, depth: int) -> Path:
    """The run with every topic's first half of lines first, then every topic's second half
    (each topic in two places: pateval partitions such a run on disk)."""
    out = run.with_name(run.stem + "_interleaved.txt")
    if out.exists():
        return out
    import numpy as np

    data = run.read_bytes()
    # the offset of every line's start (and the end), topic by topic
    starts = np.r_[0, np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n")) + 1].tolist()
    part = out.with_suffix(".part")
    with open(part, "wb") as handle:
        for half in (0, 1):
            for first in range(0, len(starts) - 1, depth):
                middle = first + depth // 2
                lo, hi = (first, middle) if half == 0 else (middle, first + depth)
                handle.write(data[starts[lo] : starts[min(hi, len(starts) - 1)]])
    part.rename(out)
    return out


def timed(command: list[str], out: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system, every thread) and peak resident MB of one
    child process (measured by /usr/bin/time: a child forked from this process would start
    with its peak), its standard output written to ``out``."""
    figures = out.with_suffix(".time")
    with open(out, "wb") as handle:
        done = subprocess.run(["/usr/bin/time", "-o", str(figures), "-f", "%e %U %S %M", *command], stdout=handle,
                              stderr=subprocess.PIPE)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.decode(errors='replace')}")
    wall, user, system, peak = figures.read_text().split()[-4:]
    return float(wall), float(user) + float(system), int(peak) / 1024  # kilobytes


def compared(text: bytes, leave_out: tuple[str, ...]) -> list[bytes]:
    return [line for line in text.splitlines() if line.split(b"\t")[0].strip().decode() not in leave_out]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--orders", default="ordered,unordered", help="ordered, unordered, interleaved")
    parser.add_argument("--measures", default="official,all_trec")
    parser.add_argument("--repeat", type=int, default=1, help="turns of both commands (the medians are shown)")
    parser.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL"), help="the trec_eval binary "
                        "(default $TREC_EVAL)")
    parser.add_argument("--rbp-reference", help="an unoptimised trec_eval build: its rbp and rbp_resid lines are "
                        "compared with pateval's")
    options = parser.parse_args(argv)
    if not options.trec_eval or not Path(options.trec_eval).is_file():
        raise SystemExit("no trec_eval binary: set TREC_EVAL or give --trec-eval (build it with "
                         "`git clone https://github.com/usnistgov/trec_eval && make -C trec_eval CFLAGS=\"-O3 -g\"`)")
    depth = 1_000
    qrels, ordered = make_standard_inputs(n_topics=options.topics, depth=depth)
    runs = {}
    for order in options.orders.split(","):
        if order == "ordered":
            runs[order] = ordered
        elif order == "unordered":
            runs[order] = make_standard_inputs(n_topics=options.topics, depth=depth, score_order=False)[1]
        elif order == "interleaved":
            runs[order] = interleaved_copy(ordered, depth)
        else:
            raise SystemExit(f"unknown order {order!r}: ordered, unordered or interleaved")
    print(f"qrels {qrels.name}; {options.topics * depth:,} lines per run ({ordered.stat().st_size / 1e6:.0f} MB); "
          f"trec_eval {options.trec_eval}; {os.cpu_count()} cores")
    compile_pateval()
    pateval = [sys.executable, "-m", "pateval", "trec_eval"]
    failed = []
    header = (f"{'run':<12} {'-m':<9} {'tool':<10} {'wall s':>7} {'CPU s':>7} {'peak MB':>8}   "
              f"{'wall ratio':>10} {'CPU ratio':>10} {'memory ratio':>12}")
    print(header)
    for order, run in runs.items():
        for measures in options.measures.split(","):
            tools = (("trec_eval", [options.trec_eval]), ("pateval", pateval))
            outs = {tool: WORK / f"out_{tool}_{order}_{measures}.txt" for tool, _ in tools}
            samples: dict[str, list] = {tool: [] for tool, _ in tools}
            for _ in range(options.repeat):  # the two take turns
                for tool, command in tools:
                    samples[tool].append(timed([*command, "-m", measures, str(qrels), str(run)], outs[tool]))
            figures = {tool: tuple(statistics.median(s[k] for s in turns) for k in range(3))
                       for tool, turns in samples.items()}
            outputs = {tool: outs[tool].read_bytes() for tool, _ in tools}
            leave_out = GARBAGE_UNDER_O3 if measures == "all_trec" else ()
            if compared(outputs["trec_eval"], leave_out) != compared(outputs["pateval"], leave_out):
                failed.append(f"{order} -m {measures}: the outputs differ (see {WORK}/out_*_{order}_{measures}.txt)")
            if leave_out and options.rbp_reference and order == next(iter(runs)):
                reference = WORK / f"out_reference_{order}_{measures}.txt"
                timed([options.rbp_reference, "-m", measures, str(qrels), str(run)], reference)
                kept = tuple(name for name in _names(outputs["pateval"]) if name not in leave_out)
                if compared(reference.read_bytes(), kept) != compared(outputs["pateval"], kept):
                    failed.append(f"{order} -m {measures}: rbp/rbp_resid differ from {options.rbp_reference}")
            # each turn's ratio (pateval's run beside the trec_eval run just before it), their median
            ratios = {what: statistics.median(ours[k] / theirs[k] for theirs, ours in
                                              zip(samples["trec_eval"], samples["pateval"], strict=True))
                      for k, what in enumerate(("wall", "CPU", "memory"))}
            for tool in ("trec_eval", "pateval"):
                seconds, cpu, peak = figures[tool]
                shown = (f"   {ratios['wall']:10.2f} {ratios['CPU']:10.2f} {ratios['memory']:12.2f}  (targets <= "
                         + ", ".join(f"{TARGETS[what]:.2f}" for what in ratios) + ")" if tool == "pateval" else "")
                print(f"{order:<12} {measures:<9} {tool:<10} {seconds:7.2f} {cpu:7.2f} {peak:8.0f}{shown}")
            missed = [f"{what} {ratio:.2f}" for what, ratio in ratios.items() if ratio > TARGETS[what]]
            if missed:
                print(f"{'':<12} {'':<9} -- NOT MET ({', '.join(missed)})")
    if failed:
        raise SystemExit("\n".join(failed))
    print("outputs identical" + (f" (leaving out {', '.join(GARBAGE_UNDER_O3)} of all_trec: garbage under -O3)"
                                 if "all_trec" in options.measures.split(",") else ""))


def _names(text: bytes) -> set[str]:
    return {line.split(b"\t")[0].strip().decode() for line in text.splitlines()}


if __name__ == "__main__":
    main()
