"""TREC Dynamic Domain run files: a session of iterations per topic.

Two layouts are read (``format="auto"`` tells them apart by the first line):

``jig`` (TREC DD 2016-2017, written by the track's jig ``jig/jig.py``), tab-separated::

    topic  iteration  docno  score  [on_topic  [subtopic:rating|subtopic:rating...]]

    DD16-1  0  ebola-45b78e...  833.00  1  DD16-1.1:2|DD16-1.2:3

Iterations count from 0; the jig's scorer (``scorer/reader.py``) orders the documents of
an iteration by score, descending, ties in file order.

``harness2015`` (TREC DD 2015 harness), tab-separated, a ``#`` header line::

    team_id  system_id  batch_num  rank  topic_id  stream_id  confidence  on_topic  subtopics

Batches count from 1 and are read as iterations ``batch_num - 1``; documents of a batch
are ordered by the rank column.

:func:`read_dd_run` gives a :class:`pateval.core.run.Run` whose rank column is the order of
examination (iteration by iteration), so ``order="rank"`` evaluates the session as the jig
does, together with the iteration of every (topic, document) as a :class:`DDIterations`,
the ``iterations`` resource of ``CT(compat=trec-dd)`` and ``ACT(compat=trec-dd)``. On the
command line, ``--iterations RUNFILE`` reads that resource from the same DD run file.

A document returned twice for one topic (in two iterations, or twice in one) is an error,
or with ``on_duplicate="first"`` its later lines are dropped, or with ``on_duplicate="jig"``
it is kept as the jig's ``scorer/reader.py`` keeps it: the repeat is examined again (it
counts in ACT's number of documents and in its iteration) and gains nothing. The jig
renames a repeat ``docno_dup``; pateval gives it the id ``docno<TAB>(repeat k)``, which no
qrels line can hold. Which occurrence is the first follows the jig: iterations in the order
they first appear in the file, each by score descending (ties in file order).
``pateval evaluate`` reads a jig run file so (:func:`looks_like_dd_run`).

A jig file is read by pyarrow's CSV reader (one width of line: the usual file) or as whole
lines split by Arrow (lines of 4 to 6 fields mixed), then checked with array operations
(repeats with :class:`pateval.core.keys.PairIndex`); the run keeps one document id per
line. Anything that path cannot take exactly as the line-by-line reader would (white space
that reader strips, a byte-order mark, carriage returns, a value that does not parse, a
repeat with ``on_duplicate="error"``) is read line by line instead, which gives the same
run or words the error with its line.
"""

from __future__ import annotations

import codecs
import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from .. import tuning
from .._lazy import lazy_module
from ..core.keys import PairIndex, StringKeys
from ..core.run import Run
from ..core.segments import place_in_segments
from ..errors import InputFormatError, ParameterError, malformed
from ..validation import check_choice
from .source import INTEGER, NUMBER, foreign_space, iter_fields, map_file, parse_float, parse_int, release

pd = lazy_module("pandas")  # imported when a function here needs it, not for every evaluation

__all__ = ["DD_RUN_FORMATS", "DD_DUPLICATE_POLICIES", "DDIterations", "DDRun", "read_dd_run", "read_dd_iterations",
           "as_dd_iterations", "looks_like_dd_run"]

DD_DUPLICATE_POLICIES = ("error", "first", "jig")

DD_RUN_FORMATS = ("auto", "jig", "harness2015")

_LAYOUT = {
    "jig": "4 to 6 tab-separated columns: topic iteration docno score [on_topic [subtopic:rating|...]]",
    "harness2015": "9 tab-separated columns: team_id system_id batch_num rank topic_id stream_id confidence on_topic "
           "subtopics",
}


