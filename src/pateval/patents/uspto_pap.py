"""USPTO pre-grant publications of 2001-2004 (``patent-application-publication``, DTD
``pap-v15-2001-01-31`` and ``pap-v16-2002-01-01``) to :class:`PatentDocument`.

The same record as an ICE v4.x application (:mod:`pateval.patents.uspto`): one language
(English), the ucid ``US-20010000044-A1``, description paragraphs and headings with
XPaths in the CLEF-IP convention (``/patent-application-publication/subdoc-description/
summary-of-invention/section[1]/paragraph[2]``), claims with dependencies from
``dependent-claim-reference depends_on="CLM-00001"`` and from the claim words.

What differs from ICE: paragraphs carry their number as a child element
(``<number>[0001]</number>``), which ICE keeps in an attribute; it is left out of the text
so that the two eras give the same paragraph text. Claims have no ``num`` attribute; their
number comes from the id (``CLM-00003`` -> 3). These publications list no citations.
"""

from __future__ import annotations

from functools import partial

from lxml import etree

from ._xmltools import child_text, ipc_symbol, iso_date, last_first, read_claims, unique
from .records import PatentDocument
from .safexml import XmlDocument, element_text, remove_keeping_text
from .uspto import uspto_bibliographic, uspto_record

__all__ = ["PAP_ROOT_TAG", "read_pap_document"]

PAP_ROOT_TAG = "patent-application-publication"

# Tables, formulas set apart, chemistry and drawings are not passages (as in ICE).
_SKIPPED = frozenset({"table-cwu", "table", "math-cwu", "chemistry-cwu", "figure", "image", "subdoc-drawings"})


def paragraph_text(paragraph: etree._Element) -> str:
    """A paragraph's text without its ``<number>`` child (ICE keeps the number in an
    attribute, so the texts of the two eras agree). The number is taken out of the
    tree, which is read once."""
    for number in paragraph.findall("number"):
        remove_keeping_text(number, number.tail or "")
    return element_text(paragraph)


def read_pap_document(document: XmlDocument) -> PatentDocument:
    """Turn one parsed ``patent-application-publication`` into a record."""
    bibliographic = uspto_bibliographic(document, "application", "subdoc-bibliographic-information")
    identity = bibliographic.find("document-id")
    country = (child_text(identity, "country-code") or "US").upper()
    kind = (child_text(identity, "kind-code") or "").upper()
    return uspto_record(
        document, bibliographic, "application", country, child_text(identity, "doc-number"),
        "subdoc-bibliographic-information/document-id/doc-number", kind, "EN",
        title_path="technical-information/title-of-invention", abstract_tag="subdoc-abstract",
        paragraph_tag="paragraph", text_of=paragraph_text,
        texts={"description_tag": "subdoc-description", "claims_tag": "subdoc-claims", "skipped_tags": _SKIPPED,
               "claims_of": partial(read_claims, ref_tag="dependent-claim-reference", ref_attribute="depends_on",
                                    number_from_id=True)},
        date=iso_date(child_text(identity, "document-date")),
        application_date=iso_date(child_text(bibliographic, "domestic-filing-data/filing-date")),
        priority_dates=unique(iso_date(child_text(priority, "filing-date"))
                              for priority in bibliographic.iterfind("foreign-priority-data")),
        citations=[],
        ipc_classes=unique(ipc_symbol(element.text)
                           for element in bibliographic.iterfind("technical-information/classification-ipc/*/ipc")),
        applicants=unique(_assignee(a) for a in bibliographic.iterfind("assignee")),
        inventors=unique(_person(inventor.find("name")) for inventor in bibliographic.iterfind("inventors/*")
                         if inventor.tag in ("first-named-inventor", "inventor")),
    )


def _person(name: etree._Element | None) -> str | None:
    """``family-name, given-name middle-name`` (the "last, first" form the other readers give)."""
    if name is None:
        return None
    given = " ".join(t for t in (child_text(name, "given-name"), child_text(name, "middle-name")) if t)
    return last_first(child_text(name, "family-name"), given)


def _assignee(assignee: etree._Element) -> str | None:
    return child_text(assignee, "organization-name") or _person(assignee.find("name"))
