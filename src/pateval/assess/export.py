"""Qrels out of the assessment database, and existing qrels into it.

Export writes, into a new directory (whole or not at all), the files of a passage
collection in the formats ``pateval collection build`` writes and ``pateval evaluate``
reads, line for line:

``qrels_PSG.txt``         ``qid docno xpath`` (passage level)
``qrels_PSG_graded.txt``  ``qid 0 docno grade`` (1-4 from relevant-paragraph counts, Luo et al.)
``qrels_PSG_docs.txt``    ``qid 0 docno rel`` (document level: 2 for an X/Y citation, else 1)
``qrels_PSG_claims.txt``  ``qid subtopic docno rel`` (claim level: each topic claim the
                          citation is relevant to)
``theta_PSG.txt``         ``qid subtopic weight`` (claim importance, independent 1,
                          dependent 0.5, normalised per topic)
``topics_PSG.tsv``        ``qid patent_key tfile_ucid claims``
``topics_PSG.txt``        the passage topics file (tid, tfile, tfam-docs, tclaims) with the topic
                          documents under ``topics/PSG/``, written by collection build's writer
``export.json``           what was exported: policy, counts, the unresolved disagreements, the
                          rejected topic candidates with their reasons

and, when the database has pool topics (:mod:`pateval.assess.pools`):

``qrels_pool.txt``        ``qid 0 docno grade`` (the pool topics' document grades, the qrels
                          ``pateval evaluate`` reads)
``qrels_pool_PSG.txt``    ``qid docno xpath`` (the relevant passages selected in pooled
                          documents), when there are any
``sampled_qrels_pool.txt`` sample_eval.pl's sampled qrels of the sampled pools (``topic 0 docno
                          stratum grade``, -1 for a document not drawn, or drawn and not judged
                          yet), by ``pateval pool sample``'s writer, when a pool was sampled

Only judged topics are exported (a topic with a passage that counts under the policy):
topics nobody judged, rejected sources' topics and deleted topics are left out. Which judgements count
(``policy``): ``final`` -- the adjudicated selection where there is one, else the
assessors' common selection when they agree; a disagreement without adjudication is left
out and listed; ``union`` -- every passage any assessor selected; or an assessor's name --
that assessor's selections only.
"""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pandas as pd
from sqlalchemy import select
from sqlalchemy.engine import Engine

# collection build's own line writer and ordering, so that the files are written alike.
from ..collection.build import write_lines, write_rows
from ..collection.qrels import claim_theta, graded_from_passages, qid_order
from ..errors import InputFormatError, ParameterError
from ..formats.atomic import atomic_directory, atomic_output
from ..formats.source import read_bytes
from . import db, service
from .corpus import AssessCorpus

__all__ = ["export_qrels", "import_qrels"]


def _chosen(selections: dict[str, list[str]], policy: str) -> tuple[list[str] | None, bool]:
    """The passages that count for one (topic, document), and whether the assessors
    disagree without adjudication (then None under the final policy)."""
    if policy == "final":
        if db.ADJUDICATED in selections:
            return selections[db.ADJUDICATED], False
        distinct = {tuple(v) for v in selections.values()}
        if len(distinct) == 1:
            return list(distinct.pop()), False
        return None, True
    if policy == "union":
        return sorted({x for owner, v in selections.items() if owner != db.ADJUDICATED for x in v}), False
    return (selections.get(policy), False) if policy in selections else (None, False)


