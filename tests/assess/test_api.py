"""The JSON API and the pages over HTTP against the real server: accounts, CSRF,
permissions, validation, stale saves (409), undo, decisions, audit log."""

from __future__ import annotations

import httpx
import pytest

from .conftest import a_suggested_citation, csrf_of, login


@pytest.fixture
def alice(server, workspace):
    with httpx.Client(base_url=server.base) as client:
        login(client, server.base, "alice", workspace["accounts"]["alice"])
        yield client


def _topic_id(client, patent_key, qid):
    topics = client.get(f"/api/sources/{patent_key}").json()["topics"]
    return next(t["id"] for t in topics if t["qid"] == qid)


def test_login_required_and_wrong_password(server, workspace):
    with httpx.Client(base_url=server.base) as client:
        assert client.get("/", follow_redirects=False).headers["location"] == "/login"
        response = client.get("/api/sources")
        assert response.status_code == 401 and response.json() == {"error": "log in first"}
        page = client.get("/login")
        import re

        token = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
        wrong = client.post("/login", data={"csrf": token, "name": "alice", "password": "not-it"})
        assert wrong.status_code == 401 and "unknown name or wrong password" in wrong.text
        forged = client.post("/login", data={"csrf": "forged", "name": "alice",
                                             "password": workspace["accounts"]["alice"]})
        assert forged.status_code == 403 and "CSRF" in forged.text


def test_save_reload_undo_and_errors(alice, server, corpus, database):
    from pateval.assess.db import check_consistency

    patent_key, qid, citation = a_suggested_citation(corpus)
    topic_id = _topic_id(alice, patent_key, qid)
    source = alice.get(f"/api/sources/{patent_key}").json()
    listed = next(c for c in source["citations"] if c["cited_ucid"] == citation.cited_ucid)
    # The indication names exactly the paragraphs the generator marked.
    assert sorted(listed["suggested_xpaths"]) == sorted(citation.report_xpaths)
    assert listed["segments"][0]["kind"] == "paragraphs"
    url = f"/api/topics/{topic_id}/citations/{citation.cited_ucid}/selection"
    token = csrf_of(alice, server.base, patent_key)
    headers = {"X-CSRF-Token": token}
    xpaths = list(citation.report_xpaths)

    assert alice.put(url, json={"xpaths": xpaths, "version": 0}).status_code == 403  # no CSRF header
    saved = alice.put(url, json={"xpaths": xpaths, "version": 0}, headers=headers)
    assert saved.status_code == 200 and saved.json()["version"] == 1
    assert alice.get(url).json()["xpaths"] == sorted(xpaths)
    stale = alice.put(url, json={"xpaths": [], "version": 0}, headers=headers)
    assert stale.status_code == 409
    assert stale.json()["error"] == ("another page saved this selection first (version 1, yours 0); "
                                     "reload to see it")
    second = alice.put(url, json={"xpaths": xpaths[:1], "version": 1}, headers=headers).json()
    assert second["version"] == 2 and second["xpaths"] == sorted(xpaths)[:1]
    undone = alice.post(url.replace("/selection", "/undo"), json={"version": 2}, headers=headers).json()
    assert undone["version"] == 3 and undone["xpaths"] == sorted(xpaths)

    document = alice.get(f"/api/documents/{citation.cited_ucid}").json()
    heading = next(p["xpath"] for p in document["passages"] if p["is_heading"])
    bad = alice.put(url, json={"xpaths": [heading], "version": 3}, headers=headers)
    assert bad.status_code == 400 and bad.json()["error"] == f"{heading} is a heading ({citation.cited_ucid})"
    missing = alice.put(url, json={"xpaths": ["/patent-document/description/p[9999]"], "version": 3}, headers=headers)
    assert missing.status_code == 400
    assert missing.json()["error"] == \
        f"/patent-document/description/p[9999] is not a passage of the document ({citation.cited_ucid})"
    garbage = alice.put(url, content=b"{not json", headers={**headers, "Content-Type": "application/json"})
    assert garbage.status_code == 400 and garbage.json() == {"error": "the request body is not JSON"}
    other = alice.put(url, json={"xpaths": [], "version": 0, "owner": "bob"}, headers=headers)
    assert other.status_code == 403 and other.json()["error"] == "alice cannot change the judgements of bob"
    assert alice.get("/api/topics/99999/citations/EP-1-A1/selection").status_code == 404
    assert alice.get("/no/such/page").status_code == 404
    assert check_consistency(database["engine"]) == []
    listed = alice.get(f"/api/topics/{topic_id}/judgements").json()
    assert listed["qid"] == qid and listed["judgements"] == [
        {"cited_ucid": citation.cited_ucid, "owner": "alice", "xpaths": sorted(xpaths)}]
    log = alice.get("/api/audit").json()
    assert [e["action"] for e in log[:3]] == ["undo", "save", "save"]
    assert alice.get("/audit").status_code == 200


