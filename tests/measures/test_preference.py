"""Accuracy (measures/preference.py) equals ir_measures' accuracy provider to 1e-9 per topic on
random cases, and by hand where that provider gives no value."""

from __future__ import annotations

import numpy as np
import pytest
from trec_cases import assert_close, pateval_values

from pateval.measures import parse_measure

ir_measures = pytest.importorskip("ir_measures")

MEASURES = ["Accuracy", "Accuracy@10", "Accuracy(rel=2)", "Accuracy(rel=2)@5"]


def _case(seed: int):
    """Distinct scores (the provider sorts by score alone) and a non-relevant document retrieved in
    every topic's top 5 (the provider divides by zero when there is none)."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for t in range(4):
        topic = f"q{t}"
        docs = [f"d{i:02d}" for i in rng.choice(40, size=rng.integers(1, 25), replace=False)]
        qrels[topic] = {d: int(rng.integers(-1, 4)) for d in docs}
        retrieved = [f"d{i:02d}" for i in rng.choice(40, size=rng.integers(1, 35), replace=False)]
        scores = (rng.permutation(len(retrieved)) + 1.0).tolist()
        run[topic] = dict(zip(retrieved, scores, strict=True))
        run[topic]["zz-never-judged"] = max(scores) + 1.0
    return qrels, run


@pytest.mark.parametrize("seed", range(60))
def test_equal_to_ir_measures_accuracy_provider(seed):
    qrels, run = _case(seed)
    theirs: dict[str, dict[str, float]] = {}
    for metric in ir_measures.accuracy.iter_calc([ir_measures.parse_measure(m) for m in MEASURES], qrels, run):
        theirs.setdefault(str(metric.measure), {})[metric.query_id] = float(metric.value)
    ours = pateval_values(qrels, run, MEASURES)
    for name in MEASURES:
        for topic, value in theirs.get(str(ir_measures.parse_measure(name)), {}).items():
            assert_close(ours[name][topic], value, what=(name, topic))


def test_by_hand():
    # ranking n1 r1 n2 r2: r1 has 1 non-relevant above, r2 has 2; N = 2, m = 2
    qrels = {"q": {"r1": 1, "r2": 2, "n1": 0}, "all": {"a": 1}, "none": {"x": 1}}
    run = {"q": {"n1": 4.0, "r1": 3.0, "n2": 2.0, "r2": 1.0}, "all": {"a": 1.0}, "none": {"y": 1.0}}
    values = pateval_values(qrels, run, ["Accuracy", "Accuracy(rel=2)", "Accuracy@2"])
    assert_close(values["Accuracy"]["q"], 1 - (1 + 2) / (2 * 2))
    assert_close(values["Accuracy(rel=2)"]["q"], 1 - 3 / (3 * 1))
    assert_close(values["Accuracy@2"]["q"], 1 - 1 / (1 * 1))
    assert values["Accuracy"]["all"] == 1.0  # nothing non-relevant retrieved: every pair is in order
    assert values["Accuracy"]["none"] == 0.0  # nothing relevant retrieved
    assert str(parse_measure("Accuracy(rel=2)@5")) == "Accuracy(rel=2)@5"
