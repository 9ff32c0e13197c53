"""Calibrating time-biased gain from interaction logs, as Smucker & Clarke (2012) did.

Every constant of T(k) and D(t) is estimated from what users did on ranked lists
(:mod:`pateval.formats.interactions` reads the log), each estimator as the paper defines it
(Section 3.2, Table 1; Section 5.2, Figure 5 for the half-life):

* ``summary_time`` T_S: the time on results pages spread over the summaries up to the deepest
  clicked rank, pooled so that active users weigh more -- :func:`summary_time`;
* ``read_slope`` a and ``read_intercept`` b of T_D(l) = a l + b: least squares over the first
  views of documents -- :func:`reading_fit`; later views of a near-duplicate (or of the same
  document) are set apart and their mean compared with b -- :func:`duplicate_time`;
* ``p_click_rel``, ``p_click_nonrel``: P(C=1|R), the summaries up to the deepest click
  counted as seen, each session's fraction weighted by its deepest clicked rank --
  :func:`click_probabilities`;
* ``p_save_rel``, ``p_save_nonrel``: P(S=1|R), the fraction of views that end in a save,
  each session's fraction weighted by its number of views -- :func:`save_probabilities`;
* ``halflife`` h of D(t) = 2^(-t/h): an exponential fitted to when users stop, a session
  without ``end`` counting as censored at its last event -- :func:`halflife_fit`;
* beside them ``duplicate_time``, ``document_time`` (mean time per first view) and
  ``summary_share`` (time on results pages against documents) -- :func:`summary_share`.

Under the paper's own user model these estimators are close to, not exactly, unbiased (measured
on simulated logs, :mod:`pateval.usermodel.logsim`): P(C|R) about 1% high, since the deepest
clicked summary is a click by construction; with noisy reading times the slope a a few per
cent low, since views cut short by a user stopping are the long ones and are left out of the
fit, as the paper leaves them out; T_S 0.3% low for the same reason. At study sizes the
intervals are wider than these biases.

A session is one user on one list; "participant" in the paper's formulas is a session here
(the paper's participants did each task once). Each estimate comes with a percentile
bootstrap interval over users (a user's sessions are resampled together; seeded) and the
unweighted user average (the same estimator on each user's sessions alone, averaged over
users), the contrast the paper draws (T_S 4.4 s weighted against 5.3 s unweighted; 18.9 s
against 26.5 s per viewed document).

Every estimator is a function of sums over sessions (``_STATS``), so that the bootstrap is a
matrix product of resampling counts and per-user sums, exact and vectorised.

Reference: M. D. Smucker and C. L. A. Clarke, "Time-based calibration of effectiveness
measures", SIGIR 2012, Sections 3.2 and 5.2, Table 1, Figures 1, 2 and 5.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import stats as _stats

from ..errors import ParameterError, malformed
from ..formats.interactions import BACK, CLICK, END, NEXT, SAVE, SERP, START, InteractionLog, session_codes
from ..measures import parse_measure
from ..measures.base import divide_or_zero
from ..tuning import BOOTSTRAP_BLOCK_CELLS
from ..usermodel.time import TimeModel, time_to_rank

__all__ = ["PARAMETERS", "ListRanking", "Calibration", "CalibrationResult", "calibrate_log", "summary_time",
           "summary_share", "reading_fit", "duplicate_time", "click_probabilities", "save_probabilities",
           "halflife_fit", "measure_string", "speed_classes", "kaplan_meier", "validate_time_model", "Sessions",
           "collect_sessions", "sessions_from_counts"]

# The TBG parameters estimated, in the order of the measure string; p_save_nonrel is not a
# TBG parameter (the paper reports it "for completeness"), it is reported, never in the string.
PARAMETERS = ("halflife", "summary_time", "read_slope", "read_intercept", "p_click_rel", "p_click_nonrel",
              "p_save_rel", "p_save_nonrel")
_EXTRA = ("duplicate_time", "document_time", "summary_share")
_IN_MEASURE = PARAMETERS[:-1]

# per-session sums every estimator is made of (columns of the statistics matrices)
_STATS = ("serp_time", "max_click", "click_rel_w", "click_rel_n", "click_non_w", "click_non_n", "save_rel_w",
          "save_rel_n", "save_non_w", "save_non_n", "fit_n", "fit_x", "fit_y", "fit_xx", "fit_xy", "fit_yy", "dup_n",
          "dup_y", "dup_yy", "stops", "exposure", "serp_all", "view_all")
_COL = {name: i for i, name in enumerate(_STATS)}


@dataclass(frozen=True)
class ListRanking:
    """The ranked list a log's ``list`` names: its topic, documents in rank order, their relevance."""

    topic: str
    docnos: np.ndarray
    relevant: np.ndarray


# ---- the estimators, on sums (arrays of shape (..., len(_STATS))) --------------------------

def _column(sums: np.ndarray, name: str) -> np.ndarray:
    return sums[..., _COL[name]]


def _ratio(numerator, denominator) -> np.ndarray:
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.full(np.broadcast(numerator, denominator).shape, np.nan)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def summary_time(sums: np.ndarray) -> np.ndarray:
    """T_S, seconds per summary (Smucker & Clarke 2012, Section 3.2)::

        T_S = sum_p sum_i S_ip / sum_p M_p

    ``S_ip`` the i-th time session p spent on a results page before clicking a summary or the
    next link (a stretch ended by ``end`` is not such a time), ``M_p`` its deepest clicked
    rank; sessions without a click are left out (their time per summary is undefined).
    Each session's time per summary ``sum_i S_ip / M_p`` is thereby weighted by ``M_p``.
    """
    return _ratio(_column(sums, "serp_time"), _column(sums, "max_click"))


