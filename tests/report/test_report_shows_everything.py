"""The report draws every per-topic comparison it promises and every calibration list, or says
on the page how many it shows and how to see the rest."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from pateval.report.calibration import plot_rank_over_time
from pateval.report.html import render_report, report_sections
from pateval.stats import compare_runs


def thirteen_runs(seed: int = 2, topics: int = 20) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    runs = [f"run{i:02d}" for i in range(13)]
    base = rng.random((topics, 1))
    return {measure: pd.DataFrame(base + rng.normal(0, 0.1, (topics, 13)) + np.linspace(0, 0.2, 13), columns=runs)
            for measure in ("AP", "P@10")}


def topics_section(page: str) -> str:
    return re.search(r'<section id="topics">(.*?)</section>', page, re.S).group(1)


def test_every_run_is_drawn_against_the_baseline():
    comparison = compare_runs(thirteen_runs(), baseline="run00")
    section = topics_section(render_report(report_sections(comparison=comparison)))
    assert section.count("<figure>") == 12
    assert all(f"run{i:02d} minus run00" in section for i in range(1, 13))
    assert "Every run against the baseline run00, under AP (the first measure): 12 of the 78 run pairs." in section


def test_all_pairs_say_how_many_pairs_are_drawn_and_how_to_draw_the_others():
    comparison = compare_runs(thirteen_runs(), test="t")
    section = topics_section(render_report(report_sections(comparison=comparison)))
    assert section.count("<figure>") == 2
    assert "2 of the 78 run pairs" in section and "pateval compare --baseline RUN --plots DIR" in section


def test_rank_over_time_draws_every_list():
    lists = [f"T{i}" for i in range(46)]
    time = np.arange(0.0, 60.0, 10.0)
    curves = pd.DataFrame([(name, t, t / 10 + 1, t / 9 + 1) for name in lists for t in time],
                          columns=["list", "time", "observed", "predicted"])
    figure = plot_rank_over_time(curves)
    drawn = [axes for axes in figure.axes if axes.get_visible()]
    assert [axes.get_title() for axes in drawn] == [f"list {name}" for name in lists]
    assert all(len(axes.get_lines()) == 2 for axes in drawn)
    assert "46 lists" in figure.get_suptitle()
