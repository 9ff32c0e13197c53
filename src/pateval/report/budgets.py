"""The figure of a budget simulation: relevant documents found and Kendall's tau against the budget."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from .plots import blank_figure, colour

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["budgets_section", "plot_budgets"]


def plot_budgets(table: pd.DataFrame, *, measure: str = "AP") -> Figure:
    """Two panels over the budget (judgements per topic), one line per judging order: the
    relevant documents found (left) and Kendall's tau of the system ranking by ``measure``
    against the complete qrels' (right); a table of :func:`pateval.stats.budgets.simulate_budgets`."""
    figure = blank_figure(10.0, 4.0)
    left, right = figure.subplots(1, 2)
    for i, (name, rows) in enumerate(table.groupby("order", sort=False)):
        rows = rows.sort_values("budget")
        left.plot(rows["budget"], rows["relevant_found"], marker="o", color=colour(i), label=str(name))
        right.plot(rows["budget"], rows["tau"], marker="o", color=colour(i), label=str(name))
    left.set_xlabel("judgements per topic (budget)")
    left.set_ylabel("relevant documents found (all topics)")
    left.set_title("Relevant documents found")
    right.set_xlabel("judgements per topic (budget)")
    right.set_ylabel(f"Kendall's tau ({measure}) vs complete qrels")
    right.set_title("System ranking")
    right.axhline(0.9, color="0.6", linestyle=":", linewidth=1)
    left.legend(loc="lower right", fontsize=8)
    return figure


def budgets_section(table: pd.DataFrame | None, reuse: pd.DataFrame | None, *, measure: str = "AP",
                    image_format: str = "svg", precision: int = 4):
    """The report's section on judging budgets (a table of
    :func:`pateval.stats.budgets.simulate_budgets` and its figure) and reusability (a table of
    :func:`pateval.stats.budgets.leave_out`); either may be None."""
    import html

    from .html import Section, figure_html
    from .tables import html_table

    body = ""
    tables: tuple[tuple[str, tuple[str, ...]], ...] = ()
    if table is not None:
        body += (f"<p>Judging orders replayed at budgets of judgements per topic against the complete qrels; the "
                 f"runs ranked by {html.escape(measure)}. The qrels' documents no run retrieved stay judged: at the "
                 "full budget tau is 1.</p>")
        body += html_table(table, precision=precision)
        body += figure_html(plot_budgets(table, measure=measure), "Relevant documents found and Kendall's tau "
                            "against the budget, one line per judging order.", image_format)
        tables += (("budgets", tuple(table.columns)),)
    if reuse is not None:
        body += ("<p>Reusability (Zobel 1998; Buettcher et al. 2007): each run, or group, left out of the pool; the "
                 "documents only it contributed leave the qrels.</p>")
        body += html_table(reuse, precision=precision)
        tables += (("reusability", tuple(reuse.columns)),)
    return Section("budgets", "Judging budgets and reusability", body, glossary=tables)
