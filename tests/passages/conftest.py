"""A small generated CLEF-IP-style passage task, built once per session through the real
pipeline: synthetic XML -> corpus store -> collection (PSG topics, passage qrels) ->
search index -> a BM25 passage run."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def passage_task(tmp_path_factory) -> dict[str, Path]:
    from pateval import api
    from pateval.formats.passages import PassageRun, write_passage_run
    from pateval.search.index import SearchIndex
    from pateval.search.run import SearchConfig, load_passage_topics, search_passages

    root = tmp_path_factory.mktemp("passage-task")
    api.generate_corpus(root / "xml", n_patents=150, seed=5, workers=1)
    api.ingest_corpus(root / "xml", root / "store", workers=1)
    api.build_collection(root / "store", root / "collection")
    api.build_search_index(root / "store", root / "index", threads=2)
    topics = load_passage_topics(root / "collection" / "topics_PSG.txt")
    results = search_passages(SearchIndex(root / "index"), topics, SearchConfig(), documents=20,
                              passages_per_document=5, progress=False)
    # passage ranks run down the whole topic (as in CLEF-IP's example run)
    records = [(qid, docno, xpath, rank, float(score)) for qid, ranked in results.items()
               for rank, (docno, xpath, score) in enumerate(ranked, start=1)]
    run = root / "PTE-bm25-PSG.txt"
    write_passage_run(PassageRun.from_records(records, fields=("topic", "docno", "xpath", "rank", "score"),
                                              name="PTE-bm25"), run)
    collection = root / "collection"
    return {"root": root, "store": root / "store", "collection": collection, "run": run,
            "topics": collection / "topics_PSG.txt", "qrels": collection / "qrels_PSG.txt"}
