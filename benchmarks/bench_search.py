"""Benchmark: indexing speed, query throughput and peak memory of the search baselines, and
BM25 agreement between the engine and a plain Python BM25.

Documents are generated here, directly as index records (no XML, no store, so that the
indexer alone is measured): each has a language (EN 70 %, DE 22 %, FR 8 %), a title, an
abstract, claims and a description of ``--words`` words drawn with Zipf frequencies from
a vocabulary of the language's function words and coined technical terms. Queries are
``--query-words`` words drawn the same way, searched on all four fields of their language.

Reported:

* indexing: documents per second, wall time, index size, peak resident memory of the
  process (tantivy's writer threads included);
* search: queries per second for BM25 as the engine computes it (top ``--depth``), and
  for LM-Dirichlet re-scoring the engine's top ``--candidates``;
* agreement (1): on a small separate corpus (``--agreement-docs``, fields of at most 40
  tokens are stored exactly by tantivy, longer ones rounded), the engine's BM25 against a
  plain Python BM25 written below: overlap of the top 10 and largest relative score error;
* agreement (2): on the big index, the engine's BM25 against exact re-scoring of its own
  candidates with the same k1, b (exact field lengths).

Run::

    .venv/bin/python benchmarks/bench_search.py                      # 5,000 documents
    .venv/bin/python benchmarks/bench_search.py --docs 100000 --words 1000
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

from pateval.search.analyzers import analyze
from pateval.search.index import IndexRecord, SearchIndex, build_index
from pateval.search.models import BM25, LMDirichlet, rescore
from pateval.search.queries import Query
from pateval.search.run import SearchConfig, _engine_query

_FUNCTION_WORDS = {
    "EN": ["the", "a", "of", "and", "to", "in", "is", "for", "with", "on", "by", "at", "from", "an", "as", "that",
           "which", "said", "first", "second", "means", "device"],
    "DE": ["die", "der", "und", "zu", "in", "ist", "für", "mit", "auf", "durch", "bei", "aus", "eine", "als", "dass",
           "welche", "besagte", "erste", "zweite", "Mittel"],
    "FR": ["le", "la", "de", "et", "à", "dans", "est", "pour", "avec", "sur", "par", "au", "du", "une", "comme", "que",
           "qui", "ledit", "premier", "second", "moyens"],
}
_LANG_SHARES = (("EN", 0.70), ("DE", 0.22), ("FR", 0.08))
_SUFFIXES = {"EN": ("", "s", "ing", "ed"), "DE": ("", "en", "ung", "e"), "FR": ("", "s", "ement", "é")}


class Generator:
    """Seeded documents and queries with Zipf-distributed words."""

    def __init__(self, seed: int, vocabulary: int = 30000) -> None:
        rng = np.random.default_rng(seed)
        syllables = np.array(["ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zi", "pra", "gel", "dor", "fin", "mus"])
        coined = ["".join(rng.choice(syllables, size=rng.integers(2, 5))) for _ in range(vocabulary)]
        self.vocab = {}
        for lang, words in _FUNCTION_WORDS.items():
            inflected = [w + _SUFFIXES[lang][i % 4] for i, w in enumerate(coined)]
            self.vocab[lang] = np.array(words + inflected, dtype=object)
        ranks = np.arange(1, len(self.vocab["EN"]) + 1)
        self.cumulative = np.cumsum(1.0 / ranks) / np.sum(1.0 / ranks)
        self.seed = seed

    def _words(self, rng, lang: str, n: int) -> str:
        picks = np.searchsorted(self.cumulative, rng.random(n))
        return " ".join(self.vocab[lang][np.minimum(picks, len(self.vocab[lang]) - 1)])

    def document(self, i: int, words: int) -> IndexRecord:
        rng = np.random.default_rng((self.seed, i))
        lang = _LANG_SHARES[int(np.searchsorted(np.cumsum([s for _, s in _LANG_SHARES]), rng.random()))][0]
        claims = max(words // 4, 1)
        texts = {("title", lang): self._words(rng, lang, 8), ("abstract", lang): self._words(rng, lang, 100),
                 ("claims", lang): self._words(rng, lang, claims),
                 ("description", lang): self._words(rng, lang, max(words - claims - 108, 1))}
        return IndexRecord(f"EP-{i:07d}-A1", f"EP{i:07d}", None, lang, 19900101 + (i % 28), [], texts)

    def query(self, i: int, words: int) -> Query:
        rng = np.random.default_rng((self.seed + 1, i))
        lang = "EN" if i % 4 else "DE"
        return Query({lang: {t: float(c) for t, c in Counter(analyze(self._words(rng, lang, words), lang)).items()}})


def cpu_seconds() -> float:
    """User + system time of this process, all threads (the machine may be shared: wall time
    then overstates the cost)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_memory_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def plain_bm25(records, query: dict[str, float], lang: str, field: str, k1=1.2, b=0.75) -> dict[str, float]:
    """BM25 from its definition over one field: exact lengths, idf ln(1 + (N - df + .5) / (df + .5))."""
    bags = [Counter(analyze(r.texts.get((field, lang), ""), lang)) for r in records]
    lengths = [sum(bag.values()) for bag in bags]
    n, average = len(records), sum(lengths) / len(records)
    df = Counter(term for bag in bags for term in bag)
    scores = {}
    for record, bag, length in zip(records, bags, lengths, strict=False):
        total = sum(qtf * math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) * bag[t] * (k1 + 1)
                    / (bag[t] + k1 * (1 - b + b * length / average)) for t, qtf in query.items() if bag.get(t))
        if total > 0:
            scores[record.ucid] = total
    return scores


