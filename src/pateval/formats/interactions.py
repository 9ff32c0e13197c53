"""Interaction logs: what users did on ranked lists, one event a line, for calibrating TBG.

A log is a table with the columns ``user, list, time, event`` and, for some events, ``rank``
and ``docno``; it is read from CSV (a header line naming the columns, any order), JSON Lines
(one object a line with those keys) or Parquet, each optionally gzipped (``.gz``)::

    user,list,time,event,rank,docno
    u1,401,0,start,,
    u1,401,0,serp,1,
    u1,401,9.2,click,2,FT934-5418
    u1,401,31.0,save,,
    u1,401,31.5,back,,
    u1,401,48.0,next,,
    u1,401,48.0,serp,11,
    u1,401,75.3,end,,

``user``
    who searched; ``list``: the ranked list searched (its topic is the qrels topic unless a
    lists file says otherwise); ``time``: seconds (any origin) or an ISO-8601 timestamp (one
    kind per file; a timestamp without a zone and one with a zone do not mix).
``event``
    ``start`` (the user starts on the list), ``serp`` (a results page is shown; ``rank`` = its
    first rank), ``click`` (the summary at ``rank`` is clicked and its document ``docno``
    opened; ``docno`` may be left empty, it is then the list's document at that rank),
    ``save`` (the open document is saved as relevant), ``back`` (the user leaves the
    document), ``next`` (the user asks for the next results page), ``end`` (the user stops).

A session is one user on one list. Its events, in file order, must not go back in time and
must follow the interface: ``start`` first; ``click`` only on a results page; ``save`` and
``back`` only while a document is open (one save per view); nothing after ``end``. A session
without ``end`` is a user still searching when the log ends (censored at its last event).

Every problem is an :class:`~pateval.errors.InputFormatError` naming the file and the line
(CSV and JSON Lines: the line in the file, the header being line 1 of a CSV; Parquet: the
1-based row), and nothing is guessed or dropped.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from ..errors import malformed
from .source import compression, decode_text, is_regular_file, parse_float, read_bytes, release

__all__ = ["EVENTS", "LOG_COLUMNS", "InteractionLog", "log_from_frame", "read_list_map", "session_codes",
           "read_interaction_log", "write_interaction_log"]

EVENTS = ("start", "serp", "click", "save", "back", "next", "end")
START, SERP, CLICK, SAVE, BACK, NEXT, END = range(len(EVENTS))
LOG_COLUMNS = ("user", "list", "time", "event", "rank", "docno")
_REQUIRED = ("user", "list", "time", "event")
_INTEGER = re.compile(r"[+]?\d+", re.ASCII)
_ISO_HINT = re.compile(r"\d{4}-\d{2}-\d{2}")
_UTC = UTC


@dataclass(frozen=True)
class InteractionLog:
    """A validated interaction log: one entry per event, in file order.

    Attributes
    ----------
    user, list : ndarray of str
    time : ndarray of float64
        Seconds (timestamps as seconds since the epoch; only differences are used).
    event : ndarray of int8
        Index into :data:`EVENTS`.
    rank : ndarray of int64
        The rank of ``serp`` and ``click`` events, 0 for the others.
    docno : ndarray of object
        The clicked document (``None`` where not given).
    line : ndarray of int64
        Each event's line in the file (Parquet: its row), for error messages.
    source : str
        The file read.
    """

    user: np.ndarray
    list: np.ndarray
    time: np.ndarray
    event: np.ndarray
    rank: np.ndarray
    docno: np.ndarray
    line: np.ndarray
    source: str

    def __len__(self) -> int:
        return len(self.event)


def _raw_bytes(path: Path, *, text: bool = True) -> bytes:
    """The log's bytes through the source layer (compression recognised by content); a file
    named ``.gz`` must hold gzip data."""
    if _is_gzip(path) and is_regular_file(path):
        with open(path, "rb") as handle:
            if compression(handle.read(6)) != "gzip":
                malformed(path, None, "not a readable gzip file (its content is not gzip data)")
    return read_bytes(path, text=text)


def _is_gzip(path: Path) -> bool:
    return path.name.lower().endswith(".gz")


def _kind(path: Path) -> str:
    name = path.name.lower().removesuffix(".gz")
    for suffix, kind in ((".csv", "csv"), (".tsv", "tsv"), (".jsonl", "jsonl"), (".ndjson", "jsonl"),
                         (".json", "jsonl"), (".parquet", "parquet"), (".pq", "parquet")):
        if name.endswith(suffix):
            return kind
    malformed(path, None, "unknown log format",
              expected="a name ending in .csv, .tsv, .jsonl or .parquet (optionally .gz)")


def _rows_csv(path: Path, text: str, delimiter: str):
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    header = None
    try:
        for fields in reader:
            if not fields or all(not f.strip() for f in fields):
                continue
            if header is None:
                header = [f.strip() for f in fields]
                _check_header(path, reader.line_num, header)
                continue
            if len(fields) != len(header):
                malformed(path, reader.line_num, "wrong number of fields", expected=str(len(header)), found=len(fields))
            yield reader.line_num, dict(zip(header, (f.strip() for f in fields), strict=False))
    except csv.Error as error:
        malformed(path, reader.line_num, f"not valid CSV ({error})")
    if header is None:
        malformed(path, None, "the file is empty")


def _check_header(path: Path, line: int | None, header: list[str]) -> None:
    unknown = [h for h in header if h not in LOG_COLUMNS]
    if unknown:
        malformed(path, line, f"unknown column {unknown[0]!r} in the header", expected=", ".join(LOG_COLUMNS))
    missing = [c for c in _REQUIRED if c not in header]
    if missing:
        malformed(path, line, f"the header lacks the column {missing[0]!r}",
                  expected="user, list, time, event[, rank, docno]")
    if len(set(header)) != len(header):
        malformed(path, line, "a column is named twice in the header")


def _rows_jsonl(path: Path, text: str):
    any_row = False
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as error:
            malformed(path, number, f"not valid JSON ({error.msg})")
        if not isinstance(record, dict):
            malformed(path, number, "a log line must be a JSON object", found=raw.strip())
        unknown = [k for k in record if k not in LOG_COLUMNS]
        if unknown:
            malformed(path, number, f"unknown key {unknown[0]!r}", expected=", ".join(LOG_COLUMNS))
        any_row = True
        yield number, {k: ("" if v is None else v) for k, v in record.items()}
    if not any_row:
        malformed(path, None, "the file is empty")


def _read_parquet(path: Path):
    """The Parquet table of ``path`` (a gzip-compressed one decompressed in memory first)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        if not _is_gzip(path):
            return pq.read_table(path)
        raw = _raw_bytes(path, text=False)
        view = memoryview(raw)  # released once Arrow's threads let go of it (source.release)
        try:
            return pq.read_table(pa.BufferReader(view))
        finally:
            release(raw, view)
    except FileNotFoundError:
        malformed(path, None, "no such file")
    except (pa.ArrowException, OSError) as error:
        malformed(path, None, f"not a readable Parquet file ({error})")


