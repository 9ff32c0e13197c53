"""The database layer: schema versions, the consistency check (it finds what it looks for)."""

from __future__ import annotations

import pytest
from sqlalchemy import delete, update

from pateval.assess import db, service
from pateval.errors import ParameterError

from .conftest import a_suggested_citation


def test_newer_schema_is_refused(tmp_path):
    url = f"sqlite:///{tmp_path / 'new.db'}"
    engine = db.open_database(url)
    with engine.begin() as connection:
        connection.execute(update(db.meta).where(db.meta.c.key == "schema_version").values(value="99"))
    with pytest.raises(ParameterError, match=r"^the database has schema version 99; this pateval knows up to 5: "
                                             r"upgrade pateval$"):
        db.open_database(url)


def test_consistency_check_finds_damage(database, corpus, workspace):
    engine = database["engine"]
    alice = service.authenticate(engine, "alice", workspace["accounts"]["alice"])
    patent_key, qid, citation = a_suggested_citation(corpus)
    service.ensure_topics(engine, corpus, patent_key)
    topic_id = next(t["id"] for t in service.topics_of(engine, patent_key) if t["qid"] == qid)
    service.save_selection(engine, corpus, topic_id=topic_id, cited_ucid=citation.cited_ucid, owner="alice",
                           xpaths=list(citation.report_xpaths), base_version=0, actor=alice)
    assert db.check_consistency(engine) == []
    with engine.begin() as connection:
        connection.execute(delete(db.judgements).where(db.judgements.c.xpath == citation.report_xpaths[0]))
    assert db.check_consistency(engine) == ["selection 1: judgements differ from the last save"]
    with engine.begin() as connection:
        connection.execute(update(db.selections).values(version=5))
    assert db.check_consistency(engine) == ["selection 1: version 5 but 1 save events"]


def test_a_schema_1_database_is_migrated(tmp_path):
    """Schema 1 had no topic versions: opening such a database adds them and keeps the data
    (and migrates on to schema 3, which drops the cookie-signing secret, and to schema 4)."""
    from sqlalchemy import create_engine, text

    path = tmp_path / "old.db"
    old = create_engine(f"sqlite:///{path}")
    with old.begin() as connection:  # the schema-1 topics table and a topic in it
        connection.execute(text("CREATE TABLE meta (key VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL)"))
        connection.execute(text("INSERT INTO meta VALUES ('schema_version', '1'), ('secret', 'abc')"))
        connection.execute(text(
            "CREATE TABLE topics (id INTEGER PRIMARY KEY, qid VARCHAR(64) NOT NULL UNIQUE, patent_key VARCHAR(64) "
            "NOT NULL, claims TEXT NOT NULL, created_by INTEGER, created_at DATETIME NOT NULL, "
            "deleted BOOLEAN NOT NULL)"))
        connection.execute(text("INSERT INTO topics VALUES (1, 'PSG-1', 'EP1', '1,2', NULL, '2026-01-01', 0)"))
    old.dispose()
    engine = db.open_database(f"sqlite:///{path}")
    with engine.connect() as connection:
        assert connection.execute(text("SELECT value FROM meta WHERE key = 'schema_version'")).scalar() == "5"
        assert connection.execute(text("SELECT qid, claims, version FROM topics")).all() == [("PSG-1", "1,2", 0)]
        assert connection.execute(text("SELECT value FROM meta WHERE key = 'secret'")).first() is None
    db.open_database(f"sqlite:///{path}")  # opening again changes nothing


