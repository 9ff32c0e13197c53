"""Nothing lost: two clients saving the same selection at once, and the server killed
with SIGKILL in the middle of saves; the database is checked afterwards."""

from __future__ import annotations

import signal
import threading
import time

import httpx

from .conftest import Server, a_suggested_citation, csrf_of, login


def _client(server, workspace, name):
    client = httpx.Client(base_url=server.base, timeout=30)
    login(client, server.base, name, workspace["accounts"][name])
    return client


def _target(client, corpus):
    patent_key, qid, citation = a_suggested_citation(corpus)
    topics = client.get(f"/api/sources/{patent_key}").json()["topics"]
    topic_id = next(t["id"] for t in topics if t["qid"] == qid)
    document = client.get(f"/api/documents/{citation.cited_ucid}").json()
    selectable = [p["xpath"] for p in document["passages"] if not p["is_heading"]]
    return patent_key, f"/api/topics/{topic_id}/citations/{citation.cited_ucid}/selection", selectable


def test_two_clients_saving_the_same_selection_lose_nothing(server, workspace, corpus, database):
    from pateval.assess.db import check_consistency

    first = _client(server, workspace, "alice")
    second = _client(server, workspace, "alice")  # the same assessor in a second browser
    patent_key, url, selectable = _target(first, corpus)
    tokens = [csrf_of(c, server.base, patent_key) for c in (first, second)]
    rounds = 25
    outcomes: list[tuple[int, int, str]] = []
    lock = threading.Lock()
    barrier = threading.Barrier(2)

    def worker(index, client, token):
        for round_ in range(rounds):
            version = client.get(url).json()["version"]
            barrier.wait()  # both read the same version, then both save
            xpath = selectable[(2 * round_ + index) % len(selectable)]
            response = client.put(url, json={"xpaths": [xpath], "version": version},
                                  headers={"X-CSRF-Token": token})
            with lock:
                outcomes.append((round_, response.status_code, xpath))

    threads = [threading.Thread(target=worker, args=(i, c, t)) for i, (c, t) in
               enumerate(zip((first, second), tokens, strict=False))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # In every round exactly one save wins and the other is told it is stale.
    for round_ in range(rounds):
        codes = sorted(code for r, code, _x in outcomes if r == round_)
        assert codes == [200, 409], (round_, codes)
    final = first.get(url).json()
    assert final["version"] == rounds
    last_winner = [x for r, code, x in outcomes if r == rounds - 1 and code == 200]
    assert final["xpaths"] == last_winner
    assert check_consistency(database["engine"]) == []


def test_kill_9_during_saves_leaves_the_database_consistent(database, workspace, corpus, tmp_path):
    from pateval.assess import service
    from pateval.assess.db import check_consistency, open_database

    server = Server(database["url"], workspace, tmp_path / "server.log")
    clients = [_client(server, workspace, name) for name in ("alice", "bob")]
    patent_key, url, selectable = _target(clients[0], corpus)
    tokens = [csrf_of(c, server.base, patent_key) for c in clients]
    confirmed: dict[str, list[list[str]]] = {"alice": [], "bob": []}
    stop = threading.Event()

    def saver(client, token, name):
        version, step = 0, 0
        while not stop.is_set():
            xpaths = selectable[step % len(selectable): step % len(selectable) + 1 + step % 7]
            try:
                response = client.put(url, json={"xpaths": xpaths, "version": version, "owner": name},
                                      headers={"X-CSRF-Token": token}, timeout=5)
            except httpx.HTTPError:
                return  # the server is gone
            if response.status_code == 200:
                version = response.json()["version"]
                confirmed[name].append(sorted(set(xpaths)))
            step += 1

    threads = [threading.Thread(target=saver, args=(c, t, n)) for c, t, n in zip(clients, tokens, ("alice", "bob"),
                                                                                 strict=False)]
    for thread in threads:
        thread.start()
    time.sleep(3)
    server.kill(signal.SIGKILL)
    stop.set()
    for thread in threads:
        thread.join()
    print(f"saves confirmed before the kill: alice {len(confirmed['alice'])}, bob {len(confirmed['bob'])}")
    assert len(confirmed["alice"]) > 5 and len(confirmed["bob"]) > 5
    engine = open_database(database["url"])
    assert check_consistency(engine) == []
    topic_id = int(url.split("/")[3])
    cited = url.split("/")[5]
    for name in ("alice", "bob"):
        stored = service.selection(engine, topic_id, cited, name)
        # Every confirmed save is in the database (the last one may have committed without
        # its answer reaching the client before the kill: then it is one version further).
        assert stored["version"] in (len(confirmed[name]), len(confirmed[name]) + 1)
        if stored["version"] == len(confirmed[name]):
            assert stored["xpaths"] == confirmed[name][-1]
    # The server starts again on the same database and goes on.
    again = Server(database["url"], workspace, tmp_path / "server2.log")
    try:
        client = _client(again, workspace, "alice")
        assert client.get(url).json()["version"] == service.selection(engine, topic_id, cited, "alice")["version"]
    finally:
        again.kill(signal.SIGTERM)
