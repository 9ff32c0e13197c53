"""Claim dependencies from claim text, the claim tree and the Cube Test's claim weights.

The str.find path of ``references_in_text`` is tested against the plain regular-expression
scan (``_references_by_scan``) on generated claims, on hypothesis texts built from claim
phrases and awkward characters, and on every claim of the real samples.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pateval.collection.synthetic import generate_corpus
from pateval.errors import ParameterError
from pateval.patents import Claim, ClaimTree, claim_weights, iter_patents, references_in_text, resolve_dependencies
from pateval.patents.claims import _CLAIM_KEYWORD, _PRECEDING, _PRECEDING_REACH, _numbers_after

DATA = Path(__file__).resolve().parents[1] / "data"

# Real-world phrasings (EPO and USPTO claims), the claim's own number, and what it refers to.
PHRASINGS = [
    # English
    ("Apparatus according to claim 1, wherein the frame is made of steel.", 2, (1,)),
    ("The method as claimed in any one of claims 1 to 3, further comprising", 4, (1, 2, 3)),
    ("Apparatus as claimed in claim 1 or 2, wherein", 3, (1, 2)),
    ("Apparatus as claimed in claim 4, 5, 6 or 7, wherein", 8, (4, 5, 6, 7)),
    ("A compound according to any of the preceding claims", 5, (1, 2, 3, 4)),
    ("Apparatus as claimed in any of the foregoing claims, wherein", 4, (1, 2, 3)),
    ("A device according to any preceding claim", 3, (1, 2)),
    ("The method of claim 1, wherein 3 layers are deposited", 4, (1,)),
    ("The system of claims 1-3 and 7", 9, (1, 2, 3, 7)),
    ("The assembly according to claim 2 or claim 5", 6, (2, 5)),
    ("The process as claimed in claims 1 through 4", 6, (1, 2, 3, 4)),
    ("Use of a composition as defined in one of the previous claims", 3, (1, 2)),
    ("A kit comprising the antibody of claim 12 and a buffer", 13, (12,)),
    ("A method as claimed in Claim 1 wherein the temperature is 5 °C", 2, (1,)),
    ("A memory comprising memories (ROM) according to claims 1-18, characterized", 19, tuple(range(1, 19))),
    ("A circuit having electrodes (2, 4) and a layer 6.", 1, ()),
    ("An apparatus for carrying out the method of claim 1", 7, (1,)),
    ("The method of claim 1, 2, or 3, wherein", 4, (1, 2, 3)),
    ("The method of any one of claims 1-5 or 7 to 9", 10, (1, 2, 3, 4, 5, 7, 8, 9)),
    ("The device of claims 1 and/or 2", 3, (1, 2)),
    # German
    ("Vorrichtung nach Anspruch 1, dadurch gekennzeichnet, dass", 2, (1,)),
    ("Verfahren nach einem der Ansprüche 1 bis 3, wobei", 4, (1, 2, 3)),
    ("Nurlesespeicher nach den Ansprüchen 1 - 18, dadurch gekennzeichnet", 19, tuple(range(1, 19))),
    ("Verfahren nach einem der vorhergehenden Ansprüche, dadurch gekennzeichnet", 4, (1, 2, 3)),
    ("Vorrichtung nach Anspruch 2 oder 3", 5, (2, 3)),
    ("Verwendung nach mindestens einem der vorangehenden Ansprüche", 3, (1, 2)),
    ("Vorrichtung gemäß Anspruch 1 und 4", 5, (1, 4)),
    # French
    ("Dispositif selon la revendication 1, caractérisé en ce que", 2, (1,)),
    ("Procédé selon l'une quelconque des revendications 1 à 3", 5, (1, 2, 3)),
    ("Mémoire morte selon les revendications 1 à 18, caractérisée", 19, tuple(range(1, 19))),
    ("Procédé selon l'une quelconque des revendications précédentes", 4, (1, 2, 3)),
    ("Dispositif selon la revendication 2 ou 3", 4, (2, 3)),
    ("Composition selon l'une des revendications 1 et 2", 3, (1, 2)),
]


@pytest.mark.parametrize(("text", "own", "expected"), PHRASINGS)
def test_references_in_real_phrasings(text, own, expected):
    assert references_in_text(text, own_number=own) == expected


def test_self_reference_and_zero_are_dropped():
    assert references_in_text("The device of claim 3", own_number=3) == ()
    assert references_in_text("see claim 0") == ()


def test_preceding_claims_need_the_own_number():
    assert references_in_text("according to any of the preceding claims") == ()


def test_backwards_range_is_not_expanded():
    # "claims 5 to 2" is a typo, not a range over every number in between.
    assert references_in_text("according to claims 5 to 2", own_number=7) == (5,)


def test_resolve_dependencies_unites_claim_refs_and_text_and_drops_unknown_claims():
    numbers = [1, 2, 3]
    texts = ["A device.", "The device of claims 1 to 2", "The device of claim 9"]
    result = resolve_dependencies(numbers, texts, [[], [1], []])
    assert result == [(), (1,), ()]
    with pytest.raises(ParameterError):
        resolve_dependencies([1, 2], ["a"])


def _claims(parents):
    return [Claim(n, f"/c/claim[{n}]", "", tuple(p)) for n, p in parents.items()]


def test_claim_tree_shape():
    tree = ClaimTree.from_claims(_claims({1: (), 2: (1,), 3: (2,), 4: (1, 3), 5: ()}))
    assert tree.independent == [1, 5]
    assert tree.dependent == [2, 3, 4]
    assert tree.children(1) == [2, 4]
    assert tree.ancestors(4) == [1, 2, 3]
    assert tree.roots(3) == [1]
    assert tree.roots(5) == [5]
    assert tree.as_nested() == {1: {2: {3: {}}, 4: {}}, 5: {}}


def test_claim_weights_cube_test():
    claims = _claims({1: (), 2: (1,), 3: (1,), 4: ()})
    weights = claim_weights(claims)
    # 2 independent x 1 + 2 dependent x 0.5 = 3
    assert weights == pytest.approx({1: 1 / 3, 2: 0.5 / 3, 3: 0.5 / 3, 4: 1 / 3})
    assert sum(weights.values()) == pytest.approx(1.0)
    raw = claim_weights({1: (), 2: (1,)}, theta_ind=2, theta_dep=1, normalise=False)
    assert raw == {1: 2, 2: 1}
    with pytest.raises(ParameterError):
        claim_weights(claims, theta_dep=-1)
    with pytest.raises(ParameterError):
        claim_weights(claims, theta_ind=0, theta_dep=0)


_PHRASES = [
    "claim", "claims", "Claim", "CLAIMS", "Anspruch", "Ansprüche", "ANSPRÜCHE", "Ansprueche", "revendication",
    "revendications", "preceding", "any of the preceding claims", "vorhergehenden", "précédentes",
    "qui précèdent", "qui\tprecedent", "ci-dessus", "above", "prior", "hereinbefore", "reclaim", "claimed",
    " 1", " 2", " 3 ", "12", "to", "through", "bis", "à", "-", "–", ",", ";", " or ", " and ", "und", "et",
    "mm", "%", ".5", " ", "\u0130", "\u0131", "\u017f", "\u212a", "ß", "ẞ", "İ", "x", "\n",
]


def _references_by_scan(text: str, *, own_number: int | None = None) -> tuple[int, ...]:
    """:func:`references_in_text` by the plain regular-expression scan alone (the
    reference the fast path is tested against)."""
    if "claim" not in text.lower() and "anspr" not in text.lower() and "revendication" not in text.lower():
        return ()
    found: set[int] = set()
    refers_to_preceding = False
    for keyword in _CLAIM_KEYWORD.finditer(text):
        found.update(_numbers_after(text, keyword.end()))
        if own_number is not None and not refers_to_preceding:
            window = text[max(0, keyword.start() - _PRECEDING_REACH): keyword.end() + _PRECEDING_REACH]
            refers_to_preceding = _PRECEDING.search(window) is not None
    if refers_to_preceding and own_number is not None:
        found.update(range(1, own_number))
    if own_number is not None:
        found.discard(own_number)
    found.discard(0)
    return tuple(sorted(found))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PHRASES), max_size=25), st.one_of(st.none(), st.integers(0, 30)))
@example(["claim", " 1", " or ", "2"], 3)
@example(["claım", " 1"], 2)
@example(["\u017f", "claims", " 1", "-", "3"], 5)
@example(["any of the preceding claims"], 4)
def test_fast_claim_references_equal_the_plain_scan(parts, own):
    text = "".join(parts)
    assert references_in_text(text, own_number=own) == _references_by_scan(text, own_number=own)


def _real_documents():
    files = [*(DATA / "uspto").iterdir(), *(DATA / "clefip").glob("EP-*.xml")]
    return list(iter_patents([f for f in files if f.suffix in (".xml", ".greenbook")], on_error="skip"))


def test_fast_claim_references_on_generated_and_real_claims(tmp_path):
    generate_corpus(tmp_path / "gen", n_patents=60, seed=5, workers=1, progress=False)
    documents = list(iter_patents(tmp_path / "gen")) + _real_documents()
    claims = [claim for document in documents for claims in document.claims.values() for claim in claims]
    assert len(claims) > 500
    for claim in claims:
        for own in (claim.number, None):
            assert references_in_text(claim.text, own_number=own) == _references_by_scan(claim.text, own_number=own)
