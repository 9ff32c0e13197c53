"""Fixtures of the assessment tool's tests: a demo workspace (made once per session), a
database per test, and the real server in a subprocess on 127.0.0.1."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the assess extra is not installed (pip install -e '.[assess]')")
pytest.importorskip("sqlalchemy", reason="the assess extra is not installed (pip install -e '.[assess]')")

# scrypt at OWASP's N=2^17 costs a second and 128 MiB per login: the tests (and the servers they
# start, which inherit the environment) hash at N=2^10. test_passwords.py checks the default once.
os.environ.setdefault("PATEVAL_ASSESS_SCRYPT_LOG2N", "10")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def workspace(tmp_path_factory):
    """A synthetic corpus, its store and collection, and the demo accounts' passwords."""
    from pateval.demo import prepare_assess_demo

    root = tmp_path_factory.mktemp("assess-demo")
    demo = prepare_assess_demo(root, n_patents=300, seed=0, echo=lambda *a, **k: None)
    return {**demo, "root": root}


@pytest.fixture
def database(tmp_path, workspace):
    """A fresh SQLite database with the two demo accounts (alice admin, bob)."""
    from pateval.assess import db, service

    url = f"sqlite:///{tmp_path / 'assess.db'}"
    engine = db.open_database(url)
    for name, admin in (("alice", True), ("bob", False)):
        service.add_assessor(engine, name, workspace["accounts"][name], is_admin=admin)
    return {"url": url, "engine": engine, "path": tmp_path / "assess.db"}


@pytest.fixture(scope="session")
def corpus(workspace):
    from pateval.assess.corpus import AssessCorpus

    opened = AssessCorpus(workspace["store"], workspace["collection"])
    yield opened
    opened.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``pateval assess serve`` in a subprocess (its own process group, so kill -9 reaches it);
    with ``options`` (keyword arguments of :func:`pateval.assess.commands.serve`, such as
    ``trusted_proxies``) the same server started through that function."""

    def __init__(self, url: str, workspace: dict, log: Path, options: dict | None = None) -> None:
        import json

        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = open(log, "wb")  # noqa: SIM115 - the server's log while it runs; kill() closes it
        if options is None:
            command = ["-m", "pateval.cli", "assess", "serve", "--db", url, "--store", workspace["store"],
                       "--collection", workspace["collection"], "--host", "127.0.0.1", "--port", str(self.port)]
        else:
            arguments = {"url": url, "store": workspace["store"], "collection": workspace["collection"],
                         "host": "127.0.0.1", "port": self.port, **options}
            command = ["-c", "import json, sys; from pateval.assess.commands import serve; "
                       "serve(**json.loads(sys.argv[1]))", json.dumps(arguments)]
        self.process = subprocess.Popen([sys.executable, *command], stdout=self.log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server stopped: {Path(log).read_text()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("the server did not start within 60 s")

    def kill(self, sig=signal.SIGKILL) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, sig)
            self.process.wait(timeout=30)
        self.log.close()


@pytest.fixture
def server(database, workspace, tmp_path):
    running = Server(database["url"], workspace, tmp_path / "server.log")
    yield running
    running.kill(signal.SIGTERM)


def login(client, base: str, name: str, password: str):
    """Log a requests-like client in through the form (CSRF token from the page)."""
    import re

    page = client.get(f"{base}/login")
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found is not None, page.text
    token = found.group(1)
    response = client.post(f"{base}/login", data={"csrf": token, "name": name, "password": password},
                           follow_redirects=False)
    assert response.status_code == 303, response.text
    return response


def csrf_of(client, base: str, patent_key: str) -> str:
    import re

    page = client.get(f"{base}/source/{patent_key}")
    found = re.search(r'data-csrf="([^"]+)"', page.text)
    assert found is not None, page.text
    return found.group(1)


def a_suggested_citation(corpus):
    """(patent key, topic qid, citation) of a source whose citation names paragraphs and is
    relevant to the collection's first topic of that source."""
    for patent_key in corpus.patent_keys:
        source = corpus.source(patent_key)
        for qid, claims in source.suggested_topics:
            for citation in corpus.citations(patent_key):
                if citation.in_corpus and citation.report_xpaths and set(citation.relevant_claims) & set(claims):
                    return patent_key, qid, citation
    raise AssertionError("the demo corpus has no citation with paragraphs")