def reading_fit(sums: np.ndarray, *, x_shift: float = 0.0, y_shift: float = 0.0) -> dict[str, np.ndarray]:
    """T_D(l) = a l + b by ordinary least squares over first views (ibid., Section 3.2, Figure 1).

    The time a document is open (``click`` to ``back``) against its length ``l`` in words,
    over every session's first view of each document (or near-duplicate group); views ended
    by ``end`` (the user stopped while reading) are left out. With ``S_xx = sum (l - mean l)^2``,
    ``S_xy``, ``S_yy`` likewise::

        a = S_xy / S_xx,   b = mean(t) - a mean(l),   RSS = S_yy - a S_xy,   s^2 = RSS / (n - 2),
        se(a) = s / sqrt(S_xx),   se(b) = s sqrt(1/n + mean(l)^2 / S_xx),
        R^2 = 1 - RSS / S_yy,     adjusted R^2 = 1 - (1 - R^2)(n - 1)/(n - 2).

    The sums are of lengths and times less ``x_shift`` / ``y_shift`` (for precision); the
    results are for the unshifted values. Also ``document_time``: the mean time per first
    view, which is the mean of the fitted T_D(l) over the same views (the paper's 18.9 s).
    """
    n, sxx = _column(sums, "fit_n"), _column(sums, "fit_xx")
    mean_x, mean_y = _ratio(_column(sums, "fit_x"), n), _ratio(_column(sums, "fit_y"), n)
    s_xx = sxx - n * mean_x * mean_x
    s_xy = _column(sums, "fit_xy") - n * mean_x * mean_y
    s_yy = _column(sums, "fit_yy") - n * mean_y * mean_y
    slope = _ratio(s_xy, np.where(s_xx > 1e-12 * np.maximum(sxx, 1e-300), s_xx, 0.0))
    mean_x, mean_y = mean_x + x_shift, mean_y + y_shift
    intercept = mean_y - slope * mean_x
    rss = np.maximum(s_yy - slope * s_xy, 0.0)
    variance = _ratio(rss, n - 2)
    se_slope = np.sqrt(_ratio(variance, s_xx))
    se_intercept = np.sqrt(variance * (_ratio(1.0, n) + _ratio(mean_x * mean_x, s_xx)))
    r2 = 1.0 - _ratio(rss, s_yy)
    adjusted = 1.0 - (1.0 - r2) * _ratio(n - 1, n - 2)
    return {"read_slope": slope, "read_intercept": intercept, "se_slope": se_slope, "se_intercept": se_intercept,
            "r2": r2, "adjusted_r2": adjusted, "n": n, "document_time": mean_y}


def duplicate_time(sums: np.ndarray, *, y_shift: float = 0.0) -> dict[str, np.ndarray]:
    """Mean time of duplicate views and its standard error (ibid., Section 3.2).

    A duplicate view is a session's later view of a document whose near-duplicate group
    (or the document itself) it has viewed before::

        mean = sum t / n,   se = sd(t) / sqrt(n)   (sd with n - 1).

    The paper finds 6.8 +- 0.5 s against the fit's b = 7.8 +- 0.7 s, "no significant
    difference", and so reads duplicates as documents of length 0 (T_D(0) = b).
    """
    n = _column(sums, "dup_n")
    mean_shifted = _ratio(_column(sums, "dup_y"), n)
    s_yy = _column(sums, "dup_yy") - n * mean_shifted * mean_shifted
    sd = np.sqrt(np.maximum(_ratio(s_yy, n - 1), 0.0))
    return {"duplicate_time": mean_shifted + y_shift, "se": _ratio(sd, np.sqrt(n)), "n": n}


def click_probabilities(sums: np.ndarray) -> dict[str, np.ndarray]:
    """P(C=1|R=1), P(C=1|R=0): weighted averages of each session's click fractions (ibid., Section 3.2).

    The summaries at ranks 1..M_p (M_p the deepest clicked rank) count as seen. With
    ``c_p^r`` the seen summaries of relevance r clicked and ``n_p^r`` those seen::

        P(C=1|R=r) = sum_p M_p (c_p^r / n_p^r) / sum_p M_p,

    over the sessions with ``n_p^r > 0`` ("we weight a participant's P(C|R) by the
    participant's maximum clicked rank").
    """
    return {"p_click_rel": _ratio(_column(sums, "click_rel_w"), _column(sums, "click_rel_n")),
            "p_click_nonrel": _ratio(_column(sums, "click_non_w"), _column(sums, "click_non_n"))}


def save_probabilities(sums: np.ndarray) -> dict[str, np.ndarray]:
    """P(S=1|R=1), P(S=1|R=0): weighted averages of each session's save fractions (ibid., Section 3.2).

    With ``v_p`` the documents session p viewed (every view left with ``back``; a view cut
    short by ``end`` has no verdict and is not counted), ``s_p^r`` its views of
    relevance r that ended in a save and ``v_p^r`` its views of relevance r::

        P(S=1|R=r) = sum_p v_p (s_p^r / v_p^r) / sum_p v_p,

    over the sessions with ``v_p^r > 0`` ("we weight a participant's P(S|R) by the number
    of documents viewed during a search task"). P(S=1|R=0) is not used by TBG.
    """
    return {"p_save_rel": _ratio(_column(sums, "save_rel_w"), _column(sums, "save_rel_n")),
            "p_save_nonrel": _ratio(_column(sums, "save_non_w"), _column(sums, "save_non_n"))}


def halflife_fit(sums: np.ndarray) -> np.ndarray:
    """h of D(t) = 2^(-t/h), the exponential fitted to when users stop (ibid., Section 5.2, Figure 5).

    Maximum likelihood with right censoring: each session contributes its time from
    ``start`` to ``end`` (``d_p = 1``), or to its last event if it has no ``end``
    (``d_p = 0``: still searching when the log ends)::

        lambda = sum_p d_p / sum_p t_p,   h = ln 2 / lambda.

    (The paper fits the exponential to a query log's times between query and last click by
    eye; this is the likelihood fit to the same model, which also takes censored users.)
    """
    return math.log(2.0) * _ratio(_column(sums, "exposure"), _column(sums, "stops"))


