"""Patents and test collections: the corpus store (lengths), synthetic corpora,
collections built from a store. :func:`pateval.api.ingest_corpus`, ``verify_corpus``,
``collection_stats`` and ``open_corpus`` (a :class:`~pateval.collection.store.CorpusStore`) are
those of :mod:`pateval.collection` themselves (loaded on first use)."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import ParameterError


def corpus_doc_lengths(store, *, out: str | os.PathLike | None = None):
    """Document lengths in words computed from a corpus store's documents, for TBG and the
    Cube Test's ``time=tbg`` (what ``--doc-lengths`` reads).

    Each document counts the words of its abstracts, description and claims, in every
    language. Returns a :class:`pateval.formats.doclengths.DocLengths` (``docno -> words``);
    with ``out``, also writes it as a ``docno length`` file (complete, or not at all).
    """
    from ..collection.store import CorpusStore
    from ..formats.doclengths import write_doc_lengths

    if not Path(store).is_dir():
        raise ParameterError(f"no corpus store at {store} (make one with `pateval corpus ingest`)")
    with CorpusStore(store) as corpus:
        lengths = corpus.doc_lengths()
    if out is not None:
        write_doc_lengths(lengths, out)
    return lengths


def generate_corpus(out_dir, *, n_patents: int, seed: int = 0, workers: int | None = None,
                    progress: bool = False, **options):
    """Write a seeded synthetic patent corpus in CLEF-IP XML (technology clusters, families,
    A/B publications, claims in EN/DE/FR, search-report citations).

    Parameters
    ----------
    out_dir : path-like
        A new directory; files laid out as in CLEF-IP (``EP/000001/01/01/80/EP-1010180-B1.xml``).
    n_patents : int
        EP patents to generate (about 1.9 publication files each).
    seed : int
    workers : int, optional
        Rendering processes (the output does not depend on it).
    progress : bool
    **options
        Further keywords of :func:`pateval.collection.synthetic.generate_corpus`
        (``start_year``, ``end_year``, ``n_clusters``, ``grant_rate``, ...).

    Returns
    -------
    pateval.collection.synthetic.GenerationSummary
    """
    from ..collection.synthetic import generate_corpus as _generate

    return _generate(out_dir, n_patents=n_patents, seed=seed, workers=workers, progress=progress, **options)


def build_collection(store, out_dir, *, criteria="roda2009", corpus_end="2000-12-31", pool_start=None,
                     corpus_start=None, pool_end=None, stratify: bool = False, per_group: int = 20,
                     ipc_level: str = "class", size=None, seed: int = 0, family: str = "none",
                     patent_level: bool = True, theta_ind: float = 1.0, theta_dep: float = 0.5,
                     passages: bool = True, max_passage_topics_per_patent: int | None = None,
                     threads: int | None = None, memory_limit: str | None = None, progress: bool = False):
    """Build a CLEF-IP-style test collection from a corpus store.

    Parameters
    ----------
    store : path-like
        A corpus store (``pateval corpus ingest``).
    out_dir : path-like
        A new directory for the collection (topics, qrels at four levels, build.json).
    criteria : str or pateval.collection.topics.SelectionCriteria
        A preset (``"roda2009"``, ``"clefip2013"``, ``"both"``, ``"none"``) or criteria.
    corpus_end, pool_start, corpus_start, pool_end : str, optional
        The date split (ISO dates or years); the pool starts after the corpus by default.
    stratify, per_group, ipc_level : see :func:`pateval.collection.sampling.stratified_sample`
    size : {"S", "M", "L", "XL"} or int, optional
        Topic-set size (nested sets for one seed).
    seed : int
    family : {"none", "cited", "topic", "both"}
        Family extension of the document-level qrels.
    patent_level : bool
        Judge every corpus publication of a cited patent.
    theta_ind, theta_dep : float
        Claim importance for the theta (subtopic weight) file.
    passages : bool
        Build the passage (PSG) topics and qrels too.
    max_passage_topics_per_patent : int, optional
    threads, memory_limit : DuckDB settings.
    progress : bool

    Returns
    -------
    pateval.collection.build.BuildSummary
    """
    from ..collection.build import build_collection as _build
    from ..collection.split import DateSplit
    from ..collection.store import naming_damage
    from ..collection.tables import open_store
    from ..collection.topics import SelectionCriteria

    if isinstance(criteria, str):
        criteria = SelectionCriteria.preset(criteria)
    split = DateSplit.of(corpus_end=corpus_end, pool_start=pool_start, corpus_start=corpus_start, pool_end=pool_end)
    con = open_store(store, threads=threads, memory_limit=memory_limit)
    try:
        # Parts damaged in place (size and mtime kept) pass the check on opening and
        # surface when a query reads them: named as the store names damage.
        with naming_damage(store):
            return _build(con, out_dir, split=split, criteria=criteria, stratify=stratify, per_group=per_group,
                          ipc_level=ipc_level, size=size, seed=seed, family=family, patent_level=patent_level,
                          theta_ind=theta_ind, theta_dep=theta_dep, passages=passages,
                          max_passage_topics_per_patent=max_passage_topics_per_patent, progress=progress)
    finally:
        con.close()
