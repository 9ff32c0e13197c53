"""Tables of comparisons and measure analyses as text, CSV, JSON, LaTeX and HTML.

A comparison table shows each run's mean under each measure with significance markers:

* against a baseline, ``▲`` (significantly better than the baseline) or ``▼`` (worse);
* over all pairs, each run is numbered and a cell lists the numbers of the runs it is
  significantly better than (the convention of many IR papers, e.g. Sakai's).

The settings (test, correction, alpha, B, seed, topics) are printed with every table, since
a p-value means nothing without them.
"""

from __future__ import annotations

import html
import io
import json
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..results.writers import check_precision
from ..validation import check_choice
from .names import TABLE_FORMATS

if TYPE_CHECKING:  # the types only: rendering a plain table must not load SciPy
    from ..stats.comparison import Comparison, MeasureAnalysis

__all__ = ["TABLE_FORMATS", "comparison_cells", "comparison_rows", "html_table", "latex_escape", "render_analysis",
           "render_comparison", "render_frame", "run_labels", "settings_line"]


UP, DOWN = "\u25b2", "\u25bc"


def run_labels(runs: list[str]) -> dict[str, str]:
    """Short labels for the all-pairs markers: 1, 2, 3, ... in run order."""
    return {run: str(i + 1) for i, run in enumerate(runs)}


def settings_line(comparison: Comparison) -> str:
    """The test settings in one line, e.g. ``paired t-test, Holm correction, alpha 0.05``."""
    if comparison.tests.empty and comparison.topics and max(comparison.topics.values()) < 2:
        count = max(comparison.topics.values())
        return f"no significance test: {count} topic{'' if count == 1 else 's'} (a paired test needs at least 2)"
    names = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
             "randomisation": "randomisation test (sign flip)", "bootstrap": "Sakai's paired bootstrap test",
             "tukey": "randomised Tukey HSD test"}
    corrections = {"holm": "Holm correction", "bonferroni": "Bonferroni correction",
                   "bh": "Benjamini-Hochberg correction", "none": "no correction"}
    parts = [names[comparison.test],
             "family-wise over all runs" if comparison.test == "tukey" else corrections[comparison.correction],
             f"alpha {comparison.alpha:g}"]
    if comparison.B is not None:
        parts += [f"B = {comparison.B}",
                  f"seed {comparison.seed}" if comparison.seed is not None else "exact (all sign vectors)"]
    topics = sorted(set(comparison.topics.values()))
    per_measure = ", ".join(f"{m} {n}" for m, n in comparison.topics.items())
    parts.append(f"{topics[0]} topics" if len(topics) == 1 else f"topics per measure: {per_measure}")
    return ", ".join(parts)


def comparison_cells(comparison: Comparison) -> pd.DataFrame:
    """Runs x measures: the marker text of each cell (without the mean)."""
    if comparison.baseline is not None:
        return comparison.against_baseline().map(lambda s: UP if s > 0 else (DOWN if s < 0 else ""))
    labels = run_labels(comparison.runs)
    return comparison.better_than().map(lambda losers: ",".join(sorted((labels[r] for r in losers), key=int)))


def comparison_rows(comparison: Comparison, precision: int):
    """Per run, in order: its number, the run, and under each measure its mean to ``precision``
    decimals, its marker (:func:`comparison_cells`) and whether it is the measure's best mean."""
    markers = comparison_cells(comparison)
    labels = run_labels(comparison.runs)
    best = comparison.means.idxmax(axis=0)
    for run in comparison.runs:
        yield labels[run], run, [(f"{comparison.means.at[run, m]:.{precision}f}", markers.at[run, m], best[m] == run)
                                 for m in comparison.measures]


def _text_comparison(comparison: Comparison, precision: int) -> str:
    all_pairs = comparison.baseline is None
    header = (["#"] if all_pairs else []) + ["run"] + comparison.measures
    rows = [([label] if all_pairs else []) + [f"{run} (baseline)" if run == comparison.baseline else run]
            + [f"{value} {'>' + mark if all_pairs and mark else mark}".rstrip() for value, mark, _ in cells]
            for label, run, cells in comparison_rows(comparison, precision)]
    if comparison.tests.empty:
        legend = ""  # nothing was tested: no markers to explain (the settings line says why)
    elif all_pairs:  # with an example that names runs of the table
        legend = ("'>1' / '>2': significantly better than run 1 / run 2.\n" if len(comparison.runs) == 2
                  else "'>2,3': significantly better than runs 2 and 3.\n")
    else:
        legend = f"{UP} / {DOWN}: significantly better / worse than the baseline {comparison.baseline}.\n"
    return f"{_aligned(header, rows)}\n{legend}{settings_line(comparison)}.\n{_tests_in_words(comparison)}"


def _p_text(p_value: float, resamples) -> str:
    """A p-value to 4 significant digits; 0 from B resamples is below 1/B, not 0."""
    if p_value != p_value:
        return ""
    if p_value == 0 and resamples is not None and resamples == resamples and resamples > 0:
        return f"< {1 / resamples:.2g}"
    return f"{p_value:.4g}"


