"""USPTO full-text ICE XML (``us-patent-grant``, ``us-patent-application``, v4.0 and
later) to :class:`PatentDocument`.

Differences from CLEF-IP that matter here: one language (the root's ``@lang``, English);
numbers zero-padded to eight digits in the document's own id (``08930553``) but not in
citations (``7844851``), so the record's ucid drops leading zeros to make the two meet;
published applications cited as ``2007/0140112``, which becomes ``20070140112``;
dependencies marked with ``claim-ref``; citations carrying the citing party in words
("cited by examiner") and no search-report category.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lxml import etree

from ..core.docids import make_ucid
from ..errors import malformed
from ._xmltools import child_text, ipc_fields, ipc_symbol, iso_date, lang_code, party_name, texts_by_language, unique
from .records import Citation, PatentDocument
from .safexml import XmlDocument, element_text

__all__ = ["ROOT_TAGS", "read_uspto_document", "USPTO_CITATION_SOURCES", "uspto_number", "uspto_citation"]

ROOT_TAGS = ("us-patent-grant", "us-patent-application")

#: ``us-citation/category`` text -> citation source.
USPTO_CITATION_SOURCES = {
    "cited by examiner": "examiner",
    "cited by applicant": "applicant",
    "cited by third party": "other",
    "cited by other": "other",
}


def uspto_number(number: str, country: str = "US") -> str:
    """A document number as ucids write it.

    ``/`` and spaces are removed and a repeated country prefix dropped (``WO 2008/097316``
    -> ``2008097316``); US numbers also lose their leading zeros (``08930553`` ->
    ``8930553``, ``2007/0140112`` -> ``20070140112``) so that a grant's own id and the
    citations of it agree. Other countries keep theirs (CLEF-IP writes ``EP-0663640``).
    """
    cleaned = number.replace("/", "").replace(" ", "").strip().upper()
    if country and cleaned.startswith(country) and cleaned[len(country):].isdigit():
        cleaned = cleaned[len(country):]
    if country == "US" and cleaned.isdigit():
        return cleaned.lstrip("0") or "0"
    return cleaned


def uspto_citation(raw_number: str, country: str, kind: str | None, source: str) -> Citation:
    """A citation of the patent numbered ``raw_number`` (as the file writes it) in ``country``."""
    number = uspto_number(raw_number, country)
    return Citation(cited_ucid=make_ucid(country, number, kind), cited_country=country, cited_number=number,
                    cited_kind=kind, source=source)


def uspto_bibliographic(document: XmlDocument, what: str, *tags: str) -> etree._Element:
    """The bibliographic data of a USPTO ``what`` (grant, application): the first of the
    root's children ``tags`` present; an InputFormatError naming them when none is."""
    for tag in tags:
        if (found := document.root.find(tag)) is not None:
            return found
    malformed(document.path, document.first_line, f"USPTO {what} without bibliographic data",
              expected=" or ".join(tags))


def uspto_record(document: XmlDocument, bibliographic: etree._Element, what: str, country: str,
                 raw_number: str | None, number_path: str, kind: str, lang: str, *, title_path: str,
                 abstract_tag: str, paragraph_tag: str, text_of=element_text, texts: Mapping[str, Any] | None = None,
                 **fields: Any) -> PatentDocument:
    """A record with what every USPTO format gives alike, the formats differing only in tag
    names: the ucid of the publication number (``raw_number``, from ``number_path``: an
    InputFormatError calling the document a USPTO ``what`` when it is missing), one
    language, no family, the title (at ``title_path`` under the bibliographic data), the
    first abstract (its ``paragraph_tag`` paragraphs joined by new lines, or its whole
    text), the description's passages (its ``paragraph_tag`` paragraphs read by ``text_of``)
    and the claims, by ``texts_by_language`` given ``texts`` (the format's other tags and
    claims reader); ``fields`` are the rest of the record."""
    if not raw_number:
        malformed(document.path, document.line_of(bibliographic), f"USPTO {what} without a publication number",
                  expected=number_path)
    number = uspto_number(raw_number, country)
    title_text = child_text(bibliographic, title_path)
    title = {lang: title_text} if title_text else {}
    abstract: dict[str, str] = {}
    for element in document.root.iterfind(abstract_tag):
        text = "\n".join(t for t in (text_of(p) for p in element.iter(paragraph_tag)) if t) or element_text(element)
        if text:
            abstract.setdefault(lang, text)
    description, claims = texts_by_language(document.root, lambda _element: lang, text_of=text_of,
                                            paragraph_tags=frozenset({paragraph_tag}), **(texts or {}))
    return PatentDocument(ucid=make_ucid(country, number, kind or None), country=country, doc_number=number,
                          kind=kind, family_id=None, lang=lang, title=title, abstract=abstract,
                          description=description, claims=claims, source_path=document.path, **fields)