def summary_share(sums: np.ndarray) -> np.ndarray:
    """The share of reading time spent on results pages rather than documents (ibid., Section 3.2:
    "Our participants spent 33% of their time on the summaries and 67% on the full documents")::

        share = sum S / (sum S + sum V),

    ``S`` the times on results pages before a click or ``next`` (every session), ``V`` the times
    documents were open (views left with ``back``).
    """
    serp = _column(sums, "serp_all")
    return _ratio(serp, serp + _column(sums, "view_all"))


def estimates(sums: np.ndarray, *, x_shift: float = 0.0, y_shift: float = 0.0) -> dict[str, np.ndarray]:
    """Every parameter (and ``duplicate_time``, ``document_time``) from summed statistics."""
    fit = reading_fit(sums, x_shift=x_shift, y_shift=y_shift)
    return {"halflife": halflife_fit(sums), "summary_time": summary_time(sums), "read_slope": fit["read_slope"],
            "read_intercept": fit["read_intercept"], **click_probabilities(sums), **save_probabilities(sums),
            "duplicate_time": duplicate_time(sums, y_shift=y_shift)["duplicate_time"],
            "document_time": fit["document_time"], "summary_share": summary_share(sums)}


# ---- from the log to per-session statistics ------------------------------------------------

@dataclass
class Sessions:
    """The per-session statistics the estimators pool (:func:`collect_sessions`)."""

    user: np.ndarray
    list: np.ndarray
    topic: np.ndarray
    stats: np.ndarray            # (S, len(_STATS)), regression/duplicate sums shifted
    duration: np.ndarray         # time observed (end or last event)
    ended: np.ndarray
    reached: np.ndarray          # deepest rank reached
    views: pd.DataFrame          # one row per view
    trajectory: pd.DataFrame     # session, time, rank reached
    x_shift: float
    y_shift: float


def _length_lookup(lengths: Mapping | None, docnos: np.ndarray) -> np.ndarray:
    """Lengths of ``docnos`` (NaN where unknown), looked up once per document."""
    out = np.full(len(docnos), np.nan)
    if lengths is None or len(docnos) == 0:
        return out
    if hasattr(lengths, "ids") and hasattr(lengths, "values") and not callable(lengths.values):
        keys, values = lengths.ids.to_pylist(), np.asarray(lengths.values, dtype=np.float64)
    else:
        keys, values = list(lengths.keys()), np.fromiter((float(v) for v in lengths.values()), dtype=np.float64,
                                                          count=len(lengths))
    where = pd.Index(keys).get_indexer(pd.Index(docnos, dtype=object))
    found = where >= 0
    out[found] = values[where[found]]
    return out


