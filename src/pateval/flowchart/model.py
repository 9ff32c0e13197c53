"""The flowchart record: nodes, meta-nodes and edges as the CLEF-IP encoding describes them.

CLEF-IP 2012 and 2013 (Piroi, Lupu, Hanbury: Overview of CLEF-IP 2013, section 2.4) asked
systems to turn flowchart images from patents into a text file of ``MT`` (meta), ``NO``
(node), ``MN`` (meta-node), ``DE``/``UE`` (directed/undirected edge) and ``CO`` (comment)
lines. These classes hold what such a file says; :mod:`pateval.flowchart.reader` builds them
and :mod:`pateval.flowchart.writer` writes them back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["EDGE_TYPES", "NODE_TYPES", "Edge", "Flowchart", "MetaNode", "Node"]

#: Node shapes the encoding allows (the task pages of CLEF-IP 2012 and 2013).
NODE_TYPES = ("oval", "rectangle", "double-rectangle", "parallelogram", "diamond", "circle", "point", "no-box",
              "cylinder", "unknown")

#: Edge line styles the encoding allows; ``wiggly`` links a node to its label.
EDGE_TYPES = ("plain", "dotted", "wiggly", "unknown")


@dataclass(frozen=True)
class Node:
    """A ``NO`` line: identifier, shape, text (``""`` when none) and optional centre."""

    id: str
    type: str
    text: str = ""
    position: tuple[float, float] | None = None


@dataclass(frozen=True)
class MetaNode:
    """An ``MN`` line: a line enclosing a group of ``NO`` nodes, with its own text."""

    id: str
    members: tuple[str, ...]
    text: str = ""


@dataclass(frozen=True)
class Edge:
    """A ``DE`` (``directed=True``) or ``UE`` line between two NO or MN identifiers."""

    source: str
    target: str
    directed: bool
    type: str
    label: str = ""


@dataclass(frozen=True)
class Flowchart:
    """One flowchart: its title and the nodes, meta-nodes and edges in file order.

    ``declared`` holds the counts of the ``MT NO``/``MT DE``/``MT UE`` lines as read (they
    are checked against the lines by the reader and recomputed by the writer, so they take
    no part in equality).
    """

    title: str | None = None
    nodes: tuple[Node, ...] = ()
    meta_nodes: tuple[MetaNode, ...] = ()
    edges: tuple[Edge, ...] = ()
    declared: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def counts(self) -> dict[str, int]:
        """The counts that ``MT NO``, ``MT DE`` and ``MT UE`` must declare."""
        directed = sum(1 for edge in self.edges if edge.directed)
        return {"NO": len(self.nodes), "DE": directed, "UE": len(self.edges) - directed}
