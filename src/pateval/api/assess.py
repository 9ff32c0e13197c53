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
