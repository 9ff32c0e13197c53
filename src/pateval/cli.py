"""The ``pateval`` command line: a thin layer over :mod:`pateval.api`.

Each sub-command parses its options, calls one API function and prints or writes what it
returns. Exit status: 0 success; 1 findings (a check or evaluation that found bad files);
2 bad input or usage (:class:`pateval.errors.PatevalError`, a file that cannot be opened:
one line on stderr); 70 (``EX_SOFTWARE``) an unexpected exception, i.e. a bug in pateval:
one line asking for a report, and the traceback with ``--debug``; 130 interrupted.

Building the parser imports no heavy library (NumPy, pandas, Arrow, ...): the choices the
options offer come from the ``names`` modules, and each handler imports what it uses, so
``pateval --help`` starts in milliseconds (tests/test_startup.py guards it).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence

from . import __version__
from .errors import PatevalError, TopicsLeftOutWarning

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pateval",
        description="Evaluate patent prior-art search and other professional search.",
        epilog="Exit status: 0 done, 1 findings (check, flowchart eval), 2 bad input or usage (one line naming "
        "the file and line), 70 a bug in pateval (--debug prints its traceback), 130 interrupted.",
    )
    parser.add_argument("--version", action="version", version=f"pateval {__version__}")
    parser.add_argument("--debug", action="store_true", help=_DEBUG_HELP)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in _COMMANDS:
        add(commands)
    _add_shared_flags(parser)
    return parser


# ---- shared shape of every command: --debug anywhere, -o/--out/--output alike, exit statuses ----

#: Exit status of an unexpected exception (a bug): sysexits.h EX_SOFTWARE, distinct from
#: 1 (findings) and 2 (bad input or usage).
EXIT_BUG = 70
_DEBUG_HELP = "on an unexpected error (a bug), print its traceback"
#: The spellings of an output option: each command that has one accepts all three.
_OUTPUT_FLAGS = ("-o", "--out", "--output")


def _leaf_parsers(parser: argparse.ArgumentParser):
    """Every parser that parses a command line's last word (sub-commands of sub-commands too)."""
    children = [action for action in parser._actions if isinstance(action, argparse._SubParsersAction)]
    if not children:
        yield parser
    for action in children:
        for child in dict.fromkeys(action.choices.values()):
            yield from _leaf_parsers(child)


def _add_shared_flags(parser: argparse.ArgumentParser) -> None:
    """--debug after the sub-command too, and the output option in every spelling.

    A command's output option, declared as any of -o, --out, --output, answers to all
    three (the dest and help stay as the command declared them), so that ``-o`` and
    ``--out`` mean the same everywhere they appear.
    """
    for leaf in _leaf_parsers(parser):
        if "--debug" not in leaf._option_string_actions:
            leaf.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=_DEBUG_HELP)
        outputs = {id(a): a for flag, a in leaf._option_string_actions.items() if flag in _OUTPUT_FLAGS}
        for action in outputs.values():
            for flag in _OUTPUT_FLAGS:
                if flag not in leaf._option_string_actions:
                    action.option_strings.append(flag)
                    leaf._option_string_actions[flag] = action


# Each entry adds one sub-command to the parser; the handler is stored with set_defaults(run=...).
# Adding one: take option choices from a ``names`` module (formats/names.py, core/names.py,
# stats/names.py, report/names.py -- modules that import nothing), never from a reader or a
# measure module; import what the handler needs inside the handler; declare an output option
# as any one of -o / --out / --output (the other spellings are added); raise PatevalError for
# bad input (exit 2). tests/test_startup.py and tests/test_cli_shape.py check all of it.
_COMMANDS: list = []


def command(add):
    """Register a function that adds a sub-command (keeps the list in one place)."""
    _COMMANDS.append(add)
    return add


# ---- sub-commands: evaluate, measures (foundation) --------------------------------------

DEFAULT_MEASURES = ("AP", "P@10", "nDCG@10", "R@1000", "NumRet", "NumRel", "NumRelRet")


@command
def _add_evaluate(commands) -> None:
    from .formats.names import RESULT_FORMATS

    p = commands.add_parser(
        "evaluate",
        help="score runs against qrels (trec_eval-compatible output)",
        description="Score one or more runs against qrels. Output: MEASURE<TAB>TOPIC<TAB>VALUE "
        "(TOPIC 'all' for the mean); with several runs a first column names the run.",
    )
    p.add_argument("qrels", nargs="?", help="qrels file (text or Parquet; gzip/bzip2/xz read as they are; - for stdin)")
    p.add_argument("runs", nargs="*", metavar="RUN", help="run file(s): TREC 6-column, a TREC DD jig run, or Parquet; "
                   "gzip/bzip2/xz read as they are; - for stdin")
    p.add_argument("--example", action="store_true", help="evaluate the example qrels and runs bundled with pateval")
    p.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                   help=f"a measure name (repeatable; default: {' '.join(DEFAULT_MEASURES)}); see `pateval measures`")
    p.add_argument("-q", "--per-query", action="store_true", help="also print a line per topic")
    p.add_argument("-c", "--complete", action="store_true",
                   help="average over all qrels topics; missing ones score 0 (trec_eval -c)")
    p.add_argument("--format", choices=RESULT_FORMATS, default="trec", help="output format (default: trec)")
    _add_ranking_inputs(p)
    _add_group_options(p)  # --group-by, --group-plot: see the check (passage runs) section
    _add_scale_options(p)  # --block-size, --scheduler, --work-dir: see the scale section below
    p.add_argument("--precision", type=int, default=4, help="decimals in trec output (default 4, as trec_eval)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout; - for stdout")
    _add_trec_eval_options(p)
    p.set_defaults(run=_run_evaluate)


def _add_trec_eval_options(p) -> None:
    """trec_eval's own flags and names, for scripts written around trec_eval."""
    p.add_argument("--names", choices=("pateval", "trec"), default="pateval",
                   help="measure names in the output: pateval's (AP, P@10, nDCG@10) or trec_eval's (map, P_10, "
                   "ndcg_cut_10), with trec_eval's runid and num_q lines (-m runid -m num_q) and its order")
    p.add_argument("-l", "--relevance-level", type=int, metavar="N",
                   help="grade counted as relevant by every measure not given rel= (trec_eval -l; default 1)")
    p.add_argument("-M", "--max-documents", type=int, metavar="N",
                   help="only each topic's first N documents count (trec_eval -M)")
    p.add_argument("-J", "--judged-only", action="store_true",
                   help="remove unjudged documents from the rankings first (trec_eval -J; or judged_only=true per "
                   "measure)")


def _add_ranking_inputs(p) -> None:
    """How qrels and runs are read and ranked, and the measures' side inputs (evaluate, user-model)."""
    from .core.names import DOC_KEYS, ORDERS
    from .formats.names import QRELS_FORMATS
    from .formats.resources import RESOURCES

    p.add_argument("--qrels-format", choices=QRELS_FORMATS, default="auto",
                   help="qrels format (default: detect where safe)")
    p.add_argument("--order", choices=ORDERS, default="score",
                   help="rank by score (trec_eval), the rank column, or file order")
    p.add_argument("--doc-key", choices=DOC_KEYS, default="publication",
                   help="match documents by id or by patent (EP-0971326-B1 ~ EP0971326)")
    p.add_argument("--on-duplicate", choices=("error", "first"), default="error",
                   help="a document twice for a topic: error, or keep the first")
    for resource in RESOURCES:
        p.add_argument(resource.option, dest=f"resource_{resource.name}", metavar="FILE", help=resource.help)


