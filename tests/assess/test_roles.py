"""Roles hold both ways: what an administrator decided, an assessor cannot undo (one test per
decision, at the service layer, and the audited one against the served tool); the audit log's
account events are for administrators only."""

from __future__ import annotations

import re

import httpx
import pytest

from pateval.assess import db, service

from .conftest import a_suggested_citation, csrf_of, login


@pytest.fixture
def people(database, workspace):
    engine = database["engine"]
    return {name: service.authenticate(engine, name, workspace["accounts"][name]) for name in ("alice", "bob")}


def _topic(engine, corpus, patent_key, qid):
    service.ensure_topics(engine, corpus, patent_key)
    return next(t for t in service.topics_of(engine, patent_key) if t["qid"] == qid)


def _forbidden(call, message):
    with pytest.raises(service.AssessError, match=re.escape(message)) as raised:
        call()
    assert raised.value.status == 403


@pytest.mark.parametrize("decided", ["rejected", "retained"])
def test_an_assessor_cannot_change_an_administrators_decision_on_a_source(database, corpus, people, decided):
    """The audit's finding: bob set alice's rejection back to retained (303), which put
    everyone's judgements back into the export and cleared her reason. Now every change of an
    administrator's decision by an assessor is refused, to any status and with any note."""
    engine = database["engine"]
    alice, bob = people["alice"], people["bob"]
    patent_key, _qid, _citation = a_suggested_citation(corpus)
    reason = "figures-only" if decided == "rejected" else None
    assert service.decide_source(engine, corpus, patent_key, status=decided, reason=reason, note="checked",
                                 base_version=0, actor=alice) == 1
    message = f"alice, an administrator, decided that {patent_key} is {decided}: only an administrator may change that"
    for status, why in (("retained", None), ("open", None), ("rejected", "incomplete-search")):
        _forbidden(lambda s=status, w=why: service.decide_source(engine, corpus, patent_key, status=s, reason=w,
                                                                 note=None, base_version=1, actor=bob), message)
    state = service.source_state(engine, patent_key)
    assert (state["status"], state["reason"], state["note"], state["decided_by"]) == (decided, reason, "checked",
                                                                                      "alice")
    # alice reopens it: then it is anyone's to decide again
    assert service.decide_source(engine, corpus, patent_key, status="open", reason=None, note=None, base_version=1,
                                 actor=alice) == 2
    assert service.decide_source(engine, corpus, patent_key, status="retained", reason=None, note=None,
                                 base_version=2, actor=bob) == 3


def test_an_assessor_cannot_change_claims_an_administrator_set(database, corpus, people):
    engine = database["engine"]
    alice, bob = people["alice"], people["bob"]
    patent_key, _qid, _citation = a_suggested_citation(corpus)
    topic_id = service.add_topic(engine, corpus, patent_key, "sp-bob.1", "1", bob)
    assert service.set_topic_claims(engine, corpus, topic_id, "1,2", bob, base_version=0) == 1  # his own: fine
    assert service.set_topic_claims(engine, corpus, topic_id, "1", alice, base_version=1) == 2
    message = "alice, an administrator, defined the claims of sp-bob.1: only an administrator may"
    _forbidden(lambda: service.set_topic_claims(engine, corpus, topic_id, "1,2", bob, base_version=2),
               f"{message} change the claims of it")
    _forbidden(lambda: service.delete_topic(engine, topic_id, bob, base_version=2), f"{message} remove it")
    _forbidden(lambda: service.topic_removal(engine, topic_id, bob, base_version=2), f"{message} remove it")
    assert service.topic(engine, topic_id)["claim_numbers"] == [1]


def test_an_assessor_cannot_change_a_topic_an_administrator_added(database, corpus, people):
    engine = database["engine"]
    alice, bob = people["alice"], people["bob"]
    patent_key, _qid, _citation = a_suggested_citation(corpus)
    topic_id = service.add_topic(engine, corpus, patent_key, "sp-alice.1", "1", alice)
    _forbidden(lambda: service.set_topic_claims(engine, corpus, topic_id, "1,2", bob, base_version=0),
               "alice, an administrator, defined the claims of sp-alice.1: only an administrator may change the "
               "claims of it")
    _forbidden(lambda: service.delete_topic(engine, topic_id, bob, base_version=0),
               "only an administrator removes a topic bob did not add (sp-alice.1)")


def test_an_assessor_cannot_define_again_a_topic_an_administrator_removed(database, corpus, people):
    """Removing a topic frees its id for a new topic; when an administrator removed it, only an
    administrator may give the id again (an assessor would bring the removed topic back)."""
    engine = database["engine"]
    alice, bob = people["alice"], people["bob"]
    patent_key, qid, _citation = a_suggested_citation(corpus)
    current = _topic(engine, corpus, patent_key, qid)
    service.delete_topic(engine, current["id"], alice, base_version=current["version"])
    claims = ",".join(str(n) for n in current["claim_numbers"])
    _forbidden(lambda: service.add_topic(engine, corpus, patent_key, qid, claims, bob),
               f"alice, an administrator, removed the topic {qid}: only an administrator may define it again")
    assert qid not in service.topic_ids(engine)
    # a topic bob removed himself, bob may define again
    own = service.add_topic(engine, corpus, patent_key, "sp-bob.2", "1", bob)
    service.delete_topic(engine, own, bob, base_version=0)
    assert service.add_topic(engine, corpus, patent_key, "sp-bob.2", "1", bob) != own
    assert service.add_topic(engine, corpus, patent_key, qid, claims, alice) != current["id"]


