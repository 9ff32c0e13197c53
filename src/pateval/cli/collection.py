"""``pateval corpus`` (ingest, lengths, verify, generate) and ``pateval collection`` (build, stats):
patents and test collections."""

from __future__ import annotations

import argparse
import sys

from .shared import add_group, add_output, add_scheduler_options, add_store, examples, resolve_store


def _add_corpus(commands) -> None:
    sub = add_group(commands, "corpus", help="parse patent XML into a corpus store (Parquet, queried with DuckDB)",
                    dest="corpus_command",
                    description="Work with a patent corpus store: `pateval corpus ingest DIR_OR_FILES --out STORE`.")
    for add in (_add_corpus_ingest, _add_corpus_lengths, _add_corpus_verify, _add_corpus_generate):
        add(sub)


def _add_corpus_ingest(sub) -> None:
    ingest = sub.add_parser(
        "ingest",
        help="parse CLEF-IP / MAREC and USPTO files (XML, APS text) once into a store (resumable)",
        description="Parse patent files (CLEF-IP / MAREC patent-document, USPTO us-patent-grant / "
        "us-patent-application v4.0+, USPTO applications 2001-2004 and grants 2001-2004 in their older XML, "
        "USPTO grants 1976-2001 in APS text; one or many documents per file, .gz/.bz2 too) into a corpus store. "
        "An existing store is resumed: files already in it are skipped. One ingest writes to a store at a time.",
    )
    ingest.add_argument("inputs", nargs="+", metavar="DIR_OR_FILE",
                        help="patent files (XML, APS text) or directories (searched recursively)")
    add_output(ingest, "--out", required=True, metavar="STORE", help="store directory (created, or resumed)")
    ingest.add_argument("--workers", type=int, metavar="N", help="local worker processes (default: all CPUs)")
    add_scheduler_options(ingest, work="parse")
    ingest.add_argument("--on-error", choices=("stop", "skip"), default="stop",
                        help="stop at the first bad document (default), or skip it, report it and go on")
    ingest.add_argument("--memory-limit", metavar="SIZE",
                        help="DuckDB memory limit kept as the store's default (e.g. 4GB)")
    ingest.add_argument("--no-progress", action="store_true", help="no progress bar")
    ingest.add_argument("--wait", type=float, default=0.0, metavar="SECONDS",
                        help="wait this long for another ingest writing to the store (default: refuse at once)")
    ingest.epilog = examples("pateval corpus ingest /data/clef-ip/ --out clefip.store",
                             "pateval corpus ingest corpus --out store --workers 2 --on-error skip")
    ingest.set_defaults(run=_run_corpus_ingest)


def _run_corpus_ingest(args) -> int:
    from .. import api

    summary = api.ingest_corpus(
        args.inputs, args.out, workers=args.workers, scheduler=args.scheduler, on_error=args.on_error,
        memory_limit=args.memory_limit, progress=not args.no_progress and sys.stderr.isatty(), wait=args.wait,
        scheduler_timeout=args.scheduler_timeout,
    )
    for error in summary.errors:
        print(f"pateval: skipped: {error.message}", file=sys.stderr)
    print(
        f"documents {summary.documents}  files {summary.files}  skipped files {summary.skipped_files}  "
        f"errors {len(summary.errors)}  {summary.documents_per_second:.1f} docs/s  "
        f"{summary.megabytes_per_second:.1f} MB/s  ({summary.seconds:.1f} s)"
    )
    print(f"store {summary.store}: {summary.total_documents} documents")
    return 0


def _add_corpus_lengths(sub) -> None:
    p = sub.add_parser(
        "lengths",
        help="write each document's length in words (for TBG and CT's time=tbg: --doc-lengths)",
        description="Write a `docno length` file from a corpus store: each document's words in its abstracts, "
        "description and claims, every language. The file is what `pateval evaluate --doc-lengths` reads.",
    )
    add_store(p)
    add_output(p, "--out", required=True, metavar="FILE", help="lengths file to write")
    p.epilog = examples("pateval corpus lengths store --out lengths.txt",
                        "pateval corpus lengths /nfs/uspto.store -o uspto-lengths.txt")
    p.set_defaults(run=_run_corpus_lengths)


def _run_corpus_lengths(args) -> int:
    from .. import api

    lengths = api.corpus_doc_lengths(resolve_store(args), out=args.out)
    print(f"{len(lengths)} document lengths written to {args.out}")
    return 0


