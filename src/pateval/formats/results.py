"""Writing evaluation results: trec_eval's text, JSON and CSV carry the same rows.

trec_eval text: ``MEASURE<TAB>TOPIC<TAB>VALUE`` with ``all`` for the aggregate; with
several runs a first column names the run. Counts are written as integers, other values
with ``precision`` decimals (trec_eval's 4 by default; JSON and CSV keep full precision).
"""

from __future__ import annotations

import io
import json
import os

import pandas as pd

from ..measures import parse_measure
from ..validation import check_choice
from .atomic import atomic_output

__all__ = ["RESULT_FORMATS", "result_rows", "format_results", "write_results"]

RESULT_FORMATS = ("trec", "json", "csv")


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


def _value_text(measure: str, value: float, precision: int, integers: dict[str, bool]) -> str:
    if measure not in integers:
        integers[measure] = parse_measure(measure).spec.integer
    if integers[measure]:
        return str(int(round(value)))
    return f"{value:.{precision}f}"


def format_results(rows: pd.DataFrame, *, format: str = "trec", precision: int = 4, show_run: bool | None = None) -> str:
    """Render result rows (from :func:`result_rows`) as text in the given format."""
    check_choice("format", format, RESULT_FORMATS)
    if show_run is None:
        show_run = rows["run"].nunique() > 1
    if format == "json":
        records = [
            {"run": r, "measure": m, "topic": t, "value": float(v)}
            for r, m, t, v in zip(rows["run"], rows["measure"], rows["topic"], rows["value"])
        ]
        return json.dumps(records, indent=1) + "\n"
    if format == "csv":
        buffer = io.StringIO()
        rows[["run", "measure", "topic", "value"]].to_csv(buffer, index=False, float_format="%.17g")
        return buffer.getvalue()
    integers: dict[str, bool] = {}
    lines = []
    for r, m, t, v in zip(rows["run"], rows["measure"], rows["topic"], rows["value"]):
        text = f"{m:<22}\t{t}\t{_value_text(m, v, precision, integers)}"
        lines.append(f"{r}\t{text}" if show_run else text)
    return "\n".join(lines) + ("\n" if lines else "")


def write_results(text: str, path: str | os.PathLike[str]) -> None:
    """Write rendered results atomically."""
    with atomic_output(path) as out:
        out.write(text)
