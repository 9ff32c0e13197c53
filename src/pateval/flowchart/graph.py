"""Flowcharts as labelled directed multigraphs (networkx), and what ``|G|`` counts.

:func:`to_networkx` turns a :class:`~pateval.flowchart.model.Flowchart` into a
``networkx.MultiDiGraph``:

* one graph node per ``NO`` line (``kind="node"``, ``type`` = its shape, ``text``) and one per
  ``MN`` line (``kind="meta"``, ``type=None``, ``text``);
* one graph edge per ``DE`` line (``kind="directed"``, ``type`` = its line style, ``label``),
  one per ``UE`` line (``kind="undirected"``, stored from its start to its end but matched in
  either orientation), and one per meta-node membership (``kind="member"``, from the
  meta-node to the enclosed node), so that the grouping is part of the structure.

The size of a flowchart is ``|G| = |V| + |E|``: graph nodes plus graph edges (membership
edges included). Counting edges as well as nodes is the usual choice when the distance of
Bunke and Shearer (1998) is used beside graph edit distance -- a missing arrow then costs one
unit instead of nothing (node counts alone) or a whole node (induced subgraphs).
"""

from __future__ import annotations

from .._optional import needs_extra
from .model import Flowchart

with needs_extra("flowchart"):
    import networkx as nx

__all__ = ["graph_size", "to_networkx"]


def to_networkx(flowchart: Flowchart) -> nx.MultiDiGraph:
    """The labelled multigraph of ``flowchart`` (see the module notes for the attributes)."""
    graph = nx.MultiDiGraph(title=flowchart.title)
    for node in flowchart.nodes:
        graph.add_node(node.id, kind="node", type=node.type, text=node.text)
    for meta in flowchart.meta_nodes:
        graph.add_node(meta.id, kind="meta", type=None, text=meta.text)
    for meta in flowchart.meta_nodes:
        for member in meta.members:
            graph.add_edge(meta.id, member, kind="member", type=None, label="")
    for edge in flowchart.edges:
        graph.add_edge(edge.source, edge.target, kind="directed" if edge.directed else "undirected", type=edge.type,
                       label=edge.label)
    return graph


def graph_size(graph: nx.MultiDiGraph) -> int:
    """``|G| = |V| + |E|``, the size the MCS distance divides by."""
    return graph.number_of_nodes() + graph.number_of_edges()
