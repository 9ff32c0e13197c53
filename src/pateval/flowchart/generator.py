"""Seeded flowcharts and controlled perturbations of them, for tests and benchmarks.

:func:`generate_flowchart` draws a patent-like flowchart: a start oval, a chain of process
rectangles, input/output parallelograms and decision diamonds whose "yes"/"no" edges branch
forward or loop back, an end oval, reference-numeral labels (``no-box`` nodes tied to their
node by an undirected ``wiggly`` edge, as in patent drawings) and now and then a meta-node
enclosing a few steps.

:func:`perturb_flowchart` imitates recognition errors by applying ``amount`` operations
drawn from ``kinds`` (see :data:`PERTURBATIONS`), each on an element no earlier operation
touched, and renumbers the identifiers (a system numbers nodes its own way). The operations
are drawn one after another from the seed, so the result for ``amount = k`` is the result
for ``k - 1`` with one more operation: perturbations are nested.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

from ..errors import ParameterError
from .model import EDGE_TYPES, NODE_TYPES, Edge, Flowchart, MetaNode, Node

__all__ = ["PERTURBATIONS", "generate_flowchart", "perturb_flowchart"]

#: Operations of :func:`perturb_flowchart`.
PERTURBATIONS = ("delete_edge", "delete_node", "retype_node", "retype_edge", "replace_text", "add_node", "add_edge")

_WORDS = (  # noqa: SIM905 - a word list reads best as the words
    "receive signal store value compare threshold read sensor update counter transmit packet decode frame "
    "select channel measure current adjust voltage check status display result wait timer reset register "
    "compute checksum request data send reply open valve close switch detect error encode image retrieve "
    "record verify user start motor stop heater load program set flag clear buffer"
).split()


def _phrase(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 4))).upper()


def _check_integer(name: str, value, what: str = "an integer", least: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or (least is not None and value < least):
        raise ParameterError(f"{name} must be {what}, not {value!r}")


def generate_flowchart(*, seed: int, steps: int = 12) -> Flowchart:
    """A random patent-like flowchart with ``steps`` process/decision steps.

    Parameters
    ----------
    seed : int
        Seed of the random generator; equal seeds give equal flowcharts.
    steps : int
        Number of steps between the start and end ovals (>= 1); label nodes and meta-nodes
        come on top, so a flowchart has about ``1.4 * steps`` nodes.
    """
    _check_integer("seed", seed)
    _check_integer("steps", steps, "a positive integer", least=1)
    rng = random.Random(seed)
    nodes: list[Node] = []
    edges: list[Edge] = []
    numeral = 10 * rng.randint(1, 9)

    def add(node_type: str, text: str) -> str:
        node_id = str(len(nodes) + 1)
        nodes.append(Node(node_id, node_type, text, (float(100 + 40 * rng.randint(0, 4)), float(60 * len(nodes) + 40))))
        return node_id

    chain = [add("oval", "START")]
    for _ in range(steps):
        roll = rng.random()
        node_type = ("diamond" if roll < 0.25 else "parallelogram" if roll < 0.4 else "rectangle" if roll < 0.92
                     else rng.choice(("cylinder", "double-rectangle", "circle")))
        text = _phrase(rng) + ("?" if node_type == "diamond" else "")
        chain.append(add(node_type, text))
    chain.append(add("oval", "END"))
    for before, after in itertools.pairwise(chain):
        edges.append(Edge(before, after, True, "plain", "YES" if nodes[int(before) - 1].type == "diamond" else ""))
    for position, node_id in enumerate(chain):
        if nodes[int(node_id) - 1].type != "diamond":
            continue
        # The "no" branch loops back to an earlier step or skips ahead (never onto the "yes" step).
        if (rng.random() < 0.5 or position + 2 > len(chain) - 1) and position > 1:
            target = chain[rng.randint(1, position - 1)]
        elif position + 2 <= len(chain) - 1:
            target = chain[rng.randint(position + 2, len(chain) - 1)]
        else:
            continue
        edges.append(Edge(node_id, target, True, rng.choice(("plain", "plain", "dotted")), "NO"))
    for node_id in chain[1:-1]:
        if rng.random() < 0.3:
            numeral += 2
            label = add("no-box", f"S{numeral}")
            edges.append(Edge(label, node_id, False, "wiggly"))
    meta_nodes: list[MetaNode] = []
    if steps >= 4 and rng.random() < 0.4:
        first = rng.randint(1, steps - 2)
        members = tuple(chain[first : first + rng.randint(2, 3)])
        meta_nodes.append(MetaNode(f"M{len(nodes) + 1}", members, _phrase(rng)))
    return Flowchart(f"Fig.{rng.randint(1, 20)}", tuple(nodes), tuple(meta_nodes), tuple(edges))


def perturb_flowchart(flowchart: Flowchart, *, amount: int, seed: int, kinds: tuple[str, ...] = PERTURBATIONS,
                      renumber: bool = True) -> Flowchart:
    """``flowchart`` with ``amount`` recognition errors of the given ``kinds``.

    Parameters
    ----------
    flowchart : Flowchart
        The ground truth.
    amount : int
        Number of operations (>= 0). When no untouched element is left for any of
        ``kinds``, fewer are applied.
    seed : int
        Seed of the operations.
    kinds : tuple of str
        Operations to draw from, out of :data:`PERTURBATIONS`.
    renumber : bool
        Give the nodes new identifiers in a shuffled order (which changes no score).
    """
    _check_integer("seed", seed)
    _check_integer("amount", amount, "a non-negative integer", least=0)
    unknown = [kind for kind in kinds if kind not in PERTURBATIONS]
    if unknown or not kinds:
        raise ParameterError(f"kinds must be a non-empty selection of {', '.join(PERTURBATIONS)}; unknown: {unknown}")
    rng = random.Random(seed)
    nodes = {node.id: node for node in flowchart.nodes}
    metas = {meta.id: meta for meta in flowchart.meta_nodes}
    edges = list(flowchart.edges)
    touched_nodes: set[str] = set()
    touched_edges: set[int] = set()  # positions in ``edges`` of edges already changed or added
    fresh = applied = 0
    while applied < amount:
        order = list(kinds)
        rng.shuffle(order)
        for kind in order:
            if _apply(kind, rng, nodes, metas, edges, touched_nodes, touched_edges, fresh):
                if kind == "add_node":
                    fresh += 1
                applied += 1
                break
        else:
            break
    result = Flowchart(flowchart.title, tuple(nodes.values()), tuple(metas.values()),
                       tuple(edge for edge in edges if edge is not None))
    return _renumber(result, rng) if renumber else result


def _apply(kind, rng, nodes, metas, edges, touched_nodes, touched_edges, fresh) -> bool:
    """Apply one operation of ``kind`` in place; False when it has nothing left to act on."""
    free_nodes = sorted((node_id for node_id in nodes if node_id not in touched_nodes), key=_id_order)
    free_edges = [position for position, edge in enumerate(edges) if edge is not None and position not in touched_edges]
    if kind == "delete_edge":
        if not free_edges:
            return False
        edges[rng.choice(free_edges)] = None
    elif kind == "delete_node":
        # Never a node with a changed or added edge: deleting it would undo that change.
        guarded = {end for position in touched_edges if edges[position] is not None
                   for end in (edges[position].source, edges[position].target)}
        victims = [node_id for node_id in free_nodes if node_id not in guarded]
        if len(victims) < 2:
            return False
        victim = rng.choice(victims)
        del nodes[victim]
        touched_nodes.add(victim)
        for position, edge in enumerate(edges):
            if edge is not None and victim in (edge.source, edge.target):
                edges[position] = None
        for meta_id, meta in list(metas.items()):
            if victim in meta.members:
                metas[meta_id] = replace(meta, members=tuple(member for member in meta.members if member != victim))
    elif kind == "retype_node":
        if not free_nodes:
            return False
        node_id = rng.choice(free_nodes)
        nodes[node_id] = replace(nodes[node_id], type=rng.choice([t for t in NODE_TYPES if t != nodes[node_id].type]))
        touched_nodes.add(node_id)
    elif kind == "retype_edge":
        if not free_edges:
            return False
        position = rng.choice(free_edges)
        edge = edges[position]
        edges[position] = replace(edge, type=rng.choice([t for t in EDGE_TYPES if t != edge.type]))
        touched_edges.add(position)
    elif kind == "replace_text":
        if not (with_text := [node_id for node_id in free_nodes if nodes[node_id].text]):
            return False
        node_id = rng.choice(with_text)
        # An OCR misreading: a different text of about the same length, far beyond any threshold.
        text = "".join(rng.choice("XQZJKVW") if char.isalnum() else char for char in nodes[node_id].text)
        nodes[node_id] = replace(nodes[node_id], text=text)
        touched_nodes.add(node_id)
    elif kind == "add_node":
        if not (anchors := sorted(nodes, key=_id_order)):
            return False
        new_id = f"x{fresh}"
        nodes[new_id] = Node(new_id, rng.choice(NODE_TYPES), _phrase(rng), None)
        touched_nodes.add(new_id)
        edges.append(Edge(rng.choice(anchors), new_id, True, "plain"))
        touched_edges.add(len(edges) - 1)
    else:  # add_edge (perturb_flowchart checks the kinds)
        if len(present := sorted(nodes, key=_id_order)) < 2:
            return False
        source, target = rng.sample(present, 2)
        edges.append(Edge(source, target, True, rng.choice(EDGE_TYPES)))
        touched_edges.add(len(edges) - 1)
    return True


def _id_order(node_id: str) -> tuple:
    return (0, int(node_id), "") if node_id.isdigit() else (1, 0, node_id)


def _renumber(flowchart: Flowchart, rng: random.Random) -> Flowchart:
    """New identifiers 1..n in a shuffled order, lines in the new order."""
    shuffled = [node.id for node in flowchart.nodes]
    rng.shuffle(shuffled)
    new_id = {old: str(number) for number, old in enumerate(shuffled, start=1)}
    for number, meta in enumerate(flowchart.meta_nodes, start=len(shuffled) + 1):
        new_id[meta.id] = f"M{number}"
    nodes = sorted((replace(node, id=new_id[node.id]) for node in flowchart.nodes), key=lambda node: int(node.id))
    metas = tuple(replace(meta, id=new_id[meta.id], members=tuple(new_id[member] for member in meta.members))
                  for meta in flowchart.meta_nodes)
    edges = [replace(edge, source=new_id[edge.source], target=new_id[edge.target]) for edge in flowchart.edges]
    rng.shuffle(edges)
    return Flowchart(flowchart.title, tuple(nodes), metas, tuple(edges))
