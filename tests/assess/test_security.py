"""The tool's defences, against the real server on 127.0.0.1: sessions kept on the server
(a copied database forges none; logout, disabling and removal end them), the lock-out
after failed logins and its lifting, accounts, Secure cookies behind a trusted proxy,
numbers and texts out of range, who may reject a judged source, citations outside a
topic, retried saves."""

from __future__ import annotations

import re
import shutil
import signal
import sqlite3

import httpx
import pytest

from .conftest import Server, a_suggested_citation, csrf_of, login


def _serve(database, workspace, tmp_path, name="server", **options):
    return Server(database["url"], workspace, tmp_path / f"{name}.log", options=options)


@pytest.fixture
def proxied(database, workspace, tmp_path):
    """The server trusting 127.0.0.1 as its reverse proxy (X-Forwarded-For, -Proto)."""
    running = _serve(database, workspace, tmp_path, "proxied", trusted_proxies=["127.0.0.1"])
    yield running
    running.kill(signal.SIGTERM)


def _login_form(client, name, password, headers=None):
    token = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text).group(1)
    return client.post("/login", data={"csrf": token, "name": name, "password": password}, headers=headers or {})


def _error_of(response) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", response.text).split())


def _topic_id(client, patent_key, qid):
    return next(t["id"] for t in client.get(f"/api/sources/{patent_key}").json()["topics"] if t["qid"] == qid)


# ---- 1. sessions -------------------------------------------------------------------------