def test_bob_cannot_adjudicate_and_decisions_are_recorded(server, workspace, corpus):
    patent_key, qid, citation = a_suggested_citation(corpus)
    with httpx.Client(base_url=server.base) as bob:
        login(bob, server.base, "bob", workspace["accounts"]["bob"])
        topic_id = _topic_id(bob, patent_key, qid)
        token = csrf_of(bob, server.base, patent_key)
        url = f"/api/topics/{topic_id}/citations/{citation.cited_ucid}/selection"
        refused = bob.put(url, json={"xpaths": [], "version": 0, "owner": "@adjudicated"},
                          headers={"X-CSRF-Token": token})
        assert refused.status_code == 403 and refused.json()["error"] == "only an administrator adjudicates"
        response = bob.post(f"/source/{patent_key}/decision",
                            data={"csrf": token, "version": "0", "status": "rejected", "reason": "incomplete-search"})
        assert response.status_code == 303  # back to the page
        decision = bob.get(f"/api/sources/{patent_key}").json()["decision"]
        assert (decision["status"], decision["reason"], decision["decided_by"]) == \
            ("rejected", "incomplete-search", "bob")
        stale = bob.post(f"/source/{patent_key}/decision",
                         data={"csrf": token, "version": "0", "status": "retained"})
        assert stale.status_code == 409 and "decided on this topic candidate first" in stale.text
        away = bob.post(f"/source/{patent_key}/decision", data={"csrf": token, "version": "1", "status": "rejected",
                                                                 "reason": "figures-only", "back": "//evil.example/"})
        assert away.status_code == 303 and away.headers["location"] == "/"
        no_note = bob.post(f"/source/{patent_key}/decision",
                           data={"csrf": token, "version": "2", "status": "rejected", "reason": "other"})
        assert no_note.status_code == 400 and "needs a note" in no_note.text
        assert "Traceback" not in no_note.text
        # Topics: add one (claims checked against the source), change its claims, delete it.
        bad_claims = bob.post(f"/source/{patent_key}/topics", data={"csrf": token, "qid": "sp-1.all", "claims": "999"})
        assert bad_claims.status_code == 400 and f"{patent_key} has no claim 999" in bad_claims.text
        added = bob.post(f"/source/{patent_key}/topics", data={"csrf": token, "qid": "sp-1.all", "claims": "1-2"})
        assert added.status_code == 303
        new_id = _topic_id(bob, patent_key, "sp-1.all")
        assert bob.post(f"/topic/{new_id}/claims",
                        data={"csrf": token, "claims": "1,3", "version": "0"}).status_code == 303
        stale_claims = bob.post(f"/topic/{new_id}/claims", data={"csrf": token, "claims": "2", "version": "0"})
        assert stale_claims.status_code == 409
        assert "another page changed the claims of sp-1.all first; reload to see them" in stale_claims.text
        topics = bob.get(f"/api/sources/{patent_key}").json()["topics"]
        assert next(t["claims"] for t in topics if t["id"] == new_id) == [1, 3]
        assert bob.post(f"/topic/{new_id}/delete", data={"csrf": token, "version": "1", "confirm": "yes"}
                        ).status_code == 303
        assert all(t["id"] != new_id for t in bob.get(f"/api/sources/{patent_key}").json()["topics"])
        actions = [e["action"] for e in bob.get("/api/audit").json()[:3]]
        assert actions == ["delete-topic", "set-claims", "add-topic"]


