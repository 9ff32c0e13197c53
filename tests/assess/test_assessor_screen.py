"""The assessor's screen behind the pages (issue 23, section 1): the export's topics, the
citation counter, undo history, form errors that keep what was typed, topic removal with
a confirmation step and reusable ids, and the winner's selection given to the loser of a
save conflict. The browser side is in test_browser.py."""

from __future__ import annotations

import html
import re

import httpx
import pytest

from pateval.assess import db, service
from pateval.assess.export import export_qrels

from .conftest import a_suggested_citation, csrf_of, login


def _actor(database, workspace, name):
    return service.authenticate(database["engine"], name, workspace["accounts"][name])


def _topic_id(engine, patent_key, qid):
    return next(t["id"] for t in service.topics_of(engine, patent_key) if t["qid"] == qid)


def test_export_lists_only_judged_topics(database, corpus, workspace, tmp_path):
    """Opening a source defines its topics; only the topics somebody judged are exported
    (before, every topic of every source anyone had opened was listed)."""
    engine = database["engine"]
    alice = _actor(database, workspace, "alice")
    patent_key, qid, citation = a_suggested_citation(corpus)
    opened = [k for k in corpus.patent_keys if k != patent_key and corpus.source(k).suggested_topics][:2]
    for key in [patent_key, *opened]:
        service.ensure_topics(engine, corpus, key)
    assert len(service.topics_of(engine, opened[0])) > 0
    service.save_selection(engine, corpus, topic_id=_topic_id(engine, patent_key, qid), cited_ucid=citation.cited_ucid,
                           owner="alice", xpaths=list(citation.report_xpaths), base_version=0, actor=alice)
    summary = export_qrels(engine, corpus, tmp_path / "out")
    assert summary["topics"] == 1
    rows = (tmp_path / "out" / "topics_PSG.tsv").read_text().splitlines()
    assert [row.split("\t")[0] for row in rows[1:]] == [qid]
    assert {line.split()[0] for line in (tmp_path / "out" / "theta_PSG.txt").read_text().splitlines()} == {qid}
    assert re.findall(r"<tid>([^<]+)</tid>", (tmp_path / "out" / "topics_PSG.txt").read_text()) == [qid]


def test_undo_goes_back_save_by_save(database, corpus, workspace):
    """Undo is a history per (topic, citation, owner): each undo goes back one save further,
    until the selection is as before its first save; a save after undos starts again."""
    engine = database["engine"]
    alice = _actor(database, workspace, "alice")
    patent_key, qid, citation = a_suggested_citation(corpus)
    service.ensure_topics(engine, corpus, patent_key)
    keys = dict(topic_id=_topic_id(engine, patent_key, qid), cited_ucid=citation.cited_ucid, owner="alice",
                actor=alice)
    units = sorted(corpus.document(citation.cited_ucid).selectable)
    a, b, c = units[:1], units[:2], units[1:4]
    for version, xpaths in enumerate((a, b, c)):
        service.save_selection(engine, corpus, xpaths=xpaths, base_version=version, **keys)
    state = service.selection(engine, keys["topic_id"], citation.cited_ucid, "alice")
    assert (state["version"], state["xpaths"], state["undo_steps"]) == (3, c, 3)
    for version, (expected, steps) in enumerate(((b, 2), (a, 1), ([], 0)), start=3):
        assert service.undo_selection(engine, corpus, base_version=version, **keys) == version + 1
        state = service.selection(engine, keys["topic_id"], citation.cited_ucid, "alice")
        assert (state["xpaths"], state["undo_steps"]) == (expected, steps)
    with pytest.raises(service.AssessError, match="nothing to undo"):
        service.undo_selection(engine, corpus, base_version=6, **keys)
    # A save after the undos: one undo takes it back, and the older saves stay undone.
    service.save_selection(engine, corpus, xpaths=c, base_version=6, **keys)
    assert service.selection(engine, keys["topic_id"], citation.cited_ucid, "alice")["undo_steps"] == 1
    service.undo_selection(engine, corpus, base_version=7, **keys)
    state = service.selection(engine, keys["topic_id"], citation.cited_ucid, "alice")
    assert (state["version"], state["xpaths"], state["undo_steps"]) == (8, [], 0)
    # Bob's history of the same citation is his own.
    assert service.selection(engine, keys["topic_id"], citation.cited_ucid, "bob")["undo_steps"] == 0
    assert db.check_consistency(engine) == []


