"""Repeated lines: N copies of one run line and of one qrels line, answered in linear time.

A run that lists one document N times for a topic is refused at its second line (or, with
``--on-duplicate first``, kept once with a note); a qrels file that repeats one judgement N
times is merged with a note; a passage qrels file read by ``pateval assess import`` likewise.
Before issue 33 the pair index walked back one step at a time through a run of equal
hashes, so N copies cost O(N^2) (20,000 run lines: 16 s; 200,000 passage judgements: over 5
minutes).

Prints the wall and CPU time of each command in a fresh process (medians of ``--repeat``
runs; on a shared machine the CPU time is the steadier figure), beside trec_eval's on the
same files when ``TREC_EVAL`` names its binary (it refuses both: "duplicate docs D1", exit
4), and pateval's
start-up (``pateval evaluate`` on one line each) for scale; also the passage qrels reader
(``pateval assess import``'s) in this process.

    [TREC_EVAL=/path/to/trec_eval] python benchmarks/bench_repeats.py [--copies 200000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import compile_pateval  # noqa: E402


def _timed(command: list[str], repeat: int) -> tuple[float, float, int, str]:
    """The median wall and CPU time (user + system) of ``command``, its exit status and the
    first line of its stderr."""
    times, cpu, status, last = [], [], 0, ""
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        times.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        status = done.returncode
        last = (done.stderr.strip().splitlines() or [""])[0][:110]
    return statistics.median(times), statistics.median(cpu), status, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    compile_pateval()
    root = Path(tempfile.mkdtemp(prefix="bench-repeats-"))
    one_run, one_qrels = root / "run1.txt", root / "qrels1.txt"
    run, qrels, passages = root / "run.txt", root / "qrels.txt", root / "qrels_PSG.txt"
    one_run.write_text("q1 Q0 D1 1 1.0 r\n")
    one_qrels.write_text("q1 0 D1 1\n")
    run.write_text("q1 Q0 D1 1 1.0 r\n" * args.copies)
    qrels.write_text("q1 0 D1 1\n" * args.copies)
    passages.write_text("PSG-1 EP-1234567-A1 /patent-document/description/p[1]\n" * args.copies)
    pateval = [sys.executable, "-m", "pateval"]
    cases = [("start-up: one line each", pateval + ["evaluate", str(one_qrels), str(one_run)], None),
             (f"run of {args.copies:,} copies (refused)", pateval + ["evaluate", str(one_qrels), str(run)],
              [str(one_qrels), str(run)]),
             (f"run of {args.copies:,} copies, --on-duplicate first",
              pateval + ["evaluate", "--on-duplicate", "first", str(one_qrels), str(run)], None),
             (f"qrels of {args.copies:,} copies (merged)", pateval + ["evaluate", str(qrels), str(one_run)],
              [str(qrels), str(one_run)])]
    trec_eval = os.environ.get("TREC_EVAL")
    print(f"{'case':<48} {'pateval wall/CPU s':>18} {'exit':>4}  {'trec_eval wall/CPU s':>20} {'exit':>4}  "
          "pateval's message")
    for name, command, theirs in cases:
        seconds, cpu, status, message = _timed(command, args.repeat)
        peer = "" if not (trec_eval and theirs) else "{:>9.3f} / {:<8.3f} {:>4}".format(
            *_timed([trec_eval, *theirs], args.repeat)[:3])
        print(f"{name:<48} {seconds:>7.3f} / {cpu:<8.3f} {status:>4}  {peer:>25}  {message}")
    from pateval.formats.passages import read_passage_qrels

    times = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        read = read_passage_qrels(passages)
        times.append(time.perf_counter() - started)
    print(f"{f'passage qrels of {args.copies:,} copies (assess import)':<48} {statistics.median(times):>7.3f} (in "
          f"process){'':>29}{read.notes[0].split(': ', 1)[1]}")


if __name__ == "__main__":
    main()
