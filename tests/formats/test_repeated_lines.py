"""200,000 copies of one line, answered as for two copies (issue 33).

The pair index compared each copy with the one before it, one step back per round, so N
copies cost O(N^2): a run of 20,000 copies took 16 s to be refused, a passage qrels file of
200,000 copies stalled ``pateval assess import`` for minutes. The answers are checked here
(refused, or merged with a note, as for two copies); the time is in benchmarks/bench_repeats.py.
"""

from __future__ import annotations

import pytest

from pateval.cli import main
from pateval.errors import InputFormatError
from pateval.formats.passages import read_passage_qrels
from pateval.formats.trec import read_run

COPIES = 200_000


def test_a_run_of_copies_is_refused_at_the_second(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 D1 1 1.0 r\n" * COPIES)
    with pytest.raises(InputFormatError, match=r"line 2: document 'D1' retrieved twice for topic 'q1' "
                                               r"\(first on line 1\)"):
        read_run(path)
    run = read_run(path, on_duplicate="first")
    assert len(run) == 1 and run.notes == (f"{path}: {COPIES - 1} duplicate document line(s) dropped (kept the "
                                           "first)",)


def test_qrels_of_copies_are_merged_with_a_note(tmp_path, capsys):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 D1 1\n" * COPIES)
    run.write_text("q1 Q0 D1 1 1.0 r\n")
    assert main(["evaluate", "-m", "AP", "-m", "NumRel", str(qrels), str(run)]) == 0
    out, err = capsys.readouterr()
    assert f"{qrels}: {COPIES - 1} repeated judgement line(s) merged" in err
    assert out.split() == ["AP", "all", "1.0000", "NumRel", "all", "1"]


def test_passage_qrels_of_copies_are_merged_with_a_note(tmp_path):
    path = tmp_path / "qrels_PSG.txt"
    path.write_text("PSG-1 EP-1234567-A1 /patent-document/description/p[1]\n" * COPIES)
    qrels = read_passage_qrels(path)
    assert list(qrels.passage) == ["/patent-document/description/p[1]"]
    assert qrels.notes == (f"{path}: {COPIES - 1} repeated judgement line(s) merged",)
