"""Reading TREC DD jig runs: the vectorised path and the line-by-line path agree exactly.

The fast path (pyarrow) reads regular jig files and hands anything else to the careful
path; whichever path reads a file, the run, its iterations, its notes and every error
message must be the same.
"""

from __future__ import annotations

import os
import threading

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pateval import api, tuning
from pateval.core.qrels import Qrels
from pateval.core.ranking import JudgementIndex, rank_run
from pateval.errors import InputFormatError
from pateval.formats import dd, source
from pateval.formats.dd import read_dd_run


def _careful(path, monkeypatch, **options):
    """The line-by-line reader alone."""
    with monkeypatch.context() as patch:
        patch.setattr(dd, "_read_jig_fast", lambda *args, **kwargs: None)
        return read_dd_run(path, **options)


def _outcome(read):
    try:
        return read(), None
    except Exception as error:  # noqa: BLE001 - whatever the careful path raises, the fast path must too
        return None, (type(error).__name__, str(error))


def _assert_same(fast: dd.DDRun, careful: dd.DDRun) -> None:
    a, b = fast.run, careful.run
    assert (a.name, a.source, a.notes) == (b.name, b.source, b.notes)
    assert a.topic_ids.tolist() == b.topic_ids.tolist()
    assert a.topic.dtype == b.topic.dtype and a.topic.tolist() == b.topic.tolist()
    assert a.docnos.tolist() == b.docnos.tolist()
    assert a.score.dtype == b.score.dtype == np.float64
    assert a.score.view(np.int64).tolist() == b.score.view(np.int64).tolist()  # to the bit, -0.0 included
    assert a.rank.dtype == b.rank.dtype and a.rank.tolist() == b.rank.tolist()
    i, j = fast.iterations, careful.iterations
    assert len(i) == len(j) and i.source == j.source
    assert i.topic.tolist() == j.topic.tolist() and i.docno.tolist() == j.docno.tolist()
    assert i.iteration.dtype == j.iteration.dtype and i.iteration.tolist() == j.iteration.tolist()
    assert i.topic_code.tolist() == j.topic_code.tolist() and list(i.topic_values) == list(j.topic_values)


def _session_file(rng: np.random.Generator, n_topics: int = 6, *, interleave: bool = False) -> tuple[str, int]:
    """A jig run: several iterations per topic, lines of 4, 5 and 6 fields, tied scores
    (0.0 and -0.0 among them), and documents returned again in a later iteration."""
    lines = []
    repeats = 0
    for t in range(n_topics):
        topic = f"DD17-{t + 1}"
        returned: list[str] = []
        for iteration in range(int(rng.integers(2, 6))):
            for _ in range(int(rng.integers(1, 7))):
                if returned and rng.random() < 0.15:
                    doc = str(rng.choice(returned))  # a repeat: dropped with on_duplicate="first"
                    repeats += 1
                else:
                    doc = f"doc-{int(rng.integers(0, 40))}-{len(returned)}"
                    returned.append(doc)
                score = ["1.0", "2.5", "0.0", "-0.0", "2.5", "1e3", "-inf", "7"][int(rng.integers(0, 8))]
                width = int(rng.integers(4, 7))
                extra = ["1" if width == 6 or rng.random() < 0.5 else "0", f"{topic}.1:2|{topic}.2:1"][: width - 4]
                lines.append("\t".join([topic, str(iteration), doc, score, *extra]))
    if interleave:
        lines = [lines[k] for k in rng.permutation(len(lines))]  # topics and iterations out of order
    return "\n".join(lines) + "\n", repeats


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("interleave", [False, True])
@pytest.mark.parametrize("block_size", [None, 64])
def test_fast_and_careful_paths_agree_on_mixed_widths_repeats_ties_and_iterations(tmp_path, monkeypatch, seed,
                                                                                  interleave, block_size):
    text, repeats = _session_file(np.random.default_rng(seed), interleave=interleave)
    path = tmp_path / "run.txt"
    path.write_text(text)
    if block_size:
        monkeypatch.setattr(tuning, "CSV_BLOCK_BYTES", block_size)  # many Arrow blocks: chunked columns
    fast = dd._read_jig_fast(path, "first", None)
    assert fast is not None, "the fast path should read this file"
    assert isinstance(fast.run.doc_ids, pa.ChunkedArray) and len(fast.run.doc_ids) == len(fast.run)
    careful = _careful(path, monkeypatch, on_duplicate="first")
    _assert_same(fast, careful)
    _assert_same(read_dd_run(path, on_duplicate="first"), careful)
    assert bool(fast.run.notes) == bool(repeats)
    if repeats:
        assert dd._read_jig_fast(path, "error", None) is None  # the careful path words the error
        with pytest.raises(InputFormatError, match="returned twice"):
            read_dd_run(path)


