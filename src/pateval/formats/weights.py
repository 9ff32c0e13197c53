"""Subtopic weights files: ``qid subtopic weight`` per line (the Cube Test's theta).

The Cube Test gives each subtopic of a topic an importance theta_i >= 0, normalised to sum
to 1 over the topic's subtopics. For patents the subtopics are the topic's claims and the
collection builder writes theta_ind = 1 for independent claims and theta_dep = 0.5 for
dependent ones (:func:`pateval.collection.qrels.claim_theta`) in this format; any other
weighting can be written the same way.

Rules
-----
- Three whitespace-separated fields per line; the weight is a finite decimal number >= 0.
- A (topic, subtopic) pair may appear once (twice with the same weight is merged).
- Weights need not sum to 1: the measure divides by the topic's total over every subtopic
  listed for it, so a claim without any relevant document still takes its share of the cube.
  A topic whose weights are all 0 is an error.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .._lazy import lazy_module
from ..errors import ParameterError, malformed
from .resources import column_lines
from .source import parse_float

pd = lazy_module("pandas")  # imported when a function here needs it, not for every evaluation

__all__ = ["SubtopicTable", "SubtopicWeights", "read_subtopic_weights", "as_subtopic_weights"]


class SubtopicTable:
    """A number for each (topic, subtopic) as aligned arrays (subtopic weights, intent
    probabilities): frozen dataclasses of topic, subtopic, source and the column ``_value``."""

    topic: np.ndarray
    subtopic: np.ndarray
    source: str
    _value: ClassVar[str]

    def __len__(self) -> int:
        return len(self.topic)

    def positions(self, topics: np.ndarray, subtopics: np.ndarray) -> np.ndarray:
        """The row of each (topic, subtopic) pair given, -1 where none is listed."""
        if not len(topics):
            return np.zeros(0, np.int64)
        index = pd.MultiIndex.from_arrays([self.topic.astype(str), self.subtopic.astype(str)])
        return index.get_indexer(pd.MultiIndex.from_arrays([np.asarray(topics).astype(str),
                                                            np.asarray(subtopics).astype(str)]))

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{topic: {subtopic: value}}``."""
        out: dict[str, dict[str, float]] = {}
        for t, s, v in zip(self.topic, self.subtopic, getattr(self, self._value), strict=False):
            out.setdefault(str(t), {})[str(s)] = float(v)
        return out


@dataclass(frozen=True, eq=False)
class SubtopicWeights(SubtopicTable):
    """Raw subtopic weights as aligned arrays, with each topic's total.

    Attributes
    ----------
    topic, subtopic : ndarray of str
    weight : ndarray of float64
        As given (not normalised).
    source : str
    """

    topic: np.ndarray
    subtopic: np.ndarray
    weight: np.ndarray
    source: str = "<memory>"
    _value: ClassVar[str] = "weight"

    def normalised(self, topics: np.ndarray, subtopics: np.ndarray) -> np.ndarray:
        """theta of each (topic, subtopic) pair given: its weight / its topic's total weight.

        Raises
        ------
        ParameterError
            If a pair is not listed, or its topic's weights sum to 0.
        """
        topics = np.asarray(topics).astype(str)
        subtopics = np.asarray(subtopics).astype(str)
        where = self.positions(topics, subtopics)
        if np.any(where < 0):
            first = int(np.flatnonzero(where < 0)[0])
            raise ParameterError(f"subtopic weights ({self.source}) give no weight to subtopic "
                                 f"{str(subtopics[first])!r} of topic {str(topics[first])!r}, which the qrels judge")
        totals = pd.Series(self.weight).groupby(self.topic.astype(str)).sum()
        total = totals.reindex(topics).to_numpy(dtype=np.float64)
        if np.any(total <= 0):
            first = int(np.flatnonzero(total <= 0)[0])
            raise ParameterError(f"subtopic weights ({self.source}): the weights of topic {str(topics[first])!r} sum "
                                 f"to 0")
        return self.weight[where] / total


def read_subtopic_weights(path: str | os.PathLike[str]) -> SubtopicWeights:
    """Read a ``qid subtopic weight`` file.

    Examples
    --------
    >>> import tempfile, os
    >>> f = tempfile.NamedTemporaryFile("w", suffix=".theta", delete=False)
    >>> _ = f.write("PAC-1 1 1\\nPAC-1 2 0.5\\n"); f.close()
    >>> w = read_subtopic_weights(f.name)
    >>> w.normalised(["PAC-1", "PAC-1"], ["1", "2"]).round(4).tolist()
    [0.6667, 0.3333]
    >>> os.unlink(f.name)
    """
    seen: dict[tuple[str, str], tuple[int, float]] = {}
    for line, (topic, subtopic, text) in column_lines(path, "qid subtopic weight"):
        weight = parse_float(path, line, text, "the weight (3rd column)")
        if not math.isfinite(weight) or weight < 0:
            malformed(path, line, "a weight that is negative or infinite", expected="a finite number >= 0", found=text)
        first_line, first = seen.setdefault((topic, subtopic), (line, weight))
        if first != weight:
            malformed(path, line, f"subtopic {subtopic!r} of topic {topic!r} has two weights: "
                      f"{first!r} on line {first_line}, {weight!r} here")
    return SubtopicWeights(topic=np.asarray([topic for topic, _ in seen], dtype=object),
                           subtopic=np.asarray([subtopic for _, subtopic in seen], dtype=object),
                           weight=np.asarray([weight for _, weight in seen.values()], dtype=np.float64),
                           source=str(path))


def as_subtopic_weights(value) -> SubtopicWeights:
    """Accept a :class:`SubtopicWeights`, a path, or ``{topic: {subtopic: weight}}``."""
    if isinstance(value, SubtopicWeights):
        return value
    if isinstance(value, (str, os.PathLike)):
        return read_subtopic_weights(value)
    if isinstance(value, Mapping):
        rows = [(str(t), str(s), float(w)) for t, subs in value.items() for s, w in subs.items()]
        weights = np.asarray([r[2] for r in rows], dtype=np.float64)
        if len(weights) and (not np.all(np.isfinite(weights)) or weights.min() < 0):
            raise ParameterError("subtopic weights must be finite numbers >= 0")
        return SubtopicWeights(topic=np.asarray([r[0] for r in rows], dtype=object),
                               subtopic=np.asarray([r[1] for r in rows], dtype=object), weight=weights)
    raise ParameterError(f"subtopic weights must be a file, a SubtopicWeights or {{topic: {{subtopic: weight}}}}; "
                         f"got {type(value).__name__}")
