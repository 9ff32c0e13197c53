"""The report's figures at the size the report draws them: labels inside the axes and apart,
legends beside the lines, every run told apart, unbounded measures on an axis of their own."""

from __future__ import annotations

import pandas as pd
from matplotlib.text import Text

from pateval.report import plots

RUNS = ["bm25.claims", "bm25.full,top=100", "bm25.title+claims,top=100", "bm25.title", "lm.claims",
        "lm.full,top=100", "lm.title+claims,top=100", "lm.title", "random", "tfidf.claims", "tfidf.full,top=100",
        "tfidf.title+claims,top=100", "tfidf.title"]


def demo_like_means() -> pd.DataFrame:
    """13 runs in three clusters, as the demo's baselines: near-equal runs sit on top of each other."""
    ap = [0.202, 0.235, 0.207, 0.120, 0.247, 0.248, 0.251, 0.113, 0.007, 0.194, 0.230, 0.196, 0.109]
    r100 = [0.578, 0.540, 0.583, 0.375, 0.620, 0.645, 0.625, 0.407, 0.076, 0.606, 0.592, 0.604, 0.426]
    tbg = [0.90, 0.93, 0.92, 0.69, 1.05, 1.00, 1.06, 0.66, 0.05, 0.89, 0.96, 0.90, 0.62]
    return pd.DataFrame({"AP": ap, "R@100": r100, "TBG": tbg}, index=RUNS)


def boxes(figure, artists):
    """Window extents; of a label, its text's alone (an annotation's extent also holds its leader line)."""
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    return [(Text.get_window_extent(artist, renderer) if isinstance(artist, Text)
             else artist.get_window_extent(renderer)) for artist in artists]


def test_scatter_labels_stay_inside_the_axes_and_apart():
    means = demo_like_means()
    figure = plots.plot_measure_scatter(means["AP"], means["R@100"], measure_x="AP", measure_y="R@100",
                                        labels=list(means.index))
    axes = figure.axes[0]
    labels = [t for t in axes.texts if t.get_text().strip().isdigit()]
    assert sorted(int(t.get_text()) for t in labels) == list(range(1, 14))
    frame = boxes(figure, [axes])[0]
    label_boxes = boxes(figure, labels)
    for box in label_boxes:
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
    for i, a in enumerate(label_boxes):
        for b in label_boxes[i + 1:]:
            assert not a.overlaps(b), "two run labels overlap"
    key = next(t for t in axes.texts if "bm25.claims" in t.get_text())
    assert all(f"{i + 1:>2}  {run}" in key.get_text() for i, run in enumerate(RUNS))
    assert boxes(figure, [key])[0].x1 <= figure.bbox.x1, "the key is cut off"


def test_agreement_chart_shows_its_whole_axis_label():
    measures = ["AP", "nDCG@10", "R@100", "PRES@100", "R@1000", "TBG"]  # the demo's: long verdict labels
    chart = pd.DataFrame({m: ["A", "B", "tie"] for m in measures} | {"pairs": [25, 13, 4],
                                                                     "all_agree": [True, True, True]})
    figure = plots.plot_agreement_chart(chart)
    label = boxes(figure, [figure.axes[0].xaxis.label])[0]
    assert figure.bbox.x0 <= label.x0 and label.x1 <= figure.bbox.x1 and label.y0 >= figure.bbox.y0


def test_measures_by_run_keeps_the_legend_off_the_lines_and_tbg_on_its_own_axis():
    figure = plots.plot_measures_by_run(demo_like_means(), sort_by="TBG")
    bounded, unbounded = figure.axes
    assert [line.get_label() for line in bounded.get_lines()] == ["AP", "R@100"]
    assert [line.get_label() for line in unbounded.get_lines()] == ["TBG"]
    assert bounded.get_ylim()[1] <= 1.1
    for axes in figure.axes:
        legend, frame = boxes(figure, [axes.get_legend(), axes])
        assert legend.x0 >= frame.x1, "the legend lies over the axes"
        assert legend.x1 <= figure.bbox.x1


def test_measures_within_0_and_1_share_one_panel():
    means = demo_like_means().drop(columns="TBG")
    assert len(plots.plot_measures_by_run(means).axes) == 1


def test_rank_changes_draw_every_run_in_a_style_of_its_own():
    figure = plots.plot_rank_changes(demo_like_means())
    lines = figure.axes[0].get_lines()
    styles = {(line.get_color(), line.get_marker(), line.get_linestyle()) for line in lines}
    assert len(lines) == 13 and len(styles) == 13


def test_rank_change_names_of_tied_runs_do_not_overlap():
    means = pd.DataFrame({"AP": [0.3, 0.3, 0.3, 0.1], "TBG": [0.5, 0.5, 0.5, 0.2]}, index=["a", "b", "c", "d"])
    figure = plots.plot_rank_changes(means)
    names = [t for t in figure.axes[0].texts if t.get_text() in {"a", "b", "c", "d"}]
    assert len(names) == 4
    found = boxes(figure, names)
    for i, a in enumerate(found):
        for b in found[i + 1:]:
            assert not a.overlaps(b)
        assert a.x1 <= figure.bbox.x1


def test_label_placement_is_deterministic():
    means = demo_like_means()
    svg = [plots.figure_svg(plots.plot_measure_scatter(means["AP"], means["TBG"], measure_x="AP", measure_y="TBG",
                                                       labels=list(means.index))) for _ in range(2)]
    assert svg[0] == svg[1]
