"""Snapshot every command's output on the bundled example data and the demo, for ``diff -r``.

Usage::

    python scripts/outputs_snapshot.py OUT_DIR [--no-demo] [--patents N]

Runs ``python -m pateval`` (the pateval the interpreter imports: set PYTHONPATH to a
checkout's ``src`` to snapshot that checkout) on copies of ``src/pateval/data/examples``
(evaluate in every output format, per topic, gzip, Parquet, stdin, ``-c``; measures;
compare; analyse-measures; stability; report; check; bad inputs) and of a few files
of ``tests/data``, then runs ``pateval demo`` (seed 0) and the commands that work on what
it wrote (collection stats, corpus lengths, search, evaluate and compare with document
lengths, user-model, simulate-log and calibrate). For every step it writes ``NAME.cmd`` (the command),
``NAME.stdout``, ``NAME.stderr``, ``NAME.exit`` and the files the step wrote under
``NAME.files/``. Two snapshots of two checkouts are byte-identical exactly when
``diff -r`` finds nothing.

Only what varies from run to run is rewritten, nothing else:

- the absolute path of the working directory becomes ``<WORK>`` (in every text output);
- the demo's step timings (``done in 1.2 s``, ``total 95 s``) and, in any JSON output, the
  values of ``"seconds"`` and of a ``"timings"`` object (``demo.json``,
  ``collection/build.json``) become ``<s>``;
- matplotlib gets ``svg.hashsalt`` (through ``MATPLOTLIBRC``), so that the ids inside SVG
  figures are a hash of the figure instead of random (pateval itself leaves them random);
- binary stores the demo writes (the tantivy index, the Parquet/DuckDB store) are not
  copied: their bytes carry segment ids and write times; what is read from them
  (search runs, collection stats, document lengths) is compared instead.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pateval

#: the data of the pateval being snapshotted (the one PYTHONPATH finds), not of this script's checkout
PACKAGE = Path(pateval.__file__).resolve().parent
EXAMPLES = PACKAGE / "data" / "examples"
TEST_DATA = PACKAGE.parent.parent / "tests" / "data"

#: text outputs whose timings vary: (pattern, replacement)
_TIMINGS = [
    (re.compile(r"done in \d+(\.\d+)? s"), "done in <s> s"),
    (re.compile(r"total \d+(\.\d+)? s"), "total <s> s"),
    (re.compile(r"(\"(seconds|elapsed)\": ?)-?\d+(\.\d+)?(e-?\d+)?"), r"\1<s>"),
    (re.compile(r"\b(in|took) \d+(\.\d+)? ?s\b"), r"\1 <s> s"),
    (re.compile(r"\d+(\.\d+)? (docs|documents|topics|runs)/s\b"), r"<rate> \2/s"),
]
#: a JSON object of step timings (demo.json, collection/build.json): its numbers
_TIMINGS_BLOCK = re.compile(r'("timings": ?\{)([^{}]*)(\})')
_NUMBER = re.compile(r"(: ?)-?\d+(\.\d+)?(e-?\d+)?")
_BINARY_DIRS = ("index", "store")


class Snapshot:
    def __init__(self, out: Path, work: Path) -> None:
        self.out = out
        self.work = work
        self.count = 0

    def normalise(self, text: str) -> str:
        text = text.replace(str(self.work), "<WORK>")
        for pattern, replacement in _TIMINGS:
            text = pattern.sub(replacement, text)
        return _TIMINGS_BLOCK.sub(lambda m: m[1] + _NUMBER.sub(r"\1<s>", m[2]) + m[3], text)

    def run(self, name: str, *args: str, stdin: str | None = None, files: tuple[str, ...] = (),
            timeout: float = 1800) -> int:
        """Run ``pateval ARGS`` in the working directory; keep its outputs and ``files``."""
        self.count += 1
        stem = f"{self.count:03d}-{name}"
        feed = (self.work / stdin).read_bytes() if stdin else b""
        done = subprocess.run([sys.executable, "-m", "pateval", *args], cwd=self.work, input=feed,
                              capture_output=True, timeout=timeout, env=_environment(self.work))
        (self.out / f"{stem}.cmd").write_text(" ".join(["pateval", *args]) + (f" < {stdin}" if stdin else "") + "\n")
        self._write(self.out / f"{stem}.stdout", done.stdout)
        self._write(self.out / f"{stem}.stderr", done.stderr)
        (self.out / f"{stem}.exit").write_text(f"{done.returncode}\n")
        for relative in files:
            self.keep(self.work / relative, self.out / f"{stem}.files" / relative)
        return done.returncode

    def keep(self, source: Path, target: Path) -> None:
        """Copy ``source`` (a file or a tree, binary stores left out) as normalised text or bytes."""
        if source.is_dir():
            for path in sorted(source.rglob("*")):
                if path.is_file() and not set(path.relative_to(source).parts) & set(_BINARY_DIRS):
                    self.keep(path, target / path.relative_to(source))
            return
        if not source.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.with_name(target.name + ".MISSING").write_text("")
            return
        self._write(target, source.read_bytes())

    def _write(self, target: Path, data: bytes) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        if data[:2] == b"\x1f\x8b":  # gzip: compare the content, the header carries a time
            data = gzip.decompress(data)
            target = target.with_name(target.name + ".ungz")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            target.write_bytes(data)
            return
        target.write_text(self.normalise(text), encoding="utf-8", newline="")


def _environment(work: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(PYTHONHASHSEED="0", MPLBACKEND="Agg", TZ="UTC", COLUMNS="100", LC_ALL="C.UTF-8",
               SOURCE_DATE_EPOCH="0", MATPLOTLIBRC=str(work / "matplotlibrc"))
    return env


def _prepare_examples(work: Path) -> None:
    (work / "matplotlibrc").write_text("svg.hashsalt: pateval-outputs-snapshot\n")
    data = work / "ex"
    shutil.copytree(EXAMPLES, data)
    for name in ("qrels.txt", "run1.txt"):
        (data / f"{name}.gz").write_bytes(gzip.compress((data / name).read_bytes(), mtime=0))
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns: dict[str, list] = {"qid": [], "docno": [], "score": [], "rank": []}
    for line in (data / "run2.txt").read_text().splitlines():
        qid, _, docno, rank, score, _ = line.split()
        columns["qid"].append(qid)
        columns["docno"].append(docno)
        columns["score"].append(float(score))
        columns["rank"].append(int(rank))
    pq.write_table(pa.table(columns), data / "run2.parquet")
    (data / "bad_run.txt").write_text("PAC-1 Q0 EP-00181 1 16.6671 run1\nPAC-1 Q0 EP-12850 two 15.0 run1\n")
    for relative in ("trec/qrels.test", "trec/results.test", "clefip/clefip2012_PSG_run_example.txt",
                     "clefip/clefip2012_PSG_topic_example.txt"):
        shutil.copy(TEST_DATA / relative, data / Path(relative).name)


def snapshot_examples(snap: Snapshot) -> None:
    q, r1, r2, r3 = "ex/qrels.txt", "ex/run1.txt", "ex/run2.txt", "ex/run3.txt"
    runs = (r1, r2, r3)
    measures = ["-m", "AP", "-m", "P@10", "-m", "nDCG@10", "-m", "R@1000", "-m", "PRES@100", "-m", "RR",
                "-m", "bpref", "-m", "Rprec"]
    snap.run("version", "--version")
    snap.run("evaluate-example", "evaluate", "--example")
    snap.run("evaluate-default", "evaluate", q, r1)
    snap.run("evaluate-per-topic", "evaluate", "-q", q, *runs)
    for format in ("trec", "json", "jsonl", "csv", "prototext"):
        snap.run(f"evaluate-{format}", "evaluate", "-q", "--format", format, *measures, q, r1, r2)
    snap.run("evaluate-complete", "evaluate", "-c", "-q", "-m", "AP", "-m", "P@5", q, r3)
    snap.run("evaluate-names-trec", "evaluate", "--names", "trec", "-q", q, r1)
    snap.run("evaluate-gzip", "evaluate", "-q", "ex/qrels.txt.gz", "ex/run1.txt.gz")
    snap.run("evaluate-parquet", "evaluate", "-q", "-m", "AP", "-m", "nDCG@10", q, "ex/run2.parquet")
    snap.run("evaluate-stdin", "evaluate", "-m", "AP", q, "-", stdin=r1)
    snap.run("evaluate-order-rank", "evaluate", "--order", "rank", "-m", "AP", "-m", "P@10", q, r1)
    snap.run("evaluate-judged-only", "evaluate", "-J", "-m", "AP", "-m", "P@10", "-m", "nDCG@10", q, r1)
    snap.run("evaluate-judged-only-param", "evaluate", "-m", "AP(judged_only=true)", "-m", "RR(rel=2)", q, r1)
    snap.run("evaluate-cutoffs", "evaluate", "-m", "P@5", "-m", "ndcg_cut.5,10", "-m", "recall.100", q, r1)
    snap.run("evaluate-output", "evaluate", "-q", "--format", "csv", "-o", "scores.csv", q, *runs,
             files=("scores.csv",))
    snap.run("evaluate-scores-trec", "evaluate", "-q", "-o", "scores.txt", "-m", "AP", "-m", "P@10", q, r1,
             files=("scores.txt",))
    snap.run("evaluate-trec-data", "evaluate", "-q", "ex/qrels.test", "ex/results.test")
    snap.run("evaluate-bad-run", "evaluate", q, "ex/bad_run.txt")
    snap.run("evaluate-missing-file", "evaluate", q, "ex/no_such_run.txt")
    snap.run("evaluate-bad-measure", "evaluate", "-m", "NoSuchMeasure", q, r1)
    for format in ("text", "markdown", "json"):
        snap.run(f"measures-{format}", "measures", "--format", format)
    snap.run("measures-family", "measures", "--family", "professional")
    snap.run("compare", "compare", q, *runs)
    snap.run("compare-baseline", "compare", "--baseline", "run1", "-m", "AP", "-m", "PRES@100", q, *runs)
    for format in ("csv", "json", "latex"):
        snap.run(f"compare-{format}", "compare", "--format", format, q, *runs)
    for test in ("wilcoxon", "randomisation", "bootstrap", "tukey"):
        snap.run(f"compare-{test}", "compare", "--test", test, "-B", "200", q, *runs)
    snap.run("compare-scores", "compare", "--scores", "scores.csv")
    snap.run("analyse-measures", "analyse-measures", "-B", "200", q, *runs)
    snap.run("analyse-measures-json", "analyse-measures", "--format", "json", "-B", "200", q, *runs)
    snap.run("stability", "stability", "--sizes", "5,10,20", "--trials", "5", q, *runs)
    snap.run("stability-csv", "stability", "--format", "csv", "--sizes", "5,10", q, *runs)
    snap.run("report", "report", "-B", "200", "-o", "report.html", q, *runs, files=("report.html",))
    snap.run("report-baseline-png", "report", "-B", "200", "--baseline", "run1", "--image-format", "png",
             "-o", "report-png.html", q, *runs, files=("report-png.html",))
    snap.run("check-psg-run", "check", "ex/clefip2012_PSG_run_example.txt")
    snap.run("check-psg-run-topics", "check", "--topics", "ex/clefip2012_PSG_topic_example.txt",
             "ex/clefip2012_PSG_run_example.txt")


def snapshot_demo(snap: Snapshot, patents: int) -> None:
    code = snap.run("demo", "demo", "--out", "demo", "--patents", str(patents), "--no-progress",
                    files=("demo",), timeout=3600)
    if code:
        return
    qrels, runs = "demo/collection/qrels_PAC.txt", sorted(p.name for p in (snap.work / "demo" / "runs").iterdir())
    run_paths = [f"demo/runs/{name}" for name in runs]
    snap.run("demo-collection-stats", "collection", "stats", "--collection", "demo/collection")
    snap.run("demo-collection-stats-json", "collection", "stats", "--collection", "demo/collection", "--format", "json")
    snap.run("demo-corpus-lengths", "corpus", "lengths", "demo/store", "--out", "lengths.txt", files=("lengths.txt",))
    snap.run("demo-evaluate-tbg", "evaluate", "-q", "--doc-lengths", "demo/doc_lengths.txt", "-m", "TBG",
             "-m", "PRES@100", "-m", "AP", qrels, *run_paths[:3])
    snap.run("demo-evaluate-patent-key", "evaluate", "--doc-key", "patent", "-m", "AP", "-m", "PRES@100",
             qrels, *run_paths[:2])
    snap.run("demo-user-model-time", "user-model", "time", "--doc-lengths", "demo/doc_lengths.txt", qrels,
             run_paths[0])
    snap.run("demo-user-model-simulate", "user-model", "simulate", "--users", "50", "--doc-lengths",
             "demo/doc_lengths.txt", qrels, run_paths[0])
    snap.run("demo-compare", "compare", "--doc-lengths", "demo/doc_lengths.txt", "-m", "TBG", "-m", "AP",
             qrels, *run_paths[:3])
    snap.run("demo-search", "search", "--index", "demo/index", "--topics", "demo/collection/topics_PAC.xml",
             "--out", "search.run", "--no-progress", files=("search.run",))
    snap.run("demo-simulate-log", "user-model", "simulate-log", "--qrels", qrels, "--run", run_paths[0],
             "--doc-lengths", "demo/doc_lengths.txt", "--users", "20", "--out", "log.csv", files=("log.csv",))
    snap.run("demo-calibrate", "calibrate", "--qrels", qrels, "--run", run_paths[0], "--doc-lengths",
             "demo/doc_lengths.txt", "-B", "50", "log.csv")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="a new directory for the snapshot")
    parser.add_argument("--work", type=Path, help="working directory (default OUT.work, removed at the end)")
    parser.add_argument("--no-demo", action="store_true", help="only the example data")
    parser.add_argument("--patents", type=int, default=1000, help="the demo's patents (default 1000, its own)")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    out.mkdir(parents=True)
    work = (args.work or out.with_name(out.name + ".work")).resolve()
    work.mkdir(parents=True)
    snap = Snapshot(out, work)
    try:
        _prepare_examples(work)
        snapshot_examples(snap)
        if not args.no_demo:
            snapshot_demo(snap, args.patents)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    (out / "SNAPSHOT.json").write_text(json.dumps({"steps": snap.count}) + "\n")
    print(f"{snap.count} steps written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
