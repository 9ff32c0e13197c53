"""The vectorised per-session statistics equal the event-by-event reference, on simulated logs
with duplicates, censored sessions and views cut short, and on bad logs (the same first error)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pateval.calibration.tbg import ListRanking, collect_sessions
from pateval.errors import InputFormatError
from pateval.formats.interactions import log_from_frame
from pateval.usermodel.logsim import SimulatedList, simulate_log
from pateval.usermodel.time import TimeModel

from .reference_calibration import collect_reference


def _setup(seed: int, depth: int):
    rng = np.random.default_rng(seed)
    lists, rankings, lengths, groups = [], {}, {}, {}
    for j in range(3):
        docs = [f"L{j}-D{i}" for i in range(depth)]
        relevant = rng.random(depth) < 0.5
        words = rng.integers(0, 1500, depth)
        for i in range(2, depth, 5):  # every fifth document a near-duplicate of the one two above
            groups[docs[i]] = groups.setdefault(docs[i - 2], docs[i - 2])
        lists.append(SimulatedList(f"L{j}", docs, relevant, words, [groups.get(d, d) for d in docs]))
        rankings[f"L{j}"] = ListRanking(f"T{j}", np.array(docs, dtype=object), relevant)
        lengths.update(zip(docs, words.tolist(), strict=False))
    return lists, rankings, lengths, groups


def _assert_same(a, b):
    for name in ("user", "list", "topic"):
        assert getattr(a, name).tolist() == getattr(b, name).tolist()
    np.testing.assert_allclose(a.stats, b.stats, rtol=1e-12, atol=1e-9)
    np.testing.assert_array_equal(a.duration, b.duration)
    np.testing.assert_array_equal(a.ended, b.ended)
    np.testing.assert_array_equal(a.reached, b.reached)
    pd.testing.assert_frame_equal(a.views.reset_index(drop=True), b.views.reset_index(drop=True), check_dtype=False)
    pd.testing.assert_frame_equal(a.trajectory.reset_index(drop=True), b.trajectory.reset_index(drop=True),
                                  check_dtype=False)
    assert a.x_shift == pytest.approx(b.x_shift, rel=1e-12) and a.y_shift == pytest.approx(b.y_shift, rel=1e-12)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), depth=st.integers(3, 40), halflife=st.floats(20, 2000), shuffle=st.booleans())
def test_vectorised_statistics_equal_the_reference(seed, depth, halflife, shuffle):
    lists, rankings, lengths, groups = _setup(seed, depth)
    frame = simulate_log(lists, model=TimeModel(halflife=halflife), n_users=5, seed=seed, page_size=4)
    if shuffle:  # sessions interleaved in the file by time, each still in its own order (a stable sort)
        frame = frame.sort_values("time", kind="stable")
    log = log_from_frame(frame.reset_index(drop=True))
    _assert_same(collect_sessions(log, rankings, lengths, groups), collect_reference(log, rankings, lengths, groups))


@pytest.mark.parametrize("change", ["unknown list", "wrong docno", "beyond", "no length"])
def test_the_same_first_error(change):
    lists, rankings, lengths, groups = _setup(1, 12)
    frame = simulate_log(lists, model=TimeModel(halflife=400), n_users=3, seed=2).reset_index(drop=True)
    clicks = frame.index[frame["event"] == "click"]
    if change == "unknown list":
        frame.loc[frame["list"] == "L2", "list"] = "L9"
    elif change == "wrong docno":
        frame.loc[clicks[5], "docno"] = "nope"
    elif change == "beyond":
        frame.loc[clicks[3], "rank"] = 99
        frame.loc[clicks[3], "docno"] = None
    else:
        del lengths[frame.loc[clicks[4], "docno"]]
    log = log_from_frame(frame, source="log.csv")
    with pytest.raises(InputFormatError) as fast:
        collect_sessions(log, rankings, lengths, groups)
    with pytest.raises(InputFormatError) as reference:
        collect_reference(log, rankings, lengths, groups)
    assert str(fast.value) == str(reference.value)
