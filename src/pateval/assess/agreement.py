"""Agreement between assessors: Cohen's kappa on passages and on documents, and overlap.

For two assessors A and B and one topic, the units are the selectable passages of every
cited document both have saved a selection for (a passage is relevant or not for each);
at document level the units are those documents (relevant when a passage is selected).
On a pool topic the documents are those both graded, relevant at grade 1 or more (their
passages count where the corpus has their text), and two judgements differ when their
grades or their passages do.

Cohen's kappa (Cohen 1960): ``kappa = (p_o - p_e) / (1 - p_e)``, ``p_o`` the share of
units both label alike, ``p_e = p_A p_B + (1 - p_A)(1 - p_B)`` with ``p_A``, ``p_B`` each
assessor's share of units labelled relevant. When ``p_e = 1`` (both label every unit
alike and the same way) kappa is undefined and given as None. Overlap is the Jaccard
coefficient of the two sets of selected passages, ``|A and B| / |A or B|``.
"""

from __future__ import annotations

from itertools import combinations

from sqlalchemy.engine import Engine

from . import db, service
from .corpus import AssessCorpus

__all__ = ["agreement", "cohen_kappa"]


def cohen_kappa(labels_a, labels_b) -> float | None:
    """Cohen's kappa of two binary labellings of the same units (None when undefined)."""
    a = [bool(x) for x in labels_a]
    b = [bool(x) for x in labels_b]
    if len(a) != len(b):
        raise ValueError("the two labellings must cover the same units")
    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b, strict=False)) / n
    pa, pb = sum(a) / n, sum(b) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    if expected == 1:
        return None
    return (observed - expected) / (1 - expected)


def _pair_units(corpus, topic_selections, a, b, grades=None) -> tuple[list, list, list, list, int, int, list]:
    """The units of one topic: passages and documents as A and B label them, the sizes of
    the union and intersection of their passages, and the documents they judge apart
    (``grades``: a pool topic's (document, owner) -> grade)."""
    passages_a, passages_b, docs_a, docs_b, differ = [], [], [], [], []
    union = intersection = 0
    for cited in sorted({c for c, _o in topic_selections}):
        if (cited, a) not in topic_selections or (cited, b) not in topic_selections:
            continue
        if grades is not None and ((cited, a) not in grades or (cited, b) not in grades):
            continue  # (a pool document undone back to no grade)
        sel_a, sel_b = set(topic_selections[(cited, a)]), set(topic_selections[(cited, b)])
        if sel_a != sel_b or (grades is not None and grades[cited, a] != grades[cited, b]):
            differ.append(cited)
        document = corpus.document(cited) if len(cited) <= 64 else None
        if grades is not None:
            docs_a.append(grades[cited, a] >= 1)
            docs_b.append(grades[cited, b] >= 1)
        if document is None:
            continue
        for xpath in sorted(document.selectable):
            passages_a.append(xpath in sel_a)
            passages_b.append(xpath in sel_b)
        if grades is None:
            docs_a.append(bool(sel_a))
            docs_b.append(bool(sel_b))
        union += len(sel_a | sel_b)
        intersection += len(sel_a & sel_b)
    return passages_a, passages_b, docs_a, docs_b, union, intersection, differ


def _summary(passages_a, passages_b, docs_a, docs_b, union, intersection) -> dict:
    return {"kappa_passages": cohen_kappa(passages_a, passages_b), "kappa_documents": cohen_kappa(docs_a, docs_b),
            "overlap": intersection / union if union else None, "documents": len(docs_a),
            "passages": len(passages_a)}


def agreement(engine: Engine, corpus: AssessCorpus) -> dict:
    """Per assessor pair: per topic and overall kappa (passages, documents), overlap, and
    the (topic, document) pairs where the two differ.

    Returns
    -------
    dict
        ``{"pairs": [{"a", "b", "overall": {...}, "topics": [{"qid", "kappa_passages",
        "kappa_documents", "overlap", "documents", "passages"}], "disagreements":
        [(qid, docno), ...]}]}``
    """
    saved = service.all_selections(engine)
    graded = service.all_grades(engine)
    pool_topics = service.pool_topic_ids(engine)
    per_topic = {tid: (qid, saved.get(tid, {})) for qid, (tid, _p) in service.topic_ids(engine).items()}
    owners = sorted({o for _q, sel in per_topic.values() for _c, o in sel if o != db.ADJUDICATED})
    pairs = []
    for a, b in combinations(owners, 2):
        overall: list = [[], [], [], [], 0, 0]  # the units of all topics: lists joined, counts added
        topics: list[dict] = []
        disagreements: list[tuple[str, str]] = []
        for tid, (qid, selections) in per_topic.items():
            units = _pair_units(corpus, selections, a, b, graded.get(tid, {}) if tid in pool_topics else None)
            if not units[2]:  # no document both judged (in the corpus)
                continue
            disagreements.extend((qid, cited) for cited in units[6])
            topics.append({"qid": qid, **_summary(*units[:6])})
            overall = [total + part for total, part in zip(overall, units[:6], strict=True)]
        pairs.append({"a": a, "b": b, "topics": topics, "disagreements": disagreements, "overall": _summary(*overall)})
    return {"assessors": owners, "pairs": pairs}
