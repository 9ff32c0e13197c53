"""Reading the ecosystem's tables and records by field name.

PyTerrier, ir_measures, ir_datasets and ranx each name the columns of a run and of qrels
their own way. This module is the one table of those names: a frame's columns, or a
namedtuple's fields, are matched to the roles pateval needs (topic, document, score, rank,
relevance, subtopic, passage). The same table serves runs, qrels and passage runs
(``kind="run"``, ``"qrels"``, ``"passage_run"``). Exactly one name may fill a required role; two names for
one role, or none, is an error that says what was expected -- nothing is guessed from
values. Plain tuples are read by position in one layout only (:data:`PLAIN_TUPLE_ORDER`);
any other needs ``fields=`` naming its columns. Passage runs have no positional layout at
all: their records always need names, from their type or from ``fields=``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NoReturn

import numpy as np

from ..errors import ParameterError, malformed

__all__ = ["RUN_STYLES", "QRELS_STYLES", "ROLE_NAMES", "PLAIN_TUPLE_ORDER", "match_roles", "first_record",
           "record_fields", "plain_tuple_columns", "fields_columns", "score_values", "rank_values", "RowPlaces",
           "nested_dict_columns"]

#: The names each role goes by: pateval's own, PyTerrier's, ir_measures' / ir_datasets', ranx's.
ROLE_NAMES: dict[str, tuple[str, ...]] = {
    "topic": ("topic", "qid", "query_id", "q_id"),
    "docno": ("docno", "doc_id"),
    "score": ("score",),
    "rank": ("rank",),
    "rel": ("rel", "label", "relevance"),
    "subtopic": ("subtopic", "subtopic_id"),
    "passage": ("passage", "xpath"),  # ir_measures' passage column; CLEF-IP's XPath
    "iteration": ("iteration",),
    "tag": ("tag", "run", "name"),  # a run's name: TREC's 6th column, a frame's or a Parquet run's
}

#: Column names written by ``to_frame(style=...)``: (topic, docno, score[, rank]) for runs.
RUN_STYLES: dict[str, tuple[str, ...]] = {
    "pateval": ("topic", "docno", "score", "rank"),
    "pyterrier": ("qid", "docno", "score", "rank"),
    "ir_measures": ("query_id", "doc_id", "score"),
    "ranx": ("q_id", "doc_id", "score"),
}

#: Column names written by ``Qrels.to_frame(style=...)``: (topic, docno, rel).
QRELS_STYLES: dict[str, tuple[str, ...]] = {
    "pateval": ("topic", "docno", "rel"),
    "pyterrier": ("qid", "docno", "label"),
    "ir_measures": ("query_id", "doc_id", "relevance"),
    "ranx": ("q_id", "doc_id", "score"),
}

_EXPECTED = {
    "run": "a topic column (topic, qid, query_id or q_id), a document column (docno or doc_id) and score "
           "[and rank]",
    "qrels": "a topic column (topic, qid, query_id or q_id), a document column (docno or doc_id) and a "
             "relevance column (rel, label, relevance; score with ranx's q_id) [and subtopic, subtopic_id, passage or "
             "xpath]",
    "passage_run": "a topic column (topic, qid, query_id or q_id), a document column (docno or doc_id), a passage "
                   "column (xpath or passage), rank and score",
}

#: The roles each kind of input reads, and those it cannot do without.
_WANTED = {"run": ("topic", "docno", "score", "rank", "tag"),
           "qrels": ("topic", "docno", "rel", "subtopic", "passage", "iteration"),
           "passage_run": ("topic", "docno", "passage", "rank", "score")}
_REQUIRED = {"run": ("topic", "docno", "score"), "qrels": ("topic", "docno", "rel"),
             "passage_run": ("topic", "docno", "passage", "rank", "score")}


def match_roles(names: Sequence[str], *, kind: str, what: str) -> dict[str, str]:
    """Map roles to the given column or field names.

    Parameters
    ----------
    names : sequence of str
        The columns of a frame or the fields of a record.
    kind : {"run", "qrels", "passage_run"}
    what : str
        How to name the input in a message (``"the frame"``, ``"TrecQrel records"``).

    Returns
    -------
    dict
        Role -> name, for every role found (``topic``, ``docno``, ``score``/``rel``, and the
        optional ``rank``, ``subtopic``, ``passage``, ``iteration``; a passage run needs
        ``passage`` and ``rank`` too).

    Raises
    ------
    ParameterError
        A required role is missing, or two names fill one role.

    Examples
    --------
    >>> match_roles(["qid", "docid", "docno", "score", "rank", "query"], kind="run", what="the frame")
    {'topic': 'qid', 'docno': 'docno', 'score': 'score', 'rank': 'rank'}
    """
    present = [str(n) for n in names]
    roles: dict[str, str] = {}
    for role in _WANTED[kind]:
        found = [n for n in ROLE_NAMES[role] if n in present]
        if len(found) > 1:
            raise ParameterError(f"{what} has columns {' and '.join(found)}, which both name the {role}: "
                                 f"keep one. Expected {_EXPECTED[kind]}")
        if found:
            roles[role] = found[0]
    if kind == "qrels" and "rel" not in roles and roles.get("topic") == "q_id" and "score" in present:
        roles["rel"] = "score"  # ranx's qrels frames call the grade score
    missing = [role for role in _REQUIRED[kind] if role not in roles]
    if missing:
        hint = ""
        if "docno" in missing and "docid" in present:
            hint = " (PyTerrier's docid is Terrier's internal number, not a document name: add docno)"
        raise ParameterError(f"{what} has no {' or '.join(missing)} column (columns: "
                             f"{', '.join(present) or 'none'}){hint}. Expected {_EXPECTED[kind]}")
    return roles


def record_fields(record) -> tuple[str, ...] | None:
    """The field names of a namedtuple (ir_measures' Qrel/ScoredDoc, ir_datasets' TrecQrel,
    pandas' itertuples) or the keys of a mapping; None for a plain tuple."""
    if isinstance(record, Mapping):
        return tuple(str(k) for k in record)
    fields = getattr(type(record), "_fields", None)
    return tuple(fields) if fields is not None else None


def first_record(records: Iterable) -> tuple[object | None, list]:
    """The first record and all records as a list (records may be a one-shot iterator)."""
    rows = records if isinstance(records, list) else list(records)
    return (rows[0] if rows else None), rows


#: The one layout a plain (unnamed) tuple is read in without ``fields=``: three values,
#: topic, document, then the value the constructor reads (a run's score, qrels' grade).
#: Every tool of the field writes a 3-value record in this order (ir_measures' and ranx's
#: dicts flattened, PyTerrier's, ir_datasets' GenericQrel/GenericScoredDoc), so it is not a
#: guess; 4 values or more have several orders in use -- pateval's old (topic, subtopic,
#: docno, rel) and (topic, docno, rank, score), TREC's (query_id, doc_id, relevance,
#: iteration), TrecSubQrel's (query_id, doc_id, relevance, subtopic_id), PyTerrier's (qid,
#: docno, score, rank) -- and are refused unless ``fields=`` names them.
PLAIN_TUPLE_ORDER: dict[str, tuple[str, str, str]] = {"run": ("topic", "docno", "score"),
                                                      "qrels": ("topic", "docno", "rel")}

_NAMED_FORMS = {
    "run": ("named records (ir_measures' ScoredDoc, a DataFrame's itertuples()), dicts with keys such as "
            "qid, docno, score, rank, a DataFrame, or the tuples with fields= naming their order, "
            "e.g. Run.from_records(tuples, fields=(\"qid\", \"docno\", \"score\", \"rank\"))"),
    "qrels": ("named records (ir_measures' Qrel, ir_datasets' TrecQrel or TrecSubQrel), dicts with keys such as "
              "qid, docno, label, a DataFrame, or the tuples with fields= naming their order, "
              "e.g. Qrels.from_records(tuples, fields=(\"topic\", \"subtopic\", \"docno\", \"rel\"))"),
    "passage_run": ("named records (namedtuples or dicts with fields such as qid, docno, xpath, rank, score, or "
                    "query_id, doc_id, passage, rank, score), a DataFrame's itertuples(), or the tuples with fields= "
                    "naming their order, e.g. PassageRun.from_records(tuples, fields=(\"topic\", \"docno\", \"xpath\", "
                    "\"rank\", \"score\"))"),
}

#: Why a passage run has no layout in :data:`PLAIN_TUPLE_ORDER`: its rank and score are both
#: numbers and come in either order (integer scores, ranks written as floats, scores such as
#: 1/rank that fall as the rank rises), so no value tells them apart, and no tool of the
#: field writes passage records in one agreed order to follow.
_NO_PLAIN_LAYOUT = {"passage_run": "plain tuples are not read by position for a passage run, since its rank and "
                                   "score could be either way round"}


def _is_id(value) -> bool:
    return isinstance(value, (str, int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_value(kind: str, value) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return False
    if kind == "qrels":
        return isinstance(value, (int, np.integer))
    return isinstance(value, (int, float, np.integer, np.floating))


def plain_tuple_columns(rows: list, *, kind: str) -> dict[str, list]:
    """The columns of plain tuples read by position, in :data:`PLAIN_TUPLE_ORDER` only.

    Every row must be a 3-tuple with text or integer ids and a number (a run's score) or an
    integer (a grade) last; anything else is refused with one message saying what is
    expected, naming the first row that is not so. Passage runs (``kind="passage_run"``)
    have no positional layout: their plain tuples are refused, naming the first.

    Examples
    --------
    >>> plain_tuple_columns([("q1", "d1", 2)], kind="qrels")
    {'topic': ['q1'], 'docno': ['d1'], 'rel': [2]}
    >>> plain_tuple_columns([("q1", "s1", "d1", 2)], kind="qrels")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pateval.errors.ParameterError: plain tuples are read by position only as (topic, docno, rel) with ...
    """
    if kind not in PLAIN_TUPLE_ORDER:
        raise ParameterError(f"{_NO_PLAIN_LAYOUT[kind]}; got {tuple(rows[0])!r}. Give {_NAMED_FORMS[kind]}")
    order = PLAIN_TUPLE_ORDER[kind]
    for row in rows:
        if not (len(row) == 3 and _is_id(row[0]) and _is_id(row[1]) and _is_value(kind, row[2])):
            what = "an integer rel" if kind == "qrels" else "a numeric score"
            raise ParameterError(f"plain tuples are read by position only as ({', '.join(order)}) with {what}; got "
                                 f"{tuple(row)!r}. For any other layout give {_NAMED_FORMS[kind]}")
    return {role: [row[i] for row in rows] for i, role in enumerate(order)}


def fields_columns(rows: list, fields, *, kind: str) -> dict[str, list]:
    """The columns of records whose fields the caller named (``fields=``) or whose type names
    them (namedtuples, dicts): role -> values, for every role :func:`match_roles` finds."""
    if isinstance(fields, str) or not all(isinstance(f, str) for f in fields):
        example = {"qrels": '("qid", "docno", "label")', "run": '("qid", "docno", "score", "rank")',
                   "passage_run": '("qid", "docno", "xpath", "rank", "score")'}[kind]
        raise ParameterError(f"fields must be a tuple of column names, e.g. fields={example}; got {fields!r}")
    names = tuple(fields)
    roles = match_roles(names, kind=kind, what=f"records with fields ({', '.join(names)})")
    first = rows[0]
    if isinstance(first, Mapping):
        return {role: [row[column] for row in rows] for role, column in roles.items()}
    for row in rows:
        if len(row) != len(names):
            raise ParameterError(f"fields=({', '.join(names)}) names {len(names)} columns but a record has {len(row)} "
                                 f"values: {tuple(row)!r}")
    at = {role: names.index(column) for role, column in roles.items()}
    return {role: [row[i] for row in rows] for role, i in at.items()}


def score_values(values: list, *, what: str) -> list[float]:
    """The score column as floats; a value that is not a number is refused (``what``: "run")."""
    try:
        return [float(v) for v in values]
    except (TypeError, ValueError):
        raise ParameterError(f"{what} scores must be numbers; the records hold a score that is not") from None


def nested_dict_columns(nested: Mapping, *, what: str):
    """The columns of ``{topic: {docno: value}}`` (pytrec_eval's, ranx's, BEIR's shape).

    Returns ``(topics, docnos, values, n, distinct)``: the topics as an Arrow dictionary
    array whose dictionary is every topic of ``nested`` sorted (a topic whose dict is empty
    is kept there, with no row), the document ids as an Arrow string array, the values as an
    iterator in the same order, the number of rows, and whether no (topic, document) can be
    there twice (every id a string: a dict's keys differ; ids written with ``str`` may meet).
    No Python step is taken per row: the ids are gathered by ``itertools.chain`` over the
    inner dicts and handed to Arrow whole (ids that are not strings are written with ``str``,
    as by the other forms).

    Raises
    ------
    ParameterError
        A topic whose value is not a dict, or two topics that are one id as text (1 and "1").
    """
    import itertools
    import operator

    import pyarrow as pa

    inner = list(nested.values())
    if not all(isinstance(docs, Mapping) for docs in inner):
        bad = next(topic for topic, docs in nested.items() if not isinstance(docs, Mapping))
        raise ParameterError(f"{what} as a dict maps each topic to a {{docno: value}} dict; topic {bad!r} maps to "
                             f"{type(nested[bad]).__name__}")
    names = [topic if type(topic) is str else str(topic) for topic in nested]
    order = sorted(range(len(names)), key=names.__getitem__)
    ids = [names[i] for i in order]
    if len(set(ids)) != len(ids):
        twice = next(a for a, b in zip(ids, ids[1:], strict=False) if a == b)
        raise ParameterError(f"{what}: two topics are the id {twice!r} when written as text")
    position = np.empty(len(names), dtype=np.int32)
    position[order] = np.arange(len(names), dtype=np.int32)
    counts = np.fromiter(map(len, inner), dtype=np.int64, count=len(inner))
    topics = pa.DictionaryArray.from_arrays(pa.array(np.repeat(position, counts)), pa.array(ids, type=pa.string()))
    keys = list(itertools.chain.from_iterable(inner))
    try:
        docnos = pa.array(keys)  # Arrow's inference: quicker than converting to a type named in advance
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        docnos = None
    distinct = True
    if docnos is None or docnos.type != pa.string() or docnos.null_count:
        # numbers (or None) as ids: written as text, as the other forms do
        docnos = pa.array([key if isinstance(key, str) else str(key) for key in keys], type=pa.string())
        distinct = False
    values = itertools.chain.from_iterable(map(operator.methodcaller("values"), inner))
    return topics, docnos, values, int(counts.sum()), distinct


def rank_values(values: list, *, what: str) -> list:
    """The rank column, checked: integers (or floats with no fraction), never booleans."""
    if not all(isinstance(r, (int, np.integer)) and not isinstance(r, (bool, np.bool_))
               or isinstance(r, (float, np.floating)) and float(r).is_integer() for r in values):
        raise ParameterError(f"{what} ranks must be integers; the records hold a rank that is not")
    return values


class RowPlaces:
    """Where a row of columnar input is, for the checks of ``from_columns``: its 1-based
    line in a text file (``lines``), else its 1-based row (frames, records, Parquet).

    The problems are worded as the text readers and the Parquet reader word them, so that
    one input refused in any form gets one message, naming its line or its row.
    """

    def __init__(self, source: str, lines: Sequence[int] | np.ndarray | None) -> None:
        self.source = source
        self.lines = None if lines is None else np.asarray(lines, dtype=np.int64)

    def earliest(self, rows: np.ndarray) -> int:
        """The row among ``rows`` (ascending) that comes first in the input."""
        if self.lines is None:
            return int(rows[0])
        return int(rows[int(np.argmin(self.lines[rows]))])

    def refuse(self, row: int, problem: str, line_problem: str, *, expected: str | None = None,
               found: str | None = None) -> NoReturn:
        """Refuse ``row``: ``problem (row N)``, or ``line_problem`` at its line."""
        if self.lines is None:
            malformed(self.source, None, f"{problem} (row {row + 1})")
        malformed(self.source, int(self.lines[row]), line_problem, expected=expected, found=found)

    def refuse_empty(self, column: str, empty: np.ndarray) -> None:
        """Refuse the first row whose id in ``column`` is empty (``empty``: a mask of rows)."""
        if empty.any():
            self.refuse(int(np.argmax(empty)), f"an empty id in column {column!r}", "an empty field")

    def refuse_nan(self, score: np.ndarray) -> None:
        """Refuse the first NaN score."""
        nan = np.isnan(score)
        if nan.any():
            self.refuse(int(np.argmax(nan)), "a NaN in column 'score'", "the score is NaN",
                        expected="a decimal number", found="nan")
