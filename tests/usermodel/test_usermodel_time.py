"""The time model T(k): the spec's example, several rankings at once, duplicates, validation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pateval.errors import ParameterError
from pateval.usermodel.time import (
    TimeModel,
    document_lengths,
    duplicates_of_earlier,
    expected_time,
    segment_exclusive_cumsum,
    step_times,
    time_to_rank,
)


def test_spec_example():
    times = time_to_rank([True, False, True], [500, 1000, 200])
    assert times.tolist() == pytest.approx([0.0, 15.152, 29.614], abs=1e-12)
    assert expected_time([True, False, True], [500, 1000, 200])[0] == pytest.approx(
        29.614 + 4.4 + (0.018 * 200 + 7.8) * 0.64, abs=1e-12)


def test_several_rankings_restart_at_zero():
    relevant = [True, False, True, False, True]
    lengths = [500, 1000, 200, 50, 70]
    times = time_to_rank(relevant, lengths, ptr=[0, 3, 3, 5])
    assert times[:3].tolist() == pytest.approx([0.0, 15.152, 29.614])
    assert times[3] == 0.0
    assert times[4] == pytest.approx(4.4 + (0.018 * 50 + 7.8) * 0.39)
    assert expected_time(relevant, lengths, ptr=[0, 3, 3, 5])[1] == 0.0


def test_duplicates_read_as_length_zero():
    times = time_to_rank([True, True, False], [500, 500, 10], duplicate=[False, True, False])
    assert times[2] - times[1] == pytest.approx(4.4 + 7.8 * 0.64)


def test_custom_calibration():
    model = TimeModel(summary_time=1.0, read_slope=0.1, read_intercept=2.0, p_click_rel=1.0, p_click_nonrel=0.5)
    assert time_to_rank([True, False, True], [10, 20, 30], model=model).tolist() == pytest.approx([0.0, 4.0, 7.0])
    assert model.decay(model.halflife) == pytest.approx(0.5)
    assert model.decay_rate == pytest.approx(math.log(2) / 224)


def test_step_times_and_segment_sums_agree_with_a_loop():
    rng = np.random.default_rng(4)
    relevant = rng.random(200) < 0.3
    lengths = rng.integers(0, 5000, 200)
    ptr = np.r_[0, np.sort(rng.choice(np.arange(1, 200), 9, replace=False)), 200]
    steps = step_times(relevant, lengths)
    times = segment_exclusive_cumsum(steps, ptr)
    for start, stop in zip(ptr[:-1], ptr[1:], strict=False):
        elapsed = 0.0
        for i in range(start, stop):
            assert times[i] == pytest.approx(elapsed, abs=1e-9)
            elapsed += steps[i]


def test_duplicates_of_earlier():
    groups = np.array([1, 2, 1, 3, 1, 2], dtype=object)
    assert duplicates_of_earlier(groups, np.array([0, 3, 6])).tolist() == [False, False, True, False, False, False]
    assert duplicates_of_earlier(np.array([], dtype=object), np.array([0])).tolist() == []


def test_validation():
    with pytest.raises(ParameterError, match="p_click_rel"):
        TimeModel(p_click_rel=1.2)
    with pytest.raises(ParameterError, match="halflife"):
        TimeModel(halflife=0.0)
    with pytest.raises(ParameterError, match="one entry per rank"):
        time_to_rank([True], [1, 2])
    with pytest.raises(ParameterError, match="lengths"):
        time_to_rank([True], [-1])
    with pytest.raises(ParameterError, match="ptr"):
        time_to_rank([True, False], [1, 2], ptr=[0, 1])


def test_document_lengths_from_texts():
    assert document_lengths({"a": "one two  three\nfour", "b": ""}) == {"a": 4, "b": 0}
    assert document_lengths([("c", "x y")]) == {"c": 2}
