"""trec_eval's ``relstring``: the judgements of each topic's first documents, as text.

Not a measure of the registry: its value is a string, which trec_eval prints per topic only
(``pateval trec_eval -q -m relstring``). One character per document of the ranking, in
evaluation order: its grade ``0``-``9``, ``>`` for a grade above 9, ``.`` for a document the
qrels list with a negative grade (pooled, not judged), ``-`` for one the qrels do not list.

Reference: trec_eval 10.0 (NIST) ``relstring`` (``-m relstring.N``: the first N documents,
default 10).
"""

from __future__ import annotations

import numpy as np

from ..core.ranking import RankedTopics

__all__ = ["relevance_strings", "RELSTRING_LENGTH"]

#: trec_eval's default length of relstring.
RELSTRING_LENGTH = 10


def relevance_strings(ranked: RankedTopics, length: int = RELSTRING_LENGTH) -> list[str]:
    """Each topic's relstring (in the order of ``ranked.topic_ids``): the marks of its first
    ``length`` documents; a topic without documents has the empty string."""
    grade = ranked.judged_grade
    marks = np.full(ranked.n_rows, ord("-"), dtype=np.uint8)
    marks[ranked.judged_row] = np.where(grade > 9, ord(">"),
                                        np.where(grade < 0, ord("."), ord("0") + np.clip(grade, 0, 9)))
    starts = ranked.ptr[:-1]
    ends = np.minimum(ranked.ptr[1:], starts + max(length, 0))
    return [marks[start:end].tobytes().decode("ascii") for start, end in zip(starts, ends, strict=True)]