class DDIterations:
    """The iteration (0-based) in which each (topic, document) was returned.

    Immutable. ``DDIterations(topic, docno, iteration, source)``; :func:`read_dd_run` also
    passes its run's document ids and codes (and may then leave ``topic`` and ``docno``
    None: they are made from the codes when first read).

    Attributes
    ----------
    topic, docno : ndarray of str
    iteration : ndarray of int64
    source : str
    """

    # read_dd_run also gives the run's own document ids and codes, so that rankings of that
    # run are matched by integers instead of by strings; its fast reader gives no topic and
    # docno arrays: they are made from those codes when first asked for (millions of
    # Python strings that matching by codes never needs)
    __slots__ = ("_docno", "_one_row_per_doc", "_topic", "doc_code", "iteration", "run_doc_ids", "source",
                 "topic_code", "topic_values")
    _docno: np.ndarray | None
    _one_row_per_doc: bool | None
    _topic: np.ndarray | None
    doc_code: np.ndarray
    iteration: np.ndarray
    run_doc_ids: pa.Array | pa.ChunkedArray
    source: str
    topic_code: np.ndarray
    topic_values: np.ndarray

    def __init__(self, topic: np.ndarray | None, docno: np.ndarray | None, iteration: np.ndarray,
                 source: str = "<memory>", run_doc_ids: object = None, doc_code: np.ndarray | None = None,
                 topic_code: np.ndarray | None = None, topic_values: np.ndarray | None = None) -> None:
        if (topic is None or docno is None) and (run_doc_ids is None or doc_code is None or topic_code is None
                                                 or topic_values is None):
            raise ValueError("DDIterations needs its topics and docnos, or the run's codes to make them from")
        for slot, value in (("_topic", topic), ("_docno", docno), ("iteration", iteration), ("source", source),
                            ("run_doc_ids", run_doc_ids), ("doc_code", doc_code), ("topic_code", topic_code),
                            ("topic_values", topic_values), ("_one_row_per_doc", None)):
            object.__setattr__(self, slot, value)

    def __setattr__(self, name, value):
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    def __repr__(self) -> str:
        return f"DDIterations({len(self)} (topic, document) pairs, source={self.source!r})"

    def __reduce__(self):
        return (DDIterations, (self._topic, self._docno, self.iteration, self.source, self.run_doc_ids, self.doc_code,
                               self.topic_code, self.topic_values))

    @property
    def topic(self) -> np.ndarray:
        """Each pair's topic id (str)."""
        if self._topic is None:
            object.__setattr__(self, "_topic", np.asarray(self.topic_values, dtype=object)[self.topic_code])
        return cast(np.ndarray, self._topic)

    @property
    def docno(self) -> np.ndarray:
        """Each pair's document id (str)."""
        if self._docno is None:
            ids = self.run_doc_ids.to_numpy(zero_copy_only=False).astype(object, copy=False)
            object.__setattr__(self, "_docno", ids[self.doc_code])
        return cast(np.ndarray, self._docno)

    def __len__(self) -> int:
        return len(self.iteration)

    def _row_per_doc(self) -> bool:
        """Whether pair ``i`` has document code ``i`` (each code listed once): the fast
        reader's per-row ids, or a run whose documents all differ."""
        if self._one_row_per_doc is None:
            codes = self.doc_code
            object.__setattr__(self, "_one_row_per_doc", codes is not None and len(codes) == len(self.run_doc_ids)
                               and bool(np.array_equal(codes, np.arange(len(codes)))))
        return bool(self._one_row_per_doc)

    def lookup_ranked(self, ranked) -> np.ndarray:
        """The iteration of every row of a :class:`pateval.core.ranking.RankedTopics` (-1: none)."""
        if (self.topic_code is None or getattr(ranked, "doc_ids", None) is not self.run_doc_ids
                or not self._row_per_doc()):
            return self.lookup(ranked.topic_ids[ranked.row_topic], ranked.docno)
        if len(ranked.row_topic) == 0 or len(self.iteration) == 0:
            return np.full(len(ranked.row_topic), -1, dtype=np.int64)
        # a document code is a pair (read_dd_run's runs have an id per line): its iteration, if
        # the ranking's topic is the pair's
        topic_codes = self.topic_code
        row_code = pd.Index(self.topic_values).get_indexer(np.asarray(ranked.topic_ids, dtype=object))[ranked.row_topic]
        doc = np.asarray(ranked.doc, dtype=np.int64)
        inside = (doc >= 0) & (doc < len(topic_codes))
        at = np.where(inside, doc, 0)
        hit = inside & (row_code >= 0) & (topic_codes[at] == row_code)
        return np.where(hit, self.iteration[at], -1).astype(np.int64)

    def lookup(self, topics: np.ndarray, docnos: np.ndarray) -> np.ndarray:
        """The iteration of each (topic, docno) pair given, or -1 where none is listed."""
        n = len(topics)
        if n == 0 or len(self.iteration) == 0:
            return np.full(n, -1, dtype=np.int64)
        # code both sides' ids together, then match integer pairs
        topic_codes, topic_values = pd.factorize(np.concatenate([np.asarray(topics, dtype=object), self.topic]))
        doc_codes, doc_values = pd.factorize(np.concatenate([np.asarray(docnos, dtype=object), self.docno]))
        key = topic_codes.astype(np.int64) * len(doc_values) + doc_codes
        listed, first = np.unique(key[n:], return_index=True)  # a pair listed twice: its first line
        at = np.minimum(np.searchsorted(listed, key[:n]), len(listed) - 1)
        return np.where(listed[at] == key[:n], self.iteration[first[at]], -1).astype(np.int64)


