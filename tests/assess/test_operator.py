"""A careful operator: ``serve --demo`` refuses a database that is not its own demo; imports
refuse conflicting topic definitions with file and line, and a refused import changes nothing;
a read-only database or a full disk is named as such, at start and at run time."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, select

from pateval.assess import db, service
from pateval.errors import InputFormatError, ParameterError

STRONG = "correct horse battery"


def _run(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "pateval.cli", *args], input=stdin, capture_output=True, text=True,
                          timeout=120)


def _everything(engine) -> dict:
    """Every row of every table (the meta table too): to show that nothing changed."""
    with engine.connect() as connection:
        return {table.name: sorted(map(str, connection.execute(select(table)).all()))
                for table in db.metadata.sorted_tables}


# ---- serve --demo ------------------------------------------------------------------------

def test_demo_refuses_a_database_with_other_accounts(database, tmp_path):
    """The audit's probe: ``serve --demo --db EXISTING`` added an administrator to a real
    database, printed the passwords, overwrote demo-accounts.txt and pointed the database at
    the demo corpus. Now: one line saying why, and nothing written (not even the directory)."""
    engine = database["engine"]
    service.add_assessor(engine, "carol", "a-long-secret-phrase")
    before = _everything(engine)
    demo_dir = tmp_path / "demo"
    result = _run("assess", "serve", "--demo", "--demo-dir", str(demo_dir), "--db", database["url"])
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (f"pateval: error: --demo: the database {database['url']} holds 3 accounts, not this "
                             "demo's: --demo would add its accounts to it and point it at its synthetic corpus; give "
                             "--demo a new database (or none), or serve this one with --store and --collection\n")
    assert _everything(engine) == before and not demo_dir.exists()


def test_demo_refuses_a_database_about_another_corpus_or_another_demo(database, workspace, tmp_path):
    from pateval.demo import prepare_assess_demo

    engine = database["engine"]
    with engine.begin() as connection:
        connection.execute(db.meta.insert().values(key="store", value="/data/real-store"))
    with pytest.raises(ParameterError, match=r"holds 2 accounts about the corpus /data/real-store, not this demo's"):
        prepare_assess_demo(tmp_path / "demo", url=database["url"], echo=lambda *a, **k: None)
    with engine.begin() as connection:
        connection.execute(db.meta.update().where(db.meta.c.key == "store").values(value=f"{workspace['root']}/store"))
        connection.execute(db.meta.insert().values(key="demo", value=str(Path(workspace["root"]).resolve())))
    with pytest.raises(ParameterError, match=rf"holds the demo of {re.escape(str(Path(workspace['root']).resolve()))}"):
        prepare_assess_demo(tmp_path / "demo", url=database["url"], echo=lambda *a, **k: None)
    assert not (tmp_path / "demo").exists()
    # its own database (marked when the demo made it) is served again, the accounts kept
    again = prepare_assess_demo(workspace["root"], n_patents=300, seed=0, echo=lambda *a, **k: None)
    assert again["accounts"] == workspace["accounts"]


def test_demo_takes_an_empty_database_and_marks_it(workspace, tmp_path):
    """A new (or empty) database is taken, and marked as this demo's so that it is taken again."""
    from pateval.demo import prepare_assess_demo

    url = f"sqlite:///{tmp_path / 'empty.db'}"
    db.open_database(url).dispose()
    made = prepare_assess_demo(workspace["root"], url=url, echo=lambda *a, **k: None)
    engine = db.open_database(url)
    with engine.connect() as connection:
        assert connection.execute(select(db.meta.c.value).where(db.meta.c.key == "demo")).scalar() == \
            str(Path(workspace["root"]).resolve())
    assert sorted(made["accounts"]) == ["alice", "bob"]
    assert prepare_assess_demo(workspace["root"], url=url, echo=lambda *a, **k: None)["accounts"] == made["accounts"]


# ---- imports -----------------------------------------------------------------------------

@pytest.fixture
def importing(workspace, tmp_path):
    from pateval.assess.corpus import AssessCorpus

    engine = db.open_database(f"sqlite:///{tmp_path / 'import.db'}")
    service.add_assessor(engine, "clefip", "long-enough-password")
    collection = Path(workspace["collection"])
    corpus = AssessCorpus(workspace["store"], collection)
    rows = (collection / "topics_PSG.tsv").read_text().splitlines()
    qrels = (collection / "qrels_PSG.txt").read_text()
    yield {"engine": engine, "corpus": corpus, "rows": rows, "qrels": qrels, "dir": tmp_path}
    corpus.close()
    engine.dispose()


