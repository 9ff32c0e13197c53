"""Benchmark: calibrating TBG from an interaction log, against statsmodels and lifelines doing the same fits.

A simulated log (:func:`pateval.usermodel.logsim.simulate_log`, the paper's Table 1
constants; default 1,000 users x 4 lists of 150 documents, fixed seed) is calibrated. Then,
in this one process, on the same views and sessions:

* the point fits: pateval's estimators from per-session sums (:func:`pateval.calibration.tbg.estimates`:
  OLS of reading time on length with standard errors and adjusted R^2, the censored
  exponential half-life) against ``statsmodels.OLS`` on the first views and
  ``lifelines.ExponentialFitter`` on the sessions' stopping times (censored where no ``end``);
* the bootstrap over users (B resamples, as ``pateval calibrate`` does it: every parameter
  per resample from a matrix product of resampling counts and per-user sums) against the
  peer refitting statsmodels OLS and lifelines on each resample's views and sessions (the
  same resampled users; B_peer resamples, default 100, scaled to B for the ratio and said so).

The estimates are printed side by side (they must agree to ~1e-9); times are CPU seconds
(``time.process_time``; the machine may be shared), pateval's the best of ``--repeats``.
Also printed: reading the log from CSV (pateval's reader, which validates every line and the
session rules, against ``pandas.read_csv``, which only parses) and the time of the whole
``calibrate_log`` (events to calibration, B resamples).

    .venv/bin/pip install statsmodels lifelines   # the peers (extra "bench")
    .venv/bin/python benchmarks/bench_calibrate.py [--users 1000 --B 1000 --peer-B 100]
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from pateval.calibration.tbg import ListRanking, calibrate_log, collect_sessions, estimates, reading_fit
from pateval.formats.interactions import log_from_frame, read_interaction_log, write_interaction_log
from pateval.usermodel.logsim import SimulatedList, simulate_log
from pateval.usermodel.time import TimeModel


def _lists(seed: int, n_lists: int, depth: int):
    rng = np.random.default_rng(seed)
    lists, rankings, lengths = [], {}, {}
    for j in range(n_lists):
        docs = [f"L{j}-D{i}" for i in range(depth)]
        relevant = rng.random(depth) < 0.4
        words = rng.integers(50, 2000, depth)
        lists.append(SimulatedList(f"L{j}", docs, relevant, words))
        rankings[f"L{j}"] = ListRanking(f"T{j}", np.array(docs, dtype=object), relevant)
        lengths.update(zip(docs, words.tolist(), strict=False))
    return lists, rankings, lengths


def _best(function, repeats: int) -> tuple[float, object]:
    best, value = math.inf, None
    for _ in range(repeats):
        start = time.process_time()
        value = function()
        best = min(best, time.process_time() - start)
    return best, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--lists", type=int, default=4)
    parser.add_argument("--depth", type=int, default=150)
    parser.add_argument("--B", type=int, default=1000)
    parser.add_argument("--peer-B", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    import statsmodels.api as sm
    from lifelines import ExponentialFitter

    lists, rankings, lengths = _lists(5, args.lists, args.depth)
    frame = simulate_log(lists, model=TimeModel(), n_users=args.users, seed=1)
    log = log_from_frame(frame)
    print(f"log: {len(log):,} events, {args.users} users x {args.lists} lists of {args.depth} documents")

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "log.csv"
        write_interaction_log(frame, path)
        ours_read, _ = _best(lambda: read_interaction_log(path), args.repeats)
        peer_read, _ = _best(lambda: pd.read_csv(path, dtype={"user": str, "list": str, "docno": str}), args.repeats)
    print(f"reading the log (CSV): pateval {ours_read:.3f} CPU-s (parsed and validated, session rules included), "
          f"pandas.read_csv {peer_read:.3f} CPU-s (parsed only); ratio {peer_read / ours_read:.2f}x")
    whole, result = _best(lambda: calibrate_log(log, rankings, lengths=lengths, B=args.B, seed=0), 1)
    print(f"pateval calibrate_log (collect sessions, estimates, user averages, B={args.B} bootstrap): "
          f"{whole:.3f} CPU-s")

    sessions = collect_sessions(log, rankings, lengths, None)
    views = sessions.views
    complete = views[np.isfinite(views["time"].to_numpy(float)) & views["first"].to_numpy(bool)]
    x, y = complete["length"].to_numpy(float), complete["time"].to_numpy(float)
    session_of_view = complete["session"].to_numpy(np.int64)
    duration, ended = sessions.duration, sessions.ended
    users, user_of_session = np.unique(sessions.user, return_inverse=True)
    per_user = np.zeros((len(users), sessions.stats.shape[1]))
    np.add.at(per_user, user_of_session, sessions.stats)
    shifts = {"x_shift": sessions.x_shift, "y_shift": sessions.y_shift}

    # ---- point fits
    def ours():
        sums = sessions.stats.sum(axis=0)
        fit = reading_fit(sums, **shifts)
        return fit, estimates(sums, **shifts)["halflife"]

    def peer():
        ols = sm.OLS(y, sm.add_constant(x)).fit()
        exponential = ExponentialFitter().fit(duration, event_observed=ended)
        return ols, math.log(2) * exponential.lambda_

    ours_time, (fit, halflife) = _best(ours, args.repeats)
    peer_time, (ols, peer_halflife) = _best(peer, args.repeats)
    print(f"\npoint fits (first views: {len(x)}, sessions: {len(duration)})")
    print(f"  read_slope     pateval {float(fit['read_slope']):.12g}  statsmodels {ols.params[1]:.12g}")
    print(f"  read_intercept pateval {float(fit['read_intercept']):.12g}  statsmodels {ols.params[0]:.12g}")
    print(f"  se(slope)      pateval {float(fit['se_slope']):.12g}  statsmodels {ols.bse[1]:.12g}")
    print(f"  adjusted R^2   pateval {float(fit['adjusted_r2']):.12g}  statsmodels {ols.rsquared_adj:.12g}")
    print(f"  halflife       pateval {float(halflife):.12g}  lifelines {peer_halflife:.12g}")
    print(f"  time: pateval {ours_time * 1e3:.2f} ms, statsmodels + lifelines {peer_time * 1e3:.2f} ms, "
          f"ratio {peer_time / ours_time:.1f}x")

    # ---- bootstrap over users
    rng = np.random.default_rng(0)
    draws = rng.integers(0, len(users), size=(args.B, len(users)))
    view_user = user_of_session[session_of_view]
    sessions_of_user = [np.flatnonzero(user_of_session == u) for u in range(len(users))]
    views_of_user = [np.flatnonzero(view_user == u) for u in range(len(users))]

    def ours_boot():
        counts = np.zeros((args.B, len(users)))
        np.add.at(counts, (np.repeat(np.arange(args.B), len(users)), draws.ravel()), 1.0)
        values = estimates(counts @ per_user, **shifts)
        return values["read_slope"], values["halflife"]

    def peer_boot():
        slopes, halflives = [], []
        for b in range(args.peer_B):
            chosen_views = np.concatenate([views_of_user[u] for u in draws[b]])
            chosen_sessions = np.concatenate([sessions_of_user[u] for u in draws[b]])
            slopes.append(sm.OLS(y[chosen_views], sm.add_constant(x[chosen_views])).fit().params[1])
            fitted = ExponentialFitter().fit(duration[chosen_sessions], event_observed=ended[chosen_sessions])
            halflives.append(math.log(2) * fitted.lambda_)
        return np.array(slopes), np.array(halflives)

    ours_time, (slopes, halflives) = _best(ours_boot, args.repeats)
    peer_time, (peer_slopes, peer_halflives) = _best(peer_boot, 1)
    n = args.peer_B
    print(f"\nbootstrap over {len(users)} users")
    print(f"  same resamples agree: largest slope difference {np.abs(slopes[:n] - peer_slopes).max():.3g}, "
          f"half-life {np.abs(halflives[:n] - peer_halflives).max():.3g}")
    scaled = peer_time * args.B / n
    print(f"  time: pateval {ours_time:.3f} CPU-s for B={args.B} (every parameter); statsmodels + lifelines "
          f"{peer_time:.2f} CPU-s for B={n} (two fits), {scaled:.1f} s scaled to B={args.B}; ratio "
          f"{scaled / ours_time:.0f}x")
    print(f"\nmeasure: {result.calibrations[0].measure}")


if __name__ == "__main__":
    main()
