"""Patent documents: readers (CLEF-IP / MAREC, USPTO ICE and the older USPTO formats),
the record schema, and claim structure.

The record types live in :mod:`pateval.patents.records` (the identifiers in
:mod:`pateval.core.docids`); readers in :mod:`pateval.patents.reader` (format-independent),
:mod:`~pateval.patents.clefip`, :mod:`~pateval.patents.uspto` (ICE v4.x),
:mod:`~pateval.patents.uspto_pap` (applications 2001-2004), :mod:`~pateval.patents.uspto_patdoc`
(grants 2001-2004, ST.32 XML) and :mod:`~pateval.patents.uspto_aps` (grants 1976-2001, APS
text); claim dependencies, claim trees and the Cube Test's claim weights in
:mod:`pateval.patents.claims`; the safe XML settings in :mod:`pateval.patents.safexml`.
"""

from __future__ import annotations

from .._lazy import lazy_exports

# Loaded on first use: the readers need lxml. The identifiers (patent_key, split_ucid, ...)
# are pateval.core.docids's: evaluation matches documents on them below the readers.
_EXPORTS = {
    "ClaimTree": "claims", "claim_weights": "claims", "references_in_text": "claims", "resolve_dependencies": "claims",
    "ReadError": "reader", "iter_patents": "reader", "read_patent": "reader",
    **{name: "records" for name in ("CITATION_SOURCES", "Citation", "Claim", "Passage", "PatentDocument",
                                    "format_claim_list", "ipc_prefix", "parse_claim_list")},
}

__all__ = tuple(sorted(_EXPORTS))

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