@dataclass(frozen=True, eq=False)
class DDRun:
    """A DD run read: the documents in order of examination, and their iterations."""

    run: Run
    iterations: DDIterations


def _detect(path, rows) -> str:
    line, fields = rows[0]
    if fields[0].startswith("#") or len(fields) == 9:
        return "harness2015"
    if 4 <= len(fields) <= 6:
        return "jig"
    malformed(path, line, "not a TREC DD run line", expected=_LAYOUT["jig"] + "; or " + _LAYOUT["harness2015"],
              found=len(fields))


def read_dd_run(path: str | os.PathLike[str], *, format: str = "auto", on_duplicate: str = "error",
                name: str | None = None) -> DDRun:
    """Read a TREC DD run file (see the module notes for the layouts).

    Parameters
    ----------
    path : path-like
    format : {"auto", "jig", "harness2015"}
    on_duplicate : {"error", "first", "jig"}
        A document returned twice for a topic is an error, or its later lines are dropped,
        or (``"jig"``) each repeat is kept as an examined document without gain, as the
        TREC DD jig scores it.
    name : str, optional
        The run's name; by default the system id (2015) or the file name without extension.

    Returns
    -------
    DDRun
        ``run.rank`` is each document's place in the session (iteration, then score
        descending with ties in file order, or the 2015 rank column); evaluate with
        ``order="rank"``.

    Examples
    --------
    >>> import tempfile, os
    >>> f = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
    >>> _ = f.write("DD17-1\\t0\\tdA\\t2.0\\t1\\tDD17-1.1:2\\nDD17-1\\t0\\tdC\\t1.0\\t0\\n"
    ...             "DD17-1\\t1\\tdB\\t9.0\\t1\\tDD17-1.1:3\\n"); f.close()
    >>> dd = read_dd_run(f.name)
    >>> list(dd.run.docnos), dd.run.rank.tolist(), dd.iterations.iteration.tolist()
    (['dA', 'dC', 'dB'], [1, 2, 3], [0, 0, 1])
    >>> os.unlink(f.name)
    """
    check_choice("format", format, DD_RUN_FORMATS)
    check_choice("on_duplicate", on_duplicate, DD_DUPLICATE_POLICIES)
    from .source import streams_kept

    with streams_kept(path):
        return _read_dd_run(Path(path), format, on_duplicate, name)


