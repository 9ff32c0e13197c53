"""Baselines: tantivy indexes of a corpus store, searches, grids of runs, passage retrieval."""

from __future__ import annotations

import os
from collections.abc import Sequence


def build_search_index(source, out: str | os.PathLike, *, passages: bool = True, until: str | None = None,
                       heap_mb: int = 512, threads: int | None = None, progress: bool = False):
    """Index a corpus store (or patent XML, or records) with tantivy for baseline search.

    See :func:`pateval.search.index.build_index`; returns its
    :class:`~pateval.search.index.IndexSummary`. A store directory is opened here (search
    takes stores opened).
    """
    import contextlib
    from pathlib import Path

    from ..search.index import build_index

    with contextlib.ExitStack() as stack:
        if isinstance(source, (str, os.PathLike)) and (Path(source) / "manifest.json").is_file():
            from ..collection.store import CorpusStore

            source = stack.enter_context(CorpusStore(source))
        return build_index(source, out, passages=passages, until=until, heap_mb=heap_mb, threads=threads,
                           progress=progress)


def search(index, topics, *, model: str = "bm25", query: str = "claims", out: str | os.PathLike | None = None,
           depth: int = 1000, candidates: int = 2000, date_filter: bool = True, exclude_family: bool = True,
           unit: str = "publication", ir_metadata: bool = False, progress: bool = False):
    """Run one baseline over the topics; write a TREC run when ``out`` is given.

    Parameters
    ----------
    index : path or SearchIndex
        Built by :func:`build_search_index`.
    topics : path or list of Topic
        A CLEF-IP topics file (``topics_PAC.xml``), a collection directory, or a
        directory of topic XML files.
    model : str
        ``bm25``, ``bm25:k1=0.9,b=0.4``, ``lm``, ``lm:mu=1000``, ``tfidf``.
    query : str
        A query strategy name (``claims``, ``title+claims,top=100``; see
        :mod:`pateval.search.queries`).
    depth, candidates, date_filter, exclude_family, unit
        See :class:`pateval.search.run.SearchConfig`.
    ir_metadata : bool, default False
        Start the run file with an ir_metadata block saying how the run was made (pateval
        reads it; trec_eval, ir_measures, PyTerrier and ranx do not: off by default).

    Returns
    -------
    pateval.search.run.RunResult
        ``.as_dict()`` gives ``{topic: {docno: score}}`` for :func:`evaluate`; the run
        tag is ``MODEL.STRATEGY``.
    """
    from ..search.index import SearchIndex
    from ..search.run import SearchConfig, load_topics, run_metadata, search_topics, write_trec_run

    config = SearchConfig(model=model, query=query, depth=depth, candidates=candidates, date_filter=date_filter,
                          exclude_family=exclude_family, unit=unit)
    opened = index if isinstance(index, SearchIndex) else SearchIndex(index)
    topic_list = load_topics(topics) if isinstance(topics, (str, os.PathLike)) else list(topics)
    result = search_topics(opened, topic_list, config, progress=progress)
    if out is not None:
        named = topics if isinstance(topics, (str, os.PathLike)) else None
        write_trec_run(result, out, metadata=run_metadata(config, opened, topics=named) if ir_metadata else None)
    return result


def search_grid(index, topics, out_dir: str | os.PathLike | None, *, grid: str | None = "seeds",
                models: Sequence[str] | None = None, queries: Sequence[str] | None = None, depth: int = 1000,
                candidates: int = 2000, date_filter: bool = True, exclude_family: bool = True,
                unit: str = "publication", ir_metadata: bool = False, progress: bool = False):
    """Run a grid of baselines (every model times every query strategy), one run file each.

    ``grid`` names a preset (``seeds``: 3 models x 11 strategies = 33 runs; ``small``;
    ``models``); ``models`` and ``queries`` given instead make the grid. Runs are written
    as ``OUT_DIR/TAG.run`` (each with an ir_metadata block when ``ir_metadata``). Returns
    the list of :class:`~pateval.search.run.RunResult`.
    """
    from ..search.index import SearchIndex
    from ..search.run import grid_configs, load_topics, run_grid

    options = {"depth": depth, "candidates": candidates, "date_filter": date_filter, "exclude_family": exclude_family,
               "unit": unit}
    configs = grid_configs(models if models else grid if grid is not None else (), queries, **options)
    opened = index if isinstance(index, SearchIndex) else SearchIndex(index)
    topic_list = load_topics(topics) if isinstance(topics, (str, os.PathLike)) else list(topics)
    named = topics if isinstance(topics, (str, os.PathLike)) else None
    return run_grid(opened, topic_list, configs, out_dir, progress=progress, metadata=ir_metadata,
                    metadata_topics=named)


def search_passages(index, topics, *, model: str = "bm25", query: str = "claims", out: str | os.PathLike | None = None,
                    documents: int = 20, passages_per_document: int = 10, progress: bool = False):
    """Passage retrieval for CLEF-IP passage topics (``topics_PSG.txt``): the paragraphs of
    the best ``documents`` ranked against each topic's claims; writes the 6-column passage
    run (``topic Q0 docno xpath rank score``) when ``out`` is given. Returns
    ``{topic: [(docno, xpath, score), ...]}``."""
    from ..search.index import SearchIndex
    from ..search.run import SearchConfig, load_passage_topics, write_passage_run
    from ..search.run import search_passages as rank_passages

    opened = index if isinstance(index, SearchIndex) else SearchIndex(index)
    topic_list = load_passage_topics(topics) if isinstance(topics, (str, os.PathLike)) else list(topics)
    results = rank_passages(opened, topic_list, SearchConfig(model=model, query=query, depth=documents,
                                                             candidates=max(2000, documents)),
                            documents=documents, passages_per_document=passages_per_document, progress=progress)
    if out is not None:
        write_passage_run(results, out)
    return results
