"""Claim structure: which claims a claim refers to, the claim tree, and claim weights.

Real patent files rarely mark dependencies: CLEF-IP / MAREC claims say them in words
("as claimed in claim 1 or 2", "nach einem der Ansprüche 1 bis 3", "selon la revendication
1"), USPTO files wrap them in ``claim-ref`` elements. :func:`references_in_text` reads the
words in English, German and French; the readers combine it with ``claim-ref`` targets.

The Cube Test (Luo et al.) uses the claims of a topic patent as subtopics, weighting an
independent claim ``theta_ind`` (1) and a dependent one ``theta_dep`` (0.5), normalised
to sum to 1 (:func:`claim_weights`). A claim that refers to another claim is dependent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import ParameterError
from .records import Claim

__all__ = ["references_in_text", "resolve_dependencies", "ClaimTree", "claim_weights"]

# Words that name claims, singular and plural, in the three EPO languages. German also
# appears transliterated (Ansprueche) in older converted files.
_CLAIM_WORD = r"(?:claims?|anspr(?:ü|ue|u)ch(?:e|en|es|s)?|revendications?)"

# Separators inside a list of claim numbers; those in _RANGE_WORDS make a range.
_RANGE_WORDS = r"(?:-|–|—|to|through|thru|up\s+to|bis|à)"
_LIST_WORDS = r"(?:,|;|and/or|or|and|oder|und|ou|et|sowie|as\s+well\s+as)"

_NUMBER = re.compile(r"\s*(\d{1,4})(?!\d)(?!\.\d)(?!\s*(?:mm|cm|µm|nm|%|°))")
_SEPARATOR = re.compile(
    rf"\s*(?:(?P<range>{_RANGE_WORDS})|(?P<list>{_LIST_WORDS}(?:\s*{_LIST_WORDS})?))\s*"
    rf"(?:(?:{_CLAIM_WORD}|no\.|nos\.|nr\.)\s*)?",
    re.IGNORECASE,
)
_CLAIM_KEYWORD = re.compile(rf"\b{_CLAIM_WORD}\b\s*(?:(?:no\.|nos\.|nr\.|n°)\s*)?", re.IGNORECASE)

# "any of the preceding claims", "any preceding claim", "one of the previous claims" ...
_PRECEDING = re.compile(
    r"\b(?:preceding|foregoing|previous|prior|above|aforegoing|aforementioned|"
    r"vorhergehenden|vorangehenden|vorstehenden|vorausgehenden|voranstehenden|vorigen|obigen|"
    r"vorhergehende|vorangehende|vorstehende)"
    r"\s+" + _CLAIM_WORD + r"\b"
    r"|\b(?:revendications?|claims?)\s+(?:précédentes?|precedentes?|antérieures?|anterieures?|"
    r"ci-dessus|qui\s+précèdent|qui\s+precedent|above|hereinbefore)\b",
    re.IGNORECASE,
)


# How far from a claim word the adjective of "preceding claims" may stand (the longest
# phrasings, "qui précèdent", "vorausgehenden", fit well within this).
_PRECEDING_REACH = 40


# Characters that re.IGNORECASE matches to ASCII letters although str.lower() keeps them
# apart (İ ı ſ K): a text holding one is read by the plain regular-expression scan.
_CASE_SPECIALS = ("\u0130", "\u0131", "\u017f", "\u212a")
# Where a claim word can start (lower case); _CLAIM_KEYWORD begins with one of these.
_KEYWORD_STEMS = ("claim", "anspr", "revendication")
# Every alternative of _PRECEDING holds one of these (searched in the lower-cased text,
# case-sensitively, which is cheap): a text without any cannot refer to "the preceding claims".
_PRECEDING_STEMS = re.compile(
    r"preced|précéd|forego|previous|prior|above|afore|vorher|voran|vorst|voraus|vorig|obig|"
    r"antérieur|anterieur|ci-dessus|qui\s+pr|herein"
)


def _claim_keywords(text: str, lowered: str) -> list:
    """The matches of _CLAIM_KEYWORD in ``text``, as ``finditer`` gives them, found by
    trying the pattern only where ``lowered`` holds a claim word's stem (str.find is far
    cheaper than scanning every position with a case-insensitive pattern). ``lowered``
    must be ``text.lower()`` with the same length and none of _CASE_SPECIALS in ``text``."""
    starts: list[int] = []
    for stem in _KEYWORD_STEMS:
        at = lowered.find(stem)
        while at != -1:
            starts.append(at)
            at = lowered.find(stem, at + 1)
    if len(starts) > 1:
        starts.sort()
    end = 0
    matches = []
    for start in starts:
        if start < end:
            continue
        if (match := _CLAIM_KEYWORD.match(text, start)) is not None:
            end = match.end()
            matches.append(match)
    return matches


def references_in_text(text: str, *, own_number: int | None = None) -> tuple[int, ...]:
    """The claim numbers a claim's text refers to, sorted and unique.

    Understands lists and ranges after a claim word ("claims 1 to 3 or 5", "claim 4, 5, 6
    or 7", "Ansprüche 1 - 18", "revendications 1 à 3") and references to all earlier
    claims ("any of the preceding claims", "nach einem der vorhergehenden Ansprüche",
    "selon l'une quelconque des revendications précédentes"), which need ``own_number``.

    Parameters
    ----------
    text : str
        The claim text.
    own_number : int, optional
        The claim's own number: it is removed from the result, and "preceding claims"
        expands to ``1 .. own_number - 1``.
    """
    lowered = text.lower()
    if "claim" not in lowered and "anspr" not in lowered and "revendication" not in lowered:
        # Most independent claims name no claim: skip the regular expressions.
        return ()
    # The fast path (claim words found with str.find, "preceding" looked for only where
    # one of its stems occurs) gives what the plain scan gives; it needs lower() to keep
    # every character's place and no character that IGNORECASE folds otherwise.
    exact = len(lowered) == len(text) and (text.isascii() or not any(c in text for c in _CASE_SPECIALS))
    keywords = _claim_keywords(text, lowered) if exact else _CLAIM_KEYWORD.finditer(text)
    found: set[int] = set()
    refers_to_preceding = False
    for keyword in keywords:
        found.update(_numbers_after(text, keyword.end()))
        # "preceding claims" needs a claim word: look for the adjective only near one
        # (scanning whole claims for it was the slowest part of reading a patent), and
        # only when the window holds one of its stems.
        if own_number is not None and not refers_to_preceding:
            start = max(0, keyword.start() - _PRECEDING_REACH)
            end = keyword.end() + _PRECEDING_REACH
            if not exact or _PRECEDING_STEMS.search(lowered, start, end) is not None:
                refers_to_preceding = _PRECEDING.search(text[start:end]) is not None
    if refers_to_preceding and own_number is not None:  # (only set with an own number)
        found.update(range(1, own_number))
    if own_number is not None:
        found.discard(own_number)
    found.discard(0)
    return tuple(sorted(found))


def _numbers_after(text: str, position: int) -> list[int]:
    """Read a list of claim numbers starting at ``position`` (just after a claim word)."""
    numbers: list[int] = []
    match = _NUMBER.match(text, position)
    if match is None:
        return numbers
    numbers.append(int(match.group(1)))
    position = match.end()
    while True:
        separator = _SEPARATOR.match(text, position)
        if separator is None or separator.end() == position:
            break
        following = _NUMBER.match(text, separator.end())
        if following is None:
            break
        value = int(following.group(1))
        if separator.group("range") is not None:
            low = numbers[-1]
            # A "range" that runs backwards or is absurdly long is not a claim range
            # (e.g. "claim 3 - 250 mm" was caught above, "claim 2 to 1" is a typo).
            if value <= low or value - low > 500:
                break
            numbers.extend(range(low + 1, value + 1))
        else:
            numbers.append(value)
        position = following.end()
    return numbers


def resolve_dependencies(numbers: Sequence[int], texts: Sequence[str],
                         ref_targets: Sequence[Iterable[int]] | None = None) -> list[tuple[int, ...]]:
    """The dependencies of each claim of one claim set.

    A claim depends on the claims its ``claim-ref`` elements point to together with the
    claims its text names (a USPTO range "claims 1 to 5" marks up only the two ends, the
    text gives the rest). References to claims that do not exist in the set, and to the
    claim itself, are dropped.

    Parameters
    ----------
    numbers : sequence of int
        The claim numbers, in document order.
    texts : sequence of str
        The claim texts, same order.
    ref_targets : sequence of iterables of int, optional
        Per claim, the numbers its claim-ref elements resolve to.
    """
    if len(numbers) != len(texts) or (ref_targets is not None and len(ref_targets) != len(numbers)):
        raise ParameterError("numbers, texts and ref_targets must have the same length")
    existing = set(numbers)
    result: list[tuple[int, ...]] = []
    for index, (number, text) in enumerate(zip(numbers, texts, strict=False)):
        targets = set(references_in_text(text, own_number=number))
        if ref_targets is not None:
            targets.update(ref_targets[index])
        targets.discard(number)
        result.append(tuple(sorted(t for t in targets if t in existing)))
    return result


@dataclass(frozen=True)
class ClaimTree:
    """The dependency structure of one claim set.

    A claim that refers to several claims has several parents; the structure is a
    directed acyclic graph in general, a tree when every dependent claim names one claim.

    Attributes
    ----------
    parents : dict
        Claim number -> the claims it refers to (empty tuple for independent claims).
    """

    parents: Mapping[int, tuple[int, ...]]

    @classmethod
    def from_claims(cls, claims: Iterable[Claim]) -> ClaimTree:
        """Build the tree from :class:`~pateval.patents.records.Claim` records."""
        return cls({claim.number: tuple(claim.depends_on) for claim in claims})

    @property
    def independent(self) -> list[int]:
        """Numbers of the independent claims, ascending."""
        return sorted(n for n, refs in self.parents.items() if not refs)

    @property
    def dependent(self) -> list[int]:
        """Numbers of the dependent claims, ascending."""
        return sorted(n for n, refs in self.parents.items() if refs)

    def children(self, number: int) -> list[int]:
        """The claims that refer directly to ``number``."""
        return sorted(n for n, refs in self.parents.items() if number in refs)

    def ancestors(self, number: int) -> list[int]:
        """Every claim ``number`` depends on, directly or through other claims."""
        seen: set[int] = set()
        stack = list(self.parents.get(number, ()))
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            stack.extend(self.parents.get(current, ()))
        seen.discard(number)
        return sorted(seen)

    def roots(self, number: int) -> list[int]:
        """The independent claims that ``number`` ultimately depends on (itself if
        independent)."""
        if not self.parents.get(number):
            return [number]
        return [n for n in self.ancestors(number) if not self.parents.get(n)]

    def as_nested(self) -> dict[int, dict]:
        """The tree as nested dicts from the independent claims down, each dependent
        claim placed under its lowest-numbered parent (for display)."""
        primary: dict[int, list[int]] = {n: [] for n in self.parents}
        for number, refs in self.parents.items():
            if refs:
                primary.setdefault(min(refs), []).append(number)

        def build(number: int, path: frozenset[int]) -> dict:
            return {child: build(child, path | {child})
                    for child in sorted(primary.get(number, [])) if child not in path}

        return {n: build(n, frozenset({n})) for n in self.independent}


def claim_weights(claims: Iterable[Claim] | Mapping[int, Sequence[int]], *, theta_ind: float = 1.0,
                  theta_dep: float = 0.5, normalise: bool = True) -> dict[int, float]:
    """The Cube Test's subtopic importance of each claim.

    Parameters
    ----------
    claims : iterable of Claim, or mapping number -> dependencies
    theta_ind, theta_dep : float
        Weight of an independent and of a dependent claim (non-negative, not both 0).
    normalise : bool
        Divide by the sum so that the weights add up to 1.

    Returns
    -------
    dict
        Claim number -> weight, in ascending claim order.
    """
    if theta_ind < 0 or theta_dep < 0:
        raise ParameterError(f"theta_ind and theta_dep must be >= 0, got {theta_ind} and {theta_dep}")
    parents = ({int(n): tuple(refs) for n, refs in claims.items()} if isinstance(claims, Mapping)
               else {claim.number: tuple(claim.depends_on) for claim in claims})
    weights = {n: (theta_dep if parents[n] else theta_ind) for n in sorted(parents)}
    if normalise and weights:
        total = sum(weights.values())
        if total == 0:
            raise ParameterError("claim weights sum to 0; theta_ind or theta_dep must be positive")
        weights = {n: w / total for n, w in weights.items()}
    return weights
