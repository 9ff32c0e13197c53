"""Patent documents: readers (CLEF-IP / MAREC, USPTO ICE and the older USPTO formats),
the record schema, and claim structure.

The record types live in :mod:`pateval.patents.records`; readers in
:mod:`pateval.patents.reader` (format-independent), :mod:`~pateval.patents.clefip`,
:mod:`~pateval.patents.uspto` (ICE v4.x), :mod:`~pateval.patents.uspto_pap` (applications
2001-2004), :mod:`~pateval.patents.uspto_patdoc` (grants 2001-2004, ST.32 XML) and
:mod:`~pateval.patents.uspto_aps` (grants 1976-2001, APS text); claim dependencies, claim trees and the Cube Test's claim
weights in :mod:`pateval.patents.claims`; the safe XML settings in
:mod:`pateval.patents.safexml`.
"""

from .claims import ClaimTree, claim_weights, references_in_text, resolve_dependencies
from .reader import ReadError, iter_patents, read_patent
from .records import (
    CITATION_SOURCES,
    Citation,
    Claim,
    Passage,
    PatentDocument,
    format_claim_list,
    ipc_prefix,
    parse_claim_list,
    patent_key,
    patent_keys,
    split_ucid,
)

__all__ = [
    "CITATION_SOURCES",
    "Citation",
    "Claim",
    "ClaimTree",
    "Passage",
    "PatentDocument",
    "ReadError",
    "claim_weights",
    "format_claim_list",
    "ipc_prefix",
    "iter_patents",
    "parse_claim_list",
    "patent_key",
    "patent_keys",
    "read_patent",
    "references_in_text",
    "resolve_dependencies",
    "split_ucid",
]
