"""Cohen's kappa, the agreement page's numbers, adjudication and the export policies."""

from __future__ import annotations

import math

import pytest

from pateval.assess import db, service
from pateval.assess.agreement import agreement, cohen_kappa
from pateval.assess.export import export_qrels
from pateval.errors import ParameterError

from .conftest import a_suggested_citation


def test_cohen_kappa_by_hand():
    # 10 units: both yes 3, both no 4, A yes/B no 2, A no/B yes 1.
    a = [1, 1, 1, 0, 0, 0, 0, 1, 1, 0]
    b = [1, 1, 1, 0, 0, 0, 0, 0, 0, 1]
    # p_o = 0.7; p_A = 0.5, p_B = 0.4; p_e = 0.2 + 0.3 = 0.5; kappa = 0.2 / 0.5 = 0.4
    assert math.isclose(cohen_kappa(a, b), 0.4, rel_tol=0, abs_tol=1e-15)
    assert cohen_kappa([1, 0], [1, 0]) == 1.0
    assert cohen_kappa([0, 0, 0], [0, 0, 0]) is None  # p_e = 1: undefined
    assert cohen_kappa([], []) is None


def test_cohen_kappa_against_scikit_learn():
    metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn not installed (reference check only)")
    import random

    rng = random.Random(3)
    for _ in range(50):
        n = rng.randrange(2, 60)
        a = [rng.random() < 0.4 for _ in range(n)]
        b = [x if rng.random() < 0.7 else not x for x in a]
        if len(set(a)) == 1 and set(a) == set(b):
            continue
        assert math.isclose(cohen_kappa(a, b), metrics.cohen_kappa_score(a, b), abs_tol=1e-12)



def test_agreement_adjudication_and_export_policies(database, corpus, workspace, tmp_path):
    engine = database["engine"]
    alice = service.authenticate(engine, "alice", workspace["accounts"]["alice"])
    bob = service.authenticate(engine, "bob", workspace["accounts"]["bob"])
    patent_key, qid, citation = a_suggested_citation(corpus)
    service.ensure_topics(engine, corpus, patent_key)
    topic_id = next(t["id"] for t in service.topics_of(engine, patent_key) if t["qid"] == qid)
    document = corpus.document(citation.cited_ucid)
    units = sorted(document.selectable)
    marked = sorted(citation.report_xpaths)
    extra = next(x for x in units if x not in marked)
    save = dict(topic_id=topic_id, cited_ucid=citation.cited_ucid, base_version=0)
    service.save_selection(engine, corpus, owner="alice", xpaths=marked, actor=alice, **save)
    service.save_selection(engine, corpus, owner="bob", xpaths=marked + [extra], actor=bob, **save)

    result = agreement(engine, corpus)
    (pair,) = result["pairs"]
    a = [x in marked for x in units]
    b = [x in marked or x == extra for x in units]
    topic = pair["topics"][0]
    assert topic["qid"] == qid and topic["passages"] == len(units) and topic["documents"] == 1
    assert topic["kappa_passages"] == cohen_kappa(a, b)
    assert topic["kappa_documents"] is None  # one document, relevant for both
    assert topic["overlap"] == len(marked) / (len(marked) + 1)
    assert pair["disagreements"] == [(qid, citation.cited_ucid)]

    # Unresolved: left out of the final export and listed.
    summary = export_qrels(engine, corpus, tmp_path / "final")
    assert summary["unresolved"] == [{"qid": qid, "docno": citation.cited_ucid, "owners": ["alice", "bob"]}]
    assert (tmp_path / "final" / "qrels_PSG.txt").read_text() == ""
    union = export_qrels(engine, corpus, tmp_path / "union", policy="union")
    assert union["passages"] == len(marked) + 1
    bobs = (tmp_path / "bobs")
    export_qrels(engine, corpus, bobs, policy="bob")
    assert (bobs / "qrels_PSG.txt").read_text().splitlines() == \
        [f"{qid} {citation.cited_ucid} {x}" for x in sorted(marked + [extra])]
    with pytest.raises(ParameterError, match=r"^policy must be final, union or an assessor with judgements "
                                             r"\(alice, bob\), not 'carol'$"):
        export_qrels(engine, corpus, tmp_path / "carol", policy="carol")
    with pytest.raises(ParameterError, match="exists already"):
        export_qrels(engine, corpus, bobs)

    # bob cannot adjudicate; alice (admin) can, and the adjudicated set is final.
    with pytest.raises(service.AssessError, match="only an administrator adjudicates"):
        service.save_selection(engine, corpus, owner=db.ADJUDICATED, xpaths=marked, actor=bob, **save)
    service.save_selection(engine, corpus, owner=db.ADJUDICATED, xpaths=marked, actor=alice, **save)
    final = export_qrels(engine, corpus, tmp_path / "adjudicated")
    assert final["unresolved"] == []
    assert (tmp_path / "adjudicated" / "qrels_PSG.txt").read_text().splitlines() == \
        [f"{qid} {citation.cited_ucid} {x}" for x in marked]
    assert db.check_consistency(engine) == []