def export_qrels(engine: Engine, corpus: AssessCorpus, out_dir, *, policy: str = "final") -> dict:
    """Write the qrels of the database into the new directory ``out_dir``; returns the
    summary also written as ``export.json``."""
    target = Path(out_dir)
    if target.exists():
        raise ParameterError(f"{target} exists already; assess export writes a new directory")
    with engine.connect() as connection:
        rejections = {key: {"reason": reason, "note": note} for key, reason, note in connection.execute(
            select(db.sources.c.patent_key, db.sources.c.reason, db.sources.c.note)
            .where(db.sources.c.status == "rejected").order_by(db.sources.c.patent_key)).all()}
        # in the order topics were made, on every database (PostgreSQL returns a row
        # rewritten by an update after the others, SQLite by its id)
        topic_rows = connection.execute(select(db.topics).where(db.topics.c.deleted.is_(False))
                                        .order_by(db.topics.c.id)).mappings().all()
        owners = set(connection.execute(select(db.selections.c.owner).distinct()).scalars())
    if policy not in ("final", "union") and policy not in owners:
        raise ParameterError(f"policy must be final, union or an assessor with judgements "
                             f"({', '.join(sorted(o for o in owners if o != db.ADJUDICATED)) or 'none yet'}), "
                             f"not {policy!r}")
    corpus.preload({row["patent_key"] for row in topic_rows})
    saved = service.all_selections(engine)
    passages: list[tuple[str, str, str]] = []
    documents: list[tuple[str, str, int]] = []
    claims: list[tuple[str, int, str, int]] = []
    theta_rows: list[tuple[str, int, tuple[int, ...]]] = []
    topic_table: list[tuple[str, str, str, str]] = []
    unresolved: list[dict] = []
    for row in topic_rows:
        if row["patent_key"] in rejections or row["pool_id"] is not None:  # (pool topics: below)
            continue
        qid = row["qid"]
        topic_claims = [int(c) for c in row["claims"].split(",")]
        by_doc: dict[str, dict[str, list[str]]] = {}
        for (cited, owner), xpaths in saved.get(row["id"], {}).items():
            by_doc.setdefault(cited, {})[owner] = xpaths
        citations = {c.cited_ucid: c for c in corpus.citations(row["patent_key"])}
        judged_any = False
        for cited, selections in sorted(by_doc.items()):
            chosen, disagree = _chosen(selections, policy)
            if disagree:
                unresolved.append({"qid": qid, "docno": cited, "owners": sorted(selections)})
            if not chosen:
                continue
            judged_any = True
            citation = citations.get(cited)
            category = citation.category if citation else ""
            rel = 2 if ("X" in category or "Y" in category) else 1
            passages.extend((qid, cited, x) for x in chosen)
            documents.append((qid, cited, rel))
            relevant_claims = set(citation.relevant_claims) if citation else set()
            claims.extend((qid, c, cited, rel) for c in topic_claims if c in relevant_claims)
        if judged_any:  # a topic nobody judged (its source merely opened) is no topic of the qrels
            source = corpus.source(row["patent_key"])
            topic_table.append((qid, row["patent_key"], source.ucid if source else "", row["claims"]))
            dependencies = corpus.claim_dependencies(row["patent_key"])
            # A claim is dependent whether or not the claims it refers to are in the topic.
            theta_rows.extend((qid, c, tuple(dependencies.get(c, ()))) for c in topic_claims)
    # collection build orders topics by their number (PSG-2 before PSG-10); assessors'
    # ids need not end in one ('sp-8.all'), so the ids are ranked naturally and the build's
    # functions see them as T-<rank>, mapped back before writing.
    ranked = sorted({row[0] for row in topic_table}, key=_natural_key)
    alias = {qid: f"T-{rank}" for rank, qid in enumerate(ranked, start=1)}
    back = {v: k for k, v in alias.items()}

    def aliased(build, frame: pd.DataFrame) -> pd.DataFrame:
        result = build(frame.assign(qid=frame["qid"].map(alias)))
        result["qid"] = result["qid"].map(back)
        return result

    def ordered(rows, columns, *others):
        return aliased(lambda frame: qid_order(frame, *others), pd.DataFrame(rows, columns=columns))

    psg = ordered(passages, ["qid", "docno", "xpath"], "docno", "xpath")
    docs = ordered(documents, ["qid", "docno", "rel"], "docno")
    claim_frame = ordered(claims, ["qid", "subtopic", "docno", "rel"], "subtopic", "docno")
    theta = aliased(claim_theta, pd.DataFrame(theta_rows, columns=["qid", "number", "depends_on"]))
    graded = aliased(graded_from_passages, psg)
    topic_frame = ordered(topic_table, ["qid", "patent_key", "tfile_ucid", "claims"])
    summary = {"policy": policy, "topics": len(topic_frame), "rejected_sources": sorted(rejections),
               "rejections": {key: rejections[key] for key in sorted(rejections)}, "passages": len(psg),
               "documents": len(docs), "claim_judgements": len(claim_frame), "unresolved": unresolved}
    pooled = _pool_part(engine, policy, summary) if any(row["pool_id"] is not None for row in topic_rows) else None
    with atomic_directory(target) as tmp:
        _write_topic_files(tmp, corpus, topic_frame)
        write_rows(tmp / "qrels_PSG.txt", "{} {} {}", psg, ["qid", "docno", "xpath"])
        write_rows(tmp / "qrels_PSG_graded.txt", "{} 0 {} {}", graded, ["qid", "docno", "grade"])
        write_rows(tmp / "qrels_PSG_docs.txt", "{} 0 {} {}", docs, ["qid", "docno", "rel"])
        write_rows(tmp / "qrels_PSG_claims.txt", "{} {} {} {}", claim_frame, ["qid", "subtopic", "docno", "rel"])
        write_rows(tmp / "theta_PSG.txt", "{} {} {:.10g}", theta, ["qid", "subtopic", "weight"])
        with atomic_output(tmp / "topics_PSG.tsv") as handle:
            topic_frame.to_csv(handle, sep="\t", index=False, lineterminator="\n")
        if pooled is not None:
            _write_pool_files(tmp, pooled)
        with atomic_output(tmp / "export.json") as handle:
            json.dump(summary, handle, indent=2)
            handle.write("\n")
    return summary