def collect_sessions(log: InteractionLog, rankings: Mapping[str, ListRanking], lengths: Mapping | None,
                     groups: Mapping | None) -> Sessions:
    """Per-session statistics of a validated log, on whole arrays (one pass of sorts and sums).

    A session's events in file order: the time on results pages runs from ``start``, ``back``
    or ``next`` to the next ``click`` or ``next``; a view runs from a ``click`` to the
    ``back`` (or ``end``) after it, saved if a ``save`` came between. A saved view's reading
    time ends at the save, as seed 002 (s3.2) defines it: "the time spent viewing a full
    document before saving it as relevant or clicking the back button"; the paper's interface
    returns to the summaries after either, so the time from a save to its ``back`` is
    navigation after the decision and counts in neither the reading time T_D nor the time on
    results pages (which runs from the ``back``).
    """
    path = log.source
    codes, session_user, session_list = session_codes(log.user, log.list)
    session_list = np.array([str(lst) for lst in session_list], dtype=object)
    n_sessions = len(session_user)
    order = np.argsort(codes, kind="stable")
    session = codes[order].astype(np.int64)
    event, time, rank, docno, line = (column[order] for column in (log.event, log.time, log.rank, log.docno, log.line))
    n = len(order)
    first_row = np.searchsorted(session, np.arange(n_sessions), side="left")
    last_row = np.searchsorted(session, np.arange(n_sessions), side="right") - 1
    # the ranked lists, laid end to end
    list_ids = list(dict.fromkeys(session_list))
    known = [lst for lst in list_ids if lst in rankings]
    list_index = {lst: i for i, lst in enumerate(known)}
    sizes = np.array([len(rankings[lst].docnos) for lst in known], dtype=np.int64)
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    flat_docnos = (np.concatenate([np.asarray(rankings[lst].docnos, dtype=object) for lst in known]) if known
                   else np.zeros(0, dtype=object))
    flat_relevant = (np.concatenate([np.asarray(rankings[lst].relevant, dtype=bool) for lst in known]) if known
                     else np.zeros(0, dtype=bool))
    relevant_before = np.r_[0, np.cumsum(flat_relevant)]
    session_li = np.array([list_index.get(lst, -1) for lst in session_list], dtype=np.int64)
    # (row in session order, message maker): the first one is raised, as an event-by-event pass would
    errors: list[tuple[int, Callable[[], object]]] = []
    missing = np.flatnonzero(session_li < 0)
    if len(missing):
        s = int(missing[0])
        lst = session_list[s]
        errors.append((int(first_row[s]), partial(
            malformed, path, int(line[first_row[s]]),
            f"list {lst!r} is not a ranked list given (no topic {lst!r} in both the qrels and the run, and no "
            "lists file maps it)")))
    row_li = session_li[session]
    row_offset = np.where(row_li >= 0, offsets[np.maximum(row_li, 0)], 0)
    row_size = np.where(row_li >= 0, sizes[np.maximum(row_li, 0)] if len(sizes) else 0, 0)
    # clicks: in range, on the list's document
    clicks = np.flatnonzero((event == CLICK) & (row_li >= 0))
    click_rank = rank[clicks]
    beyond = click_rank > row_size[clicks]
    at = row_offset[clicks] + np.minimum(click_rank, np.maximum(row_size[clicks], 1)) - 1
    expected = (flat_docnos[np.clip(at, 0, max(len(flat_docnos) - 1, 0))] if len(flat_docnos)
                else np.full(len(clicks), None))
    given = docno[clicks]
    has_docno = np.array([d is not None for d in given], dtype=bool)
    wrong = ~beyond & has_docno & (given != expected.astype(object))
    if beyond.any():
        i = int(np.flatnonzero(beyond)[0])
        row = int(clicks[i])
        errors.append((row, partial(malformed, path, int(line[row]), f"click at rank {int(click_rank[i])}, but list "
                                    f"{session_list[session[row]]!r} ranks {int(row_size[row])} documents")))
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        row = int(clicks[i])
        errors.append((row, partial(malformed, path, int(line[row]), f"the document at rank {int(click_rank[i])} of "
                                    f"list {session_list[session[row]]!r} is {str(expected[i])!r}",
                                    found=cast(str, given[i]))))
    ok = ~beyond & ~wrong
    click_doc = np.where(has_docno, given, expected).astype(object)
    # first views: a group (or document) not clicked before in the session
    label = (np.array([groups.get(d, d) for d in click_doc], dtype=object) if groups is not None else click_doc)
    first = ~pd.DataFrame({"s": session[clicks], "g": label}).duplicated().to_numpy()
    # each click's view closes at the next back or end of its session (a save may come between)
    nxt = clicks + 1
    in_session = (nxt < n) & (session[np.minimum(nxt, n - 1)] == session[clicks])
    saved = in_session & (event[np.minimum(nxt, n - 1)] == SAVE)
    close = np.where(saved, nxt + 1, nxt)
    closed = np.where(saved, (close < n) & (session[np.minimum(close, n - 1)] == session[clicks]), in_session)
    close = np.minimum(close, n - 1)
    by_back = closed & (event[close] == BACK)
    judged = np.where(saved, np.minimum(nxt, n - 1), close)  # reading ends at a save (see the docstring)
    click_relevant = np.zeros(len(clicks), dtype=bool)
    click_relevant[ok] = flat_relevant[at[ok]]
    click_length = _length_lookup(lengths, click_doc)
    no_length = np.flatnonzero(ok & by_back & first & np.isnan(click_length))
    if len(no_length):
        i = int(no_length[0])
        errors.append((int(close[i]), partial(
            malformed, path, int(line[clicks[i]]), f"no length for document {click_doc[i]!r} in the document lengths")))
    if errors:
        min(errors, key=lambda e: e[0])[1]()
    view = np.flatnonzero(closed)
    view_session = session[clicks[view]]
    views = pd.DataFrame({
        "session": view_session, "docno": click_doc[view], "rank": click_rank[view], "relevant": click_relevant[view],
        "length": click_length[view], "time": np.where(by_back[view], time[judged[view]] - time[clicks[view]], np.nan),
        "saved": saved[view], "first": first[view], "opened": time[clicks[view]] - time[first_row[view_session]]})
    # counts of the views left with back (a view cut short by end has no verdict)
    done = view[by_back[view]]
    done_session = session[clicks[done]]
    rel_done = click_relevant[done]

    def per_session(mask) -> np.ndarray:
        return np.bincount(done_session[mask], minlength=n_sessions).astype(np.float64)

    views_n = per_session(np.ones(len(done), dtype=bool))
    rel_views, non_views = per_session(rel_done), per_session(~rel_done)
    rel_saves, non_saves = per_session(rel_done & saved[done]), per_session(~rel_done & saved[done])
    # time on results pages: from the last start/back/next to each click or next
    reset = (event == START) | (event == NEXT) | (event == BACK)
    last_reset = np.maximum.accumulate(np.where(reset, np.arange(n), -1))
    counted = np.flatnonzero((event == CLICK) | (event == NEXT))
    counted = counted[counted > 0]
    since = last_reset[counted - 1]
    serp_time = np.bincount(session[counted], weights=time[counted] - time[since], minlength=n_sessions)
    # the deepest click, and the distinct clicked ranks up to it by relevance
    max_click = np.zeros(n_sessions, dtype=np.int64)
    np.maximum.at(max_click, session[clicks[ok]], click_rank[ok])
    distinct = pd.DataFrame({"s": session[clicks[ok]], "r": click_rank[ok],
                             "rel": click_relevant[ok]}).drop_duplicates(["s", "r"])
    c1 = np.bincount(distinct["s"][distinct["rel"]], minlength=n_sessions).astype(np.float64)
    c0 = np.bincount(distinct["s"][~distinct["rel"]], minlength=n_sessions).astype(np.float64)
    base = offsets[np.maximum(session_li, 0)] if len(offsets) else np.zeros(n_sessions, dtype=np.int64)
    n1 = (relevant_before[base + max_click] - relevant_before[base]).astype(np.float64)
    n0 = max_click - n1
    has_click = max_click > 0
    # the ranks reached: deepest serp or click so far
    shown = np.flatnonzero((event == SERP) | (event == CLICK))
    reached_so_far = pd.Series(rank[shown]).groupby(session[shown]).cummax().to_numpy()
    reached = np.zeros(n_sessions, dtype=np.int64)
    np.maximum.at(reached, session[shown], rank[shown])
    t0 = time[first_row]
    trajectory = pd.DataFrame({"session": np.r_[np.arange(n_sessions), session[shown]],
                               "time": np.r_[np.zeros(n_sessions), time[shown] - t0[session[shown]]],
                               "rank": np.r_[np.zeros(n_sessions, dtype=np.int64), reached_so_far],
                               "_order": np.r_[np.full(n_sessions, -1), shown]})
    trajectory = trajectory.sort_values(["session", "_order"],
                                        kind="stable").drop(columns="_order").reset_index(drop=True)
    ended = event[last_row] == END
    durations = time[last_row] - t0
    topics = np.array([rankings[lst].topic for lst in session_list], dtype=object)
    counts = np.column_stack([np.where(has_click, serp_time, 0.0), max_click, c1, n1, c0, n0, views_n, rel_views,
                              rel_saves, non_views, non_saves, ended.astype(np.float64), durations])
    return sessions_from_counts(counts, serp_time, views, user=session_user, list_ids=session_list, topics=topics,
                                durations=durations, ended=ended, reached=reached, trajectory=trajectory)