def test_a_cookie_forged_from_a_copied_database_is_refused(server, database, workspace, tmp_path):
    """Schema 2 signed its cookies with a secret kept in the database: a copy of the file
    gave an administrator's cookie. Now the cookie is a random token of which the database
    holds the SHA-256 only: neither a signed cookie nor a stored value opens a session."""
    from itsdangerous import TimestampSigner

    with httpx.Client(base_url=server.base) as alice:
        login(alice, server.base, "alice", workspace["accounts"]["alice"])
        assert alice.get("/api/sources").status_code == 200
        copy = tmp_path / "copy.db"
        shutil.copy(database["path"], copy)
        if (database["path"].parent / "assess.db-wal").exists():
            shutil.copy(database["path"].parent / "assess.db-wal", tmp_path / "copy.db-wal")
        stolen = sqlite3.connect(copy)
        meta = [value for (value,) in stolen.execute("SELECT value FROM meta")]
        tables = {name for (name,) in stolen.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        hashes = [value for (value,) in stolen.execute("SELECT token_hash FROM sessions")] \
            if "sessions" in tables else []
        stolen.close()
        forged = []
        for secret in meta:  # the old attack: sign {"assessor_id": 1} with the database's secret
            signed = TimestampSigner(secret).sign(
                __import__("base64").b64encode(b'{"assessor_id": 1, "csrf": "x"}')).decode()
            forged.append(signed)
        forged.extend(hashes)  # the session table's values, as cookies
        for value in forged:
            with httpx.Client(base_url=server.base, cookies={"pateval_assess": value}) as attacker:
                response = attacker.get("/api/sources")
                assert response.status_code == 401 and response.json() == {"error": "log in first"}
        assert len(hashes) == 1  # alice's session, in the copy as a hash only


def test_logout_ends_the_session_and_the_old_cookie_is_refused(server, workspace):
    with httpx.Client(base_url=server.base) as alice:
        login(alice, server.base, "alice", workspace["accounts"]["alice"])
        old_cookie = alice.cookies["pateval_assess"]
        page = alice.get("/")
        token = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
        assert alice.post("/logout", data={"csrf": token}).status_code == 303
    with httpx.Client(base_url=server.base, cookies={"pateval_assess": old_cookie}) as replay:
        assert replay.get("/api/sources").status_code == 401
        assert replay.get("/", follow_redirects=False).headers["location"] == "/login"


def test_sessions_expire_when_idle_and_at_their_maximum_age(database, workspace):
    import datetime as dt

    from sqlalchemy import update

    from pateval.assess import db, service

    engine = database["engine"]
    bob = service.authenticate(engine, "bob", workspace["accounts"]["bob"])
    token = service.start_session(engine, bob["id"], idle=600, maximum=3600)
    assert service.session_user(engine, token, idle=600, maximum=3600)["name"] == "bob"
    with engine.begin() as connection:  # quiet for 11 minutes
        connection.execute(update(db.sessions).values(last_seen=db.now() - dt.timedelta(minutes=11)))
    assert service.session_user(engine, token, idle=600, maximum=3600) is None
    assert service.session_user(engine, token, idle=3600, maximum=3600) is None  # ended, not only refused
    token = service.start_session(engine, bob["id"], idle=600, maximum=3600)
    with engine.begin() as connection:  # active all along, but logged in 61 minutes ago
        connection.execute(update(db.sessions).values(created_at=db.now() - dt.timedelta(minutes=61)))
    assert service.session_user(engine, token, idle=600, maximum=3600) is None
    assert service.session_user(engine, "not-a-token", idle=600, maximum=3600) is None


# ---- 3. lock-out and rate limit ---------------------------------------------------------

def test_forty_wrong_passwords_lock_the_account_until_an_administrator_unlocks_it(proxied, database, workspace):
    """Ten wrong passwords in a row lock the account, whatever address they come from; the
    right password is refused while it is locked (with the answer to a wrong one);
    ``assess user unlock`` lifts it before it ends by itself. An
    address with 30 failures in 15 minutes is refused (429) whatever the account."""
    from pateval.assess import commands, service

    password = workspace["accounts"]["bob"]
    with httpx.Client(base_url=proxied.base) as client:
        codes = [_login_form(client, "bob", f"wrong-{i}", {"X-Forwarded-For": f"10.0.0.{i}"}).status_code
                 for i in range(40)]
        # Locked after the 10th; the answer does not tell (the same as for a wrong password or no account).
        assert codes == [401] * 40
        right = _login_form(client, "bob", password, {"X-Forwarded-For": "10.0.1.1"})
        assert right.status_code == 401
        assert service.LOGIN_REFUSED in _error_of(right)
        assert client.get("/api/sources").status_code == 401
        # One address failing 30 times (here with names that do not exist) is refused.
        spray = [_login_form(client, f"nobody{i}", "wrong-password", {"X-Forwarded-For": "10.0.2.2"}).status_code
                 for i in range(31)]
        assert spray == [401] * 30 + [429]
        refused = _login_form(client, "alice", workspace["accounts"]["alice"], {"X-Forwarded-For": "10.0.2.2"})
        assert refused.status_code == 429 and "too many failed logins from 10.0.2.2" in _error_of(refused)

        assert commands.manage_user(url=database["url"], action="unlock", name="bob") == \
            "assess: account bob unlocked"
        assert _login_form(client, "bob", password, {"X-Forwarded-For": "10.0.1.1"}).status_code == 303
        assert client.get("/api/sources").status_code == 200
    actions = [(e["action"], e["detail"]) for e in service.audit_log(database["engine"])]
    assert ("unlock-assessor", '{"name": "bob"}') in actions
    assert ("lock-assessor", '{"name": "bob", "failed_logins": 10, "address": "10.0.0.9"}') in actions
    assert ("block-address", '{"address": "10.0.2.2", "failed_logins": 30}') in actions


# ---- 4. accounts -------------------------------------------------------------------------

def test_disable_remove_and_reset_end_sessions_at_once(server, database, workspace):
    from pateval.assess import commands

    with httpx.Client(base_url=server.base) as alice, httpx.Client(base_url=server.base) as bob:
        login(alice, server.base, "alice", workspace["accounts"]["alice"])
        login(bob, server.base, "bob", workspace["accounts"]["bob"])
        token = re.search(r'name="csrf" value="([^"]+)"', alice.get("/").text).group(1)
        headers = {"X-CSRF-Token": token}
        bob_token = re.search(r'name="csrf" value="([^"]+)"', bob.get("/").text).group(1)
        refused = bob.post("/api/assessors/alice", json={"action": "disable"}, headers={"X-CSRF-Token": bob_token})
        assert refused.status_code == 403 and refused.json() == {"error": "only an administrator manages accounts"}
        assert bob.get("/api/assessors").status_code == 403
        # disable: bob's open session ends at once; enable lets him log in again
        disabled = alice.post("/api/assessors/bob", json={"action": "disable"}, headers=headers)
        assert disabled.status_code == 200 and disabled.json()["status"] == "disabled"
        assert bob.get("/api/sources").status_code == 401
        assert _login_form(bob, "bob", workspace["accounts"]["bob"]).status_code == 401
        assert alice.post("/api/assessors/bob", json={"action": "enable"}, headers=headers).status_code == 200
        login(bob, server.base, "bob", workspace["accounts"]["bob"])
        # reset-password: the session ends, the old password is refused, the new one works
        reset = alice.post("/api/assessors/bob", json={"action": "reset-password", "password": "brand-new-secret"},
                           headers=headers)
        assert reset.status_code == 200
        assert bob.get("/api/sources").status_code == 401
        assert _login_form(bob, "bob", workspace["accounts"]["bob"]).status_code == 401
        login(bob, server.base, "bob", "brand-new-secret")
        short = alice.post("/api/assessors/bob", json={"action": "reset-password", "password": "short"},
                           headers=headers)
        assert short.status_code == 400 and short.json() == {"error": "a password needs at least 12 characters"}
        itself = alice.post("/api/assessors/alice", json={"action": "remove"}, headers=headers)
        assert itself.status_code == 400 and itself.json() == {"error": "alice cannot remove their own account"}
        assert alice.post("/api/assessors/nobody", json={"action": "disable"}, headers=headers).status_code == 404
        # remove (on the command line): the session ends; the account can never log in again
        assert commands.manage_user(url=database["url"], action="remove", name="bob") == \
            "assess: account bob removed (its sessions ended; its judgements stay)"
        assert bob.get("/api/sources").status_code == 401
        assert _login_form(bob, "bob", "brand-new-secret").status_code == 401
        listed = {a["name"]: a for a in alice.get("/api/assessors").json()}
        assert listed["bob"]["status"] == "removed" and listed["alice"]["status"] == "active"
    assert commands.list_users(url=database["url"]) == [
        "alice\tadmin\tactive\tunlocked\t0 failed logins", "bob\tassessor\tremoved\tunlocked\t0 failed logins"]
    with pytest.raises(Exception, match="the account bob was removed"):
        commands.manage_user(url=database["url"], action="enable", name="bob")


def test_an_assessor_changes_their_own_password(server, workspace):
    with httpx.Client(base_url=server.base) as bob, httpx.Client(base_url=server.base) as elsewhere:
        login(bob, server.base, "bob", workspace["accounts"]["bob"])
        login(elsewhere, server.base, "bob", workspace["accounts"]["bob"])
        page = bob.get("/password")
        assert page.status_code == 200 and "Change your password" in page.text
        token = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
        wrong = bob.post("/password", data={"csrf": token, "old": "not-it", "new": "new-password-1",
                                            "repeat": "new-password-1"})
        assert wrong.status_code == 403 and "the current password is wrong" in _error_of(wrong)
        differ = bob.post("/password", data={"csrf": token, "old": workspace["accounts"]["bob"],
                                             "new": "new-password-1", "repeat": "new-password-2"})
        assert differ.status_code == 400 and "the new password and its repetition differ" in _error_of(differ)
        done = bob.post("/password", data={"csrf": token, "old": workspace["accounts"]["bob"],
                                           "new": "new-password-1", "repeat": "new-password-1"})
        assert done.status_code == 200 and "password changed; your other sessions ended" in done.text
        assert bob.get("/api/sources").status_code == 200  # this session goes on
        assert elsewhere.get("/api/sources").status_code == 401  # the other one ended
    with httpx.Client(base_url=server.base) as again:
        assert _login_form(again, "bob", workspace["accounts"]["bob"]).status_code == 401
        assert _login_form(again, "bob", "new-password-1").status_code == 303


# ---- 5. Secure cookies -------------------------------------------------------------------

def _secure(response, name) -> bool:
    cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith(f"{name}="))
    return "secure" in [part.strip().lower() for part in cookie.split(";")]


