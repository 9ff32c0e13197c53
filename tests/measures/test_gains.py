"""trec_eval's gain measures (measures/gains.py, and nDCG with gains) equal trec_eval's:
pytrec_eval to 1e-9 per topic on random cases (default gains), the trec_eval 10 binary
when TREC_EVAL names one (gain maps, rbp, rbp_resid: not in pytrec_eval), and
hand-made cases."""

from __future__ import annotations

import math

import pytest
import pytrec_eval
from trec_cases import (
    assert_as_trec_eval,
    assert_close,
    max_difference,
    pateval_values,
    random_case,
    run_trec_eval,
    trec_eval_binary,
)

from pateval.errors import ParameterError
from pateval.measures import parse_measure

SEEDS = range(60)
PYTREC = {"nDCG_rel": "ndcg_rel", "RnDCG": "Rndcg", "G": "G", "binG": "binG", "nDCG": "ndcg"}


@pytest.mark.parametrize("seed", SEEDS)
def test_equal_to_pytrec_eval_on_random_cases(seed):
    qrels, run = random_case(seed, grades=4)
    reference = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC.values())).evaluate(run)
    ours = pateval_values(qrels, run, list(PYTREC))
    for name, trec_name in PYTREC.items():
        assert max_difference(ours[name], {t: v[trec_name] for t, v in reference.items()}) <= 1e-9, name


@pytest.mark.parametrize("seed", SEEDS[:20])
def test_relevance_level_equal_pytrec_eval(seed):
    qrels, run = random_case(seed, grades=4)
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"binG", "Rndcg"}, relevance_level=2).evaluate(run)
    ours = pateval_values(qrels, run, ["binG(rel=2)", "RnDCG(rel=2)"])
    assert max_difference(ours["binG(rel=2)"], {t: v["binG"] for t, v in reference.items()}) <= 1e-9
    assert max_difference(ours["RnDCG(rel=2)"], {t: v["Rndcg"] for t, v in reference.items()}) <= 1e-9


def test_rbp_by_hand():
    # a (grade 1) at rank 1, z (not judged) at 2, b (grade 2) at 3; the highest level, 2, rescales gains to g/2
    qrels = {"q": {"a": 1, "b": 2, "c": 0}}
    run = {"q": {"a": 3.0, "z": 2.0, "b": 1.0}}
    values = pateval_values(qrels, run, ["RBP(p=0.9)", "RBP(p=0.5,rel=1)", "RBP(p=0.5,rel=2)", "RBP_resid(p=0.9)",
                                         "RBP(gains='1=0.5,2=0.25')", "RBP(gains='1=-1')"])
    assert_close(values["RBP(p=0.9)"]["q"], 0.1 * (0.5 + 1.0 * 0.81))
    assert_close(values["RBP(p=0.5,rel=1)"]["q"], 0.5 * (1 + 0.25))
    assert_close(values["RBP(p=0.5,rel=2)"]["q"], 0.5 * 0.25)
    assert_close(values["RBP_resid(p=0.9)"]["q"], 0.1 * 0.9 + 0.9 ** 3)  # z, then the ranks past the end
    assert_close(values["RBP(gains='1=0.5,2=0.25')"]["q"], 0.2 * (0.5 + 0.25 * 0.64))  # within [0, 1]: as given
    # a negative gain rescales over [min, max] = [-1, 2]: a -> 0, b -> 1, c (level 0, not retrieved) -> 1/3
    assert_close(values["RBP(gains='1=-1')"]["q"], 0.2 * (0.0 + 1.0 * 0.64))


def test_rbp_resid_is_zero_when_everything_retrieved_is_judged():
    values = pateval_values({"q": {"a": 1, "b": 0}}, {"q": {"a": 2.0, "b": 1.0}}, ["RBP_resid"])
    assert values["RBP_resid"]["q"] == 0.0


def test_gain_map_by_hand():
    # grades 1 -> 3, 2 -> 9: the ideal is b (9), a (3); the run has a, z, b
    qrels = {"q": {"a": 1, "b": 2, "c": 0}}
    run = {"q": {"a": 3.0, "z": 2.0, "b": 1.0}}
    values = pateval_values(qrels, run, ["nDCG(gains='1=3,2=9')", "nDCG(gains='1=3, 2=9')@1"])
    assert_close(values["nDCG(gains='1=3,2=9')"]["q"], (3 + 9 / 2) / (9 + 3 / 1.584962500721156))
    assert_close(values["nDCG(gains='1=3, 2=9')@1"]["q"], 3 / 9)