def _pool_part(engine: Engine, policy: str, summary: dict) -> dict:
    """The pool topics' judgements under ``policy`` (:func:`pateval.assess.pools.pool_qrels`),
    their counts added to ``summary``."""
    from .pools import pool_qrels

    pooled = pool_qrels(engine, policy)
    summary.update({"pool_topics": len({qid for qid, _d, _g in pooled["grades"]}),
                    "pool_judgements": len(pooled["grades"]), "pool_passages": len(pooled["passages"]),
                    "pool_unresolved": pooled["unresolved"], "drawn_unjudged": pooled["drawn_unjudged"]})
    return pooled


def _write_pool_files(out: Path, pooled: dict) -> None:
    """``qrels_pool.txt``, ``qrels_pool_PSG.txt`` (passages, if any) and the sampled pools'
    ``sampled_qrels_pool.txt`` (``pateval pool sample``'s writer)."""
    from ..formats.pools import write_sample

    write_lines(out / "qrels_pool.txt", [f"{qid} 0 {docno} {grade}" for qid, docno, grade in pooled["grades"]])
    if pooled["passages"]:
        write_lines(out / "qrels_pool_PSG.txt", [f"{qid} {docno} {xpath}" for qid, docno, xpath in pooled["passages"]])
    if pooled["sampled"] is not None:
        write_sample(pooled["sampled"], out / "sampled_qrels_pool.txt")


