"""The maximum common subgraph of two flowcharts and the distance of Bunke and Shearer.

Definitions
-----------
Both flowcharts are labelled directed multigraphs (:func:`pateval.flowchart.graph.to_networkx`).
A *common subgraph* is given by an injective partial mapping ``f`` from the nodes of the
truth ``G1`` to the nodes of the submission ``G2`` that maps nodes only onto *compatible*
nodes, together with an injective matching of edges in which an edge ``(u, w)`` of ``G1`` is
matched to a compatible edge ``(f(u), f(w))`` of ``G2`` (same direction for directed and
membership edges; either orientation for undirected ones). Its size counts both::

    |mcs(G1, G2)| = max over (f, edge matching) of  |dom f| + |matched edges|

This is the maximum common *edge-preserving, not necessarily induced* subgraph: an edge
present in only one graph costs exactly one unit and does not force its end nodes out of
the common part. The distance of Bunke and Shearer (1998, "A graph distance metric based on
the maximal common subgraph", Pattern Recognition Letters 19(3-4):255-259), as CLEF-IP
2012/2013 planned to use it for flowchart recognition, is then::

    d(G1, G2) = 1 - |mcs(G1, G2)| / max(|G1|, |G2|),   |G| = |V| + |E|

with ``d = 0`` for two empty graphs. It is 0 exactly when the labelled graphs are isomorphic
and 1 exactly when no node pair is compatible. Bunke and Shearer proved the metric axioms for
node counts and induced subgraphs; counting nodes and edges keeps ``d`` symmetric, within
[0, 1] and zero only on isomorphic graphs (all tested), and nothing in pateval relies on the
triangle inequality. Nodes plus edges is the choice that agrees with graph edit distance:
with unit costs for inserting or deleting a node or an edge, and substitution allowed only
between matching labels, ``GED = |G1| + |G2| - 2 |mcs|`` (Bunke 1997).

Levels of matching
------------------
``structure``
    nodes compatible when of the same kind (NO node or meta-node); edges when of the same
    kind (directed, undirected, membership).
``types``
    in addition node shapes and edge line styles equal.
``texts``
    in addition node texts and edge labels similar: equal after normalising case and
    whitespace, or within the relative edit-distance ``text_threshold``
    (:func:`pateval.flowchart.text.texts_similar`).

Algorithm
---------
Exact, in two stages sharing the time budget.

1. A branch and bound over node mappings (a tenth of the budget, at most 0.1 s), which
   settles most pairs of real size in milliseconds: truth nodes are taken in a fixed order
   (most connected first, then always the node with most links to those already taken); each
   is mapped to every compatible unused submission node, best immediate gain first, or left
   unmapped. A branch is cut when the score so far plus an upper bound of what is left cannot
   beat the best solution found. The bound adds (a) per node class, the smaller of the numbers
   of undecided truth and unused submission nodes; (b) for every mapped truth node ``w``, per
   edge class, the smaller of its edges to undecided nodes and the edges of ``f(w)`` to unused
   nodes; (c) per edge class, the smaller of the edges among undecided truth nodes and among
   unused submission nodes. It starts from the better of a greedy mapping and a given start
   mapping (e.g. the one of a finer level, which is feasible at a coarser one), improved by
   a local search (moving one node, or swapping two, while the score grows) when the bound
   does not already prove it optimal.
2. If that search did not finish, the problem is solved as an integer linear programme by
   HiGHS (``scipy.optimize.milp``) with the rest of the budget: binary ``x[i,j]`` for
   compatible node pairs and ``y[e,g]`` for compatible edge pairs in a consistent
   orientation; each node mapped at most once on each side; and for every edge ``e``, end
   ``a`` of ``e`` and node ``c``, the ``y`` of ``e`` that send ``a`` to ``c`` sum to at most
   ``x[a,c]`` (the same for every submission edge), which keeps edge matching injective and
   consistent with the node mapping; maximise ``sum x + sum y``. Its linear relaxation is
   solved first: when the mapping read from it (pairs with ``x > 0.5``) reaches the floor of
   the relaxation's optimum, that mapping is optimal and the integer programme is skipped --
   on generated and patent-sized flowcharts this is nearly always the case.

The problem is NP-hard. When the budget runs out before either stage proves optimality, the
best mapping found is returned, flagged ``exact=False``: an approximation (a lower bound of
``|mcs|``, hence an upper bound of ``d``).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

import numpy as np

from .._optional import needs_extra
from ..errors import ParameterError
from .graph import graph_size
from .text import check_threshold, normalise_text, texts_similar

with needs_extra("flowchart"):
    import networkx as nx
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix

__all__ = ["LEVELS", "CommonSubgraph", "maximum_common_subgraph", "mcs_distance"]

LEVELS = ("structure", "types", "texts")

# Markers of an edge as seen from one end: out, in, undirected, member-out, member-in.
_REVERSE = {">": "<", "<": ">", "-": "-", "m>": "m<", "m<": "m>"}


@dataclass(frozen=True)
class CommonSubgraph:
    """A (maximum) common subgraph found by :func:`maximum_common_subgraph`.

    Attributes
    ----------
    size : int
        ``|dom f| + |matched edges|``.
    node_mapping : dict
        Truth node -> submission node, for the nodes in the common subgraph.
    edge_pairs : tuple of ((u, v, key), (u', v', key'))
        Matched edges, as networkx multigraph edge keys of the truth and the submission.
    exact : bool
        False when the time budget ran out and ``size`` is only the best found.
    level : str
        The level of matching.
    search_nodes : int
        Branch-and-bound nodes visited.
    seconds : float
        Time spent.
    """

    size: int
    node_mapping: dict
    edge_pairs: tuple
    exact: bool
    level: str
    search_nodes: int
    seconds: float


class _Timeout(Exception):
    """The search ran out of time."""


class _Reached(Exception):
    """The search found a mapping as good as a known upper bound: it is optimal."""


class _Side:
    """One graph compiled for matching: integer nodes, labels, adjacency from both ends."""

    def __init__(self, graph: nx.MultiDiGraph, level: str) -> None:
        self.ids = list(graph.nodes)
        index = {node: i for i, node in enumerate(self.ids)}
        attributes = [graph.nodes[node] for node in self.ids]
        kinds = [attrs.get("kind", "node") for attrs in attributes]
        self.node_class = [(kind,) if level == "structure" else (kind, attrs.get("type"))
                           for kind, attrs in zip(kinds, attributes, strict=False)]
        self.text = [normalise_text(attrs.get("text") or "") for attrs in attributes]
        self.shape = [attrs.get("type") for attrs in attributes]
        # adjacency[(i, k)] lists the edges between i and k as seen from i:
        # (marker, class key, normalised label, edge reference).
        self.adjacency: dict[tuple[int, int], list[tuple[str, Any, str, tuple]]] = {}
        self.ends: list[list[tuple[int, tuple]]] = [[] for _ in self.ids]  # (other end, class), loops excluded
        self.edges: list[tuple[int, int, tuple]] = []  # (i, k, orientation-free class)
        for source, target, key, attrs in graph.edges(keys=True, data=True):
            i, k = index[source], index[target]
            marker = {"directed": ">", "undirected": "-", "member": "m>"}[attrs.get("kind", "directed")]
            style = None if level == "structure" else attrs.get("type")
            label = normalise_text(attrs.get("label") or "")
            reference = (source, target, key)
            self.adjacency.setdefault((i, k), []).append((marker, style, label, reference))
            if i != k:
                self.adjacency.setdefault((k, i), []).append((_REVERSE[marker], style, label, reference))
                self.ends[i].append((k, (marker, style)))
                self.ends[k].append((i, (_REVERSE[marker], style)))
                self.edges.append((i, k, (marker, style)))
            else:
                self.edges.append((i, k, ("loop", marker, style)))
        self.neighbours = [{other for other, _ in ends} for ends in self.ends]
        self.signature = {pair: tuple(sorted(entry[:3] for entry in entries)) for pair,
                          entries in self.adjacency.items()}


def check_budget(time_budget: float | None) -> float:
    """Seconds of exact search allowed (inf for None); a ParameterError unless positive."""
    if time_budget is None:
        return math.inf
    if isinstance(time_budget, bool) or not isinstance(time_budget, (int, float)) or not time_budget > 0:
        raise ParameterError(f"time_budget must be a positive number of seconds (or None for no limit), not "
                             f"{time_budget!r}")
    return float(time_budget)


class _Matcher:
    """The search for one pair of graphs at one level (see the module notes)."""

    def __init__(self, g1: nx.MultiDiGraph, g2: nx.MultiDiGraph, level: str, threshold: float, budget: float) -> None:
        self.one = _Side(g1, level)
        self.two = _Side(g2, level)
        self.with_texts = level == "texts"
        self.budget = budget
        # The text comparisons and edge matchings of this search, cached for it alone: no cache outlives its job.
        self.similar = lru_cache(maxsize=65536)(partial(texts_similar, threshold=threshold))
        self.pair_matches = lru_cache(maxsize=None)(partial(_matched_edges, self.similar if self.with_texts else None))
        one, two = self.one, self.two
        n1, n2 = len(one.ids), len(two.ids)
        by_class: dict[tuple, list[int]] = {}
        for j in range(n2):
            by_class.setdefault(two.node_class[j], []).append(j)
        self.candidates = [[j for j in by_class.get(one.node_class[i], [])
                            if not self.with_texts or self.similar(one.text[i], two.text[j])] for i in range(n1)]
        # How much a candidate looks like the node beyond this level (shape, text): a tie-break.
        self.preference = [{j: (one.shape[i] == two.shape[j]) + (one.text[i] == two.text[j])
                            for j in self.candidates[i]} for i in range(n1)]
        self.order = self._order()
        self.position = [0] * n1
        for depth, node in enumerate(self.order):
            self.position[node] = depth
        # Static parts of the bound, per depth (the undecided truth nodes are order[depth:]),
        # with node and edge classes numbered so that the bound counts in plain lists; edge
        # classes are numbered after the node classes, so that nodes and the edges among them
        # are counted in one list.
        node_ids: dict[tuple, int] = {}
        self.node_class_one = [node_ids.setdefault(one.node_class[i], len(node_ids)) for i in range(n1)]
        self.node_class_two = [node_ids.setdefault(two.node_class[j], len(node_ids)) for j in range(n2)]
        end_ids: dict[tuple, int] = {}
        self._ends_one = [[(other, end_ids.setdefault(cls, len(end_ids))) for other, cls in one.ends[i]]
                          for i in range(n1)]
        self.ends_two = [[(other, end_ids.setdefault(cls, len(end_ids))) for other, cls in two.ends[j]]
                         for j in range(n2)]
        self.end_class_count = len(end_ids)
        # back_two[y]: (z, class of the edge as seen from z) for the edges between y and z.
        self.back_two: list[list[tuple[int, int]]] = [[] for _ in range(n2)]
        for z in range(n2):
            for other, cls in self.ends_two[z]:
                self.back_two[other].append((z, cls))
        edge_ids: dict[tuple, int] = {}
        self._edges_one = [(i, k, edge_ids.setdefault(cls, len(node_ids) + len(edge_ids))) for i, k, cls in one.edges]
        self.incident_two: list[list[tuple[int, int]]] = [[] for _ in range(n2)]
        for i, k, edge_class in two.edges:
            number = edge_ids.setdefault(edge_class, len(node_ids) + len(edge_ids))
            self.incident_two[i].append((k, number))
            if k != i:
                self.incident_two[k].append((i, number))
        self.class_count = len(node_ids) + len(edge_ids)
        self._static: dict[int, tuple] = {}
        self.undecided_edges = [0] * (n1 + 1)
        for i, k, _ in self._edges_one:
            for depth in range(max(self.position[i], self.position[k]) + 1):
                self.undecided_edges[depth] += 1
        self.search_nodes = 0

    def _order(self) -> list[int]:
        one = self.one
        n1 = len(one.ids)
        remaining = set(range(n1))
        links = [0] * n1
        order: list[int] = []
        while remaining:
            node = max(remaining, key=lambda i: (links[i], len(one.ends[i]), -len(self.candidates[i]), -i))
            order.append(node)
            remaining.discard(node)
            for other, _ in one.ends[node]:
                links[other] += 1
        return order

    def gain(self, u: int, v: int, mapping: list[int]) -> int:
        """Edges gained by mapping truth ``u`` to submission ``v`` given the mapped nodes."""
        one, two = self.one, self.two
        total = 0
        if (loop := one.signature.get((u, u))) is not None and (other := two.signature.get((v, v))) is not None:
            total += self.pair_matches(loop, other)
        for w in one.neighbours[u]:
            x = mapping[w]
            if x >= 0 and (other := two.signature.get((v, x))) is not None:
                total += self.pair_matches(one.signature[(u, w)], other)
        return total

    def score(self, mapping: list[int]) -> int:
        total = sum(1 for j in mapping if j >= 0)
        for (i, k), signature in self.one.signature.items():
            if i <= k and mapping[i] >= 0 and mapping[k] >= 0:
                other = self.two.signature.get((mapping[i], mapping[k]))
                if other is not None:
                    total += self.pair_matches(signature, other)
        return total

    def greedy(self) -> list[int]:
        n1 = len(self.one.ids)
        mapping = [-1] * n1
        used: set[int] = set()
        for u in self.order:
            options = [(self.gain(u, v, mapping), self.preference[u][v], -v)
                       for v in self.candidates[u] if v not in used]
            if options:  # the most edges gained, then the closest look, then the lowest number
                mapping[u] = -max(options)[2]
                used.add(mapping[u])
        return mapping

    def improve(self, mapping: list[int], *, deadline: float) -> list[int]:
        """Local search from ``mapping``: move one truth node to another compatible image (or
        swap images with the node holding it) while the score grows; a few passes at most."""
        mapping = list(mapping)
        owner = {j: i for i, j in enumerate(mapping) if j >= 0}
        for _ in range(3):
            improved = False
            for u in self.order:
                if time.perf_counter() > deadline:
                    return mapping
                current = mapping[u]
                mapping[u] = -1
                before_u = 1 + self.gain(u, current, mapping) if current >= 0 else 0
                best_delta, best_move = 0, None
                for v in self.candidates[u]:
                    if v == current:
                        continue
                    other = owner.get(v)
                    if other is None:
                        delta = 1 + self.gain(u, v, mapping) - before_u
                    else:
                        mapping[other] = -1
                        before_other = 1 + self.gain(other, v, mapping)
                        after_u = 1 + self.gain(u, v, mapping)
                        mapping[u] = v
                        after_other = (1 + self.gain(other, current, mapping)
                                       if current >= 0 and current in self.preference[other] else 0)
                        mapping[u] = -1
                        mapping[other] = v
                        delta = after_u + after_other - before_u - before_other
                    if delta > best_delta:
                        best_delta, best_move = delta, (v, other)
                if best_move is None:
                    mapping[u] = current
                    continue
                v, other = best_move
                if other is not None:
                    if current >= 0 and current in self.preference[other]:
                        mapping[other] = current
                        owner[current] = other
                    else:
                        mapping[other] = -1
                        owner.pop(current, None)
                elif current >= 0:
                    owner.pop(current, None)
                mapping[u] = v
                owner[v] = u
                improved = True
            if not improved:
                break
        return mapping

    def static_at(self, depth: int) -> tuple:
        """The truth-side counts of the bound at ``depth``, computed once when first needed:
        undecided nodes and edges among undecided nodes per class, and per decided node its
        edges to undecided ones per class."""
        if (cached := self._static.get(depth)) is not None:
            return cached
        position = self.position
        undecided = [0] * max(self.class_count, 1)
        for i in self.order[depth:]:
            undecided[self.node_class_one[i]] += 1
        for i, k, cls in self._edges_one:
            if position[i] >= depth and position[k] >= depth:
                undecided[cls] += 1
        open_ends = []
        for w in self.order[:depth]:
            counts = [0] * max(self.end_class_count, 1)
            for other, cls in self._ends_one[w]:
                if position[other] >= depth:
                    counts[cls] += 1
            if any(counts):
                open_ends.append((w, _nonzero(counts)))
        self._static[depth] = cached = (_nonzero(undecided), tuple(open_ends))
        return cached

    def bound(self, depth: int, mapping: list[int], free: _FreeCounts) -> int:
        """Upper bound of what the undecided truth nodes can still add (see the module notes)."""
        undecided, open_ends = self.static_at(depth)
        total = 0
        free_counts = free.counts
        # min(count, available) written out: this bound runs at every search node, and the
        # conditional expression is several times faster than a call of min()
        for cls, count in undecided:
            available = free_counts[cls]
            total += count if count < available else available  # noqa: FURB136
        free_ends = free.ends
        for w, counts in open_ends:
            x = mapping[w]
            if x < 0:
                continue
            ends = free_ends[x]
            for cls, count in counts:
                available = ends[cls]
                total += count if count < available else available  # noqa: FURB136
        return total

    def solve(self, start: list[int] | None) -> tuple[list[int], int, bool]:
        """Branch and bound first; the integer programme when it cannot finish in its share."""
        began = time.perf_counter()
        mapping, score, exact = self.branch_and_bound(start, min(0.1 * self.budget, 0.1))
        if exact:
            return mapping, score, True
        remaining = self.budget - (time.perf_counter() - began)
        solved = self.integer_programme(remaining) if remaining > 0 else None
        if solved is not None and (ilp_score := self.score(solved[0])) >= score:
            return solved[0], ilp_score, solved[1]
        return mapping, score, False

    def integer_programme(self, time_limit: float) -> tuple[list[int], bool] | None:
        """Solve the MCS as an ILP (see the module notes); None when no solution came back."""
        one, two = self.one, self.two
        pair_variable = {pair: variable for variable, pair in enumerate(
            (i, j) for i, options in enumerate(self.candidates) for j in options)}
        truth_edges: dict[tuple, tuple[int, int, tuple]] = {}
        for (a, b), entries in one.adjacency.items():
            for entry in entries:
                truth_edges.setdefault(entry[3], (a, b, entry))
        edge_variables: list[tuple[int, int, int, int, tuple, tuple]] = []  # (a, c, b, d, truth ref, sub ref)
        sub_pairs = list(two.adjacency.items())
        for reference, (a, b, entry) in truth_edges.items():
            images_a, images_b = self.preference[a], self.preference[b]
            for (c, d), others in sub_pairs:
                if c not in images_a or d not in images_b or (a == b) != (c == d):
                    continue
                for other in others:
                    if other[:2] == entry[:2] and (not self.with_texts or self.similar(entry[2], other[2])):
                        edge_variables.append((a, c, b, d, reference, other[3]))
        count = len(pair_variable) + len(edge_variables)
        if count == 0:
            return [-1] * len(one.ids), True
        rows: list[int] = []
        columns: list[int] = []
        values: list[float] = []
        upper: list[float] = []

        def constrain(terms: list[tuple[int, float]], limit: float) -> None:
            rows.extend([len(upper)] * len(terms))
            columns.extend(column for column, _ in terms)
            values.extend(value for _, value in terms)
            upper.append(limit)

        per_truth: dict[int, list[int]] = {}
        per_sub: dict[int, list[int]] = {}
        for (i, j), variable in pair_variable.items():
            per_truth.setdefault(i, []).append(variable)
            per_sub.setdefault(j, []).append(variable)
        for group in (*per_truth.values(), *per_sub.values()):
            constrain([(variable, 1.0) for variable in group], 1.0)
        links: dict[tuple, list[int]] = {}
        for offset, (a, c, b, d, truth_ref, sub_ref) in enumerate(edge_variables):
            variable = len(pair_variable) + offset
            for end, image in {(a, c), (b, d)}:
                links.setdefault(("truth", truth_ref, end, image), []).append(variable)
                links.setdefault(("sub", sub_ref, end, image), []).append(variable)
        for (_, _, end, image), group in links.items():
            constrain([(variable, 1.0) for variable in group] + [(pair_variable[(end, image)], -1.0)], 0.0)
        matrix = coo_matrix((values, (rows, columns)), shape=(len(upper), count)).tocsr()
        constraints = LinearConstraint(matrix, -np.inf, np.asarray(upper))
        deadline = time.perf_counter() + time_limit

        def read_mapping(values) -> list[int]:
            # Each node is in one row "sum <= 1", so at most one of its pairs exceeds 0.5.
            mapping = [-1] * len(one.ids)
            for (i, j), variable in pair_variable.items():
                if values[variable] > 0.5:
                    mapping[i] = j
            return mapping

        # The linear relaxation first: on flowcharts it is nearly always tight, and when the
        # mapping read from it reaches the floor of its optimum, that mapping is optimal.
        relaxed = milp(-np.ones(count), constraints=constraints, bounds=Bounds(0, 1),
                       options={"time_limit": max(time_limit, 0.01)})
        if relaxed.x is not None and relaxed.status == 0:
            ceiling = math.floor(-relaxed.fun + 1e-6)
            mapping = read_mapping(relaxed.x)
            if self.score(mapping) >= ceiling:
                return mapping, True
            # A fractional optimum (often a symmetric one): search again, trying first the pairs
            # the relaxation weighs most, until a mapping reaches the floor -- then it is optimal.
            guide = {pair: float(relaxed.x[variable]) for pair, variable in pair_variable.items()}
            left = deadline - time.perf_counter()
            if left > 0:
                found, _, complete = self.branch_and_bound(mapping, min(left, max(0.25 * left, 0.05)), guide=guide,
                                                           target=ceiling)
                if complete:
                    return found, True
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return None
        result = milp(-np.ones(count), constraints=constraints, integrality=np.ones(count), bounds=Bounds(0, 1),
                      options={"time_limit": max(remaining, 0.01)})
        if result.x is None:
            return None
        return read_mapping(result.x), result.status == 0

    def branch_and_bound(
        self, start: list[int] | None, budget: float, *, guide: dict | None = None, target: int | None = None
    ) -> tuple[list[int], int, bool]:
        """Exact search within ``budget`` seconds: ``(mapping, score, finished)``.

        ``guide`` weighs node pairs (tried heaviest first); the search also counts as finished
        as soon as it reaches ``target``, a known upper bound of the optimum.
        """
        n1, n2 = len(self.one.ids), len(self.two.ids)
        best = self.greedy()
        best_score = self.score(best)
        if start is not None and (start_score := self.score(start)) > best_score:
            best, best_score = list(start), start_score
        upper = self.bound(0, [-1] * n1, _FreeCounts(self))
        if target is not None:
            upper = min(upper, target)
        if best_score >= upper:
            return best, best_score, True
        best = self.improve(best, deadline=time.perf_counter() + budget / 2)
        best_score = self.score(best)
        if best_score >= upper:
            return best, best_score, True
        # Prefer the incumbent's choice at every node: the search then reaches it at once.
        favourite = list(best)
        mapping = [-1] * n1
        used = [False] * n2
        free = _FreeCounts(self)
        deadline = time.perf_counter() + budget
        found, found_score = best, best_score
        order = self.order
        candidates = self.candidates
        undecided_edges = self.undecided_edges

        guide_weights: list[dict[int, float]] = [{} for _ in range(n1)]
        for (i, j), weight in (guide or {}).items():
            guide_weights[i][j] = round(weight, 3)

        def search(depth: int, score: int) -> None:
            nonlocal found, found_score
            self.search_nodes += 1
            if self.search_nodes & 255 == 0 and time.perf_counter() > deadline:
                raise _Timeout
            if depth == n1:
                if score > found_score:
                    found, found_score = list(mapping), score
                    if score >= upper:
                        raise _Reached
                return
            if score + (n1 - depth) + undecided_edges[depth] <= found_score:
                return
            if score + self.bound(depth, mapping, free) <= found_score:
                return
            u = order[depth]
            weights = guide_weights[u]
            options = [(weights.get(v, 0.0), self.gain(u, v, mapping), v == favourite[u], self.preference[u][v], -v)
                       for v in candidates[u] if not used[v]]
            options.sort(reverse=True)
            for _, gained, _, _, negative in options:
                v = -negative
                mapping[u] = v
                used[v] = True
                free.shift(v, used, -1)
                search(depth + 1, score + 1 + gained)
                free.shift(v, used, 1)
                used[v] = False
                mapping[u] = -1
            search(depth + 1, score)

        try:
            search(0, 0)
        except _Timeout:
            return found, found_score, False
        except _Reached:
            pass
        return found, found_score, True


def _nonzero(counts: list[int]) -> tuple[tuple[int, int], ...]:
    """``(class, count)`` of the classes counted at least once."""
    return tuple((cls, count) for cls, count in enumerate(counts) if count)


class _FreeCounts:
    """Counts over the unused submission nodes, kept up to date as nodes are taken and given back.

    ``counts[c]``: unused nodes of node class ``c``, or edges of edge class ``c`` with both
    ends unused; ``ends[x][c]``: edges of class ``c`` (seen from ``x``) between ``x`` and
    unused nodes.
    """

    def __init__(self, matcher: _Matcher) -> None:
        n2 = len(matcher.two.ids)
        self.matcher = matcher
        self.counts = [0] * max(matcher.class_count, 1)
        self.ends = [[0] * max(matcher.end_class_count, 1) for _ in range(n2)]
        for j in range(n2):
            self.counts[matcher.node_class_two[j]] += 1
            for _, cls in matcher.ends_two[j]:
                self.ends[j][cls] += 1
            for other, cls in matcher.incident_two[j]:
                if other >= j:  # each edge once (loops have other == j)
                    self.counts[cls] += 1

    def shift(self, node: int, used: list[bool], step: int) -> None:
        """``step=-1``: ``node`` has just been marked used; ``step=1`` undoes that (``node`` still marked)."""
        matcher = self.matcher
        counts = self.counts
        counts[matcher.node_class_two[node]] += step
        ends = self.ends
        for other, cls in matcher.back_two[node]:
            ends[other][cls] += step
        for other, cls in matcher.incident_two[node]:
            if other == node or not used[other]:
                counts[cls] += step


def _matched_edges(similar: Callable[[str, str], bool] | None, first: tuple, second: tuple) -> int:
    """Edges matched between two edge signatures (tuples of (marker, style, label)); without
    ``similar`` (texts not compared), as many as the classes (marker, style) have in common."""
    if similar is None:
        return sum((Counter(entry[:2] for entry in first) & Counter(entry[:2] for entry in second)).values())
    return len(_match_entries(first, second, similar))


def _match_entries(first, second, similar: Callable[[str, str], bool]) -> list[tuple[int, int]]:
    """A maximum matching of compatible edges between two short edge lists (texts level)."""
    partner_of_second: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j, entry in enumerate(second):
            if j in seen or first[i][:2] != entry[:2] or not similar(first[i][2], entry[2]):
                continue
            seen.add(j)
            if j not in partner_of_second or augment(partner_of_second[j], seen):
                partner_of_second[j] = i
                return True
        return False

    for i in range(len(first)):
        augment(i, set())
    return sorted((i, j) for j, i in partner_of_second.items())


def _edge_pairs(matcher: _Matcher, mapping: list[int]) -> tuple:
    """The matched edges of a mapping, preferring pairs whose labels are similar."""
    one, two = matcher.one, matcher.two
    pairs: list[tuple[tuple, tuple]] = []
    for (i, k), entries in one.adjacency.items():
        if i > k or mapping[i] < 0 or mapping[k] < 0:
            continue
        others = two.adjacency.get((mapping[i], mapping[k]))
        if not others:
            continue
        first = [entry[:3] for entry in entries]
        second = [entry[:3] for entry in others]
        if matcher.with_texts:
            matched = _match_entries(first, second, matcher.similar)
        else:
            # Same edge class is enough; among parallel edges, pair equal labels first.
            matched, taken_one, taken_two = [], set(), set()
            for same_label in (True, False):
                for a, entry in enumerate(first):
                    if a in taken_one:
                        continue
                    for b, other in enumerate(second):
                        if b in taken_two or entry[:2] != other[:2] or (same_label and entry[2] != other[2]):
                            continue
                        matched.append((a, b))
                        taken_one.add(a)
                        taken_two.add(b)
                        break
        pairs.extend((entries[a][3], others[b][3]) for a, b in matched)
    return tuple(pairs)


def maximum_common_subgraph(truth: nx.MultiDiGraph, submission: nx.MultiDiGraph, *, level: str = "types",
                            text_threshold: float = 0.2, time_budget: float | None = 1.0,
                            start: dict | None = None) -> CommonSubgraph:
    """The maximum common subgraph of two flowchart graphs at one level of matching.

    Parameters
    ----------
    truth, submission : networkx.MultiDiGraph
        Graphs from :func:`pateval.flowchart.graph.to_networkx`.
    level : {"structure", "types", "texts"}
        What must agree for nodes and edges to match (see the module notes).
    text_threshold : float
        Relative edit distance up to which two normalised texts match (``texts`` level).
    time_budget : float or None
        Seconds the exact search may take; then the best mapping found is returned with
        ``exact=False``. None: no limit.
    start : dict, optional
        A mapping truth node -> submission node to start from (pairs not compatible at this
        level are dropped), typically the result of a finer level.

    Returns
    -------
    CommonSubgraph

    References
    ----------
    H. Bunke, K. Shearer. A graph distance metric based on the maximal common subgraph.
    Pattern Recognition Letters 19(3-4):255-259, 1998.
    """
    if level not in LEVELS:
        raise ParameterError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    threshold = check_threshold(text_threshold)
    budget = check_budget(time_budget)
    began = time.perf_counter()
    matcher = _Matcher(truth, submission, level, threshold, budget)
    start_mapping = None
    if start:
        index_two = {node: j for j, node in enumerate(matcher.two.ids)}
        start_mapping = [-1] * len(matcher.one.ids)
        taken: set[int] = set()
        for i, node in enumerate(matcher.one.ids):
            j = index_two.get(start.get(node), -1) if node in start else -1
            if j >= 0 and j not in taken and j in matcher.preference[i]:
                start_mapping[i] = j
                taken.add(j)
    mapping, size, exact = matcher.solve(start_mapping)
    node_mapping = {matcher.one.ids[i]: matcher.two.ids[j] for i, j in enumerate(mapping) if j >= 0}
    return CommonSubgraph(size=size, node_mapping=node_mapping, edge_pairs=_edge_pairs(matcher, mapping), exact=exact,
                          level=level, search_nodes=matcher.search_nodes, seconds=time.perf_counter() - began)


def mcs_distance(truth: nx.MultiDiGraph, submission: nx.MultiDiGraph, *, level: str = "types",
                 text_threshold: float = 0.2, time_budget: float | None = 1.0) -> tuple[float, CommonSubgraph]:
    """The distance ``d = 1 - |mcs| / max(|G1|, |G2|)`` (Bunke & Shearer 1998) and its MCS.

    ``|G| = |V| + |E|`` (:func:`pateval.flowchart.graph.graph_size`); two empty graphs are at
    distance 0. See :func:`maximum_common_subgraph` for the parameters.
    """
    common = maximum_common_subgraph(truth, submission, level=level, text_threshold=text_threshold,
                                     time_budget=time_budget)
    return distance_from_size(common.size, graph_size(truth), graph_size(submission)), common


def distance_from_size(common_size: int, truth_size: int, submission_size: int) -> float:
    """``1 - common_size / max(truth_size, submission_size)``, 0 when both graphs are empty."""
    largest = max(truth_size, submission_size)
    return 0.0 if largest == 0 else 1.0 - common_size / largest
