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
one costs 0, a non-matching edge 2 (a deletion plus an insertion) and a non-matching node
prohibitively much (kept nodes must match, or their edges could be kept as well). Then
``GED = |G1| + |G2| - 2 |mcs|`` and the distance of Bunke and Shearer is
``1 - (|G1| + |G2| - GED) / 2 / max(|G1|, |G2|)``. networkx needs simple digraphs, so pairs
with parallel edges are left out of the comparison; each networkx search gets a time limit,
after which its best path so far is used.

Printed: time per pair of each, their ratio, how many pairs each solved exactly, and on how
many pairs the two distances agree -- for the 100 pairs (where networkx mostly stops at its
time limit) and for small pairs of 4-9 nodes on which networkx finishes, so that agreement
checks exactness.
"""

from __future__ import annotations

import argparse
import time

import networkx as nx

from pateval.flowchart import (
    generate_flowchart,
    graph_size,
    maximum_common_subgraph,
    perturb_flowchart,
    score_flowchart,
    to_networkx,
)
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


_FORBIDDEN = 10**6


def same_label(first: dict, second: dict) -> bool:
    return first.get("kind") == second.get("kind") and first.get("type") == second.get("type")


def networkx_distance(g1: nx.DiGraph, g2: nx.DiGraph, timeout: float) -> tuple[float, bool]:
    """Distance from networkx's edit distance with the MCS cost function; exact if not timed out."""
    began = time.perf_counter()
    best = None
    for _, _, cost in nx.optimize_edit_paths(
        g1,
        g2,
        # A node may only be kept as a matching node: substituting a non-matching one would
        # let its edges be kept too, which a common subgraph does not allow.
        node_subst_cost=lambda a, b: 0 if same_label(a, b) else _FORBIDDEN,
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


def compare(graphs, time_budget: float, peer_timeout: float, title: str) -> None:
    """Time both on the pairs without parallel edges and print speed ratio and agreement."""
    ours, ours_exact, ours_seconds = [], 0, 0.0
    theirs, theirs_finished, theirs_seconds = [], [], 0.0
    for g1, g2 in graphs:
        s1, s2 = simple_digraph(g1), simple_digraph(g2)
        if s1 is None or s2 is None:
            continue
        began = time.perf_counter()
        common = maximum_common_subgraph(g1, g2, level="types", time_budget=time_budget)
        ours_seconds += time.perf_counter() - began
        ours.append(distance_from_size(common.size, graph_size(g1), graph_size(g2)))
        ours_exact += common.exact
        began = time.perf_counter()
        value, exact = networkx_distance(s1, s2, peer_timeout)
        theirs_seconds += time.perf_counter() - began
        theirs.append(value)
        theirs_finished.append(exact)
    compared = len(ours)
    agree = sum(abs(a - b) < 1e-9 for a, b in zip(ours, theirs, strict=False))
    larger = sum(b > a + 1e-9 for a, b in zip(ours, theirs, strict=False))
    smaller = sum(b < a - 1e-9 for a, b in zip(ours, theirs, strict=False))
    finished = [(a, b) for a, b, done in zip(ours, theirs, theirs_finished, strict=False) if done]
    sizes = [g1.number_of_nodes() for g1, _ in graphs]
    print(f"{title}: {compared} pairs without parallel edges (truth {min(sizes)}-{max(sizes)} nodes), types level")
    print(f"  pateval MCS:                  {ours_seconds:8.2f} s ({1000 * ours_seconds / compared:8.1f} ms/pair), "
          f"exact {ours_exact}/{compared}")
    print(f"  networkx optimize_edit_paths: {theirs_seconds:8.2f} s ({1000 * theirs_seconds / compared:8.1f} ms/pair), "
          f"finished within {peer_timeout:g} s {sum(theirs_finished)}/{compared}")
    print(f"  ratio networkx / pateval: {theirs_seconds / ours_seconds:.1f}x")
    # pateval's mapping is a common subgraph by construction, so where networkx's distance is
    # larger networkx missed the optimum (time limit, or networkx/networkx#8099 when it
    # finished); a smaller one would mean pateval missed it.
    print(f"  agreement on d: {agree}/{compared}; where networkx finished: "
          f"{sum(abs(a - b) < 1e-9 for a, b in finished)}/{len(finished)}")
    print(f"  networkx larger (not optimal): {larger}; networkx smaller (pateval not optimal): {smaller}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--peer-timeout", type=float, default=1.0, help="seconds per pair for networkx (default 1)")
    parser.add_argument("--time-budget", type=float, default=2.0,
                        help="pateval's budget per pair and level (default 2)")
    parser.add_argument("--small-pairs", type=int, default=30,
                        help="small pairs (4-9 nodes) on which networkx can finish")
    parser.add_argument("--small-timeout", type=float, default=20.0,
                        help="seconds per small pair for networkx (default 20)")
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
          f"({1000 * full_seconds / len(pairs):.1f} ms/pair); pairs with an approximation: {int(approximate)}")

    compare(graphs, args.time_budget, args.peer_timeout, f"{len(pairs)} generated pairs")
    small = []
    for seed in range(args.small_pairs):
        truth = generate_flowchart(seed=50_000 + seed, steps=2 + seed % 4)
        small.append((to_networkx(truth), to_networkx(perturb_flowchart(truth, amount=seed % 4, seed=60_000 + seed))))
    compare(small, args.time_budget, args.small_timeout, f"{args.small_pairs} small pairs")


if __name__ == "__main__":
    main()