def _tests_in_words(comparison: Comparison) -> str:
    """Every tested pair under each measure: the difference of the means, the p-value as
    corrected, and whether that is significant at alpha, in words."""
    tests = comparison.tests
    if tests.empty:
        return ""
    corrected = comparison.correction not in (None, "none")
    p_name = f"p ({comparison.correction}-corrected)" if corrected else "p"
    column = "p_adjusted" if corrected and "p_adjusted" in tests.columns else "p_value"
    rows = []
    for test in tests.itertuples(index=False):
        p_value = getattr(test, column)
        verdict = "no test" if p_value != p_value else "significant" if test.significant else "not significant"
        rows.append([str(test.measure), f"{test.run_a} - {test.run_b}", f"{test.difference:+.4f}",
                     _p_text(p_value, getattr(test, "B", None)), verdict])
    n, significant = len(tests), int(tests["significant"].fillna(False).astype(bool).sum())
    if n == 1:
        summary = f"The difference is {'' if significant else 'not '}significant at alpha {comparison.alpha:g}.\n"
    else:
        summary = (f"{significant} of the {n} differences {'is' if significant == 1 else 'are'} significant at alpha "
                   f"{comparison.alpha:g}; {n - significant} {'is' if n - significant == 1 else 'are'} not.\n")
    return "\n" + _aligned(["measure", "runs", "difference", p_name, "verdict"], rows) + "\n" + summary


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters in a run or measure name."""
    replacements = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
    return "".join(replacements.get(ch, ch) for ch in str(text))


def _latex_comparison(comparison: Comparison, precision: int) -> str:
    all_pairs = comparison.baseline is None
    columns = ("r" if all_pairs else "") + "l" + "r" * len(comparison.measures)
    out = io.StringIO()
    out.write("% " + settings_line(comparison) + "\n")
    out.write("\\begin{tabular}{" + columns + "}\n\\hline\n")
    head = (["\\#"] if all_pairs else []) + ["Run"] + [latex_escape(m) for m in comparison.measures]
    out.write(" & ".join(head) + " \\\\\n\\hline\n")
    arrows = {UP: "$^{\\uparrow}$", DOWN: "$^{\\downarrow}$", "": ""}
    for label, run, cells in comparison_rows(comparison, precision):
        row = [label] if all_pairs else []
        row.append(latex_escape(run) + (" (baseline)" if run == comparison.baseline else ""))
        row += [("\\textbf{" + value + "}" if best else value) + arrows.get(mark, "$^{" + mark + "}$")
                for value, mark, best in cells]
        out.write(" & ".join(row) + " \\\\\n")
    out.write("\\hline\n")
    # the legend under the table, as rows spanning it: the markers and the settings they depend on
    if comparison.tests.empty:
        legend = []  # nothing was tested: no markers to explain (the settings line says why)
    elif all_pairs:
        legend = ["Superscripts: the runs (\\#) this run is significantly better than."]
    else:
        legend = [f"$^{{\\uparrow}}$ / $^{{\\downarrow}}$: significantly better / worse than the baseline "
                  f"{latex_escape(str(comparison.baseline))}."]
    legend += ["Bold: the best mean per measure.", latex_escape(settings_line(comparison)) + "."]
    for line in legend:
        out.write(f"\\multicolumn{{{len(head)}}}{{l}}{{\\footnotesize {line}}} \\\\\n")
    out.write("\\end{tabular}\n")
    return out.getvalue()


def _check_options(format: str, precision: int) -> None:
    """The options every table writer takes: one of :data:`TABLE_FORMATS`, 0 to 17 decimals."""
    check_choice("format", format, TABLE_FORMATS)
    check_precision(precision)


def _json_default(value):
    if isinstance(value, np.floating):
        return None if math.isnan(value) else float(value)
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    if value is pd.NA:
        return None
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def _records(frame: pd.DataFrame | None) -> list[dict] | None:
    """The frame's rows as JSON objects, missing values as null (None for no frame)."""
    if frame is None:
        return None
    clean = frame.astype(object).where(frame.notna(), None)
    return [{key: (None if isinstance(v, float) and math.isnan(v) else v) for key, v in row.items()}
            for row in clean.to_dict(orient="records")]


def render_comparison(comparison: Comparison, *, format: str = "text", precision: int = 4) -> str:
    """The comparison as a table in one of :data:`TABLE_FORMATS`.

    ``text`` and ``latex`` show means with markers; ``csv`` has one row per tested pair and
    measure (means, difference, statistic, p-values, effect size, interval, settings);
    ``json`` holds the settings, the means and those rows.
    """
    _check_options(format, precision)
    if format == "text":
        return _text_comparison(comparison, precision)
    if format == "latex":
        return _latex_comparison(comparison, precision)
    if format == "csv":
        return render_frame(comparison.tests, format="csv")  # full precision: a CSV is read by programs
    settings = {key: getattr(comparison, key) for key in ("test", "correction", "alpha", "B", "seed", "baseline",
                                                          "topics")}
    document = {"settings": settings, "means": _means(comparison.means), "tests": _records(comparison.tests)}
    return json.dumps(document, indent=1, default=_json_default) + "\n"


