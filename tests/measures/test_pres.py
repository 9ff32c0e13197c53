"""PRES and Rnorm: the PRES paper's worked examples, hand cases, properties, a plain-loop cross-check."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pateval.api as api
from pateval.errors import MeasureNameError, ParameterError
from pateval.measures import parse_measure
from pateval.measures.pres import pres_from_ranks

# (ranks of the relevant documents found, n, Nmax) -> PRES, from the project spec's PRES test values
SPEC_VALUES = [
    ([1], 4, 100, 0.25),
    ([50, 51, 53, 54], 4, 100, 0.505),
    ([1, 2, 3, 4], 4, 100, 1.0),
    ([1, 98, 99, 100], 4, 100, 0.28),
    ([32, 35, 46], 3, 1000, 0.9643),
    ([32, 35, 46], 3, 100, 0.6433),
    ([1, 33, 354, 548, 733, 840, 841], 7, 1000, 0.5254),
    ([98, 296], 41, 1000, 0.0392),
]
# the rest of the paper's Table 3 (Nmax = 1000, printed to 3 decimals)
PAPER_TABLE3 = [
    ([23, 272, 345], 6, 0.394),
    ([2, 517, 761], 6, 0.288),
    ([660, 741], 3, 0.201),
    ([41, 54], 3, 0.636),
    ([1, 781], 3, 0.407),
]


def _case(ranks, n, *, depth=None, topic="t1"):
    """Qrels with n relevant documents and a run finding relevant ones at ``ranks`` (others non-relevant)."""
    depth = depth or max(list(ranks) + [1])
    relevant = [f"rel{i}" for i in range(n)]
    qrels = {topic: {d: 1 for d in relevant}}
    run, found = {}, iter(relevant)
    for rank in range(1, depth + 1):
        docno = next(found) if rank in ranks else f"non{rank}"
        run[docno] = float(depth - rank)  # scores fall with rank
    return qrels, {topic: run}


def _value(qrels, run, name, **options):
    frame = api.evaluate(qrels, run, [name], **options)
    return frame.set_index("topic")["value"]


@pytest.mark.parametrize("ranks, n, nmax, expected", SPEC_VALUES)
def test_spec_values_from_ranks(ranks, n, nmax, expected):
    assert pres_from_ranks(ranks, n, nmax) == pytest.approx(expected, abs=5e-5)


@pytest.mark.parametrize("ranks, n, nmax, expected", SPEC_VALUES)
def test_spec_values_through_evaluate(ranks, n, nmax, expected):
    qrels, run = _case(ranks, n)
    assert _value(qrels, run, f"PRES@{nmax}")["t1"] == pytest.approx(expected, abs=5e-5)


@pytest.mark.parametrize("ranks, n, expected", PAPER_TABLE3)
def test_paper_table3(ranks, n, expected):
    qrels, run = _case(ranks, n)
    assert _value(qrels, run, "PRES@1000")["t1"] == pytest.approx(expected, abs=5e-4)


def test_exact_value_by_hand():
    # ranks {98, 296}, n = 41, Nmax = 1000: missing ones at 1003..1041
    rank_sum = 98 + 296 + sum(1000 + i for i in range(3, 42))
    expected = 1 - (rank_sum / 41 - 42 / 2) / 1000
    assert pres_from_ranks([98, 296], 41, 1000) == pytest.approx(expected, rel=1e-15)


def test_default_nmax_is_100():
    qrels, run = _case([3, 70, 150], 5, depth=200)
    values = api.evaluate(qrels, run, ["PRES", "PRES@100"])
    assert values["value"].iloc[0] == values["value"].iloc[1]
    assert str(parse_measure("PRES")) == "PRES"


def test_ranks_beyond_nmax_count_as_missing():
    qrels, run = _case([5, 150], 2, depth=200)
    assert _value(qrels, run, "PRES@100")["t1"] == pytest.approx(pres_from_ranks([5], 2, 100))


def test_no_relevant_document_scores_zero_and_counts():
    qrels = {"a": {"d1": 1}, "b": {"d2": 0}}
    run = {"a": {"d1": 1.0}, "b": {"d2": 1.0, "d3": 0.5}}
    result = api.evaluation(qrels, run, ["PRES", "R"])
    per_topic = result.frame.pivot(index="topic", columns="measure", values="value")
    assert per_topic.loc["b", "PRES"] == 0.0 and per_topic.loc["b", "R"] == 0.0
    summary = result.summary().set_index("measure")
    assert summary.loc["PRES", "value"] == 0.5 and summary.loc["PRES", "topics"] == 2


def test_rel_level_for_graded_qrels():
    qrels = {"t": {"a": 2, "b": 1, "c": 2}}
    run = {"t": {"b": 3.0, "a": 2.0, "x": 1.0}}
    # rel=1: n=3, found {1,2}, missing at 10+3; rel=2: n=2, found {2}, missing at 10+2
    assert _value(qrels, run, "PRES@10")["t"] == pytest.approx(pres_from_ranks([1, 2], 3, 10))
    assert _value(qrels, run, "PRES(rel=2)@10")["t"] == pytest.approx(pres_from_ranks([2], 2, 10))


def test_unjudged_and_nonpool_documents_are_not_relevant():
    qrels = {"t": {"a": 1, "u": -1}}
    run = {"t": {"u": 3.0, "z": 2.0, "a": 1.0}}
    assert _value(qrels, run, "PRES@10")["t"] == pytest.approx(pres_from_ranks([3], 1, 10))


def test_names_round_trip_and_parameters():
    for name in ("PRES@1000", "PRES(rel=2)@10", "Rnorm(collection=5000)@100", "Rnorm(collection=10,rel=3)"):
        measure = parse_measure(name)
        assert parse_measure(str(measure)) == measure
    assert parse_measure("Rnorm(rel=3,collection=10)")["collection"] == 10
    with pytest.raises(MeasureNameError):
        parse_measure("PRES(nmax=100)")
    with pytest.raises(MeasureNameError):
        parse_measure("PRES@0")
    listed = api.list_measures().set_index("name")["parameters"].map(lambda p: p if isinstance(p, str) else " ".join(p))
    assert "rel (int" in listed["PRES"] and "collection (int" in listed["Rnorm"]


def test_rnorm_by_hand():
    # N = 20, n = 3, found at ranks 2 and 5, one missing -> rank 20
    qrels, run = _case([2, 5], 3)
    expected = 1 - ((2 + 5 + 20) - 6) / (3 * (20 - 3))
    assert _value(qrels, run, "Rnorm(collection=20)")["t1"] == pytest.approx(expected, rel=1e-14)


def test_pres_is_rnorm_over_nmax_plus_n():
    qrels, run = _case([1, 7, 30, 45], 6, depth=60)
    for nmax in (10, 50, 100):
        assert _value(qrels, run, f"PRES@{nmax}")["t1"] == pytest.approx(
            _value(qrels, run, f"Rnorm(collection={nmax + 6})@{nmax}")["t1"], rel=1e-13)


def test_rnorm_needs_a_consistent_collection_size():
    qrels, run = _case([2, 5], 3, depth=10)
    with pytest.raises(ParameterError, match="collection size"):
        api.evaluate(qrels, run, "Rnorm")
    with pytest.raises(ParameterError, match="'t1'.*collection size N = 10"):
        api.evaluate(qrels, run, "Rnorm(collection=10)")  # 10 ranked + 1 missing > 10
    assert _value(qrels, run, "Rnorm(collection=11)")["t1"] <= 1


def test_rnorm_when_every_document_is_relevant():
    qrels = {"t": {"a": 1, "b": 1}}
    run = {"t": {"b": 2.0, "a": 1.0}}
    assert _value(qrels, run, "Rnorm(collection=2)")["t"] == 1.0


def _reference_pres(ranking: list[str], relevant: set[str], nmax: int) -> float:
    """The paper's definition, one document at a time."""
    n = len(relevant)
    if n == 0:
        return 0.0
    ranks = []
    for rank, docno in enumerate(ranking[:nmax], start=1):
        if docno in relevant:
            ranks.append(rank)
    found = len(ranks)
    for i in range(found + 1, n + 1):
        ranks.append(nmax + i)
    return 1 - (sum(ranks) / n - (n + 1) / 2) / nmax