def test_cookies_are_secure_over_https_through_a_trusted_proxy_only(proxied, database, workspace, tmp_path):
    with httpx.Client(base_url=proxied.base) as client:
        assert not _secure(client.get("/login"), "pateval_assess_login")
        client.cookies.clear()
        over_https = client.get("/login", headers={"X-Forwarded-Proto": "https"})
        assert _secure(over_https, "pateval_assess_login")
        token = re.search(r'name="csrf" value="([^"]+)"', over_https.text).group(1)
        # (the client keeps a Secure cookie for https:// only: the proxy would have sent it)
        logged_in = client.post("/login", data={"csrf": token, "name": "bob", "password": workspace["accounts"]["bob"]},
                                headers={"X-Forwarded-Proto": "https", "Cookie": f"pateval_assess_login={token}"})
        assert logged_in.status_code == 303 and _secure(logged_in, "pateval_assess")
    untrusted = _serve(database, workspace, tmp_path, "untrusted")  # no proxy trusted: the header is anyone's
    always = _serve(database, workspace, tmp_path, "always", secure_cookies=True)
    try:
        with httpx.Client(base_url=untrusted.base) as client:
            assert not _secure(client.get("/login", headers={"X-Forwarded-Proto": "https"}), "pateval_assess_login")
        with httpx.Client(base_url=always.base) as client:
            # (--secure-cookies: the cookies also carry the __Host- prefix, issue 34)
            assert _secure(client.get("/login"), "__Host-pateval_assess_login")
    finally:
        untrusted.kill(signal.SIGTERM)
        always.kill(signal.SIGTERM)


