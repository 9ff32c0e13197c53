"""Writing result tables: trec_eval's text, JSON and CSV carry the same rows.

:func:`format_table` is the one writer of rows of key columns and a value: the evaluation
results of ``pateval evaluate`` (:func:`format_results`) and the flowchart scores of
``pateval flowchart eval`` (columns ``measure, image, value``) go through it.

TIRA's ``evaluation.prototext`` (``measure { key: "AP" value: "0.31" }``) carries the aggregates.

trec_eval text: ``MEASURE<TAB>TOPIC<TAB>VALUE`` with ``all`` for the aggregate; with
several runs a first column names the run. Counts are written as integers, other values
with ``precision`` decimals (trec_eval's 4 by default). JSON (a list of records), JSON
Lines (one record per line) and CSV (a header line, values with 17 significant digits) keep
full precision.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from .._lazy import lazy_module
from ..errors import ParameterError
from ..formats.atomic import atomic_output
from ..formats.names import RESULT_FORMATS
from ..measures import parse_measure
from ..measures.registry import trec_eval_name
from ..trec_eval_rules import print_order, trec_eval_mean
from ..validation import check_choice

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")  # rows may be a DataFrame or plain columns (`pateval evaluate` prints without pandas)

__all__ = ["RESULT_FORMATS", "TREC_EVAL_EXTRAS", "check_precision", "format_results", "format_table",
           "format_trec_eval", "result_rows", "trec_eval_mean", "trec_eval_names",
           "write_results"]

# trec_eval's lines that are not measures of the topics: the run's tag and the number of topics
TREC_EVAL_EXTRAS = ("runid", "num_q")


def result_rows(per_topic: pd.DataFrame, summary: pd.DataFrame, *, per_query: bool) -> pd.DataFrame:
    """The rows to print: per-topic rows (if asked) then the ``all`` row, per run and measure."""
    pieces = []
    order = list(pd.unique(summary["measure"]))
    for run in pd.unique(summary["run"]):
        for measure in order:
            if per_query:
                topic_rows = per_topic[(per_topic["run"] == run) & (per_topic["measure"] == measure)]
                pieces.append(topic_rows[["run", "measure", "topic", "value"]])
            total = summary[(summary["run"] == run) & (summary["measure"] == measure)]
            pieces.append(total.assign(topic="all")[["run", "measure", "topic", "value"]])
    if not pieces:
        return pd.DataFrame(columns=["run", "measure", "topic", "value"])
    return pd.concat(pieces, ignore_index=True)


@functools.cache
def _is_count(measure: str) -> bool:
    """Whether a measure's values are counts (written as integers)."""
    return parse_measure(measure).spec.integer


def _value_text(measure: str, value: float, precision: int) -> str:
    return str(round(float(value))) if _is_count(measure) else f"{value:.{precision}f}"


def check_precision(precision) -> int:
    """The number of decimals of a text table: an integer from 0 to 17 (else ParameterError)."""
    if isinstance(precision, bool) or not isinstance(precision, int) or not 0 <= precision <= 17:
        raise ParameterError(f"precision must be an integer from 0 to 17, not {precision!r}")
    return precision


