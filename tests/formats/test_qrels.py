"""Reading qrels in every supported format, and the bad-input messages."""

from __future__ import annotations

import re

import numpy as np
import pytest

from pateval.errors import InputFormatError
from pateval.formats.qrels import read_qrels


def _write(tmp_path, name, content: str):
    path = tmp_path / name
    path.write_bytes(content.encode())
    return path


def test_clefip_2010_pac_qrels(test_data):
    qrels = read_qrels(test_data / "clefip" / "PAC_qrels_2010.txt.gz")
    assert qrels.format == "clefip-pac"
    assert len(qrels) == 62950
    assert len(qrels.topic_ids) == 1348
    assert set(np.unique(qrels.rel)) <= {1, 2}


def test_clefip_2010_pac_qrels_with_language(test_data):
    qrels = read_qrels(test_data / "clefip" / "PAC_qrels_2010_with_lang.txt.gz")
    assert qrels.format == "clefip-pac" and len(qrels) == 62950
    languages, counts = np.unique(qrels.extra["lang"], return_counts=True)
    # counted with `cut -d' ' -f5 | sort | uniq -c`; XX = language unknown in the source
    assert dict(zip(languages, counts, strict=False)) == {"DE": 10004, "EN": 49768, "FR": 3017, "XX": 161}


def test_clefip_2011_training_qrels(test_data):
    qrels = read_qrels(test_data / "clefip" / "clefip2011_PAC_training_qrels_format_example.txt")
    assert qrels.format == "clefip-2011"
    assert list(qrels.docno) == ["EP-7654321", "EP-7654322", "EP-7654323"]
    assert list(qrels.rel) == [1, 2, 1]


def test_ntcir_qrels(test_data):
    qrels = read_qrels(test_data / "ntcir" / "ntcir_patent_qrels.txt.gz")
    assert qrels.format == "ntcir" and len(qrels) == 77839
    assert set(np.unique(qrels.rel)) == {1, 2}  # B partially relevant = 1, A relevant = 2


def test_trec_dd_qrels(test_data):
    qrels = read_qrels(test_data / "trecdd" / "qrels.txt.gz")
    assert qrels.format == "dd" and qrels.has_subtopics and qrels.passage is not None
    assert len(qrels) == 27566
    level = qrels.document_level()
    assert len(level) < len(qrels) and level.rel.max() <= 4


def test_trec_qrels(test_data):
    qrels = read_qrels(test_data / "trec" / "qrels.test")
    assert qrels.format == "trec" and len(qrels) == 3681


def test_negative_grades_are_kept(tmp_path):
    qrels = read_qrels(_write(tmp_path, "q.txt", "q1 0 d1 -1\nq1 0 d2 2\n"))
    assert list(qrels.rel) == [-1, 2]


def test_subtopic_qrels_must_be_named(tmp_path):
    path = _write(tmp_path, "q.txt", "q1 1 d1 1\nq1 2 d1 0\n")
    with pytest.raises(InputFormatError) as caught:
        read_qrels(path)
    assert str(caught.value) == (
        f"{path}: cannot tell TREC qrels (qid iter docno rel) from subtopic qrels (qid subtopic docno rel): "
        "the 2nd column holds values other than 0; name the format (format='trec' or 'subtopic', --qrels-format)")
    qrels = read_qrels(path, format="subtopic")
    assert list(qrels.subtopic) == ["1", "2"] and len(qrels.document_level()) == 1
    assert qrels.document_level().rel[0] == 1