def _means(means: pd.DataFrame) -> dict[str, dict[str, float]]:
    return {run: {m: float(means.at[run, m]) for m in means.columns} for run in means.index}


def _aligned(header: list[str], rows: list[list[str]]) -> str:
    """``header`` and ``rows`` as left-aligned columns two spaces apart, a rule under the header."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    return "".join("  ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip() + "\n"
                   for cells in [header, ["-" * w for w in widths], *rows])


def _text_frame(frame: pd.DataFrame, precision: int) -> str:
    columns = []
    for column in frame.columns:
        # Cell by cell: astype(str) keeps missing values (NA, None) missing in pandas 3.
        if pd.api.types.is_float_dtype(frame[column]):
            columns.append([("" if pd.isna(v) else f"{v:.{precision}f}") for v in frame[column]])
        else:
            columns.append(["" if v is None or (not isinstance(v, str) and pd.isna(v)) else str(v)
                            for v in frame[column]])
    return _aligned([str(c) for c in frame.columns], [list(row) for row in zip(*columns, strict=True)])


def render_frame(frame: pd.DataFrame, *, format: str = "text", precision: int = 4, settings: dict | None = None) -> str:
    """Any result table in one of :data:`TABLE_FORMATS`: aligned text, CSV, LaTeX, or JSON
    (``{"settings": ..., "rows": [...]}``)."""
    _check_options(format, precision)
    if format == "text":
        return _text_frame(frame, precision)
    if format == "latex":
        return _latex_frame(frame, precision)
    if format == "csv":
        return frame.to_csv(index=False, float_format="%.17g", lineterminator="\n")
    return json.dumps({"settings": settings or {}, "rows": _records(frame)}, indent=1, default=_json_default) + "\n"


def _cell(value, precision: int, escape: Callable[[str], str]) -> str:
    """A cell's text: a float to ``precision`` decimals (NaN: empty), anything else escaped (missing: empty)."""
    if isinstance(value, float | np.floating):
        return "" if math.isnan(value) else f"{value:.{precision}f}"
    return escape("" if value is None or value is pd.NA else str(value))


def _latex_frame(frame: pd.DataFrame, precision: int) -> str:
    out = io.StringIO()
    out.write("\\begin{tabular}{" + "l" * frame.shape[1] + "}\n\\hline\n")
    out.write(" & ".join(latex_escape(c) for c in frame.columns) + " \\\\\n\\hline\n")
    for row in frame.itertuples(index=False):
        out.write(" & ".join(_cell(value, precision, latex_escape) for value in row) + " \\\\\n")
    out.write("\\hline\n\\end{tabular}\n")
    return out.getvalue()


def render_analysis(analysis: MeasureAnalysis, *, format: str = "text", precision: int = 4) -> str:
    """The measure analysis (discriminative power, correlations, agreement) in one format.

    ``csv`` writes the sections one after another, each preceded by a ``# title`` line.
    """
    _check_options(format, precision)
    if format == "json":
        document = {"settings": analysis.settings | {"agreement_test": analysis.agreement_test},
                    "means": _means(analysis.means), "discriminative_power": _records(analysis.power.summary),
                    "discriminative_power_by_test": _records(analysis.power_by_test),
                    "asl_curves": _records(analysis.power.curves), "correlations": _records(analysis.correlations),
                    "agreement": _records(analysis.agreement), "agreement_chart": _records(analysis.chart)}
        return json.dumps(document, indent=1, default=_json_default) + "\n"
    sections = [("Discriminative power", analysis.power.summary)]
    if analysis.power_by_test is not None and analysis.power_by_test.shape[1] > 2:
        sections.append(("Discriminative power by test (share of run pairs significant)", analysis.power_by_test))
    if analysis.correlations is not None:
        sections.append(("Rank correlation between measures", analysis.correlations))
    if analysis.agreement is not None:
        sections.append((f"Agreement of verdicts ({analysis.agreement_test}, alpha {analysis.settings['alpha']:g})",
                         analysis.agreement))
        sections.append(("Agreement chart: run pairs per combination of verdicts (A = first run better, B = second, "
                         "tie)", analysis.chart))
    out = io.StringIO()
    for title, frame in sections:
        if format == "text":
            out.write(f"{title}\n{_text_frame(frame, precision)}\n")
        elif format == "csv":
            out.write(f"# {title}\n" + frame.to_csv(index=False, lineterminator="\n") + "\n")
        else:
            out.write(f"% {latex_escape(title)}\n{_latex_frame(frame, precision)}\n")
    return out.getvalue()


def html_table(frame: pd.DataFrame, *, precision: int = 4) -> str:
    """A DataFrame as an HTML table with every cell escaped (no dependency on jinja2)."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = []
    for row in frame.itertuples(index=False):
        cells = (('<td class="num">' if isinstance(value, float | np.floating) else "<td>")
                 + _cell(value, precision, html.escape) + "</td>" for value in row)
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