def test_an_assessor_cannot_overwrite_or_undo_an_adjudication(database, corpus, people):
    engine = database["engine"]
    alice, bob = people["alice"], people["bob"]
    patent_key, qid, citation = a_suggested_citation(corpus)
    topic_id = _topic(engine, corpus, patent_key, qid)["id"]
    keys = {"topic_id": topic_id, "cited_ucid": citation.cited_ucid, "owner": db.ADJUDICATED}
    service.save_selection(engine, corpus, xpaths=list(citation.report_xpaths), base_version=0, actor=alice, **keys)
    service.save_selection(engine, corpus, xpaths=[], base_version=1, actor=alice, **keys)
    _forbidden(lambda: service.save_selection(engine, corpus, xpaths=list(citation.report_xpaths), base_version=2,
                                              actor=bob, **keys), "only an administrator adjudicates")
    _forbidden(lambda: service.undo_selection(engine, corpus, base_version=2, actor=bob, **keys),
               "only an administrator adjudicates")
    assert service.selection(engine, topic_id, citation.cited_ucid, db.ADJUDICATED)["xpaths"] == []


@pytest.mark.parametrize("action", sorted(service.ACCOUNT_ACTIONS))
def test_an_assessor_cannot_undo_an_administrators_account_action(database, people, action):
    """alice disabled or locked carol (or reset her password): bob can neither enable, unlock,
    remove nor reset any account, his own included."""
    engine = database["engine"]
    service.add_assessor(engine, "carol", "a-long-secret-phrase")
    service.manage_assessor(engine, "carol", "disable", actor=people["alice"])
    for target in ("carol", "bob"):
        _forbidden(lambda t=target: service.manage_assessor(engine, t, action, actor=people["bob"],
                                                            password="a-new-long-password"),
                   "only an administrator manages accounts")
    assert next(a for a in service.assessors_list(engine) if a["name"] == "carol")["status"] == "disabled"


def test_the_audit_logs_account_events_are_for_administrators(server, database, workspace, corpus):
    """bob sees the judging events, not who has an account, who is an administrator, nor
    lock-outs and the addresses they came from; alice sees everything (page and API)."""
    engine = database["engine"]
    service.authenticate(engine, "carol-unknown", "wrong-password-1")
    for i in range(10):
        service.authenticate(engine, "alice", f"wrong-password-{i}", address="192.0.2.7")
    service.note_blocked_address(engine, "192.0.2.7", 30)
    service.manage_assessor(engine, "alice", "unlock")
    patent_key, qid, citation = a_suggested_citation(corpus)
    with httpx.Client(base_url=server.base) as alice, httpx.Client(base_url=server.base) as bob:
        login(alice, server.base, "alice", workspace["accounts"]["alice"])
        login(bob, server.base, "bob", workspace["accounts"]["bob"])
        topic_id = next(t["id"] for t in bob.get(f"/api/sources/{patent_key}").json()["topics"] if t["qid"] == qid)
        saved = bob.put(f"/api/topics/{topic_id}/citations/{citation.cited_ucid}/selection",
                        json={"xpaths": list(citation.report_xpaths), "version": 0},
                        headers={"X-CSRF-Token": csrf_of(bob, server.base, patent_key)})
        assert saved.status_code == 200
        everything = {e["action"] for e in alice.get("/api/audit").json()}
        assert {"add-assessor", "lock-assessor", "unlock-assessor", "block-address", "save"} <= everything
        seen = bob.get("/api/audit").json()
        assert [e["action"] for e in seen] == ["save"]
        page = bob.get("/audit").text
        for hidden in ("192.0.2.7", "lock-assessor", "add-assessor", "block-address", '"admin"'):
            assert hidden not in page
        assert "192.0.2.7" in alice.get("/audit").text


def test_served_an_assessor_cannot_retain_what_an_administrator_rejected(server, workspace, corpus):
    """The audit's probe against the served tool: it answered 303 and retained the source."""
    patent_key, _qid, _citation = a_suggested_citation(corpus)
    with httpx.Client(base_url=server.base) as alice, httpx.Client(base_url=server.base) as bob:
        login(alice, server.base, "alice", workspace["accounts"]["alice"])
        login(bob, server.base, "bob", workspace["accounts"]["bob"])
        rejected = alice.post(f"/source/{patent_key}/decision", data={
            "csrf": csrf_of(alice, server.base, patent_key), "version": "0", "status": "rejected",
            "reason": "figures-only"})
        assert rejected.status_code == 303
        undone = bob.post(f"/source/{patent_key}/decision", data={
            "csrf": csrf_of(bob, server.base, patent_key), "version": "1", "status": "retained"})
        assert undone.status_code == 403
        assert f"alice, an administrator, decided that {patent_key} is rejected" in undone.text
        decision = bob.get(f"/api/sources/{patent_key}").json()["decision"]
        assert (decision["status"], decision["reason"], decision["decided_by"]) == ("rejected", "figures-only",
                                                                                    "alice")