def _run_evaluate(args) -> int:
    from . import api

    if args.example:
        if args.qrels or args.runs:
            raise PatevalError("give either --example or QRELS RUN..., not both")
        qrels_path, run_paths = api.example_files()
    else:
        if not args.qrels or not args.runs:
            raise PatevalError("evaluate needs QRELS and at least one RUN (or --example)")
        qrels_path, run_paths = args.qrels, args.runs
    from ._lazy import pandas_deferred
    from .formats.resources import RESOURCES, load_resources

    resources = load_resources({r.name: getattr(args, f"resource_{r.name}") for r in RESOURCES})
    trec_names = args.names == "trec"
    asked = args.measures or (["runid", "num_q"] if trec_names else []) + list(DEFAULT_MEASURES)
    from .formats.results import TREC_EVAL_EXTRAS

    extras = [m for m in asked if trec_names and m in TREC_EVAL_EXTRAS]
    measures = [m for m in asked if m not in extras]
    if not measures:
        raise PatevalError("no measure was asked for besides " + " and ".join(extras))
    with pandas_deferred():  # scoring and printing need no pandas: its import was a third of a small evaluation
        result = api.evaluation(
            qrels_path, list(run_paths), measures,
            qrels_format=args.qrels_format, complete=args.complete, order=args.order,
            doc_key=args.doc_key, on_duplicate=args.on_duplicate, resources=resources, **_scale_options(args),
            relevance_level=args.relevance_level, max_documents=args.max_documents, judged_only=args.judged_only,
        )
        rows = result.result_rows(per_query=args.per_query)
    rows = _with_group_rows(rows, result, args)
    text = _evaluate_text(rows, result, args, extras)
    for note in result.notes:
        print(f"pateval: note: {note}", file=sys.stderr)
    _write_text_or_print(text, args.output)
    return 0


def _evaluate_text(rows, result, args, extras) -> str:
    """The output of ``pateval evaluate``: trec_eval's text (with --names trec, as trec_eval
    writes it), JSON (with each run's ir_metadata block, if any), JSON Lines or CSV."""
    import json

    from .formats.results import format_results, format_trec_eval, trec_eval_names

    level = args.relevance_level or 1
    if args.names == "trec":
        if args.format == "trec" and not args.group_by:
            return format_trec_eval(result.scored, result.summary_rows(), result.measures, per_query=args.per_query,
                                    extras=extras, precision=args.precision, relevance_level=level)
        names = trec_eval_names(result.measures, relevance_level=level)
        rows = {**rows, "measure": [names.get(m, m) for m in rows["measure"]]}  # a DataFrame or plain columns
    text = format_results(rows, format=args.format, precision=args.precision)
    if args.format == "json" and result.run_metadata:
        # the runs' own descriptions beside the values (the rows as without them)
        return json.dumps({"rows": json.loads(text), "runs": result.run_metadata}, indent=1) + "\n"
    return text


# ---- scale: run files in blocks of whole topics, on a Dask cluster (evaluate) -------------

_SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def _byte_size(text: str) -> int:
    """A size such as 32M, 512K, 1G or 1000000 (bytes); 0 allowed."""
    number, unit = text.strip(), ""
    if number[-1:].upper() in ("K", "M", "G"):
        number, unit = number[:-1], number[-1].upper()
    if not number.isdigit():
        raise argparse.ArgumentTypeError(f"not a size in bytes (such as 32M, 512K or 0): {text!r}")
    return int(number) * _SIZE_UNITS[unit]


def _add_scale_options(p) -> None:
    p.add_argument("--block-size", type=_byte_size, default=None, metavar="SIZE",
                   help="read and score each run file in blocks of whole topics of about SIZE bytes (default 32M; "
                        "0: each run whole in memory); runs with scattered topics are partitioned on disk first")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="Dask scheduler (tcp://host:8786) to score the blocks of the runs on a cluster; "
                        "workers need the same paths")
    p.add_argument("--work-dir", metavar="DIR",
                   help="where runs with scattered topics are partitioned (default: the temporary directory)")


def _scale_options(args) -> dict:
    return {"block_bytes": args.block_size, "scheduler": args.scheduler, "work_dir": args.work_dir}


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
            params = "<br>".join(row.parameters) or "-"
            print(f"| `{row.name}` | {row.family} | {row.cutoff} | {row.summary}: `{row.formula}` | {params} | "
                  f"{row.reference} |")
        return 0
    for row in table.itertuples():
        cutoff = {"none": "", "optional": "[@k]", "required": "@k"}[row.cutoff]
        print(f"{row.name}{cutoff}  ({row.family}) {row.summary}")
        print(f"    {row.formula}")
        for param in row.parameters:
            print(f"    - {param}")
        if row.aliases:
            print(f"    aliases: {row.aliases}")
        print(f"    reference: {row.reference}")
    return 0


# ---- sub-commands: corpus, collection (patents and test collections) --------------------


@command
def _add_corpus(commands) -> None:
    sub = _subcommands_of(
        commands, "corpus", help="parse patent XML into a corpus store (Parquet, queried with DuckDB)",
                          dest="corpus_command",
        description="Work with a patent corpus store: `pateval corpus ingest DIR_OR_FILES --out STORE`.",
    )
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
    ingest.add_argument("--out", required=True, metavar="STORE", help="store directory (created, or resumed)")
    ingest.add_argument("--workers", type=int, metavar="N", help="local worker processes (default: all CPUs)")
    ingest.add_argument("--scheduler", metavar="ADDRESS",
                        help="Dask scheduler (tcp://host:8786) to parse on a cluster; workers need the same paths")
    ingest.add_argument("--on-error", choices=("stop", "skip"), default="stop",
                        help="stop at the first bad document (default), or skip it, report it and go on")
    ingest.add_argument("--memory-limit", metavar="SIZE",
                        help="DuckDB memory limit kept as the store's default (e.g. 4GB)")
    ingest.add_argument("--no-progress", action="store_true", help="no progress bar")
    ingest.add_argument("--wait", type=float, default=0.0, metavar="SECONDS",
                        help="wait this long for another ingest writing to the store (default: refuse at once)")
    ingest.set_defaults(run=_run_corpus_ingest)


