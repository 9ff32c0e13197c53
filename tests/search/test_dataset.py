"""A built collection as an ir_datasets dataset: ir_datasets' own record classes when it is
installed (pateval's namesakes otherwise), ``qrels_cls()``, ``docs_store()`` and ``docs_count()``."""

from __future__ import annotations

import sys

import pytest

from pateval.collection import dataset as pateval_dataset
from pateval.collection import open_dataset


def test_records_are_ir_datasets_own_classes(collection):
    formats = pytest.importorskip("ir_datasets.formats")
    ds = open_dataset(collection["collection"], store=collection["store"])
    qrels = list(ds.qrels_iter())
    assert ds.qrels_cls() is formats.TrecQrel and all(type(q) is formats.TrecQrel for q in qrels)
    claims = list(ds.qrels_iter(level="claims"))
    assert ds.qrels_cls(level="claims") is formats.TrecSubQrel and type(claims[0]) is formats.TrecSubQrel
    assert ds.docs_cls() is pateval_dataset.PatentDoc and ds.queries_cls() is pateval_dataset.PatentQuery
    assert type(next(ds.queries_iter())) is ds.queries_cls()


def test_without_ir_datasets_the_records_are_pateval_namesakes(collection, monkeypatch):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)
    monkeypatch.setitem(sys.modules, "ir_datasets.formats", None)
    ds = open_dataset(collection["collection"])
    assert ds.qrels_cls() is pateval_dataset.TrecQrel and type(next(ds.qrels_iter())) is pateval_dataset.TrecQrel
    assert type(next(ds.qrels_iter(level="claims"))) is pateval_dataset.TrecSubQrel


def test_docs_store_looks_documents_up_by_id(collection):
    ds = open_dataset(collection["collection"], store=collection["store"])
    docs = {d.doc_id: d for d in ds.docs_iter()}
    assert ds.docs_count() == len(docs) > 3
    store = ds.docs_store()
    some = sorted(docs)[1:4]
    assert store.get(some[0]) == docs[some[0]]
    assert store.get(some[1], "title") == docs[some[1]].title
    assert store.get_many([*some, "EP-0000000-A1"]) == {d: docs[d] for d in some}
    assert store.get_many(some, field="claims") == {d: docs[d].claims for d in some}
    assert store.get_many([]) == {}
    with pytest.raises(KeyError, match="EP-0000000-A1"):
        store.get("EP-0000000-A1")


def test_docs_store_needs_the_corpus_store(collection):
    from pateval.errors import ParameterError

    with pytest.raises(ParameterError, match="documents need the corpus store the collection was built from"):
        open_dataset(collection["collection"]).docs_store().get("x")