@pytest.mark.parametrize("gains", ["1", "a=3", "-1=2", "1=3;2=9"])
def test_bad_gain_maps_are_refused(gains):
    with pytest.raises(ParameterError, match="gains"):
        pateval_values({"q": {"a": 1}}, {"q": {"a": 1.0}}, [f"nDCG(gains='{gains}')"])


@pytest.mark.parametrize("text, canonical", [
    ("ndcg_rel", "nDCG_rel"), ("Rndcg", "RnDCG"), ("rbp", "RBP"), ("RBP(p=0.8,rel=1)", "RBP(rel=1)"),
    ("rbp_resid", "RBP_resid"), ("nDCG(gains='1=3,2=9')@10", "nDCG(gains='1=3,2=9')@10"), ("binG", "binG"),
])
def test_names_parse_back(text, canonical):
    measure = parse_measure(text)
    assert str(measure) == canonical
    assert parse_measure(str(measure)) == measure


@pytest.mark.skipif(trec_eval_binary() is None, reason="no trec_eval binary (set TREC_EVAL)")
@pytest.mark.parametrize("seed", SEEDS[:40])
# gains that differ by less than 1 are left out: trec_eval sorts them with a comparator that truncates
# the difference to an integer (gain_init.c), so its "ideal" ranking may put 2 before 2.5
@pytest.mark.parametrize("gains", ["", "1=3,2=9", "0=-1,2=3", "1=0,3=5", "2=4.5"])
def test_equal_to_the_trec_eval_binary(seed, gains, tmp_path):
    qrels, run = random_case(seed, grades=3)
    suffix = f".{gains}" if gains else ""
    printed = f"_{gains}" if gains else ""
    args = [arg for m in ("ndcg", "ndcg_rel", "Rndcg", "G", "rbp") for arg in ("-m", m + suffix)]
    reference = run_trec_eval(trec_eval_binary(), qrels, run, tmp_path, args + ["-m", "binG", "-m", "rbp_resid"])
    # a measure named twice keeps its last parameters: rbp.p=0.5 in a run of its own
    reference.update(run_trec_eval(trec_eval_binary(), qrels, run, tmp_path, ["-m", "rbp.p=0.5"]))
    option = f"gains='{gains}'" if gains else ""
    names = {f"nDCG({option})" if option else "nDCG": f"ndcg{printed}",
             f"nDCG_rel({option})" if option else "nDCG_rel": f"ndcg_rel{printed}",
             f"RnDCG({option})" if option else "RnDCG": f"Rndcg{printed}",
             f"G({option})" if option else "G": f"G{printed}",
             f"RBP(p=0.9,{option})" if option else "RBP(p=0.9)": f"rbp{printed}",
             "binG": "binG", "RBP_resid(p=0.9)": "rbp_resid", "RBP(p=0.5)": "rbp_p=0.5"}
    names = {str(parse_measure(n)): t for n, t in names.items()}
    ours = pateval_values(qrels, run, list(names))
    for name, trec_name in names.items():
        for topic, value in ours[name].items():
            expected, tolerance = reference[trec_name, topic]
            if math.isnan(expected):  # trec_eval's Rndcg of a topic with relevant documents but no positive gain
                assert name.startswith("RnDCG") and value == 0.0
                continue
            assert_close(value, expected, tolerance, (name, topic))


@pytest.mark.skipif(trec_eval_binary() is None, reason="no trec_eval binary (set TREC_EVAL)")
@pytest.mark.parametrize("seed", SEEDS[:20])
@pytest.mark.parametrize("gains", ["", "1=3,2=9", "0=-1,2=3"])
def test_dcg_ideal_dcg_and_yaap_equal_the_trec_eval_binary(seed, gains, tmp_path):
    qrels, run = random_case(seed, grades=3)
    suffix = f".{gains}" if gains else ""
    printed = f"_{gains}" if gains else ""
    # trec_eval crashes when dcg with parameters and ideal_dcg are asked for together: one run each
    reference = run_trec_eval(trec_eval_binary(), qrels, run, tmp_path, ["-m", "dcg" + suffix, "-m", "yaap"])
    reference.update(run_trec_eval(trec_eval_binary(), qrels, run, tmp_path, ["-m", "ideal_dcg" + suffix]))
    option = f"(gains='{gains}')" if gains else ""
    names = {str(parse_measure(n)): t for n, t in
             {f"DCG{option}": f"dcg{printed}", f"IDCG{option}": f"ideal_dcg{printed}", "YAAP": "yaap"}.items()}
    assert_as_trec_eval(pateval_values(qrels, run, list(names)), reference, names)
