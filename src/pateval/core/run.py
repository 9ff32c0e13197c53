"""The in-memory form of a run: one row per retrieved document, as columnar arrays.

A :class:`Run` keeps the rows in file order. Topics are dictionary-encoded; documents are
codes into ``doc_ids``, which may hold one id per row (the run reader: hashing millions
of ids into a dictionary costs more than all the rest) or each distinct id once. Matching
against qrels goes through the run's :class:`pateval.core.keys.PairIndex`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._lazy import lazy_module
from ..errors import ParameterError, malformed
from ..validation import check_choice
from .fields import (
    RUN_STYLES,
    RowPlaces,
    fields_columns,
    first_record,
    match_roles,
    nested_dict_columns,
    plain_tuple_columns,
    rank_values,
    record_fields,
    score_values,
)
from .keys import PairIndex, StringKeys, take

if TYPE_CHECKING:
    import pandas

pd = lazy_module("pandas")  # frames in and out; a run read from a file never needs pandas

__all__ = ["Run", "NestedRun", "DocumentIds", "MIXED_TAG_POLICIES"]

#: What a run whose rows carry different tags becomes: refused, or named by its last row's tag.
MIXED_TAG_POLICIES = ("refuse", "last")


class DocumentIds:
    """Document ids as NumPy strings, for classes holding ``doc_ids`` (Arrow), per-row
    ``doc`` codes and a ``_cache`` dict: made once, on demand, since most measures never
    need a Python string per document."""

    doc_ids: pa.Array | pa.ChunkedArray
    doc: np.ndarray
    _cache: dict

    @property
    def vocabulary(self) -> np.ndarray:
        """The document ids (``doc_ids``) as a NumPy array of str."""
        if "vocabulary" not in self._cache:
            self._cache["vocabulary"] = self.doc_ids.to_numpy(zero_copy_only=False).astype(object, copy=False)
        return self._cache["vocabulary"]

    def _row_docnos(self) -> np.ndarray:
        if "docno" not in self._cache:
            self._cache["docno"] = self.vocabulary[self.doc]
        return self._cache["docno"]


@dataclass(frozen=True, eq=False)
class Run(DocumentIds):
    """A ranked retrieval run (TREC 6-column, or built in memory).

    Attributes
    ----------
    name : str
        The run tag (6th column), or the name the user gave.
    topic_ids : ndarray of str, shape (T,)
        The distinct topic ids.
    topic : ndarray of int32, shape (N,)
        Each row's topic, as an index into ``topic_ids``.
    doc_ids : pyarrow.StringArray or ChunkedArray, shape (V,)
        The document ids, kept in Arrow: runs may name millions of documents and Arrow
        sorts and compares them without making a Python string of each. An id may stand
        here more than once (the run reader keeps one per row, ``V == N``; never twice
        for one topic). :attr:`vocabulary` gives them as a NumPy array of str.
    doc : ndarray of int32, shape (N,)
        Each row's document, as an index into ``doc_ids``.
    score : ndarray of float64, shape (N,)
        Retrieval scores, kept as 64-bit doubles (never rounded to 32 bits).
    rank : ndarray of int64, shape (N,)
        The rank column as written in the file.
    source : str
        Where the run came from (file path or ``<memory>``).
    notes : tuple of str
        What reading changed (e.g. duplicates dropped on request), for the report.
    metadata : dict of str
        What the file says about the run: ``{"ir_metadata": YAML text}`` when it opens with
        an ir_metadata block (``# ir_metadata.start`` ... ``# ir_metadata.end``).
    resources : dict
        Side inputs of the measures that came with the run file (a TREC DD run's
        ``iterations``); the evaluation uses them unless the caller gives its own.
    """

    name: str
    topic_ids: np.ndarray
    topic: np.ndarray
    doc_ids: pa.Array
    doc: np.ndarray
    score: np.ndarray
    rank: np.ndarray
    source: str = "<memory>"
    notes: tuple[str, ...] = field(default=())
    metadata: dict = field(default_factory=dict, compare=False)
    resources: dict = field(default_factory=dict, compare=False, repr=False)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.doc_ids, (pa.Array, pa.ChunkedArray)):
            object.__setattr__(self, "doc_ids", pa.array(np.asarray(self.doc_ids, dtype=object), type=pa.string()))

    def __len__(self) -> int:
        return int(self.topic.shape[0])

    @property
    def docnos(self) -> np.ndarray:
        """Each row's document id as a string (made once, on demand)."""
        return self._row_docnos()

    def row_doc_ids(self) -> pa.Array:
        """Each row's document id, as an Arrow array in row order."""
        if "row_doc_ids" not in self._cache:
            identity = len(self.doc_ids) == len(self) and bool(np.all(self.doc == np.arange(len(self))))
            self._cache["row_doc_ids"] = self.doc_ids if identity else take(self.doc_ids, self.doc)
        return self._cache["row_doc_ids"]

    def pair_index(self) -> PairIndex:
        """The rows indexed by (topic, document id): for matching against qrels (made once)."""
        if "pair_index" not in self._cache:
            keys = StringKeys.of(self.row_doc_ids())
            self._cache["pair_index"] = PairIndex.build(self.topic, keys, n_groups=len(self.topic_ids))
        return self._cache["pair_index"]

    def use_pair_index(self, index: PairIndex) -> None:
        """Keep an index the reader already built over these rows (in row order)."""
        if len(index.group) != len(self):
            raise ValueError("the pair index does not cover this run's rows")
        self._cache["pair_index"] = index
        self._cache["row_doc_ids"] = index.keys.strings

    @classmethod
    def from_columns(cls, topics, docnos, scores, ranks=None, *, tags=None, name: str | None = None,
                     source: str = "<memory>", on_duplicate: str = "error", mixed_tags: str = "refuse",
                     lines: Sequence[int] | np.ndarray | None = None, unit: str = "row") -> Run:
        """Build a run from columns: the one door every run comes in by (files, Parquet,
        blocks, frames, records, dicts, ranx), applying every check once.

        Parameters
        ----------
        topics : sequence of ids, or pyarrow.DictionaryArray
            Each row's topic. Ids are written with ``str``; distinct topics are sorted,
            except when given dictionary-encoded (a reader's codes, kept as parsed).
        docnos : sequence of ids, or pyarrow string array
            Each row's document id (kept one per row, in Arrow).
        scores : sequence of float
            Infinite scores are kept (trec_eval reads ``inf`` with ``atof``); NaN is refused.
        ranks : sequence of int, optional
            The rank column as given; without it, rows are counted 1, 2, ... in order.
        tags : sequence of str, or pyarrow (dictionary) string array, optional
            Each row's run tag (a TREC run's 6th column).
        name : str, optional
            The run's name; by default the rows' tag (see ``mixed_tags``), else ``"run"``.
        source : str
            Where the run came from (named in messages).
        on_duplicate : {"error", "first"}
            A document twice for a topic is refused, or its later rows are dropped (noted).
        mixed_tags : {"refuse", "last"}
            Rows carrying different tags are refused, or the run takes the last row's tag
            (as trec_eval names a run: ``pateval trec_eval``).
        lines : ndarray of int, optional
            Each row's 1-based line in ``source``: a problem is then placed at its line, as
            the text readers word it; without it, at its 1-based row.
        unit : {"row", "line"}
            What a row is called in the note of dropped duplicates.

        Raises
        ------
        InputFormatError
            An empty id, a NaN score, mixed tags (``mixed_tags="refuse"``), or a document twice
            for a topic (``on_duplicate="error"``).
        ParameterError
            Columns of different lengths.
        """
        check_choice("on_duplicate", on_duplicate, ("error", "first"))
        check_choice("mixed_tags", mixed_tags, MIXED_TAG_POLICIES)
        if isinstance(topics, (pa.DictionaryArray, pa.ChunkedArray)) and pa.types.is_dictionary(topics.type):
            if isinstance(topics, pa.ChunkedArray):
                topics = topics.unify_dictionaries().combine_chunks()
            topic_ids = topics.dictionary.to_numpy(zero_copy_only=False).astype(object)
            topic = topics.indices.to_numpy(zero_copy_only=False)
        else:
            # topics hashed and sorted (few); document ids kept one per row in Arrow (hashing
            # millions of ids into a vocabulary costs more than the evaluation)
            encoded = pc.dictionary_encode(pa.array(_as_strings(topics), type=pa.string()))
            names = np.asarray(encoded.dictionary.to_pylist(), dtype=object)
            order = np.argsort(names, kind="stable")
            position = np.empty(len(order), dtype=np.int64)
            position[order] = np.arange(len(order))
            topic_ids, topic = names[order], position[encoded.indices.to_numpy(zero_copy_only=False)]
        doc_ids = docnos if isinstance(docnos, (pa.Array, pa.ChunkedArray)) else pa.array(_as_strings(docnos),
                                                                                           type=pa.string())
        score = np.ascontiguousarray(scores, dtype=np.float64)
        rank = (np.arange(1, len(score) + 1, dtype=np.int64) if ranks is None
                else np.ascontiguousarray(ranks, dtype=np.int64))
        if not (len(topic) == len(doc_ids) == len(score) == len(rank)):
            raise ParameterError("run columns differ in length")
        keys = StringKeys.of(doc_ids)
        rows = RowPlaces(source, lines)
        rows.refuse_empty("topic", np.isin(topic, np.flatnonzero(topic_ids == "")))
        rows.refuse_empty("docno", keys.length == 0)
        rows.refuse_nan(score)
        if tags is not None:
            tag = _run_tag(tags, rows, mixed_tags, len(score))
            name = (tag or None) if name is None else name  # an empty tag names nothing
        topic = topic.astype(np.int32 if len(topic_ids) < 2**31 else np.int64, copy=False)
        index = PairIndex.build(topic, keys, n_groups=len(topic_ids))
        notes: tuple[str, ...] = ()
        if index.repeated.any():
            repeated = np.flatnonzero(index.repeated)
            if on_duplicate == "error":
                row = rows.earliest(repeated)
                first = int(index.first[row])
                doc = take(doc_ids, np.array([row])).to_pylist()[0]
                what = f"document {doc!r} retrieved twice for topic {topic_ids[topic[row]]!r}"
                hint = "use on_duplicate='first' (--on-duplicate first) to keep the first"
                if rows.lines is None:
                    malformed(source, None, f"{what} (row {row + 1}); {hint}")
                malformed(source, int(rows.lines[row]), f"{what} (first on line {int(rows.lines[first])}); {hint}")
            keep = ~index.repeated
            notes = (f"{source}: {len(repeated)} duplicate document {unit}(s) dropped (kept the first)",)
            topic, score, rank = topic[keep], score[keep], rank[keep]
            doc_ids = doc_ids.filter(pa.array(keep))
            index = PairIndex.build(topic, StringKeys.of(doc_ids), n_groups=len(topic_ids))
        run = cls(name="run" if name is None else name, topic_ids=np.asarray(topic_ids, dtype=object), topic=topic,
                  doc_ids=doc_ids, doc=np.arange(len(topic), dtype=np.int32 if len(topic) < 2**31 else np.int64),
                  score=score, rank=rank, source=source, notes=notes)
        run.use_pair_index(index)
        return run

    @classmethod
    def from_records(cls, records, *, name: str | None = None, source: str = "<memory>",
                     fields: tuple[str, ...] | None = None, on_duplicate: str = "error",
                     mixed_tags: str = "refuse") -> Run:
        """Build a run from records.

        Named records are read by field name: ir_measures' ``ScoredDoc(query_id, doc_id,
        score)``, ir_datasets' scored documents, the namedtuples of a PyTerrier frame's
        ``itertuples()`` (``qid, docno, score, rank``), dicts with such keys. Plain tuples
        are read by position only as ``(topic, docno, score)`` (the order every tool uses;
        the score a number); any other plain tuple -- a 4-tuple, whose order differs from
        tool to tool -- is refused unless ``fields`` names its columns.

        Parameters
        ----------
        records : iterable of namedtuple, dict or tuple
        name : str, optional
            The run name; by default the records' tag (a ``tag``, ``run`` or ``name`` field),
            else ``"run"``.
        source : str
            Where the records came from, for messages.
        fields : tuple of str, optional
            The columns of the records in order, by any name of :data:`pateval.core.fields.ROLE_NAMES`
            (``("qid", "docno", "score", "rank")``, ``("topic", "docno", "rank", "score")``);
            unknown names (``"Q0"``, ``"tag"``) are columns left unread.
        on_duplicate, mixed_tags
            As :meth:`from_columns`.

        Raises
        ------
        ParameterError
            A plain tuple that is not ``(topic, docno, score)`` without ``fields``; records
            without a topic, document or score field; ``fields`` not matching the records.
        InputFormatError
            What :meth:`from_columns` refuses (a document twice for a topic, a NaN score).

        Examples
        --------
        >>> run = Run.from_records([("q1", "d1", 2.0), ("q1", "d2", 1.0)])
        >>> len(run), list(run.docnos)
        (2, ['d1', 'd2'])
        >>> Run.from_records([("q1", "d1", 2.0, 0)], fields=("qid", "docno", "score", "rank")).rank.tolist()
        [0]
        """
        first, rows = first_record(records)
        if first is None:
            return cls.from_columns([], [], [], name=name, source=source, on_duplicate=on_duplicate)
        names = fields if fields is not None else record_fields(first)
        columns = plain_tuple_columns(rows, kind="run") if names is None else fields_columns(rows, names, kind="run")
        scores = score_values(columns["score"], what="run")
        ranks = rank_values(columns["rank"], what="run") if "rank" in columns else None
        return cls.from_columns(columns["topic"], columns["docno"], scores, ranks, tags=columns.get("tag"), name=name,
                                source=source, on_duplicate=on_duplicate, mixed_tags=mixed_tags)

    @classmethod
    def from_frame(cls, frame, *, name: str | None = None, source: str = "<memory>", on_duplicate: str = "error",
                   mixed_tags: str = "refuse") -> Run:
        """Build a run from a DataFrame, reading the columns by name.

        Accepted: PyTerrier results (``qid, docno, score[, rank]``; other columns such as
        ``query`` or ``docid`` are ignored), ir_measures' (``query_id, doc_id, score``),
        ranx's (``q_id, doc_id, score``) and pateval's (``topic, docno, score[, rank]``).
        A ``tag``, ``run`` or ``name`` column holds each row's run tag. The run name is
        ``name``, else that column's tag (a frame of mixed tags is refused unless
        ``mixed_tags="last"``), else ``"run"``. A frame without these columns, or with two
        names for one, is refused; the rows are checked by :meth:`from_columns`
        (``on_duplicate`` and ``mixed_tags`` as there).

        Examples
        --------
        >>> import pandas as pd
        >>> res = pd.DataFrame({"qid": ["1", "1"], "docno": ["d1", "d2"], "score": [2.0, 1.0], "rank": [0, 1]})
        >>> Run.from_frame(res).to_dict()
        {'1': {'d1': 2.0, 'd2': 1.0}}
        """
        roles = match_roles(list(frame.columns), kind="run", what="the run frame")
        ranks = None
        if "rank" in roles:
            ranks = frame[roles["rank"]].to_numpy()
            if len(ranks) and not np.all(np.equal(np.mod(ranks.astype(float), 1), 0)):
                raise ParameterError("the run frame's rank column holds values that are not integers")
        tags = frame[roles["tag"]].to_numpy() if "tag" in roles else None
        return cls.from_columns(frame[roles["topic"]].to_numpy(), frame[roles["docno"]].to_numpy(),
                                frame[roles["score"]].to_numpy(dtype=np.float64), ranks, tags=tags, name=name,
                                source=source, on_duplicate=on_duplicate, mixed_tags=mixed_tags)

    @classmethod
    def from_ranx(cls, run, *, name: str | None = None) -> Run:
        """Build a run from a ``ranx.Run`` (its name kept unless ``name`` is given)."""
        return cls.from_dict(run.to_dict(), name=name or getattr(run, "name", None) or "run")

    @classmethod
    def from_dict(cls, run: Mapping[str, Mapping[str, float]], *, name: str = "run", source: str = "<memory>") -> Run:
        """Build a run from ``{topic: {docno: score}}`` (pytrec_eval's and ranx's shape).

        A topic whose dict is empty is a topic of the run that retrieved nothing (scored as an
        empty ranking, as pytrec_eval scores it). The columns are gathered without a Python
        step per row (:func:`~pateval.core.fields.nested_dict_columns`).
        """
        topics, docnos, values, n, _ = nested_dict_columns(run, what="a run")
        try:
            scores = np.fromiter(values, dtype=np.float64, count=n)
        except (TypeError, ValueError):
            raise ParameterError("run scores must be numbers; the dict holds a score that is not") from None
        return cls.from_columns(topics, docnos, scores, name=name, source=source)

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{topic: {docno: score}}`` (pytrec_eval's, ranx's and ir_measures' dict shape).

        Examples
        --------
        >>> Run.from_records([("q1", "d1", 2.0)]).to_dict()
        {'q1': {'d1': 2.0}}
        """
        out: dict[str, dict[str, float]] = {}
        for topic, docno, score in zip(self.topic_ids[self.topic].tolist(), self.docnos.tolist(), self.score.tolist(),
                                       strict=False):
            out.setdefault(topic, {})[docno] = score
        return out

    def to_frame(self, *, style: str = "pateval") -> pandas.DataFrame:
        """The run as a DataFrame in a tool's column names.

        Parameters
        ----------
        style : {"pateval", "pyterrier", "ir_measures", "ranx"}
            ``pateval``: ``topic, docno, score, rank`` (the rank column as given, rows in
            order); ``pyterrier``: ``qid, docno, score, rank`` sorted by topic then score
            (descending, ties by docno descending as trec_eval) with PyTerrier's ranks from
            0; ``ir_measures``: ``query_id, doc_id, score``; ``ranx``: ``q_id, doc_id, score``
            (``ranx.Run.from_df(frame)``).
        """
        check_choice("style", style, tuple(RUN_STYLES))
        columns = RUN_STYLES[style]
        topics = self.topic_ids[self.topic]
        frame = pd.DataFrame({columns[0]: topics, columns[1]: self.docnos, columns[2]: self.score})
        if style == "pateval":
            frame[columns[3]] = self.rank
        elif style == "ranx":  # ranx.Run.from_df asserts object (not pandas' str) id columns
            frame = frame.astype({columns[0]: object, columns[1]: object})
        elif style == "pyterrier":
            frame = frame.sort_values([columns[0], columns[2], columns[1]], ascending=[True, False, False],
                                      kind="stable")
            frame[columns[3]] = frame.groupby(columns[0], sort=False).cumcount().to_numpy()
            frame = frame.reset_index(drop=True)
        return frame


def _run_tag(tags, rows: RowPlaces, mixed_tags: str, n: int) -> str | None:
    """The tag every row carries, or (``mixed_tags="last"``) the last row's; None without rows."""
    if isinstance(tags, pa.ChunkedArray) and pa.types.is_dictionary(tags.type):  # a reader's: one tag, as a rule
        tags = tags.unify_dictionaries()
        if len(tags) == n and tags.num_chunks and len(tags.chunk(0).dictionary) == 1:
            return tags.chunk(0).dictionary[0].as_py()  # every row's, without looking at a row
    if mixed_tags == "last" and isinstance(tags, (pa.Array, pa.ChunkedArray)):
        if len(tags) != n:
            raise ParameterError("run columns differ in length")
        return tags[n - 1].as_py() if n else None  # the last row's, without reading the others
    if isinstance(tags, pa.ChunkedArray):
        tags = tags.combine_chunks()
    if not (isinstance(tags, pa.Array) and pa.types.is_dictionary(tags.type)):
        tags = pc.dictionary_encode(pa.array(_as_strings(tags), type=pa.string()))
    if len(tags) != n:
        raise ParameterError("run columns differ in length")
    if n == 0:
        return None
    codes, values = tags.indices.to_numpy(zero_copy_only=False), tags.dictionary.to_pylist()
    if mixed_tags == "last":
        return values[codes[-1]]
    if len(values) > 1:  # a dictionary's values differ: a row coded otherwise than the first has another tag
        other = np.flatnonzero(codes != codes[0])
        if len(other):
            row, first = rows.earliest(other), values[codes[0]]
            place = "row 1" if rows.lines is None else f"line {int(rows.lines[0])}"
            rows.refuse(row, f"mixed run tags: {first!r} on {place}, {values[codes[row]]!r}",
                        f"mixed run tags: {first!r} on {place}, another here", expected=repr(first),
                        found=values[codes[row]])
    return values[codes[0]]


def _as_strings(values) -> np.ndarray:
    """Ids as an object array of str (numbers and other values written with ``str``)."""
    array = np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) else values.astype(object,
                                                                                                      copy=False)
    # without pandas (its infer_dtype): a run read line by line, in a thread, must not import it
    if not all(isinstance(value, str) for value in array.flat):
        array = np.asarray([str(v) for v in array], dtype=object)
    return array


@dataclass(frozen=True, eq=False)
class NestedRun:
    """A run given as ``{topic: {docno: score}}`` (pytrec_eval's, BEIR's, ranx's shape), kept
    as given, its ids not converted.

    The dicts already index each topic's documents by id, so the evaluation looks the judged
    documents up in them (:func:`pateval.core.ranking.rank_nested`) instead of converting every
    retrieved id to Arrow and hashing it again: the conversion costs more than the
    evaluation. :meth:`to_run` gives the :class:`Run` (:meth:`Run.from_dict`) when a step
    needs every row (trec_eval's -M and -J cuts, patent keys, another order).

    The checks of :meth:`Run.from_dict` are made topic by topic (:meth:`topic_scores`), where
    the ranking reads each topic's dict, so that a dict is read once, while it is in the
    processor's cache; :meth:`check` makes them for the topics a ranking did not read. A
    problem is refused by :meth:`Run.from_dict` itself: the same message whichever form the
    run takes.

    Attributes
    ----------
    name : str
    topic_ids : ndarray of str, shape (T,)
        The distinct topics, sorted.
    documents : dict of str to Mapping
        Each topic's ``{docno: score}`` dict, as given.
    source : str
    """

    name: str
    topic_ids: np.ndarray
    documents: dict
    source: str = "<memory>"
    notes: tuple[str, ...] = field(default=())
    metadata: dict = field(default_factory=dict, compare=False)
    resources: dict = field(default_factory=dict, compare=False, repr=False)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, run: Mapping[str, Mapping[str, float]], *, name: str = "run", source: str = "<memory>") -> NestedRun:
        """``run`` as a NestedRun; its topics checked here, its documents where they are read.

        Examples
        --------
        >>> run = NestedRun.of({"q2": {"d1": 1.0}, "q1": {"d2": 2.0, "d3": 0.5}})
        >>> run.topic_ids.tolist(), len(run), run.topic_scores("q1").tolist()
        (['q1', 'q2'], 3, [2.0, 0.5])
        """
        if not all(type(topic) is str and topic and isinstance(docs, Mapping) for topic, docs in run.items()):
            # ids that are not strings are written with str by Run.from_dict, which refuses the rest
            Run.from_dict(run, name=name, source=source)
            run = {str(topic): {docno if isinstance(docno, str) else str(docno): score
                                for docno, score in docs.items()} for topic, docs in run.items()}
        return cls(name=name, topic_ids=np.asarray(sorted(run), dtype=object), documents=dict(run), source=source)

    def topic_scores(self, topic: str, *, ascending: bool = False) -> np.ndarray:
        """The scores of ``topic``'s documents in its dict's order (or ascending), its documents checked."""
        docs = self.documents[topic]
        try:
            values = np.fromiter(docs.values(), dtype=np.float64, count=len(docs))
        except (TypeError, ValueError):
            values = np.full(1, np.nan)
        if ascending:
            values.sort()  # a NaN goes last
        if (len(values) and (np.isnan(values[-1]) if ascending else np.isnan(values).any()) or "" in docs
                or not all(issubclass(kind, str) for kind in set(map(type, docs)))):
            self._refuse()
        return values

    def check(self, topics) -> None:
        """Check the documents of ``topics`` (those a ranking did not read)."""
        for topic in topics:
            self.topic_scores(topic)

    def _refuse(self) -> None:
        Run.from_dict(self.documents, name=self.name, source=self.source)
        # ids that are numbers are written with str: taken, with their ids as text
        object.__setattr__(self, "documents", {topic: {docno if isinstance(docno, str) else str(docno): score
                                                       for docno, score in docs.items()}
                                               for topic, docs in self.documents.items()})

    def __len__(self) -> int:
        return sum(map(len, self.documents.values()))

    def to_run(self) -> Run:
        """The run as a :class:`Run` (made once, by :meth:`Run.from_dict`)."""
        if "run" not in self._cache:
            self._cache["run"] = Run.from_dict(self.documents, name=self.name, source=self.source)
        return self._cache["run"]
