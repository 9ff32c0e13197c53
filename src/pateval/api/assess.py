"""The assessment tool (``pateval assess``): its web application, export and import."""

from __future__ import annotations

import os


def assess_app(db: str, *, store: str | os.PathLike, collection: str | os.PathLike | None = None):
    """The assessment web application (an ASGI app: ``uvicorn.run(app, host="127.0.0.1")``)
    over the database at URL ``db`` (``sqlite:///assess.db`` or ``postgresql://...``),
    a corpus store and a collection built from it. Needs ``pip install "pateval[assess]"``."""
    from ..assess.app import create_app
    from ..assess.commands import open_workspace

    engine, corpus = open_workspace(db, store=store, collection=collection, remember=True)
    return create_app(engine, corpus)


def assess_export(db: str, out: str | os.PathLike, *, policy: str = "final", store: str | os.PathLike | None = None,
                  collection: str | os.PathLike | None = None) -> dict:
    """Write the qrels of an assessment database into the new directory ``out``, in the
    formats of :func:`build_collection` (``qrels_PSG.txt``, ``qrels_PSG_graded.txt``,
    ``qrels_PSG_docs.txt``, ``qrels_PSG_claims.txt``, ``theta_PSG.txt``, ``topics_PSG.tsv``,
    ``topics_PSG.txt``).

    Parameters
    ----------
    db : str
        Database URL.
    out : path-like
        A new directory.
    policy : str
        ``"final"`` (adjudicated, else agreed), ``"union"``, or an assessor's name.
    store, collection : path-like, optional
        Default: those the server was started with.

    Returns
    -------
    dict
        Counts and the unresolved disagreements (also in ``out/export.json``).
    """
    from ..assess.commands import export

    return export(url=db, out=out, policy=policy, store=store, collection=collection)


def assess_import(db: str, qrels: str | os.PathLike, *, owner: str, topics: str | os.PathLike | None = None,
                  store: str | os.PathLike | None = None, collection: str | os.PathLike | None = None) -> dict:
    """Load passage qrels (``qid docno xpath``) into an assessment database as the
    judgements of assessor ``owner``, for review; ``topics`` (a ``topics_PSG.tsv``) defines
    topics the database lacks. All checked before anything is written."""
    from ..assess.commands import import_qrels

    return import_qrels(url=db, qrels=qrels, owner=owner, topics=topics, store=store, collection=collection)


def assess_pool(db: str, pool: str | os.PathLike, *, name: str | None = None, order: str = "pool",
                max_grade: int = 2) -> dict:
    """Import a pool file (:func:`make_pool`, ``pateval pool build``) or a sample of one
    (:func:`sample_pool` without judgements) into an existing assessment database: each topic
    becomes a queue of documents to grade, in the pool's order or an adaptive order.

    Parameters
    ----------
    db : str
        Database URL.
    pool : path-like
        The pool or sample file.
    name : str, optional
        The pool's name in the tool (default: the file's name up to its first dot).
    order : str
        ``"pool"`` (the file's order), or an adaptive order that takes the next document from
        the judgements made so far: ``"mtf"`` (move-to-front), ``"mm-ns"`` (the MM-NS bandit).
    max_grade : int
        The highest grade (grades run from 0, not relevant; default 2).

    Returns
    -------
    dict
        ``name``, ``topics``, ``documents``, ``queued`` (drawn), ``order``, ``sampled``,
        ``max_grade``.
    """
    from ..assess.commands import import_pool

    return import_pool(url=db, pool=pool, name=name, order=order, max_grade=max_grade)
