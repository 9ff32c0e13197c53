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
    with pytest.raises(ParameterError, match=r"^the database has schema version 99; this pateval knows up to 2: "
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
    """Schema 1 had no topic versions: opening such a database adds them and keeps the data."""
    from sqlalchemy import create_engine, text

    path = tmp_path / "old.db"
    old = create_engine(f"sqlite:///{path}")
    with old.begin() as connection:  # the schema-1 topics table and a topic in it
        connection.execute(text("CREATE TABLE meta (key VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL)"))
        connection.execute(text("INSERT INTO meta VALUES ('schema_version', '1'), ('secret', 'abc')"))
        connection.execute(text(
            "CREATE TABLE topics (id INTEGER PRIMARY KEY, qid VARCHAR(64) NOT NULL UNIQUE, patent_key VARCHAR(64) "
            "NOT NULL, claims TEXT NOT NULL, created_by INTEGER, created_at DATETIME NOT NULL, deleted BOOLEAN NOT NULL)"))
        connection.execute(text("INSERT INTO topics VALUES (1, 'PSG-1', 'EP1', '1,2', NULL, '2026-01-01', 0)"))
    old.dispose()
    engine = db.open_database(f"sqlite:///{path}")
    with engine.connect() as connection:
        assert connection.execute(text("SELECT value FROM meta WHERE key = 'schema_version'")).scalar() == "2"
        assert connection.execute(text("SELECT qid, claims, version FROM topics")).all() == [("PSG-1", "1,2", 0)]
        assert connection.execute(text("SELECT value FROM meta WHERE key = 'secret'")).scalar() == "abc"
    db.open_database(f"sqlite:///{path}")  # opening again changes nothing
