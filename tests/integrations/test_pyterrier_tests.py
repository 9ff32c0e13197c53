"""pateval's paired tests as pt.Experiment's ``test=`` (on frames: no Java)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

pt = pytest.importorskip("pyterrier")

import pateval.api  # noqa: E402
import pateval.pyterrier as ppt  # noqa: E402
from pateval.options import EvaluationOptions  # noqa: E402
from pateval.stats import paired_test  # noqa: E402

TOPICS = [f"q{i:02d}" for i in range(12)]


def _run(seed: int, missing: set[str]) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [(q, f"d{j}", float(rng.random())) for q in TOPICS if q not in missing
            for j in rng.choice(12, 6, replace=False)]
    frame = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    frame["rank"] = frame.groupby("qid")["score"].rank(ascending=False, method="first").astype(int) - 1
    return frame


@pytest.mark.parametrize("test", ["randomisation", "bootstrap"])
def test_resampling_p_values_equal_compare_when_a_qrels_topic_has_no_results(test):
    """pt.Experiment puts the topics a run misses after the others; the draws follow the
    topics, so the p-values equal `pateval compare -c`'s only once the topics are aligned."""
    rng = np.random.default_rng(1)
    qrels = pd.DataFrame([(q, f"d{j}", int(rng.integers(0, 3))) for q in TOPICS for j in range(8)],
                         columns=["qid", "docno", "label"])
    baseline, other = _run(2, {"q00"}), _run(3, {"q05"})
    systems = [pt.Transformer.from_df(baseline), pt.Transformer.from_df(other)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = pt.Experiment(systems, pd.DataFrame({"qid": TOPICS, "query": "x"}), qrels,
                              ppt.measures("AP", "P@5", "PRES@5"), names=["a", "b"], baseline=0,
                              test=ppt.PairedTest(test, B=2000, seed=7))
    comparison = pateval.api.compare(qrels, {"a": baseline, "b": other}, ["AP", "P@5", "PRES@5"], baseline="a",
                                     test=test, correction=None, seed=7, B=2000,
                                     options=EvaluationOptions(complete=True))
    tests = comparison.tests
    for measure in ("AP", "P@5", "PRES@5"):
        expected = tests.loc[tests["measure"] == measure, "p_value"].iloc[0]
        assert table.loc[table["name"] == "b", f"{measure} p-value"].iloc[0] == pytest.approx(expected, abs=1e-12)
    assert not pt.java.started()


def test_called_directly_the_scores_are_taken_in_their_order():
    test = ppt.PairedTest("randomisation", B=500, seed=3)
    x, y = [0.1, 0.5, 0.9, 0.3, 0.7], [0.2, 0.4, 0.3, 0.1, 0.2]
    assert test(x, y).pvalue == paired_test(x, y, test="randomisation", B=500, seed=3).p_value
