"""Tables, plots and the HTML report for a generated run set; the CLI commands end to end."""

from __future__ import annotations

import csv
import io
import json
import re
from xml.etree import ElementTree

import numpy as np
import pandas as pd
import pytest

from pateval import api
from pateval.cli import main
from pateval.errors import ParameterError
from pateval.report import plots
from pateval.report.html import render_report, report_sections
from pateval.report.tables import latex_escape, render_analysis, render_comparison
from pateval.stats import analyse_measures, compare_runs
from pateval.testing import write_synthetic_files

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def make_matrices(seed: int = 1, n: int = 30) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    runs = ["base", "rm3_x", "dense", "hybrid"]
    topic = rng.random((n, 1))
    effect = np.array([0.0, 0.02, 0.3, 0.15])
    return {
        "AP": pd.DataFrame(topic + effect + rng.normal(0, 0.1, (n, 4)), columns=runs),
        "P@10": pd.DataFrame(topic + effect * 0.5 + rng.normal(0, 0.1, (n, 4)), columns=runs),
    }


@pytest.fixture(scope="module")
def run_set(tmp_path_factory):
    directory = tmp_path_factory.mktemp("runset")
    return write_synthetic_files(directory, n_topics=20, depth=50, n_runs=3, collection_size=500,
                                 relevant_per_topic=8, judged_nonrelevant_per_topic=20, seed=3)


# ---- tables ------------------------------------------------------------------------------


def test_text_table_marks_runs_against_the_baseline():
    comparison = compare_runs(make_matrices(), baseline="base", test="t")
    text = render_comparison(comparison)
    lines = {line.split()[0]: line for line in text.splitlines() if line and line.split()[0] in ("base", "rm3_x",
                                                                                                 "dense", "hybrid")}
    assert "\u25b2" in lines["dense"] and "\u25b2" not in lines["rm3_x"]
    assert "(baseline)" in lines["base"]
    assert "paired t-test, Holm correction, alpha 0.05, 30 topics" in text


def test_all_pairs_markers_list_the_runs_beaten():
    comparison = compare_runs(make_matrices(), test="bootstrap", B=500, seed=2)
    text = render_comparison(comparison)
    dense = next(line for line in text.splitlines() if " dense " in f" {line} ")
    # dense (3) is far above base (1) and rm3_x (2) under AP.
    assert re.search(r">1,2\b", dense)
    assert "B = 500, seed 2" in text


def test_csv_json_latex_hold_the_same_tests():
    comparison = compare_runs(make_matrices(), baseline="base", test="randomisation", B=2000, seed=5)
    rows = list(csv.DictReader(io.StringIO(render_comparison(comparison, format="csv"))))
    assert len(rows) == 6 and {r["measure"] for r in rows} == {"AP", "P@10"}
    assert all(r["B"] == "2000" and r["seed"] == "5" for r in rows)
    document = json.loads(render_comparison(comparison, format="json"))
    assert document["settings"] == {"test": "randomisation", "correction": "holm", "alpha": 0.05, "B": 2000, "seed": 5,
                                     "baseline": "base", "topics": {"AP": 30, "P@10": 30}}
    by_pair = {(t["measure"], t["run_a"]): t["p_adjusted"] for t in document["tests"]}
    for row in rows:
        assert float(row["p_adjusted"]) == pytest.approx(by_pair[(row["measure"], row["run_a"])], rel=1e-5)
    latex = render_comparison(comparison, format="latex")
    assert "rm3\\_x" in latex and "\\begin{tabular}{lrr}" in latex and "$^{\\uparrow}$" in latex


def test_latex_escape():
    assert latex_escape("a_b&c%d$e#f{g}h~i^j\\k") == (r"a\_b\&c\%d\$e\#f\{g\}h\textasciitilde{}i"
                                                      r"\textasciicircum{}j\textbackslash{}k")


def test_discriminative_power_under_several_tests():
    analysis = analyse_measures(make_matrices(), test=["t", "randomisation", "bootstrap"], B=400, seed=1)
    table = analysis.power_by_test.set_index("measure")
    assert list(table.columns) == ["t", "randomisation", "bootstrap"] and list(table.index) == ["AP", "P@10"]
    assert table.loc["AP", "t"] == analysis.power.summary.set_index("measure").loc["AP", "discriminative_power"]
    text = render_analysis(analysis)
    assert "Discriminative power by test" in text
    # The t-test has no B or seed: the cells are empty, not "nan" or "<NA>".
    assert "nan" not in text and "<NA>" not in text
    with pytest.raises(ParameterError):
        analyse_measures(make_matrices(), test=["t", "anova"])