def test_one_width_files_take_arrows_reader_and_mixed_widths_the_split(tmp_path, monkeypatch):
    calls = []
    original = dd.pc.split_pattern
    monkeypatch.setattr(dd.pc, "split_pattern", lambda *a, **k: calls.append(1) or original(*a, **k))
    path = tmp_path / "run.txt"
    for width in (4, 5, 6):
        lines = ["\t".join([f"q{t}", str(i), f"d{t}{i}", str(i * 0.5), "1", "s:1"][:width])
                 for t in range(3) for i in range(3)]
        path.write_text("\n".join(lines) + "\n")
        assert dd._read_jig_fast(path, "error", None) is not None
    assert not calls
    path.write_text("q\t0\td1\t1.0\nq\t0\td2\t2.0\t0\nq\t1\td3\t3.0\t1\tq.1:2\n")
    got = dd._read_jig_fast(path, "error", None)
    assert calls and got is not None
    _assert_same(got, _careful(path, monkeypatch))


def test_iteration_lookups_by_codes_by_strings_and_by_the_evaluation_agree(tmp_path, monkeypatch):
    text, _ = _session_file(np.random.default_rng(11), n_topics=8, interleave=True)
    path = tmp_path / "run.txt"
    path.write_text(text)
    fast = read_dd_run(path, on_duplicate="first")
    careful = _careful(path, monkeypatch, on_duplicate="first")
    # judgements for some documents of some topics (and one topic the run lacks)
    rng = np.random.default_rng(3)
    rows = [(t, f"{t}.{s}", d, int(rng.integers(0, 4)))
            for t, d in zip(careful.iterations.topic, careful.iterations.docno, strict=False) if rng.random() < 0.5
            for s in (1, 2) if rng.random() < 0.7]
    rows.append(("DD17-99", "DD17-99.1", "nowhere", 3))
    qrels = Qrels.from_records(rows, fields=("topic", "subtopic", "docno", "rel"))
    # both readers end in Run.from_columns: an id per line, matched directly by its code
    assert fast.iterations._row_per_doc() and careful.iterations._row_per_doc()
    for got in (fast, careful):
        ranked = rank_run(got.run, JudgementIndex.build(qrels, qrels.topic_ids), order="rank")
        by_codes = got.iterations.lookup_ranked(ranked)
        by_strings = got.iterations.lookup(ranked.topic_ids[ranked.row_topic], ranked.docno)
        assert (by_codes >= 0).all() and by_codes.tolist() == by_strings.tolist()
    measures = ["CT(compat=trec-dd)@3", "ACT(compat=trec-dd)@3", "CT(compat=trec-dd)"]
    frames = [api.evaluate(qrels, got.run, measures, order="rank", resources={"iterations": got.iterations})
              for got in (fast, careful)]
    assert frames[0].to_dict("records") == frames[1].to_dict("records")
    # the iterations of one file match another reading of the same file (by strings)
    crossed = api.evaluate(qrels, careful.run, measures, order="rank", resources={"iterations": fast.iterations})
    assert crossed.to_dict("records") == frames[1].to_dict("records")


GOOD = "q\t0\td1\t2.0\nq\t0\td2\t1.0\n"