def test_topic_ids_as_the_seed_writes_them_are_exported_in_natural_order(database, corpus, workspace, tmp_path):
    engine = database["engine"]
    alice = service.authenticate(engine, "alice", workspace["accounts"]["alice"])
    patent_key, qid, citation = a_suggested_citation(corpus)
    claims = ",".join(str(c) for c in citation.relevant_claims)
    ids = ["sp-8.all", "sp-10.1", "sp-8.2"]
    for topic_qid in ids:
        topic_id = service.add_topic(engine, corpus, patent_key, topic_qid, claims, alice)
        service.save_selection(engine, corpus, topic_id=topic_id, cited_ucid=citation.cited_ucid, owner="alice",
                               xpaths=list(citation.report_xpaths), base_version=0, actor=alice)
    with pytest.raises(service.AssessError, match="topic id sp-8.all exists already"):
        service.add_topic(engine, corpus, patent_key, "sp-8.all", claims, alice)
    with pytest.raises(service.AssessError, match=r"^topic id '8 all': up to 64 letters"):
        service.add_topic(engine, corpus, patent_key, "8 all", claims, alice)
    export_qrels(engine, corpus, tmp_path / "out")
    lines = (tmp_path / "out" / "qrels_PSG.txt").read_text().splitlines()
    order = list(dict.fromkeys(line.split()[0] for line in lines))
    assert order == ["sp-8.2", "sp-8.all", "sp-10.1"]
    graded = (tmp_path / "out" / "qrels_PSG_graded.txt").read_text().splitlines()
    assert [line.split()[0] for line in graded] == ["sp-8.2", "sp-8.all", "sp-10.1"]
    theta = (tmp_path / "out" / "theta_PSG.txt").read_text().splitlines()
    assert {line.split()[0] for line in theta} == set(ids)


def test_theta_weights_claims_by_their_own_dependencies(database, corpus, workspace, tmp_path):
    """theta_PSG: independent 1, dependent 0.5, normalised over the topic's claims; a claim
    that refers to a claim outside the topic is still dependent."""
    engine = database["engine"]
    alice = service.authenticate(engine, "alice", workspace["accounts"]["alice"])
    patent_key, _qid, citation = a_suggested_citation(corpus)
    dependencies = corpus.claim_dependencies(patent_key)
    independent = next(n for n, d in sorted(dependencies.items()) if not d)
    dependent = next(n for n, d in sorted(dependencies.items()) if d and independent not in d) \
        if any(d and independent not in d for d in dependencies.values()) else \
        next(n for n, d in sorted(dependencies.items()) if d)
    topic_id = service.add_topic(engine, corpus, patent_key, "theta-1", f"{independent},{dependent}", alice)
    service.save_selection(engine, corpus, topic_id=topic_id, cited_ucid=citation.cited_ucid, owner="alice",
                           xpaths=list(citation.report_xpaths), base_version=0, actor=alice)
    export_qrels(engine, corpus, tmp_path / "out")
    rows = [line.split() for line in (tmp_path / "out" / "theta_PSG.txt").read_text().splitlines()
            if line.startswith("theta-1 ")]
    low, high = sorted((independent, dependent))
    expected = {independent: 1 / 1.5, dependent: 0.5 / 1.5}
    assert [(int(s), float(w)) for _q, s, w in rows] == [(low, float(f"{expected[low]:.10g}")),
                                                          (high, float(f"{expected[high]:.10g}"))]
