"""Interaction logs: CSV, TSV, JSON Lines, Parquet, gzipped; bad lines are errors with their line."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pateval.errors import InputFormatError
from pateval.formats.interactions import read_interaction_log, read_list_map, write_interaction_log
from pateval.formats.source import decode_text, read_bytes

GOOD = ("user,list,time,event,rank,docno\n"
        "u1,401,0,start,,\n"
        "u1,401,0,serp,1,\n"
        "u1,401,9.2,click,2,FT934-5418\n"
        "u1,401,31.0,save,,\n"
        "u1,401,31.5,back,,\n"
        "u1,401,48.0,next,,\n"
        "u1,401,48.0,serp,11,\n"
        "u1,401,75.3,end,,\n")


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _frame(log):
    return pd.DataFrame({"user": log.user, "list": log.list, "time": log.time, "event": log.event, "rank": log.rank,
                         "docno": log.docno})


@pytest.mark.parametrize("name", ["log.csv", "log.csv.gz", "log.tsv", "log.jsonl", "log.jsonl.gz", "log.parquet",
                                  "log.parquet.gz"])
def test_every_format_reads_the_same_events(tmp_path, name):
    reference = read_interaction_log(_write(tmp_path, "ref.csv", GOOD))
    frame = pd.read_csv(_write(tmp_path, "src.csv", GOOD), dtype={"list": str}, keep_default_na=False)
    frame["rank"] = [int(r) if r != "" else 0 for r in frame["rank"]]
    frame["docno"] = [d or None for d in frame["docno"]]
    write_interaction_log(frame, tmp_path / name)
    log = read_interaction_log(tmp_path / name)
    pd.testing.assert_frame_equal(_frame(log), _frame(reference))
    assert log.rank.tolist() == [0, 1, 2, 0, 0, 0, 11, 0]
    assert list(log.line) == ([2, 3, 4, 5, 6, 7, 8, 9] if name.startswith("log.csv") or name.startswith("log.tsv")
                              else [1, 2, 3, 4, 5, 6, 7, 8])


def test_iso_timestamps_are_seconds(tmp_path):
    text = ("user,list,time,event,rank,docno\n"
            "u1,q,2012-08-12T10:00:00Z,start,,\n"
            "u1,q,2012-08-12T10:00:04.5Z,click,1,d1\n")
    log = read_interaction_log(_write(tmp_path, "log.csv", text))
    assert np.diff(log.time).tolist() == [4.5]


@pytest.mark.parametrize("body, message", [
    ("u1,q,0,start,,\nu1,q,1,jump,,\n",
     "log.csv, line 3: unknown event (expected start|serp|click|save|back|next|end, found 'jump')"),
    ("u1,q,0,start,,\nu1,q,1,click,,d1\n", "log.csv, line 3: a click event needs a rank"),
    ("u1,q,0,start,,\nu1,q,1,click,0,d1\n", "log.csv, line 3: the rank is not an integer >= 1 (found '0')"),
    ("u1,q,0,start,,\nu1,q,1,save,,\n",
     "log.csv, line 3: a 'save' event with no document open (expected a 'click' first)"),
    ("u1,q,0,start,,\nu1,q,1,click,1,d1\nu1,q,2,click,2,d2\n",
     "log.csv, line 4: a 'click' event while a document is open (expected 'back' (or 'end') first)"),
    ("u1,q,5,start,,\nu1,q,4,end,,\n", "log.csv, line 3: time goes back for user 'u1' on list 'q', from 5 to 4"),
    ("u1,q,0,click,1,d1\n", "log.csv, line 2: user 'u1' on list 'q' begins with 'click' (expected 'start' first)"),
    ("u1,q,0,start,,\nu1,q,1,end,,\nu1,q,2,serp,1,\n",
     "log.csv, line 4: a 'serp' event after user 'u1' ended list 'q'"),
    ("u1,q,0,start,,\nu1,q,2012-01-01T00:00:00,end,,\n",
     "log.csv, line 3: the time is a timestamp without a time zone but earlier lines give a number of seconds"),
    ("u1,q,abc,start,,\n", "log.csv, line 2: the time is not a number (expected a decimal number, found 'abc')"),
    ("u1,q,0,start,,d1\n", "log.csv, line 2: a start event has no document (docno is for click events) (found 'd1')"),
    ("u1,q,0,start,\n", "log.csv, line 2: wrong number of fields (expected 6, found 5)"),
    (",q,0,start,,\n", "log.csv, line 2: the user is empty"),
    ("u1,q,0,start,,\nu1,q,1,click,1,d1\nu1,q,2,save,,\nu1,q,3,save,,\n",
     "log.csv, line 5: the open document is saved twice"),
])
def test_bad_lines_are_errors_with_their_line(tmp_path, body, message):
    path = _write(tmp_path, "log.csv", "user,list,time,event,rank,docno\n" + body)
    with pytest.raises(InputFormatError) as error:
        read_interaction_log(path)
    assert str(error.value).replace(str(tmp_path) + "/", "") == message


def test_file_level_problems(tmp_path):
    with pytest.raises(InputFormatError, match="unknown log format"):
        read_interaction_log(_write(tmp_path, "log.txt", GOOD))
    with pytest.raises(InputFormatError, match=r"line 1: unknown column 'who' in the header"):
        read_interaction_log(_write(tmp_path, "log.csv", "who,list,time,event\n"))
    with pytest.raises(InputFormatError, match=r"line 1: the header lacks the column 'event'"):
        read_interaction_log(_write(tmp_path, "log.csv", "user,list,time\nu,q,0\n"))
    bad = tmp_path / "log.jsonl.gz"
    bad.write_bytes(gzip.compress(b'{"user": "u", "list": "q", "time": 0, "event": "start"}\n{"user": "u",\n'))
    with pytest.raises(InputFormatError, match=r"log.jsonl.gz, line 2: not valid JSON"):
        read_interaction_log(bad)
    (tmp_path / "broken.csv.gz").write_bytes(b"not gzip")
    with pytest.raises(InputFormatError, match="not a readable gzip file"):
        read_interaction_log(tmp_path / "broken.csv.gz")
    with pytest.raises(InputFormatError, match="no such file"):
        read_interaction_log(tmp_path / "missing.parquet")


def test_lists_file(tmp_path):
    path = _write(tmp_path, "lists.txt", "L1 401 bm25\nL2 401 lm\nL3 402\n")
    assert read_list_map(path) == {"L1": ("401", "bm25"), "L2": ("401", "lm"), "L3": ("402", None)}
    with pytest.raises(InputFormatError) as error:
        read_list_map(_write(tmp_path, "dup.txt", "L1 401\nL1 402\n"))
    assert str(error.value).endswith("dup.txt, line 2: list 'L1' is already mapped on line 1")


_CELL = st.sampled_from(["", "u1", "q", "0", "1.5", "-3", "2", "start", "serp", "click", "save", "back", "next", "end",
                         "d1", "2012-01-01T00:00:00Z", "nan", "x y", '"', "\u00e9"])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(_CELL, min_size=4, max_size=7), min_size=1, max_size=8))
def test_any_text_is_read_or_refused_with_an_input_error(tmp_path, rows):
    """Fuzzing: a log either reads or is refused with an InputFormatError naming the file, nothing else."""
    text = "user,list,time,event,rank,docno\n" + "\n".join(",".join(row) for row in rows) + "\n"
    path = tmp_path / "fuzz.csv"
    path.write_text(text, encoding="utf-8")
    try:
        careful = _careful(path)
    except InputFormatError as error:
        with pytest.raises(InputFormatError) as fast_error:
            read_interaction_log(path)
        assert str(fast_error.value) == str(error) and str(error).startswith(str(path))
    else:
        assert len(careful) == sum(1 for row in rows if any(c.strip() for c in row))
        pd.testing.assert_frame_equal(_frame(read_interaction_log(path)), _frame(careful))
        assert read_interaction_log(path).line.tolist() == careful.line.tolist()


def _careful(path):
    """The line-by-line reader alone (the fast path must agree with it exactly)."""
    from pateval.formats import interactions

    text = decode_text(path, read_bytes(path))
    return interactions._build_log(path, interactions._rows_csv(path, text, ","))


_VALID = st.lists(st.tuples(st.sampled_from(["u1", "u2", "7"]), st.sampled_from(["q", "r"]),
                            st.sampled_from(["0", "1", "2.5", "4", "1e1"]),
                            st.sampled_from(["start", "serp", "click", "save", "back", "next", "end"]),
                            st.sampled_from(["", "1", "3"]), st.sampled_from(["", "d1"])), min_size=1, max_size=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_VALID)
def test_the_fast_path_agrees_with_the_careful_one(tmp_path, rows):
    """Rows of plausible fields (many valid logs among them): the same log or the same error."""
    path = tmp_path / "log.csv"
    path.write_text("user,list,time,event,rank,docno\n" + "".join(",".join(r) + "\n" for r in rows), encoding="utf-8")
    try:
        careful = _careful(path)
    except InputFormatError as error:
        with pytest.raises(InputFormatError) as fast_error:
            read_interaction_log(path)
        assert str(fast_error.value) == str(error)
    else:
        fast = read_interaction_log(path)
        pd.testing.assert_frame_equal(_frame(fast), _frame(careful))
        assert fast.line.tolist() == careful.line.tolist()


def test_parquet_timestamps(tmp_path):
    frame = pd.DataFrame({"user": ["u", "u"], "list": ["q", "q"],
                          "time": pd.to_datetime(["2012-08-12 10:00:00", "2012-08-12 10:01:30"], utc=True),
                          "event": ["start", "end"]})
    frame.to_parquet(tmp_path / "log.parquet")
    log = read_interaction_log(tmp_path / "log.parquet")
    assert np.diff(log.time).tolist() == [90.0]


_JSON_VALUE = {
    "user": st.sampled_from(["u1", "u2", 7, None, "", " u1"]),
    "list": st.sampled_from(["q", "r", 3]),
    "time": st.sampled_from([0, 1, 2.5, "4", "1e1", "2012-01-01T00:00:00Z", None, True]),
    "event": st.sampled_from(["start", "serp", "click", "save", "back", "next", "end", "START", "jump"]),
    "rank": st.sampled_from([None, 1, 3, "2", 3.0, 0, "x"]),
    "docno": st.sampled_from([None, "d1", "a b", 5]),
}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(
    st.lists(st.fixed_dictionaries({}, optional=_JSON_VALUE), min_size=1, max_size=10),
    # mostly well-formed lines: the fast path's successes too
    st.lists(st.fixed_dictionaries({"user": st.sampled_from(["u1", 7]), "list": st.sampled_from(["q", 3]),
                                    "time": st.sampled_from([0, 1, 2.5, "4"]),
                                    "event": st.sampled_from(["start", "serp", "click", "back", "next", "end"])},
                                   optional={"rank": st.sampled_from([1, "2", 3.0]), "docno": st.sampled_from(["d1"])}),
             min_size=1, max_size=6)))
def test_json_lines_fast_and_careful_agree(tmp_path, records):
    import json

    from pateval.formats import interactions

    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    try:
        careful = interactions._build_log(path, interactions._rows_jsonl(path, decode_text(path, read_bytes(path))))
    except InputFormatError as error:
        with pytest.raises(InputFormatError) as fast_error:
            read_interaction_log(path)
        assert str(fast_error.value) == str(error)
    else:
        fast = read_interaction_log(path)
        pd.testing.assert_frame_equal(_frame(fast), _frame(careful))
        assert fast.line.tolist() == careful.line.tolist()
