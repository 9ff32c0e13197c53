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
import pyarrow as pa
import pyarrow.compute as pc

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


def patent_keys(docnos):
    """:func:`patent_key` over many ids at once (Arrow's RE2 regex kernel).

    Accepts and returns the same kind of array: a ``pyarrow`` string array, or a NumPy
    array of str.
    """
    arrow = isinstance(docnos, (pa.Array, pa.ChunkedArray))
    values = docnos if arrow else pa.array(np.asarray(docnos, dtype=object), type=pa.string())
    keys = pc.replace_substring_regex(values, pattern=_PATENT.pattern, replacement=r"\1\2")
    return keys if arrow else keys.to_numpy(zero_copy_only=False).astype(object, copy=False)


def document_keys(docnos, doc_key: str):
    """The keys documents are matched on: the ids themselves, or their patent keys."""
    if doc_key == "patent":
        return patent_keys(docnos)
    return docnos
