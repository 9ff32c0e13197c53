"""Intent probabilities files: ``qid subtopic probability`` per line, for the subtopic measures.

P(i|q), the probability that a user issuing topic ``q`` means intent (subtopic) ``i``,
weights the intent-aware measures (ERR-IA, P-IA, MAP-IA, alpha-nDCG) and makes the global
gain of D-nDCG (Sakai & Song 2011). NTCIR's intent files carry the same three columns.

Rules
-----
- Each line has three whitespace-separated fields; the probability is a decimal number in
  [0, 1]. A (topic, subtopic) pair may appear once.
- A topic's probabilities must sum to 1 within :data:`SUM_TOLERANCE` (files written with
  two decimals, e.g. three intents at 0.33, still read); they are then rescaled to sum to
  exactly 1. A topic whose probabilities sum to anything else is an error naming the topic
  and the line of its first intent, since such a file was most likely cut or mixed up.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .._lazy import lazy_module
from ..errors import ParameterError, malformed
from .resources import column_lines
from .source import parse_float
from .weights import SubtopicTable

pd = lazy_module("pandas")  # imported when a function here needs it, not for every evaluation

__all__ = ["SUM_TOLERANCE", "IntentProbabilities", "read_intents", "as_intent_probabilities"]

SUM_TOLERANCE = 0.01
_ROUNDING = 1e-9  # 0.33 + 0.33 + 0.33 is 0.99 only up to float rounding


@dataclass(frozen=True, eq=False)
class IntentProbabilities(SubtopicTable):
    """P(i|q) for each (topic, subtopic), as aligned arrays (each topic's values sum to 1).

    Attributes
    ----------
    topic, subtopic : ndarray of str
    probability : ndarray of float64
    source : str
    """

    topic: np.ndarray
    subtopic: np.ndarray
    probability: np.ndarray
    source: str = "<memory>"
    _value: ClassVar[str] = "probability"

    def lookup(self, topics: np.ndarray, subtopics: np.ndarray) -> np.ndarray:
        """The probability of each (topic, subtopic) pair given, or NaN where none is listed."""
        where = self.positions(topics, subtopics)
        found = np.where(where >= 0, self.probability[np.maximum(where, 0)] if len(self.probability) else 0.0, np.nan)
        return found.astype(np.float64)


def read_intents(path: str | os.PathLike[str]) -> IntentProbabilities:
    """Read an intent probabilities file (see the module notes for the rules).

    Examples
    --------
    A file with the lines ``q1 1 0.5``, ``q1 2 0.3``, ``q1 3 0.2`` gives P(1|q1) = 0.5, ...
    """
    rows: list[tuple[str, str, float, int]] = []
    seen: dict[tuple[str, str], int] = {}
    for line, (topic, subtopic, text) in column_lines(path, "qid subtopic probability"):
        probability = parse_float(path, line, text, "the probability (3rd column)")
        if not 0.0 <= probability <= 1.0:
            malformed(path, line, "a probability outside [0, 1]", expected="a number in [0, 1]", found=text)
        first = seen.setdefault((topic, subtopic), line)
        if first != line:
            malformed(path, line, f"topic {topic!r} subtopic {subtopic!r} is listed twice (first on line {first})")
        rows.append((topic, subtopic, probability, line))
    frame = pd.DataFrame(rows, columns=["topic", "subtopic", "p", "line"])
    totals = frame.groupby("topic", sort=False).agg(total=("p", "sum"), first=("line", "min"))
    bad = totals[(totals["total"] - 1.0).abs() > SUM_TOLERANCE + _ROUNDING]
    if len(bad):
        topic = bad.index[0]
        malformed(path, int(bad["first"].iloc[0]),
                  f"the intent probabilities of topic {topic!r} (from this line on) sum to {bad['total'].iloc[0]:.6g}",
                  expected=f"a sum of 1 (within {SUM_TOLERANCE})")
    scale = frame["topic"].map(totals["total"]).to_numpy(dtype=np.float64)
    return IntentProbabilities(
        topic=frame["topic"].to_numpy(dtype=object),
        subtopic=frame["subtopic"].to_numpy(dtype=object),
        probability=frame["p"].to_numpy(dtype=np.float64) / scale,
        source=str(path),
    )


def as_intent_probabilities(value: IntentProbabilities | Mapping) -> IntentProbabilities:
    """Accept the reader's result, or ``{topic: {subtopic: probability}}`` from the API.

    The same rules as for files apply to a mapping (values in [0, 1], sums within
    :data:`SUM_TOLERANCE` of 1, then rescaled), with :class:`ParameterError` instead of a
    line number.
    """
    if isinstance(value, IntentProbabilities):
        return value
    if not isinstance(value, Mapping):
        raise ParameterError(f"intent probabilities must be read with read_intents or given as "
                             f"{{topic: {{subtopic: probability}}}}; got {type(value).__name__}")
    rows = [(str(t), str(s), p) for t, intents in value.items() for s, p in dict(intents).items()]
    topics = np.asarray([r[0] for r in rows], dtype=object)
    subtopics = np.asarray([r[1] for r in rows], dtype=object)
    try:
        probability = np.asarray([float(r[2]) for r in rows], dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError("intent probabilities must be numbers") from None
    outside = ~((probability >= 0.0) & (probability <= 1.0))
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise ParameterError(f"intent probability of topic {topics[i]!r} subtopic {subtopics[i]!r} must be in [0, 1]; "
                             f"got {probability[i]!r}")
    totals = pd.Series(probability).groupby(topics).sum()
    off = totals[(totals - 1.0).abs() > SUM_TOLERANCE + _ROUNDING]
    if len(off):
        raise ParameterError(f"the intent probabilities of topic {off.index[0]!r} sum to {off.iloc[0]:.6g}, "
                             f"not 1 (within {SUM_TOLERANCE})")
    scale = totals.reindex(topics).to_numpy(dtype=np.float64) if len(rows) else np.zeros(0)
    return IntentProbabilities(topic=topics, subtopic=subtopics, probability=probability / np.where(scale > 0, scale,
                                                                                                    1.0))
