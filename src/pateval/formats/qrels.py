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
=============  ===========================================  ==============================

``format="auto"`` detects the format only where that is safe: 3 fields (clefip-2011),
5 fields (dd when the 5th is a number, clefip-pac with a language otherwise), 4 fields
with A/B in the 2nd column (ntcir), or 4 fields whose 2nd column is always ``0``/``Q0``
(trec; clefip-pac when topics are ``PAC-n``). Four fields with other 2nd columns may be
TREC iterations or subtopics: the reader then asks for the format by name.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..core.keys import PairIndex, StringKeys, string_parts
from ..core.order import unique_inverse
from ..core.qrels import Qrels
from ..errors import malformed
from ..validation import check_choice
from .source import foreign_space, iter_fields, map_file, parse_int, read_bytes, release

__all__ = ["read_qrels", "QRELS_FORMATS", "write_qrels"]

from .names import QRELS_FORMATS  # noqa: E402 (declared where the command line reads it)

_LAYOUT = {
    "trec": "4 columns: qid iter docno rel",
    "subtopic": "4 columns: qid subtopic docno rel",
    "dd": "5 tab-separated columns: topic subtopic docno passage_id rating",
    "ntcir": "4 columns: topic A|B docid 1",
    "clefip-pac": "4 or 5 columns: topic 0 docno rel [language]",
    "clefip-2011": "3 columns: topic_ucid cited_patent rel",
}