@pytest.mark.parametrize(
    "content, fmt, message",
    [
        ("q1 0 d1 1\nq1 0 d1 0\n", "auto",
         "{p}, line 2: conflicting judgements of document 'd1' for topic 'q1': 1 on line 1, 0 here; "
         "use on_duplicate='first' (--on-duplicate first) to keep the first"),
        ("q1 0 d1 1\nq1 0 d2\n", "trec",
         "{p}, line 2: wrong number of columns for trec qrels (expected 4 columns: qid iter docno rel, found 3)"),
        ("q1 0 d1 high\n", "trec",
         "{p}, line 1: the relevance grade (4th column) is not an integer (expected an integer, found 'high')"),
        ("1001\tC\tdoc\t1\n", "ntcir",
         "{p}, line 1: the relevance level (2nd column) is not A or B (expected A or B, found 'C')"),
        ("", "auto", "{p}: the file is empty"),
    ],
    ids=["conflict", "columns", "grade", "ntcir-level", "empty"],
)
def test_bad_qrels_messages(tmp_path, content, fmt, message):
    path = _write(tmp_path, "bad.qrels", content)
    with pytest.raises(InputFormatError) as caught:
        read_qrels(path, format=fmt)
    assert str(caught.value) == message.format(p=path)


def test_repeated_identical_lines_are_merged_with_a_note(tmp_path):
    path = _write(tmp_path, "q.txt", "q1 0 d1 1\nq1 0 d1 1\nq1 0 d2 0\n")
    qrels = read_qrels(path)
    assert len(qrels) == 2
    assert qrels.notes == (f"{path}: 1 repeated judgement line(s) merged",)


def test_keep_first_of_conflicting(tmp_path):
    path = _write(tmp_path, "q.txt", "q1 0 d1 1\nq1 0 d1 0\n")
    qrels = read_qrels(path, on_duplicate="first")
    assert list(qrels.rel) == [1]


@pytest.mark.parametrize("name, fmt", [("trecdd/qrels.txt.gz", "dd"), ("trec/qrels.test", "trec"),
                                       ("ntcir/ntcir_patent_qrels.txt.gz", "ntcir"), ("clefip/PAC_qrels_2010.txt.gz",
                                                                                      "clefip-pac")])
def test_fast_reader_equals_careful_reader(test_data, name, fmt):
    from pateval.formats.qrels import _build, _read_fast
    from pateval.formats.source import iter_fields, map_file, read_bytes

    path = test_data / name
    data = read_bytes(path)
    fast = _read_fast(path, *map_file(path), "auto")  # (plain files: their white space and UTF-8 checked once)
    assert fast is not None and fast.format == fmt
    careful = _build(path, list(iter_fields(path, data, separator="\t" if fmt == "dd" else None)), fmt, "error")
    for column in ("topic", "docno", "rel", "subtopic", "passage"):
        a, b = getattr(fast, column), getattr(careful, column)
        assert (a is None and b is None) or list(a) == list(b), column


@pytest.mark.parametrize("text, fmt", [
    ("q1\t0\td1\t1\nq1\t0\td 2\t1\n", "trec"),  # a space inside a tab-separated field
    ("q1 0 d1 1\nq1 0 d\u00a02 1\n", "trec"),  # a no-break space
    ("q1 0 d1 1\nq1 0 d\x1f2 1\n", "trec"),  # a unit separator
    ("T1\tS1\td1\tp1\t1\nT1\tS1\td2\u00a0\tp2\t1\n", "dd"),  # a padded DD field (the careful path strips it)
    ("T1\tS1\td1\tp1\t1\nT1\tS1\t d2\tp2\t1\n", "dd"),
])
def test_white_space_other_than_the_delimiter_is_read_the_careful_way(tmp_path, text, fmt):
    from pateval.formats.qrels import _build, _read_fast
    from pateval.formats.source import iter_fields, map_file

    path = _write(tmp_path, "q.txt", text)
    data = path.read_bytes()
    assert map_file(path)[1] is None  # not plain text: the fast reader looks for white space itself
    assert _read_fast(path, *map_file(path), fmt) is None
    try:
        careful = _build(path, list(iter_fields(path, data, separator="\t" if fmt == "dd" else None)), fmt, "error")
    except InputFormatError as error:
        with pytest.raises(InputFormatError, match=re.escape(str(error))):
            read_qrels(path, format=fmt)
    else:
        assert list(read_qrels(path, format=fmt).docno) == list(careful.docno)