@pytest.mark.parametrize("content", [
    GOOD,
    "\n\n" + GOOD + "\n\n",  # blank lines
    GOOD.replace("\n", "\r\n"),  # carriage returns
    "\ufeff" + GOOD,  # a byte-order mark
    "#x\t0\td1\t2.0\n",  # a first line the automatic detection takes for a 2015 header
    "q\t0\td1\t2.0\n#q\t0\td1\t2.0\n",  # a later "#" is a topic
    "q\t0\td1\t2.0\t\nq\t0\td2\t1.0\t1\t\n",  # empty trailing fields
    "q\t0\td1\t2.0\n\t\t\t\nq\t1\td2\t1.0\n",  # a line of tabs only is blank to the careful path
    "q\t0\td1\t2.0\n\t\nq\t1\td2\t1.0\n",
    "q\t0\t\t2.0\n",  # an empty docno
    "\t0\td1\t2.0\n",  # an empty topic
    "q\t0\td1\t\n",  # an empty score
    "q\t\td1\t2.0\n",  # an empty iteration
    "q\t0\td1\t2.0\t1\ts:1\tmore\n",  # 7 fields
    "q\t0\td1\t2.0\t1\ts:1\t\n",  # 7 fields, the last empty
    "q\t0\td1\t2.0\nq\t0\td2\t1.0\t1\ts:1\tmore\n",
    "q\t0\td1\n",  # 3 fields
    "q\t0\td1\t2.0\nq\t0\td2\n",
    "q\t0x1\td1\t2.0\n",  # hexadecimal: Arrow would read it, the careful path refuses it
    "q\t0X1\tx1\t2.0\nq\t1\td2\t1.0\t0\n",
    "q\t+1\td1\t2.0\n",
    "q\t-0\td1\t2.0\n",
    "q\t007\td1\t2.0\n",
    "q\t-1\td1\t2.0\n",
    "q\t1.0\td1\t2.0\n",
    "q\t99999999999999999999\td1\t2.0\n",
    "q\t\u0663\td1\t2.0\n",  # an Arabic-Indic digit: Python's int reads it
    "q\t0\td1\t\u0663.5\n",
    "q\t0\td1\tnan\n", "q\t0\td1\t-NaN\n", "q\t0\td1\tinf\n", "q\t0\td1\t-Infinity\n",
    "q\t0\td1\t+.5\n", "q\t0\td1\t5.\n", "q\t0\td1\t1e400\n", "q\t0\td1\t1e-400\n", "q\t0\td1\t0x10\n",
    "q\t0\td1\t0e\n", "q\t0\td1\t1.5E-3\n", "q\t0\td1\t1_0\n", "q\t0\td1\t1e\n", "q\t0\td1\t1,5\n", "q\t0\td1\t2.0 \n",
                                     "q\t0\td1\t 2.0\n",
    "q \t0\td1\t2.0\n", "q\t0\td1 \t2.0\n", "q\t0\t d1\t2.0\n",  # spaces the careful path strips
    "q\t0\td 1\t2.0\n",  # a space inside an id
    "q\t0\td1\u00a0\t2.0\n", "q\t0\t\u3000d1\t2.0\n", "q\u2028\t0\td1\t2.0\n", "q\t0\td1\x1c\t2.0\n",
    "q\t0\td1\x0b\t2.0\n", "q\t0\td1\x0c\t2.0\n", "q\t0\td1\x85\t2.0\n",
    "q\t0\td\u00e91\t2.0\nq\u00e9\t0\td1\t1.0\n",  # non-ASCII ids
    "q\t0\td1\t2.0\nq\t1\td1\t3.0\n",  # a repeat
    "q\t0\td1\t2.0\nr\t1\td1\t3.0\n",  # the same document for two topics
    "b\t0\td1\t2.0\na\t0\td1\t3.0\nB\t0\td1\t1.0\n\u00e9\t0\td1\t1.0\n",  # topics sorted by code point
])
def test_every_file_reads_the_same_or_fails_with_the_same_message(tmp_path, monkeypatch, content):
    path = tmp_path / "run.txt"
    path.write_text(content, encoding="utf-8")
    _compare_outcomes(path, monkeypatch)


