"""Step 2 and 3: topic candidates, their features, and topic selection by criteria.

The criteria of the two CLEF-IP topic selections are each a parameter of
:class:`SelectionCriteria`, applied in a fixed order, and :func:`select_topics` reports how
many candidates each removed -- the papers report the same funnel (Roda et al. 2009:
500,000 -> 80,000 -> 31,000 -> 16,000).

Roda et al. 2009 (CLEF-IP 2009)
    granted version available; full-text description present; at least 3 citations; at
    least one highly relevant (X or Y) citation in the corpus.
CLEF-IP 2013 (passage task)
    not in the corpus; published by the EPO; at least one earlier family member; all
    parts present (claims, abstract, description); fewer than 300,000 words; 2 to 10
    search-report citations present in the corpus (then stratified sampling, see
    :mod:`pateval.collection.sampling`).

Citations are counted per *cited patent* (all publications of a cited application count
once) over all publications of the topic patent, restricted to the judgement sources the
caller keeps. A citation is "in the corpus" when a publication of the cited patent is.

The *topic file* of a patent (Roda et al.) is virtual: the highest B publication with the
abstract of the highest A publication and no citations; a patent without B uses its
highest A. :func:`topic_features` computes the criteria's inputs on that virtual file.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

import pandas as pd

from ..errors import ParameterError
from ..patents.records import CITATION_SOURCES

__all__ = ["SelectionCriteria", "CriterionCount", "SelectionReport", "topic_features", "select_topics",
           "patent_citations"]


@dataclass(frozen=True)
class SelectionCriteria:
    """Which topic-selection criteria to apply, and their parameters (None / False = off).

    Attributes
    ----------
    not_in_corpus : bool
        No publication of the patent lies in the corpus (else its own earlier publication
        would be in the collection it is searched against). On by default.
    granted : bool
        A granted (B) publication exists (Roda: claims in DE, EN and FR).
    description : bool
        The topic file has a full-text description.
    min_citations : int or None
        At least this many cited patents (in the corpus or not).
    min_xy_in_corpus : int or None
        At least this many X or Y citations whose patent is in the corpus.
    epo_only : bool
        Published by the EPO (country EP).
    earlier_family_member : bool
        Some other patent of the same family was published earlier.
    all_parts : bool
        The topic file has claims, abstract and description.
    max_words : int or None
        The topic file has fewer words than this (CLEF-IP 2013: 300,000).
    min_search_citations_in_corpus, max_search_citations_in_corpus : int or None
        Number of search-report citations (source ``search``) in the corpus, inclusive
        bounds (CLEF-IP 2013: 2 and 10).
    sources : tuple of str
        The citation sources that count as judgements (see
        :data:`pateval.patents.records.CITATION_SOURCES`).
    """

    not_in_corpus: bool = True
    granted: bool = False
    description: bool = False
    min_citations: int | None = None
    min_xy_in_corpus: int | None = None
    epo_only: bool = False
    earlier_family_member: bool = False
    all_parts: bool = False
    max_words: int | None = None
    min_search_citations_in_corpus: int | None = None
    max_search_citations_in_corpus: int | None = None
    sources: tuple[str, ...] = tuple(sorted(CITATION_SOURCES))

    def __post_init__(self) -> None:
        for name in ("min_citations", "min_xy_in_corpus", "max_words",
                     "min_search_citations_in_corpus", "max_search_citations_in_corpus"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
                raise ParameterError(f"{name} must be a non-negative integer or None, not {value!r}")
        low, high = self.min_search_citations_in_corpus, self.max_search_citations_in_corpus
        if low is not None and high is not None and low > high:
            raise ParameterError(f"min_search_citations_in_corpus ({low}) > max_search_citations_in_corpus ({high})")
        unknown = set(self.sources) - CITATION_SOURCES
        if unknown or not self.sources:
            raise ParameterError(f"sources must be a non-empty subset of {sorted(CITATION_SOURCES)}, "
                                 f"got {list(self.sources)}")

    @classmethod
    def roda2009(cls, **changes) -> SelectionCriteria:
        """The CLEF-IP 2009 criteria (Roda et al.), with ``changes`` applied."""
        return cls(**{**_RODA2009, **changes})

    @classmethod
    def clefip2013(cls, **changes) -> SelectionCriteria:
        """The CLEF-IP 2013 passage-task criteria, with ``changes`` applied."""
        return cls(**{**_CLEFIP2013, **changes})

    @classmethod
    def preset(cls, name: str, **changes) -> SelectionCriteria:
        """``"roda2009"``, ``"clefip2013"``, ``"both"`` (the criteria of the two together)
        or ``"none"`` (only ``not_in_corpus``), with ``changes`` applied."""
        presets = {"roda2009": _RODA2009, "clefip2013": _CLEFIP2013, "both": {**_RODA2009, **_CLEFIP2013}, "none": {}}
        if name not in presets:
            raise ParameterError(f"criteria preset must be one of {sorted(presets)}, not {name!r}")
        return cls(**{**presets[name], **changes})

    def as_dict(self) -> dict:
        data = asdict(self)
        data["sources"] = list(self.sources)
        return data


_RODA2009 = {"granted": True, "description": True, "min_citations": 3, "min_xy_in_corpus": 1}
_CLEFIP2013 = {"epo_only": True, "earlier_family_member": True, "all_parts": True, "max_words": 300_000,
               "min_search_citations_in_corpus": 2, "max_search_citations_in_corpus": 10}


@dataclass(frozen=True)
class CriterionCount:
    """One step of the selection funnel."""

    criterion: str
    description: str
    before: int
    removed: int
    after: int


@dataclass
class SelectionReport:
    """The selection funnel: candidates in the pool and what each criterion removed."""

    candidates: int
    steps: list[CriterionCount] = field(default_factory=list)

    @property
    def selected(self) -> int:
        return self.steps[-1].after if self.steps else self.candidates

    def as_dict(self) -> dict:
        return {"candidates": self.candidates, "selected": self.selected, "steps": [asdict(s) for s in self.steps]}


def sources_sql(sources) -> str:
    """Citation sources as an SQL list: ``('examiner', 'search')``."""
    return "(" + ", ".join(f"'{s}'" for s in sorted(sources)) + ")"


def patent_citations(con, *, sources: tuple[str, ...]) -> None:
    """Table ``topic_citations``: the citations of every pool patent, one row per (patent,
    cited publication, source), with whether the cited patent is in the corpus.

    Columns: ``patent_key``, ``cited_ucid``, ``cited_patent_key``, ``source``,
    ``categories``, ``relevant_claims``, ``passages``, ``cited_in_corpus``,
    ``highly_relevant``.
    """
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE topic_citations AS
        WITH corpus_patents AS (SELECT DISTINCT patent_key FROM doc_part WHERE part = 'corpus'),
        pool AS (SELECT patent_key FROM patents WHERE in_pool),
        raw AS (
            SELECT dp.patent_key, c.cited_ucid, c.cited_patent_key, c.source, c.categories,
                   c.relevant_claims, c.passages
            FROM citations c JOIN doc_part dp ON dp.ucid = c.citing_ucid
            WHERE dp.patent_key IN (SELECT patent_key FROM pool) AND c.source IN {sources_sql(sources)}
              AND c.cited_patent_key <> dp.patent_key
        )
        SELECT patent_key, cited_ucid, cited_patent_key, source,
               string_agg(DISTINCT categories, '') AS categories,
               list_sort(list_distinct(flatten(list(relevant_claims)))) AS relevant_claims,
               list_sort(list_distinct(flatten(list(passages)))) AS passages,
               cited_patent_key IN (SELECT patent_key FROM corpus_patents) AS cited_in_corpus,
               (string_agg(categories, '') LIKE '%X%' OR string_agg(categories, '') LIKE '%Y%') AS highly_relevant
        FROM raw GROUP BY patent_key, cited_ucid, cited_patent_key, source"""
    )