def _write(path: Path, lines) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def _import(importing, topics_lines, qrels_text=None):
    from pateval.assess.export import import_qrels

    topics = _write(importing["dir"] / "topics.tsv", topics_lines)
    qrels = importing["dir"] / "qrels.txt"
    qrels.write_text(importing["qrels"] if qrels_text is None else qrels_text)
    return topics, lambda: import_qrels(importing["engine"], importing["corpus"], qrels, owner="clefip",
                                        topics_path=topics)


def test_a_topic_id_twice_in_a_topics_file_is_refused_with_its_lines(importing):
    """It was imported with the last definition winning."""
    rows = importing["rows"]
    header = rows[0].split("\t")
    fields = rows[1].split("\t")
    qid = fields[header.index("qid")]
    fields[header.index("claims")] = "1"
    twice = [*rows, "\t".join(fields)]
    before = _everything(importing["engine"])
    topics, run = _import(importing, twice)
    with pytest.raises(InputFormatError) as raised:
        run()
    assert str(raised.value) == f"{topics}, line {len(twice)}: topic {qid} is defined twice (first on line 2)"
    assert _everything(importing["engine"]) == before


def test_a_topics_row_redefining_an_existing_topic_is_refused(importing):
    """It was ignored (the database's definition kept without a word)."""
    _topics, run = _import(importing, importing["rows"])
    run()  # the collection's own topics: the same definitions, taken
    engine = importing["engine"]
    before = _everything(engine)
    rows = importing["rows"]
    header = rows[0].split("\t")
    fields = rows[1].split("\t")
    qid, patent_key, claims = (fields[header.index(c)] for c in ("qid", "patent_key", "claims"))
    other = "1" if claims != "1" else "1,2"
    fields[header.index("claims")] = other
    changed = [rows[0], "\t".join(fields)]
    first = importing["qrels"].splitlines()[0]
    topics, run = _import(importing, changed, f"{qid} {first.split()[1]} {first.split()[2]}\n")
    with pytest.raises(InputFormatError) as raised:
        run()
    message = str(raised.value)
    assert message.startswith(f"{topics}, line 2: topic {qid} is defined already, as {patent_key} claims ")
    assert message.endswith(f"not as here (found {patent_key} claims {other})")
    assert _everything(engine) == before


def test_a_refused_import_defines_no_topic_of_its_sources(importing):
    """The sources' own first topics were created before the checks, so a refused import left
    them behind; now they are written in the import's one transaction."""
    first = importing["qrels"].splitlines()[0].split()
    before = _everything(importing["engine"])
    extra = f"{first[0]} {first[1]} /patent-document/description/p[9999]\n"
    _topics, run = _import(importing, importing["rows"], importing["qrels"] + extra)
    with pytest.raises(ParameterError, match=r"/patent-document/description/p\[9999\] is not a passage of"):
        run()
    after = _everything(importing["engine"])
    assert after == before and after["sources"] == [] and after["topics"] == []



def test_a_compressed_topics_file_is_read_within_the_decompression_bound(importing):
    """The topics file was read by pandas, which decompressed it whole whatever its size;
    it now goes through pateval's reader and its bound, like the qrels."""
    import lzma

    from pateval.formats import source

    plain, _run = _import(importing, importing["rows"])
    packed = plain.with_suffix(".tsv.xz")
    packed.write_bytes(lzma.compress(plain.read_bytes()))
    qrels = importing["dir"] / "qrels.txt"
    before = _everything(importing["engine"])
    from pateval.assess.export import import_qrels

    with source.max_decompressed(len(plain.read_bytes()) - 1), pytest.raises(InputFormatError) as raised:
        import_qrels(importing["engine"], importing["corpus"], qrels, owner="clefip", topics_path=packed)
    assert str(raised.value).startswith(f"{packed}: the xz data decompresses to more than ")
    assert _everything(importing["engine"]) == before
    import_qrels(importing["engine"], importing["corpus"], qrels, owner="clefip", topics_path=packed)
    assert _everything(importing["engine"])["topics"]

# ---- read-only database, full disk -------------------------------------------------------

