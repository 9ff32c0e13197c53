"""What every measure family reads: relevance levels, gains, trec_eval's flags, relevant rows.

The families (standard, gains, interpolated, professional, ...) stand side by side on this
module and import nothing from one another for it, so that ``measures/`` has no import
circle. Grades are read here and nowhere else: a document is relevant at level ``rel``
when its grade is at least ``rel`` (:func:`relevant`), and a grade becomes a gain through
:func:`gains_of` (its grade, or the gain ``gains`` maps its level to; negative grades and
unjudged documents gain 0).

Reference: trec_eval 10.0 (NIST): its relevance level ``-l``, its gain parameter
``level=gain,...`` (setup_gains, get_gain) and its 11 recall levels of ``iprec_at_recall``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from ..core.ranking import RankedTopics
from ..core.segments import place_in_segments, running_sum, segment_of
from ..errors import ParameterError
from ..validation import Interval
from .base import EvaluationContext, Param

__all__ = ["TREC_EVAL", "REL", "GAINS", "ELEVEN_POINTS", "relevant", "topic_and_column",
           "per_topic", "gain_map", "gains_of", "RowsByRank", "relevant_by_rank", "relevant_running_sums",
           "ideal_grades"]

TREC_EVAL = "trec_eval (NIST), https://github.com/usnistgov/trec_eval"
REL = Param("rel", int, 1, "minimum grade counted as relevant (trec_eval -l)", interval=Interval(1, None))
GAINS = Param("gains", str, "", "the gain of relevance levels, trec_eval's 'level=gain,...' (e.g. '1=3,2=9'); "
              "a level not listed gains its grade")
#: The recall levels of the 11-point curve (trec_eval's defaults for iprec_at_recall).
ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

_PAIR = re.compile(r"\s*(-?\d+)\s*=\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*")


def relevant(ranked: RankedTopics, level: int, cutoff: int | None,
             context: EvaluationContext) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``grades, topic, position`` (1-based rank) of the retrieved rows judged with grade >=
    ``level``, in ranking order (within the cutoff), found once per ranking and level for
    all the measures of an evaluation (``context``)."""
    grades, topic, position = context.memo.get(("relevant rows", level), lambda: _relevant(ranked, level),
                                               ranking=ranked)
    if cutoff is not None:
        within = position <= cutoff
        grades, topic, position = grades[within], topic[within], position[within]
    return grades, topic, position


def _relevant(ranked: RankedTopics, level: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    keep = ranked.judged_grade >= level
    rows, grades, topic = ranked.judged_row[keep], ranked.judged_grade[keep], ranked.judged_topic[keep]
    return grades, topic, rows - ranked.ptr[topic] + 1


class RowsByRank:
    """Some rows of a ranking (its relevant ones, an ideal ranking's), each by topic and
    1-based position, topic by topic in ranking order: how many of each topic's are ranked
    within a cutoff, and the sum of their weights there, by one binary search per topic.

    What a family of cutoffs reads (P@5 ... P@1000, AP@k, nDCG@k): made once per ranking,
    each cutoff then costs a few operations on one value per topic, not a pass over the
    rows. A sum is read from each topic's running sum (:func:`~pateval.core.segments.running_sum`,
    added in ranking order from 0), so it is the number a sum over the rows within the
    cutoff gives, to the last bit.

    >>> rows = RowsByRank(np.array([0, 0, 1]), np.array([1, 4, 2]), n_topics=3)
    >>> rows.count(3).tolist(), rows.count(np.array([5, 1, 1])).tolist()
    ([1, 1, 0], [2, 0, 0])
    >>> rows.total(rows.running(np.array([1.0, 0.5, 0.5])), 4).tolist()
    [1.5, 0.5, 0.0]
    """

    def __init__(self, topic: np.ndarray, position: np.ndarray, *, n_topics: int):
        self.span = int(position.max()) + 1 if len(position) else 1
        self.base = np.arange(n_topics, dtype=np.int64) * self.span
        self.key = topic.astype(np.int64) * self.span + position  # ascending: topics, then ranks
        self.topic = topic
        self.starts = np.searchsorted(self.key, self.base)

    def _ends(self, cutoff: int | np.ndarray | None) -> np.ndarray:
        if cutoff is None:
            return np.searchsorted(self.key, self.base + self.span)
        return np.searchsorted(self.key, self.base + np.minimum(cutoff, self.span - 1), side="right")

    def count(self, cutoff: int | np.ndarray | None) -> np.ndarray:
        """Per topic (int64), the rows ranked within ``cutoff`` (a number, or one per topic; None: all)."""
        return self._ends(cutoff) - self.starts

    def running(self, weights: np.ndarray) -> np.ndarray:
        """Each topic's running sums of ``weights`` (one per row), what :meth:`total` reads."""
        return running_sum(weights, self.topic)

    def total(self, running: np.ndarray, cutoff: int | np.ndarray | None) -> np.ndarray:
        """Per topic (float64), the sum of the weights of the rows ranked within ``cutoff``,
        read from their :meth:`running` sums."""
        ends = self._ends(cutoff)
        out = np.zeros(len(self.base), dtype=np.float64)
        some = np.flatnonzero(ends > self.starts)
        out[some] = running[ends[some] - 1]
        return out


def relevant_by_rank(ranked: RankedTopics, level: int, context: EvaluationContext) -> RowsByRank:
    """The rows relevant at ``level`` as :class:`RowsByRank` (``level`` 0: the judged rows),
    made once per ranking and level: what the kernels of a cutoff family share."""
    def make() -> RowsByRank:
        _, topic, position = relevant(ranked, level, None, context)
        return RowsByRank(topic, position, n_topics=ranked.n_topics)

    return context.memo.get(("relevant by rank", level), make, ranking=ranked)


def relevant_running_sums(ranked: RankedTopics, level: int, context: EvaluationContext, name: str,
                          weigh: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """The :meth:`RowsByRank.running` sums of the weights ``weigh`` gives the rows relevant at
    ``level`` (from their grades, topics and positions), made once per ranking, level and ``name``."""
    def make() -> np.ndarray:
        return relevant_by_rank(ranked, level, context).running(weigh(*relevant(ranked, level, None, context)))

    return context.memo.get(("relevant running sums", level, name), make, ranking=ranked)


def ideal_grades(ranked: RankedTopics) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``gain, topic, position``: each topic's positive grades best first (float64), the ideal
    ranking when each grade gains itself -- what nDCG and the gain families without ``gains``
    read, from the judgements' grades sorted once (``JudgementIndex.grades_descending``)."""
    judgements = ranked.judgements
    descending = judgements.grades_descending
    keep = descending > 0
    position = place_in_segments(np.diff(judgements.ptr), first=1)
    return descending[keep].astype(np.float64), segment_of(judgements.ptr)[keep], position[keep]


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
