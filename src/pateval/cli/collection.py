"""``pateval corpus`` (ingest, lengths, verify, generate) and ``pateval collection`` (build, stats):
patents and test collections."""

from __future__ import annotations

import argparse
import sys

from .shared import add_command, add_flags, add_group, add_output, add_scheduler_options, add_store, examples


def _add_corpus(commands) -> None:
    sub = add_group(commands, "corpus", help="parse patent XML into a corpus store (Parquet, queried with DuckDB)",
                    dest="corpus_command",
                    description="Work with a patent corpus store: `pateval corpus ingest DIR_OR_FILES --out STORE`.")
    for add in (_add_corpus_ingest, _add_corpus_lengths, _add_corpus_verify, _add_corpus_generate):
        add(sub)


def _add_corpus_ingest(sub) -> None:
    ingest = add_command(
        sub, "ingest", _run_corpus_ingest, extra="patents",
        help="parse CLEF-IP / MAREC and USPTO files (XML, APS text) once into a store (resumable)",
        description="Parse patent files (CLEF-IP / MAREC patent-document, USPTO us-patent-grant / "
        "us-patent-application v4.0+, USPTO applications 2001-2004 and grants 2001-2004 in their older XML, "
        "USPTO grants 1976-2001 in APS text; one or many documents per file, .gz/.bz2 too) into a corpus store. "
        "An existing store is resumed: files already in it are skipped. One ingest writes to a store at a time.",
        epilog=examples("pateval corpus ingest /data/clef-ip/ --out clefip.store",
                        "pateval corpus ingest corpus --out store --workers 2 --on-error skip"),
    )
    ingest.add_argument("inputs", nargs="+", metavar="DIR_OR_FILE",
                        help="patent files (XML, APS text) or directories (searched recursively)")
    add_output(ingest, "--out", required=True, metavar="STORE", help="store directory (created, or resumed)")
    add_flags(ingest, "workers")
    add_scheduler_options(ingest, work="parse")
    ingest.add_argument("--on-error", choices=("stop", "skip"), default="stop",
                        help="stop at the first bad document (default), or skip it, report it and go on")
    add_flags(ingest, "memory_limit", help="DuckDB memory limit kept as the store's default (e.g. 4GB)")
    add_flags(ingest, "no_progress", "wait")


def _run_corpus_ingest(*, inputs, out, **settings) -> None:
    """``settings``: the other options (workers, scheduler, ...), keywords of :func:`pateval.api.ingest_corpus`."""
    from .. import api

    summary = api.ingest_corpus(inputs, out, **settings)
    for error in summary.errors:
        print(f"pateval: skipped: {error.message}", file=sys.stderr)
    print(f"documents {summary.documents}  files {summary.files}  skipped files {summary.skipped_files}  "
          f"errors {len(summary.errors)}  {summary.documents_per_second:.1f} docs/s  "
          f"{summary.megabytes_per_second:.1f} MB/s  ({summary.seconds:.1f} s)")
    print(f"store {summary.store}: {summary.total_documents} documents")


def _add_corpus_lengths(sub) -> None:
    p = add_command(
        sub, "lengths", _run_corpus_lengths, extra="store",
        help="write each document's length in words (for TBG and CT's time=tbg: --doc-lengths)",
        description="Write a `docno length` file from a corpus store: each document's words in its abstracts, "
        "description and claims, every language. The file is what `pateval evaluate --doc-lengths` reads.",
        epilog=examples("pateval corpus lengths store --out lengths.txt",
                        "pateval corpus lengths /nfs/uspto.store -o uspto-lengths.txt"),
    )
    add_store(p)
    add_output(p, "--out", required=True, metavar="FILE", help="lengths file to write")


def _run_corpus_lengths(*, store, out) -> None:
    from .. import api

    lengths = api.corpus_doc_lengths(store, out=out)
    print(f"{len(lengths)} document lengths written to {out}")


def _add_corpus_verify(sub) -> None:
    p = add_command(
        sub, "verify", _run_corpus_verify, extra="store",
        help="check every part of a store against its manifest (size, SHA-256); repair or drop damaged batches",
        description="Check every committed Parquet part of a corpus store against the size and SHA-256 its batch "
        "manifest records. Exit status 0: no damage (or all of it repaired or dropped); 1: damage found. "
        "--repair ingests the source files of each damaged batch again (they must be unchanged); --drop removes "
        "the damaged batches and lists the documents that went.",
        epilog=examples("pateval corpus verify store",
                        "pateval corpus verify store --quick",
                        "pateval corpus verify store --repair"),
    )
    add_store(p)
    p.add_argument("--quick", action="store_true", help="compare sizes only (no checksums)")
    action = p.add_mutually_exclusive_group()
    action.add_argument("--repair", action="store_true", help="re-ingest the source files of damaged batches")
    action.add_argument("--drop", action="store_true", help="remove damaged batches, listing their documents")
    add_flags(p, "wait", help="wait this long for an ingest writing to the store (repair and drop take its lock)")
    add_flags(p, "no_progress")


def _run_corpus_verify(*, store, quick: bool, repair: bool, drop: bool, wait: float, progress: bool) -> int:
    from .. import api

    report = api.verify_corpus(store, quick=quick, repair=repair, drop=drop, wait=wait, progress=progress)
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
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer or 'off', found {text!r}")
    return value


