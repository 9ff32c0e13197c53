"""Searching topics: TREC runs, grids of runs, and passage runs.

A *configuration* is a ranking model and a query strategy (:class:`SearchConfig`); its run
tag is ``MODEL.STRATEGY`` (``bm25.claims``, ``lm.full,top=100``), so a run file says how it
was made. For each topic the query (or queries) of the strategy go to the engine:

1. the engine's BM25 ranks the documents matching any query term, restricted by the
   filters (published before the topic's earliest date; IPC subclass with ``ipc=filter``);
2. with ``bm25`` as the engine computes it, its top documents are the run; any other
   model re-scores the engine's top ``candidates`` documents exactly
   (:func:`pateval.search.models.rescore`) and keeps the best ``depth``; with
   ``ipc=boost`` the documents sharing an IPC subclass with the topic get a share of the
   candidates' score range added (any model, over ``candidates`` documents);
3. publications of the topic's own patent and family are dropped (they are not prior art
   of the topic, and CLEF-IP's corpus never holds the topic itself);
4. several queries of one topic (``split=claims``) are merged as the strategy says.

Passage retrieval (CLEF-IP 2012/2013 PSG topics) ranks the description paragraphs of the
best documents for the topic's claims with BM25 over paragraphs (the index's idf, paragraph
lengths normalised among the paragraphs ranked), and writes the 6-column passage format
``topic Q0 docno xpath passage_rank passage_score``, documents in document-rank order and
passages ranked within their document.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import tantivy

from ..errors import ParameterError, PatevalError, malformed
from ..formats.atomic import atomic_directory, atomic_output
from ..formats.source import decode_text
from ..patents.records import PatentDocument
from .analyzers import TEXT_FIELDS, analyze, field_name, language_of
from .index import SearchIndex, date_number
from .models import BM25, TFIDF, LMDirichlet, parse_model, rescore
from .queries import SEED_QUERY_GRID, Query, QuerySpec, formulate, parse_query_spec

__all__ = ["SearchConfig", "Topic", "PassageTopic", "load_topics", "load_passage_topics", "search_topic",
           "search_topics", "write_trec_run", "run_grid", "grid_configs", "GRIDS", "search_passages",
           "write_passage_run", "RunResult", "run_metadata", "topic_date", "engine_query"]

_RRF_K = 60.0
_UNITS = ("publication", "patent")


@dataclass(frozen=True)
class SearchConfig:
    """One baseline: a model, a query strategy, and how deep to rank.

    Attributes
    ----------
    model : BM25, LMDirichlet or TFIDF (or its name, e.g. ``"lm:mu=1000"``)
    query : QuerySpec (or its name, e.g. ``"title+claims,top=100"``)
    depth : int
        Documents per topic in the run (1,000 as in CLEF-IP).
    candidates : int
        How many of the engine's BM25 documents a re-scored model ranks.
    date_filter : bool
        Only documents published before the topic's earliest date (priority, filing or
        publication date, whichever the topic file gives).
    exclude_family : bool
        Drop publications of the topic's patent and family.
    unit : {"publication", "patent"}
        ``patent`` keeps only the best publication of each patent.
    """

    model: BM25 | LMDirichlet | TFIDF = field(default_factory=BM25)
    query: QuerySpec = field(default_factory=QuerySpec)
    depth: int = 1000
    candidates: int = 2000
    date_filter: bool = True
    exclude_family: bool = True
    unit: str = "publication"

    if TYPE_CHECKING:  # names are accepted too, and parsed by __post_init__
        def __init__(self, model: BM25 | LMDirichlet | TFIDF | str = ..., query: QuerySpec | str = ...,
                     depth: int = ..., candidates: int = ..., date_filter: bool = ..., exclude_family: bool = ...,
                     unit: str = ...) -> None: ...

    def __post_init__(self) -> None:
        object.__setattr__(self, "model", parse_model(self.model))
        object.__setattr__(self, "query", parse_query_spec(self.query))
        if self.depth < 1:
            raise ParameterError(f"depth must be >= 1; got {self.depth}")
        if self.candidates < self.depth and (not self.model.native or self.query.ipc == "boost"):
            raise ParameterError(f"candidates ({self.candidates}) must be >= depth ({self.depth}) for re-scored "
                                 "models and ipc=boost")
        if self.unit not in _UNITS:
            raise ParameterError(f"unit must be one of {', '.join(_UNITS)}; got {self.unit!r}")

    @property
    def tag(self) -> str:
        """The run tag: ``MODEL.STRATEGY`` (no white space)."""
        return f"{self.model.tag}.{self.query.name}"


@dataclass
class Topic:
    """A prior-art topic: its id and the patent document the query is made from."""

    qid: str
    document: PatentDocument


@dataclass
class PassageTopic:
    """A passage topic (CLEF-IP PSG): the topic document and the XPaths of its claims."""

    qid: str
    document: PatentDocument
    claim_xpaths: tuple[str, ...]


# ---- topics ---------------------------------------------------------------------------------

_NUM = re.compile(r"<num>\s*(.*?)\s*</num>", re.S)
_FILE = re.compile(r"<file>\s*(.*?)\s*</file>", re.S)


def _topic_file(base: Path, name: str, subdir: str) -> Path:
    for candidate in (base / name, base / "topics" / subdir / name, base / subdir / name):
        if candidate.is_file():
            return candidate
    raise PatevalError(f"{base}: topic file {name} not found (looked beside the topics file and in topics/{subdir}/)")


def load_topics(path: str | os.PathLike[str]) -> list[Topic]:
    """Prior-art topics from a CLEF-IP topics file or a directory of topic files.

    Parameters
    ----------
    path : path-like
        A topics file in the CLEF-IP 2011 style (``<topic><num>PAC-1</num>...<file>PAC-1_EP-...xml
        </file></topic>``, files looked up beside it or in ``topics/PAC/``), a collection
        directory holding ``topics_PAC.xml``, or a directory of topic XML files (topic id:
        the file name up to the first ``_``, as in ``PAC-1_EP-1221372-B1.xml``).
    """
    from ..patents.reader import read_patent

    path = Path(path)
    if path.is_dir() and (path / "topics_PAC.xml").is_file():
        path = path / "topics_PAC.xml"
    if path.is_dir():
        if not (files := sorted(p for p in path.iterdir() if p.suffix.lower() == ".xml")):
            raise PatevalError(f"{path}: no topic XML files")
        return _checked_unique(path, [Topic(p.stem.split("_", 1)[0], read_patent(p)) for p in files])
    if not path.is_file():
        raise PatevalError(f"{path}: no such topics file or directory")
    text = decode_text(path, path.read_bytes(), show=True)
    if not (blocks := re.findall(r"<topic>(.*?)</topic>", text, re.S)):
        malformed(path, None, "no <topic> blocks", expected="<topic><num>ID</num><file>FILE</file></topic>")
    topics = []
    for block in blocks:
        num, file_name = _NUM.search(block), _FILE.search(block)
        if num is None or file_name is None:
            line = text[: text.find(block)].count("\n") + 1
            malformed(path, line, "a topic without <num> or <file>", found=block.strip()[:60])
        topics.append(Topic(num.group(1), read_patent(_topic_file(path.parent, file_name.group(1), "PAC"))))
    return _checked_unique(path, topics)


def _checked_unique(path, topics):
    seen = set()
    for topic in topics:
        if topic.qid in seen:
            raise PatevalError(f"{path}: topic {topic.qid} appears twice")
        seen.add(topic.qid)
    return topics


def load_passage_topics(path: str | os.PathLike[str]) -> list[PassageTopic]:
    """Passage topics from a CLEF-IP PSG topics file (``<tid>``, ``<tfile>``, ``<tclaims>``,
    read by :func:`pateval.formats.passages.read_passage_topics`) or a collection directory
    holding ``topics_PSG.txt``."""
    from ..formats.passages import read_passage_topics
    from ..patents.reader import read_patent

    path = Path(path)
    if path.is_dir():
        path = path / "topics_PSG.txt"
    if not path.is_file():
        raise PatevalError(f"{path}: no such passage topics file")
    documents: dict[str, PatentDocument] = {}
    topics = []
    for topic in read_passage_topics(path):
        assert topic.tid is not None and topic.tfile is not None  # read_passage_topics refuses such a topic
        if topic.tfile not in documents:
            documents[topic.tfile] = read_patent(_topic_file(path.parent, topic.tfile, "PSG"))
        topics.append(PassageTopic(topic.tid, documents[topic.tfile], topic.tclaims))
    return topics


# ---- searching ------------------------------------------------------------------------------


def topic_date(topic: PatentDocument) -> int:
    """The topic's earliest date (priority, filing or publication) as YYYYMMDD, 0 if it has
    none: with ``date_filter``, only documents published before it are searched."""
    return min(filter(None, map(date_number, (*topic.priority_dates, topic.application_date, topic.date))), default=0)


def engine_query(index: SearchIndex, query: Query, config: SearchConfig, date_before: int) -> tantivy.Query:
    """The engine's query for ``query``: its terms weighted per field by the query spec,
    restricted to documents dated before ``date_before`` (0: no restriction) and by the
    spec's IPC filter."""
    schema = index.schema
    weights = config.query.weights
    clauses = []
    for lang, terms in query.terms.items():
        for text_field in TEXT_FIELDS:
            if (weight := weights.get(text_field, 0.0)) <= 0:
                continue
            name = field_name(text_field, lang)
            for term, count in terms.items():
                clause = tantivy.Query.term_query(schema, name, term)
                clauses.append((tantivy.Occur.Should, tantivy.Query.boost_query(clause, weight * count)))
    parts = [(tantivy.Occur.Must, tantivy.Query.boolean_query(clauses))]
    if date_before:
        dated = tantivy.Query.range_query(schema, "date", tantivy.FieldType.Integer, None, date_before,
                                          include_upper=False)
        parts.append((tantivy.Occur.Must, tantivy.Query.const_score_query(dated, 0.0)))
    if query.ipc and config.query.ipc == "filter":
        shared = tantivy.Query.term_set_query(schema, "ipc", list(query.ipc))
        parts.append((tantivy.Occur.Must, tantivy.Query.const_score_query(shared, 0.0)))
    return tantivy.Query.boolean_query(parts)