def format_table(rows: pd.DataFrame | Mapping[str, Sequence], columns: Sequence[str], *, format: str = "trec",
                 precision: int = 4,
                 widths: Mapping[str, int] | None = None, value_text: Callable[[tuple], str] | None = None) -> str:
    """Rows of key columns and a ``value`` column as text: the one writer of result tables.

    Parameters
    ----------
    rows : DataFrame or mapping of column name to values
    columns : sequence of str
        The key columns to write, in order, before ``value``.
    format : {"trec", "json", "jsonl", "csv", "prototext"}
        ``trec``: the columns and the value tab-separated, one line per row, values with
        ``precision`` decimals (trec_eval's text); ``json``: a list of records; ``jsonl``:
        one record per line (JSON Lines); ``csv``: a header line, then the rows. JSON, JSON
        Lines and CSV keep full precision.
    precision : int, default 4
        Decimals of ``trec`` values, 0 to 17.
    widths : mapping of str to int, optional
        ``trec`` only: pad these columns to a width (trec_eval pads measure names).
    value_text : callable, optional
        ``trec`` only: the text of a row's value, given the row (key columns, then value).

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"measure": ["ged"], "image": ["all"], "value": [0.25]})
    >>> format_table(rows, ["measure", "image"], precision=2).split("\\t")
    ['ged', 'all', '0.25\\n']
    >>> json.loads(format_table(rows, ["measure", "image"], format="json"))
    [{'measure': 'ged', 'image': 'all', 'value': 0.25}]
    """
    check_choice("format", format, RESULT_FORMATS)
    check_precision(precision)
    columns = list(columns)
    keys = [*columns, "value"]
    table = zip(*(rows[c] for c in keys), strict=format == "trec")  # the rows, each read once below
    if format in ("json", "jsonl"):
        records = [dict(zip(keys, (*row[:-1], float(row[-1])), strict=False)) for row in table]
        if format == "jsonl":
            return "".join(json.dumps(record) + "\n" for record in records)
        return json.dumps(records, indent=1) + "\n"
    if format == "prototext":
        # TIRA's evaluation.prototext, one ``measure { key value }`` block per aggregate: only the ``all`` rows
        # (the last key column; TIRA shows one value per measure), keyed by the other key columns (a run column
        # only when it names several runs), the value at full precision, as TIRA's evaluators write it
        totals = [row for row in table if str(row[len(columns) - 1]) == "all"]
        keep = [i for i, c in enumerate(columns[:-1]) if not (c == "run" and len({row[i] for row in totals}) <= 1)]
        blocks = []
        for row in totals:
            key = " ".join(str(row[i]) for i in keep).replace("\\", "\\\\").replace('"', '\\"')
            blocks.append(f'measure {{\n  key: "{key}"\n  value: "{float(row[-1])!r}"\n}}')
        return "\n".join(blocks) + ("\n" if blocks else "")
    if format == "csv":  # as pandas' to_csv(float_format="%.17g"): minimal quoting, NaN as an empty field
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(keys)
        for row in table:
            value = float(row[-1])
            writer.writerow([*row[:-1], "" if math.isnan(value) else f"{value:.17g}"])
        return buffer.getvalue()
    widths = dict(widths or {})
    lines = []
    for row in table:
        cells = [f"{key:<{widths[c]}}" if c in widths else str(key) for c, key in zip(columns, row[:-1], strict=True)]
        text = value_text(row) if value_text is not None else f"{row[-1]:.{precision}f}"
        lines.append("\t".join([*cells, text]))
    return "\n".join(lines) + ("\n" if lines else "")


def format_results(rows: pd.DataFrame | Mapping[str, Sequence], *, format: str = "trec", precision: int = 4) -> str:
    """Render result rows (from :func:`result_rows`, or :meth:`pateval.evaluation.Evaluation.result_rows`)
    as text in the given format (the trec text names the run only when there are several)."""
    check_choice("format", format, RESULT_FORMATS)
    if format != "trec":
        return format_table(rows, ["run", "measure", "topic"], format=format, precision=precision)
    columns = ["run", "measure", "topic"] if len(set(rows["run"])) > 1 else ["measure", "topic"]
    at = columns.index("measure")
    return format_table(rows, columns, precision=precision, widths={"measure": 22},
                        value_text=lambda row: _value_text(row[at], row[-1], precision))


def trec_eval_names(measures, *, relevance_level: int = 1) -> dict[str, str]:
    """pateval's name -> the name printed with ``--names trec``: trec_eval's where it has one
    (``map``, ``P_10``, ``ndcg_cut_10``, ``recall_1000``, ``num_ret``), else pateval's."""
    return {str(m): trec_eval_name(m, relevance_level=relevance_level) or str(m) for m in measures}


#: trec_eval's measures that it prints in the summary only, never per topic (-q)
_SUMMARY_ONLY = frozenset({"gm_map", "gm_bpref"})


