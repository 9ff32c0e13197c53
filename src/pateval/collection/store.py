"""The corpus store: parsed patent documents in Parquet, queried with DuckDB.

Parsing XML is the slow part of working with a patent corpus, so it happens once
(:mod:`pateval.collection.ingest`); statistics, topic selection and baseline retrieval
then read the store. Layout of a store directory::

    STORE/
      manifest.json                 store format, version, defaults, totals of the last ingest
      manifest/batch-000012.json    one per committed batch: its source files (path, size,
                                    mtime_ns, sha256, documents), the bad documents met, and
                                    each part's size, mtime_ns and sha256
      manifest/batch-000012.ucids   the batch's document ids, one a line (for `verify --drop`)
      .ingest.lock                  held by the ingest (or repair) writing to the store
      documents/part-000012.parquet one row per document
      passages/part-000012.parquet  description paragraphs and headings
      claims/part-000012.parquet    claims, every language
      citations/part-000012.parquet cited documents, one row per (citation, source)

Parts are written under a temporary name and renamed; a batch counts only once its
manifest file exists (written last, atomically), so an interrupted ingest leaves either a
whole batch or none. Parts without a manifest file are leftovers of an interruption:
they are never read and the next ingest removes them.

Damage: a part whose size differs from its manifest's is damaged (truncated, say); so is
one whose content no longer has the recorded SHA-256. Opening a store checks every part's
size, and the checksum of every part whose modification time changed since it was written
(so an unchanged store costs one ``stat`` per part); ``pateval corpus verify`` checks every
checksum. A damaged store is refused with one line naming the part and the way to repair
it (:func:`check_parts`, :class:`DamagedPart`).

The tables are plain Parquet: DuckDB, Polars, pandas or Spark can read them directly.
:class:`CorpusStore` is the convenience layer over DuckDB, which runs queries larger
than memory by spilling under its ``memory_limit``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import operator
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ..core.docids import patent_key
from ..errors import InputFormatError, ParameterError, malformed
from ..formats.atomic import atomic_output
from ..formats.doclengths import DocLengths
from ..patents.records import PatentDocument
from ..tuning import HASH_BLOCK_BYTES

__all__ = [
    "STORE_FORMAT", "STORE_VERSION", "TABLES", "SCHEMAS", "CorpusStore", "PartWriter", "document_tables",
    "committed_batches", "read_store_manifest", "read_json_object", "write_store_manifest", "write_batch_manifest",
    "remove_uncommitted_parts", "DamagedPart", "check_parts", "part_path", "file_sha256", "raise_if_damaged",
    "naming_damage",
]

STORE_FORMAT = "pateval-corpus-store"
STORE_VERSION = 1

_STR = pa.string()
_TEXT_MAP = pa.map_(_STR, _STR)
_INT_LIST = pa.list_(pa.int32())
_STR_LIST = pa.list_(_STR)

#: Arrow schema of each table. Every table carries the ``ucid`` of the document the row
#: belongs to; ``title`` and ``abstract`` map a language code to text (in DuckDB:
#: ``title['EN']``).
SCHEMAS: dict[str, pa.Schema] = {
    "documents": pa.schema([
        ("ucid", _STR), ("patent_key", _STR), ("country", _STR), ("doc_number", _STR), ("kind", _STR),
        ("family_id", _STR), ("lang", _STR), ("date", _STR), ("application_date", _STR),
        ("priority_dates", _STR_LIST), ("title", _TEXT_MAP), ("abstract", _TEXT_MAP), ("ipc_classes", _STR_LIST),
        ("applicants", _STR_LIST), ("inventors", _STR_LIST), ("claim_langs", _STR_LIST),
        ("n_passages", pa.int32()), ("n_claims", pa.int32()), ("n_citations", pa.int32()),
        ("word_count", pa.int64()), ("source_path", _STR),
    ]),
    "passages": pa.schema([
        ("ucid", _STR), ("position", pa.int32()), ("xpath", _STR), ("lang", _STR), ("text", _STR),
        ("is_heading", pa.bool_()),
    ]),
    "claims": pa.schema([
        ("ucid", _STR), ("lang", _STR), ("number", pa.int32()), ("xpath", _STR), ("text", _STR),
        ("depends_on", _INT_LIST), ("is_independent", pa.bool_()),
    ]),
    "citations": pa.schema([
        ("ucid", _STR), ("cited_ucid", _STR), ("cited_patent_key", _STR), ("cited_country", _STR),
        ("cited_number", _STR), ("cited_kind", _STR), ("source", _STR), ("categories", _STR),
        ("relevant_claims", _INT_LIST), ("passages", _STR_LIST),
    ]),
}

TABLES = tuple(SCHEMAS)

_BATCH_MANIFEST = re.compile(r"^batch-(\d{6,})\.json$")
_PART_FILE = re.compile(r"^part-(\d{6,})\.parquet$")
_BATCH_UCIDS = re.compile(r"^batch-(\d{6,})\.ucids$")

#: The lock file an ingest (or a repair) holds while it writes to a store.
LOCK_NAME = ".ingest.lock"


# Column getters: extending the column lists through map() keeps the loops in C.
_TEXT = operator.attrgetter("text")
_DEPENDS_ON = operator.attrgetter("depends_on")
_PASSAGE_COLUMNS = {name: operator.attrgetter(name) for name in ("xpath", "lang", "text", "is_heading")}
_CLAIM_COLUMNS = {name: operator.attrgetter(name) for name in ("number", "xpath", "text")}
_CITATION_COLUMNS = {name: operator.attrgetter(name) for name in ("cited_ucid", "cited_country", "cited_number",
                                                                   "cited_kind", "source", "categories",
                                                                   "relevant_claims", "passages")}
# Document fields stored as they are, and as lists.
_DOCUMENT_FIELDS = ("ucid", "country", "doc_number", "kind", "family_id", "lang", "date", "application_date",
                    "source_path")
_DOCUMENT_LISTS = ("priority_dates", "ipc_classes", "applicants", "inventors")


def _word_count(document: PatentDocument) -> int:
    """Words in the abstracts, description and claims, all languages together: the
    white-space separated tokens of every text (paragraphs within an abstract are joined by
    new lines, so counting spaces alone would lose a word at each)."""
    texts = list(document.abstract.values())
    texts += map(_TEXT, document.description)
    for claims in document.claims.values():
        texts += map(_TEXT, claims)
    return len(" ".join(texts).split())


def _safe_key(ucid: str) -> str:
    """The patent-level key, or the ucid itself when it is not a well-formed id (a cited
    document with an odd number must not stop the ingest)."""
    try:
        return patent_key(ucid)
    except ValueError:
        return ucid.upper()


def _append_document(columns: dict[str, dict[str, list]], document: PatentDocument) -> None:
    """Append one document's rows to per-table column lists, column by column (building a
    dict per row and converting rows to Arrow cost more than parsing the XML)."""
    ucid = document.ucid
    claims_here = document.claims_in()
    table = columns["documents"]
    for name in _DOCUMENT_FIELDS:
        table[name].append(getattr(document, name))
    for name in _DOCUMENT_LISTS:
        table[name].append(list(getattr(document, name)))
    table["claim_langs"].append(list(document.claims))
    table["patent_key"].append(patent_key(ucid))
    table["title"].append(list(document.title.items()))
    table["abstract"].append(list(document.abstract.items()))
    table["n_passages"].append(len(document.description))
    table["n_claims"].append(len(claims_here))
    table["n_citations"].append(len(document.citations))
    table["word_count"].append(_word_count(document))

    if passages := document.description:
        table = columns["passages"]
        table["ucid"].extend([ucid] * len(passages))
        table["position"].extend(range(len(passages)))
        for name, get in _PASSAGE_COLUMNS.items():
            table[name].extend(map(get, passages))

    table = columns["claims"]
    for lang, claims in document.claims.items():
        if not claims:
            continue
        table["ucid"].extend([ucid] * len(claims))
        table["lang"].extend([lang] * len(claims))
        for name, get in _CLAIM_COLUMNS.items():
            table[name].extend(map(get, claims))
        depends_on = list(map(_DEPENDS_ON, claims))  # tuples: Arrow takes them as lists
        table["depends_on"].extend(depends_on)
        table["is_independent"].extend(map(operator.not_, depends_on))

    if citations := document.citations:
        table = columns["citations"]
        table["ucid"].extend([ucid] * len(citations))
        table["cited_patent_key"].extend([_safe_key(c.cited_ucid) for c in citations])
        for name, get in _CITATION_COLUMNS.items():
            table[name].extend(map(get, citations))


def _empty_columns() -> dict[str, dict[str, list]]:
    return {table: {name: [] for name in SCHEMAS[table].names} for table in TABLES}


def _columns_to_table(table: str, columns: dict[str, list]) -> pa.Table:
    schema = SCHEMAS[table]
    return pa.Table.from_arrays([pa.array(columns[f.name], type=f.type) for f in schema], schema=schema)


def document_tables(documents: Iterable[PatentDocument]) -> dict[str, pa.Table]:
    """The store's tables of ``documents``, held in memory (what a batch's parts would hold)."""
    columns = _empty_columns()
    for document in documents:
        _append_document(columns, document)
    return {table: _columns_to_table(table, columns[table]) for table in TABLES}


class PartWriter:
    """Writes one batch's part files, a row group every ``rows_per_group`` documents.

    Rows are buffered, column by column, for at most ``rows_per_group`` documents, so
    memory stays flat however many documents the batch holds. Files are written as
    ``.tmp`` and renamed by :meth:`commit`; :meth:`abort` removes them.
    """

    def __init__(self, store: str | os.PathLike[str], batch: int, *, rows_per_group: int = 1000) -> None:
        if rows_per_group < 1:
            raise ParameterError(f"rows_per_group must be >= 1, not {rows_per_group}")
        self.store = Path(store)
        self.batch = batch
        self.rows_per_group = rows_per_group
        self._columns = _empty_columns()
        self._writers: dict[str, pq.ParquetWriter] = {}
        self.documents = 0
        self.ucids: list[str] = []

    def _temporary(self, table: str) -> Path:
        return self.store / table / f".part-{self.batch:06d}.parquet.tmp"

    def add(self, document: PatentDocument) -> None:
        self.ucids.append(document.ucid)
        _append_document(self._columns, document)
        self.documents += 1
        if len(self._columns["documents"]["ucid"]) >= self.rows_per_group:  # one row a document
            self._flush()

    def _flush(self) -> None:
        for table in TABLES:
            if table not in self._writers:  # every table gets its file, rows or not
                path = self._temporary(table)
                path.parent.mkdir(parents=True, exist_ok=True)
                self._writers[table] = pq.ParquetWriter(path, SCHEMAS[table], compression="zstd")
            if self._columns[table]["ucid"]:
                self._writers[table].write_table(_columns_to_table(table, self._columns[table]))
        self._columns = _empty_columns()

    def commit(self) -> dict[str, dict]:
        """Finish the files and move them to their final names; returns each table's part
        as the batch manifest records it (file relative to the store, size, mtime_ns,
        sha256)."""
        self._flush()
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()
        parts = {}
        for table in TABLES:
            temporary, final = self._temporary(table), part_path(self.store, table, self.batch)
            digest = file_sha256(temporary)
            os.replace(temporary, final)
            stat = os.stat(final)
            parts[table] = {"file": f"{table}/{final.name}", "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
                            "sha256": digest}
        return parts

    def abort(self) -> None:
        """Drop everything written so far."""
        for writer in self._writers.values():
            # closing a half-written file may fail; it is deleted next
            with contextlib.suppress(Exception):
                writer.close()
        for table in TABLES:
            for path in (self._temporary(table), part_path(self.store, table, self.batch)):
                path.unlink(missing_ok=True)
        self._writers.clear()


# ---- manifests ------------------------------------------------------------------------------


def read_json_object(path: Path, what: str) -> dict:
    """The JSON object in ``path``; anything else is an InputFormatError calling the file
    ``what`` (a missing file raises FileNotFoundError, for the caller to word)."""
    try:
        content = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        malformed(path, error.lineno, f"unreadable {what}: {error.msg}")
    except UnicodeDecodeError:
        malformed(path, None, f"unreadable {what}: not UTF-8 text")
    if not isinstance(content, dict):
        malformed(path, None, f"unreadable {what}: not a JSON object")
    return content


def read_store_manifest(store: str | os.PathLike[str]) -> dict:
    """The store-level ``manifest.json`` (raises InputFormatError when it is not a store)."""
    path = Path(store) / "manifest.json"
    try:
        content = read_json_object(path, "store manifest")
    except FileNotFoundError:
        malformed(store, None, "not a corpus store (no manifest.json); create one with `pateval corpus ingest`")
    if content.get("format") != STORE_FORMAT:
        malformed(path, None, "not a pateval corpus store manifest", expected=STORE_FORMAT,
                  found=str(content.get("format")))
    if content.get("version") != STORE_VERSION:
        malformed(path, None, "unsupported corpus store version", expected=str(STORE_VERSION),
                  found=str(content.get("version")))
    return content


def write_store_manifest(store: str | os.PathLike[str], content: dict) -> None:
    """Write ``manifest.json`` atomically."""
    content = {"format": STORE_FORMAT, "version": STORE_VERSION, **content}
    with atomic_output(Path(store) / "manifest.json") as handle:
        json.dump(content, handle, indent=2, sort_keys=True)
        handle.write("\n")


def batch_ucids_path(store: str | os.PathLike[str], batch: int) -> Path:
    """The file listing a batch's document ids, one a line."""
    return Path(store) / "manifest" / f"batch-{batch:06d}.ucids"


