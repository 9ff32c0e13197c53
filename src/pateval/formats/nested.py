"""Runs and qrels saved as JSON of nested dicts: ``{topic: {docno: value}}``.

The shape pytrec_eval takes and BEIR and MTEB save (``json.dump(results, f)``): a run's
values are scores, qrels' values are grades. The file (or standard input, compressed or
not) holds one JSON object; it is recognised by its first character, ``{``, which no TREC
run or qrels line begins with. Its values end in :meth:`Run.from_columns` /
:meth:`Qrels.from_columns`, the doors every run and qrels come in by, so a JSON run is
checked as a TREC run is. JSON has no lines: a problem is placed by its topic and document.
"""

from __future__ import annotations

import json
import lzma
import math
import os
import zlib
from pathlib import Path

import numpy as np

from ..core.fields import nested_dict_columns
from ..core.qrels import Qrels
from ..core.run import Run
from ..errors import malformed
from .source import is_stdin, open_stream, read_bytes

__all__ = ["looks_like_json", "read_json_qrels", "read_json_run", "read_json_run_name"]

_WHITE = b" \t\r\n"


def looks_like_json(path: str | os.PathLike[str]) -> bool:
    """Whether the input's first character that is not white space is ``{`` (only its head is
    read; standard input is read once and kept for the reader that follows)."""
    try:
        with open_stream(path) as stream:
            while True:
                chunk = stream.read(256)
                if not chunk:
                    return False
                chunk = chunk.removeprefix(b"\xef\xbb\xbf").lstrip(_WHITE)
                if chunk:
                    return chunk.startswith(b"{")
    except (OSError, ValueError, EOFError, zlib.error, lzma.LZMAError):
        return False  # unreadable or damaged: the reader that follows says why


def _nested(path: str | os.PathLike[str], what: str) -> tuple:
    """(topics, docnos, values) of a ``{topic: {docno: number}}`` file, its shape checked; the
    columns gathered as a dict's are (:func:`~pateval.core.fields.nested_dict_columns`)."""
    data = read_bytes(path)
    try:
        content = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        malformed(path, None, "not valid UTF-8 text")
    except json.JSONDecodeError as error:
        malformed(path, error.lineno, f"not valid JSON ({error.msg}, column {error.colno})")
    expected = f"{{topic: {{docno: {what}}}}} (the nested dicts of pytrec_eval, BEIR and MTEB)"
    if not isinstance(content, dict):
        malformed(path, None, "the JSON is not an object of topics", expected=expected, found=type(content).__name__)
    for topic, docs in content.items():
        if not isinstance(docs, dict):
            malformed(path, None, f"topic {topic!r} is not an object of documents", expected=expected,
                      found=type(docs).__name__)
    topics, docnos, values, _, _ = nested_dict_columns(content, what=what)
    values = list(values)
    # JSON numbers are int or float (true and false are bool; NaN is Python's extension)
    try:
        numbers = {int, float}.issuperset(map(type, values)) and not np.isnan(np.fromiter(values, np.float64,
                                                                                          len(values))).any()
    except OverflowError:  # an integer beyond a double's range
        numbers = False
    if not numbers:
        _refuse_value(path, content, what)
    return topics, docnos, values


def _refuse_value(path: str | os.PathLike[str], content: dict, what: str) -> None:
    """Name the first value that is not a number (looked for only when there is one)."""
    for topic, docs in content.items():
        for docno, value in docs.items():
            if not _is_number(value):
                malformed(path, None, f"topic {topic!r}, document {docno!r}: the {what} is not a number",
                          expected="a number", found=json.dumps(value)[:40])


def _is_number(value: object) -> bool:
    try:
        return type(value) in (int, float) and not math.isnan(float(value))  # type: ignore[arg-type]
    except OverflowError:
        return False


def _source(path: str | os.PathLike[str]) -> str:
    return "<stdin>" if is_stdin(path) else str(path)


def read_json_run(path: str | os.PathLike[str], *, name: str | None = None, on_duplicate: str = "error") -> Run:
    """A run from ``{topic: {docno: score}}`` JSON, named ``name`` or by its file (stem), as JSON
    carries no run tag. Documents are ranked by score, as every run is (ties by docno)."""
    topics, docnos, scores = _nested(path, "score")
    if name is None:
        name = read_json_run_name(path)
    return Run.from_columns(topics, docnos, [float(s) for s in scores], name=name, source=_source(path),
                            on_duplicate=on_duplicate)


def read_json_run_name(path: str | os.PathLike[str]) -> str:
    """The name of a JSON run read without one: its file's name up to the first dot."""
    return "stdin" if is_stdin(path) else Path(path).name.split(".")[0] or "run"


def read_json_qrels(path: str | os.PathLike[str], *, on_duplicate: str = "error") -> Qrels:
    """Qrels from ``{topic: {docno: grade}}`` JSON."""
    topics, docnos, grades = _nested(path, "grade")
    return Qrels.from_columns(topics, docnos, grades, format="json", source=_source(path), on_duplicate=on_duplicate)