def _add_corpus_verify(sub) -> None:
    p = sub.add_parser(
        "verify",
        help="check every part of a store against its manifest (size, SHA-256); repair or drop damaged batches",
        description="Check every committed Parquet part of a corpus store against the size and SHA-256 its batch "
        "manifest records. Exit status 0: no damage (or all of it repaired or dropped); 1: damage found. "
        "--repair ingests the source files of each damaged batch again (they must be unchanged); --drop removes "
        "the damaged batches and lists the documents that went.",
    )
    add_store(p)
    p.add_argument("--quick", action="store_true", help="compare sizes only (no checksums)")
    action = p.add_mutually_exclusive_group()
    action.add_argument("--repair", action="store_true", help="re-ingest the source files of damaged batches")
    action.add_argument("--drop", action="store_true", help="remove damaged batches, listing their documents")
    p.add_argument("--wait", type=float, default=0.0, metavar="SECONDS",
                   help="wait this long for an ingest writing to the store (repair and drop take its lock)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.epilog = examples("pateval corpus verify store",
                        "pateval corpus verify store --quick",
                        "pateval corpus verify store --repair")
    p.set_defaults(run=_run_corpus_verify)


def _run_corpus_verify(args) -> int:
    from .. import api

    report = api.verify_corpus(resolve_store(args), quick=args.quick, repair=args.repair, drop=args.drop,
                               wait=args.wait, progress=not args.no_progress and sys.stderr.isatty())
    for part in report.damaged:
        print(f"damaged: {part.path} (batch {part.batch}: {part.reason})")
    for batch in report.unchecked_batches:
        print(f"not checked: batch {batch} (written without part checksums by an older pateval)")
    for batch in report.repaired_batches:
        print(f"repaired: batch {batch}")
    if report.dropped_batches:
        print(f"dropped: batches {', '.join(map(str, report.dropped_batches))}, "
              f"{len(report.dropped_documents)} documents: {' '.join(report.dropped_documents)}")
    checked = "sizes" if report.mode == "quick" else "sizes and SHA-256"
    done = "".join(f", {len(batches)} batch{'es' if len(batches) > 1 else ''} {verb}" for verb, batches in
                   (("repaired", report.repaired_batches), ("dropped", report.dropped_batches)) if batches)
    print(f"store {report.store}: {report.parts_checked} parts checked ({checked}), "
          f"{len(report.damaged)} damaged{done}, {report.documents} documents")
    if report.damaged and not report.ok:
        print(f"pateval: {report.damaged[0].message(report.store)}", file=sys.stderr)
        return 1
    return 0


