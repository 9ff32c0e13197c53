"""Simulated TBG users: seeded, converging to the exact expectation, equal to TBG when times are certain."""

from __future__ import annotations

import numpy as np
import pytest

import pateval.api as api
from pateval.errors import ParameterError
from pateval.usermodel.simulation import closed_form_gain, expected_gain, simulate_users
from pateval.usermodel.time import TimeModel

RELEVANT = [True, False, True, True, False, True, False, True]
LENGTHS = [500, 1000, 200, 1500, 80, 0, 300, 700]
PTR = [0, 3, 8]
DUPLICATE = [False, False, False, False, False, True, False, False]


def _loop_expectation(relevant, lengths, model):
    """E[sum_k g_k D(T_k)] by enumerating every click pattern (tiny rankings only)."""
    n = len(relevant)
    total = 0.0
    for pattern in range(2 ** n):
        clicks = [(pattern >> i) & 1 for i in range(n)]
        probability, elapsed, value = 1.0, 0.0, 0.0
        for i in range(n):
            p = model.p_click_rel if relevant[i] else model.p_click_nonrel
            probability *= p if clicks[i] else 1 - p
            if relevant[i] and clicks[i]:
                value += model.p_save_rel * 0.5 ** (elapsed / model.halflife)
            elapsed += model.summary_time + (model.reading_time(lengths[i]) if clicks[i] else 0.0)
        total += probability * value
    return total


def test_exact_expectation_by_enumeration():
    model = TimeModel()
    got = expected_gain(RELEVANT[:5], LENGTHS[:5], model=model)[0]
    assert got == pytest.approx(_loop_expectation(RELEVANT[:5], LENGTHS[:5], model), rel=1e-12)


def test_closed_form_is_tbg_and_below_the_expectation():
    closed = closed_form_gain([True, False, True], [500, 1000, 200])
    assert closed[0] == pytest.approx(0.942448, abs=5e-7)
    exact = expected_gain(RELEVANT, LENGTHS, ptr=PTR, duplicate=DUPLICATE)
    assert np.all(closed_form_gain(RELEVANT, LENGTHS, ptr=PTR, duplicate=DUPLICATE) <= exact + 1e-15)


def test_mean_converges_to_the_exact_expectation():
    result = simulate_users(RELEVANT, LENGTHS, ptr=PTR, duplicate=DUPLICATE, n_users=40_000, seed=11)
    standard_error = result.std / np.sqrt(result.n_users)
    assert np.all(np.abs(result.mean - result.expected) <= 4 * standard_error)
    assert np.all(result.ci_low < result.mean) and np.all(result.mean < result.ci_high)
    assert np.all(result.std > 0)


def test_equals_the_closed_form_when_times_are_certain():
    model = TimeModel(p_click_rel=1.0, p_click_nonrel=0.0)
    result = simulate_users(RELEVANT, LENGTHS, model=model, ptr=PTR, n_users=40_000, seed=3)
    np.testing.assert_allclose(result.expected, result.closed_form, rtol=1e-13)
    assert np.all(np.abs(result.mean - result.closed_form) <= 4 * result.std / np.sqrt(result.n_users))


def test_seeded_and_reproducible():
    first = simulate_users(RELEVANT, LENGTHS, ptr=PTR, n_users=500, seed=5)
    again = simulate_users(RELEVANT, LENGTHS, ptr=PTR, n_users=500, seed=5)
    other = simulate_users(RELEVANT, LENGTHS, ptr=PTR, n_users=500, seed=6)
    np.testing.assert_array_equal(first.mean, again.mean)
    np.testing.assert_array_equal(first.std, again.std)
    assert not np.array_equal(first.mean, other.mean)


def test_duplicates_without_gain_earn_nothing():
    earns = np.array(RELEVANT) & ~np.array(DUPLICATE)
    with_gain = expected_gain(RELEVANT, LENGTHS, ptr=PTR, duplicate=DUPLICATE)
    without = expected_gain(RELEVANT, LENGTHS, ptr=PTR, duplicate=DUPLICATE, earns=earns)
    assert without[0] == with_gain[0] and without[1] < with_gain[1]
    with pytest.raises(ParameterError, match="only relevant"):
        expected_gain(RELEVANT, LENGTHS, earns=[True] * len(RELEVANT))


def test_topic_without_documents():
    result = simulate_users([True], [10], ptr=[0, 0, 1], n_users=100, seed=0)
    assert result.mean[0] == 0.0 and result.std[0] == 0.0 and result.expected[0] == 0.0


def test_validation():
    with pytest.raises(ParameterError, match="n_users"):
        simulate_users([True], [1], n_users=1)
    with pytest.raises(ParameterError, match="confidence"):
        simulate_users([True], [1], confidence=1.0)


def test_api_tables():
    qrels = {"q": {"d1": 1, "d3": 1}, "r": {"d1": 1}}
    run = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "r": {"d2": 1.0, "d1": 0.5}}
    lengths = {"d1": 500, "d2": 1000, "d3": 200}
    table = api.simulate_users(qrels, run, doc_lengths=lengths, n_users=20_000, seed=2).set_index("topic")
    tbg = api.evaluate(qrels, run, "TBG", resources={"doc_lengths": lengths}).set_index("topic")["value"]
    np.testing.assert_allclose(table["tbg"], tbg[table.index], rtol=1e-13)
    assert np.all(table["tbg"] <= table["expected"])
    assert np.all((table["ci_low"] <= table["expected"]) | (np.abs(table["mean"] - table["expected"])
                                                             <= 4 * table["std"] / np.sqrt(20_000)))
    ideal = api.simulate_users(qrels, run, model="TBG(norm=ideal,halflife=600)", doc_lengths=lengths, n_users=100)
    ideal_tbg = api.evaluate(qrels, run, "TBG(norm=ideal,halflife=600)", resources={"doc_lengths": lengths})
    np.testing.assert_allclose(ideal.set_index("topic")["tbg"], ideal_tbg.set_index("topic")["value"], rtol=1e-13)
    with pytest.raises(ParameterError, match="TBG measure name"):
        api.simulate_users(qrels, run, model="AP", doc_lengths=lengths)
    frame = api.time_to_rank(qrels, run, model="TBG(halflife=600)", doc_lengths=lengths)
    assert list(frame.columns[:4]) == ["run", "topic", "rank", "docno"]
    last = frame.groupby("topic")["cumulative_gain"].last()
    halflife_600 = api.evaluate(qrels, run, "TBG(halflife=600)",
                                resources={"doc_lengths": lengths}).set_index("topic")["value"]
    np.testing.assert_allclose(last, halflife_600[last.index], rtol=1e-13)
