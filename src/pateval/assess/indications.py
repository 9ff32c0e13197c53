"""Passage indications of search-report citations, parsed into XPath suggestions.

A European search report names the relevant part of a cited document in words, in the
second column of Figure 1 of the CLEF-IP 2013 overview: ``* page 5, line 9 - line 22;
figure 2 *``, ``* paragraph [0012] - paragraph [0020] *``, ``* claims 1-5 *``, ``* the
whole document *``. The CLEF-IP organisers matched such indications to the XPaths of the
cited document by hand. This module does the part a program can do safely:

- paragraph numbers (``[0012]``, ``paragraph [0012] - [0020]``, ``paragraphs [0012],
  [0015]``, ``[0012]-[0015]``) name the description's ``p`` elements (EPO documents number
  their paragraphs in order, so paragraph ``[00nn]`` is ``/patent-document/description/p[nn]``);
- ``claim 3``, ``claims 1-5``, ``claims 1, 4-6`` name the cited document's claims;
- ``abstract`` names the abstract;
- page / column and line references (``page 5, line 9 - line 22``, ``column 3, line 5 -
  line 20``) cannot be mapped without the printed layout: they are shown as written;
- ``figure 2``, ``figures 1-3``, ``fig. 4`` name drawings, which have no text passage;
- ``the whole document`` names no passage.

The seed's rejection reasons follow from the segments: a citation whose indication names
figures only, and one with no indication or only "whole document" (see
:attr:`Indication.flags`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["REJECTION_REASONS", "Indication", "Segment", "number_ranges", "parse_indication",
           "parse_number_list"]

#: The CLEF-IP 2013 overview's reasons for rejecting a topic candidate (section 2.2).
REJECTION_REASONS = {
    "figures-only": "the relevant documents refer to figures only",
    "no-passages": "no mention of relevant passages, or only 'whole document'",
    "incomplete-search": "the search report says 'incomplete search'",
}

_SPLIT = re.compile(r"[;*\n]+")
_BRACKET = re.compile(r"\[\s*(\d{1,5})\s*\]")
_WHOLE = re.compile(r"\bwhole\s+document\b|\bdocument\s+as\s+a\s+whole\b|\bganze\s+dokument\b"
                    r"|\bdocument\s+en\s+entier\b", re.IGNORECASE)
_CLAIMS = re.compile(r"^\s*(?:claims?|revendications?|anspr(?:u|ü)che?)\s*([\d\s,\-–and&et+und]+)$", re.IGNORECASE)
_FIGURES = re.compile(r"^\s*(?:figures?|figs?\.?|abb(?:ildung)?(?:en)?\.?)\s*[\d\s,\-–a-z&]*$", re.IGNORECASE)
_ABSTRACT = re.compile(r"^\s*(?:the\s+)?(?:abstract|zusammenfassung|abr[ée]g[ée])\s*$", re.IGNORECASE)
_PAGE = re.compile(r"\b(?:page|pages|seite|seiten|p\.)\s*\d", re.IGNORECASE)
_COLUMN = re.compile(r"\b(?:column|columns|col\.|spalte|spalten|colonne)\s*\d", re.IGNORECASE)


@dataclass(frozen=True)
class Segment:
    """One part of an indication (the text between ``;`` or ``*``).

    ``kind`` is one of ``paragraphs``, ``claims``, ``abstract`` (mapped to XPaths),
    ``page``, ``column`` (a printed location, shown as written), ``figures``, ``whole``
    and ``other`` (not understood; shown as written).
    """

    kind: str
    text: str
    numbers: tuple[int, ...] = ()


@dataclass(frozen=True)
class Indication:
    """A parsed passage indication: its segments in order."""

    text: str
    segments: tuple[Segment, ...] = field(default_factory=tuple)

    @property
    def paragraphs(self) -> tuple[int, ...]:
        return tuple(sorted({n for s in self.segments if s.kind == "paragraphs" for n in s.numbers}))

    @property
    def claims(self) -> tuple[int, ...]:
        return tuple(sorted({n for s in self.segments if s.kind == "claims" for n in s.numbers}))

    @property
    def names_abstract(self) -> bool:
        return any(s.kind == "abstract" for s in self.segments)

    @property
    def figures_only(self) -> bool:
        """Every segment names figures (the seed's first rejection reason)."""
        return bool(self.segments) and all(s.kind == "figures" for s in self.segments)

    @property
    def no_passage(self) -> bool:
        """No segment, or only 'whole document' ones (the seed's second reason)."""
        return all(s.kind == "whole" for s in self.segments)

    @property
    def flags(self) -> tuple[str, ...]:
        """Keys of :data:`REJECTION_REASONS` this indication alone gives."""
        return ("figures-only",) if self.figures_only else ("no-passages",) if self.no_passage else ()

    def suggest(self, *, paragraph_xpaths: dict[int, str], claim_xpaths: dict[int, str],
                abstract_xpaths: list[str]) -> tuple[list[str], list[str]]:
        """The XPaths the indication names in one document, and what it names that the
        document lacks.

        Parameters
        ----------
        paragraph_xpaths : dict
            Paragraph number -> XPath of the document's description paragraphs.
        claim_xpaths : dict
            Claim number -> XPath of the document's claims (one language).
        abstract_xpaths : list of str

        Returns
        -------
        xpaths : list of str
            In document order of the lists given (abstract, description, claims).
        missing : list of str
            Human-readable references not found (``paragraph [0042]``, ``claim 12``).
        """
        xpaths: list[str] = list(abstract_xpaths) if self.names_abstract else []
        missing: list[str] = []
        for numbers, found, name in ((self.paragraphs, paragraph_xpaths, "paragraph [{:04d}]"),
                                     (self.claims, claim_xpaths, "claim {}")):
            for number in numbers:
                if number in found:
                    xpaths.append(found[number])
                else:
                    missing.append(name.format(number))
        return xpaths, missing


def number_ranges(text: str) -> list[tuple[int, int]]:
    """``1-5, 7 and 9`` -> [(1, 5), (7, 7), (9, 9)]: the ranges sorted and merged, so that
    repeating a range costs nothing; an empty list when nothing parses, a number has more
    than 9 digits or a range runs backwards or over 10,000 items. Work is linear in the
    length of ``text`` (no range is expanded here)."""
    ranges: list[tuple[int, int]] = []
    for part in re.split(r"\s*(?:,|\band\b|\bet\b|\bund\b|&|\+)\s*", text.strip()):
        if not part:
            continue
        match = re.fullmatch(r"(\d{1,9})\s*(?:[-–]\s*(\d{1,9}))?", part)
        if match is None:
            return []
        low = int(match.group(1))
        high = int(match.group(2)) if match.group(2) else low
        if high < low or high - low > 10_000:
            return []
        ranges.append((low, high))
    merged: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return merged


def parse_number_list(text: str) -> tuple[int, ...]:
    """``1-5, 7 and 9`` -> (1, 2, 3, 4, 5, 7, 9); an empty tuple when nothing parses
    (:func:`number_ranges`)."""
    return tuple(n for low, high in number_ranges(text) for n in range(low, high + 1))


def _paragraph_numbers(text: str) -> tuple[int, ...]:
    """Bracketed paragraph numbers with ranges: ``[0012] - [0020], [0025]``."""
    # Turn "[0012] - paragraph [0020]" into a list of numbers and range marks.
    tokens = re.findall(r"\[\s*\d+\s*\]|[-–]|\bto\b|\bbis\b|\bà\b", text, re.IGNORECASE)
    numbers: list[int] = []
    pending_range = False
    for token in tokens:
        bracket = _BRACKET.fullmatch(token)
        if bracket is None:
            pending_range = bool(numbers)
            continue
        value = int(bracket.group(1))
        if pending_range and numbers and value >= numbers[-1] and value - numbers[-1] <= 10_000:
            numbers.extend(range(numbers[-1] + 1, value + 1))
        else:
            numbers.append(value)
        pending_range = False
    return tuple(sorted(set(numbers)))


def _segment(text: str) -> Segment | None:
    clean = " ".join(text.split()).strip(" ,.:")
    if not clean:
        return None
    if _WHOLE.search(clean):
        return Segment("whole", clean)
    if _BRACKET.search(clean) and not _PAGE.search(clean) and not _COLUMN.search(clean):
        return Segment("paragraphs", clean, _paragraph_numbers(clean))
    if (claims := _CLAIMS.match(clean)) and (numbers := parse_number_list(claims.group(1))):
        return Segment("claims", clean, numbers)
    for kind, found in (("abstract", _ABSTRACT.match), ("figures", _FIGURES.match), ("page", _PAGE.search),
                        ("column", _COLUMN.search)):
        if found(clean):
            return Segment(kind, clean)
    return Segment("other", clean)


def parse_indication(text: str | None) -> Indication:
    """Parse one citation's passage indication (all its rel-passage texts joined).

    Examples
    --------
    >>> parse_indication("* paragraph [0012] - [0014]; figure 2 *").paragraphs
    (12, 13, 14)
    >>> parse_indication("claims 1-3, 5").claims
    (1, 2, 3, 5)
    >>> parse_indication("* the whole document *").flags
    ('no-passages',)
    >>> parse_indication("figures 1-3").flags
    ('figures-only',)
    """
    text = text or ""
    segments = tuple(s for s in (_segment(part) for part in _SPLIT.split(text)) if s is not None)
    return Indication(text, segments)
