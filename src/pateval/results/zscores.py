"""Standard scores (trec_eval's ``-Z``): each topic's value as deviations from a reference mean.

For topic t and measure m with reference mean mu(t, m) and standard deviation sigma(t, m)
(:class:`pateval.formats.zscores.ZScoreReference`), the z-score of value v is

    z = (v - mu) / sigma

and, as in trec_eval 10.0 (convert_zscores.c), z = 0 where sigma = 0 and v = mu, and
z = -1000000 (:data:`MISSING_ZSCORE`) where sigma = 0 and v != mu or where the file has no
line for (t, m). The ``all`` value is then taken of the z-scores as of the raw values:
their mean, or their sum for counts (``num_ret``, ``num_rel``); a geometric mean (``gm_map``,
``gm_bpref``) standardises log(max(v, 0.00001)) and reports exp of the mean z-score, as
trec_eval accumulates those logs. Reference: Webber, Moffat & Zobel, "Score standardization
for inter-collection comparison of retrieval systems", SIGIR 2008.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from ..formats.zscores import ZScoreReference
from ..measures import parse_measure
from ..trec_eval_rules import trec_eval_summary_rows

__all__ = ["MISSING_ZSCORE", "standard_scores", "zscore_results"]

#: trec_eval's z-score where the reference gives none (MISSING_ZSCORE_VALUE)
MISSING_ZSCORE = -1000000.0


def standard_scores(values: np.ndarray, topics: Sequence[str], measure: str,
                    reference: ZScoreReference) -> np.ndarray:
    """The z-score of each topic's value of ``measure`` (named as in the reference file).

    Examples
    --------
    >>> ref = ZScoreReference({("1", "map"): (0.5, 0.25), ("2", "map"): (0.3, 0.0)})
    >>> standard_scores(np.array([0.75, 0.3, 0.2]), ["1", "2", "3"], "map", ref).tolist()
    [1.0, 0.0, -1000000.0]
    """
    found = [reference.moments.get((str(topic), measure)) for topic in topics]
    mean = np.array([m[0] if m else 0.0 for m in found], dtype=np.float64)
    stddev = np.array([m[1] if m else 0.0 for m in found], dtype=np.float64)
    missing = np.array([m is None for m in found], dtype=bool) | ((stddev == 0) & (values != mean))
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = np.where(stddev == 0, 0.0, (values - mean) / np.where(stddev == 0, 1.0, stddev))
    scores[missing] = MISSING_ZSCORE
    return scores


def zscore_results(scored: Iterable, measures: Sequence, names: Mapping[str, str], reference: ZScoreReference, *,
                   totals: Mapping[str, float] | None = None) -> tuple[list, list[tuple[str, str, float, int]]]:
    """Every run's values as z-scores, and their ``all`` values.

    Parameters
    ----------
    scored : iterable of ScoredRun
        As :attr:`pateval.evaluation.Evaluation.scored` (dataclasses with ``run``,
        ``topics``, ``measures``, ``values``).
    measures : sequence of Measure or str
        The measures scored (their aggregation: mean, sum or geometric mean).
    names : mapping
        pateval's name of each measure -> its name in the reference file (trec_eval's).
    reference : ZScoreReference
    totals : mapping, optional
        ``all`` values trec_eval's rules set, by measure (:attr:`pateval.evaluation.Evaluation.totals`).

    Returns
    -------
    (scored, summary_rows)
        The runs with z-scores for values, and ``(run, measure, value, topics)`` rows summed
        as trec_eval sums them (:func:`pateval.trec_eval_rules.trec_eval_summary_rows`).
    """
    how = {str(m): parse_measure(m).spec.aggregate for m in measures}
    converted = []
    for piece in scored:
        n = len(piece.topics)
        values = np.asarray(piece.values, dtype=np.float64).copy()
        for j, measure in enumerate(piece.measures):
            raw = values[j * n:(j + 1) * n]
            if how[measure] == "gmean":
                raw = np.log(np.maximum(raw, 0.00001))
            values[j * n:(j + 1) * n] = standard_scores(raw, piece.topics, names[measure], reference)
        converted.append(dataclasses.replace(piece, values=values))
    return converted, trec_eval_summary_rows(converted, measures, logged=True, totals=totals)
