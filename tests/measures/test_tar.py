"""TAR measures: equal to CLEF-TAR's tar_eval.py (2018, task 2) on real CLEF 2017 TAR runs,
values worked out by hand, the conventions and parameters."""

from __future__ import annotations

import json
import math

import pytest

import pateval
from pateval.errors import ParameterError
from pateval.measures import parse_measure

RUNS = ("waterloo_A-rank-normal", "qut_result_bool_es_test", "uos_sis.AL30Q_BM25", "ecnu_run2")
#: tar_eval rounds these two to 3 decimals per topic
ROUNDED = {"norm_last_rel", "norm_area"}
MEASURES = {"last_rel": "last_rel", "norm_last_rel": "norm_last_rel", "WSS": "wss_100", "WSS(recall=95)": "wss_95",
            "norm_area": "norm_area", "loss_r": "loss_r", "loss_e": "loss_e", "loss_er": "loss_er",
            "total_cost": "total_cost", "num_shown": "num_shown"}


@pytest.fixture(scope="module")
def tar_eval(test_data):
    return json.loads((test_data / "tar" / "tar_eval_2018.json").read_text())


def _values(test_data, run: str, measures: list[str]) -> dict[tuple[str, str], float]:
    frame = pateval.evaluate(test_data / "tar" / "qrels_abs_test.txt", {run: test_data / "tar" / f"{run}.txt"},
                             measures, order="file")
    frame = frame[frame["topic"] != "all"]
    return {(row.measure, row.topic): float(row.value) for row in frame.itertuples()}


@pytest.mark.parametrize("run", RUNS)
def test_tar_measures_equal_tar_eval(test_data, tar_eval, run):
    reference = tar_eval[run]
    recall_cutoffs = [1, 5, 10, 20, 25, 30, 50, 70, 100]
    got = _values(test_data, run, [*MEASURES, *(f"recall_pct@{k}" for k in recall_cutoffs)])
    assert {t for _, t in got} == set(reference)
    for topic, expected in reference.items():
        for ours, theirs in MEASURES.items():
            tolerance = 5e-4 if theirs in ROUNDED else 1e-12
            assert math.isclose(got[ours, topic], expected[theirs], rel_tol=1e-12, abs_tol=tolerance), \
                (run, topic, ours, got[ours, topic], expected[theirs])
        for k in recall_cutoffs:
            assert math.isclose(got[f"recall_pct@{k}", topic], expected["recall_pct"][k - 1], abs_tol=1e-12), \
                (run, topic, k)


def test_the_runs_cover_the_hard_cases(tar_eval):
    ecnu = tar_eval["ecnu_run2"]
    assert all(t["num_shown"] > 200 for t in ecnu.values())  # more shown than candidates: N' = S
    assert any(t["wss_100"] == 0 and t["wss_95"] > 0 for t in ecnu.values())  # 95% reached, not 100%
    assert any(t["num_shown"] < 200 for t in tar_eval["qut_result_bool_es_test"].values())  # short rankings


def _one(qrels, run, measure):
    frame = pateval.evaluate(qrels, {"r": run}, [measure], order="file")
    return float(frame[frame["topic"] == "q"]["value"].iloc[0])


def test_values_worked_out_by_hand():
    # N = 10 candidates, R = 2; the run shows 4: relevant at ranks 2 and 4
    qrels = {"q": {f"d{i}": int(i in (2, 4)) for i in range(1, 11)}}
    run = {"q": {"d1": 4.0, "d2": 3.0, "d3": 2.0, "d4": 1.0}}
    assert _one(qrels, run, "last_rel") == 4
    assert _one(qrels, run, "norm_last_rel") == 0.4
    assert _one(qrels, run, "WSS") == pytest.approx(0.6)
    # round(0.95 * 2) = 2: the 2nd relevant at rank 4
    assert _one(qrels, run, "WSS(recall=95)") == pytest.approx(0.6 - 0.05)
    # area: (10 - 2 + 0.5) + (10 - 4 + 0.5) = 15; best 2 * 10 - 4 / 2 = 18
    assert _one(qrels, run, "norm_area") == pytest.approx(15 / 18)
    assert _one(qrels, run, "loss_r") == 0.0
    assert _one(qrels, run, "loss_e") == pytest.approx((100 / 10) ** 2 * (4 / 102) ** 2)
    assert _one(qrels, run, "total_cost") == 2 - 19 * 2
    # 20% of 10 = the first 2 documents: 1 of 2 relevant
    assert _one(qrels, run, "recall_pct@20") == 0.5
    assert _one(qrels, run, "recall_pct@30") == 0.5
    assert _one(qrels, run, "recall_pct@40") == 1.0


def test_excluded_grades_leave_the_ranking_and_the_candidates():
    # grade 3: a relevant abstract the Boolean query missed (CLEF-TAR): not shown, not a candidate
    qrels = {"q": {"d1": 3, "d2": 1, "d3": 0, "d4": 0}}
    run = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    assert _one(qrels, run, "last_rel(excluded=3)") == 1
    assert _one(qrels, run, "num_shown(excluded=3)") == 2
    assert _one(qrels, run, "norm_last_rel(excluded=3)") == pytest.approx(1 / 3)
    assert _one(qrels, run, "last_rel") == 2  # without: grade 3 is relevant, found at 1 and 2
    assert _one(qrels, run, "norm_last_rel(collection=100)") == pytest.approx(2 / 100)


def test_parameters_and_names():
    assert str(parse_measure("WSS(recall=95)")) == "WSS(recall=95)"
    assert str(parse_measure("recall_pct@10")) == "recall_pct@10"
    with pytest.raises(ParameterError):
        parse_measure("WSS(recall=90)")
    with pytest.raises(ParameterError):
        parse_measure("recall_pct")
    with pytest.raises(ParameterError, match="a percentage"):
        pateval.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["recall_pct@101"])