def read_qrels(path: str | os.PathLike[str], *, format: str = "auto", on_duplicate: str = "error") -> Qrels:
    """Read a qrels file.

    Parameters
    ----------
    path : path-like
        The qrels file.
    format : {"auto", "trec", "subtopic", "dd", "ntcir", "clefip-pac", "clefip-2011"}
        The file's format; ``"auto"`` detects it where that is safe (see the module notes).
    on_duplicate : {"error", "first"}
        Two lines judging the same item differently are an error, or the first is kept
        (``"first"``). Identical repeated lines are merged either way, with a note.

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
    from .source import forget_stream

    try:
        return _read_qrels(Path(path), format, on_duplicate)
    finally:
        forget_stream(path)  # standard input or a pipe: not kept once read


def _read_qrels(path: Path, format: str, on_duplicate: str) -> Qrels:
    from .parquet import is_parquet, read_parquet_qrels

    if format in ("auto", "trec") and is_parquet(path):  # by content: Arrow reads the columns directly
        return read_parquet_qrels(path, on_duplicate=on_duplicate)
    if format in ("auto", "trec", "subtopic", "ntcir", "clefip-pac", "dd"):
        fast = _read_fast(path, map_file(path), format)
        if fast is not None:
            return fast
    data = read_bytes(path)
    separator = "\t" if format == "dd" else None
    rows = list(iter_fields(path, data, separator=separator))
    if not rows:
        malformed(path, None, "the file is empty")
    if format == "auto":
        format = _detect(path, rows)
    return _build(path, rows, format, on_duplicate)


def _read_fast(path: Path, data: bytes, format: str) -> Qrels | None:
    """Arrow's CSV reader for regular 4-column files and TREC DD's 5 tab-separated columns;
    None sends the file to the careful path.

    It returns only when the file has no problem at all (no repeated or conflicting
    judgement, every grade an integer), so that the careful path alone words errors and
    notes. A file it returns for is one the careful path reads to the same qrels: no white
    space but the delimiter and newlines (so no field is padded and no line is blank but
    the empty ones both skip), every line as wide as the first, no field empty, valid UTF-8
    (a leading byte-order mark is skipped by both), grades that Arrow reads as 64-bit
    integers (a subset of what the careful path takes: no ``+`` sign).
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
    if delimiter is None or foreign_space(data, delimiter=delimiter.encode()):
        return None
    names = ["topic", "second", "docno", "passage", "rel"] if dd else ["topic", "second", "docno", "rel"]
    dictionary = pa.dictionary(pa.int32(), pa.string())
    if dd:
        # one thread and one block: the file is parsed straight into single-chunk columns
        # (no dictionaries to unify, no chunks to concatenate), and threads would cost more
        # CPU time than they save on a file of this kind (a few tens of MB)
        read_options = pacsv.ReadOptions(column_names=names, block_size=_DD_BLOCK, use_threads=False)
        pool = _dd_pool()
    else:
        read_options = pacsv.ReadOptions(column_names=names, block_size=1 << 24)
        pool = None
    try:
        table = pacsv.read_csv(
            pa.py_buffer(data),
            read_options=read_options,
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False, double_quote=False,
                                             escape_char=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(
                # topics and 2nd columns repeat: dictionary-encoded as they are parsed
                column_types={"topic": dictionary, "second": dictionary, "docno": pa.string(),
                              "passage": pa.string(), "rel": pa.int64()},
                strings_can_be_null=False, null_values=[], check_utf8=True),
            memory_pool=pool,
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    finally:
        release(data)
    if table.num_rows == 0:
        return None
    topics = _one_chunk(table.column("topic"), pool)
    seconds = _one_chunk(table.column("second"), pool)
    strings = [_one_chunk(table.column(n), pool) for n in ("docno", "passage") if n in names]
    if any(_has_empty(c) for c in [topics.dictionary, seconds.dictionary, *strings]):
        return None  # doubled delimiters: irregular white space
    if dd:
        format = "dd"
        rel = table.column("rel").to_numpy()
        # a judged item is (topic, subtopic, docno, passage): any item twice goes to the careful path
        if not _dd_items_distinct(topics, seconds, strings[0], strings[1]):
            return None
    else:
        second = set(seconds.dictionary.to_pylist())
        if format == "auto":
            if second <= {"A", "B"}:
                format = "ntcir"
            elif second <= {"0", "Q0"}:
                format = "clefip-pac" if topics[0].as_py().startswith("PAC-") else "trec"
            else:
                return None  # ambiguous: the careful path says so
        second_codes = seconds.indices.to_numpy(zero_copy_only=False)
        if format == "ntcir":
            if not second <= {"A", "B"}:
                return None
            is_a = np.asarray([value == "A" for value in seconds.dictionary.to_pylist()], dtype=bool)
            rel = np.where(is_a[second_codes], 2, 1).astype(np.int64)
        else:
            rel = table.column("rel").to_numpy()
        # a judged item is (topic[, subtopic], docno): any item twice goes to the careful path
        group = topics.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        n_groups = len(topics.dictionary)
        if format == "subtopic":
            uniques, group = unique_inverse(group * len(seconds.dictionary) + second_codes)
            n_groups = len(uniques)
        if PairIndex.build(group, StringKeys.of(strings[0]), n_groups=n_groups).repeated.any():
            return None
    return Qrels(
        topic=topics,  # dictionary-encoded as parsed: the evaluation groups by these codes
        docno=strings[0],
        rel=np.ascontiguousarray(rel, dtype=np.int64),
        subtopic=seconds if format in ("subtopic", "dd") else None,
        passage=strings[1] if format == "dd" else None,
        format=format,
        source=str(path),
    )


# Arrow's CSV block for DD qrels: a file of up to 64 MB in one block (a larger one in blocks
# of that size, its columns then joined: parsing holds about three times a block at once)
_DD_BLOCK = 1 << 26


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


def _dd_items_distinct(topics, seconds, docno, passage) -> bool:
    """Whether no (topic, subtopic, docno, passage) of DD qrels occurs twice, exactly.

    Passage ids are (nearly always) unique in the whole file, which settles it without
    grouping: ids of at most 8 bytes are compared as integers (:func:`_short_ids`), longer
    ones by fingerprint per (topic, subtopic). Only a passage id repeated within a subtopic
    brings the document ids in.
    """
    if _short_ids_distinct(passage):
        return True
    group, n_groups = _dd_groups(topics, seconds)
    if not PairIndex.build(group, StringKeys.of(passage), n_groups=n_groups).repeated.any():
        return True
    import pyarrow.compute as pc

    # a passage id twice in a subtopic: the (docno, passage) pairs decide (docnos hold no tab)
    item = pc.binary_join_element_wise(docno, passage, "\t")
    return not PairIndex.build(group, StringKeys.of(item), n_groups=n_groups).repeated.any()


def _short_ids_distinct(strings) -> bool:
    """Whether the strings are all at most 8 bytes long and all different.

    Ids numbered in file order ascend as :func:`_short_ids`' numbers: that is checked block
    by block in one reused scratch array; other files get all the numbers, then a sort.
    """
    offsets, data = string_parts(strings)
    n = len(offsets) - 1
    if n == 0 or len(data) < 8:
        return False  # a handful of ids: left to the index
    scratch = np.empty(_BLOCK, dtype=np.uint64)
    last = None
    for b0 in range(0, n, _BLOCK):
        b1 = min(n, b0 + _BLOCK)
        key = _block_ids(offsets, data, b0, b1, scratch[: b1 - b0])
        if key is None:
            return False
        if (last is not None and key[0] <= last) or bool(np.any(key[1:] <= key[:-1])):
            break
        last = key[-1]
    else:
        return True
    key = _short_ids(strings)
    return key is not None and _all_distinct(key)


def _short_ids(strings) -> np.ndarray | None:
    """Each string's bytes as a big-endian integer, or None when some string is longer than
    8 bytes (or the strings are fewer than 8 bytes in all).

    The strings are non-empty and hold no NUL byte (the readers refuse those), so a k-byte
    string's number lies in [256**(k-1), 256**k) and different strings give different
    numbers; ids written as decimal numbers keep their numeric order.
    """
    offsets, data = string_parts(strings)
    n = len(offsets) - 1
    if n == 0 or len(data) < 8:
        return None
    key = np.empty(n, dtype=np.uint64)
    for b0 in range(0, n, _BLOCK):
        b1 = min(n, b0 + _BLOCK)
        if _block_ids(offsets, data, b0, b1, key[b0:b1]) is None:
            return None
    return key


def _block_ids(offsets: np.ndarray, data: np.ndarray, b0: int, b1: int, out: np.ndarray) -> np.ndarray | None:
    """:func:`_short_ids` of strings ``b0:b1`` (``offsets`` into ``data``, at least 8 bytes)
    written to ``out``; None when one is longer than 8 bytes.

    Each number is the 8 bytes ending where the string ends, read as one word, less the
    bytes before the string. Blocks are small, so that the scratch arrays stay in cache and
    are reused rather than each touching fresh memory.
    """
    end = offsets[b0 + 1 : b1 + 1]
    length = end - offsets[b0:b1]
    if int(length.max()) > 8:
        return None
    words = np.ndarray(shape=(len(data) - 7,), dtype=">u8", buffer=data, strides=(1,))
    np.bitwise_and(words[np.maximum(end - 8, 0)], _LOW_BYTES[length], out=out)
    # strings ending within the buffer's first 8 bytes have no word ending there
    for row in range(b0, min(b1, b0 + 8)):
        if offsets[row + 1] >= 8:
            break
        out[row - b0] = int.from_bytes(data[offsets[row] : offsets[row + 1]].tobytes(), "big")
    return out


_BLOCK = 1 << 13  # rows per block of scratch arrays: a few tens of kB each
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)  # the low k bytes of a word


