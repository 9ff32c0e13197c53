"""pateval as a library: notes reach a notebook user (logger, warnings), evaluation leaves
NumPy's process-wide state alone, and the package ships its type information."""

from __future__ import annotations

import logging
import tomllib
import warnings
from pathlib import Path

import numpy as np
import pytest

import pateval
from pateval.errors import TopicsLeftOutWarning

QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}, "q3": {"d4": 1}}
RUN = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0}, "q9": {"d1": 1.0}}


def test_topics_left_out_are_warned_and_logged_besides_the_frame_attrs(caplog):
    with caplog.at_level(logging.INFO, logger="pateval"), pytest.warns(TopicsLeftOutWarning) as record:
        frame = pateval.evaluate(QRELS, RUN, ["AP"])
    warned = [str(w.message) for w in record]
    assert warned == [
        "run 'run': 1 topic(s) not in the qrels, not evaluated: q9",
        "run 'run': 1 qrels topic(s) without results left out of the mean (use -c / complete=True to count them as 0): "
                      "q3",
    ]
    assert record[0].filename == __file__  # points at the caller's line, not into pateval
    assert [r.getMessage() for r in caplog.records if r.name == "pateval"] == frame.attrs["notes"]
    assert warned == frame.attrs["notes"][:2]
    assert frame.attrs["notes"][2] == "means are over topics in both the qrels and the run"


def test_nothing_is_warned_when_no_topic_is_left_out():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = pateval.evaluate(QRELS, {t: RUN[t] for t in ("q1", "q2")} | {"q3": {"d4": 1.0}}, ["AP"])
    assert frame["value"].tolist() == [1.0, 1.0, 1.0]


def test_evaluation_leaves_numpy_process_state_alone(monkeypatch):
    core = getattr(np, "_core", None) or np.core
    calls = []
    original = core.multiarray._set_madvise_hugepage
    monkeypatch.setattr(core.multiarray, "_set_madvise_hugepage", lambda flag: calls.append(flag) or original(flag))
    before = (np.geterr(), np.get_printoptions(), np.getbufsize())
    with pytest.warns(TopicsLeftOutWarning):
        pateval.evaluate(QRELS, RUN, ["AP", "nDCG@10", "P@10"], complete=True)
    assert calls == []
    assert (np.geterr(), np.get_printoptions(), np.getbufsize()) == before


def test_the_package_ships_py_typed():
    root = Path(__file__).resolve().parents[1]
    assert (root / "src" / "pateval" / "py.typed").is_file()
    config = tomllib.loads((root / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["pateval"]
    assert "dask[distributed]>=2024.1" in config["project"]["optional-dependencies"]["dask"]
    assert not any(d.startswith(("dask", "distributed")) for d in config["project"]["dependencies"])


def test_plotting_leaves_the_callers_matplotlib_backend_alone(tmp_path):
    import subprocess
    import sys

    script = f"""
import matplotlib, sys, warnings
matplotlib.use("svg")
import pateval
from pateval import api
warnings.simplefilter("ignore")
frame = pateval.evaluate({QRELS!r}, {RUN!r}, ["AP"])
api.evaluate_by_group(frame, {{"q1": "a", "q2": "b"}}, plot={str(tmp_path / "groups.png")!r})
print(matplotlib.get_backend(), "matplotlib.pyplot" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["svg", "False"]
    assert (tmp_path / "groups.png").read_bytes().startswith(b"\x89PNG")


def test_every_entry_point_warns_at_the_callers_line():
    from pateval import api

    with pytest.warns(TopicsLeftOutWarning) as record:
        api.evaluation(QRELS, RUN, ["AP"])
    assert {w.filename for w in record} == {__file__}
    second = {t: {d: -s for d, s in docs.items()} for t, docs in RUN.items()}
    with pytest.warns(TopicsLeftOutWarning) as record:
        api.compare(QRELS, {"a": RUN, "b": second}, ["AP"])
    assert {w.filename for w in record} == {__file__}
