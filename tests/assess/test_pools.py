"""Pools judged in the assessment tool (issue 32, item 3): a pool or a sample becomes topics'
queues, graded through the judging path of citations; adaptive orders follow the judgements
as the budget simulation's strategy objects do; agreement, adjudication, export to qrels and
to sampled qrels; the schema-5 migration of a database made by the code before it; bad input
refused in one line with nothing imported; the web routes' security rules."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pateval.assess import db, pools, service
from pateval.errors import InputFormatError, ParameterError

DATA = Path(__file__).resolve().parents[1] / "data"
RUNS = [DATA / "pooling" / f"{name}.txt" for name in ("InexpC2", "MU03rob01", "NLPR03vb10", "SABIR03BASE")]
QRELS = DATA / "pooling" / "robust03_qrels.txt"


def _cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "pateval.cli", *args], input=stdin, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture
def robust_pool(tmp_path):
    """A depth-10 pool of four TREC 2003 Robust runs (tests/data/pooling), made by pateval pool build."""
    path = tmp_path / "robust.txt"
    done = _cli("pool", "build", *map(str, RUNS), "--depth", "10", "-o", str(path))
    assert done.returncode == 0, done.stderr
    return path


def _actor(engine, workspace, name):
    return service.authenticate(engine, name, workspace["accounts"][name])


def _topic(engine, qid):
    return service.topic(engine, service.topic_ids(engine)[qid][0])


def _counts(engine) -> tuple[int, int, int, int]:
    from sqlalchemy import func, select

    with engine.connect() as connection:
        return tuple(connection.execute(select(func.count()).select_from(table)).scalar_one()
                     for table in (db.pools, db.topics, db.pool_documents, db.events))


# ---- the migration -----------------------------------------------------------------------

def test_a_schema_4_database_made_at_main_is_migrated(tmp_path, robust_pool, corpus):
    """tests/data/assess/schema4.db was made by the code before schema 5 (make_schema4.py):
    it opens at schema 5 with its accounts, topic, judgements and audit log intact, and then
    takes a pool."""
    path = tmp_path / "old.db"
    shutil.copy(DATA / "assess" / "schema4.db", path)
    url = f"sqlite:///{path}"
    before = db.held(url)
    assert before["meta"]["schema_version"] == "4"
    engine = db.open_database(url)
    after = db.held(url)
    assert after["meta"]["schema_version"] == str(db.SCHEMA_VERSION) == "5"
    assert after["names"] == before["names"] == ["alice", "bob"]
    assert after["rows"] == before["rows"]
    assert db.check_consistency(engine) == []
    assert service.authenticate(engine, "alice", "quartz lantern forty")["is_admin"]
    assert service.authenticate(engine, "bob", "velvet harbour ninety") is not None
    (psg,) = [service.topic(engine, tid) for tid, _p in service.topic_ids(engine).values()]
    assert (psg["qid"], psg["patent_key"], psg["claim_numbers"], psg["pool_id"]) == ("PSG-1", "EP-1000001", [1, 2],
                                                                                       None)
    assert service.selections_of_topic(engine, psg["id"]) == {
        ("EP-1000002-A1", "@adjudicated"): ["/patent-document/description/p[1]"],
        ("EP-1000002-A1", "bob"): ["/patent-document/description/p[3]"]}
    bob = service.selection(engine, psg["id"], "EP-1000002-A1", "bob")
    assert (bob["version"], bob["grade"], bob["undo_steps"]) == (2, None, 2)
    assert service.all_grades(engine) == {}
    # The migrated database takes a pool and its grades.
    summary = pools.import_pool(engine, robust_pool, order="mtf")
    assert summary["topics"] == 5
    topic = _topic(engine, "303")
    first = pools.queue(engine, topic, "bob")["next"]
    bob_actor = service.authenticate(engine, "bob", "velvet harbour ninety")
    service.save_selection(engine, corpus, topic_id=topic["id"], cited_ucid=first, owner="bob", xpaths=[],
                           base_version=0, actor=bob_actor, grade=1)
    assert db.check_consistency(engine) == []
    db.open_database(url)  # opening again changes nothing
    assert db.held(url)["meta"]["schema_version"] == "5"


# ---- import ------------------------------------------------------------------------------

def test_import_a_pool_and_a_sample(database, robust_pool, tmp_path):
    engine = database["engine"]
    summary = pools.import_pool(engine, robust_pool)
    lines = [line.split() for line in robust_pool.read_text().splitlines() if not line.startswith("#")]
    assert summary == {"name": "robust", "topics": 5, "documents": len(lines), "queued": len(lines), "order": "pool",
                       "sampled": False, "max_grade": 2}
    queue = pools.queue(engine, _topic(engine, "307"), "bob")
    assert [d["docno"] for d in queue["documents"]] == [f[1] for f in lines if f[0] == "307"]
    assert [d["runs"] for d in queue["documents"]] == [f[3].split(",") for f in lines if f[0] == "307"]
    assert queue["next"] == queue["documents"][0]["docno"] and queue["judged"] == 0
    # A sample: its drawn documents are the queue, in the sample's order (the pool's).
    sample = tmp_path / "robust-sample.txt"
    assert _cli("pool", "sample", str(robust_pool), "--strata", "1-5:1,6-:0.3", "-o", str(sample)).returncode == 0
    engine2 = db.open_database(f"sqlite:///{tmp_path / 'other.db'}")
    summary = pools.import_pool(engine2, sample, max_grade=1)
    rows = [line.split() for line in sample.read_text().splitlines()[1:]]
    assert (summary["sampled"], summary["documents"], summary["queued"]) == (True, len(lines),
                                                                             sum(r[4] == "1" for r in rows))
    queue = pools.queue(engine2, _topic(engine2, "310"), "bob")
    assert [d["docno"] for d in queue["documents"]] == [r[1] for r in rows if r[0] == "310" and r[4] == "1"]
    assert {d["stratum"] for d in queue["documents"]} == {"1-5", "6-"}
    assert queue["pool"]["max_grade"] == 1


def test_bad_pools_are_refused_in_one_line_and_nothing_is_imported(database, robust_pool, tmp_path):
    """A document twice, a sample without probabilities, sampled qrels (judged already), a
    misspelt order, an adaptive order on a sample, a topic the database has, a pool name
    taken, an id too long for the database: one line (the CLI: exit 2), nothing written."""
    engine = database["engine"]
    empty = _counts(engine)
    text = robust_pool.read_text()
    twice = tmp_path / "twice.txt"
    first = text.splitlines()[2]
    twice.write_text(text + first + "\n")
    n_lines = len(text.splitlines()) + 1
    no_probability = tmp_path / "no-probability.txt"
    no_probability.write_text("# topic docno stratum probability sampled\n303 D1 1-5 1.0 1\n303 D2 1-5 1\n")
    sampled_qrels = tmp_path / "sampled-qrels.txt"
    sampled_qrels.write_text("303 0 D1 1-5 1\n303 0 D2 1-5 -1\n")
    long_id = tmp_path / "long.txt"
    long_id.write_text("303 D1 1 runA\n303 " + "D" * 70 + " 2 runA\n")
    slash = tmp_path / "slash.txt"
    slash.write_text("303 D1 1 runA\n303 D/2 2 runA\n")
    cases = [
        (dict(path=twice), f"{twice}, line {n_lines}: document {first.split()[1]!r} pooled twice for topic "
                           f"'303' (first on line 3)"),
        (dict(path=robust_pool, order="mft"), "the judging order must be one of pool, mtf, mm-ns, not 'mft'"),
        (dict(path=no_probability), f"{no_probability}, line 3: a sample line is: topic docno stratum probability "
                                    "sampled; the inclusion probability is missing"),
        (dict(path=sampled_qrels), f"{sampled_qrels}, line 1: these are sampled qrels (judged already"),
        (dict(path=long_id), f"{long_id}, line 2: the document id 'DDDD"),
        (dict(path=slash), f"{slash}, line 2: the document id 'D/2' holds a '/', which the assessment tool's "
                           "addresses cannot carry"),
        (dict(path=robust_pool, max_grade=0), "the highest grade must be an integer from 1 to 9, not 0"),
    ]
    for arguments, message in cases:
        with pytest.raises((ParameterError, InputFormatError)) as caught:
            pools.import_pool(engine, arguments.pop("path"), **arguments)
        assert str(caught.value).startswith(message), str(caught.value)
        assert "\n" not in str(caught.value)
        assert _counts(engine) == empty
    sample = tmp_path / "s.txt"
    assert _cli("pool", "sample", str(robust_pool), "--strata", "1-:0.5", "-o", str(sample)).returncode == 0
    with pytest.raises(ParameterError, match=r"^the mtf order takes the next document from the runs that contributed "
                                             r"each one: .*s\.txt is a sample"):
        pools.import_pool(engine, sample, order="mtf")
    assert _counts(engine) == empty
    pools.import_pool(engine, robust_pool)
    imported = _counts(engine)
    with pytest.raises(ParameterError, match="^a pool named robust was imported already: give another --name$"):
        pools.import_pool(engine, robust_pool)
    with pytest.raises(ParameterError, match=r"robust\.txt: topic 303 exists already in the database: a topic has "
                                             r"one queue$"):
        pools.import_pool(engine, robust_pool, name="again")
    assert _counts(engine) == imported
    # The command line: one line, exit status 2.
    done = _cli("assess", "pool", "--db", database["url"], "--pool", str(robust_pool), "--judging-order", "mtff",
                "--name", "x")
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", "pateval: error: the judging order must be one of pool, mtf, mm-ns, not 'mtff'\n")
    done = _cli("assess", "pool", "--db", database["url"], "--pool", str(twice), "--name", "y")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "pooled twice" in done.stderr
    assert _counts(engine) == imported


def test_the_command_imports_and_says_what(database, robust_pool):
    done = _cli("assess", "pool", "--db", database["url"], "--pool", str(robust_pool), "--judging-order", "mm-ns",
                "--max-grade", "3")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "assess pool: robust: 5 topics, 125 documents to judge (grades 0-3, mm-ns order)\n"
    assert pools.pool_listing(database["engine"], "bob")[0]["order"] == "mm-ns"


# ---- judging -----------------------------------------------------------------------------

def _demo_pool(corpus, tmp_path, *, foreign: int = 2) -> tuple[Path, list[str]]:
    """A pool file of two topics over documents the demo corpus has (with passages), plus
    ``foreign`` documents it has not."""
    docs = []
    for patent_key in corpus.patent_keys:
        for citation in corpus.citations(patent_key):
            if citation.in_corpus and citation.cited_ucid not in docs:
                docs.append(citation.cited_ucid)
        if len(docs) >= 8:
            break
    lines = ["# pateval pool: depth k=10, 2 runs", "# topic docno place runs"]
    for qid in ("T-401", "T-402"):
        ranked = docs[:6] + [f"XX-{qid}-{i}" for i in range(foreign)]
        lines += [f"{qid} {d} {place} {'runA,runB' if place % 2 else 'runB'}" for place, d in enumerate(ranked, 1)]
    path = tmp_path / "demo-pool.txt"
    path.write_text("\n".join(lines) + "\n")
    return path, docs[:6]


def test_grades_and_passages_through_the_judging_path(database, corpus, workspace, tmp_path):
    engine = database["engine"]
    alice, bob = _actor(engine, workspace, "alice"), _actor(engine, workspace, "bob")
    path, docs = _demo_pool(corpus, tmp_path)
    pools.import_pool(engine, path)
    topic = _topic(engine, "T-401")
    doc = corpus.document(docs[0])
    xpaths = sorted(doc.selectable)[:2]
    save = dict(topic_id=topic["id"], base_version=0)
    version = service.save_selection(engine, corpus, cited_ucid=docs[0], owner="bob", xpaths=xpaths, actor=bob,
                                     grade=2, **save)
    assert version == 1
    saved = service.selection(engine, topic["id"], docs[0], "bob")
    assert (saved["grade"], saved["xpaths"]) == (2, xpaths)
    # The next document in the pool's order is the first bob has not graded.
    assert pools.queue(engine, topic, "bob")["next"] == docs[1]
    assert pools.queue(engine, topic, "alice")["next"] == docs[0]
    # A document without text takes a grade and no passage.
    foreign = "XX-T-401-0"
    service.save_selection(engine, corpus, cited_ucid=foreign, owner="bob", xpaths=[], actor=bob, grade=0, **save)
    refusals = [
        (dict(cited_ucid=docs[1], grade=3), 400, "grade must be an integer from 0 to 2 (0: not relevant)"),
        (dict(cited_ucid=docs[1], grade=None), 400, "grade must be an integer from 0 to 2"),
        (dict(cited_ucid=docs[1], grade=True), 400, "grade must be an integer from 0 to 2"),
        (dict(cited_ucid=docs[1], grade="1"), 400, "grade must be an integer from 0 to 2"),
        (dict(cited_ucid=docs[1], grade=0, xpaths=xpaths[:1]), 400, "a document graded 0 (not relevant) has no "
                                                                    "relevant passage"),
        (dict(cited_ucid="XX-T-401-1", grade=1, xpaths=xpaths[:1]), 400, "XX-T-401-1 is not in the corpus: grade it"),
        (dict(cited_ucid="NOPE", grade=1), 404, "NOPE is not in the queue of T-401"),
        (dict(cited_ucid=docs[1], grade=1, owner="alice"), 403, "bob cannot change the judgements of alice"),
        (dict(cited_ucid=docs[1], grade=1, owner=db.ADJUDICATED), 403, "only an administrator adjudicates"),
    ]
    for given, status, message in refusals:
        arguments = {"owner": "bob", "xpaths": [], "actor": bob, **save, **given}
        with pytest.raises(service.AssessError) as caught:
            service.save_selection(engine, corpus, **arguments)
        assert (caught.value.status, caught.value.message[:len(message)]) == (status, message), caught.value.message
    # A citation topic takes no grade.
    from .conftest import a_suggested_citation

    patent_key, qid, citation = a_suggested_citation(corpus)
    service.ensure_topics(engine, corpus, patent_key)
    citation_topic = next(t for t in service.topics_of(engine, patent_key) if t["qid"] == qid)
    with pytest.raises(service.AssessError, match="is a citation topic: its judgements are passages, not grades"):
        service.save_selection(engine, corpus, topic_id=citation_topic["id"], cited_ucid=citation.cited_ucid,
                               owner="bob", xpaths=[], base_version=0, actor=bob, grade=1)
    # A pool topic is defined by its file.
    with pytest.raises(service.AssessError, match="T-401 is a pool topic, defined by its pool file: one cannot "
                                                  "remove it"):
        service.delete_topic(engine, topic["id"], alice, base_version=0)
    # Undo goes back to the grade before (none: not graded), the audit log holds both.
    service.save_selection(engine, corpus, cited_ucid=docs[0], owner="bob", xpaths=[], actor=bob, grade=1,
                           topic_id=topic["id"], base_version=1)
    service.undo_selection(engine, corpus, topic_id=topic["id"], cited_ucid=docs[0], owner="bob", base_version=2,
                           actor=bob)
    assert service.selection(engine, topic["id"], docs[0], "bob")["grade"] == 2
    service.undo_selection(engine, corpus, topic_id=topic["id"], cited_ucid=docs[0], owner="bob", base_version=3,
                           actor=bob)
    assert (service.selection(engine, topic["id"], docs[0], "bob")["grade"],
            pools.queue(engine, topic, "bob")["next"]) == (None, docs[0])
    assert db.check_consistency(engine) == []


def _tool_order(engine, corpus, actor, topic, qrels_grades) -> list[str]:
    """Judge a topic's whole queue in the tool, always taking the next document, with the
    grades of the qrels (absent: 0); the documents in the order judged."""
    order = []
    while (following := pools.queue(engine, topic, actor["name"])["next"]) is not None:
        service.save_selection(engine, corpus, topic_id=topic["id"], cited_ucid=following, owner=actor["name"],
                               xpaths=[], base_version=0, actor=actor,
                               grade=min(qrels_grades.get((topic["qid"], following), 0), 2))
        order.append(following)
    return order


@pytest.mark.parametrize("method", ["mtf", "mm-ns"])
def test_an_adaptive_queue_is_the_simulation_strategy_s_order(method, database, corpus, workspace, robust_pool,
                                                              tmp_path):
    """Judged in the tool, document after document, an adaptive queue gives the order the
    budget simulation's strategy object (make_order) gives on the same runs and judgements:
    each run's list being the documents it contributed, in the pool's order, written as run
    files and read through the run door (stack_runs, build_pool, judged_flags)."""
    from pateval.core.qrels import Qrels
    from pateval.formats.pools import read_pool
    from pateval.formats.qrels import read_qrels
    from pateval.formats.trec import read_run
    from pateval.pooling.pools import build_pool, judged_flags
    from pateval.pooling.stack import stack_runs
    from pateval.pooling.strategies import make_order

    engine = database["engine"]
    bob = _actor(engine, workspace, "bob")
    pools.import_pool(engine, robust_pool, order=method)
    qrels = read_qrels(QRELS)
    grades = {(str(t), str(d)): int(g) for t, d, g in zip(qrels.topic.tolist(), qrels.docno.tolist(),
                                                            qrels.rel.tolist(), strict=True)}
    pool = read_pool(robust_pool)
    run_files = []
    for r, name in enumerate(pool.runs):
        lines = [f"{t} Q0 {d} {p} {-float(p)} {name}" for t, d, p, who in zip(
            pool.topic.tolist(), pool.docno.tolist(), pool.place.tolist(), pool.contributors, strict=True) if r in who]
        run_files.append(tmp_path / f"{name}.run")
        run_files[-1].write_text("\n".join(lines) + "\n")
    stack = stack_runs([read_run(f) for f in run_files])
    judged = Qrels.from_columns([t for t, _d in grades], [d for _t, d in grades], [min(g, 2) for g in grades.values()])
    relevant, _ = judged_flags(stack, judged)
    simulated = build_pool(stack, make_order(method, depth=None), relevant=relevant)
    reordered = 0
    for qid in ("303", "307", "310", "314", "320"):
        tool = _tool_order(engine, corpus, bob, _topic(engine, qid), grades)
        expected = [str(d) for t, d in zip(simulated.topic.tolist(), simulated.docno.tolist(), strict=True) if t == qid]
        assert tool == expected
        in_pool_order = [str(d) for t, d in zip(pool.topic.tolist(), pool.docno.tolist(), strict=True) if t == qid]
        assert sorted(tool) == sorted(in_pool_order)
        reordered += tool != in_pool_order
    assert reordered == 5  # (the judgements moved every topic's queue away from the pool's order)


def test_agreement_adjudication_and_export(database, corpus, workspace, tmp_path):
    import pateval
    from pateval.assess.agreement import agreement
    from pateval.assess.export import export_qrels

    engine = database["engine"]
    alice, bob = _actor(engine, workspace, "alice"), _actor(engine, workspace, "bob")
    service.add_assessor(engine, "carol", "another quite long pass")
    carol = service.authenticate(engine, "carol", "another quite long pass")
    path, docs = _demo_pool(corpus, tmp_path)
    pools.import_pool(engine, path)
    topic = _topic(engine, "T-401")
    xpath = sorted(corpus.document(docs[0]).selectable)[0]
    bob_grades = {docs[0]: 2, docs[1]: 1, docs[2]: 0, docs[3]: 0}
    carol_grades = {docs[0]: 2, docs[1]: 0, docs[2]: 0, docs[3]: 1}
    for actor, given in ((bob, bob_grades), (carol, carol_grades)):
        for docno, grade in given.items():
            service.save_selection(engine, corpus, topic_id=topic["id"], cited_ucid=docno, owner=actor["name"],
                                   xpaths=[xpath] if docno == docs[0] else [], base_version=0, actor=actor,
                                   grade=grade)
    # Documents both graded: relevant (>= 1) 1,1,0,0 (bob) vs 1,0,0,1 (carol): p_o = 0.5,
    # p_A = p_B = 0.5, p_e = 0.5, kappa 0; they differ on docs[1] and docs[3].
    (pair,) = agreement(engine, corpus)["pairs"]
    (row,) = pair["topics"]
    assert (row["qid"], row["documents"], row["kappa_documents"]) == ("T-401", 4, 0.0)
    assert pair["disagreements"] == [("T-401", d) for d in sorted([docs[1], docs[3]])]
    assert pools.queue(engine, topic, db.ADJUDICATED)["next"] == docs[1]  # the first disputed, in queue order
    # The administrator adjudicates docs[1]; an assessor cannot change that.
    service.save_selection(engine, corpus, topic_id=topic["id"], cited_ucid=docs[1], owner=db.ADJUDICATED,
                           xpaths=[], base_version=0, actor=alice, grade=1)
    with pytest.raises(service.AssessError, match="only an administrator adjudicates"):
        service.save_selection(engine, corpus, topic_id=topic["id"], cited_ucid=docs[1], owner=db.ADJUDICATED,
                               xpaths=[], base_version=1, actor=bob, grade=0)
    assert pools.queue(engine, topic, db.ADJUDICATED)["next"] == docs[3]
    out = tmp_path / "out"
    summary = export_qrels(engine, corpus, out, policy="final")
    assert (out / "qrels_pool.txt").read_text() == (f"T-401 0 {docs[0]} 2\nT-401 0 {docs[1]} 1\n"
                                                    f"T-401 0 {docs[2]} 0\n")
    assert (out / "qrels_pool_PSG.txt").read_text() == f"T-401 {docs[0]} {xpath}\n"
    assert not (out / "sampled_qrels_pool.txt").exists()
    assert summary["pool_unresolved"] == [{"qid": "T-401", "docno": docs[3], "owners": ["bob", "carol"]}]
    assert (summary["topics"], summary["pool_topics"], summary["pool_judgements"]) == (0, 1, 3)
    union = export_qrels(engine, corpus, tmp_path / "union", policy="union")
    assert union["pool_judgements"] == 4
    assert f"T-401 0 {docs[3]} 1\n" in (tmp_path / "union" / "qrels_pool.txt").read_text()
    assert (tmp_path / "carol" / "qrels_pool.txt").exists() is False
    export_qrels(engine, corpus, tmp_path / "carol", policy="carol")
    assert (tmp_path / "carol" / "qrels_pool.txt").read_text().count("\n") == 4
    # pateval evaluate reads the exported qrels.
    run = tmp_path / "run.txt"
    run.write_text("".join(f"T-401 Q0 {d} {i} {10 - i} r\n" for i, d in enumerate(docs[:4], 1)))
    frame = pateval.evaluate(str(out / "qrels_pool.txt"), [str(run)], ["P@2", "num_rel"])
    values = {m: v for t, m, v in zip(frame["topic"], frame["measure"], frame["value"], strict=True) if t == "T-401"}
    assert values == {"P@2": 1.0, "NumRel": 2.0}


def test_a_sampled_pool_exports_sampled_qrels(database, corpus, workspace, robust_pool, tmp_path):
    """Every drawn document graded: the sampled qrels (pateval pool sample's writer) give back
    the sample's strata and inclusion probabilities, and pateval pool estimate reads them."""
    from pateval.assess.export import export_qrels
    from pateval.formats.pools import read_sampled_qrels

    engine = database["engine"]
    bob = _actor(engine, workspace, "bob")
    sample = tmp_path / "sample.txt"
    assert _cli("pool", "sample", str(robust_pool), "--strata", "1-5:1,6-:0.4", "-o", str(sample)).returncode == 0
    pools.import_pool(engine, sample)
    qrels_grades = {}
    for line in QRELS.read_text().splitlines():
        t, _, d, g = line.split()
        qrels_grades[(t, d)] = int(g)
    for qid in ("303", "307", "310", "314", "320"):
        _tool_order(engine, corpus, bob, _topic(engine, qid), qrels_grades)
    out = tmp_path / "out"
    summary = export_qrels(engine, corpus, out)
    assert summary["drawn_unjudged"] == 0
    written = read_sampled_qrels(out / "sampled_qrels_pool.txt")
    drawn = [line.split() for line in sample.read_text().splitlines()[1:]]
    assert written.docno.tolist() == [r[1] for r in drawn]
    assert written.stratum.tolist() == [r[2] for r in drawn]
    np.testing.assert_allclose(written.probability, [float(r[3]) for r in drawn], rtol=0, atol=1e-12)
    assert written.grade.tolist() == [min(qrels_grades.get((r[0], r[1]), 0), 2) if r[4] == "1" else -1
                                      for r in drawn]
    done = _cli("pool", "estimate", str(out / "sampled_qrels_pool.txt"), str(RUNS[0]))
    assert done.returncode == 0, done.stderr
    assert "xinfAP" in done.stdout
    # A drawn document not judged yet is written -1, and said.
    topic = _topic(engine, "303")
    first = pools.queue(engine, topic, "bob")["documents"][0]["docno"]
    service.undo_selection(engine, corpus, topic_id=topic["id"], cited_ucid=first, owner="bob", base_version=1,
                           actor=bob)
    done = _cli("assess", "export", "--db", database["url"], "--out", str(tmp_path / "again"), "--store",
                workspace["store"], "--collection", workspace["collection"])
    assert done.returncode == 0, done.stderr
    assert "pateval: note: 1 drawn documents of sampled pools are not judged yet" in done.stderr
    assert done.stdout.splitlines()[1].startswith("assess export: pools: 5 topics, ")


# ---- the web routes ----------------------------------------------------------------------

def test_pool_routes_keep_the_security_rules(server, database, corpus, workspace, tmp_path):
    """Every new route needs a session; a write needs the CSRF header; an assessor neither
    opens another's judgements nor adjudicates; odd values are 4xx, never a 500."""
    import httpx

    from .conftest import login

    path, docs = _demo_pool(corpus, tmp_path)
    pools.import_pool(database["engine"], path)
    topic_id = _topic(database["engine"], "T-401")["id"]
    url = f"/api/topics/{topic_id}/citations/{docs[0]}/selection"
    with httpx.Client(base_url=server.base) as anonymous:
        assert anonymous.get(f"/pool/{topic_id}", follow_redirects=False).status_code == 303
        assert anonymous.get(f"/api/topics/{topic_id}/queue").status_code == 401
        assert anonymous.put(url, json={"xpaths": [], "version": 0, "grade": 1}).status_code in (401, 403)
    with httpx.Client(base_url=server.base) as client:
        login(client, server.base, "bob", workspace["accounts"]["bob"])
        page = client.get(f"/pool/{topic_id}")
        assert page.status_code == 200 and f'data-cited="{docs[0]}"' in page.text
        import re

        token = re.search(r'data-csrf="([^"]+)"', page.text).group(1)
        assert client.put(url, json={"xpaths": [], "version": 0, "grade": 1}).status_code == 403  # no CSRF header
        assert client.put(url, json={"xpaths": [], "version": 0, "grade": 1},
                          headers={"X-CSRF-Token": "x" * 64}).status_code == 403
        saved = client.put(url, json={"xpaths": [], "version": 0, "grade": 1}, headers={"X-CSRF-Token": token})
        assert saved.status_code == 200 and saved.json()["grade"] == 1
        assert client.get(f"/pool/{topic_id}?owner=alice").status_code == 403
        assert client.get(f"/pool/{topic_id}?owner=%40adjudicated").status_code == 403
        assert client.get(f"/api/topics/{topic_id}/queue?owner=%40adjudicated").status_code == 403
        queue = client.get(f"/api/topics/{topic_id}/queue").json()
        assert (queue["next"], queue["judged"]) == (docs[1], 1)
        answers = []
        for value in [None, 1.5, "x", [], {}, -1, 10 ** 30, True, "²", "x" * 5000]:
            answers.append(client.put(url, json={"xpaths": [], "version": 1, "grade": value},
                                      headers={"X-CSRF-Token": token}))
        for odd in ("%00", "²", "x" * 3000, "<script>", "%ff"):
            for where in (f"/pool/{topic_id}?doc={odd}", f"/pool/{topic_id}?owner={odd}",
                          f"/api/topics/{topic_id}/queue?owner={odd}", f"/pool/{odd}", "/pool/99999999999999999999",
                          f"/api/topics/{odd}/queue"):
                answers.append(client.get(where))
        assert all(400 <= a.status_code < 500 for a in answers), [(a.url, a.status_code) for a in answers
                                                                  if not 400 <= a.status_code < 500]
        # A citation topic has no queue; a pool topic has no source page.
        from .conftest import a_suggested_citation

        patent_key, qid, _citation = a_suggested_citation(corpus)
        topics = client.get(f"/api/sources/{patent_key}").json()["topics"]
        citation_topic = next(t["id"] for t in topics if t["qid"] == qid)
        assert client.get(f"/api/topics/{citation_topic}/queue").status_code == 404
        assert client.get(f"/pool/{citation_topic}").status_code == 404
        claims = client.post(f"/topic/{topic_id}/claims", data={"csrf": token, "version": "0", "claims": "1"})
        assert claims.status_code == 400
