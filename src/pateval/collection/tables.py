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

from collections.abc import Callable, Iterable

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


def register_records(con, documents: Iterable[PatentDocument]) -> None:
    """Register the corpus views on ``con`` from patent records held in memory (the tables
    a store would hold, so that a build from records gives the files a build from the store
    of the same documents gives)."""
    from .store import document_tables

    for table, data in document_tables(documents).items():
        con.register(f"_records_{table}", data)
    _register_views(con, lambda table: f"_records_{table}")


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
    _register_views(con, lambda table: store.source(con, table))


# The views that are one store table each, with their columns.
_TABLE_VIEWS = {
    "citations": "ucid AS citing_ucid, cited_ucid, cited_patent_key, source, categories, relevant_claims, passages",
    "claims": "ucid, lang, number, number AS position, xpath, text, depends_on",
    "passages": "ucid, position, xpath, text, is_heading",
}


def _register_views(con, source: Callable[[str], str]) -> None:
    """The corpus views over the store's tables, each read from ``source(table)``."""
    con.execute(f"CREATE OR REPLACE TEMP VIEW _store_documents AS SELECT * FROM {source('documents')}")
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
    for name, columns in _TABLE_VIEWS.items():
        con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT {columns} FROM {source(name)}")
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
