"""Benchmark: MCS distances of 100 generated flowchart pairs, pateval against networkx.

Run with ``.venv/bin/python benchmarks/bench_flowchart.py [--pairs 100] [--peer-timeout 1.0]``.

The pairs are generated flowcharts (``pateval.flowchart.generate_flowchart``; 8 to about 40
nodes) and copies damaged by 0-9 random recognition errors (``perturb_flowchart``).

pateval computes the maximum common subgraph exactly (branch and bound, then an LP/ILP
certificate with HiGHS) at the ``types`` level and, separately, the whole per-pair scoring
(three levels plus node/edge/text precision and recall).

The peer is networkx's generic graph edit distance (``optimize_edit_paths``) on the same
graphs with the cost function under which graph edit distance and maximum common subgraph
agree (Bunke 1997): deleting or inserting a node or an edge costs 1, substituting a matching
one costs 0 and a non-matching one 2 (a deletion plus an insertion). Then
``GED = |G1| + |G2| - 2 |mcs|`` and the distance of Bunke and Shearer is
``1 - (|G1| + |G2| - GED) / 2 / max(|G1|, |G2|)``. networkx needs simple digraphs, so pairs
with parallel edges are left out of the comparison; each networkx search gets a time limit,
after which its best path so far is used.

Printed: time per pair of each, their ratio, how many pairs each solved exactly, and on how
many pairs the two distances agree.
"""

from __future__ import annotations

import argparse
import time

import networkx as nx

from pateval.flowchart import generate_flowchart, graph_size, maximum_common_subgraph, perturb_flowchart, score_flowchart, to_networkx
from pateval.flowchart.mcs import distance_from_size


def make_pairs(count: int):
    pairs = []
    for seed in range(count):
        truth = generate_flowchart(seed=seed, steps=6 + seed % 20)
        pairs.append((truth, perturb_flowchart(truth, amount=seed % 10, seed=10_000 + seed)))
    return pairs


def simple_digraph(graph: nx.MultiDiGraph) -> nx.DiGraph | None:
    """The same graph as a networkx DiGraph, or None when it has parallel edges."""
    simple = nx.DiGraph()
    simple.add_nodes_from(graph.nodes(data=True))
    for u, v, data in graph.edges(data=True):
        if simple.has_edge(u, v):
            return None
        simple.add_edge(u, v, **data)
    return simple


def same_label(first: dict, second: dict) -> bool:
    return first.get("kind") == second.get("kind") and first.get("type") == second.get("type")


def networkx_distance(g1: nx.DiGraph, g2: nx.DiGraph, timeout: float) -> tuple[float, bool]:
    """Distance from networkx's edit distance with the MCS cost function; exact if not timed out."""
    began = time.perf_counter()
    best = None
    for _, _, cost in nx.optimize_edit_paths(
        g1,
        g2,
        node_subst_cost=lambda a, b: 0 if same_label(a, b) else 2,
        node_del_cost=lambda a: 1,
        node_ins_cost=lambda a: 1,
        edge_subst_cost=lambda a, b: 0 if same_label(a, b) else 2,
        edge_del_cost=lambda a: 1,
        edge_ins_cost=lambda a: 1,
        timeout=timeout,
    ):
        best = cost
    exact = time.perf_counter() - began < timeout
    size1, size2 = graph_size(g1), graph_size(g2)
    common = (size1 + size2 - best) / 2
    return distance_from_size(round(common), size1, size2), exact


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--peer-timeout", type=float, default=1.0, help="seconds per pair for networkx (default 1)")
    parser.add_argument("--time-budget", type=float, default=2.0, help="pateval's budget per pair and level (default 2)")
    args = parser.parse_args()
    pairs = make_pairs(args.pairs)
    graphs = [(to_networkx(truth), to_networkx(submission)) for truth, submission in pairs]
    sizes = [g1.number_of_nodes() for g1, _ in graphs]
    print(f"{len(pairs)} pairs, truth graphs of {min(sizes)}-{max(sizes)} nodes (mean {sum(sizes) / len(sizes):.1f})")

    began = time.perf_counter()
    all_scores = [score_flowchart(truth, submission, time_budget=args.time_budget) for truth, submission in pairs]
    full_seconds = time.perf_counter() - began
    approximate = sum(scores["mcs_approximate"] for scores in all_scores)
    print(f"pateval full scoring (3 levels + P/R/F1): {full_seconds:.2f} s for {len(pairs)} pairs "
          f"({1000 * full_seconds / len(pairs):.1f} ms/pair); approximations: {int(approximate)}")

    ours, ours_exact, ours_seconds = [], 0, 0.0
    theirs, theirs_finished, theirs_seconds = [], [], 0.0
    compared = 0
    for g1, g2 in graphs:
        s1, s2 = simple_digraph(g1), simple_digraph(g2)
        if s1 is None or s2 is None:
            continue
        compared += 1
        began = time.perf_counter()
        common = maximum_common_subgraph(g1, g2, level="types", time_budget=args.time_budget)
        ours_seconds += time.perf_counter() - began
        ours.append(distance_from_size(common.size, graph_size(g1), graph_size(g2)))
        ours_exact += common.exact
        began = time.perf_counter()
        value, exact = networkx_distance(s1, s2, args.peer_timeout)
        theirs_seconds += time.perf_counter() - began
        theirs.append(value)
        theirs_finished.append(exact)
    agree = sum(abs(a - b) < 1e-9 for a, b in zip(ours, theirs))
    worse = sum(b > a + 1e-9 for a, b in zip(ours, theirs))
    better = sum(b < a - 1e-9 for a, b in zip(ours, theirs))
    print(f"types level, {compared} pairs without parallel edges:")
    print(f"  pateval MCS:                {ours_seconds:8.2f} s ({1000 * ours_seconds / compared:7.1f} ms/pair), exact {ours_exact}/{compared}")
    print(f"  networkx optimize_edit_paths: {theirs_seconds:6.2f} s ({1000 * theirs_seconds / compared:7.1f} ms/pair), "
          f"finished within {args.peer_timeout:g} s {sum(theirs_finished)}/{compared}")
    print(f"  ratio networkx / pateval: {theirs_seconds / ours_seconds:.1f}x")
    print(f"  agreement on d: {agree}/{compared}; networkx larger (its search stopped early) {worse}, smaller {better}")
    finished = [(a, b) for a, b, done in zip(ours, theirs, theirs_finished) if done]
    print(f"  agreement where networkx finished: {sum(abs(a - b) < 1e-9 for a, b in finished)}/{len(finished)}")


if __name__ == "__main__":
    main()