def _run_corpus_ingest(args) -> int:
    from . import api

    summary = api.ingest_corpus(
        args.inputs, args.out, workers=args.workers, scheduler=args.scheduler, on_error=args.on_error,
        memory_limit=args.memory_limit, progress=not args.no_progress and sys.stderr.isatty(), wait=args.wait,
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


@command
def _add_corpus_lengths(commands) -> None:
    sub = _subcommands_of(commands, "corpus", help="patent corpora: ingest, generate, lengths", dest="corpus_command")
    p = sub.add_parser(
        "lengths",
        help="write each document's length in words (for TBG and CT's time=tbg: --doc-lengths)",
        description="Write a `docno length` file from a corpus store: each document's words in its abstracts, "
        "description and claims, every language. The file is what `pateval evaluate --doc-lengths` reads.",
    )
    p.add_argument("store", metavar="STORE", help="corpus store (from `pateval corpus ingest`)")
    p.add_argument("--out", required=True, metavar="FILE", help="lengths file to write")
    p.set_defaults(run=_run_corpus_lengths)


def _run_corpus_lengths(args) -> int:
    from . import api

    lengths = api.corpus_doc_lengths(args.store, out=args.out)
    print(f"{len(lengths)} document lengths written to {args.out}")
    return 0


@command
def _add_corpus_verify(commands) -> None:
    sub = _subcommands_of(commands, "corpus", help="patent corpora: ingest, verify", dest="corpus_command")
    p = sub.add_parser(
        "verify",
        help="check every part of a store against its manifest (size, SHA-256); repair or drop damaged batches",
        description="Check every committed Parquet part of a corpus store against the size and SHA-256 its batch "
        "manifest records. Exit status 0: no damage (or all of it repaired or dropped); 1: damage found. "
        "--repair ingests the source files of each damaged batch again (they must be unchanged); --drop removes "
        "the damaged batches and lists the documents that went.",
    )
    p.add_argument("store", metavar="STORE", help="corpus store (from `pateval corpus ingest`)")
    p.add_argument("--quick", action="store_true", help="compare sizes only (no checksums)")
    action = p.add_mutually_exclusive_group()
    action.add_argument("--repair", action="store_true", help="re-ingest the source files of damaged batches")
    action.add_argument("--drop", action="store_true", help="remove damaged batches, listing their documents")
    p.add_argument("--wait", type=float, default=0.0, metavar="SECONDS",
                   help="wait this long for an ingest writing to the store (repair and drop take its lock)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=_run_corpus_verify)


def _run_corpus_verify(args) -> int:
    from . import api

    report = api.verify_corpus(args.store, quick=args.quick, repair=args.repair, drop=args.drop, wait=args.wait,
                               progress=not args.no_progress and sys.stderr.isatty())
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


def _subcommands_of(commands, name: str, *, help: str, dest: str, description: str | None = None):
    """The sub-command group of top-level command ``name`` (created when absent, described by
    ``description``, else ``help``), so that several sections can add sub-commands to one
    command (``corpus ingest`` and ``corpus generate``)."""
    parser = commands.choices.get(name)
    if parser is None:
        parser = commands.add_parser(name, help=help, description=description or help)
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
          f"{summary.documents_per_second:.0f} docs/s  {summary.megabytes_per_second:.1f} MB/s  ({summary.seconds:.1f} "
          f"s)")
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


@command
def _add_check(commands) -> None:
    p = commands.add_parser(
        "check",
        help="check a CLEF-IP passage run as the organisers did (and repair it with --fix)",
        description="Check a passage run (topic_id Q0 doc_id xpath psg_rank psg_score): format, duplicates, "
        "a topic's lines scattered through the file, more than 100 documents for a topic, headings, XPaths the "
        "document does not have (with --store), topics not in --topics. Prints LINE<TAB>KIND<TAB>MESSAGE for "
        "every finding; exit status 1 when something needs fixing (0 once --fix wrote the repaired run).",
    )
    p.add_argument("run_file", metavar="RUN", help="passage run file (participantID-runID-PSG.ext)")
    p.add_argument("--topics", metavar="FILE", help="passage topics file (tid, tfile, tclaims)")
    p.add_argument("--store", metavar="DIR", help="corpus store (pateval corpus ingest) to check that XPaths exist")
    p.add_argument("--max-documents", type=int, default=100, metavar="N",
                   help="documents allowed per topic (default 100)")
    p.add_argument("--fix", metavar="OUT", help="write the repaired run to OUT and the changes to OUT.log")
    p.add_argument("--log", metavar="FILE", help="where --fix writes its change log (default OUT.log)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the findings to FILE (atomically) instead of stdout")
    p.set_defaults(run=_run_check)


def _run_check(args) -> int:
    from .check import check_passage_run, fix_passage_run

    if args.log and not args.fix:
        raise PatevalError("--log goes with --fix")
    report = check_passage_run(args.run_file, topics=args.topics, store=args.store, max_documents=args.max_documents)
    _write_text_or_print(report.format(), args.output)
    if args.fix:
        out, log = fix_passage_run(report, args.fix, log=args.log)
        print(f"pateval: wrote {out} ({len(report.kept)} lines) and {log} "
              f"({len(report.removed)} removed, {len(report.moved)} moved)", file=sys.stderr)
        return 0
    return 0 if report.ok else 1


def _add_group_options(p) -> None:
    """``pateval evaluate`` options for results by topic group (CLEF-IP 2013 Figure 5)."""
    p.add_argument("--group-by", metavar="FILE", help="also give each measure's value per topic group: a file of "
                   "`topic attribute` lines, or a passage topics file (groups = topic languages); rows 'all:GROUP'")
    p.add_argument("--group-plot", metavar="FILE", help="with --group-by: grouped-bar plot of the first measure "
                   "(runs x groups) written to FILE (.png, .pdf, .svg)")


def _with_group_rows(rows, result, args):
    """Result rows with an ``all:GROUP`` row after each ``all`` row (--group-by); writes --group-plot."""
    if args.group_plot and not args.group_by:
        raise PatevalError("--group-plot needs --group-by")
    if not args.group_by:
        return rows
    import pandas as pd

    from .report.breakdown import group_summary, plot_group_summary, read_topic_groups

    rows = pd.DataFrame(rows)
    summary, notes = group_summary(result.frame, read_topic_groups(args.group_by), result.measures)
    for note in notes:
        print(f"pateval: note: {note}", file=sys.stderr)
    extra = summary[summary["group"] != "all"]
    extra = pd.DataFrame({"run": extra["run"], "measure": extra["measure"],
                          "topic": "all:" + extra["group"].astype(str),
                          "value": extra["value"]})
    combined = pd.concat([rows, extra], ignore_index=True)
    pair = list(zip(combined["run"], combined["measure"], strict=False))
    first_seen = {key: i for i, key in reversed(list(enumerate(pair)))}
    combined["_block"] = [first_seen[key] for key in pair]
    combined = combined.sort_values("_block", kind="stable").drop(columns="_block").reset_index(drop=True)
    if args.group_plot:
        from .formats.atomic import atomic_output

        figure = plot_group_summary(summary)
        suffix = args.group_plot.rsplit(".", 1)[-1].lower() if "." in args.group_plot else "png"
        with atomic_output(args.group_plot, "wb") as handle:
            figure.savefig(handle, format=suffix, dpi=150)
        print(f"pateval: wrote {args.group_plot}", file=sys.stderr)
    return combined


# ---- sub-commands: user-model (time-biased gain's user, rank by rank and simulated) ------

@command
def _add_user_model(commands) -> None:
    sub = _subcommands_of(commands, "user-model", dest="user_model_command",
                          help="time-biased gain's user: when each document is reached, and simulated users",
                          description="The TBG user model over runs and qrels: `pateval user-model time` gives T(k), "
                          "the "
                          "time at which the user reaches each rank, with the gain earned (plot time against rank); "
                          "`pateval user-model simulate` draws stochastic users and reports their mean gain, spread "
                          "and "
                          "confidence interval beside the closed form.")
    for name, help, run in (
        ("time", "T(k) and the gain earned at every rank of every topic (one row per retrieved document)",
         _run_user_time),
        ("simulate", "simulated users per topic: mean gain, spread, confidence interval, exact expectation",
         _run_user_simulate),
    ):
        p = sub.add_parser(name, help=help, description=help)
        p.add_argument("qrels", help="qrels file")
        p.add_argument("runs", nargs="+", metavar="RUN", help="run file(s)")
        p.add_argument("--model", default="TBG", metavar="TBG(...)",
                       help="the calibration as a TBG measure name, e.g. 'TBG(halflife=600,read_slope=0.03)' (default: "
                       "TBG)")
        _add_ranking_inputs(p)
        if name == "simulate":
            p.add_argument("--users", type=int, default=10_000, help="simulated users per topic (default 10000)")
            p.add_argument("--seed", type=int, default=0, help="seed (default 0; the same seed, the same numbers)")
            p.add_argument("--confidence", type=float, default=0.95,
                           help="confidence level of the interval (default 0.95)")
        _add_table_output(p)
        p.set_defaults(run=run)
    _add_simulate_log(sub)


def _user_model_options(args) -> dict:
    from .formats.resources import RESOURCES, load_resources

    return {"model": args.model, "qrels_format": args.qrels_format, "order": args.order, "doc_key": args.doc_key,
            "on_duplicate": args.on_duplicate,
            "resources": load_resources({r.name: getattr(args, f"resource_{r.name}") for r in RESOURCES})}


def _write_user_model_frame(frame, args, settings: dict) -> None:
    from .report.tables import render_frame

    _write_text_or_print(render_frame(frame, format=args.format, precision=args.precision, settings=settings),
                         args.output)


def _run_user_time(args) -> int:
    from . import api

    options = _user_model_options(args)
    frame = api.time_to_rank(args.qrels, list(args.runs), **options)
    _write_user_model_frame(frame, args, {"model": args.model, "order": args.order})
    return 0


def _run_user_simulate(args) -> int:
    from . import api

    options = _user_model_options(args)
    frame = api.simulate_users(args.qrels, list(args.runs), n_users=args.users, seed=args.seed,
                               confidence=args.confidence, **options)
    _write_user_model_frame(frame, args, {"model": args.model, "order": args.order, "users": args.users,
                                          "seed": args.seed, "confidence": args.confidence})
    return 0


# ---- sub-commands: calibrate, user-model simulate-log (TBG calibrated from interaction logs) ----

@command
def _add_calibrate(commands) -> None:
    from .core.names import ORDERS
    from .formats.names import QRELS_FORMATS

    p = commands.add_parser(
        "calibrate",
        help="time-biased gain's constants estimated from an interaction log (Smucker & Clarke 2012)",
        description="Estimate T_S, T_D(l) = a l + b, P(C|R), P(S|R) and the half-life h from what users did on ranked "
        "lists, as the TBG paper defines the estimators, each with a bootstrap interval over users and the unweighted "
        "user average; print the table and the TBG measure name with these constants.",
    )
    p.add_argument("log", metavar="LOG", help="interaction log: .csv, .tsv, .jsonl or .parquet, optionally .gz "
                   "(columns user, list, time, event[, rank, docno]; see the README)")
    p.add_argument("--qrels", required=True, metavar="QRELS", help="qrels file (a list's topic is a qrels topic)")
    p.add_argument("--run", action="append", dest="runs", required=True, metavar="RUN",
                   help="the run whose rankings the users searched (repeatable; with several, --lists says which is "
                   "which)")
    p.add_argument("--doc-lengths", required=True, metavar="FILE",
                   help="document lengths file (`docno length` lines, words)")
    p.add_argument("--duplicates", metavar="FILE",
                   help="near-duplicate groups (one group per line): later views of a group "
                   "are duplicate views")
    p.add_argument("--lists", metavar="FILE",
                   help="`list topic [run]` lines: the topic and run of each list of the log "
                   "(default: a list is a topic of the one run)")
    p.add_argument("--by", choices=("topic", "user-class"),
                   help="also one calibration per topic, or per class of users by speed")
    p.add_argument("--classes", type=int, default=2, help="user classes for --by user-class (default 2: slow, fast)")
    p.add_argument("-B", "--resamples", type=int, default=1000, dest="B", metavar="B",
                   help="bootstrap resamples of users (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--confidence", type=float, default=0.95, help="level of the intervals (default 0.95)")
    p.add_argument("--rel", type=int, default=1, help="minimum grade counted as relevant (default 1)")
    p.add_argument("--qrels-format", choices=QRELS_FORMATS, default="auto",
                   help="qrels format (default: detect where safe)")
    p.add_argument("--order", choices=ORDERS, default="score", help="the lists' order: by score (trec_eval), the rank "
                   "column, or the order of the run's lines (default: score)")
    p.add_argument("--plots", metavar="DIR",
                   help="write the figures (reading time, stopping, rank over time) as PNG and SVG")
    p.add_argument("--measure-only", action="store_true", help="print only the measure name (of all sessions)")
    _add_table_output(p)
    p.set_defaults(run=_run_calibrate)


def _calibration_text(result, args) -> str:
    from .report.tables import render_frame

    if args.format == "json":
        return result.to_json()
    text = render_frame(result.frame(), format=args.format, precision=args.precision, settings=result.settings)
    if args.format != "text":
        return text
    lines = [text]
    for c in result.calibrations:
        reading, dup, stop = c.fit["reading"], c.fit["duplicates"], c.fit["stopping"]
        lines.append(f"{c.group}: {c.users} users, {c.sessions} sessions")
        lines.append(f"  reading fit: {reading['n']} first views, adjusted R^2 {reading['adjusted_r2']:.4f}, "
                     f"se(read_slope) {reading['read_slope_se']:.4g}, se(read_intercept) "
                     f"{reading['read_intercept_se']:.4g}")
        if dup["n"]:
            lines.append(f"  duplicate views: {dup['n']}, mean {dup['mean']:.4g} s +- {dup['se']:.3g} (se); against "
                         f"read_intercept "
                         f"p = {dup['p_value']:.3g}; one-se bars overlap: {'yes' if dup['se_bars_overlap'] else 'no'}")
        lines.append(f"  stopping: {stop['stopped']} stopped, {stop['censored']} censored; largest gap between "
                     f"Kaplan-Meier "
                     f"and 2^(-t/h): {stop['km_max_gap']:.4f}")
        for note in c.notes:
            lines.append(f"  note: {note}")
        lines.append(f"  measure: {c.measure}")
    return "\n".join(lines) + "\n"


def _run_calibrate(args) -> int:
    from . import api

    result = api.calibrate(args.log, qrels=args.qrels, runs=list(args.runs), doc_lengths=args.doc_lengths,
                           duplicates=args.duplicates, lists=args.lists, by=args.by, n_classes=args.classes, B=args.B,
                           seed=args.seed, confidence=args.confidence, rel=args.rel, qrels_format=args.qrels_format,
                           order=args.order)
    if args.measure_only:
        _write_text_or_print(result.calibrations[0].measure + "\n", args.output)
    else:
        _write_text_or_print(_calibration_text(result, args), args.output)
        if args.format != "text":
            for c in result.calibrations:
                print(f"pateval: measure ({c.group}): {c.measure}", file=sys.stderr)
    if args.plots:
        figures = api.calibration_figures(result, doc_lengths=args.doc_lengths, duplicates=args.duplicates)
        validation = figures.pop("validation")
        _save_figures({f"calibration_{name}": figure for name, figure in figures.items()}, args.plots)
        summary = validation.groupby("time")["error"].mean().dropna() if not validation.empty else validation
        if len(summary):
            print("pateval: T(k) against users: mean absolute rank error "
                  + ", ".join(f"{v:.2f} at {t:g} s" for t, v in summary.items()), file=sys.stderr)
        if "error_custom" in validation.columns:
            own = validation.groupby("time")["error_custom"].mean().dropna()
            print("pateval: each topic's own T(k) against users: mean absolute rank error "
                  + ", ".join(f"{v:.2f} at {t:g} s" for t, v in own.items()), file=sys.stderr)
    return 0


def _add_report_calibration(p) -> None:
    """`pateval report`'s calibration section: a log calibrated against the report's qrels and runs."""
    p.add_argument("--calibration-log", metavar="LOG", help="an interaction log: add a section calibrating TBG from it "
                   "(the lists are topics of the runs; needs --doc-lengths)")
    p.add_argument("--calibration-run", metavar="RUN", help="the run the log's users searched (default: the first run)")
    p.add_argument("--doc-lengths", metavar="FILE", help="document lengths (TBG measures, --calibration-log)")
    p.add_argument("--duplicates", metavar="FILE",
                   help="near-duplicate groups (TBG(duplicates=groups), --calibration-log)")
    p.add_argument("--lists", metavar="FILE", help="`list topic [run]` lines for --calibration-log")


def _report_resources(args) -> dict:
    """--doc-lengths and --duplicates serve the report's TBG measures too (runs and qrels, not --scores)."""
    from .formats.resources import load_resources

    if getattr(args, "scores", None):
        return {}

    resources = load_resources({"doc_lengths": args.doc_lengths, "duplicate_groups": args.duplicates})
    return {"resources": resources} if resources else {}


def _report_calibration(args):
    if not args.calibration_log:
        return None
    from . import api

    if not args.doc_lengths:
        raise PatevalError("--calibration-log needs --doc-lengths")
    if getattr(args, "scores", None) or args.qrels is None:
        raise PatevalError("--calibration-log needs --qrels and the runs the users searched (not --scores)")
    runs = list(args.runs) if args.lists else [args.calibration_run or args.runs[0]]
    result = api.calibrate(args.calibration_log, qrels=args.qrels, runs=runs, doc_lengths=args.doc_lengths,
                           duplicates=args.duplicates, lists=args.lists, seed=args.seed, qrels_format=args.qrels_format)
    return result, api.calibration_figures(result, doc_lengths=args.doc_lengths, duplicates=args.duplicates)


def _add_simulate_log(sub) -> None:
    from .core.names import ORDERS

    help = "simulate users who behave as a TBG calibration says, writing an interaction log"
    p = sub.add_parser("simulate-log", help=help, description=help + " (one session per user and topic of the run; the "
                       "noise is described in the README). Calibrating the log recovers the constants.")
    p.add_argument("--qrels", required=True, metavar="QRELS", help="qrels file")
    p.add_argument("--run", required=True, dest="run_file", metavar="RUN",
                   help="the run whose rankings the users work through")
    p.add_argument("--doc-lengths", required=True, metavar="FILE", help="document lengths file (`docno length` lines)")
    p.add_argument("--duplicates", metavar="FILE", help="near-duplicate groups, for a model with duplicates=groups")
    p.add_argument("--model", default="TBG", metavar="TBG(...)",
                   help="the calibration the users follow (default: TBG, the paper's)")
    p.add_argument("--users", type=int, default=48, help="simulated users (default 48, as the paper's study)")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--page-size", type=int, default=10, help="summaries per results page (default 10)")
    p.add_argument("--p-save-nonrel", type=float, default=0.27,
                   help="P(S=1|R=0), not a TBG parameter (default 0.27, the paper's)")
    p.add_argument("--summary-noise", type=float, default=0.5,
                   help="coefficient of variation of a summary's time (gamma; default 0.5)")
    p.add_argument("--read-noise", type=float, default=0.5,
                   help="log-scale sd of the reading time's factor (log-normal, mean 1; default 0.5)")
    p.add_argument("--speed-spread", type=float, default=0.0,
                   help="log-scale sd of each user's speed factor (default 0: all alike)")
    p.add_argument("--order", choices=ORDERS, default="score",
                   help="rank by score (trec_eval), the rank column, or file order")
    p.add_argument("--out", required=True, metavar="LOG",
                   help="the log to write (.csv, .tsv, .jsonl, .parquet, optionally .gz)")
    p.set_defaults(run=_run_simulate_log)


def _run_simulate_log(args) -> int:
    from . import api
    from .formats.groups import read_duplicate_groups

    resources = {"duplicate_groups": read_duplicate_groups(args.duplicates)} if args.duplicates else None
    log = api.simulate_log(args.qrels, args.run_file, doc_lengths=args.doc_lengths, model=args.model,
                           n_users=args.users,
                           seed=args.seed, out=args.out, resources=resources, page_size=args.page_size,
                           p_save_nonrel=args.p_save_nonrel, summary_noise=args.summary_noise,
                           read_noise=args.read_noise,
                           speed_spread=args.speed_spread, order=args.order)
    print(f"pateval: wrote {len(log)} events of {log['user'].nunique()} users on {log['list'].nunique()} lists to "
          f"{args.out}",
          file=sys.stderr)
    return 0


# ---- sub-commands: compare, analyse-measures, report (comparing systems) ----------------

COMPARE_MEASURES = ("AP", "P@10", "nDCG@10")


def _add_run_set_inputs(p, *, qrels_required: bool = True) -> None:
    """Options of every command that evaluates a set of runs to compare them: qrels, runs, measures."""
    from .formats.names import QRELS_FORMATS

    p.add_argument("qrels", metavar="QRELS", help="qrels file (as `pateval evaluate QRELS RUN...`)"
                   + ("" if qrels_required else "; with --scores, the first score file"))
    p.add_argument("runs", nargs="*", metavar="RUN",
                   help="run files" + ("" if qrels_required else " (score files with --scores)"))
    p.add_argument("--qrels", dest="qrels_option", metavar="QRELS",
                   help="the qrels file, the older spelling (then every positional argument is a run)")
    p.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                   help=f"a measure name (repeatable; default: {' '.join(COMPARE_MEASURES)})")
    p.add_argument("-c", "--complete", action="store_true",
                   help="score topics a run lacks as 0 instead of leaving them out (trec_eval -c)")
    p.add_argument("--qrels-format", choices=QRELS_FORMATS, default="auto",
                   help="qrels format (default: detect where safe)")