def sessions_from_counts(counts, serp_all, views: pd.DataFrame, *, user, list_ids, topics, durations, ended, reached,
                         trajectory: pd.DataFrame) -> Sessions:
    """The per-session statistics the estimators pool, from each session's counts.

    ``counts``: one row per session: time on results pages up to the deepest click (0 without
    a click), the deepest clicked rank, clicked relevant / relevant summaries seen, clicked
    non-relevant / non-relevant seen, documents viewed, relevant viewed / saved, non-relevant
    viewed / saved, whether the user ended, the session's duration. ``views``: one row per
    document view (session, docno, rank, relevant, length, time, saved, first, opened).
    Shared by :func:`collect_sessions` and the event-by-event reference of the tests, which differ
    only in how they count.
    """
    counts = np.asarray(counts, dtype=np.float64).reshape(-1, 13)
    n_sessions = len(counts)
    stats = np.zeros((n_sessions, len(_STATS)))
    serp, max_click, c1, n1, c0, n0, n_views, v1, s1, v0, s0, stops, exposure = counts.T
    for name, values in (("serp_time", serp), ("max_click", max_click), ("stops", stops), ("exposure", exposure),
                         ("serp_all", serp_all)):
        stats[:, _COL[name]] = values
    # each session's fraction hits / seen, weighted (the weight summed where the fraction exists)
    for name, weight, hits, seen in (("click_rel", max_click, c1, n1), ("click_non", max_click, c0, n0),
                                     ("save_rel", n_views, s1, v1), ("save_non", n_views, s0, v0)):
        stats[:, _COL[name + "_w"]] = np.where(seen > 0, weight * divide_or_zero(hits, seen), 0.0)
        stats[:, _COL[name + "_n"]] = np.where(seen > 0, weight, 0.0)

    def sum_per_session(some_views: pd.DataFrame, **columns: np.ndarray) -> None:
        session_of = some_views["session"].to_numpy(np.int64)
        for name, values in columns.items():
            stats[:, _COL[name]] = np.bincount(session_of, weights=values, minlength=n_sessions)

    complete = views[np.isfinite(views["time"].to_numpy(float))]
    sum_per_session(complete, view_all=complete["time"].to_numpy(float))
    firsts = complete[complete["first"].to_numpy(bool)]
    duplicates = complete[~complete["first"].to_numpy(bool)]
    x_shift = float(firsts["length"].mean()) if len(firsts) else 0.0
    y_shift = float(firsts["time"].mean()) if len(firsts) else 0.0
    x = firsts["length"].to_numpy(float) - x_shift
    y = firsts["time"].to_numpy(float) - y_shift
    sum_per_session(firsts, fit_n=np.ones(len(x)), fit_x=x, fit_y=y, fit_xx=x * x, fit_xy=x * y, fit_yy=y * y)
    y = duplicates["time"].to_numpy(float) - y_shift
    sum_per_session(duplicates, dup_n=np.ones(len(y)), dup_y=y, dup_yy=y * y)
    return Sessions(
        user=np.array(user, dtype=object), list=np.array(list_ids, dtype=object), topic=np.array(topics, dtype=object),
        stats=stats, duration=np.array(durations), ended=np.array(ended, dtype=bool), reached=np.array(reached),
        views=views, trajectory=trajectory, x_shift=x_shift, y_shift=y_shift)


# ---- one calibration: estimates, user averages, bootstrap ----------------------------------

@dataclass(frozen=True)
class Calibration:
    """The calibration of one group of sessions (all, one topic, or one class of users).

    Attributes
    ----------
    group : str
        ``all``, the topic, or the user class.
    table : DataFrame
        One row per parameter (:data:`PARAMETERS`, then ``duplicate_time`` and
        ``document_time``): ``value`` (the paper's weighted estimate), ``ci_low``, ``ci_high``
        (bootstrap over users), ``user_average`` (unweighted mean over users of their own
        estimates), ``users`` (users with an estimate of their own).
    fit : dict
        The reading-time regression (n, standard errors, R^2, adjusted R^2), the duplicate
        views (n, mean, se, p-value against b, whether the paper's one-standard-error bars
        overlap), the stopping fit (sessions, stopped, censored, largest gap between the
        Kaplan-Meier curve and the fitted exponential).
    measure : str
        The TBG measure name with these constants (``pateval evaluate -m`` takes it as it is).
    notes : tuple of str
    users, sessions : int
    """

    group: str
    table: pd.DataFrame
    fit: dict
    measure: str
    notes: tuple[str, ...]
    users: int
    sessions: int

    def value(self, parameter: str) -> float:
        return float(self.table.set_index("parameter").at[parameter, "value"])

    def model(self) -> TimeModel:
        """The :class:`TimeModel` of the measure string (undefined values left at the defaults)."""
        return TimeModel.from_values(dict(parse_measure(self.measure).values))


