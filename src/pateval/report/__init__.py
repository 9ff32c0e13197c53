"""Reporting comparisons of runs and measures: tables (text, CSV, JSON, LaTeX), plots
(PNG, SVG) and a single self-contained HTML report."""

from .html import IMAGE_FORMATS, Section, render_report, report_sections, write_html
from .plots import (
    FIGURE_FORMATS,
    plot_agreement_chart,
    plot_asl_curves,
    plot_ct_gamma,
    plot_gain_over_time,
    plot_measure_scatter,
    plot_rank_changes,
    plot_topic_differences,
    save_figure,
)
from .tables import TABLE_FORMATS, render_analysis, render_comparison

__all__ = [
    "IMAGE_FORMATS",
    "Section",
    "render_report",
    "report_sections",
    "write_html",
    "FIGURE_FORMATS",
    "plot_agreement_chart",
    "plot_asl_curves",
    "plot_ct_gamma",
    "plot_gain_over_time",
    "plot_measure_scatter",
    "plot_rank_changes",
    "plot_topic_differences",
    "save_figure",
    "TABLE_FORMATS",
    "render_analysis",
    "render_comparison",
]
