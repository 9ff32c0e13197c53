"""Step 5: relevance judgements from citations, at four levels.

Document level (PAC topics)
    Every citation whose patent is in the corpus is relevant (1); X and Y citations are
    highly relevant (2). At patent level (the default, as the CLEF-IP 2010 qrels), every
    corpus publication of a cited patent is judged; otherwise only the cited publication.
    Family extension (Roda et al.'s "extended citations"): ``"cited"`` adds the corpus
    documents of the cited patents' families (same grade), ``"topic"`` adds the
    citations of the topic's own family members, ``"both"`` does both.
Claim level (subtopics of the Cube Test)
    A citation relevant to claims 1-3 makes its documents relevant to subtopics 1, 2 and
    3 of the topic: ``qid subtopic docno rel``. The theta file gives each claim of the
    topic its importance, independent 1, dependent 0.5, normalised
    (:func:`pateval.patents.claims.claim_weights`): ``qid subtopic weight``.
Passage level (PSG topics, CLEF-IP 2012/2013)
    A passage topic is a set of claims of a topic patent: the claims one group of its
    search-report citations is relevant to. Its qrels are the passages those citations
    mark, as XPaths: ``PSG-n docno xpath``.
Graded (Luo et al. on CLEF-IP 2012)
    From the number of relevant paragraphs: ``grade = ceil(NRelPara(d, q) / max NRelPara
    * 4)``, the maximum over all (document, topic) pairs, so grades 1 to 4.

Every judgement keeps the sources (search, examiner, applicant, ...) and categories of the
citations behind it (:func:`document_judgements`), and the caller chooses the sources that
count.
"""

from __future__ import annotations

import math

import pandas as pd

from ..errors import ParameterError
from ..patents.claims import claim_weights
from .topics import sources_sql

__all__ = ["FAMILY_EXTENSIONS", "document_judgements", "claim_judgements", "claim_theta", "passage_topics",
           "graded_from_passages", "qid_order"]

FAMILY_EXTENSIONS = ("none", "cited", "topic", "both")


def qid_order(frame: pd.DataFrame, *others: str) -> pd.DataFrame:
    """Sort by topic number (PAC-2 before PAC-10), then by the other columns."""
    if frame.empty:
        return frame.reset_index(drop=True)
    number = frame["qid"].str.extract(r"(\d+)$", expand=False).astype(int)
    return (frame.assign(_n=number).sort_values(["_n", *others], kind="stable").drop(columns="_n")
            .reset_index(drop=True))


def document_judgements(con, *, sources, family: str = "none", patent_level: bool = True) -> pd.DataFrame:
    """Document-level judgements of the topics in table ``selected`` (qid, patent_key,
    family_id).

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        With ``doc_part``, ``patents``, ``citations`` and ``selected``.
    sources : collection of str
        The citation sources that count.
    family : {"none", "cited", "topic", "both"}
        Family extension (see the module notes).
    patent_level : bool
        Judge every corpus publication of a cited patent (True) or only the cited one.

    Returns
    -------
    pandas.DataFrame
        ``qid``, ``docno``, ``rel`` (1 or 2), ``sources`` and ``categories`` (the
        citations' own, comma-joined), ``via`` (``cited``, ``cited-family``,
        ``topic-family``), ``cited`` (the cited publications behind it); one row per
        (qid, docno), only corpus documents, sorted by topic number then docno.
    """
    if family not in FAMILY_EXTENSIONS:
        raise ParameterError(f"family extension must be one of {FAMILY_EXTENSIONS}, not {family!r}")
    source_filter = sources_sql(sources)
    topic_family = ""
    if family in ("topic", "both"):
        topic_family = f"""
            UNION ALL
            SELECT s.qid, s.patent_key AS topic_key, c.cited_ucid, c.cited_patent_key, c.source, c.categories,
                   'topic-family' AS via
            FROM selected s
            JOIN doc_part m ON m.family_id = s.family_id AND m.patent_key <> s.patent_key
            JOIN citations c ON c.citing_ucid = m.ucid
            WHERE c.source IN {source_filter}"""
    match = "t.patent_key = k.cited_patent_key" if patent_level else "t.ucid = k.cited_ucid"
    cited_family = ""
    if family in ("cited", "both"):
        cited_family = """
            UNION ALL
            SELECT k.qid, k.topic_key, k.cited_ucid, k.source, k.categories, 'cited-family' AS via, t.ucid AS docno,
                   t.patent_key AS doc_key
            FROM cites k
            JOIN patents cp ON cp.patent_key = k.cited_patent_key AND cp.family_id IS NOT NULL
            JOIN doc_part t ON t.family_id = cp.family_id AND t.part = 'corpus'
                           AND t.patent_key <> k.cited_patent_key"""
    frame = con.execute(
        f"""WITH cites AS (
            SELECT s.qid, s.patent_key AS topic_key, c.cited_ucid, c.cited_patent_key, c.source, c.categories,
                   'cited' AS via
            FROM selected s
            JOIN doc_part d ON d.patent_key = s.patent_key
            JOIN citations c ON c.citing_ucid = d.ucid
            WHERE c.source IN {source_filter} AND c.cited_patent_key <> s.patent_key
            {topic_family}
        ),
        targets AS (
            SELECT k.qid, k.topic_key, k.cited_ucid, k.source, k.categories, k.via, t.ucid AS docno,
                   t.patent_key AS doc_key
            FROM cites k JOIN doc_part t ON {match} AND t.part = 'corpus'
            {cited_family}
        )
        SELECT qid, docno,
               CASE WHEN bool_or(categories LIKE '%X%' OR categories LIKE '%Y%') THEN 2 ELSE 1 END AS rel,
               string_agg(DISTINCT source, ',' ORDER BY source) AS sources,
               coalesce(string_agg(DISTINCT nullif(categories, ''), ',' ORDER BY nullif(categories, '')), '')
                   AS categories,
               string_agg(DISTINCT via, ',' ORDER BY via) AS via,
               string_agg(DISTINCT cited_ucid, ',' ORDER BY cited_ucid) AS cited
        FROM targets WHERE doc_key <> topic_key
        GROUP BY qid, docno"""
    ).df()
    return qid_order(frame, "docno")