# ---- 2 and 6. sizes and numbers ----------------------------------------------------------

def test_numbers_and_texts_out_of_range_are_400(server, workspace, corpus):
    patent_key, qid, citation = a_suggested_citation(corpus)
    big = str(2 ** 63)
    with httpx.Client(base_url=server.base) as bob:
        login(bob, server.base, "bob", workspace["accounts"]["bob"])
        topic_id = _topic_id(bob, patent_key, qid)
        token = csrf_of(bob, server.base, patent_key)
        headers = {"X-CSRF-Token": token}
        url = f"/api/topics/{topic_id}/citations/{citation.cited_ucid}/selection"
        for version in (2 ** 63, 2 ** 64, -1, "1", True):
            response = bob.put(url, json={"xpaths": [], "version": version}, headers=headers)
            assert response.status_code == 400, version
            assert response.json() == {"error": "version must be an integer from 0 to 9223372036854775807"}
        undo = bob.post(url.replace("/selection", "/undo"), json={"version": 2 ** 63}, headers=headers)
        assert undo.status_code == 400
        huge = f"/api/topics/{big}/citations/{citation.cited_ucid}/selection"
        assert bob.get(huge).json() == {"error": "topic id must be an integer from 0 to 9223372036854775807"}
        assert bob.put(huge, json={"xpaths": [], "version": 0}, headers=headers).status_code == 400
        assert bob.get(f"/api/topics/{big}/judgements").status_code == 400
        assert bob.post(f"/topic/{big}/claims", data={"csrf": token, "claims": "1", "version": "0"}).status_code == 400
        assert bob.post(f"/topic/{topic_id}/claims", data={"csrf": token, "claims": "1",
                                                          "version": big}).status_code == 400
        assert bob.post(f"/topic/{topic_id}/delete", data={"csrf": token, "version": "9" * 5000}).status_code == 400
        assert bob.get(f"/source/{patent_key}?topic={big}").status_code == 400
        assert bob.get(f"/source/{patent_key}?citation={2 ** 64}").status_code == 400
        note = bob.post(f"/source/{patent_key}/decision", data={"csrf": token, "version": "0", "status": "rejected",
                                                                "reason": "other", "note": "x" * 2001})
        assert note.status_code == 400 and "a note has at most 2000 characters (this one 2001)" in _error_of(note)
        # 8 KB of repeated ranges: refused at once, naming the first claim beyond the source's
        last = max(n for n, _t, _d in corpus.source(patent_key).claims)
        claims = ("1-10001," * 1024)[:8192]
        flood = bob.post(f"/source/{patent_key}/topics", data={"csrf": token, "qid": "sp-flood", "claims": claims})
        assert flood.status_code == 400
        assert f"{patent_key} has no claim {last + 1} (claims 1-{last})" in _error_of(flood)
        flood = bob.post(f"/topic/{topic_id}/claims", data={"csrf": token, "claims": claims, "version": "0"})
        assert flood.status_code == 400 and f"has no claim {last + 1}" in _error_of(flood)
        digits = bob.post(f"/topic/{topic_id}/claims", data={"csrf": token, "claims": "9" * 5000, "version": "0"})
        assert digits.status_code == 400 and "give claim numbers such as 1-3,7" in _error_of(digits)


