"""The faster ingest paths give exactly what the plain ones give: the column-by-column
buffers of ``PartWriter`` against ``pyarrow.Table.from_pylist`` over ``document_rows``
(the previous way, kept here as the reference), on a generated corpus and the real samples. (The fast path of claim
references is tested in test_claims.py.)
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pateval.collection.ingest import ingest
from pateval.collection.store import SCHEMAS, TABLES, committed_batches, part_path
from pateval.collection.synthetic import generate_corpus
from pateval.core.docids import patent_key
from pateval.patents import iter_patents

DATA = Path(__file__).resolve().parents[1] / "data"


def _word_count(document):
    texts = [*document.abstract.values(), *(p.text for p in document.description),
             *(c.text for claims in document.claims.values() for c in claims)]
    return len(" ".join(texts).split())


def _key_or_id(ucid):
    try:
        return patent_key(ucid)
    except ValueError:
        return ucid.upper()


def document_rows(document):
    """The rows one document contributes to each table, built row by row (the reference the
    column buffers are tested against)."""
    ucid = document.ucid
    claims_here = document.claims_in()
    rows: dict[str, list[dict]] = {
        "documents": [{
            "ucid": ucid,
            "patent_key": patent_key(ucid),
            "country": document.country,
            "doc_number": document.doc_number,
            "kind": document.kind,
            "family_id": document.family_id,
            "lang": document.lang,
            "date": document.date,
            "application_date": document.application_date,
            "priority_dates": list(document.priority_dates),
            "title": list(document.title.items()),
            "abstract": list(document.abstract.items()),
            "ipc_classes": list(document.ipc_classes),
            "applicants": list(document.applicants),
            "inventors": list(document.inventors),
            "claim_langs": list(document.claims),
            "n_passages": len(document.description),
            "n_claims": len(claims_here),
            "n_citations": len(document.citations),
            "word_count": _word_count(document),
            "source_path": document.source_path,
        }],
        "passages": [
            {"ucid": ucid, "position": i, "xpath": p.xpath, "lang": p.lang, "text": p.text, "is_heading": p.is_heading}
            for i, p in enumerate(document.description)
        ],
        "claims": [
            {
                "ucid": ucid, "lang": lang, "number": c.number, "xpath": c.xpath, "text": c.text,
                "depends_on": list(c.depends_on), "is_independent": not c.depends_on,
            }
            for lang, claims in document.claims.items()
            for c in claims
        ],
        "citations": [
            {
                "ucid": ucid,
                "cited_ucid": c.cited_ucid,
                "cited_patent_key": _key_or_id(c.cited_ucid),
                "cited_country": c.cited_country,
                "cited_number": c.cited_number,
                "cited_kind": c.cited_kind,
                "source": c.source,
                "categories": c.categories,
                "relevant_claims": list(c.relevant_claims),
                "passages": list(c.passages),
            }
            for c in document.citations
        ],
    }
    return rows


def _read_parts(store: Path) -> dict[str, pa.Table]:
    batches = sorted(committed_batches(store))
    return {table: pa.concat_tables([pq.read_table(part_path(store, table, b)) for b in batches])
            for table in TABLES}


def test_column_buffers_write_the_rows_of_document_rows(tmp_path):
    generate_corpus(tmp_path / "gen", n_patents=40, seed=9, workers=1, progress=False)
    for source in (tmp_path / "gen", DATA / "uspto"):
        store = tmp_path / f"store-{source.name}"
        ingest(source, store, workers=1, rows_per_group=7, on_error="skip")
        written = _read_parts(store)
        rows = {table: [] for table in TABLES}
        for document in iter_patents(source, on_error="skip"):
            for table, table_rows in document_rows(document).items():
                rows[table].extend(table_rows)
        for table in TABLES:
            expected = pa.Table.from_pylist(rows[table], schema=SCHEMAS[table])
            # Documents come out in file order in both: same rows, same order.
            assert written[table].num_rows == expected.num_rows > 0 or table == "citations"
            assert written[table].equals(expected), table
