"""The corpus tables that test-collection building reads, as DuckDB views.

Building a collection never re-reads XML: it queries the corpus store (Parquet tables,
:mod:`pateval.collection.store`) through DuckDB. The steps rely on these views only:

==============  ==========================================================================
view            columns
==============  ==========================================================================
documents       ucid, patent_key, country, doc_number, kind, family_id, lang, date (ISO),
                ipc (list of symbols), has_abstract, has_description, has_claims, n_words
citations       citing_ucid, cited_ucid, cited_patent_key, source, categories,
                relevant_claims (list of int), passages (list of str)
claims          ucid, lang, number, position, xpath, text, depends_on (list of int)
passages        ucid, position, xpath, text, is_heading
abstracts       ucid, lang, text
titles          ucid, lang, text
==============  ==========================================================================

:func:`register_records` builds the same views from :class:`PatentDocument` records held
in memory (small corpora, tests); the store adapter maps the store's own tables onto them.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyarrow as pa

from ..core.docids import patent_key
from ..patents.records import PatentDocument

__all__ = ["VIEWS", "register_records", "register_store", "open_store", "connect"]

VIEWS = ("documents", "citations", "claims", "passages", "abstracts", "titles")


def connect(*, threads: int | None = None, memory_limit: str | None = None):
    """A DuckDB connection with pateval's settings (threads, memory limit)."""
    import duckdb

    con = duckdb.connect(database=":memory:")
    if threads is not None:
        con.execute(f"SET threads = {int(threads)}")
    if memory_limit is not None:
        con.execute(f"SET memory_limit = '{memory_limit}'")
    con.execute("SET preserve_insertion_order = false")
    return con


def _words(text: str) -> int:
    return len(text.split())


def register_records(con, documents: Iterable[PatentDocument]) -> None:
    """Register the corpus views on ``con`` from patent records held in memory."""
    cols: dict[str, dict[str, list]] = {
        "documents": {k: [] for k in ("ucid", "patent_key", "country", "doc_number", "kind", "family_id", "lang",
                                      "date", "ipc", "has_abstract", "has_description", "has_claims", "n_words")},
        "citations": {k: [] for k in ("citing_ucid", "cited_ucid", "cited_patent_key", "source", "categories",
                                      "relevant_claims", "passages")},
        "claims": {k: [] for k in ("ucid", "lang", "number", "position", "xpath", "text", "depends_on")},
        "passages": {k: [] for k in ("ucid", "position", "xpath", "text", "is_heading")},
        "abstracts": {k: [] for k in ("ucid", "lang", "text")},
        "titles": {k: [] for k in ("ucid", "lang", "text")},
    }
    for doc in documents:
        n_words = sum(_words(p.text) for p in doc.description) + sum(_words(t) for t in doc.abstract.values()) \
            + sum(_words(c.text) for claims in doc.claims.values() for c in claims)
        row = cols["documents"]
        for key, value in (("ucid", doc.ucid), ("patent_key", doc.patent_key), ("country", doc.country),
                           ("doc_number", doc.doc_number), ("kind", doc.kind), ("family_id", doc.family_id),
                           ("lang", doc.lang), ("date", doc.date), ("ipc", list(doc.ipc_classes)),
                           ("has_abstract", bool(doc.abstract)),
                           ("has_description", any(not p.is_heading for p in doc.description)),
                           ("has_claims", any(doc.claims.values())), ("n_words", n_words)):
            row[key].append(value)
        for citation in doc.citations:
            row = cols["citations"]
            row["citing_ucid"].append(doc.ucid)
            row["cited_ucid"].append(citation.cited_ucid)
            row["cited_patent_key"].append(patent_key(citation.cited_ucid))
            row["source"].append(citation.source)
            row["categories"].append(citation.categories)
            row["relevant_claims"].append(list(citation.relevant_claims))
            row["passages"].append(list(citation.passages))
        position = 0
        for lang, claims in doc.claims.items():
            for claim in claims:
                position += 1
                row = cols["claims"]
                for column, cell in (("ucid", doc.ucid), ("lang", lang), ("number", claim.number),
                                     ("position", position), ("xpath", claim.xpath), ("text", claim.text),
                                     ("depends_on", list(claim.depends_on))):
                    row[column].append(cell)
        for position, passage in enumerate(doc.description, start=1):
            row = cols["passages"]
            for key, value in (("ucid", doc.ucid), ("position", position), ("xpath", passage.xpath),
                               ("text", passage.text), ("is_heading", passage.is_heading)):
                row[key].append(value)
        for name, values in (("abstracts", doc.abstract), ("titles", doc.title)):
            for lang, text in values.items():
                cols[name]["ucid"].append(doc.ucid)
                cols[name]["lang"].append(lang)
                cols[name]["text"].append(text)
    types = {
        "ipc": pa.list_(pa.string()), "relevant_claims": pa.list_(pa.int32()), "passages": pa.list_(pa.string()),
        "depends_on": pa.list_(pa.int32()), "number": pa.int32(), "position": pa.int32(), "n_words": pa.int64(),
        "has_abstract": pa.bool_(), "has_description": pa.bool_(), "has_claims": pa.bool_(), "is_heading": pa.bool_(),
    }
    for name, columns in cols.items():
        table = pa.table({key: pa.array(values, type=types.get(key, pa.string())) for key, values in columns.items()})
        con.register(f"_{name}_records", table)
        con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * FROM _{name}_records")


