"""Inputs, end to end: the same run as TREC text, as Parquet and gzipped, evaluated by pateval.

Builds (once, cached in benchmarks/_work/) a run of N topics x 1,000 documents (10 million
rows with the default 10,000 topics) and its qrels, writes the same run as Parquet (columns
``qid docno score rank``, as PyTerrier writes them) and as gzip (level 6, gzip's default),
then times ``pateval.evaluate(QRELS, RUN, [AP, P@10, nDCG@10, R@1000])`` on each, every one
in a fresh child process (start-up and reading included). The peer is ranx, which reads
Parquet too (through pandas; run once), if installed (``pip install -e ".[bench]"``).

Prints the times, the means (they must agree) and the ratios: Parquet / text (target: under
1/3) and gzip / text.

    python benchmarks/bench_inputs.py [--topics 10000] [--repeat 3]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import make_standard_inputs  # noqa: E402

MEASURES = ["AP", "P@10", "nDCG@10", "R@1000"]

PATEVAL = """
import pateval
frame = pateval.evaluate(QRELS, RUN, MEASURES)
result = {k: float(v) for k, v in frame.groupby('measure')['value'].mean().items()}
"""

RANX = """
import pandas as pd
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(QRELS, kind='trec')
# ranx's own Run.from_parquet asks for object columns, which pandas 3 no longer reads strings as
frame = pd.read_parquet(RUN).astype({'qid': object, 'docno': object})
run = Run.from_df(frame, q_id_col='qid', doc_id_col='docno', score_col='score')
values = evaluate(qrels, run, ['map', 'precision@10', 'ndcg@10', 'recall@1000'])
result = dict(zip(MEASURES, (float(values[k]) for k in ['map', 'precision@10', 'ndcg@10', 'recall@1000'])))
"""


def parquet_copy(run: Path) -> Path:
    """The run as Parquet (written once, cached beside the text)."""
    out = run.with_suffix(".parquet")
    if not out.exists():
        import pyarrow as pa
        import pyarrow.csv as pacsv
        import pyarrow.parquet as pq

        table = pacsv.read_csv(run, read_options=pacsv.ReadOptions(column_names=["qid", "q0", "docno", "rank", "score",
                                                                                 "tag"]),
                               parse_options=pacsv.ParseOptions(delimiter=" "),
                               convert_options=pacsv.ConvertOptions(column_types={"qid": pa.string(),
                                                                                  "docno": pa.string()}))
        pq.write_table(table.select(["qid", "docno", "score", "rank"]), out.with_suffix(".part"))
        out.with_suffix(".part").rename(out)
    return out


def gzip_copy(run: Path) -> Path:
    out = run.with_name(run.name + ".gz")
    if not out.exists():
        part = out.with_suffix(".part")
        with open(part, "wb") as handle:
            subprocess.run(["gzip", "-6", "-c", str(run)], stdout=handle, check=True)
        part.rename(out)
    return out


def timed(code: str, qrels: Path, run: Path) -> tuple[float, float, dict]:
    """Wall and CPU seconds of a fresh process running ``code`` (start-up included), and its
    result. CPU time (user + system, every thread) is the steadier figure on a shared machine."""
    program = (f"import json\nQRELS, RUN, MEASURES = {str(qrels)!r}, {str(run)!r}, {MEASURES!r}\n" + code
               + "\nprint(json.dumps(result))\n")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed")
    return seconds, cpu, json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (the median is shown)")
    options = parser.parse_args(argv)
    qrels, text = make_standard_inputs(n_topics=options.topics, depth=1_000)
    inputs = {"text": text, "parquet": parquet_copy(text), "gzip": gzip_copy(text)}
    rows = len(text.read_bytes().splitlines()) if options.topics <= 1000 else options.topics * 1000
    print(f"run: {rows:,} rows; text {text.stat().st_size / 1e6:.0f} MB, Parquet "
          f"{inputs['parquet'].stat().st_size / 1e6:.0f} MB, gzip {inputs['gzip'].stat().st_size / 1e6:.0f} MB")
    # interleaved (text, Parquet, gzip, text, ...): a change of load on a shared machine
    # then touches every input alike; medians of the repeats
    jobs = {f"pateval {label}": (PATEVAL, path) for label, path in inputs.items()}
    jobs["ranx parquet"] = (RANX, inputs["parquet"])
    samples: dict[str, list] = {label: [] for label in jobs}
    for repeat in range(options.repeat):
        for label, (code, path) in list(jobs.items()):
            if label.startswith("ranx") and repeat:
                continue  # once: it takes ten times as long
            try:
                samples[label].append(timed(code, qrels, path))
            except RuntimeError as error:
                print(f"{label}: not run ({error})")
                del jobs[label], samples[label]
    times = {label: statistics.median(s[0] for s in runs) for label, runs in samples.items()}
    cpus = {label: statistics.median(s[1] for s in runs) for label, runs in samples.items()}
    means = {label: runs[0][2] for label, runs in samples.items()}
    for label in samples:
        shown = ", ".join(f"{m} {means[label][m]:.6f}" for m in MEASURES)
        print(f"{label:<16} {times[label]:7.2f} s wall {cpus[label]:7.2f} s CPU   {shown}")
    reference = means["pateval text"]
    for label, values in means.items():
        if label.startswith("pateval") and any(abs(values[m] - reference[m]) > 1e-12 for m in MEASURES):
            raise SystemExit(f"{label} gave other means than the text run: {values} vs {reference}")
    for kind, table in (("wall", times), ("CPU", cpus)):
        ratio = table["pateval parquet"] / table["pateval text"]
        print(f"{kind}: Parquet / text {ratio:.2f} (target < 0.33){'' if ratio < 1 / 3 else '  -- NOT MET'}; "
              f"gzip / text {table['pateval gzip'] / table['pateval text']:.2f}"
              + (f"; ranx Parquet / pateval Parquet {table['ranx parquet'] / table['pateval parquet']:.1f}"
                 if "ranx parquet" in table else ""))


if __name__ == "__main__":
    main()