def test_measures_by_run_orders_runs_by_the_named_measure():
    means = pd.DataFrame({"MAP": [0.3, 0.1, 0.2], "PRES": [0.5, 0.6, 0.4]}, index=["r1", "r2", "r3"])
    figure = plots.plot_measures_by_run(means, sort_by="PRES")
    assert [t.get_text() for t in figure.axes[0].get_xticklabels()] == ["r3", "r1", "r2"]
    with pytest.raises(ParameterError):
        plots.plot_measures_by_run(means, sort_by="AP")


def test_analysis_renders_in_every_format():
    analysis = analyse_measures(make_matrices(), B=300, seed=1)
    text = render_analysis(analysis)
    assert "Discriminative power" in text and "kendall_tau" in text and "Agreement chart" in text
    document = json.loads(render_analysis(analysis, format="json"))
    assert len(document["asl_curves"]) == 12 and document["settings"]["B"] == 300
    assert render_analysis(analysis, format="csv").count("# ") == 4
    assert "\\begin{tabular}" in render_analysis(analysis, format="latex")
    with pytest.raises(ParameterError):
        render_analysis(analysis, format="xlsx")


# ---- plots -------------------------------------------------------------------------------


def figures_for_every_plot() -> dict[str, object]:
    matrices = make_matrices()
    analysis = analyse_measures(matrices, B=200)
    gains = pd.DataFrame({"run": ["a"] * 3 + ["b"] * 3, "time": [10, 60, 200, 5, 90, 400], "gain": [0.49, 0.98, 1.47,
                                                                                                    0.49, 0.49, 0.98]})
    ct = pd.DataFrame({"run": ["coverage"] * 3 + ["single"] * 3, "gamma": [0.1, 0.5, 0.9] * 2, "score": [0.3, 0.25,
                                                                                                         0.2, 0.1, 0.2,
                                                                                                         0.3]})
    return {
        "differences": plots.plot_topic_differences(matrices["AP"]["dense"], matrices["AP"]["base"], run_a="dense",
                                                    run_b="base",
                                                    measure="AP", topics=list(map(str, range(30))), label_topics=3),
        "asl": plots.plot_asl_curves(analysis.power.curves),
        "scatter": plots.plot_measure_scatter(analysis.means["AP"], analysis.means["P@10"], measure_x="AP",
                                              measure_y="P@10",
                                              labels=list(analysis.means.index)),
        "gain": plots.plot_gain_over_time(gains),
        "ct": plots.plot_ct_gamma(ct),
        "agreement": plots.plot_agreement_chart(analysis.chart),
        "ranks": plots.plot_rank_changes(analysis.means),
        "by_run": plots.plot_measures_by_run(analysis.means, sort_by="AP"),
        "recall_precision": plots.plot_recall_precision(
            pd.DataFrame([[0.9, 0.5, 0.1], [0.8, 0.6, 0.0]], index=["a", "b"], columns=[0.0, 0.5, 1.0]),
            pairs=[("b", "a")]),
    }


def test_every_plot_saves_as_png_and_svg(tmp_path):
    figures = figures_for_every_plot()
    for name, figure in figures.items():
        png, svg = tmp_path / f"{name}.png", tmp_path / f"{name}.svg"
        plots.save_figure(figure, png)
        plots.save_figure(figure, svg)
        assert png.read_bytes().startswith(PNG_MAGIC)
        assert ElementTree.parse(svg).getroot().tag.endswith("svg")
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == sorted(
        f"{n}.{s}" for n in figures for s in ("png", "svg"))


def test_scatter_title_reports_kendall_tau():
    figure = plots.plot_measure_scatter([0.1, 0.2, 0.3, 0.4], [0.2, 0.1, 0.3, 0.4], measure_x="MAP", measure_y="TBG")
    assert "\u03c4 = 0.667" in figure.axes[0].get_title()


def test_gain_over_time_accepts_a_mapping_and_checks_lengths():
    figure = plots.plot_gain_over_time({"r": ([0.0, 30.0, 90.0], [0.0, 0.49, 0.98])}, time_unit="s")
    line = figure.axes[0].get_lines()[0]
    assert list(line.get_xdata()) == [0.0, 0.0, 30.0, 90.0]
    with pytest.raises(ParameterError):
        plots.plot_gain_over_time({"r": ([0.0, 30.0], [0.0])})
    with pytest.raises(ParameterError):
        plots.plot_gain_over_time(pd.DataFrame({"run": ["r"], "t": [1.0]}))


def test_bad_plot_input(tmp_path):
    with pytest.raises(ParameterError):
        plots.save_figure(plots.plot_ct_gamma(pd.DataFrame({"run": ["a"], "gamma": [0.5], "score": [0.1]})),
                          tmp_path / "x.pdf")
    with pytest.raises(ParameterError):
        plots.plot_topic_differences([0.1, 0.2], [0.1])
    with pytest.raises(ParameterError):
        plots.plot_asl_curves(pd.DataFrame())


