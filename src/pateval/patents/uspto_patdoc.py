"""USPTO grants of 2002-2004 in the ST.32 XML of DTD v2.4 / v2.5 (root ``PATDOC``) to
:class:`PatentDocument`.

The same record as an ICE v4.x grant (:mod:`pateval.patents.uspto`). The format names its
fields by WIPO ST.32 codes: ``B110`` publication number, ``B130`` kind, ``B140`` date,
``B220`` filing date, ``B320`` priority dates, ``B511``/``B512`` IPC (fixed width, no
slash: ``G06F 1516``), ``B540`` title, ``B561`` cited patents (``CITED-BY-EXAMINER`` or
``CITED-BY-OTHER``), ``B721`` inventors, ``B731`` assignees; text sits in ``PDAT``
elements. The description (``SDODE``) holds headings ``H`` and paragraphs ``PARA``
(XPaths such as ``/PATDOC/SDODE/BRFSUM/BTEXT/PARA[3]``); claims (``SDOCL/CL/CLM``) refer to
each other with ``CLREF ID="CLM-00001"`` and in words.
"""

from __future__ import annotations

from lxml import etree

from ._xmltools import child_text, indexed_children, ipc_fixed_width, iso_date, last_first, read_claims, unique
from .records import Citation, Claim, PatentDocument
from .safexml import XmlDocument
from .uspto import uspto_bibliographic, uspto_citation, uspto_record

__all__ = ["PATDOC_ROOT_TAG", "read_patdoc_document"]

PATDOC_ROOT_TAG = "PATDOC"

# Tables, formulas, chemistry and images are not passages (as in ICE).
_SKIPPED = frozenset({"CWU", "TABLE-US", "MATH-US", "CHEM-US", "EMI", "SDODR"})


def read_patdoc_document(document: XmlDocument) -> PatentDocument:
    """Turn one parsed ``PATDOC`` (grant, DTD v2.4 or v2.5) into a record."""
    bibliographic = uspto_bibliographic(document, "grant", "SDOBI")
    country = (child_text(bibliographic, "B100/B190") or "US").upper()
    kind = (child_text(bibliographic, "B100/B130") or "").upper()
    return uspto_record(
        document, bibliographic, "grant", country, child_text(bibliographic, "B100/B110/DNUM"),
        "SDOBI/B100/B110/DNUM", kind, "EN", title_path="B500/B540", abstract_tag="SDOAB", paragraph_tag="PARA",
        texts={"description_tag": "SDODE", "claims_tag": "SDOCL", "heading_tags": frozenset({"H"}),
               "skipped_tags": _SKIPPED, "claims_of": _claims},
        date=iso_date(child_text(bibliographic, "B100/B140/DATE")),
        application_date=iso_date(child_text(bibliographic, "B200/B220/DATE")),
        priority_dates=unique(iso_date(child_text(p, "B320/DATE")) for p in bibliographic.iterfind("B300")),
        citations=_citations(bibliographic),
        # The raw text: the fixed-width fields live on its spaces.
        ipc_classes=unique(ipc_fixed_width("".join(element.itertext()))
                           for element in bibliographic.iterfind("B500/B510/*") if element.tag in ("B511", "B512")),
        applicants=unique(_party(p) for p in bibliographic.iterfind("B700/B730/B731/PARTY-US")),
        inventors=unique(_party(p) for p in bibliographic.iterfind("B700/B720/B721/PARTY-US")),
    )


def _claims(sdocl: etree._Element, path: str) -> list[Claim]:
    """The claims of every ``CL`` group of ``SDOCL``, in order."""
    return [claim for element, element_path in indexed_children(sdocl, path) if element.tag == "CL"
            for claim in read_claims(element, element_path, claim_tag="CLM", ref_tag="CLREF", ref_attribute="ID",
                                     id_attribute="ID", number_from_id=True)]


def _citations(bibliographic: etree._Element) -> list[Citation]:
    citations = []
    for entry in bibliographic.iterfind("B500/B560/B561"):
        cited = entry.find("PCIT/DOC")
        raw_number = child_text(cited, "DNUM")
        if not raw_number:
            continue
        country = (child_text(cited, "CTRY") or "US").upper()
        kind = (child_text(cited, "KIND") or "").upper() or None
        # The marker follows PCIT inside B561 (a few files put it inside PCIT).
        by_examiner = next(entry.iter("CITED-BY-EXAMINER"), None) is not None
        citations.append(uspto_citation(raw_number, country, kind, "examiner" if by_examiner else "other"))
    return citations


def _party(party: etree._Element) -> str | None:
    """An organisation name, or ``surname, first names`` (the form the other readers give)."""
    name = party.find("NAM")
    if name is None:
        return None
    return child_text(name, "ONM") or last_first(child_text(name, "SNM"), child_text(name, "FNM"))
