"""A tantivy index of a patent corpus, with the term statistics that re-scoring needs.

Layout of an index directory::

    INDEX/
      meta.json              format, version, analyzers, fields, totals, build time
      engine/                the tantivy index (BM25 candidate generation and scoring)
      documents.parquet      one row per indexed document: row, ucid, patent_key,
                             family_id, lang, date (YYYYMMDD int, 0 unknown), ipc subclasses
      vocab/<lang>.json      the terms of one analyzer language, in term-id order
      stats/<field>_<lang>.{indptr,indices,data,lengths}.npy
                             per field and language: the term frequencies of every
                             document as a sparse row (CSR) and the document's length
      stats/all_<lang>.{df,ctf}.npy
                             per language: document frequency and collection frequency of
                             each term over all four fields together
      passages.parquet       description paragraphs (not headings): row, ucid, xpath,
                             lang, text -- the units of passage retrieval

Every document gets one tantivy document whose ``row`` fast field is its position in
``documents.parquet`` and in the statistics. Text fields are ``title``, ``abstract``,
``claims`` and ``description`` once per language (``claims_de``), analysed by that
language's analyzer (:mod:`pateval.search.analyzers`); the engine indexes frequencies but
no positions (no phrase queries are needed, and the index is smaller).

The statistics beside the index let :mod:`pateval.search.models` re-score the engine's
candidates exactly with models tantivy lacks (query likelihood with Dirichlet smoothing,
Lemur's TF-IDF, BM25 with other k1 and b): tantivy stores document lengths rounded to one
byte (its "fieldnorm"), the statistics keep them exact.
"""

from __future__ import annotations

import itertools
import json
import os
import time
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import tantivy

from ..core.docids import patent_key
from ..errors import ParameterError, PatevalError
from ..formats.atomic import atomic_directory
from ..patents.records import PatentDocument, ipc_prefix
from .analyzers import (
    LANGUAGES,
    TERMS_ANALYZER,
    TEXT_FIELDS,
    analyze,
    describe_analyzers,
    field_name,
    language_of,
    register_analyzers,
)

if TYPE_CHECKING:
    import duckdb

__all__ = ["INDEX_FORMAT", "INDEX_VERSION", "INDEX_LANGUAGES", "IndexRecord", "IndexSummary", "FieldStats",
           "OpenedStore", "SearchIndex", "build_index", "records_from_documents", "records_from_store", "date_number"]

INDEX_FORMAT = "pateval-search-index"
INDEX_VERSION = 1
#: Analyzer languages that get fields: English, German, French and the unstemmed rest.
INDEX_LANGUAGES = (*LANGUAGES, "OTHER")


@dataclass
class IndexRecord:
    """What the index needs of one document (built from a store row or a :class:`PatentDocument`).

    Attributes
    ----------
    ucid, patent_key : str
    family_id, lang : str or None
    date : int
        Publication date as ``YYYYMMDD`` (0 when unknown).
    ipc : list of str
        IPC subclasses (``G11C``), unique.
    texts : dict
        ``(field, analyzer language) -> text``; several texts of one field and language
        (claims, paragraphs) joined with blank lines.
    passages : list of (xpath, lang, text)
        Description paragraphs, headings excluded.
    """

    ucid: str
    patent_key: str
    family_id: str | None
    lang: str | None
    date: int
    ipc: list[str]
    texts: dict[tuple[str, str], str] = field(default_factory=dict)
    passages: list[tuple[str, str | None, str]] = field(default_factory=list)


def date_number(value: str | None) -> int:
    """``YYYY-MM-DD`` (or ``YYYYMMDD``) as the number ``YYYYMMDD``; 0 when it is not a date."""
    digits = (value or "").replace("-", "")
    return int(digits) if len(digits) == 8 and digits.isdigit() else 0


def _subclasses(symbols: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(ipc_prefix(symbol, level="subclass") for symbol in symbols or ()))