def _read_dd_run(path: Path, format: str, on_duplicate: str, name: str | None) -> DDRun:
    if format in ("auto", "jig") and (fast := _read_jig_fast(path, on_duplicate, name)) is not None:
        return fast
    rows = list(iter_fields(path, separator="\t"))
    if not rows:
        malformed(path, None, "the file is empty")
    if format == "auto":
        format = _detect(path, rows)
    kept: list[tuple[str, str, int, float, int, int]] = []  # topic, docno, iteration, score, rank, line
    seen: dict[tuple[str, str], int] = {}
    system = None
    dropped = 0
    for line, fields in rows:
        fields = [f.strip() for f in fields]
        if format == "harness2015":
            if fields[0].startswith("#"):
                continue
            if len(fields) < 7:
                malformed(path, line, "wrong number of columns for a DD 2015 run", expected=_LAYOUT[format],
                          found=len(fields))
            system = system or fields[1]
            batch = parse_int(path, line, fields[2], "the batch number (3rd column)")
            if batch < 1:
                malformed(path, line, "a batch number below 1", expected="batches numbered from 1", found=fields[2])
            iteration = batch - 1
            rank = parse_int(path, line, fields[3], "the rank (4th column)")
            topic, docno = fields[4], fields[5]
            score = parse_float(path, line, fields[6], "the confidence (7th column)")
        else:
            if not 4 <= len(fields) <= 6:
                malformed(path, line, "wrong number of columns for a DD run", expected=_LAYOUT[format],
                          found=len(fields))
            topic, docno = fields[0], fields[2]
            iteration = parse_int(path, line, fields[1], "the iteration (2nd column)")
            if iteration < 0:
                malformed(path, line, "a negative iteration", expected="iterations numbered from 0", found=fields[1])
            score = parse_float(path, line, fields[3], "the score (4th column)")
            if score != score:
                malformed(path, line, "the score is NaN", expected="a number", found=fields[3])
            rank = 0
        if not topic or not docno:
            malformed(path, line, "an empty topic or document id", expected=_LAYOUT[format], found="\t".join(fields))
        first = seen.setdefault((topic, docno), line)
        if first != line and on_duplicate != "jig":
            if on_duplicate == "error":
                malformed(path, line, f"document {docno!r} returned twice for topic {topic!r} (first on line {first}); "
                          "use on_duplicate='first' (--on-duplicate first) to keep the first")
            dropped += 1
            continue
        kept.append((topic, docno, iteration, score, rank, line))
    if not kept:
        malformed(path, None, "no run lines")
    topics, docnos, iterations, scores, given_ranks, lines = map(list, zip(*kept, strict=True))
    # the order of examination: the jig sorts an iteration by score (stable); 2015 has ranks
    within = np.asarray(given_ranks, dtype=np.float64) if format == "harness2015" else -np.asarray(scores,
                                                                                                   dtype=np.float64)
    notes = (f"{path}: {dropped} repeated document line(s) dropped (kept the first)",) if dropped else ()
    if on_duplicate == "jig" and len(seen) < len(topics):
        docnos, repeats = _mark_jig_repeats(topics, docnos, iterations, within)
        notes = (f"{path}: {repeats} repeated document line(s) kept as examined documents without gain "
                 "(the TREC DD jig's rule)",)
    return _assemble(path, np.asarray(topics, dtype=object), np.asarray(docnos, dtype=object),
                     np.asarray(iterations, dtype=np.int64), np.asarray(scores, dtype=np.float64), within,
                     name or system or path.stem, notes, lines)


def _mark_jig_repeats(topics: list[str], docnos: list[str], iterations: list[int],
                      within: np.ndarray) -> tuple[list[str], int]:
    """The document ids with every repeat renamed ``docno<TAB>(repeat k)``, and how many.

    The first occurrence is the jig's (``scorer/reader.py``): per topic, iterations in the
    order they first appear in the file, within one by ``within`` (score descending or the
    2015 rank), ties in file order.
    """
    n = len(topics)
    first_seen: dict[tuple[str, int], int] = {}
    appearance = np.fromiter((first_seen.setdefault((t, i), k) for k, (t, i) in enumerate(zip(topics, iterations,
                                                                                              strict=False))),
                             dtype=np.int64, count=n)
    topic_codes = pd.factorize(np.asarray(topics, dtype=object))[0]
    order = np.lexsort((np.arange(n), within, appearance, topic_codes))
    renamed = list(docnos)
    count: dict[tuple[str, str], int] = {}
    repeats = 0
    for row in order.tolist():
        key = (topics[row], docnos[row])
        k = count.get(key, 0)
        count[key] = k + 1
        if k:
            renamed[row] = f"{docnos[row]}\t(repeat {k})"
            repeats += 1
    return renamed, repeats


def _assemble(path: Path, topics: np.ndarray, docnos: np.ndarray, iterations: np.ndarray, scores: np.ndarray,
              within: np.ndarray, run_name: str, notes: tuple[str, ...], lines: list[int]) -> DDRun:
    """The Run (rank = place in the session) and the iterations, from the kept lines in file
    order (repeats already dropped or renamed: the run's constructor finds none)."""
    topic_codes, topic_ids = pd.factorize(topics, sort=True)
    n = len(topics)
    order = np.lexsort((np.arange(n), within, iterations, topic_codes))
    place = np.empty(n, dtype=np.int64)
    place[order] = place_in_segments(np.bincount(topic_codes, minlength=len(topic_ids)), first=1)
    run = Run.from_columns(topics, docnos, scores, place, name=run_name, source=str(path), lines=lines, unit="line")
    run = dataclasses.replace(run, notes=notes)
    return DDRun(run=run, iterations=DDIterations(topic=topics, docno=docnos, iteration=iterations, source=str(path),
                                                  run_doc_ids=run.doc_ids, doc_code=np.arange(n, dtype=np.int64),
                                                  topic_code=run.topic.astype(np.int64), topic_values=run.topic_ids))