def _all_distinct(values: np.ndarray) -> bool:
    """Whether no unsigned integer occurs twice: by one comparison when they ascend, else
    by a sort (a stable one, quick on nearly sorted values, when few values break the
    order)."""
    if len(values) < 2:
        return True
    descents = np.count_nonzero(values[1:] <= values[:-1])
    if descents == 0:
        return True
    ordered = np.sort(values, kind="stable" if descents * 64 < len(values) else "quicksort")
    return not bool(np.any(ordered[1:] == ordered[:-1]))


def _dd_groups(topics, seconds) -> tuple[np.ndarray, int]:
    """Dense codes of the (topic, subtopic) pairs: the subtopic's own code when every
    subtopic id belongs to a single topic (DD's ``DD17-3.2``), else those of the pairs."""
    topic = topics.indices.to_numpy(zero_copy_only=False)
    second = seconds.indices.to_numpy(zero_copy_only=False)
    n_seconds = len(seconds.dictionary)
    owner = np.full(n_seconds, -1, dtype=np.int64)
    owner[second] = topic
    if np.array_equal(owner[second], topic):
        return second.astype(np.int64), n_seconds
    uniques, codes = unique_inverse(topic.astype(np.int64) * n_seconds + second)
    return codes, len(uniques)


def _has_empty(strings) -> bool:
    """Whether some string is empty (from the offsets: no pass over the bytes)."""
    offsets, _ = string_parts(strings)
    return bool(np.any(offsets[1:] == offsets[:-1]))


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


def _build(path: Path, rows: list[tuple[int, list[str]]], fmt: str, on_duplicate: str) -> Qrels:
    widths = {"trec": (4,), "subtopic": (4,), "dd": (5,), "ntcir": (4,), "clefip-pac": (4, 5), "clefip-2011": (3,)}[fmt]
    topics: list[str] = []
    docnos: list[str] = []
    rels: list[int] = []
    subtopics: list[str] = []
    passages: list[str] = []
    langs: list[str] = []
    lines: list[int] = []
    first_width = len(rows[0][1])
    for line, fields in rows:
        if len(fields) not in widths or (fmt == "clefip-pac" and len(fields) != first_width):
            malformed(path, line, f"wrong number of columns for {fmt} qrels", expected=_LAYOUT[fmt], found=len(fields))
        subtopic = passage = None
        if fmt in ("trec", "clefip-pac"):
            topic, _, docno, rel_text = fields[:4]
            rel = parse_int(path, line, rel_text, "the relevance grade (4th column)")
        elif fmt == "subtopic":
            topic, subtopic, docno, rel_text = fields
            rel = parse_int(path, line, rel_text, "the relevance grade (4th column)")
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