def _add_text(texts: dict, field_: str, lang: str | None, text: str | None) -> None:
    if not text:
        return
    key = (field_, language_of(lang))
    texts[key] = f"{texts[key]}\n\n{text}" if key in texts else text


def records_from_documents(documents: Iterable[PatentDocument]) -> Iterator[IndexRecord]:
    """Index records from patent records (for corpora read from XML or held in memory)."""
    for doc in documents:
        record = IndexRecord(doc.ucid, patent_key(doc.ucid), doc.family_id, doc.lang, date_number(doc.date),
                             _subclasses(doc.ipc_classes))
        for part in ("title", "abstract"):
            for lang, text in getattr(doc, part).items():
                _add_text(record.texts, part, lang, text)
        for lang, claims in doc.claims.items():
            _add_text(record.texts, "claims", lang, "\n".join(c.text for c in claims))
        for passage in doc.description:
            _add_text(record.texts, "description", passage.lang or doc.lang, passage.text)
            if not passage.is_heading:
                record.passages.append((passage.xpath, passage.lang or doc.lang, passage.text))
        yield record


@runtime_checkable
class OpenedStore(Protocol):
    """A corpus store opened by the caller (:class:`pateval.collection.store.CorpusStore`): its
    DuckDB views ``documents``, ``claims`` and ``passages``. Search takes the store opened, so
    that it sits below collection, whose datasets read their topics with search's reader."""

    @property
    def connection(self) -> duckdb.DuckDBPyConnection: ...


def records_from_store(store: OpenedStore, *, batch_rows: int = 2000) -> Iterator[IndexRecord]:
    """Index records from an opened corpus store, never re-reading XML.

    The documents, claims and passages tables are each read in ``ucid`` order in batches
    and joined as they stream, so memory stays bounded by one batch. The store must stay
    open until the records are consumed.
    """
    con = store.connection
    docs = con.cursor().sql(
        "SELECT ucid, patent_key, family_id, lang, date, ipc_classes, "
        "map_entries(title) AS title, map_entries(abstract) AS abstract FROM documents ORDER BY ucid"
    ).to_arrow_reader(batch_rows)
    claims = _grouped(con.cursor().sql(
        "SELECT ucid, lang, string_agg(text, chr(10) ORDER BY number) AS text FROM claims "
        "GROUP BY ucid, lang ORDER BY ucid, lang").to_arrow_reader(batch_rows))
    passages = _grouped(con.cursor().sql(
        "SELECT ucid, xpath, lang, text, is_heading FROM passages ORDER BY ucid, position"
    ).to_arrow_reader(batch_rows))
    pending_claims = next(claims, None)
    pending_passages = next(passages, None)
    for batch in docs:
        for row in batch.to_pylist():
            ucid = row["ucid"]
            record = IndexRecord(ucid, row["patent_key"], row["family_id"], row["lang"], date_number(row["date"]),
                                 _subclasses(row["ipc_classes"]))
            for part in ("title", "abstract"):
                for entry in row[part] or ():
                    _add_text(record.texts, part, entry["key"], entry["value"])
            while pending_claims is not None and pending_claims[0] <= ucid:
                if pending_claims[0] == ucid:
                    for claim_row in pending_claims[1]:
                        _add_text(record.texts, "claims", claim_row["lang"], claim_row["text"])
                pending_claims = next(claims, None)
            while pending_passages is not None and pending_passages[0] <= ucid:
                if pending_passages[0] == ucid:
                    for p in pending_passages[1]:
                        _add_text(record.texts, "description", p["lang"] or row["lang"], p["text"])
                        if not p["is_heading"]:
                            record.passages.append((p["xpath"], p["lang"] or row["lang"], p["text"]))
                pending_passages = next(passages, None)
            yield record


def _grouped(batches) -> Iterator[tuple[str, list[dict]]]:
    """Rows of a reader ordered by ucid, grouped: ``(ucid, [row, ...])``."""
    rows = (row for batch in batches for row in batch.to_pylist())
    return ((ucid, list(group)) for ucid, group in itertools.groupby(rows, key=itemgetter("ucid")))


