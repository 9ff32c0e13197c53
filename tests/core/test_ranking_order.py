"""Ranking order: the fast paths (file already in order, ties fixed in place) against a sort."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pateval.core.qrels import Qrels
from pateval.core.ranking import JudgementIndex, evaluation_order, rank_run
from pateval.core.run import Run


def _sorted_order(topics, docs, scores):
    # trec_eval: topic id, then score descending, then docno descending (two stable sorts)
    by_docno = sorted(range(len(topics)), key=lambda i: docs[i], reverse=True)
    return sorted(by_docno, key=lambda i: (topics[i], -scores[i]))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "q10"]), st.integers(0, 30), st.sampled_from([1.0, 2.0, 2.5,
                                                                                                     3.0])),
                min_size=1, max_size=60, unique_by=lambda r: (r[0], r[1])),
       st.booleans())
def test_order_matches_a_sort_whether_or_not_the_file_is_in_order(rows, file_in_score_order):
    if file_in_score_order:  # as engines write: topics contiguous, scores falling, ties in any order
        rows = sorted(rows, key=lambda r: (r[0], -r[2]))
    topics = [r[0] for r in rows]
    docs = [f"d{r[1]}" for r in rows]
    scores = [r[2] for r in rows]
    run = Run.from_records(zip(topics, docs, scores, strict=False))
    assert evaluation_order(run).tolist() == _sorted_order(topics, docs, scores)
    qrels = Qrels.from_records([(t, d, 1 + (i % 3)) for i, (t, d) in enumerate(zip(topics, docs,
                                                                                   strict=False)) if i % 2 == 0])
    ranked = rank_run(run, JudgementIndex.build(qrels, qrels.topic_ids))
    expected = _sorted_order(topics, docs, scores)
    kept = [i for i in expected if topics[i] in set(qrels.topic_ids)]
    assert list(ranked.docno) == [docs[i] for i in kept]
    judged = {(t, d): g for t, d, g in zip(qrels.topic, qrels.docno, qrels.rel, strict=False)}
    assert ranked.grade.tolist() == [judged.get((topics[i], docs[i]), 0) for i in kept]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "q10"]), st.integers(0, 30),
                          st.one_of(st.integers(-3, 5), st.sampled_from([-(2**62), 2**62]))),
                min_size=1, max_size=60, unique_by=lambda r: (r[0], r[1])),
       st.booleans())
def test_rank_and_file_orders_match_a_sort(rows, in_order):
    if in_order:
        rows = sorted(rows, key=lambda r: (r[0], r[2]))
    run = Run.from_records([(t, f"d{d}", rank, 1.0) for t, d, rank in rows], fields=("topic", "docno", "rank", "score"))
    by_rank = sorted(range(len(rows)), key=lambda i: (rows[i][0], rows[i][2], i))  # topic, rank, then line
    by_file = sorted(range(len(rows)), key=lambda i: (rows[i][0], i))
    assert evaluation_order(run, order="rank").tolist() == by_rank
    assert evaluation_order(run, order="file").tolist() == by_file
