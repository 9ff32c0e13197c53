"""Plots for comparing runs and measures (matplotlib, no display needed).

Every function takes plain data (arrays or frames) and returns a
:class:`matplotlib.figure.Figure`; :func:`save_figure` writes it as PNG or SVG and
:func:`figure_svg` / :func:`figure_png_base64` embed it in HTML. Figures are built on
matplotlib's object API with the Agg canvas, never through ``pyplot``, so nothing depends on
a display or on global figure state, and plotting is safe in threads.

The plots follow the seed papers: the recall-precision curve of every TREC report; per-topic
score differences between two runs; Sakai's ASL curves (discriminative power); one measure
against another with Kendall's tau (Smucker & Clarke 2012, figure 6); cumulative gain over
time G(t) (ibid., figure 4); Cube Test score against gamma (Luo et al. 2013, figures 5-6);
the agreement chart and the change of run ranks between measures (Magdy & Jones 2010,
figures 6-7).
"""

from __future__ import annotations

import base64
import io
import os
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .._optional import needs_extra
from ..errors import ParameterError
from ..formats.atomic import atomic_output
from .inputs import check_gain_curves
from .names import FIGURE_FORMATS

with needs_extra("report"):
    import matplotlib
    from matplotlib.axes import Axes
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    from ..stats.correlation import kendall_tau

__all__ = ["FIGURE_FORMATS", "blank_figure", "colour", "figure_png_base64", "figure_svg", "new_figure",
           "plot_agreement_chart", "plot_asl_curves", "plot_ct_gamma", "plot_gain_over_time", "plot_measure_scatter",
           "plot_measures_by_run", "plot_rank_changes", "plot_recall_precision", "plot_topic_differences",
           "save_figure"]


# Colour-blind-safe qualitative palette (Okabe & Ito 2008), cycled for runs and measures.
_PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")


def colour(i: int) -> str:
    """The ``i``-th colour of the reports' palette (cycling)."""
    return _PALETTE[i % len(_PALETTE)]


_MARKERS = "osD^v<>pXh*"  # 11 markers against 8 colours: the pair repeats only after 88 runs
_LINESTYLES = ("-", "--", ":", "-.")


