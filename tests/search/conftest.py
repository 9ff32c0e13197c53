"""A small generated collection, built once per test session through the real pipeline:
synthetic CLEF-IP XML -> corpus store -> collection (topics, qrels) -> tantivy index."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def collection(tmp_path_factory) -> dict[str, Path]:
    from pateval import api

    root = tmp_path_factory.mktemp("search-collection")
    api.generate_corpus(root / "xml", n_patents=600, seed=11, workers=1)
    api.ingest_corpus(root / "xml", root / "store", workers=1)
    api.build_collection(root / "store", root / "collection")
    api.build_search_index(root / "store", root / "index", threads=2)
    return {"root": root, "store": root / "store", "collection": root / "collection", "index": root / "index",
            "qrels": root / "collection" / "qrels_PAC.txt"}


@pytest.fixture(scope="session")
def search_index(collection):
    from pateval.search.index import SearchIndex

    return SearchIndex(collection["index"])


@pytest.fixture(scope="session")
def topics(collection):
    from pateval.search.run import load_topics

    return load_topics(collection["collection"])
