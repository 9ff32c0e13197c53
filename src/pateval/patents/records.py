"""The record one patent document becomes, and the classification and claim-list helpers around it.

Every reader (CLEF-IP / MAREC, USPTO) returns :class:`PatentDocument` values; the corpus
store writes them to Parquet and the test-collection steps read them back. The records
are frozen so that a document read once can be shared between steps without copying.

A *ucid* names one publication: ``COUNTRY-NUMBER-KIND`` (``EP-1010180-B1``); the identifier
helpers (:func:`~pateval.core.docids.patent_key`, :func:`~pateval.core.docids.split_ucid`,
...) live in :mod:`pateval.core.docids`, below the readers, since evaluation matches
documents on the same keys.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import groupby

from ..core.docids import patent_key
from ..errors import ParameterError, malformed

__all__ = ["Passage", "Claim", "Citation", "PatentDocument", "CITATION_SOURCES", "ipc_prefix", "parse_claim_list",
           "format_claim_list"]

#: The sources a citation may come from: the applicant, the search report, the examiner
#: (office actions), an opposition, or anything else (third-party observations, unknown).
CITATION_SOURCES = frozenset({"applicant", "search", "examiner", "opposition", "other"})


@dataclass(frozen=True, slots=True)
class Passage:
    """One description paragraph or heading.

    Attributes
    ----------
    xpath : str
        Where it is in the source file, in the CLEF-IP convention
        (``/patent-document/description/p[20]``).
    text : str
        The paragraph text, whitespace collapsed.
    is_heading : bool
        True for ``heading`` elements (passage runs must not retrieve them).
    lang : str or None
        Language of the description it belongs to (upper-case code), if known.
    """

    xpath: str
    text: str
    is_heading: bool = False
    lang: str | None = None


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim in one language.

    Attributes
    ----------
    number : int
        The claim number (from ``@num``, or the claim's position when absent).
    xpath : str
        ``/patent-document/claims/claim[3]`` or, with several claims elements,
        ``/patent-document/claims[2]/claim[3]``.
    text : str
        The whole claim text, nested claim-text joined, whitespace collapsed.
    depends_on : tuple of int
        The numbers of the claims this claim refers to (empty for an independent claim).
    """

    number: int
    xpath: str
    text: str
    depends_on: tuple[int, ...] = ()

    @property
    def is_independent(self) -> bool:
        """True when the claim refers to no other claim."""
        return not self.depends_on


@dataclass(frozen=True, slots=True)
class Citation:
    """One cited patent document, as cited by one source.

    A citation that several sources give (the search report and the examiner, say)
    becomes one record per source, so that users can filter judgements by source.

    Attributes
    ----------
    cited_ucid : str
        ``COUNTRY-NUMBER-KIND`` or ``COUNTRY-NUMBER`` when the kind is unknown.
    cited_country, cited_number : str
    cited_kind : str or None
    source : str
        One of :data:`CITATION_SOURCES`.
    categories : str
        Search-report categories, one letter each, in order of first appearance
        (``"XY"``, ``"A"``, ``""`` when none is given).
    relevant_claims : tuple of int
        Claims of the citing document this citation is relevant to (search reports).
    passages : tuple of str
        The passages of the cited document the search report points to, as written.
    """

    cited_ucid: str
    cited_country: str
    cited_number: str
    cited_kind: str | None
    source: str
    categories: str = ""
    relevant_claims: tuple[int, ...] = ()
    passages: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.source not in CITATION_SOURCES:
            raise ParameterError(f"citation source must be one of {sorted(CITATION_SOURCES)}, not {self.source!r}")

    @property
    def cited_patent_key(self) -> str:
        """The patent-level key of the cited document (see :func:`~pateval.core.docids.patent_key`)."""
        return patent_key(self.cited_ucid)

    @property
    def is_highly_relevant(self) -> bool:
        """True for X and Y citations (relevant alone or in combination)."""
        return "X" in self.categories or "Y" in self.categories