# ---- building -------------------------------------------------------------------------------


@dataclass
class IndexSummary:
    """What :func:`build_index` did, and how fast."""

    path: str
    documents: int
    passages: int
    terms: dict[str, int]
    seconds: float
    bytes_on_disk: int

    @property
    def documents_per_second(self) -> float:
        return self.documents / self.seconds if self.seconds > 0 else float("inf")

    def as_dict(self) -> dict:
        return {**asdict(self), "documents_per_second": round(self.documents_per_second, 1)}


_DOCUMENT_SCHEMA = pa.schema([("row", pa.int64()), ("ucid", pa.string()), ("patent_key", pa.string()),
                              ("family_id", pa.string()), ("lang", pa.string()), ("date", pa.int64()),
                              ("ipc", pa.list_(pa.string()))])
_PASSAGE_SCHEMA = pa.schema([("row", pa.int64()), ("ucid", pa.string()), ("xpath", pa.string()),
                             ("lang", pa.string()), ("text", pa.string())])


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("row", stored=True, fast=True, indexed=True)
    builder.add_integer_field("date", fast=True, indexed=True)
    builder.add_text_field("ipc", tokenizer_name="raw", index_option="basic")
    for lang in INDEX_LANGUAGES:
        for text_field in TEXT_FIELDS:
            builder.add_text_field(field_name(text_field, lang), tokenizer_name=TERMS_ANALYZER, index_option="freq")
    return builder.build()


class _StatsBuilder:
    """Accumulates term frequencies per (field, language) as CSR rows, one row per document."""

    def __init__(self) -> None:
        self.vocab: dict[str, dict[str, int]] = {lang: {} for lang in INDEX_LANGUAGES}
        self.indices = {(f, lang): array("i") for lang in INDEX_LANGUAGES for f in TEXT_FIELDS}
        self.data = {(f, lang): array("i") for lang in INDEX_LANGUAGES for f in TEXT_FIELDS}
        self.indptr = {(f, lang): array("q", [0]) for lang in INDEX_LANGUAGES for f in TEXT_FIELDS}
        self.lengths = {(f, lang): array("i") for lang in INDEX_LANGUAGES for f in TEXT_FIELDS}

    def add(self, texts: dict[tuple[str, str], str]) -> dict[tuple[str, str], list[str]]:
        """Count the terms of one document's texts; returns the analysed terms per field."""
        analysed = {}
        for key in self.indptr:
            if text := texts.get(key):
                terms = analysed[key] = analyze(text, key[1])
                counts = Counter(terms)
                vocab = self.vocab[key[1]]
                self.indices[key].extend(vocab.setdefault(term, len(vocab)) for term in counts)
                self.data[key].extend(counts.values())
                self.lengths[key].append(len(terms))
            else:
                self.lengths[key].append(0)
            self.indptr[key].append(len(self.indices[key]))
        return analysed

    def save(self, root: Path) -> dict[str, int]:
        from scipy import sparse

        (root / "vocab").mkdir()
        stats = root / "stats"
        stats.mkdir()
        for lang in INDEX_LANGUAGES:
            terms = sorted(self.vocab[lang], key=self.vocab[lang].__getitem__)
            (root / "vocab" / f"{lang.lower()}.json").write_text(json.dumps(terms, ensure_ascii=False),
                                                                 encoding="utf-8")
            size = len(terms)
            ctf_all = np.zeros(size, dtype=np.int64)
            presence = None  # documents x terms, nonzero where any field has the term
            for text_field in TEXT_FIELDS:
                key = (text_field, lang)
                name = field_name(text_field, lang)
                indptr = np.frombuffer(self.indptr[key], dtype=np.int64)
                indices = np.frombuffer(self.indices[key], dtype=np.int32)
                data = np.frombuffer(self.data[key], dtype=np.int32)
                lengths = np.frombuffer(self.lengths[key], dtype=np.int32)
                for part, values in (("indptr", indptr), ("indices", indices), ("data", data), ("lengths", lengths)):
                    np.save(stats / f"{name}.{part}.npy", values)
                ctf_all += np.bincount(indices, weights=data, minlength=size).astype(np.int64)
                ones = sparse.csr_matrix((np.ones(len(indices), dtype=np.int8), indices, indptr),
                                         shape=(len(indptr) - 1, size))
                presence = ones if presence is None else (presence + ones)
                del self.indices[key], self.data[key]  # free as we go: these are the big arrays
            assert presence is not None  # TEXT_FIELDS is not empty
            df_all = np.bincount(presence.indices, minlength=size).astype(np.int64)
            np.save(stats / f"all_{lang.lower()}.df.npy", df_all)
            np.save(stats / f"all_{lang.lower()}.ctf.npy", ctf_all)
        return {lang: len(self.vocab[lang]) for lang in INDEX_LANGUAGES}