def _immutable(path: Path) -> bool:
    """chattr +i: even root cannot write the file (False where the file system refuses it)."""
    return subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0


def test_a_read_only_database_is_named_at_start(database, workspace, tmp_path):
    """It was "internal error ... a bug in pateval": now one line naming the condition, for
    ``serve`` and ``user add`` (a copy of the database, made immutable)."""
    import shutil

    copy = tmp_path / "copy.db"
    database["engine"].dispose()
    shutil.copy(database["path"], copy)
    if not _immutable(copy):
        pytest.skip("chattr +i is not permitted here")
    try:
        url = f"sqlite:///{copy}"
        expected = f"pateval: error: the database {url} is read-only: make its file (and its directory) writable\n"
        served = _run("assess", "serve", "--db", url, "--store", workspace["store"], "--collection",
                      workspace["collection"], "--port", "1")
        added = _run("assess", "user", "add", "dora", "--db", url, stdin="long-enough-password\n")
        assert (served.returncode, served.stderr) == (2, expected)
        assert (added.returncode, added.stderr) == (2, expected)
    finally:
        subprocess.run(["chattr", "-i", str(copy)], check=True)


@pytest.fixture
def small_disk(tmp_path):
    """A 1 MiB file system of its own (tmpfs; skipped where mounting is not permitted)."""
    mount = tmp_path / "small"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1M", "tmpfs", str(mount)],
                      capture_output=True).returncode != 0:
        pytest.skip("mounting a small file system is not permitted here")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=True)


def _login_answer(app, password):
    async def attempt():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            token = re.search(r'name="csrf" value="([^"]+)"', (await client.get("/login")).text).group(1)
            return await client.post("/login", data={"csrf": token, "name": "bob", "password": password})

    return asyncio.run(attempt())


def _check_503(answer, caplog, words, logged):
    assert answer.status_code == 503
    assert answer.text == f"the database {words}; an administrator must fix it" and "try again" not in answer.text
    assert [r.getMessage() for r in caplog.records if r.name == "pateval.assess"] == \
        [f"database unusable on POST /login: {logged}"]


def test_a_database_turned_read_only_is_named_at_run_time(database, workspace, caplog):
    """The served tool's database turns read-only under it (here: its connections opened read-only
    after the start): a login, which writes, is answered 503 naming the condition, once in the log,
    without "try again in a moment" (waiting will not cure it)."""
    from pateval import api

    app = api.assess_app(database["url"], store=workspace["store"], collection=workspace["collection"])
    app.state.engine = create_engine(f"sqlite:///file:{database['path']}?mode=ro&uri=true")
    _check_503(_login_answer(app, workspace["accounts"]["bob"]), caplog, "is read-only",
               "is read-only: make its file (and its directory) writable")
    app.state.engine.dispose()


def test_a_full_disk_is_named_at_run_time(workspace, small_disk, caplog):
    """The database on a 1 MiB file system, filled up once the tool is serving: a login is
    answered 503 naming the full disk."""
    from pateval import api

    url = f"sqlite:///{small_disk / 'assess.db'}"
    service.add_assessor(db.open_database(url), "bob", STRONG)
    app = api.assess_app(url, store=workspace["store"], collection=workspace["collection"])
    try:
        with open(small_disk / "filler", "wb") as filler:
            while True:
                filler.write(b"\0" * 4096)
                filler.flush()
    except OSError:  # ENOSPC: the disk is full
        pass
    answer = _login_answer(app, STRONG)
    app.state.engine.dispose()
    _check_503(answer, caplog, "has a full disk", "has a full disk: make room on it")


def test_storage_problems_are_told_from_passing_ones():
    import sqlite3

    from sqlalchemy.exc import OperationalError

    def wrapped(message):
        return OperationalError("INSERT ...", {}, sqlite3.OperationalError(message))

    assert db.storage_problem(wrapped("attempt to write a readonly database")).startswith("is read-only")
    assert db.storage_problem(wrapped("database or disk is full")).startswith("has a full disk")
    assert db.storage_problem(wrapped('could not extend file "base/1/2": No space left on device')) \
        .startswith("has a full disk")
    assert db.storage_problem(wrapped("cannot execute UPDATE in a read-only transaction")).startswith("is read-only")
    assert db.storage_problem(wrapped("database is locked")) is None
    assert db.storage_problem(wrapped("connection refused")) is None
