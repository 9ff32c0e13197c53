"""Run fusion: CombSUM, CombMNZ (Fox and Shaw 1993), RRF (Cormack, Clarke and Buettcher 2009),
Borda (Aslam and Montague 2001), with min-max, z-score and sum normalisations.

The values are ranx's ``fuse`` (``ranx.fusion``, ``ranx.normalization``), on the same runs:

- normalisation, per run and topic, of the scores of the documents the run retrieved:
  ``min-max`` ``(s - min) / max(max - min, 1e-9)``; ``z-score`` ``(s - mean) / max(std,
  1e-9)`` (population standard deviation); ``sum`` ``(s - min) / max(sum(s) - n * min,
  1e-9)``; ``none``;
- ``combsum``: the sum over the runs of the normalised scores (0 where a run did not
  retrieve the document); ``combmnz``: that sum times the number of runs that retrieved it;
- ``rrf``: ``sum_r 1 / (k + rank_r(d))`` over the runs that retrieved ``d`` (k = 60);
- ``borda``: with ``M`` the documents any run retrieved for the topic, a run gives ``M - rank
  + 1`` points to the document at ``rank`` and ``(M - n_r + 1) / 2`` to each of the ``M -
  n_r`` it did not retrieve; the points are summed over the runs.

Ranks are places in the ranking step's order (score descending, ties by docno descending,
as trec_eval); ranx breaks equal scores in the order of an unstable sort, so runs with tied
scores may give different RRF and Borda values there. The fused run is ranked the same way:
fused score descending, ties by docno descending. A topic some runs lack is fused from the
runs that have it (ranx refuses runs whose topics differ); Borda gives every document of
that topic the same ``(M + 1) / 2`` points from such a run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.run import Run
from ..core.segments import offsets, starts_of
from ..errors import ParameterError
from ..validation import check_choice
from .names import FUSION_METHODS, NORMALISATIONS
from .stack import RunStack, stack_runs

__all__ = ["FUSION_METHODS", "NORMALISATIONS", "Fusion", "fuse_stack", "fuse_runs", "normalised_scores",
           "row_values"]

#: ranx's floor on a normalisation's denominator (a topic whose scores are all equal).
_FLOOR = 1e-9


@dataclass(frozen=True)
class Fusion:
    """A fusion of a stack's runs: one score per distinct (topic, document) pair.

    ``topic``, ``doc`` (codes of the stack) and ``score`` are in fused order: topics by id,
    each topic's documents by fused score descending, ties by docno descending; ``runs`` is
    how many runs retrieved each document, ``ptr`` the topics' offsets.
    """

    stack: RunStack
    topic: np.ndarray
    doc: np.ndarray
    score: np.ndarray
    runs: np.ndarray
    ptr: np.ndarray

    def to_run(self, name: str = "fused") -> Run:
        """The fused ranking as a :class:`Run` (ranks 1, 2, ... per topic)."""
        rank = np.arange(len(self.topic), dtype=np.int64) - self.ptr[self.topic] + 1
        return Run.from_columns(self.stack.topic_ids[self.topic], self.stack.docnos(self.doc), self.score, rank,
                                name=name)


def normalised_scores(stack: RunStack, norm: str) -> np.ndarray:
    """Each row's score normalised within its (run, topic), as ranx normalises (see module)."""
    check_choice("normalisation", norm, NORMALISATIONS)
    score = stack.score
    if norm == "none" or len(score) == 0:
        return score.copy()
    lengths = stack.segment_lengths().ravel()
    lengths = lengths[lengths > 0]  # of the (run, topic) segments that have rows, in row order
    seg = np.repeat(np.arange(len(lengths)), lengths)  # each row's segment among those
    if norm in ("min-max", "sum"):
        low = np.minimum.reduceat(score, starts_of(lengths))
        if norm == "min-max":
            high = np.maximum.reduceat(score, starts_of(lengths))
            return (score - low[seg]) / np.maximum(high - low, _FLOOR)[seg]
        denominator = np.maximum(np.bincount(seg, weights=score) - lengths * low, _FLOOR)
        return (score - low[seg]) / denominator[seg]
    mean = np.bincount(seg, weights=score) / lengths
    deviation = score - mean[seg]
    std = np.sqrt(np.bincount(seg, weights=deviation * deviation) / lengths)
    return deviation / np.maximum(std, _FLOOR)[seg]


def _candidates(stack: RunStack) -> np.ndarray:
    """Documents any run retrieved, per topic (Borda's M)."""
    topic, _, _ = stack.pairs()
    return np.bincount(topic, minlength=stack.n_topics)


def row_values(stack: RunStack, method: str, *, norm: str = "min-max", k: float = 60.0) -> np.ndarray:
    """What each row adds to its document's fused score under ``method``; for Borda, less the
    points of an unretrieved document, which :func:`fuse_stack` adds back per topic."""
    check_choice("fusion method", method, FUSION_METHODS)
    if method in ("combsum", "combmnz"):
        return normalised_scores(stack, norm)
    if method == "rrf":
        return 1.0 / (k + stack.position)
    m = _candidates(stack).astype(np.float64)[stack.topic]
    n_r = stack.segment_lengths()[stack.run, stack.topic]
    return (m - stack.position + 1) - (m - n_r + 1) / 2


def fuse_stack(stack: RunStack, method: str, *, norm: str | None = None, k: float = 60.0) -> Fusion:
    """Fuse the runs of ``stack`` (see the module for the methods and conventions).

    ``norm`` applies to CombSUM and CombMNZ (default ``"min-max"``, ranx's); RRF and Borda
    use ranks only, and refuse one. ``k`` is RRF's constant.
    """
    check_choice("fusion method", method, FUSION_METHODS)
    if method in ("rrf", "borda"):
        if norm not in (None, "none"):
            raise ParameterError(f"{method} fuses ranks, not scores: a normalisation ({norm}) changes nothing; "
                                 "leave it out")
        if method == "rrf" and not k >= 0:
            raise ParameterError(f"rrf: k must be at least 0, not {k}")
    values = row_values(stack, method, norm=norm or "min-max", k=k)
    topic, doc, inverse = stack.pairs()
    score = np.bincount(inverse, weights=values, minlength=len(topic))
    runs = np.bincount(inverse, minlength=len(topic))
    if method == "combmnz":
        score = score * runs
    elif method == "borda":
        m = _candidates(stack).astype(np.float64)
        unretrieved = ((m[None, :] - stack.segment_lengths() + 1) / 2).sum(axis=0)  # every run, as if none had it
        score = score + unretrieved[topic]
    order = np.lexsort((-stack.doc_ranks()[doc], -score, topic))
    return Fusion(stack, topic[order], doc[order], score[order], runs[order], offsets(_candidates(stack)))


def fuse_runs(runs: list[Run], method: str, *, norm: str | None = None, k: float = 60.0, order: str = "score",
              name: str | None = None) -> Run:
    """The fused run of ``runs`` (see :func:`fuse_stack`), named ``name`` (default: the method)."""
    return fuse_stack(stack_runs(runs, order=order), method, norm=norm, k=k).to_run(name or method)
