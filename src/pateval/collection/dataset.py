"""A built collection as an ir_datasets-style dataset.

:func:`open_dataset` gives an object with ir_datasets' methods -- ``docs_iter()``,
``docs_count()``, ``queries_iter()``, ``qrels_iter()``, ``qrels_defs()`` -- over a collection
built by ``pateval collection build`` and the corpus store it was built from, so code
written for ir_datasets runs on a pateval collection. Records are namedtuples with
ir_datasets' field names (``doc_id``, ``query_id``, ``relevance``, ``iteration``,
``subtopic_id``), which :class:`~pateval.core.qrels.Qrels` and PyTerrier read by name.

>>> # ds = open_dataset("collection", store="store")
>>> # for qrel in ds.qrels_iter(): ...              # TrecQrel(query_id, doc_id, relevance, iteration)
>>> # for qrel in ds.qrels_iter(level="claims"): ...  # TrecSubQrel(..., subtopic_id)
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from ..errors import ParameterError, PatevalError

__all__ = ["open_dataset", "PatentCollection", "PatentDocstore", "PatentDoc", "PatentQuery", "TrecQrel", "TrecSubQrel",
           "PassageQrel", "QREL_LEVELS"]


class PatentDoc(NamedTuple):
    """One corpus document: texts in the document's language (English where it has it)."""

    doc_id: str
    title: str
    abstract: str
    claims: str
    description: str
    lang: str
    date: str

    def default_text(self) -> str:
        """Title, abstract, claims and description, as ir_datasets' ``default_text()``."""
        return "\n".join(t for t in (self.title, self.abstract, self.claims, self.description) if t)


class PatentQuery(NamedTuple):
    """A prior-art topic: its id, its title as text, and the topic publication."""

    query_id: str
    text: str
    ucid: str

    def default_text(self) -> str:
        """The title, as ir_datasets' ``default_text()``."""
        return self.text


class TrecQrel(NamedTuple):
    """ir_datasets' document-level judgement (same fields), when ir_datasets is not installed."""

    query_id: str
    doc_id: str
    relevance: int
    iteration: str


class TrecSubQrel(NamedTuple):
    """ir_datasets' subtopic judgement (same fields), when ir_datasets is not installed: here
    the subtopic is a claim."""

    query_id: str
    doc_id: str
    relevance: int
    subtopic_id: str


class PassageQrel(NamedTuple):
    """A CLEF-IP passage judgement: the passage is an XPath into the document."""

    query_id: str
    doc_id: str
    passage: str
    relevance: int


#: qrels level -> file in the collection
QREL_LEVELS = {"document": "qrels_PAC.txt", "claims": "qrels_PAC_claims.txt", "passage": "qrels_PSG.txt"}


def _qrel_class(level: str) -> type:
    """The record type of a qrels level: ir_datasets' own when it is installed."""
    if level == "passage":
        return PassageQrel
    try:
        from ir_datasets.formats import TrecQrel as IrdsTrecQrel
        from ir_datasets.formats import TrecSubQrel as IrdsTrecSubQrel
    except ImportError:
        return TrecQrel if level == "document" else TrecSubQrel
    return IrdsTrecQrel if level == "document" else IrdsTrecSubQrel


def _text(mapping, lang: str | None) -> str:
    mapping = dict(mapping or {})
    for key in ("EN", lang, *mapping):
        if key in mapping and mapping[key]:
            return mapping[key]
    return ""


