"""The measures of ir_measures' catalogue that its pytrec_eval provider computes (infAP, IPrec,
SetP, SetR, SetF, SetAP, NumQ) equal that provider, run through ``ir_measures``' own
``iter_calc``, to 1e-9 per topic on random cases."""

from __future__ import annotations

import pytest
from trec_cases import pateval_values, random_case

from pateval.measures import parse_measure

ir_measures = pytest.importorskip("ir_measures")

# ir_measures' names, read by pateval as they are written (IPrec@x: trec_eval 9's rounding of x R, as pytrec_eval's)
NAMES = {name: name for name in ("infAP", "infAP(rel=2)", "SetP", "SetP(rel=2)", "SetR", "SetF", "SetF(beta=0.5)",
                                 "SetAP", "NumQ", "IPrec(rel=2)@0.4",
                                 *(f"IPrec@{x}" for x in (0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0)))}


@pytest.mark.parametrize("seed", range(60))
def test_equal_to_ir_measures_pytrec_eval_provider(seed):
    qrels, run = random_case(seed, grades=3)
    theirs: dict[str, dict[str, float]] = {}
    for metric in ir_measures.pytrec_eval.iter_calc([ir_measures.parse_measure(m) for m in NAMES], qrels, run):
        theirs.setdefault(str(metric.measure), {})[metric.query_id] = float(metric.value)
    ours = pateval_values(qrels, run, list(NAMES.values()))
    for their_name, our_name in NAMES.items():  # (the same spelling: pateval's canonical name may differ)
        reference = theirs[str(ir_measures.parse_measure(their_name))]
        canonical = str(parse_measure(our_name))
        assert set(reference) == set(ours[canonical])
        for topic, value in reference.items():
            assert abs(ours[canonical][topic] - value) <= 1e-9, (their_name, topic, ours[canonical][topic], value)


@pytest.mark.parametrize("text, canonical", [
    ("IPrec@0.5", "IPrec(recall=0.5,rounding=trec_eval9)"),
    ("IPrec(rel=2)@0.2", "IPrec(recall=0.2,rounding=trec_eval9,rel=2)"),
    ("IPrec(rounding=nearest)@0.3", "IPrec(recall=0.3)"),
])
def test_ir_measures_iprec_spelling_gives_ir_measures_numbers(text, canonical):
    measure = parse_measure(text)
    assert str(measure) == canonical
    assert parse_measure(str(measure)) == measure


JUDGED = ["Judged@1", "Judged@3", "Judged@5", "Judged@10", "Judged@20", "Judged@50", "Judged"]


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("order", ["score", "file"])
def test_judged_equals_ir_measures_judged_provider(seed, order):
    """Lists shorter than k (divided by the number retrieved), ties across the cutoff (ir_measures
    reads equal scores by docno ascending), unjudged documents and negative grades: equal to
    ir_measures' Judged per topic, whatever order pateval evaluates the others in."""
    qrels, run = random_case(seed, grades=3, tie_values=3)
    theirs: dict[str, dict[str, float]] = {}
    for metric in ir_measures.judged.iter_calc([ir_measures.parse_measure(m) for m in JUDGED], qrels, run):
        theirs.setdefault(str(metric.measure), {})[metric.query_id] = float(metric.value)
    ours = pateval_values(qrels, run, JUDGED, order=order)
    for name in JUDGED:
        assert set(ours[name]) == set(theirs[name])
        for topic, value in theirs[name].items():
            assert abs(ours[name][topic] - value) <= 1e-12, (name, topic, ours[name][topic], value)
