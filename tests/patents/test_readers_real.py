"""The readers on the real CLEF-IP and USPTO samples in tests/data.

Every expected value below was counted from the XML by hand (or with grep on the raw
file), not taken from the parser.
"""

from __future__ import annotations

import pytest

from pateval.patents import ClaimTree, claim_weights, iter_patents, read_patent

# The ICE samples and the 2001 application (tests/data/uspto also holds the other old-format
# samples, read in tests/patents/test_uspto_legacy.py).
ICE_AND_2001_SAMPLES = ("US06859910.xml", "US07272630B2.xml", "US08926509.xml", "US08930553.xml",
                        "US20010000044A1.xml", "US20050004437A1.xml", "US20050004974A1.xml")


def _deps(document, lang):
    return {claim.number: claim.depends_on for claim in document.claims[lang]}


# ---- CLEF-IP / MAREC --------------------------------------------------------------------


def test_ep1010180_b1_identity_dates_and_classes(test_data):
    doc = read_patent(test_data / "clefip" / "EP-1010180-B1.xml")
    assert (doc.ucid, doc.country, doc.doc_number, doc.kind) == ("EP-1010180-B1", "EP", "1010180", "B1")
    assert doc.family_id == "19901057"
    assert doc.lang == "EN"
    assert doc.date == "2002-02-06"
    assert doc.application_date == "1998-08-28"
    assert doc.priority_dates == ["1998-08-28", "1997-09-01"]
    # 18 classification-ipcr elements, 10 distinct symbols, in first-seen order.
    assert doc.ipc_classes == [
        "H01L 27/112", "G11C 16/04", "G11C 11/56", "G11C 17/06", "G11C 17/10",
        "H01L 27/28", "H01L 51/05", "H01L 27/10", "H01L 27/02", "G11C 17/08",
    ]
    assert doc.ipc_prefixes("subclass") == ["H01L", "G11C"]
    assert doc.title == {
        "DE": "FESTWERTSPEICHER UND FESTWERTSPEICHERANORDNUNG",
        "EN": "A READ-ONLY MEMORY AND READ-ONLY MEMORY DEVICE",
        "FR": "MEMOIRE MORTE ET DISPOSITIFS A MEMOIRE MORTE",
    }
    assert doc.abstract == {}
    assert doc.applicants == ["THIN FILM ELECTRONICS ASA"]
    assert doc.citations == []
    assert doc.patent_key == "EP1010180"


def test_ep1010180_b1_description_and_claims_in_three_languages(test_data):
    doc = read_patent(test_data / "clefip" / "EP-1010180-B1.xml")
    # 40 <p num=...> paragraphs, no headings.
    assert len(doc.description) == 40
    assert doc.description[0].xpath == "/patent-document/description/p[1]"
    assert doc.description[19].xpath == "/patent-document/description/p[20]"
    assert doc.description[0].text.startswith("The present invention concerns an electrically addressable")
    assert not any(p.is_heading for p in doc.description)
    assert sorted(doc.claims) == ["DE", "EN", "FR"]
    assert [len(doc.claims[lang]) for lang in ("DE", "EN", "FR")] == [20, 20, 20]
    assert doc.claims["DE"][0].xpath == "/patent-document/claims[1]/claim[1]"
    assert doc.claims["EN"][2].xpath == "/patent-document/claims[2]/claim[3]"
    assert doc.claims["FR"][19].xpath == "/patent-document/claims[3]/claim[20]"
    # Read from the claim texts: "according to claim 1" / "nach Anspruch 1" / "selon la
    # revendication 1"; claims 19 and 20 say "according to claims 1-18" / "nach den
    # Ansprüchen 1 - 18" / "selon les revendications 1 à 18".
    expected = {
        1: (), 2: (1,), 3: (2,), 4: (1,), 5: (1,), 6: (5,), 7: (5,), 8: (1,), 9: (8,), 10: (8,),
        11: (1,), 12: (1,), 13: (1,), 14: (13,), 15: (1,), 16: (1,), 17: (1,), 18: (1,),
        19: tuple(range(1, 19)), 20: tuple(range(1, 19)),
    }
    for lang in ("DE", "EN", "FR"):
        assert _deps(doc, lang) == expected, lang
    tree = ClaimTree.from_claims(doc.claims["EN"])
    assert tree.independent == [1]
    assert tree.children(8) == [9, 10, 19, 20]
    assert tree.roots(14) == [1]
    assert tree.ancestors(3) == [1, 2]