def _resolve_qrels_and_runs(args) -> None:
    """``QRELS RUN...``, or ``--qrels QRELS RUN...`` (the older spelling), as args.qrels and
    args.runs; with ``--scores`` every positional argument is a score file (args.qrels: the
    --qrels given, which _comparison_sources refuses)."""
    if not hasattr(args, "qrels_option"):
        return
    if getattr(args, "scores", False):
        args.qrels, args.runs = args.qrels_option, [args.qrels, *args.runs]
        return
    if args.qrels_option is not None:
        args.qrels, args.runs = args.qrels_option, [args.qrels, *args.runs]
    if not args.runs:
        raise PatevalError(f"{args.command} needs QRELS and at least one RUN")


def _add_comparison_inputs(p, *, default_test: str, repeatable_test: bool = False) -> None:
    """Options that compare, analyse-measures and report share."""
    from .stats.names import TESTS

    _add_run_set_inputs(p, qrels_required=False)
    _add_score_inputs(p)
    if repeatable_test:
        p.add_argument("--test", choices=TESTS, action="append", dest="tests",
                       help=f"significance test (repeatable: one table column per test; the first draws the ASL "
                       f"curves; default: {default_test})")
    else:
        p.add_argument("--test", choices=TESTS, default=default_test,
                       help=f"significance test (default: {default_test})")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--seed", type=int, default=0, help="seed of the resampling tests (default 0; reported)")
    p.add_argument("-B", "--resamples", type=int, dest="B", metavar="B",
                   help="resamples of the resampling tests (default: randomisation 10000, bootstrap 1000, tukey 5000)")


