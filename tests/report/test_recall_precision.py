"""The report opens with the recall-precision curves: the values drawn are pateval's IPrec at the 11
recall levels and trec_eval's iprec_at_recall lines (tests/data/trec_eval_q, trec_eval 10's output
for the example runs), each run pair's difference below them, the figure readable."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from pateval import api
from pateval.errors import ParameterError
from pateval.evaluation import aggregate
from pateval.measures import parse_measure
from pateval.measures.interpolated import ELEVEN_POINTS
from pateval.report import plots
from pateval.report.html import render_report, report_sections
from pateval.stats import compare_runs

LEVELS = [str(parse_measure(f"IPrec(recall={x})")) for x in ELEVEN_POINTS]  # IPrec, IPrec(recall=0.1), ...


def trec_eval_curves(test_data) -> pd.DataFrame:
    """The ``all`` iprec_at_recall lines of trec_eval's output: runs x recall levels."""
    rows = {}
    for path in sorted((test_data / "trec_eval_q").glob("run*.eval")):
        lines = [line.split() for line in path.read_text().splitlines()]
        rows[path.stem] = [float(value) for name, topic, value in lines
                           if name.startswith("iprec_at_recall_") and topic == "all"]
    return pd.DataFrame.from_dict(rows, orient="index", columns=list(ELEVEN_POINTS))


@pytest.fixture
def drawn(monkeypatch):
    """The recall-precision figures the report draws, as the report draws them."""
    figures = []

    def spy(*args, **keywords):
        figures.append(original(*args, **keywords))
        return figures[-1]

    original = plots.plot_recall_precision
    monkeypatch.setattr(plots, "plot_recall_precision", spy)
    return figures


def section(page: str) -> str:
    return re.search(r'<section id="recall-precision">(.*?)</section>', page, re.S).group(1)


def test_the_report_draws_pateval_iprec_and_trec_eval_iprec_at_recall(drawn, test_data, tmp_path):
    qrels, runs = api.example_files()
    out = api.write_report(qrels, runs, ["AP"], out=tmp_path / "r.html", baseline="run1", B=200)
    page = out.read_text(encoding="utf-8")
    assert re.findall(r'<section id="([a-z-]+)"', page)[:2] == ["recall-precision", "comparison"]
    assert section(page).count("<figure>") == 1 and "iprec_at_recall" in section(page)
    assert '<p class="note">Every run against the baseline run1: 2 of the 3 run pairs.</p>' in section(page)
    assert "<th>IPrec" not in page  # the curve's levels are no measures of the comparison
    (figure,) = drawn
    curves, differences = figure.axes
    drawn_curves = {line.get_label(): line.get_ydata() for line in curves.get_lines()}
    assert list(drawn_curves) == ["run1", "run2", "run3"]
    frame = api.evaluate(qrels, runs, LEVELS)
    means = aggregate(frame, LEVELS).pivot(index="run", columns="measure", values="value")[LEVELS]
    reference = trec_eval_curves(test_data)
    for run, values in drawn_curves.items():
        assert list(curves.get_lines()[0].get_xdata()) == list(ELEVEN_POINTS)
        assert list(values) == list(means.loc[run])  # exactly pateval's IPrec
        assert np.abs(np.round(values, 4) - reference.loc[run].to_numpy()).max() == 0  # trec_eval's, as it prints
    assert [line.get_label() for line in differences.get_lines()][:2] == ["run2 \u2212 run1", "run3 \u2212 run1"]
    for line in differences.get_lines()[:2]:
        run = line.get_label().split()[0]
        assert np.allclose(line.get_ydata(), means.loc[run] - means.loc["run1"], rtol=0, atol=1e-15)


def test_from_trec_eval_score_files_the_curves_are_its_own(drawn, test_data, tmp_path):
    files = sorted((test_data / "trec_eval_q").glob("run*.eval"))
    page = api.write_report(None, files, ["AP"], out=tmp_path / "r.html", B=200).read_text(encoding="utf-8")
    assert "<figure>" in section(page) and "<th>IPrec" not in page
    (figure,) = drawn
    reference = trec_eval_curves(test_data)
    for line in figure.axes[0].get_lines():  # means of 4-decimal per-topic values, against the 4-decimal means
        assert np.abs(line.get_ydata() - reference.loc[line.get_label()].to_numpy()).max() <= 1e-4


