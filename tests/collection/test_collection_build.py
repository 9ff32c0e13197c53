"""Building a test collection from a generated corpus: invariants, funnel counts, seeds,
qrels at every level, topic files, statistics and the command line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
from lxml import etree

from pateval.cli import main
from pateval.collection.build import build_collection
from pateval.collection.ingest import ingest
from pateval.collection.sampling import TOPIC_SET_SIZES, resolve_size, stratified_sample, topic_set
from pateval.collection.split import DateSplit
from pateval.collection.stats import collection_stats, format_stats
from pateval.collection.synthetic import generate_corpus
from pateval.collection.tables import connect, open_store, register_records
from pateval.collection.topics import SelectionCriteria
from pateval.errors import ParameterError
from pateval.formats.qrels import read_qrels
from pateval.patents.reader import read_patent
from pateval.patents.records import ipc_prefix

N_PATENTS = 450


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("collection") / "corpus"
    generate_corpus(root, n_patents=N_PATENTS, seed=11, workers=1, progress=False)
    return root


@pytest.fixture(scope="module")
def store(corpus) -> Path:
    path = corpus.parent / "store"
    ingest(corpus, path, workers=2)
    return path


@pytest.fixture(scope="module")
def docs(store) -> pd.DataFrame:
    con = open_store(store, threads=2)
    frame = con.execute("SELECT ucid, patent_key, family_id, kind, country, date FROM documents").df()
    con.close()
    return frame.set_index("ucid")


def _build(store, out, **options):
    con = open_store(store, threads=2)
    try:
        return build_collection(con, out, progress=False, **options)
    finally:
        con.close()


@pytest.fixture(scope="module")
def roda(store, tmp_path_factory):
    out = tmp_path_factory.mktemp("built") / "roda"
    return out, _build(store, out)


def _lines(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_no_topic_in_the_corpus_and_every_judged_document_in_it(roda, docs):
    out, summary = roda
    assert summary.checks == {"topic_publications_in_corpus": 0, "judged_documents_not_in_corpus": 0}
    topics = pd.read_csv(out / "topics.tsv", sep="\t", dtype=str)
    assert len(topics) > 0
    corpus_end = "2000-12-31"
    for key in topics["patent_key"]:
        assert (docs[docs["patent_key"] == key]["date"] > corpus_end).all()
    judged = {row[2] for row in _lines(out / "qrels_PAC.txt")} | {row[1] for row in _lines(out / "qrels_PSG.txt")}
    judged |= {row[2] for row in _lines(out / "qrels_PAC_claims.txt")}
    assert judged
    for ucid in judged:
        assert ucid in docs.index and docs.at[ucid, "date"] <= corpus_end


def test_each_criterion_reports_a_consistent_count(roda, docs):
    _, summary = roda
    selection = summary.selection
    steps = selection["steps"]
    assert [s["criterion"] for s in steps] == ["not_in_corpus", "granted", "description", "min_citations",
                                                "min_xy_in_corpus", "has_topic_file", "has_judgements"]
    assert steps[0]["before"] == selection["candidates"]
    for previous, step in zip(steps, steps[1:], strict=False):
        assert step["before"] == previous["after"]
    for step in steps:
        assert step["before"] - step["removed"] == step["after"] >= 0
    assert steps[-1]["after"] == selection["selected"] == summary.counts["pac_topics"]
    # Recount the first two steps independently from the documents table.
    pool = docs[docs["date"] >= "2001-01-01"]["patent_key"].unique()
    assert selection["candidates"] == len(pool)
    in_corpus = set(docs[docs["date"] <= "2000-12-31"]["patent_key"])
    outside = [k for k in pool if k not in in_corpus]
    assert steps[0]["removed"] == len(pool) - len(outside)
    granted = {k for k in outside if (docs[(docs["patent_key"] == k)]["kind"].str.startswith("B")).any()}
    assert steps[1]["after"] == len(granted)
    assert steps[1]["removed"] > 0 and steps[3]["removed"] > 0


def test_roda_topics_meet_their_criteria(roda):
    out, _ = roda
    topics = pd.read_csv(out / "topics.tsv", sep="\t")
    assert (topics["n_citations"] >= 3).all()
    assert (topics["highly"] >= 1).all()
    assert topics["topic_ucid"].str.endswith("B1").all()


def test_qrels_grades_follow_the_citation_categories(roda):
    out, _ = roda
    judgements = pd.read_csv(out / "judgements.tsv", sep="\t", dtype=str, keep_default_na=False)
    for rel, categories in zip(judgements["rel"], judgements["categories"], strict=False):
        assert (rel == "2") == ("X" in categories or "Y" in categories)
    qrels = read_qrels(out / "qrels_PAC.txt")
    assert qrels.format == "clefip-pac" and len(qrels.docno) == len(judgements)
    assert set(judgements["sources"]) <= {"search", "applicant", "applicant,search"}


def test_claim_qrels_and_theta_weights(roda):
    out, _ = roda
    subtopics = read_qrels(out / "qrels_PAC_claims.txt", format="subtopic")
    theta = pd.read_csv(out / "theta_PAC.txt", sep=" ", names=["qid", "subtopic", "weight"], dtype={"subtopic": str})
    weights = theta.groupby("qid")["weight"].sum()
    assert ((weights - 1).abs() < 1e-9).all()
    for _qid, group in theta.groupby("qid"):
        values = sorted(set(round(w, 9) for w in group["weight"]))
        if len(values) == 2:
            assert math.isclose(values[1], 2 * values[0], rel_tol=1e-6)
    known = set(zip(theta["qid"], theta["subtopic"], strict=False))
    assert len(subtopics.docno) > 0
    for qid, subtopic in zip(subtopics.topic, subtopics.subtopic, strict=False):
        assert (qid, subtopic) in known


def test_passage_qrels_point_at_real_paragraphs_and_grades_run_1_to_4(roda, store):
    out, _ = roda
    rows = _lines(out / "qrels_PSG.txt")
    assert rows and all(len(r) == 3 and r[0].startswith("PSG-") for r in rows)
    con = open_store(store, threads=2)
    paragraphs = set(con.execute("SELECT ucid, xpath FROM passages WHERE NOT is_heading").fetchall())
    con.close()
    for _qid, docno, xpath in rows:
        assert (docno, xpath) in paragraphs
    graded = read_qrels(out / "qrels_PSG_graded.txt")
    assert set(graded.rel) <= {1, 2, 3, 4} and max(graded.rel) == 4
    counts: dict[tuple[str, str], int] = {}
    for qid, docno, _ in rows:
        counts[(qid, docno)] = counts.get((qid, docno), 0) + 1
    top = max(counts.values())
    for qid, docno, grade in zip(graded.topic, graded.docno, graded.rel, strict=False):
        assert grade == math.ceil(counts[(qid, docno)] / top * 4)


def test_topic_files_follow_the_clefip_formats(roda, test_data):
    out, summary = roda
    dtd = etree.DTD(str(test_data / "clefip" / "patent-document-v1.4.dtd"))
    topics_xml = etree.parse(str(out / "topics_PAC.xml")).getroot()
    entries = topics_xml.findall("topic")
    assert len(entries) == summary.counts["pac_topics"]
    for entry in entries:
        path = out / "topics" / "PAC" / entry.findtext("file")
        tree = etree.parse(str(path))
        assert dtd.validate(tree), dtd.error_log
        root = tree.getroot()
        assert entry.findtext("file") == f"{entry.findtext('num')}_{root.get('ucid')}.xml"
        assert root.get("kind") == "B1"
        assert root.find(".//citations") is None  # citations removed
        assert root.find("abstract") is not None  # abstract of the A publication
        assert sorted(c.get("lang") for c in root.findall("claims")) == ["DE", "EN", "FR"]
        assert root.find("description/p") is not None
    text = (out / "topics_PSG.txt").read_text(encoding="utf-8")
    blocks = [b for b in text.split("\n\n") if b.strip()]
    assert len(blocks) == summary.counts["psg_topics"]
    for block in blocks:
        tfile = block.split("<tfile>")[1].split("</tfile>")[0]
        claims = block.split("<tclaims>")[1].split("</tclaims>")[0].split()
        root = etree.parse(str(out / "topics" / "PSG" / tfile)).getroot()
        assert root.get("kind") in ("A1", "A2") and claims
        for xpath in claims:
            assert root.xpath(xpath), xpath
        assert "<tfam-docs>" in block


def test_clefip2013_with_stratified_sampling(store, tmp_path):
    summary = _build(store, tmp_path / "c13", criteria=SelectionCriteria.clefip2013(max_words=2000),
                     stratify=True, per_group=3, seed=5)
    steps = {s["criterion"]: s for s in summary.selection["steps"]}
    assert {"epo_only", "earlier_family_member", "all_parts", "max_words", "min_search_citations_in_corpus",
            "max_search_citations_in_corpus"} <= set(steps)
    assert steps["epo_only"]["removed"] > 0  # WO publications in the pool are no EPO patents
    assert steps["max_words"]["removed"] > 0
    topics = pd.read_csv(tmp_path / "c13" / "topics.tsv", sep="\t")
    assert topics["n_search_in_corpus"].between(2, 10).all()
    for _count, group in topics.groupby("n_search_in_corpus"):
        classes = [ipc_prefix(s, level="class") for s in group["ipc"]]
        assert len(classes) == len(set(classes)) <= 3
    strata = summary.stratified["strata"]
    assert sum(s["drawn"] for s in strata) == len(topics)
    assert summary.checks["topic_publications_in_corpus"] == 0


def test_topic_sets_are_nested_for_a_seed(store, tmp_path):
    small = _build(store, tmp_path / "small", size=3, seed=2, passages=False)
    large = _build(store, tmp_path / "large", size=6, seed=2, passages=False)
    _build(store, tmp_path / "other", size=6, seed=3, passages=False)
    read = lambda name: pd.read_csv(tmp_path / name / "topics.tsv", sep="\t")  # noqa: E731
    assert small.topic_set["drawn"] == 3 and large.topic_set["drawn"] == 6
    assert list(read("large")["patent_key"][:3]) == list(read("small")["patent_key"])
    assert list(read("other")["patent_key"]) != list(read("large")["patent_key"])
    again = _build(store, tmp_path / "again", size=6, seed=2, passages=False)
    assert again.counts == large.counts
    assert (tmp_path / "again" / "qrels_PAC.txt").read_text() == (tmp_path / "large" / "qrels_PAC.txt").read_text()
    assert not (tmp_path / "small" / "qrels_PSG.txt").exists()


def test_family_extension_and_source_filter(roda, store, tmp_path, docs):
    out, _ = roda
    plain = pd.read_csv(out / "judgements.tsv", sep="\t", dtype=str)
    _build(store, tmp_path / "family", family="both", passages=False)
    extended = pd.read_csv(tmp_path / "family" / "judgements.tsv", sep="\t", dtype=str)
    assert set(zip(plain["qid"], plain["docno"], strict=False)) <= set(zip(extended["qid"], extended["docno"],
                                                                          strict=False))
    assert len(extended) > len(plain)
    assert any("family" in v for v in extended["via"])
    _build(store, tmp_path / "search", criteria=SelectionCriteria.roda2009(sources=("search",)), passages=False)
    search_only = pd.read_csv(tmp_path / "search" / "judgements.tsv", sep="\t", dtype=str)
    assert set(search_only["sources"]) == {"search"}


def test_stats_match_the_qrels(roda):
    out, summary = roda
    stats = collection_stats(out)
    lines = _lines(out / "qrels_PAC.txt")
    assert stats["topics"] == summary.counts["pac_topics"]
    assert stats["judgment_points"] == len(lines)
    assert math.isclose(stats["mean_relevant_per_topic"] * stats["topics"], len(lines), rel_tol=1e-3)
    assert sum(stats["relevant_per_topic"]["histogram"].values()) == stats["topics"]
    assert sum(stats["languages"].values()) == stats["topics"]
    assert stats["selection"] == summary.selection
    assert stats["citation_sources"]["search"] > 0
    text = format_stats(stats)
    assert "judgment points" in text and "at least 3 citations" in text
    assert json.loads(format_stats(stats, format="json"))["judgment_points"] == len(lines)


def test_sampling_helpers():
    assert resolve_size("xl") == TOPIC_SET_SIZES["XL"] == 10000 and resolve_size(7) == 7 and resolve_size(None) is None
    with pytest.raises(ParameterError):
        resolve_size("XXL")
    keys = [f"EP{i:07d}" for i in range(50)]
    assert topic_set(keys, 10, seed=1) == topic_set(list(reversed(keys)), 20, seed=1)[:10]
    frame = pd.DataFrame({"patent_key": keys, "ipc": [f"A{i % 4:02d}B 1/00" for i in range(50)],
                          "n_search_in_corpus": [i % 3 for i in range(50)]})
    sample, report = stratified_sample(frame, per_group=10, seed=0)
    assert [s.drawn for s in report.strata] == [4, 4, 4]  # only 4 distinct classes per group


def test_bad_parameters(store, tmp_path, roda):
    out, _ = roda
    with pytest.raises(ParameterError):
        DateSplit.of(corpus_end="2001-01-01", pool_start="2000-01-01")
    with pytest.raises(ParameterError):
        SelectionCriteria(min_citations=-1)
    with pytest.raises(ParameterError):
        SelectionCriteria.preset("cleaf")
    with pytest.raises(ParameterError):
        SelectionCriteria(sources=("examiners",))
    with pytest.raises(ParameterError, match="exists"):
        _build(store, out)


def test_command_line_end_to_end(tmp_path, capsys):
    assert main(["corpus", "generate", "--out", str(tmp_path / "c"), "--patents", "120", "--seed", "4",
                 "--workers", "1", "--no-progress"]) == 0
    assert "documents" in capsys.readouterr().out
    assert main(["corpus", "ingest", str(tmp_path / "c"), "--out", str(tmp_path / "s"), "--workers", "1",
                 "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["collection", "build", "--store", str(tmp_path / "s"), "--out", str(tmp_path / "col"),
                 "--criteria", "roda2009", "--min-citations", "1", "--no-granted", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "at least 1 citations" in out and "granted" not in out
    assert main(["collection", "stats", "--collection", str(tmp_path / "col"), "--format", "json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["checks"] == {"topic_publications_in_corpus": 0, "judged_documents_not_in_corpus": 0}
    assert stats["parameters"]["criteria"]["granted"] is False
    assert main(["collection", "build", "--store", str(tmp_path / "s"), "--out", str(tmp_path / "col")]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["collection", "stats", "--collection", str(tmp_path / "c")]) == 2
    # The same build from records held in memory (no store) gives the same files.
    con = connect(threads=2)
    register_records(con, (read_patent(p) for p in sorted((tmp_path / "c").rglob("*.xml"))))
    build_collection(con, tmp_path / "from_records", progress=False,
                     criteria=SelectionCriteria.roda2009(min_citations=1, granted=False), seed=1)
    for name in ("qrels_PAC.txt", "qrels_PAC_claims.txt", "theta_PAC.txt", "qrels_PSG.txt", "topics_PSG.txt",
                 "judgements.tsv", "topics.tsv"):
        assert (tmp_path / "from_records" / name).read_text() == (tmp_path / "col" / name).read_text(), name


def test_ranking_stability_grows_with_the_topic_set():
    import numpy as np

    from pateval.collection.sampling import ranking_stability

    rng = np.random.default_rng(0)
    rows = []
    for system in range(6):
        for topic in range(200):
            rows.append((f"sys{system}", f"PAC-{topic}", 0.02 * system + rng.normal(0, 0.2)))
    scores = pd.DataFrame(rows, columns=["system", "qid", "score"])
    table = ranking_stability(scores, sizes=(5, 50, 200, "S"), trials=30, seed=1)
    assert list(table["size"]) == ["5", "50", "200"]  # S (500) is more than there are
    assert table.loc[2, "min_tau"] == pytest.approx(1.0)  # all topics: the full ranking
    assert table.loc[0, "mean_tau"] < table.loc[1, "mean_tau"] < 1.0
    with pytest.raises(ParameterError):
        ranking_stability(scores[scores["system"] == "sys1"])
    with pytest.raises(ParameterError):
        ranking_stability(scores.iloc[1:])
