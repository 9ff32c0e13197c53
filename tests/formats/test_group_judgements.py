"""Preference files and qrels with judgement groups (trec_eval -R prefs, qrels_prefs, qrels_jg):
what is read, and every bad line named with its file and line."""

from __future__ import annotations

import gzip

import pytest

from pateval.cli import main
from pateval.errors import InputFormatError
from pateval.formats.prefs import read_prefs, read_qrels_jg, read_qrels_prefs


def test_the_three_layouts(tmp_path):
    path = tmp_path / "judgements.gz"  # compressed, with a comment: the shared source layer reads it
    path.write_bytes(gzip.compress(b"# users\nq1 u1 s1 d1 2\nq1 u1 s1 d2 0.5\n"))
    prefs = read_prefs(path)
    assert (prefs.topic.tolist(), prefs.group.tolist(), prefs.subgroup.tolist(), prefs.docno.tolist(),
            prefs.level.tolist()) == (["q1", "q1"], ["u1", "u1"], ["s1", "s1"], ["d1", "d2"], [2.0, 0.5])
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq1 1 d1 -1\nq2 0 d3 0\n")
    as_prefs = read_qrels_prefs(qrels)
    assert as_prefs.group.tolist() == ["0", "1", "0"] and set(as_prefs.subgroup) == {"0"}
    groups = read_qrels_jg(qrels)
    assert groups.level.tolist() == [1.0, -1.0, 0.0]
    judged = groups.qrels()  # one row per judged document: its highest grade in any group
    assert (list(judged.topic), list(judged.docno), judged.rel.tolist()) == (["q1", "q2"], ["d1", "d3"], [1, 0])


@pytest.mark.parametrize(("reader", "text", "message"), [
    (read_prefs, "q u s d 1\nq u s d2\n",
     ", line 2: wrong number of columns (expected 5 columns: qid jg jsg docno rel_level, found 4)"),
    (read_prefs, "q u s d x\n",
     ", line 1: the relevance level (5th column) is not a number (expected a decimal number, found 'x')"),
    (read_prefs, "q u s d -1\n", ", line 1: a negative relevance level (expected a number >= 0, found '-1')"),
    (read_prefs, "q u s d 1\nq u s e 1\nq u s d 2\n",
     ", line 3: document 'd' is judged twice in sub-group 's' of judgement group 'u' of topic 'q' (first on line 1)"),
    (read_prefs, "q u s1 d 0\nq u s2 d 3\n",
     ", line 2: document 'd' is non-relevant (0) in one sub-group of judgement group 'u' of topic 'q' and relevant in "
     "another (line 1)"),
    (read_qrels_prefs, "q 0 d\n",
     ", line 1: wrong number of columns (expected 4 columns: qid jg docno rel_level, found 3)"),
    (read_qrels_prefs, "q 0 d nan\n", ", line 1: the relevance level (4th column) is NaN"),
    (read_qrels_jg, "q 0 d 1.5\n",
     ", line 1: the relevance (4th column) is not an integer (expected an integer, found '1.5')"),
    (read_qrels_jg, "q A d 1\nq B d 1\nq A d 0\n",
     ", line 3: document 'd' is judged twice in judgement group 'A' of topic 'q' (first on line 1)"),
])
def test_bad_lines_are_named(tmp_path, reader, text, message):
    path = tmp_path / "judgements"
    path.write_text(text)
    with pytest.raises(InputFormatError) as caught:
        reader(path)
    assert f"{path}{message}" in str(caught.value)


def test_trec_eval_names_the_bad_line_in_one_line(tmp_path, capsys):
    prefs, run = tmp_path / "prefs", tmp_path / "run"
    prefs.write_text("q u s d 1\nq u s\n")
    run.write_text("q Q0 d 1 1 r\n")
    assert main(["trec_eval", "-R", "prefs", "-m", "prefs", str(prefs), str(run)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert f"{prefs}, line 2: wrong number of columns" in captured.err
