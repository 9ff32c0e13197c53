"""Interpolated precision, 11-point average, Rprec_mult and relative_P (measures/interpolated.py)
equal trec_eval's: pytrec_eval to 1e-9 per topic on random cases, the trec_eval 10 binary
when TREC_EVAL names one, and hand-made cases."""

from __future__ import annotations

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

from pateval.measures import parse_measure
from pateval.measures.interpolated import ELEVEN_POINTS

SEEDS = range(60)
MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
RELATIVE_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
# pytrec_eval is trec_eval 9: recall x is the c-th relevant, c = floor(x R + 0.9) (trec_eval 10: round(x R))
NAMES9 = {**{f"IPrec(recall={x!r},rounding=trec_eval9)": f"iprec_at_recall_{x:.2f}" for x in ELEVEN_POINTS},
          **{f"Rprec_mult(mult={x!r})": f"Rprec_mult_{x:.2f}" for x in MULTS},
          **{f"RelP@{k}": f"relative_P_{k}" for k in RELATIVE_CUTS},
          "IPrec_11pt(rounding=trec_eval9)": "11pt_avg"}
NAMES = {name.replace(",rounding=trec_eval9", "").replace("(rounding=trec_eval9)", ""): trec_name
         for name, trec_name in NAMES9.items()}


def _names(text):
    return str(parse_measure(text))  # the canonical name: parameters at their defaults left out


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("level", [1, 2])
def test_equal_to_pytrec_eval_on_random_cases(seed, level):
    qrels, run = random_case(seed, grades=3)
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall", "Rprec_mult", "relative_P", "11pt_avg"},
                                               relevance_level=level).evaluate(run)
    rel = "" if level == 1 else f"rel={level}"
    names = {}
    for name, trec_name in NAMES9.items():
        if rel:
            name = name.replace(")", f",{rel})") if "(" in name else name.replace("@", f"({rel})@") \
                if "@" in name else f"{name}({rel})"
        names[_names(name)] = trec_name
    ours = pateval_values(qrels, run, list(names))
    for name, trec_name in names.items():
        assert max_difference(ours[name], {t: v[trec_name] for t, v in reference.items()}) <= 1e-9, name


@pytest.mark.parametrize("seed", SEEDS[:20])
@pytest.mark.parametrize("recall", [0.15, 0.25, 0.33, 0.5, 0.05])
def test_other_recall_levels_equal_pytrec_eval(seed, recall):
    qrels, run = random_case(seed)
    reference = pytrec_eval.RelevanceEvaluator(qrels, {f"iprec_at_recall.{recall}", f"Rprec_mult.{recall}"}
                                               ).evaluate(run)
    iprec = f"IPrec(recall={recall},rounding=trec_eval9)"
    ours = pateval_values(qrels, run, [iprec, f"Rprec_mult(mult={recall})"])
    assert max_difference(ours[iprec],
                          {t: v[f"iprec_at_recall_{recall:.2f}"] for t, v in reference.items()}) <= 1e-9
    assert max_difference(ours[f"Rprec_mult(mult={recall})"],
                          {t: v[f"Rprec_mult_{recall:.2f}"] for t, v in reference.items()}) <= 1e-9


def test_by_hand():
    # relevant at ranks 2 and 5 of 6, R = 4: precisions 1/2, 2/5
    qrels = {"q": {"a": 0, "b": 1, "e": 2, "x": 1, "y": 1}}
    run = {"q": {d: 10.0 - i for i, d in enumerate("abcdef")}}
    values = pateval_values(qrels, run, ["IPrec", "IPrec(recall=0.5)", "IPrec(recall=0.6)", "IPrec_11pt",
                                         "Rprec_mult(mult=0.5)", "Rprec_mult(mult=2.0)", "RelP@3", "RelP@10"])
    # recall 0.5 is the 2nd relevant (2/5); 0.6 rounds to the 2nd (round(2.4) = 2); levels from 0.7 up
    # need 3 or 4 relevant retrieved: 0
    expected = {"IPrec": 0.5, "IPrec(recall=0.5)": 0.4, "IPrec(recall=0.6)": 0.4,
                # levels 0, .1 (c=0), .2, .3 (c=1): 1/2; .4, .5, .6 (c=2): 2/5; the rest 0
                "IPrec_11pt": (4 * 0.5 + 3 * 0.4) / 11,
                "Rprec_mult(mult=0.5)": 1 / 2,  # c = floor(2.9) = 2: one relevant in the top 2
                "Rprec_mult(mult=2.0)": 2 / 8,  # c = 8 > 6 retrieved: 2 relevant / 8
                "RelP@3": 1 / 3, "RelP@10": 2 / 4}
    for name, value in expected.items():
        assert_close(values[name]["q"], value, what=name)


@pytest.mark.parametrize("text, canonical", [
    ("iprec_at_recall", "IPrec"), ("IPrec(recall=0.3)", "IPrec(recall=0.3)"), ("relative_P_10", "RelP@10"),
    ("relative_P.5", "RelP@5"), ("Rprec_mult(mult=0.2)", "Rprec_mult(mult=0.2)"), ("IPrec_11pt", "IPrec_11pt"),
])
def test_names_parse_back(text, canonical):
    measure = parse_measure(text)
    assert str(measure) == canonical
    assert parse_measure(str(measure)) == measure


@pytest.mark.skipif(trec_eval_binary() is None, reason="no trec_eval binary (set TREC_EVAL)")
@pytest.mark.parametrize("seed", SEEDS[:30])
def test_equal_to_the_trec_eval_binary(seed, tmp_path):
    qrels, run = random_case(seed)
    reference = run_trec_eval(trec_eval_binary(), qrels, run, tmp_path,
                              ["-m", "iprec_at_recall", "-m", "Rprec_mult", "-m", "relative_P", "-m", "11pt_avg"])
    names = {_names(n): t for n, t in NAMES.items()}
    ours = pateval_values(qrels, run, list(names))
    assert_as_trec_eval(ours, reference, names)


def test_iprec_at_recall_as_a_list_is_the_11_levels_in_recall_order(test_data, capsys):
    """trec_eval's ``-m iprec_at_recall`` is its 11 levels; so is pateval's, and evaluate prints them
    in recall order with trec_eval's names and values (tests/data/trec_eval_q: trec_eval 10's output)."""
    from pateval.api import example_files
    from pateval.cli import main
    from pateval.measures import parse_measures

    assert parse_measures(["iprec_at_recall"]) == [parse_measure(f"IPrec(recall={x})") for x in ELEVEN_POINTS]
    assert parse_measure("iprec_at_recall") == parse_measure("IPrec")  # one name alone is one measure
    qrels, runs = example_files()
    assert main(["evaluate", "--names", "trec", "-m", "iprec_at_recall", str(qrels), str(runs[0])]) == 0
    printed = capsys.readouterr().out.splitlines()
    expected = [line for line in (test_data / "trec_eval_q" / "run1.eval").read_text().splitlines()
                if line.startswith("iprec_at_recall") and line.split()[1] == "all"]
    assert len(expected) == 11
    assert printed == expected
