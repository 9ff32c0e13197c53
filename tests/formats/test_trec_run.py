"""Reading TREC runs: good files on both paths, and every bad-input message, exactly."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pateval import tuning
from pateval.errors import InputFormatError
from pateval.formats.trec import _read_careful, _read_fast, read_run, write_run


def _write(tmp_path, name, content: bytes | str):
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def test_reads_space_separated_run(tmp_path):
    path = _write(tmp_path, "r.txt", "q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.5 bm25\nq2 Q0 d1 1 0.5 bm25\n")
    run = read_run(path)
    assert run.name == "bm25"
    assert list(run.topic_ids[run.topic]) == ["q1", "q1", "q2"]
    assert list(run.docnos) == ["d1", "d2", "d1"]
    assert run.score.dtype == np.float64 and list(run.score) == [2.5, 1.5, 0.5]


def test_reads_trec_evals_own_test_run(test_data):
    run = read_run(test_data / "trec" / "results.test")  # tabs and padded scores
    assert len(run) == 1500 and run.name == "STANDARD"


def test_scores_stay_64_bit(tmp_path):
    # 32-bit floats would make these equal and reorder by docno
    path = _write(tmp_path, "r.txt", "q1 Q0 a 1 0.30000001 r\nq1 Q0 b 2 0.30000002 r\n")
    run = read_run(path)
    assert run.score[0] != run.score[1]


@pytest.mark.parametrize(
    "content, message",
    [
        ("q1 Q0 d1 1 2.5 r\nq1 Q0 d2 2 1.0\n",
         "{p}, line 2: wrong number of columns (expected 6 columns: qid Q0 docno rank score run_id, found 5)"),
        ("q1 Q0 d1 1 2.5 r\nq1 Q0 d2 2 x r\n",
         "{p}, line 2: the score (5th column) is not a number (expected a decimal number, found 'x')"),
        ("q1 Q0 d1 1 2.5 r\nq1 Q0 d2 2 nan r\n",
         "{p}, line 2: the score (5th column) is NaN (expected a decimal number, found 'nan')"),
        ("q1 Q0 d1 1.5 2.5 r\n",
         "{p}, line 1: the rank (4th column) is not an integer (expected an integer, found '1.5')"),
        ("q1 Q0 d1 1 2.5 r\n\nq1 Q0 d1 2 1.0 r\n",
         "{p}, line 3: document 'd1' retrieved twice for topic 'q1' (first on line 1); "
         "use on_duplicate='first' (--on-duplicate first) to keep the first"),
        ("q1 Q0 d1 1 2.5 r\nq1 Q0 d2 2 1.0 s\n",
         "{p}, line 2: mixed run tags: 'r' on line 1, another here (expected 'r', found 's')"),
        ("", "{p}: the file is empty"),
        ("\n  \n", "{p}: the file is empty"),
        (b"q1 Q0 d1 1 2.5 r\n\x00\x01", "{p}, line 2: binary data (a NUL byte) in a text file"),
        (b"q1 Q0 d\xe91 1 2.5 r\n", "{p}, line 1: not valid UTF-8 text (found 'q1 Q0 d\\\\xe91 1 2.5 r')"),
        ("q1 Q0 d1 1 1_0 r\n",
         "{p}, line 1: the score (5th column) is not a number (expected a decimal number, found '1_0')"),
        ("q1 Q0 d1 1 \u0131nf r\n",  # a dotless i: float() would not take it, nor does the pattern
         "{p}, line 1: the score (5th column) is not a number (expected a decimal number, found '\u0131nf')"),
        ("q1 Q0 d1 \u0663 1.0 r\n",  # an Arabic-Indic digit: int() takes it, trec_eval does not
         "{p}, line 1: the rank (4th column) is not an integer (expected an integer, found '\u0663')"),
        ("q1 Q0 d1 99999999999999999999 1.0 r\n",
         "{p}, line 1: the rank (4th column) is out of range "
         "(expected a 64-bit integer, found '99999999999999999999')"),
    ],
    ids=["columns", "score", "nan", "rank", "duplicate", "tags", "empty", "blank", "binary", "utf8", "underscore",
         "dotless-i", "other-digits", "rank-range"],
)
def test_bad_runs_name_file_line_and_problem(tmp_path, content, message):
    path = _write(tmp_path, "bad.run", content)
    with pytest.raises(InputFormatError) as caught:
        read_run(path)
    assert str(caught.value) == message.format(p=path)


def test_missing_file(tmp_path):
    with pytest.raises(InputFormatError, match="no such file"):
        read_run(tmp_path / "absent.run")


def test_keep_first_duplicate_is_recorded(tmp_path):
    path = _write(tmp_path, "r.txt", "q1 Q0 d1 1 2.5 r\nq1 Q0 d1 2 1.0 r\nq1 Q0 d2 3 0.5 r\n")
    run = read_run(path, on_duplicate="first")
    assert list(run.docnos) == ["d1", "d2"] and list(run.score) == [2.5, 0.5]
    assert run.notes == (f"{path}: 1 duplicate document line(s) dropped (kept the first)",)


def test_bad_option_is_a_parameter_error(tmp_path):
    path = _write(tmp_path, "r.txt", "q1 Q0 d1 1 2.5 r\n")
    with pytest.raises(ValueError, match="on_duplicate must be one of 'error', 'first'; got 'last'"):
        read_run(path, on_duplicate="last")


row = st.tuples(
    st.sampled_from(["q1", "q2", "10", "q3"]),
    st.sampled_from(["d1", "d2", "d3", "D-4", "doc5", "x"]),
    st.integers(-5, 1000),
    st.one_of(st.floats(-1e6, 1e6, allow_nan=False), st.sampled_from([0.0, 1.0, 2.5])),
)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(row, min_size=1, max_size=30, unique_by=lambda r: (r[0], r[1])), tab=st.booleans())
def test_fast_and_careful_paths_agree(tmp_path_factory, rows, tab):
    sep = "\t" if tab else " "
    text = "".join(sep.join([q, "Q0", d, str(k), repr(s), "tag"]) + "\n" for q, d, k, s in rows)
    data = text.encode()
    path = tmp_path_factory.mktemp("runs") / "r.txt"
    fast = _read_fast(path, data, "error")
    careful = _read_careful(path, data, "error")
    assert fast is not None
    for a, b in ((fast, careful),):
        assert list(a.topic_ids[a.topic]) == list(b.topic_ids[b.topic])
        assert list(a.vocabulary[a.doc]) == list(b.vocabulary[b.doc])
        assert list(a.score) == list(b.score) and list(a.rank) == list(b.rank)


def test_write_run_round_trips(tmp_path):
    path = _write(tmp_path, "r.txt", "q2 Q0 d1 1 0.1 r\nq1 Q0 d2 1 0.30000000000000004 r\nq1 Q0 d3 2 0.3 r\n")
    run = read_run(path)
    out = tmp_path / "out.txt"
    write_run(run, out)
    again = read_run(out)
    assert sorted(zip(again.topic_ids[again.topic], again.docnos, again.score, strict=False)) == sorted(
        zip(run.topic_ids[run.topic], run.docnos, run.score, strict=False))
    assert out.read_text().splitlines()[0] == "q1 Q0 d2 1 0.30000000000000004 r"


def _many_topics(n_topics=40, depth=30):
    lines = []
    for t in range(n_topics):
        for k in range(depth):
            lines.append(f"T{t} Q0 D{(t * 7 + k * 13) % 500} {k + 1} {100.0 - k - (k % 3) * 0.5} tag")
    return "\n".join(lines) + "\n"


def test_many_blocks_agree_with_the_careful_path(tmp_path, monkeypatch):
    path = _write(tmp_path, "big.run", _many_topics())
    monkeypatch.setattr(tuning, "CSV_BLOCK_BYTES", 1000)  # Arrow parses many blocks in parallel
    data = path.read_bytes()
    fast = _read_fast(path, data, "error")
    careful = _read_careful(path, data, "error")
    assert fast is not None and len(fast.doc_ids) == len(fast)  # one id per row, no dictionary
    assert list(fast.topic_ids[fast.topic]) == list(careful.topic_ids[careful.topic])
    assert list(fast.docnos) == list(careful.docnos) and list(fast.score) == list(careful.score)
    assert list(fast.rank) == list(careful.rank)


def test_scattered_topic_across_blocks_still_finds_duplicates(tmp_path, monkeypatch):
    text = _many_topics(6, 10) + "T0 Q0 D0 99 0.5 tag\n"  # T0's D0 again, at the end of the file
    path = _write(tmp_path, "scattered.run", text)
    monkeypatch.setattr(tuning, "CSV_BLOCK_BYTES", 100)
    with pytest.raises(InputFormatError,
                       match=r"line 61: document 'D0' retrieved twice for topic 'T0' \(first on line 1\)"):
        read_run(path)


@pytest.mark.parametrize("text", [
    "q1\tQ0\td1\t1\t2.0\tr\nq1\tQ0\td 2\t2\t1.0\tr\n",  # a space inside a tab-separated field
    "q1 Q0 d1 1 2.0 r\nq1 Q0 d\u00a02 2 1.0 r\n",  # a no-break space
    "q1 Q0 d1 1 2.0 r\nq1 Q0 d\x1f2 2 1.0 r\n",  # a unit separator (white space to str.split)
    "q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\r\n",  # a carriage return past the first lines
])
def test_white_space_other_than_the_delimiter_is_read_the_careful_way(tmp_path, text):
    path = tmp_path / "run.txt"
    path.write_bytes(text.encode())
    assert _read_fast(path, path.read_bytes(), "error") is None
    data = path.read_bytes()
    try:
        expected = _read_careful(path, data, "error")
    except Exception as error:  # the careful path refuses it: so does read_run
        with pytest.raises(type(error), match=re.escape(str(error))):
            read_run(path)
    else:
        assert list(read_run(path).docnos) == list(expected.docnos)


def test_the_fast_and_careful_paths_agree_on_a_commented_file(tmp_path):
    rng = np.random.default_rng(3)
    lines = [f"q{t} Q0 d{d} {r} {s:.4f} x" for t in range(3) for r, (d, s) in
             enumerate(zip(rng.permutation(50)[:20], rng.random(20), strict=False), start=1)]
    for at in (0, 7, 30, len(lines)):
        lines.insert(at, "# a comment line")
    path = tmp_path / "r.txt"
    path.write_text("\n".join(lines) + "\n")
    from pateval.formats.source import map_file, read_bytes

    fast = _read_fast(path, map_file(path)[0], "error")
    careful = _read_careful(path, read_bytes(path), "error")
    assert fast is not None
    assert list(fast.docnos) == list(careful.docnos)
    assert np.array_equal(fast.score, careful.score)


def test_the_fast_reader_returns_once_arrow_has_let_go_of_the_input(tmp_path, monkeypatch):
    # issue 21: an Arrow worker drops the reader's last reference to the input's buffer just
    # after handing back the table, and takes the GIL to do so; at interpreter exit that
    # aborted the process. A thread stands in for such a late worker here: the reader must
    # not return before it has let go (the file's map is then unmapped)
    import threading
    import time

    import pyarrow.csv as pacsv

    from pateval.formats import trec
    from pateval.formats.source import map_file

    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.0 tag\nq1 Q0 d2 2 1.0 tag\n")
    read_csv, workers, maps = pacsv.read_csv, [], []

    def hold(buffer, seconds):  # the worker's reference, dropped when it returns
        time.sleep(seconds)

    def late_worker(source, **options):
        table = read_csv(source, **options)
        workers.append(threading.Thread(target=hold, args=(source, 0.05)))
        workers[-1].start()
        return table

    monkeypatch.setattr(pacsv, "read_csv", late_worker)
    monkeypatch.setattr(trec, "map_file", lambda p: maps.append(map_file(p)) or maps[-1])
    run = read_run(path)
    for worker in workers:
        worker.join()
    assert run.doc_ids.to_pylist() == ["d1", "d2"]
    assert len(maps) == 1 and maps[0][0].closed