def write_batch_ucids(store: str | os.PathLike[str], batch: int, ucids: Iterable[str]) -> None:
    """Write a batch's document ids (before its manifest commits the batch)."""
    with atomic_output(batch_ucids_path(store, batch)) as handle:
        handle.writelines(ucid + "\n" for ucid in ucids)


def write_batch_manifest(store: str | os.PathLike[str], batch: int, content: dict) -> None:
    """Commit a batch: write ``manifest/batch-NNNNNN.json`` atomically (after its parts)."""
    with atomic_output(Path(store) / "manifest" / f"batch-{batch:06d}.json") as handle:
        json.dump({"batch": batch, **content}, handle, indent=1, sort_keys=True)
        handle.write("\n")


def committed_batches(store: str | os.PathLike[str]) -> dict[int, dict]:
    """Batch number -> its manifest, for every committed batch."""
    folder = Path(store) / "manifest"
    batches: dict[int, dict] = {}
    if not folder.is_dir():
        return batches
    for entry in sorted(folder.iterdir()):
        if match := _BATCH_MANIFEST.match(entry.name):
            batches[int(match.group(1))] = read_json_object(entry, "batch manifest")
    return batches


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(HASH_BLOCK_BYTES):
            digest.update(block)
    return digest.hexdigest()


def part_path(store: str | os.PathLike[str], table: str, batch: int) -> Path:
    """Where a batch's part of ``table`` lives."""
    return Path(store) / table / f"part-{batch:06d}.parquet"


