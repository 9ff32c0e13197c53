"""What every measure family reads: relevance levels, gains, trec_eval's flags, relevant rows.

The families (standard, gains, interpolated, professional, ...) stand side by side on this
module and import nothing from one another for it, so that ``measures/`` has no import
circle. Grades are read here and nowhere else: a document is relevant at level ``rel``
when its grade is at least ``rel`` (:func:`relevant`, :func:`relevant_rows`), and a grade
becomes a gain through :func:`gains_of` (its grade, or the gain ``gains`` maps its level
to; negative grades and unjudged documents gain 0).

Reference: trec_eval 10.0 (NIST): its relevance level ``-l``, its gain parameter
``level=gain,...`` (setup_gains, get_gain) and its 11 recall levels of ``iprec_at_recall``.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from ..core.ranking import RankedTopics
from ..errors import ParameterError
from ..validation import Interval
from .base import EvaluationContext, Param

__all__ = ["TREC_EVAL", "REL", "GAINS", "ELEVEN_POINTS", "relevant", "relevant_rows", "topic_and_column",
           "per_topic", "gain_map", "gains_of"]

TREC_EVAL = "trec_eval (NIST), https://github.com/usnistgov/trec_eval"
REL = Param("rel", int, 1, "minimum grade counted as relevant (trec_eval -l)", interval=Interval(1, None))
GAINS = Param("gains", str, "", "the gain of relevance levels, trec_eval's 'level=gain,...' (e.g. '1=3,2=9'); "
              "a level not listed gains its grade")
#: The recall levels of the 11-point curve (trec_eval's defaults for iprec_at_recall).
ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

_PAIR = re.compile(r"\s*(-?\d+)\s*=\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*")


def relevant(ranked: RankedTopics, level: int, cutoff: int | None,
             context: EvaluationContext | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``grades, topic, position`` (1-based rank) of the retrieved rows judged with grade >=
    ``level``, in ranking order (within the cutoff); with a ``context``, found once per
    ranking and level for all the measures of an evaluation."""
    if context is None:
        grades, topic, position = _relevant(ranked, level)
    else:
        grades, topic, position = context.memo.get(("relevant rows", level), lambda: _relevant(ranked, level),
                                                   ranking=ranked)
    if cutoff is not None:
        within = position <= cutoff
        grades, topic, position = grades[within], topic[within], position[within]
    return grades, topic, position


def _relevant(ranked: RankedTopics, level: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    keep = ranked.judged_grade >= level
    rows, grades = ranked.judged_row[keep], ranked.judged_grade[keep]
    topic = ranked.topic_of(rows)
    return grades, topic, rows - ranked.ptr[topic] + 1


def relevant_rows(ranked: RankedTopics, level: int) -> np.ndarray:
    """The rows judged with grade >= ``level`` (>= 1), ascending."""
    rows = getattr(ranked, "relevant_rows", None)
    if rows is not None:  # rankings that keep their judged rows apart give them without a pass over all rows
        return np.asarray(rows(level), dtype=np.int64)
    return np.flatnonzero(ranked.relevant(level))


def topic_and_column(ranked: RankedTopics, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The topic of each of ``rows`` and the row's 0-based place in that topic's ranking."""
    counts = np.diff(ranked.ptr)
    width = int(counts.max()) if len(counts) else 0
    if width and bool(np.all(counts == width)):
        return np.divmod(rows, width)  # rankings of one depth (the usual 1000 each)
    topic = np.searchsorted(ranked.ptr, rows, side="right") - 1
    return topic, rows - ranked.ptr[topic]


def per_topic(topic: np.ndarray, ranked: RankedTopics, weights: np.ndarray | None = None) -> np.ndarray:
    """The count (or the sum of ``weights``) of the rows of each topic (float64, one per topic)."""
    return np.bincount(topic, weights=weights, minlength=ranked.n_topics).astype(np.float64)


@lru_cache(maxsize=64)
def gain_map(text: str) -> tuple[tuple[int, float], ...]:
    """The ``gains`` parameter, ``'1=3,2=9'``, as ``((1, 3.0), (2, 9.0))`` (a level listed twice: the last)."""
    if not text.strip():
        return ()
    pairs: dict[int, float] = {}
    for part in text.split(","):
        match = _PAIR.fullmatch(part)
        if match is None:
            raise ParameterError(f"gains: {part.strip()!r} in {text!r} is not level=gain (e.g. gains='1=3,2=9')")
        level = int(match.group(1))
        if level < 0:
            raise ParameterError(f"gains: level {level} in {text!r} is negative; levels are grades >= 0")
        pairs[level] = float(match.group(2))
    return tuple(pairs.items())


def gains_of(grades: np.ndarray, pairs: tuple[tuple[int, float], ...]) -> np.ndarray:
    """The gain of each grade: mapped, else the grade; negative grades (unjudged) gain 0."""
    gains = np.maximum(grades, 0).astype(np.float64)
    for level, gain in pairs:
        gains[grades == level] = gain
    return gains
