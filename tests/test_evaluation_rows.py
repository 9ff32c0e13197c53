"""The rows `pateval evaluate` prints (built from arrays, without pandas) are the rows of the
API's frame and of :func:`pateval.aggregate`, bit for bit."""

from __future__ import annotations

import contextlib
import io
import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

import pateval
from pateval.cli import main
from pateval.evaluation import _aggregate_values


@st.composite
def qrels_and_runs(draw):
    topics = [f"q{i}" for i in range(draw(st.integers(1, 6)))]
    docs = [f"d{i}" for i in range(12)]
    qrels = {t: {d: draw(st.integers(-1, 3)) for d in draw(st.lists(st.sampled_from(docs), min_size=1, max_size=6,
                                                                    unique=True))}
             for t in topics}
    runs = {}
    for name in ("a", "b"):
        run_topics = draw(st.lists(st.sampled_from([*topics, "q9"]), min_size=1, unique=True))
        runs[name] = {t: {d: draw(st.floats(-5, 5, allow_nan=False).map(lambda x: round(x, 3)))
                          for d in draw(st.lists(st.sampled_from(docs), min_size=1, max_size=8, unique=True))}
                      for t in run_topics}
    return qrels, runs


def _write(tmp, qrels, runs):
    (tmp / "qrels.txt").write_text("".join(f"{t} 0 {d} {g}\n" for t, j in qrels.items() for d, g in j.items()))
    paths = []
    for name, run in runs.items():
        path = tmp / f"{name}.run"
        path.write_text("".join(f"{t} Q0 {d} 0 {s!r} {name}\n" for t, ranking in run.items() for d,
                                s in ranking.items()))
        paths.append(str(path))
    return str(tmp / "qrels.txt"), paths


MEASURES = ["AP", "nDCG@5", "P@3", "RR", "Bpref", "NumRelRet", "PRES@10"]


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(data=qrels_and_runs(), complete=st.booleans())
def test_printed_rows_are_the_frame_and_its_aggregate(tmp_path_factory, data, complete):
    qrels, runs = data
    tmp = tmp_path_factory.mktemp("rows")
    qrels_path, run_paths = _write(tmp, qrels, runs)
    argv = ["evaluate", qrels_path, *run_paths, "-q", "--format", "json", *[a for m in MEASURES for a in ("-m", m)]]
    if complete:
        argv.append("-c")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(argv)
    if code != 0:  # e.g. no topic in common: the API says the same
        return
    printed = json.loads(out.getvalue())
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = pateval.evaluate(qrels_path, run_paths, MEASURES, complete=complete)
    means = pateval.aggregate(frame)
    per_topic = {(r.run, r.measure, r.topic): r.value for r in frame.itertuples()}
    alls = {(r.run, r.measure): r.value for r in means.itertuples()}
    for row in printed:
        key = (row["run"], row["measure"])
        expected = alls[key] if row["topic"] == "all" else per_topic[(*key, row["topic"])]
        assert row["value"] == expected or (math.isnan(row["value"]) and math.isnan(expected))
    assert len(printed) == len(frame) + len(means)


def test_means_are_exactly_rounded_sums():
    values = __import__("numpy").array([0.1] * 10 + [1e16, 1.0, -1e16])
    assert _aggregate_values(values, "sum") == math.fsum(values.tolist()) == 2.0
    assert _aggregate_values(values, "mean") == 2.0 / 13