# ---- HTML report -------------------------------------------------------------------------


def test_report_is_self_contained():
    matrices = {measure: frame[["base", "dense", "hybrid"]] for measure, frame in make_matrices().items()}
    comparison = compare_runs(matrices, baseline="base")
    analysis = analyse_measures(matrices, B=200)
    ct = pd.DataFrame({"run": ["a", "a"], "gamma": [0.1, 0.9], "score": [0.2, 0.3]})
    gains = pd.DataFrame({"run": ["a", "a"], "time": [10.0, 20.0], "gain": [0.5, 1.0]})
    page = render_report(report_sections(comparison=comparison, analysis=analysis, gain_over_time=gains,
                                         ct_by_gamma=ct),
                         title="t <&>", runs=comparison.runs, measures=comparison.measures)
    assert page.startswith("<!DOCTYPE html>") and "<title>t &lt;&amp;&gt;</title>" in page
    assert not re.search(r'(src|href)="(?!#|data:)', page), "the report must not load anything from elsewhere"
    ids = re.findall(r'<section id="([a-z]+)"', page)
    assert ids == ["comparison", "topics", "power", "correlation", "agreement", "gain", "cube", "glossary"]
    # 2 differences against the baseline, ASL curves, scatter, measures by run, rank changes, agreement, G(t), CT
    assert page.count("<figure>") == page.count("<svg") == 9


def test_report_embeds_png_when_asked():
    gains = pd.DataFrame({"run": ["a", "a"], "time": [10.0, 20.0], "gain": [0.5, 1.0]})
    page = render_report(report_sections(gain_over_time=gains, image_format="png"))
    assert page.count('src="data:image/png;base64,') == 1 and "<svg" not in page


def test_report_needs_something_to_show():
    with pytest.raises(ParameterError):
        report_sections()


# ---- API and CLI on a generated run set --------------------------------------------------


def test_api_compare_and_report(run_set, tmp_path):
    qrels, runs = run_set
    comparison = api.compare(qrels, runs, ["AP", "P@10"], baseline="run1", test="wilcoxon")
    assert comparison.runs == ["run1", "run2", "run3"] and comparison.topics["AP"] == 20
    assert set(comparison.tests["run_b"]) == {"run1"}
    out = api.write_report(qrels, runs, ["AP"], out=tmp_path / "r.html", B=200)
    page = out.read_text(encoding="utf-8")
    # recall-precision curves, 2 differences, ASL curves (one measure: no correlation or agreement)
    assert page.count("<figure>") == 4
    assert 'id="correlation"' not in page


def test_cli_compare_analyse_and_report(run_set, tmp_path, capsys):
    qrels, runs = run_set
    args = ["--qrels", str(qrels), *map(str, runs), "-m", "AP", "-m", "nDCG@10"]
    assert main(["compare", "--qrels", str(qrels), *map(str, runs), "-m", "AP", "--baseline", "run1", "--plots",
                 str(tmp_path / "figs")]) == 0
    out = capsys.readouterr().out
    assert "run1 (baseline)" in out and "paired t-test" in out
    assert len(list((tmp_path / "figs").glob("*.svg"))) == 2  # run2 and run3 against run1
    assert main(["compare", *args, "--test", "bootstrap", "-B", "300", "--seed", "4", "--format", "json", "-o",
                 str(tmp_path / "c.json")]) == 0
    settings = json.loads((tmp_path / "c.json").read_text())["settings"]
    assert (settings["B"], settings["seed"], settings["test"]) == (300, 4, "bootstrap")
    assert main(["analyse-measures", *args, "-B", "200", "--format", "csv", "--plots", str(tmp_path / "am")]) == 0
    assert capsys.readouterr().out.startswith("# Discriminative power")
    assert (tmp_path / "am" / "asl_curves.png").read_bytes().startswith(PNG_MAGIC)
    gains = tmp_path / "g.csv"
    gains.write_text("run,time,gain\nrun1,10,0.49\nrun1,50,0.98\n")
    assert main(["report", *args, "-B", "200", "--gain-over-time", str(gains), "-o",
                 str(tmp_path / "report.html")]) == 0
    assert 'id="gain"' in (tmp_path / "report.html").read_text(encoding="utf-8")


def test_cli_reports_bad_input(run_set, tmp_path, capsys):
    qrels, runs = run_set
    args = ["--qrels", str(qrels), *map(str, runs), "-m", "AP"]
    assert main(["compare", *args, "--baseline", "nope"]) == 2
    assert "baseline 'nope'" in capsys.readouterr().err
    bad = tmp_path / "ct.csv"
    bad.write_text("run,gamma\nx,0.5\n")
    assert main(["report", *args, "--ct-gamma", str(bad), "-o", str(tmp_path / "r.html")]) == 2
    assert "missing columns" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()