def _criterion_value(text: str) -> int | None:
    """A numeric criterion: a non-negative integer, or ``off``."""
    if text.strip().lower() in ("off", "none"):
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer or 'off', found {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer or 'off', found {text!r}")
    return value


def _add_corpus_generate(sub) -> None:
    p = sub.add_parser(
        "generate",
        help="write a seeded synthetic patent corpus in CLEF-IP XML",
        description="Write a synthetic CLEF-IP corpus: technology clusters with their own vocabulary, families "
        "with A and B publications, claims with textual dependencies in EN/DE/FR, search-report citations "
        "(X/Y/A, relevant claims, passages) to earlier documents of the same cluster. Same seed, same corpus.",
    )
    add_output(p, "--out", required=True, metavar="DIR", help="new corpus directory")
    p.add_argument("--patents", required=True, type=int, metavar="N", help="EP patents (about 1.9 files each)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--start-year", type=int, default=1985, help="first publication year (default 1985)")
    p.add_argument("--end-year", type=int, default=2006, help="last publication year (default 2006)")
    p.add_argument("--clusters", type=int, metavar="N", help="technology clusters (default: one per 150 patents)")
    p.add_argument("--workers", type=int, metavar="N", help="rendering processes (default: all CPUs)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.epilog = examples("pateval corpus generate --out corpus --patents 600 --seed 1",
                        "pateval corpus generate --out big --patents 20000 --workers 2")
    p.set_defaults(run=_run_corpus_generate)


def _run_corpus_generate(args) -> int:
    from .. import api

    summary = api.generate_corpus(
        args.out, n_patents=args.patents, seed=args.seed, workers=args.workers,
        progress=not args.no_progress and sys.stderr.isatty(),
        start_year=args.start_year, end_year=args.end_year, n_clusters=args.clusters,
    )
    kinds = "  ".join(f"{kind} {count}" for kind, count in summary.documents_by_kind.items())
    print(f"patents {summary.n_patents}  families {summary.n_families}  documents {summary.n_documents} ({kinds})")
    print(f"citations {summary.n_citations}  {summary.bytes_written / 1e6:.1f} MB  "
          f"{summary.documents_per_second:.0f} docs/s  {summary.megabytes_per_second:.1f} MB/s  ({summary.seconds:.1f} "
          f"s)")
    print(f"corpus written to {summary.out_dir}")
    return 0


def _add_collection(commands) -> None:
    sub = add_group(commands, "collection", help="build and describe patent test collections",
                    dest="collection_command")
    build = sub.add_parser(
        "build",
        help="build a CLEF-IP-style test collection (topics, qrels) from a corpus store",
        description="Split the store by date into corpus and topic pool, select topics by criteria (each reported "
        "with the number of candidates it removed), sample a topic set, and write topics and qrels at document, "
        "claim (subtopic + theta), passage and graded level in the CLEF-IP formats.",
    )
    build.add_argument("--store", required=True, help="corpus store (pateval corpus ingest)")
    add_output(build, "--out", required=True, metavar="DIR", help="new collection directory")
    dates = build.add_argument_group("date split")
    dates.add_argument("--corpus-end", default="2000-12-31", metavar="DATE",
                       help="last corpus date (default 2000-12-31)")
    dates.add_argument("--pool-start", metavar="DATE",
                       help="first topic-pool date (default: the day after --corpus-end)")
    dates.add_argument("--corpus-start", metavar="DATE", help="first corpus date (default: open)")
    dates.add_argument("--pool-end", metavar="DATE", help="last topic-pool date (default: open)")
    crit = build.add_argument_group("topic selection (a preset, then each criterion on its own)")
    crit.add_argument("--criteria", choices=("roda2009", "clefip2013", "both", "none"), default="roda2009",
                      help="criteria preset (default roda2009)")
    for flag, field, text in (
        ("not-in-corpus", "not_in_corpus", "no publication of the topic in the corpus"),
        ("granted", "granted", "a granted (B) publication exists"),
        ("description", "description", "the topic file has a description"),
        ("epo-only", "epo_only", "published by the EPO"),
        ("earlier-family-member", "earlier_family_member", "an earlier family member exists"),
        ("all-parts", "all_parts", "claims, abstract and description present"),
    ):
        crit.add_argument(f"--{flag}", dest=field, action=argparse.BooleanOptionalAction, default=None, help=text)
    for flag, field, text in (
        ("min-citations", "min_citations", "at least N cited patents"),
        ("min-xy-in-corpus", "min_xy_in_corpus", "at least N X/Y citations in the corpus"),
        ("max-words", "max_words", "fewer than N words in the topic file"),
        ("min-search-citations", "min_search_citations_in_corpus", "at least N search-report citations in the corpus"),
        ("max-search-citations", "max_search_citations_in_corpus", "at most N search-report citations in the corpus"),
    ):
        crit.add_argument(f"--{flag}", dest=field, type=_criterion_value, default=argparse.SUPPRESS, metavar="N|off",
                          help=text)
    crit.add_argument("--sources", metavar="LIST",
                      help="citation sources that count, comma-separated (search, examiner, applicant, opposition, "
                      "other)")
    sample = build.add_argument_group("topic set")
    sample.add_argument("--stratify", action="store_true",
                        help="draw --per-group topics per number-of-citations group, distinct IPC classes (CLEF-IP "
                        "2013)")
    sample.add_argument("--per-group", type=int, default=20, metavar="N", help="topics per group (default 20)")
    sample.add_argument("--ipc-level", choices=("section", "class", "subclass", "group"), default="class",
                        help="what 'a different IPC class' means (default class)")
    sample.add_argument("--size", metavar="S|M|L|XL|N", help="topic-set size: S 500, M 1000, L 5000, XL 10000, or N")
    sample.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    judge = build.add_argument_group("judgements")
    judge.add_argument("--family", choices=("none", "cited", "topic", "both"), default="none",
                       help="family extension of the document qrels (default none)")
    judge.add_argument("--publication-level", action="store_true",
                       help="judge only the cited publication, not every corpus publication of the cited patent")
    judge.add_argument("--theta-ind", type=float, default=1.0, help="weight of an independent claim (default 1)")
    judge.add_argument("--theta-dep", type=float, default=0.5, help="weight of a dependent claim (default 0.5)")
    judge.add_argument("--no-passages", action="store_true", help="no passage (PSG) topics and qrels")
    judge.add_argument("--max-passage-topics", type=int, metavar="N", help="passage topics per patent at most")
    build.add_argument("--threads", type=int, metavar="N", help="DuckDB threads")
    build.add_argument("--memory-limit", metavar="SIZE", help="DuckDB memory limit (e.g. 2GB)")
    build.add_argument("--format", choices=("text", "json"), default="text", help="summary format (default text)")
    build.epilog = examples("pateval collection build --store store --out collection",
                            "pateval collection build --store store --out collection --criteria clefip2013 --size S "
                            "--seed 1")
    build.set_defaults(run=_run_collection_build)

    stats = sub.add_parser(
        "stats",
        help="judgment points, relevant documents per topic, languages, IPC classes, citation sources",
        description="Describe a built collection: judgment points (mean relevant documents per topic x topics), "
        "distribution of relevant documents per topic, languages, IPC classes, citation sources and categories, "
        "passage topics, and the build's selection funnel.",
    )
    stats.add_argument("--collection", required=True, metavar="DIR", help="a collection built by `collection build`")
    stats.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    stats.add_argument("--ipc-level", choices=("section", "class", "subclass", "group"), default="class",
                       help="level at which IPC classes are counted (default class)")
    stats.epilog = examples("pateval collection stats --collection collection",
                            "pateval collection stats --collection collection --format json")
    stats.set_defaults(run=_run_collection_stats)


def _run_collection_build(args) -> int:
    import json

    from .. import api
    from ..collection.topics import SelectionCriteria
    from ..errors import ParameterError

    changes = {}
    for field in ("not_in_corpus", "granted", "description", "epo_only", "earlier_family_member", "all_parts"):
        if getattr(args, field) is not None:
            changes[field] = getattr(args, field)
    for field in ("min_citations", "min_xy_in_corpus", "max_words", "min_search_citations_in_corpus",
                  "max_search_citations_in_corpus"):
        if hasattr(args, field):
            changes[field] = getattr(args, field)
    if args.sources:
        changes["sources"] = tuple(s.strip() for s in args.sources.split(",") if s.strip())
    if args.per_group < 1:
        raise ParameterError(f"--per-group must be positive, not {args.per_group}")
    criteria = SelectionCriteria.preset(args.criteria, **changes)
    summary = api.build_collection(
        args.store, args.out, criteria=criteria, corpus_end=args.corpus_end, pool_start=args.pool_start,
        corpus_start=args.corpus_start, pool_end=args.pool_end, stratify=args.stratify, per_group=args.per_group,
        ipc_level=args.ipc_level, size=args.size, seed=args.seed, family=args.family,
        patent_level=not args.publication_level, theta_ind=args.theta_ind, theta_dep=args.theta_dep,
        passages=not args.no_passages, max_passage_topics_per_patent=args.max_passage_topics,
        threads=args.threads, memory_limit=args.memory_limit, progress=sys.stderr.isatty(),
    )
    if args.format == "json":
        print(json.dumps(summary.as_dict(), indent=2, default=str))
        return 0
    selection = summary.selection
    print(f"topic selection: {selection['candidates']} candidates")
    for step in selection["steps"]:
        print(f"  - {step['description']}: removed {step['removed']}, {step['after']} left")
    if summary.stratified:
        print(f"stratified sample: {summary.stratified['drawn']} topics")
    counts = summary.counts
    print(f"topics {counts['pac_topics']}  judgements {counts['pac_judgements']} "
          f"(highly relevant {counts['pac_highly_relevant']})  claim judgements {counts['claim_judgements']}  "
          f"passage topics {counts['psg_topics']} ({counts['psg_passages']} passages)")
    if summary.topic_set.get("short"):
        print(f"pateval: note: {summary.topic_set['requested_topics']} topics requested, "
              f"{summary.topic_set['drawn']} available", file=sys.stderr)
    print("checks: " + ", ".join(f"{k} = {v}" for k, v in summary.checks.items()))
    print(f"collection written to {summary.out_dir} ({summary.seconds:.1f} s)")
    return 0


def _run_collection_stats(args) -> int:
    from .. import api
    from ..collection.stats import format_stats

    stats = api.collection_stats(args.collection, ipc_level=args.ipc_level)
    sys.stdout.write(format_stats(stats, format=args.format))
    return 0
