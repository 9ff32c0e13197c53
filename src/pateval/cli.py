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
