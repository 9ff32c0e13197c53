"""The in-memory form of a run: one row per retrieved document, as columnar arrays.

A :class:`Run` keeps the rows in file order. Topics are dictionary-encoded; documents are
codes into ``doc_ids``, which may hold one id per row (the run reader: hashing millions
of ids into a dictionary costs more than all the rest) or each distinct id once. Matching
against qrels goes through the run's :class:`pateval.core.keys.PairIndex`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from .keys import PairIndex, StringKeys, take

__all__ = ["Run", "DocumentIds"]


class DocumentIds:
    """Document ids as NumPy strings, for classes holding ``doc_ids`` (Arrow), per-row
    ``doc`` codes and a ``_cache`` dict: made once, on demand, since most measures never
    need a Python string per document."""

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
    def from_records(cls, records, *, name: str = "run", source: str = "<memory>") -> "Run":
        """Build a run from ``(topic, docno, score)`` or ``(topic, docno, rank, score)`` tuples.

        Examples
        --------
        >>> run = Run.from_records([("q1", "d1", 2.0), ("q1", "d2", 1.0)])
        >>> len(run), list(run.docnos)
        (2, ['d1', 'd2'])
        """
        rows = list(records)
        topics = [str(r[0]) for r in rows]
        docs = [str(r[1]) for r in rows]
        if rows and len(rows[0]) == 4:
            ranks = np.asarray([int(r[2]) for r in rows], dtype=np.int64)
            scores = np.asarray([float(r[3]) for r in rows], dtype=np.float64)
        else:
            scores = np.asarray([float(r[2]) for r in rows], dtype=np.float64)
            ranks = np.arange(1, len(rows) + 1, dtype=np.int64)
        topic_ids, topic = np.unique(np.asarray(topics, dtype=object), return_inverse=True)
        vocabulary, doc = np.unique(np.asarray(docs, dtype=object), return_inverse=True)
        return cls(
            name=name,
            topic_ids=topic_ids.astype(object),
            topic=topic.astype(np.int32),
            doc_ids=pa.array(vocabulary.astype(object), type=pa.string()),
            doc=doc.astype(np.int32),
            score=scores,
            rank=ranks,
            source=source,
        )

    @classmethod
    def from_dict(cls, run: dict[str, dict[str, float]], *, name: str = "run") -> "Run":
        """Build a run from ``{topic: {docno: score}}`` (pytrec_eval's and ranx's shape)."""
        return cls.from_records(
            ((q, d, s) for q, docs in run.items() for d, s in docs.items()), name=name
        )
