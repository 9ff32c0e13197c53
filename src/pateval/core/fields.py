"""Reading the ecosystem's tables and records by field name.

PyTerrier, ir_measures, ir_datasets and ranx each name the columns of a run and of qrels
their own way. This module is the one table of those names: a frame's columns, or a
namedtuple's fields, are matched to the roles pateval needs (topic, document, score, rank,
relevance, subtopic, passage). Exactly one name may fill a required role; two names for
one role, or none, is an error that says what was expected -- nothing is read by position
or guessed from values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..errors import ParameterError

__all__ = ["RUN_STYLES", "QRELS_STYLES", "ROLE_NAMES", "match_roles", "first_record", "record_fields"]

#: The names each role goes by: pateval's own, PyTerrier's, ir_measures' / ir_datasets', ranx's.
ROLE_NAMES: dict[str, tuple[str, ...]] = {
    "topic": ("topic", "qid", "query_id", "q_id"),
    "docno": ("docno", "doc_id"),
    "score": ("score",),
    "rank": ("rank",),
    "rel": ("rel", "label", "relevance"),
    "subtopic": ("subtopic", "subtopic_id"),
    "passage": ("passage",),
    "iteration": ("iteration",),
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
             "relevance column (rel, label, relevance; score with ranx's q_id) [and subtopic, subtopic_id, passage]",
}


def match_roles(names: Sequence[str], *, kind: str, what: str) -> dict[str, str]:
    """Map roles to the given column or field names.

    Parameters
    ----------
    names : sequence of str
        The columns of a frame or the fields of a record.
    kind : {"run", "qrels"}
    what : str
        How to name the input in a message (``"the frame"``, ``"TrecQrel records"``).

    Returns
    -------
    dict
        Role -> name, for every role found (``topic``, ``docno``, ``score``/``rel``, and the
        optional ``rank``, ``subtopic``, ``passage``, ``iteration``).

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
    wanted = ("topic", "docno", "score", "rank") if kind == "run" else ("topic", "docno", "rel", "subtopic",
                                                                          "passage", "iteration")
    for role in wanted:
        found = [n for n in ROLE_NAMES[role] if n in present]
        if len(found) > 1:
            raise ParameterError(f"{what} has columns {' and '.join(found)}, which both name the {role}: "
                                 f"keep one. Expected {_EXPECTED[kind]}")
        if found:
            roles[role] = found[0]
    if kind == "qrels" and "rel" not in roles and roles.get("topic") == "q_id" and "score" in present:
        roles["rel"] = "score"  # ranx's qrels frames call the grade score
    required = ("topic", "docno", "score") if kind == "run" else ("topic", "docno", "rel")
    missing = [role for role in required if role not in roles]
    if missing:
        hint = ""
        if "docno" in missing and "docid" in present:
            hint = " (PyTerrier's docid is Terrier's internal number, not a document name: add docno)"
        raise ParameterError(f"{what} has no {' or '.join(missing)} column (columns: {', '.join(present) or 'none'}){hint}. "
                             f"Expected {_EXPECTED[kind]}")
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
