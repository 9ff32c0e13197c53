"""``pateval collection build``: a patent test collection from a corpus store, end to end.

The steps, each a function of its own module:

1. split by date and group patents (:mod:`.split`);
2. candidate features, topic selection by criteria with per-criterion counts (:mod:`.topics`);
3. optional stratified sampling, topic-set size with a seed (:mod:`.sampling`);
4. judgements at document, claim, passage and graded level (:mod:`.qrels`);
5. topic files in the CLEF-IP formats (:mod:`.topicfiles`);
6. checks: no topic publication in the corpus, every judged document in the corpus.

Output directory (built under a temporary name, moved into place when complete)::

    build.json                 parameters, split, selection funnel, sizes, checks, counts
    topics.tsv                 qid, patent, topic file publication, language, IPC, counts
    topics_PAC.xml             2011-style topics file; topics/PAC/PAC-n_<ucid>.xml virtual files
    qrels_PAC.txt              qid 0 docno rel (2 = X/Y citation, 1 = other)
    judgements.tsv             qid docno rel sources categories via cited (every judgement's origin)
    qrels_PAC_claims.txt       qid subtopic docno rel (claim-level, Cube Test subtopics)
    theta_PAC.txt              qid subtopic weight (claim importance, normalised per topic)
    topics_PSG.txt             passage topics (tid, tfile, tfam-docs, tclaims); topics/PSG/<ucid>.xml
    qrels_PSG.txt              PSG-n docno xpath
    qrels_PSG_graded.txt       PSG-n 0 docno grade (1-4, from relevant-paragraph counts)
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd

from ..errors import ParameterError
from ..formats.atomic import atomic_directory, atomic_output
from .qrels import (
    FAMILY_EXTENSIONS,
    claim_judgements,
    claim_theta,
    document_judgements,
    graded_from_passages,
    passage_topics,
)
from .sampling import resolve_size, stratified_sample, topic_set
from .split import DateSplit, group_patents, split_by_date
from .topicfiles import earlier_family_files, load_topic_documents, write_pac_topics, write_psg_topics
from .topics import CriterionCount, SelectionCriteria, select_topics, topic_features

__all__ = ["BuildSummary", "build_collection", "check_collection", "write_lines", "write_rows"]


@dataclass
class BuildSummary:
    """What :func:`build_collection` did (also written as ``build.json``)."""

    out_dir: str
    parameters: dict
    split: dict
    selection: dict
    stratified: dict | None
    topic_set: dict
    counts: dict
    checks: dict
    seconds: float = 0.0
    timings: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return asdict(self)


def write_lines(path: Path, lines) -> None:
    """Write ``lines`` (str, without their newlines) to ``path``, whole or not at all."""
    with atomic_output(path) as handle:
        handle.writelines(line + "\n" for line in lines)


def write_rows(path: Path, template: str, frame: pd.DataFrame, columns: list[str]) -> None:
    """One line per row of ``frame[columns]``, formatted by ``template`` (``"{} 0 {} {}"``)."""
    write_lines(path, (template.format(*row) for row in frame[columns].itertuples(index=False)))


def _topic_lang_claims(con) -> pd.DataFrame:
    """Table ``topic_claims``: the claims of each topic file in one language (the
    document's own when it has claims in it, else English, else the first)."""
    con.execute(
        """CREATE OR REPLACE TEMP TABLE topic_claims AS
        WITH langs AS (
            SELECT s.qid, c.ucid, c.lang,
                   row_number() OVER (PARTITION BY s.qid ORDER BY (c.lang = d.lang) DESC, (c.lang = 'EN') DESC, c.lang)
                       AS preference
            FROM selected s JOIN documents d ON d.ucid = s.topic_ucid
            JOIN (SELECT DISTINCT ucid, lang FROM claims) c ON c.ucid = s.topic_ucid
        )
        SELECT l.qid, c.number, c.depends_on, c.lang
        FROM langs l JOIN claims c ON c.ucid = l.ucid AND c.lang = l.lang
        WHERE l.preference = 1"""
    )
    return con.execute("SELECT qid, number, depends_on FROM topic_claims").df()


def check_collection(con, *, pac_qrels: pd.DataFrame, psg_qrels: pd.DataFrame) -> dict:
    """The invariants of a built collection, counted (0 everywhere = all hold).

    ``topic_publications_in_corpus``: publications of topic patents that lie in the corpus;
    ``judged_documents_not_in_corpus``: qrels documents (PAC and PSG) outside the corpus.
    """
    con.register("_judged", pd.concat([pac_qrels[["docno"]], psg_qrels[["docno"]]], ignore_index=True))
    in_corpus = con.execute(
        """SELECT count(*) FROM doc_part d JOIN selected s USING (patent_key) WHERE d.part = 'corpus'"""
    ).fetchall()[0][0]
    outside = con.execute(
        """SELECT count(DISTINCT j.docno) FROM _judged j
           LEFT JOIN doc_part d ON d.ucid = j.docno AND d.part = 'corpus' WHERE d.ucid IS NULL"""
    ).fetchall()[0][0]
    con.unregister("_judged")
    return {"topic_publications_in_corpus": int(in_corpus), "judged_documents_not_in_corpus": int(outside)}


def build_collection(con, out_dir: str | os.PathLike[str], *, split: DateSplit | None = None,
                     criteria: SelectionCriteria | None = None, stratify: bool = False, per_group: int = 20,
                     ipc_level: str = "class", size: str | int | None = None, seed: int = 0, family: str = "none",
                     patent_level: bool = True, theta_ind: float = 1.0, theta_dep: float = 0.5, passages: bool = True,
                     max_passage_topics_per_patent: int | None = None, progress: bool = True) -> BuildSummary:
    """Build a test collection into ``out_dir`` from the corpus views on ``con``.

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        With the views of :mod:`pateval.collection.tables` (from a corpus store, or
        :func:`~pateval.collection.tables.register_records`).
    out_dir : path-like
        Must not exist; written whole or not at all.
    split : DateSplit, optional
        Corpus / topic-pool dates (default: corpus up to 2000-12-31, pool after).
    criteria : SelectionCriteria, optional
        Topic-selection criteria (default: the Roda 2009 ones). Their ``sources`` also
        choose which citations become judgements.
    stratify : bool
        Draw ``per_group`` topics per number-of-citations group, distinct IPC classes at
        ``ipc_level`` (CLEF-IP 2013).
    size : {"S", "M", "L", "XL"} or int, optional
        Topic-set size (500, 1,000, 5,000, 10,000 or a number); all selected topics when
        None. Sets for one seed are nested, and topics are numbered in draw order, so
        PAC-1..PAC-500 of an XL build are the S set of the same seed.
    seed : int
    family : {"none", "cited", "topic", "both"}
        Family extension of the document-level qrels.
    patent_level : bool
        Judge all corpus publications of a cited patent (True) or only the cited one.
    theta_ind, theta_dep : float
        Claim importance for the theta file.
    passages : bool
        Also build passage (PSG) topics and qrels.
    max_passage_topics_per_patent : int, optional
    progress : bool
        Print the steps on stderr.

    Returns
    -------
    BuildSummary
    """
    split = split or DateSplit.of()
    criteria = criteria or SelectionCriteria.roda2009()
    if family not in FAMILY_EXTENSIONS:
        raise ParameterError(f"family extension must be one of {FAMILY_EXTENSIONS}, not {family!r}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ParameterError(f"seed must be an integer, not {seed!r}")
    n_wanted = resolve_size(size)
    target = Path(out_dir)
    if target.exists():
        raise ParameterError(f"{target} exists already; collection build writes a new directory")
    started = time.perf_counter()
    timings: dict[str, float] = {}
    clock = [time.perf_counter()]

    def lap(name: str) -> None:
        now = time.perf_counter()
        timings[name] = round(now - clock[0], 3)
        clock[0] = now
        if progress:
            print(f"collection build: {name} ({timings[name]:.1f} s)", file=sys.stderr)

    split_summary = split_by_date(con, split)
    group_patents(con)
    lap("split and patent grouping")

    features = topic_features(con, sources=criteria.sources)
    selected, report = select_topics(features, criteria)
    # A topic needs a publication to make its topic file from (an A or B kind) and at
    # least one judged document: both counted as steps of their own.
    for name, description, keep in (
        ("has_topic_file", "an A or B publication to make the topic file from", lambda f: f["topic_ucid"].notna()),
        ("has_judgements", "at least one cited patent in the corpus", lambda f: f["n_cited_in_corpus"] > 0),
    ):
        kept = selected[keep(selected)]
        report.steps.append(CriterionCount(name, description, len(selected), len(selected) - len(kept), len(kept)))
        selected = kept.reset_index(drop=True)
    lap("topic selection")

    stratified_report = None
    if stratify:
        selected, strat = stratified_sample(selected, per_group=per_group, seed=seed, ipc_level=ipc_level)
        stratified_report = strat.as_dict()
    keys = topic_set(selected["patent_key"], n_wanted, seed=seed)
    topic_set_info = {"requested": size if size is None or isinstance(size, int) else str(size).upper(),
                      "requested_topics": n_wanted, "available": int(len(selected)), "drawn": len(keys),
                      "short": bool(n_wanted is not None and len(keys) < n_wanted)}
    order = {key: index for index, key in enumerate(keys)}
    selected = selected[selected["patent_key"].isin(order)].copy()
    selected["order_index"] = selected["patent_key"].map(order)
    selected = selected.sort_values("order_index").reset_index(drop=True)
    selected["qid"] = [f"PAC-{i + 1}" for i in range(len(selected))]
    con.register("_selected_frame", selected[["qid", "patent_key", "family_id", "topic_ucid", "abstract_ucid",
                                              "text_ucid", "order_index"]])
    con.execute("CREATE OR REPLACE TEMP TABLE selected AS SELECT * FROM _selected_frame")
    con.unregister("_selected_frame")
    lap("sampling")

    judgements = document_judgements(con, sources=criteria.sources, family=family, patent_level=patent_level)
    topic_claims = _topic_lang_claims(con)
    claim_qrels = claim_judgements(con, sources=criteria.sources, patent_level=patent_level)
    theta = claim_theta(topic_claims, theta_ind=theta_ind, theta_dep=theta_dep)
    lap("document and claim judgements")

    psg_topics = pd.DataFrame(columns=["qid", "patent_key", "tfile_ucid", "claims"])
    psg_qrels = pd.DataFrame(columns=["qid", "docno", "xpath"])
    if passages:
        psg_topics, psg_qrels = passage_topics(con, sources=criteria.sources,
                                               max_per_patent=max_passage_topics_per_patent)
    lap("passage judgements")

    wanted = set(selected["topic_ucid"]) | set(selected["abstract_ucid"].dropna()) | set(psg_topics["tfile_ucid"])
    documents = load_topic_documents(con, wanted)
    if not psg_topics.empty:
        # Keep only claims the topic file has; a passage topic left without claims goes.
        def existing(row) -> list[int]:
            doc = documents[row.tfile_ucid]
            lang = doc.lang if doc.lang in doc.claims else next(iter(sorted(doc.claims)), None)
            numbers = {n for n, _ in (doc.claims.get(lang, []) if lang is not None else [])}
            return [n for n in row.claims if n in numbers]

        psg_topics = psg_topics.assign(claims=[existing(row) for row in psg_topics.itertuples(index=False)])
        kept = psg_topics[psg_topics["claims"].map(len) > 0]
        psg_qrels = psg_qrels[psg_qrels["qid"].isin(set(kept["qid"]))]
        # Renumber so that passage topics are PSG-1..PSG-n without gaps.
        renumber = {old: f"PSG-{i + 1}" for i, old in enumerate(kept["qid"])}
        psg_topics = kept.assign(qid=kept["qid"].map(renumber)).reset_index(drop=True)
        psg_qrels = psg_qrels.assign(qid=psg_qrels["qid"].map(renumber)).reset_index(drop=True)
    graded = graded_from_passages(psg_qrels)
    family_files = earlier_family_files(con, "selected") if not psg_topics.empty else {}

    checks = check_collection(con, pac_qrels=judgements, psg_qrels=psg_qrels)
    topic_meta = con.execute(
        """SELECT s.qid, s.patent_key, s.topic_ucid, s.abstract_ucid, d.lang, d.ipc[1] AS ipc, s.family_id
           FROM selected s JOIN documents d ON d.ucid = s.topic_ucid"""
    ).df().set_index("qid").reindex(selected["qid"]).reset_index()
    per_topic = judgements.groupby("qid").agg(relevant=("docno", "size"), highly=("rel", lambda r: int((r == 2).sum())))
    topic_meta = topic_meta.join(per_topic, on="qid")
    topic_meta[["relevant", "highly"]] = topic_meta[["relevant", "highly"]].fillna(0).astype(int)
    topic_meta = topic_meta.join(selected.set_index("qid")[["n_citations", "n_search_in_corpus"]], on="qid")
    lap("topic files prepared")

    parameters = {
        "split": asdict(split), "criteria": criteria.as_dict(), "stratify": stratify, "per_group": per_group,
        "ipc_level": ipc_level, "size": topic_set_info["requested"], "seed": seed, "family": family,
        "patent_level": patent_level, "theta_ind": theta_ind, "theta_dep": theta_dep, "passages": passages,
        "max_passage_topics_per_patent": max_passage_topics_per_patent,
    }
    counts = {
        "pac_topics": int(len(selected)), "pac_judgements": int(len(judgements)),
        "pac_highly_relevant": int((judgements["rel"] == 2).sum()) if len(judgements) else 0,
        "claim_judgements": int(len(claim_qrels)), "theta_rows": int(len(theta)),
        "psg_topics": int(len(psg_topics)), "psg_passages": int(len(psg_qrels)), "psg_graded": int(len(graded)),
    }
    summary = BuildSummary(
        out_dir=str(target), parameters=parameters, split=split_summary.as_dict(), selection=report.as_dict(),
        stratified=stratified_report, topic_set=topic_set_info, counts=counts, checks=checks,
    )
    with atomic_directory(target) as tmp:
        write_pac_topics(tmp, selected, documents)
        if passages:
            write_psg_topics(tmp, psg_topics, documents, family_files)
        write_rows(tmp / "qrels_PAC.txt", "{} 0 {} {}", judgements, ["qid", "docno", "rel"])
        with atomic_output(tmp / "judgements.tsv") as handle:
            judgements.to_csv(handle, sep="\t", index=False, lineterminator="\n")
        write_rows(tmp / "qrels_PAC_claims.txt", "{} {} {} {}", claim_qrels, ["qid", "subtopic", "docno", "rel"])
        write_rows(tmp / "theta_PAC.txt", "{} {} {:.10g}", theta, ["qid", "subtopic", "weight"])
        if passages:
            write_rows(tmp / "qrels_PSG.txt", "{} {} {}", psg_qrels, ["qid", "docno", "xpath"])
            write_rows(tmp / "qrels_PSG_graded.txt", "{} 0 {} {}", graded, ["qid", "docno", "grade"])
            with atomic_output(tmp / "topics_PSG.tsv") as handle:
                psg_topics.assign(claims=psg_topics["claims"].map(lambda c: ",".join(map(str, c)))).to_csv(
                    handle, sep="\t", index=False, lineterminator="\n")
        with atomic_output(tmp / "topics.tsv") as handle:
            topic_meta.to_csv(handle, sep="\t", index=False, lineterminator="\n")
        lap("files written")
        summary.seconds = round(time.perf_counter() - started, 3)
        summary.timings = timings
        with atomic_output(tmp / "build.json") as handle:
            json.dump(summary.as_dict(), handle, indent=2, default=str)
            handle.write("\n")
    return summary