def test_a_schema_2_database_is_migrated(tmp_path):
    """Schema 2 kept the cookie-signing secret in the database and had no sessions nor
    account states: opening it drops the secret, adds the sessions table and the status and
    lock-out columns, keeps the accounts (active, unlocked), and their passwords work."""
    import sqlite3

    from sqlalchemy import create_engine, inspect, text

    path = tmp_path / "old.db"
    old = create_engine(f"sqlite:///{path}")
    with old.begin() as connection:
        connection.execute(text("CREATE TABLE meta (key VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL)"))
        connection.execute(text("INSERT INTO meta VALUES ('schema_version', '2'), ('secret', 'abc')"))
        connection.execute(text(
            "CREATE TABLE assessors (id INTEGER PRIMARY KEY, name VARCHAR(64) NOT NULL UNIQUE, password_hash "
            "VARCHAR(256) NOT NULL, is_admin BOOLEAN NOT NULL, created_at DATETIME NOT NULL)"))
        connection.execute(text("INSERT INTO assessors VALUES (1, 'carol', :h, 1, '2026-01-01 00:00:00')"),
                           {"h": service.hash_password("carol-password")})
    old.dispose()
    engine = db.open_database(f"sqlite:///{path}")
    with engine.connect() as connection:
        assert connection.execute(text("SELECT value FROM meta WHERE key = 'schema_version'")).scalar() == "5"
        assert connection.execute(text("SELECT value FROM meta WHERE key = 'secret'")).first() is None
        assert connection.execute(text("SELECT name, status, failed_logins, locked_at FROM assessors")).all() == \
            [("carol", "active", 0, None)]
        assert "sessions" in inspect(connection).get_table_names()
    carol = service.authenticate(engine, "carol", "carol-password")
    assert carol is not None and carol["status"] == "active"
    token = service.start_session(engine, carol["id"], idle=60, maximum=600)
    assert service.session_user(engine, token, idle=60, maximum=600)["name"] == "carol"
    db.open_database(f"sqlite:///{path}")  # opening again changes nothing
    assert sqlite3.connect(path).execute("SELECT count(*) FROM assessors").fetchone() == (1,)


def test_a_new_sqlite_database_is_owner_only(tmp_path):
    """The database holds the password hashes: nobody else may read it (nor its WAL)."""
    import stat

    engine = db.open_database(f"sqlite:///{tmp_path / 'private.db'}")
    service.add_assessor(engine, "dora", "long-enough-password")
    for name in ("private.db", "private.db-wal", "private.db-shm"):
        if (tmp_path / name).exists():
            assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600, name
    engine.dispose()


def test_database_urls_in_messages_hide_the_password():
    assert db.shown_url("postgresql://ann:s3cret@db.example:5432/assess") == "postgresql://ann:***@db.example:5432/assess"
    assert db.shown_url("postgresql://ann@db.example/assess") == "postgresql://ann@db.example/assess"
    assert db.shown_url("sqlite:///a.db") == "sqlite:///a.db"
    with pytest.raises(ParameterError) as raised:
        db.open_database("postgresql://ann:s3cret@127.0.0.1:1/assess")
    assert "s3cret" not in str(raised.value) and "postgresql://ann:***@127.0.0.1:1/assess" in str(raised.value)


@pytest.mark.parametrize(("url", "shown"), [
    ("postgresql://ann:se/cr?et@127.0.0.1:1/assess", "postgresql://ann:***@127.0.0.1:1/assess"),
    ("postgresql://ann:p@ss:w/rd@127.0.0.1:1/assess", "postgresql://ann:***@127.0.0.1:1/assess"),
    ("postgresql://ann@127.0.0.1:1/assess?password=s3cr/et", "postgresql://ann@127.0.0.1:1/assess?password=***"),
    ("postgresql://127.0.0.1:1/assess?user=ann&password=s3cr%2Fet&sslmode=disable",
     "postgresql://127.0.0.1:1/assess?user=ann&password=***&sslmode=disable"),
    ("postgresql+psycopg://ann:a:b/c@127.0.0.1:1/assess?sslpassword=k3y",
     "postgresql+psycopg://ann:***@127.0.0.1:1/assess?sslpassword=***"),
])
def test_every_way_of_giving_a_password_is_masked(url, shown):
    """Issue 34: a password holding "/" and one given as ?password= were printed in clear."""
    assert db.shown_url(url) == shown
    with pytest.raises(ParameterError) as raised:
        db.open_database(url)
    message = str(raised.value)
    assert shown in message
    for secret in ("se/cr", "p@ss", "w/rd", "s3cr", "a:b/c", "k3y"):
        assert secret not in message, message
    assert db.shown_url("could not connect: host=db password='it is me' user=ann") == \
        "could not connect: host=db password=*** user=ann"
