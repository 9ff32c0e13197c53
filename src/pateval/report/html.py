"""A single self-contained HTML report for a run set.

The report gathers the comparison table, the tests behind it, per-topic differences,
discriminative power with ASL curves, rank correlation with scatter plots, rank changes,
the agreement chart and, when the caller supplies the data, G(t) curves for time-biased
gain and Cube Test scores against gamma. Figures are embedded (inline SVG or base64 PNG)
and the style sheet is inline, so the file can be mailed or archived on its own.
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from .. import __version__
from .._optional import needs_extra
from ..errors import ParameterError
from ..formats.atomic import atomic_output
from .glossary import glossary_html
from .names import IMAGE_FORMATS
from .tables import DOWN, UP, comparison_rows, html_table, settings_line

with needs_extra("report"):
    from ..stats.comparison import Comparison, MeasureAnalysis
    from . import plots

__all__ = ["IMAGE_FORMATS", "Section", "difference_pairs", "figure_html", "render_report", "report_sections",
           "write_html"]


_STYLE = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1100px;
       color: #222; line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
p.meta, p.note { color: #555; font-size: 0.9em; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.88em; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #e3e3e3; text-align: left; }
th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.best { font-weight: bold; }
span.up { color: #0072B2; } span.down { color: #D55E00; } \
span.sup { color: #0072B2; font-size: 0.8em; vertical-align: super; }
figure { margin: 1em 0; } figure svg, figure img { max-width: 100%; height: auto; }
div.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(480px, 1fr)); gap: 0 1.5em; }
figcaption { font-size: 0.85em; color: #555; }
details summary { cursor: pointer; color: #0072B2; }
nav a { margin-right: 1em; font-size: 0.9em; }
"""


@dataclass(frozen=True)
class Section:
    """One titled part of the report; ``body`` is HTML; ``glossary`` names the tables it shows,
    each with its columns (a table of :data:`pateval.report.glossary.GLOSSARY`), for the
    report's glossary."""

    anchor: str
    title: str
    body: str
    glossary: tuple[tuple[str, tuple[str, ...]], ...] = ()


def figure_html(figure, caption: str, image_format: str) -> str:
    """A matplotlib figure as an HTML ``<figure>`` (inline SVG, or a PNG data URL) with its caption."""
    image = (plots.figure_svg(figure) if image_format == "svg" else
             f'<img alt="{html.escape(caption)}" src="data:image/png;base64,{plots.figure_png_base64(figure)}">')
    return f"<figure>{image}<figcaption>{html.escape(caption)}</figcaption></figure>"


def _comparison_table_html(comparison: Comparison, precision: int) -> str:
    all_pairs = comparison.baseline is None
    head = "".join(f"<th>{html.escape(c)}</th>" for c in (["#"] if all_pairs else []) + ["run"] + comparison.measures)
    rows = []
    for label, run, cells in comparison_rows(comparison, precision):
        row = [f"<td>{label}</td>"] if all_pairs else []
        row.append(f"<td>{html.escape(run)}{' <em>(baseline)</em>' if run == comparison.baseline else ''}</td>")
        for value, mark, best in cells:
            if mark:
                kind = "sup" if all_pairs else "up" if mark == UP else "down"
                value += f' <span class="{kind}">{html.escape(mark)}</span>'
            row.append(f'<td class="{"num best" if best else "num"}">{value}</td>')
        rows.append("<tr>" + "".join(row) + "</tr>")
    legend = ("Superscripts: the numbers of the runs this run is significantly better than." if all_pairs else
              f"{UP} / {DOWN}: significantly better / worse than the baseline {html.escape(str(comparison.baseline))}.")
    return (f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f'<p class="note">{legend} Best mean per measure in bold. {html.escape(settings_line(comparison))}.</p>')


def difference_pairs(comparison: Comparison, limit: int) -> list[tuple[str, str]]:
    """Which run pairs to draw per-topic differences for: each run against the baseline,
    or (all pairs) the best run by the first measure against the next best and the worst."""
    if comparison.baseline is not None:
        return [(run, comparison.baseline) for run in comparison.runs if run != comparison.baseline][:limit]
    order = list(comparison.means.iloc[:, 0].sort_values(ascending=False).index)
    pairs = [(order[0], order[1])]
    if len(order) > 2:
        pairs.append((order[0], order[-1]))
    return pairs[:limit]


