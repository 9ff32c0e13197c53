"""JudgementIndex.restrict: a block's judgements taken from the index of every topic equal
those JudgementIndex.build makes for the block's topics (documents, patents, subtopics)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pateval.core.qrels import Qrels
from pateval.core.ranking import JudgementIndex
from pateval.formats.qrels import read_qrels


def _same(a: JudgementIndex, b: JudgementIndex) -> None:
    assert a.topic_ids.tolist() == b.topic_ids.tolist()
    assert a.topic_position.tolist() == b.topic_position.tolist()
    assert a.grade.tolist() == b.grade.tolist()
    assert a.doc_strings.to_pylist() == b.doc_strings.to_pylist()
    assert a.ptr.tolist() == b.ptr.tolist()
    assert a.line_entry.tolist() == b.line_entry.tolist()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), doc_key=st.sampled_from(["publication", "patent"]))
def test_restrict_is_build_on_the_subset(seed, doc_key):
    rng = random.Random(seed)
    records = {(f"q{rng.randint(0, 9)}", f"EP-{rng.randint(0, 5):07d}-{rng.choice('AB')}{rng.randint(1, 2)}"):
               rng.choice([-1, 0, 1, 2]) for _ in range(rng.randint(1, 60))}
    qrels = Qrels.from_records([(t, d, g) for (t, d), g in records.items()])
    topics = np.asarray(qrels.topic_ids, dtype=object)
    full = JudgementIndex.build(qrels, topics, doc_key=doc_key)
    subset = topics[np.asarray([rng.random() < 0.5 for _ in topics], dtype=bool)]
    _same(full.restrict(subset), JudgementIndex.build(qrels, subset, doc_key=doc_key))


def test_restrict_keeps_subtopic_lines_on_their_judgements(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("q1 1 d1 1\nq1 2 d1 1\nq2 1 d2 1\nq2 1 d3 0\nq3 4 d1 1\nq1 2 d4 1\n")
    qrels = read_qrels(path, format="subtopic")
    topics = np.asarray(qrels.topic_ids, dtype=object)
    full = JudgementIndex.build(qrels, topics)
    for subset in (topics[[0, 2]], topics[[1]], topics[:0]):
        _same(full.restrict(subset), JudgementIndex.build(qrels, subset))


def test_restrict_refuses_topics_out_of_the_index_or_order():
    qrels = Qrels.from_records([("q1", "d1", 1), ("q2", "d2", 1)])
    full = JudgementIndex.build(qrels, np.asarray(["q1", "q2"], dtype=object))
    with pytest.raises(ValueError, match="some of the index's topics, in its order"):
        full.restrict(np.asarray(["q2", "q1"], dtype=object))
    with pytest.raises(ValueError, match="some of the index's topics, in its order"):
        full.restrict(np.asarray(["q9"], dtype=object))