def test_ep1000000_a1_textual_dependencies_and_search_report(test_data):
    doc = read_patent(test_data / "clefip" / "EP-1000000-A1.xml")
    assert doc.ucid == "EP-1000000-A1"
    assert doc.family_id == "19768124"
    assert doc.date == "2000-05-17"
    assert len(doc.description) == 22
    assert list(doc.claims) == ["EN"]
    assert [c.xpath for c in doc.claims["EN"][:2]] == [
        "/patent-document/claims/claim[1]",
        "/patent-document/claims/claim[2]",
    ]
    # "as claimed in claim 1 or 2", "any of the foregoing claims", "claim 4, 5, 6 or 7".
    assert _deps(doc, "EN") == {
        1: (), 2: (1,), 3: (1, 2), 4: (1, 2, 3), 5: (4,), 6: (5,), 7: (5, 6),
        8: (4, 5, 6, 7), 9: (1, 2, 3, 4, 5, 6, 7, 8), 10: tuple(range(1, 10)), 11: (10,),
    }
    weights = claim_weights(doc.claims["EN"])
    assert weights[1] == pytest.approx(1 / 6)  # 1 independent (1) + 10 dependent (0.5) = 6
    assert weights[2] == pytest.approx(0.5 / 6)
    assert [(c.cited_ucid, c.source, c.categories) for c in doc.citations] == [
        ("DE-3546191-A1", "search", "A"),
        ("EP-0680812-A1", "search", "A"),
        ("NL-9400663-A", "search", "A"),
    ]
    assert doc.citations[1].cited_patent_key == "EP0680812"
    assert doc.abstract["EN"].startswith("The invention relates to an apparatus (1) for manufacturing green bricks")
    assert doc.inventors == ["KOSMAN WILHELMUS JACOBUS MARIA"]


def test_ep0050001_a2_search_citations_without_claims(test_data):
    doc = read_patent(test_data / "clefip" / "EP-0050001-A2.xml")
    assert doc.ucid == "EP-0050001-A2"
    assert doc.patent_key == "EP0050001"
    assert doc.claims == {} and doc.description == []
    assert [c.cited_ucid for c in doc.citations] == [
        "US-2103502-A", "US-2455707-A", "US-2938728-A", "US-3400933-A", "US-3533630-A", "US-3614108-A",
    ]
    assert {c.source for c in doc.citations} == {"search"}
    assert {c.categories for c in doc.citations} == {""}
    assert doc.abstract["EN"].startswith("A device for constraining a golf club")
    assert doc.title["EN"] == "A golf aid."


# ---- USPTO ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "ucid", "claims", "passages", "headings"),
    [
        ("US06859910.xml", "US-6859910-B2", 2, 68, 5),
        ("US07272630B2.xml", "US-7272630-B2", 17, 177, 6),
        ("US08926509.xml", "US-8926509-B2", 31, 312, 6),
        ("US08930553.xml", "US-8930553-B2", 8, 42, 5),
        ("US20050004437A1.xml", "US-20050004437-A1", 10, 35, 5),
        ("US20050004974A1.xml", "US-20050004974-A1", 21, 197, 6),
    ],
)
def test_uspto_counts(test_data, name, ucid, claims, passages, headings):
    doc = read_patent(test_data / "uspto" / name)
    assert doc.ucid == ucid
    assert len(doc.claims["EN"]) == claims
    assert len(doc.description) == passages
    assert sum(p.is_heading for p in doc.description) == headings