def _add_corpus_generate(sub) -> None:
    p = add_command(
        sub, "generate", _run_corpus_generate, extra="patents",
        help="write a seeded synthetic patent corpus in CLEF-IP XML",
        description="Write a synthetic CLEF-IP corpus: technology clusters with their own vocabulary, families "
        "with A and B publications, claims with textual dependencies in EN/DE/FR, search-report citations "
        "(X/Y/A, relevant claims, passages) to earlier documents of the same cluster. Same seed, same corpus.",
        epilog=examples("pateval corpus generate --out corpus --patents 600 --seed 1",
                        "pateval corpus generate --out big --patents 20000 --workers 2"),
    )
    add_output(p, "--out", required=True, metavar="DIR", help="new corpus directory")
    p.add_argument("--patents", required=True, type=int, metavar="N", help="EP patents (about 1.9 files each)")
    add_flags(p, "seed")
    p.add_argument("--start-year", type=int, default=1985, help="first publication year (default 1985)")
    p.add_argument("--end-year", type=int, default=2006, help="last publication year (default 2006)")
    p.add_argument("--clusters", type=int, metavar="N", help="technology clusters (default: one per 150 patents)")
    add_flags(p, "workers", help="rendering processes (default: all CPUs)")
    add_flags(p, "no_progress")


def _run_corpus_generate(*, out, patents: int, seed: int, workers, progress: bool, start_year: int, end_year: int,
                         clusters) -> None:
    from .. import api

    summary = api.generate_corpus(out, n_patents=patents, seed=seed, workers=workers, progress=progress,
                                  start_year=start_year, end_year=end_year, n_clusters=clusters)
    kinds = "  ".join(f"{kind} {count}" for kind, count in summary.documents_by_kind.items())
    print(f"patents {summary.n_patents}  families {summary.n_families}  documents {summary.n_documents} ({kinds})")
    print(f"citations {summary.n_citations}  {summary.bytes_written / 1e6:.1f} MB  "
          f"{summary.documents_per_second:.0f} docs/s  {summary.megabytes_per_second:.1f} MB/s  "
          f"({summary.seconds:.1f} s)")
    print(f"corpus written to {summary.out_dir}")


def _add_collection(commands) -> None:
    sub = add_group(commands, "collection", help="build and describe patent test collections",
                    dest="collection_command")
    build = add_command(
        sub, "build", _run_collection_build, extra="store",
        help="build a CLEF-IP-style test collection (topics, qrels) from a corpus store",
        description="Split the store by date into corpus and topic pool, select topics by criteria (each reported "
        "with the number of candidates it removed), sample a topic set, and write topics and qrels at document, "
        "claim (subtopic + theta), passage and graded level in the CLEF-IP formats.",
        epilog=examples("pateval collection build --store store --out collection",
                        "pateval collection build --store store --out collection --criteria clefip2013 --size S "
                        "--seed 1"),
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
        crit.add_argument(f"--{flag}", dest=field, action=argparse.BooleanOptionalAction, default=argparse.SUPPRESS,
                          help=text)
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
    add_flags(sample, "ipc_level")
    sample.add_argument("--size", metavar="S|M|L|XL|N", help="topic-set size: S 500, M 1000, L 5000, XL 10000, or N")
    add_flags(sample, "seed")
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
    add_flags(build, "memory_limit", "summary_format")

    stats = add_command(
        sub, "stats", _run_collection_stats, extra="store",
        help="judgment points, relevant documents per topic, languages, IPC classes, citation sources",
        description="Describe a built collection: judgment points (mean relevant documents per topic x topics), "
        "distribution of relevant documents per topic, languages, IPC classes, citation sources and categories, "
        "passage topics, and the build's selection funnel.",
        epilog=examples("pateval collection stats --collection collection",
                        "pateval collection stats --collection collection --format json"),
    )
    stats.add_argument("--collection", required=True, metavar="DIR", help="a collection built by `collection build`")
    add_flags(stats, "summary_format", "ipc_level")


def _run_collection_build(*, store, out, corpus_end, pool_start, corpus_start, pool_end, criteria: str, sources,
                          stratify: bool, per_group: int, ipc_level: str, size, seed: int, family: str,
                          publication_level: bool, theta_ind: float, theta_dep: float, no_passages: bool,
                          max_passage_topics, threads, memory_limit, format: str, **given_criteria) -> None:
    """``given_criteria``: the criteria given on their own (their dests are SelectionCriteria's fields)."""
    import json

    from .. import api
    from ..collection.topics import SelectionCriteria
    from ..errors import ParameterError

    if sources:
        given_criteria["sources"] = tuple(s.strip() for s in sources.split(",") if s.strip())
    if per_group < 1:
        raise ParameterError(f"--per-group must be positive, not {per_group}")
    summary = api.build_collection(
        store, out, criteria=SelectionCriteria.preset(criteria, **given_criteria), corpus_end=corpus_end,
        pool_start=pool_start, corpus_start=corpus_start, pool_end=pool_end, stratify=stratify, per_group=per_group,
        ipc_level=ipc_level, size=size, seed=seed, family=family, patent_level=not publication_level,
        theta_ind=theta_ind, theta_dep=theta_dep, passages=not no_passages,
        max_passage_topics_per_patent=max_passage_topics, threads=threads, memory_limit=memory_limit,
        progress=sys.stderr.isatty())
    if format == "json":
        print(json.dumps(summary.as_dict(), indent=2, default=str))
        return
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


def _run_collection_stats(*, collection, ipc_level: str, format: str) -> None:
    from .. import api
    from ..collection.stats import format_stats

    sys.stdout.write(format_stats(api.collection_stats(collection, ipc_level=ipc_level), format=format))