def test_a_deleted_topics_id_is_given_again_without_its_judgements(database, corpus, workspace, tmp_path):
    engine = database["engine"]
    alice = _actor(database, workspace, "alice")
    patent_key, _qid, citation = a_suggested_citation(corpus)
    claims = ",".join(str(n) for n in citation.relevant_claims)
    first = service.add_topic(engine, corpus, patent_key, "sp-reuse", claims, alice)
    service.save_selection(engine, corpus, topic_id=first, cited_ucid=citation.cited_ucid, owner="alice",
                           xpaths=list(citation.report_xpaths), base_version=0, actor=alice)
    removal = service.topic_removal(engine, first, alice, base_version=0)
    assert removal["topic"]["qid"] == "sp-reuse" and removal["selections"] == {"alice": 1}
    service.delete_topic(engine, first, alice, base_version=0)
    again = service.add_topic(engine, corpus, patent_key, "sp-reuse", "1", alice)
    assert again != first
    assert [t["id"] for t in service.topics_of(engine, patent_key) if t["qid"] == "sp-reuse"] == [again]
    assert service.selection(engine, again, citation.cited_ucid, "alice")["version"] == 0
    assert service.selections_of_topic(engine, again) == {}
    # The old judgements stay with the deleted topic: not exported, not in the new topic.
    assert export_qrels(engine, corpus, tmp_path / "out")["topics"] == 0
    # The id can be deleted and given once more; a live id is still refused.
    with pytest.raises(service.AssessError, match="topic id sp-reuse exists already"):
        service.add_topic(engine, corpus, patent_key, "sp-reuse", "1", alice)
    service.delete_topic(engine, again, alice, base_version=0)
    third = service.add_topic(engine, corpus, patent_key, "sp-reuse", "1", alice)
    assert [t["id"] for t in service.topics_of(engine, patent_key) if t["qid"] == "sp-reuse"] == [third]
    log = service.audit_log(engine)
    deletions = [e for e in log if e["action"] == "delete-topic"]
    assert [e["detail"] for e in deletions] == ['{"qid": "sp-reuse"}'] * 2


@pytest.fixture
def alice(server, workspace):
    with httpx.Client(base_url=server.base) as client:
        login(client, server.base, "alice", workspace["accounts"]["alice"])
        yield client


def _a_topic_with_fewer_citations_than_its_source(corpus):
    """(patent key, qid, the topic's citations in report order) where the topic's claims
    are relevant to some but not all of the search report's citations."""
    for patent_key in corpus.patent_keys:
        citations = corpus.citations(patent_key)
        for qid, claims in corpus.source(patent_key).suggested_topics:
            walk = [c for c in citations if set(c.relevant_claims) & set(claims)]
            if 1 < len(walk) < len(citations) and walk[1].position != 2:
                return patent_key, qid, walk, len(citations)
    raise AssertionError("the demo corpus has no topic with part of its source's citations")


def test_citation_counter_counts_the_topics_own_citations(alice, corpus):
    """Prev / Next walk the citations relevant to the topic's claims; the counter showed
    the citation's place in the whole search report ('Citation 2 of 10' for a topic of 4)."""
    patent_key, qid, walk, n_report = _a_topic_with_fewer_citations_than_its_source(corpus)
    topic_id = next(t["id"] for t in alice.get(f"/api/sources/{patent_key}").json()["topics"] if t["qid"] == qid)
    page = alice.get(f"/source/{patent_key}", params={"topic": topic_id, "citation": walk[1].position}).text
    counter = re.search(r'id="citation-counter">([^<]*)<', page).group(1)
    assert counter == f"Citation 2 of {len(walk)}"
    assert f"(report item {walk[1].position} of {n_report})" in page


def _field(page, name):
    """The value of the input named ``name`` with the id ``name`` (HTML-escaped as sent)."""
    match = re.search(rf'<input[^>]*id="{name}"[^>]*>', page)
    assert match, name
    value = re.search(r'value="([^"]*)"', match.group(0))
    return value.group(1) if value else ""


def test_form_errors_keep_what_was_typed(alice, server, corpus):
    patent_key, qid, _citation = a_suggested_citation(corpus)
    token = csrf_of(alice, server.base, patent_key)
    topic = next(t for t in alice.get(f"/api/sources/{patent_key}").json()["topics"] if t["qid"] == qid)
    added = alice.post(f"/source/{patent_key}/topics",
                       data={"csrf": token, "qid": "sp-typed", "claims": "1-2,999", "topic": str(topic["id"])})
    assert added.status_code == 400
    assert f"{patent_key} has no claim 999" in re.search(r'id="error-add-topic">([^<]*)<', added.text).group(1)
    assert (_field(added.text, "new-qid"), _field(added.text, "new-claims")) == ("sp-typed", "1-2,999")
    assert f'option value="{topic["id"]}" selected' in added.text  # the same topic is shown again
    bad_id = alice.post(f"/source/{patent_key}/topics", data={"csrf": token, "qid": "9bad", "claims": "1"})
    assert bad_id.status_code == 400 and "topic id '9bad'" in html.unescape(bad_id.text)
    assert (_field(bad_id.text, "new-qid"), _field(bad_id.text, "new-claims")) == ("9bad", "1")

    claims = alice.post(f"/topic/{topic['id']}/claims",
                        data={"csrf": token, "claims": "1, 3-x", "version": str(topic["version"])})
    assert claims.status_code == 400 and 'id="error-claims"' in claims.text
    assert _field(claims.text, "topic-claims") == "1, 3-x"
    stale = alice.post(f"/topic/{topic['id']}/claims", data={"csrf": token, "claims": "1", "version": "7"})
    assert stale.status_code == 409 and "another page changed the claims" in stale.text
    assert _field(stale.text, "topic-claims") == "1"

    decision = alice.post(f"/source/{patent_key}/decision",
                          data={"csrf": token, "version": "0", "status": "rejected", "reason": "other", "note": " ",
                                "topic": str(topic["id"])})
    assert decision.status_code == 400 and 'id="error-decision"' in decision.text
    assert 'value="rejected" checked' in decision.text and 'value="other" selected' in decision.text
    note = alice.post(f"/source/{patent_key}/decision",
                      data={"csrf": token, "version": "5", "status": "rejected", "reason": "other",
                            "note": "typed & kept"})
    assert note.status_code == 409 and _field(note.text, "decision-note") == "typed &amp; kept"
    # Nothing was changed by the refused forms.
    assert alice.get(f"/api/sources/{patent_key}").json()["decision"]["status"] == "open"
    assert all(t["qid"] not in ("sp-typed", "9bad") for t in alice.get(f"/api/sources/{patent_key}").json()["topics"])


