"""infAP (measures/inference.py) equals trec_eval's (pytrec_eval, ir_measures' provider for
infAP) to 1e-9 per topic on random cases with pooled-but-unjudged documents, and by hand."""

from __future__ import annotations

import pytest
import pytrec_eval
from trec_cases import assert_close, max_difference, pateval_values, random_case

from pateval.measures import parse_measure


@pytest.mark.parametrize("seed", range(80))
@pytest.mark.parametrize("level", [1, 2])
def test_equal_to_pytrec_eval_on_random_cases(seed, level):
    qrels, run = random_case(seed, grades=3)
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"infAP"}, relevance_level=level).evaluate(run)
    name = "infAP" if level == 1 else f"infAP(rel={level})"
    ours = pateval_values(qrels, run, [name])[name]
    assert max_difference(ours, {t: v["infAP"] for t, v in reference.items()}) <= 1e-9


def test_by_hand():
    # ranking: a (rel), x (not pooled), u (pooled, unjudged), n (judged non-relevant), b (rel); R = 3
    qrels = {"q": {"a": 1, "u": -1, "n": 0, "b": 2, "c": 1}}
    run = {"q": {d: 5.0 - i for i, d in enumerate(["a", "x", "u", "n", "b"])}}
    eps = 0.00001
    # b at rank 5: r = 1, n = 1, u = 1 above; (r + n + u) / 4 pooled share, (r + eps) / (r + n + 2 eps) relevant share
    b = 1 / 5 + (4 / 5) * (3 / 4) * ((1 + eps) / (2 + 2 * eps))
    assert_close(pateval_values(qrels, run, ["infAP"])["infAP"]["q"], (1 + b) / 3)
    assert str(parse_measure("infAP(rel=2)")) == "infAP(rel=2)"