def _one_query(index: SearchIndex, topic: PatentDocument, query: Query, config: SearchConfig,
               excluded: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Rows and scores of one query, best first, at most ``depth`` after exclusions."""
    date_before = topic_date(topic) if config.date_filter else 0
    compiled = engine_query(index, query, config, date_before)
    # a few extra hits make up for the topic's own publications dropped afterwards
    boost = bool(query.ipc) and config.query.ipc == "boost"
    limit = (config.depth if config.model.native and not boost else config.candidates) + 50
    hits = index.searcher.search(compiled, limit, count=False).hits
    rows = index.rows_of_hits(hits)
    scores = (np.asarray([score for score, _ in hits], dtype=np.float64) if config.model.native
              else rescore(index, config.model, query.terms, rows, config.query.weights))
    if boost and len(scores):
        # in proportion to the candidates' score range, so that one weight means the same for every model
        spread = float(scores.max() - scores.min())
        wanted, ipc_of = set(query.ipc), index.documents["ipc"].to_numpy()
        shared = np.array([bool(wanted.intersection(ipc_of[r])) for r in rows], dtype=bool)
        scores = scores + config.query.ipc_weight * spread * shared
    if excluded is not None and len(rows):
        keep = ~np.isin(rows, excluded)
        rows, scores = rows[keep], scores[keep]
    # best first; ties broken by ucid so that runs are reproducible whatever the engine's order
    order = np.lexsort((index.ucids[rows], -scores))[: config.depth + 50]
    return rows[order], scores[order]


def _excluded_rows(index: SearchIndex, topic: PatentDocument) -> np.ndarray:
    same = index.patent_keys == topic.patent_key
    if topic.family_id:
        same |= index.family_ids == topic.family_id
    return np.flatnonzero(same)


def _merge(results: list[tuple[np.ndarray, np.ndarray]], how: str) -> tuple[np.ndarray, np.ndarray]:
    if len(results) == 1:
        return results[0]
    merged: dict[int, float] = {}
    for rows, scores in results:
        if not len(rows):
            continue
        if how == "rrf":
            values = 1.0 / (_RRF_K + np.arange(1, len(rows) + 1))
        else:
            top = scores.max()
            values = scores / top if top > 0 else np.zeros_like(scores)
        for row, value in zip(rows.tolist(), values.tolist(), strict=False):
            merged[row] = max(merged.get(row, -np.inf), value) if how == "max" else merged.get(row, 0.0) + value
    rows = np.fromiter(merged, dtype=np.int64, count=len(merged))
    scores = np.fromiter(merged.values(), dtype=np.float64, count=len(merged))
    return rows, scores


def search_topic(index: SearchIndex, topic: PatentDocument, config: SearchConfig) -> list[tuple[str, float]]:
    """The ranking of one topic: ``[(docno, score), ...]``, best first, at most ``depth``.

    Ties are broken by document id, so equal scores always come out in the same order.
    """
    excluded = _excluded_rows(index, topic) if config.exclude_family else None
    if not (queries := formulate(topic, config.query, index)):
        return []
    rows, scores = _merge([_one_query(index, topic, q, config, excluded) for q in queries], config.query.merge)
    docnos = index.ucids[rows]
    order = np.lexsort((docnos, -scores))
    rows, scores, docnos = rows[order], scores[order], docnos[order]
    if config.unit == "patent":
        _, first = np.unique(index.patent_keys[rows], return_index=True)
        first.sort()
        rows, scores, docnos = rows[first], scores[first], docnos[first]
    return list(zip(docnos[: config.depth].tolist(), scores[: config.depth].tolist(), strict=False))


@dataclass
class RunResult:
    """One configuration's run: ``{topic: [(docno, score), ...]}`` and how long it took."""

    config: SearchConfig
    rankings: dict[str, list[tuple[str, float]]]
    seconds: float

    @property
    def tag(self) -> str:
        return self.config.tag

    def as_dict(self) -> dict[str, dict[str, float]]:
        """``{topic: {docno: score}}`` (what :func:`pateval.evaluate` takes)."""
        return {qid: dict(ranking) for qid, ranking in self.rankings.items()}

    @property
    def queries_per_second(self) -> float:
        return len(self.rankings) / self.seconds if self.seconds > 0 else float("inf")


def search_topics(index, topics: Sequence[Topic], config: SearchConfig, *, progress: bool = True) -> RunResult:
    """Search every topic with one configuration."""
    from tqdm import tqdm

    index = index if isinstance(index, SearchIndex) else SearchIndex(index)
    started = time.perf_counter()
    rankings = {topic.qid: search_topic(index, topic.document, config)
                for topic in tqdm(topics, desc=config.tag, unit=" topics", disable=not progress or None, leave=False)}
    return RunResult(config, rankings, time.perf_counter() - started)


def run_metadata(config: SearchConfig, index: SearchIndex, *, topics: str | os.PathLike[str] | None = None) -> dict:
    """How a baseline run is made, as an ir_metadata (PONTE) mapping for the run's header.

    Engine and version, the index (path, documents, analyzers, cut-off date), the ranking
    model with its parameters, the query strategy with its options, and the search settings.
    """
    import platform
    from dataclasses import asdict

    import pateval

    meta = index.meta
    query = config.query
    engine = str(meta.get("engine") or tantivy.__version__)  # type: ignore[attr-defined]  # not in its stubs
    if not engine.lower().startswith("tantivy"):
        engine = f"tantivy {engine}"
    retrieval = [{"name": config.model.tag, "method": type(config.model).__name__, **asdict(config.model),
                  "scoring": "tantivy BM25" if config.model.native and query.ipc != "boost"
                  else f"re-scored exactly over the engine's top {config.candidates} BM25 candidates"},
                 {"name": "query formulation", "strategy": query.name, "parts": list(query.parts),
                  "top terms": query.top, "min df": query.min_df, "max df": query.max_df, "ipc": query.ipc,
                  "split": query.split, "merge": query.merge, "field weights": dict(query.field_weights)},
                 {"name": "filters", "depth": config.depth, "date filter": config.date_filter,
                  "exclude family": config.exclude_family, "unit": config.unit}]
    return {
        "tag": config.tag,
        "research goal": {"description": "a pateval patent prior-art baseline"},
        "platform": {"software": {"libraries": {"python": [f"pateval {pateval.__version__}", engine,
                                                           f"numpy {np.__version__}"]}},
                     "operating system": {"kernel": platform.release()}},
        "implementation": {"source": {"repository": "pateval", "version": pateval.__version__},
                           "executable": {"cmd": f"pateval search --model {config.model.tag} --query {query.name}"}},
        "method": {"automatic": True,
                   "indexing": {"engine": "tantivy", "index": str(index.path),
                                "documents": int(meta.get("documents", 0)), "until": meta.get("until"),
                                "fields": list(meta.get("fields", [])), "analyzers": dict(meta.get("analyzers", {}))},
                   "retrieval": retrieval},
        "data": {"test collection": {"topics": str(topics) if topics is not None else None}},
    }


def write_trec_run(result: RunResult, path: str | os.PathLike[str], *, metadata: dict | None = None) -> Path:
    """Write a run in TREC format (``qid Q0 docno rank score tag``), atomically.

    A topic without any retrieved document gets no line (as in TREC runs). ``metadata``
    (see :func:`run_metadata`) is written first as an ir_metadata block of ``#`` lines.
    """
    from ..formats.ir_metadata import ir_metadata_lines

    tag = result.tag
    if any(c.isspace() for c in tag):
        raise ParameterError(f"a run tag must not contain white space: {tag!r}")
    header = ir_metadata_lines(metadata) if metadata is not None else []
    with atomic_output(path) as out:
        out.writelines(line + "\n" for line in header)
        for qid, ranking in result.rankings.items():
            for rank, (docno, score) in enumerate(ranking, start=1):
                out.write(f"{qid} Q0 {docno} {rank} {float(score)!r} {tag}\n")
    return Path(path)


# ---- grids ----------------------------------------------------------------------------------

#: Named grids of configurations. ``seeds``: the three Lemur models of the seed papers times
#: eleven query strategies (33 runs, as many as the Cube Test paper built); ``small``: a
#: quick grid for the demo.
GRIDS = {
    "seeds": (("bm25", "lm", "tfidf"), SEED_QUERY_GRID),
    "small": (("bm25", "lm", "tfidf"), ("title", "claims", "title+claims,top=100", "full,top=100")),
    "models": (("bm25", "bm25:k1=0.9,b=0.4", "lm", "lm:mu=500", "tfidf"), ("claims",)),
}


def grid_configs(models: Iterable | str = "seeds", queries: Iterable | None = None, **options) -> list[SearchConfig]:
    """The configurations of a grid: a named grid, or every model times every strategy.

    Parameters
    ----------
    models : str or iterable
        A grid name (``seeds``, ``small``, ``models``) or model names.
    queries : iterable, optional
        Query strategy names (needed unless ``models`` names a grid).
    **options
        Passed to every :class:`SearchConfig` (depth, candidates, ...).
    """
    if isinstance(models, str):
        if models not in GRIDS:
            raise ParameterError(f"grid must be one of {', '.join(GRIDS)}; got {models!r}")
        models, default_queries = GRIDS[models]
        queries = default_queries if queries is None else queries
    if queries is None:
        raise ParameterError("a grid of models needs query strategies")
    configs = [SearchConfig(model=m, query=q, **options) for m in models for q in queries]
    if len({c.tag for c in configs}) != len(configs):
        raise ParameterError("the grid repeats a configuration")
    return configs


def run_grid(index, topics: Sequence[Topic], configs: Sequence[SearchConfig], out_dir: str | os.PathLike[str] | None,
             *, progress: bool = True, metadata_topics: str | os.PathLike[str] | None = None,
             metadata: bool = False) -> list[RunResult]:
    """Search the topics with every configuration; write ``OUT/TAG.run`` files when ``out_dir``
    is given (the directory appears only when every run is written), each with an
    ir_metadata header when ``metadata`` (naming ``metadata_topics`` as the topics)."""
    from tqdm import tqdm

    index = index if isinstance(index, SearchIndex) else SearchIndex(index)
    results = []
    bar = tqdm(configs, desc="grid", unit=" runs", disable=not progress or None)
    for config in bar:
        bar.set_postfix_str(config.tag)
        results.append(search_topics(index, topics, config, progress=progress))
    if out_dir is not None:
        with atomic_directory(out_dir) as tmp:
            for result in results:
                header = run_metadata(result.config, index, topics=metadata_topics) if metadata else None
                write_trec_run(result, tmp / run_file_name(result.tag), metadata=header)
    return results


def run_file_name(tag: str) -> str:
    """A file name for a run tag (characters a file system may dislike replaced)."""
    return re.sub(r"[^A-Za-z0-9._=+,-]", "_", tag) + ".run"


# ---- passages -------------------------------------------------------------------------------


def _claims_at(document: PatentDocument, xpaths: Sequence[str]) -> dict[str, list[str]]:
    from ..formats.passages import normalise_xpath

    wanted = {normalise_xpath(x) for x in xpaths}  # as the topics file's reader gives them
    texts: dict[str, list[str]] = {}
    for lang, claims in document.claims.items():
        for claim in claims:
            if normalise_xpath(claim.xpath) in wanted:
                texts.setdefault(language_of(lang), []).append(claim.text)
    return texts


def search_passages(index, topics: Sequence[PassageTopic], config: SearchConfig, *, documents: int = 20,
                    passages_per_document: int = 10, k1: float = 1.2, b: float = 0.75,
                    progress: bool = True) -> dict[str, list[tuple[str, str, float]]]:
    """Rank the description paragraphs of the best documents for each passage topic's claims.

    Parameters
    ----------
    index : SearchIndex or path
    topics : sequence of PassageTopic
    config : SearchConfig
        How documents are retrieved (the query is made from the topic's claims only).
    documents : int, default 20
        How many of the best documents' paragraphs are ranked.
    passages_per_document : int, default 10
    k1, b : float
        BM25 over paragraphs.

    Returns
    -------
    dict
        topic -> ``[(docno, xpath, score), ...]``, documents in rank order, passages best first
        within each document.
    """
    from collections import Counter

    from tqdm import tqdm

    index = index if isinstance(index, SearchIndex) else SearchIndex(index)
    table = index.passages()
    by_row = {row: frame for row, frame in table.groupby("row", sort=False)}
    n_docs = index.num_docs
    results: dict[str, list[tuple[str, str, float]]] = {}
    for topic in tqdm(topics, desc="passages", unit=" topics", disable=not progress or None, leave=False):
        if not (texts := _claims_at(topic.document, topic.claim_xpaths)):
            raise PatevalError(f"passage topic {topic.qid}: none of its claims {' '.join(topic.claim_xpaths)} "
                               f"is in its topic file {topic.document.ucid}")
        query_terms = {lang: Counter(t for text in parts for t in analyze(text, lang)) for lang, parts in texts.items()}
        query = Query({lang: dict(bag) for lang, bag in query_terms.items()})
        doc_config = replace(config, depth=documents, candidates=max(config.candidates, documents))
        excluded = _excluded_rows(index, topic.document) if config.exclude_family else None
        rows, _scores = _one_query(index, topic.document, query, doc_config, excluded)
        ranked: list[tuple[str, str, float]] = []
        if paragraphs := [by_row[r] for r in rows[:documents].tolist() if r in by_row]:
            counted = []  # (ucid, xpath, language, term counts, length) of every paragraph
            for frame in paragraphs:
                for xpath, lang, text in frame[["xpath", "lang", "text"]].itertuples(index=False):
                    words = analyze(text, language_of(lang))
                    counted.append((frame["ucid"].iat[0], xpath, language_of(lang), Counter(words), len(words)))
            average = (sum(c[4] for c in counted) / len(counted)) or 1.0
            scored: dict[str, list[tuple[str, float]]] = {}
            for ucid, xpath, lang, bag, length in counted:
                terms = query.terms.get(lang, {})
                df_all, _ = index.language_stats(lang)
                vocab = index.vocab(lang)
                score = 0.0
                for term, qtf in terms.items():
                    if tf := bag.get(term, 0):
                        df = df_all[vocab[term]] if term in vocab else 0
                        idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
                        score += qtf * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / average))
                if score > 0:
                    scored.setdefault(ucid, []).append((xpath, score))
            for ucid in index.ucids[rows[:documents]].tolist():
                best = sorted(scored.get(ucid, []), key=lambda item: (-item[1], item[0]))[:passages_per_document]
                ranked.extend((ucid, xpath, score) for xpath, score in best)
        results[topic.qid] = ranked
    return results


def write_passage_run(results: dict[str, list[tuple[str, str, float]]], path: str | os.PathLike[str]) -> Path:
    """Write a passage run: ``topic Q0 docno xpath passage_rank score`` (rank within the document),
    through the one passage-run writer, :func:`pateval.formats.passages.write_passage_run`."""
    from ..core.segments import place_in_segments, run_lengths, run_starts
    from ..formats.passages import PassageRun
    from ..formats.passages import write_passage_run as write

    rows = [(qid, docno, xpath, score) for qid, ranked in results.items() for docno, xpath, score in ranked]
    topic, docno, xpath, score = (np.asarray([row[k] for row in rows], dtype=object) for k in range(4))
    # a passage's rank counts the passages of its document, from 1
    rank = place_in_segments(run_lengths(run_starts(topic, docno), len(rows)), first=1)
    return write(PassageRun(name="run", topic=topic, docno=docno, xpath=xpath, rank=rank,
                            score=score.astype(np.float64), line=np.arange(1, len(rows) + 1)), path)
