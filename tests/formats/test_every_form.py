"""The same data through every input form: identical numbers, identical refusals (issue 21).

A run and qrels are written as text files, gzipped text files and Parquet (a run also as a
TREC DD jig file), piped to standard input, and given as a DataFrame, records, ir_measures'
named tuples, dicts and ranx objects (the last two only when the data has no repeated item,
which they cannot hold). Scores may be infinite (accepted by every form, as trec_eval's
``atof`` reads ``inf``) or NaN (refused by every form). A run's rows carry run tags, which
may differ (refused by every form that holds tags; ir_measures' records, dicts, ranx and DD
runs hold none, and leave such a run out). Every form must give the same
per-topic values, or be refused with the same exception for the same problem at the same
place: a file names the line, in-memory input and Parquet the row (one row per line here).
"""

from __future__ import annotations

import gzip
import io
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pateval
from pateval.core.run import Run
from pateval.errors import InputFormatError

ir_measures = pytest.importorskip("ir_measures")

MEASURES = ["AP", "P@5", "nDCG@10"]
TOPICS = ["q1", "q2", "10"]
DOCS = ["d1", "d2", "d3", "D1", "d10"]


def _text_run(rows) -> str:
    return "".join(f"{t} Q0 {d} {i + 1} {s!r} {_tag(row)}\n" for i, row in enumerate(rows) for t, d, s in [row[:3]])


def _tag(row) -> str:
    """A run row's tag: its 4th value, if it has one."""
    return row[3] if len(row) > 3 else "sys"


@dataclass(frozen=True)
class _Stdin:
    """A text form given on standard input (``-``)."""

    data: bytes


def _text_qrels(rows) -> str:
    return "".join(f"{t} 0 {d} {g}\n" for t, d, g in rows)


def _forms(kind: str, rows, directory: Path) -> dict[str, object]:
    """The rows in every form that can hold them."""
    names = ("qid", "docno", "score", "run") if kind == "run" else ("qid", "docno", "label")
    rows = [(*row[:3], _tag(row)) for row in rows] if kind == "run" else rows
    frame = pd.DataFrame(rows, columns=list(names))
    text = (_text_run if kind == "run" else _text_qrels)(rows)
    plain, packed, parquet = directory / f"{kind}.txt", directory / f"{kind}.gz", directory / f"{kind}.parquet"
    plain.write_text(text)
    packed.write_bytes(gzip.compress(text.encode()))
    # written by Arrow itself: pandas would store a NaN score as a null
    pq.write_table(pa.table({name: [row[i] for row in rows] for i, name in enumerate(names)}), parquet)
    forms = {"text": plain, "gzip": packed, "stdin": _Stdin(text.encode()), "parquet": parquet, "frame": frame,
             "dicts": [dict(zip(names, row, strict=True)) for row in rows]}
    if len({_tag(row) for row in rows}) > 1:
        return forms  # the forms below hold no run tag
    if kind == "run":
        forms["records"] = [ir_measures.ScoredDoc(t, d, s) for t, d, s, _ in rows]
    else:
        forms["records"] = [ir_measures.Qrel(t, d, g, "0") for t, d, g in rows]
    if len({(t, d) for t, d, *_ in rows}) == len(rows):  # a dict holds each item once
        nested: dict[str, dict[str, object]] = {}
        for t, d, v, *_ in rows:
            nested.setdefault(t, {})[d] = v
        forms["dict"] = nested
        try:
            import ranx
        except ImportError:
            pass
        else:
            forms["ranx"] = ranx.Run(nested) if kind == "run" else ranx.Qrels(nested)
    return forms


def _refusal(error: InputFormatError) -> tuple:
    """What is refused, and where: the problem without its place, and the line or row."""
    rows = re.findall(r"row (\d+)", error.problem)
    place = error.line if error.line is not None else int(rows[-1])
    if "twice" in error.problem:
        return "duplicate", re.findall(r"'[^']*'", error.problem)[:2], place
    if "NaN" in error.problem:
        return "NaN", [], place
    if "empty" in error.problem:
        return "empty", [], place
    if "conflicting" in error.problem:
        return "conflict", re.findall(r"'[^']*'", error.problem)[:2], place
    if "mixed run tags" in error.problem:  # the first line's tag (a file's message says "another here")
        return "mixed", re.findall(r"'[^']*'", error.problem)[:1], place
    raise AssertionError(f"unexpected refusal: {error}")


def _outcome(qrels, run, on_duplicate: str):
    piped = next((form.data for form in (qrels, run) if isinstance(form, _Stdin)), b"")
    qrels, run = ("-" if isinstance(form, _Stdin) else form for form in (qrels, run))
    try:
        with mock.patch.object(sys, "stdin", io.TextIOWrapper(io.BytesIO(piped))):
            frame = pateval.evaluate(qrels, run, MEASURES, on_duplicate=on_duplicate)
    except InputFormatError as error:
        return "refused", _refusal(error), error
    return "scored", {(t, m): v for t, m, v in zip(frame["topic"], frame["measure"], frame["value"], strict=True)}, None


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(qrels_rows=st.lists(st.tuples(st.sampled_from(TOPICS), st.sampled_from(DOCS), st.integers(0, 2)),
                           min_size=1, max_size=10),
       run_rows=st.lists(st.tuples(st.sampled_from(TOPICS), st.sampled_from(DOCS),
                                   st.sampled_from([0.5, 1.0, 2.0, 3.25, math.inf, -math.inf, math.nan]),
                                   st.sampled_from(["sys"] * 6 + ["alt"])),
                         min_size=1, max_size=10),
       on_duplicate=st.sampled_from(["error", "first"]))
