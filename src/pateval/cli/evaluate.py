"""``pateval evaluate`` (runs against qrels, trec_eval's output) and ``pateval measures``."""

from __future__ import annotations

import sys

from ..errors import PatevalError
from .shared import (
    add_evaluation_options,
    add_output,
    evaluation_options,
    examples,
    print_notes,
    write_text_or_print,
)

DEFAULT_MEASURES = ("AP", "P@10", "nDCG@10", "R@1000", "NumRet", "NumRel", "NumRelRet")


def _add_evaluate(commands) -> None:
    from ..formats.names import RESULT_FORMATS

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
    p.add_argument("-q", "--per-query", action="store_true", help="also print a line per topic")
    p.add_argument("--format", choices=RESULT_FORMATS, default="trec", help="output format (default: trec)")
    _add_group_options(p)
    p.add_argument("--precision", type=int, default=4, help="decimals in trec output (default 4, as trec_eval)")
    add_output(p, "-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout; - for stdout")
    p.add_argument("--names", choices=("pateval", "trec"), default="pateval",
                   help="measure names in the output: pateval's (AP, P@10, nDCG@10) or trec_eval's (map, P_10, "
                   "ndcg_cut_10), with trec_eval's runid and num_q lines (-m runid -m num_q) and its order")
    add_evaluation_options(p, default_measures=DEFAULT_MEASURES)
    p.epilog = examples("pateval evaluate qrels.txt bm25.run lm.run -m AP -m P@10 -m PRES@100",
                        "pateval evaluate --example -q --names trec",
                        "zcat run.gz | pateval evaluate qrels.txt - -m nDCG@10 --doc-key patent -o -")
    p.set_defaults(run=_run_evaluate)


def _run_evaluate(args) -> int:
    from .. import api

    if args.example:
        if args.qrels or args.runs:
            raise PatevalError("give either --example or QRELS RUN..., not both")
        qrels_path, run_paths = api.example_files()
    else:
        if not args.qrels or not args.runs:
            raise PatevalError("evaluate needs QRELS and at least one RUN (or --example)")
        qrels_path, run_paths = args.qrels, args.runs
    from .._lazy import pandas_deferred

    trec_names = args.names == "trec"
    asked = args.measures or (["runid", "num_q"] if trec_names else []) + list(DEFAULT_MEASURES)
    from ..results.writers import TREC_EVAL_EXTRAS

    extras = [m for m in asked if trec_names and m in TREC_EVAL_EXTRAS]
    measures = [m for m in asked if m not in extras]
    if not measures:
        raise PatevalError("no measure was asked for besides " + " and ".join(extras))
    with pandas_deferred():  # scoring and printing need no pandas: its import was a third of a small evaluation
        result = api.evaluation(qrels_path, list(run_paths), options=evaluation_options(args, measures=measures))
        rows = result.result_rows(per_query=args.per_query)
    rows = _with_group_rows(rows, result, args)
    text = _evaluate_text(rows, result, args, extras)
    print_notes(result.notes)
    write_text_or_print(text, args.output)
    return 0


def _evaluate_text(rows, result, args, extras) -> str:
    """The output of ``pateval evaluate``: trec_eval's text (with --names trec, as trec_eval
    writes it), JSON (with each run's ir_metadata block, if any), JSON Lines or CSV."""
    import json

    from ..api.evaluate import written_names
    from ..results.writers import format_results, format_trec_eval, trec_eval_names

    level = args.relevance_level or 1
    if args.names == "trec":
        if args.format == "trec" and not args.group_by:
            summary = list(result.summary_rows())
            texts = [(piece.run, format_trec_eval([piece], [row for row in summary if row[0] == piece.run],
                                                  result.measures, per_query=args.per_query, extras=extras,
                                                  precision=args.precision, relevance_level=level))
                     for piece in result.scored]
            if len(texts) == 1:
                return texts[0][1]
            # several runs: a first column names the run, as in pateval's own output
            return "".join(f"{run}\t{line}\n" for run, text in texts for line in text.splitlines())
        names = trec_eval_names(result.measures, relevance_level=level)
    else:  # the name the user wrote: `-m map` is map, not AP
        names = written_names(args.measures)
    if names:
        rows = {**rows, "measure": [names.get(m, m) for m in rows["measure"]]}  # a DataFrame or plain columns
    text = format_results(rows, format=args.format, precision=args.precision)
    if args.format == "json" and result.run_metadata:
        # the runs' own descriptions beside the values (the rows as without them)
        return json.dumps({"rows": json.loads(text), "runs": result.run_metadata}, indent=1) + "\n"
    return text


def _add_measures(commands) -> None:
    p = commands.add_parser("measures", help="list the measures, their parameters and references")
    p.add_argument("--family", help="only this family (standard, professional, cube, subtopic, passage, "
                   "preferences, judgement_groups)")
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    p.epilog = examples("pateval measures --family professional",
                        "pateval measures --format markdown > measures.md")
    p.set_defaults(run=_run_measures)


def _run_measures(args) -> int:
    from .. import api

    table = api.list_measures()
    if args.family:
        table = table[table["family"] == args.family]
        if table.empty:
            raise PatevalError(f"no measure family {args.family!r}")
    if args.format == "json":
        sys.stdout.write(table.to_json(orient="records", indent=1) + "\n")
        return 0
    if args.format == "markdown":  # docs/measures.md, by the same function
        sys.stdout.write(api.measures_document(args.family))
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

    from .. import api

    rows = pd.DataFrame(rows)
    summary = api.evaluate_by_group(result.frame, args.group_by, measures=result.measures, plot=args.group_plot)
    print_notes(summary.attrs["notes"])
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
        print(f"pateval: wrote {args.group_plot}", file=sys.stderr)
    return combined
