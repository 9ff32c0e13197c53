"""Safe, document-at-a-time reading of patent XML files.

Patent files come in two shapes: one document per file (CLEF-IP / MAREC) and weekly
files of many documents written one after the other, each with its own XML declaration
(USPTO bulk full text). The latter is not one XML document, so it cannot go through a
single ``iterparse``; :func:`iter_xml_documents` reads the file in blocks, cuts it at the
XML declarations and parses one document at a time, so memory holds one document and
one block whatever the number of documents.

Documents are parsed from their bytes rather than fed to an incremental parser because
libxml2's push mode loses the reason of some errors (an undefined entity comes out as
"no element found" at line 0), and tests and users need the real reason and line.

Safety: lxml parses with ``resolve_entities=False`` (no entity is ever expanded),
``no_network=True``, ``load_dtd=False`` (the DOCTYPE's DTD is never fetched or read) and
``huge_tree=False`` (libxml2's size limits stay on). A document whose DOCTYPE declares
entities is refused outright: patent files never need them, and they are how XML bombs
("billion laughs") and external-entity attacks are built.
"""

from __future__ import annotations

import html.entities
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from lxml import etree

from ..errors import InputFormatError, ParameterError, malformed
from ..formats.source import open_stream
from ..tuning import XML_BLOCK_BYTES

__all__ = ["safe_parser", "XmlDocument", "iter_xml_documents", "each_document", "element_text",
           "remove_keeping_text", "DEFAULT_MAX_DOCUMENT_BYTES"]

#: A single patent document larger than this is refused (the largest real ones, with
#: sequence listings, are tens of MB).
DEFAULT_MAX_DOCUMENT_BYTES = 512 * 1024 * 1024

_DECLARATION = re.compile(rb"<\?xml[\s?]")
_DECLARATION_LENGTH = 6  # bytes a declaration start may straddle across two blocks
_TRAILING_POSITION = re.compile(r",? line \d+, column \d+$")


def safe_parser() -> etree.XMLParser:
    """A new lxml parser with every fetching and expanding feature off."""
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                           huge_tree=False, remove_comments=True, remove_pis=True, recover=False)


@dataclass(frozen=True, slots=True)
class XmlDocument:
    """One parsed document of a file.

    Attributes
    ----------
    root : lxml element
    path : str
        The file it came from.
    first_line : int
        Line of the file on which the document starts (1-based); an element's line in
        the file is ``first_line + element.sourceline - 1``.
    index : int
        0-based position of the document in its file.
    """

    root: etree._Element
    path: str
    first_line: int
    index: int

    def line_of(self, element: etree._Element) -> int | None:
        """The file line of ``element`` (None when lxml does not know it)."""
        return None if element.sourceline is None else self.first_line + element.sourceline - 1


def iter_xml_documents(path: str | os.PathLike[str], *, on_error: str = "stop",
                       max_document_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES, digest=None,
                       convert: Callable[[XmlDocument], Any] | None = None) -> Iterator[Any]:
    """Parse the documents of one file, one at a time.

    Parameters
    ----------
    path : path-like
        An XML file with one document or many concatenated ones (compressed with gzip,
        bzip2 or xz too, told by content).
    on_error : {"stop", "skip"}
        ``"stop"`` raises the first :class:`InputFormatError`; ``"skip"`` yields it in
        place of the bad document and goes on with the next one.
    max_document_bytes : int
        Refuse a document larger than this.
    digest : hashlib object, optional
        Fed every block read from the file as it is stored (for a plain file, its bytes;
        for a compressed one, the decompressed ones), so that a caller who needs the
        file's checksum need not read it twice.
    convert : callable, optional
        Applied to each :class:`XmlDocument`; its InputFormatError counts as the document's.

    Yields
    ------
    XmlDocument (or what ``convert`` makes of it) or InputFormatError
    """
    if on_error not in ("stop", "skip"):
        raise ParameterError(f"on_error must be 'stop' or 'skip', not {on_error!r}")
    name = os.fspath(path)
    parser = safe_parser()

    def parse(item: tuple[int, tuple[int, bytes]]) -> Any:
        index, (first_line, data) = item
        document = XmlDocument(_parse_document(name, first_line, data, parser), name, first_line, index)
        return document if convert is None else convert(document)

    yield from each_document(enumerate(_split_documents(name, max_document_bytes, digest)), parse, on_error)


def each_document(chunks: Iterator[Any], convert: Callable[[Any], Any], on_error: str) -> Iterator[Any]:
    """``convert`` each document's chunk of a file. With ``on_error="skip"`` an
    InputFormatError is yielded in place of what it stopped: a document whose conversion
    failed, or the rest of the file when it cannot be cut further (unreadable, a document
    too large); with ``"stop"`` it is raised."""
    while True:
        try:
            chunk = next(chunks)
        except StopIteration:
            return
        except InputFormatError as error:
            if on_error == "stop":
                raise
            yield error
            return
        try:
            yield convert(chunk)
        except InputFormatError as error:
            if on_error == "stop":
                raise
            yield error