def _pairs_note(comparison: Comparison, drawn: int, measure: str, *, under: bool = True,
                rest: str = "<code>pateval compare --baseline RUN --plots DIR</code> draws every run against RUN "
                            "under every measure.") -> str:
    """What a section of run pairs shows, out of how many, and how to draw the rest."""
    runs = len(comparison.runs)
    name = html.escape(measure)
    shown = (f"Every run against the baseline {html.escape(comparison.baseline)}" if comparison.baseline is not None
             else f"The best run by {name} against the next best and against the worst")
    if under and len(comparison.measures) > 1:
        shown += f", under {name} (the first measure)"
    note = f"{shown}: {drawn} of the {runs * (runs - 1) // 2} run pairs."
    return f'<p class="note">{note} {rest}</p>' if rest else f'<p class="note">{note}</p>'


def report_sections(*, comparison: Comparison | None = None, analysis: MeasureAnalysis | None = None,
                    matrices: Mapping[str, pd.DataFrame] | None = None, gain_over_time=None,
                    ct_by_gamma: pd.DataFrame | None = None, recall_precision: pd.DataFrame | None = None,
                    image_format: str = "svg", precision: int = 4) -> list[Section]:
    """Build the report's sections from whatever parts are given.

    Parameters
    ----------
    comparison : Comparison, optional
        From :func:`pateval.stats.compare_runs`.
    analysis : MeasureAnalysis, optional
        From :func:`pateval.stats.analyse_measures`.
    matrices : mapping measure -> topics x runs, optional
        Per-topic scores for the per-topic difference plots (default: the comparison's).
    gain_over_time : frame (run, time, gain) or mapping, optional
        Cumulative gain over time per run, for the G(t) plot (see
        :func:`pateval.report.plots.plot_gain_over_time`).
    ct_by_gamma : frame (run, gamma, score), optional
        Cube Test scores for several gammas (see :func:`pateval.report.plots.plot_ct_gamma`).
    recall_precision : frame runs x recall levels, optional
        Each run's mean interpolated precision at each recall level, the first section (see
        :func:`pateval.report.plots.plot_recall_precision`); with a comparison, also the
        differences of the run pairs the per-topic section draws.
    """
    if image_format not in IMAGE_FORMATS:
        raise ParameterError(f"image_format must be 'svg' or 'png', not {image_format!r}")
    sections: list[Section] = []
    if recall_precision is not None:  # the picture a searcher reads first
        # the curves of every run, the differences of the run pairs the per-topic section draws, the values
        pairs = difference_pairs(comparison, len(comparison.runs)) if comparison is not None else []
        figure = plots.plot_recall_precision(recall_precision, pairs=pairs)
        caption = ("Interpolated precision at recall 0, 0.1, ..., 1 (IPrec(recall=x), trec_eval's "
                   "iprec_at_recall_x), mean over each run's topics"
                   + (", and the difference of run pairs below." if pairs else "."))
        body = figure_html(figure, caption, image_format)
        if comparison is not None:
            body += _pairs_note(comparison, len(pairs), comparison.measures[0], under=False,
                                rest="" if comparison.baseline is not None
                                else "<code>pateval report --baseline RUN</code> draws every run minus RUN.")
        table = recall_precision.copy()
        table.columns = [f"{float(level):.1f}" for level in recall_precision.columns]
        table = table.rename_axis("run").reset_index()
        body += f"<details><summary>The values</summary>{html_table(table, precision=precision)}</details>"
        sections.append(Section("recall-precision", "Recall-precision curves", body,
                                (("recall-precision", tuple(table.columns)),)))
    if comparison is not None:
        tests = comparison.tests.drop(columns=["test", "correction", "alpha", "B", "seed"])
        body = _comparison_table_html(comparison, precision)
        body += (f"<details><summary>All {len(tests)} tests ({html.escape(comparison.test)})</summary>"
                 f"{html_table(tests, precision=precision)}</details>")
        sections.append(Section("comparison", "Runs compared", body, (("tests", tuple(tests.columns)),)))
        matrices = matrices or comparison.scores
        if matrices:
            measure = comparison.measures[0]
            matrix = matrices[measure]
            pairs = difference_pairs(comparison, len(comparison.runs))
            figures = []
            for run_a, run_b in pairs:
                figure = plots.plot_topic_differences(matrix[run_a], matrix[run_b], run_a=run_a, run_b=run_b,
                                                      measure=measure, topics=list(matrix.index), label_topics=0)
                figures.append(figure_html(figure, f"{measure} per topic, {run_a} minus {run_b}.", image_format))
            sections.append(Section("topics", f"Per-topic differences ({measure})",
                                    _pairs_note(comparison, len(pairs), measure)
                                    + f'<div class="grid">{"".join(figures)}</div>'))
    if analysis is not None:
        summary = analysis.power.summary.copy()
        summary["discriminative_power"] = (summary["discriminative_power"] * 100).map(lambda v: f"{v:.1f}%")
        body = html_table(summary, precision=precision)
        if analysis.power_by_test is not None and analysis.power_by_test.shape[1] > 2:
            by_test = analysis.power_by_test.copy()
            for column in by_test.columns[1:]:
                by_test[column] = (by_test[column] * 100).map(lambda v: f"{v:.1f}%")
            body += "<p>By test (as Smucker &amp; Clarke 2012, table 2):</p>" + html_table(by_test)
        body += (f'<p class="note">Share of run pairs whose ASL is below alpha = {analysis.settings["alpha"]:g} with '
                 f'{html.escape(str(analysis.settings["test"]))} (Sakai 2006); difference_needed is the largest '
                 "per-pair critical difference, a conservative estimate of the difference needed for significance.</p>")
        body += figure_html(plots.plot_asl_curves(analysis.power.curves, alpha=analysis.settings["alpha"]),
                             "ASL of every run pair, sorted, per measure; lower and longer below the line is more "
                             "discriminative.", image_format)
        sections.append(Section("power", "Discriminative power", body,
                                (("discriminative power", tuple(summary.columns)),)))
        if analysis.correlations is not None:
            body = html_table(analysis.correlations, precision=precision)
            means, first = analysis.means, analysis.means.columns[0]
            scatter = []
            for other in means.columns[1:]:
                if means[first].nunique() > 1 and means[other].nunique() > 1:
                    figure = plots.plot_measure_scatter(means[first], means[other], measure_x=first, measure_y=other,
                                                        labels=list(means.index))
                    scatter.append(figure_html(figure, f"Mean {other} against mean {first}, one point per run.",
                                               image_format))
            body += f'<div class="grid">{"".join(scatter)}</div>'
            body += figure_html(plots.plot_measures_by_run(means, sort_by=means.columns[-1]),
                                f"Every measure's mean per run, runs sorted by {means.columns[-1]}.", image_format)
            body += figure_html(plots.plot_rank_changes(means), "Rank of each run under each measure.", image_format)
            sections.append(Section("correlation", "Rank correlation between measures", body,
                                    (("rank correlation", tuple(analysis.correlations.columns)),)))
        if analysis.chart is not None and analysis.agreement is not None:
            body = html_table(analysis.agreement, precision=precision)
            body += figure_html(plots.plot_agreement_chart(analysis.chart),
                                 f"Run pairs per combination of verdicts ({analysis.agreement_test} test, alpha "
                                 f"{analysis.settings['alpha']:g}).", image_format)
            sections.append(Section("agreement", "Agreement between measures", body,
                                    (("agreement", tuple(analysis.agreement.columns)),)))
    if gain_over_time is not None:
        caption = "G(t): gain the user has collected by time t (time-biased gain's user model)."
        sections.append(Section("gain", "Cumulative gain over time",
                                figure_html(plots.plot_gain_over_time(gain_over_time), caption, image_format)))
    if ct_by_gamma is not None:
        caption = "Cube Test score as the discount gamma for already covered subtopics grows."
        sections.append(Section("cube", "Cube Test against gamma",
                                figure_html(plots.plot_ct_gamma(ct_by_gamma), caption, image_format)))
    if not sections:
        raise ParameterError("the report has nothing to show: give a comparison, an analysis or plot data")
    return sections


