"""The in-memory form of relevance judgements (qrels), as columnar arrays.

One class serves every qrels format: document-level qrels leave ``subtopic`` and
``passage`` empty; subtopic (ndeval), TREC Dynamic Domain and claim-level CLEF-IP qrels
fill them. Measures that work per document use :meth:`Qrels.document_level`, which keeps
each document's highest grade over its subtopics and passages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import tuning
from .._lazy import lazy_module
from ..errors import ParameterError, malformed
from ..validation import check_choice
from .fields import (
    QRELS_STYLES,
    RowPlaces,
    fields_columns,
    first_record,
    match_roles,
    nested_dict_columns,
    plain_tuple_columns,
    record_fields,
)
from .keys import PairIndex, StringKeys, string_parts, words_at
from .order import unique_inverse

if TYPE_CHECKING:
    import pandas

pd = lazy_module("pandas")  # a few functions build frames; scoring runs never needs pandas

__all__ = ["Qrels", "is_heading_xpath", "vectorised_heading"]


_STRING_COLUMNS = ("topic", "docno", "subtopic", "passage")


class Qrels:
    """Relevance judgements.

    The string columns may be given as NumPy arrays of str, as Arrow string arrays (the
    readers keep Arrow's) or as Arrow dictionary arrays with distinct dictionary values
    (topics and subtopics as parsed); each is converted to another form once, when first
    asked for, so evaluating never turns millions of ids into Python strings.

    Attributes
    ----------
    topic, docno : ndarray of str, shape (Q,)
        One row per judgement.
    rel : ndarray of int64, shape (Q,)
        The grade; negative grades are kept (trec_eval reads them as pooled but unjudged).
    subtopic : ndarray of str or None
        The subtopic (intent, claim) a row judges, for subtopic-level formats.
    passage : ndarray of str or None
        The passage id or XPath a row judges, where the format has one.
    format : str
        The format the qrels were read as (``trec``, ``subtopic``, ``dd``, ``ntcir``,
        ``clefip-pac``, ``clefip-2011``, ``memory``).
    source : str
        File path or ``<memory>``.
    extra : dict of str to ndarray
        Further per-row columns a format carries (e.g. ``lang`` in CLEF-IP 2010 qrels).
    notes : tuple of str
        What reading changed (identical duplicates merged, ...), for the report.
    """

    def __init__(self, *, topic, docno, rel, subtopic=None, passage=None, format: str = "memory",
                 source: str = "<memory>", extra: dict | None = None, notes: tuple[str, ...] = ()) -> None:
        self._given = {"topic": topic, "docno": docno, "subtopic": subtopic, "passage": passage}
        self.rel = _grade_array(rel)
        self.format = format
        self.source = source
        self.extra = dict(extra or {})
        self.notes = tuple(notes)
        self._cache: dict = {}
        if any(v is not None and len(v) != len(self.rel) for v in self._given.values()):
            raise ValueError("qrels columns differ in length")

    def replace(self, **changes) -> Qrels:
        """A copy with some columns or attributes changed (the string columns shared)."""
        values = {**self._given, "rel": self.rel, "format": self.format, "source": self.source,
                  "extra": self.extra, "notes": self.notes}
        values.update(changes)
        return Qrels(**values)

    def _numpy(self, column: str) -> np.ndarray | None:
        given = self._given[column]
        if given is None or isinstance(given, np.ndarray):
            return given
        if column not in self._cache:
            self._cache[column] = self.arrow(column).to_numpy(zero_copy_only=False).astype(object, copy=False)
        return self._cache[column]

    topic = property(lambda self: self._numpy("topic"), doc="Each judgement's topic (ndarray of str).")
    docno = property(lambda self: self._numpy("docno"), doc="Each judgement's document id (ndarray of str).")
    subtopic = property(lambda self: self._numpy("subtopic"), doc="Each judgement's subtopic, or None.")
    passage = property(lambda self: self._numpy("passage"), doc="Each judgement's passage, or None.")

    def __len__(self) -> int:
        return int(self.rel.shape[0])

    def arrow(self, column: str) -> pa.Array:
        """A string column (``topic``, ``docno``, ``subtopic``, ``passage``) as an Arrow array."""
        given = self._given[column]
        if isinstance(given, pa.ChunkedArray):
            given = self._given[column] = given.combine_chunks()
        if isinstance(given, pa.DictionaryArray):
            key = ("decoded", column)
            if key not in self._cache:
                self._cache[key] = given.dictionary_decode()
            return self._cache[key]
        if isinstance(given, pa.Array):
            return given
        key = ("arrow", column)
        if key not in self._cache:
            self._cache[key] = pa.array(np.asarray(given, dtype=object), type=pa.string())
        return self._cache[key]

    def codes(self, column: str) -> tuple[np.ndarray, pa.Array]:
        """A string column as (integer code of each row, the distinct strings): the form
        joins and groupings use. Readers may give topics and subtopics so, as parsed.

        Examples
        --------
        >>> codes, names = Qrels.from_records([("q2", "d1", 1), ("q1", "d2", 0), ("q2", "d3", 1)]).codes("topic")
        >>> codes.tolist(), names.to_pylist()
        ([0, 1, 0], ['q2', 'q1'])
        """
        key = ("codes", column)
        if key not in self._cache:
            given = self._given[column]
            if isinstance(given, pa.ChunkedArray):
                given = self._given[column] = given.combine_chunks()
            encoded = given if isinstance(given, pa.DictionaryArray) else pc.dictionary_encode(self.arrow(column))
            self._cache[key] = (encoded.indices.to_numpy(zero_copy_only=False), encoded.dictionary)
        return self._cache[key]

    def has(self, column: str) -> bool:
        """Whether a string column (``subtopic``, ``passage``, ...) is present (without converting it)."""
        return self._given[column] is not None

    @property
    def has_subtopics(self) -> bool:
        return self.has("subtopic")

    @property
    def topic_ids(self) -> np.ndarray:
        """The distinct topics, sorted as strings (trec_eval's order)."""
        if "topic_ids" not in self._cache:
            codes, names = self.codes("topic")
            present = np.zeros(len(names), dtype=bool)
            present[codes] = True
            distinct = names.filter(pa.array(present)) if not present.all() else names
            self._cache["topic_ids"] = np.asarray(sorted(distinct.to_pylist()), dtype=object)
        return self._cache["topic_ids"]

    def document_level(self) -> Qrels:
        """One row per (topic, document) with the document's highest grade.

        Subtopic- and passage-level qrels judge a document several times; document-level
        measures use its best grade (the issue's rule, and ndeval's for its binary view).
        Rows come in the order of each (topic, document)'s first line.
        """
        if not (self.has("subtopic") or self.has("passage")):
            return self
        if "document_level" not in self._cache:
            topic_codes, topic_names = self.codes("topic")
            docnos = self.arrow("docno")
            index = PairIndex.build(topic_codes, StringKeys.of(docnos), n_groups=len(topic_names))
            rel = self.rel.copy()
            repeats = np.flatnonzero(index.repeated)
            np.maximum.at(rel, index.first[repeats], rel[repeats])
            first = ~index.repeated
            # each line's row in the document-level qrels (for subtopic views)
            rows = np.cumsum(first, dtype=np.int64) - 1
            rows[repeats] = rows[index.first[repeats]]
            self._cache["document_rows"] = rows
            mask = pa.array(first)
            self._cache["document_level"] = Qrels(
                topic=pa.DictionaryArray.from_arrays(pa.array(topic_codes).filter(mask), topic_names),
                docno=docnos.filter(mask), rel=rel[first], format=self.format, source=self.source, notes=self.notes)
        return self._cache["document_level"]

    def document_rows(self) -> np.ndarray:
        """Each line's row in :meth:`document_level` (``arange`` for document-level qrels).

        Examples
        --------
        >>> q = Qrels.from_records([("q1", "s1", "d1", 1), ("q1", "s2", "d2", 0), ("q1", "s2", "d1", 2)],
        ...                        fields=("topic", "subtopic", "docno", "rel"))
        >>> q.document_rows().tolist(), q.document_level().rel.tolist()
        ([0, 1, 0], [2, 0])
        """
        if not (self.has("subtopic") or self.has("passage")):
            return np.arange(len(self), dtype=np.int64)
        self.document_level()
        return self._cache["document_rows"]

    def to_frame(self, *, style: str = "pateval") -> pandas.DataFrame:
        """The judgements as a DataFrame in a tool's column names.

        Parameters
        ----------
        style : {"pateval", "pyterrier", "ir_measures", "ranx"}
            ``pateval``: ``topic, [subtopic,] docno, [passage,] rel`` and any extra columns,
            one row per judgement; ``pyterrier``: ``qid, docno, label``; ``ranx``:
            ``q_id, doc_id, score`` (``ranx.Qrels.from_df(frame)``) -- both one row per
            (topic, document) with its highest grade, as these tools judge documents;
            ``ir_measures``: ``query_id, doc_id, relevance``, with subtopics in
            ``iteration`` (ir_measures' convention for its diversity measures), one row per
            judgement.
        """
        check_choice("style", style, tuple(QRELS_STYLES))
        if style == "pateval":
            given = {"topic": self.topic, "subtopic": self.subtopic, "docno": self.docno, "passage": self.passage}
            columns = {name: values for name, values in given.items() if values is not None}
            return pd.DataFrame({**columns, "rel": self.rel, **self.extra})
        names = QRELS_STYLES[style]
        if style == "ir_measures":
            frame = pd.DataFrame({names[0]: self.topic, names[1]: self.docno, names[2]: self.rel})
            if self.subtopic is not None:
                frame["iteration"] = self.subtopic
            return frame
        level = self.document_level()
        frame = pd.DataFrame({names[0]: level.topic, names[1]: level.docno, names[2]: level.rel})
        if style == "ranx":  # ranx.Qrels.from_df asserts object (not pandas' str) id columns
            frame = frame.astype({names[0]: object, names[1]: object})
        return frame

    def to_dict(self) -> dict[str, dict[str, int]]:
        """``{topic: {docno: grade}}`` at document level (a document's highest grade), the
        shape pytrec_eval, ranx and ir_measures take.

        Examples
        --------
        >>> Qrels.from_records([("q1", "s1", "d1", 1), ("q1", "s2", "d1", 2)],
        ...                    fields=("topic", "subtopic", "docno", "rel")).to_dict()
        {'q1': {'d1': 2}}
        """
        level = self.document_level()
        out: dict[str, dict[str, int]] = {}
        for topic, docno, rel in zip(level.topic.tolist(), level.docno.tolist(), level.rel.tolist(), strict=False):
            out.setdefault(topic, {})[docno] = rel
        return out

    @classmethod
    def from_records(cls, records, *, source: str = "<memory>", fields: tuple[str, ...] | None = None,
                     subtopics: str | None = None, on_duplicate: str = "error") -> Qrels:
        """Build qrels from records.

        Named records are read by field name: ir_measures' ``Qrel(query_id, doc_id,
        relevance, iteration)``, ir_datasets' ``TrecQrel(query_id, doc_id, relevance,
        iteration)`` and ``TrecSubQrel(query_id, doc_id, relevance, subtopic_id)``, the rows of
        a frame's ``itertuples()``, dicts with such keys. TREC's ``iteration`` is ignored (as
        trec_eval does) unless ``subtopics="iteration"`` says it holds subtopics (ir_measures'
        convention for diversity qrels). Plain tuples are read by position only as ``(topic,
        docno, rel)`` (the order every tool uses; the grade an integer); any other plain tuple
        -- a 4-tuple, whose order differs from tool to tool -- is refused unless ``fields``
        names its columns.

        Parameters
        ----------
        records : iterable of namedtuple, dict or tuple
        source : str
            Where the records came from, for messages.
        fields : tuple of str, optional
            The columns of the records in order, by any name of :data:`pateval.core.fields.ROLE_NAMES`
            (``("topic", "subtopic", "docno", "rel")``, ``("qid", "docno", "label")``);
            unknown names are columns left unread.
        subtopics : {None, "iteration"}
            Read TREC's ``iteration`` column as the subtopic.
        on_duplicate : {"error", "first"}
            As :meth:`from_columns`: identical repeats are merged, conflicting grades refused.

        Raises
        ------
        ParameterError
            A plain tuple that is not ``(topic, docno, rel)`` without ``fields``; records
            without a topic, document or grade field; ``fields`` not matching the records.

        Examples
        --------
        >>> q = Qrels.from_records([("q1", "d1", 1), ("q1", "d2", 0)])
        >>> len(q), q.has_subtopics
        (2, False)
        >>> Qrels.from_records([("q1", "s1", "d1", 1)], fields=("topic", "subtopic", "docno", "rel")).has_subtopics
        True
        """
        first, rows = first_record(records)
        if first is None:
            return cls.from_columns([], [], np.zeros(0, dtype=np.int64), source=source)
        names = fields if fields is not None else record_fields(first)
        if names is None:
            return cls._from_roles(plain_tuple_columns(rows, kind="qrels"), source=source, on_duplicate=on_duplicate)
        columns = fields_columns(rows, names, kind="qrels")
        roles = _subtopic_role({role: role for role in columns}, subtopics)
        return cls._from_roles({role: columns[column] for role, column in roles.items()}, source=source,
                               on_duplicate=on_duplicate)

    @classmethod
    def from_frame(cls, frame, *, subtopics: str | None = None, source: str = "<memory>",
                   on_duplicate: str = "error") -> Qrels:
        """Build qrels from a DataFrame, reading the columns by name.

        Accepted: PyTerrier's (``qid, docno, label``), ir_measures' (``query_id, doc_id,
        relevance[, iteration]``), ranx's (``q_id, doc_id, score``), pateval's (``topic,
        [subtopic,] docno, [passage,] rel``), with ``subtopic_id`` (ir_datasets) or
        ``subtopic`` read as the subtopic. ``iteration`` is ignored unless
        ``subtopics="iteration"``. Unknown columns are ignored; a frame without these
        columns, or with two names for one role, is refused; the rows are checked by
        :meth:`from_columns` (``on_duplicate`` as there).

        Examples
        --------
        >>> import pandas as pd
        >>> Qrels.from_frame(pd.DataFrame({"qid": ["1"], "docno": ["d1"], "label": [2]})).to_dict()
        {'1': {'d1': 2}}
        """
        roles = _subtopic_role(match_roles(list(frame.columns), kind="qrels", what="the qrels frame"), subtopics)
        return cls._from_roles({role: frame[column].to_numpy() for role, column in roles.items()}, source=source,
                               on_duplicate=on_duplicate)

    @classmethod
    def _from_roles(cls, columns: dict, *, source: str, on_duplicate: str) -> Qrels:
        return cls.from_columns(columns["topic"], columns["docno"], columns["rel"], subtopics=columns.get("subtopic"),
                                passages=columns.get("passage"), source=source, on_duplicate=on_duplicate)

    @classmethod
    def from_ranx(cls, qrels) -> Qrels:
        """Build qrels from a ``ranx.Qrels``."""
        return cls.from_dict(qrels.to_dict())

    @classmethod
    def from_columns(cls, topics, docnos, rel, *, subtopics=None, passages=None, format: str = "memory",
                     source: str = "<memory>", on_duplicate: str = "error",
                     lines: Sequence[int] | np.ndarray | None = None, unit: str = "row",
                     extra: dict[str, np.ndarray] | None = None, items_distinct: bool = False) -> Qrels:
        """Build qrels from columns: the one door all qrels come in by (text files, Parquet,
        frames, records, dicts, ranx), applying every check once.

        A judged item is (topic, subtopic, document, passage). An item judged again with the
        same grade is merged into its first row (noted); with another grade it is refused,
        or the first grade kept (``on_duplicate="first"``, noted).

        Parameters
        ----------
        topics, docnos : sequence of ids, or Arrow string or dictionary arrays
        rel : sequence of int
            The grades (floats without a fraction are taken as integers).
        subtopics, passages : sequence of ids, optional
        format, source : str
            What the qrels were read as, and where they came from (named in messages).
        on_duplicate : {"error", "first"}
        lines : ndarray of int, optional
            Each row's 1-based line in ``source``: a problem is then placed at its line, as
            the text readers word it; without it, at its 1-based row.
        unit : {"row", "line"}
            What a row is called in the note of merged judgements.
        extra : dict of str to ndarray, optional
            Further per-row columns, kept for the rows kept.
        items_distinct : bool
            The caller knows that no item is given twice (the string keys of a topic's dict
            differ), so the items are not indexed to find repeated ones.

        Raises
        ------
        ParameterError
            Grades that are not integers.
        InputFormatError
            An empty id, or conflicting grades of one item (``on_duplicate="error"``).
        """
        check_choice("on_duplicate", on_duplicate, ("error", "first"))
        grades = _grades(rel)
        given = {"topic": topics, "docno": docnos, "subtopic": subtopics, "passage": passages}
        columns = {role: _id_strings(values) for role, values in given.items() if values is not None}
        if any(len(values) != len(grades) for values in columns.values()):
            raise ParameterError("qrels columns differ in length")
        qrels = cls(**columns, rel=grades, format=format, source=source, extra=extra)
        rows = RowPlaces(source, lines)
        for role, values in columns.items():
            rows.refuse_empty(role, _empty_ids(values if isinstance(values, pa.DictionaryArray) else qrels.arrow(role)))
        if items_distinct or qrels.has("passage") and _passage_items_distinct(qrels):
            return qrels  # no item twice (a dict's keys; the usual DD qrels), known without indexing the items
        index = _item_index(qrels)
        if not index.repeated.any():
            return qrels
        repeated = np.flatnonzero(index.repeated)
        first = np.asarray(index.first)[repeated]
        conflicts = repeated[grades[repeated] != grades[first]]
        if len(conflicts) and on_duplicate == "error":
            row = rows.earliest(conflicts)
            at = int(index.first[row])
            value = {role: qrels.arrow(role)[row].as_py() for role in columns}
            item = (f"document {value['docno']!r}" + (f" subtopic {value['subtopic']!r}" if "subtopic" in value else "")
                    + (f" passage {value['passage']!r}" if "passage" in value else ""))
            what = f"conflicting judgements of {item} for topic {value['topic']!r}"
            hint = "use on_duplicate='first' (--on-duplicate first) to keep the first"
            if rows.lines is None:
                malformed(source, None, f"{what}: {grades[at]} on row {at + 1}, {grades[row]} on row {row + 1}; {hint}")
            malformed(source, int(rows.lines[row]),
                      f"{what}: {grades[at]} on line {int(rows.lines[at])}, {grades[row]} here; {hint}")
        keep = ~index.repeated
        mask = pa.array(keep)
        return cls(**{role: qrels.arrow(role).filter(mask) if isinstance(values, pa.Array) else values[keep]
                      for role, values in columns.items()},
                   rel=grades[keep], format=format, source=source,
                   extra={column: np.asarray(values)[keep] for column, values in (extra or {}).items()},
                   notes=(f"{source}: {len(repeated)} repeated judgement {unit}(s) merged",))

    @classmethod
    def from_dict(cls, qrels: Mapping[str, Mapping[str, int]], *, source: str = "<memory>") -> Qrels:
        """Build qrels from ``{topic: {docno: rel}}`` (pytrec_eval's and ranx's shape), its
        columns gathered without a Python step per row (:func:`~pateval.core.fields.nested_dict_columns`)."""
        topics, docnos, values, _, distinct = nested_dict_columns(qrels, what="qrels")
        return cls.from_columns(topics, docnos, list(values), source=source, items_distinct=distinct)


def _grades(rel) -> np.ndarray:
    """Grades as int64 when every one is an integer (floats without a fraction too), as
    today's qrels; float64 when some grade has a fraction (BEIR's, MTEB's, cwl_eval's graded
    judgements: :func:`is_fractional`). NaN and infinite grades are refused."""
    rel = np.asarray(rel)
    if rel.dtype.kind == "f" and len(rel) and not np.all(np.isfinite(rel)):
        raise ParameterError("relevance grades must be finite numbers; the qrels hold NaN or an infinite grade")
    try:
        return _grade_array(rel)
    except (TypeError, ValueError):
        raise ParameterError("relevance grades must be numbers; the qrels hold values that are not numbers") from None


def _grade_array(rel) -> np.ndarray:
    """int64, or float64 when some grade has a fraction (the one place the grade dtype is chosen)."""
    rel = np.asarray(rel)
    if rel.dtype.kind == "f" and len(rel) and not np.all(np.mod(rel, 1) == 0):
        return rel.astype(np.float64)
    return rel.astype(np.int64)


def is_fractional(grades: np.ndarray) -> bool:
    """Whether grades hold a fraction (then they are float64; integer grades are int64)."""
    return np.asarray(grades).dtype.kind == "f"


def _id_strings(values):
    """An id column as given by a reader (Arrow arrays kept), else an object array of str."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if isinstance(values, pa.Array):
        return values
    return np.asarray([str(v) for v in values], dtype=object)


def _empty_ids(strings) -> np.ndarray:
    """A mask of the empty ids (from the offsets, or a dictionary's: no pass over the bytes)."""
    if isinstance(strings, pa.DictionaryArray):
        offsets, _ = string_parts(strings.dictionary)
        empty = np.flatnonzero(offsets[1:] == offsets[:-1])
        return np.isin(strings.indices.to_numpy(zero_copy_only=False), empty)
    offsets, _ = string_parts(strings)
    return offsets[1:] == offsets[:-1]


def _item_groups(qrels: Qrels) -> tuple[np.ndarray, int]:
    """Dense codes of each row's (topic, subtopic), and how many: the subtopic's own code
    when every subtopic id belongs to a single topic (DD's ``DD17-3.2``), else the pairs'."""
    group, names = qrels.codes("topic")
    if not qrels.has("subtopic"):
        return group, len(names)
    subtopic, subtopic_names = qrels.codes("subtopic")
    n_subtopics = len(subtopic_names)
    owner = np.full(n_subtopics, -1, dtype=np.int64)
    owner[subtopic] = group
    if np.array_equal(owner[subtopic], group):
        return subtopic.astype(np.int64), n_subtopics
    pairs, codes = unique_inverse(group.astype(np.int64) * n_subtopics + subtopic)
    return codes, len(pairs)


def _item_index(qrels: Qrels) -> PairIndex:
    """The judged items (topic, subtopic, document, passage) indexed: groups of (topic,
    subtopic), keys of document (and passage)."""
    group, n_groups = _item_groups(qrels)
    docnos = qrels.arrow("docno")
    if qrels.has("passage"):  # document ids hold no tab
        docnos = pc.binary_join_element_wise(docnos, qrels.arrow("passage"), "\t")
    return PairIndex.build(group, StringKeys.of(docnos), n_groups=n_groups)


def _passage_items_distinct(qrels: Qrels) -> bool:
    """Whether no passage id occurs twice in a (topic, subtopic): then no item does.

    Passage ids are (nearly always) unique in the whole file, which settles it without
    grouping: ids of at most 8 bytes are compared as integers (:func:`_short_ids`), longer
    ones by fingerprint per (topic, subtopic). False leaves it to :func:`_item_index`.
    """
    passage = qrels.arrow("passage")
    if _short_ids_distinct(passage):
        return True
    group, n_groups = _item_groups(qrels)
    return not PairIndex.build(group, StringKeys.of(passage), n_groups=n_groups).repeated.any()


def _short_ids_distinct(strings) -> bool:
    """Whether the strings are all at most 8 bytes long and all different.

    Ids numbered in file order ascend as :func:`_short_ids`' numbers: that is checked block
    by block in one reused scratch array; other files get all the numbers, then a sort.
    """
    offsets, data = string_parts(strings)
    n = len(offsets) - 1
    if n == 0 or len(data) < 8:
        return False  # a handful of ids: left to the index
    block = tuning.ID_BLOCK_ROWS
    scratch = np.empty(block, dtype=np.uint64)
    last = None
    for b0 in range(0, n, block):
        b1 = min(n, b0 + block)
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
    block = tuning.ID_BLOCK_ROWS
    for b0 in range(0, n, block):
        b1 = min(n, b0 + block)
        if _block_ids(offsets, data, b0, b1, key[b0:b1]) is None:
            return None
    return key


def _block_ids(offsets: np.ndarray, data: np.ndarray, b0: int, b1: int, out: np.ndarray) -> np.ndarray | None:
    """:func:`_short_ids` of strings ``b0:b1`` (``offsets`` into ``data``) written to
    ``out``; None when one is longer than 8 bytes. Blocks are small, so that the arrays
    stay in cache and are reused rather than each touching fresh memory."""
    length = offsets[b0 + 1 : b1 + 1] - offsets[b0:b1]
    if int(length.max()) > 8:
        return None
    # a string's first word, zero-padded, shifted right by the padding
    return np.right_shift(words_at(offsets, data, b0, b1, 1, big_endian=True)[0],
                          (64 - 8 * length).astype(np.uint64), out=out)


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


def _subtopic_role(roles: dict[str, str], subtopics: str | None) -> dict[str, str]:
    """Drop TREC's iteration column, or make it the subtopic when asked."""
    roles = dict(roles)
    iteration = roles.pop("iteration", None)
    if subtopics is None:
        return roles
    if subtopics != "iteration":
        raise ParameterError(f"subtopics must be None or 'iteration'; got {subtopics!r}")
    if iteration is None:
        raise ParameterError("subtopics='iteration' needs an iteration column; the qrels have none")
    if "subtopic" in roles:
        raise ParameterError(f"the qrels have both {roles['subtopic']} and iteration; subtopics='iteration' would read "
                             "two columns as the subtopic")
    roles["subtopic"] = iteration
    return roles


def is_heading_xpath(xpath: str) -> bool:
    """True for an XPath to a description heading (its last step is ``heading``)."""
    last = xpath.rsplit("/", 1)[-1]
    return last == "heading" or last.startswith("heading[")


def vectorised_heading(xpaths: np.ndarray) -> np.ndarray:
    """:func:`is_heading_xpath` of every element, tested once per distinct XPath (runs repeat them)."""
    if len(xpaths) == 0:
        return np.zeros(0, dtype=bool)
    codes, distinct = pd.factorize(xpaths)
    return np.fromiter((is_heading_xpath(x) for x in distinct), dtype=bool, count=len(distinct))[codes]
