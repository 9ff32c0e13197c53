"""C/W/L measures, ERR and Compat (measures/cwl.py) equal the providers ir_measures uses for
them, per topic on random cases: cwl_eval (INST, INSQ, BPM, SDCG, NERR8-11, RBP with rel; to
1e-9; skipped unless the cwl-eval package is importable), gdeval (ERR; it prints 5 decimals,
so to 5e-6) and compat (Compat; to 1e-9); and formulas by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from trec_cases import assert_close, pateval_values

from pateval.measures import parse_measure

ir_measures = pytest.importorskip("ir_measures")

SEEDS = range(40)


def _case(seed: int, grades: int = 3):
    """Numeric topics (gdeval reads no others) and distinct scores (ir_measures' cwl_eval and
    compat providers sort by score alone)."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for t in range(4):
        topic = str(t + 1)
        docs = [f"d{i:02d}" for i in rng.choice(40, size=rng.integers(1, 25), replace=False)]
        qrels[topic] = {d: int(rng.integers(-1, grades + 1)) for d in docs}
        retrieved = [f"d{i:02d}" for i in rng.choice(40, size=rng.integers(1, 35), replace=False)]
        scores = rng.permutation(len(retrieved)) + 1.0
        run[topic] = dict(zip(retrieved, scores.tolist(), strict=True))
    return qrels, run


def _reference(provider, measures, qrels, run):
    out = {}
    for metric in provider.iter_calc([ir_measures.parse_measure(m) for m in measures], qrels, run):
        out.setdefault(str(metric.measure), {})[metric.query_id] = float(metric.value)
    return out


def _compare(ours_names, theirs, qrels, run, tolerance):
    ours = pateval_values(qrels, run, list(ours_names))
    worst = 0.0
    for name, their_name in ours_names.items():
        for topic, value in theirs[their_name].items():
            assert_close(ours[name][topic], value, tolerance, (name, topic))
            worst = max(worst, abs(ours[name][topic] - value))
    return worst


CWL = ["INST(max_rel=3)", "INST(T=2.5,max_rel=3)", "INST(min_rel=1,max_rel=2)", "INSQ(max_rel=3)",
       "INSQ(T=3,max_rel=3)", "BPM(max_rel=3)@5", "BPM(T=2,max_rel=3)@20", "SDCG(max_rel=3)@10",
       "SDCG(max_rel=1)@5", "NERR8(max_rel=3)@10", "NERR9(max_rel=3)@10", "NERR10(max_rel=3)",
       "NERR10(p=0.8,max_rel=3)", "NERR11(max_rel=3)", "NERR11(T=2,max_rel=3)", "RBP(p=0.8,rel=1)",
       "RBP(p=0.5,rel=2)", "RBP(p=0.95,rel=1)"]


@pytest.mark.parametrize("seed", SEEDS)
def test_cwl_measures_equal_cwl_eval(seed):
    pytest.importorskip("cwl")
    qrels, run = _case(seed)
    theirs = _reference(ir_measures.cwl_eval, CWL, qrels, run)
    names = {str(parse_measure(m)): str(ir_measures.parse_measure(m)) for m in CWL}
    _compare(names, theirs, qrels, run, 1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_err_equals_gdeval(seed):
    qrels, run = _case(seed, grades=4)
    measures = ["ERR@5", "ERR@10", "ERR@20"]
    theirs = _reference(ir_measures.gdeval, measures, qrels, run)
    _compare({m: m for m in measures}, theirs, qrels, run, 5e-6 + 1e-12)  # gdeval prints %.5f


@pytest.mark.parametrize("seed", SEEDS)
def test_compat_equals_ir_measures(seed):
    qrels, run = _case(seed)
    measures = ["Compat", "Compat(p=0.8)", "Compat(normalize=False)", "Compat(p=0.5,normalize=False)"]
    theirs = _reference(ir_measures.compat, measures, qrels, run)
    names = {str(parse_measure(m)): str(ir_measures.parse_measure(m)) for m in measures}
    _compare(names, theirs, qrels, run, 1e-9)


def test_formulas_by_hand():
    # grades 2, 0, (not judged), 1 at ranks 1-4; max_rel 2: gains 1, 0, 0, 0.5
    qrels = {"1": {"a": 2, "b": 0, "d": 1}}
    run = {"1": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    values = {m: v["1"] for m, v in pateval_values(qrels, run, ["SDCG(max_rel=2)@4", "NERR10(p=0.5,max_rel=2)",
                                                                    "ERR@3", "ERR@4", "BPM(max_rel=2)@4"]).items()}
    # SDCG@k: DCG@k over sum_{i<=k} 1/log2(i+1)
    discount = [1 / math.log2(i + 1) for i in range(1, 5)]
    assert_close(values["SDCG(max_rel=2)@4"], (1.0 + 0.5 * discount[3]) / sum(discount))
    # NERR10: C(1) = p (1 - 1) = 0: the user stops at rank 1, W(1) = 1
    assert_close(values["NERR10(p=0.5,max_rel=2)"], 1.0)
    # ERR: R = (2^g - 1)/16
    assert_close(values["ERR@3"], 3 / 16)
    assert_close(values["ERR@4"], 3 / 16 + (1 - 3 / 16) * (1 / 16) / 4)
    # BPM(T=1): the first document's gain reaches T, so the user reads one document
    assert_close(values["BPM(max_rel=2)@4"], 1.0)


@pytest.mark.parametrize("text, canonical", [
    ("RBP(p=0.8,rel=1)", "RBP(rel=1)"), ("NERR10(p=0.8,max_rel=3)", "NERR10(p=0.8,max_rel=3)"),
    ("SDCG(max_rel=3)@10", "SDCG(max_rel=3)@10"), ("INST(T=2,max_rel=3)", "INST(T=2.0,max_rel=3)"),
    ("BPM(T=1,max_rel=2)@10", "BPM(max_rel=2)@10"), ("Compat(p=0.9,normalize=False)", "Compat(p=0.9,normalize=false)"),
    ("ERR@20", "ERR@20"),
])
def test_ir_measures_spellings_parse(text, canonical):
    measure = parse_measure(text)
    assert str(measure) == canonical
    assert parse_measure(str(measure)) == measure
