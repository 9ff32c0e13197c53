"""The same code on PostgreSQL: a private server started for the test (Debian's
postgresql package, run as the postgres user), or the one PATEVAL_TEST_POSTGRESQL names
(a postgresql:// URL of an empty database). Skipped with the reason when neither exists."""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import tempfile
import threading

import pytest

from .conftest import Server, a_suggested_citation, free_port

pytest.importorskip("psycopg", reason="psycopg is not installed (pip install -e '.[postgresql]')")


def _binaries():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return os.path.dirname(found[-1]) if found else None


class PrivateServer:
    """A PostgreSQL server of the test's own, which a test may stop and start again
    (``control`` is None for the server PATEVAL_TEST_POSTGRESQL names)."""

    def __init__(self, url: str, control=None) -> None:
        self.url, self.control = url, control

    def stop(self) -> None:
        runner, bindir, data, _options, _log = self.control
        subprocess.run([*runner, f"{bindir}/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"], check=True,
                       capture_output=True)

    def start(self) -> None:
        runner, bindir, data, options, log = self.control
        subprocess.run([*runner, f"{bindir}/pg_ctl", "-D", data, "-l", log, "-w", "-o", options, "start"], check=True,
                       capture_output=True)


@pytest.fixture(scope="module")
def postgresql():
    given = os.environ.get("PATEVAL_TEST_POSTGRESQL")
    if given:
        yield PrivateServer(given)
        return
    bindir = _binaries()
    if bindir is None:
        pytest.skip("no PostgreSQL server: apt-get install postgresql, or set PATEVAL_TEST_POSTGRESQL")
    runner = [] if os.geteuid() != 0 else ["runuser", "-u", "postgres", "--"]
    if runner and shutil.which("runuser") is None:
        pytest.skip("running as root without runuser: cannot start PostgreSQL as the postgres user")
    directory = tempfile.mkdtemp(prefix="pateval-pg-")
    if runner:
        shutil.chown(directory, "postgres", "postgres")
    data = os.path.join(directory, "data")
    port = free_port()
    subprocess.run([*runner, f"{bindir}/initdb", "-D", data, "-A", "trust", "-U", "pateval", "--no-sync"],
                   check=True, capture_output=True)
    server = PrivateServer(f"postgresql://pateval@127.0.0.1:{port}/assess",
                           (runner, bindir, data, f"-p {port} -c listen_addresses=127.0.0.1 -k {directory} "
                            "-c fsync=off", os.path.join(directory, "log")))
    server.start()
    try:
        subprocess.run([*runner, f"{bindir}/createdb", "-h", "127.0.0.1", "-p", str(port), "-U", "pateval",
                        "assess"], check=True, capture_output=True)
        yield server
    finally:
        subprocess.run([*runner, f"{bindir}/pg_ctl", "-D", data, "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="module")
def postgresql_url(postgresql):
    return postgresql.url


def test_postgresql_save_conflict_undo_export_and_concurrency(postgresql_url, workspace, corpus, tmp_path):
    from pateval.assess import db, service
    from pateval.assess.export import export_qrels

    from .conftest import csrf_of
    from .test_concurrency import _client, _target

    engine = db.open_database(postgresql_url)
    db.open_database(postgresql_url)  # a second open finds the schema and changes nothing
    for name, admin in (("alice", True), ("bob", False)):
        service.add_assessor(engine, name, workspace["accounts"][name], is_admin=admin)
    alice = service.authenticate(engine, "alice", workspace["accounts"]["alice"])
    patent_key, qid, citation = a_suggested_citation(corpus)
    service.ensure_topics(engine, corpus, patent_key)
    topic_id = next(t["id"] for t in service.topics_of(engine, patent_key) if t["qid"] == qid)
    keys = dict(topic_id=topic_id, cited_ucid=citation.cited_ucid, owner="alice", actor=alice)
    marked = sorted(citation.report_xpaths)
    assert service.save_selection(engine, corpus, xpaths=marked, base_version=0, **keys) == 1
    with pytest.raises(service.AssessError, match="another page saved this selection first"):
        service.save_selection(engine, corpus, xpaths=[], base_version=0, **keys)
    assert service.save_selection(engine, corpus, xpaths=[], base_version=1, **keys) == 2
    assert service.undo_selection(engine, corpus, base_version=2, topic_id=topic_id, cited_ucid=citation.cited_ucid,
                                  owner="alice", actor=alice) == 3
    summary = export_qrels(engine, corpus, tmp_path / "pg")
    assert (tmp_path / "pg" / "qrels_PSG.txt").read_text().splitlines() == \
        [f"{qid} {citation.cited_ucid} {x}" for x in marked]
    assert summary["passages"] == len(marked)

    # Two clients of the real server on PostgreSQL: one save per round wins, the other gets 409.
    server = Server(postgresql_url, workspace, tmp_path / "server.log")
    try:
        clients = [_client(server, workspace, "bob") for _ in range(2)]
        patent_key, url, selectable = _target(clients[0], corpus)
        tokens = [csrf_of(c, server.base, patent_key) for c in clients]
        for round_ in range(10):
            version = clients[0].get(url).json()["version"]
            codes: list[int] = []

            def save(client, token, xpath, version=version, codes=codes):
                codes.append(client.put(url, json={"xpaths": [xpath], "version": version},
                                        headers={"X-CSRF-Token": token}).status_code)

            threads = [threading.Thread(target=save, args=(c, t, selectable[(round_ + i) % len(selectable)]))
                       for i, (c, t) in enumerate(zip(clients, tokens, strict=True))]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert sorted(codes) == [200, 409]
        assert clients[0].get(url).json()["version"] == 10
    finally:
        server.kill(signal.SIGKILL)
    assert db.check_consistency(engine) == []
    engine.dispose()


def test_postgresql_stopped_while_serving_answers_503_and_recovers(postgresql, postgresql_url, workspace, corpus,
                                                                    tmp_path):
    """PostgreSQL stops under the running tool: every request is answered 503 "the database
    is unavailable" with one log line each (not a 500 and a traceback); once it is back the
    same session goes on."""
    from .conftest import login

    if postgresql.control is None:
        pytest.skip("the PostgreSQL server PATEVAL_TEST_POSTGRESQL names is not ours to stop")
    import httpx

    from pateval.assess import db, service

    engine = db.open_database(postgresql_url)
    if service.assessors_list(engine) == []:
        service.add_assessor(engine, "bob", workspace["accounts"]["bob"])
    engine.dispose()
    log = tmp_path / "server.log"
    server = Server(postgresql_url, workspace, log)
    try:
        with httpx.Client(base_url=server.base, timeout=60) as bob:
            login(bob, server.base, "bob", workspace["accounts"]["bob"])
            assert bob.get("/api/sources").status_code == 200
            before = len(log.read_text().splitlines())
            postgresql.stop()
            try:
                answers = [bob.get(path) for path in ("/api/sources", "/", "/api/audit", "/agreement")]
            finally:
                postgresql.start()
            assert [a.status_code for a in answers] == [503] * 4
            assert answers[0].json() == {"error": "the database is unavailable; try again in a moment"}
            assert answers[1].text == "the database is unavailable; try again in a moment"
            lines = log.read_text().splitlines()[before:]
            assert len(lines) == 4 and all("database unavailable on GET" in line for line in lines), lines
            assert bob.get("/api/sources").status_code == 200  # recovered, the session kept
    finally:
        server.kill(signal.SIGTERM)


def test_a_demo_on_postgresql(postgresql_url, workspace, tmp_path):
    """``serve --demo --db postgresql://...``: the demo's corpus and collection, its accounts
    in PostgreSQL."""
    from pateval.assess import db, service
    from pateval.demo import prepare_assess_demo

    for name in ("store", "collection"):  # the session's demo corpus, not made again
        (tmp_path / name).symlink_to(workspace[name])
    demo = prepare_assess_demo(tmp_path, url=postgresql_url, echo=lambda *a, **k: None)
    assert demo["db"] == postgresql_url and not (tmp_path / "assess.db").exists()
    engine = db.open_database(postgresql_url)
    assert {"alice", "bob"} <= {a["name"] for a in service.assessors_list(engine)}
    for name, password in demo["accounts"].items():
        assert service.authenticate(engine, name, password) is not None
    engine.dispose()


def _same_judgements(engine, corpus, workspace) -> None:
    """The same requests, in the same order, on one database: two assessors judge the
    citations of three sources, agreeing on some and not on others; a topic's claims form is
    sent again (PostgreSQL then returns that row after the others unless asked for an order);
    a topic is added, a source rejected."""
    from pateval.assess import service

    for name, admin in (("alice", True), ("bob", False)):
        service.add_assessor(engine, name, workspace["accounts"][name], is_admin=admin)
    alice = service.authenticate(engine, "alice", workspace["accounts"]["alice"])
    bob = service.authenticate(engine, "bob", workspace["accounts"]["bob"])
    keys = [k for k in corpus.patent_keys if any(c.in_corpus for c in corpus.citations(k))][:4]
    assert len(keys) == 4
    for k in keys:
        service.ensure_topics(engine, corpus, k)
    for number, patent_key in enumerate(keys):
        for topic in service.topics_of(engine, patent_key):
            for position, citation in enumerate(c for c in service.topic_citations(corpus, topic) if c.in_corpus):
                selectable = sorted(corpus.document(citation.cited_ucid).selectable)
                ann = selectable[: 2 + position % 3]
                other = ann if (number + position) % 2 else selectable[1:4]  # disagree every other time
                for actor, xpaths in ((alice, ann), (bob, other)):
                    service.save_selection(engine, corpus, topic_id=topic["id"], cited_ucid=citation.cited_ucid,
                                           owner=actor["name"], xpaths=xpaths, base_version=0, actor=actor)
    first = service.topics_of(engine, keys[0])[0]
    service.set_topic_claims(engine, corpus, first["id"], ",".join(map(str, first["claim_numbers"])), alice,
                             base_version=first["version"])
    service.add_topic(engine, corpus, keys[1], "sp-extra", "1", bob)
    service.decide_source(engine, corpus, keys[3], status="rejected", reason="other", note="a note", base_version=0,
                          actor=alice)


def _fresh_database(postgresql_url: str, name: str) -> str:
    """The URL of an empty database ``name`` made on the test server (skips when it cannot)."""
    import sqlalchemy

    from pateval.assess import db

    fresh = sqlalchemy.make_url(db._normalise_url(postgresql_url)).set(database=name)
    admin = sqlalchemy.create_engine(db._normalise_url(postgresql_url), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f"DROP DATABASE IF EXISTS {name}")
            connection.exec_driver_sql(f"CREATE DATABASE {name}")
    except sqlalchemy.exc.SQLAlchemyError as error:
        pytest.skip(f"cannot create a second database on the server: {str(error).splitlines()[0]}")
    finally:
        admin.dispose()
    return fresh.render_as_string(hide_password=False)


def test_the_same_judgements_export_the_same_bytes_from_sqlite_and_postgresql(postgresql_url, workspace, corpus,
                                                                             tmp_path):
    """Issue 34: once a topic's claims were sent again, export.json listed the unresolved
    disagreements in another order on PostgreSQL than on SQLite (a query without ORDER BY)."""

    from pateval.assess import db
    from pateval.assess.export import export_qrels

    fresh = _fresh_database(postgresql_url, "pateval_same_bytes")
    written = {}
    for name, url in (("sqlite", f"sqlite:///{tmp_path / 'same.db'}"),
                      ("postgresql", fresh)):
        engine = db.open_database(url)
        _same_judgements(engine, corpus, workspace)
        for policy in ("final", "union", "bob"):
            summary = export_qrels(engine, corpus, tmp_path / name / policy, policy=policy)
            if policy == "final":
                assert len(summary["unresolved"]) >= 2 and summary["rejected_sources"]
        engine.dispose()
        written[name] = {str(p.relative_to(tmp_path / name)): p.read_bytes()
                         for p in sorted((tmp_path / name).rglob("*")) if p.is_file()}
    assert sorted(written["sqlite"]) == sorted(written["postgresql"])
    assert "final/export.json" in written["sqlite"] and "final/qrels_PSG.txt" in written["sqlite"]
    for path, content in written["sqlite"].items():
        assert written["postgresql"][path] == content, path


def test_a_pool_judged_on_postgresql_exports_what_sqlite_does(postgresql_url, workspace, corpus, tmp_path):
    """Issue 32, item 3, on PostgreSQL: a pool imported, judged in an adaptive order (grades,
    passages, an undo, an adjudication) exports the same bytes as on SQLite."""

    from pateval.assess import db, pools, service
    from pateval.assess.export import export_qrels

    from .test_pools import _demo_pool

    fresh = _fresh_database(postgresql_url, "pateval_pools")
    path, docs = _demo_pool(corpus, tmp_path)
    written = {}
    for name, url in (("sqlite", f"sqlite:///{tmp_path / 'pools.db'}"),
                      ("postgresql", fresh)):
        engine = db.open_database(url)
        for who, admin_role in (("alice", True), ("bob", False), ("carol", False)):
            service.add_assessor(engine, who, f"a long password of {len(who) * 7}", is_admin=admin_role)
        actors = {who: service.authenticate(engine, who, f"a long password of {len(who) * 7}")
                  for who in ("alice", "bob", "carol")}
        pools.import_pool(engine, path, order="mtf")
        topic = service.topic(engine, service.topic_ids(engine)["T-401"][0])
        for who, grades in (("bob", [1, 0, 2, 0, 1]), ("carol", [1, 1, 2, 0, 0])):
            for grade in grades:
                following = pools.queue(engine, topic, who)["next"]
                document = corpus.document(following)
                xpaths = sorted(document.selectable)[:1] if document is not None and grade else []
                service.save_selection(engine, corpus, topic_id=topic["id"], cited_ucid=following, owner=who,
                                       xpaths=xpaths, base_version=0, actor=actors[who], grade=grade)
        last = pools.queue(engine, topic, "carol")["documents"][4]["docno"]
        service.undo_selection(engine, corpus, topic_id=topic["id"], cited_ucid=last, owner="carol", base_version=1,
                               actor=actors["carol"])
        disputed = pools.queue(engine, topic, db.ADJUDICATED)["next"]
        service.save_selection(engine, corpus, topic_id=topic["id"], cited_ucid=disputed, owner=db.ADJUDICATED,
                               xpaths=[], base_version=0, actor=actors["alice"], grade=0)
        assert db.check_consistency(engine) == []
        for policy in ("final", "union", "bob"):
            export_qrels(engine, corpus, tmp_path / name / policy, policy=policy)
        engine.dispose()
        written[name] = {str(p.relative_to(tmp_path / name)): p.read_bytes()
                         for p in sorted((tmp_path / name).rglob("*")) if p.is_file()}
    assert "final/qrels_pool.txt" in written["sqlite"] and written["sqlite"]["final/qrels_pool.txt"]
    assert written["sqlite"] == written["postgresql"]