@pytest.mark.parametrize("content", [
    GOOD, "\n\n" + GOOD + "\n", "q\t0\td1\t2.0\n#q\t0\td1\t2.0\n", "q\t0\td1\t2.0\t\nq\t0\td2\t1.0\t1\t\n",
    "q\t+1\t0xd1\t2.0\nq\t007\td2\t1.0\n",  # an id starting 0x: iterations checked one by one, still fast
    "q\t0\td\u00e91\t2.0\nq\u00e9\t0\td1\t1.0\n", "q\t0\td1\t-0.0\nq\t0\td2\t0\nq\t0\td3\t0.0\n",
    "q\t0\td1\tinf\nq\t0\td2\t1e400\nq\t0\td3\t-Infinity\nq\t0\td4\t+.5\n",
    # iterations too large for one sort key of (topic, iteration): Arrow's three-key sort
    ("q\t9007199254740993\td1\t1.0\nq\t0\td2\t-0.0\nr\t9007199254740992\td3\t2.0\nq\t0\td4\t0.0\n"
     "q\t9007199254740993\td5\t3.0\nr\t0\td1\t1.0\nq\t0\td6\t1.0\n"),
])
def test_regular_files_take_the_fast_path(tmp_path, monkeypatch, content):
    path = tmp_path / "run.txt"
    path.write_text(content, encoding="utf-8")
    fast = dd._read_jig_fast(path, "error", None)
    assert fast is not None
    _assert_same(fast, _careful(path, monkeypatch))


@pytest.mark.parametrize("content", [b"q\t0\td\xe91\t2.0\n", b"q\t0\td1\t2.0\t1\ts\xff\n",
                                     b"q\t0\td1\t2.0\t\xed\xa0\x80\n"])
def test_invalid_utf8_anywhere_gives_the_careful_message(tmp_path, monkeypatch, content):
    path = tmp_path / "run.txt"
    path.write_bytes(content)
    assert dd._read_jig_fast(path, "error", None) is None
    _compare_outcomes(path, monkeypatch)


def _compare_outcomes(path, monkeypatch):
    for options in ({}, {"on_duplicate": "first"}, {"format": "jig"}, {"name": "mine"}):
        fast, fast_error = _outcome(lambda options=options: read_dd_run(path, **options))
        careful, careful_error = _outcome(lambda options=options: _careful(path, monkeypatch, **options))
        assert fast_error == careful_error
        if careful is not None:
            _assert_same(fast, careful)


_TOKENS = {
    "topic": ["q", "q2", "Q", "#q", "", " q", "\u00e9"],
    "iteration": ["0", "1", "2", "10", "-1", "+1", "0x1", "01", "", "1.0"],
    "docno": ["d1", "d2", "d3", "x", "0x1", "", "d 1"],
    "score": ["1", "1.0", "2.5", "-0.0", "0", "inf", "-inf", "nan", "1e3", ".5", "", "x"],
    "rest": ["", "1", "0", "s:1|t:2", ""],
}


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_random_small_files_read_the_same_either_way(tmp_path_factory, data):
    pick = {name: st.sampled_from(tokens) for name, tokens in _TOKENS.items()}
    line = st.tuples(pick["topic"], pick["iteration"], pick["docno"], pick["score"],
                     st.lists(pick["rest"], max_size=3)).map(lambda parts: "\t".join([*parts[:4], *parts[4]]))
    lines = data.draw(st.lists(st.one_of(line, st.sampled_from(["", "\t\t\t"])), min_size=1, max_size=8))
    content = "\n".join(lines) + data.draw(st.sampled_from(["\n", ""]))
    if not content.strip():
        return
    path = tmp_path_factory.mktemp("dd") / "run.txt"
    path.write_text(content, encoding="utf-8")
    monkeypatch = pytest.MonkeyPatch()
    try:
        _compare_outcomes(path, monkeypatch)
    finally:
        monkeypatch.undo()


def test_the_fast_paths_white_space_is_pythons():
    spaces = {chr(c) for c in range(0x110000) if chr(c).isspace()} - {"\n"}
    listed = {b.decode() for b in source._ASCII_SPACE + source._OTHER_SPACE}
    assert listed == spaces


def test_other_than_regular_files_are_read_the_careful_way(tmp_path, monkeypatch):
    assert dd._read_jig_fast(tmp_path, "error", None) is None
    assert dd._read_jig_fast(tmp_path / "missing", "error", None) is None
    with pytest.raises(InputFormatError, match="no such file"):
        read_dd_run(tmp_path / "missing")
    with pytest.raises(InputFormatError, match="is a directory"):
        read_dd_run(tmp_path)
    if not hasattr(os, "mkfifo"):
        return
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # a pipe has no size: mapping it would find it empty
    writer = threading.Thread(target=fifo.write_text, args=(GOOD,))
    writer.start()
    try:
        got = read_dd_run(fifo)
    finally:
        writer.join()
    assert got.run.docnos.tolist() == ["d1", "d2"] and got.run.rank.tolist() == [1, 2]
