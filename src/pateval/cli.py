"""The ``pateval`` command line: a thin layer over :mod:`pateval.api`.

Each sub-command parses its options, calls one API function and prints or writes what it
returns. Errors of input (:class:`pateval.errors.PatevalError`) are printed as one line on
stderr with exit status 2; nothing else happens here.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import __version__
from .errors import PatevalError

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pateval",
        description="Evaluate patent prior-art search and other professional search.",
    )
    parser.add_argument("--version", action="version", version=f"pateval {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in _COMMANDS:
        add(commands)
    return parser


# Each entry adds one sub-command to the parser; the handler is stored with set_defaults(run=...).
_COMMANDS: list = []


def command(add):
    """Register a function that adds a sub-command (keeps the list in one place)."""
    _COMMANDS.append(add)
    return add


# ---- sub-commands: evaluate, measures (foundation) --------------------------------------

DEFAULT_MEASURES = ("AP", "P@10", "nDCG@10", "R@1000", "NumRet", "NumRel", "NumRelRet")


@command
def _add_evaluate(commands) -> None:
    from .core.docids import DOC_KEYS
    from .core.ranking import ORDERS
    from .formats.qrels import QRELS_FORMATS
    from .formats.results import RESULT_FORMATS

    p = commands.add_parser(
        "evaluate",
        help="score runs against qrels (trec_eval-compatible output)",
        description="Score one or more runs against qrels. Output: MEASURE<TAB>TOPIC<TAB>VALUE "
        "(TOPIC 'all' for the mean); with several runs a first column names the run.",
    )
    p.add_argument("qrels", nargs="?", help="qrels file")
    p.add_argument("runs", nargs="*", metavar="RUN", help="run file(s), TREC 6-column")
    p.add_argument("--example", action="store_true", help="evaluate the example qrels and runs bundled with pateval")
    p.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                   help=f"a measure name (repeatable; default: {' '.join(DEFAULT_MEASURES)}); see `pateval measures`")
    p.add_argument("-q", "--per-query", action="store_true", help="also print a line per topic")
    p.add_argument("-c", "--complete", action="store_true", help="average over all qrels topics; missing ones score 0 (trec_eval -c)")
    p.add_argument("--format", choices=RESULT_FORMATS, default="trec", help="output format (default: trec)")
    p.add_argument("--qrels-format", choices=QRELS_FORMATS, default="auto", help="qrels format (default: detect where safe)")
    p.add_argument("--order", choices=ORDERS, default="score", help="rank by score (trec_eval), the rank column, or file order")
    p.add_argument("--doc-key", choices=DOC_KEYS, default="publication", help="match documents by id or by patent (EP-0971326-B1 ~ EP0971326)")
    p.add_argument("--on-duplicate", choices=("error", "first"), default="error", help="a document twice for a topic: error, or keep the first")
    from .formats.resources import RESOURCES

    for resource in RESOURCES:
        p.add_argument(resource.option, dest=f"resource_{resource.name}", metavar="FILE", help=resource.help)
    p.add_argument("--precision", type=int, default=4, help="decimals in trec output (default 4, as trec_eval)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    p.set_defaults(run=_run_evaluate)


def _run_evaluate(args) -> int:
    from . import api
    from .formats.results import format_results, result_rows, write_results

    if args.example:
        if args.qrels or args.runs:
            raise PatevalError("give either --example or QRELS RUN..., not both")
        qrels_path, run_paths = api.example_files()
    else:
        if not args.qrels or not args.runs:
            raise PatevalError("evaluate needs QRELS and at least one RUN (or --example)")
        qrels_path, run_paths = args.qrels, args.runs
    from .formats.resources import RESOURCES, load_resources

    resources = load_resources({r.name: getattr(args, f"resource_{r.name}") for r in RESOURCES})
    result = api.evaluation(
        qrels_path, list(run_paths), args.measures or list(DEFAULT_MEASURES),
        qrels_format=args.qrels_format, complete=args.complete, order=args.order,
        doc_key=args.doc_key, on_duplicate=args.on_duplicate, resources=resources,
    )
    rows = result_rows(result.frame, result.summary(), per_query=args.per_query)
    text = format_results(rows, format=args.format, precision=args.precision)
    for note in result.notes:
        print(f"pateval: note: {note}", file=sys.stderr)
    if args.output:
        write_results(text, args.output)
    else:
        sys.stdout.write(text)
    return 0


@command
def _add_measures(commands) -> None:
    p = commands.add_parser("measures", help="list the measures, their parameters and references")
    p.add_argument("--family", help="only this family (standard, professional, cube, subtopic, passage)")
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    p.set_defaults(run=_run_measures)


def _run_measures(args) -> int:
    from . import api

    table = api.list_measures()
    if args.family:
        table = table[table["family"] == args.family]
        if table.empty:
            raise PatevalError(f"no measure family {args.family!r}")
    if args.format == "json":
        sys.stdout.write(table.to_json(orient="records", indent=1) + "\n")
        return 0
    if args.format == "markdown":
        print("| measure | family | cutoff | what | parameters | reference |")
        print("|---|---|---|---|---|---|")
        for row in table.itertuples():
            print(f"| `{row.name}` | {row.family} | {row.cutoff} | {row.summary}: `{row.formula}` | {row.parameters or '-'} | {row.reference} |")
        return 0
    for row in table.itertuples():
        cutoff = {"none": "", "optional": "[@k]", "required": "@k"}[row.cutoff]
        print(f"{row.name}{cutoff}  ({row.family}) {row.summary}")
        print(f"    {row.formula}")
        if row.parameters:
            for param in row.parameters.split("; "):
                print(f"    - {param}")
        if row.aliases:
            print(f"    aliases: {row.aliases}")
        print(f"    reference: {row.reference}")
    return 0


# ---- sub-commands: corpus, collection (patents and test collections) --------------------


@command
def _add_corpus(commands) -> None:
    p = commands.add_parser(
        "corpus",
        help="parse patent XML into a corpus store (Parquet, queried with DuckDB)",
        description="Work with a patent corpus store: `pateval corpus ingest DIR_OR_FILES --out STORE`.",
    )
    sub = p.add_subparsers(dest="corpus_command", metavar="SUBCOMMAND", required=True)
    ingest = sub.add_parser(
        "ingest",
        help="parse CLEF-IP / MAREC and USPTO XML files once into a store (resumable)",
        description="Parse patent XML files (CLEF-IP / MAREC patent-document, USPTO us-patent-grant / "
        "us-patent-application v4.0+, one or many documents per file, .gz/.bz2 too) into a corpus store. "
        "An existing store is resumed: files already in it are skipped.",
    )
    ingest.add_argument("inputs", nargs="+", metavar="DIR_OR_FILE", help="XML files or directories (searched recursively)")
    ingest.add_argument("--out", required=True, metavar="STORE", help="store directory (created, or resumed)")
    ingest.add_argument("--workers", type=int, metavar="N", help="local worker processes (default: all CPUs)")
    ingest.add_argument("--scheduler", metavar="ADDRESS",
                        help="Dask scheduler (tcp://host:8786) to parse on a cluster; workers need the same paths")
    ingest.add_argument("--on-error", choices=("stop", "skip"), default="stop",
                        help="stop at the first bad document (default), or skip it, report it and go on")
    ingest.add_argument("--memory-limit", metavar="SIZE", help="DuckDB memory limit kept as the store's default (e.g. 4GB)")
    ingest.add_argument("--no-progress", action="store_true", help="no progress bar")
    ingest.set_defaults(run=_run_corpus_ingest)


def _run_corpus_ingest(args) -> int:
    from . import api

    summary = api.ingest_corpus(
        args.inputs, args.out, workers=args.workers, scheduler=args.scheduler, on_error=args.on_error,
        memory_limit=args.memory_limit, progress=not args.no_progress and sys.stderr.isatty(),
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


def _subcommands_of(commands, name: str, *, help: str, dest: str):
    """The sub-command group of top-level command ``name`` (created when absent), so that
    several sections can add sub-commands to one command (``corpus ingest`` and
    ``corpus generate``)."""
    parser = commands.choices.get(name)
    if parser is None:
        parser = commands.add_parser(name, help=help, description=help)
        return parser.add_subparsers(dest=dest, metavar="SUBCOMMAND", required=True)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return parser.add_subparsers(dest=dest, metavar="SUBCOMMAND", required=True)


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


@command
def _add_corpus_generate(commands) -> None:
    sub = _subcommands_of(commands, "corpus", help="patent corpora: ingest, generate", dest="corpus_command")
    p = sub.add_parser(
        "generate",
        help="write a seeded synthetic patent corpus in CLEF-IP XML",
        description="Write a synthetic CLEF-IP corpus: technology clusters with their own vocabulary, families "
        "with A and B publications, claims with textual dependencies in EN/DE/FR, search-report citations "
        "(X/Y/A, relevant claims, passages) to earlier documents of the same cluster. Same seed, same corpus.",
    )
    p.add_argument("--out", required=True, metavar="DIR", help="new corpus directory")
    p.add_argument("--patents", required=True, type=int, metavar="N", help="EP patents (about 1.9 files each)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--start-year", type=int, default=1985, help="first publication year (default 1985)")
    p.add_argument("--end-year", type=int, default=2006, help="last publication year (default 2006)")
    p.add_argument("--clusters", type=int, metavar="N", help="technology clusters (default: one per 150 patents)")
    p.add_argument("--workers", type=int, metavar="N", help="rendering processes (default: all CPUs)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=_run_corpus_generate)


def _run_corpus_generate(args) -> int:
    from . import api

    summary = api.generate_corpus(
        args.out, n_patents=args.patents, seed=args.seed, workers=args.workers,
        progress=not args.no_progress and sys.stderr.isatty(),
        start_year=args.start_year, end_year=args.end_year, n_clusters=args.clusters,
    )
    kinds = "  ".join(f"{kind} {count}" for kind, count in summary.documents_by_kind.items())
    print(f"patents {summary.n_patents}  families {summary.n_families}  documents {summary.n_documents} ({kinds})")
    print(f"citations {summary.n_citations}  {summary.bytes_written / 1e6:.1f} MB  "
          f"{summary.documents_per_second:.0f} docs/s  {summary.megabytes_per_second:.1f} MB/s  ({summary.seconds:.1f} s)")
    print(f"corpus {summary.out_dir}")
    return 0


@command
def _add_collection(commands) -> None:
    sub = _subcommands_of(commands, "collection", help="build and describe patent test collections",
                          dest="collection_command")
    build = sub.add_parser(
        "build",
        help="build a CLEF-IP-style test collection (topics, qrels) from a corpus store",
        description="Split the store by date into corpus and topic pool, select topics by criteria (each reported "
        "with the number of candidates it removed), sample a topic set, and write topics and qrels at document, "
        "claim (subtopic + theta), passage and graded level in the CLEF-IP formats.",
    )
    build.add_argument("--store", required=True, help="corpus store (pateval corpus ingest)")
    build.add_argument("--out", required=True, metavar="DIR", help="new collection directory")
    dates = build.add_argument_group("date split")
    dates.add_argument("--corpus-end", default="2000-12-31", metavar="DATE", help="last corpus date (default 2000-12-31)")
    dates.add_argument("--pool-start", metavar="DATE", help="first topic-pool date (default: the day after --corpus-end)")
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
                      help="citation sources that count, comma-separated (search, examiner, applicant, opposition, other)")
    sample = build.add_argument_group("topic set")
    sample.add_argument("--stratify", action="store_true",
                        help="draw --per-group topics per number-of-citations group, distinct IPC classes (CLEF-IP 2013)")
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
    stats.set_defaults(run=_run_collection_stats)


def _run_collection_build(args) -> int:
    import json

    from . import api
    from .collection.topics import SelectionCriteria
    from .errors import ParameterError

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
    print(f"collection {summary.out_dir} ({summary.seconds:.1f} s)")
    return 0


def _run_collection_stats(args) -> int:
    from . import api
    from .collection.stats import format_stats

    stats = api.collection_stats(args.collection, ipc_level=args.ipc_level)
    sys.stdout.write(format_stats(stats, format=args.format))
    return 0


# ---- sub-commands: check (passage runs) --------------------------------------------------

# ---- sub-commands: compare, analyse-measures, report (comparing systems) ----------------

# ---- sub-commands: search, demo (baselines) ----------------------------------------------

# ---- sub-commands: flowchart -------------------------------------------------------------


@command
def _add_flowchart(commands) -> None:
    p = commands.add_parser(
        "flowchart",
        help="evaluate flowchart structure recognition (CLEF-IP 2012/2013)",
        description="Work with flowcharts in the CLEF-IP encoding: `pateval flowchart eval TRUTH_DIR SUBMISSION_DIR`.",
    )
    sub = p.add_subparsers(dest="flowchart_command", metavar="SUBCOMMAND", required=True)
    evaluate = sub.add_parser(
        "eval",
        help="score recognised flowcharts against ground truth",
        description="Score every flowchart of SUBMISSION_DIR against the file of the same name (extension "
        "aside) in TRUTH_DIR: the MCS distance d = 1 - |mcs(G1,G2)| / max(|G1|,|G2|) (Bunke & Shearer 1998; "
        "|G| = nodes + edges) at the levels structure, types, texts, and node/edge/text precision, recall, F1. "
        "Output: MEASURE<TAB>IMAGE<TAB>VALUE, IMAGE 'all' for the mean. Bad or missing files are reported on "
        "stderr and the rest is scored. Exit status: 0 if every file was good, 1 if any file was bad or "
        "missing, 2 on an error that stops the evaluation (e.g. a directory that does not exist).",
    )
    evaluate.add_argument("truth_dir", metavar="TRUTH_DIR", help="directory of ground-truth flowchart files")
    evaluate.add_argument("submission_dir", metavar="SUBMISSION_DIR", help="directory of recognised flowchart files")
    evaluate.add_argument("--level", choices=("all", "structure", "types", "texts"), default="all",
                          help="which MCS distances to report (default: all three)")
    evaluate.add_argument("--text-threshold", type=float, default=0.2, metavar="T",
                          help="relative edit distance (0-1) up to which normalised texts match (default 0.2)")
    evaluate.add_argument("--time-budget", type=float, default=2.0, metavar="SECONDS",
                          help="exact search time per pair and level before an approximation is used (default 2)")
    evaluate.add_argument("--format", choices=("trec", "json", "csv"), default="trec", help="output format (default: trec)")
    evaluate.add_argument("--precision", type=int, default=4, help="decimals in trec output (default 4)")
    evaluate.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    evaluate.set_defaults(run=_run_flowchart_eval)


def _run_flowchart_eval(args) -> int:
    from . import api
    from .flowchart.scoring import format_evaluation
    from .formats.atomic import atomic_output

    scores, bad_files = api.evaluate_flowcharts(
        args.truth_dir, args.submission_dir, level=args.level, text_threshold=args.text_threshold, time_budget=args.time_budget
    )
    text = format_evaluation(scores, format=args.format, precision=args.precision)
    for problem in bad_files:
        print(f"pateval: bad file: {problem}", file=sys.stderr)
    approximate = scores[(scores["measure"] == "mcs_approximate") & (scores["image"] != "all")]
    if approximate["value"].sum() > 0:
        print(f"pateval: note: {int(approximate['value'].sum())} of {len(approximate)} images fell back to an "
              "approximate MCS (time budget); their distances are upper bounds", file=sys.stderr)
    if args.output:
        with atomic_output(args.output) as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 1 if bad_files else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except PatevalError as error:
        print(f"pateval: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `pateval evaluate ... | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
