"""PRES (Magdy & Jones 2010) and normalised recall Rnorm (Rocchio), the recall-with-effort measures.

Both place each relevant document at its rank and compare the sum of those ranks with the
best case (all relevant documents on top) and a worst case; relevant documents the run does
not retrieve (within the cutoff) are put at the worst places.

Conventions (pateval's, stated in the spec): a document is relevant when its grade is at
least ``rel`` (default 1, like trec_eval's measures); n counts every relevant document of
the topic, retrieved or not; a topic without relevant documents scores 0 and counts in the
mean, as recall does in trec_eval and in :mod:`pateval.measures.standard` (so that
``PRES <= R@Nmax`` holds for every topic and mean).
"""

from __future__ import annotations

import numpy as np

from ..core.ranking import RankedTopics
from ..errors import ParameterError
from ..validation import Interval
from .base import EvaluationContext, Measure, MeasureSpec, Param, divide_or_zero
from .registry import register
from .relevance import REL, topic_and_column

__all__ = ["PRES_DEFAULT_NMAX", "pres", "rnorm", "pres_from_ranks"]

PRES_DEFAULT_NMAX = 100  # CLEF-IP's depth; the paper also reports Nmax=1000
COLLECTION = Param("collection", int, 0, "N, the number of documents in the collection (required, 0 = not given)",
                   interval=Interval(0, None))
PRES_REFERENCE = ("W. Magdy and G. J. F. Jones, PRES: a score metric for evaluating recall-oriented information "
                  "retrieval applications, SIGIR 2010; A new metric for patent retrieval evaluation, AsPIRe 2010")
RNORM_REFERENCE = ("J. J. Rocchio, Performance indices for document retrieval systems (1964); "
                   "C. J. van Rijsbergen, Information Retrieval, 2nd ed. (1979); as restated by Magdy & Jones 2010, "
                   "eq. 2")


