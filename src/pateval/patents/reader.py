"""Reading patent files of any supported format: one entry point for users and ingest.

The format is recognised per document from its root element, so a directory may mix
CLEF-IP and USPTO files, and a USPTO weekly file may mix grants and applications.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import cast

from ..errors import InputFormatError, ParameterError, malformed
from ..formats.source import is_regular_file, streams_are_kept, streams_kept
from . import clefip, uspto, uspto_aps, uspto_pap, uspto_patdoc
from .records import PatentDocument
from .safexml import DEFAULT_MAX_DOCUMENT_BYTES, XmlDocument, iter_xml_documents

__all__ = ["ReadError", "read_patent", "iter_patents", "iter_file", "SUPPORTED_ROOTS"]

# Each format's reader, by root element: the only way they are called.
_READERS: dict[str, Callable[[XmlDocument], PatentDocument]] = {
    clefip.ROOT_TAG: clefip.read_clefip_document,
    **{tag: uspto.read_uspto_document for tag in uspto.ROOT_TAGS},
    uspto_pap.PAP_ROOT_TAG: uspto_pap.read_pap_document,
    uspto_patdoc.PATDOC_ROOT_TAG: uspto_patdoc.read_patdoc_document,
}

#: Root elements this module reads.
SUPPORTED_ROOTS = tuple(_READERS)

# USPTO roots no reader takes: recognised so that the error says what the file is.
_OLD_USPTO_ROOTS = {"us-patent-grant-v1"}


@dataclass(frozen=True, slots=True)
class ReadError:
    """A document that could not be read, when reading goes on past errors.

    Attributes
    ----------
    path : str
    line : int or None
    reason : str
        The problem in words (without the file and line).
    message : str
        The full ``FILE, line N: PROBLEM`` message.
    """

    path: str
    line: int | None
    reason: str
    message: str

    @classmethod
    def from_error(cls, error: InputFormatError) -> ReadError:
        prefix = error.path if error.line is None else f"{error.path}, line {error.line}"
        return cls(error.path, error.line, str(error).removeprefix(prefix + ": "), str(error))


def _convert(document: XmlDocument) -> PatentDocument:
    reader = _READERS.get(document.root.tag)
    if reader is None:
        tag = str(document.root.tag)
        if tag in _OLD_USPTO_ROOTS:
            malformed(document.path, document.first_line,
                      "USPTO full text older than ICE XML v4.0 is not supported",
                      expected="us-patent-grant or us-patent-application", found=tag)
        malformed(document.path, document.first_line, "not a patent document",
                  expected=" or ".join(SUPPORTED_ROOTS), found=tag)
    return reader(document)


def iter_file(path: str | os.PathLike[str], *, on_error: str = "stop",
              max_document_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES,
              digest=None) -> Iterator[PatentDocument | ReadError]:
    """The documents of one file, with a :class:`ReadError` in place of each bad one
    when ``on_error="skip"``; ``digest`` (a hashlib object) is fed the bytes read (see
    :func:`pateval.patents.safexml.iter_xml_documents`)."""
    if on_error not in ("stop", "skip"):
        raise ParameterError(f"on_error must be 'stop' or 'skip', not {on_error!r}")
    if is_regular_file(path) or streams_are_kept():
        yield from _file_items(path, on_error=on_error, max_document_bytes=max_document_bytes, digest=digest)
        return
    # standard input or a pipe outside a job (a library call): the sniffer and the reader read
    # it once, within one memo; a generator cannot keep a context variable set across its
    # yields, so the documents are read first, then given in order, an error after them
    items: list[PatentDocument | ReadError] = []
    failure: InputFormatError | None = None
    with streams_kept(path):
        try:
            items.extend(_file_items(path, on_error=on_error, max_document_bytes=max_document_bytes, digest=digest))
        except InputFormatError as error:
            failure = error
    yield from items
    if failure is not None:
        raise failure


def _file_items(path: str | os.PathLike[str], *, on_error: str, max_document_bytes: int,
                digest) -> Iterator[PatentDocument | ReadError]:
    if not os.fspath(path).endswith(_XML_SUFFIXES) and uspto_aps.is_aps_file(path):
        # USPTO grants 1976-2001, APS text: not XML.
        items = uspto_aps.iter_aps_documents(path, on_error=on_error, max_document_bytes=max_document_bytes,
                                             digest=digest)
    else:
        items = iter_xml_documents(path, on_error=on_error, max_document_bytes=max_document_bytes, digest=digest,
                                   convert=_convert)
    for item in items:
        yield ReadError.from_error(item) if isinstance(item, InputFormatError) else item


def iter_patents(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], *, on_error: str = "stop",
                 errors: list[ReadError] | None = None) -> Iterator[PatentDocument]:
    """Read patent documents from files (or directories, searched for ``*.xml``).

    Parameters
    ----------
    paths : path or iterable of paths
    on_error : {"stop", "skip"}
        ``"stop"`` raises :class:`~pateval.errors.InputFormatError` at the first bad
        document; ``"skip"`` leaves it out and goes on.
    errors : list, optional
        With ``on_error="skip"``, each bad document's :class:`ReadError` is appended here.

    Yields
    ------
    PatentDocument
    """
    if on_error not in ("stop", "skip"):
        raise ParameterError(f"on_error must be 'stop' or 'skip', not {on_error!r}")
    for path in expand_paths(paths):
        for item in iter_file(path, on_error=on_error):
            if isinstance(item, ReadError):
                if errors is not None:
                    errors.append(item)
                continue
            yield item


def read_patent(path: str | os.PathLike[str]) -> PatentDocument:
    """Read the single patent document in ``path``.

    Raises
    ------
    InputFormatError
        When the file is not a readable patent document, or holds more than one.
    """
    found: list[PatentDocument] = []
    for document in iter_file(path, on_error="stop"):
        found.append(cast(PatentDocument, document))  # on_error="stop" raises rather than yield a ReadError
        if len(found) > 1:
            malformed(path, None, "more than one document in the file; use iter_patents", expected="1 document")
    if not found:
        malformed(path, None, "no patent document in the file")
    return found[0]


_XML_SUFFIXES = (".xml", ".xml.gz", ".xml.bz2", ".XML")
_PATENT_SUFFIXES = (*_XML_SUFFIXES, *uspto_aps.APS_SUFFIXES)


def _is_patent_file(name: str) -> bool:
    # The USPTO's APS weekly files are pftapsYYYYMMDD_wkNN.txt (any other .txt in a
    # corpus folder is not taken for a patent file).
    return name.endswith(_PATENT_SUFFIXES) or (name.startswith("pftaps") and name.endswith((".txt", ".txt.gz")))


def expand_paths(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    """Files named by ``paths``: files as given, directories searched recursively for
    ``*.xml`` (also ``.xml.gz``, ``.xml.bz2``) and APS text files (``*.aps``,
    ``*.greenbook``, ``pftaps*.txt``), in sorted order."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files: list[str] = []
    for path in paths:
        name = os.fspath(path)
        if os.path.isdir(name):
            found: list[str] = []
            for folder, subfolders, names in os.walk(name):
                subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
                found.extend(os.path.join(folder, n) for n in names if _is_patent_file(n) and not n.startswith("."))
            files.extend(sorted(found))
        elif os.path.exists(name):
            files.append(name)
        else:
            malformed(name, None, "no such file or directory")
    return files