def test_claims_are_parsed_in_linear_work():
    """The ranges are checked before they are expanded: 8 KB of 1-10001 costs no more
    than the text (the expansion was 10 million numbers, 370 MB)."""
    import tracemalloc

    from pateval.assess import service
    from pateval.assess.indications import number_ranges

    text = ("1-10001," * 1024)[:8192]
    tracemalloc.start()
    with pytest.raises(service.AssessError, match=r"^EP1 has no claim 18 \(claims 1-17\)$"):
        service.parse_claims(text, 17, of="EP1")
    assert service.parse_claims(("1-17," * 1000)[:-1], 17) == tuple(range(1, 18))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2_000_000
    assert number_ranges("7, 1-3, 2-5, 9") == [(1, 5), (7, 7), (9, 9)]
    assert number_ranges("1" * 10) == []


def test_the_cache_of_unknown_patent_keys_is_bounded(workspace, monkeypatch):
    from pateval.assess import corpus as corpus_module
    from pateval.assess.corpus import AssessCorpus

    # the bound as the module reads it, made small: 1,024 misses (each a store query) took 30 s
    monkeypatch.setattr(corpus_module, "UNKNOWN_KEYS", 16)
    opened = AssessCorpus(workspace["store"], workspace["collection"])
    try:
        for number in range(16 + 50):
            assert opened.source(f"EP{number:07d}X") is None
        assert opened.citations("EP0000001X") == ()
        assert len(opened._unknown) == 16 and len(opened._sources) == 0
    finally:
        opened.close()


# ---- 7. rejection, 8. citations outside a topic, 9. retried saves -------------------------

def test_only_an_administrator_rejects_a_source_others_have_judged(server, workspace, corpus):
    patent_key, qid, citation = a_suggested_citation(corpus)
    with httpx.Client(base_url=server.base) as alice, httpx.Client(base_url=server.base) as bob:
        login(alice, server.base, "alice", workspace["accounts"]["alice"])
        login(bob, server.base, "bob", workspace["accounts"]["bob"])
        topic_id = _topic_id(alice, patent_key, qid)
        token = csrf_of(alice, server.base, patent_key)
        saved = alice.put(f"/api/topics/{topic_id}/citations/{citation.cited_ucid}/selection",
                          json={"xpaths": list(citation.report_xpaths), "version": 0}, headers={"X-CSRF-Token": token})
        assert saved.status_code == 200
        bob_token = csrf_of(bob, server.base, patent_key)
        refused = bob.post(f"/source/{patent_key}/decision", data={"csrf": bob_token, "version": "0",
                                                                   "status": "rejected", "reason": "figures-only"})
        assert refused.status_code == 403
        assert f"alice has judged {patent_key}: only an administrator may reject it" in _error_of(refused)
        retained = bob.post(f"/source/{patent_key}/decision", data={"csrf": bob_token, "version": "0",
                                                                    "status": "retained"})
        assert retained.status_code == 303
        rejected = alice.post(f"/source/{patent_key}/decision", data={"csrf": token, "version": "1",
                                                                      "status": "rejected", "reason": "figures-only"})
        assert rejected.status_code == 303


def _outside_citation(engine, corpus, actor):
    """(patent key, topic id, qid, citation): an in-corpus citation not cited against the
    topic's claims (a topic of one claim that another citation names, defined here)."""
    from pateval.assess import service

    for patent_key in corpus.patent_keys:
        inside = [c for c in corpus.citations(patent_key) if c.in_corpus and c.relevant_claims]
        for first in inside:
            for other in inside:
                claim = next((n for n in first.relevant_claims if n not in other.relevant_claims), None)
                if claim is not None:
                    topic_id = service.add_topic(engine, corpus, patent_key, "sp-outside", str(claim), actor)
                    return patent_key, topic_id, "sp-outside", other
    raise AssertionError("the demo corpus has no citation outside a one-claim topic")