def engine_scores(index: SearchIndex, query: Query, config: SearchConfig, limit: int) -> tuple[np.ndarray, np.ndarray]:
    hits = index.searcher.search(_engine_query(index, query, config, 0), limit, count=False).hits
    return index.rows_of_hits(hits), np.array([s for s, _ in hits])


def agreement_small(generator: Generator, n_docs: int, words: int, work: Path) -> dict:
    records = [generator.document(i, words) for i in range(n_docs)]
    path = work / "agreement-index"
    build_index(records, path, progress=False, passages=False)
    index = SearchIndex(path)
    config = SearchConfig(model="bm25", query="claims,w.title=0,w.abstract=0,w.description=0", date_filter=False)
    overlaps, errors = [], []
    for i in range(20):
        query = generator.query(10_000 + i, 30)
        lang = next(iter(query.terms))
        plain = plain_bm25(records, query.terms[lang], lang, "claims")
        rows, scores = engine_scores(index, query, config, n_docs)
        engine = {str(index.ucids[r]): s for r, s in zip(rows, scores, strict=False)}
        top_plain = sorted(plain, key=lambda u: (-plain[u], u))[:10]
        top_engine = sorted(engine, key=lambda u: (-engine[u], u))[:10]
        overlaps.append(len(set(top_plain) & set(top_engine)) / 10)
        errors.extend(abs(engine[u] - plain[u]) / plain[u] for u in plain if u in engine)
    return {"documents": n_docs, "words_per_document": words, "queries": 20,
            "mean_top10_overlap": round(float(np.mean(overlaps)), 4), "max_relative_error": float(np.max(errors)),
            "median_relative_error": float(np.median(errors))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=5000)
    parser.add_argument("--words", type=int, default=1000, help="words per document (default 1000)")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--query-words", type=int, default=300)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--candidates", type=int, default=2000)
    parser.add_argument("--agreement-docs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()

    generator = Generator(args.seed)
    work = Path(tempfile.mkdtemp(prefix="bench-search-"))
    results: dict = {"parameters": vars(args)}
    try:
        results["agreement_plain_bm25"] = agreement_small(generator, args.agreement_docs, 120, work)
        print("agreement with plain BM25:", results["agreement_plain_bm25"], flush=True)

        before = peak_memory_mb()
        cpu_before = cpu_seconds()
        started = time.perf_counter()
        summary = build_index((generator.document(i, args.words) for i in range(args.docs)), work / "index",
                              passages=False, threads=args.threads, progress=True)
        seconds = time.perf_counter() - started
        cpu = cpu_seconds() - cpu_before
        results["indexing"] = {"documents": args.docs, "words_per_document": args.words, "seconds": round(seconds, 1),
                               "cpu_seconds": round(cpu, 1), "documents_per_cpu_second": round(args.docs / cpu, 1),
                               "documents_per_second": round(args.docs / seconds, 1),
                               "index_mb": round(summary.bytes_on_disk / 1e6, 1),
                               "peak_rss_mb": round(peak_memory_mb(), 1), "peak_rss_before_mb": round(before, 1)}
        print("indexing:", results["indexing"], flush=True)

        index = SearchIndex(work / "index")
        queries = [generator.query(i, args.query_words) for i in range(args.queries)]
        native = SearchConfig(model="bm25", query="full", date_filter=False)
        started, cpu_before = time.perf_counter(), cpu_seconds()
        native_results = [engine_scores(index, q, native, args.depth) for q in queries]
        bm25_seconds, bm25_cpu = time.perf_counter() - started, cpu_seconds() - cpu_before
        lm = LMDirichlet()
        started, cpu_before = time.perf_counter(), cpu_seconds()
        for query in queries:
            rows, _ = engine_scores(index, query, native, args.candidates)
            rescore(index, lm, query.terms, rows, native.query.weights)
        lm_seconds, lm_cpu = time.perf_counter() - started, cpu_seconds() - cpu_before
        results["search"] = {"queries": args.queries, "query_words": args.query_words,
                             "bm25_queries_per_second": round(args.queries / bm25_seconds, 1),
                             "lm_rescore_queries_per_second": round(args.queries / lm_seconds, 1),
                             "bm25_queries_per_cpu_second": round(args.queries / bm25_cpu, 1),
                             "lm_rescore_queries_per_cpu_second": round(args.queries / lm_cpu, 1),
                             "peak_rss_mb": round(peak_memory_mb(), 1)}
        print("search:", results["search"], flush=True)

        overlaps, errors = [], []
        for query, (rows, scores) in zip(queries[:30], native_results, strict=False):
            exact = rescore(index, BM25(), query.terms, rows, native.query.weights)
            top_engine = set(rows[:10].tolist())
            top_exact = set(rows[np.argsort(-exact, kind="stable")[:10]].tolist())
            overlaps.append(len(top_engine & top_exact) / 10)
            errors.extend((np.abs(scores - exact) / exact).tolist())
        results["agreement_engine_vs_exact_rescore"] = {
            "queries": min(30, len(queries)), "mean_top10_overlap": round(float(np.mean(overlaps)), 4),
            "max_relative_error": float(np.max(errors)), "median_relative_error": float(np.median(errors))}
        print("engine BM25 vs exact re-scoring:", results["agreement_engine_vs_exact_rescore"], flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