def topic_features(con, *, sources: tuple[str, ...]) -> pd.DataFrame:
    """The inputs of every criterion, one row per candidate (patent with a publication in
    the topic pool).

    Needs the tables of :func:`pateval.collection.split.split_by_date` and
    :func:`~pateval.collection.split.group_patents`. Builds ``topic_citations``
    (:func:`patent_citations`) on the way.

    Returns
    -------
    pandas.DataFrame
        Columns ``patent_key``, ``country``, ``family_id``, ``topic_ucid`` (the B, else
        the A publication the topic file is built from), ``abstract_ucid``, ``text_ucid``,
        ``lang``, ``ipc`` (first IPC symbol), ``in_corpus``, ``granted``,
        ``has_description``, ``has_claims``, ``has_abstract``, ``n_words``,
        ``n_citations``, ``n_xy_in_corpus``, ``n_search_in_corpus``,
        ``n_cited_in_corpus``, ``earlier_family_member``; sorted by patent key.
    """
    patent_citations(con, sources=sources)
    return con.execute(
        """WITH cand AS (
            SELECT p.*, coalesce(p.b_ucid, p.a_ucid) AS topic_ucid FROM patents p WHERE p.in_pool
        ),
        cites AS (
            SELECT patent_key,
                   count(DISTINCT cited_patent_key) AS n_citations,
                   count(DISTINCT cited_patent_key) FILTER (WHERE cited_in_corpus AND highly_relevant)
                       AS n_xy_in_corpus,
                   count(DISTINCT cited_patent_key) FILTER (WHERE cited_in_corpus AND source = 'search')
                       AS n_search_in_corpus,
                   count(DISTINCT cited_patent_key) FILTER (WHERE cited_in_corpus) AS n_cited_in_corpus
            FROM topic_citations GROUP BY patent_key
        ),
        abstract_words AS (
            SELECT ucid, sum(len(string_split(text, ' '))) AS abstract_words FROM abstracts
            WHERE ucid IN (SELECT a_ucid FROM cand) GROUP BY ucid
        ),
        earlier AS (
            SELECT c.patent_key, bool_or(o.first_date < c.first_date) AS earlier_family_member
            FROM cand c JOIN patents o ON o.family_id = c.family_id AND o.patent_key <> c.patent_key
            WHERE c.family_id IS NOT NULL
            GROUP BY c.patent_key
        )
        SELECT c.patent_key, c.country, c.family_id, c.topic_ucid, c.a_ucid AS abstract_ucid, c.text_ucid,
               t.lang, t.ipc[1] AS ipc, c.in_corpus, c.b_ucid IS NOT NULL AS granted,
               coalesce(t.has_description, false) AS has_description, coalesce(t.has_claims, false) AS has_claims,
               (coalesce(t.has_abstract, false) OR coalesce(a.has_abstract, false)) AS has_abstract,
               coalesce(t.n_words, 0)
                   + CASE WHEN NOT coalesce(t.has_abstract, false) THEN coalesce(aw.abstract_words, 0) ELSE 0 END
                   AS n_words,
               coalesce(ci.n_citations, 0) AS n_citations,
               coalesce(ci.n_xy_in_corpus, 0) AS n_xy_in_corpus,
               coalesce(ci.n_search_in_corpus, 0) AS n_search_in_corpus,
               coalesce(ci.n_cited_in_corpus, 0) AS n_cited_in_corpus,
               coalesce(e.earlier_family_member, false) AS earlier_family_member
        FROM cand c
        LEFT JOIN documents t ON t.ucid = c.topic_ucid
        LEFT JOIN documents a ON a.ucid = c.a_ucid
        LEFT JOIN abstract_words aw ON aw.ucid = c.a_ucid
        LEFT JOIN cites ci ON ci.patent_key = c.patent_key
        LEFT JOIN earlier e ON e.patent_key = c.patent_key
        ORDER BY c.patent_key"""
    ).df()