# ---- the fast path for jig files ------------------------------------------------------------
#
# It accepts a subset of what the careful path accepts, with the same values: a file whose
# fields the careful path would not take as they stand (white space that it strips, a
# byte-order mark, a carriage return, a first line it reads as a 2015 header) or that has
# any problem goes to the careful path, which reads it or words the error.

_NO_DELIMITER = "\x1f"  # white space (foreign_space), so absent from a file read here: Arrow reads whole lines
_FIRST_CONTENT = re.compile(rb"[^ \t\n\r\x0b\x0c]")  # what bytes.lstrip() stops at
_FIRST_LINE = re.compile(rb"[^\n]+")
_DICTIONARY = pa.dictionary(pa.int32(), pa.string())


def _read_jig_fast(path: Path, on_duplicate: str, name: str | None) -> DDRun | None:
    """Vectorised reading of a regular jig run file; None sends it to the careful reader,
    which finds and words any problem."""
    from .source import is_regular_file

    if not is_regular_file(path) or path.stat().st_size == 0:
        return None  # pipes and the like are read (and errors worded) by the careful path
    data, _ = map_file(path)
    view = memoryview(data)  # released once Arrow's threads let go of it (source.release)
    try:
        columns = _jig_columns(data, view)
    finally:
        release(data, view)
    if columns is None:
        return None
    return _jig_run(path, *columns, on_duplicate=on_duplicate, name=name)


def _plain_text(data) -> bool:
    """Whether every field of the file stands as the careful path reads it."""
    if data[:3] == b"\xef\xbb\xbf":
        return False
    first = _FIRST_CONTENT.search(data)
    if first is None or first.group() == b"#":
        return False  # a 2015 header line to format="auto": read the careful way, as always
    if foreign_space(data, delimiter=b"\t"):
        return False
    if int(np.frombuffer(data, dtype=np.uint8).max()) < 0x80:
        return True
    try:
        codecs.utf_8_decode(data, "strict", True)
    except UnicodeDecodeError:
        return False
    return True


def _jig_columns(data, view):
    """(topic, iteration, docno, score) as parsed by Arrow: topic dictionary-encoded,
    iteration int64 (or dictionary-encoded strings), docno one string per line, score
    float64; None unless every line has 4 to 6 fields and the values parse. ``view``: the
    memoryview of ``data`` that Arrow reads."""
    if not _plain_text(data):
        return None
    width = _FIRST_LINE.search(data).group().count(b"\t") + 1  # Arrow's reader skips empty lines too
    if not 4 <= width <= 6:
        return None
    # Arrow reads "0x1f" as an integer, the careful path does not: with such a field the
    # distinct iterations are checked one by one instead
    hex_iteration = any(data.find(x) >= 0 and data.find(b"\t0" + x) >= 0 for x in (b"x", b"X"))
    iteration_type = _DICTIONARY if hex_iteration else pa.int64()

    def read(names: list[str], delimiter: str, column_types: dict, **convert):
        return pacsv.read_csv(
            pa.py_buffer(view), read_options=pacsv.ReadOptions(column_names=names, block_size=tuning.CSV_BLOCK_BYTES),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False, double_quote=False,
                                             escape_char=False, newlines_in_values=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types=column_types, strings_can_be_null=False, null_values=[],
                                                 check_utf8=True, **convert))

    names = [f"f{k}" for k in range(width)]
    try:
        # lines of one width (the usual file): Arrow's reader splits and converts the fields
        table = read(names, "\t", {"f0": _DICTIONARY, "f1": iteration_type, "f2": pa.string(), "f3": pa.float64()},
                     include_columns=names[:4])
        return tuple(table.column(k) for k in range(4))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError) as error:
        if "columns" not in str(error):
            return None  # a value that does not parse: the careful path words it
    # lines of different widths (4 to 6): whole lines, split by Arrow's compute functions
    try:
        lines = read(["line"], _NO_DELIMITER, {"line": pa.string()}).column("line")
        fields = pc.split_pattern(lines, "\t", max_splits=6)
        del lines
        widths = pc.min_max(pc.list_value_length(fields)).as_py()
        if widths["min"] is None or widths["min"] < 4 or widths["max"] > 6:
            return None
        iteration = pc.list_element(fields, 1)
        return (pc.dictionary_encode(pc.list_element(fields, 0)),
                pc.dictionary_encode(iteration) if hex_iteration else pc.cast(iteration, pa.int64()),
                pc.list_element(fields, 2), pc.cast(pc.list_element(fields, 3), pa.float64()))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError):
        return None


