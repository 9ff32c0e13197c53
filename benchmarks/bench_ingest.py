"""Ingest throughput: documents/s and MB/s, against plain lxml iterparse as the floor.

What is timed, on the same files:

* ``lxml``   -- plain ``lxml.etree.iterparse`` over each file with the same safe parser
  settings, elements cleared as they end: the cost of reading the XML at all, one core.
* ``parse``  -- pateval's readers (safe parsing, records with claims, dependencies,
  citations, XPaths), one core, nothing written.
* ``ingest`` -- the whole ``pateval corpus ingest`` (parsing, Parquet parts, manifests)
  with 1 worker and with ``--workers`` workers.

The ratio printed is lxml time / pateval time per core (1.0 would mean pateval adds
nothing to parsing). Each line gives wall-clock and CPU seconds (user + system, of this
process and of its worker processes): on a shared, busy machine the CPU figures are the
fair ones, and ratios are computed from them. Peak memory: the largest resident set of the main process and of
any worker process (``getrusage``), which must not grow with the number of documents.

Usage::

    python benchmarks/bench_ingest.py --real                 # the real samples in tests/data
    python benchmarks/bench_ingest.py --generate 2000        # a synthetic corpus of 2000 patents
    python benchmarks/bench_ingest.py --corpus DIR [--skip-parse]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from lxml import etree

from pateval.collection.ingest import ingest
from pateval.patents.reader import expand_paths, iter_file

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "tests" / "data"


ROOT_TAGS = ("patent-document", "us-patent-grant", "us-patent-application", "patent-application-publication", "PATDOC")


def cpu_seconds() -> float:
    """CPU time used so far by this process and its finished worker processes."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def lxml_floor(files: list[str]) -> tuple[int, float]:
    """Documents and seconds for plain iterparse with the same safe settings, events only
    for document roots (the least Python work per document). Concatenated weekly files
    are not one XML document and stop at their second declaration: their first document
    counts."""
    documents = 0
    started = time.perf_counter()
    for path in files:
        try:
            for _, element in etree.iterparse(
                path, events=("end",), tag=ROOT_TAGS,
                resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
            ):
                documents += 1
                element.clear()
        except etree.XMLSyntaxError:
            continue
    return documents, time.perf_counter() - started


def pateval_parse(files: list[str]) -> tuple[int, float]:
    documents = 0
    started = time.perf_counter()
    for path in files:
        for item in iter_file(path, on_error="skip"):
            documents += hasattr(item, "ucid")
    return documents, time.perf_counter() - started


def peak_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # Linux: kilobytes


def report(label: str, documents: int, seconds: float, cpu: float, size: int) -> None:
    print(f"{label:<24} {documents:>8} docs  wall {seconds:8.2f} s {documents / seconds:8.1f} docs/s "
          f"{size / 1e6 / seconds:6.1f} MB/s | cpu {cpu:8.2f} s {documents / cpu:8.1f} docs/s "
          f"{size / 1e6 / cpu:6.1f} MB/s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--real", action="store_true", help="the real CLEF-IP and USPTO samples in tests/data")
    source.add_argument("--generate", type=int, metavar="N", help="generate a synthetic corpus of N patents first")
    source.add_argument("--corpus", metavar="DIR", help="an existing folder of patent XML")
    parser.add_argument("--repeat", type=int, default=200, help="with --real: read the sample files this many times")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--skip-parse", action="store_true", help="only time lxml and the full ingest")
    parser.add_argument("--skip-sequential", action="store_true", help="skip the 1-worker ingest")
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (default: a temporary folder)")
    args = parser.parse_args(argv)

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-ingest-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        if args.real:
            samples = [
                p for p in expand_paths([SAMPLES / "clefip", SAMPLES / "uspto"])
                # XML only: the lxml floor cannot read the APS text samples.
                if Path(p).name.startswith(("EP-", "US")) and Path(p).name.endswith(".xml")
            ]
            # The samples are few: copy them repeatedly so that timing is not all start-up.
            corpus = work / "real"
            for index in range(args.repeat):
                folder = corpus / f"{index:04d}"
                folder.mkdir(parents=True, exist_ok=True)
                for path in samples:
                    shutil.copy(path, folder / Path(path).name)
        elif args.generate:
            from pateval.collection.synthetic import generate_corpus

            corpus = work / "generated"
            if not corpus.exists():
                started = time.perf_counter()
                generate_corpus(corpus, n_patents=args.generate, seed=1, workers=args.workers, progress=False)
                print(f"generated {args.generate} patents in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        else:
            corpus = Path(args.corpus)
        files = expand_paths(corpus)
        size = sum(os.path.getsize(f) for f in files)
        print(f"corpus: {len(files)} files, {size / 1e6:.1f} MB, {args.workers} workers available")

        cpu = cpu_seconds()
        floor_docs, floor_seconds = lxml_floor(files)
        floor_cpu = cpu_seconds() - cpu
        report("lxml iterparse (1 core)", floor_docs, floor_seconds, floor_cpu, size)
        if not args.skip_parse:
            cpu = cpu_seconds()
            parse_docs, parse_seconds = pateval_parse(files)
            parse_cpu = cpu_seconds() - cpu
            report("pateval parse (1 core)", parse_docs, parse_seconds, parse_cpu, size)
            print("ratio lxml/pateval parse, CPU per document: "
                  f"{floor_cpu / floor_docs / (parse_cpu / parse_docs):.3f}")
        if not args.skip_sequential:
            store = work / "store-1"
            shutil.rmtree(store, ignore_errors=True)
            cpu = cpu_seconds()
            summary = ingest(corpus, store, workers=1, on_error="skip")
            ingest_cpu = cpu_seconds() - cpu
            report("ingest, 1 worker", summary.documents, summary.seconds, ingest_cpu, summary.bytes)
            print(f"ratio lxml/ingest, CPU per document: "
                  f"{floor_cpu / floor_docs / (ingest_cpu / summary.documents):.3f}")
        store = work / f"store-{args.workers}"
        shutil.rmtree(store, ignore_errors=True)
        cpu = cpu_seconds()
        summary = ingest(corpus, store, workers=args.workers, on_error="skip")
        ingest_cpu = cpu_seconds() - cpu
        report(f"ingest, {args.workers} workers", summary.documents, summary.seconds, ingest_cpu, summary.bytes)
        print(f"ratio lxml/ingest, CPU per document: {floor_cpu / floor_docs / (ingest_cpu / summary.documents):.3f}")
        print(f"errors: {len(summary.errors)}")
        print(f"peak RSS: main {peak_mb(resource.RUSAGE_SELF):.0f} MB, "
              f"largest worker {peak_mb(resource.RUSAGE_CHILDREN):.0f} MB")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