def _add_score_inputs(p) -> None:
    """--scores: compare per-topic score files (trec_eval -q, ir_measures, pateval) instead of runs (issue 15)."""
    p.add_argument("--scores", action="store_true",
                   help="the RUN files are per-topic score files (trec_eval -q, ir_measures -q, pateval evaluate -q "
                   "text/CSV/JSON), compared without qrels; -m picks measures (default: those every run has)")
    p.add_argument("--scores-format", choices=SCORE_FORMATS, default="auto",
                   help="format of the --scores files (default: detect)")


#: formats.scores.SCORE_FORMATS, written out so that building the parser imports no reader (a test keeps them equal)
SCORE_FORMATS = ("auto", "trec_eval", "ir_measures", "pateval-csv", "pateval-json")


def _comparison_sources(args) -> tuple:
    """(qrels, measures, evaluate options) of compare / analyse-measures / report: runs and
    qrels, or per-topic score files with --scores."""
    from .errors import ParameterError

    if args.scores:
        if args.qrels is not None:
            raise ParameterError("--scores compares score files without qrels; leave out --qrels")
        if args.complete or args.qrels_format != "auto":
            raise ParameterError("-c and --qrels-format act on runs and qrels; with --scores the files' topics are "
                                 "used "
                                 "as they are")
        return None, args.measures, {"scores_format": args.scores_format}
    if args.qrels is None:
        raise ParameterError("the following arguments are required: --qrels (or give per-topic score files with "
                             "--scores)")
    return args.qrels, args.measures or list(COMPARE_MEASURES), _comparison_evaluate_options(args)


def _add_table_output(p) -> None:
    """Where and how a command writes its table: --format, --precision, -o."""
    from .report.names import TABLE_FORMATS

    p.add_argument("--format", choices=TABLE_FORMATS, default="text", help="output format (default: text)")
    p.add_argument("--precision", type=int, default=4, help="decimals of text and LaTeX output (default 4)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")


def _comparison_evaluate_options(args) -> dict:
    return {"complete": args.complete, "qrels_format": args.qrels_format}


def _write_text_or_print(text: str, output: str | None) -> None:
    """The output of a command: to ``output`` atomically (whole or not at all), else stdout
    (also for ``-o -``)."""
    if output and output != "-":
        from .formats.results import write_results

        write_results(text, output)
    else:
        sys.stdout.write(text)


def _figure_name(*parts: str) -> str:
    """A file name from measure and run names (characters a file system may refuse become _)."""
    import re

    return "_".join(re.sub(r"[^A-Za-z0-9@.+=-]+", "_", part) for part in parts)


def _save_figures(figures: dict, directory: str) -> None:
    from pathlib import Path

    from .report.plots import save_figure

    for name, figure in figures.items():
        for suffix in ("png", "svg"):
            save_figure(figure, Path(directory) / f"{name}.{suffix}")
    print(f"pateval: wrote {len(figures)} figure{'' if len(figures) == 1 else 's'} (PNG and SVG) to {directory}",
          file=sys.stderr)