class PatentCollection:
    """A built collection with ir_datasets' methods (see :func:`open_dataset`)."""

    def __init__(self, path: Path, store: Path | None) -> None:
        self.path = path
        self.store = store

    def __repr__(self) -> str:
        return f"PatentCollection({str(self.path)!r}, store={str(self.store) if self.store else None!r})"

    # ---- documents ------------------------------------------------------------------------

    def has_docs(self) -> bool:
        return self.store is not None

    def _open_store(self):
        if self.store is None:
            raise ParameterError(f"{self.path}: documents need the corpus store the collection was built from: "
                                 "open_dataset(COLLECTION, store=STORE)")
        from .store import CorpusStore

        return CorpusStore(self.store)

    def docs_count(self) -> int:
        """The number of documents in the corpus store."""
        with self._open_store() as store:
            return int(store.sql("SELECT count(DISTINCT ucid) AS n FROM documents")["n"].iloc[0])

    def docs_cls(self) -> type:
        return PatentDoc

    def docs_store(self) -> PatentDocstore:
        """Documents looked up by id: ``get(doc_id)``, ``get_many(doc_ids)`` (as ir_datasets' docstore)."""
        return PatentDocstore(self)

    def docs_iter(self, *, batch_rows: int = 2000) -> Iterator[PatentDoc]:
        """Every document of the store, in ucid order, as :class:`PatentDoc`.

        Claims and description paragraphs (headings included, as in the document) are joined
        with new lines, in the document's language or English where it has claims in it.
        """
        return self._docs(None, batch_rows=batch_rows)

    def _docs(self, ucids: list[str] | None, *, batch_rows: int = 2000) -> Iterator[PatentDoc]:
        """The documents (``ucids`` only, when given) in ucid order."""
        only = "" if ucids is None else "WHERE list_contains($ucids, ucid)"
        query = f"""
            WITH docs AS (SELECT ucid, any_value(lang) AS lang, any_value(date) AS date, any_value(title) AS title,
                                 any_value(abstract) AS abstract FROM documents {only} GROUP BY ucid),
            claim_text AS (SELECT ucid, lang, string_agg(text, chr(10) ORDER BY number) AS text FROM claims
                           {only} GROUP BY ucid, lang),
            description AS (SELECT ucid, string_agg(text, chr(10) ORDER BY position) AS text FROM passages
                            {only} GROUP BY ucid)
            SELECT d.ucid, d.lang, d.date, d.title, d.abstract, description.text AS description,
                   list(claim_text.lang) AS claim_langs, list(claim_text.text) AS claim_texts
            FROM docs d LEFT JOIN claim_text USING (ucid) LEFT JOIN description USING (ucid)
            GROUP BY ALL ORDER BY d.ucid
        """
        with self._open_store() as store:
            relation = store.connection.sql(query, params=None if ucids is None else {"ucids": ucids})
            for batch in relation.to_arrow_reader(batch_rows):
                for row in batch.to_pylist():
                    lang = row["lang"] or ""
                    claims = {k: v for k, v in zip(row["claim_langs"] or [], row["claim_texts"] or [],
                                                   strict=False) if k is not None}
                    yield PatentDoc(row["ucid"], _text(row["title"], lang), _text(row["abstract"], lang),
                                    _text(claims, lang), row["description"] or "", lang, row["date"] or "")

    # ---- topics and judgements ----------------------------------------------------------------

    def queries_iter(self) -> Iterator[PatentQuery]:
        """The prior-art (PAC) topics: id, title text, topic publication."""
        # search's topic reader: collection sits above search, which takes stores opened
        from ..search.run import load_topics

        for topic in load_topics(self.path):
            yield PatentQuery(topic.qid, _text(topic.document.title, topic.document.lang), topic.document.ucid)

    def queries_cls(self) -> type:
        return PatentQuery

    def queries_count(self) -> int:
        return sum(1 for _ in self.queries_iter())

    def qrels_defs(self) -> dict[int, str]:
        """What the document-level grades mean (``qrels_PAC.txt``)."""
        return {2: "cited as X or Y (highly relevant)", 1: "cited otherwise"}

    def _qrels_path(self, level: str) -> Path:
        if level not in QREL_LEVELS:
            raise ParameterError(f"level must be one of {', '.join(QREL_LEVELS)}; got {level!r}")
        path = self.path / QREL_LEVELS[level]
        if not path.is_file():
            raise PatevalError(f"{self.path}: no {level}-level qrels ({path.name} is missing)")
        return path

    def qrels(self, *, level: str = "document"):
        """The judgements at one level as pateval :class:`~pateval.core.qrels.Qrels`."""
        from ..formats.passages import read_passage_qrels
        from ..formats.qrels import read_qrels

        path = self._qrels_path(level)
        if level == "passage":
            return read_passage_qrels(path)
        return read_qrels(path, format="trec" if level == "document" else "subtopic")

    def qrels_cls(self, *, level: str = "document") -> type:
        """The record type :meth:`qrels_iter` yields at ``level``."""
        self._qrels_path(level)
        return _qrel_class(level)

    def qrels_iter(self, *, level: str = "document") -> Iterator:
        """Judgements as ir_datasets records.

        Parameters
        ----------
        level : {"document", "claims", "passage"}
            ``document``: ``TrecQrel`` (``qrels_PAC.txt``); ``claims``: ``TrecSubQrel`` with
            the claim as ``subtopic_id`` (``qrels_PAC_claims.txt``), both ir_datasets' own
            when it is installed; ``passage``: :class:`PassageQrel` (``qrels_PSG.txt``, the
            PSG topics).
        """
        qrels = self.qrels(level=level)
        record = _qrel_class(level)
        topics, docnos, rels = qrels.topic.tolist(), qrels.docno.tolist(), qrels.rel.tolist()
        if level == "document":
            fields = (topics, docnos, rels, ["0"] * len(topics))
        elif level == "claims":
            fields = (topics, docnos, rels, qrels.subtopic.tolist())
        else:
            fields = (topics, docnos, qrels.passage.tolist(), rels)
        for values in zip(*fields, strict=True):
            yield record(*values)

    def qrels_frame(self, *, level: str = "document", style: str = "pyterrier"):
        """The judgements as a frame in a tool's column names (see :meth:`Qrels.to_frame`)."""
        return self.qrels(level=level).to_frame(style=style)


class PatentDocstore:
    """A collection's documents looked up by id, with ir_datasets' docstore methods."""

    def __init__(self, collection: PatentCollection) -> None:
        self._collection = collection

    def get_many_iter(self, doc_ids: Iterable[str]) -> Iterator[PatentDoc]:
        """The documents of ``doc_ids`` that the store holds, in id order."""
        return self._collection._docs(list(dict.fromkeys(doc_ids)))

    def get_many(self, doc_ids: Iterable[str], field: str | None = None) -> dict:
        """``{doc_id: document}`` (or ``{doc_id: document.FIELD}``) for the ids the store holds."""
        at = None if field is None else PatentDoc._fields.index(field)
        return {doc.doc_id: doc if at is None else doc[at] for doc in self.get_many_iter(doc_ids)}

    def get(self, doc_id: str, field: str | None = None):
        """One document (or one of its fields); KeyError when the store does not hold it."""
        found = self.get_many([doc_id], field)
        if doc_id not in found:
            raise KeyError(f"doc_id={doc_id} not found")
        return found[doc_id]


def open_dataset(collection: str | os.PathLike[str], *,
                 store: str | os.PathLike[str] | None = None) -> PatentCollection:
    """Open a built collection as an ir_datasets-style dataset.

    Parameters
    ----------
    collection : path-like
        A directory written by ``pateval collection build``.
    store : path-like, optional
        The corpus store it was built from (``pateval corpus ingest``), for ``docs_iter()``.
    """
    path = Path(collection)
    if not (path / "build.json").is_file():
        raise PatevalError(f"{path}: not a collection built by `pateval collection build` (no build.json)")
    if store is not None and not Path(store).is_dir():
        raise PatevalError(f"{store}: no such corpus store")
    return PatentCollection(path, Path(store) if store is not None else None)
