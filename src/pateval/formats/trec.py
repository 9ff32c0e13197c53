"""TREC run files: ``qid Q0 docno rank score run_id``, whitespace separated.

(A Parquet run, recognised by its first bytes, goes to :mod:`pateval.formats.parquet`;
compressed files, standard input and comment lines are handled by :mod:`.source`.)

Reading has two paths that accept exactly the same files:

* the fast path hands the file to pyarrow's multi-threaded CSV reader (single spaces or
  tabs between fields), dictionary-encodes topics on the fly, and checks the whole table
  with array operations (repeated documents with :class:`pateval.core.keys.PairIndex`);
* the careful path reads line by line. It runs when the fast path cannot read the file
  (irregular white space) or found a problem, and it is the one that words every error,
  with the file and the 1-based line.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from .. import tuning
from ..core.run import MIXED_TAG_POLICIES, Run
from ..errors import InputFormatError, PatevalError, malformed
from ..validation import check_choice
from .atomic import atomic_output
from .names import RUN_FORMATS
from .source import (
    NUMBER,
    foreign_space,
    ir_metadata,
    iter_fields,
    map_file,
    parse_float,
    parse_int,
    read_bytes,
    release,
    streams_kept,
)

__all__ = ["read_run", "write_run", "run_lines", "DUPLICATE_POLICIES", "LINE_RULES"]

DUPLICATE_POLICIES = ("error", "first")
#: How a line is read: pateval's six columns, the rank an integer; or trec_eval's, which
#: looks at neither the rank (get_trec_results.c: "the rank field is ignored here") nor the
#: columns after the sixth.
LINE_RULES = ("pateval", "trec_eval")
_COLUMNS = ["qid", "q0", "docno", "rank", "score", "tag"]
_EXPECTED = "6 columns: qid Q0 docno rank score run_id"
_NEWLINE = re.compile(rb"\n")


def read_run(path: str | os.PathLike[str], *, on_duplicate: str = "error", name: str | None = None,
             lines: str = "pateval", mixed_tags: str = "refuse", format: str = "auto") -> Run:
    """Read a TREC run file (or a Parquet run, or a run saved as JSON of nested dicts).

    Parameters
    ----------
    path : path-like
        The run file.
    on_duplicate : {"error", "first"}, default "error"
        A document listed twice for one topic is an error, or its later lines are dropped
        (``"first"``; the number dropped is recorded in :attr:`Run.notes`).
    name : str, optional
        The run's name; by default its tag (the 6th column).
    lines : {"pateval", "trec_eval"}, default "pateval"
        ``"trec_eval"``: the rank column is not looked at (the run's ranks count its rows)
        and columns after the sixth are ignored, as trec_eval reads a line (``pateval
        trec_eval``); by default a rank must be an integer and a line has six columns.
    mixed_tags : {"refuse", "last"}, default "refuse"
        Lines carrying different run tags are refused, or the run is named by the last
        line's tag, as trec_eval names it (``pateval trec_eval``); see :meth:`Run.from_columns`.
    format : {"auto", "trec", "json"}, default "auto"
        ``"json"``: ``{topic: {docno: score}}`` (pytrec_eval's, BEIR's and MTEB's), named by
        its file as JSON has no run tag (:mod:`pateval.formats.nested`); ``"auto"`` reads a
        file that begins with ``{`` so, any other as a TREC (or Parquet) run.

    Returns
    -------
    Run

    Raises
    ------
    pateval.errors.InputFormatError
        For a missing, empty, binary or non-UTF-8 file, a line without 6 columns, a rank
        that is not an integer, a score that is not a number or is NaN, a run tag that
        differs from the first line's (``mixed_tags="refuse"``), or a duplicate document
        (``on_duplicate="error"``).

    Examples
    --------
    >>> import tempfile, os
    >>> f = tempfile.NamedTemporaryFile("w", suffix=".run", delete=False)
    >>> _ = f.write("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.5 bm25\\n"); f.close()
    >>> run = read_run(f.name)
    >>> run.name, len(run)
    ('bm25', 2)
    >>> os.unlink(f.name)
    """
    check_choice("on_duplicate", on_duplicate, DUPLICATE_POLICIES)
    check_choice("lines", lines, LINE_RULES)
    check_choice("mixed_tags", mixed_tags, MIXED_TAG_POLICIES)
    check_choice("format", format, RUN_FORMATS)
    path = Path(path)
    with streams_kept(path):  # standard input: sniffed, then read
        if format == "json" or (format == "auto" and _is_json(path)):
            from .nested import read_json_run

            return read_json_run(path, name=name, on_duplicate=on_duplicate)
        return _read_run(path, on_duplicate, name, lines, mixed_tags)


def _read_run(path: Path, on_duplicate: str, name: str | None, lines: str, mixed_tags: str) -> Run:
    from .parquet import is_parquet, read_parquet_run

    if is_parquet(path):  # by content: Arrow reads the columns directly
        return read_parquet_run(path, on_duplicate=on_duplicate, name=name, mixed_tags=mixed_tags)
    with streams_kept(path):
        data, plain = map_file(path)
        run = _read_fast(path, data, on_duplicate, plain=plain == b" ", lines=lines, mixed_tags=mixed_tags)
        if run is None:
            run = _read_careful(path, read_bytes(path), on_duplicate, lines=lines, mixed_tags=mixed_tags)
        metadata = ir_metadata(path)  # the comment lines at the head only
    if name is not None:
        run = dataclasses.replace(run, name=name)
    if metadata is not None:
        run = dataclasses.replace(run, metadata={"ir_metadata": metadata})
    return run


def _is_json(path: Path) -> bool:
    from .nested import looks_like_json

    return looks_like_json(path)


def _delimiter(data) -> str | None:
    """The single-character delimiter of a regular file (bytes, a map or a view of one), or
    None if white space varies."""
    newline = _NEWLINE.search(data)  # (a memoryview has no find)
    first = bytes(data[: newline.start() if newline else len(data)]).rstrip(b"\r")
    for delimiter in (b"\t", b" "):
        parts = first.split(delimiter)
        if len(parts) == 6 and all(parts):
            return delimiter.decode()
    return None


def _read_fast(path: Path, data: bytes | memoryview, on_duplicate: str, *, plain: bool = False, lines: str = "pateval",
               mixed_tags: str = "refuse", arrow_threads: bool = True) -> Run | None:
    """The run of ``data`` (without comment lines), or None for the careful path to read;
    ``plain``: :func:`~pateval.formats.source.plain_text` with a space as the delimiter;
    ``arrow_threads``: Arrow parses with its own threads (a whole file), or in the calling one
    (a block, when several threads each read one)."""
    delimiter = _delimiter(data)
    plain = plain and delimiter == " "  # ASCII without other white space: nothing more to check
    if delimiter is None or (not plain and foreign_space(data, delimiter=delimiter.encode())):
        return None
    dictionary = pa.dictionary(pa.int32(), pa.string())
    # with mixed_tags="last" only the last line's tag names the run: its column is kept as plain
    # strings, which Arrow makes quicker than a dictionary (about 5% of a block's parsing)
    tag_type = pa.string() if mixed_tags == "last" else dictionary
    view = memoryview(data)  # released once Arrow's threads let go of it (source.release)
    try:
        table = pacsv.read_csv(
            pa.py_buffer(view),
            read_options=pacsv.ReadOptions(column_names=_COLUMNS, block_size=tuning.CSV_BLOCK_BYTES,
                                           use_threads=arrow_threads),
            parse_options=pacsv.ParseOptions(
                delimiter=delimiter, quote_char=False, double_quote=False, escape_char=False,
                newlines_in_values=False, ignore_empty_lines=True,
            ),
            convert_options=pacsv.ConvertOptions(
                # the Q0 column is never read (trec_eval ignores it): not converting it saves time
                include_columns=["qid", "docno", *(["rank"] if lines == "pateval" else []), "score", "tag"],
                column_types={"qid": dictionary, "docno": pa.string(),
                              "rank": pa.int64(), "score": pa.float64(), "tag": tag_type},
                strings_can_be_null=False, null_values=[], check_utf8=not plain,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError):
        return None  # the careful path finds and words the problem
    finally:
        release(data, view)
    if table.num_rows == 0:
        return None
    tags = table.column("tag")
    if mixed_tags == "last":
        if pc.min(pc.binary_length(tags)).as_py() == 0:
            return None
    else:
        tags = tags.unify_dictionaries()
        if "" in tags.chunk(0).dictionary.to_pylist():
            return None
    topics = table.column("qid").unify_dictionaries().combine_chunks()
    ranks = table.column("rank").to_numpy() if lines == "pateval" else None
    columns = (topics, table.column("docno"), table.column("score").to_numpy(), ranks)
    del table  # the document ids stay chunked as parsed: one copy of millions of ids is enough
    try:
        return Run.from_columns(*columns, tags=tags, source=str(path), on_duplicate=on_duplicate,
                                mixed_tags=mixed_tags, unit="line")
    except InputFormatError:
        return None  # an empty field (doubled delimiters), a NaN, mixed tags, a duplicate: the careful path words it


def _read_careful(path: Path, data: bytes, on_duplicate: str, *, lines: str = "pateval",
                  mixed_tags: str = "refuse") -> Run:
    topic_index: dict[str, int] = {}
    topics: list[int] = []
    docs: list[str] = []
    scores: list[float] = []
    ranks: list[int] | None = [] if lines == "pateval" else None
    tags: list[str] = []
    numbers: list[int] = []
    for line, fields in iter_fields(path, data):
        if not numbers and len(fields) >= 3 and not any(NUMBER.fullmatch(field) for field in fields):
            malformed(path, line, f"the first line looks like a header ({' '.join(fields)!r}), not a run line: remove "
                      "it (run files have no header line)")
        if len(fields) != 6 and not (lines == "trec_eval" and len(fields) > 6):
            malformed(path, line, "wrong number of columns", expected=_EXPECTED, found=len(fields))
        qid, _, docno, rank_text, score_text, tag = fields[:6]
        if ranks is not None:
            ranks.append(parse_int(path, line, rank_text, "the rank (4th column)"))
        scores.append(parse_float(path, line, score_text, "the score (5th column)"))
        topics.append(topic_index.setdefault(qid, len(topic_index)))
        docs.append(docno)
        tags.append(tag)
        numbers.append(line)
    if not tags:
        malformed(path, None, "the file is empty")
    # topics in the order of their first line, as the fast path's dictionary has them
    codes = pa.DictionaryArray.from_arrays(pa.array(topics, type=pa.int32()), pa.array(list(topic_index)))
    return Run.from_columns(codes, docs, scores, ranks, tags=tags, source=str(path), on_duplicate=on_duplicate,
                            mixed_tags=mixed_tags, lines=numbers, unit="line")


def write_run(run: Run, path: str | os.PathLike[str], *, tag: str | None = None) -> None:
    """Write a run in TREC format, topic by topic in score order, atomically.

    Scores are written with 17 significant digits, so reading the file back gives the same
    64-bit doubles.
    """
    lines = run_lines(run, tag=tag)  # the checks before the file is opened
    with atomic_output(path) as out:
        out.writelines(lines)


def run_lines(run: Run, *, tag: str | None = None) -> Iterator[str]:
    """The lines of ``run`` in TREC format (see :func:`write_run`); the tag and topics are
    checked before the first line is given."""
    from ..core.ranking import evaluation_order

    order = evaluation_order(run, order="score")
    tag = tag or run.name
    if not tag or any(c.isspace() for c in tag):
        raise PatevalError(f"a run tag must be one word without white space, not {tag!r}")
    topics = run.topic_ids[run.topic[order]]
    comment = next((t for t in run.topic_ids if str(t).startswith("#")), None)
    if comment is not None:
        raise PatevalError(f"topic {comment!r} cannot be written: a line starting with '#' is a comment to every "
                           "reader")
    docnos = run.vocabulary[run.doc[order]]
    scores = run.score[order]
    topic_codes = run.topic[order]
    starts = np.r_[0, np.flatnonzero(np.diff(topic_codes)) + 1]
    ranks = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)])) + 1
    return (f"{q} Q0 {d} {r} {float(s)!r} {tag}\n" for q, d, r, s in zip(topics, docnos, ranks, scores, strict=False))


def run_tag(path: str | os.PathLike[str], *, format: str = "auto") -> str | None:
    """The name a run file will get when read, from its head only: a TREC run's tag (its
    first line's 6th column), a JSON run's file name; None when that takes reading more (a
    Parquet run, a TREC DD run) or the file cannot be read (its reader will say why)."""
    from .nested import read_json_run_name
    from .parquet import is_parquet
    from .source import first_line

    if format == "json" or (format == "auto" and _is_json(Path(path))):
        return read_json_run_name(path)
    try:
        if is_parquet(path):
            return None
    except (OSError, PatevalError):
        return None
    line = first_line(path)
    fields = None if line is None else line.split()
    return fields[5] if fields is not None and len(fields) == 6 else None
