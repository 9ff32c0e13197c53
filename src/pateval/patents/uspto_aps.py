"""USPTO grants of 1976-2001 in the APS text format (the "green book") to
:class:`PatentDocument`.

APS is not XML: a patent is a run of lines starting with ``PATN``; a line holds a field
tag in its first four columns and the value from the sixth (``TTL  Bumper support``);
longer values go on in continuation lines indented by spaces; a tag alone on its line
opens a segment (``INVT`` inventor, ``ASSG`` assignee, ``PRIR`` priority, ``CLAS``
classes, ``UREF``/``FREF`` cited US and foreign patents, ``ABST`` abstract, ``BSUM``,
``DRWD``, ``DETD`` description parts, ``CLMS`` claims, ``DCLM`` a design claim). A weekly
bulk file holds thousands of patents one after the other; they are read one at a time.

The record is the one ICE v4.x grants give (:mod:`pateval.patents.uspto`):

* ucid ``US-3937375-A``: ``WKU`` is the number padded to eight characters plus a check
  digit (``039373754``); the kind, which APS does not write, follows from the number's
  prefix (utility ``A``, design ``D...`` ``S``, reissue ``RE...`` ``E``, plant ``PP...``
  ``P``, statutory invention registration ``H...`` ``H``; none otherwise);
* passages: paragraphs (``PAR``, ``PA0``-``PA9``, ``PAL``) and headings (``PAC``) of the
  description segments, tables (``TBL``) and equations (``EQU``) left out as ICE leaves
  out its tables and formulas, with XPath-like locators ``/PATN/DETD/PAR[3]``;
* claims start at each ``NUM`` (locator ``/PATN/CLMS/NUM[2]``), their dependencies read
  from the claim words (:func:`pateval.patents.claims.resolve_dependencies`);
* citations: every ``UREF`` and ``FREF`` patent, with source ``other``: APS does not say
  who cited a document (the examiner / applicant marks began in 2001);
* IPC from ``ICL`` (fixed width, ``B60R  900`` -> ``B60R 9/00``).

A file is read in one encoding: UTF-8 when all of it decodes, else latin-1 for all of it.
An indented continuation line right after a segment header (or ``PATN``) continues no
field: it is an error naming the file and line.
"""

from __future__ import annotations

import codecs
import os
import re
from collections import Counter
from collections.abc import Iterator

from ..core.docids import make_ucid
from ..errors import InputFormatError, malformed
from ..formats.source import open_stream
from ._xmltools import ipc_fixed_width, iso_date, unique
from .claims import resolve_dependencies
from .records import Citation, Claim, Passage, PatentDocument
from .safexml import DEFAULT_MAX_DOCUMENT_BYTES, each_document
from .uspto import uspto_citation, uspto_number

__all__ = ["APS_SUFFIXES", "is_aps_file", "iter_aps_documents"]

#: File names searched for in folders besides ``*.xml`` (the bulk files are
#: ``pftapsYYYYMMDD_wkNN.txt``).
APS_SUFFIXES = (".aps", ".aps.gz", ".greenbook")

_DESCRIPTION_SEGMENTS = frozenset({"GOVT", "PARN", "BSUM", "DRWD", "DETD"})
_PARAGRAPH = re.compile(r"PA[L0-9R]$")  # PAR, PAL, PA0-PA9
_HEADING = "PAC"
_SEGMENT = re.compile(r"[A-Z]{4}$")
_LEADING_NUMBER = re.compile(r"\s*(\d+)")
_CLAIM_START = re.compile(r"\s*(\d+)\s*\.")
_KINDS = (("RE", "E"), ("PP", "P"), ("D", "S"), ("H", "H"))


_FIRST_PATENT = re.compile(rb"(?:^|\n)PATN[ \t]*\r?\nWKU ")


def is_aps_file(path: str | os.PathLike[str]) -> bool:
    """True when the file looks like APS text: it starts (after blank lines) with
    ``PATN`` or the ``HHHHHT`` header line of the bulk weekly files, or, not being XML,
    has a ``PATN`` line followed by ``WKU`` in its first 4 KB (after some other header)."""
    try:
        with open_stream(path) as handle:
            head = handle.read(4096)
    except (OSError, EOFError):
        return False
    head = head.lstrip()
    if head.startswith((b"PATN", b"HHHHHT")):
        return True
    return not head.startswith(b"<") and _FIRST_PATENT.search(head) is not None