def test_uspto_claim_refs(test_data):
    doc = read_patent(test_data / "uspto" / "US08930553.xml")
    # claim-ref idrefs, read off the file: 2,3,4,7 -> CLM-00001; 5,6 -> CLM-00004.
    assert _deps(doc, "EN") == {1: (), 2: (1,), 3: (1,), 4: (1,), 5: (4,), 6: (4,), 7: (1,), 8: ()}
    assert ClaimTree.from_claims(doc.claims["EN"]).independent == [1, 8]
    doc = read_patent(test_data / "uspto" / "US20050004974A1.xml")
    assert _deps(doc, "EN") == {
        1: (), 2: (1,), 3: (2,), 4: (2,), 5: (2,), 6: (1,), 7: (1,), 8: (1,), 9: (1,), 10: (),
        11: (10,), 12: (11,), 13: (11,), 14: (10,), 15: (10,), 16: (10,), 17: (16,), 18: (17,),
        19: (17,), 20: (17,), 21: (17,),
    }
    doc = read_patent(test_data / "uspto" / "US08926509.xml")
    assert ClaimTree.from_claims(doc.claims["EN"]).independent == [1, 6, 11, 17, 22, 27]


@pytest.mark.parametrize(
    ("name", "sources"),
    [
        ("US06859910.xml", {"examiner": 8}),
        ("US07272630B2.xml", {"other": 73, "examiner": 5}),  # v4.2: "cited by other"
        ("US08926509.xml", {"applicant": 117, "examiner": 13}),
        ("US08930553.xml", {"applicant": 10, "examiner": 6}),
        ("US20050004437A1.xml", {}),
    ],
)
def test_uspto_citation_sources(test_data, name, sources):
    doc = read_patent(test_data / "uspto" / name)
    counted: dict[str, int] = {}
    for citation in doc.citations:
        counted[citation.source] = counted.get(citation.source, 0) + 1
    assert counted == sources


def test_uspto_citation_numbers_normalised(test_data):
    doc = read_patent(test_data / "uspto" / "US08930553.xml")
    assert [c.cited_ucid for c in doc.citations[:4]] == [
        "US-7844851-B2", "US-7995466-B2", "US-8078737-B2", "US-20070140112-A1",
    ]
    assert doc.citations[-1].cited_ucid == "US-20140101322-A1"  # "2014/0101322"
    assert doc.citations[-1].cited_patent_key == "US20140101322"
    doc = read_patent(test_data / "uspto" / "US08926509.xml")
    assert doc.citations[-2].cited_ucid == "WO-2008097316-A1"  # doc-number "WO 2008/097316"
    doc = read_patent(test_data / "uspto" / "US07272630B2.xml")
    assert doc.citations[-1].cited_ucid == "EP-0663640"


def test_uspto_bibliographic_fields(test_data):
    doc = read_patent(test_data / "uspto" / "US08930553.xml")
    assert doc.date == "2015-01-06"
    assert doc.application_date == "2012-10-09"
    assert doc.ipc_classes == ["G06F 15/16"]
    assert doc.title == {"EN": "Managing mid-dialog session initiation protocol (SIP) messages"}
    assert doc.inventors == ["Nissim, Nitzan", "Pulito, Brian", "Zinger, Asaf"]
    assert doc.applicants == ["International Business Machines Corporation"]
    assert doc.claims["EN"][0].text.startswith("1. A system for processing mid-dialog SIP messages")
    old = read_patent(test_data / "uspto" / "US06859910.xml")
    assert old.ipc_classes == ["G06F 15/00", "G06F 17/00", "G06F 17/21", "G06F 17/24"]


def test_uspto_description_xpaths_follow_nesting(test_data):
    doc = read_patent(test_data / "uspto" / "US08930553.xml")
    paths = [p.xpath for p in doc.description]
    assert paths[0] == "/us-patent-grant/description/heading[1]"
    assert paths[1] == "/us-patent-grant/description/p[1]"
    assert "/us-patent-grant/description/description-of-drawings/heading[1]" in paths
    assert "/us-patent-grant/description/description-of-drawings/p[6]" in paths


def test_pre_v4_uspto_application_is_read(test_data):
    # A 2001 application (pap v1.5): read by pateval.patents.uspto_pap (tests/patents/test_uspto_legacy.py).
    assert read_patent(test_data / "uspto" / "US20010000044A1.xml").ucid == "US-20010000044-A1"


def test_iter_patents_over_the_sample_folders(test_data):
    errors = []
    documents = list(
        iter_patents(
            [*(test_data / "uspto" / name for name in ICE_AND_2001_SAMPLES),
             *sorted((test_data / "clefip").glob("EP-*.xml"))],
            on_error="skip",
            errors=errors,
        )
    )
    assert len(documents) == 7 + 3
    assert errors == []
