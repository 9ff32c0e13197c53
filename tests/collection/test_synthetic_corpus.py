"""The synthetic CLEF-IP corpus generator: valid XML, layout, seeds, claims, citations."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import re
from pathlib import Path

import pytest
from lxml import etree

from pateval.collection.synthetic import DEPENDENCY_FORMS, corpus_path, dependency_phrase, generate_corpus
from pateval.errors import ParameterError
from pateval.patents.claims import references_in_text
from pateval.patents.reader import read_patent

N_PATENTS = 250


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("synthetic") / "corpus"
    generate_corpus(root, n_patents=N_PATENTS, seed=7, workers=1, progress=False)
    return root


@pytest.fixture(scope="module")
def documents(corpus):
    return {doc.ucid: doc for doc in (read_patent(path) for path in sorted(corpus.rglob("*.xml")))}


def _tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def test_every_file_is_valid_against_the_clefip_dtd(corpus, test_data):
    dtd = etree.DTD(str(test_data / "clefip" / "patent-document-v1.4.dtd"))
    files = sorted(corpus.rglob("*.xml"))
    assert len(files) > N_PATENTS
    invalid = [f.name for f in files if not dtd.validate(etree.parse(str(f)))]
    assert invalid == []


def test_files_sit_in_the_clefip_tree_layout(corpus, documents):
    for ucid, doc in documents.items():
        assert Path(doc.source_path) == corpus_path(corpus, ucid)
    assert corpus_path("/c", "EP-1010180-B1") == Path("/c/EP/000001/01/01/80/EP-1010180-B1.xml")


def test_manifest_counts_match_the_files(corpus, documents):
    manifest = json.loads((corpus / "corpus.json").read_text())
    assert manifest["counts"]["documents"] == len(documents)
    assert manifest["counts"]["patents"] == N_PATENTS
    kinds = {}
    for doc in documents.values():
        label = doc.kind if doc.country == "EP" else f"{doc.country}-{doc.kind}"
        kinds[label] = kinds.get(label, 0) + 1
    assert manifest["counts"]["documents_by_kind"] == kinds
    assert {"A1", "A2", "A3", "B1", "WO-A1"} <= set(kinds)


def test_same_seed_same_corpus_whatever_the_workers(tmp_path, corpus):
    again = tmp_path / "again"
    generate_corpus(again, n_patents=N_PATENTS, seed=7, workers=2, chunk_size=17, progress=False)
    assert _tree_digest(again) == _tree_digest(corpus)
    other = tmp_path / "other"
    generate_corpus(other, n_patents=N_PATENTS, seed=8, workers=1, progress=False)
    assert _tree_digest(other) != _tree_digest(corpus)


def test_dates_spread_over_the_years_and_families_group_publications(documents):
    years = sorted(int(doc.date[:4]) for doc in documents.values())
    assert years[0] == 1985 and years[-1] == 2006
    assert sum(y >= 2001 for y in years) > 0.15 * len(years)
    families: dict[str, set[str]] = {}
    for doc in documents.values():
        families.setdefault(doc.family_id, set()).add(doc.country)
        assert doc.family_id
    assert any("WO" in countries for countries in families.values())
    # Every B1 has the A publication of the same patent, with an earlier date.
    for doc in documents.values():
        if doc.kind == "B1":
            application = [d for d in documents.values() if d.doc_number == doc.doc_number and d.kind in ("A1", "A2")]
            assert len(application) == 1 and application[0].date < doc.date


def test_granted_claims_in_three_languages_share_their_dependencies(documents):
    granted = [doc for doc in documents.values() if doc.kind == "B1"]
    assert granted
    for doc in granted:
        assert set(doc.claims) == {"DE", "EN", "FR"}
        structures = {lang: [(c.number, c.depends_on) for c in claims] for lang, claims in doc.claims.items()}
        assert structures["DE"] == structures["EN"] == structures["FR"]
        assert not doc.abstract
        for claim in doc.claims["EN"]:
            assert all(ref < claim.number for ref in claim.depends_on)
        assert doc.claims["EN"][0].is_independent
        assert any(not c.is_independent for c in doc.claims["EN"]) or len(doc.claims["EN"]) == 1


def test_applications_carry_claims_abstract_and_description_in_their_language(documents):
    for doc in documents.values():
        if doc.kind in ("A1", "A2"):
            assert list(doc.claims) == [doc.lang]
            assert list(doc.abstract) == [doc.lang]
            assert any(not p.is_heading for p in doc.description)
        if doc.kind == "A3":
            assert not doc.claims and not doc.description and doc.citations


@pytest.mark.parametrize("lang", ["EN", "DE", "FR"])
@pytest.mark.parametrize("form", DEPENDENCY_FORMS)
def test_dependency_phrases_read_back_as_the_claims_they_name(lang, form):
    refs = {"single": (3,), "either": (2, 3), "range": (2, 3, 4, 5), "preceding": (1, 2, 3, 4, 5)}[form]
    for variant in (0, 1):
        text = f"Body {dependency_phrase(lang, form, refs, variant=variant)}, wherein a 3 mm layer."
        assert references_in_text(text, own_number=6) == refs


def test_all_dependency_wordings_occur(corpus):
    text = "\n".join(path.read_text(encoding="utf-8") for path in sorted(corpus.rglob("EP-*-B1.xml"))[:60])
    for phrase in ("as claimed in claim", "according to claim", "or", "any one of claims",
                   "any one of the preceding claims", "nach Anspruch", "nach einem der vorhergehenden Ansprüche",
                   "selon la revendication", "selon l'une quelconque des revendications précédentes"):
        assert phrase in text, phrase


def test_citations_point_to_earlier_documents_and_real_paragraphs(documents):
    in_corpus = out_of_corpus = same_cluster = 0
    categories: dict[str, int] = {}
    for doc in documents.values():
        for citation in doc.citations:
            if citation.source == "applicant":
                assert citation.categories == ""
            else:
                assert citation.source == "search"
                assert citation.categories in ("X", "Y", "A")
                categories[citation.categories] = categories.get(citation.categories, 0) + 1
                assert citation.relevant_claims
                own_ucid = f"EP-{doc.doc_number}-{'A1' if doc.kind == 'A1' else 'A2'}"
                own_claims = max(len(c) for c in documents[own_ucid].claims.values())
                assert max(citation.relevant_claims) <= own_claims
            cited = documents.get(citation.cited_ucid)
            if cited is None:
                assert citation.cited_country != "EP"  # EP citations are always in the corpus
                out_of_corpus += 1
                continue
            in_corpus += 1
            assert cited.date < doc.date
            same_cluster += bool(set(cited.ipc_prefixes()) & set(doc.ipc_prefixes()))
            paragraphs = {p.xpath for p in cited.description if not p.is_heading}
            for passage in citation.passages:
                if passage.startswith("/"):
                    assert passage in paragraphs
    assert in_corpus > 3 * out_of_corpus > 0
    assert same_cluster > 0.8 * in_corpus
    assert categories["A"] > categories["X"] > categories["Y"] > 0


def _words(doc) -> set[str]:
    text = " ".join(p.text for p in doc.description) + " " + " ".join(doc.abstract.values())
    return set(re.findall(r"\w+", text.lower()))


def test_x_citations_share_more_vocabulary_than_random_pairs(documents):
    rng = random.Random(0)
    texts = [doc for doc in documents.values() if doc.kind in ("A1", "A2")]

    def jaccard(a, b):
        wa, wb = _words(a), _words(b)
        return len(wa & wb) / len(wa | wb)

    cited_pairs = []
    for doc in texts:
        if doc.kind != "A1":
            continue
        for citation in doc.citations:
            cited = documents.get(citation.cited_ucid)
            if citation.categories == "X" and cited is not None and cited.description:
                cited_pairs.append(jaccard(doc, cited))
    random_pairs = [jaccard(*rng.sample(texts, 2)) for _ in range(len(cited_pairs))]
    assert len(cited_pairs) >= 20
    assert sum(cited_pairs) / len(cited_pairs) > 1.5 * sum(random_pairs) / len(random_pairs)


def test_bad_parameters_are_refused(tmp_path):
    with pytest.raises(ParameterError):
        generate_corpus(tmp_path / "a", n_patents=0, seed=1)
    with pytest.raises(ParameterError):
        generate_corpus(tmp_path / "b", n_patents=5, seed=1, grant_rate=1.5)
    with pytest.raises(ParameterError):
        generate_corpus(tmp_path / "c", n_patents=5, seed=1, language_shares=(("IT", 1.0),))
    with pytest.raises(ParameterError, match="exists"):
        generate_corpus(tmp_path, n_patents=5, seed=1)
    with pytest.raises(ParameterError):
        dependency_phrase("IT", "single", (1,))
    assert not (tmp_path / "a").exists()


def test_dates_are_valid_calendar_dates(documents):
    for doc in documents.values():
        dt.date.fromisoformat(doc.date)