def render_report(sections: Sequence[Section], *, title: str = "pateval report", runs: Sequence[str] = (),
                  measures: Sequence[str] = (), notes: Sequence[str] = ()) -> str:
    """The complete HTML document for the given sections."""
    # the glossary of every table the sections show (each column once, in the order met)
    tables: dict[str, list[str]] = {}
    for section in sections:
        for table, columns in section.glossary:
            known = tables.setdefault(table, [])
            known.extend(c for c in columns if c not in known)
    if tables:
        sections = [*sections, Section("glossary", "Glossary", '<p class="note">What each column of the tables above '
                                       "means.</p>" + glossary_html(tables))]
    nav = "".join(f'<a href="#{s.anchor}">{html.escape(s.title)}</a>' for s in sections)
    meta = f"Generated by pateval {html.escape(__version__)}."
    if runs:
        meta += f" Runs ({len(runs)}): {html.escape(', '.join(runs))}."
    if measures:
        meta += f" Measures: {html.escape(', '.join(measures))}."
    note_html = "".join(f'<p class="note">{html.escape(n)}</p>' for n in notes)
    body = "".join(f'<section id="{s.anchor}"><h2>{html.escape(s.title)}</h2>{s.body}</section>' for s in sections)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>"
            f"<p class=\"meta\">{meta}</p>{note_html}<nav>{nav}</nav>{body}</body></html>\n")


def write_html(text: str, path: str | os.PathLike[str]) -> None:
    """Write the report atomically."""
    with atomic_output(path, "w") as handle:
        handle.write(text)