@dataclass(frozen=True)
class CalibrationResult:
    """Calibrations of a log (one, or one per topic or user class) and what the plots need."""

    calibrations: tuple[Calibration, ...]
    by: str | None
    settings: dict
    views: pd.DataFrame = field(repr=False)
    sessions: pd.DataFrame = field(repr=False)
    trajectory: pd.DataFrame = field(repr=False)
    rankings: Mapping[str, ListRanking] = field(repr=False, default_factory=dict)

    def frame(self) -> pd.DataFrame:
        """All calibrations as one table: ``group, parameter, value, ci_low, ci_high, user_average, users``."""
        return pd.concat([c.table.assign(group=c.group)[["group", *c.table.columns]] for c in self.calibrations],
                         ignore_index=True)

    def to_json(self) -> str:
        """JSON: settings, then per group the TBG parameters as keys, each with value, ci_low, ci_high, user_average."""
        groups = []
        for c in self.calibrations:
            parameters = {row.parameter: {key: _json_number(getattr(row, key))
                                          for key in ("value", "ci_low", "ci_high", "user_average")}
                          for row in c.table.itertuples(index=False)}
            groups.append({"group": c.group, "users": c.users, "sessions": c.sessions, "measure": c.measure,
                           "parameters": parameters, "fit": _json_clean(c.fit), "notes": list(c.notes)})
        return json.dumps({"settings": self.settings, "calibrations": groups}, indent=1) + "\n"


def _json_number(value) -> float | None:
    value = float(value)
    return None if not math.isfinite(value) else value


def _json_clean(value):
    if isinstance(value, dict):
        return {k: _json_clean(v) for k, v in value.items()}
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return _json_number(value)
    return value


def measure_string(values: Mapping[str, float], *, rel: int = 1) -> tuple[str, list[str]]:
    """The TBG measure name for estimated constants (4 significant digits), and notes.

    Undefined values (NaN) are left out (the measure's defaults apply) and said so; a
    negative fitted slope or intercept is set to 0 (TBG's times cannot be negative), said so.
    ``p_save_nonrel`` is not a TBG parameter and never in the name.
    """
    parts, notes = [], []
    if rel != 1:
        parts.append(f"rel={rel}")
    for name in _IN_MEASURE:
        value = float(values[name])
        if not math.isfinite(value):
            notes.append(f"{name} could not be estimated from this log; the measure uses its default")
            continue
        if name in ("read_slope", "read_intercept") and value < 0:
            notes.append(f"{name} was estimated as {value:.4g} < 0; the measure uses 0")
            value = 0.0
        if name == "halflife" and value <= 0:
            notes.append("halflife could not be estimated (no time observed)")
            continue
        text = np.format_float_positional(float(value), precision=4, unique=False, fractional=False, trim="-")
        parts.append(f"{name}={text}")
    return f"TBG({','.join(parts)})" if parts else "TBG", notes