def claim_judgements(con, *, sources, patent_level: bool = True) -> pd.DataFrame:
    """Claim-level (subtopic) judgements of the topics in ``selected``: a citation
    relevant to a claim makes its corpus documents relevant to that claim.

    Only the topic's own citations count (their relevant-claims lists name the topic's
    claims), and only claims that the topic file has (table ``topic_claims``).

    Returns
    -------
    pandas.DataFrame
        ``qid``, ``subtopic`` (claim number), ``docno``, ``rel`` (2 for X/Y, else 1),
        one row per (qid, subtopic, docno).
    """
    match = "t.patent_key = c.cited_patent_key" if patent_level else "t.ucid = c.cited_ucid"
    frame = con.execute(
        f"""WITH cites AS (
            SELECT s.qid, s.patent_key, c.cited_ucid, c.cited_patent_key, c.categories,
                   unnest(c.relevant_claims) AS subtopic
            FROM selected s
            JOIN doc_part d ON d.patent_key = s.patent_key
            JOIN citations c ON c.citing_ucid = d.ucid
            WHERE c.source IN {sources_sql(sources)} AND c.cited_patent_key <> s.patent_key
        )
        SELECT c.qid, c.subtopic, t.ucid AS docno,
               CASE WHEN bool_or(c.categories LIKE '%X%' OR c.categories LIKE '%Y%') THEN 2 ELSE 1 END AS rel
        FROM cites c
        JOIN doc_part t ON {match} AND t.part = 'corpus'
        JOIN topic_claims tc ON tc.qid = c.qid AND tc.number = c.subtopic
        GROUP BY c.qid, c.subtopic, t.ucid"""
    ).df()
    return qid_order(frame, "subtopic", "docno")


def claim_theta(topic_claims: pd.DataFrame, *, theta_ind: float = 1.0, theta_dep: float = 0.5) -> pd.DataFrame:
    """The subtopic weights of each topic's claims (``qid``, ``subtopic``, ``weight``).

    Parameters
    ----------
    topic_claims : pandas.DataFrame
        ``qid``, ``number``, ``depends_on`` (sequence of claim numbers).
    theta_ind, theta_dep : float
        Importance of independent and dependent claims before normalisation.
    """
    rows: list[tuple] = []
    for qid, group in topic_claims.groupby("qid", sort=False):
        parents = {int(n): tuple(map(int, deps)) for n, deps in zip(group["number"], group["depends_on"], strict=False)}
        weights = claim_weights(parents, theta_ind=theta_ind, theta_dep=theta_dep)
        rows.extend((qid, number, weight) for number, weight in weights.items())
    return qid_order(pd.DataFrame(rows, columns=["qid", "subtopic", "weight"]), "subtopic")