@st.composite
def _topics(draw):
    n_topics = draw(st.integers(1, 4))
    qrels, run, rankings = {}, {}, {}
    for t in range(n_topics):
        pool = [f"d{i}" for i in range(draw(st.integers(1, 30)))]
        grades = draw(st.lists(st.integers(0, 2), min_size=len(pool), max_size=len(pool)))
        qrels[f"t{t}"] = dict(zip(pool, grades, strict=False))
        ranking = draw(st.permutations(pool + [f"x{i}" for i in range(draw(st.integers(0, 10)))]))
        ranking = ranking[: draw(st.integers(1, len(ranking)))]
        rankings[f"t{t}"] = ranking
        run[f"t{t}"] = {d: float(len(ranking) - i) for i, d in enumerate(ranking)}
    return qrels, run, rankings


@settings(max_examples=40, deadline=None)
@given(case=_topics(), nmax=st.integers(1, 40), level=st.integers(1, 2))
def test_matches_the_plain_loop_and_bounds(case, nmax, level):
    qrels, run, rankings = case
    name = f"PRES(rel={level})@{nmax}" if level > 1 else f"PRES@{nmax}"
    recall_name = f"R(rel={level})@{nmax}" if level > 1 else f"R@{nmax}"
    frame = api.evaluate(qrels, run, [name, recall_name]).pivot(index="topic", columns="measure", values="value")
    for topic, ranking in rankings.items():
        relevant = {d for d, g in qrels[topic].items() if g >= level}
        value = frame.loc[topic, name]
        assert value == pytest.approx(_reference_pres(ranking, relevant, nmax), abs=1e-12)
        recall = frame.loc[topic, recall_name]
        n = len(relevant)
        assert -1e-12 <= value <= recall + 1e-12
        if n:
            assert value >= n * recall ** 2 / nmax - 1e-12  # the paper's worst case for this recall


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 60), nmax=st.integers(1, 80), extra=st.integers(0, 20))
def test_perfect_ranking_scores_the_recall(n, nmax, extra):
    qrels = {"t": {f"r{i}": 1 for i in range(n)}}
    ranking = [f"r{i}" for i in range(n)] + [f"x{i}" for i in range(extra)]
    run = {"t": {d: float(len(ranking) - i) for i, d in enumerate(ranking)}}
    frame = api.evaluate(qrels, run, [f"PRES@{nmax}", f"R@{nmax}"]).set_index("measure")["value"]
    assert frame[f"PRES@{nmax}"] == pytest.approx(frame[f"R@{nmax}"], abs=1e-12)
    assert frame[f"R@{nmax}"] == pytest.approx(min(n, nmax) / n)


@settings(max_examples=30, deadline=None)
@given(case=_topics(), extra=st.integers(0, 50))
def test_rnorm_bounded(case, extra):
    qrels, run, rankings = case
    size = max(len(set(r) | set(qrels[t])) for t, r in rankings.items()) + extra
    values = api.evaluate(qrels, run, f"Rnorm(collection={size})")["value"].to_numpy()
    assert np.all(values >= -1e-12) and np.all(values <= 1 + 1e-12)
