"""pateval assess user / import / export as a user runs them: the collection's passage
qrels imported and exported again are byte for byte the files collection build wrote, and
pateval evaluate reads them; bad input gets one line and exit status 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pateval.cli import main
from pateval.errors import ParameterError


def _run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "pateval.cli", *args], input=stdin, capture_output=True,
                          text=True, timeout=300)


def test_import_then_export_reproduces_collection_build_byte_for_byte(workspace, tmp_path):
    url = f"sqlite:///{tmp_path / 'a.db'}"
    added = _run("assess", "user", "add", "clefip", "--db", url, stdin="long-enough-password\n")
    assert added.returncode == 0 and added.stdout == "assess: account clefip added\n"
    collection = workspace["collection"]
    loaded = _run("assess", "import", "--db", url, "--qrels", f"{collection}/qrels_PSG.txt", "--topics",
                  f"{collection}/topics_PSG.tsv", "--as", "clefip", "--store", workspace["store"],
                  "--collection", collection)
    assert loaded.returncode == 0, loaded.stderr
    n_lines = len(Path(f"{collection}/qrels_PSG.txt").read_text().splitlines())
    assert loaded.stdout.startswith(f"assess import: {n_lines} passages in ")
    # serve remembers the store and collection in the database; without serve they are given.
    out = tmp_path / "exported"
    exported = _run("assess", "export", "--db", url, "--out", str(out), "--store", workspace["store"],
                    "--collection", collection)
    assert exported.returncode == 0, exported.stderr
    for name in ("qrels_PSG.txt", "qrels_PSG_graded.txt", "topics_PSG.tsv", "topics_PSG.txt"):
        assert (out / name).read_bytes() == Path(f"{collection}/{name}").read_bytes(), name
    built = sorted(p.name for p in (workspace["root"] / "collection" / "topics" / "PSG").iterdir())
    assert sorted(p.name for p in (out / "topics" / "PSG").iterdir()) == built
    for name in built:
        assert (out / "topics" / "PSG" / name).read_bytes() == \
            (workspace["root"] / "collection" / "topics" / "PSG" / name).read_bytes()
    # pateval evaluate reads every exported qrels file.
    import pateval

    run = tmp_path / "run.txt"
    first = (out / "qrels_PSG_docs.txt").read_text().splitlines()[0].split()
    run.write_text(f"{first[0]} Q0 {first[2]} 1 1.0 r\n")
    for name in ("qrels_PSG_docs.txt", "qrels_PSG_graded.txt"):
        frame = pateval.evaluate(str(out / name), [str(run)], ["R@10"])
        assert len(frame) >= 1
    # A passage run returning exactly the exported passages scores 1 on the passage measures.
    psg_run = tmp_path / "ABC-perfect-PSG.txt"
    rows, rank = [], {}
    for line in (out / "qrels_PSG.txt").read_text().splitlines():
        topic, docno, xpath = line.split()
        rank[topic] = rank.get(topic, 0) + 1
        rows.append(f"{topic} Q0 {docno} {xpath} {rank[topic]} {1000 - rank[topic]}")
    psg_run.write_text("\n".join(rows) + "\n")
    perfect = pateval.evaluate(str(out / "qrels_PSG.txt"), [str(psg_run)], ["P_psg", "MAP_psg"])
    assert set(perfect["value"]) == {1.0}
    claims = pateval.evaluate(str(out / "qrels_PSG_claims.txt"), [str(run)], ["alpha_nDCG@10"], qrels_format="subtopic")
    assert len(claims) >= 1


def test_user_and_import_errors(workspace, tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'b.db'}"
    short = _run("assess", "user", "add", "dora", "--db", url, stdin="short\n")
    assert short.returncode == 2 and short.stderr == "pateval: error: a password needs at least 12 characters\n"
    assert _run("assess", "user", "add", "dora", "--db", url, stdin="long-enough-password\n").returncode == 0
    again = _run("assess", "user", "add", "dora", "--db", url, stdin="long-enough-password\n")
    assert again.stderr == "pateval: error: an assessor named 'dora' exists already\n"
    bad = tmp_path / "bad.txt"
    bad.write_text("PSG-1 EP-0000001-A1 /patent-document/description/p[1]\nPSG-1 EP-0000001-A1\n")
    assert main(["assess", "import", "--db", url, "--qrels", str(bad), "--as", "dora", "--store",
                 workspace["store"]]) == 2
    assert capsys.readouterr().err == (f"pateval: error: {bad}, line 2: wrong number of fields (expected 3 or 4 "
                                       "fields (spaces or commas): topic [0] doc_id xpath, found 2)\n")
    unknown = tmp_path / "unknown.txt"
    unknown.write_text("PSG-77 EP-0000001-A1 /patent-document/description/p[1]\n")
    assert main(["assess", "import", "--db", url, "--qrels", str(unknown), "--as", "dora", "--store",
                 workspace["store"]]) == 2
    assert capsys.readouterr().err == (f"pateval: error: {unknown}: topic PSG-77 is neither in the database nor "
                                       "in the topics file\n")
    good = tmp_path / "good.txt"
    good.write_text("PSG-1 EP-0000001-A1 /patent-document/description/p[1]\n")
    assert main(["assess", "import", "--db", url, "--qrels", str(good), "--topics", str(tmp_path / "none.tsv"),
                 "--as", "dora", "--store", workspace["store"]]) == 2
    assert capsys.readouterr().err == f"pateval: error: {tmp_path / 'none.tsv'}: no such file\n"
    wrong = tmp_path / "wrong.tsv"
    wrong.write_text("qid\tclaims\nPSG-1\t1\n")
    assert main(["assess", "import", "--db", url, "--qrels", str(good), "--topics", str(wrong), "--as", "dora",
                 "--store", workspace["store"]]) == 2
    assert capsys.readouterr().err == (f"pateval: error: {wrong}, line 1: no column patent_key (expected qid, "
                                       "patent_key, claims)\n")
    assert main(["assess", "export", "--db", url, "--out", str(tmp_path / "x")]) == 2
    assert capsys.readouterr().err == f"pateval: error: {url}: no corpus store known; give --store (and --collection)\n"
    assert not (tmp_path / "x").exists()
    assert main(["assess", "export", "--db", "mysql://x", "--out", str(tmp_path / "y")]) == 2
    assert capsys.readouterr().err == ("pateval: error: database URL must start with sqlite:/// or postgresql://, "
                                       "not 'mysql://x'\n")


def test_parser_does_not_import_the_web_stack():
    code = ("import sys, pateval.cli as c; c.build_parser(); "
            "print([m for m in ('starlette', 'sqlalchemy', 'uvicorn', 'jinja2', 'playwright') if m in sys.modules])")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize("args, message", [
    (["assess", "serve"], "pateval: error: give --store and --collection (or --demo)\n"),
    (["assess", "serve", "--demo", "--store", "x"],
     "pateval: error: --demo makes its own store and collection; leave out --store and --collection\n"),
])
def test_serve_argument_errors(args, message, capsys):
    assert main(args) == 2
    assert capsys.readouterr().err == message


def test_serve_demo_on_a_fresh_directory(tmp_path):
    """`pateval assess serve --demo` makes its corpus, collection, database and accounts,
    prints the passwords, and serves pages an assessor can log in to."""
    import os
    import re
    import signal
    import time

    import httpx

    from .conftest import free_port, login

    port = free_port()
    log = tmp_path / "demo.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "pateval.cli", "assess", "serve", "--demo", "--demo-dir",
                                    str(tmp_path / "demo"), "--port", str(port)], stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        try:
            deadline = time.monotonic() + 240
            while "serving" not in log.read_text() and time.monotonic() < deadline:
                assert process.poll() is None, log.read_text()
                time.sleep(0.5)
            text = log.read_text()
            assert re.search(r"assess: serving \d+ topic sources on http://127\.0\.0\.1:\d+/", text), text
            password = re.search(r"log in as alice with password (\S+)", text).group(1)
            base = f"http://127.0.0.1:{port}"
            with httpx.Client(base_url=base) as client:
                login(client, base, "alice", password)
                page = client.get("/")
                assert page.status_code == 200 and "Topic sources" in page.text
                assert page.text.count("<a href=\"/source/") >= 3
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)


def test_unreachable_database_is_one_line():
    from .conftest import free_port

    url = f"postgresql://nobody@127.0.0.1:{free_port()}/none"
    result = _run("assess", "user", "add", "erin", "--db", url, stdin="long-enough-password\n")
    assert result.returncode == 2
    assert result.stderr.startswith(f"pateval: error: cannot open the database {url}: ")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_bad_collection_files_are_one_line(workspace, tmp_path, capsys):
    import shutil

    collection = tmp_path / "collection"
    shutil.copytree(workspace["collection"], collection)
    tsv = collection / "topics_PSG.tsv"
    lines = tsv.read_text().splitlines()
    lines[2] = lines[2].rsplit("\t", 1)[0] + "\t1;2"
    tsv.write_text("\n".join(lines) + "\n")
    url = f"sqlite:///{tmp_path / 'c.db'}"
    assert main(["assess", "export", "--db", url, "--out", str(tmp_path / "o"), "--store", workspace["store"],
                 "--collection", str(collection)]) == 2
    assert capsys.readouterr().err == (f"pateval: error: {tsv}, line 3: bad claims (expected claim numbers "
                                       "separated by commas, found 1;2)\n")


def test_import_checks_everything_before_writing(workspace, tmp_path, capsys):
    """A bad topic definition at the end of the file: nothing of the file is imported."""
    from pateval.assess import db, service
    from pateval.assess.corpus import AssessCorpus
    from pateval.assess.export import import_qrels

    collection = workspace["collection"]
    url = f"sqlite:///{tmp_path / 'd.db'}"
    engine = db.open_database(url)
    service.add_assessor(engine, "clefip", "long-enough-password")
    topics = tmp_path / "topics.tsv"
    rows = Path(f"{collection}/topics_PSG.tsv").read_text().splitlines()
    first = rows[1].split("\t")
    rows.append(f"new-topic\t{first[1]}\t{first[2]}\t999")
    topics.write_text("\n".join(rows) + "\n")
    qrels = tmp_path / "qrels.txt"
    docno = Path(f"{collection}/qrels_PSG.txt").read_text().split("\n", 1)[0].split()[1]
    xpath = Path(f"{collection}/qrels_PSG.txt").read_text().split("\n", 1)[0].split()[2]
    qrels.write_text(Path(f"{collection}/qrels_PSG.txt").read_text() + f"new-topic {docno} {xpath}\n")
    corpus = AssessCorpus(workspace["store"], collection)
    with pytest.raises(ParameterError) as caught:
        import_qrels(engine, corpus, qrels, owner="clefip", topics_path=topics)
    assert str(caught.value) == f"{topics}: topic new-topic: {first[1]} has no claim 999 " \
        f"(claims 1-{max(n for n, _t, _d in corpus.source(first[1]).claims)})"
    assert service.all_selections(engine) == {}
    assert db.check_consistency(engine) == []


def test_demo_passwords_are_kept_owner_only(workspace):
    """The demo's plain-text passwords: a file only its owner reads, written before the
    accounts are made, and read back when the demo is prepared again."""
    import stat

    from pateval.demo import prepare_assess_demo

    accounts = workspace["root"] / "demo-accounts.txt"
    assert stat.S_IMODE(accounts.stat().st_mode) == 0o600
    lines = dict(line.split(" ", 1) for line in accounts.read_text().splitlines())
    assert lines == workspace["accounts"] and set(lines) == {"alice", "bob"}
    again = prepare_assess_demo(workspace["root"], n_patents=300, seed=0, echo=lambda *a, **k: None)
    assert again["accounts"] == workspace["accounts"]


def test_user_commands_manage_accounts_and_name_a_new_database(tmp_path, capsys, monkeypatch):
    """``pateval assess user ACTION`` (handled in pateval.assess.commands.user): add names
    the SQLite file it creates on standard error, and leaves none behind when it fails."""
    import io
    import stat

    from pateval.assess import commands

    path = tmp_path / "new.db"
    url = f"sqlite:///{path}"
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    with pytest.raises(ParameterError, match="^a password needs at least 12 characters$"):
        commands.user(url=url, action="add", name="erin")
    assert not path.exists() and capsys.readouterr().err == ""
    monkeypatch.setattr("sys.stdin", io.StringIO("long-enough-password\n"))
    commands.user(url=url, action="add", name="erin", admin=True)
    assert capsys.readouterr().out == "assess: account erin added (admin)\n"
    monkeypatch.setattr("sys.stdin", io.StringIO("long-enough-password\n"))
    commands.user(url=url, action="add", name="fred")
    output = capsys.readouterr()
    assert output.out == "assess: account fred added\n" and output.err == ""
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    commands.user(url=url, action="disable", name="fred")
    commands.user(url=url, action="unlock", name="fred")
    monkeypatch.setattr("sys.stdin", io.StringIO("another-password\n"))
    commands.user(url=url, action="reset-password", name="fred")
    commands.user(url=url, action="list", name=None)
    assert capsys.readouterr().out == (
        "assess: account fred disabled (its sessions ended)\n"
        "assess: account fred unlocked\n"
        "assess: account fred has a new password (its sessions ended)\n"
        "erin\tadmin\tactive\tunlocked\t0 failed logins\n"
        "fred\tassessor\tdisabled\tunlocked\t0 failed logins\n")
    with pytest.raises(ParameterError, match="^no assessor named 'gina'$"):
        commands.user(url=url, action="disable", name="gina")
    with pytest.raises(ParameterError, match=f"^{tmp_path / 'none.db'}: no such database file$"):
        commands.user(url=f"sqlite:///{tmp_path / 'none.db'}", action="list", name=None)
    assert not (tmp_path / "none.db").exists()


def test_a_new_database_is_named_once_on_stderr(tmp_path, capsys, monkeypatch):
    import io

    from pateval.assess import commands

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO("long-enough-password\n"))
    commands.user(url="sqlite:///assess.db", action="add", name="erin")
    assert capsys.readouterr().err == \
        f"assess: created the database {tmp_path / 'assess.db'} (readable by you only)\n"