def _rows_parquet(path: Path, table):
    header = list(table.column_names)
    _check_header(path, None, header)
    if table.num_rows == 0:
        malformed(path, None, "the file is empty")
    for number, row in enumerate(table.to_pylist(), start=1):
        yield number, {name: ("" if value is None else value) for name, value in row.items()}


def _text(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def read_interaction_log(path: str | os.PathLike[str]) -> InteractionLog:
    """Read and validate an interaction log (CSV, TSV, JSON Lines or Parquet; ``.gz`` too).

    Parameters
    ----------
    path : path-like
        The log; its format comes from its name (``.csv``, ``.tsv``, ``.jsonl``/``.ndjson``,
        ``.parquet``, each optionally followed by ``.gz``).

    Returns
    -------
    InteractionLog

    Raises
    ------
    InputFormatError
        The first problem, with its file and line (see the module's documentation).

    Examples
    --------
    >>> import tempfile, os
    >>> f = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False)
    >>> _ = f.write("user,list,time,event,rank,docno\\nu1,q1,0,start,,\\nu1,q1,4.5,click,1,d7\\n"
    ...             "u1,q1,20,back,,\\nu1,q1,31,end,,\\n"); f.close()
    >>> log = read_interaction_log(f.name)
    >>> len(log), log.time.tolist(), [str(d) for d in log.docno]
    (4, [0.0, 4.5, 20.0, 31.0], ['None', 'd7', 'None', 'None'])
    >>> os.unlink(f.name)
    """
    path = Path(path)
    kind = _kind(path)
    if kind == "parquet":
        if not path.exists():
            malformed(path, None, "no such file")
        table = _read_parquet(path)
        if (fast := _fast_table(path, table, 1)) is not None:
            return fast
        rows = _rows_parquet(path, table)
    else:
        raw = _raw_bytes(path)
        if (fast := _fast_text(path, raw.removeprefix(b"\xef\xbb\xbf"), kind)) is not None:
            return fast
        text = decode_text(path, raw)  # (a NUL byte: refused by the source layer)
        rows = _rows_jsonl(path, text) if kind == "jsonl" else _rows_csv(path, text, "," if kind == "csv" else "\t")
    return _build_log(path, rows)


# ---- the fast path: Arrow parses, NumPy checks; anything it does not take as the careful
# path would (quotes, blank lines, timestamps, stray spaces, any problem) goes the careful
# way, which words the error with its line.

def _fast_text(path: Path, raw: bytes, kind: str) -> InteractionLog | None:
    import pyarrow as pa

    if not raw.strip() or b"\x00" in raw or b'"' in raw or raw.startswith((b"\n", b"\r")) or b"\n\n" in raw \
            or b"\n\r\n" in raw or b"\r\n\r\n" in raw:
        return None
    view = memoryview(raw)  # released once Arrow's threads let go of it (source.release)
    try:
        if kind == "jsonl":
            import pyarrow.json as pajson

            table = pajson.read_json(pa.BufferReader(view))
            first_line = 1
        else:
            import pyarrow.csv as pacsv

            header_end = raw.find(b"\n")
            header = raw[: header_end if header_end >= 0 else len(raw)].decode("utf-8").rstrip("\r")
            names = header.split("," if kind == "csv" else "\t")
            if [n.strip() for n in names] != names or set(names) - set(LOG_COLUMNS) or set(_REQUIRED) - set(names) \
                    or len(set(names)) != len(names):
                return None
            table = pacsv.read_csv(
                pa.BufferReader(view),
                parse_options=pacsv.ParseOptions(delimiter="," if kind == "csv" else "\t", quote_char=False),
                convert_options=pacsv.ConvertOptions(column_types={n: pa.string() for n in names},
                                                     strings_can_be_null=True,
                                                     null_values=[""], quoted_strings_can_be_null=False))
            first_line = 2
    except (pa.ArrowException, UnicodeDecodeError, ValueError):
        return None
    finally:
        release(raw, view)
    return _fast_table(path, table, first_line)


def _strings(column) -> np.ndarray | None:
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_integer(column.type):
        column = pc.cast(column, pa.string())
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        return None
    if column.null_count or not pc.all(pc.equal(pc.utf8_trim_whitespace(column), column)).as_py() \
            or pc.any(pc.equal(column, "")).as_py():
        return None
    return np.asarray(column.to_numpy(zero_copy_only=False), dtype=object)


def _fast_table(path: Path, table, first_line: int) -> InteractionLog | None:
    import pyarrow as pa
    import pyarrow.compute as pc

    names = table.column_names
    if set(names) - set(LOG_COLUMNS) or set(_REQUIRED) - set(names) or table.num_rows == 0:
        return None
    columns = {name: table.column(name).combine_chunks() for name in names}
    user, list_id = _strings(columns["user"]), _strings(columns["list"])
    if user is None or list_id is None:
        return None
    event_text = columns["event"]
    if not pa.types.is_string(event_text.type) or event_text.null_count:
        return None
    event = pc.index_in(event_text, value_set=pa.array(EVENTS))
    if event.null_count:
        return None
    event = event.to_numpy(zero_copy_only=False).astype(np.int8)
    time = columns["time"]
    try:
        if pa.types.is_string(time.type) or pa.types.is_integer(time.type) or pa.types.is_floating(time.type):
            time = pc.cast(time, pa.float64())
        else:
            return None
    except pa.ArrowException:
        return None
    if time.null_count:
        return None
    seconds = time.to_numpy(zero_copy_only=False)
    if not np.all(np.isfinite(seconds)):
        return None
    n = len(event)
    ranked = (event == SERP) | (event == CLICK)
    rank = np.zeros(n, dtype=np.int64)
    if "rank" in columns:
        text = columns["rank"]
        try:
            if not (pa.types.is_string(text.type) or pa.types.is_integer(text.type)):
                return None
            if pa.types.is_string(text.type) and pc.any(pc.match_substring_regex(text, r"[^0-9+]")).as_py():
                return None  # what int() would not take the careful path words
            values = pc.cast(text, pa.int64())
        except pa.ArrowException:
            return None
        present = ~np.asarray(values.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        filled = values.fill_null(0).to_numpy(zero_copy_only=False)
        if np.any(present & (filled < 1)) or np.any(ranked & ~present):
            return None
        rank = np.where(ranked, filled, 0).astype(np.int64)
    elif ranked.any():
        return None
    docno = np.full(n, None, dtype=object)
    if "docno" in columns:
        text = columns["docno"]
        if not pa.types.is_string(text.type):
            return None
        has = ~np.asarray(text.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        if np.any(has & (event != CLICK)):
            return None
        if has.any() and pc.any(pc.match_substring_regex(text, r"\s")).as_py():
            return None
        values = np.asarray(text.to_numpy(zero_copy_only=False), dtype=object)
        docno[has] = values[has]
    log = InteractionLog(user=user, list=list_id, time=seconds.astype(np.float64), event=event, rank=rank, docno=docno,
                         line=np.arange(first_line, first_line + n, dtype=np.int64), source=os.fspath(path))
    if not _sessions_in_order(log):
        _check_sessions(log)  # words the first problem
    return log


def session_codes(user: np.ndarray, list_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each event's session (user and list) as a code, numbered in order of first appearance;
    with each session's user and list. (Two factorisations and one of their pairs: far
    faster than factorising the pairs of strings.)"""
    import pandas as pd

    user_code, users = pd.factorize(user)
    list_code, lists = pd.factorize(list_ids)
    pair = user_code.astype(np.int64) * max(len(lists), 1) + list_code
    codes, pairs = pd.factorize(pair)
    users_of = np.asarray(users, dtype=object)[pairs // max(len(lists), 1)]
    lists_of = np.asarray(lists, dtype=object)[pairs % max(len(lists), 1)]
    return codes.astype(np.int64), users_of, lists_of


def _sessions_in_order(log: InteractionLog) -> bool:
    """The rules of :func:`_check_sessions`, checked on whole arrays (True: all hold)."""
    codes, _, _ = session_codes(log.user, log.list)
    order = np.argsort(codes, kind="stable")
    session = codes[order]
    event = log.event[order]
    time = log.time[order]
    first = np.r_[True, session[1:] != session[:-1]]
    previous = np.r_[np.int8(-1), event[:-1]]
    open_document = (previous == CLICK) | (previous == SAVE)
    bad = (first & (event != START)) | (~first & (event == START))
    bad |= ~first & (time < np.r_[time[0], time[:-1]])
    bad |= ~first & (previous == END)
    bad |= open_document & ~first & ((event == SERP) | (event == NEXT) | (event == CLICK))
    bad |= ~first & ~open_document & ((event == SAVE) | (event == BACK))
    bad |= ~first & (previous == SAVE) & (event == SAVE)
    return not bool(bad.any())


def log_from_frame(frame, *, source: str = "<frame>") -> InteractionLog:
    """The :class:`InteractionLog` of a frame with the log's columns (e.g. a simulated log), validated
    as a file is (errors name the 1-based row as the line)."""
    missing = [c for c in _REQUIRED if c not in frame.columns]
    if missing:
        malformed(source, None, f"the log lacks the column {missing[0]!r}")
    columns = [c for c in LOG_COLUMNS if c in frame.columns]
    values = [frame[c].tolist() for c in columns]
    rows = ((i + 1, {c: ("" if v is None or (isinstance(v, float) and v != v) or (c == "rank" and v == 0) else v)
                     for c, v in zip(columns, row, strict=False)}) for i, row in enumerate(zip(*values, strict=False)))
    return _build_log(source, rows)


def _build_log(path, rows) -> InteractionLog:
    events: list[tuple] = []  # user, list, time, event, rank, docno, line
    event_code = {name: code for code, name in enumerate(EVENTS)}
    time_kind = None  # "seconds", "naive" or "aware": one kind of time per file
    for line, row in rows:
        user, list_id = _text(row.get("user", "")), _text(row.get("list", ""))
        if not user:
            malformed(path, line, "the user is empty")
        if not list_id:
            malformed(path, line, "the list is empty")
        event = _text(row.get("event", "")).lower()
        if event not in event_code:
            malformed(path, line, "unknown event", expected="|".join(EVENTS), found=event)
        seconds, kind_here = _parse_time(path, line, row.get("time", ""))
        if time_kind is None:
            time_kind = kind_here
        elif kind_here != time_kind:
            malformed(path, line,
                      f"the time is {_TIME_WORDS[kind_here]} but earlier lines give {_TIME_WORDS[time_kind]}")
        code = event_code[event]
        rank_text = _text(row.get("rank", ""))
        if code in (SERP, CLICK):
            if not rank_text:
                malformed(path, line, f"a {event} event needs a rank")
            if not _INTEGER.fullmatch(rank_text) or int(rank_text) < 1:
                malformed(path, line, "the rank is not an integer >= 1", found=rank_text)
            rank = int(rank_text)
        else:
            if rank_text and not (_INTEGER.fullmatch(rank_text) and int(rank_text) >= 1):
                malformed(path, line, "the rank is not an integer >= 1", found=rank_text)
            rank = 0
        docno = _text(row.get("docno", "")) or None
        if docno is not None and code != CLICK:
            malformed(path, line, f"a {event} event has no document (docno is for click events)", found=docno)
        if docno is not None and any(c.isspace() for c in docno):
            malformed(path, line, "the docno holds white space", found=docno)
        events.append((user, list_id, seconds, code, rank, docno, line))
    users, lists, times, codes, ranks, docnos, lines = zip(*events, strict=True) if events else ([],) * 7
    log = InteractionLog(
        user=np.array(users, dtype=object), list=np.array(lists, dtype=object), time=np.array(times, dtype=np.float64),
        event=np.array(codes, dtype=np.int8), rank=np.array(ranks, dtype=np.int64),
        docno=np.array(docnos, dtype=object), line=np.array(lines, dtype=np.int64), source=os.fspath(path))
    _check_sessions(log)
    return log


_TIME_WORDS = {"seconds": "a number of seconds", "naive": "a timestamp without a time zone",
               "aware": "a timestamp with a time zone"}


def _parse_time(path: Path, line: int, value) -> tuple[float, str]:
    if isinstance(value, bool):
        malformed(path, line, "the time is not a number of seconds or an ISO-8601 timestamp", found=str(value))
    if isinstance(value, (int, float)):
        seconds = float(value)
        kind = "seconds"
    elif isinstance(value, datetime):  # Parquet timestamps
        seconds, kind = value.timestamp(), ("naive" if value.tzinfo is None else "aware")
    else:
        text = _text(value)
        if not text:
            malformed(path, line, "the time is empty")
        if _ISO_HINT.match(text):
            try:
                stamp = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
            except ValueError:
                malformed(path, line, "the time is not a valid ISO-8601 timestamp", found=text)
            kind = "naive" if stamp.tzinfo is None else "aware"
            # a naive stamp is read as UTC: only differences within a session are used
            seconds = (stamp.replace(tzinfo=stamp.tzinfo or _UTC)).timestamp()
        else:
            seconds = parse_float(path, line, text, "the time")
            kind = "seconds"
    if not math.isfinite(seconds):
        malformed(path, line, "the time is not finite", found=str(value))
    return seconds, kind



def _check_sessions(log: InteractionLog) -> None:
    """The interface's order of events in every session (see the module's documentation)."""
    path = log.source
    state: dict[tuple[str, str], list] = {}  # session -> [phase, last time, saved in this view]
    for i in range(len(log)):
        key = (log.user[i], log.list[i])
        code = int(log.event[i])
        line = int(log.line[i])
        now = float(log.time[i])
        known = state.get(key)
        name = EVENTS[code]
        if known is None:
            if code != START:
                malformed(path, line, f"user {key[0]!r} on list {key[1]!r} begins with {name!r}",
                          expected="'start' first")
            state[key] = ["serp", now, False]
            continue
        phase, last, saved = known
        if now < last:
            malformed(path, line, f"time goes back for user {key[0]!r} on list {key[1]!r}, from {last:g} to {now:g}")
        known[1] = now
        if phase == "ended":
            malformed(path, line, f"a {name!r} event after user {key[0]!r} ended list {key[1]!r}")
        if code == START:
            malformed(path, line, f"user {key[0]!r} starts list {key[1]!r} a second time")
        elif code in (SERP, NEXT, CLICK) and phase == "document":
            malformed(path, line, f"a {name!r} event while a document is open", expected="'back' (or 'end') first")
        elif code in (SAVE, BACK) and phase != "document":
            malformed(path, line, f"a {name!r} event with no document open", expected="a 'click' first")
        elif code == SAVE and saved:
            malformed(path, line, "the open document is saved twice")
        if code == CLICK:
            known[0], known[2] = "document", False
        elif code == SAVE:
            known[2] = True
        elif code == BACK:
            known[0] = "serp"
        elif code == END:
            known[0] = "ended"


def write_interaction_log(frame, path: str | os.PathLike[str]) -> int:
    """Write a log frame (the columns of :data:`LOG_COLUMNS`) as CSV, JSON Lines or Parquet,
    by the name's suffix (``.gz`` compresses), atomically; returns the number of events."""
    import pandas as pd

    from .atomic import atomic_output

    path = Path(path)
    kind = _kind(path)
    frame = frame[list(LOG_COLUMNS)]
    if kind == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        frame = frame.assign(rank=pd.array([None if (r is None or r != r or r == 0) else int(r) for r in frame["rank"]],
                                           dtype="Int64"))
        table = pa.Table.from_pandas(frame, preserve_index=False)
        buffer = io.BytesIO()
        pq.write_table(table, buffer)
        data = buffer.getvalue()
    elif kind == "jsonl":
        records = frame.to_dict(orient="records")
        text = "".join(json.dumps({k: (None if (v is None or (isinstance(v, float) and math.isnan(v))) else
                                       int(v) if k == "rank" else v) for k, v in r.items()
                                   if not (k in ("rank", "docno") and (v is None or v == 0 or v != v))}) + "\n"
                       for r in records)
        data = text.encode("utf-8")
    else:
        out = frame.copy()
        out["rank"] = [("" if (r is None or r != r or r == 0) else str(int(r))) for r in out["rank"]]
        out["docno"] = ["" if d is None or d != d else d for d in out["docno"]]
        out["time"] = [repr(float(t)) for t in out["time"]]
        data = out.to_csv(index=False, sep="," if kind == "csv" else "\t", lineterminator="\n").encode("utf-8")
    if _is_gzip(path):
        data = gzip.compress(data, mtime=0)
    with atomic_output(path, "wb") as handle:
        handle.write(data)
    return len(frame)


def read_list_map(path: str | os.PathLike[str]) -> dict[str, tuple[str, str | None]]:
    """Read a lists file: ``list topic [run]`` per line (white space separated); returns
    ``{list: (topic, run or None)}``. A list named twice is an error naming both lines."""
    from .source import iter_fields

    out: dict[str, tuple[str, str | None]] = {}
    line_of: dict[str, int] = {}
    for line, fields in iter_fields(path):
        if len(fields) not in (2, 3):
            malformed(path, line, "wrong number of fields", expected="list topic [run]", found=len(fields))
        if fields[0] in out:
            malformed(path, line, f"list {fields[0]!r} is already mapped on line {line_of[fields[0]]}")
        out[fields[0]] = (fields[1], fields[2] if len(fields) == 3 else None)
        line_of[fields[0]] = line
    return out
