"""Each query strategy produces what its name says."""

from __future__ import annotations

import math

import pytest

from pateval.errors import ParameterError
from pateval.search.analyzers import analyze
from pateval.search.queries import SEED_QUERY_GRID, formulate, parse_query_spec, topic_texts


def _terms(queries):
    return {lang: set(terms) for q in queries for lang, terms in q.terms.items()}


def test_names_parse_back_to_the_same_strategy():
    for name in (*SEED_QUERY_GRID, "full,mindf=3,maxdf=0.2,ipc=boost,ipcw=2", "abstract+description"):
        spec = parse_query_spec(name)
        assert parse_query_spec(spec.name) == spec
    assert parse_query_spec("claims+title").name == "title+claims"
    assert parse_query_spec("title+abstract+claims+description").name == "full"


@pytest.mark.parametrize("bad", ["", "claim", "claims,top=0", "claims,maxdf=1.5", "claims,ipc=maybe",
                                 "claims,split=words", "claims,colour=red", "claims,top=x", "claims+claims"])
def test_bad_strategies_are_refused(bad):
    with pytest.raises(ParameterError):
        parse_query_spec(bad)


def test_title_query_holds_only_title_terms(topics, search_index):
    topic = topics[0].document
    terms = _terms(formulate(topic, "title", search_index))
    assert terms
    for lang, found in terms.items():
        title_terms = {t for text in topic_texts(topic, "title").get(lang, []) for t in analyze(text, lang)}
        assert found <= title_terms


def test_claims_query_counts_the_claims_terms(topics, search_index):
    topic = topics[0].document
    (query,) = formulate(topic, "claims", search_index)
    for lang, terms in query.terms.items():
        words = [t for text in topic_texts(topic, "claims")[lang] for t in analyze(text, lang)]
        vocab = search_index.vocab(lang)
        expected = {t: words.count(t) for t in set(words) if t in vocab}
        assert terms == expected


def test_title_added_to_claims(topics, search_index):
    topic = topics[0].document
    claims = _terms(formulate(topic, "claims", search_index))
    both = _terms(formulate(topic, "title+claims", search_index))
    title = _terms(formulate(topic, "title", search_index))
    for lang in both:
        assert both[lang] == claims.get(lang, set()) | title.get(lang, set())


def test_top_k_keeps_the_highest_tfidf_terms(topics, search_index):
    topic = topics[1].document
    (everything,) = formulate(topic, "full", search_index)
    (top,) = formulate(topic, "full,top=20", search_index)
    n = search_index.num_docs
    for lang, terms in top.terms.items():
        assert len(terms) == min(20, len(everything.terms[lang]))
        df, _ = search_index.language_stats(lang)
        vocab = search_index.vocab(lang)

        def tfidf(term, lang=lang, df=df, vocab=vocab):
            return everything.terms[lang][term] * math.log(n / df[vocab[term]])

        lowest_kept = min(tfidf(t) for t in terms)
        assert all(tfidf(t) <= lowest_kept + 1e-12 for t in everything.terms[lang] if t not in terms)


def test_document_frequency_filters(topics, search_index):
    topic = topics[2].document
    n = search_index.num_docs
    (query,) = formulate(topic, "full,mindf=5,maxdf=0.1", search_index)
    (unfiltered,) = formulate(topic, "full", search_index)
    dropped = 0
    for lang, terms in unfiltered.terms.items():
        df, _ = search_index.language_stats(lang)
        vocab = search_index.vocab(lang)
        for term in terms:
            kept = term in query.terms.get(lang, {})
            assert kept == (5 <= df[vocab[term]] <= 0.1 * n)
            dropped += not kept
    assert dropped > 0


def test_split_claims_gives_one_query_per_independent_claim(topics, search_index):
    for topic in topics[:5]:
        document = topic.document
        independent = {c.number for claims in document.claims.values() for c in claims if c.is_independent}
        queries = formulate(document, "claims,split=claims,merge=rrf", search_index)
        assert sorted(q.label for q in queries) == sorted(f"claim {n}" for n in independent)


def test_ipc_options_carry_the_topic_subclasses(topics, search_index):
    topic = topics[0].document
    (query,) = formulate(topic, "claims,ipc=filter", search_index)
    assert set(query.ipc) == set(topic.ipc_prefixes("subclass")) and query.ipc
    (plain,) = formulate(topic, "claims", search_index)
    assert plain.ipc == ()


def test_field_weights_parse():
    spec = parse_query_spec("full,w.claims=2,w.description=0")
    assert spec.weights == {"title": 1.0, "abstract": 1.0, "claims": 2.0, "description": 0.0}


def test_seed_grid_has_the_cube_test_papers_33_runs():
    from pateval.search.run import grid_configs

    configs = grid_configs("seeds")
    assert len(configs) == 33 == len({c.tag for c in configs})
    assert {c.model.tag for c in configs} == {"bm25", "lm", "tfidf"}
    with pytest.raises(ParameterError):
        grid_configs("everything")
