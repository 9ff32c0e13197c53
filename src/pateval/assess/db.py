"""The assessment database: schema, engine and migrations (SQLAlchemy 2 Core).

One schema for SQLite (the default, embedded) and PostgreSQL (``postgresql://...``; the
psycopg 3 driver). Tables::

    meta         key, value                      schema version, the corpus store and collection
    assessors    id, name, password_hash, is_admin, created_at, status (active|disabled|removed),
                 failed_logins, locked_at, lockouts
                                                 (failed_logins: password attempts counted since the
                                                 last success; locked_at: the lock-out's start, which
                                                 lasts by the number of lock-outs in a row)
    sessions     token_hash, assessor_id, created_at, last_seen
                                                 a login: the cookie holds a random token, the
                                                 table only its SHA-256 (a copy of the database
                                                 opens no session)
    sources      patent_key, status (open|retained|rejected), reason, note, decided_by,
                 decided_at, version             a topic candidate and its decision
    topics       id, qid, patent_key, claims, created_by, created_at, deleted, version, pool_id
                                                 pool_id: the pool of a pool topic (patent_key and
                                                 claims empty), NULL for a citation topic
    selections   id, topic_id, cited_ucid, owner, version, saved_by, saved_at, grade
                 owner = an assessor's name, or '@adjudicated' for the adjudicated set;
                 cited_ucid = the judged document (a citation, or a pooled document);
                 grade = a pool topic's document-level grade (NULL: not graded; citations: NULL)
    judgements   selection_id, xpath             the selected passages of a selection
    pools        id, name, description, runs, order_name, sampled, max_grade, created_at
                                                 an imported pool or sample (schema 5); order_name:
                                                 "pool" (the file's order) or an adaptive order
    pool_documents  topic_id, docno, place, runs, stratum, probability, drawn
                                                 a pool topic's documents (drawn: in the queue;
                                                 a sample's undrawn documents are kept for export)
    events       id, at, assessor_id, action, topic_id, cited_ucid, owner, version,
                 before, after, detail           audit log; before/after are JSON lists (a pool
                                                 judgement's detail: its grade before and after)

Every save runs in one transaction: a compare-and-set on ``selections.version`` (a page
that loaded version v may save only while the version is still v), the judgement rows, and
the event row. A crash leaves the transaction applied or not at all, so for every selection
``version`` equals its number of save events and its judgements equal the last event's
``after`` (:func:`check_consistency`).

A new SQLite file is created owner-only (0600): it holds the password hashes.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import re

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    func,
    inspect,
    select,
)
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from ..errors import ParameterError

__all__ = ["ADJUDICATED", "SCHEMA_VERSION", "check_consistency", "metadata", "now", "open_database"]

SCHEMA_VERSION = 5
ADJUDICATED = "@adjudicated"

metadata = MetaData()

meta = Table("meta", metadata, Column("key", String(64), primary_key=True), Column("value", Text, nullable=False))
assessors = Table(
    "assessors", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("password_hash", String(256), nullable=False),
    Column("is_admin", Boolean, nullable=False, default=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # schema 3: accounts are disabled or removed (never deleted: judgements name them) and locked out
    Column("status", String(16), nullable=False, default="active", server_default="active"),
    Column("failed_logins", Integer, nullable=False, default=0, server_default="0"),
    Column("locked_at", DateTime(timezone=True)),
    # schema 4: lock-outs in a row (each lasts longer; a successful login or an unlock clears it)
    Column("lockouts", Integer, nullable=False, default=0, server_default="0"),
)
sessions = Table(  # schema 3
    "sessions", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("assessor_id", Integer, ForeignKey("assessors.id"), nullable=False, index=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_seen", DateTime(timezone=True), nullable=False),
)
sources = Table(
    "sources", metadata,
    Column("patent_key", String(64), primary_key=True),
    Column("status", String(16), nullable=False, default="open"),
    Column("reason", String(64)),
    Column("note", Text),
    Column("decided_by", Integer, ForeignKey("assessors.id")),
    Column("decided_at", DateTime(timezone=True)),
    Column("version", Integer, nullable=False, default=0),
)
topics = Table(
    "topics", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("qid", String(64), nullable=False, unique=True),
    Column("patent_key", String(64), nullable=False, index=True),
    Column("claims", Text, nullable=False),
    Column("created_by", Integer, ForeignKey("assessors.id")),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("deleted", Boolean, nullable=False, default=False),
    Column("version", Integer, nullable=False, default=0, server_default="0"),  # schema 2
    Column("pool_id", Integer, ForeignKey("pools.id")),  # schema 5: a pool topic
)
selections = Table(
    "selections", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("topic_id", Integer, ForeignKey("topics.id"), nullable=False),
    Column("cited_ucid", String(64), nullable=False),
    Column("owner", String(64), nullable=False),
    Column("version", Integer, nullable=False),
    Column("saved_by", Integer, ForeignKey("assessors.id"), nullable=False),
    Column("saved_at", DateTime(timezone=True), nullable=False),
    Column("grade", Integer),  # schema 5: a pool judgement's grade
    UniqueConstraint("topic_id", "cited_ucid", "owner", name="one_selection_per_owner"),
)
pools = Table(  # schema 5
    "pools", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("description", Text, nullable=False),
    Column("runs", Text, nullable=False),  # JSON list of the pool's run names
    Column("order_name", String(16), nullable=False),
    Column("sampled", Boolean, nullable=False, default=False),
    Column("max_grade", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
pool_documents = Table(  # schema 5
    "pool_documents", metadata,
    Column("topic_id", Integer, ForeignKey("topics.id"), primary_key=True),
    Column("docno", String(64), primary_key=True),
    Column("place", Integer, nullable=False),
    Column("runs", Text, nullable=False),  # JSON list of indexes into the pool's runs
    Column("stratum", String(64)),
    Column("probability", Float),
    Column("drawn", Boolean, nullable=False),
)
judgements = Table(
    "judgements", metadata,
    Column("selection_id", Integer, ForeignKey("selections.id"), primary_key=True),
    Column("xpath", String(256), primary_key=True),
)
events = Table(
    "events", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("assessor_id", Integer, ForeignKey("assessors.id")),
    Column("action", String(32), nullable=False),
    Column("topic_id", Integer),
    Column("cited_ucid", String(64)),
    Column("owner", String(64)),
    Column("version", Integer),
    Column("before", Text),
    Column("after", Text),
    Column("detail", Text),
)


def now() -> _dt.datetime:
    return _dt.datetime.now(_dt.UTC)


def _normalise_url(url: str) -> str:
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    if url.startswith(("sqlite:", "postgresql+")):
        return url
    raise ParameterError(f"database URL must start with sqlite:/// or postgresql://, not {shown_url(url)!r}")


# user:password@ of a URL anywhere in a text; the password may hold "/", "?", ":" and (not
# percent-encoded, which a URL should not) "@": all up to the last "@" of the URL is masked
_URL_PASSWORD = re.compile(r"(\b[a-z][a-z0-9+.-]*://[^:/@\s]*):[^\s@]*(?:@[^\s@]*(?=@))*@", re.IGNORECASE)
# a password given as a parameter: ?password=, &password=, libpq's "password=..." (quoted or not)
_PARAMETER_PASSWORD = re.compile(r"((?:^|[?&;\s])(?:password|passwd|pwd|sslpassword)\s*=\s*)"
                                 r"('(?:[^'\\]|\\.)*'|[^&\s]*)", re.IGNORECASE)


def shown_url(url: str) -> str:
    """The URL (or any text holding one, such as a driver's error message) with every
    password replaced by ``***``: ``user:password@`` and a ``password=`` parameter, for
    messages and logs.

    >>> shown_url("postgresql://ann:se/cr?et@db/assess"), shown_url("postgresql://db/assess?user=ann&password=x")
    ('postgresql://ann:***@db/assess', 'postgresql://db/assess?user=ann&password=***')
    """
    return _PARAMETER_PASSWORD.sub(r"\1***", _URL_PASSWORD.sub(r"\1:***@", url))


def _add_topic_versions(connection) -> None:
    """Schema 2: topics carry a version, so that a stale page cannot overwrite their claims."""
    connection.exec_driver_sql("ALTER TABLE topics ADD COLUMN version INTEGER NOT NULL DEFAULT 0")


def _add_account_states(connection) -> None:
    """Schema 3: sessions live in the database (created by ``create_all``), accounts have a
    status and a lock-out, and the cookie-signing secret of schema 2 is dropped: whoever
    copied the database could have forged any session with it."""
    have = {column["name"] for column in inspect(connection).get_columns("assessors")}
    for name, definition in (("status", "VARCHAR(16) NOT NULL DEFAULT 'active'"),
                             ("failed_logins", "INTEGER NOT NULL DEFAULT 0"),
                             ("locked_at", "TIMESTAMP WITH TIME ZONE")):
        if name not in have:  # (create_all made the table when the old database had none)
            connection.exec_driver_sql(f"ALTER TABLE assessors ADD COLUMN {name} {definition}")
    connection.execute(meta.delete().where(meta.c.key == "secret"))


def _add_lockout_counts(connection) -> None:
    """Schema 4: a lock-out ends by itself, longer at each one in a row, so accounts count
    them; an account locked under schema 3 (until an administrator unlocked it) has had one,
    and its lock now ends 15 minutes after it began. Password hashes keep their old form
    (``scrypt$salt$hash``): they are made again at each account's next login."""
    if "lockouts" not in {column["name"] for column in inspect(connection).get_columns("assessors")}:
        connection.exec_driver_sql("ALTER TABLE assessors ADD COLUMN lockouts INTEGER NOT NULL DEFAULT 0")
    connection.execute(assessors.update().where(assessors.c.locked_at.is_not(None)).values(lockouts=1))


def _add_pools(connection) -> None:
    """Schema 5: pools become topics' queues (the tables ``pools`` and ``pool_documents``,
    made by ``create_all``); a topic may belong to a pool, a judgement may carry a grade.
    Every existing topic is a citation topic and every existing selection has no grade."""
    inspector = inspect(connection)
    if "pool_id" not in {column["name"] for column in inspector.get_columns("topics")}:
        connection.exec_driver_sql("ALTER TABLE topics ADD COLUMN pool_id INTEGER REFERENCES pools(id)")
    if "grade" not in {column["name"] for column in inspector.get_columns("selections")}:
        connection.exec_driver_sql("ALTER TABLE selections ADD COLUMN grade INTEGER")


#: Schema version -> the step that upgrades a database from the version before it.
_STEPS = {2: _add_topic_versions, 3: _add_account_states, 4: _add_lockout_counts, 5: _add_pools}


def _migrations(connection) -> None:
    """Bring an existing database to :data:`SCHEMA_VERSION` (each step in order)."""
    row = connection.execute(select(meta.c.value).where(meta.c.key == "schema_version")).first()
    version = int(row[0]) if row else 0
    if version > SCHEMA_VERSION:
        raise ParameterError(f"the database has schema version {version}; this pateval knows up to "
                             f"{SCHEMA_VERSION}: upgrade pateval")
    if row is None:  # a new database, created at the current version by create_all
        connection.execute(meta.insert().values(key="schema_version", value=str(SCHEMA_VERSION)))
    elif version != SCHEMA_VERSION:
        for target in range(version + 1, SCHEMA_VERSION + 1):
            _STEPS[target](connection)
        connection.execute(meta.update().where(meta.c.key == "schema_version").values(value=str(SCHEMA_VERSION)))


def open_database(url: str) -> Engine:
    """An engine on the database at ``url``, its schema created or migrated.

    SQLite runs in WAL mode with a busy timeout, so that readers never block the writer
    and two writers wait for each other instead of failing.
    """
    full = _normalise_url(url)
    try:
        make_url(full)
    except (ArgumentError, ValueError) as error:  # e.g. a port that is no number
        raise ParameterError(f"cannot read the database URL {shown_url(url)}: {shown_url(str(error))} (an @ in a "
                             "password is written %40)") from None
    if full.startswith("sqlite"):
        _create_private(full)
        engine = create_engine(full, connect_args={"timeout": 30, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection, _record):  # pragma: no cover - trivial
            cursor = dbapi_connection.cursor()
            for pragma in ("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON", "busy_timeout=30000"):
                cursor.execute(f"PRAGMA {pragma}")
            cursor.close()
            # pysqlite's own transaction handling defers BEGIN; take the write lock at
            # the start of a transaction so that a compare-and-set cannot interleave.
            dbapi_connection.isolation_level = None

        @event.listens_for(engine, "begin")
        def _begin(connection):  # pragma: no cover - trivial
            connection.exec_driver_sql("BEGIN IMMEDIATE")
    else:
        engine = create_engine(full, pool_pre_ping=True)
    try:
        metadata.create_all(engine)
        with engine.begin() as connection:
            _migrations(connection)
            # a write that changes nothing: a read-only file or server is named now, not at the first save
            connection.execute(meta.update().where(meta.c.key == "schema_version").values(value=meta.c.value))
    except ParameterError:
        raise
    except (SQLAlchemyError, OSError) as error:  # a URL that names no reachable database
        if problem := storage_problem(error):
            raise ParameterError(f"the database {shown_url(url)} {problem}") from None
        raise ParameterError(f"cannot open the database {shown_url(url)}: "
                             f"{shown_url(str(error).splitlines()[0])}") from None
    return engine


#: What a database error says of a lasting condition of its storage (lower case) -> its name.
_STORAGE = (("readonly database", "is read-only: make its file (and its directory) writable"),
            ("read-only transaction", "is read-only (a read-only server or transaction): point --db at a writable one"),
            ("database or disk is full", "has a full disk: make room on it"),
            ("no space left on device", "has a full disk: make room on it"),
            ("could not extend file", "has a full disk: make room on it"),
            ("disk i/o error", "had a disk I/O error (a full or failing disk?): check the disk"))


def storage_problem(error: BaseException) -> str | None:
    """What a database error says of a lasting condition of the storage (a read-only database
    or server, a full disk, a disk error), as words that follow "the database ...", or None
    (an error that waiting may cure, or another one)."""
    text = str(getattr(error, "orig", None) or error).lower()
    return next((words for marker, words in _STORAGE if marker in text), None)


@contextlib.contextmanager
def storage_errors(url: str):
    """Turn a database write that fails for good (:func:`storage_problem`) into one line."""
    try:
        yield
    except SQLAlchemyError as error:
        if problem := storage_problem(error):
            raise ParameterError(f"the database {shown_url(url)} {problem}") from None
        raise


def sqlite_path(url: str) -> str | None:
    """The file of a ``sqlite:///`` URL (None for PostgreSQL and in-memory databases)."""
    full = _normalise_url(url)
    if not full.startswith("sqlite"):
        return None
    path = full.split("///", 1)[1].split("?", 1)[0] if "///" in full else ""
    return path if path and path != ":memory:" else None


def _create_private(full: str) -> None:
    """Create a new SQLite file readable by its owner only (SQLite gives its -wal and -shm
    files the same mode); an existing file keeps its mode."""
    path = sqlite_path(full)
    if path is None:
        return
    # FileExistsError: keep it; a missing directory: SQLite's own error names it.
    with contextlib.suppress(OSError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


def check_consistency(engine: Engine) -> list[str]:
    """Problems found in the database (an empty list when it is consistent): for each
    selection, its version must equal its number of save events, its judgements the last
    event's ``after`` and its grade the last event's; SQLite's own integrity check must pass."""
    problems: list[str] = []
    with engine.connect() as connection:
        if engine.dialect.name == "sqlite":
            result = connection.exec_driver_sql("PRAGMA integrity_check").scalar()
            if result != "ok":
                problems.append(f"sqlite integrity_check: {result}")
        rows = connection.execute(select(selections).order_by(selections.c.id)).mappings().all()
        for row in rows:
            saves = connection.execute(
                select(events.c.version, events.c.after, events.c.detail)
                .where(events.c.topic_id == row["topic_id"], events.c.cited_ucid == row["cited_ucid"],
                       events.c.owner == row["owner"], events.c.action.in_(("save", "undo")))
                .order_by(events.c.version)).all()
            if len(saves) != row["version"] or [v for v, _a, _d in saves] != list(range(1, row["version"] + 1)):
                problems.append(f"selection {row['id']}: version {row['version']} but {len(saves)} save events")
                continue
            stored = sorted(connection.execute(
                select(judgements.c.xpath).where(judgements.c.selection_id == row["id"])).scalars())
            if saves and stored != sorted(json.loads(saves[-1][1])):
                problems.append(f"selection {row['id']}: judgements differ from the last save")
            elif saves and row["grade"] != (json.loads(saves[-1][2])["grade"] if saves[-1][2] else None):
                problems.append(f"selection {row['id']}: grade {row['grade']} differs from the last save's")
        orphans = connection.execute(
            select(func.count()).select_from(judgements)
            .where(~judgements.c.selection_id.in_(select(selections.c.id)))).scalar()
        if orphans:
            problems.append(f"{orphans} judgements without a selection")
    return problems


def held(url: str) -> dict | None:
    """What an existing database holds, read without creating or migrating anything:
    ``{"meta": {key: value}, "names": [account names], "rows": {table: count}}`` for the
    tables of this schema it has; None when there is no database yet (a SQLite file that does
    not exist or is empty)."""
    full = _normalise_url(url)
    path = sqlite_path(url)
    if full.startswith("sqlite") and (path is None or not os.path.exists(path) or os.path.getsize(path) == 0):
        return None
    engine = create_engine(full)
    try:
        with engine.connect() as connection:
            have = set(inspect(connection).get_table_names())
            rows = {table.name: connection.execute(select(func.count()).select_from(table)).scalar_one()
                    for table in (assessors, sources, topics, selections, events) if table.name in have}
            names = sorted(connection.execute(select(assessors.c.name)).scalars()) if "assessors" in have else []
            values = dict(connection.execute(select(meta.c.key, meta.c.value)).all()) if "meta" in have else {}
    except (SQLAlchemyError, OSError) as error:
        raise ParameterError(f"cannot open the database {shown_url(url)}: "
                             f"{shown_url(str(error).splitlines()[0])}") from None
    finally:
        engine.dispose()
    return {"meta": values, "names": names, "rows": rows}
