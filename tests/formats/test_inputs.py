"""The files people have: compressed inputs (by content), standard input, named pipes,
comment lines and ir_metadata blocks, read through the one source layer (formats.source)."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import subprocess
import sys
import threading

import pytest

import pateval
from pateval.cli import main
from pateval.errors import InputFormatError
from pateval.formats.doclengths import read_doc_lengths
from pateval.formats.qrels import read_qrels
from pateval.formats.trec import read_run

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d4 1\nq2 0 d5 1\n"
RUN = "".join(f"{q} Q0 {d} {r} {s} bm25\n" for q, d, r, s in [
    ("q1", "d3", 1, 3.5), ("q1", "d9", 2, 2.0), ("q1", "d1", 3, 1.0),
    ("q2", "d5", 1, 9.0), ("q2", "d4", 2, 8.0), ("q2", "d7", 3, 1.0)])
COMPRESSORS = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}
MEASURES = ["AP", "P@2", "nDCG@3", "NumRet"]


def _values(qrels, run) -> dict:
    frame = pateval.evaluate(qrels, run, MEASURES)
    return {(t, m): v for t, m, v in zip(frame["topic"], frame["measure"], frame["value"], strict=False)}


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
@pytest.mark.parametrize("suffix", ["", ".gz", ".txt"])
def test_compressed_runs_and_qrels_give_the_plain_files_numbers(tmp_path, kind, suffix):
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    expected = _values(tmp_path / "q.txt", tmp_path / "r.txt")
    # recognised by content: the name says nothing (or something else)
    (tmp_path / f"q{suffix}").write_bytes(COMPRESSORS[kind](QRELS.encode()))
    (tmp_path / f"r.run{suffix}").write_bytes(COMPRESSORS[kind](RUN.encode()))
    assert _values(tmp_path / f"q{suffix}", tmp_path / f"r.run{suffix}") == expected


def test_a_multi_member_gzip_file_is_read_whole(tmp_path):
    path = tmp_path / "r.gz"
    half = len(RUN) // 2
    cut = RUN.index("\n", half) + 1
    path.write_bytes(gzip.compress(RUN[:cut].encode()) + gzip.compress(RUN[cut:].encode()))
    assert len(read_run(path)) == 6


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_a_bad_line_in_a_compressed_file_has_the_plain_files_message(tmp_path, kind):
    bad = RUN.replace("q2 Q0 d4 2 8.0 bm25", "q2 Q0 d4 2 eight bm25")
    plain, packed = tmp_path / "r.txt", tmp_path / "r.txt.z"
    plain.write_text(bad)
    packed.write_bytes(COMPRESSORS[kind](bad.encode()))
    with pytest.raises(InputFormatError) as error:
        read_run(packed)
    assert str(error.value) == (f"{packed}, line 5: the score (5th column) is not a number "
                                "(expected a decimal number, found 'eight')")
    with pytest.raises(InputFormatError) as plain_error:
        read_run(plain)
    assert str(plain_error.value) == str(error.value).replace(str(packed), str(plain))


def test_a_truncated_or_damaged_compressed_file_is_named(tmp_path):
    packed = gzip.compress(RUN.encode())
    truncated = tmp_path / "cut.gz"
    truncated.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(InputFormatError) as error:
        read_run(truncated)
    assert str(error.value) == (f"{truncated}: the gzip data is truncated "
                                "(the file ends before its end-of-stream marker)")
    damaged = tmp_path / "bad.xz"
    damaged.write_bytes(b"\xfd7zXZ\x00" + b"not xz at all")
    with pytest.raises(InputFormatError, match=r"^.*bad\.xz: not valid xz data: "):
        read_qrels(damaged)


def test_comment_lines_are_skipped_and_line_numbers_kept(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("# a comment\n#another\n" + RUN.replace("q1 Q0 d9", "#q1 Q0 d9"))
    run = read_run(path)
    assert len(run) == 5 and "d9" not in set(run.docnos)
    path.write_text("# comment\nq1 Q0 d1 1 1.0 bm25\n# comment\nq1 Q0 d2 x 1.0 bm25\n")
    with pytest.raises(InputFormatError, match=r"line 4: the rank \(4th column\) is not an integer"):
        read_run(path)
    # a '#' after white space is not a comment (trec_eval looks at the first character only)
    path.write_text("q1 Q0 d1 1 1.0 bm25\n #x\n")
    with pytest.raises(InputFormatError, match="line 2: wrong number of columns"):
        read_run(path)
    qrels = tmp_path / "q.txt"
    qrels.write_text("# judged by the assessors\n" + QRELS + "#q3 0 d1 1\n")
    assert sorted(read_qrels(qrels).topic_ids) == ["q1", "q2"]
    lengths = tmp_path / "lengths.txt"
    lengths.write_bytes(gzip.compress(b"# words\nd1 10\nd2 20\n"))
    assert dict(read_doc_lengths(lengths)) == {"d1": 10, "d2": 20}


METADATA = """# ir_metadata.start
# tag: bm25
# actor:
#   team: pateval
# ir_metadata.end
"""


def test_an_ir_metadata_block_is_kept_with_the_run(tmp_path):
    path = tmp_path / "r.txt.gz"
    path.write_bytes(gzip.compress((METADATA + RUN).encode()))
    run = read_run(path)
    assert run.metadata == {"ir_metadata": "tag: bm25\nactor:\n  team: pateval\n"}
    assert len(run) == 6
    plain = tmp_path / "plain.txt"
    plain.write_text(RUN)
    assert read_run(plain).metadata == {}
    unclosed = tmp_path / "open.txt"
    unclosed.write_text("# x\n# ir_metadata.start\n# tag: a\n" + RUN)
    with pytest.raises(InputFormatError) as error:
        read_run(unclosed)
    assert str(error.value) == f"{unclosed}, line 2: an ir_metadata block without its '# ir_metadata.end' line"


def test_evaluate_json_shows_the_ir_metadata(tmp_path, capsys):
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(METADATA + RUN)
    assert main(["evaluate", str(tmp_path / "q.txt"), str(tmp_path / "r.txt"), "-m", "AP", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["runs"] == {"bm25": {"source": str(tmp_path / "r.txt"),
                                         "ir_metadata": "tag: bm25\nactor:\n  team: pateval\n"}}
    assert document["rows"] == [{"run": "bm25", "measure": "AP", "topic": "all",
                                 "value": pytest.approx((5 / 6 + 1) / 2)}]


def test_a_named_pipe_is_read_as_a_stream(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    expected = _values(tmp_path / "q.txt", tmp_path / "r.txt")
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)

    def write():
        with open(fifo, "wb") as out:
            out.write(gzip.compress(RUN.encode()))  # a compressed stream, too

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert _values(tmp_path / "q.txt", fifo) == expected
    finally:
        writer.join(timeout=10)


def _pateval(*args, stdin: bytes | None = None):
    return subprocess.run([sys.executable, "-m", "pateval.cli", *args], input=stdin, capture_output=True, timeout=120)


def test_dash_reads_standard_input_and_dash_o_writes_standard_output(tmp_path):
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    plain = _pateval("evaluate", str(tmp_path / "q.txt"), str(tmp_path / "r.txt"), "-m", "AP", "-q")
    piped = _pateval("evaluate", str(tmp_path / "q.txt"), "-", "-m", "AP", "-q", "-o", "-",
                     stdin=gzip.compress(RUN.encode()))
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == plain.stdout and b"all\t0.9167" in piped.stdout
    assert not (tmp_path / "-").exists() and not os.path.exists("-")
    bad = _pateval("evaluate", str(tmp_path / "q.txt"), "-", "-m", "AP", stdin=b"q1 Q0 d1 1 1.0 a\nq1 Q0 d2\n")
    assert bad.returncode == 2
    assert bad.stderr.decode() == ("pateval: error: standard input, line 2: wrong number of columns "
                                   "(expected 6 columns: qid Q0 docno rank score run_id, found 3)\n")


def test_a_bad_line_in_gzipped_qrels_is_reported_with_its_line(tmp_path):
    path = tmp_path / "qrels.gz"
    path.write_bytes(gzip.compress(b"# judged\nq1 0 d1 1\nq1 0 d2 x\n"))
    with pytest.raises(InputFormatError) as error:
        read_qrels(path)
    assert str(error.value) == (f"{path}, line 3: the relevance grade (4th column) is not an integer "
                                "(expected an integer, found 'x')")


def _outcome(read, path):
    try:
        run = read(path)
    except InputFormatError as error:
        return ("error", str(error).replace(str(path), "FILE"))
    return ("run", run.name, list(run.topic_ids[run.topic]), list(run.docnos), run.score.tolist(), run.rank.tolist())


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_FIELDS = st.sampled_from(["q1", "q2", "Q0", "d1", "d2", "d3", "1", "2", "2.5", "-1", "x", "nan", "#", "#c", "run"])
_LINES = st.lists(st.lists(_FIELDS, min_size=0, max_size=7).map(" ".join), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(lines=_LINES, kind=st.sampled_from(sorted(COMPRESSORS)), crlf=st.booleans())
def test_a_compressed_file_reads_as_its_plain_text_or_fails_alike(tmp_path_factory, lines, kind, crlf):
    folder = tmp_path_factory.mktemp("fuzz")
    text = ("\r\n" if crlf else "\n").join(lines) + "\n"
    plain, packed = folder / "plain.txt", folder / "packed.txt"
    plain.write_text(text)
    packed.write_bytes(COMPRESSORS[kind](text.encode()))
    assert _outcome(read_run, packed) == _outcome(read_run, plain)


def test_the_block_pateval_search_writes_is_read_back(tmp_path):
    from pateval.formats.ir_metadata import ir_metadata_lines, yaml_lines

    metadata = {"tag": "bm25", "method": {"retrieval": [{"name": "bm25", "k1": 1.2, "b": 0.75}]}, "automatic": True}
    path = tmp_path / "bm25.run"
    path.write_text("\n".join(ir_metadata_lines(metadata)) + "\n" + RUN)
    run = read_run(path)
    assert run.metadata == {"ir_metadata": "\n".join(yaml_lines(metadata)) + "\n"} and len(run) == 6


def test_dash_is_standard_input_even_beside_a_file_named_dash(tmp_path):
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "-").write_text("left by an old `-o -`\n")
    done = subprocess.run([sys.executable, "-m", "pateval.cli", "evaluate", "q.txt", "-", "-m", "NumRet"],
                          input=RUN.encode(), capture_output=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().splitlines() == ["NumRet                \tall\t6"]


def _held_by_modules(payload: bytes) -> list[str]:
    """The pateval module globals (and what they hold, two levels down) holding ``payload``'s
    bytes or a future: what would outlive the job that read them."""
    from concurrent.futures import Future

    held = []

    def look(value, where: str, depth: int) -> None:
        if isinstance(value, (bytes, bytearray)) and payload in value or isinstance(value, Future):
            held.append(where)
        elif depth and isinstance(value, dict):
            for key, item in list(value.items()):
                look(item, f"{where}[{key!r}]", depth - 1)
        elif depth and isinstance(value, (list, tuple, set)):
            for item in list(value):
                look(item, f"{where}[]", depth - 1)

    for name, module in list(sys.modules.items()):
        if name.startswith("pateval"):
            for attribute, value in list(vars(module).items()):
                look(value, f"{name}.{attribute}", 2)
    return held


def test_nothing_read_from_standard_input_outlives_the_evaluation(tmp_path, monkeypatch):
    """Issue 21 item 5: the kept standard-input bytes and the blocks read ahead are the job's
    own. After an evaluation that read '-' (refused, or scored; a passage run sniffed and
    read), no module holds the bytes, and the next one reads its own standard input."""
    import io

    from pateval.formats import runblocks, source

    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "bad.txt").write_text("q1 0 d1\n")
    first = RUN.replace("bm25", "first-stdin")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(first.encode())))
    with pytest.raises(InputFormatError, match="bad.txt, line 1"):
        pateval.evaluate(tmp_path / "bad.txt", "-", MEASURES)  # the run sniffed, then the qrels refused
    assert _held_by_modules(b"first-stdin") == []
    second = RUN.replace("bm25", "second-stdin").replace("d9", "d2")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(second.encode())))
    frame = pateval.evaluate(tmp_path / "q.txt", "-", MEASURES)
    assert set(frame["run"]) == {"second-stdin"}  # its own standard input, not the kept one
    assert _held_by_modules(b"second-stdin") == []
    passages = ("q1 Q0 d1 /patent-document/description/p[1] 1 2.0\n"
                "q1 Q0 d3 /patent-document/abstract[1]/p[1] 2 1.0\n# passage-stdin\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(passages.encode())))
    assert set(pateval.evaluate(tmp_path / "q.txt", {"psg": "-"}, ["AP"])["run"]) == {"psg"}
    assert _held_by_modules(b"passage-stdin") == []
    assert source._KEPT.get() is None and runblocks._AHEAD.get() is None
    # pateval trec_eval reads its run's first blocks ahead: none outlives the command
    (tmp_path / "r.txt").write_text(RUN)
    assert main(["trec_eval", str(tmp_path / "q.txt"), str(tmp_path / "r.txt")]) == 0
    assert _held_by_modules(b"bm25") == [] and runblocks._AHEAD.get() is None


_PIECES = [b"q1", b" ", b"\n", b"\t", b"#", b"\x00", b"\r", b"\xc3\xa9", b"~", b"!", b"\x7f", b"\x20\xa0"]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64) | st.lists(st.sampled_from(_PIECES), max_size=30).map(b"".join),
       st.sampled_from([b" ", b"\t"]))
def test_plain_text_is_printable_ascii_delimiters_and_newlines_only(data, delimiter):
    # the fast readers' one check of a block: what it lets through, they read without the careful path
    from pateval.formats.source import plain_text

    expected = all((0x21 <= byte <= 0x7E and byte != ord("#")) or byte in (delimiter[0], ord("\n")) for byte in data)
    assert plain_text(data, delimiter=delimiter) == expected


def test_plain_text_counts_across_its_slices(monkeypatch):
    # an odd byte in a later slice of a long block is found too
    import pateval.formats.source as source

    monkeypatch.setattr(source, "_SLICE", 8)
    block = b"q1 Q0 d1 1 2.5 t\n" * 5
    assert source.plain_text(block, delimiter=b" ")
    assert not source.plain_text(block[:-9] + b"\t" + block[-8:], delimiter=b" ")
    assert not source.plain_text(block + b"#x", delimiter=b" ")


@pytest.mark.parametrize("data, delimiter", [
    (b"q1 0 d1 1\nq1 0 d2 0\n", b" "),
    (b"q1\t0\td1\t1\nq1\t0\td2\t0", b"\t"),  # no newline at the end
    (b"q1 0 d1 1\n# a comment\nq1 0 d2 0\n", None),  # comment lines: dropped, the rest looked at
    (b"q1 0 d1 1\nq1 0 d2\t0\n", None),  # white space other than the first line's delimiter
    (b"q1 0 d\xc3\xa9 1\n", None),  # not ASCII: its UTF-8 is checked by the reader
    (b"q1 0 d1 1\r\n", None),
])
def test_map_file_names_the_delimiter_of_a_plain_file_only(tmp_path, data, delimiter):
    # a plain file skips the reader's white-space and UTF-8 checks: any other goes through them
    from pateval.formats.source import map_file, release

    path = tmp_path / "q.txt"
    path.write_bytes(data)
    content, found = map_file(path)
    try:
        assert found == delimiter
        assert bytes(content) == (data if b"#" not in data else b"q1 0 d1 1\nq1 0 d2 0\n")
    finally:
        release(content)


@pytest.mark.parametrize("data, message", [(b"\n\n \n", "the file is empty"),
                                           (b"q1 0 d1 1\nq1 0 d\x002 1\n", r"line 2: binary data \(a NUL byte\)")])
def test_map_file_still_refuses_empty_and_binary_files(tmp_path, data, message):
    from pateval.errors import InputFormatError
    from pateval.formats.source import map_file

    path = tmp_path / "q.txt"
    path.write_bytes(data)
    with pytest.raises(InputFormatError, match=message):
        map_file(path)