def test_topic_removal_asks_first(alice, server, corpus):
    patent_key, _qid, citation = a_suggested_citation(corpus)
    token = csrf_of(alice, server.base, patent_key)
    claims = ",".join(str(n) for n in citation.relevant_claims)
    assert alice.post(f"/source/{patent_key}/topics", data={"csrf": token, "qid": "sp-gone", "claims": claims}
                      ).status_code == 303
    topic_id = next(t["id"] for t in alice.get(f"/api/sources/{patent_key}").json()["topics"] if t["qid"] == "sp-gone")
    url = f"/api/topics/{topic_id}/citations/{citation.cited_ucid}/selection"
    assert alice.put(url, json={"xpaths": list(citation.report_xpaths), "version": 0},
                     headers={"X-CSRF-Token": token}).status_code == 200
    asked = alice.post(f"/topic/{topic_id}/delete", data={"csrf": token, "version": "0"})
    assert asked.status_code == 200 and "Delete topic sp-gone?" in asked.text
    assert "alice 1" in asked.text and 'name="confirm" value="yes"' in asked.text
    assert any(t["id"] == topic_id for t in alice.get(f"/api/sources/{patent_key}").json()["topics"])
    done = alice.post(f"/topic/{topic_id}/delete", data={"csrf": token, "version": "0", "confirm": "yes"})
    assert done.status_code == 303
    assert all(t["qid"] != "sp-gone" for t in alice.get(f"/api/sources/{patent_key}").json()["topics"])
    # The id again: a new topic, unjudged.
    assert alice.post(f"/source/{patent_key}/topics", data={"csrf": token, "qid": "sp-gone", "claims": claims}
                      ).status_code == 303
    new_id = next(t["id"] for t in alice.get(f"/api/sources/{patent_key}").json()["topics"] if t["qid"] == "sp-gone")
    assert new_id != topic_id
    assert alice.get(f"/api/topics/{new_id}/judgements").json()["judgements"] == []
    again = alice.get(f"/api/topics/{new_id}/citations/{citation.cited_ucid}/selection").json()
    assert (again["version"], again["xpaths"]) == (0, [])


def test_a_save_conflict_answers_with_the_winners_selection(alice, server, corpus):
    patent_key, qid, citation = a_suggested_citation(corpus)
    token = csrf_of(alice, server.base, patent_key)
    topic_id = next(t["id"] for t in alice.get(f"/api/sources/{patent_key}").json()["topics"] if t["qid"] == qid)
    url = f"/api/topics/{topic_id}/citations/{citation.cited_ucid}/selection"
    headers = {"X-CSRF-Token": token}
    marked = sorted(citation.report_xpaths)
    # the losing page's selection differs from the winner's (a page sending the winner's own
    # selection again is a retried save, answered with its version: assess-sec)
    mine = marked[:-1]
    assert alice.put(url, json={"xpaths": marked, "version": 0}, headers=headers).status_code == 200
    lost = alice.put(url, json={"xpaths": mine, "version": 0}, headers=headers)
    assert lost.status_code == 409
    current = lost.json()["current"]
    assert (current["version"], current["xpaths"], current["saved_by"]) == (1, marked, "alice")
    assert current["saved_at"]
    # Keep mine: saved against the version the other page saved.
    kept = alice.put(url, json={"xpaths": mine, "version": current["version"]}, headers=headers)
    assert kept.status_code == 200 and kept.json()["xpaths"] == mine
    stale_undo = alice.post(url.replace("/selection", "/undo"), json={"version": 1}, headers=headers)
    assert stale_undo.status_code == 409 and stale_undo.json()["current"]["version"] == 2
    # Other refusals carry no selection.
    refused = alice.put(url, json={"xpaths": ["/no/such"], "version": 2}, headers=headers)
    assert refused.status_code == 400 and "current" not in refused.json()