def test_a_topic_others_have_judged_is_changed_only_by_an_administrator(alice, server, workspace, corpus):
    """Deleting a topic or changing its claims would change what others' judgements mean:
    an assessor may do it to a topic they added that nobody else judged; an administrator
    always, against the topic's version (a stale page gets 409)."""
    patent_key, qid, citation = a_suggested_citation(corpus)
    with httpx.Client(base_url=server.base) as bob:
        login(bob, server.base, "bob", workspace["accounts"]["bob"])
        token = csrf_of(bob, server.base, patent_key)
        # a topic bob did not add (the collection's): not his to remove
        theirs = _topic_id(bob, patent_key, qid)
        version = next(t["version"] for t in bob.get(f"/api/sources/{patent_key}").json()["topics"]
                       if t["id"] == theirs)
        refused = bob.post(f"/topic/{theirs}/delete", data={"csrf": token, "version": str(version)})
        assert refused.status_code == 403
        assert f"only an administrator removes a topic bob did not add ({qid})" in refused.text
        # a topic bob added, then judged by alice
        assert bob.post(f"/source/{patent_key}/topics",
                        data={"csrf": token, "qid": "sp-7.rights", "claims": "1"}).status_code == 303
        new_id = _topic_id(bob, patent_key, "sp-7.rights")
        alice_token = csrf_of(alice, server.base, patent_key)
        saved = alice.put(f"/api/topics/{new_id}/citations/{citation.cited_ucid}/selection",
                          json={"xpaths": list(citation.report_xpaths), "version": 0},
                          headers={"X-CSRF-Token": alice_token})
        assert saved.status_code == 200
        claims = bob.post(f"/topic/{new_id}/claims", data={"csrf": token, "claims": "1,2", "version": "0"})
        assert claims.status_code == 403
        assert "alice has judged sp-7.rights: only an administrator may change the claims of it" in claims.text
        delete = bob.post(f"/topic/{new_id}/delete", data={"csrf": token, "version": "0"})
        assert delete.status_code == 403
        assert "alice has judged sp-7.rights: only an administrator may remove it" in delete.text
    stale = alice.post(f"/topic/{new_id}/delete", data={"csrf": alice_token, "version": "5"})
    assert stale.status_code == 409 and "another page changed sp-7.rights first; reload to see it" in stale.text
    assert alice.post(f"/topic/{new_id}/delete", data={"csrf": alice_token, "version": "0", "confirm": "yes"},
                      follow_redirects=False).status_code == 303
    assert all(t["id"] != new_id for t in alice.get(f"/api/sources/{patent_key}").json()["topics"])


def test_api_assess_app_in_process(database, workspace):
    import asyncio

    from pateval import api

    app = api.assess_app(database["url"], store=workspace["store"], collection=workspace["collection"])

    async def requests():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            login = await client.get("/login")
            sources = await client.get("/api/sources")
            return login, sources

    login, sources = asyncio.run(requests())
    assert login.status_code == 200 and sources.json() == {"error": "log in first"}
    assert login.headers["x-frame-options"] == "DENY"
    assert "script-src 'self'" in login.headers["content-security-policy"]


def test_topic_terms_are_marked_and_text_stays_escaped():
    from pateval.assess.app import highlight, topic_terms

    terms = topic_terms(["A valve according to claim 1, wherein the valve housing <b> is sealed."])
    assert terms == {"valve", "housing", "sealed"}
    marked = str(highlight("The Valve & its housing <script>x</script>; sealing.", terms))
    assert marked == ("The <mark>Valve</mark> &amp; its <mark>housing</mark> &lt;script&gt;x&lt;/script&gt;; "
                      "sealing.")
