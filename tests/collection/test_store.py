"""The corpus store over the real samples: what ingest writes and what CorpusStore answers."""

from __future__ import annotations

import json

import pytest

from pateval.collection.ingest import ingest
from pateval.collection.store import SCHEMAS, CorpusStore
from pateval.errors import InputFormatError, ParameterError

# The ICE samples and the 2001 application (tests/data/uspto also holds the other old-format
# samples, read in tests/patents/test_uspto_legacy.py).
ICE_AND_2001_SAMPLES = ("US06859910.xml", "US07272630B2.xml", "US08926509.xml", "US08930553.xml",
                        "US20010000044A1.xml", "US20050004437A1.xml", "US20050004974A1.xml")


@pytest.fixture(scope="module")
def real_store(test_data, tmp_path_factory):
    out = tmp_path_factory.mktemp("stores") / "real"
    summary = ingest(
        [*(test_data / "uspto" / name for name in ICE_AND_2001_SAMPLES),
         *sorted((test_data / "clefip").glob("EP-*.xml"))],
        out, workers=1, on_error="skip",
    )
    return out, summary


def test_summary_counts(real_store):
    _, summary = real_store
    # 7 USPTO files (one a 2001 application, pap v1.5) + 3 CLEF-IP files.
    assert (summary.files, summary.documents, len(summary.errors)) == (10, 10, 0)
    assert summary.total_documents == 10


def test_table_sizes(real_store):
    out, _ = real_store
    with CorpusStore(out) as store:
        assert store.count() == 10
        # Claims: EP-1000000-A1 11, EP-1010180-B1 3 x 20, USPTO 2 + 17 + 31 + 8 + 10 + 21 + 21 (2001).
        assert store.count("claims") == 11 + 60 + 89 + 21
        # Citations: EP-0050001-A2 6, EP-1000000-A1 3, USPTO grants 8 + 78 + 130 + 16.
        assert store.count("citations") == 6 + 3 + 8 + 78 + 130 + 16
        # Passages: 22 + 40 (CLEF-IP) + 68 + 177 + 312 + 42 + 35 + 197 + 46 (USPTO).
        assert store.count("passages") == 22 + 40 + 68 + 177 + 312 + 42 + 35 + 197 + 46
        with pytest.raises(ParameterError):
            store.count("families")


def test_claims_and_dependencies_come_back(real_store):
    out, _ = real_store
    with CorpusStore(out) as store:
        claims = store.claims("EP-1000000-A1")
        assert claims["number"].tolist() == list(range(1, 12))
        assert [list(d) for d in claims["depends_on"]][:4] == [[], [1], [1, 2], [1, 2, 3]]
        assert claims["is_independent"].tolist() == [True] + [False] * 10
        fr = store.claims("EP-1010180-B1", lang="fr")
        assert len(fr) == 20 and fr["xpath"].iloc[0] == "/patent-document/claims[3]/claim[1]"
        independent = store.sql(
            "SELECT ucid, count(*) AS n FROM claims WHERE is_independent AND lang = 'EN' GROUP BY ucid ORDER BY ucid"
        )
        assert dict(zip(independent["ucid"], independent["n"], strict=False)) == {
            "US-20010000044-A1": 3, "EP-1000000-A1": 1, "EP-1010180-B1": 1, "US-20050004437-A1": 1,
                                                                    "US-20050004974-A1": 2,
            "US-6859910-B2": 1, "US-7272630-B2": 3, "US-8926509-B2": 6, "US-8930553-B2": 2,
        }


def test_citations_sources_categories_and_keys(real_store):
    out, _ = real_store
    with CorpusStore(out) as store:
        by_source = store.sql("SELECT source, count(*) AS n FROM citations GROUP BY source ORDER BY source")
        assert dict(zip(by_source["source"], by_source["n"], strict=False)) == {
            "applicant": 117 + 10, "examiner": 8 + 5 + 13 + 6, "other": 73, "search": 9,
        }
        cited = store.citations("EP-1000000-A1")
        assert cited["cited_ucid"].tolist() == ["DE-3546191-A1", "EP-0680812-A1", "NL-9400663-A"]
        assert cited["categories"].tolist() == ["A", "A", "A"]
        assert cited["cited_patent_key"].tolist() == ["DE3546191", "EP0680812", "NL9400663"]
        assert len(store.citations(source="search")) == 9


