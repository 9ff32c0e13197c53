"""Figures and a report section for a TBG calibration (Smucker & Clarke 2012, Figures 1, 2 and 5).

* :func:`plot_reading_time`: time a document is open against its length, first views and
  duplicate views binned and averaged (about 15 views a bin, as the paper's Figure 1), the
  raw views faint behind, with the fitted T_D(l) = a l + b and the duplicates' mean;
* :func:`plot_stopping`: the share of sessions still searching at time t (Kaplan-Meier,
  censored sessions marked) with the fitted D(t) = 2^(-t/h) (Figure 5);
* :func:`plot_rank_over_time`: per list, the mean rank users had reached at time t against
  the rank the calibrated T(k) predicts (Figure 2), with the mean absolute rank error.

Built as :mod:`pateval.report.plots` builds figures (object API, Agg canvas, the same palette).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._optional import needs_extra

with needs_extra("report"):
    from matplotlib.figure import Figure

    from ..calibration.tbg import CalibrationResult, ListRanking, kaplan_meier, validate_time_model
    from .html import Section, figure_html
    from .plots import blank_figure, colour, new_figure
    from .tables import html_table

__all__ = ["plot_reading_time", "plot_stopping", "plot_rank_over_time", "calibration_figures", "calibration_section"]

_VALIDATION_TIMES = (60.0, 300.0, 600.0)


_MAX_BINS = 300  # the paper's Figure 1 shows about 280 bins of 15 views
_MAX_POINTS = 5000  # raw views drawn behind the bins


def _bin_size(n: int, per_bin: int) -> int:
    """``per_bin``, or more when that would make more than :data:`_MAX_BINS` bins."""
    return max(per_bin, -(-n // _MAX_BINS))


def _binned(x: np.ndarray, y: np.ndarray, per_bin: int) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(x, kind="stable")
    bins = max(1, len(x) // _bin_size(len(x), per_bin))
    chunks = np.array_split(order, bins)
    return np.array([x[c].mean() for c in chunks]), np.array([y[c].mean() for c in chunks])


def plot_reading_time(views: pd.DataFrame, *, slope: float, intercept: float, duplicate_mean: float | None = None,
                      adjusted_r2: float | None = None, per_bin: int = 15, title: str | None = None) -> Figure:
    """Time to judge a document against its length, with the linear fit (the paper's Figure 1).

    ``views`` has the columns ``length, time, first`` (views left with ``back``). Views are
    binned by length, ``per_bin`` a bin (more for large logs: at most 300 bins), and averaged.
    """
    figure, axes = new_figure(6.4, 4.2)
    first = views[views["first"].to_numpy(bool)]
    duplicate = views[~views["first"].to_numpy(bool)]
    x, y = first["length"].to_numpy(float), first["time"].to_numpy(float)
    # the views themselves, faint, behind (at most _MAX_POINTS of them, a seeded sample, so that a
    # large log neither hides the bins nor makes a huge SVG)
    shown = np.arange(len(x))
    if len(x) > _MAX_POINTS:
        shown = np.sort(np.random.default_rng(0).choice(len(x), _MAX_POINTS, replace=False))
    axes.scatter(x[shown], y[shown], s=4, color=colour(0), alpha=0.12, linewidth=0, rasterized=True,
                 label=f"{len(shown)} of the views (sample)" if len(shown) < len(x) else None)
    if len(x):
        bx, by = _binned(x, y, per_bin)
        axes.scatter(bx, by, s=16, color=colour(0), edgecolor="white", linewidth=0.4, zorder=3,
                     label=f"first views ({len(x)}), binned by {_bin_size(len(x), per_bin)}")
        grid = np.linspace(0, float(x.max()), 100)
        r2 = f", adj. R\u00b2 {adjusted_r2:.2f}" if adjusted_r2 is not None and math.isfinite(adjusted_r2) else ""
        axes.plot(grid, slope * grid + intercept, color="black", linewidth=1.4, zorder=4,
                  label=f"T_D(l) = {slope:.4g} l + {intercept:.4g}{r2}")
    if len(duplicate):
        dx, dy = duplicate["length"].to_numpy(float), duplicate["time"].to_numpy(float)
        known = np.isfinite(dx)
        if known.any():
            bx, by = _binned(dx[known], dy[known], per_bin)
            axes.scatter(bx, by, s=18, marker="^", color=colour(1), edgecolor="white", linewidth=0.4, zorder=3,
                         label=f"duplicate views ({len(dy)}), binned")
        if duplicate_mean is not None and math.isfinite(duplicate_mean):
            axes.axhline(duplicate_mean, color=colour(1), linestyle="--", linewidth=1.2,
                         label=f"duplicates' mean {duplicate_mean:.3g} s")
    if views.empty:
        axes.text(0.5, 0.5, "no document view left with 'back' in this log", ha="center", va="center",
                  transform=axes.transAxes, fontsize=10, color="#555555")
    axes.set(xlabel="document length (words)", ylabel="time to judge (s)", xlim=(0, None),
             ylim=(0, max(1.0, float(np.percentile(y, 99)) * 1.1) if len(y) else None))
    axes.set_title(title or "Time to judge a document against its length", fontsize=10)
    if axes.get_legend_handles_labels()[0]:
        axes.legend(fontsize=8, frameon=False, loc="upper left")
    axes.grid(True, linewidth=0.3, alpha=0.6)
    return figure


def plot_stopping(sessions: pd.DataFrame, *, halflife: float, km_gap: float | None = None,
                  title: str | None = None) -> Figure:
    """Share of sessions still searching at time t, and the fitted 2^(-t/h) (the paper's Figure 5).

    ``sessions`` has the columns ``duration`` (seconds) and ``ended`` (False: censored).
    """
    figure, axes = new_figure(6.4, 4.0)
    duration = sessions["duration"].to_numpy(float)
    ended = sessions["ended"].to_numpy(bool)
    times, survival = kaplan_meier(duration, ended)
    axes.step(np.r_[0.0, times], np.r_[1.0, survival], where="post", color=colour(0), linewidth=1.5,
              label=f"sessions still searching (Kaplan-Meier; {int(ended.sum())} stopped, {int((~ended).sum())} "
              f"censored)")
    if (~ended).any():
        censored = duration[~ended]
        at = np.searchsorted(times, censored, side="right")
        level = np.r_[1.0, survival][at]
        axes.scatter(censored, level, marker="|", s=30, color=colour(0), label="censored (no end in the log)",
                     rasterized=len(censored) > 2000)
    if math.isfinite(halflife):
        grid = np.linspace(0, max(float(duration.max()), 1.0), 200)
        gap = f"; largest gap {km_gap:.3f}" if km_gap is not None and math.isfinite(km_gap) else ""
        axes.plot(grid, np.exp2(-grid / halflife), color=colour(1), linewidth=1.6, linestyle="--",
                  label=f"D(t) = 2^(-t/{halflife:.4g}){gap}")
        axes.axvline(halflife, color="#999999", linewidth=0.8, linestyle=":")
    axes.set(xlabel="time since start (s)", ylabel="share of sessions", xlim=(0, None), ylim=(0, 1.02))
    axes.set_title(title or "When users stop, and the fitted decay D(t)", fontsize=10)
    axes.legend(fontsize=8, frameon=False)
    axes.grid(True, linewidth=0.3, alpha=0.6)
    return figure


def plot_rank_over_time(curves: pd.DataFrame, *, errors: pd.DataFrame | None = None, columns: int = 6,
                        title: str | None = None) -> Figure:
    """Mean rank users reached over time against the rank T(k) predicts, per list (the paper's Figure 2).

    ``curves`` has the columns ``list, time, observed, predicted`` (and ``predicted_custom``);
    ``errors`` (from :func:`pateval.calibration.tbg.validate_time_model`) gives the title's
    error numbers. Every list is drawn, one small panel each (``columns`` a row, shared axes,
    in the order of ``curves``: the lists with the most sessions first): lines of 46 lists in
    one axes could not be told apart.
    """
    lists = list(dict.fromkeys(curves["list"]))
    count = max(1, len(lists))
    across = min(columns, count)
    rows = -(-count // across)
    custom = "predicted_custom" in curves.columns and bool(curves["predicted_custom"].notna().any())
    figure = blank_figure(max(6.6, 1.75 * across), 1.3 * rows + 1.3)
    grid = figure.subplots(rows, across, sharex=True, sharey=True, squeeze=False)
    for i, axes in enumerate(grid.flat):
        if i >= len(lists):
            axes.set_visible(False)
            grid.flat[i - across].xaxis.set_tick_params(labelbottom=True)  # the panel above ends its column
            continue
        part = curves[curves["list"] == lists[i]]
        axes.plot(part["time"], part["observed"], color=colour(0), linewidth=1.3, label="users")
        axes.plot(part["time"], part["predicted"], color=colour(1), linewidth=1.1, linestyle="--",
                  label="calibrated T(k)")
        if custom:
            axes.plot(part["time"], part["predicted_custom"], color=colour(2), linewidth=1.1, linestyle=":",
                      label="the topic's own T(k)")
        axes.set_title(f"list {lists[i]}", fontsize=7, pad=2)
        axes.tick_params(labelsize=6)
        axes.grid(True, linewidth=0.3, alpha=0.6)
        axes.set(xlim=(0, None), ylim=(0, None))
    heading = title or f"Rank reached over time, {len(lists)} list{'' if len(lists) == 1 else 's'}"
    if errors is not None and not errors.empty:
        summary = errors.groupby("time")["error"].mean()
        heading += "; mean absolute rank error " + ", ".join(f"{v:.2f} at {t:g} s" for t, v in summary.items()
                                                             if math.isfinite(v))
        if "error_custom" in errors.columns:
            own = errors.groupby("time")["error_custom"].mean()
            heading += "; own topic's: " + ", ".join(f"{v:.2f}" for v in own.to_numpy() if math.isfinite(v))
    heading += ("\nsolid: the users' mean rank reached; dashed: the calibrated T(k)"
                + ("; dotted: the topic's own T(k)" if custom else ""))
    figure.suptitle(heading, fontsize=9)
    figure.supxlabel("time since start (s)", fontsize=8)
    figure.supylabel("rank reached", fontsize=8)
    return figure


def rank_curves(result: CalibrationResult, rankings: Mapping[str, ListRanking], lengths: Mapping, *, model,
                groups: Mapping | None = None, step: float = 10.0, custom: Mapping | None = None) -> pd.DataFrame:
    """Per list and time (every ``step`` seconds while a session is observed): mean observed and predicted
    rank (and ``predicted_custom``, by the list's own model, when ``custom`` maps lists to models)."""
    sessions = result.sessions
    counts = sessions["list"].value_counts()
    rows = []
    for list_id in counts.index:
        if (ranking := rankings.get(list_id)) is None:
            continue
        horizon = float(sessions.loc[sessions["list"] == list_id, "duration"].quantile(0.9))
        grid = np.arange(0.0, horizon + step, step)
        errors = validate_time_model(result, {list_id: ranking}, lengths, model=model, groups=groups, at=tuple(grid),
                                     custom=custom)
        for row in errors.itertuples(index=False):
            if row.sessions >= 1:
                rows.append((list_id, row.time, row.observed, row.predicted)
                            + ((row.predicted_custom,) if custom is not None else ()))
    return pd.DataFrame(rows, columns=["list", "time", "observed", "predicted"]
                        + (["predicted_custom"] if custom is not None else []))


def calibration_figures(result: CalibrationResult, rankings: Mapping[str, ListRanking], lengths: Mapping, *,
                        groups: Mapping | None = None) -> dict:
    """``{"reading_time": Figure, "stopping": Figure, "rank_over_time": Figure, "validation": DataFrame}``
    for the first calibration (all sessions)."""
    calibration = result.calibrations[0]
    model = calibration.model()
    reading = calibration.fit["reading"]
    views = result.views[np.isfinite(result.views["time"].to_numpy(float))]
    figures = {
        "reading_time": plot_reading_time(views, slope=calibration.value("read_slope"),
                                          intercept=calibration.value("read_intercept"),
                                          duplicate_mean=calibration.fit["duplicates"]["mean"],
                                          adjusted_r2=reading["adjusted_r2"]),
        "stopping": plot_stopping(result.sessions, halflife=calibration.value("halflife"),
                                  km_gap=calibration.fit["stopping"]["km_max_gap"]),
    }
    custom = None
    if result.by == "topic":  # each list also against its own topic's calibration ("custom Topic 383 T(k)")
        by_group = {c.group: c.model() for c in result.calibrations[1:]}
        custom = {list_id: by_group[str(ranking.topic)] for list_id, ranking in rankings.items()
                  if str(ranking.topic) in by_group}
    validation = validate_time_model(result, rankings, lengths, model=model, groups=groups, at=_VALIDATION_TIMES,
                                     custom=custom)
    curves = rank_curves(result, rankings, lengths, model=model, groups=groups, custom=custom)
    if not curves.empty:
        figures["rank_over_time"] = plot_rank_over_time(curves, errors=validation)
    figures["validation"] = validation
    return figures


def calibration_section(result: CalibrationResult, figures: Mapping, *, image_format: str = "svg", precision: int = 4):
    """The report's section for a calibration: the table, the measure strings, the fits, the figures."""
    body = html_table(result.frame(), precision=precision)
    items = "".join(f"<li>{html.escape(c.group)}: <code>{html.escape(c.measure)}</code></li>"
                    for c in result.calibrations)
    body += f"<p>Measure strings (<code>pateval evaluate -m</code> takes them as they are):</p><ul>{items}</ul>"
    first = result.calibrations[0]
    reading, dup, stop = first.fit["reading"], first.fit["duplicates"], first.fit["stopping"]
    body += (f'<p class="note">Reading-time fit over {reading["n"]} first views: adjusted R\u00b2 '
             f'{reading["adjusted_r2"]:.3f}, se(a) {reading["read_slope_se"]:.3g}, se(b) '
             f'{reading["read_intercept_se"]:.3g}. Duplicate views: {dup["n"]}'
             + (f', mean {dup["mean"]:.3g} s \u00b1 {dup["se"]:.2g} (p = {dup["p_value"]:.3g} against b)' if dup["n"]
                else "")
             + f'. Stopping: {stop["stopped"]} sessions stopped, {stop["censored"]} censored. '
             f'Intervals: {result.settings["confidence"]:.0%} percentile bootstrap over users, B = '
             f'{result.settings["B"]}, seed {result.settings["seed"]}. user_average: each user\'s own estimate, '
             "averaged over users (unweighted).</p>")
    for note in first.notes:
        body += f'<p class="note">{html.escape(note)}</p>'
    captions = {"reading_time": "Time to judge a document against its length, with the fit (Smucker & Clarke 2012, "
                "Figure 1).",
                "stopping": "Sessions still searching over time and the fitted exponential decay (ibid., Figure 5).",
                "rank_over_time": "Rank reached over time: users against the calibrated T(k), every list of the log, "
                "most sessions first (ibid., Figure 2)."}
    parts = [figure_html(figures[name], caption, image_format) for name, caption in captions.items() if name in figures]
    # the two fits side by side; the panels of every list across the page's width
    body += f'<div class="grid">{"".join(parts[:2])}</div>{"".join(parts[2:])}'
    tables: tuple[tuple[str, tuple[str, ...]], ...] = (("calibration", tuple(result.frame().columns)),)
    validation = figures.get("validation")
    if validation is not None and not validation.empty:
        tables += (("rank over time", tuple(validation.columns)),)
        summary = validation.groupby("time")["error"].mean()
        line = ", ".join(f"{v:.2f} at {t:g} s" for t, v in summary.items() if math.isfinite(v))
        if "error_custom" in validation.columns:
            own = validation.groupby("time")["error_custom"].mean()
            line += "; with each topic's own calibration " + ", ".join(
                f"{v:.2f} at {t:g} s" for t, v in own.items() if math.isfinite(v))
        body += (f"<p>T(k) against the ranks users reached: mean absolute rank error over the lists "
                 f"{html.escape(line)}.</p><details><summary>Per list (observed = mean rank of the sessions still "
                 f"observed at that time)</summary>{html_table(validation, precision=2)}</details>")
    return Section("calibration", "TBG calibration from the interaction log", body, tables)
