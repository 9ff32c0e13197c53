"""Document ids and keys: patent numbers, and matching run documents to judged documents.

A *ucid* names one publication: ``COUNTRY-NUMBER-KIND`` (``EP-1010180-B1``). CLEF-IP judged
patents, not publications: a citation of EP0971326 makes every publication of that patent
(EP-0971326-A1, EP-0971326-B1, ...) relevant. With ``doc_key="patent"`` runs and qrels are
matched on the patent key of :func:`patent_keys` (the one implementation, which the patent
readers and the corpus store use too): country and number without kind code, the number
written with seven digits at least, so that ``EP-0971326-B1``, ``EP0971326`` and
``EP-971326-A2`` all become ``EP0971326``. Ids that are not patent numbers are kept as their
own key (upper-cased).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

import numpy as np
import pyarrow as pa

from .._lazy import lazy_module
from ..errors import ParameterError

pd = lazy_module("pandas")  # group_codes factorises with it; scoring without groups never needs pandas

__all__ = ["DOC_KEYS", "DocLengths", "document_keys", "group_codes", "make_ucid", "normalise_number", "patent_key",
           "patent_keys", "split_ucid"]

from .names import DOC_KEYS  # noqa: E402 (declared where the command line reads it)

# The patent-level key pads all-digit numbers to this width, so that "EP-971326" and
# "EP-0971326" (CLEF-IP writes EP numbers with seven digits) give the same key.
_KEY_NUMBER_WIDTH = 7

_UCID_HYPHENATED = re.compile(r"^([A-Z]{2})-([^-\s]+)(?:-([A-Z0-9]{1,3}))?$")
_UCID_COMPACT = re.compile(r"^([A-Z]{2})([0-9/]+)([A-Z][0-9]?)?$")
# both forms at once, for Arrow: the country, and the number of one form or the other
_UCID_PARTS = r"^(?P<cc>[A-Z]{2})(?:-(?P<hnum>[^-\s]+)(?:-[A-Z0-9]{1,3})?|(?P<cnum>[0-9/]+)(?:[A-Z][0-9]?)?)$"
_NOT_A_UCID = "not a patent document id: {!r} (expected COUNTRY-NUMBER[-KIND], e.g. EP-1010180-B1)"


def normalise_number(number: str) -> str:
    """The publication number as the patent-level key writes it.

    Slashes and spaces are dropped (``2007/0140112`` -> ``20070140112``); an all-digit
    number loses its leading zeros and is then left-padded with zeros to seven digits
    (``971326`` and ``0971326`` -> ``0971326``; ``06859910`` -> ``6859910``). Numbers
    with letters (``RE38888``, ``D512345``) are kept as written, upper-cased.
    """
    cleaned = number.replace("/", "").replace(" ", "").upper()
    if cleaned.isdigit():
        return (cleaned.lstrip("0") or "0").rjust(_KEY_NUMBER_WIDTH, "0")
    return cleaned


def split_ucid(ucid: str) -> tuple[str, str, str | None]:
    """Split ``EP-1010180-B1`` into ``("EP", "1010180", "B1")``.

    Accepts ``COUNTRY-NUMBER-KIND``, ``COUNTRY-NUMBER`` (kind None) and the compact
    ``EP1010180B1`` / ``EP1010180``. Raises :class:`ParameterError` otherwise.
    """
    text = ucid.strip().upper()
    match = _UCID_HYPHENATED.match(text) or _UCID_COMPACT.match(text)
    if match is None:
        raise ParameterError(_NOT_A_UCID.format(ucid))
    country, number, kind = match.groups()
    return country, number, kind or None


def make_ucid(country: str, number: str, kind: str | None) -> str:
    """Join ``country``, ``number`` and ``kind`` into a ucid (``kind`` may be None)."""
    number = number.replace("/", "").replace(" ", "")
    return f"{country}-{number}-{kind}" if kind else f"{country}-{number}"


def patent_key(ucid: str, *, invalid: str = "raise") -> str:
    """The patent-level key of a publication: country and normalised number, no kind.

    ``EP-0971326-B1``, ``EP-0971326-A2``, ``EP-971326`` and ``EP0971326B1`` all give
    ``EP0971326``: relevance judged at patent level matches any kind of the publication.
    The number is normalised by :func:`normalise_number` (all-digit numbers are written
    with seven digits at least, without further leading zeros).

    ``invalid="keep"`` keeps an id that is not a ucid (upper-cased) as its own key, as
    :func:`patent_keys` does. See :func:`patent_keys` for arrays.
    """
    if invalid != "raise":
        return patent_keys(pa.array([ucid], type=pa.string()), invalid=invalid)[0].as_py()
    country, number, _ = split_ucid(ucid)
    return country + normalise_number(number)


def patent_keys(ucids, *, invalid: str = "raise"):
    """:func:`patent_key` over an array of ucids, vectorised with pyarrow compute.

    Parameters
    ----------
    ucids : sequence of str, numpy array, pandas Series, pyarrow Array or ChunkedArray
        Nulls stay null.
    invalid : {"raise", "keep"}
        What to do with a string that is not a ucid: raise :class:`ParameterError`
        naming the first one, or keep it (upper-cased) as its own key.

    Returns
    -------
    pyarrow.Array or pyarrow.ChunkedArray
        Keys, same length; ``.to_numpy(zero_copy_only=False)`` or ``.to_pandas()`` to
        convert.
    """
    import pyarrow.compute as pc

    if invalid not in ("raise", "keep"):
        raise ParameterError(f"invalid must be 'raise' or 'keep', not {invalid!r}")
    # pyarrow applies pandas null semantics (NaN, None) to pandas input by itself;
    # asking for them explicitly on numpy object arrays is ~30x slower.
    array = ucids if isinstance(ucids, (pa.Array, pa.ChunkedArray)) else pa.array(ucids, type=pa.string())
    if not pa.types.is_string(array.type) and not pa.types.is_large_string(array.type):
        array = pc.cast(array, pa.string())
    written = _written_as_keys(array)
    if written is not None:
        return written
    text = pc.utf8_upper(pc.utf8_trim_whitespace(array))
    parts = pc.extract_regex(text, _UCID_PARTS)
    valid = pc.is_valid(parts)
    bad = pc.and_(pc.is_valid(text), pc.invert(valid))
    if invalid == "raise" and pc.any(bad).as_py():
        raise ParameterError(_NOT_A_UCID.format(pc.filter(text, bad)[0].as_py()))
    country = pc.struct_field(parts, "cc")
    hnum = pc.struct_field(parts, "hnum")
    number = pc.if_else(pc.equal(hnum, ""), pc.struct_field(parts, "cnum"), hnum)
    number = pc.replace_substring(pc.replace_substring(number, "/", ""), " ", "")
    all_digits = pc.match_substring_regex(number, r"^[0-9]+$")
    stripped = pc.utf8_ltrim(number, "0")
    stripped = pc.if_else(pc.equal(stripped, ""), "0", stripped)
    padded = pc.utf8_lpad(stripped, _KEY_NUMBER_WIDTH, "0")
    number = pc.if_else(all_digits, padded, number)
    keys = pc.binary_join_element_wise(country, number, "")
    if invalid == "keep":
        keys = pc.if_else(valid, keys, text)
    return keys


def _written_as_keys(array):
    """The keys of ids all written ``CC-NNNNNNN-K[K[K]]`` (upper case, seven digits: the form
    of CLEF-IP's collection and runs), read off their bytes: ``CC`` and the digits as they
    stand. None when some id is written otherwise (the general path then reads them all).
    """
    from .keys import string_parts

    chunked = isinstance(array, pa.ChunkedArray)
    flat = (array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)) if chunked else array
    if len(flat) == 0 or flat.null_count or pa.types.is_large_string(flat.type):
        return None
    offsets, data = string_parts(flat)
    start = offsets[:-1].astype(np.int64)
    length = np.diff(offsets)
    if length.min() < 11 or length.max() > 13:
        return None
    head = data[start[None, :] + np.arange(11)[:, None]]  # (11, N): the first eleven bytes of each id
    upper = (head[:2] >= ord("A")) & (head[:2] <= ord("Z"))
    digit = (head[3:10] >= ord("0")) & (head[3:10] <= ord("9"))
    if not (upper.all() and digit.all() and (head[2] == ord("-")).all() and (head[10] == ord("-")).all()):
        return None
    for at in (11, 12):  # the kind code: one to three capitals or digits
        has = length > at
        tail = data[start[has] + at]
        if not (((tail >= ord("A")) & (tail <= ord("Z"))) | ((tail >= ord("0")) & (tail <= ord("9")))).all():
            return None
    key = np.ascontiguousarray(np.concatenate([head[:2], head[3:10]]).T)  # (N, 9): CC and the digits
    keys = pa.StringArray.from_buffers(len(flat), pa.py_buffer(np.arange(0, 9 * len(flat) + 1, 9, dtype=np.int32)),
                                       pa.py_buffer(key.ravel()))
    return pa.chunked_array([keys]) if chunked else keys


def document_keys(docnos, doc_key: str):
    """The keys documents are matched on: the ids themselves, or their patent keys (ids that
    are not patent numbers kept, upper-cased); same kind of array back (Arrow, or NumPy of str).

    Examples
    --------
    >>> import numpy as np
    >>> ids = np.array(["EP-0971326-B1", "EP0971326", "US07272630B2", "FR940202-2-00150"], dtype=object)
    >>> document_keys(ids, "patent").tolist()
    ['EP0971326', 'EP0971326', 'US7272630', 'FR940202-2-00150']
    """
    if doc_key != "patent":
        return docnos
    if isinstance(docnos, (pa.Array, pa.ChunkedArray)):
        return patent_keys(docnos, invalid="keep")
    keys = patent_keys(pa.array(np.asarray(docnos, dtype=object), type=pa.string()), invalid="keep")
    return keys.to_numpy(zero_copy_only=False).astype(object, copy=False)


def group_codes(docnos: np.ndarray, groups: dict[str, str] | None) -> np.ndarray:
    """An integer group per document: equal codes for documents of one group.

    Documents missing from ``groups`` (or all, when it is None) get codes of their own.
    """
    docnos = np.asarray(docnos, dtype=object)
    doc_codes, _ = pd.factorize(pd.Index(docnos, dtype=object))
    if not groups:
        return doc_codes.astype(np.int64)
    members = pd.Index(np.fromiter(groups.keys(), dtype=object, count=len(groups)), dtype=object)
    label_codes, labels = pd.factorize(pd.Index(np.fromiter(groups.values(), dtype=object, count=len(groups)),
                                                dtype=object))
    where = members.get_indexer(pd.Index(docnos, dtype=object))
    return np.where(where >= 0, label_codes[np.maximum(where, 0)], len(labels) + doc_codes).astype(np.int64)


class DocLengths(Mapping):
    """Document lengths in words: ``docno -> length``, held as two aligned arrays.

    It is a read-only mapping (``lengths["EP-0971326-A1"]``); measures use :attr:`ids` and
    :attr:`values` directly, with no Python object per document.

    Parameters
    ----------
    ids : pyarrow.Array of str
        Distinct document ids.
    values : ndarray of int64
        Each id's length (>= 0).
    source : str

    Examples
    --------
    >>> import pyarrow as pa, numpy as np
    >>> lengths = DocLengths(pa.array(["d1", "d2"]), np.array([120, 4000]))
    >>> lengths["d2"], len(lengths), dict(lengths)
    (4000, 2, {'d1': 120, 'd2': 4000})
    """

    values: np.ndarray  # type: ignore[assignment]  # the lengths, in Arrow's order (Mapping.values() shadowed)

    def __init__(self, ids: pa.Array, values: np.ndarray, *, source: str = "<memory>") -> None:
        self.ids = ids
        self.values = np.asarray(values, dtype=np.int64)
        self.source = source
        if len(self.ids) != len(self.values):
            raise ValueError("document lengths: ids and values differ in length")
        self._dict: dict[str, int] | None = None

    def _as_dict(self) -> dict[str, int]:
        if self._dict is None:  # made only when asked for one document at a time
            self._dict = dict(zip(self.ids.to_pylist(), self.values.tolist(), strict=False))
        return self._dict

    def __getitem__(self, docno: str) -> int:
        return self._as_dict()[docno]

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids.to_pylist())

    def __len__(self) -> int:
        return len(self.values)

    def __repr__(self) -> str:
        return f"DocLengths({len(self)} documents from {self.source})"