@dataclass(frozen=True)
class DamagedPart:
    """A committed part that is missing or does not match its manifest.

    Attributes
    ----------
    path : pathlib.Path
    table : str
    batch : int
    reason : str
        What is wrong, in words (``"missing"``, ``"1,200 bytes, the manifest says 4,096"``,
        ``"its SHA-256 differs from the manifest's"``).
    """

    path: Path
    table: str
    batch: int
    reason: str

    def problem(self, store: str | os.PathLike[str], *, others: int = 0) -> str:
        """What is wrong and how to repair it (the message without the part's path)."""
        more = f"; {others} more damaged part{'s' if others > 1 else ''}" if others else ""
        return (f"damaged corpus store part (batch {self.batch}: {self.reason}{more}); "
                f"run `pateval corpus verify {store} --repair` to re-ingest the batch's source files, "
                "or `--drop` to remove the batch")

    def message(self, store: str | os.PathLike[str], *, others: int = 0) -> str:
        """The one line a user sees: the part, what is wrong and how to repair it."""
        return f"{self.path}: {self.problem(store, others=others)}"


def check_parts(store: str | os.PathLike[str], batches: dict[int, dict], *, mode: str = "open",
                progress: bool = False) -> tuple[list[DamagedPart], int]:
    """Check the committed parts against their manifests.

    Parameters
    ----------
    store : path-like
    batches : dict
        :func:`committed_batches` of the store.
    mode : {"open", "quick", "full"}
        ``"quick"`` compares sizes only; ``"full"`` also every SHA-256; ``"open"``
        compares sizes and the SHA-256 of the parts whose modification time changed since
        they were written (what opening a store does: one ``stat`` per unchanged part).
    progress : bool
        Show a progress bar (tqdm, on stderr) over the bytes to hash in ``"full"`` mode.

    Returns
    -------
    (list of DamagedPart, int)
        The damaged parts and the number of parts checked. Batches written by a pateval
        that recorded no part checksums are not checked (not counted).
    """
    if mode not in ("open", "quick", "full"):
        raise ParameterError(f"mode must be 'open', 'quick' or 'full', not {mode!r}")
    damaged: list[DamagedPart] = []
    bar = None
    if progress and mode == "full":
        from tqdm import tqdm

        total = sum(part.get("size", 0) for m in batches.values() for part in (m.get("parts") or {}).values())
        bar = tqdm(total=total, unit="B", unit_scale=True, desc="verify", leave=False)
    try:
        for batch in sorted(batches):
            if not (parts := batches[batch].get("parts")):
                continue
            for table in TABLES:
                recorded = parts.get(table)
                path = part_path(store, table, batch)
                if recorded is None:
                    damaged.append(DamagedPart(path, table, batch, "not in its manifest"))
                    continue
                try:
                    stat = os.stat(path)
                except FileNotFoundError:
                    damaged.append(DamagedPart(path, table, batch, "missing"))
                    continue
                if stat.st_size != recorded["size"]:
                    damaged.append(DamagedPart(path, table, batch,
                                               f"{stat.st_size:,} bytes, the manifest says {recorded['size']:,}"))
                    continue
                if mode == "quick" or (mode == "open" and stat.st_mtime_ns == recorded.get("mtime_ns")):
                    continue
                if file_sha256(path) != recorded["sha256"]:
                    damaged.append(DamagedPart(path, table, batch, "its SHA-256 differs from the manifest's"))
                if bar is not None:
                    bar.update(recorded["size"])
    finally:
        if bar is not None:
            bar.close()
    return damaged, sum(len(m["parts"]) for m in batches.values() if m.get("parts"))


