"""Reporting comparisons of runs and measures: tables (text, CSV, JSON, LaTeX), plots
(PNG, SVG) and a single self-contained HTML report.

Names are loaded on first use (matplotlib is not imported until a plot is drawn).
"""

from __future__ import annotations

from .._lazy import lazy_exports

# name -> submodule that defines it
_EXPORTS = {
    "Section": "html", "render_report": "html", "report_sections": "html", "write_html": "html",
    "IMAGE_FORMATS": "names", "FIGURE_FORMATS": "names", "TABLE_FORMATS": "names",
    "plot_agreement_chart": "plots", "plot_asl_curves": "plots", "plot_ct_gamma": "plots",
    "plot_gain_over_time": "plots", "plot_measure_scatter": "plots", "plot_rank_changes": "plots",
    "plot_measures_by_run": "plots",
    "plot_topic_differences": "plots", "save_figure": "plots",
    "render_analysis": "tables", "render_comparison": "tables",
}

__all__ = tuple(sorted(_EXPORTS))


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
