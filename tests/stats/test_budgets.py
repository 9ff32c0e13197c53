"""Budget simulation and leave-one-out reusability on real TREC 2003 Robust runs."""

from __future__ import annotations

import numpy as np
import pytest

from pateval import api
from pateval.errors import ParameterError
from pateval.pooling.strategies import DepthOrder, MaxMean, MoveToFront, WeightedOrder
from pateval.stats.budgets import leave_out, simulate_budgets

pytest.importorskip("scipy")

RUNS = ("InexpC2", "MU03rob01", "NLPR03vb10", "SABIR03BASE", "Sel50", "uic0301")


@pytest.fixture(scope="module")
def robust(test_data):
    runs = [api.read_run(test_data / "pooling" / f"{name}.txt") for name in RUNS]
    return runs, api.read_qrels(test_data / "pooling" / "robust03_qrels.txt")


def test_full_budget_gives_the_complete_ranking(robust):
    runs, qrels = robust
    table = simulate_budgets(runs, qrels, {"depth": DepthOrder(None)}, [2000], measure="AP")
    row = table.iloc[0]
    assert row["tau"] == pytest.approx(1.0) and row["tau_ap"] == pytest.approx(1.0) and row["max_rank_change"] == 0
    assert row["relevant_found"] == 133  # every relevant document the six runs retrieved


def test_budgets_table_and_the_adaptive_orders(robust):
    runs, qrels = robust
    orders = {"depth": DepthOrder(None), "rbp": WeightedOrder("rbp", p=0.8), "mtf": MoveToFront(), "mm-ns": MaxMean()}
    table = simulate_budgets(runs, qrels, orders, [10, 50, 200], measure="AP")
    assert list(table["order"]) == [o for o in orders for _ in range(3)]
    assert (table["judgements"] <= table["budget"] * 5).all()
    found = table.pivot(index="budget", columns="order", values="relevant_found")
    assert (found["mtf"] >= found["depth"]).all() and (found["mm-ns"] >= found["depth"]).all()
    assert ((table["found_per_judgement"] - table["relevant_found"] / table["judgements"]).abs() < 1e-12).all()
    assert table["tau"].between(-1, 1).all()
    # more judgements, a ranking closer to the complete one (depth order)
    depth = table[table["order"] == "depth"]
    assert depth["tau"].iloc[-1] >= depth["tau"].iloc[0]


def test_leave_one_run_out(robust):
    runs, qrels = robust
    table = leave_out(runs, qrels, depth=20, measure="AP")
    assert list(table["run"]) == list(RUNS)
    assert (table["unique_relevant"] <= table["unique_documents"]).all() and table["unique_relevant"].sum() > 0
    # AP can rise when a relevant document leaves (R falls too); NumRelRet falls by exactly the unique relevant
    recall = leave_out(runs, qrels, depth=20, measure="NumRelRet")
    assert (recall["score_change"] == -recall["unique_relevant"]).all()
    no_unique = table[table["unique_relevant"] == 0]
    assert np.allclose(no_unique["score_change"], 0.0)
    assert (table["rank_change"] == table["rank_reduced"] - table["rank"]).all()


def test_leave_one_group_out(robust):
    runs, qrels = robust
    groups = {"InexpC2": "g1", "MU03rob01": "g1", "NLPR03vb10": "g2", "SABIR03BASE": "g2", "Sel50": "g3",
              "uic0301": "g3"}
    by_group = leave_out(runs, qrels, depth=20, groups=groups)
    by_run = leave_out(runs, qrels, depth=20)
    assert set(by_group["left_out"]) == {"g1", "g2", "g3"}
    # a group's unique documents include each of its runs' own
    for name in RUNS:
        assert (by_group.set_index("run").loc[name, "unique_documents"]
                >= by_run.set_index("run").loc[name, "unique_documents"])
    with pytest.raises(ParameterError, match="runs without a group: uic0301"):
        leave_out(runs, qrels, groups={k: v for k, v in groups.items() if k != "uic0301"})


def test_bad_budgets_are_refused(robust):
    runs, qrels = robust
    with pytest.raises(ParameterError, match="budgets are positive"):
        simulate_budgets(runs, qrels, {"depth": DepthOrder(None)}, [0])
    with pytest.raises(ParameterError, match="at least 2 runs"):
        simulate_budgets(runs[:1], qrels, {"depth": DepthOrder(None)}, [5])


def test_the_report_section_explains_its_columns(tmp_path, capsys):
    import re

    pytest.importorskip("matplotlib")
    from pateval.cli import main

    qrels, runs = api.example_files()
    out = tmp_path / "report.html"
    assert main(["report", str(qrels), *map(str, runs), "-m", "AP", "--budgets", "5,20", "--reuse-depth", "10",
                 "-o", str(out)]) == 0
    page = out.read_text()
    section = re.search(r'<section id="budgets">(.*?)</section>', page, re.S).group(1)
    glossary = re.search(r'<section id="glossary">(.*?)</section>', page, re.S).group(1)
    explained = set()
    for key in re.findall(r"<td><code>([^<]+)</code></td>", glossary):
        explained.update(key.split(", "))
    shown = set(re.findall(r"<th>([^<]*)</th>", section))
    assert {"tau_ap", "unique_relevant", "rank_change"} <= shown <= explained
    assert "<svg" in section


def test_the_report_with_its_budgets_section_reads_each_file_once(tmp_path, monkeypatch):
    """Issue 32: the budgets and reusability sections and the report read the qrels and each run
    once, through the run door, and pass them on (they were read three and two times)."""
    from collections import Counter
    from pathlib import Path

    import pateval.formats.source as source
    from pateval.cli import main

    pytest.importorskip("matplotlib")
    reads: Counter[str] = Counter()
    content = source._open_content

    def counted(path):
        reads[Path(path).name] += 1
        return content(path)

    monkeypatch.setattr(source, "_open_content", counted)
    qrels, runs = api.example_files()
    assert main(["report", str(qrels), *map(str, runs), "-m", "AP", "--budgets", "5,20", "--reuse-depth", "10",
                 "-o", str(tmp_path / "report.html")]) == 0
    assert reads == {Path(p).name: 1 for p in [qrels, *runs]}