@command
def _add_compare(commands) -> None:
    from .stats.names import CORRECTION_NAMES

    p = commands.add_parser(
        "compare",
        help="mean scores of runs with significance markers (against a baseline or all pairs)",
        description="Evaluate the runs and test them over topics, per measure: against --baseline, or every pair. "
        "Prints a table of means with significance markers; --format csv/json gives every test.",
    )
    _add_comparison_inputs(p, default_test="t")
    p.add_argument("--baseline", metavar="RUN", help="name of the run to test the others against (default: all pairs)")
    p.add_argument("--correction", choices=CORRECTION_NAMES, default="holm",
                   help="multiple-comparison correction (default: holm)")
    p.add_argument("--plots", metavar="DIR", help="also write per-topic difference plots (PNG and SVG) to DIR")
    _add_table_output(p)
    p.set_defaults(run=_run_compare)


def _run_compare(args) -> int:
    from . import api
    from .report.tables import render_comparison

    qrels, measures, options = _comparison_sources(args)
    comparison = api.compare(
        qrels, list(args.runs), measures, baseline=args.baseline, test=args.test,
        correction=None if args.correction == "none" else args.correction, alpha=args.alpha, seed=args.seed, B=args.B,
        evaluate_options=options,
    )
    for note in comparison.notes:
        print(f"pateval: note: {note}", file=sys.stderr)
    _write_text_or_print(render_comparison(comparison, format=args.format, precision=args.precision), args.output)
    if args.plots:
        from .report.html import difference_pairs
        from .report.plots import plot_topic_differences

        figures = {}
        for measure, matrix in comparison.scores.items():
            for run_a, run_b in difference_pairs(comparison, limit=len(comparison.runs)):
                figures[_figure_name("differences", measure, run_a, "minus", run_b)] = plot_topic_differences(
                    matrix[run_a], matrix[run_b], run_a=run_a, run_b=run_b, measure=measure)
        _save_figures(figures, args.plots)
    return 0


@command
def _add_analyse_measures(commands) -> None:
    from .stats.names import TESTS

    p = commands.add_parser(
        "analyse-measures",
        help="discriminative power, rank correlation and agreement of measures over a run set",
        description="Evaluate the runs under each measure and compare the measures: discriminative power (share of run "
        "pairs significant at alpha, difference needed; Sakai 2006), Kendall's tau and tau_ap between the run "
        "rankings, and the agreement of the measures' verdicts on each run pair (Magdy & Jones 2010).",
    )
    _add_comparison_inputs(p, default_test="bootstrap", repeatable_test=True)
    p.add_argument("--agreement-test", choices=TESTS, default="wilcoxon",
                   help="test behind the agreement verdicts (default: wilcoxon)")
    p.add_argument("--plots", metavar="DIR",
                   help="also write ASL curves, scatter plots, rank changes and the agreement chart to DIR")
    _add_table_output(p)
    p.set_defaults(run=_run_analyse_measures)


def _run_analyse_measures(args) -> int:
    from . import api
    from .report.tables import render_analysis

    qrels, measures, options = _comparison_sources(args)
    analysis = api.analyse_measures(
        qrels, list(args.runs), measures, test=args.tests or ["bootstrap"],
        agreement_test=args.agreement_test,
        alpha=args.alpha, seed=args.seed, B=args.B, evaluate_options=options,
    )
    for note in analysis.notes:
        print(f"pateval: note: {note}", file=sys.stderr)
    _write_text_or_print(render_analysis(analysis, format=args.format, precision=args.precision), args.output)
    if args.plots:
        from .report import plots  # matplotlib: only when figures are asked for

        figures = {"asl_curves": plots.plot_asl_curves(analysis.power.curves, alpha=args.alpha)}
        means = analysis.means
        for i, first in enumerate(means.columns):
            for second in means.columns[i + 1 :]:
                if means[first].nunique() > 1 and means[second].nunique() > 1:
                    figures[_figure_name("scatter", first, second)] = plots.plot_measure_scatter(
                        means[first], means[second], measure_x=first, measure_y=second, labels=list(means.index))
        if analysis.chart is not None:
            figures["agreement_chart"] = plots.plot_agreement_chart(analysis.chart)
            figures["rank_changes"] = plots.plot_rank_changes(means)
            figures["measures_by_run"] = plots.plot_measures_by_run(means)
        _save_figures(figures, args.plots)
    return 0


@command
def _add_stability(commands) -> None:
    p = commands.add_parser(
        "stability",
        help="how stable the ranking of runs is on random topic subsets of growing size",
        description="Evaluate the runs, then for each topic-set size draw --trials random subsets of the topics "
        "(seeded) and compare the ranking of the runs by their mean on each subset with their ranking on all topics "
        "by Kendall's tau (Roda et al. 2010). Prints mean, min and max tau per measure and size.",
    )
    _add_run_set_inputs(p)
    p.add_argument("--sizes", default="10,25,50,100,S,M,L,XL", metavar="LIST",
                   help="comma-separated topic-set sizes: numbers or S, M, L, XL (500, 1000, 5000, 10000); sizes "
                   "above the number of topics are left out (default: 10,25,50,100,S,M,L,XL)")
    p.add_argument("--trials", type=int, default=20, help="random subsets per size (default 20)")
    p.add_argument("--seed", type=int, default=0, help="seed of the subsets (default 0)")
    _add_table_output(p)
    p.set_defaults(run=_run_stability)


def _run_stability(args) -> int:
    from . import api
    from .report.tables import render_frame

    frame = api.ranking_stability(args.qrels, list(args.runs), args.measures or list(COMPARE_MEASURES),
                                  sizes=args.sizes,
                                  trials=args.trials, seed=args.seed,
                                  evaluate_options=_comparison_evaluate_options(args))
    for note in frame.attrs["notes"]:
        print(f"pateval: note: {note}", file=sys.stderr)
    text = render_frame(frame, format=args.format, precision=args.precision, settings=frame.attrs["settings"])
    _write_text_or_print(text, args.output)
    return 0


@command
def _add_report(commands) -> None:
    from .report.names import IMAGE_FORMATS
    from .stats.names import CORRECTION_NAMES, TESTS

    p = commands.add_parser(
        "report",
        help="one self-contained HTML report comparing runs and measures",
        description="Evaluate the runs and write a single HTML file with the comparison table, the tests, per-topic "
        "differences, discriminative power with ASL curves, rank correlation and the agreement chart; figures embedded.",
    )
    _add_comparison_inputs(p, default_test="t")
    p.add_argument("--baseline", metavar="RUN", help="name of the run to test the others against (default: all pairs)")
    p.add_argument("--correction", choices=CORRECTION_NAMES, default="holm",
                   help="multiple-comparison correction (default: holm)")
    p.add_argument("--analysis-test", choices=TESTS, default="bootstrap",
                   help="test for discriminative power (default: bootstrap)")
    p.add_argument("--agreement-test", choices=TESTS, default="wilcoxon",
                   help="test behind the agreement verdicts (default: wilcoxon)")
    p.add_argument("--title", default="pateval report", help="the report's title")
    p.add_argument("--image-format", choices=IMAGE_FORMATS, default="svg",
                   help="embed figures as inline SVG or base64 PNG (default: svg)")
    p.add_argument("--gain-over-time", metavar="CSV",
                   help="CSV with columns run,time,gain (seconds; cumulative gain) for the G(t) plot")
    p.add_argument("--ct-gamma", metavar="CSV",
                   help="CSV with columns run,gamma,score for the Cube-Test-against-gamma plot")
    p.add_argument("-o", "--output", metavar="FILE", required=True, help="the HTML file to write")
    _add_report_calibration(p)
    p.set_defaults(run=_run_report)


def _read_plot_csv(path: str | None, columns: tuple[str, ...]):
    if path is None:
        return None
    import pandas as pd

    from .errors import malformed

    try:
        frame = pd.read_csv(path)
    except (OSError, ValueError) as error:
        malformed(path, None, f"cannot read the CSV ({error})")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        malformed(path, 1, "missing columns", expected=",".join(columns), found=",".join(map(str, frame.columns)))
    frame["run"] = frame["run"].astype(str)
    for column in columns[1:]:
        if not pd.api.types.is_numeric_dtype(frame[column]):
            malformed(path, None, f"column {column} must hold numbers")
    return frame


