"""Step 1 of building a test collection: the corpus / topic-pool split and patent grouping.

CLEF-IP 2009 (Roda et al.) split the EPO documents by publication date: the searchable
*corpus* (1985-2000) and the *pool* of candidate topics (2001-2006). Relevance is judged
at *patent* level -- all publications of one application (A1, A2, A3, B1, ...) share a
patent key (:func:`pateval.core.docids.patent_key`) -- and may be extended to the
*family* (documents with the same ``family-id``).

Both functions here work on a DuckDB connection that holds the corpus tables (see
:mod:`pateval.collection.tables`) and add tables of their own to it: ``doc_part``
(which part each document is in) and ``patents`` (one row per patent).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass

from ..errors import ParameterError

__all__ = ["DateSplit", "SplitSummary", "split_by_date", "group_patents"]


def _iso(value: str | dt.date | None, name: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, dt.date):
        return value.isoformat()
    text = str(value).strip()
    try:
        if len(text) == 4 and text.isdigit():
            return text  # a year; expanded by the caller
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        raise ParameterError(f"{name} must be a date YYYY-MM-DD (or a year), not {value!r}") from None


@dataclass(frozen=True)
class DateSplit:
    """Publication-date ranges of the corpus and of the topic pool (ISO dates, inclusive).

    ``corpus_start`` and ``pool_end`` may be None (open ends). The ranges must not
    overlap: ``pool_start`` must come after ``corpus_end``.
    """

    corpus_end: str = "2000-12-31"
    pool_start: str | None = None
    corpus_start: str | None = None
    pool_end: str | None = None

    @classmethod
    def of(cls, *, corpus_end: str | dt.date = "2000-12-31", pool_start: str | dt.date | None = None,
           corpus_start: str | dt.date | None = None, pool_end: str | dt.date | None = None) -> DateSplit:
        """Check and normalise the dates; a bare year means its first day (starts) or
        last day (ends). ``pool_start`` defaults to the day after ``corpus_end``."""
        ends = {"corpus_end": corpus_end, "pool_end": pool_end}
        starts = {"pool_start": pool_start, "corpus_start": corpus_start}
        normal: dict[str, str | None] = {}
        for name, value in {**ends, **starts}.items():
            iso = _iso(value, name)
            if iso is not None and len(iso) == 4:
                iso = f"{iso}-12-31" if name in ends else f"{iso}-01-01"
            normal[name] = iso
        end, pool = normal["corpus_end"], normal["pool_start"]
        if end is None:
            raise ParameterError("corpus_end is required")
        if pool is None:
            pool = normal["pool_start"] = (dt.date.fromisoformat(end) + dt.timedelta(days=1)).isoformat()
        if pool <= end:
            raise ParameterError(
                f"the topic pool must start after the corpus ends (pool_start {pool} <= corpus_end {end})"
            )
        if normal["corpus_start"] is not None and normal["corpus_start"] > end:
            raise ParameterError("corpus_start is after corpus_end")
        if normal["pool_end"] is not None and normal["pool_end"] < pool:
            raise ParameterError("pool_end is before pool_start")
        return cls(**normal)  # type: ignore[arg-type]

    def part_sql(self, column: str = "date") -> str:
        """A SQL expression giving 'corpus', 'pool' or NULL for an ISO date column."""
        corpus = f"{column} <= '{self.corpus_end}'"
        if self.corpus_start is not None:
            corpus += f" AND {column} >= '{self.corpus_start}'"
        pool = f"{column} >= '{self.pool_start}'"
        if self.pool_end is not None:
            pool += f" AND {column} <= '{self.pool_end}'"
        return f"CASE WHEN {column} IS NULL THEN NULL WHEN {corpus} THEN 'corpus' WHEN {pool} THEN 'pool' END"


@dataclass(frozen=True)
class SplitSummary:
    """How many documents and patents fell on each side of the split."""

    corpus_documents: int
    pool_documents: int
    outside_documents: int
    corpus_patents: int
    pool_patents: int
    patents_in_both: int
    families: int

    def as_dict(self) -> dict:
        return asdict(self)


def split_by_date(con, split: DateSplit) -> SplitSummary:
    """Assign every document to the corpus, the topic pool, or neither (table ``doc_part``).

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        Holding the ``documents`` view (see :mod:`pateval.collection.tables`).
    split : DateSplit

    Returns
    -------
    SplitSummary
        Counts; a patent with documents on both sides (its application in the corpus,
        its grant in the pool, say) is counted in both and in ``patents_in_both``.
    """
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE doc_part AS
            SELECT ucid, patent_key, family_id, kind, country, date, {split.part_sql('date')} AS part
            FROM documents"""
    )
    row = con.execute(
        """SELECT count(*) FILTER (WHERE part = 'corpus'),
                  count(*) FILTER (WHERE part = 'pool'),
                  count(*) FILTER (WHERE part IS NULL),
                  count(DISTINCT patent_key) FILTER (WHERE part = 'corpus'),
                  count(DISTINCT patent_key) FILTER (WHERE part = 'pool'),
                  count(DISTINCT family_id)
           FROM doc_part"""
    ).fetchall()[0]
    both = con.execute(
        """SELECT count(*) FROM (SELECT patent_key FROM doc_part GROUP BY patent_key
           HAVING bool_or(part = 'corpus') AND bool_or(part = 'pool'))"""
    ).fetchall()[0][0]
    return SplitSummary(int(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4]), int(both), int(row[5]))


def group_patents(con) -> int:
    """One row per patent in table ``patents``; returns the number of patents.

    Columns: ``patent_key``, ``country``, ``family_id``, ``first_date``, ``in_corpus``,
    ``in_pool``, ``b_ucid`` (the highest B publication, e.g. B2 over B1), ``a_ucid`` (the
    highest A publication that has an abstract, else the highest A), ``text_ucid`` (the
    highest A with claims or description -- what a passage topic points at), ``n_documents``.
    Needs ``doc_part`` (:func:`split_by_date`) and the ``documents`` view.
    """
    con.execute(
        """CREATE OR REPLACE TEMP TABLE patents AS
        WITH d AS (
            SELECT p.ucid, p.patent_key, p.family_id, p.kind, p.country, p.date, p.part,
                   doc.has_abstract, doc.has_description, doc.has_claims
            FROM doc_part p JOIN documents doc USING (ucid)
        )
        SELECT patent_key,
               any_value(country) AS country,
               max(family_id) AS family_id,
               min(date) AS first_date,
               bool_or(part = 'corpus') AS in_corpus,
               bool_or(part = 'pool') AS in_pool,
               arg_max(ucid, kind) FILTER (WHERE kind LIKE 'B%') AS b_ucid,
               coalesce(arg_max(ucid, kind) FILTER (WHERE kind LIKE 'A%' AND has_abstract),
                        arg_max(ucid, kind) FILTER (WHERE kind LIKE 'A%')) AS a_ucid,
               arg_max(ucid, kind) FILTER (WHERE kind LIKE 'A%' AND (has_claims OR has_description)) AS text_ucid,
               count(*) AS n_documents
        FROM d GROUP BY patent_key"""
    )
    return int(con.execute("SELECT count(*) FROM patents").fetchall()[0][0])
