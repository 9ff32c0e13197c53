"""Document keys: matching run documents to judged documents.

CLEF-IP judged patents, not publications: a citation of EP0971326 makes every publication
of that patent (EP-0971326-A1, EP-0971326-B1, ...) relevant. With ``doc_key="patent"``
runs and qrels are matched on the patent key of
:func:`pateval.patents.records.patent_keys` (the one implementation): country and
number without kind code, the number written with seven digits at least, so that
``EP-0971326-B1``, ``EP0971326`` and ``EP-971326-A2`` all become ``EP0971326``. Ids that
are not patent numbers are kept as their own key (upper-cased).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..patents.records import patent_keys as _record_patent_keys

__all__ = ["DOC_KEYS", "patent_key", "patent_keys", "document_keys"]

from .names import DOC_KEYS  # noqa: E402 (declared where the command line reads it)


def patent_keys(docnos):
    """Patent keys of many ids; same kind of array back (Arrow, or NumPy of str).

    Examples
    --------
    >>> import numpy as np
    >>> patent_keys(np.array(["EP-0971326-B1", "EP0971326", "US07272630B2", "FR940202-2-00150"], dtype=object)).tolist()
    ['EP0971326', 'EP0971326', 'US7272630', 'FR940202-2-00150']
    """
    if isinstance(docnos, (pa.Array, pa.ChunkedArray)):
        return _record_patent_keys(docnos, invalid="keep")
    keys = _record_patent_keys(pa.array(np.asarray(docnos, dtype=object), type=pa.string()), invalid="keep")
    return keys.to_numpy(zero_copy_only=False).astype(object, copy=False)


def patent_key(docno: str) -> str:
    """The patent key of one id (see :func:`patent_keys`)."""
    return patent_keys(pa.array([docno], type=pa.string()))[0].as_py()


def document_keys(docnos, doc_key: str):
    """The keys documents are matched on: the ids themselves, or their patent keys."""
    if doc_key == "patent":
        return patent_keys(docnos)
    return docnos