def _run_report(args) -> int:
    from . import api

    qrels, measures, options = _comparison_sources(args)
    path = api.write_report(
        qrels, list(args.runs), measures, out=args.output, baseline=args.baseline,
        test=args.test, correction=None if args.correction == "none" else args.correction,
                            analysis_test=args.analysis_test,
        agreement_test=args.agreement_test, alpha=args.alpha, seed=args.seed, B=args.B, title=args.title,
        image_format=args.image_format, gain_over_time=_read_plot_csv(args.gain_over_time, ("run", "time", "gain")),
        ct_by_gamma=_read_plot_csv(args.ct_gamma, ("run", "gamma", "score")),
        evaluate_options=options | _report_resources(args), calibration=_report_calibration(args),
    )
    print(f"pateval: wrote {path}", file=sys.stderr)
    return 0


# ---- sub-commands: search, demo (baselines) ----------------------------------------------


@command
def _add_index(commands) -> None:
    p = commands.add_parser(
        "index", help="index a corpus store with tantivy for baseline search",
        description="Index a corpus store (or patent XML files) with tantivy: title, abstract, claims and "
        "description per language (English, German, French stemming and stop words), plus the term "
        "statistics that re-scoring with LM-Dirichlet and TF-IDF needs.",
    )
    p.add_argument("--store", required=True, metavar="STORE",
                   help="corpus store (pateval corpus ingest), or patent XML file/directory")
    p.add_argument("--out", required=True, metavar="INDEX", help="index directory to create")
    p.add_argument("--no-passages", action="store_true", help="do not keep paragraphs (no passage retrieval)")
    p.add_argument("--until", metavar="YYYY-MM-DD",
                   help="only documents published up to this date (a collection's corpus_end)")
    p.add_argument("--heap-mb", type=int, default=512, help="tantivy indexing memory budget in MB (default 512)")
    p.add_argument("--threads", type=int, help="tantivy indexing threads (default: cores, at most 8)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=_run_index)


def _run_index(args) -> int:
    from . import api

    summary = api.build_search_index(args.store, args.out, passages=not args.no_passages, until=args.until,
                                     heap_mb=args.heap_mb,
                                     threads=args.threads, progress=not args.no_progress and sys.stderr.isatty())
    print(f"indexed {summary.documents:,} documents ({summary.passages:,} paragraphs) in {summary.seconds:.1f} s "
          f"({summary.documents_per_second:,.0f} docs/s), {summary.bytes_on_disk / 1e6:,.1f} MB: {summary.path}")
    return 0


@command
def _add_search(commands) -> None:
    p = commands.add_parser(
        "search", help="baseline prior-art search: one run, or a grid of runs",
        description="Search the topics with a baseline and write a TREC run tagged MODEL.STRATEGY. "
        "Models: bm25[:k1=,b=], lm[:mu=], tfidf[:k1=,b=]. Query strategies: PARTS[,OPTION=VALUE...] with "
        "PARTS title, abstract, claims, description joined by '+', or full; options top=K, mindf=N, maxdf=F, "
        "ipc=filter|boost, ipcw=W, split=claims, merge=sum|max|rrf, w.FIELD=W. With --grid (or several "
        "--model/--query) one run per configuration is written into the --out directory.",
    )
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--index", metavar="INDEX", help="index directory (pateval index)")
    source.add_argument("--store", metavar="STORE", help="corpus store: index it first, into a temporary directory")
    p.add_argument("--topics", required=True, metavar="TOPICS",
                   help="topics_PAC.xml, a collection directory, or a directory of topic XML files "
                        "(topics_PSG.txt with --passages)")
    p.add_argument("--model", action="append", dest="models", metavar="MODEL",
                   help="ranking model (repeatable; default bm25)")
    p.add_argument("--query", action="append", dest="queries", metavar="STRATEGY",
                   help="query strategy (repeatable; default claims)")
    p.add_argument("--grid", metavar="NAME",
                   help="a named grid: seeds (3 models x 11 strategies = 33 runs), small, models")
    p.add_argument("--out", required=True, metavar="RUN", help="run file (a directory with a grid)")
    p.add_argument("--depth", type=int, default=1000, help="documents per topic (default 1000)")
    p.add_argument("--candidates", type=int, default=2000,
                   help="engine candidates re-scored by lm/tfidf/bm25 with other k1,b (default 2000)")
    p.add_argument("--no-date-filter", action="store_true",
                   help="also retrieve documents published after the topic's date")
    p.add_argument("--keep-family", action="store_true", help="keep publications of the topic's own patent family")
    p.add_argument("--unit", choices=("publication", "patent"), default="publication",
                   help="rank publications, or the best publication of each patent")
    p.add_argument("--passages", action="store_true",
                   help="passage retrieval for PSG topics: write the 6-column passage run")
    p.add_argument("--passage-documents", type=int, default=20,
                   help="documents whose paragraphs are ranked (default 20)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(run=_run_search)


def _run_search(args) -> int:
    import shutil
    import tempfile

    from . import api

    progress = not args.no_progress and sys.stderr.isatty()
    temporary = None
    index = args.index
    try:
        if index is None:
            temporary = tempfile.mkdtemp(prefix="pateval-index-")
            index = f"{temporary}/index"
            print("pateval: note: indexing the store into a temporary directory; `pateval index` keeps an index "
                  "for reuse", file=sys.stderr)
            api.build_search_index(args.store, index, passages=args.passages, progress=progress)
        options = {"depth": args.depth, "candidates": args.candidates, "date_filter": not args.no_date_filter,
                   "exclude_family": not args.keep_family, "unit": args.unit}
        models = args.models or ["bm25"]
        queries = args.queries or ["claims"]
        if args.passages:
            if args.grid or len(models) > 1 or len(queries) > 1:
                raise PatevalError("--passages writes one passage run: give one --model and one --query")
            results = api.search_passages(index, args.topics, model=models[0], query=queries[0], out=args.out,
                                          documents=args.passage_documents, progress=progress)
            print(f"{sum(len(r) for r in results.values()):,} passages for {len(results)} topics: {args.out}")
            return 0
        if args.grid or len(models) > 1 or len(queries) > 1:
            results = api.search_grid(index, args.topics, args.out, grid=args.grid,
                                      models=None if args.grid and not args.models else models,
                                      queries=args.queries if args.grid else queries, progress=progress, **options)
            for result in results:
                print(f"{result.tag}\t{len(result.rankings)} topics\t{result.queries_per_second:.1f} topics/s")
            print(f"{len(results)} runs: {args.out}")
            return 0
        result = api.search(index, args.topics, model=models[0], query=queries[0], out=args.out, progress=progress,
                            **options)
        print(f"{result.tag}: {len(result.rankings)} topics in {result.seconds:.1f} s "
              f"({result.queries_per_second:.1f} topics/s): {args.out}")
        return 0
    finally:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)


@command
def _add_demo(commands) -> None:
    p = commands.add_parser(
        "demo", help="the whole pipeline on a synthetic corpus, with an HTML report",
        description="Generate a synthetic CLEF-IP corpus, ingest it, build a test collection, index it, run a "
        "grid of baselines, evaluate them with standard and professional-search measures, compare them and "
        "write the HTML report.",
    )
    p.add_argument("--out", default="pateval-demo", metavar="DIR",
                   help="output directory (default ./pateval-demo; must not exist)")
    p.add_argument("--patents", type=int, default=1000, help="synthetic patents to generate (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--grid", default="small", help="baseline grid: small (12 runs, default), seeds (33 runs), models")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(run=_run_demo)


def _run_demo(args) -> int:
    from .demo import run_demo

    run_demo(args.out, n_patents=args.patents, seed=args.seed, grid=args.grid,
             progress=not args.no_progress and sys.stderr.isatty(), echo=print)  # echo prints the report's path
    return 0

# ---- sub-commands: flowchart -------------------------------------------------------------


@command
def _add_flowchart(commands) -> None:
    from .formats.names import RESULT_FORMATS

    sub = _subcommands_of(
        commands, "flowchart", help="evaluate flowchart structure recognition (CLEF-IP 2012/2013)",
                          dest="flowchart_command",
        description="Work with flowcharts in the CLEF-IP encoding: `pateval flowchart eval TRUTH_DIR SUBMISSION_DIR`.",
    )
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
    evaluate.add_argument("--format", choices=RESULT_FORMATS, default="trec",
                          help="output format (default: trec); json and csv at full precision, as `pateval evaluate`")
    evaluate.add_argument("--precision", type=int, default=4, help="decimals in trec output (default 4)")
    evaluate.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    evaluate.set_defaults(run=_run_flowchart_eval)


def _run_flowchart_eval(args) -> int:
    from . import api
    from .formats.results import format_table

    scores, bad_files = api.evaluate_flowcharts(
        args.truth_dir, args.submission_dir, level=args.level, text_threshold=args.text_threshold,
                                                time_budget=args.time_budget
    )
    text = format_table(scores, ["measure", "image"], format=args.format, precision=args.precision)
    for problem in bad_files:
        print(f"pateval: bad file: {problem}", file=sys.stderr)
    approximate = scores[(scores["measure"] == "mcs_approximate") & (scores["image"] != "all")]
    if approximate["value"].sum() > 0:
        print(f"pateval: note: {int(approximate['value'].sum())} of {len(approximate)} images fell back to an "
              "approximate MCS (time budget); their distances are upper bounds", file=sys.stderr)
    _write_text_or_print(text, args.output)
    return 1 if bad_files else 0


# ---- sub-commands: assess (the qrels extraction tool) ------------------------------------


@command
def _add_assess(commands) -> None:
    # The web stack is imported by the handlers only (pip install "pateval[assess]").
    sub = _subcommands_of(
        commands, "assess", help="the qrels extraction web application (CLEF-IP 2013 Figure 2)",
        dest="assess_command",
        description="Assessors turn search-report citations into passage qrels in a local web application: "
        "`pateval assess serve --demo`, then `pateval assess export --db URL --out DIR`.",
    )
    serve = sub.add_parser("serve", help="start the web application",
                           description="Serve the assessment tool on a corpus store and a built collection "
                           "(or --demo: a synthetic corpus made once in --demo-dir).")
    serve.add_argument("--store", metavar="STORE", help="corpus store (pateval corpus ingest)")
    serve.add_argument("--collection", metavar="DIR", help="collection (pateval collection build)")
    serve.add_argument("--db", metavar="URL", help="database: sqlite:///assess.db (default) or postgresql://...")
    serve.add_argument("--demo", action="store_true", help="serve a synthetic demo corpus (made on first use)")
    serve.add_argument("--demo-dir", default="pateval-assess-demo", metavar="DIR",
                       help="where --demo keeps its corpus, collection, database and accounts (default "
                       "./pateval-assess-demo)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1, this machine only)")
    serve.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    serve.set_defaults(run=_run_assess_serve)
    user = sub.add_parser("user", help="manage assessor accounts",
                          description="`pateval assess user add NAME --db URL [--admin]`: the password is read from "
                          "standard input (first line) or asked for on a terminal.")
    user.add_argument("action", choices=("add",))
    user.add_argument("name", metavar="NAME")
    user.add_argument("--db", metavar="URL", default="sqlite:///assess.db",
                      help="database URL (default sqlite:///assess.db)")
    user.add_argument("--admin", action="store_true", help="may adjudicate")
    user.set_defaults(run=_run_assess_user)
    export = sub.add_parser("export", help="write the qrels of an assessment database",
                            description="Write qrels_PSG.txt (qid docno xpath), qrels_PSG_graded.txt, "
                            "qrels_PSG_docs.txt, qrels_PSG_claims.txt, theta_PSG.txt and topics_PSG.tsv into a new "
                            "directory, in the formats of pateval collection build.")
    export.add_argument("--db", metavar="URL", required=True, help="database URL")
    export.add_argument("--out", metavar="DIR", required=True, help="new output directory")
    export.add_argument("--policy", default="final", metavar="POLICY",
                        help="final (adjudicated, else agreed; default), union, or an assessor's name")
    export.add_argument("--store", metavar="STORE", help="corpus store (default: the one the server used)")
    export.add_argument("--collection", metavar="DIR", help="collection (default: the one the server used)")
    export.set_defaults(run=_run_assess_export)
    load = sub.add_parser("import", help="load passage qrels for review",
                          description="Load passage qrels (qid docno xpath) as the judgements of one assessor.")
    load.add_argument("--db", metavar="URL", required=True, help="database URL")
    load.add_argument("--qrels", metavar="FILE", required=True, help="passage qrels file")
    load.add_argument("--topics", metavar="TSV", help="topics_PSG.tsv defining topics the database lacks")
    load.add_argument("--as", dest="owner", metavar="NAME", required=True, help="assessor account to load them as")
    load.add_argument("--store", metavar="STORE", help="corpus store (default: the one the server used)")
    load.add_argument("--collection", metavar="DIR", help="collection (default: the one the server used)")
    load.set_defaults(run=_run_assess_import)


def _run_assess_serve(args) -> int:
    from .assess import commands
    from .errors import ParameterError

    if args.demo:
        if args.store or args.collection or args.db:
            raise ParameterError("--demo makes its own store, collection and database; leave out --store, "
                                 "--collection and --db")
        demo = commands.prepare_demo(args.demo_dir, echo=lambda *a, **k: print(*a, file=sys.stderr))
        for name, password in demo["accounts"].items():
            print(f"assess demo: log in as {name} with password {password} (also in {args.demo_dir}/demo-accounts.txt)")
        url, store, collection = demo["db"], demo["store"], demo["collection"]
    else:
        if not args.store or not args.collection:
            raise ParameterError("give --store and --collection (or --demo)")
        url, store, collection = args.db or "sqlite:///assess.db", args.store, args.collection
    commands.serve(url=url, store=store, collection=collection, host=args.host, port=args.port)
    return 0


def _run_assess_user(args) -> int:
    from .assess import commands

    if sys.stdin.isatty():
        import getpass

        password = getpass.getpass(f"password for {args.name}: ")
    else:
        password = sys.stdin.readline().rstrip("\r\n")
    commands.add_user(url=args.db, name=args.name, password=password, admin=args.admin)
    print(f"assess: account {args.name} added{' (admin)' if args.admin else ''}")
    return 0


def _run_assess_export(args) -> int:
    from . import api

    summary = api.assess_export(args.db, args.out, policy=args.policy, store=args.store, collection=args.collection)
    print(f"assess export: {summary['topics']} topics, {summary['passages']} passages, {summary['documents']} "
          f"documents, {summary['claim_judgements']} claim judgements -> {args.out}")
    if summary["unresolved"]:
        print(f"pateval: note: {len(summary['unresolved'])} (topic, document) disagreements without adjudication "
              f"left out (listed in {args.out}/export.json)", file=sys.stderr)
    return 0


def _run_assess_import(args) -> int:
    from . import api

    summary = api.assess_import(args.db, args.qrels, owner=args.owner, topics=args.topics, store=args.store,
                                collection=args.collection)
    print(f"assess import: {summary['passages']} passages in {summary['selections']} selections of {args.owner} "
          f"({summary['topics_created']} topics created)")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    debug = getattr(args, "debug", False)
    try:
        _resolve_qrels_and_runs(args)
        with warnings.catch_warnings():  # the commands print the API's notes themselves
            warnings.simplefilter("ignore", TopicsLeftOutWarning)
            return int(args.run(args) or 0)
    except PatevalError as error:
        print(f"pateval: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `pateval evaluate ... | head`
        return 0
    except KeyboardInterrupt:
        print("pateval: interrupted", file=sys.stderr)
        return 130
    except OSError as error:  # a file that cannot be opened or written: the user's to fix, not a bug
        if error.filename is None or debug:
            return _report_bug(error, debug)
        print(f"pateval: error: {error.filename}: {error.strerror or error}", file=sys.stderr)
        return 2
    except Exception as error:  # noqa: BLE001 -- the one place that catches everything
        return _report_bug(error, debug)


def _report_bug(error: BaseException, debug: bool) -> int:
    """An unexpected exception: one line asking for a report (the traceback with --debug)."""
    if debug:
        import traceback

        traceback.print_exception(error, file=sys.stderr)
    where = "" if debug else "; run again with --debug for the traceback"
    print(f"pateval: internal error ({type(error).__name__}: {error}): this is a bug in pateval; please report it "
          f"with the command line and `pateval --version`{where}", file=sys.stderr)
    return EXIT_BUG


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