def _run_style(i: int) -> dict:
    """Colour, marker and line style of the i-th run: distinct for every run of a run set, not only the first 8."""
    return {"color": colour(i), "marker": _MARKERS[i % len(_MARKERS)],
            "linestyle": _LINESTYLES[(i // len(_PALETTE)) % len(_LINESTYLES)]}


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """Area shared by two boxes (x0, y0, x1, y1)."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def _place_labels(axes: Axes, x: np.ndarray, y: np.ndarray, texts: Sequence[str], *, fontsize: float = 7,
                  marker_radius: float = 4.0) -> None:
    """Label each point (x, y) with its text where it overlaps no other label, no point and stays inside the axes.

    Greedy, in display pixels after the figure's layout is fixed (the layout engine is switched off so that
    the positions hold): offsets of growing distance in eight directions, the first free one wins; a point
    with no free place gets the least crowded one, joined to its point by a thin line.
    """
    figure = axes.get_figure()
    assert isinstance(figure, Figure)
    figure.draw_without_rendering()
    figure.set_layout_engine("none")
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    frame = axes.get_window_extent(renderer)
    inside = (frame.x0 + 2, frame.y0 + 2, frame.x1 - 2, frame.y1 - 2)
    points = axes.transData.transform(np.column_stack([x, y]))
    taken = [(px - marker_radius, py - marker_radius, px + marker_radius, py + marker_radius) for px, py in points]
    pixels = figure.dpi / 72.0
    directions = [(1, 1), (1, -1), (-1, 1), (-1, -1), (1, 0), (-1, 0), (0, 1), (0, -1)]
    for (px, py), text in zip(points, texts, strict=True):
        probe = axes.text(0, 0, text, fontsize=fontsize)
        extent = probe.get_window_extent(renderer)
        probe.remove()
        width, height = extent.width, extent.height
        places = []  # (crowd, offset x, offset y, box) of each place inside the axes, nearest first
        for distance in (3, 6, 10, 15, 22, 30):
            for dx, dy in directions:
                ox, oy = dx * distance * pixels, dy * distance * pixels
                cx = px + ox + (width / 2 if dx > 0 else -width / 2 if dx < 0 else 0.0)
                cy = py + oy + (height / 2 if dy > 0 else -height / 2 if dy < 0 else 0.0)
                box = (cx - width / 2, cy - height / 2, cx + width / 2, cy + height / 2)
                if box[0] >= inside[0] and box[1] >= inside[1] and box[2] <= inside[2] and box[3] <= inside[3]:
                    places.append((sum(_overlap(box, other) for other in taken), (cx - px) / pixels,
                                   (cy - py) / pixels, box))
        # the nearest free place, else the least crowded; no room inside the axes at all (a tiny figure): on the point
        _, ox, oy, box = min(places, key=lambda place: place[0], default=(0.0, 0.0, 0.0, (px, py, px, py)))
        far = (ox * ox + oy * oy) ** 0.5 > 12
        point_x, point_y = axes.transData.inverted().transform((px, py))  # the point again, in data coordinates
        axes.annotate(text, (float(point_x), float(point_y)),
                      xytext=(ox, oy), textcoords="offset points", ha="center", va="center", fontsize=fontsize,
                      color="#222222", annotation_clip=False,
                      arrowprops={"arrowstyle": "-", "color": "#999999", "linewidth": 0.5,
                                  "shrinkA": 0, "shrinkB": 2} if far else None)
        taken.append(box)


def blank_figure(width: float = 6.4, height: float = 4.0) -> Figure:
    """A figure without axes on an Agg canvas (inches; 100 dpi on screen), for a figure of several panels."""
    figure = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def new_figure(width: float = 6.4, height: float = 4.0) -> tuple[Figure, Axes]:
    """A figure with one axes on an Agg canvas (inches; 100 dpi on screen)."""
    figure = blank_figure(width, height)
    return figure, figure.add_subplot()


def save_figure(figure: Figure, path: str | os.PathLike[str]) -> None:
    """Write ``figure`` to ``path`` as PNG or SVG (by suffix), atomically."""
    suffix = os.fspath(path).rsplit(".", 1)[-1].lower()
    if suffix not in FIGURE_FORMATS:
        raise ParameterError(f"figures are written as .png or .svg, not {os.fspath(path)!r}")
    with atomic_output(path, "wb") as handle:
        figure.savefig(handle, format=suffix, dpi=150 if suffix == "png" else None)


def figure_svg(figure: Figure) -> str:
    """The figure as an inline ``<svg>`` element (no XML prolog or DOCTYPE)."""
    buffer = io.StringIO()
    # Text stays text (not glyph paths): a fraction of the size and time, and selectable. No date and a fixed
    # salt for the element ids: the same figure gives the same bytes, so a report can be compared with the last.
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "pateval"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def figure_png_base64(figure: Figure, *, dpi: int = 120) -> str:
    """The figure as a base64 PNG for a ``data:image/png;base64,...`` URL."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _vector(values, name: str) -> np.ndarray:
    array = np.asarray(values, dtype=float).ravel()
    if array.size == 0 or not np.isfinite(array).all():
        raise ParameterError(f"{name} must be a non-empty sequence of finite numbers")
    return array


def plot_recall_precision(curves: pd.DataFrame, *, pairs: Sequence[tuple[str, str]] = ()) -> Figure:
    """Recall-precision curves: each run's interpolated precision at each recall level and,
    with ``pairs``, each pair's difference ``a - b`` in a panel below, on the same recall axis.

    ``curves`` is runs x recall levels (index: run names; columns: the levels, numbers in
    [0, 1]; values: mean IPrec(recall=x) in [0, 1], as trec_eval's iprec_at_recall lines).
    Pairs that share their second run (each run against a baseline) are drawn in the style of
    their first run, as in the curves above; other pairs get a style and a legend of their own.
    """
    if not isinstance(curves, pd.DataFrame) or curves.empty:
        raise ParameterError("recall-precision curves need a non-empty runs x recall levels frame")
    recall = np.array([float(level) for level in curves.columns])
    values = curves.to_numpy(dtype=float)
    if not ((recall >= 0) & (recall <= 1)).all() or not np.isfinite(values).all() or \
            not ((values >= 0) & (values <= 1)).all():
        raise ParameterError("recall levels and interpolated precision must be numbers in [0, 1]")
    runs = [str(run) for run in curves.index]
    for pair in pairs:
        for run in pair:
            if run not in runs:
                raise ParameterError(f"cannot draw the difference {pair[0]} \u2212 {pair[1]}: no curve for run {run!r}")
    figure = blank_figure(8.6, 6.6 if pairs else 4.2)
    panels = figure.subplots(2 if pairs else 1, 1, sharex=True, squeeze=False,
                             height_ratios=[1.5, 1.0] if pairs else [1.0])[:, 0]
    top = panels[0]
    order = np.argsort(recall, kind="stable")
    for i, run in enumerate(runs):
        top.plot(recall[order], values[i, order], markersize=4, linewidth=1.3, label=run, **_run_style(i))
    top.set(ylim=(-0.02, 1.02), ylabel="interpolated precision")
    top.set_title(f"Recall-precision curves: mean interpolated precision over topics ({len(runs)} runs)", fontsize=10)
    top.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # off the curves
    if pairs:
        bottom = panels[1]
        baseline = pairs[0][1] if len({b for _, b in pairs}) == 1 else None
        row = {run: i for i, run in enumerate(runs)}
        for k, (a, b) in enumerate(pairs):
            style = _run_style(row[a]) if baseline is not None else {
                "color": "#333333", "marker": _MARKERS[k % len(_MARKERS)],
                "linestyle": _LINESTYLES[k % len(_LINESTYLES)]}
            bottom.plot(recall[order], values[row[a], order] - values[row[b], order], markersize=4, linewidth=1.3,
                        label=f"{a} \u2212 {b}", **style)
        bottom.axhline(0, color="black", linewidth=0.8)
        bottom.margins(y=0.12)  # the zero line stays inside the axes when every difference has one sign
        low, high = bottom.get_ylim()
        spread = max(high, 0.0) - min(low, 0.0)
        bottom.set(ylim=(min(low, -0.06 * spread), max(high, 0.06 * spread)),
                   ylabel="difference in\ninterpolated precision")
        if baseline is not None:
            bottom.set_title(f"Each run minus the baseline {baseline} (styles as above)", fontsize=10)
        else:
            bottom.set_title("Run pairs: first minus second", fontsize=10)
            bottom.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    for axes in panels:
        axes.set(xlim=(-0.02, 1.02), xticks=np.linspace(0, 1, 11))
        axes.grid(True, linewidth=0.3, alpha=0.6)
        axes.tick_params(labelbottom=True)  # each panel reads on its own
        axes.set_xlabel("recall")
    return figure


def plot_topic_differences(scores_a, scores_b, *, run_a: str = "A", run_b: str = "B", measure: str = "",
                           topics: Sequence[str] | None = None, label_topics: int = 0) -> Figure:
    """Per-topic differences ``a - b``, sorted, as bars; the mean difference as a line.

    Where one run wins, by how much, and on how many topics -- the shape a paired test
    summarises in one number. ``label_topics`` names that many topics at each end.
    """
    a, b = _vector(scores_a, "scores_a"), _vector(scores_b, "scores_b")
    if a.shape != b.shape:
        raise ParameterError(f"both runs need scores on the same topics ({a.size} against {b.size})")
    difference = a - b
    order = np.argsort(-difference, kind="stable")
    ordered = difference[order]
    figure, axes = new_figure(7.0, 3.6)
    colours = np.where(ordered > 0, colour(0), np.where(ordered < 0, colour(1), "#999999"))
    axes.bar(np.arange(len(ordered)), ordered, width=1.0, color=colours, linewidth=0)
    axes.axhline(0, color="black", linewidth=0.8)
    axes.axhline(difference.mean(), color="black", linestyle="--", linewidth=1, label=f"mean {difference.mean():+.4f}")
    wins, losses = int((difference > 0).sum()), int((difference < 0).sum())
    axes.set_title(f"{measure} per topic: {run_a} \u2212 {run_b}  ({wins} better, {losses} worse, "
                   f"{len(a) - wins - losses} tied)".strip(), fontsize=10)
    axes.set(xlabel="topics, sorted by difference", ylabel=f"{measure} difference".strip(),
             xlim=(-0.5, len(ordered) - 0.5))
    if topics is not None and label_topics > 0:
        names = [str(t) for t in topics]
        if len(names) != len(a):
            raise ParameterError("topics must name every topic")
        shown = sorted(set(range(min(label_topics, len(a)))) | set(range(max(0, len(a) - label_topics), len(a))))
        axes.set_xticks(shown, [names[order[i]] for i in shown], rotation=90, fontsize=7)
    else:
        axes.set_xticks([])
    axes.legend(loc="upper right", fontsize=8, frameon=False)
    return figure


def plot_asl_curves(curves: pd.DataFrame, *, alpha: float = 0.05, title: str = "ASL curves") -> Figure:
    """Sakai's ASL curves: each measure's run-pair ASLs sorted ascending.

    ``curves`` has the columns ``measure, rank, asl`` (see
    :func:`pateval.stats.asl_curves`). A curve that stays low for longer belongs to a
    measure that tells more pairs apart; the dotted line marks alpha.
    """
    if not {"measure", "rank", "asl"} <= set(curves.columns) or curves.empty:
        raise ParameterError("ASL curves need a non-empty frame with the columns measure, rank and asl")
    figure, axes = new_figure(7.6, 4.0)
    for i, (measure, group) in enumerate(curves.groupby("measure", sort=False)):
        significant = int((group["asl"] < alpha).sum())
        axes.plot(group["rank"], group["asl"], color=colour(i), linewidth=1.6,
                  label=f"{measure} ({significant}/{len(group)} < {alpha:g})")
    axes.axhline(alpha, color="black", linestyle=":", linewidth=1)
    axes.set(xlabel="run pairs, sorted by ASL", ylabel="achieved significance level (ASL)",
             ylim=(0, max(0.2, min(1.0, float(curves["asl"].max()) * 1.05))))
    axes.set_title(title, fontsize=10)
    # Curves rise to the right; the legend goes outside the axes so it never hides one.
    axes.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return figure


def plot_measure_scatter(x, y, *, measure_x: str, measure_y: str, labels: Sequence[str] | None = None) -> Figure:
    """Runs' means under one measure against another, with Kendall's tau in the title.

    As Smucker & Clarke's figure 6 (TBG against MAP, tau = 0.794). When ``labels`` (run
    names) are given for at most 30 runs, each point carries its run's number, placed where
    it overlaps nothing, and a key beside the axes names the runs: full names of similar
    runs would pile up over their points.
    """
    a, b = _vector(x, "x"), _vector(y, "y")
    if a.shape != b.shape:
        raise ParameterError("both measures need a score for every run")
    named = labels is not None and len(labels) == len(a) and len(a) <= 30
    figure, axes = new_figure(7.0 if named else 5.0, 4.2)
    axes.scatter(a, b, s=22, color=colour(0), edgecolor="white", linewidth=0.5, zorder=2)
    tau = kendall_tau(a, b) if len(a) > 1 and np.ptp(a) > 0 and np.ptp(b) > 0 else float("nan")
    axes.set(xlabel=measure_x, ylabel=measure_y)
    axes.set_title(f"{measure_y} against {measure_x}: Kendall's \u03c4 = {tau:.3f} ({len(a)} runs)", fontsize=10)
    axes.grid(True, linewidth=0.3, alpha=0.6)
    axes.margins(0.08)
    if named:
        assert labels is not None
        key = "\n".join(f"{i + 1:>2}  {name}" for i, name in enumerate(labels))
        axes.text(1.03, 1.0, key, transform=axes.transAxes, va="top", ha="left", fontsize=7, family="monospace")
        _place_labels(axes, a, b, [str(i + 1) for i in range(len(a))], fontsize=8)
    return figure


def plot_gain_over_time(curves, *, time_unit: str = "min", title: str = "Cumulative gain over time G(t)") -> Figure:
    """G(t): each run's cumulative gain against the time the user has spent (a step plot).

    ``curves`` is a frame with the columns ``run, time, gain`` (time in seconds; gain
    cumulative, non-decreasing) or a mapping run -> (times, cumulative gains). Smucker &
    Clarke (2012), figure 4, plot G(t) over the first hours for four TREC runs.
    ``time_unit`` is ``"s"``, ``"min"`` or ``"h"`` for the axis.
    """
    scale = {"s": 1.0, "min": 60.0, "h": 3600.0}
    if time_unit not in scale:
        raise ParameterError(f"time_unit must be 's', 'min' or 'h', not {time_unit!r}")
    if isinstance(curves, pd.DataFrame):
        if not {"run", "time", "gain"} <= set(curves.columns):
            raise ParameterError("a G(t) frame needs the columns run, time and gain")
        if (problem := check_gain_curves(curves)) is not None:
            raise ParameterError(f"G(t) frame{'' if problem[0] is None else f', row {problem[0]}'}: {problem[1]}")
        series = {run: (group["time"].to_numpy(float), group["gain"].to_numpy(float)) for run,
                  group in curves.groupby("run", sort=False)}
    elif isinstance(curves, Mapping):
        series = {run: (_vector(t, "times"), _vector(g, "gains")) for run, (t, g) in curves.items()}
    else:
        raise ParameterError("G(t) needs a frame (run, time, gain) or a mapping run -> (times, gains)")
    if not series:
        raise ParameterError("G(t) needs at least one run")
    figure, axes = new_figure(6.4, 4.0)
    for i, (run, (times, gains)) in enumerate(series.items()):
        if times.shape != gains.shape:
            raise ParameterError(f"run {run!r}: times and gains differ in length")
        order = np.argsort(times, kind="stable")
        t = np.concatenate([[0.0], times[order] / scale[time_unit]])
        g = np.concatenate([[0.0], gains[order]])
        axes.step(t, g, where="post", color=colour(i), linewidth=1.5, label=str(run))
    axes.set(xlabel=f"time t ({time_unit})", ylabel="cumulative gain G(t)", xlim=(0, None), ylim=(0, None))
    axes.set_title(title, fontsize=10)
    axes.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # off the curves
    axes.grid(True, linewidth=0.3, alpha=0.6)
    return figure


def plot_ct_gamma(scores: pd.DataFrame, *, measure: str = "CT", title: str | None = None) -> Figure:
    """Cube Test score against its novelty discount gamma, one line per run.

    ``scores`` has the columns ``run, gamma, score``. Luo et al. (2013), figures 5-6: a small
    gamma rewards covering many subtopics, a large one rewards piling relevant documents on
    one, so a coverage run and a single-relevance run cross as gamma grows.
    """
    if not isinstance(scores, pd.DataFrame) or not {"run", "gamma", "score"} <= set(scores.columns) or scores.empty:
        raise ParameterError("a CT-against-gamma frame needs the columns run, gamma and score")
    figure, axes = new_figure(6.0, 4.0)
    markers = "osD^v<>p"
    for i, (run, group) in enumerate(scores.groupby("run", sort=False)):
        group = group.sort_values("gamma")
        axes.plot(group["gamma"], group["score"], marker=markers[i % len(markers)], markersize=4, color=colour(i),
                  linewidth=1.5, label=str(run))
    axes.set(xlabel="\u03b3 (discount for documents on an already covered subtopic)", ylabel=f"{measure} score")
    axes.set_title(title or f"{measure} against \u03b3", fontsize=10)
    axes.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # off the lines
    axes.grid(True, linewidth=0.3, alpha=0.6)
    return figure


def plot_agreement_chart(chart: pd.DataFrame, *, title: str = "Agreement of verdicts on run pairs") -> Figure:
    """Run pairs per combination of verdicts, as horizontal bars (Magdy & Jones, figure 7).

    ``chart`` is :func:`pateval.stats.agreement_chart`'s frame: one column per measure with
    ``A`` / ``B`` / ``tie``, and ``pairs``; combinations where all measures agree are drawn
    in the first colour, the others in the second.
    """
    measures = [c for c in chart.columns if c not in ("pairs", "share", "all_agree")]
    if "pairs" not in chart.columns or not measures or chart.empty:
        raise ParameterError("the agreement chart needs verdict columns and a pairs column")
    labels = ["  ".join(f"{m}:{row[m]}" for m in measures) for _, row in chart.iterrows()]
    agree = chart["all_agree"].to_numpy(dtype=bool) if "all_agree" in chart.columns else np.zeros(len(chart), bool)
    figure, axes = new_figure(9.0, max(2.6, 0.3 * len(chart) + 1.4))
    positions = np.arange(len(chart))[::-1]
    colours = [colour(0) if a else colour(1) for a in agree]
    bars = axes.barh(positions, chart["pairs"], color=colours)
    axes.bar_label(bars, labels=[str(int(p)) for p in chart["pairs"]], padding=3, fontsize=7)
    axes.set_yticks(positions, labels, fontsize=7, family="monospace")
    axes.set(xlabel=f"run pairs (of {int(chart['pairs'].sum())})\nA = first run significantly better, B = second, "
                    "tie = neither", xlim=(0, float(chart["pairs"].max()) * 1.12))
    legend = [Patch(color=colour(0), label="all measures agree"), Patch(color=colour(1), label="measures disagree")]
    axes.legend(handles=legend, loc="lower right", fontsize=8, frameon=False)
    axes.set_title(title, fontsize=10)
    return figure


def plot_measures_by_run(means: pd.DataFrame, *, sort_by: str | None = None, title: str | None = None) -> Figure:
    """Each measure's mean per run, runs sorted by one measure (Magdy & Jones, figure 5).

    ``means`` is runs x measures; ``sort_by`` names the measure that orders the runs from
    low to high (default: the last column, PRES in the paper's MAP/Recall/PRES figure).
    Measures with a value outside [0, 1] (TBG, counts) get a panel of their own below, so
    that they do not stretch the 0-1 measures' axis; the legend sits outside the axes.
    """
    if not isinstance(means, pd.DataFrame) or means.empty:
        raise ParameterError("scores by run need a non-empty runs x measures frame")
    key = means.columns[-1] if sort_by is None else sort_by
    if key not in means.columns:
        raise ParameterError(f"cannot sort by {key!r}: not among the measures {list(means.columns)}")
    ordered = means.sort_values(key, kind="stable")
    values = ordered.to_numpy(float)
    bounded = [bool(((column >= 0) & (column <= 1)).all()) for column in values.T]
    panels = [[i for i, inside in enumerate(bounded) if inside], [i for i, inside in enumerate(bounded) if not inside]]
    panels = [panel for panel in panels if panel]
    width = max(5.0, 0.16 * len(ordered) + 3.0) + 1.4
    figure = blank_figure(width, 4.0 + 2.2 * (len(panels) - 1))
    axes_list = figure.subplots(len(panels), 1, sharex=True, squeeze=False,
                                height_ratios=[1.6, 1.0][: len(panels)])[:, 0]
    x = np.arange(len(ordered))
    for axes, panel in zip(axes_list, panels, strict=True):
        for i in panel:
            axes.plot(x, values[:, i], marker=_MARKERS[i % len(_MARKERS)], markersize=3, linewidth=1.3,
                      color=colour(i), label=str(ordered.columns[i]))
        axes.set_ylabel("mean score" if bounded[panel[0]] else "mean score (not bounded by 1)")
        axes.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        axes.grid(True, axis="y", linewidth=0.3, alpha=0.6)
    axes_list[-1].set_xticks(x, [str(r) for r in ordered.index], rotation=90, fontsize=7 if len(ordered) > 20 else 8)
    axes_list[0].set_title(title or f"Measures per run, runs sorted by {key}", fontsize=10)
    return figure


def plot_rank_changes(means: pd.DataFrame, *, title: str = "Run ranks under each measure") -> Figure:
    """Each run's rank under each measure, joined by lines (Magdy & Jones, figure 6).

    ``means`` is runs x measures. Crossing lines are runs the measures order differently.
    Every run has its own colour, marker and line style; with at most 30 runs each is named
    at the right end, names of tied runs stacked one per rank slot and joined to their line.
    """
    if not isinstance(means, pd.DataFrame) or means.shape[1] < 2 or means.shape[0] < 2:
        raise ParameterError("rank changes need a runs x measures frame with at least two of each")
    ranks = means.rank(ascending=False, method="min")
    figure, axes = new_figure(max(4.0, 1.6 * means.shape[1] + 2), max(3.5, 0.22 * means.shape[0] + 1.5))
    x = np.arange(means.shape[1])
    for i, run in enumerate(ranks.index):
        axes.plot(x, ranks.loc[run].to_numpy(), markersize=4, linewidth=1.1, alpha=0.9, label=str(run), **_run_style(i))
    if means.shape[0] <= 30:
        final = ranks.iloc[:, -1]
        order = sorted(range(len(final)), key=lambda i: (final.iloc[i], i))
        for slot, i in enumerate(order, start=1):
            axes.annotate(str(ranks.index[i]), (x[-1], final.iloc[i]), xytext=(x[-1] + 0.12, slot),
                          textcoords="data", fontsize=7, va="center", color=colour(i), annotation_clip=False,
                          arrowprops={"arrowstyle": "-", "color": "#bbbbbb", "linewidth": 0.5, "shrinkA": 0,
                                      "shrinkB": 0} if slot != final.iloc[i] else None)
    else:
        axes.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    axes.set_xticks(x, [str(c) for c in means.columns])
    axes.set_xlim(-0.2, x[-1] + 0.1)
    axes.invert_yaxis()
    axes.set_ylabel("rank (1 = best)")
    axes.set_title(title, fontsize=10)
    return figure