def test_score_files_without_the_levels_say_so(test_data, tmp_path):
    files = []
    for path in sorted((test_data / "trec_eval_q").glob("run*.eval")):
        lines = [line for line in path.read_text().splitlines(keepends=True) if not line.startswith("iprec")]
        files.append(tmp_path / path.name)
        files[-1].write_text("".join(lines))
    page = api.write_report(None, files, ["AP"], out=tmp_path / "r.html", B=200).read_text(encoding="utf-8")
    assert 'id="recall-precision"' not in page
    assert "no recall-precision curves: the score files do not hold every run&#x27;s iprec_at_recall" in page


def thirteen_runs() -> pd.DataFrame:
    runs = [f"run{i:02d}" for i in range(13)]
    rng = np.random.default_rng(3)
    falling = np.sort(rng.random((13, 11)), axis=1)[:, ::-1]
    return pd.DataFrame(falling, index=runs, columns=list(ELEVEN_POINTS))


def test_every_run_against_the_baseline_in_its_own_style():
    curves = thirteen_runs()
    figure = plots.plot_recall_precision(curves, pairs=[(run, "run00") for run in curves.index[1:]])
    top, bottom = figure.axes
    lines = top.get_lines()
    assert len({(line.get_color(), line.get_marker(), line.get_linestyle()) for line in lines}) == 13
    assert len({(line.get_color(), line.get_marker()) for line in lines}) == 13
    assert top.get_xlabel() == bottom.get_xlabel() == "recall" and top.get_ylabel() == "interpolated precision"
    assert top.get_ylim()[0] <= 0 and top.get_ylim()[1] >= 1 and top.get_xlim()[0] <= 0 <= 1 <= top.get_xlim()[1]
    differences = [line for line in bottom.get_lines() if len(line.get_xdata()) == 11]
    assert len(differences) == 12
    for line, run in zip(differences, curves.index[1:], strict=True):  # styled as the run's curve
        twin = lines[list(curves.index).index(run)]
        assert (line.get_color(), line.get_marker()) == (twin.get_color(), twin.get_marker())
    zero = [line for line in bottom.get_lines() if list(line.get_ydata()) == [0, 0]]
    assert len(zero) == 1 and bottom.get_ylim()[0] < 0 < bottom.get_ylim()[1]
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    legend = top.get_legend()
    assert legend is not None and len(legend.get_texts()) == 13
    assert legend.get_window_extent(renderer).x0 >= top.get_window_extent(renderer).x1  # beside the curves


def test_all_pairs_draw_a_subset_and_say_how_many():
    curves = thirteen_runs()
    matrix = pd.DataFrame(np.tile(curves.mean(axis=1).to_numpy(), (5, 1)) + np.linspace(0, 0.01, 5)[:, None],
                          columns=curves.index)
    comparison = compare_runs({"AP": matrix})
    page = render_report(report_sections(comparison=comparison, recall_precision=curves))
    text = section(page)
    assert "2 of the 78 run pairs" in text and "pateval report --baseline RUN" in text
    best = curves.mean(axis=1).idxmax()
    assert "The best run by AP against the next best and against the worst" in text
    assert f"<td>{best}</td>" in text  # the values table
    figure = plots.plot_recall_precision(curves, pairs=[(best, "run00"), (best, "run01")])
    bottom = figure.axes[1]
    assert [t.get_text() for t in bottom.get_legend().get_texts()] == [f"{best} \u2212 run00", f"{best} \u2212 run01"]


def test_the_glossary_explains_the_values_table():
    page = render_report(report_sections(recall_precision=thirteen_runs()))
    assert "<th>0.0</th>" in page and "<th>1.0</th>" in page
    assert "<code>0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0</code>" in page


def test_bad_curves_are_refused():
    curves = thirteen_runs()
    with pytest.raises(ParameterError, match=r"\[0, 1\]"):
        plots.plot_recall_precision(curves * 2)
    with pytest.raises(ParameterError, match="no curve for run 'nope'"):
        plots.plot_recall_precision(curves, pairs=[("run01", "nope")])
    with pytest.raises(ParameterError):
        plots.plot_recall_precision(pd.DataFrame())