def _split_documents(path: str, max_document_bytes: int, digest=None) -> Iterator[tuple[int, bytes]]:
    """Cut a file into the byte strings of its documents, with their first lines."""
    pending = bytearray()
    line = 1  # line of the file on which `pending` starts
    started = False  # whether `pending` holds more than whitespace
    scanned = 0  # bytes of `pending` already searched for a declaration
    try:
        handle = open_stream(path)
    except OSError as error:
        malformed(path, None, f"cannot read the file: {error.strerror or error}")
    with handle:
        while True:
            try:
                block = handle.read(XML_BLOCK_BYTES)
            except (OSError, EOFError) as error:
                malformed(path, line, f"cannot read the file: {error}")
            if digest is not None:
                digest.update(block)
            pending += block
            if not started:
                stripped = pending.lstrip()
                line += pending.count(b"\n", 0, len(pending) - len(stripped))
                pending = bytearray(stripped)
                started = bool(pending)
            while started:
                match = _DECLARATION.search(pending, max(1, scanned - _DECLARATION_LENGTH))
                if match is None:
                    scanned = len(pending)
                    break
                cut = match.start()
                document = bytes(pending[:cut])
                yield line, document
                line += document.count(b"\n")
                del pending[:cut]
                scanned = 0
            if len(pending) > max_document_bytes:
                malformed(path, line, "document too large", expected=f"at most {max_document_bytes} bytes per document",
                          found=len(pending))
            if not block:
                break
    if started and pending.strip():
        yield line, bytes(pending)
    elif not started:
        malformed(path, None, "the file is empty (no XML document)")


def _parse_document(path: str, first_line: int, data: bytes, parser: etree.XMLParser) -> etree._Element:
    """Parse one document's bytes safely and check that it declares no parsed entities."""
    images = _refuse_entity_declarations(path, first_line, data)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as error:
        reason = _TRAILING_POSITION.sub("", error.msg or "not well-formed XML")
        line = first_line + (error.lineno or 1) - 1
        malformed(path, line, f"XML error: {reason}")
    if root is None:
        malformed(path, first_line, "XML error: no root element")
    dtd = root.getroottree().docinfo.internalDTD
    if dtd is not None:
        # Second line of defence: whatever libxml2 saw declared, beyond the unparsed
        # (NDATA) image entities the scan allowed, is refused too.
        declared = [entity.name for entity in dtd.iterentities() if entity.name not in images]
        if declared:
            _refuse(path, first_line, declared)
    _normalise_tree(root)
    return root


_ELEMENT_START = re.compile(rb"<[A-Za-z_:]")
_QUOTED = rb"(?:\"[^\"]*\"|'[^']*')"
_ENTITY_DECLARATION = re.compile(
    rb"<!ENTITY\s+(%\s*)?([^\s%>]+)\s*"
    rb"(?:(?:SYSTEM\s*" + _QUOTED + rb"|PUBLIC\s*" + _QUOTED + rb"\s*" + _QUOTED + rb")\s*(NDATA\s+[^\s>]+)?)?"
)


def _refuse_entity_declarations(path: str, first_line: int, data: bytes) -> set[str]:
    """Refuse a document whose prolog declares parsed entities, before libxml2 sees it.

    Unparsed entities (``<!ENTITY img SYSTEM "x.tif" NDATA TIF>``, which USPTO files use to
    name their images) are allowed: they are never expanded into text nor fetched. Their
    names are returned. Only the prolog (everything before the first element) is
    searched, so patent text mentioning "<!ENTITY" is not mistaken for a declaration.
    """
    root_start = _ELEMENT_START.search(data)
    prolog_end = root_start.start() if root_start is not None else len(data)
    images: set[str] = set()
    refused: list[tuple[int, str]] = []
    for match in _ENTITY_DECLARATION.finditer(data, 0, prolog_end):
        name = match.group(2).decode("utf-8", "replace")
        if match.group(3) is not None and match.group(1) is None:
            images.add(name)
        else:
            refused.append((match.start(), ("%" if match.group(1) else "") + name))
    if refused:
        line = first_line + data.count(b"\n", 0, refused[0][0])
        _refuse(path, line, [name for _, name in refused])
    return images


def _refuse(path: str, line: int, names: list[str]) -> None:
    shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
    malformed(path, line, f"the DOCTYPE declares entities ({shown}); refused, entities are not expanded "
                          "(protection against entity bombs and external entities)")


def _normalise_tree(root: etree._Element) -> None:
    """Make the text of the tree read as the rendered document does.

    A line break (``<br/>``) separates words, so it becomes a space. References to undeclared
    named entities (``&lsquo;`` in a file whose DTD is not loaded) become their characters when
    HTML knows the name, else ``&name;``.
    """
    for line_break in root.iter("br"):
        line_break.tail = " " + (line_break.tail or "")
    for reference in list(root.iter(etree.Entity)):
        name = reference.name
        remove_keeping_text(reference, html.entities.html5.get(f"{name};", f"&{name};") + (reference.tail or ""))


def remove_keeping_text(element: etree._Element, text: str) -> None:
    """Remove ``element`` from its parent, ``text`` (its tail, say, which lxml removes
    with it) staying where the element stood."""
    parent = element.getparent()
    previous = element.getprevious()
    if text and previous is not None:
        previous.tail = (previous.tail or "") + text
    elif text:
        parent.text = (parent.text or "") + text
    parent.remove(element)


def element_text(element: etree._Element) -> str:
    """The text of ``element`` and its descendants, whitespace collapsed to single spaces."""
    if len(element) == 0:
        # No children: the element's own text is all of it (skips serialising).
        raw = element.text
        return " ".join(raw.split()) if raw else ""
    raw = etree.tostring(element, method="text", encoding="unicode", with_tail=False)
    return " ".join(raw.split())