def _natural_key(qid: str) -> tuple:
    """PSG-2 before PSG-10, sp-8.2 before sp-8.10: digit runs compare as numbers."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.findall(r"\d+|\D+", qid))


def _write_topic_files(out: Path, corpus: AssessCorpus, topic_frame: pd.DataFrame) -> None:
    """``topics_PSG.txt`` and ``topics/PSG/<ucid>.xml`` by collection build's own writer, with
    the earlier family documents in the corpus part of the collection's date split."""
    from ..collection.split import DateSplit, group_patents, split_by_date
    from ..collection.tables import open_store
    from ..collection.topicfiles import earlier_family_files, load_topic_documents, write_psg_topics

    if topic_frame.empty:
        write_lines(out / "topics_PSG.txt", [])
        return
    split = DateSplit.of()
    if corpus.collection is not None and (corpus.collection / "build.json").is_file():
        with open(corpus.collection / "build.json", encoding="utf-8") as handle:
            split = DateSplit.of(**json.load(handle)["parameters"]["split"])
    con = open_store(corpus.store_path, threads=1)
    try:
        split_by_date(con, split)
        group_patents(con)
        documents = load_topic_documents(con, set(topic_frame["tfile_ucid"]))
        con.register("_keys", pd.DataFrame({"patent_key": sorted(set(topic_frame["patent_key"]))}))
        family_files = earlier_family_files(con, "_keys")
    finally:
        con.close()
    frame = topic_frame.assign(claims=[[int(c) for c in text.split(",")] for text in topic_frame["claims"]])
    write_psg_topics(out, frame, documents, family_files)


def _topic_definitions(topics_path: str | os.PathLike[str]) -> dict[str, tuple[str, str, int]]:
    """qid -> (patent key, claims, line) of a ``topics_PSG.tsv``; a topic id given twice is
    refused with both lines (the file would mean two things)."""
    if not Path(topics_path).exists():
        raise ParameterError(f"{topics_path}: no such file")
    # through pateval's reader, so that a compressed topics file is decompressed within its bound
    data = read_bytes(topics_path)
    try:
        table = pd.read_csv(io.BytesIO(data), sep="\t", dtype=str, keep_default_na=False, skip_blank_lines=False)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise InputFormatError(topics_path, None, "not a topics_PSG.tsv", found=str(error).splitlines()[0]) from None
    if missing := {"qid", "patent_key", "claims"} - set(table.columns):
        raise InputFormatError(topics_path, 1, f"no column {min(missing)}", expected="qid, patent_key, claims")
    definitions: dict[str, tuple[str, str, int]] = {}
    for line, (qid, patent_key, claims) in enumerate(table[["qid", "patent_key", "claims"]].itertuples(index=False),
                                                     start=2):
        if not (qid or patent_key or claims):
            continue  # a blank line (counted, so that the lines named are the file's)
        if qid in definitions:
            raise InputFormatError(topics_path, line, f"topic {qid} is defined twice (first on line "
                                   f"{definitions[qid][2]})")
        definitions[qid] = (patent_key, claims, line)
    return definitions


def _same_topic(have: tuple[str, str], given: tuple[str, str]) -> bool:
    """Whether a topics row gives a topic the patent and claims it has (claims as numbers)."""
    try:
        return have[0] == given[0] and set(service.parse_claims(have[1])) == set(service.parse_claims(given[1]))
    except service.AssessError:
        return False


