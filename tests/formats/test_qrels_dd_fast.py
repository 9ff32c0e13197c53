"""TREC DD qrels: the vectorised reader and the line-by-line reader agree exactly.

The fast path (Arrow's CSV reader and a duplicate check on the passage ids) reads regular
files and hands anything else to the careful path; whichever path reads a file, the
qrels (columns, values, order, format, notes) and every error message must be the same.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pateval import tuning
from pateval.core.qrels import Qrels
from pateval.formats import qrels as qrels_module
from pateval.formats.qrels import _read_fast, read_qrels
from pateval.formats.source import map_file


def _careful(path, monkeypatch, **options):
    """The line-by-line reader alone."""
    with monkeypatch.context() as patch:
        patch.setattr(qrels_module, "_read_fast", lambda *args, **kwargs: None)
        return read_qrels(path, **options)


def _outcome(read):
    try:
        return read(), None
    except Exception as error:  # noqa: BLE001 - whatever the careful path raises, the fast path must too
        return None, (type(error).__name__, str(error))


def _assert_same(a, b) -> None:
    assert (a.format, a.source, a.notes, len(a)) == (b.format, b.source, b.notes, len(b))
    assert a.rel.dtype == b.rel.dtype == np.int64 and a.rel.tolist() == b.rel.tolist()
    for column in ("topic", "subtopic", "docno", "passage"):
        x, y = getattr(a, column), getattr(b, column)
        assert (x is None) == (y is None), column
        if x is not None:
            assert list(x) == list(y), column
    assert a.extra.keys() == b.extra.keys()


def _check(path, monkeypatch, *, fast_expected: bool | None = None, **options):
    """Read ``path`` both ways and compare; ``fast_expected`` says whether the fast path must
    take the file (True) or hand it on (False)."""
    if fast_expected is not None:
        taken = _read_fast(path, *map_file(path), options.get("format", "auto")) is not None
        assert taken == fast_expected
    got, error = _outcome(lambda: read_qrels(path, **options))
    want, want_error = _outcome(lambda: _careful(path, monkeypatch, **options))
    assert error == want_error
    if want is not None:
        _assert_same(got, want)
    return want, want_error


def _write(tmp_path, content: bytes | str, name: str = "qrels.txt"):
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def _dd_lines(n_topics: int = 5, seed: int = 3, *, passage=lambda k: str(k)) -> list[str]:
    """Lines as the benchmark writes them: passages numbered in file order."""
    rng = np.random.default_rng(seed)
    out, k = [], 0
    for t in range(1, n_topics + 1):
        for s in range(1, int(rng.integers(2, 5)) + 1):
            for d in rng.choice(30, size=int(rng.integers(2, 6)), replace=False):
                for _ in range(int(rng.integers(1, 3))):
                    k += 1
                    out.append(f"DD-{t}\tDD-{t}.{s}\tDD-{t}-d{d}\t{passage(k)}\t{int(rng.integers(0, 5))}")
    return out


def _text(lines: list[str], end: str = "\n") -> str:
    return end.join(lines) + end


@pytest.mark.parametrize("fmt", ["dd", "auto"])
def test_regular_files_are_read_fast_and_equal(tmp_path, monkeypatch, fmt):
    lines = _dd_lines()
    path = _write(tmp_path, _text(lines))
    qrels, _ = _check(path, monkeypatch, fast_expected=True, format=fmt)
    assert qrels.format == "dd" and len(qrels) == len(lines)
    fast = read_qrels(path, format=fmt)
    assert isinstance(fast.arrow("topic"), pa.Array) and fast.codes("subtopic")[1].to_pylist() == list(
        dict.fromkeys(line.split("\t")[1] for line in lines))


@pytest.mark.parametrize("name, passage", [
    ("shuffled", lambda k: str((k * 7919) % 100003)),  # distinct, out of order: the sort
    ("long", lambda k: f"passage-number-{k}"),  # over 8 bytes: fingerprints per subtopic
    ("mixed", lambda k: f"p{k}" if k % 3 else f"a-much-longer-passage-id-{k}"),
    ("exactly-8", lambda k: f"{k:08d}"),
    ("one-byte", lambda k: chr(0x21 + k % 90)),  # distinct: fewer lines than characters
    ("control", lambda k: f"\x01{k}" if k % 2 else str(k - 1)),  # "\x011" and "1" differ
])
def test_passage_id_shapes(tmp_path, monkeypatch, name, passage):
    path = _write(tmp_path, _text(_dd_lines(passage=passage)))
    _check(path, monkeypatch, fast_expected=True, format="dd")


def test_nearly_sorted_passages_take_the_stable_sort(tmp_path, monkeypatch):
    ids = list(range(1, 3001))
    ids[100], ids[2000] = ids[2000], ids[100]
    lines = [f"T{k % 4}\tT{k % 4}.{k % 3}\td{k}\t{p}\t1" for k, p in enumerate(ids)]
    _check(_write(tmp_path, _text(lines)), monkeypatch, fast_expected=True, format="dd")
    ids[5] = ids[2999]  # one id twice, in different subtopics: still distinct items
    lines = [f"T{k % 4}\tT{k % 4}.{k % 3}\td{k}\t{p}\t1" for k, p in enumerate(ids)]
    lines[5] = "T9\tT9.1\td5\t3000\t1"
    _check(_write(tmp_path, _text(lines), "b.txt"), monkeypatch, fast_expected=True, format="dd")


def test_real_dd_qrels(test_data, monkeypatch):
    _check(test_data / "trecdd" / "qrels.txt.gz", monkeypatch, fast_expected=True, format="dd")


@pytest.mark.parametrize("lines, fast", [
    # the same passage id in two subtopics of a topic, and in two topics: distinct items
    (["T1\tT1.1\td1\t7\t1", "T1\tT1.2\td1\t7\t2", "T2\tT2.1\td1\t7\t0"], True),
    # subtopic ids shared by the topics (1, 2, ...): the pairs are the groups
    (["T1\t1\td1\t7\t1", "T2\t1\td1\t7\t2", "T1\t2\td1\t7\t3", "T2\t2\td2\t7\t1"], True),
    # a passage id twice in one subtopic, of different documents: distinct items
    (["T1\tT1.1\td1\t7\t1", "T1\tT1.1\td2\t7\t2"], True),
    (["T1\tT1.1\td1\tpassage-7-long\t1", "T1\tT1.1\td2\tpassage-7-long\t2"], True),
    # repeated items: merged with a note, or a conflict
    (["T1\tT1.1\td1\t7\t1", "T1\tT1.1\td1\t7\t1"], False),
    (["T1\tT1.1\td1\t7\t1", "T1\tT1.1\td1\t7\t2"], False),
    (["T1\t1\td1\t7\t1", "T2\t1\td1\t7\t2", "T1\t1\td1\t7\t1"], False),
    (["T1\tT1.1\td1\tpassage-7-long\t1", "T1\tT1.1\td2\tp8\t1", "T1\tT1.1\td1\tpassage-7-long\t1"], False),
], ids=["across-groups", "shared-subtopic-ids", "same-passage-other-doc", "same-long-passage-other-doc",
        "identical", "conflict", "identical-shared-subtopic", "identical-long"])
def test_repeated_ids(tmp_path, monkeypatch, lines, fast):
    path = _write(tmp_path, _text(lines))
    _check(path, monkeypatch, fast_expected=fast, format="dd")
    _check(path, monkeypatch, format="dd", on_duplicate="first")


_BASE = ["DD-1\tDD-1.1\tdoc-1\t11\t3", "DD-1\tDD-1.2\tdoc-2\t12\t1", "DD-2\tDD-2.1\tdoc-3\t13\t0"]


def _edit(line: int, field: int, value: str) -> list[str]:
    lines = [row.split("\t") for row in _BASE]
    lines[line][field] = value
    return ["\t".join(row) for row in lines]


@pytest.mark.parametrize("content", [
    # padded fields (the careful path strips them), in every column, by several kinds of space
    *[_text(_edit(1, f, pad)) for f in range(5)
      for pad in (" x", "x ", "\u00a0x", "x\u3000", "x\x0b", "\x1fx", " 2 ")],
    # spaces inside fields
    _text(_edit(1, 2, "doc 2")), _text(_edit(0, 0, "DD 1")), _text(_edit(2, 3, "1 3")),
    # empty fields, doubled or trailing tabs, lines of tabs only, blank lines
    _text(_edit(1, 2, "")), _text(_edit(0, 4, "")), _text(_edit(2, 0, "")),
    _text(_BASE[:1] + ["DD-1\tDD-1.2\t\tdoc-2\t12\t1"] + _BASE[2:]),
    _text([row + "\t" for row in _BASE]), _text(_BASE[:1] + ["\t\t\t\t"] + _BASE[1:]),
    _text(_BASE[:1] + ["\t"] + _BASE[1:]), _text(_BASE[:1] + ["", ""] + _BASE[1:]),
    _text(_BASE[:1] + ["   "] + _BASE[1:]), "\n\n" + _text(_BASE), _text(_BASE)[:-1],
    # CRLF line ends, a lone CR, a byte-order mark
    _text(_BASE, "\r\n"), _text(_BASE).replace("\n", "\r", 1), "\ufeff" + _text(_BASE),
    # too few or too many fields
    _text(_BASE[:2] + ["DD-2\tDD-2.1\tdoc-3\t13"]), _text(_BASE[:2] + ["DD-2\tDD-2.1\tdoc-3\t13\t0\tx"]),
    # ratings: signs, leading zeros, out of range, not integers, other scripts' digits
    *[_text(_edit(1, 4, r)) for r in ("+1", "-1", "-0", "007", "1.0", "1e3", "9223372036854775807",
                                      "9223372036854775808", "-9223372036854775809", "x", "\u0663", "1_0")],
    # quotes are plain characters
    _text(_edit(1, 2, '"doc-2"')), _text(_edit(1, 3, '"12')),
], ids=lambda content: repr(content)[:60])
def test_irregular_files_read_as_the_careful_path_reads_them(tmp_path, monkeypatch, content):
    path = _write(tmp_path, content)
    for fmt in ("dd", "auto"):
        _check(path, monkeypatch, format=fmt)


@pytest.mark.parametrize("raw", [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80"])
@pytest.mark.parametrize("field", range(5))
def test_invalid_utf8_anywhere(tmp_path, monkeypatch, raw, field):
    lines = [row.encode() for row in _BASE]
    fields = lines[1].split(b"\t")
    fields[field] += raw
    lines[1] = b"\t".join(fields)
    path = _write(tmp_path, b"\n".join(lines) + b"\n")
    assert _read_fast(path, *map_file(path), "dd") is None
    _, error = _check(path, monkeypatch, format="dd")
    assert error is not None and "line 2: not valid UTF-8 text" in error[1]


def test_non_ascii_ids_are_read_fast(tmp_path, monkeypatch):
    lines = ["Thème-1\tThème-1.1\tdöc-1\tπ1\t1", "Thème-1\tThème-1.1\tdöc-1\tπ2\t2",
             "主题\t主题.1\t文档\t段落-一-很长的\t0"]
    _check(_write(tmp_path, _text(lines)), monkeypatch, fast_expected=True, format="dd")


def test_items_distinct_against_a_set():
    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.integers(1, 40))
        rows = [(f"T{rng.integers(0, 3)}", f"S{rng.integers(0, 3)}", f"d{rng.integers(0, 3)}",
                 str(rng.choice(["1", "2", "3", "long-passage-id-1", "long-passage-id-2"]))) for _ in range(n)]
        columns = list(zip(*rows, strict=False))
        qrels = Qrels.from_columns(*columns[::2], np.ones(n, dtype=np.int64), subtopics=columns[1],
                                   passages=columns[3], on_duplicate="first")
        assert (not qrels.notes) == (len(set(rows)) == len(rows))


_FIELD = st.sampled_from(["a", "b", "1", "12", "DD-1", "DD-1.1", "passage-long-1", "passage-long-2",
                          " a", "b ", "\u00a0", "", "é", "a b"])
_RATING = st.sampled_from(["0", "1", "2", "-1", "+1", "01", "x", ""])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(_FIELD, _FIELD, _FIELD, _FIELD, _RATING), min_size=1, max_size=12),
       end=st.sampled_from(["\n", "\r\n"]), fmt=st.sampled_from(["dd", "auto"]),
       on_duplicate=st.sampled_from(["error", "first"]))
def test_random_files(tmp_path, monkeypatch, rows, end, fmt, on_duplicate):
    path = _write(tmp_path, end.join("\t".join(row) for row in rows) + end)
    _check(path, monkeypatch, format=fmt, on_duplicate=on_duplicate)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(st.sampled_from(["T1", "T2"]), st.sampled_from(["1", "2", "T1.1"]),
                               st.sampled_from(["d1", "d2"]), st.sampled_from(["7", "8", "passage-long-9"]),
                               st.sampled_from(["0", "1", "3"])), min_size=1, max_size=10))
def test_random_regular_files(tmp_path, monkeypatch, rows):
    """Regular files: the fast path takes exactly those without a repeated item."""
    path = _write(tmp_path, "".join("\t".join(row) + "\n" for row in rows))
    items = [row[:4] for row in rows]
    _check(path, monkeypatch, fast_expected=len(set(items)) == len(items), format="dd")


@pytest.mark.parametrize("block", [3, 16])
def test_repeats_across_blocks(tmp_path, monkeypatch, block):
    """Ids ascending within each block of the check but repeated across blocks."""
    monkeypatch.setattr(tuning, "ID_BLOCK_ROWS", block)
    lines = [f"T1\tT1.1\td{k % 5}\t{k % 20 + 1}\t1" for k in range(40)]  # lines k and k + 20 repeat
    _check(_write(tmp_path, _text(lines)), monkeypatch, fast_expected=False, format="dd")
    lines = [f"T1\tT1.{1 + k // 20}\td{k % 5}\t{k % 20 + 1}\t1" for k in range(40)]  # other subtopics: distinct
    _check(_write(tmp_path, _text(lines), "b.txt"), monkeypatch, fast_expected=True, format="dd")


def test_files_parsed_in_several_blocks(tmp_path, monkeypatch):
    """A file larger than the CSV block: the columns come in chunks and are joined."""
    monkeypatch.setattr(tuning, "DD_QRELS_BLOCK_BYTES", 1 << 10)
    lines = _dd_lines(n_topics=20)
    path = _write(tmp_path, _text(lines))
    assert len(path.read_bytes()) > 8 << 10
    qrels, _ = _check(path, monkeypatch, fast_expected=True, format="dd")
    assert len(qrels) == len(lines)
