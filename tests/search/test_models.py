"""The engine's BM25 and the re-scored models against plain implementations written here."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest

from pateval.errors import ParameterError
from pateval.search.analyzers import analyze
from pateval.search.index import IndexRecord, SearchIndex, build_index
from pateval.search.models import BM25, TFIDF, LMDirichlet, parse_model, rescore
from pateval.search.queries import Query
from pateval.search.run import SearchConfig, engine_query

WORDS = ["valve", "housing", "shaft", "sensor", "chamber", "pressure", "rotor", "piston", "spring", "seal", "flange",
         "nozzle", "bearing", "gear", "lever", "clamp", "bracket", "socket", "filter", "pump"]


def _corpus(n_docs: int, low: int, high: int, seed: int) -> list[IndexRecord]:
    rng = random.Random(seed)
    records = []
    for i in range(n_docs):
        # Zipf-like word choice so that document frequencies differ
        words = [WORDS[min(int(rng.paretovariate(1.0)) - 1, len(WORDS) - 1)] for _ in range(rng.randint(low, high))]
        texts = {("claims", "EN"): " ".join(words)}
        if i % 3 == 0:
            texts[("title", "EN")] = " ".join(rng.sample(WORDS, 3))
        records.append(IndexRecord(f"EP-{1000000 + i:07d}-A1", f"EP{1000000 + i:07d}", None, "EN", 19900101, [], texts))
    return records


def _plain_bm25(records, query: dict[str, int], field: str, k1=1.2, b=0.75) -> dict[str, float]:
    """BM25 written out from its definition, one field, exact lengths."""
    bags = [Counter(analyze(r.texts.get((field, "EN"), ""), "EN")) for r in records]
    lengths = [sum(bag.values()) for bag in bags]
    n = len(records)
    average = sum(lengths) / n
    scores = {}
    for record, bag, length in zip(records, bags, lengths, strict=False):
        total = 0.0
        for term, qtf in query.items():
            df = sum(1 for other in bags if term in other)
            if bag.get(term):
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                tf = bag[term]
                total += qtf * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / average))
        if total > 0:
            scores[record.ucid] = total
    return scores


def _engine_scores(index: SearchIndex, query: Query, field: str) -> dict[str, float]:
    weights = ",".join(f"w.{f}={1 if f == field else 0}" for f in ("title", "abstract", "claims", "description"))
    config = SearchConfig(model="bm25", query=f"claims,{weights}", date_filter=False)
    hits = index.searcher.search(engine_query(index, query, config, 0), 1000).hits
    rows = index.rows_of_hits(hits)
    return {str(index.ucids[r]): score for r, (score, _) in zip(rows, hits, strict=False)}


@pytest.fixture(scope="module")
def short_index(tmp_path_factory):
    records = _corpus(60, 5, 30, seed=1)
    path = tmp_path_factory.mktemp("short") / "index"
    build_index(records, path, progress=False, threads=1)
    return records, SearchIndex(path)


@pytest.fixture(scope="module")
def long_index(tmp_path_factory):
    records = _corpus(80, 60, 400, seed=2)
    path = tmp_path_factory.mktemp("long") / "index"
    build_index(records, path, progress=False, threads=1)
    return records, SearchIndex(path)


QUERY = {"valv": 2, "hous": 1, "sensor": 1, "gear": 3}


def test_engine_bm25_equals_plain_bm25_when_lengths_are_exact(short_index):
    # tantivy stores field lengths up to 40 tokens exactly: the scores must then agree to float32 precision
    records, index = short_index
    plain = _plain_bm25(records, QUERY, "claims")
    engine = _engine_scores(index, Query({"EN": {t: float(c) for t, c in QUERY.items()}}), "claims")
    assert set(engine) == set(plain)
    for ucid, score in plain.items():
        assert engine[ucid] == pytest.approx(score, rel=1e-5)


def test_engine_bm25_agrees_with_plain_bm25_on_long_documents(long_index):
    # longer fields have their lengths rounded to one byte by the engine: same top documents, scores close
    records, index = long_index
    plain = _plain_bm25(records, QUERY, "claims")
    engine = _engine_scores(index, Query({"EN": {t: float(c) for t, c in QUERY.items()}}), "claims")
    assert set(engine) == set(plain)
    top_plain = sorted(plain, key=plain.get, reverse=True)[:10]
    top_engine = sorted(engine, key=engine.get, reverse=True)[:10]
    assert len(set(top_plain) & set(top_engine)) >= 9
    errors = [abs(engine[u] - plain[u]) / plain[u] for u in plain]
    assert max(errors) < 0.05


def test_rescored_bm25_equals_plain_bm25_exactly(long_index):
    records, index = long_index
    for k1, b in ((1.2, 0.75), (0.9, 0.4), (2.0, 1.0)):
        plain = _plain_bm25(records, QUERY, "claims", k1=k1, b=b)
        rows = np.arange(index.num_docs)
        scores = rescore(index, BM25(k1, b), {"EN": {t: float(c) for t, c in QUERY.items()}}, rows,
                         {"claims": 1.0})
        for row, score in zip(rows, scores, strict=False):
            assert score == pytest.approx(plain.get(index.ucids[row], 0.0), rel=1e-9, abs=1e-12)


def _bags(records):
    return [Counter(analyze(r.texts.get(("title", "EN"), ""), "EN")) + Counter(analyze(r.texts.get(("claims", "EN"),
                                                                                                   ""), "EN"))
            for r in records]


def test_lm_dirichlet_ranks_as_the_full_query_likelihood(long_index):
    records, index = long_index
    bags = _bags(records)
    collection = sum(bags, Counter())
    total = sum(collection.values())
    mu = 500.0
    query = {"valv": 2.0, "sensor": 1.0, "gear": 1.0}

    def likelihood(bag):  # log P(q|d) with Dirichlet smoothing, from the definition
        length = sum(bag.values())
        return sum(qtf * math.log((bag[t] + mu * collection[t] / total) / (length + mu)) for t, qtf in query.items())

    rows = np.arange(index.num_docs)
    scores = rescore(index, LMDirichlet(mu), {"EN": query}, rows, {"title": 1.0, "claims": 1.0})
    full = np.array([likelihood(bags[r]) for r in rows])
    constant = sum(qtf * math.log(collection[t] / total) for t, qtf in query.items())
    np.testing.assert_allclose(scores + constant, full, rtol=1e-9)


def test_tfidf_equals_lemur_definition(long_index):
    records, index = long_index
    bags = _bags(records)
    lengths = [sum(b.values()) for b in bags]
    average = sum(lengths) / len(lengths)
    n = len(records)
    query = {"valv": 2.0, "pump": 1.0}
    expected = []
    for bag, length in zip(bags, lengths, strict=False):
        total = 0.0
        for term, qtf in query.items():
            df = sum(1 for other in bags if term in other)
            idf = math.log((n + 1) / (df + 0.5))
            doc_weight = bag[term] / (bag[term] + 1.0 * (1 - 0.3 + 0.3 * length / average))
            total += doc_weight * (1000 * qtf / (qtf + 1000)) * idf * idf
        expected.append(total)
    scores = rescore(index, TFIDF(), {"EN": query}, np.arange(n), {"title": 1.0, "claims": 1.0})
    np.testing.assert_allclose(scores, expected, rtol=1e-9)


def test_statistics_document_frequencies_are_the_engines(search_index):
    vocab = search_index.vocab("DE")
    stats = search_index.field_stats("claims", "DE")
    for term, term_id in list(vocab.items())[:400]:
        assert search_index.searcher.doc_freq("claims_de", term) == stats.df[term_id]


def test_model_names():
    assert parse_model("bm25").native
    assert not parse_model("bm25:k1=0.9,b=0.4").native
    assert parse_model(parse_model("lm:mu=700").tag) == LMDirichlet(700.0)
    assert parse_model("tfidf-k1=2-b=0.5") == TFIDF(2.0, 0.5)
    for bad in ("bm26", "lm:k1=2", "bm25:b=2", "lm:mu=x"):
        with pytest.raises(ParameterError):
            parse_model(bad)
