"""``pateval evaluate`` (runs against qrels, trec_eval's output) and ``pateval measures``."""

from __future__ import annotations

import sys

from ..errors import PatevalError
from .shared import (
    add_command,
    add_evaluation_options,
    add_run_names,
    add_table_output,
    examples,
    print_notes,
    write_text_or_print,
)

DEFAULT_MEASURES = ("AP", "P@10", "nDCG@10", "R@1000", "NumRet", "NumRel", "NumRelRet")


def _add_evaluate(commands) -> None:
    from ..formats.names import RESULT_FORMATS

    p = add_command(
        commands, "evaluate", _run_evaluate,
        help="score runs against qrels (trec_eval-compatible output)",
        description="Score one or more runs against qrels. Output: MEASURE<TAB>TOPIC<TAB>VALUE "
        "(TOPIC 'all' for the mean); with several runs a first column names the run.",
        epilog=examples("pateval evaluate qrels.txt bm25.run lm.run -m AP -m P@10 -m PRES@100",
                        "pateval evaluate --example -q --names trec",
                        "zcat run.gz | pateval evaluate qrels.txt - -m nDCG@10 --doc-key patent -o -"),
    )
    p.add_argument("qrels", nargs="?", help="qrels file (text or Parquet; gzip/bzip2/xz read as they are; - for stdin)")
    p.add_argument("runs", nargs="*", metavar="RUN", help="run file(s): TREC 6-column, a TREC DD jig run, or Parquet; "
                   "gzip/bzip2/xz read as they are; - for stdin")
    p.add_argument("--example", action="store_true", help="evaluate the example qrels and runs bundled with pateval")
    p.add_argument("-q", "--per-query", action="store_true", help="also print a line per topic")
    add_table_output(p, formats=RESULT_FORMATS, default="trec", precision="decimals in trec output (default 4, as "
                     "trec_eval)")
    # results by topic group (CLEF-IP 2013 Figure 5)
    p.add_argument("--group-by", metavar="FILE", help="also give each measure's value per topic group: a file of "
                   "`topic attribute` lines, or a passage topics file (groups = topic languages); rows 'all:GROUP'")
    p.add_argument("--group-plot", metavar="FILE", help="with --group-by: grouped-bar plot of the first measure "
                   "(runs x groups) written to FILE (.png, .pdf, .svg)")
    p.add_argument("--names", choices=("pateval", "trec"), default="pateval",
                   help="measure names in the output: pateval's (AP, P@10, nDCG@10) or trec_eval's (map, P_10, "
                   "ndcg_cut_10), with trec_eval's runid and num_q lines (-m runid -m num_q) and its order")
    add_run_names(p)
    add_evaluation_options(p, default_measures=DEFAULT_MEASURES)


def _run_evaluate(*, qrels, runs, example: bool, measures, options, names: str, per_query: bool, format: str,
                  precision: int, output, group_by, group_plot) -> None:
    from .. import api
    from .._lazy import pandas_deferred
    from ..results.writers import TREC_EVAL_EXTRAS

    if example:
        if qrels or runs:
            raise PatevalError("give either --example or QRELS RUN..., not both")
        qrels, runs = api.example_files()
    elif not qrels or not runs:
        raise PatevalError("evaluate needs QRELS and at least one RUN (or --example)")
    trec_names = names == "trec"
    asked = measures or (["runid", "num_q"] if trec_names else []) + list(DEFAULT_MEASURES)
    extras = [m for m in asked if trec_names and m in TREC_EVAL_EXTRAS]
    scored = [m for m in asked if m not in extras]
    if not scored:
        raise PatevalError("no measure was asked for besides " + " and ".join(extras))
    with pandas_deferred():  # scoring and printing need no pandas: its import was a third of a small evaluation
        result = api.evaluation(qrels, runs, scored, options=options)
        rows = result.result_rows(per_query=per_query)
    rows = _with_group_rows(rows, result, group_by, group_plot)
    text = _evaluate_text(rows, result, extras, names=names, written=measures, format=format, precision=precision,
                          per_query=per_query, grouped=bool(group_by), level=options.relevance_level or 1)
    print_notes(result.notes)
    write_text_or_print(text, output)


