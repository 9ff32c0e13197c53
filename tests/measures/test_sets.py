"""Set measures and counts (measures/sets.py) equal trec_eval's: pytrec_eval to 1e-9 per
topic on random cases, the trec_eval 10 binary when TREC_EVAL names one (unj is not
in pytrec_eval), and hand-made cases."""

from __future__ import annotations

import pytest
import pytrec_eval
from trec_cases import (
    assert_as_trec_eval,
    assert_close,
    max_difference,
    pateval_summary,
    pateval_values,
    random_case,
    run_trec_eval,
    trec_eval_binary,
)

from pateval.measures import parse_measure

# pateval name -> pytrec_eval's name (trec_eval's)
PYTREC = {"SetP": "set_P", "SetR": "set_recall", "SetRelP": "set_relative_P", "SetAP": "set_map",
          "SetF": "set_F", "Utility": "utility", "NumNonrelJudgedRet": "num_nonrel_judged_ret", "NumQ": "num_q"}
SEEDS = range(60)


@pytest.mark.parametrize("seed", SEEDS)
def test_equal_to_pytrec_eval_on_random_cases(seed):
    qrels, run = random_case(seed)
    reference = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC.values())).evaluate(run)
    ours = pateval_values(qrels, run, list(PYTREC))
    for name, trec_name in PYTREC.items():
        assert max_difference(ours[name], {t: v[trec_name] for t, v in reference.items()}) <= 1e-9, name


@pytest.mark.parametrize("seed", SEEDS[:20])
def test_parameters_and_relevance_level_equal_pytrec_eval(seed):
    qrels, run = random_case(seed, grades=4)
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"set_F.2.5", "set_P", "set_recall"},
                                               relevance_level=2).evaluate(run)
    ours = pateval_values(qrels, run, ["SetF(beta=2.5,rel=2)", "SetP(rel=2)", "SetR(rel=2)"])
    assert max_difference(ours["SetF(beta=2.5,rel=2)"], {t: v["set_F"] for t, v in reference.items()}) <= 1e-9
    assert max_difference(ours["SetP(rel=2)"], {t: v["set_P"] for t, v in reference.items()}) <= 1e-9
    assert max_difference(ours["SetR(rel=2)"], {t: v["set_recall"] for t, v in reference.items()}) <= 1e-9


def test_by_hand():
    # q1: a (rel 1), b (judged 0), z (not in the qrels), d (grade -1: pooled, unjudged); c (rel 2) is missed
    qrels = {"q1": {"a": 1, "b": 0, "c": 2, "d": -1}, "q2": {"x": 0}}
    run = {"q1": {"a": 3.0, "b": 2.0, "z": 1.0, "d": 0.5}, "q2": {"x": 1.0}}
    names = ["SetP", "SetR", "SetRelP", "SetAP", "SetF", "SetF(beta=2.0)", "Utility(a=2.0,c=-1.0,d=0.5,num_docs=100)",
             "NumNonrelJudgedRet", "Unj@2", "Unj@3", "Unj@10"]
    values = pateval_values(qrels, run, names)
    expected = {"SetP": 1 / 4, "SetR": 1 / 2, "SetRelP": 1 / 2, "SetAP": 1 / 8,
                "SetF": 2 * (1 / 4) * (1 / 2) / (1 / 4 + 1 / 2), "SetF(beta=2.0)": 3 * (1 / 8) / (2 / 4 + 1 / 2),
                # 2*1 - 1*3 - 1*1 + 0.5*(100 + 1 - 4 - 2)
                "Utility(a=2.0,c=-1.0,d=0.5,num_docs=100)": 2 - 3 - 1 + 0.5 * 95,
                "NumNonrelJudgedRet": 1, "Unj@2": 0.0, "Unj@3": 1 / 3, "Unj@10": 2 / 10}
    for name, value in expected.items():
        assert_close(values[name]["q1"], value, what=name)
    # q2: nothing relevant: every set measure is 0
    assert [values[n]["q2"] for n in ("SetP", "SetR", "SetRelP", "SetAP", "SetF")] == [0.0] * 5
    summary = pateval_summary(qrels, run, ["NumQ", "NumNonrelJudgedRet"])
    assert summary == {"NumQ": 2.0, "NumNonrelJudgedRet": 2.0}  # counts are summed


@pytest.mark.parametrize("text, canonical", [
    ("set_P", "SetP"), ("set_recall", "SetR"), ("set_relative_P", "SetRelP"), ("set_map", "SetAP"),
    ("set_F", "SetF"), ("SetF(beta=0.5)", "SetF(beta=0.5)"), ("utility", "Utility"), ("num_q", "NumQ"),
    ("num_nonrel_judged_ret", "NumNonrelJudgedRet"), ("unj_10", "Unj@10"), ("unj.5", "Unj@5"),
])
def test_trec_eval_names_parse_to_canonical_names_that_parse_back(text, canonical):
    measure = parse_measure(text)
    assert str(measure) == canonical
    assert parse_measure(str(measure)) == measure


@pytest.mark.skipif(trec_eval_binary() is None, reason="no trec_eval binary (set TREC_EVAL)")
@pytest.mark.parametrize("seed", SEEDS[:30])
def test_equal_to_the_trec_eval_binary(seed, tmp_path):
    qrels, run = random_case(seed)
    reference = run_trec_eval(trec_eval_binary(), qrels, run, tmp_path,
                              ["-m", "set", "-m", "unj.3,5,10,40", "-m", "num_nonrel_judged_ret",
                               "-m", "utility.2,-1,-0.5,0.25", "-N", "500"])
    names = {"SetP": "set_P", "SetR": "set_recall", "SetRelP": "set_relative_P", "SetAP": "set_map",
             "SetF": "set_F", "NumNonrelJudgedRet": "num_nonrel_judged_ret",
             "Utility(a=2.0,c=-0.5,d=0.25,num_docs=500)": "utility_2,-1,-0.5,0.25",
             "Unj@3": "unj_3", "Unj@5": "unj_5", "Unj@10": "unj_10", "Unj@40": "unj_40"}
    ours = pateval_values(qrels, run, list(names))
    summary = pateval_summary(qrels, run, list(names))
    assert_as_trec_eval(ours, reference, names, summary)
