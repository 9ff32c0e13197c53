"""SubtopicView against a plain definition: dicts of (topic, subtopic, document) judgements."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pateval.core.docids import patent_key
from pateval.core.qrels import Qrels
from pateval.core.ranking import JudgementIndex, rank_run
from pateval.core.run import Run

TOPICS = ["q1", "q2", "q10"]
SUBTOPICS = ["1", "2", "10", "b", "a"]
DOCS = ["EP-0971326-A1", "EP-0971326-B1", "EP0971327", "d1", "d2", "d10", "D1"]


def _patent_key(docno):
    """Ids that are not patent numbers (d1, D1) are their own key, as in evaluation."""
    return patent_key(docno, invalid="keep")


def _plain(qrels_rows, run_rows, topics, *, aggregate, doc_key, grades):
    key = _patent_key if doc_key == "patent" else (lambda d: d)
    judged: dict[tuple, list[int]] = {}
    for (topic, subtopic, doc, _), grade in zip(qrels_rows, grades, strict=False):
        if topic in topics:
            judged.setdefault((topic, subtopic, key(doc)), []).append(grade)
    merged = {k: (max(v) if aggregate == "max" else sum(v)) for k, v in judged.items()}
    subtopics = sorted({(t, s.encode()) for t, s, _ in merged})  # (topic position, bytes) order
    subtopics.sort(key=lambda p: (topics.index(p[0]), p[1]))
    code = {(t, s.decode()): i for i, (t, s) in enumerate(subtopics)}
    judgements = sorted((t, d, code[(t, s)], g) for (t, s, d), g in merged.items())
    return code, judgements


@settings(max_examples=120, deadline=None)
@given(
    # each item judged once (qrels judging one twice are merged or refused, as files are); the
    # publications of one patent still meet under doc_key="patent"
    st.lists(st.tuples(st.sampled_from(TOPICS), st.sampled_from(SUBTOPICS), st.sampled_from(DOCS), st.integers(-1, 3)),
             min_size=1, max_size=40, unique_by=lambda r: r[:3]),
    st.lists(st.tuples(st.sampled_from(TOPICS), st.sampled_from(DOCS), st.integers(0, 5)), min_size=1, max_size=20,
             unique_by=lambda r: (r[0], r[1])),
    st.sampled_from(["max", "sum"]),
    st.sampled_from(["publication", "patent"]),
    st.integers(0, 2),
    st.booleans(),
)
def test_view_matches_a_plain_join(qrels_rows, run_rows, aggregate, doc_key, drop, replace_grades):
    qrels = Qrels.from_records(qrels_rows, fields=("topic", "subtopic", "docno", "rel"))
    topics = [t for t in qrels.topic_ids if t != TOPICS[drop]] or list(qrels.topic_ids)
    run = Run.from_records(run_rows)
    if doc_key == "patent":  # one publication of a patent per topic in a run
        seen, kept = set(), []
        for t, d, s in run_rows:
            if (t, _patent_key(d)) not in seen:
                seen.add((t, _patent_key(d)))
                kept.append((t, d, s))
        run = Run.from_records(kept)
    index = JudgementIndex.build(qrels, np.asarray(topics, dtype=object), doc_key=doc_key)
    ranked = rank_run(run, index)
    grades = [g * 2 + 1 for *_, g in qrels_rows] if replace_grades else [g for *_, g in qrels_rows]
    view = ranked.subtopic_view(aggregate=aggregate, grades=np.asarray(grades) if replace_grades else None)
    code, judgements = _plain(qrels_rows, run_rows, list(ranked.topic_ids), aggregate=aggregate, doc_key=doc_key,
                              grades=grades)

    assert [(ranked.topic_ids[view.subtopic_topic[i]], view.subtopic_ids[i]) for i in range(len(view.subtopic_ids))] \
        == sorted(code, key=code.get)
    assert np.diff(view.subtopic_ptr).tolist() == np.bincount(view.subtopic_topic, minlength=ranked.n_topics).tolist()
    docnos = view.judged_docnos.to_pylist()
    got = sorted((ranked.topic_ids[t], docnos[d], int(s), int(g)) for t, d, s, g in
                 zip(view.judged_topic, view.judged_doc, view.judged_subtopic, view.judged_grade, strict=False))
    assert got == judgements
    # sorted by document, then subtopic
    order = np.lexsort((view.judged_subtopic, view.judged_doc))
    assert np.array_equal(order, np.arange(len(order)))
    # each retrieved row with every subtopic judgement of its document, by row then subtopic
    by_doc: dict[tuple, list[tuple[int, int]]] = {}
    for t, d, s, g in judgements:
        by_doc.setdefault((t, d), []).append((s, g))
    row_topic, row_doc = ranked.topic_ids[ranked.row_topic], ranked.judgements.doc_strings.to_pylist()
    expected = []
    for row in ranked.judged_row:
        t, d = row_topic[row], row_doc[ranked.judged_entry[np.searchsorted(ranked.judged_row, row)]]
        expected += [(int(row), s, g) for s, g in by_doc.get((t, d), [])]
    assert list(zip(view.pair_row.tolist(), view.pair_subtopic.tolist(), view.pair_grade.tolist(),
                    strict=False)) == expected


def test_view_needs_subtopic_qrels():
    qrels = Qrels.from_records([("q1", "d1", 1)])
    ranked = rank_run(Run.from_records([("q1", "d1", 1.0)]), JudgementIndex.build(qrels, qrels.topic_ids))
    with pytest.raises(ValueError, match="these qrels have no subtopics"):
        ranked.subtopic_view()
