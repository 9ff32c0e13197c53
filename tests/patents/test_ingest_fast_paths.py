"""The faster ingest paths give exactly what the plain ones give.

* claim references: the str.find path of ``references_in_text`` against the plain
  regular-expression scan (``_references_by_scan``), on generated claims, on hypothesis
  texts built from claim phrases and awkward characters, and on every claim of the real
  samples;
* Parquet parts: the column-by-column buffers of ``PartWriter`` against
  ``pyarrow.Table.from_pylist`` over the rows of ``document_rows`` (the previous way, kept
  here as the reference), on a generated corpus and the real samples.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pateval.collection.ingest import ingest
from pateval.collection.store import SCHEMAS, TABLES, committed_batches, part_path
from pateval.collection.synthetic import generate_corpus
from pateval.core.docids import patent_key
from pateval.patents import iter_patents
from pateval.patents.claims import _CLAIM_KEYWORD, _PRECEDING, _PRECEDING_REACH, _numbers_after, references_in_text

DATA = Path(__file__).resolve().parents[1] / "data"

_PHRASES = [
    "claim", "claims", "Claim", "CLAIMS", "Anspruch", "Ansprüche", "ANSPRÜCHE", "Ansprueche", "revendication",
    "revendications", "preceding", "any of the preceding claims", "vorhergehenden", "précédentes",
    "qui précèdent", "qui\tprecedent", "ci-dessus", "above", "prior", "hereinbefore", "reclaim", "claimed",
    " 1", " 2", " 3 ", "12", "to", "through", "bis", "à", "-", "–", ",", ";", " or ", " and ", "und", "et",
    "mm", "%", ".5", " ", "\u0130", "\u0131", "\u017f", "\u212a", "ß", "ẞ", "İ", "x", "\n",
]


def _references_by_scan(text: str, *, own_number: int | None = None) -> tuple[int, ...]:
    """:func:`references_in_text` by the plain regular-expression scan alone (the
    reference the fast path is tested against)."""
    if "claim" not in text.lower() and "anspr" not in text.lower() and "revendication" not in text.lower():
        return ()
    found: set[int] = set()
    refers_to_preceding = False
    for keyword in _CLAIM_KEYWORD.finditer(text):
        found.update(_numbers_after(text, keyword.end()))
        if own_number is not None and not refers_to_preceding:
            window = text[max(0, keyword.start() - _PRECEDING_REACH): keyword.end() + _PRECEDING_REACH]
            refers_to_preceding = _PRECEDING.search(window) is not None
    if refers_to_preceding:
        found.update(range(1, own_number))
    if own_number is not None:
        found.discard(own_number)
    found.discard(0)
    return tuple(sorted(found))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PHRASES), max_size=25), st.one_of(st.none(), st.integers(0, 30)))
@example(["claim", " 1", " or ", "2"], 3)
@example(["claım", " 1"], 2)
@example(["\u017f", "claims", " 1", "-", "3"], 5)
@example(["any of the preceding claims"], 4)
def test_fast_claim_references_equal_the_plain_scan(parts, own):
    text = "".join(parts)
    assert references_in_text(text, own_number=own) == _references_by_scan(text, own_number=own)


def _real_documents():
    files = [*(DATA / "uspto").iterdir(), *(DATA / "clefip").glob("EP-*.xml")]
    return list(iter_patents([f for f in files if f.suffix in (".xml", ".greenbook")], on_error="skip"))


def test_fast_claim_references_on_generated_and_real_claims(tmp_path):
    generate_corpus(tmp_path / "gen", n_patents=60, seed=5, workers=1, progress=False)
    documents = list(iter_patents(tmp_path / "gen")) + _real_documents()
    claims = [claim for document in documents for claims in document.claims.values() for claim in claims]
    assert len(claims) > 500
    for claim in claims:
        for own in (claim.number, None):
            assert references_in_text(claim.text, own_number=own) == _references_by_scan(claim.text, own_number=own)


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