def _dictionary(column) -> tuple[np.ndarray, list[str]]:
    """Each row's code and the distinct strings of a dictionary-encoded (chunked) column."""
    if isinstance(column, pa.ChunkedArray):
        column = column.unify_dictionaries().combine_chunks()
    return column.indices.to_numpy(zero_copy_only=False), column.dictionary.to_pylist()


def _jig_run(path: Path, topic_column, iteration_column, doc_ids, score_column, *, on_duplicate: str,
             name: str | None) -> DDRun | None:
    """The DDRun from the parsed columns, or None if a value is one the careful path refuses."""
    if any(column.null_count for column in (topic_column, iteration_column, doc_ids, score_column)):
        return None
    appearance, topic_values = _dictionary(topic_column)
    if len(appearance) == 0:
        return None
    if pa.types.is_dictionary(iteration_column.type):
        # each distinct text checked and read as the careful path does
        iteration_code, iteration_texts = _dictionary(iteration_column)
        if not all(INTEGER.fullmatch(text) for text in iteration_texts):
            return None
        iteration_values = [int(text) for text in iteration_texts]
        if max(iteration_values) >= 2**63:
            return None
        iterations = np.asarray(iteration_values, dtype=np.int64)[iteration_code]
    else:
        iterations = np.ascontiguousarray(iteration_column.to_numpy(), dtype=np.int64)
    if iterations.min() < 0:
        return None
    scores = np.ascontiguousarray(score_column.to_numpy(), dtype=np.float64)
    if isinstance(doc_ids, pa.Array):
        doc_ids = pa.chunked_array([doc_ids])
    # topic ids sorted (code point order is UTF-8 byte order), as the careful path codes them
    by_id = pc.array_sort_indices(pa.array(topic_values, type=pa.string())).to_numpy()
    sorted_code = np.empty(len(topic_values), dtype=np.int32)
    sorted_code[by_id] = np.arange(len(topic_values), dtype=np.int32)
    topic_ids = pa.array(topic_values, type=pa.string()).take(by_id)
    try:
        # every row checked (empty ids, NaN scores) before any repeat is dropped, as the careful path does
        run = _jig_columns_run(path, appearance, sorted_code, topic_ids, doc_ids, iterations, scores, name,
                               on_duplicate="first" if on_duplicate == "first" else "error")
    except InputFormatError:
        return None  # the careful path words the error, or keeps the repeats as the jig does
    if run.notes:  # repeats dropped: again without them, the iterations and the places with them
        keep = ~PairIndex.build(sorted_code[appearance], StringKeys.of(doc_ids), n_groups=len(topic_values)).repeated
        iterations = iterations[keep]
        run = _jig_columns_run(path, appearance[keep], sorted_code, topic_ids, doc_ids.filter(pa.array(keep)),
                               iterations, scores[keep], name, on_duplicate="error")
        run = dataclasses.replace(run, notes=(f"{path}: {int((~keep).sum())} repeated document line(s) dropped "
                                              "(kept the first)",))
    n = len(run)
    return DDRun(run=run, iterations=DDIterations(None, None, iterations, source=str(path), run_doc_ids=run.doc_ids,
                                                  doc_code=np.arange(n, dtype=np.int64),
                                                  topic_code=run.topic.astype(np.int64),
                                                  topic_values=run.topic_ids))