def read_uspto_document(document: XmlDocument) -> PatentDocument:
    """Turn one parsed ``us-patent-grant`` / ``us-patent-application`` into a record."""
    root = document.root
    bibliographic = uspto_bibliographic(document, "document", "us-bibliographic-data-grant",
                                        "us-bibliographic-data-application")
    publication = bibliographic.find("publication-reference/document-id")
    country = (child_text(publication, "country") or root.get("country") or "US").upper()
    kind = (child_text(publication, "kind") or "").upper()
    lang = lang_code(root.get("lang")) or "EN"
    return uspto_record(
        document, bibliographic, "document", country, child_text(publication, "doc-number"),
        "publication-reference/document-id/doc-number", kind, lang,
        title_path="invention-title", abstract_tag="abstract", paragraph_tag="p",
        date=iso_date(child_text(publication, "date")) or iso_date(root.get("date-publ")),
        application_date=iso_date(child_text(bibliographic, "application-reference/document-id/date")),
        priority_dates=unique(iso_date(child_text(claim, "date"))
                              for claim in bibliographic.iterfind("priority-claims/priority-claim")),
        ipc_classes=_ipc_classes(bibliographic),
        citations=_citations(bibliographic), applicants=_applicants(bibliographic), inventors=_inventors(bibliographic),
    )


def _ipc_classes(bibliographic: etree._Element) -> list[str]:
    symbols = []
    for element in bibliographic.iterfind("classifications-ipcr/classification-ipcr"):
        parts = [child_text(element, tag) or "" for tag in ("section", "class", "subclass", "main-group", "subgroup")]
        symbols.append(ipc_symbol(f"{parts[0]}{parts[1]}{parts[2]} {parts[3]}/{parts[4]}"))
    return unique(symbols + ipc_fields(bibliographic, "classification-ipc"))


def _citations(bibliographic: etree._Element) -> list[Citation]:
    citations: list[Citation] = []
    for entry in [*bibliographic.iterfind("us-references-cited/us-citation"),
                  *bibliographic.iterfind("references-cited/citation")]:
        document_id = entry.find("patcit/document-id")  # None for non-patent literature (nplcit)
        raw_number = child_text(document_id, "doc-number")
        if not raw_number:
            continue
        country = (child_text(document_id, "country") or "US").upper()
        kind = (child_text(document_id, "kind") or "").upper() or None
        category = (child_text(entry, "category") or "").strip().lower()
        citations.append(uspto_citation(raw_number, country, kind, USPTO_CITATION_SOURCES.get(category, "other")))
    return citations


def _applicants(bibliographic: etree._Element) -> list[str]:
    parties = [*bibliographic.iterfind("us-parties/us-applicants/us-applicant"),
               *bibliographic.iterfind("parties/applicants/applicant"), *bibliographic.iterfind("assignees/assignee")]
    return unique(party_name(p) for p in parties)


def _inventors(bibliographic: etree._Element) -> list[str]:
    inventors = [*bibliographic.iterfind("us-parties/inventors/inventor"),
                 *bibliographic.iterfind("parties/inventors/inventor")]
    if not inventors:
        # v4.0 lists inventors among the applicants, as app-type="applicant-inventor".
        inventors = [a for a in bibliographic.iterfind("parties/applicants/applicant")
                     if "inventor" in (a.get("app-type") or "")]
    return unique(party_name(p) for p in inventors)
