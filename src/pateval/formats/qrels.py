"""Qrels files in the formats of TREC, ndeval, TREC Dynamic Domain, NTCIR and CLEF-IP.

=============  ===========================================  ==============================
format         line                                         grade kept
=============  ===========================================  ==============================
trec           ``qid iter docno rel``                       rel (negative kept)
subtopic       ``qid subtopic docno rel`` (ndeval)          rel, per subtopic
dd             ``topic<TAB>subtopic<TAB>docno<TAB>passage<TAB>rating``  rating, per passage
ntcir          ``topic<TAB>A|B<TAB>docid<TAB>1``            A = 2 (relevant), B = 1 (partial)
clefip-pac     ``PAC-1 0 EP-0971326-B1 1 [LANG]`` (2010)    rel (2 = X/Y citation)
clefip-2011    ``EP-0000001-A1 EP-7654321 2``               rel
beir           ``query-id<TAB>corpus-id<TAB>score``          score (after the header line)
json           ``{"q1": {"d1": 1, "d2": 0}}``               the value
=============  ===========================================  ==============================

``format="auto"`` detects the format only where that is safe: 3 fields (clefip-2011),
5 fields (dd when the 5th is a number, clefip-pac with a language otherwise), 4 fields
with A/B in the 2nd column (ntcir), or 4 fields whose 2nd column is always ``0``/``Q0``
(trec; clefip-pac when topics are ``PAC-n``). Four fields with other 2nd columns may be
TREC iterations or subtopics: the reader then asks for the format by name. BEIR's and MTEB's
qrels (``qrels/test.tsv``) are told by their header ``query-id corpus-id score``, JSON of
nested dicts (pytrec_eval's, BEIR's and MTEB's ``{topic: {docno: grade}}``) by its first
character ``{``; either is said in a note. Any other first line without a number is named
as a header, not read as a judgement.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .. import tuning
from ..core.qrels import Qrels
from ..errors import InputFormatError, malformed
from ..validation import check_choice
from .source import NUMBER, foreign_space, iter_fields, map_file, parse_grade, parse_int, read_bytes, release

__all__ = ["read_qrels", "QRELS_FORMATS", "write_qrels"]

from .names import QRELS_FORMATS  # noqa: E402 (declared where the command line reads it)

_LAYOUT = {
    "trec": "4 columns: qid iter docno rel",
    "subtopic": "4 columns: qid subtopic docno rel",
    "dd": "5 tab-separated columns: topic subtopic docno passage_id rating",
    "ntcir": "4 columns: topic A|B docid 1",
    "clefip-pac": "4 or 5 columns: topic 0 docno rel [language]",
    "clefip-2011": "3 columns: topic_ucid cited_patent rel",
    "beir": "3 tab-separated columns: query-id corpus-id score",
}
#: BEIR's and MTEB's qrels header (qrels/*.tsv)
BEIR_HEADER = ("query-id", "corpus-id", "score")


def read_qrels(path: str | os.PathLike[str], *, format: str = "auto", on_duplicate: str = "error",
               integer_grades: bool = False) -> Qrels:
    """Read a qrels file.

    Parameters
    ----------
    path : path-like
        The qrels file.
    format : {"auto", "trec", "subtopic", "dd", "ntcir", "clefip-pac", "clefip-2011", "beir", "json"}
        The file's format; ``"auto"`` detects it where that is safe (see the module notes).
    on_duplicate : {"error", "first"}
        Two lines judging the same item differently are an error, or the first is kept
        (``"first"``). Identical repeated lines are merged either way, with a note.
    integer_grades : bool, default False
        Refuse a grade with a fraction at its line (``pateval trec_eval``: trec_eval's grades
        are integers); by default TREC, subtopic, BEIR and JSON qrels may hold fractional
        grades (float64 :attr:`Qrels.rel`), which the measures defined on integer levels refuse.

    Returns
    -------
    Qrels

    Examples
    --------
    >>> import tempfile, os
    >>> f = tempfile.NamedTemporaryFile("w", suffix=".qrels", delete=False)
    >>> _ = f.write("q1 0 d1 1\\nq1 0 d2 0\\n"); f.close()
    >>> q = read_qrels(f.name)
    >>> q.format, len(q)
    ('trec', 2)
    >>> os.unlink(f.name)
    """
    check_choice("format", format, QRELS_FORMATS)
    check_choice("on_duplicate", on_duplicate, ("error", "first"))
    from .source import streams_kept

    with streams_kept(path):  # standard input or a pipe: not kept once read
        return _read_qrels(Path(path), format, on_duplicate, integer_grades)


def _read_qrels(path: Path, format: str, on_duplicate: str, integer_grades: bool = False) -> Qrels:
    from .parquet import is_parquet, read_parquet_qrels

    if format in ("auto", "trec") and is_parquet(path):  # by content: Arrow reads the columns directly
        return read_parquet_qrels(path, on_duplicate=on_duplicate)
    if format == "json" or (format == "auto" and _is_json(path)):
        from .nested import read_json_qrels

        qrels = read_json_qrels(path, on_duplicate=on_duplicate)
        if format == "auto":
            qrels = qrels.replace(notes=(*qrels.notes, f"{qrels.source}: read as JSON of nested dicts "
                                         "{topic: {docno: grade}} (--qrels-format json)"))
        return qrels
    if format == "beir" or (format == "auto" and _is_beir(path)):
        return _read_beir(path, on_duplicate, detected=format == "auto")
    if format in ("auto", "trec", "subtopic", "ntcir", "clefip-pac", "dd"):
        fast = _read_fast(path, *map_file(path), format)
        if fast is not None:
            return fast
    data = read_bytes(path)
    separator = "\t" if format == "dd" else None
    rows = list(iter_fields(path, data, separator=separator))
    if not rows:
        malformed(path, None, "the file is empty")
    _refuse_header(path, rows, format)
    if format == "auto":
        format = _detect(path, rows)
    return _build(path, rows, format, on_duplicate, integer_grades)


def _is_json(path: Path) -> bool:
    from .nested import looks_like_json

    return looks_like_json(path)


def _is_beir(path: Path) -> bool:
    from .source import first_line

    line = first_line(path)
    return line is not None and tuple(line.strip().lower().split()) == BEIR_HEADER


def _read_beir(path: Path, on_duplicate: str, *, detected: bool) -> Qrels:
    """BEIR's and MTEB's qrels: ``query-id corpus-id score`` tab-separated, after that header
    (or another header without a number: ``qid docno rel``); split at white space when the
    first line has no tab."""
    data = read_bytes(path)
    first = next(iter_fields(path, data, separator="\t"), None)
    rows = list(iter_fields(path, data, separator="\t" if first is not None and len(first[1]) > 1 else None))
    header = bool(rows) and not any(NUMBER.fullmatch(field.strip()) for field in rows[0][1])
    if header:
        rows = rows[1:]
    if not rows:
        malformed(path, None, "no judgement after the header" if header else "the file is empty")
    topics: list[str] = []
    docnos: list[str] = []
    grades: list[int | float] = []
    lines: list[int] = []
    for line, fields in rows:
        fields = [f.strip() for f in fields]
        if len(fields) != 3 or not all(fields):
            malformed(path, line, "not a line of BEIR qrels", expected=_LAYOUT["beir"], found="\t".join(fields))
        topics.append(fields[0])
        docnos.append(fields[1])
        grades.append(parse_grade(path, line, fields[2], "the score (3rd column)"))
        lines.append(line)
    qrels = Qrels.from_columns(topics, docnos, grades, format="beir", source=str(path), on_duplicate=on_duplicate,
                               lines=lines, unit="line")
    said = "its header query-id corpus-id score" if detected else "--qrels-format beir"
    skipped = "; the header line skipped" if header and not detected else ""
    return qrels.replace(notes=(*qrels.notes, f"{path}: read as BEIR/MTEB qrels ({said}): topic, document and "
                                f"grade in 3 columns{skipped}"))


def _refuse_header(path: Path, rows: list[tuple[int, list[str]]], format: str) -> None:
    """A first line without any number is a header, not a judgement: say so, and what to do."""
    line, fields = rows[0]
    if len(fields) < 3 or any(NUMBER.fullmatch(field) for field in fields):
        return
    what = " ".join(fields)
    if len(fields) == 3:
        hint = ("qrels of 3 columns with a header (BEIR's, MTEB's) are read with --qrels-format beir "
                "(format='beir'), or remove the line")
    else:
        hint = "remove it (qrels have no header line)"
        if format != "auto":
            hint += f", or name the file's format if it is not {format} (--qrels-format)"
    malformed(path, line, f"the first line looks like a header ({what!r}), not a judgement: {hint}")


def _read_fast(path: Path, data: bytes, plain: bytes | None, format: str) -> Qrels | None:
    """Arrow's CSV reader for regular 4-column files and TREC DD's 5 tab-separated columns;
    None sends the file to the careful path.

    It returns only when the file has no problem at all (no repeated or conflicting
    judgement, every grade an integer), so that the careful path alone words errors and
    notes. A file it returns for is one the careful path reads to the same qrels: no white
    space but the delimiter and newlines (so no field is padded and no line is blank but
    the empty ones both skip), every line as wide as the first, no field empty, valid UTF-8
    (a leading byte-order mark is skipped by both), grades that Arrow reads as 64-bit
    integers (a subset of what the careful path takes: no ``+`` sign). ``plain``: the
    delimiter with which :func:`~pateval.formats.source.map_file` found the bytes plain (then
    neither white space nor UTF-8 is checked again), or None.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    end = data.find(b"\n")
    first = data[: end if end >= 0 else len(data)].rstrip(b"\r")
    dd = format in ("auto", "dd") and len(first.split(b"\t")) == 5 and all(first.split(b"\t"))
    if format == "dd" and not dd:
        return None
    delimiter = "\t" if dd else next(
        (d for d in ("\t", " ") if len(first.split(d.encode())) == 4 and all(first.split(d.encode()))), None)
    checked = delimiter is not None and delimiter.encode() == plain
    if delimiter is None or (not checked and foreign_space(data, delimiter=delimiter.encode())):
        return None
    names = ["topic", "second", "docno", "passage", "rel"] if dd else ["topic", "second", "docno", "rel"]
    dictionary = pa.dictionary(pa.int32(), pa.string())
    if dd:
        # one thread and one block: the file is parsed straight into single-chunk columns
        # (no dictionaries to unify, no chunks to concatenate), and threads would cost more
        # CPU time than they save on a file of this kind (a few tens of MB)
        read_options = pacsv.ReadOptions(column_names=names, block_size=tuning.DD_QRELS_BLOCK_BYTES, use_threads=False)
        pool = _dd_pool()
    else:
        read_options = pacsv.ReadOptions(column_names=names, block_size=tuning.CSV_BLOCK_BYTES)
        pool = None
    view = memoryview(data)  # released once Arrow's threads let go of it (source.release)
    try:
        table = pacsv.read_csv(
            pa.py_buffer(view),
            read_options=read_options,
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False, double_quote=False,
                                             escape_char=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(
                # topics and 2nd columns repeat: dictionary-encoded as they are parsed
                column_types={"topic": dictionary, "second": dictionary, "docno": pa.string(),
                              "passage": pa.string(), "rel": pa.int64()},
                strings_can_be_null=False, null_values=[], check_utf8=not checked),
            memory_pool=pool,
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    finally:
        release(data, view)
    if table.num_rows == 0:
        return None
    topics = _one_chunk(table.column("topic"), pool)
    seconds = _one_chunk(table.column("second"), pool)
    strings = [_one_chunk(table.column(n), pool) for n in ("docno", "passage") if n in names]
    if dd:
        format = "dd"
        rel = table.column("rel").to_numpy()
    else:
        second = set(seconds.dictionary.to_pylist())
        if "" in second:
            return None  # doubled delimiters: irregular white space
        if format == "auto":
            if second <= {"A", "B"}:
                format = "ntcir"
            elif second <= {"0", "Q0"}:
                format = "clefip-pac" if topics[0].as_py().startswith("PAC-") else "trec"
            else:
                return None  # ambiguous: the careful path says so
        if format == "ntcir":
            if not second <= {"A", "B"}:
                return None
            is_a = np.asarray([value == "A" for value in seconds.dictionary.to_pylist()], dtype=bool)
            rel = np.where(is_a[seconds.indices.to_numpy(zero_copy_only=False)], 2, 1).astype(np.int64)
        else:
            rel = table.column("rel").to_numpy()
    del table
    try:
        qrels = Qrels.from_columns(topics, strings[0], rel, subtopics=seconds if format in ("subtopic", "dd") else None,
                                   passages=strings[1] if dd else None, format=format, source=str(path), unit="line")
    except InputFormatError:
        return None  # an empty field (doubled delimiters), a conflict: the careful path words it
    # a repeated judgement too: the careful path notes it by line
    return None if qrels.notes else qrels


def _dd_pool():
    """The memory pool DD qrels are parsed into: the system allocator's ordinary pages.

    Parsing touches about three times the file's size in fresh memory (a copy of the
    block, the parser's buffers, the columns). Arrow's default pool (mimalloc) takes it as
    transparent huge pages, which on a VM whose guest hands freed memory back to the host
    cost several times more per MB the first time (measured on the project's reference VM): the 60 MB
    of a 21 MB file took 0.05-0.3 CPU-s so, 0.04 s in ordinary pages.
    """
    import pyarrow as pa

    return pa.system_memory_pool()


def _one_chunk(column, pool=None):
    """A parsed column as one array (dictionary columns with one dictionary)."""
    import pyarrow as pa

    if column.num_chunks == 1:
        return column.chunk(0)
    if pa.types.is_dictionary(column.type):
        column = column.unify_dictionaries(memory_pool=pool)
    return column.combine_chunks(memory_pool=pool)


def _detect(path: Path, rows: list[tuple[int, list[str]]]) -> str:
    line, fields = rows[0]
    width = len(fields)
    if width == 3:
        return "clefip-2011"
    if width == 5:
        return "dd" if fields[4].lstrip("+-").isdigit() else "clefip-pac"
    if width == 4:
        second = {f[1] for _, f in rows if len(f) == 4}
        if second <= {"A", "B"}:
            return "ntcir"
        if second <= {"0", "Q0"}:
            return "clefip-pac" if fields[0].startswith("PAC-") else "trec"
        malformed(path, None, "cannot tell TREC qrels (qid iter docno rel) from subtopic qrels "
                  "(qid subtopic docno rel): the 2nd column holds values other than 0; name the "
                  "format (format='trec' or 'subtopic', --qrels-format)")
    malformed(path, line, "not a qrels line of any known format",
              expected="3, 4 or 5 columns", found=width)


def _build(path: Path, rows: list[tuple[int, list[str]]], fmt: str, on_duplicate: str,
           integer_grades: bool = False) -> Qrels:
    grade_of = parse_int if integer_grades else parse_grade
    widths = {"trec": (4,), "subtopic": (4,), "dd": (5,), "ntcir": (4,), "clefip-pac": (4, 5), "clefip-2011": (3,)}[fmt]
    topics: list[str] = []
    docnos: list[str] = []
    rels: list[int | float] = []
    subtopics: list[str] = []
    passages: list[str] = []
    langs: list[str] = []
    lines: list[int] = []
    first_width = len(rows[0][1])
    for line, fields in rows:
        if len(fields) not in widths or (fmt == "clefip-pac" and len(fields) != first_width):
            malformed(path, line, f"wrong number of columns for {fmt} qrels", expected=_LAYOUT[fmt], found=len(fields))
        subtopic = passage = None
        if fmt == "trec":  # a grade may have a fraction (float64 grades, see core.qrels)
            topic, _, docno, rel_text = fields
            rel = grade_of(path, line, rel_text, "the relevance grade (4th column)")
        elif fmt == "clefip-pac":
            topic, _, docno, rel_text = fields[:4]
            rel = parse_int(path, line, rel_text, "the relevance grade (4th column)")
        elif fmt == "subtopic":
            topic, subtopic, docno, rel_text = fields
            rel = grade_of(path, line, rel_text, "the relevance grade (4th column)")
        elif fmt == "dd":
            topic, subtopic, docno, passage, rel_text = (f.strip() for f in fields)
            rel = parse_int(path, line, rel_text, "the rating (5th column)")
            if not all((topic, subtopic, docno, passage)):
                malformed(path, line, "an empty field", expected=_LAYOUT[fmt], found="\t".join(fields))
        elif fmt == "ntcir":
            topic, level, docno, flag = fields
            if level not in ("A", "B"):
                malformed(path, line, "the relevance level (2nd column) is not A or B", expected="A or B", found=level)
            parse_int(path, line, flag, "the 4th column")
            rel = 2 if level == "A" else 1
        else:  # clefip-2011
            topic, docno, rel_text = fields
            rel = parse_int(path, line, rel_text, "the relevance grade (3rd column)")
        lines.append(line)
        topics.append(topic)
        docnos.append(docno)
        rels.append(rel)
        if subtopic is not None:
            subtopics.append(subtopic)
        if passage is not None:
            passages.append(passage)
        if fmt == "clefip-pac" and first_width == 5:
            langs.append(fields[4])
    return Qrels.from_columns(topics, docnos, rels, subtopics=subtopics if fmt in ("subtopic", "dd") else None,
                              passages=passages if fmt == "dd" else None, format=fmt, source=str(path),
                              on_duplicate=on_duplicate, lines=lines, unit="line",
                              extra={"lang": np.asarray(langs, dtype=object)} if langs else None)


def write_qrels(qrels: Qrels, path: str | os.PathLike[str]) -> None:
    """Write qrels atomically: TREC 4 columns, or ``qid subtopic docno rel`` with subtopics."""
    from .atomic import atomic_output

    frame = qrels.to_frame()
    with atomic_output(path) as out:
        if qrels.subtopic is not None:
            for t, s, d, r in zip(frame["topic"], frame["subtopic"], frame["docno"], frame["rel"], strict=False):
                out.write(f"{t} {s} {d} {r}\n")
        else:
            for t, d, r in zip(frame["topic"], frame["docno"], frame["rel"], strict=False):
                out.write(f"{t} 0 {d} {r}\n")