def raise_if_damaged(store: str | os.PathLike[str], batches: dict[int, dict], *, mode: str = "open") -> None:
    """Raise InputFormatError naming the first damaged part (see :func:`check_parts`)."""
    damaged, _ = check_parts(store, batches, mode=mode)
    if damaged:
        first = damaged[0]
        raise InputFormatError(first.path, None, first.problem(store, others=len(damaged) - 1))


@contextlib.contextmanager
def naming_damage(store: str | os.PathLike[str], batches: dict[int, dict] | None = None):
    """Turn a DuckDB error met while reading the store's parts into the one-line error
    naming a damaged part, when one is damaged.

    The check on opening compares sizes and, for parts whose modification time changed,
    checksums; bytes changed in place with size and time kept (bit rot) pass it and surface
    only when DuckDB reads them. Then the batches of the parts the error names are checked
    in full (DuckDB names the file it could not read; an error naming no part, a mistake in
    a query say, costs no hashing). A DuckDB error with no damaged part behind it is raised
    as it was.
    """
    import duckdb

    try:
        yield
    except duckdb.Error as error:
        path = Path(store)
        if batches is None:
            batches = committed_batches(path)
        text = str(error)
        suspects = {b: m for b, m in batches.items() if any(str(part_path(path, t, b)) in text for t in TABLES)}
        if suspects:
            raise_if_damaged(path, suspects, mode="full")
        raise


