"""Reading and validating the CLEF-IP flowchart encoding.

The encoding (CLEF-IP 2012/2013 flowchart recognition task; Piroi, Lupu, Hanbury, Overview
of CLEF-IP 2013, section 2.4) is one record a line::

    MT Title "Fig.7"                   title, optional
    MT NO 10 / MT DE 5 / MT UE 4       counts of NO, DE and UE lines, required
    NO id node-type ["text"] [(x,y)]   node; coordinates of its centre are optional
    MN id [n1,n2,...] ["text"]         meta-node enclosing NO nodes
    DE start end edge-type ["label"]   directed edge (UE: undirected); ends are NO or MN ids
    CO anything                        comment, ignored

Quoted texts take the escapes ``\\"``, ``\\\\``, ``\\n`` and ``\\t`` and end on their line.
Record names, node types and edge types are read case-insensitively (the overview writes
``co``); blank lines are skipped.

:func:`check_flowchart` reads everything it can and returns every defect found, each as a
:class:`pateval.errors.InputFormatError` naming its line (or the file, for a missing
``MT`` count); a defective line contributes nothing to the flowchart. :func:`read_flowchart`
is the strict reader: it raises the first defect.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path
from typing import NamedTuple

from ..errors import InputFormatError, malformed
from ..formats.source import read_bytes
from .model import EDGE_TYPES, NODE_TYPES, Edge, Flowchart, MetaNode, Node

__all__ = ["FlowchartCheck", "check_flowchart", "defect_error", "parse_flowchart", "read_flowchart"]

_RECORDS = "one of MT, NO, MN, DE, UE, CO"
_MT_FIELDS = "Title, NO, DE or UE"
_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_COUNT = re.compile(r"\d+")
# A token of a line: spaces, a quoted text (a backslash takes the next character with it), a
# member list, coordinates or a word; an unterminated one runs to the end of the line.
_TOKEN = re.compile(r'\s+|"(?P<text>(?:[^"\\]|\\.?)*)(?P<text_end>"?)|\[(?P<list>[^\]]*)(?P<list_end>\]?)'
                    r'|\((?P<coords>[^)]*)(?P<coords_end>\)?)|(?P<word>[^\s"\[(]+)', re.DOTALL)
_ESCAPE = re.compile(r"\\(.?)", re.DOTALL)
_SHAPES = {
    "NO": 'NO id node-type ["text"] [(x,y)]',
    "MN": 'MN id [id,id,...] ["text"]',
    "DE": 'DE start end edge-type ["label"]',
    "UE": 'UE start end edge-type ["label"]',
}


class FlowchartCheck(NamedTuple):
    """What :func:`check_flowchart` returns: the flowchart of the good lines, and the defects."""

    flowchart: Flowchart
    defects: list[InputFormatError]


class _Token(NamedTuple):
    kind: str  # "word", "text", "list", "coords"
    value: str
    raw: str


class _Defect(Exception):
    """A defect of one line, raised inside the line parser and collected by the caller."""

    def __init__(self, path: str, line: int, problem: str, *, expected: str | None = None, found=None) -> None:
        self.error = defect_error(path, line, problem, expected=expected, found=found)
        super().__init__(str(self.error))


def defect_error(path: str | os.PathLike[str], line: int | None, problem: str, *, expected: str | None = None,
                 found=None) -> InputFormatError:
    """Build the error :func:`pateval.errors.malformed` would raise, without raising it."""
    try:
        malformed(path, line, problem, expected=expected, found=found)
    except InputFormatError as error:
        return error
    raise AssertionError("malformed() always raises")  # pragma: no cover


def _tokens(rest: str, path: str, line: int) -> list[_Token]:
    """Split the part of a line after its record name into words, texts, lists and coordinates."""
    tokens: list[_Token] = []
    for match in _TOKEN.finditer(rest):  # the alternatives tile the text: every character starts one
        raw = match.group(0)
        if match.group("word") is not None:
            tokens.append(_Token("word", raw, raw))
        elif (text := match.group("text")) is not None:
            bad = next((escape for escape in _ESCAPE.finditer(text) if escape.group(1) not in _ESCAPES), None)
            if bad is not None:
                raise _Defect(path, line, "unknown escape in quoted text", expected='\\", \\\\, \\n or \\t',
                              found=bad.group(0))
            if not match.group("text_end"):
                raise _Defect(path, line, "unterminated quoted text", expected='a closing "', found=raw)
            tokens.append(_Token("text", _ESCAPE.sub(lambda escape: _ESCAPES[escape.group(1)], text), raw))
        elif not raw.isspace():
            kind, close = ("list", "]") if raw[0] == "[" else ("coords", ")")
            if not match.group(kind + "_end"):
                what = "member list" if kind == "list" else "coordinates"
                raise _Defect(path, line, f"unterminated {what}", expected=f"a closing {close}", found=raw)
            tokens.append(_Token(kind, match.group(kind), raw))
    return tokens


def _identifier(token: _Token | None, path: str, line: int, what: str, shape: str, text: str) -> str:
    if token is None or token.kind != "word":
        raise _Defect(path, line, f"missing {what}", expected=shape, found=text)
    if any(char in token.value for char in ",])"):
        raise _Defect(path, line, f"bad {what}", expected="an identifier without , ] or )", found=token.value)
    return token.value


def _optional_text(tokens: list[_Token], index: int) -> tuple[str, int]:
    if index < len(tokens) and tokens[index].kind == "text":
        return tokens[index].value, index + 1
    return "", index


def _no_more(tokens: list[_Token], index: int, path: str, line: int, record: str) -> None:
    if index < len(tokens):
        raise _Defect(path, line, f"unexpected field in {record} line", expected=_SHAPES[record],
                      found=tokens[index].raw)


def _type(tokens: list[_Token], index: int, path: str, line: int, what: str, record: str, text: str,
          known: tuple[str, ...]) -> str:
    """The node or edge type at ``tokens[index]``, lower-cased; a defect unless one of ``known``."""
    if len(tokens) <= index or tokens[index].kind != "word":
        raise _Defect(path, line, f"missing {what} type", expected=_SHAPES[record], found=text)
    if tokens[index].value.lower() not in known:
        raise _Defect(path, line, f"unknown {what} type", expected="one of " + ", ".join(known),
                      found=tokens[index].value)
    return tokens[index].value.lower()


def _parse_node(tokens: list[_Token], path: str, line: int, text: str) -> Node:
    node_id = _identifier(tokens[0] if tokens else None, path, line, "node identifier", _SHAPES["NO"], text)
    node_type = _type(tokens, 1, path, line, "node", "NO", text, NODE_TYPES)
    label, index = _optional_text(tokens, 2)
    position = None
    if index < len(tokens) and tokens[index].kind == "coords":
        parts = [part.strip() for part in tokens[index].value.split(",")]
        if len(parts) != 2 or not all(_NUMBER.fullmatch(part) for part in parts):
            raise _Defect(path, line, "bad coordinates", expected="(x,y) with two numbers", found=tokens[index].raw)
        position = (float(parts[0]), float(parts[1]))
        index += 1
    _no_more(tokens, index, path, line, "NO")
    return Node(node_id, node_type, label, position)


def _parse_meta_node(tokens: list[_Token], path: str, line: int, text: str) -> MetaNode:
    shape = _SHAPES["MN"]
    meta_id = _identifier(tokens[0] if tokens else None, path, line, "meta-node identifier", shape, text)
    if len(tokens) < 2 or tokens[1].kind != "list":
        raise _Defect(path, line, "missing member list", expected=shape, found=text)
    members = tuple(part.strip() for part in tokens[1].value.split(",")) if tokens[1].value.strip() else ()
    if any(not member or any(char.isspace() or char in '"[(' for char in member) for member in members):
        raise _Defect(path, line, "bad member list", expected="[id,id,...]", found=tokens[1].raw)
    label, index = _optional_text(tokens, 2)
    _no_more(tokens, index, path, line, "MN")
    return MetaNode(meta_id, members, label)


def _parse_edge(record: str, tokens: list[_Token], path: str, line: int, text: str) -> Edge:
    shape = _SHAPES[record]
    source = _identifier(tokens[0] if tokens else None, path, line, "start node", shape, text)
    target = _identifier(tokens[1] if len(tokens) > 1 else None, path, line, "end node", shape, text)
    edge_type = _type(tokens, 2, path, line, "edge", record, text, EDGE_TYPES)
    label, index = _optional_text(tokens, 3)
    _no_more(tokens, index, path, line, record)
    return Edge(source, target, record == "DE", edge_type, label)


def parse_flowchart(text: str, *, source: str | os.PathLike[str] = "<string>") -> FlowchartCheck:
    """Read the encoding from a string; return the flowchart of its good lines and all defects.

    Parameters
    ----------
    text : str
        The content of one flowchart file.
    source : path-like, optional
        The name used in messages.

    Returns
    -------
    FlowchartCheck
        ``(flowchart, defects)``; ``defects`` is sorted by line (file-wide defects last) and
        empty for a valid file.
    """
    path = os.fspath(source)
    defects: list[InputFormatError] = []
    title: str | None = None
    title_line: int | None = None
    declared: dict[str, int] = {}
    declared_line: dict[str, int] = {}
    nodes: list[tuple[int, Node | MetaNode]] = []
    meta_nodes: list[tuple[int, Node | MetaNode]] = []
    edges: list[tuple[int, Edge]] = []
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for number, raw in enumerate(lines, start=1):
        stripped = raw.strip()  # a CRLF line's \r goes with the other white space
        if not stripped:
            continue
        record, _, rest = stripped.partition(" ")
        if "\t" in record:  # a tab may separate the record name as well as a space
            record, _, more = record.partition("\t")
            rest = more + " " + rest
        record = record.upper()
        if record == "CO":
            continue
        try:
            if record not in ("MT", "NO", "MN", "DE", "UE"):
                raise _Defect(path, number, "unknown record type", expected=_RECORDS, found=stripped.split()[0])
            tokens = _tokens(rest, path, number)
            if record == "MT":
                if not tokens or tokens[0].kind != "word":
                    raise _Defect(path, number, "incomplete MT line", expected=_MT_FIELDS, found=stripped)
                key = tokens[0].value.upper()
                if key == "TITLE":
                    if len(tokens) != 2 or tokens[1].kind != "text":
                        raise _Defect(path, number, "bad title", expected='MT Title "text"', found=stripped)
                    if title_line is not None:
                        raise _Defect(path, number, f"MT Title given twice (first on line {title_line})")
                    title, title_line = tokens[1].value, number
                elif key in ("NO", "DE", "UE"):
                    declared_line.setdefault(key, number)  # a bad count is not also a missing one
                    if len(tokens) != 2 or tokens[1].kind != "word" or not _COUNT.fullmatch(tokens[1].value):
                        raise _Defect(path, number, f"bad MT {key} count", expected="a non-negative integer",
                                      found=tokens[1].raw if len(tokens) > 1 else stripped)
                    if declared_line[key] != number:
                        raise _Defect(path, number, f"MT {key} given twice (first on line {declared_line[key]})")
                    declared[key] = int(tokens[1].value)
                else:
                    raise _Defect(path, number, "unknown MT field", expected=_MT_FIELDS, found=tokens[0].value)
            elif record == "NO":
                nodes.append((number, _parse_node(tokens, path, number, stripped)))
            elif record == "MN":
                meta_nodes.append((number, _parse_meta_node(tokens, path, number, stripped)))
            else:
                edges.append((number, _parse_edge(record, tokens, path, number, stripped)))
        except _Defect as defect:
            defects.append(defect.error)

    # Identifiers: unique across NO and MN lines (NO lines first); later duplicates are dropped.
    first_line: dict[str, int] = {}
    kept: dict[str, Node | MetaNode] = {}
    for number, item in [*nodes, *meta_nodes]:
        members = item.members if isinstance(item, MetaNode) else ()
        unknown = [member for member in members if not isinstance(kept.get(member), Node)]
        if item.id in first_line:
            defects.append(defect_error(path, number, f"identifier already defined on line {first_line[item.id]}",
                                        found=item.id))
        elif unknown:
            defects.append(defect_error(path, number, "meta-node member is not a NO identifier", found=unknown[0]))
        else:
            first_line[item.id] = number
            kept[item.id] = item
    kept_edges: list[Edge] = []
    for number, edge in edges:
        if missing := [end for end in (edge.source, edge.target) if end not in first_line]:
            defects.append(defect_error(path, number, "edge end is not a NO or MN identifier", found=missing[0]))
            continue
        kept_edges.append(edge)

    # The MT counts are checked against the lines as written (valid or not), so that one
    # defective NO line is reported once, on its own line, and not again as a count mismatch.
    raw_counts = Counter(fields[0].upper() for fields in map(str.split, lines) if fields)
    for key in ("NO", "DE", "UE"):
        if key not in declared_line:
            defects.append(defect_error(path, None, f"missing MT {key} line", expected=f"'MT {key} <count>'"))
        elif key in declared and declared[key] != raw_counts[key]:
            defects.append(defect_error(path, declared_line[key], f"MT {key} does not match the {key} lines",
                                        expected=str(declared[key]), found=raw_counts[key]))
    defects.sort(key=lambda error: (error.line is None, error.line or 0))
    flowchart = Flowchart(title, tuple(item for item in kept.values() if isinstance(item, Node)),
                          tuple(item for item in kept.values() if isinstance(item, MetaNode)), tuple(kept_edges),
                          declared=dict(declared))
    return FlowchartCheck(flowchart, defects)


def check_flowchart(path: str | os.PathLike[str]) -> FlowchartCheck:
    """Read a flowchart file and report all its defects (see :func:`parse_flowchart`).

    A file that cannot be read as text at all (missing, empty, binary, not UTF-8) raises
    :class:`pateval.errors.InputFormatError`.
    """
    path = Path(path)
    data = read_bytes(path)  # refuses a missing, empty or binary file, as every reader of pateval
    data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        malformed(path, data.count(b"\n", 0, error.start) + 1, "not UTF-8 text",
                  found=data[error.start : error.start + 8])
    return parse_flowchart(text, source=path)


def read_flowchart(path: str | os.PathLike[str]) -> Flowchart:
    """Read a flowchart file strictly: raise the first defect (by line) if there is any."""
    flowchart, defects = check_flowchart(path)
    if defects:
        raise defects[0]
    return flowchart