def test_documents_table(real_store):
    out, _ = real_store
    with CorpusStore(out, memory_limit="256MB", threads=1) as store:
        docs = store.documents(["ucid", "patent_key", "family_id", "date", "n_claims", "claim_langs"])
        row = docs.set_index("ucid").loc["EP-1010180-B1"]
        assert (row.patent_key, row.family_id, row.date, row.n_claims) == ("EP1010180", "19901057", "2002-02-06", 20)
        assert list(row.claim_langs) == ["DE", "EN", "FR"]
        titles = store.sql("SELECT title['FR'] AS fr FROM documents WHERE ucid = 'EP-1010180-B1'")
        assert titles["fr"].iloc[0] == "MEMOIRE MORTE ET DISPOSITIFS A MEMOIRE MORTE"
        assert store.documents(["ucid"], where="country = 'US'")["ucid"].tolist() == [
            "US-20010000044-A1", "US-20050004437-A1", "US-20050004974-A1", "US-6859910-B2", "US-7272630-B2",
                                                                                      "US-8926509-B2", "US-8930553-B2",
        ]
        with pytest.raises(ParameterError, match="documents has no column 'words'"):
            store.documents(["words"])
        first = store.arrow("SELECT ucid FROM documents ORDER BY ucid LIMIT 1")
        assert first.column(0).to_pylist() == ["EP-0050001-A2"]
        assert store.passages("EP-1010180-B1")["xpath"].iloc[19] == "/patent-document/description/p[20]"
        assert store.duplicates().empty
        files = store.files()
        assert len(files) == 10 and set(files.columns) >= {"path", "size", "mtime_ns", "sha256", "documents"}
        assert store.errors().empty


def test_parquet_schema_matches_declared_schema(real_store):
    import pyarrow.parquet as pq

    out, _ = real_store
    for table, schema in SCHEMAS.items():
        parts = sorted((out / table).glob("part-*.parquet"))
        assert parts
        assert pq.read_schema(parts[0]).remove_metadata().equals(schema)


def test_opening_something_that_is_not_a_store(tmp_path):
    with pytest.raises(InputFormatError) as caught:
        CorpusStore(tmp_path)
    assert str(caught.value) == (f"{tmp_path}: not a corpus store (no manifest.json); "
                                 "create one with `pateval corpus ingest`")
    (tmp_path / "manifest.json").write_text(json.dumps({"format": "other"}))
    with pytest.raises(InputFormatError, match="not a pateval corpus store manifest"):
        CorpusStore(tmp_path)


def test_memory_limit_is_validated_and_applied(real_store):
    out, _ = real_store
    with pytest.raises(ParameterError):
        CorpusStore(out, memory_limit="lots")
    with CorpusStore(out, memory_limit="300MB") as store:
        limit = store.sql("SELECT current_setting('memory_limit') AS m")["m"].iloc[0]
        assert limit.replace(" ", "") in ("286.1MiB", "300.0MB", "300MB")


def test_word_count_counts_words_across_paragraph_breaks_and_any_white_space():
    """Abstracts join their paragraphs with new lines; a count of spaces alone lost a word at
    each break (review finding): every white-space separated token counts once."""
    from pateval.collection.store import _word_count
    from pateval.patents.records import Claim, Passage, PatentDocument

    document = PatentDocument(
        ucid="EP-0000001-A1", country="EP", doc_number="0000001", kind="A1",
        abstract={"EN": "one two\nthree four\nfive", "DE": "eins  zwei\tdrei"},
        description=[Passage(xpath="/patent-document/description/p[1]", text="six seven", lang="EN"),
                     Passage(xpath="/patent-document/description/p[2]", text="", lang="EN")],
        claims={"EN": [Claim(number=1, text="eight\nnine ten", xpath="/patent-document/claims/claim[1]")]},
    )
    assert _word_count(document) == 5 + 3 + 2 + 0 + 3


def test_word_count_of_a_real_abstract_counted_by_hand():
    """The APS abstract of US-3937375-A (tests/data/uspto), eleven lines joined by the
    reader: 133 words counted by hand line by line (14 10 15 13 13 15 15 12 13 12 1)."""
    import dataclasses
    from pathlib import Path

    from pateval.collection.store import _word_count
    from pateval.patents import read_patent

    document = read_patent(Path(__file__).resolve().parents[1] / "data" / "uspto" / "US03937375.greenbook")
    abstract_only = dataclasses.replace(document, description=[], claims={})
    assert _word_count(abstract_only) == 133