# (criterion field, description formatted with the criteria as c, predicate on the features and the criteria)
_STEPS = (
    ("not_in_corpus", "not in the corpus (no publication before the split)", lambda f, c: ~f["in_corpus"]),
    ("granted", "granted version (B) available", lambda f, c: f["granted"]),
    ("description", "full-text description present", lambda f, c: f["has_description"]),
    ("min_citations", "at least {c.min_citations} citations", lambda f, c: f["n_citations"] >= c.min_citations),
    ("min_xy_in_corpus", "at least {c.min_xy_in_corpus} X/Y citation(s) in the corpus",
     lambda f, c: f["n_xy_in_corpus"] >= c.min_xy_in_corpus),
    ("epo_only", "published by the EPO", lambda f, c: f["country"] == "EP"),
    ("earlier_family_member", "at least one earlier family member", lambda f, c: f["earlier_family_member"]),
    ("all_parts", "claims, abstract and description present",
     lambda f, c: f["has_claims"] & f["has_abstract"] & f["has_description"]),
    ("max_words", "fewer than {c.max_words} words", lambda f, c: f["n_words"] < c.max_words),
    ("min_search_citations_in_corpus",
     "at least {c.min_search_citations_in_corpus} search-report citations in the corpus",
     lambda f, c: f["n_search_in_corpus"] >= c.min_search_citations_in_corpus),
    ("max_search_citations_in_corpus",
     "at most {c.max_search_citations_in_corpus} search-report citations in the corpus",
     lambda f, c: f["n_search_in_corpus"] <= c.max_search_citations_in_corpus),
)
_CRITERIA_NAMES = {f.name for f in fields(SelectionCriteria)} - {"sources"}
if {name for name, _, _ in _STEPS} != _CRITERIA_NAMES:  # pragma: no cover - a programming error
    raise RuntimeError("every selection criterion needs exactly one step")


def select_topics(features: pd.DataFrame, criteria: SelectionCriteria) -> tuple[pd.DataFrame, SelectionReport]:
    """Apply the criteria in order and count what each removes.

    Parameters
    ----------
    features : pandas.DataFrame
        From :func:`topic_features`.
    criteria : SelectionCriteria

    Returns
    -------
    selected : pandas.DataFrame
        The rows of ``features`` that pass every criterion that is on.
    report : SelectionReport
        One step per criterion that is on, in order, with the candidates before it, how
        many it removed and how many are left.
    """
    report = SelectionReport(candidates=len(features))
    current = features
    for name, description, predicate in _STEPS:
        value = getattr(criteria, name)
        if value is None or value is False:
            continue
        keep = predicate(current, criteria).fillna(False).astype(bool)
        after = current[keep]
        report.steps.append(CriterionCount(name, description.format(c=criteria), len(current),
                                           len(current) - len(after), len(after)))
        current = after
    return current.reset_index(drop=True), report
