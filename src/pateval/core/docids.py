"""Document keys: matching run documents to judged documents.

CLEF-IP judged patents, not publications: a citation of EP0971326 makes every publication
of that patent (EP-0971326-A1, EP-0971326-B1, ...) relevant. With ``doc_key="patent"``
runs and qrels are matched on :func:`patent_key`, which drops the kind code and the
number's leading zeros and the separators: ``EP-0971326-B1``, ``EP0971326`` and
``EP-971326-A2`` all become ``EP971326``. Ids that are not patent numbers are kept as
they are.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

__all__ = ["DOC_KEYS", "patent_key", "patent_keys", "document_keys"]

DOC_KEYS = ("publication", "patent")

# country code, optional separator, number (leading zeros dropped), optional kind code
_PATENT = re.compile(r"^([A-Z]{2})[-_ ]?0*(\d+)(?:[-_ ]?([A-Z]\d?))?$")


def patent_key(docno: str) -> str:
    """The patent-level key of a publication id.

    Examples
    --------
    >>> patent_key("EP-0971326-B1"), patent_key("EP0971326"), patent_key("US07272630B2")
    ('EP971326', 'EP971326', 'US7272630')
    >>> patent_key("FR940202-2-00150")  # not a patent number: unchanged
    'FR940202-2-00150'
    """
    match = _PATENT.match(docno)
    if match is None:
        return docno
    return match.group(1) + match.group(2)


def patent_keys(docnos: np.ndarray) -> np.ndarray:
    """:func:`patent_key` over an array of ids (vectorised with pandas' string methods)."""
    series = pd.Series(docnos, dtype=object)
    parts = series.str.extract(_PATENT)
    keys = (parts[0] + parts[1]).to_numpy(dtype=object, copy=True)
    missing = parts[0].isna().to_numpy()
    keys[missing] = series.to_numpy(dtype=object)[missing]
    return keys


def document_keys(docnos: np.ndarray, doc_key: str) -> np.ndarray:
    """The keys documents are matched on: the ids themselves, or their patent keys."""
    if doc_key == "patent":
        return patent_keys(docnos)
    return docnos
