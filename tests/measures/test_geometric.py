"""GMAP and GM_Bpref (measures/geometric.py) equal trec_eval's gm_map and gm_bpref: per topic
(pytrec_eval prints log(max(v, 0.00001))) and over topics (the geometric mean), to 1e-9."""

from __future__ import annotations

import math

import pytest
import pytrec_eval
from trec_cases import assert_close, pateval_summary, pateval_values, random_case

from pateval.measures import parse_measure


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("level", [1, 2])
def test_equal_to_pytrec_eval_on_random_cases(seed, level):
    qrels, run = random_case(seed)
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"gm_map", "gm_bpref"}, relevance_level=level).evaluate(run)
    names = {"GMAP": "gm_map", "GM_Bpref": "gm_bpref"}
    if level > 1:
        names = {f"{n}(rel={level})": t for n, t in names.items()}
    ours = pateval_values(qrels, run, list(names))
    summary = pateval_summary(qrels, run, list(names))
    for name, trec_name in names.items():
        for topic, value in ours[name].items():
            assert_close(math.log(max(value, 0.00001)), reference[topic][trec_name], what=(name, topic))
        overall = pytrec_eval.compute_aggregated_measure(trec_name, [v[trec_name] for v in reference.values()])
        assert_close(summary[name], overall, what=name)


def test_by_hand():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    run = {"q1": {"a": 1.0}, "q2": {"x": 2.0, "b": 1.0}, "q3": {"x": 1.0}}
    values = pateval_values(qrels, run, ["GMAP"])["GMAP"]
    assert values == {"q1": 1.0, "q2": 0.5, "q3": 0.0}  # a topic's value is its AP
    # the mean: exp((log 1 + log 0.5 + log 0.00001) / 3)
    assert_close(pateval_summary(qrels, run, ["GMAP"])["GMAP"], (0.5 * 0.00001) ** (1 / 3))


def test_names():
    assert str(parse_measure("gm_map")) == "GMAP"
    assert str(parse_measure("gm_bpref")) == "GM_Bpref"
    assert str(parse_measure("GMAP(rel=2)")) == "GMAP(rel=2)"


def test_a_topic_value_is_computed_once_for_both_means():
    # AP and GMAP (Bpref and GM_Bpref) share one kernel: one evaluation computes its topic
    # values once and hands both measures the same read-only array; other parameters do not share
    import numpy as np

    from pateval.core.qrels import Qrels
    from pateval.core.ranking import JudgementIndex, rank_run
    from pateval.core.run import Run
    from pateval.measures import EvaluationContext

    qrels = Qrels.from_records([("q1", "a", 1), ("q1", "b", 2), ("q2", "c", 1)])
    run = Run.from_records([("q1", "a", 2.0), ("q1", "x", 1.5), ("q1", "b", 1.0), ("q2", "c", 1.0)])
    ranked = rank_run(run, JudgementIndex.build(qrels, np.array(["q1", "q2"], dtype=object)))
    context = EvaluationContext()
    for mean, geometric in (("AP", "GMAP"), ("Bpref", "GM_Bpref"), ("AP(rel=2)", "GMAP(rel=2)")):
        values = parse_measure(mean).compute(ranked, context)
        assert parse_measure(geometric).compute(ranked, context) is values
        assert not values.flags.writeable
    assert parse_measure("AP(rel=2)").compute(ranked, context) is not parse_measure("AP").compute(ranked, context)
    assert parse_measure("AP@1").compute(ranked, context).tolist() == [0.5, 1.0]
