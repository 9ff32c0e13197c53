"""What the ``pateval assess`` sub-commands do (the CLI handlers call these).

``serve`` remembers the corpus store and collection in the database, so that ``export``
and ``import`` need only the database URL.
"""

from __future__ import annotations

import sys
from pathlib import Path

from sqlalchemy import select

from ..errors import ParameterError
from . import db, service
from .corpus import AssessCorpus

__all__ = ["add_user", "export", "import_qrels", "open_workspace", "serve"]



def _remember(engine, store, collection) -> None:
    with engine.begin() as connection:
        for key, value in (("store", store), ("collection", collection)):
            if value is None:
                continue
            value = str(Path(value).resolve())
            exists = connection.execute(select(db.meta.c.key).where(db.meta.c.key == key)).first()
            if exists:
                connection.execute(db.meta.update().where(db.meta.c.key == key).values(value=value))
            else:
                connection.execute(db.meta.insert().values(key=key, value=value))


def open_workspace(url: str, *, store=None, collection=None, remember: bool = False):
    """The database engine and the corpus it is about (from the arguments, else from what
    ``serve`` remembered in the database)."""
    engine = db.open_database(url)
    with engine.connect() as connection:
        stored = dict(connection.execute(select(db.meta.c.key, db.meta.c.value)).all())
    store = store or stored.get("store")
    collection = collection or stored.get("collection")
    if store is None:
        raise ParameterError(f"{url}: no corpus store known; give --store (and --collection)")
    if not Path(store).is_dir():
        raise ParameterError(f"{store}: no such corpus store directory")
    corpus = AssessCorpus(store, collection)
    if remember:
        _remember(engine, store, collection)
    return engine, corpus


def serve(*, url: str, store, collection, host: str = "127.0.0.1", port: int = 8765, echo=print) -> None:
    import uvicorn

    from .app import create_app

    engine, corpus = open_workspace(url, store=store, collection=collection, remember=True)
    with engine.connect() as connection:
        n_assessors = connection.execute(select(db.assessors.c.id)).first()
    if n_assessors is None:
        echo(f"assess: no accounts yet; add one with: pateval assess user add NAME --db {url}", file=sys.stderr)
    if host not in ("127.0.0.1", "localhost", "::1"):
        echo(f"assess: warning: listening on {host}: other machines can reach the tool, over plain HTTP "
             "(put it behind a TLS proxy)", file=sys.stderr)
    echo(f"assess: serving {len(corpus.patent_keys)} topic sources on http://{host}:{port}/ (Ctrl-C stops)")
    uvicorn.run(create_app(engine, corpus), host=host, port=port, log_level="warning", access_log=False)


def add_user(*, url: str, name: str, password: str, admin: bool) -> None:
    engine = db.open_database(url)
    try:
        service.add_assessor(engine, name, password, is_admin=admin)
    except service.AssessError as error:
        raise ParameterError(error.message) from None


def export(*, url: str, out, policy: str, store=None, collection=None) -> dict:
    from .export import export_qrels

    engine, corpus = open_workspace(url, store=store, collection=collection)
    return export_qrels(engine, corpus, out, policy=policy)


def import_qrels(*, url: str, qrels, owner: str, topics=None, store=None, collection=None) -> dict:
    from .export import import_qrels as _import

    engine, corpus = open_workspace(url, store=store, collection=collection)
    try:
        return _import(engine, corpus, qrels, owner=owner, topics_path=topics)
    except service.AssessError as error:
        raise ParameterError(error.message) from None
