"""Every column the report and the tables show is explained: a glossary on the page, the same text
for --help, and a legend under each LaTeX comparison table."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pandas as pd

from pateval.report.glossary import GLOSSARY, glossary_text
from pateval.report.html import render_report, report_sections
from pateval.report.tables import render_comparison
from pateval.stats import analyse_measures, compare_runs


def matrices() -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(4)
    base = rng.random((25, 1))
    runs = ["a", "b", "c", "d"]
    return {m: pd.DataFrame(base + rng.normal(0, 0.1, (25, 4)) + [0, 0.05, 0.2, 0.3], columns=runs)
            for m in ("AP", "P@10")}


def test_the_report_explains_every_column_of_its_tables():
    data = matrices()
    comparison = compare_runs(data, baseline="a")
    analysis = analyse_measures(data, B=200, seed=1)
    page = render_report(report_sections(comparison=comparison, analysis=analysis))
    glossary = re.search(r'<section id="glossary">(.*?)</section>', page, re.S).group(1)
    assert '<a href="#glossary">Glossary</a>' in page
    explained = set()
    for key in re.findall(r"<td><code>([^<]+)</code></td>", glossary):
        explained.update(key.split(", "))
    shown = set()
    for table in re.findall(r"<thead><tr>(.*?)</tr></thead>", page.split('<section id="glossary">')[0]):
        shown.update(re.findall(r"<th>([^<]*)</th>", table))
    shown -= {"run", "#", "AP", "P@10", "bootstrap"}  # the comparison's run and measure columns, a test's name
    assert shown <= explained, shown - explained
    for column in ("tau_ap_a_b", "one_tied", "difference_needed_median", "effect_size"):
        assert column in explained


def test_the_help_text_holds_the_same_meanings():
    text = glossary_text("user-model simulate", "agreement")
    assert " ".join(text.split()).count("expected: " + GLOSSARY["user-model simulate"]["expected"]) == 1
    assert max(map(len, text.splitlines())) <= 79
    assert "  tbg: " in text and "  one_tied: " in text and "columns of agreement:" in text
    assert glossary_text().count("columns of ") == len(GLOSSARY)


def test_the_glossary_loads_nothing_heavy():
    probe = "import sys, pateval.report.glossary; print(sorted(m for m in ('numpy', 'pandas', 'matplotlib') if m in " \
            "sys.modules))"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True).stdout.strip() == "[]"


def test_latex_comparison_tables_carry_a_legend():
    data = matrices()
    against = render_comparison(compare_runs(data, baseline="a"), format="latex")
    rows = against.split("\\hline\n")[-1]
    assert "$^{\\uparrow}$ / $^{\\downarrow}$: significantly better / worse than the baseline a." in rows
    assert "\\multicolumn{3}{l}{\\footnotesize paired t-test, Holm correction, alpha 0.05, 25 topics.} \\\\" in rows
    assert against.rstrip().endswith("\\end{tabular}")
    pairs = render_comparison(compare_runs(data), format="latex").split("\\hline\n")[-1]
    assert "\\multicolumn{4}{l}{\\footnotesize Superscripts: the runs (\\#) this run is significantly better than.}" \
        in pairs
