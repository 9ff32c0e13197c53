"""RowsByRank: what a cutoff family reads once per ranking gives, for every cutoff, the
counts and sums a pass over the rows within the cutoff gives, to the last bit."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pateval.measures.relevance import RowsByRank


@st.composite
def ranked_rows(draw):
    n_topics = draw(st.integers(1, 6))
    topics, positions = [], []
    for topic in range(n_topics):
        ranks = draw(st.lists(st.integers(1, 40), max_size=12, unique=True))
        topics += [topic] * len(ranks)
        positions += sorted(ranks)
    weights = draw(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=len(topics), max_size=len(topics)))
    cutoff = draw(st.none() | st.integers(0, 60) | st.lists(st.integers(0, 60), min_size=n_topics,
                                                             max_size=n_topics).map(np.array))
    return (np.array(topics, dtype=np.int64), np.array(positions, dtype=np.int64), np.array(weights), n_topics,
            cutoff)


@settings(max_examples=300, deadline=None)
@given(ranked_rows())
def test_counts_and_sums_within_a_cutoff_are_those_of_the_rows_there(case):
    topic, position, weights, n_topics, cutoff = case
    rows = RowsByRank(topic, position, n_topics=n_topics)
    limit = np.full(n_topics, 10**9) if cutoff is None else np.broadcast_to(cutoff, (n_topics,))
    within = position <= limit[topic]
    assert rows.count(cutoff).tolist() == np.bincount(topic[within], minlength=n_topics).tolist()
    # the same additions in the same order as a sum row by row: equal to the last bit
    expected = np.bincount(topic[within], weights=weights[within], minlength=n_topics)
    assert rows.total(rows.running(weights), cutoff).tolist() == expected.tolist()


def test_a_ranking_without_rows_counts_nothing():
    rows = RowsByRank(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), n_topics=2)
    assert rows.count(10).tolist() == [0, 0]
    assert rows.total(rows.running(np.zeros(0)), None).tolist() == [0.0, 0.0]