def _file_encoding(path: str) -> str:
    """The one encoding a whole file is read in: UTF-8 when every byte of it decodes as
    UTF-8, else latin-1 for all of it (the older bulk files are latin-1; deciding line by
    line could read one file in two encodings). This costs a first read of the file."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        with open_stream(path) as handle:
            while chunk := handle.read(1 << 20):
                decoder.decode(chunk)
            decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return "latin-1"
    except (OSError, EOFError):
        pass  # the reading pass reports it with its line
    return "utf-8"


def _records(path: str, max_document_bytes: int, digest=None) -> Iterator[tuple[int, list[list]]]:
    """The patents of a file, each as its first line and its fields ``(line, tag, value)``
    with continuation lines joined; segment headers are fields with value None."""
    encoding = _file_encoding(path)
    fields: list[list] = []
    first_line = 0
    size = 0
    try:
        handle = open_stream(path)
    except OSError as error:
        malformed(path, None, f"cannot read the file: {error.strerror or error}")
    with handle:
        number = 0
        while True:
            try:
                raw = handle.readline()
            except (OSError, EOFError) as error:
                malformed(path, number + 1, f"cannot read the file: {error}")
            if not raw:
                break
            if digest is not None:
                digest.update(raw)
            number += 1
            line = raw.decode(encoding).rstrip("\r\n")
            if not line.strip():
                continue
            if line[:1].isspace():
                if not fields:
                    continue  # the indented lines of a file header, before the first patent
                if fields[-1][2] is None:
                    malformed(path, number, "continuation line without a field",
                              expected=f"a field line (after segment {fields[-1][1]})", found=line.strip()[:40])
                fields[-1][2] += " " + line.strip()
                size += len(raw)
                continue
            tag = line[:4].rstrip()
            value = line[5:] if len(line) > 5 else ""
            if tag == "PATN":
                if fields:
                    yield first_line, fields
                fields, first_line, size = [], number, 0
            elif not fields:
                continue  # a file header (HHHHHT ...) or text before the first patent
            size += len(raw)
            if size > max_document_bytes:
                malformed(path, first_line, "document too large",
                          expected=f"at most {max_document_bytes} bytes per document", found=size)
            is_segment = _SEGMENT.match(tag) is not None and not value.strip()
            fields.append([number, tag, None if is_segment else value.strip()])
    if fields:
        yield first_line, fields


def iter_aps_documents(path: str | os.PathLike[str], *, on_error: str = "stop",
                       max_document_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES,
                       digest=None) -> Iterator[PatentDocument | InputFormatError]:
    """The patents of an APS text file, one at a time, with an
    :class:`~pateval.errors.InputFormatError` in place of a bad one when
    ``on_error="skip"`` (``digest`` as in :func:`pateval.patents.safexml.iter_xml_documents`)."""
    name = os.fspath(path)
    found = False

    def convert(record: tuple[int, list[list]]) -> PatentDocument:
        nonlocal found
        found = True
        return _document(name, *record)

    yield from each_document(_records(name, max_document_bytes, digest), convert, on_error)
    if not found:
        empty = InputFormatError(name, None, "no APS patent record (PATN) in the file")
        if on_error == "stop":
            raise empty
        yield empty


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _segments(fields: list[list]) -> list[tuple[str, str, list[list]]]:
    """Split a record's fields into segments ``(name, xpath, fields)``; a segment that
    occurs more than once gets an index (``/PATN/INVT[2]``), as XPaths of repeated
    elements do."""
    names = [tag for _, tag, value in fields if value is None]
    totals = Counter(names)
    seen: Counter[str] = Counter()
    segments: list[tuple[str, str, list[list]]] = []
    for field in fields:
        line, tag, value = field
        if value is None:
            seen[tag] += 1
            if tag == "PATN":
                xpath = "/PATN"
            elif totals[tag] > 1:
                xpath = f"/PATN/{tag}[{seen[tag]}]"
            else:
                xpath = f"/PATN/{tag}"
            segments.append((tag, xpath, []))
        elif segments:
            segments[-1][2].append(field)
    return segments


def _first(fields: list[list], tag: str) -> str | None:
    for _, name, value in fields:
        if name == tag and value:
            return _collapse(value)
    return None


def _kind(number: str) -> str | None:
    if number.isdigit():
        return "A"
    return next((kind for prefix, kind in _KINDS if number.startswith(prefix)), None)


def _country(code: str | None) -> str:
    """APS writes some countries with three letters (``DEX``, ``GBX``, ``JPX``)."""
    code = (code or "").strip().upper()
    if len(code) == 3 and code.endswith("X"):
        return code[:2]
    return code or "US"


def _person(name: str | None) -> str | None:
    """``Daniels; Everette E.`` -> ``Daniels, Everette E.`` (the other readers' form)."""
    return ", ".join(part.strip() for part in (name or "").split(";") if part.strip()) or None


def _document(path: str, first_line: int, fields: list[list]) -> PatentDocument:
    segments = _segments(fields)
    head = segments[0][2] if segments and segments[0][0] == "PATN" else []
    wku = _first(head, "WKU")
    if not wku:
        malformed(path, first_line, "APS patent record without a patent number", expected="a WKU field after PATN")
    raw_number = wku[:-1] if len(wku) == 9 else wku  # the ninth character is a check digit
    number = uspto_number(raw_number, "US")
    kind = _kind(number)
    lang = "EN"
    title = _first(head, "TTL")
    description: list[Passage] = []
    claims: list[Claim] = []
    citations: list[Citation] = []
    abstract_parts: list[str] = []
    ipc: list[str | None] = []
    inventors: list[str | None] = []
    applicants: list[str | None] = []
    priority_dates: list[str | None] = []
    for name, xpath, segment_fields in segments:
        if name == "INVT":
            inventors.append(_person(_first(segment_fields, "NAM")))
        elif name == "ASSG":
            applicants.append(_person(_first(segment_fields, "NAM")))
        elif name == "PRIR":
            priority_dates.append(iso_date(_first(segment_fields, "APD")))
        elif name == "CLAS":
            ipc.extend(ipc_fixed_width(value) for _, tag, value in segment_fields if tag == "ICL")
        elif name in ("UREF", "FREF"):
            if raw := _first(segment_fields, "PNO"):
                country = "US" if name == "UREF" else _country(_first(segment_fields, "CNT"))
                citations.append(uspto_citation(raw, country, None, "other"))
        elif name == "ABST":
            abstract_parts.extend(_collapse(value) for _, tag, value in segment_fields
                                  if _PARAGRAPH.match(tag) and value.strip())
        elif name in _DESCRIPTION_SEGMENTS:
            counts: Counter[str] = Counter()
            for _, tag, value in segment_fields:
                counts[tag] += 1
                if not (tag == _HEADING or _PARAGRAPH.match(tag)):  # tables (TBL), equations (EQU) and the like
                    continue
                if text := _collapse(value):
                    description.append(Passage(f"{xpath}/{tag}[{counts[tag]}]", text, tag == _HEADING, lang))
        elif name in ("CLMS", "DCLM") and not claims:
            claims = _claims(segment_fields, xpath)
    return PatentDocument(
        ucid=make_ucid("US", number, kind), country="US", doc_number=number, kind=kind or "", family_id=None,
        lang=lang, date=iso_date(_first(head, "ISD")), application_date=iso_date(_first(head, "APD")),
        priority_dates=unique(priority_dates), title={lang: title} if title else {},
        abstract={lang: "\n".join(abstract_parts)} if abstract_parts else {}, description=description,
        claims={lang: claims} if claims else {}, ipc_classes=unique(ipc), citations=citations,
        applicants=unique(applicants), inventors=unique(inventors), source_path=path,
    )


def _claims(fields: list[list], xpath: str) -> list[Claim]:
    """Claims of a CLMS (or DCLM) segment: each starts at a ``NUM`` field; files without
    ``NUM`` start one at each paragraph that opens with ``N.``."""
    has_numbers = any(tag == "NUM" for _, tag, _ in fields)
    counts: Counter[str] = Counter()
    starts: list[tuple[str, int | None]] = []  # (xpath, number) per claim
    texts: list[list[str]] = []
    for _, tag, value in fields:
        counts[tag] += 1
        if tag == "STM":
            continue
        opens_claim = tag == "NUM" if has_numbers else (not texts or _CLAIM_START.match(value))
        if opens_claim:
            digits = (_LEADING_NUMBER if has_numbers else _CLAIM_START).match(value)
            starts.append((f"{xpath}/{tag}[{counts[tag]}]", int(digits.group(1)) if digits else None))
            texts.append([])
            if has_numbers:
                continue  # the NUM field holds the number only
        if texts and value.strip():
            texts[-1].append(_collapse(value))
    numbers = [number if number is not None else position for position, (_, number) in enumerate(starts, start=1)]
    joined = [" ".join(parts) for parts in texts]
    dependencies = resolve_dependencies(numbers, joined)
    return [Claim(n, p, t, d) for n, (p, _), t, d in zip(numbers, starts, joined, dependencies, strict=False)]