def build_index(source, out: str | os.PathLike[str], *, passages: bool = True, until: str | None = None,
                heap_mb: int = 512, threads: int | None = None, progress: bool = True) -> IndexSummary:
    """Index a corpus with tantivy and write the re-scoring statistics beside it.

    Parameters
    ----------
    source : OpenedStore, path or iterable
        An opened corpus store (:class:`pateval.collection.store.CorpusStore`, open until
        this returns), patent XML files or directories, an iterable of
        :class:`~pateval.patents.records.PatentDocument` or of :class:`IndexRecord`.
    out : path-like
        The index directory to create (must not exist; it appears only when complete).
    passages : bool, default True
        Also keep the description paragraphs for passage retrieval.
    until : str, optional
        Index only documents published on or before this date (``YYYY-MM-DD``): the corpus
        part of a store that also holds the topics' publications (a collection's
        ``corpus_end``). Documents without a date are kept.
    heap_mb : int, default 512
        tantivy's indexing memory budget, split between its threads.
    threads : int, optional
        tantivy indexing threads (default: its choice, at most 8).
    progress : bool, default True
        A progress bar on a terminal.

    Returns
    -------
    IndexSummary
    """
    from tqdm import tqdm

    if heap_mb < 16:
        raise ParameterError(f"heap_mb must be at least 16 (tantivy needs 15 MB per thread); got {heap_mb}")
    started = time.perf_counter()
    records = _as_records(source)
    if until is not None:
        if not (last := date_number(until)):
            raise ParameterError(f"until must be a date YYYY-MM-DD; got {until!r}")
        records = (r for r in records if not r.date or r.date <= last)
    with atomic_directory(out) as tmp:
        schema = _schema()
        (tmp / "engine").mkdir()
        engine = tantivy.Index(schema, path=str(tmp / "engine"))
        register_analyzers(engine)
        n_threads = threads if threads is not None else min(os.cpu_count() or 1, 8)
        heap = max(heap_mb * 1_000_000, 15_000_000 * n_threads)
        writer = engine.writer(heap, n_threads)
        stats = _StatsBuilder()
        columns: dict[str, list] = {k: [] for k in _DOCUMENT_SCHEMA.names}
        passage_writer = None
        passage_buffer: dict[str, list] = {k: [] for k in _PASSAGE_SCHEMA.names}
        passage_count = 0
        bar = tqdm(desc="indexing", unit=" docs", disable=not progress or None, mininterval=0.5)
        try:
            for row, record in enumerate(records):
                doc = tantivy.Document()
                doc.add_unsigned("row", row)
                doc.add_integer("date", record.date)
                for subclass in record.ipc:
                    doc.add_text("ipc", subclass)
                # the engine gets the terms already analysed (once, here) and only splits them
                for (text_field, lang), terms in stats.add(record.texts).items():
                    if terms:
                        doc.add_text(field_name(text_field, lang), " ".join(terms))
                writer.add_document(doc)
                values = (row, record.ucid, record.patent_key, record.family_id, record.lang, record.date, record.ipc)
                for column, value in zip(columns.values(), values, strict=True):  # in _DOCUMENT_SCHEMA's order
                    column.append(value)
                if passages and record.passages:
                    for passage in record.passages:  # (xpath, lang, text)
                        for column, value in zip(passage_buffer.values(), (row, record.ucid, *passage), strict=True):
                            column.append(value)
                    passage_count += len(record.passages)
                    if len(passage_buffer["row"]) >= 20_000:
                        passage_writer = _flush_passages(passage_buffer, passage_writer, tmp)
                bar.update()
            if passage_buffer["row"]:
                passage_writer = _flush_passages(passage_buffer, passage_writer, tmp)
            writer.commit()
            writer.wait_merging_threads()
        finally:
            bar.close()
            if passage_writer is not None:
                passage_writer.close()
        n_docs = len(columns["row"])
        if n_docs == 0:
            raise PatevalError("the corpus has no documents to index")
        pq.write_table(pa.Table.from_pydict(columns, schema=_DOCUMENT_SCHEMA), tmp / "documents.parquet",
                       compression="zstd")
        term_counts = stats.save(tmp)
        seconds = time.perf_counter() - started
        meta = {
            "format": INDEX_FORMAT, "version": INDEX_VERSION,
            "engine": str(tantivy.__version__),  # type: ignore[attr-defined]  # not in its stubs
            "documents": n_docs, "passages": passage_count if passages else None, "terms": term_counts,
            "fields": [field_name(f, lang) for lang in INDEX_LANGUAGES for f in TEXT_FIELDS],
            "analyzers": describe_analyzers(), "seconds": round(seconds, 3), "until": until,
        }
        (tmp / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
        size = sum(p.stat().st_size for p in tmp.rglob("*") if p.is_file())
    return IndexSummary(str(out), n_docs, passage_count, term_counts, seconds, size)


def _flush_passages(buffer: dict[str, list], writer, root: Path):
    """Write the buffered paragraphs as one row group and empty the buffer."""
    if writer is None:
        writer = pq.ParquetWriter(root / "passages.parquet", _PASSAGE_SCHEMA, compression="zstd")
    writer.write_table(pa.Table.from_pydict(buffer, schema=_PASSAGE_SCHEMA))
    for values in buffer.values():
        values.clear()
    return writer


def _as_records(source) -> Iterator[IndexRecord]:
    """Index records from any source :func:`build_index` accepts (an iterable of records is
    recognised by its first item, which is put back)."""
    if isinstance(source, OpenedStore):
        return records_from_store(source)
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if (path / "manifest.json").is_file():
            raise ParameterError(f"{path} is a corpus store: open it (pateval.api.open_store) and index the opened "
                                 "store")
        if not path.exists():
            raise PatevalError(f"{path}: no such corpus store or patent file/directory")
        from ..patents.reader import iter_patents

        return records_from_documents(iter_patents(path))
    items = iter(source)
    first = next(items, None)
    if first is None:
        return iter(())
    rest = itertools.chain([first], items)
    return rest if isinstance(first, IndexRecord) else records_from_documents(rest)


# ---- reading --------------------------------------------------------------------------------


@dataclass
class FieldStats:
    """Term frequencies of one field in one language, for every document (CSR rows)."""

    name: str
    matrix: object  # scipy.sparse.csr_matrix, rows = documents, columns = the language's term ids
    lengths: np.ndarray
    df: np.ndarray
    total_terms: int

    @property
    def average_length(self) -> float:
        """Mean length over *all* documents, as tantivy computes it (empty fields count as 0)."""
        return self.total_terms / len(self.lengths) if len(self.lengths) else 0.0


class SearchIndex:
    """An index directory opened for searching.

    Parameters
    ----------
    path : path-like
        A directory written by :func:`build_index`.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        meta_path = self.path / "meta.json"
        if not meta_path.is_file():
            raise PatevalError(f"{self.path}: not a pateval search index (no meta.json); build one with "
                               "`pateval index`")
        self.meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if self.meta.get("format") != INDEX_FORMAT or self.meta.get("version") != INDEX_VERSION:
            raise PatevalError(f"{self.path}: index format {self.meta.get('format')} v{self.meta.get('version')} "
                               f"is not {INDEX_FORMAT} v{INDEX_VERSION}; rebuild it with `pateval index`")
        self.engine = tantivy.Index.open(str(self.path / "engine"))
        register_analyzers(self.engine)
        self.schema = self.engine.schema
        self.searcher = self.engine.searcher()
        self.documents = pq.read_table(self.path / "documents.parquet").to_pandas()
        self.ucids = self.documents["ucid"].to_numpy()
        self.patent_keys = self.documents["patent_key"].to_numpy()
        self.family_ids = self.documents["family_id"].to_numpy()
        self.dates = self.documents["date"].to_numpy()
        self._row_of_ucid: dict[str, int] | None = None
        self._vocab: dict[str, dict[str, int]] = {}
        self._fields: dict[tuple[str, str], FieldStats] = {}
        self._all: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._passages = None

    @property
    def num_docs(self) -> int:
        return len(self.ucids)

    def row_of(self, ucid: str) -> int | None:
        """The row of a document, or None when it is not indexed."""
        if self._row_of_ucid is None:
            self._row_of_ucid = {u: i for i, u in enumerate(self.ucids)}
        return self._row_of_ucid.get(ucid)

    def vocab(self, lang: str) -> dict[str, int]:
        """term -> term id for one analyzer language."""
        code = language_of(lang)
        if code not in self._vocab:
            terms = json.loads((self.path / "vocab" / f"{code.lower()}.json").read_text(encoding="utf-8"))
            self._vocab[code] = {term: i for i, term in enumerate(terms)}
        return self._vocab[code]

    def field_stats(self, text_field: str, lang: str) -> FieldStats:
        """The term statistics of one field in one language (loaded once)."""
        from scipy import sparse

        key = (text_field, language_of(lang))
        if key not in self._fields:
            name = field_name(*key)
            base = self.path / "stats"
            indptr, indices, data, lengths = (np.load(base / f"{name}.{part}.npy")
                                              for part in ("indptr", "indices", "data", "lengths"))
            size = len(self.vocab(key[1]))
            matrix = sparse.csr_matrix((data, indices, indptr), shape=(len(lengths), size))
            df = np.bincount(indices, minlength=size)
            self._fields[key] = FieldStats(name, matrix, lengths, df, int(lengths.sum()))
        return self._fields[key]

    def language_stats(self, lang: str) -> tuple[np.ndarray, np.ndarray]:
        """``(df, ctf)`` of every term of a language over all fields together."""
        code = language_of(lang)
        if code not in self._all:
            base = self.path / "stats"
            self._all[code] = (np.load(base / f"all_{code.lower()}.df.npy"),
                               np.load(base / f"all_{code.lower()}.ctf.npy"))
        return self._all[code]

    def passages(self):
        """The description paragraphs (DataFrame: row, ucid, xpath, lang, text), loaded once."""
        if self._passages is None:
            path = self.path / "passages.parquet"
            if not path.is_file():
                raise PatevalError(f"{self.path}: the index keeps no passages (built with --no-passages / "
                                   "passages=False)")
            self._passages = pq.read_table(path).to_pandas()
        return self._passages

    def rows_of_hits(self, hits) -> np.ndarray:
        """The document rows of tantivy hits (``(score, DocAddress)`` pairs)."""
        if not hits:
            return np.zeros(0, dtype=np.int64)
        return np.asarray(self.searcher.fast_field_values("row", [address for _, address in hits]), dtype=np.int64)

    def __repr__(self) -> str:
        return f"SearchIndex({str(self.path)!r}, documents={self.num_docs})"
