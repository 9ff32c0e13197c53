"""The CLEF-IP flowchart encoding: reading, validation messages, writing and round trips."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pateval.errors import InputFormatError, ParameterError
from pateval.flowchart import (
    EDGE_TYPES,
    NODE_TYPES,
    Edge,
    Flowchart,
    MetaNode,
    Node,
    check_flowchart,
    format_flowchart,
    parse_flowchart,
    read_flowchart,
    write_flowchart,
)

GOOD = """MT Title "Fig. 3"
MT NO 4
MT DE 3
MT UE 1
CO a comment line
NO 1 oval "START" (10,20)
NO 2 rectangle "READ \\"X\\"\\nAND Y" (10.5, -3e2)
NO 3 diamond "X?"
NO 4 no-box
MN M1 [2, 3] "LOOP BODY"
DE 1 2 plain
DE 2 3 dotted "yes"
DE M1 1 plain
UE 4 2 wiggly

co lowercase comments too
"""


def messages(text: str) -> list[str]:
    return [str(error) for error in parse_flowchart(text, source="f.txt").defects]


def test_good_file_reads_every_record():
    flowchart, defects = parse_flowchart(GOOD, source="good.txt")
    assert defects == []
    assert flowchart.title == "Fig. 3"
    assert flowchart.nodes == (
        Node("1", "oval", "START", (10.0, 20.0)),
        Node("2", "rectangle", 'READ "X"\nAND Y', (10.5, -300.0)),
        Node("3", "diamond", "X?"),
        Node("4", "no-box", ""),
    )
    assert flowchart.meta_nodes == (MetaNode("M1", ("2", "3"), "LOOP BODY"),)
    assert flowchart.edges == (
        Edge("1", "2", True, "plain"),
        Edge("2", "3", True, "dotted", "yes"),
        Edge("M1", "1", True, "plain"),
        Edge("4", "2", False, "wiggly"),
    )
    assert flowchart.declared == {"NO": 4, "DE": 3, "UE": 1}


def test_real_clefip_fragment_parses_and_reports_its_truncation(test_data: Path):
    path = test_data / "clefip" / "clefip2012_flowchart_output_fragment.txt"
    flowchart, defects = check_flowchart(path)
    # The published fragment stops inside the first node's text: the header and the
    # comments read; the cut line and the counts it leaves unmet are reported with their lines.
    assert flowchart.title == "Fig.7"
    assert flowchart.declared == {"NO": 10, "DE": 5, "UE": 4}
    assert flowchart.nodes == () and flowchart.edges == ()
    assert [str(error) for error in defects] == [
        f"{path}, line 2: MT NO does not match the NO lines (expected 10, found 1)",
        f"{path}, line 3: MT DE does not match the DE lines (expected 5, found 0)",
        f"{path}, line 4: MT UE does not match the UE lines (expected 4, found 0)",
        f"{path}, line 7: unterminated quoted text (expected a closing \", found '\"B')",
    ]
    with pytest.raises(InputFormatError, match="line 2: MT NO does not match"):
        read_flowchart(path)


def test_fragment_completed_with_its_announced_lines_is_valid(test_data: Path, tmp_path: Path):
    # The fragment's own header announces 10 nodes, 5 directed and 4 undirected edges;
    # finishing the cut text and adding lines of those kinds makes it valid.
    text = (test_data / "clefip" / "clefip2012_flowchart_output_fragment.txt").read_text()
    lines = text.rstrip("\n") + '"\n'
    lines += "".join(f'NO {i} rectangle "STEP {i}"\n' for i in range(2, 11))
    lines += "".join(f"DE {i} {i + 1} plain\n" for i in range(1, 6))
    lines += "".join(f"UE {i} {i + 1} wiggly\n" for i in range(6, 10))
    path = tmp_path / "fig7.txt"
    path.write_text(lines)
    flowchart = read_flowchart(path)
    assert flowchart.nodes[0] == Node("1", "oval", "B")
    assert flowchart.counts() == {"NO": 10, "DE": 5, "UE": 4}


HEADER = "MT NO 1\nMT DE 0\nMT UE 0\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (HEADER + 'NO 1 blob "x"\n',
         "f.txt, line 4: unknown node type (expected one of " + ", ".join(NODE_TYPES) + ", found 'blob')"),
        ("MT NO 0\nMT DE 0\nMT UE 0\nXX 1 2\n",
         "f.txt, line 4: unknown record type (expected one of MT, NO, MN, DE, UE, CO, found 'XX')"),
        (HEADER + 'NO 1 oval "a\\qb"\n',
         "f.txt, line 4: unknown escape in quoted text (expected \\\", \\\\, \\n or \\t, found '\\\\q')"),
        (HEADER + "NO 1 oval (1;2)\n",
         "f.txt, line 4: bad coordinates (expected (x,y) with two numbers, found '(1;2)')"),
        (HEADER + "NO 1 oval (1,2\n", "f.txt, line 4: unterminated coordinates (expected a closing ), found '(1,2')"),
        (HEADER + 'NO 1 oval "a" "b"\n',
         "f.txt, line 4: unexpected field in NO line (expected NO id node-type [\"text\"] [(x,y)], found '\"b\"')"),
        (HEADER + "NO 1\n",
         "f.txt, line 4: missing node type (expected NO id node-type [\"text\"] [(x,y)], found 'NO 1')"),
        ("MT NO x\nMT DE 0\nMT UE 0\n", "f.txt, line 1: bad MT NO count (expected a non-negative integer, found 'x')"),
        ("MT NO 0\nMT DE 0\nMT UE 0\nMT Color 3\n",
         "f.txt, line 4: unknown MT field (expected Title, NO, DE or UE, found 'Color')"),
        ("MT Title Fig1\nMT NO 0\nMT DE 0\nMT UE 0\n",
         "f.txt, line 1: bad title (expected MT Title \"text\", found 'MT Title Fig1')"),
        ("MT NO 0\nMT NO 0\nMT DE 0\nMT UE 0\n", "f.txt, line 2: MT NO given twice (first on line 1)"),
        ("MT NO 0\nMT DE 0\n", "f.txt: missing MT UE line (expected 'MT UE <count>')"),
        ("MT NO 2\nMT DE 0\nMT UE 0\nNO 1 oval\nNO 1 rectangle\n",
         "f.txt, line 5: identifier already defined on line 4 (found '1')"),
        ("MT NO 1\nMT DE 1\nMT UE 0\nNO 1 oval\nDE 1 9 plain\n",
         "f.txt, line 5: edge end is not a NO or MN identifier (found '9')"),
        ("MT NO 1\nMT DE 1\nMT UE 0\nNO 1 oval\nDE 1 1 bold\n",
         "f.txt, line 5: unknown edge type (expected one of " + ", ".join(EDGE_TYPES) + ", found 'bold')"),
        ("MT NO 1\nMT DE 1\nMT UE 0\nNO 1 oval\nDE 1 plain\n",
         "f.txt, line 5: missing edge type (expected DE start end edge-type [\"label\"], found 'DE 1 plain')"),
        (HEADER + "NO 1 oval\nMN M [1,7]\n", "f.txt, line 5: meta-node member is not a NO identifier (found '7')"),
        (HEADER + "NO 1 oval\nMN M 1\n",
         "f.txt, line 5: missing member list (expected MN id [id,id,...] [\"text\"], found 'MN M 1')"),
        (HEADER + "NO 1 oval\nMN M [1,,]\n", "f.txt, line 5: bad member list (expected [id,id,...], found '[1,,]')"),
        (HEADER + "NO 1 oval\nMN M [1\n", "f.txt, line 5: unterminated member list (expected a closing ], found '[1')"),
        ("MT NO 1\nMT DE 0\nMT UE 2\nNO 1 oval\nUE 1 1 plain\n",
         "f.txt, line 3: MT UE does not match the UE lines (expected 2, found 1)"),
    ],
)
def test_each_defect_has_its_exact_message(text, expected):
    assert messages(text) == [expected]


def test_all_defects_are_reported_in_line_order_and_good_lines_kept():
    text = 'MT NO 3\nMT DE 1\nNO 1 oval\nNO 2 blob\nNO 3 rectangle "ok"\nDE 1 7 plain\n'
    check = parse_flowchart(text, source="f.txt")
    assert [error.line for error in check.defects] == [4, 6, None]
    assert [node.id for node in check.flowchart.nodes] == ["1", "3"]
    assert check.flowchart.edges == ()


@pytest.mark.parametrize("name, content, problem", [
    ("none.txt", None, "no such file"),
    ("latin1.txt", b'MT NO 0\nMT Title "\xe9"\n', "line 2: not UTF-8 text (found '\\\\xe9\"\\n')"),
    # read as every text input of pateval is read (formats.source.read_bytes)
    ("empty.txt", b" \n", "the file is empty"),
    ("nul.txt", b"MT NO 0\n\x00\n", "line 2: binary data (a NUL byte) in a text file"),
])
def test_bad_input_files(tmp_path: Path, name, content, problem):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(InputFormatError) as caught:
        read_flowchart(path)
    separator = ", " if problem.startswith("line ") else ": "
    assert str(caught.value) == f"{path}{separator}{problem}"


def test_crlf_tabs_case_and_bom_are_read(tmp_path: Path):
    path = tmp_path / "dos.txt"
    path.write_bytes(b'\xef\xbb\xbfMT\tNO 1\r\nmt de 0\r\nMT UE 0\r\nno 1 OVAL "a"\r\n')
    assert read_flowchart(path).nodes == (Node("1", "oval", "a"),)


def test_writer_output_and_atomic_file(tmp_path: Path):
    flowchart = parse_flowchart(GOOD).flowchart
    text = format_flowchart(flowchart)
    assert text.splitlines()[:6] == [
        'MT Title "Fig. 3"',
        "MT NO 4",
        "MT DE 3",
        "MT UE 1",
        'NO 1 oval "START" (10,20)',
        'NO 2 rectangle "READ \\"X\\"\\nAND Y" (10.5,-300)',
    ]
    path = tmp_path / "out" / "fig.txt"
    write_flowchart(flowchart, path)
    assert read_flowchart(path) == flowchart
    assert [p.name for p in path.parent.iterdir()] == ["fig.txt"]


def test_writer_refuses_what_the_encoding_cannot_hold():
    with pytest.raises(ParameterError, match="identifier 'a b' cannot be written"):
        format_flowchart(Flowchart(nodes=(Node("a b", "oval"),)))
    with pytest.raises(ParameterError, match="has type 'hexagon'"):
        format_flowchart(Flowchart(nodes=(Node("1", "hexagon"),)))


texts = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc"),
                                       blacklist_characters="\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
                | st.sampled_from('\n\t"\\'), max_size=12)
identifiers = st.from_regex(r"[A-Za-z0-9_.\-]{1,4}", fullmatch=True)
numbers = st.floats(allow_nan=False, allow_infinity=False, width=32)


@st.composite
def flowcharts(draw):
    ids = draw(st.lists(identifiers, min_size=0, max_size=6, unique=True))
    node_ids, meta_ids = ids[: max(0, len(ids) - 1)], ids[max(0, len(ids) - 1) :] if len(ids) > 1 else []
    nodes = tuple(
        Node(i, draw(st.sampled_from(NODE_TYPES)), draw(texts), draw(st.none() | st.tuples(numbers,
                                                                                           numbers))) for i in node_ids
    )
    metas = tuple(MetaNode(m, tuple(draw(st.lists(st.sampled_from(node_ids), max_size=3, unique=True))),
                           draw(texts)) for m in meta_ids if node_ids)
    ends = [node.id for node in nodes] + [meta.id for meta in metas]
    edges = ()
    if ends:
        edges = tuple(
            Edge(draw(st.sampled_from(ends)), draw(st.sampled_from(ends)), draw(st.booleans()),
                 draw(st.sampled_from(EDGE_TYPES)), draw(texts))
            for _ in range(draw(st.integers(0, 6)))
        )
    return Flowchart(draw(st.none() | texts), nodes, metas, edges)


@settings(max_examples=80, deadline=None)
@given(flowcharts())
def test_writing_then_reading_gives_the_flowchart_back(flowchart):
    check = parse_flowchart(format_flowchart(flowchart))
    assert check.defects == []
    assert check.flowchart == flowchart