def test_a_citation_outside_the_topic_cannot_be_opened_or_judged(server, database, workspace, corpus):
    from pateval.assess import service

    engine = database["engine"]
    bob_account = service.authenticate(engine, "bob", workspace["accounts"]["bob"])
    patent_key, topic_id, qid, outside = _outside_citation(engine, corpus, bob_account)
    with httpx.Client(base_url=server.base) as bob:
        login(bob, server.base, "bob", workspace["accounts"]["bob"])
        page = bob.get(f"/source/{patent_key}?topic={topic_id}&citation={outside.position}")
        assert page.status_code == 404
        assert (f"citation {outside.position} of {patent_key} is not cited against the claims of {qid}"
                in _error_of(page))
        assert bob.get(f"/source/{patent_key}?topic={topic_id}&doc={outside.cited_ucid}").status_code == 404
        token = csrf_of(bob, server.base, patent_key)
        document = bob.get(f"/api/documents/{outside.cited_ucid}").json()
        xpath = next(p["xpath"] for p in document["passages"] if not p["is_heading"])
        saved = bob.put(f"/api/topics/{topic_id}/citations/{outside.cited_ucid}/selection",
                        json={"xpaths": [xpath], "version": 0}, headers={"X-CSRF-Token": token})
        assert saved.status_code == 404
        assert saved.json()["error"] == (f"{outside.cited_ucid} is not cited against the claims of {qid} in the "
                                         f"search report of {patent_key}")
        assert bob.get(f"/source/{patent_key}?topic={topic_id}").status_code == 200


def test_a_retried_save_is_answered_with_its_version(database, corpus, workspace):
    """A save whose answer was lost (a 500 or 503 after the commit) is sent again with the
    same version: it gets the version it made, not a conflict, and no second event."""
    from pateval.assess import db, service

    engine = database["engine"]
    alice = service.authenticate(engine, "alice", workspace["accounts"]["alice"])
    patent_key, qid, citation = a_suggested_citation(corpus)
    service.ensure_topics(engine, corpus, patent_key)
    topic_id = next(t["id"] for t in service.topics_of(engine, patent_key) if t["qid"] == qid)
    keys = dict(topic_id=topic_id, cited_ucid=citation.cited_ucid, owner="alice", actor=alice)
    marked = list(citation.report_xpaths)
    assert service.save_selection(engine, corpus, xpaths=marked, base_version=0, **keys) == 1
    assert service.save_selection(engine, corpus, xpaths=marked, base_version=0, **keys) == 1
    assert service.save_selection(engine, corpus, xpaths=marked[:1], base_version=1, **keys) == 2
    assert service.save_selection(engine, corpus, xpaths=marked[:1], base_version=1, **keys) == 2
    with pytest.raises(service.AssessError, match="another page saved this selection first"):
        service.save_selection(engine, corpus, xpaths=[], base_version=1, **keys)
    assert [e["action"] for e in service.audit_log(engine) if e["action"] == "save"] == ["save", "save"]
    assert db.check_consistency(engine) == []


def test_the_login_throttle_forgets_the_quietest_addresses_first():
    from pateval.assess.app import LoginThrottle

    throttle = LoginThrottle(limit=2, window=900, addresses=3)
    assert throttle.fail("10.0.0.1") == 1 and throttle.wait("10.0.0.1") == 0
    assert throttle.fail("10.0.0.1") == 2 and 899 < throttle.wait("10.0.0.1") <= 900
    for number in range(2, 6):
        throttle.fail(f"10.0.0.{number}")
    assert sorted(throttle._failures) == ["10.0.0.3", "10.0.0.4", "10.0.0.5"]
    assert throttle.wait("10.0.0.1") == 0
    expired = LoginThrottle(limit=1, window=0.0)
    expired.fail("10.0.0.9")
    assert expired.wait("10.0.0.9") == 0 and expired._failures == {}