def _jig_columns_run(path: Path, appearance: np.ndarray, sorted_code: np.ndarray, topic_ids, doc_ids,
                     iterations: np.ndarray, scores: np.ndarray, name: str | None, *, on_duplicate: str) -> Run:
    """The run of the parsed columns (topics as codes in order of appearance, ``sorted_code``
    their places in the sorted ``topic_ids``), ranked by the session's places;
    InputFormatError for anything :meth:`Run.from_columns` refuses."""
    place = _places(appearance, iterations, scores, len(topic_ids))
    topics = pa.DictionaryArray.from_arrays(pa.array(sorted_code[appearance]), topic_ids)
    return Run.from_columns(topics, doc_ids, scores, place, name=name or path.stem, source=str(path),
                            on_duplicate=on_duplicate, unit="line")


def _places(topic: np.ndarray, iterations: np.ndarray, scores: np.ndarray, n_topics: int) -> np.ndarray:
    """Each row's place in its topic's session: by iteration, then score descending, ties
    in file order, as the careful path's lexsort orders them."""
    n = len(topic)
    span = int(iterations.max()) + 1
    if n_topics * span < 2**53:
        # one stable sort of complex numbers, ordered by real then imaginary part: (topic,
        # iteration) then -score; fast on a file that runs topic by topic, iteration by iteration
        key = np.empty(n, dtype=np.complex128)
        key.real = topic.astype(np.int64) * span + iterations
        key.imag = -scores
        order = np.argsort(key, kind="stable")
        del key
    else:
        order = pc.sort_indices(pa.table({"t": topic, "i": iterations, "s": -scores}),
                                sort_keys=[("t", "ascending"), ("i", "ascending"), ("s", "ascending")]).to_numpy()
    place = np.empty(n, dtype=np.int64)
    place[order] = place_in_segments(np.bincount(topic, minlength=n_topics), first=1)
    return place


_SUBTOPIC_RATINGS = re.compile(r"[^\t:|]+:-?\d+(?:\|[^\t:|]+:-?\d+)*")


def looks_like_dd_run(path: str | os.PathLike[str]) -> bool:
    """Whether a file's first line (comments skipped) is a TREC DD run line rather than a
    TREC run line: tab-separated ``topic iteration docno score`` with at most ``on_topic``
    (0 or 1) and ``subtopic:rating|...`` after them (the jig's), or the 2015 harness's 9
    columns with integer batch and rank. A TREC run line has 6 columns whose 5th is a score
    and 6th a run tag, so the two do not meet in practice.
    """
    from .source import first_line

    text = first_line(path)
    if text is None:
        return False
    fields = text.split("\t")
    if len(fields) == 9:
        return bool(INTEGER.fullmatch(fields[2].strip()) and INTEGER.fullmatch(fields[3].strip()))
    if not 4 <= len(fields) <= 6 or not INTEGER.fullmatch(fields[1].strip()) or not NUMBER.fullmatch(fields[3].strip()):
        return False
    if len(fields) >= 5 and fields[4].strip() not in ("0", "1"):
        return False
    return len(fields) < 6 or fields[5].strip() == "" or bool(_SUBTOPIC_RATINGS.fullmatch(fields[5].strip()))


def read_dd_iterations(path: str | os.PathLike[str]) -> DDIterations:
    """The ``iterations`` resource: each document's iteration, from a DD run file."""
    return read_dd_run(path, on_duplicate="first").iterations


def as_dd_iterations(value) -> DDIterations:
    """Accept a :class:`DDIterations`, a :class:`DDRun`, a path, or ``{topic: {docno: iteration}}``."""
    if isinstance(value, DDIterations):
        return value
    if isinstance(value, DDRun):
        return value.iterations
    if isinstance(value, (str, os.PathLike)):
        return read_dd_iterations(value)
    if isinstance(value, Mapping):
        rows = [(str(t), str(d), i) for t, docs in value.items() for d, i in docs.items()]
        its = np.asarray([r[2] for r in rows], dtype=np.int64)
        if len(its) and its.min() < 0:
            raise ParameterError("iterations are numbered from 0")
        return DDIterations(np.asarray([r[0] for r in rows], dtype=object),
                            np.asarray([r[1] for r in rows], dtype=object), its)
    raise ParameterError(f"iterations must be a DD run file, a DDIterations or {{topic: {{docno: iteration}}}}; "
                         f"got {type(value).__name__}")
