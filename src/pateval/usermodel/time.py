"""The time model of time-biased gain (Smucker & Clarke 2012): how long a user takes to reach rank k.

A user works down a ranked list. At every rank they read the summary (``T_S`` seconds) and,
with probability ``P(C=1|R=r)`` (``r`` the document's binary relevance), click and read the
document, which takes ``T_D(l) = a*l + b`` seconds for ``l`` words. A near-duplicate of a
document ranked above it (same duplicate group) is read as if it had length 0. The expected
time to reach rank k is

    T(k) = sum_{i=1}^{k-1} [ T_S + T_D(l_i) * P(C=1|R=r_i) ],    T(1) = 0,

and a user still searching at time t does so with probability ``D(t) = exp(-t ln2 / h)``
(``h`` the half-life). :func:`time_to_rank` computes T(k) for one ranking or for many at once
(CSR offsets ``ptr``, as in :class:`pateval.core.ranking.RankedTopics`), so that users can
plot it; :class:`TimeModel` holds the calibration, every value of which can be replaced (the
defaults are the paper's, calibrated on TREC 2005 Robust track users; patent examiners read
differently).

Reference: M. D. Smucker and C. L. A. Clarke, "Time-based calibration of effectiveness
measures", SIGIR 2012, Sections 3-5 and Table 1.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from .._lazy import lazy_module
from ..core.segments import duplicates_of_earlier, segment_exclusive_cumsum, segment_exclusive_cumsum_at, segment_of
from ..errors import ParameterError
from ..validation import Interval, check_interval

pd = lazy_module("pandas")  # imported when a function here needs it, not for every evaluation

__all__ = ["TimeModel", "DEFAULT_MODEL", "segment_exclusive_cumsum", "segment_exclusive_cumsum_at",
           "duplicates_of_earlier", "step_times", "check_rows", "time_to_rank", "expected_time", "word_count",
           "document_lengths"]

_PROBABILITY = Interval(0, 1)
_NONNEGATIVE = Interval(0, None)
_POSITIVE = Interval(0, None, closed="neither")


@dataclass(frozen=True)
class TimeModel:
    """The calibration of the time-biased gain user model (all times in seconds).

    Attributes
    ----------
    summary_time : float, default 4.4
        ``T_S``, time to read one summary.
    read_slope : float, default 0.018
        ``a`` of ``T_D(l) = a*l + b``, seconds per word of the document.
    read_intercept : float, default 7.8
        ``b`` of ``T_D(l)``, the fixed cost of judging a document.
    p_click_rel, p_click_nonrel : float, default 0.64, 0.39
        ``P(C=1|R=1)``, ``P(C=1|R=0)``: probability of clicking a summary.
    p_save_rel : float, default 0.77
        ``P(S=1|R=1)``: probability of recognising (saving) a relevant document read.
    halflife : float, default 224
        ``h``: half of the users have stopped after ``h`` seconds.

    Examples
    --------
    >>> model = TimeModel()
    >>> round(model.gain_relevant, 4), round(model.bound(), 2)
    (0.4928, 17.2)
    """

    summary_time: float = 4.4
    read_slope: float = 0.018
    read_intercept: float = 7.8
    p_click_rel: float = 0.64
    p_click_nonrel: float = 0.39
    p_save_rel: float = 0.77
    halflife: float = 224.0

    def __post_init__(self) -> None:
        for name in ("summary_time", "read_slope", "read_intercept"):
            check_interval(name, getattr(self, name), _NONNEGATIVE, owner="TimeModel")
        for name in ("p_click_rel", "p_click_nonrel", "p_save_rel"):
            check_interval(name, getattr(self, name), _PROBABILITY, owner="TimeModel")
        check_interval("halflife", self.halflife, _POSITIVE, owner="TimeModel")

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> TimeModel:
        """The model from a mapping that may hold other keys too (e.g. a TBG measure's parameters)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: float(v) for k, v in values.items() if k in names})

    @property
    def decay_rate(self) -> float:
        """``ln 2 / h``: D(t) = exp(-decay_rate * t)."""
        return math.log(2.0) / self.halflife

    @property
    def gain_relevant(self) -> float:
        """Expected gain of a relevant document reached: ``P(C=1|R=1) * P(S=1|R=1)``."""
        return self.p_click_rel * self.p_save_rel

    def reading_time(self, lengths) -> np.ndarray:
        """``T_D(l) = a*l + b`` for document lengths ``l`` (words)."""
        return self.read_slope * np.asarray(lengths, dtype=np.float64) + self.read_intercept

    def decay(self, seconds) -> np.ndarray:
        """``D(t) = exp(-t ln2 / h)``: the share of users still searching after ``t`` seconds."""
        return np.exp(-self.decay_rate * np.asarray(seconds, dtype=np.float64))

    def zero_length_step(self) -> float:
        """Expected time spent on a relevant zero-length document: ``T_S + T_D(0) P(C=1|R=1)``."""
        return self.summary_time + self.read_intercept * self.p_click_rel

    def bound(self) -> float:
        """TBG of an endless list of zero-length relevant documents (the ``bound`` normalisation).

        ``g / (1 - 2^(-T_x/h))`` with ``T_x`` = :meth:`zero_length_step`: no ranking of
        documents of length >= 0 can score more.
        """
        step = self.zero_length_step()
        remaining = -math.expm1(-self.decay_rate * step)
        if remaining == 0.0:
            raise ParameterError("the bound normalisation is infinite when a relevant document takes no time "
                                 "(summary_time and read_intercept * p_click_rel are both 0)")
        return self.gain_relevant / remaining


DEFAULT_MODEL = TimeModel()


def step_times(relevant, lengths, *, model: TimeModel = DEFAULT_MODEL, duplicate=None) -> np.ndarray:
    """Expected seconds spent at each rank: ``T_S + T_D(l) * P(C=1|R=r)``, ``l = 0`` for duplicates."""
    relevant = np.asarray(relevant, dtype=bool)
    # in place on one array: these run over every retrieved row
    steps = np.multiply(np.asarray(lengths, dtype=np.float64), model.read_slope)
    steps += model.read_intercept
    if duplicate is not None:
        steps[np.asarray(duplicate, dtype=bool)] = model.read_intercept  # T_D(0)
    steps *= np.where(relevant, model.p_click_rel, model.p_click_nonrel)
    steps += model.summary_time
    return steps


def check_rows(relevant, lengths, duplicate, ptr) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
    """The per-rank inputs of the user model as arrays, refused with a ParameterError unless
    they line up (one entry per rank, offsets over them)."""
    relevant = np.asarray(relevant).astype(bool, copy=False).ravel()
    lengths = np.asarray(lengths, dtype=np.float64).ravel()
    if len(relevant) != len(lengths):
        raise ParameterError(f"relevant and lengths must have one entry per rank; got {len(relevant)} and "
                             f"{len(lengths)}")
    if len(lengths) and (not np.all(np.isfinite(lengths)) or lengths.min() < 0):
        raise ParameterError("document lengths must be finite numbers of words >= 0")
    if duplicate is not None:
        duplicate = np.asarray(duplicate).astype(bool, copy=False).ravel()
        if len(duplicate) != len(relevant):
            raise ParameterError(f"duplicate must have one entry per rank; got {len(duplicate)} for {len(relevant)} "
                                 f"ranks")
    if ptr is None:
        ptr = np.array([0, len(relevant)], dtype=np.int64)
    else:
        ptr = np.asarray(ptr, dtype=np.int64)
        if ptr.ndim != 1 or len(ptr) < 1 or ptr[0] != 0 or ptr[-1] != len(relevant) or np.any(np.diff(ptr) < 0):
            raise ParameterError("ptr must be non-decreasing offsets from 0 to the number of ranks")
    return relevant, lengths, duplicate, ptr


def time_to_rank(relevant, lengths, *, model: TimeModel = DEFAULT_MODEL, duplicate=None, ptr=None) -> np.ndarray:
    """Expected time ``T(k)`` (seconds) at which the user reaches each rank k and starts on it.

    Parameters
    ----------
    relevant : array of bool, shape (N,)
        Binary relevance of the document at each rank.
    lengths : array of float, shape (N,)
        Document lengths in words.
    model : TimeModel, optional
        The calibration (the paper's by default).
    duplicate : array of bool, shape (N,), optional
        Ranks holding a near-duplicate of a document ranked above (read as length 0); see
        :func:`duplicates_of_earlier`.
    ptr : array of int, shape (T+1,), optional
        Offsets of several rankings laid end to end (ranking t is ``ptr[t]:ptr[t+1]``);
        one ranking by default.

    Returns
    -------
    ndarray, shape (N,)
        ``T(k) = sum_{i<k} [T_S + T_D(l_i) P(C=1|R=r_i)]``; 0 at each ranking's first rank.

    Examples
    --------
    The spec's example: relevant 500 words, non-relevant 1000, relevant 200.

    >>> time_to_rank([True, False, True], [500, 1000, 200]).round(3).tolist()
    [0.0, 15.152, 29.614]
    """
    relevant, lengths, duplicate, ptr = check_rows(relevant, lengths, duplicate, ptr)
    return segment_exclusive_cumsum(step_times(relevant, lengths, model=model, duplicate=duplicate), ptr)


def expected_time(relevant, lengths, *, model: TimeModel = DEFAULT_MODEL, duplicate=None, ptr=None) -> np.ndarray:
    """Expected seconds to work through each whole ranking: ``T(n+1)``, one value per ranking."""
    relevant, lengths, duplicate, ptr = check_rows(relevant, lengths, duplicate, ptr)
    steps = step_times(relevant, lengths, model=model, duplicate=duplicate)
    return np.bincount(segment_of(ptr), weights=steps, minlength=len(ptr) - 1)


def word_count(text: str) -> int:
    """The length of a text in words: its runs of non-space characters (Indri-like token count)."""
    return len(text.split())


def document_lengths(texts: Mapping[str, str] | Iterable[tuple[str, str]]) -> dict[str, int]:
    """Document lengths in words computed from the documents' texts (``{docno: text}`` or pairs).

    Examples
    --------
    >>> document_lengths({"d1": "a patent claim", "d2": ""})
    {'d1': 3, 'd2': 0}
    """
    items = texts.items() if isinstance(texts, Mapping) else texts
    return {str(docno): word_count(text) for docno, text in items}
