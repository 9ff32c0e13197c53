"""Baselines on a generated collection: far above chance, claims beat titles; filters; CLI."""

from __future__ import annotations

import numpy as np
import pytest

from pateval import api
from pateval.cli import main
from pateval.demo import random_run
from pateval.search.run import SearchConfig, load_passage_topics, search_passages, search_topic, search_topics


def _means(qrels, run, measures=("R@100", "PRES@100")):
    frame = api.evaluate(qrels, run, list(measures), complete=True)
    return frame.groupby("measure")["value"].mean().to_dict()


@pytest.fixture(scope="module")
def bm25_claims(search_index, topics):
    return search_topics(search_index, topics, SearchConfig(model="bm25", query="claims"), progress=False)


def test_baselines_are_far_above_a_random_run(collection, search_index, topics, bm25_claims):
    chance = _means(collection["qrels"], random_run(search_index, topics, seed=3))
    for result in (bm25_claims,
                   search_topics(search_index, topics, SearchConfig(model="lm", query="claims"), progress=False),
                   search_topics(search_index, topics, SearchConfig(model="tfidf", query="claims"), progress=False)):
        found = _means(collection["qrels"], result.as_dict())
        assert found["R@100"] > 3 * chance["R@100"] and found["R@100"] > 0.3, result.tag
        assert found["PRES@100"] > 3 * chance["PRES@100"] and found["PRES@100"] > 0.2, result.tag


def test_claims_queries_beat_title_only_queries(collection, search_index, topics, bm25_claims):
    title = search_topics(search_index, topics, SearchConfig(model="bm25", query="title"), progress=False)
    with_claims = _means(collection["qrels"], bm25_claims.as_dict())
    title_only = _means(collection["qrels"], title.as_dict())
    assert with_claims["R@100"] > title_only["R@100"]
    assert with_claims["PRES@100"] > title_only["PRES@100"]


def test_rankings_respect_date_family_and_ipc_filters(search_index, topics):
    from pateval.search.run import topic_date

    config = SearchConfig(model="bm25", query="claims,ipc=filter", depth=200)
    for topic in topics[:6]:
        document = topic.document
        ranking = search_topic(search_index, document, config)
        assert ranking
        subclasses = set(document.ipc_prefixes("subclass"))
        for docno, _ in ranking:
            row = search_index.row_of(docno)
            assert search_index.dates[row] < topic_date(document)
            assert search_index.patent_keys[row] != document.patent_key
            assert not document.family_id or search_index.family_ids[row] != document.family_id
            assert subclasses & set(search_index.documents["ipc"].iat[row])
        scores = [s for _, s in ranking]
        assert scores == sorted(scores, reverse=True)


def test_rescored_model_keeps_depth_and_patent_unit(search_index, topics):
    config = SearchConfig(model="lm", query="claims", depth=50, candidates=300, unit="patent")
    ranking = search_topic(search_index, topics[0].document, config)
    assert 0 < len(ranking) <= 50
    keys = [search_index.patent_keys[search_index.row_of(d)] for d, _ in ranking]
    assert len(keys) == len(set(keys))


def test_passage_run(collection, search_index):
    passage_topics = load_passage_topics(collection["collection"])[:5]
    results = search_passages(search_index, passage_topics, SearchConfig(), documents=5, passages_per_document=3,
                              progress=False)
    assert set(results) == {t.qid for t in passage_topics}
    known = set(search_index.passages()["xpath"])
    for ranked in results.values():
        assert ranked
        for _docno, xpath, score in ranked:
            assert xpath in known and xpath.startswith("/patent-document/description/p") and score > 0