def _store_files(store, table: str) -> list[str]:
    """The committed part files of one table of a corpus store."""
    from pathlib import Path

    root = Path(store.path)
    return [
        str(root / table / f"part-{batch:06d}.parquet")
        for batch in sorted(store.batches)
        if (root / table / f"part-{batch:06d}.parquet").exists()
    ]


def _source(con, store, table: str) -> str:
    """A FROM-clause source for a store table: its Parquet parts, or an empty table."""
    files = _store_files(store, table)
    if files:
        return "read_parquet([" + ", ".join("'" + f.replace("'", "''") + "'" for f in files) + "])"
    from .store import SCHEMAS

    con.register(f"_empty_store_{table}", SCHEMAS[table].empty_table())
    return f"_empty_store_{table}"


def register_store(con, store) -> None:
    """Register the corpus views on ``con`` over a corpus store's Parquet tables.

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        A connection of the caller's (the store's own connection names its tables
        ``documents`` etc. with the store's columns; the views here have the columns
        listed in the module notes).
    store : pateval.collection.store.CorpusStore
    """
    documents = _source(con, store, "documents")
    con.execute(f"CREATE OR REPLACE TEMP VIEW _store_documents AS SELECT * FROM {documents}")
    con.execute(
        """CREATE OR REPLACE TEMP VIEW documents AS
           SELECT ucid, patent_key, country, doc_number, kind, family_id, lang, date,
                  ipc_classes AS ipc,
                  coalesce(cardinality(abstract), 0) > 0 AS has_abstract,
                  coalesce(n_passages, 0) > 0 AS has_description,
                  coalesce(len(claim_langs), 0) > 0 AS has_claims,
                  word_count AS n_words
           FROM _store_documents"""
    )
    con.execute(
        f"""CREATE OR REPLACE TEMP VIEW citations AS
            SELECT ucid AS citing_ucid, cited_ucid, cited_patent_key, source, categories, relevant_claims, passages
            FROM {_source(con, store, 'citations')}"""
    )
    con.execute(
        f"""CREATE OR REPLACE TEMP VIEW claims AS
            SELECT ucid, lang, number, number AS position, xpath, text, depends_on
            FROM {_source(con, store, 'claims')}"""
    )
    con.execute(
        f"""CREATE OR REPLACE TEMP VIEW passages AS
            SELECT ucid, position, xpath, text, is_heading FROM {_source(con, store, 'passages')}"""
    )
    for name, column in (("abstracts", "abstract"), ("titles", "title")):
        con.execute(
            f"""CREATE OR REPLACE TEMP VIEW {name} AS
                SELECT ucid, entry.key AS lang, entry.value AS text
                FROM (SELECT ucid, unnest(map_entries({column})) AS entry FROM _store_documents)"""
        )


def open_store(path, *, threads: int | None = None, memory_limit: str | None = None):
    """A DuckDB connection with the corpus views over the store at ``path``."""
    from .store import CorpusStore, naming_damage

    store = CorpusStore(path, memory_limit=memory_limit, threads=threads)
    try:
        con = connect(threads=threads, memory_limit=memory_limit or store.memory_limit)
        with naming_damage(store.path, store.batches):  # DuckDB reads each table's first footer here
            register_store(con, store)
    finally:
        store.close()
    return con