def kaplan_meier(duration: np.ndarray, ended: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Kaplan-Meier estimate of the share of sessions still searching: ``times, survival``.

    ``S(t) = prod_{t_j <= t} (1 - d_j / n_j)`` over the distinct stopping times ``t_j``, with
    ``d_j`` sessions stopping at ``t_j`` and ``n_j`` still observed just before (a censored
    session counts until its last event).
    """
    duration = np.asarray(duration, dtype=np.float64)
    ended = np.asarray(ended, dtype=bool)
    t = np.sort(duration, kind="stable")
    stops = np.sort(duration[ended], kind="stable")
    times = np.unique(stops)
    at_risk = len(t) - np.searchsorted(t, times, side="left")
    events = np.searchsorted(stops, times, side="right") - np.searchsorted(stops, times, side="left")
    return times, np.cumprod(1.0 - events / at_risk)


def _calibrate_group(name: str, sessions: Sessions, mask: np.ndarray, *, B: int, seed: int, confidence: float,
                     rel: int, alpha: float) -> Calibration:
    users, user_code = np.unique(sessions.user[mask], return_inverse=True)
    stats = sessions.stats[mask]
    per_user = np.zeros((len(users), stats.shape[1]))
    np.add.at(per_user, user_code, stats)
    shifts = {"x_shift": sessions.x_shift, "y_shift": sessions.y_shift}
    sums = stats.sum(axis=0)
    point = estimates(sums, **shifts)
    own = estimates(per_user, **shifts)
    # users alone: a per-user fit needs 3 first views (2 for a line, 1 for its error)
    for parameter in ("read_slope", "read_intercept"):
        own[parameter] = np.where(per_user[:, _COL["fit_n"]] >= 3, own[parameter], np.nan)
    boot = estimates(_bootstrap_sums(per_user, B=B, seed=seed), **shifts)
    low_q, high_q = 100 * (1 - confidence) / 2, 100 * (1 + confidence) / 2
    rows = []
    for parameter in (*PARAMETERS, *_EXTRA):
        samples = boot[parameter]
        finite = samples[np.isfinite(samples)]
        low, high = (np.percentile(finite, [low_q, high_q]) if len(finite) else (np.nan, np.nan))
        mine = own[parameter]
        rows.append((parameter, float(point[parameter]), float(low), float(high),
                     float(np.nanmean(mine)) if np.isfinite(mine).any() else float("nan"),
                     int(np.isfinite(mine).sum())))
    table = pd.DataFrame(rows, columns=["parameter", "value", "ci_low", "ci_high", "user_average", "users"])
    regression = reading_fit(sums, **shifts)
    dup = duplicate_time(sums, y_shift=sessions.y_shift)
    dup_mean, dup_se = float(dup["duplicate_time"]), float(dup["se"])
    b, se_b = float(regression["read_intercept"]), float(regression["se_intercept"])
    spread = math.hypot(dup_se, se_b)
    if not (math.isfinite(dup_mean) and math.isfinite(spread)):
        p_value = float("nan")
    elif spread > 0:
        p_value = float(2 * _stats.norm.sf(abs(dup_mean - b) / spread))
    else:  # no spread at all (noise-free times): equal or not
        p_value = 1.0 if math.isclose(dup_mean, b, rel_tol=1e-9, abs_tol=1e-9) else 0.0
    duration, ended = sessions.duration[mask], sessions.ended[mask]
    # the largest gap between the Kaplan-Meier survival of the stopping times and 2^(-t/h)
    km_gap, halflife = float("nan"), float(point["halflife"])
    if ended.any() and math.isfinite(halflife):
        times, survival = kaplan_meier(duration, ended)
        fitted = np.exp2(-times / halflife)
        km_gap = float(max(np.abs(survival - fitted).max(), np.abs(np.r_[1.0, survival[:-1]] - fitted).max()))
    fit: dict[str, dict[str, Any]] = {
        "reading": {"n": int(regression["n"]), "read_slope_se": float(regression["se_slope"]),
                    "read_intercept_se": se_b, "r2": float(regression["r2"]),
                    "adjusted_r2": float(regression["adjusted_r2"])},
        "duplicates": {"n": int(dup["n"]), "mean": dup_mean, "se": dup_se, "p_value": p_value,
                       "differs_from_intercept": bool(p_value < alpha) if math.isfinite(p_value) else None,
                       "se_bars_overlap": (bool(abs(dup_mean - b) <= dup_se + se_b)
                                           if math.isfinite(dup_mean) and math.isfinite(se_b) else None)},
        "stopping": {"sessions": int(mask.sum()), "stopped": int(ended.sum()), "censored": int((~ended).sum()),
                     "km_max_gap": km_gap},
        "summaries": {"sessions_with_click": int((stats[:, _COL["max_click"]] > 0).sum())},
    }
    values = {p: float(point[p]) for p in _IN_MEASURE}
    measure, notes = measure_string(values, rel=rel)
    if fit["duplicates"]["differs_from_intercept"]:
        notes.append(f"duplicate views took {dup_mean:.3g} s against the fit's b = {b:.3g} s (p = {p_value:.3g}): "
                     "reading duplicates as length 0 (T_D(0) = b), as the paper does, is not supported by this log")
    return Calibration(group=name, table=table, fit=fit, measure=measure, notes=tuple(notes), users=len(users),
                       sessions=int(mask.sum()))


def _bootstrap_sums(per_user: np.ndarray, *, B: int, seed: int) -> np.ndarray:
    """The summed statistics of ``B`` resamples of the users (with replacement), shape (B, K).

    Resample b draws ``n`` users uniformly (``numpy.random.default_rng(seed)``, one row of
    draws per resample, in order); its sums are the counts of each user times the users'
    sums. Made in blocks of resamples, so that memory stays bounded for any number of users.
    """
    rng = np.random.default_rng(seed)
    n_users = len(per_user)
    out = np.empty((B, per_user.shape[1]))
    block = max(1, BOOTSTRAP_BLOCK_CELLS // max(n_users, 1))
    for start in range(0, B, block):
        rows = min(block, B - start)
        # one call per resample: the numbers do not depend on the block size
        draws = np.stack([rng.integers(0, n_users, size=n_users) for _ in range(rows)])
        draws += (np.arange(rows) * n_users)[:, None]
        counts = np.bincount(draws.ravel(), minlength=rows * n_users).reshape(rows, n_users)
        out[start:start + rows] = counts @ per_user
    return out


def speed_classes(sessions_user: np.ndarray, reached: np.ndarray, duration: np.ndarray,
                  n_classes: int) -> dict[str, str]:
    """Users grouped by speed: ``user -> class``.

    A user's speed is the ranks they reached per minute over all their sessions
    (``60 sum_s reached_s / sum_s duration_s``, ``reached_s`` the deepest rank a click or a
    results page shows the user at). Users are sorted by speed (ties by user id) and cut
    into ``n_classes`` groups of equal size (the first groups one larger when it does not
    divide): ``slow``/``fast`` for two, ``slow``/``medium``/``fast`` for three, else
    ``speed1`` (slowest) to ``speedN``.
    """
    frame = pd.DataFrame({"user": sessions_user, "reached": reached, "duration": duration})
    per_user = frame.groupby("user", sort=True).sum()
    speed = 60.0 * divide_or_zero(per_user["reached"].to_numpy(float), per_user["duration"].to_numpy(float))
    names = per_user.index.to_numpy(dtype=object)
    order = np.lexsort((names.astype(str), speed))
    labels = {2: ("slow", "fast"), 3: ("slow", "medium", "fast")}.get(
        n_classes, tuple(f"speed{i + 1}" for i in range(n_classes)))
    return {names[i]: label for label, chunk in zip(labels, np.array_split(order, n_classes), strict=False)
            for i in chunk}


def calibrate_log(log: InteractionLog, rankings: Mapping[str, ListRanking], *, lengths: Mapping | None,
                  groups: Mapping | None = None, by: str | None = None, n_classes: int = 2, B: int = 1000,
                  seed: int = 0, confidence: float = 0.95, alpha: float = 0.05, rel: int = 1) -> CalibrationResult:
    """Calibrate TBG from an interaction log (see the module's documentation).

    Parameters
    ----------
    log : InteractionLog
    rankings : mapping list id -> ListRanking
        The ranked list each log ``list`` names.
    lengths : mapping docno -> words
        Document lengths; every document first viewed and left with ``back`` needs one.
    groups : mapping docno -> group label, optional
        Near-duplicate groups: a later view of a document of a group already viewed in the
        session is a duplicate view.
    by : {None, "topic", "user-class"}
        One calibration over all sessions, one per topic, or one per class of users by speed
        (:func:`speed_classes`, ``n_classes`` classes). ``all`` comes first in every case.
    B : int, default 1000
        Bootstrap resamples of users.
    seed : int, default 0
    confidence : float, default 0.95
        Level of the percentile bootstrap intervals.
    alpha : float, default 0.05
        Level of the test of duplicate views against b.
    rel : int, default 1
        The grade the rankings' relevance was taken at (written into the measure string).
    """
    if by not in (None, "topic", "user-class"):
        raise ParameterError(f"by must be None, 'topic' or 'user-class'; got {by!r}")
    if not isinstance(B, int) or B < 1:
        raise ParameterError(f"B must be a positive integer; got {B!r}")
    if not 0 < confidence < 1:
        raise ParameterError(f"confidence must be between 0 and 1; got {confidence!r}")
    if by == "user-class" and (not isinstance(n_classes, int) or n_classes < 2):
        raise ParameterError(f"n_classes must be an integer >= 2; got {n_classes!r}")
    sessions = collect_sessions(log, rankings, lengths, groups)
    everything = np.ones(len(sessions.user), dtype=bool)
    calibrate = partial(_calibrate_group, B=B, seed=seed, confidence=confidence, rel=rel, alpha=alpha)
    calibrations = [calibrate("all", sessions, everything)]
    session_group = np.full(len(sessions.user), "all", dtype=object)
    if by == "topic":
        session_group = sessions.topic.copy()
        for topic in sorted(set(sessions.topic), key=str):
            calibrations.append(calibrate(str(topic), sessions, sessions.topic == topic))
    elif by == "user-class":
        classes = speed_classes(sessions.user, sessions.reached, sessions.duration, n_classes)
        session_group = np.array([classes[u] for u in sessions.user], dtype=object)
        if len(set(classes.values())) < n_classes:
            raise ParameterError(f"too few users ({len(classes)}) for {n_classes} classes")
        for label in dict.fromkeys(classes.values()):  # slowest class first
            calibrations.append(calibrate(label, sessions, session_group == label))
    session_frame = pd.DataFrame({"session": np.arange(len(sessions.user)), "user": sessions.user,
                                  "list": sessions.list, "topic": sessions.topic, "group": session_group,
                                  "duration": sessions.duration, "ended": sessions.ended, "reached": sessions.reached})
    settings = {"by": by, "B": B, "seed": seed, "confidence": confidence, "alpha": alpha, "log": log.source,
                "events": len(log), "sessions": len(sessions.user), "users": int(len(set(sessions.user)))}
    if by == "user-class":
        settings["classes"] = n_classes
    return CalibrationResult(calibrations=tuple(calibrations), by=by, settings=settings, views=sessions.views,
                             sessions=session_frame, trajectory=sessions.trajectory, rankings=dict(rankings))


def rank_at_times(times_to_rank: npt.ArrayLike, seconds: npt.ArrayLike) -> np.ndarray:
    """The rank a model user has reached at each time: the largest k with T(k) <= t."""
    return np.searchsorted(np.asarray(times_to_rank, dtype=float), np.asarray(seconds, dtype=float), side="right")


def validate_time_model(result: CalibrationResult, rankings: Mapping[str, ListRanking], lengths: Mapping, *,
                        model: TimeModel, groups: Mapping | None = None, at=(60.0, 300.0, 600.0),
                        custom: Mapping[str, TimeModel] | None = None) -> pd.DataFrame:
    """T(k) against the ranks users reached over time, per list (the paper's Figure 2).

    A user's rank at time t is the deepest rank a click or a results page had shown them
    by then; per list, the ranks of the sessions still observed at t (not ended, not
    censored before t) are averaged and set against the model's rank at t (the largest k
    with T(k) <= t). Returns one row per list and time: ``list, time, sessions, observed,
    predicted, error``; lists whose documents lack a length are left out. ``custom`` (list ->
    model, e.g. each list's own topic calibration, the paper's "custom Topic 383 T(k)") adds
    ``predicted_custom`` and ``error_custom``.
    """
    rows = []
    sessions = result.sessions
    point_session = result.trajectory["session"].to_numpy(np.int64)
    point_time, point_rank = result.trajectory["time"].to_numpy(float), result.trajectory["rank"].to_numpy()
    local_of = np.full(len(sessions), -1, dtype=np.int64)
    for list_id, ranking in rankings.items():
        chosen = sessions[sessions["list"] == list_id]
        if chosen.empty:
            continue
        chosen_sessions = chosen["session"].to_numpy(np.int64)
        chosen_duration = chosen["duration"].to_numpy(float)
        local_of[:] = -1
        local_of[chosen_sessions] = np.arange(len(chosen_sessions))
        mine_points = local_of[point_session] >= 0
        local = local_of[point_session[mine_points]]
        times_here, ranks_here = point_time[mine_points], point_rank[mine_points]
        doc_lengths = [lengths.get(d) if lengths is not None else None for d in ranking.docnos]
        if any(v is None for v in doc_lengths):
            continue
        duplicate = (pd.Series([groups.get(d, d) for d in ranking.docnos]).duplicated().to_numpy()
                     if groups is not None else None)
        # T(k) of the model, then of the list's own model when custom ones are given (None: it has none)
        models = [model] if custom is None else [model, custom.get(list_id)]
        model_times = [time_to_rank(ranking.relevant, np.asarray(doc_lengths, dtype=float), model=m,
                                    duplicate=duplicate) if m is not None else None for m in models]
        for t in at:
            # a session's ranks only grow: its rank at t is the largest of its points up to t
            reached = np.zeros(len(chosen_sessions), dtype=np.int64)
            upto = times_here <= t
            np.maximum.at(reached, local[upto], ranks_here[upto])
            observed = reached[chosen_duration >= t]
            mean_rank = float(np.mean(observed)) if len(observed) else float("nan")
            row: tuple[object, ...] = (list_id, float(t), len(observed), mean_rank)
            for times in model_times:
                predicted = (float(min(rank_at_times(times, [t])[0], len(ranking.docnos))) if times is not None
                             else float("nan"))
                row += (predicted, abs(mean_rank - predicted))
            rows.append(row)
    columns = ["list", "time", "sessions", "observed", "predicted", "error"]
    return pd.DataFrame(rows, columns=columns + (["predicted_custom", "error_custom"] if custom is not None else []))
