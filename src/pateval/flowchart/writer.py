"""Writing flowcharts in the CLEF-IP encoding, so that reading the output gives them back.

The writer emits ``MT Title`` (when there is a title), the three required counts computed
from the flowchart, then the ``NO``, ``MN``, ``DE`` and ``UE`` lines in the flowchart's
order. Node texts are always written (``""`` when empty, as the 2013 overview asks); edge
labels only when not empty. Quotes, backslashes, newlines and tabs in texts are escaped.
Comments are not part of :class:`~pateval.flowchart.model.Flowchart` and are not written.
"""

from __future__ import annotations

import os

from ..errors import ParameterError
from ..formats.atomic import atomic_output
from .model import EDGE_TYPES, NODE_TYPES, Flowchart

__all__ = ["format_flowchart", "quote_text", "write_flowchart"]

_ESCAPE = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t"}


def quote_text(text: str) -> str:
    """``text`` in double quotes, with the encoding's escapes."""
    return '"' + "".join(_ESCAPE.get(char, char) for char in text) + '"'


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _check_identifier(identifier: str) -> None:
    if not identifier or any(char.isspace() or char in '",[]()' for char in identifier):
        raise ParameterError(f"flowchart identifier {identifier!r} cannot be written: it must be non-empty, without "
                             f"spaces, quotes, commas, brackets or parentheses")


def format_flowchart(flowchart: Flowchart) -> str:
    """The text of ``flowchart`` in the CLEF-IP encoding, one record a line."""
    lines: list[str] = []
    if flowchart.title is not None:
        lines.append(f"MT Title {quote_text(flowchart.title)}")
    counts = flowchart.counts()
    lines.extend(f"MT {key} {counts[key]}" for key in ("NO", "DE", "UE"))
    for node in flowchart.nodes:
        _check_identifier(node.id)
        if node.type not in NODE_TYPES:
            raise ParameterError(f"node {node.id!r} has type {node.type!r}; "
                                 f"the encoding allows {', '.join(NODE_TYPES)}")
        line = f"NO {node.id} {node.type} {quote_text(node.text)}"
        if node.position is not None:
            line += f" ({_number(node.position[0])},{_number(node.position[1])})"
        lines.append(line)
    for meta in flowchart.meta_nodes:
        for identifier in (meta.id, *meta.members):
            _check_identifier(identifier)
        lines.append(f"MN {meta.id} [{','.join(meta.members)}] {quote_text(meta.text)}")
    for edge in flowchart.edges:
        _check_identifier(edge.source)
        _check_identifier(edge.target)
        if edge.type not in EDGE_TYPES:
            raise ParameterError(f"edge {edge.source}-{edge.target} has type {edge.type!r}; the encoding allows "
                                 f"{', '.join(EDGE_TYPES)}")
        line = f"{'DE' if edge.directed else 'UE'} {edge.source} {edge.target} {edge.type}"
        if edge.label:
            line += f" {quote_text(edge.label)}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def write_flowchart(flowchart: Flowchart, path: str | os.PathLike[str]) -> None:
    """Write ``flowchart`` to ``path`` whole or not at all (via ``atomic_output``)."""
    text = format_flowchart(flowchart)
    with atomic_output(path) as handle:
        handle.write(text)
