"""alpha-DCG, NRBP, nNRBP (measures/novelty.py), and ir_measures' AP_IA and StRecall spellings,
equal ndeval's through ir_measures' pyndeval provider, to 1e-9 per topic on random cases."""

from __future__ import annotations

import numpy as np
import pytest

import pateval.api as api
from pateval.core.qrels import Qrels
from pateval.core.run import Run
from pateval.measures import parse_measure

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("pyndeval")


def _case(seed: int):
    rng = np.random.default_rng(seed)
    qrels, run = [], {}
    for t in range(int(rng.integers(1, 5))):
        topic = f"{t + 1}"
        pool = [f"d{i}" for i in rng.choice(40, size=int(rng.integers(2, 14)), replace=False)]
        subtopics = [f"s{j}" for j in range(int(rng.integers(1, 6)))]
        for d in pool:
            for s in rng.choice(subtopics, size=int(rng.integers(1, len(subtopics) + 1)), replace=False):
                qrels.append((topic, str(s), d, int(rng.choice([0, 1, 1, 2, 3]))))
        candidates = pool + [f"u{i}" for i in range(int(rng.integers(0, 6)))]  # u: never judged
        retrieved = rng.choice(candidates, size=int(rng.integers(1, len(candidates) + 1)), replace=False)
        scores = rng.permutation(len(retrieved)) + 1.0  # distinct: pyndeval breaks ties by docno ascending
        run[topic] = {str(d): float(s) for d, s in zip(retrieved, scores, strict=True)}
    return qrels, run


def _ours(qrels, run, measures):
    frame = api.evaluate(Qrels.from_records(qrels, fields=("topic", "subtopic", "docno", "rel")),
                         Run.from_records([(t, d, s) for t, docs in run.items() for d, s in docs.items()], name="r"),
                         measures)
    out: dict[str, dict[str, float]] = {}
    for row in frame.itertuples():
        out.setdefault(row.measure, {})[row.topic] = row.value
    return out


def _theirs(qrels, run, measures):
    # subtopics in string order (the order pateval sums a document's gains in, as ndeval does over its list)
    generic = [ir_measures.Qrel(q, d, r, s) for q, s, d, r in sorted(qrels, key=lambda row: row[1])]
    out: dict[str, dict[str, float]] = {}
    # one measure a call: ir_measures hands one run iterator to each of its pyndeval invocations (one per
    # alpha, beta, rel), so that the second and later ones see an empty run and give 0
    for measure in measures:
        for metric in ir_measures.pyndeval.iter_calc([ir_measures.parse_measure(measure)], generic, run):
            out.setdefault(str(metric.measure), {})[metric.query_id] = float(metric.value)
    return out


MEASURES = ["alpha_DCG@5", "alpha_DCG@10", "alpha_DCG@20", "alpha_DCG(alpha=0.25)@10", "NRBP", "nNRBP",
            "NRBP(alpha=0.25,beta=0.8)", "nNRBP(beta=0.8)", "AP_IA", "StRecall@5", "StRecall@20",
            "alpha_DCG(rel=2)@10", "NRBP(rel=2)", "nNRBP(rel=2)"]


@pytest.mark.parametrize("seed", range(60))
def test_equal_to_ndeval_through_ir_measures(seed):
    qrels, run = _case(seed)
    theirs = _theirs(qrels, run, MEASURES)
    ours = _ours(qrels, run, [str(parse_measure(m)) for m in MEASURES])
    for name in MEASURES:
        mine = ours[str(parse_measure(name))]
        for topic, value in theirs[str(ir_measures.parse_measure(name))].items():
            if np.isnan(value):  # ndeval's nNRBP of a topic without a relevant document: 0/0
                assert mine[topic] == 0.0, (name, topic)
                continue
            assert abs(mine[topic] - value) <= 1e-9, (name, topic, mine[topic], value)


def test_alpha_dcg_at_1_as_ndeval_prints_it():
    qrels = [("1", "s1", "A", 1), ("1", "s2", "A", 1), ("1", "s3", "C", 1)]
    run = {"1": {"A": 2.0, "E": 1.0}}
    ours = _ours(qrels, run, ["alpha_DCG@1", "alpha_DCG(compat=ndeval)@1"])
    assert ours["alpha_DCG@1"]["1"] == pytest.approx(2 / 3)  # 2 of 3 intents at rank 1, over 3 / log2(2)
    assert ours["alpha_DCG(compat=ndeval)@1"]["1"] == 2.0
    theirs = _theirs(qrels, run, ["alpha_DCG@1"])
    assert theirs["alpha_DCG@1"]["1"] == 2.0


@pytest.mark.parametrize("text, canonical", [
    ("AP_IA", "MAP_IA"), ("StRecall@10", "I_rec@10"), ("alpha-DCG@10", "alpha_DCG@10"),
    ("NRBP(alpha=0.5,beta=0.5)", "NRBP"), ("nNRBP(beta=0.9)", "nNRBP(beta=0.9)"),
])
def test_ir_measures_spellings_parse(text, canonical):
    measure = parse_measure(text)
    assert str(measure) == canonical
    assert parse_measure(str(measure)) == measure
