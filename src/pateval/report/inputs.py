"""Readers of the report's plot data: G(t) curves (``report --gain-over-time``) and Cube Test
scores against gamma (``report --ct-gamma``), CSV files with a header line.

A file is read whole and checked before anything is drawn, so that a file the plot cannot
draw meaningfully is refused with one line naming the file, the line and what is wrong.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ..errors import malformed

__all__ = ["check_gain_curves", "read_ct_gamma", "read_gain_over_time"]

GAIN_COLUMNS = ("run", "time", "gain")
CT_GAMMA_COLUMNS = ("run", "gamma", "score")


def check_gain_curves(frame: pd.DataFrame) -> tuple[int | None, str] | None:
    """Why ``frame`` (columns ``run, time, gain``) is not one cumulative gain curve per run:
    ``(row, problem)`` for the first bad row (0-based, in the frame's order; None: the
    columns), or None.

    G(t) is the gain a user has collected by time t: per run, a gain that never falls as the
    time grows. Per-topic or per-rank rows (``pateval user-model time`` writes one row per
    topic and rank, each with its rank's share of TBG) give curves that mean nothing.
    """
    if "topic" in frame.columns:
        return None, ("a topic column: rows per topic and rank, as `pateval user-model time` writes, are not G(t), "
                      "which is one cumulative curve per run (columns run,time,gain)")
    for column in GAIN_COLUMNS[1:]:
        values = pd.to_numeric(frame[column], errors="coerce").to_numpy(float)
        if (bad := np.flatnonzero(~np.isfinite(values) | (values < 0))).size:
            return int(bad[0]), f"{column} must be a number of at least 0, not {frame[column].iloc[bad[0]]!r}"
    for run, group in frame.groupby(frame["run"].astype(str), sort=False):
        order = np.argsort(group["time"].to_numpy(float), kind="stable")
        gains = group["gain"].to_numpy(float)[order]
        if (falls := np.flatnonzero(np.diff(gains) < 0)).size:
            at = int(order[falls[0] + 1])
            return int(frame.index.get_loc(group.index[at])), (
                f"run {run}'s gain falls from {gains[falls[0]]:g} to {gains[falls[0] + 1]:g} at time "
                f"{group['time'].iloc[at]:g}: G(t) must be cumulative (not decreasing with time)")
    return None


def _read_csv(path: str | os.PathLike[str], columns: tuple[str, ...]) -> pd.DataFrame:
    try:
        frame = pd.read_csv(path, skip_blank_lines=False)
    except (OSError, ValueError) as error:
        malformed(path, None, f"cannot read the CSV ({error})")
    if [c for c in columns if c not in frame.columns]:
        malformed(path, 1, "missing columns", expected=",".join(columns), found=",".join(map(str, frame.columns)))
    frame.index = frame.index + 2  # the file's line numbers (line 1 is the header)
    frame = frame[frame.notna().any(axis=1)]  # blank lines
    frame["run"] = frame["run"].astype(str)
    return frame


def read_gain_over_time(path: str | os.PathLike[str]) -> pd.DataFrame:
    """``report --gain-over-time``: a CSV with the columns ``run, time, gain`` (seconds; the gain
    collected by then), one cumulative curve per run.

    Raises
    ------
    pateval.errors.InputFormatError
        Not a CSV, a column missing, a time or gain not a number of at least 0, per-topic rows,
        or a gain that falls as the time grows (with the line).
    """
    frame = _read_csv(path, GAIN_COLUMNS)
    if (problem := check_gain_curves(frame)) is not None:
        row, text = problem
        malformed(path, 1 if row is None else int(frame.index[row]), text)
    return frame.astype({"time": float, "gain": float}).reset_index(drop=True)


def read_ct_gamma(path: str | os.PathLike[str]) -> pd.DataFrame:
    """``report --ct-gamma``: a CSV with the columns ``run, gamma, score``.

    Raises
    ------
    pateval.errors.InputFormatError
        Not a CSV, a column missing, or a gamma or score that is not a number (with the line).
    """
    frame = _read_csv(path, CT_GAMMA_COLUMNS)
    for column in CT_GAMMA_COLUMNS[1:]:
        values = pd.to_numeric(frame[column], errors="coerce").to_numpy(float)
        if (bad := np.flatnonzero(~np.isfinite(values))).size:
            malformed(path, int(frame.index[bad[0]]), f"column {column} must hold numbers",
                      found=str(frame[column].iloc[bad[0]]))
    return frame.astype({"gamma": float, "score": float}).reset_index(drop=True)