def test_cli_index_search_grid_and_passages(collection, tmp_path, capsys):
    index = tmp_path / "index"
    assert main(["index", "--store", str(collection["store"]), "--out", str(index), "--no-progress"]) == 0
    run = tmp_path / "bm25.run"
    assert main(["search", "--index", str(index), "--topics", str(collection["collection"]), "--model", "bm25",
                 "--query", "claims", "--out", str(run), "--depth", "100", "--no-progress"]) == 0
    lines = [line for line in run.read_text().splitlines() if not line.startswith("#")]  # the ir_metadata header
    fields = [line.split() for line in lines]
    assert all(len(f) == 6 and f[1] == "Q0" and f[5] == "bm25.claims" for f in fields)
    assert max(int(f[3]) for f in fields) <= 100
    grid = tmp_path / "grid"
    assert main(["search", "--index", str(index), "--topics", str(collection["collection"]), "--model", "bm25",
                 "--model", "lm:mu=1000", "--query", "title", "--query", "claims,top=30", "--out", str(grid),
                 "--depth", "50", "--no-progress"]) == 0
    assert sorted(p.name for p in grid.iterdir()) == ["bm25.claims,top=30.run", "bm25.title.run",
                                                      "lm-mu=1000.claims,top=30.run", "lm-mu=1000.title.run"]
    tags = {line.split()[5] for line in (grid / "lm-mu=1000.title.run").read_text().splitlines()
            if not line.startswith("#")}
    assert tags == {"lm-mu=1000.title"}
    passages = tmp_path / "psg.run"
    assert main(["search", "--index", str(index), "--topics", str(collection["collection"] / "topics_PSG.txt"),
                 "--passages", "--out", str(passages), "--passage-documents", "3", "--no-progress"]) == 0
    rows = [line.split() for line in passages.read_text().splitlines()]
    assert rows and all(len(r) == 6 and r[1] == "Q0" and r[3].startswith("/patent-document/") for r in rows)
    assert main(["search", "--index", str(index), "--topics", str(collection["collection"]), "--model", "bm26",
                 "--out", str(tmp_path / "x.run")]) == 2
    assert "model must be one of" in capsys.readouterr().err
    assert not (tmp_path / "x.run").exists()


def test_random_run_is_seeded(search_index, topics):
    first = random_run(search_index, topics[:3], depth=20, seed=5)
    assert first == random_run(search_index, topics[:3], depth=20, seed=5)
    assert first != random_run(search_index, topics[:3], depth=20, seed=6)
    assert all(len(docs) == 20 for docs in first.values())
    assert np.all(np.diff(list(next(iter(first.values())).values())) < 0)


def test_index_until_keeps_the_corpus_part_only(tmp_path):
    from pateval.search.index import IndexRecord, SearchIndex, build_index

    records = [IndexRecord(f"EP-{1000000 + i:07d}-A1", f"EP{1000000 + i:07d}", None, "EN", date, [],
                           {("claims", "EN"): "valve housing"})
               for i, date in enumerate((19991231, 20000101, 20001231, 20010101, 0))]
    build_index(records, tmp_path / "index", until="2000-12-31", progress=False, threads=1)
    index = SearchIndex(tmp_path / "index")
    assert sorted(index.dates.tolist()) == [0, 19991231, 20000101, 20001231]
    with pytest.raises(Exception, match="until must be a date"):
        build_index(records, tmp_path / "other", until="last year", progress=False)
    assert not (tmp_path / "other").exists()


def test_search_takes_an_opened_store(collection, search_index, tmp_path):
    """build_index reads an opened CorpusStore (the caller opens it); a store's directory is refused
    with a line saying so, since search sits below collection."""
    from pateval.collection.store import CorpusStore
    from pateval.errors import ParameterError
    from pateval.search.index import SearchIndex, build_index

    with CorpusStore(collection["store"]) as store:
        summary = build_index(store, tmp_path / "index", progress=False, threads=1)
    assert summary.documents == search_index.num_docs
    assert SearchIndex(tmp_path / "index").documents.equals(search_index.documents)
    with pytest.raises(ParameterError, match=r"is a corpus store: open it \(pateval.api.open_store\)"):
        build_index(collection["store"], tmp_path / "other", progress=False)
    assert not (tmp_path / "other").exists()


@pytest.mark.parametrize("model", ["bm25", "lm"])
def test_ipc_boost_lifts_documents_of_the_topic_subclasses(search_index, topics, model):
    def shared_in_top(query, topic):
        subclasses = set(topic.ipc_prefixes("subclass"))
        ranking = search_topic(search_index, topic, SearchConfig(model=model, query=query, depth=20))
        return sum(bool(subclasses & set(search_index.documents["ipc"].iat[search_index.row_of(d)]))
                   for d, _ in ranking)

    plain = sum(shared_in_top("claims", t.document) for t in topics[:8])
    boosted = sum(shared_in_top("claims,ipc=boost,ipcw=0.5", t.document) for t in topics[:8])
    assert boosted > plain
