"""A generated CLEF-IP-style passage task end to end: synthetic corpus -> store -> PSG topics
and passage qrels -> BM25 passage run -> check (with the store) -> evaluate, by language."""

from __future__ import annotations

import numpy as np
import pytest

import pateval.api as api
from pateval.check import check_passage_run, fix_passage_run
from pateval.cli import main
from pateval.collection.store import CorpusStore
from pateval.formats.passages import (
    claim_qrels_for_passage_topics,
    read_passage_qrels,
    read_passage_run,
    read_passage_topics,
    topic_languages,
)
from pateval.formats.qrels import read_qrels

MEASURES = ["PRES@100", "R", "AP", "P_psg", "MAP_psg"]


def test_generated_run_passes_the_check(passage_task):
    report = check_passage_run(passage_task["run"], topics=passage_task["topics"], store=passage_task["store"])
    assert report.ok, report.format()
    assert report.run_id == "PTE-bm25" and report.lines > 100


def test_store_backed_defects_found_and_fixed(passage_task, tmp_path):
    lines = passage_task["run"].read_text().splitlines()
    topic, _q0, docno, *_ = lines[0].split()
    with CorpusStore(passage_task["store"]) as store:
        heading = store.sql("SELECT xpath FROM passages WHERE ucid = ? AND is_heading LIMIT 1",
                            [docno])["xpath"].tolist()
        n_claims = int(store.sql("SELECT count(*) AS n FROM claims WHERE ucid = ?", [docno])["n"][0])
    extra = [
        f"{topic} Q0 {docno} /patent-document/description/p[999] 90 0.5",          # no such paragraph
        f"{topic} Q0 {docno} /patent-document/claims/claim[{n_claims + 5}] 91 0.4",  # no such claim
        f"{topic} Q0 {docno} /patent-document/claims/claim[1] 92 0.3",              # exists
        f"{topic} Q0 EP-9999999-A1 /patent-document/description/p[1] 93 0.2",        # not in the corpus
    ] + [f"{topic} Q0 {docno} {x} 94 0.1" for x in heading]                          # a heading of the store
    run = tmp_path / "PTE-defects-PSG.txt"
    run.write_text("\n".join(lines[:1] + extra + lines[1:]) + "\n")
    report = check_passage_run(run, topics=passage_task["topics"], store=passage_task["store"])
    found = [(f.line, f.kind) for f in report.findings]
    expected = [(2, "unknown-xpath"), (3, "unknown-xpath"), (5, "unknown-document")]
    if heading:
        expected.append((6, "heading"))
    assert found == expected
    out, log = fix_passage_run(report, tmp_path / "fixed.txt")
    assert len(out.read_text().splitlines()) == len(lines) + 2  # the existing claim and the unknown document stay
    assert "line 2\tremoved\tunknown-xpath" in log.read_text()


def test_passage_run_evaluates_end_to_end(passage_task, tmp_path, capsys):
    frame = api.evaluate(passage_task["qrels"], passage_task["run"], MEASURES)
    topics = read_passage_topics(passage_task["topics"])
    qrels = read_passage_qrels(passage_task["qrels"])
    assert set(frame["topic"]) == set(qrels.topic) & {t.tid for t in topics}
    assert np.all((frame["value"] >= 0) & (frame["value"] <= 1))
    means = api.aggregate(frame).set_index("measure")["value"]
    assert means["R"] > 0 and means["P_psg"] > 0  # BM25 finds relevant documents and passages
    # the document measures read each document's first occurrence: R equals recall of the document run
    run = read_passage_run(passage_task["run"])
    direct = api.evaluate(qrels.document_level(), {"PTE-bm25": run.document_run()}, ["R", "AP"])
    assert np.allclose(direct.sort_values(["measure", "topic"])["value"].to_numpy(),
                       frame[frame["measure"].isin(["R", "AP"])].sort_values(["measure", "topic"])["value"].to_numpy())

    # the command line: one call, all measures, broken down by the topics' languages (Figure 5)
    plot = tmp_path / "recall_by_language.png"
    args = ["evaluate", str(passage_task["qrels"]), str(passage_task["run"]), "--group-by", str(passage_task["topics"]),
            "--group-plot", str(plot)]
    for measure in ["R"] + MEASURES:
        args += ["-m", measure]
    assert main(args) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    languages = topic_languages(passage_task["topics"])
    evaluated = set(frame["topic"])
    expected_groups = {f"all:{languages[t]}" for t in evaluated}
    assert {t for m, t, _ in rows if m.strip() == "MAP_psg"} == {"all"} | expected_groups
    for group in expected_groups:
        members = [t for t in evaluated if f"all:{languages[t]}" == group]
        value = frame[(frame["measure"] == "P_psg") & frame["topic"].isin(members)]["value"].mean()
        printed = next(float(v) for m, t, v in rows if m.strip() == "P_psg" and t == group)
        assert printed == pytest.approx(value, abs=5e-5)
    assert plot.is_file() and plot.stat().st_size > 1000


def test_claim_level_measures_on_passage_topics(passage_task):
    collection = passage_task["collection"]
    topics = read_passage_topics(passage_task["topics"])
    claims = claim_qrels_for_passage_topics(topics, read_qrels(collection / "qrels_PAC_claims.txt", format="subtopic"),
                                            collection / "topics.tsv")
    assert len(claims) > 0
    by_topic = {t.tid: {str(n) for n in t.claim_numbers} for t in topics}
    for tid, subtopic in zip(claims.topic, claims.subtopic, strict=False):
        assert subtopic in by_topic[tid]  # only the topic's own claims are subtopics
    frame = api.evaluate(claims, passage_task["run"], ["CT@10", "alpha_nDCG@10", "I_rec@10"])
    assert len(frame) and np.all(np.isfinite(frame["value"]))
    assert frame[frame["measure"] == "I_rec@10"]["value"].max() > 0
