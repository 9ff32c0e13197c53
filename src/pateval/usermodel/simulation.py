"""Simulated users of the time-biased gain model: the gain's spread, not only its expectation.

Each simulated user works down the ranking. At every rank they read the summary (``T_S``
seconds), click with probability ``P(C=1|R=r)`` and then read the document (``T_D(l)``
seconds; ``l = 0`` for a near-duplicate of a document ranked above), and save a clicked
relevant document with probability ``P(S=1|R=1)``. Each user stops after an exponentially
distributed time of half-life ``h``; a rank counts when the user reaches it before
stopping. A user's gain is the number of relevant documents saved (a near-duplicate counts
unless the measure says ``duplicate_gain=false``).

Three numbers per topic come out of this model:

* the simulated mean and standard deviation of the gain over ``n_users`` users, with a
  normal-approximation confidence interval of the mean;
* the exact expectation of the stochastic model, ``sum_k g_k E[D(T_k)]`` with
  ``E[D(T_k)] = prod_{i<k} 2^(-T_S/h) (1 - p_i + p_i 2^(-T_D(l_i)/h))`` (clicks are
  independent), to which the simulated mean converges;
* the closed form TBG, ``sum_k g_k D(E[T_k])``. Since D is convex, TBG is at most the exact
  expectation (Smucker & Clarke's Jensen argument); both are equal when the time to each rank
  is certain (click probabilities 0 or 1).

Everything is vectorised over users (in blocks) and topics; the random stream is
``numpy.random.default_rng(seed)``, so a seed reproduces the numbers exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.segments import segment_of
from ..errors import ParameterError
from ..tuning import SIMULATION_BLOCK_CELLS
from ..validation import Interval, check_interval, check_type
from .time import DEFAULT_MODEL, TimeModel, check_rows, segment_exclusive_cumsum, step_times

__all__ = ["SimulationResult", "expected_gain", "closed_form_gain", "simulate_users"]

_CONFIDENCE = Interval(0, 1, closed="neither")


@dataclass(frozen=True)
class SimulationResult:
    """Per-topic outcome of :func:`simulate_users` (arrays of shape (T,)).

    Attributes
    ----------
    mean, std : ndarray
        Mean and standard deviation (ddof=1) of the simulated users' gain.
    ci_low, ci_high : ndarray
        Confidence interval of the mean (normal approximation, level ``confidence``).
    expected : ndarray
        Exact expectation of the stochastic model (the limit of ``mean``).
    closed_form : ndarray
        Unnormalised TBG, ``sum_k g_k D(T(k))`` (<= ``expected``).
    n_users : int
    confidence : float
    seed : int
    """

    mean: np.ndarray
    std: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    expected: np.ndarray
    closed_form: np.ndarray
    n_users: int
    confidence: float
    seed: int


def _earning(relevant: np.ndarray, earns) -> np.ndarray:
    if earns is None:
        return relevant
    earns = np.asarray(earns).astype(bool, copy=False).ravel()
    if len(earns) != len(relevant):
        raise ParameterError(f"earns must have one entry per rank; got {len(earns)} for {len(relevant)} ranks")
    if np.any(earns & ~relevant):
        raise ParameterError("only relevant documents can earn gain")
    return earns


def expected_gain(relevant, lengths, *, model: TimeModel = DEFAULT_MODEL, duplicate=None, earns=None,
                  ptr=None) -> np.ndarray:
    """Exact expected gain of the stochastic user, per ranking: ``sum_k g_k E[D(T_k)]``.

    Parameters are those of :func:`pateval.usermodel.time.time_to_rank`; ``earns`` (bool per
    rank, default: the relevant ones) says which ranks can earn gain.
    """
    relevant, lengths, duplicate, ptr = check_rows(relevant, lengths, duplicate, ptr)
    earning = _earning(relevant, earns)
    reading = model.reading_time(np.where(duplicate, 0.0, lengths) if duplicate is not None else lengths)
    p_click = np.where(relevant, model.p_click_rel, model.p_click_nonrel)
    rate = model.decay_rate
    # log E[D(time spent at rank i)] = -rate T_S + log(1 - p + p exp(-rate T_D))
    log_factor = -rate * model.summary_time + np.log1p(p_click * np.expm1(-rate * reading))
    survival = np.exp(segment_exclusive_cumsum(log_factor, ptr))
    weights = np.where(earning, model.gain_relevant * survival, 0.0)
    return np.bincount(segment_of(ptr), weights=weights, minlength=len(ptr) - 1)


def closed_form_gain(relevant, lengths, *, model: TimeModel = DEFAULT_MODEL, duplicate=None, earns=None,
                     ptr=None) -> np.ndarray:
    """Unnormalised time-biased gain per ranking: ``sum_k g_k D(T(k))`` (the measure TBG)."""
    relevant, lengths, duplicate, ptr = check_rows(relevant, lengths, duplicate, ptr)
    earning = _earning(relevant, earns)
    times = segment_exclusive_cumsum(step_times(relevant, lengths, model=model, duplicate=duplicate), ptr)
    weights = np.where(earning, model.gain_relevant * model.decay(times), 0.0)
    return np.bincount(segment_of(ptr), weights=weights, minlength=len(ptr) - 1)


def simulate_users(relevant, lengths, *, model: TimeModel = DEFAULT_MODEL, duplicate=None, earns=None, ptr=None,
                   n_users: int = 10_000, seed: int = 0, confidence: float = 0.95) -> SimulationResult:
    """Simulate ``n_users`` stochastic users on each ranking; return the gain's mean, spread and CI.

    Parameters
    ----------
    relevant, lengths, model, duplicate, ptr
        As for :func:`pateval.usermodel.time.time_to_rank`.
    earns : array of bool, optional
        Ranks that can earn gain (default: the relevant ones; leave out near-duplicates for
        ``duplicate_gain=false``).
    n_users : int, default 10000
        Users per ranking (each ranking gets its own users; the stopping time of a user is
        drawn once per ranking).
    seed : int, default 0
    confidence : float, default 0.95
        Level of the confidence interval of the mean.

    Returns
    -------
    SimulationResult

    Examples
    --------
    >>> result = simulate_users([True, False, True], [500, 1000, 200], n_users=20000, seed=1)
    >>> bool(result.ci_low[0] <= result.expected[0] <= result.ci_high[0])
    True
    >>> bool(result.closed_form[0] <= result.expected[0])  # Jensen
    True
    """
    check_type("n_users", n_users, int)
    if n_users < 2:
        raise ParameterError(f"n_users must be at least 2 (a spread needs two users); got {n_users}")
    check_type("seed", seed, int)
    check_type("confidence", confidence, (int, float))
    check_interval("confidence", confidence, _CONFIDENCE)
    relevant, lengths, duplicate, ptr = check_rows(relevant, lengths, duplicate, ptr)
    earning = _earning(relevant, earns)
    n_rows, n_topics = len(relevant), len(ptr) - 1
    reading = model.reading_time(np.where(duplicate, 0.0, lengths) if duplicate is not None else lengths)
    p_click = np.where(relevant, model.p_click_rel, model.p_click_nonrel)
    segment = segment_of(ptr)
    starts = ptr[:-1]
    # only ranks that can earn gain need a save draw and a stopping check
    earn_rows = np.flatnonzero(earning)
    earn_topic = segment[earn_rows]
    earn_ptr = np.r_[0, np.cumsum(np.bincount(earn_topic, minlength=n_topics))].astype(np.int64)
    p_click32 = p_click.astype(np.float32)  # single-precision draws: enough for probabilities, twice as fast
    summary_plus_reading = model.summary_time + reading
    scale = model.halflife / np.log(2.0)  # mean of the exponential stopping time
    rng = np.random.default_rng(seed)
    total = np.zeros(n_topics)
    total_sq = np.zeros(n_topics)
    block = max(1, min(n_users, SIMULATION_BLOCK_CELLS // max(n_rows, 1)))
    done = 0
    while done < n_users:
        users = min(block, n_users - done)
        clicks = rng.random((users, n_rows), dtype=np.float32) < p_click32
        saves = rng.random((users, len(earn_rows)), dtype=np.float32) < np.float32(model.p_save_rel)
        stops = rng.exponential(scale, size=(users, n_topics))
        spent = np.where(clicks, summary_plus_reading, model.summary_time)
        running = np.cumsum(spent, axis=1)
        before = np.concatenate([np.zeros((users, 1)), running], axis=1)[:, starts]
        # time each earning rank is reached: the time spent on the ranks above it, within its topic
        reached = running[:, earn_rows] - spent[:, earn_rows] - before[:, earn_topic]
        saved = clicks[:, earn_rows] & saves & (stops[:, earn_topic] > reached)
        cumulative = np.concatenate([np.zeros((users, 1)), np.cumsum(saved, axis=1, dtype=np.float64)], axis=1)
        gain = cumulative[:, earn_ptr[1:]] - cumulative[:, earn_ptr[:-1]]
        total += gain.sum(axis=0)
        total_sq += (gain * gain).sum(axis=0)
        done += users
    mean = total / n_users
    variance = np.maximum(total_sq - n_users * mean * mean, 0.0) / (n_users - 1)
    std = np.sqrt(variance)
    from scipy import stats  # only a simulation's interval needs SciPy

    half = stats.norm.ppf(0.5 + confidence / 2.0) * std / np.sqrt(n_users)
    return SimulationResult(
        mean=mean, std=std, ci_low=mean - half, ci_high=mean + half,
        expected=expected_gain(relevant, lengths, model=model, duplicate=duplicate, earns=earning, ptr=ptr),
        closed_form=closed_form_gain(relevant, lengths, model=model, duplicate=duplicate, earns=earning, ptr=ptr),
        n_users=n_users, confidence=float(confidence), seed=seed)