def import_qrels(engine: Engine, corpus: AssessCorpus, qrels_path: str | os.PathLike[str], *, owner: str,
                 topics_path: str | os.PathLike[str] | None = None) -> dict:
    """Load passage qrels (``qid docno xpath``, read by pateval's CLEF-IP reader) as the
    saved selections of assessor ``owner``, for review.

    Topics are matched by id; with ``topics_path`` (a ``topics_PSG.tsv``) topics the
    database lacks are created with its patent and claims; a topic id given twice in the
    file, or a row defining a topic the database (or its source's first topics) defines
    otherwise, is refused with its line. Every XPath must exist in its document, every
    document must be cited by the topic's patent, and no selection of ``owner`` may exist yet
    for it: otherwise nothing is imported. The import is one transaction, the sources' first
    topics (:func:`pateval.assess.service.open_source`) included.
    """
    from ..formats.passages import read_passage_qrels

    qrels = read_passage_qrels(qrels_path)
    with engine.connect() as connection:
        row = connection.execute(select(db.assessors).where(db.assessors.c.name == owner)).mappings().first()
    if row is None:
        raise ParameterError(f"no assessor named {owner!r} (pateval assess user add)")
    actor = dict(row)
    definitions = _topic_definitions(topics_path) if topics_path is not None else {}
    # The sources' own first topics, as opening them would define them now: checked with the
    # file's, and written in the import's one transaction (a refused import defines nothing).
    with engine.connect() as connection:
        opening = {patent_key: service.opening_topics(connection, corpus, patent_key)
                   for patent_key in sorted({p for p, _c, _n in definitions.values()})
                   if corpus.source(patent_key) is not None}
        defined = {qid: (patent_key, claims) for qid, patent_key, claims in connection.execute(
            select(db.topics.c.qid, db.topics.c.patent_key, db.topics.c.claims)
            .where(db.topics.c.deleted.is_(False)))}
    known = service.topic_ids(engine)
    planned = {qid: (patent_key, ",".join(str(n) for n in claims))
               for patent_key, wanted in opening.items() for qid, claims in wanted}
    for qid, (patent_key, claims, line) in definitions.items():
        have = defined.get(qid) or planned.get(qid)
        if have is not None and not _same_topic(have, (patent_key, claims)):
            raise InputFormatError(topics_path or "", line, f"topic {qid} is defined already, as {have[0]} claims "
                                   f"{have[1]}, not as here", found=f"{patent_key} claims {claims}")
    groups: dict[tuple[str, str], list[str]] = {}
    for qid, docno, xpath in zip(qrels.topic, qrels.docno, qrels.passage, strict=True):
        groups.setdefault((str(qid), str(docno)), []).append(str(xpath))
    # Check everything before writing anything.
    for (qid, docno), xpaths in groups.items():
        if qid not in known and qid not in planned and qid not in definitions:
            raise ParameterError(f"{qrels_path}: topic {qid} is neither in the database nor in the topics file")
        patent_key = known[qid][1] if qid in known else (planned.get(qid) or definitions[qid])[0]
        if docno not in {c.cited_ucid for c in corpus.citations(patent_key)}:
            raise ParameterError(f"{qrels_path}: {docno} is not cited by {patent_key} (topic {qid})")
        document = corpus.document(docno)
        if document is None:
            raise ParameterError(f"{qrels_path}: {docno} (topic {qid}) is not in the corpus")
        if bad := [x for x in xpaths if x not in document.selectable]:
            raise ParameterError(f"{qrels_path}: {bad[0]} is not a passage of {docno} (topic {qid})")
        if qid in known and service.selection(engine, known[qid][0], docno, owner)["version"]:
            raise ParameterError(f"{owner} has judged {docno} for {qid} already; import into a new name")
    checked: dict[str, tuple[str, tuple[int, ...]]] = {}
    for qid in sorted({q for q, _d in groups if q not in known and q not in planned}):
        patent_key, claims, _line = definitions[qid]
        try:
            checked[qid] = (patent_key, service.check_topic_definition(corpus, patent_key, qid, claims))
        except service.AssessError as error:
            raise ParameterError(f"{topics_path}: topic {qid}: {error.message}") from None
    # One transaction: the whole file is imported, or (on any failure, a crash included) none of it.
    with engine.begin() as connection:
        for patent_key in opening:
            service.open_source(connection, corpus, patent_key)
        known = {q: (i, p) for i, q, p in connection.execute(
            select(db.topics.c.id, db.topics.c.qid, db.topics.c.patent_key).where(db.topics.c.deleted.is_(False)))}
        for qid, (patent_key, numbers) in checked.items():
            try:
                topic_id = service.insert_topic(connection, patent_key=patent_key, qid=qid, claims=numbers,
                                                actor=actor)
            except service.AssessError as error:
                raise ParameterError(f"{topics_path}: {error.message}") from None
            known[qid] = (topic_id, patent_key)
        for (qid, docno), xpaths in groups.items():
            try:
                service.write_selection(connection, topic_id=known[qid][0], cited_ucid=docno, owner=owner,
                                        xpaths=xpaths, base_version=0, actor=actor)
            except service.AssessError as error:
                raise ParameterError(f"{qrels_path}: {qid} {docno}: {error.message}") from None
    return {"selections": len(groups), "topics_created": len(checked), "passages": len(qrels.topic)}