def _evaluate_text(rows, result, extras, *, names, written, format, precision, per_query, grouped, level) -> str:
    """The output of ``pateval evaluate``: trec_eval's text (with --names trec, as trec_eval
    writes it), JSON (with each run's ir_metadata block, if any), JSON Lines or CSV."""
    import json

    from ..api.evaluate import written_names
    from ..results.writers import format_results, format_trec_eval, trec_eval_names

    if names == "trec":
        if format == "trec" and not grouped:
            summary = list(result.summary_rows())
            texts = [(piece.run, format_trec_eval([piece], [row for row in summary if row[0] == piece.run],
                                                  result.measures, per_query=per_query, extras=extras,
                                                  precision=precision, relevance_level=level))
                     for piece in result.scored]
            if len(texts) == 1:
                return texts[0][1]
            # several runs: a first column names the run, as in pateval's own output
            return "".join(f"{run}\t{line}\n" for run, text in texts for line in text.splitlines())
        shown = trec_eval_names(result.measures, relevance_level=level)
    else:  # the name the user wrote: `-m map` is map, not AP
        shown = written_names(written)
    if shown:
        rows = {**rows, "measure": [shown.get(m, m) for m in rows["measure"]]}  # a DataFrame or plain columns
    text = format_results(rows, format=format, precision=precision)
    if format == "json" and result.run_metadata:
        # the runs' own descriptions beside the values (the rows as without them)
        return json.dumps({"rows": json.loads(text), "runs": result.run_metadata}, indent=1) + "\n"
    return text


def _add_measures(commands) -> None:
    p = add_command(commands, "measures", _run_measures, help="list the measures, their parameters and references",
                    epilog=examples("pateval measures --family professional",
                                    "pateval measures --format markdown > measures.md"))
    p.add_argument("--family", help="only this family (standard, professional, cube, subtopic, passage, "
                   "preferences, judgement_groups, tar)")
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text")


def _run_measures(*, family: str | None, format: str) -> None:
    from .. import api

    table = api.list_measures()
    if family:
        table = table[table["family"] == family]
        if table.empty:
            raise PatevalError(f"no measure family {family!r}")
    if format == "json":
        sys.stdout.write(table.to_json(orient="records", indent=1) + "\n")
    elif format == "markdown":  # docs/measures.md, by the same function
        sys.stdout.write(api.measures_document(family))
    else:
        for row in table.itertuples():
            cutoff = {"none": "", "optional": "[@k]", "required": "@k"}[row.cutoff]
            print(f"{row.name}{cutoff}  ({row.family}) {row.summary}")
            print(f"    {row.formula}")
            for param in row.parameters:
                print(f"    - {param}")
            if row.aliases:
                print(f"    aliases: {row.aliases}")
            print(f"    reference: {row.reference}")


def _with_group_rows(rows, result, group_by, group_plot):
    """Result rows with an ``all:GROUP`` row after each ``all`` row (--group-by); writes --group-plot."""
    if group_plot and not group_by:
        raise PatevalError("--group-plot needs --group-by")
    if not group_by:
        return rows
    import pandas as pd

    from .. import api

    rows = pd.DataFrame(rows)
    summary = api.evaluate_by_group(result.frame, group_by, measures=result.measures, plot=group_plot)
    print_notes(summary.attrs["notes"])
    extra = summary[summary["group"] != "all"]
    extra = extra.assign(topic="all:" + extra["group"].astype(str))[["run", "measure", "topic", "value"]]
    combined = pd.concat([rows, extra], ignore_index=True)
    # each (run, measure) block where it first appears: its rows, then its all:GROUP rows
    block = combined.groupby(["run", "measure"], sort=False).ngroup()
    combined = combined.iloc[block.argsort(kind="stable")].reset_index(drop=True)
    if group_plot:
        print(f"pateval: wrote {group_plot}", file=sys.stderr)
    return combined
