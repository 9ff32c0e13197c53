"""The USPTO formats older than ICE v4.0, on real samples in tests/data/uspto.

Applications 2001-2004 (``patent-application-publication``, DTD v1.5 and v1.6), grants
2001-2004 (``PATDOC``, ST.32 DTD v2.4 and v2.5) and grants 1976-2001 (APS text, the
"green book"). Every expected count below was taken from the raw file with grep/sed
(elements ``<paragraph``/``<heading`` inside ``subdoc-description``, ``<PARA``/``<H``
inside ``SDODE``, ``PAR``/``PAC`` lines between ``BSUM`` and ``CLMS``, ``<claim id``,
``<CLM``, ``NUM`` lines, ``<B561>``, ``UREF`` ...) or read off the text by hand, not from
the parser.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pateval.errors import InputFormatError
from pateval.patents import iter_patents, read_patent
from pateval.patents.reader import expand_paths, iter_file

DATA = Path(__file__).resolve().parents[1] / "data" / "uspto"


def _dependent(document):
    return {claim.number: claim.depends_on for claim in document.claims["EN"] if claim.depends_on}


def _counts(document):
    headings = sum(p.is_heading for p in document.description)
    return len(document.description) - headings, headings, len(document.claims.get("EN", [])), len(document.citations)


# ---- applications 2001-2004, patent-application-publication -----------------------------


def test_2001_application_v15_ingests_as_a_record():
    doc = read_patent(DATA / "US20010000044A1.xml")
    assert (doc.ucid, doc.country, doc.doc_number, doc.kind) == ("US-20010000044-A1", "US", "20010000044", "A1")
    assert doc.date == "2001-03-15" and doc.application_date == "1999-06-29"
    assert doc.title == {"EN": "Systems and Methods For Transacting Business Over A Global Communications "
                               "Network Such As The Internet"}
    assert doc.ipc_classes == ["G06F 17/60"]  # <ipc>G06F017/60</ipc>
    assert doc.inventors == ["Lin, Wayne W"]
    # 41 <paragraph and 5 <heading in subdoc-description; 21 claims; applications cite nothing.
    assert _counts(doc) == (41, 5, 21, 0)
    # "claim N" in the claim texts (this early file marks no dependent-claim-reference).
    assert _dependent(doc) == {
        2: (1,), 3: (1,), 4: (3,), 5: (4,), 6: (1,), 7: (1,), 8: (1,), 9: (1,), 10: (1,), 11: (1,), 12: (1,),
        14: (13,), 15: (13,), 16: (13,), 17: (16,), 18: (13,), 20: (19,), 21: (20,),
    }
    first = doc.description[0]
    assert first.xpath == "/patent-application-publication/subdoc-description/background-of-invention/heading[1]"
    assert first.text == "Field OF Invention" and first.is_heading
    # The paragraph number (<number>1.</number>) is not part of the text, as in ICE.
    second = doc.description[1]
    assert second.xpath == "/patent-application-publication/subdoc-description/background-of-invention/paragraph[1]"
    assert second.text.startswith("The present invention relates generally to systems and methods of doing business")
    claim = doc.claims["EN"][0]
    assert claim.xpath == "/patent-application-publication/subdoc-claims/claim[1]"
    assert claim.text.startswith("1.A method of doing business over a global communications network comprising the "
                                 "steps:")


def test_v15_application_with_dependent_claim_references_and_entities():
    doc = read_patent(DATA / "US20010000943A1.xml")
    assert doc.ucid == "US-20010000943-A1"
    assert doc.priority_dates == ["1999-04-05"]  # foreign-priority-data, JP
    assert doc.ipc_classes == ["H01J 1/62"]
    assert doc.applicants == ["IDEMITSU KOSAN CO., LTD."]
    assert doc.inventors == ["Fukuoka, Kenichi", "Eida, Mitsura"]
    assert _counts(doc) == (405, 29, 13, 0)
    # dependent-claim-reference depends_on="CLM-000NN", claim 13 names two claims.
    assert _dependent(doc) == {2: (1,), 3: (2,), 4: (2,), 5: (2,), 6: (1,), 7: (1,), 10: (1,), 12: (11,), 13: (11, 12)}
    # &ldquo; / &rdquo; (entities of the DTD, which is never loaded) become their characters.
    technical_field = next(p for p in doc.description
                           if p.text.startswith("The present invention relates to an organic"))
    assert "\u201corganic EL device\u201d" in technical_field.text
    # Five abstract paragraphs, formulas among them: &minus; -> U+2212.
    assert len(doc.abstract["EN"].split("\n")) == 5
    assert "Min\u221220 nm<t<Min+20 nm" in doc.abstract["EN"]


def test_v16_application():
    doc = read_patent(DATA / "pa040101.two.xml")
    assert doc.ucid == "US-20040000002-A1"
    assert doc.date == "2004-01-01" and doc.application_date == "2002-06-27"
    assert doc.ipc_classes == ["A41B 1/00"]
    assert doc.applicants == ["Hill-Rom Services, Inc."]
    assert _counts(doc) == (57, 4, 1, 0)
    assert doc.description[1].text.startswith("1. Field of the Invention")  # after "[0001]"
    assert doc.description[0].xpath == (
        "/patent-application-publication/subdoc-description/summary-of-invention/section[1]/heading[1]")


# ---- grants 2001-2004, PATDOC ------------------------------------------------------------


def test_v25_grant():
    doc = read_patent(DATA / "US06336130.xml")
    assert (doc.ucid, doc.kind) == ("US-6336130-B1", "B1")
    assert doc.date == "2002-01-01" and doc.application_date == "1999-10-05"
    assert doc.priority_dates == ["1997-04-08"]
    assert doc.ipc_classes == ["G06F 15/16", "G06F 13/00"]  # B511 "G06F 1516", B512 "G06F 1300"
    assert doc.title == {"EN": "Arrangement for improving availability of services in a communication system"}
    assert doc.inventors == ["Do, Thanh Van"]
    assert doc.applicants == ["Telefonaktiebolaget LM Ericsson (publ)"]
    # 42 <PARA and 4 <H in SDODE; 22 <CLM; 6 <B561> cited patents (the 3 B562 are papers).
    assert _counts(doc) == (42, 4, 22, 6)
    assert [(c.cited_ucid, c.source) for c in doc.citations] == [
        ("US-5825759-A", "examiner"), ("US-5974441-A", "examiner"), ("US-6049819-A", "examiner"),
        ("US-6076099-A", "examiner"), ("US-6085086-A", "examiner"), ("WO-9625012", "other"),
    ]
    # CLREF ID="CLM-000NN" (23 of them), one per dependent claim here.
    assert _dependent(doc) == {
        2: (1,), 3: (1,), 4: (1,), 5: (4,), 6: (4,), 7: (4,), 8: (7,), 10: (9,), 11: (10,), 12: (9,), 13: (10,),
        14: (9,), 15: (14,), 16: (15,), 17: (16,), 19: (18,), 20: (19,), 21: (19,), 22: (19,),
    }
    assert doc.description[0].xpath == "/PATDOC/SDODE/RELAPP/BTEXT/PARA[1]"
    assert doc.claims["EN"][0].xpath == "/PATDOC/SDOCL/CL/CLM[1]"
    assert doc.claims["EN"][1].text == ("2. The arrangement in claim 1, wherein the fixed network node agent is "
                                        "configured to perform a security function.")


def test_v24_design_grant():
    doc = read_patent(DATA / "USD435854S1.xml")
    assert (doc.ucid, doc.doc_number, doc.kind) == ("US-D0435854-S", "D0435854", "S")
    assert doc.ipc_classes == []  # B511 "1402" is a Locarno design class, not IPC
    assert _counts(doc) == (1, 0, 1, 10)
    assert {c.source for c in doc.citations} == {"examiner"}
    assert doc.claims["EN"][0].text == "The ornamental design for a disc cartridge, as shown and described."
    assert doc.abstract == {}


# ---- grants 1976-2001, APS text ----------------------------------------------------------


def test_aps_grant_1976():
    doc = read_patent(DATA / "US03937375.greenbook")
    assert (doc.ucid, doc.doc_number, doc.kind) == ("US-3937375-A", "3937375", "A")  # WKU 039373754
    assert doc.date == "1976-02-10" and doc.application_date == "1974-10-29"
    assert doc.title == {"EN": "Bumper support for a boat loader"}
    assert doc.ipc_classes == ["B60R 9/00"]  # ICL "B60R  900"
    assert doc.inventors == ["Daniels, Everette E."]
    # 21 PAR lines in BSUM/DRWD/DETD, no PAC; 3 NUM; 5 UREF.
    assert _counts(doc) == (21, 0, 3, 5)
    assert [c.cited_ucid for c in doc.citations] == ["US-2542907", "US-2762542", "US-2772799", "US-3113789",
                                                     "US-3702197"]
    assert {c.source for c in doc.citations} == {"other"}
    assert _dependent(doc) == {2: (1,), 3: (2,)}
    assert doc.description[0].xpath == "/PATN/BSUM/PAR[1]"
    assert doc.description[0].text == "This invention relates generally to automotive accessories."
    assert doc.description[-1].xpath == "/PATN/DETD/PAR[8]"
    assert doc.claims["EN"][2].xpath == "/PATN/CLMS/NUM[3]"
    assert doc.claims["EN"][2].text == (
        "3. The combination as set forth in claim 2, wherein a front end of said steel plate seat is fitted "
        "with a rubber guard to protect said car bumper from being scratched thereby.")
    assert doc.abstract["EN"].startswith("A unit mountable on a rear bumper of a vehicle, and which does not interfere")


def test_aps_grant_1982_with_headings_sub_paragraphs_and_priority():
    doc = read_patent(DATA / "US04347903.greenbook")
    assert doc.ucid == "US-4347903-A"
    assert doc.priority_dates == ["1978-07-10"]  # PRIR CNT JPX, APD 19780710
    assert doc.ipc_classes == ["G01G 19/04", "G01G 23/10", "G06F 7/28"]
    assert doc.applicants == ["Shimadzu Corporation"]
    assert len(doc.inventors) == 8  # 8 INVT segments
    # 22 PAR and 6 PAC between BSUM and CLMS; 3 NUM; 3 UREF.
    assert _counts(doc) == (22, 6, 3, 3)
    assert _dependent(doc) == {2: (1,), 3: (1,)}
    first = doc.claims["EN"][0]
    # The claim's PA1 lines (a) ... (l) are part of claim 1.
    assert first.text.startswith("1. A weighing balance device") and "(l) utilization means (14)" in first.text


def test_aps_weekly_file_of_several_patents(tmp_path):
    # A bulk file is patents one after the other, after a header line.
    weekly = tmp_path / "pftaps19760210_wk06.txt"
    weekly.write_bytes(b"HHHHHT  APS1 test header\n" + (DATA / "US03937375.greenbook").read_bytes()
                       + (DATA / "US04347903.greenbook").read_bytes())
    assert [d.ucid for d in iter_patents(tmp_path)] == ["US-3937375-A", "US-4347903-A"]
    assert expand_paths(tmp_path) == [str(weekly)]
    # Another header before the first patent.
    weekly.write_bytes(b"APS WEEKLY 1976-06\n\n" + (DATA / "US03937375.greenbook").read_bytes())
    assert [d.ucid for d in iter_patents(weekly)] == ["US-3937375-A"]


def test_aps_record_without_number_is_one_clear_error(tmp_path):
    bad = tmp_path / "bad.aps"
    text = (DATA / "US03937375.greenbook").read_text().replace("WKU  039373754\n", "")
    bad.write_text(text + (DATA / "US04347903.greenbook").read_text())
    with pytest.raises(InputFormatError) as caught:
        list(iter_patents(bad))
    assert str(caught.value) == (f"{bad}, line 1: APS patent record without a patent number "
                                 "(expected a WKU field after PATN)")
    items = list(iter_file(bad, on_error="skip"))
    assert [getattr(i, "ucid", None) for i in items] == [None, "US-4347903-A"]
    assert items[0].line == 1


def test_every_era_in_one_folder(tmp_path):
    for name in ("US20010000044A1.xml", "US20010000943A1.xml", "pa040101.two.xml", "US06336130.xml",
                 "USD435854S1.xml", "US03937375.greenbook", "US04347903.greenbook"):
        shutil.copy(DATA / name, tmp_path / name)
    ucids = sorted(d.ucid for d in iter_patents(tmp_path))
    assert ucids == sorted([
        "US-20010000044-A1", "US-20010000943-A1", "US-20040000002-A1", "US-6336130-B1", "US-D0435854-S",
        "US-3937375-A", "US-4347903-A",
    ])


def test_old_xml_without_a_number_is_one_clear_error(tmp_path):
    application = tmp_path / "application.xml"
    application.write_bytes((DATA / "US20010000044A1.xml").read_bytes().replace(
        b"<doc-number>20010000044</doc-number>", b"<doc-number></doc-number>"))
    with pytest.raises(InputFormatError) as caught:
        read_patent(application)
    assert str(caught.value) == (
        f"{application}, line 3: USPTO application without a publication number "
        "(expected subdoc-bibliographic-information/document-id/doc-number)")
    grant = tmp_path / "grant.xml"
    grant.write_bytes((DATA / "USD435854S1.xml").read_bytes().replace(b"<SDOBI>", b"<SDOBX>").replace(
        b"</SDOBI>", b"</SDOBX>"))
    with pytest.raises(InputFormatError) as caught:
        read_patent(grant)
    assert str(caught.value) == f"{grant}, line 1: USPTO grant without bibliographic data (expected SDOBI)"


def test_empty_aps_file(tmp_path):
    path = tmp_path / "empty.aps"
    path.write_text("HHHHHT  APS1 header only\n")
    with pytest.raises(InputFormatError) as caught:
        read_patent(path)
    assert str(caught.value) == f"{path}: no APS patent record (PATN) in the file"


def test_aps_continuation_line_without_a_field_is_an_error(tmp_path):
    # An indented line right after a segment header (ABST) continues nothing: an error
    # naming its line, not a line dropped from the abstract.
    text = (DATA / "US03937375.greenbook").read_text()
    bad = tmp_path / "bad.aps"
    bad.write_text(text.replace("ABST\nPAL  A unit", "ABST\n      stray words\nPAL  A unit"))
    with pytest.raises(InputFormatError) as caught:
        list(iter_patents(bad))
    assert str(caught.value) == (f"{bad}, line 62: continuation line without a field "
                                 "(expected a field line (after segment ABST), found 'stray words')")
    # Right after PATN, before any field of the patent, too.
    bad.write_text(text.replace("PATN\nWKU", "PATN\n      stray\nWKU", 1))
    with pytest.raises(InputFormatError) as caught:
        list(iter_patents(bad))
    assert str(caught.value) == (f"{bad}, line 2: continuation line without a field "
                                 "(expected a field line (after segment PATN), found 'stray')")


def test_aps_file_is_read_in_one_encoding(tmp_path):
    text = (DATA / "US03937375.greenbook").read_text()
    title = "TTL  Bumper support for a boat loader"
    abstract = "PAL  A unit mountable"
    # All UTF-8: read as UTF-8.
    path = tmp_path / "utf8.aps"
    path.write_bytes(text.replace(title, title + " caf\u00e9").encode("utf-8"))
    assert read_patent(path).title["EN"].endswith("boat loader caf\u00e9")
    # One latin-1 byte (\xe9 in the abstract) makes the whole file latin-1: the title's
    # UTF-8 bytes c3 a9 read as two latin-1 letters, not as UTF-8 in one line and latin-1
    # in another.
    path = tmp_path / "mixed.aps"
    path.write_bytes(text.replace(title, title + " caf\u00e9").encode("utf-8").replace(
        abstract.encode(), abstract.encode() + b" \xe9t\xe9"))
    document = read_patent(path)
    assert document.title["EN"].endswith("boat loader caf\u00c3\u00a9")
    assert document.abstract["EN"].startswith("A unit mountable \u00e9t\u00e9")


@pytest.mark.parametrize("name", ["US03937375.greenbook", "US06336130.xml"])
def test_a_patent_read_from_a_named_pipe_outside_a_job(tmp_path, name):
    # the APS sniffer, the encoding sniffer and the reader each open the input: a pipe is read
    # once for all three, also when the library is called outside a command or evaluation
    import dataclasses
    import os
    import threading

    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    expected = read_patent(DATA / name)
    fifo = tmp_path / "patent.fifo"
    os.mkfifo(fifo)
    for read in (read_patent, lambda path: list(iter_patents(path))[0]):
        writer = threading.Thread(target=lambda: fifo.write_bytes((DATA / name).read_bytes()))
        writer.start()
        try:
            assert dataclasses.replace(read(fifo), source_path=expected.source_path) == expected
        finally:
            writer.join(timeout=10)