@dataclass(frozen=True, slots=True)
class PatentDocument:
    """One patent publication, as read from its XML.

    Attributes
    ----------
    ucid : str
        ``EP-1010180-B1``.
    country, doc_number, kind : str
    family_id : str or None
        The (DOCDB) simple-family id, when the file gives one.
    lang : str or None
        Language of the proceedings / of the document (upper-case code).
    date : str or None
        Publication date, ISO ``YYYY-MM-DD``.
    application_date : str or None
    priority_dates : list of str
    title, abstract : dict
        Language code -> text.
    description : list of Passage
        Paragraphs and headings of all descriptions in document order.
    claims : dict
        Language code -> list of :class:`Claim` in document order.
    ipc_classes : list of str
        IPC symbols, class and group (``"G11C 16/04"``), unique, in document order.
    citations : list of Citation
    applicants, inventors : list of str
    source_path : str
        The file the document was read from.
    """

    ucid: str
    country: str
    doc_number: str
    kind: str
    family_id: str | None = None
    lang: str | None = None
    date: str | None = None
    application_date: str | None = None
    priority_dates: list[str] = field(default_factory=list)
    title: dict[str, str] = field(default_factory=dict)
    abstract: dict[str, str] = field(default_factory=dict)
    description: list[Passage] = field(default_factory=list)
    claims: dict[str, list[Claim]] = field(default_factory=dict)
    ipc_classes: list[str] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    applicants: list[str] = field(default_factory=list)
    inventors: list[str] = field(default_factory=list)
    source_path: str = ""

    @property
    def patent_key(self) -> str:
        """The patent-level key (see :func:`~pateval.core.docids.patent_key`)."""
        return patent_key(self.ucid)

    def ipc_prefixes(self, level: str = "subclass") -> list[str]:
        """The document's IPC classes cut to ``level``, unique, in order.

        Parameters
        ----------
        level : {"section", "class", "subclass", "group"}
            ``"G"``, ``"G11"``, ``"G11C"`` or ``"G11C 16"``.
        """
        return list(dict.fromkeys(ipc_prefix(symbol, level=level) for symbol in self.ipc_classes))

    def claims_in(self, lang: str | None = None) -> list[Claim]:
        """The claims in ``lang`` or, when not given, in the document's language (else
        English, else the first language present)."""
        if lang is not None:
            return self.claims.get(lang.upper(), [])
        for candidate in (self.lang, "EN"):
            if candidate and candidate in self.claims:
                return self.claims[candidate]
        return next(iter(self.claims.values()), [])


# ---- classes and claims --------------------------------------------------------------------


# How many characters of a symbol each level above the group keeps.
_IPC_LEVEL_WIDTHS = {"section": 1, "class": 3, "subclass": 4}


def ipc_prefix(symbol: str, *, level: str = "subclass") -> str:
    """Cut an IPC symbol (``"G11C 16/04"``) to a level.

    Parameters
    ----------
    symbol : str
    level : {"section", "class", "subclass", "group"}
        ``"G"``, ``"G11"``, ``"G11C"`` or ``"G11C 16"`` (main group).
    """
    compact = symbol.strip().upper()
    head = compact[:4]
    if level in _IPC_LEVEL_WIDTHS:
        return head[:_IPC_LEVEL_WIDTHS[level]]
    if level == "group":
        rest = compact[4:].strip()
        return f"{head} {rest.split('/', 1)[0].strip()}" if rest else head
    raise ParameterError(f"IPC level must be section, class, subclass or group, not {level!r}")


# ---- relevant-to-claims lists -------------------------------------------------------------

_CLAIM_ITEM = re.compile(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?")


def parse_claim_list(text: str, *, path: str = "<string>", line: int | None = None) -> tuple[int, ...]:
    """Parse a relevant-to-claims list: ``item (',' item)*``, ``item := int | int '-' int``.

    ``"1-7,14,15"`` -> ``(1, 2, 3, 4, 5, 6, 7, 14, 15)``. Spaces around items are
    allowed; numbers come back sorted and unique. An empty string gives ``()``.

    Raises
    ------
    InputFormatError
        Through :func:`pateval.errors.malformed`, naming ``path`` and ``line``, when the
        text does not follow the grammar or a range runs backwards.
    """
    if not text.strip():
        return ()
    numbers: set[int] = set()
    for item in text.split(","):
        match = _CLAIM_ITEM.fullmatch(item)
        if match is None:
            malformed(path, line, "bad relevant-claims list", expected="N or N-M items separated by commas", found=text)
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) is not None else first
        if last < first or first < 1:
            malformed(path, line, "bad relevant-claims range", expected="1 <= N <= M in N-M", found=item.strip())
        numbers.update(range(first, last + 1))
    return tuple(sorted(numbers))


def format_claim_list(numbers: Iterable[int]) -> str:
    """Write claim numbers in the relevant-to-claims grammar, runs as ranges.

    ``[1, 2, 3, 7, 9, 10]`` -> ``"1-3,7,9-10"`` (two-number runs are written as ranges
    too, so that parsing the result gives the same set back).
    """
    values = sorted(set(int(n) for n in numbers))
    if any(n < 1 for n in values):
        raise ParameterError("claim numbers start at 1")
    # Runs of consecutive numbers keep the difference between number and position.
    runs = [[n for _, n in run] for _, run in groupby(enumerate(values), key=lambda pair: pair[1] - pair[0])]
    return ",".join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)

