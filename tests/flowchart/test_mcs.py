"""The maximum common subgraph and the distance of Bunke and Shearer on flowcharts."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import pytest
from flowchart_example import EDGES, NODES, TRUTH
from hypothesis import given, settings
from hypothesis import strategies as st

from pateval.errors import ParameterError
from pateval.flowchart import (
    Edge,
    Flowchart,
    MetaNode,
    Node,
    generate_flowchart,
    graph_size,
    maximum_common_subgraph,
    mcs_distance,
    perturb_flowchart,
    to_networkx,
)
from pateval.flowchart.mcs import _Matcher
from pateval.flowchart.text import edit_distance, normalise_text, texts_similar

LEVELS = ("structure", "types", "texts")


def distance(truth: Flowchart, submission: Flowchart, level: str, **options) -> float:
    value, common = mcs_distance(to_networkx(truth), to_networkx(submission), level=level, **options)
    assert common.exact
    return value


def replace_node(flowchart: Flowchart, node_id: str, **changes) -> Flowchart:
    nodes = tuple(Node(n.id, changes.get("type", n.type), changes.get("text", n.text),
                       n.position) if n.id == node_id else n for n in flowchart.nodes)
    return Flowchart(flowchart.title, nodes, flowchart.meta_nodes, flowchart.edges)


@pytest.mark.parametrize("level", LEVELS)
def test_identical_graphs_are_at_distance_zero(level):
    assert distance(TRUTH, TRUTH, level) == 0.0


def test_renumbered_and_reordered_copy_is_at_distance_zero():
    renumbered = perturb_flowchart(TRUTH, amount=0, seed=3)
    assert [node.id for node in renumbered.nodes] == ["1", "2", "3", "4", "5"]
    assert renumbered != TRUTH
    for level in LEVELS:
        assert distance(TRUTH, renumbered, level) == 0.0


def test_disjoint_graphs_are_at_distance_one():
    circles = Flowchart(None, tuple(Node(n.id, "circle", n.text) for n in NODES), (), EDGES)
    # No node shape in common: nothing can be matched beyond the bare structure.
    assert distance(TRUTH, circles, "types") == 1.0
    assert distance(TRUTH, circles, "texts") == 1.0
    assert distance(TRUTH, circles, "structure") == 0.0
    assert distance(TRUTH, Flowchart(), "structure") == 1.0
    assert distance(Flowchart(), TRUTH, "structure") == 1.0
    assert distance(Flowchart(), Flowchart(), "structure") == 0.0


@pytest.mark.parametrize("level", LEVELS)
def test_one_edge_removed_costs_one_unit_of_ten(level):
    submission = Flowchart(None, NODES, (), EDGES[:-1])
    # |G1| = 5 + 5, |G2| = 5 + 4, |mcs| = 9: d = 1 - 9/10.
    assert distance(TRUTH, submission, level) == pytest.approx(0.1)
    assert distance(submission, TRUTH, level) == pytest.approx(0.1)


def test_reversed_arrow_is_lost_but_reversed_undirected_edge_is_not():
    reversed_arrow = Flowchart(None, NODES, (), EDGES[:-1] + (Edge("5", "4", True, "plain"),))
    # Structurally 4 and 5 could swap roles (3 -> {4, 5}, 5 -> 4); their shapes forbid it.
    assert distance(TRUTH, reversed_arrow, "structure") == 0.0
    assert distance(TRUTH, reversed_arrow, "types") == pytest.approx(0.1)
    undirected = Flowchart(None, NODES, (), (Edge("1", "2", False, "wiggly"),))
    flipped = Flowchart(None, NODES, (), (Edge("2", "1", False, "wiggly"),))
    assert distance(undirected, flipped, "texts") == 0.0
    directed = Flowchart(None, NODES, (), (Edge("1", "2", True, "wiggly"),))
    assert distance(undirected, directed, "structure") == pytest.approx(1 / 6)


def test_node_text_differing_counts_only_at_the_texts_level():
    stop = replace_node(TRUTH, "4", text="STOP")
    assert distance(TRUTH, stop, "structure") == 0.0
    assert distance(TRUTH, stop, "types") == 0.0
    # Node 4 and its two edges leave the common subgraph: 1 - 7/10.
    assert distance(TRUTH, stop, "texts") == pytest.approx(0.3)


def test_text_threshold_forgives_small_ocr_errors_and_normalises_case_and_spaces():
    typo = replace_node(TRUTH, "4", text="print  y")  # one substitution in 7 characters
    assert distance(TRUTH, typo, "texts", text_threshold=0.2) == 0.0
    assert distance(TRUTH, typo, "texts", text_threshold=0.0) == pytest.approx(0.3)
    spaced = replace_node(TRUTH, "4", text=" Print\n   x ")
    assert distance(TRUTH, spaced, "texts", text_threshold=0.0) == 0.0


def test_edge_label_and_style_differences():
    relabelled = Flowchart(None, NODES, (), EDGES[:2] + (Edge("3", "4", True, "plain", "NO WAY"),) + EDGES[3:])
    assert distance(TRUTH, relabelled, "types") == 0.0
    assert distance(TRUTH, relabelled, "texts") == pytest.approx(0.1)
    dotted = Flowchart(None, NODES, (), EDGES[:2] + (Edge("3", "4", True, "dotted", "yes"),) + EDGES[3:])
    assert distance(TRUTH, dotted, "structure") == 0.0
    assert distance(TRUTH, dotted, "types") == pytest.approx(0.1)


def test_meta_nodes_and_memberships_are_part_of_the_graph():
    grouped = Flowchart(None, NODES, (MetaNode("M", ("2", "3"), "LOOP"),), EDGES)
    assert graph_size(to_networkx(grouped)) == 5 + 1 + 5 + 2
    # Without the meta-node, 3 of its 13 units are missing.
    assert distance(grouped, TRUTH, "structure") == pytest.approx(3 / 13)
    other_members = Flowchart(None, NODES, (MetaNode("M", ("2", "4"), "LOOP"),), EDGES)
    assert distance(grouped, other_members, "texts") == pytest.approx(1 / 13)


def test_parallel_edges_and_self_loops():
    doubled = Flowchart(None, NODES[:2], (), (Edge("1", "2", True, "plain"), Edge("1", "2", True, "plain"), Edge("2",
                                                                                                                 "2",
                                                                                                                 True,
                                                                                                                 "plain")))
    single = Flowchart(None, NODES[:2], (), (Edge("1", "2", True, "plain"),))
    assert distance(doubled, single, "types") == pytest.approx(2 / 5)
    assert distance(doubled, doubled, "texts") == 0.0


def test_mapping_and_edge_pairs_are_reported():
    submission = perturb_flowchart(TRUTH, amount=0, seed=11)
    common = maximum_common_subgraph(to_networkx(TRUTH), to_networkx(submission), level="texts")
    texts_truth = {node.id: node.text for node in TRUTH.nodes}
    texts_sub = {node.id: node.text for node in submission.nodes}
    assert {texts_truth[a]: texts_sub[b] for a,
            b in common.node_mapping.items()} == {t: t for t in texts_truth.values()}
    assert len(common.edge_pairs) == 5 and common.size == 10 and common.exact


def test_parameters_are_checked():
    g = to_networkx(TRUTH)
    with pytest.raises(ParameterError, match="level must be one of structure, types, texts, not 'shape'"):
        maximum_common_subgraph(g, g, level="shape")
    with pytest.raises(ParameterError, match="text_threshold must be a number from 0 to 1"):
        maximum_common_subgraph(g, g, text_threshold=1.5)
    with pytest.raises(ParameterError, match="time_budget must be a positive number"):
        maximum_common_subgraph(g, g, time_budget=0)


def test_time_budget_falls_back_to_a_flagged_approximation():
    truth = generate_flowchart(seed=99, steps=25)
    submission = perturb_flowchart(truth, amount=9, seed=1099)
    g1, g2 = to_networkx(truth), to_networkx(submission)
    quick = maximum_common_subgraph(g1, g2, level="structure", time_budget=1e-4)
    full = maximum_common_subgraph(g1, g2, level="structure", time_budget=None)
    assert full.exact and not quick.exact
    assert 0 < quick.size <= full.size


def test_text_helpers():
    assert normalise_text("  Read\n\tX  ") == "read x"
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("kitten", "sitting", limit=2) == 3  # beyond the limit: limit + 1
    assert texts_similar("abcde", "abxde", 0.2) and not texts_similar("abcde", "axxde", 0.2)



def test_text_comparisons_are_cached_per_search_and_not_shared(monkeypatch):
    # Issue 21: no cache outlives its job. A second search of the same pair compares the
    # texts again, as often as the first, and within one search a pair is compared once.
    from pateval.flowchart import text

    compared: list[tuple[str, str]] = []
    real = text.edit_distance

    def counted(first, second, **options):
        compared.append((first, second))
        return real(first, second, **options)

    monkeypatch.setattr(text, "edit_distance", counted)
    typo = replace_node(TRUTH, "4", text="print  y")
    g1, g2 = to_networkx(TRUTH), to_networkx(typo)
    counts = []
    for _ in range(2):
        compared.clear()
        common = maximum_common_subgraph(g1, g2, level="texts", time_budget=None)
        assert common.size == graph_size(g1)
        counts.append(len(compared))
        assert len(compared) == len(set(compared))
    assert counts[0] == counts[1] > 0
    assert not hasattr(text.texts_similar, "cache_info")  # no module-level cache

# --- exactness against brute force, and metric properties, on small random flowcharts ---

@st.composite
def small_flowcharts(draw, max_nodes=4):
    count = draw(st.integers(0, max_nodes))
    nodes = tuple(Node(str(i), draw(st.sampled_from(("oval", "rectangle"))), draw(st.sampled_from(("", "a", "ab",
                                                                                                   "b")))) for i
                  in range(count))
    metas = ()
    if count >= 2 and draw(st.booleans()):
        metas = (MetaNode("M", tuple(draw(st.lists(st.sampled_from([n.id for n in nodes]), min_size=1, max_size=2,
                                                   unique=True))), "g"),)
    ends = [n.id for n in nodes] + [m.id for m in metas]
    edges = ()
    if ends:
        edges = tuple(
            Edge(draw(st.sampled_from(ends)), draw(st.sampled_from(ends)), draw(st.booleans()),
                 draw(st.sampled_from(("plain", "dotted"))), draw(st.sampled_from(("", "yes"))))
            for _ in range(draw(st.integers(0, 5)))
        )
    return Flowchart(None, nodes, metas, edges)


def brute_force_mcs(g1: nx.MultiDiGraph, g2: nx.MultiDiGraph, level: str, threshold: float = 0.2) -> int:
    """Try every injective partial node mapping; match edges by a bipartite maximum matching."""

    def node_ok(a, b):
        x, y = g1.nodes[a], g2.nodes[b]
        if x["kind"] != y["kind"]:
            return False
        if level != "structure" and x["type"] != y["type"]:
            return False
        return level != "texts" or texts_similar(normalise_text(x["text"]), normalise_text(y["text"]), threshold)

    def edge_ok(e, f, mapping):
        (u, v, _), (p, q, _) = e, f
        x, y = g1.edges[e], g2.edges[f]
        if x["kind"] != y["kind"]:
            return False
        if x["kind"] == "undirected":
            ends_ok = {mapping.get(u), mapping.get(v)} == {p, q} and (mapping.get(u), mapping.get(v)) in ((p, q), (q,
                                                                                                                   p))
        else:
            ends_ok = mapping.get(u) == p and mapping.get(v) == q
        if not ends_ok:
            return False
        if level != "structure" and x["type"] != y["type"]:
            return False
        return level != "texts" or texts_similar(normalise_text(x["label"]), normalise_text(y["label"]), threshold)

    nodes1, nodes2 = list(g1.nodes), list(g2.nodes)
    edges1, edges2 = list(g1.edges(keys=True)), list(g2.edges(keys=True))
    best = 0
    for size in range(min(len(nodes1), len(nodes2)) + 1):
        for chosen in itertools.combinations(nodes1, size):
            for images in itertools.permutations(nodes2, size):
                if not all(node_ok(a, b) for a, b in zip(chosen, images, strict=False)):
                    continue
                mapping = dict(zip(chosen, images, strict=False))
                bipartite = nx.Graph()
                left = [("t", e) for e in edges1]
                bipartite.add_nodes_from(left)
                bipartite.add_nodes_from(("s", f) for f in edges2)
                bipartite.add_edges_from((("t", e), ("s", f)) for e in edges1 for f in edges2 if edge_ok(e, f, mapping))
                matched = len(nx.bipartite.hopcroft_karp_matching(bipartite, top_nodes=left)) // 2
                best = max(best, size + matched)
    return best


@settings(max_examples=60, deadline=None)
@given(small_flowcharts(), small_flowcharts(), st.sampled_from(LEVELS))
def test_search_and_integer_programme_are_exact(first, second, level):
    g1, g2 = to_networkx(first), to_networkx(second)
    expected = brute_force_mcs(g1, g2, level)
    common = maximum_common_subgraph(g1, g2, level=level, time_budget=None)
    assert common.size == expected == len(common.node_mapping) + len(common.edge_pairs)
    assert len(set(common.node_mapping.values())) == len(common.node_mapping)
    matcher = _Matcher(g1, g2, level, 0.2, math.inf)
    mapping, size, exact = matcher.branch_and_bound(None, math.inf)
    assert exact and size == expected == matcher.score(mapping)
    solved = matcher.integer_programme(10.0)
    assert solved is not None and solved[1] and matcher.score(solved[0]) == expected


@settings(max_examples=40, deadline=None)
@given(small_flowcharts(max_nodes=5), small_flowcharts(max_nodes=5), st.sampled_from(LEVELS))
def test_distance_is_bounded_symmetric_and_zero_on_itself(first, second, level):
    g1, g2 = to_networkx(first), to_networkx(second)
    forward, _ = mcs_distance(g1, g2, level=level, time_budget=None)
    backward, _ = mcs_distance(g2, g1, level=level, time_budget=None)
    assert 0.0 <= forward <= 1.0
    assert forward == pytest.approx(backward)
    assert mcs_distance(g1, g1, level=level, time_budget=None)[0] == 0.0


def test_local_search_keeps_mappings_injective_compatible_and_never_worse():
    truth = generate_flowchart(seed=17, steps=23)
    submission = perturb_flowchart(truth, amount=7, seed=1017)
    for level in LEVELS:
        matcher = _Matcher(to_networkx(truth), to_networkx(submission), level, 0.2, math.inf)
        # A poor start: every node on its last candidate, first come first served.
        start, taken = [-1] * len(matcher.one.ids), set()
        for i, options in enumerate(matcher.candidates):
            for j in reversed(options):
                if j not in taken:
                    start[i] = j
                    taken.add(j)
                    break
        improved = matcher.improve(start, deadline=math.inf)
        images = [j for j in improved if j >= 0]
        assert len(images) == len(set(images))
        assert all(j in matcher.preference[i] for i, j in enumerate(improved) if j >= 0)
        assert matcher.score(improved) >= matcher.score(start)
        if level == "structure":  # all nodes interchangeable: the reversed start is far off
            assert matcher.score(improved) > matcher.score(start)


def test_fractional_relaxation_is_completed_by_the_guided_search():
    # On this pair the linear relaxation is tight (26) but its optimum is fractional; the
    # search led by it must reach 26, which the exhaustive search confirms as the optimum.
    truth = generate_flowchart(seed=5, steps=11)
    submission = perturb_flowchart(truth, amount=5, seed=10_005)
    matcher = _Matcher(to_networkx(truth), to_networkx(submission), "structure", 0.2, math.inf)
    mapping, optimal = matcher.integer_programme(30.0)
    exhaustive = _Matcher(to_networkx(truth), to_networkx(submission), "structure", 0.2, math.inf)
    _, best, finished = exhaustive.branch_and_bound(None, math.inf)
    assert optimal and finished and matcher.score(mapping) == best == 26
