"""CLEF-IP / MAREC ``patent-document`` XML to :class:`PatentDocument`.

The layout follows the MAREC DTD (``patent-document-v1.4.dtd``): attributes of the root
carry the ids and the publication date; bibliographic-data holds the application and
priority references, IPC classes, titles, citations and parties; abstract, description
and claims follow, one element per language.
"""

from __future__ import annotations

import re

from lxml import etree

from ..core.docids import make_ucid, split_ucid
from ..errors import malformed
from ._xmltools import child_text, ipc_fields, ipc_symbol, iso_date, lang_code, party_name, texts_by_language, unique
from .records import Citation, PatentDocument, parse_claim_list
from .safexml import XmlDocument, element_text

__all__ = ["ROOT_TAG", "read_clefip_document", "CLEFIP_SOURCE_NAMES"]

ROOT_TAG = "patent-document"

#: ``source/@name`` -> citation source. 115 is a third-party observation (Art. 115 EPC).
CLEFIP_SOURCE_NAMES = {
    "APP": "applicant",
    "SEA": "search",
    "EXA": "examiner",
    "OPP": "opposition",
    "115": "other",
    "UNKNOWN": "other",
}

_CATEGORY_LETTERS = re.compile(r"[A-Z&]")


def read_clefip_document(document: XmlDocument) -> PatentDocument:
    """Turn one parsed ``patent-document`` into a record.

    Raises
    ------
    InputFormatError
        When the document has no usable id or holds an unreadable relevant-claims list.
    """
    root = document.root
    country, number, kind, ucid = _identity(document)
    lang = lang_code(root.get("lang"))
    bibliographic = root.find("bibliographic-data")
    if bibliographic is None:
        bibliographic = etree.Element("bibliographic-data")  # nothing found in it: empty fields

    title: dict[str, str] = {}
    for element in bibliographic.iter("invention-title"):
        if text := element_text(element):
            title.setdefault(lang_code(element.get("lang")) or lang or "", text)

    abstract: dict[str, str] = {}
    for element in root.iterfind("abstract"):
        paragraphs = [element_text(p) for p in element.iter("p")] or [element_text(element)]
        if text := "\n".join(p for p in paragraphs if p):
            abstract.setdefault(lang_code(element.get("lang")) or lang or "", text)

    description, claims = texts_by_language(root, lambda element: lang_code(element.get("lang")) or lang)
    return PatentDocument(
        ucid=ucid, country=country, doc_number=number, kind=kind,
        family_id=(root.get("family-id") or "").strip() or None, lang=lang,
        date=iso_date(root.get("date"))
        or iso_date(child_text(bibliographic, "publication-reference/document-id/date")),
        application_date=iso_date(child_text(bibliographic, "application-reference/document-id/date")),
        priority_dates=unique(iso_date(child_text(claim, "document-id/date"))
                              for claim in bibliographic.iterfind("priority-claims/priority-claim")),
        title=title, abstract=abstract, description=description, claims=claims,
        ipc_classes=_ipc_classes(bibliographic), citations=_citations(document, bibliographic),
        applicants=_parties(bibliographic, "parties/applicants/applicant"),
        inventors=_parties(bibliographic, "parties/inventors/inventor"), source_path=document.path,
    )


def _identity(document: XmlDocument) -> tuple[str, str, str, str]:
    root = document.root
    ucid = (root.get("ucid") or "").strip()
    country = (root.get("country") or "").strip().upper()
    number = (root.get("doc-number") or "").strip()
    kind = (root.get("kind") or "").strip().upper()
    if ucid:
        try:
            u_country, u_number, u_kind = split_ucid(ucid)
        except ValueError:
            malformed(document.path, document.first_line, "bad ucid attribute",
                      expected="COUNTRY-NUMBER-KIND", found=ucid)
        return country or u_country, number or u_number, kind or u_kind or "", ucid.upper()
    if not (country and number):
        malformed(document.path, document.first_line, "patent-document without an id",
                  expected="@ucid or @country and @doc-number")
    return country, number, kind, make_ucid(country, number, kind or None)


def _ipc_classes(bibliographic: etree._Element) -> list[str]:
    symbols = [ipc_symbol(e.text) for e
               in bibliographic.iterfind("technical-data/classifications-ipcr/classification-ipcr")]
    if not any(symbols):
        # Older files (and some MAREC sources) only have the IPC (not IPCR) fields.
        symbols = ipc_fields(bibliographic, "technical-data/classification-ipc")
    return unique(symbols)


def _parties(bibliographic: etree._Element, path: str) -> list[str]:
    """Names of applicants or inventors. MAREC repeats each party in several formats
    (epo, intermediate, original); the first format present is used so that each party
    is listed once."""
    parties = bibliographic.findall(path)
    for wanted in ("epo", "intermediate", "original"):
        if chosen := [p for p in parties if p.get("format") == wanted]:
            return unique(party_name(p) for p in chosen)
    return unique(party_name(p) for p in parties)


def _citations(document: XmlDocument, bibliographic: etree._Element) -> list[Citation]:
    citations: list[Citation] = []
    for patcit in bibliographic.iter("patcit"):
        document_id = patcit.find("document-id")
        cited_country = (child_text(document_id, "country") or "").upper()
        cited_number = child_text(document_id, "doc-number") or ""
        cited_kind = (child_text(document_id, "kind") or "").upper() or None
        ucid = (patcit.get("ucid") or "").strip().upper()
        if ucid:
            try:
                cited_country, cited_number, cited_kind = split_ucid(ucid)
            except ValueError:
                malformed(document.path, document.line_of(patcit), "bad patcit ucid",
                          expected="COUNTRY-NUMBER[-KIND]", found=ucid)
        elif not (cited_country and cited_number):
            continue  # a patcit given as free text only names no document we can match
        else:
            ucid = make_ucid(cited_country, cited_number, cited_kind)

        # The search report's rel-passage blocks: passages, categories, claims.
        passages: list[str] = []
        passage_categories: list[str] = []
        relevant: set[int] = set()
        for block in patcit.iterfind("rel-passage"):
            passages.extend(element_text(p) for p in block.iterfind("passage"))
            passage_categories.extend(element_text(c) for c in block.iterfind("category"))
            for claims_list in block.iterfind("rel-claims"):
                relevant.update(
                    parse_claim_list(element_text(claims_list), path=document.path, line=document.line_of(claims_list))
                )
        sources = patcit.findall("sources/source") or [None]
        # rel-passage data come from the search report: attach them to the SEA source,
        # or to the only source when there is no SEA.
        names = [s.get("name", "").upper() if s is not None else "" for s in sources]
        carrier = names.index("SEA") if "SEA" in names else 0
        for position, (source, name) in enumerate(zip(sources, names, strict=False)):
            own_categories = [source.get("category", "")] if source is not None else []
            if position == carrier:
                own_categories += passage_categories
            citations.append(Citation(
                cited_ucid=ucid, cited_country=cited_country, cited_number=cited_number, cited_kind=cited_kind,
                source=CLEFIP_SOURCE_NAMES.get(name, "other"), categories=_categories(own_categories),
                relevant_claims=tuple(sorted(relevant)) if position == carrier else (),
                passages=tuple(p for p in passages if p) if position == carrier else (),
            ))
    return citations


def _categories(values: list[str]) -> str:
    """Merge category strings ("X", "XY", "P,X") into unique letters in order."""
    return "".join(dict.fromkeys(letter for value in values
                                 for letter in _CATEGORY_LETTERS.findall((value or "").upper())))
