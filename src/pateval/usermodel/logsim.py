"""Simulated interaction logs: users who behave as a TBG calibration says, writing the log format.

Each simulated user works through each ranked list (one session per user and list) as the
time-biased gain model describes it (Smucker & Clarke 2012, Section 3):

* results pages of ``page_size`` summaries: ``start`` and ``serp`` (rank 1) at time 0, and at
  each page end ``next`` and ``serp`` (the next page's first rank);
* every summary takes a time drawn with mean ``T_S`` (a gamma distribution with coefficient
  of variation ``summary_noise``; 0: exactly T_S);
* the summary is clicked with probability ``P(C=1|R=r)``; the document is then open for
  ``T_D(l) = a l + b`` times a log-normal factor of mean 1 and log-scale standard deviation
  ``read_noise``, with ``l = 0`` for a near-duplicate of a document the user has opened before
  in the session (the paper's calibration: "a participant's later views of document
  duplicates"; the closed-form T(k) reads it so when its group occurred higher in the ranking,
  whether opened or not); it is saved with probability ``P(S=1|R=r)`` (``p_save_nonrel`` for a
  non-relevant one, not a TBG parameter; default 0.27, the paper's Table 1) and left with
  ``back``;
* the user stops after an exponential time of half-life ``h`` (``end`` at that time, even in
  the middle of a summary or a document); a user who reaches the end of the list before
  stopping writes no ``end`` (still searching: censored);
* ``speed_spread`` > 0 gives each user a speed: all of their times are multiplied by a
  log-normal factor of mean 1 and that log-scale standard deviation (fast users then see
  more documents in the same time, the paper's weighted-against-unweighted effect).
  With 0 every user is the model's average user, and calibrating the log recovers the
  model's constants up to sampling error and the estimators' own small biases.

Draws come from ``numpy.random.default_rng(seed)``: the same seed gives the same log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import ParameterError
from .time import TimeModel

__all__ = ["SimulatedList", "simulate_log"]


@dataclass(frozen=True)
class SimulatedList:
    """A ranked list to simulate users on: its id, documents, relevance, lengths, and each
    document's near-duplicate group (``groups``, any labels; None: every document its own)."""

    list_id: str
    docnos: Sequence[str]
    relevant: np.ndarray
    lengths: np.ndarray
    groups: Sequence | None = None


def _check(name: str, value: float, *, low: float = 0.0) -> None:
    if not (isinstance(value, (int, float)) and np.isfinite(value) and value >= low):
        raise ParameterError(f"{name} must be a finite number >= {low:g}; got {value!r}")


def simulate_log(lists: Sequence[SimulatedList], *, model: TimeModel, n_users: int, seed: int = 0, page_size: int = 10,
                 p_save_nonrel: float = 0.27, summary_noise: float = 0.5, read_noise: float = 0.5,
                 speed_spread: float = 0.0, user_prefix: str = "u") -> pd.DataFrame:
    """Simulate ``n_users`` users on every list; return the log as a frame (``user, list, time, event, rank, docno``).

    Parameters
    ----------
    lists : sequence of SimulatedList
    model : TimeModel
        The calibration the users follow.
    n_users : int
    seed : int, default 0
    page_size : int, default 10
        Summaries per results page.
    p_save_nonrel : float, default 0.27
        P(S=1|R=0).
    summary_noise, read_noise, speed_spread : float
        See the module's documentation (0 removes that noise).
    user_prefix : str, default "u"
        Users are named ``u1``, ``u2``, ...

    Examples
    --------
    >>> one = SimulatedList("q1", ["d1", "d2", "d3"], np.array([True, False, True]), np.array([500, 1000, 200]))
    >>> log = simulate_log([one], model=TimeModel(), n_users=2, seed=1)
    >>> log["event"].iloc[0], log["user"].nunique()
    ('start', 2)
    """
    if not isinstance(n_users, int) or isinstance(n_users, bool) or n_users < 1:
        raise ParameterError(f"n_users must be a positive integer; got {n_users!r}")
    if not isinstance(page_size, int) or page_size < 1:
        raise ParameterError(f"page_size must be a positive integer; got {page_size!r}")
    _check("p_save_nonrel", p_save_nonrel)
    if p_save_nonrel > 1:
        raise ParameterError(f"p_save_nonrel must be a probability; got {p_save_nonrel!r}")
    for name, value in (("summary_noise", summary_noise), ("read_noise", read_noise), ("speed_spread", speed_spread)):
        _check(name, value)
    rng = np.random.default_rng(seed)
    scale = model.halflife / np.log(2.0)
    speeds = (np.exp(speed_spread * rng.standard_normal(n_users) - speed_spread ** 2 / 2) if speed_spread > 0
              else np.ones(n_users))
    rows: list[tuple] = []

    def emit(user, list_id, t, event, rank=0, docno=None):
        rows.append((user, list_id, t, event, rank, docno))

    shape = 1.0 / summary_noise ** 2 if summary_noise > 0 else None
    for u in range(n_users):
        user = f"{user_prefix}{u + 1}"
        for item in lists:
            n = len(item.docnos)
            relevant = np.asarray(item.relevant, dtype=bool)
            lengths = np.asarray(item.lengths, dtype=np.float64)
            labels = list(item.groups) if item.groups is not None else None
            noise = (np.exp(read_noise * rng.standard_normal(n) - read_noise ** 2 / 2) if read_noise > 0
                     else np.ones(n))
            reading = model.reading_time(lengths) * noise * speeds[u]
            reading_again = model.reading_time(np.zeros(n)) * noise * speeds[u]  # a near-duplicate of one opened: l = 0
            opened: set = set()
            summaries = (rng.gamma(shape, model.summary_time / shape, size=n) if shape is not None
                         else np.full(n, model.summary_time)) * speeds[u]
            clicks = rng.random(n) < np.where(relevant, model.p_click_rel, model.p_click_nonrel)
            saves = rng.random(n) < np.where(relevant, model.p_save_rel, p_save_nonrel)
            stop = rng.exponential(scale)
            list_id = item.list_id
            emit(user, list_id, 0.0, "start")
            emit(user, list_id, 0.0, "serp", 1)
            t = 0.0
            for k in range(n):
                if k and k % page_size == 0:
                    emit(user, list_id, t, "next")
                    emit(user, list_id, t, "serp", k + 1)
                if t + summaries[k] > stop:
                    emit(user, list_id, stop, "end")
                    break
                t += summaries[k]
                if not clicks[k]:
                    continue
                emit(user, list_id, t, "click", k + 1, str(item.docnos[k]))
                label = labels[k] if labels is not None else item.docnos[k]
                spent = reading_again[k] if labels is not None and label in opened else reading[k]
                opened.add(label)
                if t + spent > stop:
                    emit(user, list_id, stop, "end")
                    break
                t += spent
                if saves[k]:  # at the end of reading: a saved view's time ends at its save
                    emit(user, list_id, t, "save")
                emit(user, list_id, t, "back")
    users, list_ids, times, events, ranks, docnos = (list(column) for column in zip(*rows, strict=True)) if rows \
        else ([] for _ in range(6))
    return pd.DataFrame({"user": users, "list": list_ids, "time": np.asarray(times, dtype=np.float64), "event": events,
                         "rank": np.asarray(ranks, dtype=np.int64), "docno": docnos})
