"""Pools judged in the assessment tool: a pool (or a sample of it) becomes topics' queues.

An administrator imports a pool file (``pateval pool build``) or a sample of one (``pateval
pool sample`` without ``--qrels``) with ``pateval assess pool``: each of its topics becomes a
*pool topic* whose queue is its documents in the pool's order (a sample: the drawn ones, in
the sample's order, which is the pool's). Assessors give each document a grade (0 to the
pool's highest) and, where the corpus has the document's text, select its relevant passages,
through the same judging path as citations (:func:`pateval.assess.service.save_selection`:
the compare-and-set, the audit event, undo, adjudication by ``@adjudicated``).

With an adaptive order (``mtf``, ``mm-ns``: :data:`pateval.pooling.names.ADAPTIVE_ORDERS`)
the next document is taken from the judgements made so far by the strategy object the budget
simulation replays (:func:`pateval.pooling.strategies.make_order`): each run's list is the
documents it contributed to the topic, in the pool's order; the strategy's order over them,
with each judged document's relevance (grade >= 1), is followed up to its first document not
judged yet, which is the next. As the strategy sees only judged documents before it reaches
that one, the next document depends on the judgements alone, not on the order they were made
in. An assessor's queue follows their own judgements (assessors judge independently, as
agreement requires); the adjudicator's goes through the documents the assessors disagree on.

The import is all or nothing: a topic id the database has, a document id longer than the
database holds, a name taken, an adaptive order without the pool's runs are refused before
anything is written (the readers refuse a document twice, a sample without probabilities).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
from sqlalchemy import func, insert, select
from sqlalchemy.engine import Engine

from ..errors import ParameterError, malformed
from ..formats.pools import Pool, Sample, is_sample_data, read_pool, read_sampled_qrels
from ..formats.source import read_bytes
from ..pooling.names import ADAPTIVE_ORDERS
from . import db, service
from .service import AssessError

__all__ = ["ORDERS", "import_pool", "pool_listing", "pool_qrels", "queue"]

#: How a pool topic's queue is ordered: the pool file's order, or an adaptive order.
ORDERS = ("pool", *ADAPTIVE_ORDERS)
#: The highest grade a pool may have (grades run from 0, not relevant).
HIGHEST_GRADE = 9
#: The longest topic or document id the database holds.
_ID_LENGTH = 64
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def _read(path: str | os.PathLike[str]) -> Pool | Sample:
    """The pool or sample in ``path`` (read once; a sample is told by its header line, sampled
    qrels by their first line: five fields, the second 0)."""
    data = read_bytes(path)
    if is_sample_data(data):
        return read_sampled_qrels(path, data)
    first = next((line.split() for line in data.decode("utf-8", errors="replace").splitlines()
                  if line.strip() and not line.lstrip().startswith("#")), [])
    if len(first) == 5 and first[1] == "0":
        return read_sampled_qrels(path, data)
    return read_pool(path, data)


def _line_of(data: bytes, *words: str) -> int | None:
    """The number of the first line holding ``words`` as fields (for a message)."""
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
        fields = line.split()
        if all(w in fields for w in words):
            return number
    return None


def import_pool(engine: Engine, path: str | os.PathLike[str], *, name: str | None = None, order: str = "pool",
                max_grade: int = 2) -> dict:
    """Import the pool or sample file ``path`` as the queues of new pool topics, in one
    transaction; returns ``{"name", "topics", "documents", "queued", "order", "sampled"}``.

    Raises
    ------
    ParameterError
        An unknown order, a highest grade outside 1-9, a pool name taken or not a name, a
        topic id the database has (even a removed topic's), an adaptive order on a sample or a
        pool naming no run; InputFormatError (the readers': a document twice for a topic, a
        sample without probabilities; sampled qrels, which are judged already; an id too long,
        a document id with a '/'; the line is found again in the file only for these two).
    """
    if order not in ORDERS:
        raise ParameterError(f"the judging order must be one of {', '.join(ORDERS)}, not {str(order)[:40]!r}")
    if isinstance(max_grade, bool) or not isinstance(max_grade, int) or not 1 <= max_grade <= HIGHEST_GRADE:
        raise ParameterError(f"the highest grade must be an integer from 1 to {HIGHEST_GRADE}, not {max_grade!r}")
    name = name if name is not None else Path(path).name.split(".")[0]
    if not _NAME.fullmatch(name or ""):
        raise ParameterError(f"pool name {name[:40]!r}: use 1-64 letters, digits, '.', '_' or '-' (give --name)")
    pool = _read(path)
    sampled = isinstance(pool, Sample)
    if isinstance(pool, Sample) and pool.grade is not None:
        malformed(path, 1, "these are sampled qrels (judged already: topic iteration docno stratum grade), not a "
                  "queue to judge: import the pool, or the sample pateval pool sample writes without --qrels")
    if order != "pool" and (isinstance(pool, Sample) or not pool.runs):
        raise ParameterError(f"the {order} order takes the next document from the runs that contributed each one: "
                             f"{path} {'is a sample' if sampled else 'names no run'}; import a pool file made by "
                             "pateval pool build, or judge in the file's order (pool)")
    topics = [str(t) for t in pool.topic.tolist()]
    docnos = [str(d) for d in pool.docno.tolist()]
    for t, d in zip(topics, docnos, strict=True):
        if len(t) > _ID_LENGTH or len(d) > _ID_LENGTH:
            what = f"topic id {t[:40]!r}..." if len(t) > _ID_LENGTH else f"document id {d[:40]!r}..."
            malformed(path, _line_of(read_bytes(path), t, d), f"the {what} is longer than {_ID_LENGTH} characters, "
                      "the longest the assessment database holds")
        if "/" in d:  # (the tool's addresses name the document as one path segment)
            malformed(path, _line_of(read_bytes(path), t, d), f"the document id {d!r} holds a '/', which the "
                      "assessment tool's addresses cannot carry")
    rows = _rows(pool, topics, docnos)
    wanted = list(dict.fromkeys(topics))
    with engine.begin() as connection:
        if connection.execute(select(db.pools.c.id).where(db.pools.c.name == name)).first() is not None:
            raise ParameterError(f"a pool named {name} was imported already: give another --name")
        taken = connection.execute(select(db.topics.c.qid, db.topics.c.deleted)
                                   .where(db.topics.c.qid.in_(wanted)).order_by(db.topics.c.qid)).first()
        if taken is not None:
            raise ParameterError(f"{path}: topic {taken[0]} exists already in the database"
                                 f"{' (a removed topic)' if taken[1] else ''}: a topic has one queue")
        pool_id = connection.execute(insert(db.pools).values(
            name=name, description=getattr(pool, "description", "") or ("sample" if sampled else "pool"),
            runs=json.dumps(list(getattr(pool, "runs", ()))), order_name=order, sampled=sampled,
            max_grade=max_grade, created_at=db.now())).inserted_primary_key[0]  # type: ignore[index]
        topic_ids: dict[str, int] = {}
        for qid in wanted:
            topic_ids[qid] = connection.execute(insert(db.topics).values(
                qid=qid, patent_key="", claims="", created_at=db.now(), deleted=False,
                pool_id=pool_id)).inserted_primary_key[0]  # type: ignore[index]
        connection.execute(insert(db.pool_documents), [{"topic_id": topic_ids[row["qid"]],
                                                       **{k: v for k, v in row.items() if k != "qid"}}
                                                      for row in rows])
        summary = {"name": name, "topics": len(wanted), "documents": len(rows),
                   "queued": sum(row["drawn"] for row in rows), "order": order, "sampled": sampled,
                   "max_grade": max_grade}
        connection.execute(insert(db.events).values(at=db.now(), assessor_id=None, action="import-pool",
                                                    detail=json.dumps({**summary, "file": str(path)})))
    return summary


def _rows(pool: Pool | Sample, topics: list[str], docnos: list[str]) -> list[dict]:
    """The ``pool_documents`` rows of a pool or sample (the queue place of a sample's document:
    its place among its topic's lines, the sample being in the pool's order)."""
    if isinstance(pool, Pool):
        return [{"qid": t, "docno": d, "place": int(p), "runs": json.dumps(list(who)), "stratum": None,
                 "probability": None, "drawn": True}
                for t, d, p, who in zip(topics, docnos, pool.place.tolist(), pool.contributors, strict=True)]
    seen: dict[str, int] = {}
    rows = []
    for t, d, s, p, x in zip(topics, docnos, pool.stratum.tolist(), pool.probability.tolist(), pool.sampled.tolist(),
                             strict=True):
        seen[t] = seen.get(t, 0) + 1
        rows.append({"qid": t, "docno": d, "place": seen[t], "runs": "[]", "stratum": str(s)[:_ID_LENGTH],
                     "probability": float(p), "drawn": bool(x)})
    return rows


# ---- queues ------------------------------------------------------------------------------

def _pool_row(connection, pool_id: int) -> dict:
    row = connection.execute(select(db.pools).where(db.pools.c.id == pool_id)).mappings().one()
    return {**dict(row), "runs": json.loads(row["runs"])}


def queue(engine: Engine, current: dict, owner: str) -> dict:
    """A pool topic's queue as ``owner`` (an assessor, or ``@adjudicated``) works through it.

    Returns ``{"pool": {...}, "documents": [{"docno", "place", "runs", "stratum",
    "probability", "grade", "grades", "disputed"}], "next": docno or None, "settled": n,
    "judged": n}``: the drawn documents, the first ``settled`` in the order they are judged
    (an adaptive order's order is known up to the next document; the rest follow in the
    pool's order), ``grade`` the owner's, ``grades`` every owner's; ``disputed``: assessors
    gave different grades (or passages) and nobody adjudicated."""
    if current["pool_id"] is None:
        raise AssessError(404, f"{current['qid']} is not a pool topic")
    with engine.connect() as connection:
        pool = _pool_row(connection, current["pool_id"])
        rows = connection.execute(
            select(db.pool_documents).where(db.pool_documents.c.topic_id == current["id"],
                                            db.pool_documents.c.drawn.is_(True))
            .order_by(db.pool_documents.c.place)).mappings().all()
    grades: dict[str, dict[str, int]] = {}
    for (docno, who), grade in service.all_grades(engine, current["id"]).get(current["id"], {}).items():
        grades.setdefault(docno, {})[who] = grade
    passages = service.selections_of_topic(engine, current["id"])
    documents = []
    for row in rows:
        given = grades.get(row["docno"], {})
        assessors = {w: g for w, g in given.items() if w != db.ADJUDICATED}
        chosen = {tuple(passages.get((row["docno"], w), ())) for w in assessors}
        disputed = db.ADJUDICATED not in given and (len(set(assessors.values())) > 1 or len(chosen) > 1)
        documents.append({"docno": row["docno"], "place": row["place"],
                          "runs": [pool["runs"][r] for r in json.loads(row["runs"])], "stratum": row["stratum"],
                          "probability": row["probability"], "grade": given.get(owner), "grades": given,
                          "disputed": disputed})
    settled = len(documents)
    if owner == db.ADJUDICATED:
        following = next((d["docno"] for d in documents if d["disputed"]), None)
    else:
        if pool["order_name"] != "pool":
            documents, settled = _adaptive(pool, current["qid"], documents)
        following = next((d["docno"] for d in documents if d["grade"] is None), None)
    return {"pool": pool, "documents": documents, "next": following, "settled": settled,
            "judged": sum(d["grade"] is not None for d in documents)}


def _adaptive(pool: dict, qid: str, documents: list[dict]) -> tuple[list[dict], int]:
    """The documents in the adaptive order as far as the judgements settle it (see the
    module), then the rest in the pool's order; and how many are settled."""
    import pyarrow as pa

    from ..pooling.stack import RunStack
    from ..pooling.strategies import make_order

    runs: list[int] = []
    docs: list[int] = []
    positions: list[int] = []
    for r in range(len(pool["runs"])):
        mine = [i for i, d in enumerate(documents) if pool["runs"][r] in d["runs"]]
        runs += [r] * len(mine)
        docs += mine
        positions += range(1, len(mine) + 1)
    if not docs:
        return documents, 0
    stack = RunStack(names=tuple(pool["runs"]), topic_ids=np.asarray([qid], dtype=object),
                     doc_ids=pa.array([d["docno"] for d in documents], type=pa.string()),
                     run=np.asarray(runs, dtype=np.int64), topic=np.zeros(len(runs), dtype=np.int64),
                     doc=np.asarray(docs, dtype=np.int64), position=np.asarray(positions, dtype=np.int64),
                     score=-np.asarray(positions, dtype=np.float64))
    _, pair_doc, _ = stack.pairs()
    relevant = np.asarray([(documents[d]["grade"] or 0) >= 1 for d in pair_doc.tolist()], dtype=bool)
    ordered = make_order(pool["order_name"], depth=None).order(stack, relevant, None)
    sequence: list[int] = []
    for pair in ordered.pair.tolist():
        sequence.append(int(pair_doc[pair]))
        if documents[sequence[-1]]["grade"] is None:
            break  # the next document: what follows it depends on its judgement
    placed = set(sequence)
    return [documents[i] for i in sequence] + [d for i, d in enumerate(documents) if i not in placed], len(sequence)


def pool_listing(engine: Engine, owner: str) -> list[dict]:
    """The pools with their topics: per topic its id, qid, queue length and the documents
    ``owner`` graded (one query per table)."""
    with engine.connect() as connection:
        pools = connection.execute(select(db.pools).order_by(db.pools.c.id)).mappings().all()
        topics = connection.execute(
            select(db.topics.c.id, db.topics.c.qid, db.topics.c.pool_id, func.count(db.pool_documents.c.docno))
            .join(db.pool_documents, db.pool_documents.c.topic_id == db.topics.c.id)
            .where(db.topics.c.pool_id.is_not(None), db.topics.c.deleted.is_(False),
                   db.pool_documents.c.drawn.is_(True))
            .group_by(db.topics.c.id, db.topics.c.qid, db.topics.c.pool_id).order_by(db.topics.c.id)).all()
        done: dict[int, int] = dict(connection.execute(
            select(db.selections.c.topic_id, func.count()).where(db.selections.c.owner == owner,
                                                                 db.selections.c.grade.is_not(None))
            .group_by(db.selections.c.topic_id)).all())
    out = [{"id": p["id"], "name": p["name"], "order": p["order_name"], "sampled": bool(p["sampled"]),
            "max_grade": p["max_grade"], "description": p["description"], "topics": []} for p in pools]
    by_id = {p["id"]: p for p in out}
    for topic_id, qid, pool_id, queued in topics:
        by_id[pool_id]["topics"].append({"id": topic_id, "qid": qid, "queued": queued, "judged": done.get(topic_id, 0)})
    return out


# ---- export ------------------------------------------------------------------------------

def pool_qrels(engine: Engine, policy: str) -> dict:
    """The pool topics' judgements that count under ``policy`` (as
    :func:`pateval.assess.export.export_qrels`'s): ``final`` -- the adjudicated grade, else
    the one all assessors agree on (grade and passages); ``union`` -- the highest grade any
    assessor gave, every passage any selected; an assessor's name -- theirs.

    Returns ``{"grades": [(qid, docno, grade)], "passages": [(qid, docno, xpath)],
    "sampled": Sample or None (every document of the sampled pools: its grade, -1 where not
    drawn, or drawn and not judged), "unresolved": [{"qid", "docno", "owners"}],
    "drawn_unjudged": n}``, topics in the order they were imported, documents in queue order.
    """
    with engine.connect() as connection:
        rows = connection.execute(
            select(db.topics.c.id, db.topics.c.qid, db.pools.c.sampled, db.pool_documents.c.docno,
                   db.pool_documents.c.stratum, db.pool_documents.c.probability, db.pool_documents.c.drawn)
            .join(db.pools, db.pools.c.id == db.topics.c.pool_id)
            .join(db.pool_documents, db.pool_documents.c.topic_id == db.topics.c.id)
            .where(db.topics.c.deleted.is_(False))
            .order_by(db.topics.c.id, db.pool_documents.c.place)).all()
    grades: dict[tuple[int, str], dict[str, int]] = {}
    for topic_id, graded in service.all_grades(engine).items():
        for (docno, owner), value in graded.items():
            grades.setdefault((topic_id, docno), {})[owner] = value
    selections: dict[tuple[int, str], dict[str, list[str]]] = {}
    for topic_id, saved in service.all_selections(engine).items():
        for (docno, owner), xpaths in saved.items():
            selections.setdefault((topic_id, docno), {})[owner] = xpaths
    out_grades: list[tuple[str, str, int]] = []
    out_passages: list[tuple[str, str, str]] = []
    unresolved: list[dict] = []
    sampled_rows: list[tuple[str, str, str, float, bool, int]] = []
    drawn_unjudged = 0
    for topic_id, qid, sampled, docno, stratum, probability, drawn in rows:
        given = grades.get((topic_id, docno), {})
        chosen_passages = {w: xs for w, xs in selections.get((topic_id, docno), {}).items() if w in given}
        grade, passages = None, []
        if policy == "final":
            if db.ADJUDICATED in given:
                grade, passages = given[db.ADJUDICATED], chosen_passages.get(db.ADJUDICATED, [])
            elif given and len(set(given.values())) == 1 and len({tuple(x) for x in chosen_passages.values()}) <= 1:
                grade, passages = next(iter(given.values())), next(iter(chosen_passages.values()), [])
            elif given:
                unresolved.append({"qid": qid, "docno": docno, "owners": sorted(given)})
        elif policy == "union":
            assessors = {w: g for w, g in given.items() if w != db.ADJUDICATED}
            if assessors:
                grade = max(assessors.values())
                passages = sorted({x for w, xs in chosen_passages.items() if w in assessors for x in xs})
        elif policy in given:
            grade, passages = given[policy], chosen_passages.get(policy, [])
        if grade is not None:
            out_grades.append((qid, docno, grade))
            out_passages.extend((qid, docno, x) for x in passages)
        if sampled:
            if drawn and grade is None:
                drawn_unjudged += 1
            sampled_rows.append((qid, docno, stratum or "", float(probability or 0.0), bool(drawn),
                                 grade if drawn and grade is not None else -1))
    sample = None
    if sampled_rows:
        columns = list(zip(*sampled_rows, strict=True))
        sample = Sample(topic=np.asarray(columns[0], dtype=object), docno=np.asarray(columns[1], dtype=object),
                        stratum=np.asarray(columns[2], dtype=object), probability=np.asarray(columns[3]),
                        sampled=np.asarray(columns[4], dtype=bool), grade=np.asarray(columns[5], dtype=np.int64))
    return {"grades": out_grades, "passages": out_passages, "sampled": sample, "unresolved": unresolved,
            "drawn_unjudged": drawn_unjudged}
