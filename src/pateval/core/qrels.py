"""The in-memory form of relevance judgements (qrels), as columnar arrays.

One class serves every qrels format: document-level qrels leave ``subtopic`` and
``passage`` empty; subtopic (ndeval), TREC Dynamic Domain and claim-level CLEF-IP qrels
fill them. Measures that work per document use :meth:`Qrels.document_level`, which keeps
each document's highest grade over its subtopics and passages.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa

__all__ = ["Qrels"]


@dataclass(frozen=True, eq=False)
class Qrels:
    """Relevance judgements.

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

    topic: np.ndarray
    docno: np.ndarray
    rel: np.ndarray
    subtopic: np.ndarray | None = None
    passage: np.ndarray | None = None
    format: str = "memory"
    source: str = "<memory>"
    extra: dict = field(default_factory=dict)
    notes: tuple[str, ...] = field(default=())
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __len__(self) -> int:
        return int(self.topic.shape[0])

    def arrow(self, column: str) -> pa.Array:
        """A string column (``topic``, ``docno``, ``subtopic``, ``passage``) as an Arrow array.

        Readers that parse with Arrow leave the arrays here, so matching against runs never
        converts millions of Python strings back.
        """
        if column not in self._cache:
            values = getattr(self, column)
            self._cache[column] = pa.array(np.asarray(values, dtype=object), type=pa.string())
        return self._cache[column]

    @property
    def has_subtopics(self) -> bool:
        return self.subtopic is not None

    @property
    def topic_ids(self) -> np.ndarray:
        """The distinct topics, sorted as strings (trec_eval's order)."""
        if "topic_ids" not in self._cache:
            self._cache["topic_ids"] = np.asarray(sorted(pd.unique(self.topic)), dtype=object)
        return self._cache["topic_ids"]

    def document_level(self) -> "Qrels":
        """One row per (topic, document) with the document's highest grade.

        Subtopic- and passage-level qrels judge a document several times; document-level
        measures use its best grade (the issue's rule, and ndeval's for its binary view).
        """
        if self.subtopic is None and self.passage is None:
            return self
        if "document_level" in self._cache:
            return self._cache["document_level"]
        frame = pd.DataFrame({"topic": self.topic, "docno": self.docno, "rel": self.rel})
        best = frame.groupby(["topic", "docno"], sort=True, as_index=False)["rel"].max()
        self._cache["document_level"] = Qrels(
            topic=best["topic"].to_numpy(dtype=object),
            docno=best["docno"].to_numpy(dtype=object),
            rel=best["rel"].to_numpy(dtype=np.int64),
            format=self.format,
            source=self.source,
            notes=self.notes,
        )
        return self._cache["document_level"]

    def to_frame(self) -> pd.DataFrame:
        """The judgements as a DataFrame (columns topic, [subtopic,] docno, [passage,] rel)."""
        columns: dict[str, np.ndarray] = {"topic": self.topic}
        if self.subtopic is not None:
            columns["subtopic"] = self.subtopic
        columns["docno"] = self.docno
        if self.passage is not None:
            columns["passage"] = self.passage
        columns["rel"] = self.rel
        columns.update(self.extra)
        return pd.DataFrame(columns)

    @classmethod
    def from_records(cls, records, *, source: str = "<memory>") -> "Qrels":
        """Build qrels from ``(topic, docno, rel)`` or ``(topic, subtopic, docno, rel)`` tuples.

        Examples
        --------
        >>> q = Qrels.from_records([("q1", "d1", 1), ("q1", "d2", 0)])
        >>> len(q), q.has_subtopics
        (2, False)
        """
        rows = list(records)
        if rows and len(rows[0]) == 4:
            return cls(
                topic=np.asarray([str(r[0]) for r in rows], dtype=object),
                subtopic=np.asarray([str(r[1]) for r in rows], dtype=object),
                docno=np.asarray([str(r[2]) for r in rows], dtype=object),
                rel=np.asarray([int(r[3]) for r in rows], dtype=np.int64),
                format="memory",
                source=source,
            )
        return cls(
            topic=np.asarray([str(r[0]) for r in rows], dtype=object),
            docno=np.asarray([str(r[1]) for r in rows], dtype=object),
            rel=np.asarray([int(r[2]) for r in rows], dtype=np.int64),
            format="memory",
            source=source,
        )

    @classmethod
    def from_dict(cls, qrels: dict[str, dict[str, int]]) -> "Qrels":
        """Build qrels from ``{topic: {docno: rel}}`` (pytrec_eval's and ranx's shape)."""
        return cls.from_records((q, d, r) for q, docs in qrels.items() for d, r in docs.items())