def remove_uncommitted_parts(store: str | os.PathLike[str], committed: Iterable[int]) -> int:
    """Delete part files of batches that never committed and temporary files; returns how
    many files went."""
    keep = set(committed)
    removed = 0
    # The id lists of uncommitted batches, and the tables' uncommitted parts and temporary files.
    for name, pattern in (("manifest", _BATCH_UCIDS), *((table, _PART_FILE) for table in TABLES)):
        folder = Path(store) / name
        for entry in folder.iterdir() if folder.is_dir() else ():
            match = pattern.match(entry.name)
            temporary = name != "manifest" and entry.name.endswith(".tmp")
            if temporary or (match is not None and int(match.group(1)) not in keep):
                entry.unlink()
                removed += 1
    return removed


# ---- querying -------------------------------------------------------------------------------


class CorpusStore:
    """An ingested corpus, queried through DuckDB.

    Parameters
    ----------
    path : path-like
        The store directory.
    memory_limit : str, optional
        DuckDB's memory limit (``"2GB"``, ``"500MB"``); queries beyond it spill to a
        temporary directory. Default: the store's default from ingest, else DuckDB's.
    threads : int, optional
        DuckDB worker threads (default: DuckDB's choice, all cores).

    Notes
    -----
    The tables ``documents``, ``passages``, ``claims`` and ``citations`` are views in
    the connection, so :meth:`sql` takes any DuckDB SQL over them::

        store.sql("SELECT source, count(*) FROM citations GROUP BY source")
    """

    def __init__(self, path: str | os.PathLike[str], *, memory_limit: str | None = None,
                 threads: int | None = None) -> None:
        import duckdb

        self.path = Path(path)
        self.manifest = read_store_manifest(self.path)
        self.batches = committed_batches(self.path)
        # A damaged part would otherwise surface as a DuckDB error deep inside a query.
        raise_if_damaged(self.path, self.batches, mode="open")
        if memory_limit is None:
            memory_limit = self.manifest.get("memory_limit")
        if memory_limit is not None and not re.fullmatch(r"\s*\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*",
                                                         str(memory_limit), re.I):
            raise ParameterError(f"memory_limit must look like '2GB' or '500MB', not {memory_limit!r}")
        if threads is not None and threads < 1:
            raise ParameterError(f"threads must be >= 1, not {threads}")
        self.memory_limit = memory_limit
        self._connection = duckdb.connect(":memory:")
        if memory_limit is not None:
            self._connection.execute(f"SET memory_limit = '{memory_limit.strip()}'")
        if threads is not None:
            self._connection.execute(f"SET threads = {int(threads)}")
        for table in TABLES:
            with self._naming_damage():  # DuckDB reads the first part's footer here
                self._connection.execute(f"CREATE VIEW {table} AS SELECT * FROM {self.source(self._connection, table)}")

    # -- context management
    def close(self) -> None:
        """Close the DuckDB connection."""
        self._connection.close()

    def __enter__(self) -> CorpusStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- queries
    def sql(self, query: str, params: Sequence | dict | None = None):
        """Run DuckDB SQL over the store's tables; returns a pandas DataFrame."""
        with self._naming_damage():
            return self._connection.execute(query, params if params is not None else []).df()

    def arrow(self, query: str, params: Sequence | dict | None = None) -> pa.Table:
        """Like :meth:`sql`, returning a pyarrow Table (no pandas conversion)."""
        with self._naming_damage():
            return self._connection.sql(query, params=params).to_arrow_table()

    def _naming_damage(self):
        return naming_damage(self.path, self.batches)

    def source(self, con, table: str) -> str:
        """A FROM-clause source for ``table`` on the DuckDB connection ``con``: its committed
        Parquet parts, or an empty table of its schema."""
        files = [str(path) for batch in sorted(self.batches) if (path := part_path(self.path, table, batch)).exists()]
        if files:
            return "read_parquet([" + ", ".join("'" + f.replace("'", "''") + "'" for f in files) + "])"
        con.register(f"_empty_{table}", SCHEMAS[table].empty_table())
        return f"_empty_{table}"

    @property
    def connection(self):
        """The DuckDB connection (for relational API use)."""
        return self._connection

    def count(self, table: str = "documents") -> int:
        """Number of rows in a table (documents by default)."""
        if table not in TABLES:
            raise ParameterError(f"table must be one of {', '.join(TABLES)}, not {table!r}")
        with self._naming_damage():
            return int(self._connection.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0])

    def documents(self, columns: Sequence[str] | None = None, *, where: str | None = None):
        """The documents table (optionally some columns, filtered by an SQL condition)."""
        selected = "*" if not columns else ", ".join(_identifier(c, "documents") for c in columns)
        condition = f" WHERE {where}" if where else ""
        return self.sql(f"SELECT {selected} FROM documents{condition} ORDER BY ucid")

    def claims(self, ucid: str, lang: str | None = None):
        """The claims of one document (all languages, or ``lang``), in claim order."""
        if lang is None:
            return self.sql("SELECT * FROM claims WHERE ucid = ? ORDER BY lang, number", [ucid])
        return self.sql("SELECT * FROM claims WHERE ucid = ? AND lang = ? ORDER BY number", [ucid, lang.upper()])

    def passages(self, ucid: str):
        """The description passages of one document, in document order."""
        return self.sql("SELECT * FROM passages WHERE ucid = ? ORDER BY position", [ucid])

    def citations(self, ucid: str | None = None, *, source: str | None = None):
        """Citations, of one citing document and/or of one source."""
        given = [(column, value) for column, value in (("ucid", ucid), ("source", source)) if value is not None]
        where = f" WHERE {' AND '.join(f'{column} = ?' for column, _ in given)}" if given else ""
        return self.sql(f"SELECT * FROM citations{where} ORDER BY ucid, cited_ucid, source", [v for _, v in given])

    def files(self):
        """The ingested source files (path, size, mtime_ns, sha256, documents, batch)."""
        import pandas as pd

        rows = [
            {**entry, "batch": batch}
            for batch, manifest in sorted(self.batches.items())
            for entry in manifest.get("files", [])
        ]
        return pd.DataFrame(rows, columns=["path", "size", "mtime_ns", "sha256", "documents", "errors", "batch"])

    def errors(self):
        """Bad documents met while ingesting (path, line, reason)."""
        import pandas as pd

        rows = [error for manifest in self.batches.values() for error in manifest.get("errors", [])]
        return pd.DataFrame(rows, columns=["path", "line", "reason"])

    def duplicates(self):
        """ucids that appear in more than one row of the documents table."""
        return self.sql(
            "SELECT ucid, count(*) AS rows, list(source_path) AS files FROM documents "
            "GROUP BY ucid HAVING count(*) > 1 ORDER BY ucid"
        )

    def doc_lengths(self) -> DocLengths:
        """Each document's length in words (abstracts, description and claims, every
        language), as the time models take them (``--doc-lengths``), in ucid order.

        A ucid stored twice (ingested from two files) with different counts is an error
        naming it; with the same count it is listed once.
        """
        conflicting = self.sql("SELECT ucid, list(DISTINCT word_count) AS counts FROM documents GROUP BY ucid "
                               "HAVING count(DISTINCT word_count) > 1 ORDER BY ucid LIMIT 1")
        if len(conflicting):
            ucid, counts = conflicting.iloc[0]
            raise ParameterError(f"store {self.path}: document {ucid} is stored with different word counts "
                                 f"{sorted(int(c) for c in counts)} (see CorpusStore.duplicates())")
        table = self.arrow("SELECT ucid, any_value(word_count) AS words FROM documents GROUP BY ucid ORDER BY ucid")
        return DocLengths(table.column("ucid").combine_chunks().cast("string"),
                          table.column("words").to_numpy().astype("int64"), source=f"{self.path} (word counts)")

    def __repr__(self) -> str:
        return f"CorpusStore({str(self.path)!r}, batches={len(self.batches)})"


def _identifier(name: str, table: str) -> str:
    if name not in SCHEMAS[table].names:
        raise ParameterError(f"{table} has no column {name!r}; columns: {', '.join(SCHEMAS[table].names)}")
    return f'"{name}"'
