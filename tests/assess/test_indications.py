"""Passage indications as EPO search reports word them, parsed; and the synthetic corpus's
indications name exactly the paragraphs it marks by XPath."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pateval.assess.indications import parse_indication, parse_number_list
from pateval.collection.synthetic import passage_indication


@pytest.mark.parametrize("text, kinds, paragraphs, claims, flags", [
    # The seed's Figure 1 (CLEF-IP 2013 overview).
    ("* page 5, line 9 - line 22; figure 2 *", ["page", "figures"], (), (), ()),
    ("* page 13, line 30 - page 15, line 16; figure 3 *", ["page", "figures"], (), (), ()),
    ("* page 5, paragraph 1 - page 6, paragraph 2; figures 2,3 *", ["page", "figures"], (), (), ()),
    ("* paragraph [0012] - paragraph [0020] *", ["paragraphs"], tuple(range(12, 21)), (), ()),
    ("paragraph [0012] - [0015]", ["paragraphs"], (12, 13, 14, 15), (), ()),
    ("[0012]-[0015]", ["paragraphs"], (12, 13, 14, 15), (), ()),
    ("paragraphs [0002], [0007] - [0009]", ["paragraphs"], (2, 7, 8, 9), (), ()),
    ("* paragraph [0031] *\n* paragraph [0040] - [0041] *", ["paragraphs", "paragraphs"], (31, 40, 41), (), ()),
    ("claims 1-5", ["claims"], (), (1, 2, 3, 4, 5), ()),
    ("* claim 3; abstract *", ["claims", "abstract"], (), (3,), ()),
    ("column 3, line 5 - line 20", ["column"], (), (), ()),
    ("* the whole document *", ["whole"], (), (), ("no-passages",)),
    ("whole document", ["whole"], (), (), ("no-passages",)),
    ("", [], (), (), ("no-passages",)),
    ("* figures 1-3 *", ["figures"], (), (), ("figures-only",)),
    ("fig. 4; figure 5", ["figures", "figures"], (), (), ("figures-only",)),
    ("see the example", ["other"], (), (), ()),
])
def test_parse_indication(text, kinds, paragraphs, claims, flags):
    parsed = parse_indication(text)
    assert [s.kind for s in parsed.segments] == kinds
    assert parsed.paragraphs == paragraphs
    assert parsed.claims == claims
    assert parsed.flags == flags


def test_suggest_maps_numbers_to_xpaths_and_reports_what_is_missing():
    parsed = parse_indication("paragraph [0002] - [0003]; claims 1, 9; abstract")
    xpaths, missing = parsed.suggest(
        paragraph_xpaths={2: "/patent-document/description/p[2]"},
        claim_xpaths={1: "/patent-document/claims/claim[1]"},
        abstract_xpaths=["/patent-document/abstract/p[1]"])
    assert xpaths == ["/patent-document/abstract/p[1]", "/patent-document/description/p[2]",
                      "/patent-document/claims/claim[1]"]
    assert missing == ["paragraph [0003]", "claim 9"]


def test_number_lists():
    assert parse_number_list("1-3,7, 9 and 11") == (1, 2, 3, 7, 9, 11)
    assert parse_number_list("5-2") == ()
    assert parse_number_list("1-x") == ()


@given(st.sets(st.integers(min_value=1, max_value=400), min_size=1, max_size=12), st.integers(0, 2 ** 32))
def test_generated_indications_name_exactly_the_marked_paragraphs(numbers, seed):
    xpaths = [f"/patent-document/description/p[{n}]" for n in sorted(numbers)]
    text = passage_indication(xpaths, rng=random.Random(seed))
    assert parse_indication(text).paragraphs == tuple(sorted(numbers))


def test_demo_corpus_indications_agree_with_its_xpaths(corpus):
    checked = 0
    seen = set()
    for patent_key in corpus.patent_keys:
        for citation in corpus.citations(patent_key):
            parsed = citation.parsed
            seen.update(s.kind for s in parsed.segments)
            if citation.report_xpaths:
                document = corpus.document(citation.cited_ucid)
                suggestion, missing = document.suggest(parsed)
                assert sorted(suggestion) == sorted(citation.report_xpaths) and missing == []
                checked += 1
            else:
                assert parsed.paragraphs == ()
    assert checked >= 5
    assert {"paragraphs", "whole"} <= seen


@given(st.text(max_size=200))
def test_any_text_parses_without_error(text):
    parsed = parse_indication(text)
    assert all(s.kind in {"paragraphs", "claims", "abstract", "page", "column", "figures", "whole", "other"}
               for s in parsed.segments)
    assert all(n >= 0 for n in parsed.paragraphs + parsed.claims)
