"""Reading per-topic score files: trec_eval ``-q``, ir_measures, and pateval's own output.

So that published or organiser per-topic results can be tested with ``pateval compare
--scores`` (and ``analyse-measures``, ``report``) without the runs. Formats:

``trec_eval``
    ``MEASURE<ws>TOPIC<ws>VALUE`` lines as ``trec_eval -q`` writes them, ``all`` lines
    (aggregates) skipped, the run named by the ``runid`` line; pateval's own text output
    (``pateval evaluate -q``) is this format too, and with several runs it has a first
    column naming the run (4 columns).
``ir_measures``
    ``TOPIC<TAB>MEASURE<TAB>VALUE`` (``ir_measures -q``; its ``all`` lines skipped), or its
    ``--output_format jsonl`` records (``query_id``, ``measure``, ``value``).
``pateval-csv``, ``pateval-json``
    ``pateval evaluate -q --format csv|json`` (columns ``run, measure, topic, value``).

``auto`` tells them apart by what is certain: JSON, a CSV header, 4 columns, the column
holding ``all`` or ``runid``; a file of 3 columns without ``all`` lines is read by where the
measure names are, and refused when that does not settle it. Measure names are read to
pateval's canonical names where pateval knows them (``map`` -> ``AP``, ``P_10`` -> ``P@10``,
``ndcg_cut_10`` -> ``nDCG@10``), so files from different tools line up; other names are
kept as written. A run without a name in the file takes the file's name (without suffix).
"""

from __future__ import annotations

import csv
import functools
import json
import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd

from ..errors import PatevalError, malformed
from ..formats.source import decode_text, read_bytes
from ..measures import parse_measure
from ..validation import check_choice

__all__ = ["SCORE_FORMATS", "read_scores", "read_score_files", "canonical_measure"]

SCORE_FORMATS = ("auto", "trec_eval", "ir_measures", "pateval-csv", "pateval-json")
_COLUMNS = ["run", "topic", "measure", "value"]


@functools.cache
def canonical_measure(name: str) -> str | None:
    """pateval's canonical name of a measure name (trec_eval's, ir_measures', pateval's), or
    None when pateval does not know it.

    Examples
    --------
    >>> [canonical_measure(name) for name in ("map", "P_10", "gm_map", "my_score")]
    ['AP', 'P@10', 'GMAP', None]
    """
    try:
        return str(parse_measure(name))
    except (PatevalError, ValueError):
        return None


