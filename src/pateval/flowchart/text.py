"""Comparing the texts of flowchart nodes and edges as recognised by OCR.

Texts are compared after normalisation (Unicode case folding, runs of whitespace -- including
the line breaks of multi-line node texts -- collapsed to one space, ends stripped), then by
the Levenshtein edit distance relative to the longer text::

    similar(a, b)  <=>  lev(norm(a), norm(b)) <= threshold * max(|norm(a)|, |norm(b)|)

so ``threshold=0`` asks for equal normalised texts and ``threshold=0.2`` forgives one wrong
character in five.
"""

from __future__ import annotations

from ..errors import ParameterError

__all__ = ["check_threshold", "edit_distance", "normalise_text", "texts_similar"]


def normalise_text(text: str) -> str:
    """Case-folded ``text`` with whitespace runs collapsed to single spaces and ends stripped."""
    return " ".join(text.casefold().split())


def edit_distance(first: str, second: str, *, limit: int | None = None) -> int:
    """Levenshtein distance (unit insert, delete, substitute) between two strings.

    With ``limit``, only distances up to ``limit`` are computed exactly (a band of the
    dynamic programme of width ``2 * limit + 1``, Ukkonen 1985); a larger distance is
    returned as ``limit + 1``.
    """
    if first == second:
        return 0
    if len(first) < len(second):
        first, second = second, first
    if limit is not None and len(first) - len(second) > limit:
        return limit + 1
    if not second:
        return len(first)
    band = len(first) if limit is None else limit
    too_far = band + 1
    previous = list(range(len(second) + 1))
    for i, char in enumerate(first, start=1):
        low, high = max(1, i - band), min(len(second), i + band)
        current = [too_far] * (len(second) + 1)
        if i <= band:
            current[0] = i
        best = current[0]
        for j in range(low, high + 1):
            # substitution (free when the characters are equal), deletion, insertion
            value = current[j] = min(previous[j - 1] + (char != second[j - 1]), previous[j] + 1, current[j - 1] + 1)
            if value < best:  # noqa: PLR1730 - the inner loop: a comparison is faster than min()
                best = value
        if limit is not None and best > limit:
            return limit + 1
        previous = current
    distance = previous[len(second)]
    return distance if limit is None or distance <= limit else limit + 1


def check_threshold(threshold: float) -> float:
    """Validate a relative edit-distance threshold (a number in [0, 1])."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0.0 <= float(threshold) <= 1.0:
        raise ParameterError(f"text_threshold must be a number from 0 to 1 (a share of the longer text's length), not "
                             f"{threshold!r}")
    return float(threshold)


def texts_similar(first: str, second: str, threshold: float) -> bool:
    """Whether two *normalised* texts are within ``threshold`` relative edit distance.

    Not cached here: a search that compares the same texts often caches its own calls
    (:class:`pateval.flowchart.mcs._Matcher`), so that no cache outlives its job."""
    if first == second:
        return True
    allowed = int(threshold * max(len(first), len(second)) + 1e-9)
    if allowed == 0:
        return False
    return edit_distance(first, second, limit=allowed) <= allowed
