"""Z-score reference files (trec_eval's ``-Z``): ``qid measure mean stddev`` per line.

Each line gives, for one topic and one measure (named as trec_eval prints it: ``map``,
``P_10``, ``iprec_at_recall_0.50``), the mean and the standard deviation of that measure's
value over a reference set of runs; :mod:`pateval.results.zscores` turns a run's values
into standard scores with them.

Rules
-----
- Four white-space separated fields per line; mean and stddev are finite decimal numbers,
  stddev >= 0.
- A (topic, measure) pair may appear once (twice with the same numbers is merged):
  trec_eval would take either of two different pairs, pateval names the line instead.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from ..errors import malformed
from .resources import column_lines
from .source import parse_float

__all__ = ["ZScoreReference", "read_zscores"]


@dataclass(frozen=True)
class ZScoreReference:
    """Reference means and standard deviations: ``moments[(topic, measure)] == (mean, stddev)``."""

    moments: dict[tuple[str, str], tuple[float, float]]
    source: str = "<memory>"


def read_zscores(path: str | os.PathLike[str]) -> ZScoreReference:
    """Read a ``qid measure mean stddev`` file.

    Examples
    --------
    >>> import tempfile, os
    >>> f = tempfile.NamedTemporaryFile("w", delete=False)
    >>> _ = f.write("301 map 0.1212 0.1545\\n301 P_10 0.4473 0.3524\\n"); f.close()
    >>> read_zscores(f.name).moments[("301", "P_10")]
    (0.4473, 0.3524)
    >>> os.unlink(f.name)
    """
    seen: dict[tuple[str, str], tuple[int, tuple[float, float]]] = {}  # the first line and moments
    for line, (topic, measure, mean_text, stddev_text) in column_lines(path, "qid measure mean stddev"):
        mean = parse_float(path, line, mean_text, "the mean (3rd column)")
        stddev = parse_float(path, line, stddev_text, "the standard deviation (4th column)")
        if not math.isfinite(mean):
            malformed(path, line, "an infinite mean", expected="a finite number", found=mean_text)
        if not math.isfinite(stddev) or stddev < 0:
            malformed(path, line, "a standard deviation that is negative or infinite",
                      expected="a finite number >= 0", found=stddev_text)
        first_line, first = seen.setdefault((topic, measure), (line, (mean, stddev)))
        if first != (mean, stddev):
            malformed(path, line, f"measure {measure!r} of topic {topic!r} has two means and deviations: "
                      f"{first} on line {first_line}, {(mean, stddev)} here")
    return ZScoreReference({key: moments for key, (_, moments) in seen.items()}, source=str(path))
