"""Generated flowcharts with controlled perturbations: scores follow the amount of damage."""

from __future__ import annotations

from pathlib import Path

import pytest

from pateval import api
from pateval.errors import ParameterError
from pateval.flowchart import (
    PERTURBATIONS,
    generate_flowchart,
    graph_size,
    mcs_distance,
    perturb_flowchart,
    read_flowchart,
    to_networkx,
    write_flowchart,
)

BASES = 10
AMOUNTS = range(10)


def test_generator_is_seeded_and_valid(tmp_path: Path):
    first = generate_flowchart(seed=5, steps=20)
    assert first == generate_flowchart(seed=5, steps=20)
    assert first != generate_flowchart(seed=6, steps=20)
    assert 22 <= len(first.nodes) <= 22 + 20
    write_flowchart(first, tmp_path / "f.txt")
    assert read_flowchart(tmp_path / "f.txt") == first
    damaged = perturb_flowchart(first, amount=7, seed=1)
    write_flowchart(damaged, tmp_path / "g.txt")
    assert read_flowchart(tmp_path / "g.txt") == damaged


def test_generator_parameters_are_checked():
    with pytest.raises(ParameterError, match="steps must be a positive integer, not 0"):
        generate_flowchart(seed=1, steps=0)
    with pytest.raises(ParameterError, match="seed must be an integer, not '1'"):
        generate_flowchart(seed="1")
    base = generate_flowchart(seed=1)
    with pytest.raises(ParameterError, match="amount must be a non-negative integer, not -1"):
        perturb_flowchart(base, amount=-1, seed=1)
    with pytest.raises(ParameterError, match="unknown: \\['explode'\\]"):
        perturb_flowchart(base, amount=1, seed=1, kinds=("explode",))


def test_deletions_give_the_exact_distance_and_grow_strictly():
    # A submission that only lost parts is a subgraph of the truth: |mcs| = |G2| exactly, so
    # d = (|G1| - |G2|) / |G1|, at every level, and it grows with every deletion.
    for base in range(4):
        truth = generate_flowchart(seed=base, steps=8 + 3 * base)
        g1 = to_networkx(truth)
        previous = -1.0
        for amount in range(6):
            damaged = perturb_flowchart(truth, amount=amount, seed=base, kinds=("delete_edge", "delete_node"))
            g2 = to_networkx(damaged)
            expected = (graph_size(g1) - graph_size(g2)) / graph_size(g1)
            for level in ("structure", "types", "texts"):
                value, common = mcs_distance(g1, g2, level=level, time_budget=None)
                assert common.exact and value == pytest.approx(expected)
            assert expected > previous
            previous = expected


def test_a_hundred_generated_pairs_score_monotonically_in_the_perturbation(tmp_path: Path):
    """10 flowcharts of 8-40 nodes, each with nested perturbations of 0..9 operations of every
    kind (PERTURBATIONS), written as files and evaluated as one set."""
    truth_dir, run_dir = tmp_path / "truth", tmp_path / "run"
    for base in range(BASES):
        truth = generate_flowchart(seed=base, steps=6 + 2 * base)
        for amount in AMOUNTS:
            write_flowchart(truth, truth_dir / f"b{base}-a{amount}.txt")
            write_flowchart(perturb_flowchart(truth, amount=amount, seed=1000 + base, kinds=PERTURBATIONS),
                            run_dir / f"b{base}-a{amount}.txt")
    scores, bad = api.evaluate_flowcharts(truth_dir, run_dir)
    assert bad == []
    per_image = scores[scores["image"] != "all"].copy()
    assert per_image["image"].nunique() == 100
    per_image["amount"] = per_image["image"].str.split("-a").str[1].astype(int)
    means = per_image.groupby(["measure", "amount"])["value"].mean().unstack("amount")
    assert (means.loc["mcs_approximate"] == 0).all()
    for level in ("structure", "types", "texts"):
        row = means.loc[f"mcs_distance_{level}"]
        assert row[0] == 0.0
        assert row.is_monotonic_increasing and row.is_unique, (level, row.round(3).tolist())
    for item in ("node", "edge", "text"):
        row = means.loc[f"{item}_f1"]
        assert row[0] == 1.0
        assert row.is_monotonic_decreasing and row.is_unique, (item, row.round(3).tolist())
    # The finer the level, the more a perturbation costs.
    assert (means.loc["mcs_distance_structure"] <= means.loc["mcs_distance_types"]).all()
    assert (means.loc["mcs_distance_types"] <= means.loc["mcs_distance_texts"]).all()
