"""Agreement between assessors: Cohen's kappa on passages and on documents, and overlap.

For two assessors A and B and one topic, the units are the selectable passages of every
cited document both have saved a selection for (a passage is relevant or not for each);
at document level the units are those documents (relevant when a passage is selected).

Cohen's kappa (Cohen 1960): ``kappa = (p_o - p_e) / (1 - p_e)``, ``p_o`` the share of
units both label alike, ``p_e = p_A p_B + (1 - p_A)(1 - p_B)`` with ``p_A``, ``p_B`` each
assessor's share of units labelled relevant. When ``p_e = 1`` (both label every unit
alike and the same way) kappa is undefined and given as None. Overlap is the Jaccard
coefficient of the two sets of selected passages, ``|A and B| / |A or B|``.
"""

from __future__ import annotations

from itertools import combinations

from sqlalchemy import select
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


def _pair_units(corpus, topic_selections, a, b):
    passages_a, passages_b, docs_a, docs_b = [], [], [], []
    union = intersection = 0
    for cited in sorted({c for c, _o in topic_selections}):
        if (cited, a) not in topic_selections or (cited, b) not in topic_selections:
            continue
        document = corpus.document(cited)
        if document is None:
            continue
        sel_a, sel_b = set(topic_selections[(cited, a)]), set(topic_selections[(cited, b)])
        for xpath in sorted(document.selectable):
            passages_a.append(xpath in sel_a)
            passages_b.append(xpath in sel_b)
        docs_a.append(bool(sel_a))
        docs_b.append(bool(sel_b))
        union += len(sel_a | sel_b)
        intersection += len(sel_a & sel_b)
    return passages_a, passages_b, docs_a, docs_b, union, intersection


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
    with engine.connect() as connection:
        topic_rows = connection.execute(select(db.topics.c.id, db.topics.c.qid, db.topics.c.patent_key)
                                        .where(db.topics.c.deleted.is_(False)).order_by(db.topics.c.id)).all()
    saved = service.all_selections(engine)
    per_topic = {tid: (qid, saved.get(tid, {})) for tid, qid, _p in topic_rows}
    owners = sorted({o for _q, sel in per_topic.values() for _c, o in sel if o != db.ADJUDICATED})
    pairs = []
    for a, b in combinations(owners, 2):
        all_pa, all_pb, all_da, all_db = [], [], [], []
        union_total = inter_total = 0
        topics, disagreements = [], []
        for qid, selections in per_topic.values():
            pa, pb, da, dbb, union, inter = _pair_units(corpus, selections, a, b)
            if not da:
                continue
            for cited in sorted({c for c, _o in selections}):
                if (cited, a) in selections and (cited, b) in selections and \
                        set(selections[(cited, a)]) != set(selections[(cited, b)]):
                    disagreements.append((qid, cited))
            topics.append({"qid": qid, "kappa_passages": cohen_kappa(pa, pb), "kappa_documents": cohen_kappa(da, dbb),
                           "overlap": inter / union if union else None, "documents": len(da), "passages": len(pa)})
            all_pa += pa
            all_pb += pb
            all_da += da
            all_db += dbb
            union_total += union
            inter_total += inter
        pairs.append({
            "a": a, "b": b, "topics": topics, "disagreements": disagreements,
            "overall": {"kappa_passages": cohen_kappa(all_pa, all_pb), "kappa_documents": cohen_kappa(all_da, all_db),
                        "overlap": inter_total / union_total if union_total else None,
                        "documents": len(all_da), "passages": len(all_pa)},
        })
    return {"assessors": owners, "pairs": pairs}
