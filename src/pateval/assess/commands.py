"""What the ``pateval assess`` sub-commands do (the CLI handlers call these).

``serve`` remembers the corpus store and collection in the database, so that ``export``
and ``import`` need only the database URL.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from sqlalchemy import select

from ..errors import ParameterError
from . import db, service
from .corpus import AssessCorpus

__all__ = ["add_user", "export", "import_pool", "import_qrels", "list_users", "manage_user", "open_workspace", "serve",
           "user"]

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def open_workspace(url: str, *, store=None, collection=None, remember: bool = False):
    """The database engine and the corpus it is about (from the arguments, else from what
    ``serve`` remembered in the database)."""
    engine = db.open_database(url)
    with engine.connect() as connection:
        stored = dict(connection.execute(select(db.meta.c.key, db.meta.c.value)).all())
    store = store or stored.get("store")
    collection = collection or stored.get("collection")
    if store is None:
        raise ParameterError(f"{db.shown_url(url)}: no corpus store known; give --store (and --collection)")
    if not Path(store).is_dir():
        raise ParameterError(f"{store}: no such corpus store directory")
    corpus = AssessCorpus(store, collection)
    if remember:
        with engine.begin() as connection:
            for key, value in (("store", store), ("collection", collection)):
                if value is not None:
                    connection.execute(db.meta.delete().where(db.meta.c.key == key))
                    connection.execute(db.meta.insert().values(key=key, value=str(Path(value).resolve())))
    return engine, corpus


def serve(*, url: str, store, collection, host: str = "127.0.0.1", port: int = 8765, echo=print,
          secure_cookies: bool = False, trusted_proxies=(), session_idle_minutes: float = 120,
          session_max_hours: float = 12, max_failed_logins: int = 10, allowed_hosts=()) -> None:
    """Serve the tool with uvicorn. ``trusted_proxies``: addresses of reverse proxies whose
    X-Forwarded-Proto and X-Forwarded-For headers count (uvicorn's own handling of them,
    which trusts 127.0.0.1 by default, is off). ``allowed_hosts``: the host names requests
    may name (``Host`` header); none given, a tool listening on this machine only answers
    to this machine's names (no DNS rebinding), any other to every name (with a warning)."""
    import uvicorn

    from .app import create_app

    for name, value in (("--session-idle", session_idle_minutes), ("--session-max", session_max_hours),
                        ("--max-failed-logins", max_failed_logins)):
        if not value > 0:
            raise ParameterError(f"{name} must be positive, not {value}")
    engine, corpus = open_workspace(url, store=store, collection=collection, remember=True)
    with engine.connect() as connection:
        n_assessors = connection.execute(select(db.assessors.c.id)).first()
    if n_assessors is None:
        echo(f"assess: no accounts yet; add one with: pateval assess user add NAME --db {db.shown_url(url)}",
             file=sys.stderr)
    if host not in _LOOPBACK and not (secure_cookies or trusted_proxies):
        echo(f"assess: warning: listening on {host}: other machines can reach the tool, over plain HTTP "
             "(put it behind a TLS proxy)", file=sys.stderr)
    if (n := service.scrypt_parameters()[0]) < service.SCRYPT_N:
        echo(f"assess: warning: {service.SCRYPT_COST_VARIABLE} is set: passwords are hashed with scrypt N={n}, "
             f"below OWASP's N={service.SCRYPT_N} (for tests only)", file=sys.stderr)
    hosts = _allowed_hosts(host, allowed_hosts, trusted_proxies, echo)
    echo(f"assess: serving {len(corpus.patent_keys)} topic sources on http://{host}:{port}/ (Ctrl-C stops)")
    app = create_app(engine, corpus, secure_cookies=secure_cookies, trusted_proxies=trusted_proxies,
                     session_idle=session_idle_minutes * 60, session_max=session_max_hours * 3600,
                     max_failed_logins=max_failed_logins, allowed_hosts=hosts)
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False, proxy_headers=False)


def _allowed_hosts(host: str, allowed, trusted_proxies, echo) -> list[str] | None:
    """The host names the tool answers to (None: any)."""
    if allowed:
        return list(allowed)
    if host in _LOOPBACK and not trusted_proxies:
        return list(_LOOPBACK)
    echo("assess: note: requests naming any host are answered; give --allowed-host NAME (the name users type) "
         "to refuse the others", file=sys.stderr)
    return None