def _value(path: Path, number: int | None, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        malformed(path, number, "the score is not a number", expected="a number", found=text)
    if not math.isfinite(value):
        malformed(path, number, "the score is not a finite number", expected="a number", found=text)
    return value


def _detect(path: Path, text: str, lines: list[tuple[int, list[str]]]) -> str:
    stripped = text.lstrip()
    if stripped.startswith("["):
        return "pateval-json"
    if stripped.startswith("{"):
        return "ir_measures"
    first = stripped.split("\n", 1)[0].strip()
    if first.replace(" ", "") in ("run,measure,topic,value", "measure,topic,value"):
        return "pateval-csv"
    widths = {len(fields) for _, fields in lines}
    if widths == {4}:
        return "trec_eval"  # pateval's text with a run column
    if widths != {3}:
        # the first line of a width outside 3-4, or (3 and 4 mixed) of another width than the first line's
        number, fields = next(((n, f) for n, f in lines if len(f) not in (3, 4) or len(f) != len(lines[0][1])),
                              (None, []))
        malformed(path, number, "a per-topic score line has the wrong number of fields",
                  expected="MEASURE TOPIC VALUE (trec_eval -q) or TOPIC MEASURE VALUE (ir_measures)", found=len(fields))
    if any(f[1] == "all" or f[0] == "runid" for _, f in lines):
        return "trec_eval"
    if any(f[0] == "all" for _, f in lines):
        return "ir_measures"
    first_known = all(canonical_measure(f[0]) is not None for _, f in lines)
    second_known = all(canonical_measure(f[1]) is not None for _, f in lines)
    if first_known != second_known:
        return "trec_eval" if first_known else "ir_measures"
    malformed(path, None, "cannot tell whether the measure or the topic comes first",
              expected="--scores-format trec_eval (MEASURE TOPIC VALUE) or ir_measures (TOPIC MEASURE VALUE)")


def read_scores(path: str | os.PathLike[str], *, format: str = "auto") -> pd.DataFrame:
    """Read one per-topic score file.

    Parameters
    ----------
    path : path-like
    format : {"auto", "trec_eval", "ir_measures", "pateval-csv", "pateval-json"}

    Returns
    -------
    DataFrame
        ``run, topic, measure, value``, one row per (run, topic, measure), aggregates left
        out. ``attrs["format"]`` names the format read.

    Raises
    ------
    InputFormatError
        A bad line (naming the file and line), a (run, topic, measure) given twice, no
        per-topic line at all, or a format that cannot be told apart.
    """
    check_choice("format", format, SCORE_FORMATS)
    path = Path(path)
    text = decode_text(path, read_bytes(path), show=True)
    lines = [(number, line.split()) for number, line in enumerate(text.split("\n"), start=1) if line.strip()]
    if not lines:
        malformed(path, None, "no per-topic score (the file holds only white space)")
    if format == "auto":
        format = _detect(path, text, lines)
    default_run = path.stem if path.suffix else path.name
    if format == "pateval-json":
        rows = _json_rows(path, text, default_run)
    elif format == "pateval-csv":
        rows = _csv_rows(path, text, default_run)
    elif format == "ir_measures" and text.lstrip().startswith("{"):
        rows = _jsonl_rows(path, text, default_run)
    else:
        rows = _text_rows(path, lines, format, default_run)
    frame = pd.DataFrame([r[:4] for r in rows], columns=_COLUMNS)
    if frame.empty:
        malformed(path, None, "no per-topic score (only aggregates, or nothing); write them with trec_eval -q, "
                  "ir_measures -q or pateval evaluate -q")
    repeated = frame.duplicated(["run", "topic", "measure"])
    if repeated.any():
        number = rows[int(repeated.to_numpy().argmax())][4]
        row = frame[repeated].iloc[0]
        malformed(path, number, f"topic {row['topic']} has a second {row['measure']} score"
                  + (f" for run {row['run']}" if frame["run"].nunique() > 1 else ""))
    frame.attrs["format"] = format
    return frame


def _measure_name(name: str) -> str:
    return canonical_measure(name) or name


def _text_rows(path: Path, lines, format: str, default_run: str) -> list[tuple]:
    rows, run = [], None
    four = format == "trec_eval" and all(len(f) == 4 for _, f in lines)
    for number, fields in lines:
        if format == "trec_eval" and len(fields) == 3 and fields[0] == "runid":
            run = fields[2]
            continue
        if len(fields) != (4 if four else 3):
            layout = "RUN MEASURE TOPIC VALUE" if four else ("MEASURE TOPIC VALUE" if format == "trec_eval" else
                                                             "TOPIC MEASURE VALUE")
            malformed(path, number, "wrong number of fields", expected=layout, found=len(fields))
        if four:
            name, measure, topic, value = fields
        elif format == "trec_eval":
            name, (measure, topic, value) = None, fields
        else:
            name, (topic, measure, value) = None, fields
        if topic == "all":
            continue
        rows.append((name, topic, _measure_name(measure), _value(path, number, value), number))
    return [(r[0] or run or default_run, *r[1:]) for r in rows]


def _json_rows(path: Path, text: str, default_run: str) -> list[tuple]:
    try:
        records = json.loads(text)
    except json.JSONDecodeError as error:
        malformed(path, error.lineno, f"not valid JSON ({error.msg})")
    if not isinstance(records, list):
        malformed(path, None, "expected a list of records", expected="[{run, measure, topic, value}, ...]")
    rows = []
    for index, record in enumerate(records):
        if not isinstance(record, dict) or not {"measure", "topic", "value"} <= set(record):
            malformed(path, None, f"record {index + 1} lacks measure, topic or value", found=str(record)[:60])
        if record["topic"] == "all":
            continue
        rows.append((str(record.get("run", default_run)), str(record["topic"]), _measure_name(str(record["measure"])),
                     _value(path, None, str(record["value"])), None))
    return rows


def _jsonl_rows(path: Path, text: str, default_run: str) -> list[tuple]:
    rows = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            malformed(path, number, f"not valid JSON ({error.msg})")
        if not isinstance(record, dict) or not {"query_id", "measure", "value"} <= set(record):
            malformed(path, number, "an ir_measures record needs query_id, measure and value (written with -q)",
                      found=line.strip()[:60])
        if record["query_id"] == "all":
            continue
        rows.append((default_run, str(record["query_id"]), _measure_name(str(record["measure"])),
                     _value(path, number, str(record["value"])), number))
    return rows


def _csv_fields(path: Path, number: int, line: str) -> list[str]:
    try:
        return next(csv.reader([line]))
    except csv.Error as error:
        malformed(path, number, f"not a line of CSV ({error})", found=line[:60])


def _csv_rows(path: Path, text: str, default_run: str) -> list[tuple]:
    """Rows of a pateval CSV of scores, read from the text already read (standard input and
    compressed files too), each with its 1-based line in the file."""
    lines = [(number, line.rstrip("\r")) for number, line in enumerate(text.split("\n"), start=1) if line.strip()]
    header_line, header = lines[0][0], _csv_fields(path, *lines[0])
    columns = {name.strip(): i for i, name in enumerate(header)}
    if any(c not in columns for c in ("measure", "topic", "value")):
        malformed(path, header_line, "a CSV of scores needs the columns measure, topic and value",
                  found=",".join(header))
    rows = []
    for number, line in lines[1:]:
        fields = _csv_fields(path, number, line)
        if len(fields) != len(header):
            malformed(path, number, f"{len(fields)} fields where the header has {len(header)}",
                      expected=",".join(header), found=line[:60])
        run = fields[columns["run"]] if "run" in columns else default_run
        topic = fields[columns["topic"]]
        if topic == "all":
            continue
        rows.append((run, topic, _measure_name(fields[columns["measure"]]),
                     _value(path, number, fields[columns["value"]]), number))
    return rows


def read_score_files(paths: Iterable[str | os.PathLike[str]], *, measures: Sequence[str] | None = None,
                     format: str = "auto") -> pd.DataFrame:
    """Read several per-topic score files into one frame ``run, topic, measure, value``.

    Parameters
    ----------
    paths : iterable of path-like
        One file per run, or files naming several runs.
    measures : sequence of str, optional
        Keep these measures (names read as pateval reads them: ``AP`` matches trec_eval's
        ``map``); each must be in every run. Default: the measures every run has.
    format : str
        See :func:`read_scores`.
    """
    pieces: list[pd.DataFrame] = []
    origin: dict[str, str] = {}  # run -> the file it came from
    for path in paths:
        frame = read_scores(path, format=format)
        for run in pd.unique(frame["run"]):
            if run in origin:
                raise PatevalError(f"{path}: run {run!r} is also in {origin[run]}; each run once (rename one file or "
                                   "its runid)")
            origin[run] = os.fspath(path)
        pieces.append(frame)
    if not pieces:
        raise PatevalError("no score file was given")
    frame = pd.concat(pieces, ignore_index=True)
    runs = list(origin)
    if len(runs) < 2:
        raise PatevalError(f"comparing needs per-topic scores of at least two runs; the files hold {len(runs)}")
    by_run = {run: set(frame.loc[frame["run"] == run, "measure"]) for run in runs}
    if measures is None:
        wanted = [m for m in pd.unique(frame["measure"]) if all(m in have for have in by_run.values())]
        if not wanted:
            raise PatevalError("the score files have no measure in common")
    else:
        wanted = [_measure_name(str(m)) for m in measures]
        for measure in wanted:
            for run, have in by_run.items():
                if measure not in have:
                    raise PatevalError(f"{origin[run]}: run {run!r} has no per-topic {measure} scores (it has: "
                                       f"{', '.join(sorted(have))})")
    order = {m: i for i, m in enumerate(wanted)}
    frame = frame[frame["measure"].isin(wanted)]
    return frame.sort_values("measure", key=lambda s: s.map(order), kind="stable").reset_index(drop=True)