def passage_topics(con, *, sources, first_number: int = 1, max_per_patent: int | None = None) -> tuple[pd.DataFrame,
                                                                                                       pd.DataFrame]:
    """Passage-retrieval topics (CLEF-IP 2012/2013) of the patents in ``selected``.

    Each distinct relevant-claims set of a patent's search-report citations whose cited
    publication is in the corpus and marks passages by XPath becomes one topic: its
    claims are that set, its qrels the marked passages. The topic file is the patent's
    highest A publication with text (``text_ucid`` in ``selected``).

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
    sources : collection of str
    first_number : int
        Number of the first topic (``PSG-1``).
    max_per_patent : int, optional
        At most this many passage topics per patent (the claim sets with most passages).

    Returns
    -------
    topics : pandas.DataFrame
        ``qid`` (``PSG-n``), ``patent_key``, ``tfile_ucid``, ``claims`` (list of int).
    qrels : pandas.DataFrame
        ``qid``, ``docno``, ``xpath``, sorted.
    """
    limit = "" if max_per_patent is None else f"WHERE rank <= {int(max_per_patent)}"
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE _psg_passages AS
        WITH marked AS (
            SELECT DISTINCT s.order_index, s.patent_key, s.text_ucid,
                   array_to_string(list_sort(list_distinct(c.relevant_claims)), ',') AS claim_key,
                   c.cited_ucid AS docno, unnest(c.passages) AS xpath
            FROM selected s
            JOIN doc_part d ON d.patent_key = s.patent_key
            JOIN citations c ON c.citing_ucid = d.ucid
            JOIN doc_part t ON t.ucid = c.cited_ucid AND t.part = 'corpus'
            WHERE c.source IN {sources_sql(sources)} AND s.text_ucid IS NOT NULL
              AND len(c.relevant_claims) > 0
        ),
        passages AS (SELECT DISTINCT * FROM marked WHERE starts_with(xpath, '/patent-document/')),
        sets AS (
            SELECT order_index, patent_key, text_ucid, claim_key, count(*) AS n_passages
            FROM passages GROUP BY ALL
        ),
        ranked AS (
            SELECT *, row_number() OVER (PARTITION BY order_index, patent_key, text_ucid
                                         ORDER BY n_passages DESC, claim_key) AS rank
            FROM sets
        ),
        kept AS (SELECT * FROM ranked {limit}),
        numbered AS (
            SELECT *, {int(first_number) - 1} + row_number() OVER (ORDER BY order_index, patent_key, text_ucid, rank)
                   AS number
            FROM kept
        )
        SELECT n.number, n.patent_key, n.text_ucid, n.claim_key, p.docno, p.xpath
        FROM numbered n JOIN passages p USING (order_index, patent_key, text_ucid, claim_key)"""
    )
    topics = con.execute(
        """SELECT DISTINCT number, patent_key, text_ucid AS tfile_ucid, claim_key FROM _psg_passages ORDER BY number"""
    ).df()
    qrels = con.execute(
        """SELECT 'PSG-' || number AS qid, docno, xpath FROM _psg_passages ORDER BY number, docno, xpath"""
    ).df()
    topics = pd.DataFrame({
        "qid": ["PSG-" + str(n) for n in topics["number"]], "patent_key": topics["patent_key"],
        "tfile_ucid": topics["tfile_ucid"], "claims": [[int(x) for x in key.split(",")] for key in topics["claim_key"]],
    })
    return topics, qrels.reset_index(drop=True)


def graded_from_passages(passage_qrels: pd.DataFrame, *, levels: int = 4) -> pd.DataFrame:
    """Graded document judgements from relevant-paragraph counts (Luo et al.).

    ``grade = ceil(NRelPara(d, q) / max NRelPara * levels)``, the maximum taken over all
    (document, topic) pairs, so grades run from 1 to ``levels``.

    Returns
    -------
    pandas.DataFrame
        ``qid``, ``docno``, ``n_paragraphs``, ``grade``.
    """
    if isinstance(levels, bool) or not isinstance(levels, int) or levels < 1:
        raise ParameterError(f"levels must be a positive integer, not {levels!r}")
    if passage_qrels.empty:
        return pd.DataFrame(columns=["qid", "docno", "n_paragraphs", "grade"])
    counts = (passage_qrels.drop_duplicates(["qid", "docno", "xpath"])
              .groupby(["qid", "docno"], sort=False).size().rename("n_paragraphs").reset_index())
    top = int(counts["n_paragraphs"].max())
    counts["grade"] = counts["n_paragraphs"].map(lambda n: max(1, math.ceil(n / top * levels)))
    return qid_order(counts, "docno")