def _new_database_file(url: str) -> Path | None:
    """The SQLite file of ``url`` when it does not exist yet (opening will create it)."""
    path = db.sqlite_path(url)
    return Path(path).resolve() if path is not None and not Path(path).exists() else None


def add_user(*, url: str, name: str, password: str, admin: bool, echo=print) -> None:
    """Add an account; a SQLite database made for it is named on standard error (and
    removed again when the account cannot be added)."""
    created = _new_database_file(url)
    engine = db.open_database(url)
    try:
        with db.storage_errors(url):
            service.add_assessor(engine, name, password, is_admin=admin)
    except service.AssessError as error:
        engine.dispose()
        for suffix in ("", "-wal", "-shm") if created is not None else ():
            Path(f"{created}{suffix}").unlink(missing_ok=True)
        raise ParameterError(error.message) from None
    engine.dispose()
    if created is not None:
        echo(f"assess: created the database {created} (readable by you only)", file=sys.stderr)


@contextlib.contextmanager
def _existing(url: str):
    """The engine of an existing database, disposed of afterwards."""
    if _new_database_file(url) is not None:
        raise ParameterError(f"{db.sqlite_path(url)}: no such database file")
    engine = db.open_database(url)
    try:
        yield engine
    finally:
        engine.dispose()


def manage_user(*, url: str, action: str, name: str, password: str | None = None) -> str:
    """``disable``, ``enable``, ``remove``, ``unlock`` or ``reset-password`` an account
    (recorded in the audit log); returns the line to print."""
    try:
        with _existing(url) as engine, db.storage_errors(url):
            service.manage_assessor(engine, name, action, password=password)
    except service.AssessError as error:
        raise ParameterError(error.message) from None
    done = {"disable": "disabled (its sessions ended)", "enable": "enabled", "unlock": "unlocked",
            "remove": "removed (its sessions ended; its judgements stay)",
            "reset-password": "has a new password (its sessions ended)"}[action]
    return f"assess: account {name} {done}"


def user(*, url: str, action: str, name: str | None, admin: bool = False, echo=print) -> None:
    """``pateval assess user ACTION [NAME]``: add, disable, enable, remove, unlock,
    reset-password (a password read from standard input's first line, or asked for on a
    terminal) or list."""
    if action == "list":
        for line in list_users(url=url):
            echo(line)
        return
    if not name:
        raise ParameterError(f"assess user {action} needs the account's NAME")
    password = _read_password(name) if action in ("add", "reset-password") else None
    if action == "add":
        add_user(url=url, name=name, password=password or "", admin=admin)
        echo(f"assess: account {name} added{' (admin)' if admin else ''}")
    else:
        echo(manage_user(url=url, action=action, name=name, password=password))


def _read_password(name: str) -> str:
    if sys.stdin.isatty():
        import getpass

        return getpass.getpass(f"password for {name}: ")
    return sys.stdin.readline().rstrip("\r\n")


def list_users(*, url: str) -> list[str]:
    """One line per account: name, role, status, lock-out."""
    with _existing(url) as engine:
        rows = service.assessors_list(engine)
    return [f"{r['name']}\t{'admin' if r['is_admin'] else 'assessor'}\t{r['status']}"
            f"\t{'locked' if r['locked'] else 'unlocked'}\t{r['failed_logins']} failed logins" for r in rows]


def export(*, url: str, out, policy: str, store=None, collection=None) -> dict:
    from .export import export_qrels

    engine, corpus = open_workspace(url, store=store, collection=collection)
    return export_qrels(engine, corpus, out, policy=policy)


def import_qrels(*, url: str, qrels, owner: str, topics=None, store=None, collection=None) -> dict:
    from .export import import_qrels as _import

    engine, corpus = open_workspace(url, store=store, collection=collection)
    try:
        with db.storage_errors(url):
            return _import(engine, corpus, qrels, owner=owner, topics_path=topics)
    except service.AssessError as error:
        raise ParameterError(error.message) from None


def import_pool(*, url: str, pool, name: str | None = None, order: str = "pool", max_grade: int = 2) -> dict:
    """Import a pool or sample file as pool topics' queues (:func:`pateval.assess.pools.import_pool`)."""
    from .pools import import_pool as _import

    with _existing(url) as engine, db.storage_errors(url):
        return _import(engine, pool, name=name, order=order, max_grade=max_grade)