def test_every_form_gives_the_same_numbers_and_the_same_refusals(tmp_path_factory, qrels_rows, run_rows,
                                                                   on_duplicate):
    directory = tmp_path_factory.mktemp("forms")
    qrels_forms = _forms("qrels", qrels_rows, directory)
    run_forms = _forms("run", run_rows, directory)
    tied = len({(t, s) for t, _, s, _ in run_rows}) < len(run_rows)
    one_tag = len({tag for *_, tag in run_rows}) == 1  # a DD run has no tags
    if one_tag and not tied and (on_duplicate == "first" or len({(t, d) for t, d, *_ in run_rows}) == len(run_rows)):
        # a DD run keeps a repeated document as the jig does unless "first" is asked; it is ranked in
        # the session's order (equal scores in file order, as the jig examines them), the text run by
        # score with ties by docno: the same rankings only without equal scores in a topic
        run_forms["dd"] = directory / "run.dd"
        run_forms["dd"].write_text("".join(f"{t}\t0\t{d}\t{s!r}\n" for t, d, s, _ in run_rows))
    # each qrels form with the text run, each run form with the text qrels
    outcomes = {(name, "text"): _outcome(qrels, run_forms["text"], on_duplicate) for name, qrels in qrels_forms.items()}
    outcomes.update({("text", name): _outcome(qrels_forms["text"], run, on_duplicate)
                     for name, run in run_forms.items()})
    first = outcomes["text", "text"]
    for forms, outcome in outcomes.items():
        if {"dict", "ranx"} & set(forms) and first[0] == "refused":  # rows grouped by topic: the place differs
            assert outcome[0] == "refused" and outcome[1][:2] == first[1][:2], (forms, outcome[2], first[2])
        else:
            assert outcome[:2] == first[:2], (forms, outcome[2], first[2])
    if not one_tag:  # the option naming the run by its last row's tag instead, in every form holding tags
        named = {}
        for name in ("text", "gzip", "stdin", "parquet", "frame", "dicts"):
            form = run_forms[name]
            try:
                with mock.patch.object(sys, "stdin", io.TextIOWrapper(io.BytesIO(getattr(form, "data", b"")))):
                    if name == "frame":
                        run = Run.from_frame(form, mixed_tags="last", on_duplicate=on_duplicate)
                    elif name == "dicts":
                        run = Run.from_records(form, mixed_tags="last", on_duplicate=on_duplicate)
                    else:
                        run = pateval.read_run("-" if name == "stdin" else form, mixed_tags="last",
                                               on_duplicate=on_duplicate)
                named[name] = run.name
            except InputFormatError as error:
                kind, quoted, place = _refusal(error)
                named[name] = (kind, tuple(quoted), place)
        assert len(set(named.values())) == 1, named  # one name, or one refusal (a NaN, a duplicate)
        if isinstance(named["text"], str):
            assert named["text"] == run_rows[-1][3]
    # Parquet and the in-memory forms are refused in one message (the file's name aside)
    messages = set()
    for (q_name, r_name), (_, _, error) in outcomes.items():
        varied = r_name if q_name == "text" else q_name
        if error is not None and varied in ("parquet", "frame", "records", "dicts") \
                and not error.path.endswith(".txt"):
            messages.add(str(error).replace(error.path, "<memory>"))
    assert len(messages) <= 1, messages


def _empty_topic_forms(kind: str, directory: Path) -> dict[str, object]:
    """Two rows, the second with an empty topic id, in every form that can hold one (a
    text file's white space cannot: its line has a column too few)."""
    rows = [("q1", "d1", 1), ("", "d2", 2)]
    forms = _forms(kind, rows, directory)
    for text_form in ("text", "gzip", "stdin"):
        del forms[text_form]
    if kind == "run":
        forms["dd"] = directory / "run.dd"
        forms["dd"].write_text("".join(f"{t}\t0\t{d}\t{s}\n" for t, d, s in rows))
    return forms


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_an_empty_topic_id_is_refused_by_every_form_at_its_row(tmp_path, kind):
    qrels_text = tmp_path / "qrels.txt"
    qrels_text.write_text(_text_qrels([("q1", "d1", 1)]))
    run_text = tmp_path / "run.txt"
    run_text.write_text(_text_run([("q1", "d1", 1.0)]))
    for name, form in _empty_topic_forms(kind, tmp_path).items():
        qrels, run = (qrels_text, form) if kind == "run" else (form, run_text)
        outcome = _outcome(qrels, run, "error")
        assert outcome[0] == "refused" and outcome[1][0] == "empty", (name, outcome)
        if name not in ("dict", "ranx"):  # rows grouped by topic: the place differs
            assert outcome[1][2] == 2, (name, outcome[2])