def format_trec_eval(scored, summary_rows, measures, *, per_query: bool, extras: Sequence[str] = (),
                     precision: int = 4, relevance_level: int = 1, names: Mapping[str, str] | None = None,
                     summary: bool = True, texts: Mapping[str, Mapping[str, str]] | None = None,
                     zscores: bool = False) -> str:
    """Results exactly as trec_eval prints them (``pateval evaluate --names trec``), without pandas.

    trec_eval's measure names (:func:`trec_eval_names`) in trec_eval's order; with
    ``per_query``, every measure of a topic, topic by topic (topics in byte order, as
    trec_eval sorts them), then the ``all`` lines: ``runid`` and ``num_q`` when in
    ``extras``, then the measures. Several runs are written one after another, each as
    trec_eval would write it alone.

    Parameters
    ----------
    scored : iterable
        Per run, its values: objects with ``run``, ``topics``, ``measures`` and ``values``
        (``values[j * len(topics) + i]``: measure j on topic i), as
        :attr:`pateval.evaluation.Evaluation.scored`.
    summary_rows : iterable of (run, measure, value, topics)
        The ``all`` values, as :meth:`pateval.evaluation.Evaluation.summary_rows`.
    measures : sequence of Measure or str
    names : mapping, optional
        The name printed for each measure (by pateval's name), as ``pateval trec_eval``
        names the measures of trec_eval's ``-m`` syntax; default :func:`trec_eval_names`.
    summary : bool, default True
        Print the ``all`` lines (False: trec_eval's ``-n``).
    texts : mapping, optional
        Values that are text, by the name printed and then topic (``relstring``): printed
        quoted with ``per_query``, in trec_eval's order among the measures, never in the summary.
    zscores : bool, default False
        The values are z-scores (trec_eval's ``-Z``, :mod:`pateval.results.zscores`): each
        measure's name is printed after a ``Z`` and every value, counts too, with decimals.
    """
    check_precision(precision)
    names = {str(m): names[str(m)] for m in measures} if names is not None else trec_eval_names(
        measures, relevance_level=relevance_level)
    ordered = sorted(names.items(), key=lambda item: print_order(item[1]))  # (stable: as given among equals)

    mark = "Z" if zscores else ""

    def line(name: str, topic: str, value) -> str:
        return f"{name:<22}\t{topic}\t{value}"

    def value_text(ours: str, value: float) -> str:
        if value != value:
            return "  -nan"  # C's printf("%6.4f") of 0.0 / 0.0 (trec_eval's iprec_at_recall on nothing)
        return f"{value:.{precision}f}" if zscores else _value_text(ours, value, precision)

    per_run: dict[str, dict] = {}
    for piece in scored if per_query else ():  # the summary alone needs no value per topic
        values = per_run.setdefault(piece.run, {})
        n = len(piece.topics)
        for j, measure in enumerate(piece.measures):
            for i, topic in enumerate(piece.topics):
                values[(topic, measure)] = piece.values[j * n + i]
    totals: dict[str, dict] = {}
    counts: dict[str, int] = {}
    for run, measure, value, topics in summary_rows:
        totals.setdefault(run, {})[measure] = value
        counts[run] = max(counts.get(run, 0), topics)
    texts = texts or {}
    # per topic: the measures, then the text values, in trec_eval's order; gm_map has no value per topic
    per_topic: list[tuple[str | None, str]] = sorted(
        [*((ours, theirs) for ours, theirs in ordered if theirs not in _SUMMARY_ONLY), *((None, t) for t in texts)],
        key=lambda item: print_order(item[1]))
    lines: list[str] = []
    for run in totals:
        if per_query:
            values = per_run.get(run, {})
            for topic in sorted({t for t, _ in values}, key=lambda t: str(t).encode()):
                for ours, theirs in per_topic:
                    if ours is None:  # a text value
                        if topic in texts[theirs]:
                            lines.append(line(theirs, topic, f"'{texts[theirs][topic]}'"))
                    elif (topic, ours) in values:
                        lines.append(mark + line(theirs, topic, value_text(ours, values[(topic, ours)])))
        if not summary:
            continue
        if "runid" in extras:
            lines.append(line("runid", "all", run))
        if "num_q" in extras:
            lines.append(mark + line("num_q", "all", f"{counts[run]:.{precision}f}" if zscores else counts[run]))
        lines.extend(mark + line(theirs, "all", value_text(ours, totals[run][ours])) for ours, theirs in ordered
                     if ours in totals[run])
    return "\n".join(lines) + ("\n" if lines else "")


def write_results(text: str, path: str | os.PathLike[str]) -> None:
    """Write rendered text (results, tables) to ``path`` atomically: whole or not at all."""
    with atomic_output(path) as out:
        out.write(text)