def _found(ranked: RankedTopics, level: int, depth: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per topic: n (relevant documents), k (found within ``depth``), the sum of their ranks."""
    rows = ranked.relevant_rows(level)  # the few relevant rows, ascending: all the work is on them
    topic, column = topic_and_column(ranked, rows)
    if depth is not None:
        within = np.flatnonzero(column < depth)
        topic, column = topic[within], column[within]
    n = ranked.num_rel(level).astype(np.float64)
    k = np.bincount(topic, minlength=ranked.n_topics).astype(np.float64)
    # ranks are integers: their float sum is exact in any order
    rank_sum = np.bincount(topic, weights=column + 1.0, minlength=ranked.n_topics)
    return n, k, rank_sum


def _normalised_recall(n: np.ndarray, k: np.ndarray, rank_sum: np.ndarray, size) -> np.ndarray:
    """1 - (sum_i r_i - sum_{i<=n} i) / (n (size - n)), the n - k relevant documents not found
    at the last ranks size-(n-k)+1 .. size; 0 without relevant documents. Every term is an
    integer, exact in floating point: Rnorm, and PRES with size = Nmax + n (its missing
    documents at Nmax+k+1 .. Nmax+n)."""
    missing = n - k
    missing_sum = missing * size - missing * (missing - 1) / 2
    excess = rank_sum + missing_sum - n * (n + 1) / 2
    return np.where(n > 0, 1.0 - divide_or_zero(excess, n * (size - n)), 0.0)


def pres_from_ranks(ranks, n: int, nmax: int = PRES_DEFAULT_NMAX) -> float:
    """PRES of one topic from the ranks of its relevant documents found (the paper's examples).

    Parameters
    ----------
    ranks : iterable of int
        Ranks (1-based) of the relevant documents retrieved; ranks beyond ``nmax`` are ignored.
    n : int
        Number of relevant documents of the topic.
    nmax : int, default 100

    Examples
    --------
    >>> round(pres_from_ranks([50, 51, 53, 54], 4, 100), 4), round(pres_from_ranks([32, 35, 46], 3, 1000), 4)
    (0.505, 0.9643)
    """
    ranks = np.unique(np.asarray(list(ranks), dtype=np.int64))
    if len(ranks) and ranks.min() < 1:
        raise ParameterError("ranks are 1-based")
    if nmax < 1:
        raise ParameterError(f"nmax must be a positive integer; got {nmax!r}")
    ranks = ranks[ranks <= nmax]
    if len(ranks) > n:
        raise ParameterError(f"{len(ranks)} relevant documents found but n = {n}")
    value = _normalised_recall(np.array([float(n)]), np.array([float(len(ranks))]), np.array([float(ranks.sum())]),
                               nmax + n)
    return float(value[0])


def pres(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Patent Retrieval Evaluation Score (Magdy & Jones 2010).

    PRES@Nmax = 1 - (sum_i r_i / n - (n+1)/2) / Nmax, where n is the number of relevant
    documents of the topic, r_1..r_k the ranks of those found in the top Nmax, and the n-k
    missing ones are placed at ranks Nmax+k+1, ..., Nmax+n (the worst case: just below what
    the user reads). It is Rnorm with a collection of Nmax+n documents. Range: from the
    recall R (relevant documents on top) down to n R^2 / Nmax. Nmax defaults to 100
    (``PRES`` is ``PRES@100``).

    Examples
    --------
    >>> from pateval.api import evaluate
    >>> qrels = {"q": {"a": 1, "b": 1, "c": 1, "d": 1}}
    >>> run = {"q": {"a": 3.0, "x": 2.0, "b": 1.0}}
    >>> round(float(evaluate(qrels, run, "PRES@10")["value"][0]), 4)  # ranks {1, 3}, n=4
    0.475
    """
    nmax = measure.cutoff or PRES_DEFAULT_NMAX
    n, k, rank_sum = _found(ranked, measure["rel"], nmax)
    return _normalised_recall(n, k, rank_sum, nmax + n)


def rnorm(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Normalised recall over a collection of N documents (Rocchio), with Magdy & Jones' approximation.

    Rnorm = 1 - (sum_i r_i - sum_{i=1}^{n} i) / (n (N - n)): the area between the run's
    recall curve and the worst case (every relevant document ranked last) over the area
    between the best and the worst case. Relevant documents not retrieved (or ranked below
    the cutoff k, with ``Rnorm@k``) are placed at the end of the collection, ranks
    N-m+1..N for m missing ones. N is the parameter ``collection`` and must be given.
    Rnorm is 1 when every document of the collection is relevant, 0 when none is.
    """
    size = measure["collection"]
    if size < 1:
        raise ParameterError(f"{measure.spec.name} needs the collection size N: write e.g. Rnorm(collection=1000000)")
    n, k, rank_sum = _found(ranked, measure["rel"], measure.cutoff)
    missing = n - k
    considered = ranked.num_ret() if measure.cutoff is None else np.minimum(ranked.num_ret(), measure.cutoff)
    too_small = considered + missing > size
    if too_small.any():
        t = int(np.flatnonzero(too_small)[0])
        raise ParameterError(
            f"{measure}: topic {ranked.topic_ids[t]!r} has {int(considered[t])} ranked documents and "
            f"{int(missing[t])} relevant ones not ranked: more than the collection size N = {size}")
    return _normalised_recall(n, k, rank_sum, size)


register(
    MeasureSpec("PRES", "professional",
                "patent retrieval evaluation score: recall and ranking within Nmax (default 100)",
                "PRES@Nmax = 1 - (sum_i r_i / n - (n+1)/2) / Nmax, missing relevant at Nmax+k+1..Nmax+n",
                PRES_REFERENCE, pres, (REL,), cutoff="optional"),
    MeasureSpec("Rnorm", "professional", "normalised recall over a collection of N documents (Rocchio)",
                "Rnorm = 1 - (sum_i r_i - sum_{i<=n} i) / (n (N - n)), missing relevant at the end of the collection",
                RNORM_REFERENCE, rnorm, (REL, COLLECTION), cutoff="optional"),
)
