"""The measure-name grammar: canonical names round-trip, errors say where they are."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pateval.errors import MeasureNameError, ParameterError
from pateval.measures import parse_measure
from pateval.measures.grammar import parse_name


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("AP", "AP"), ("map", "AP"), ("P@10", "P@10"), ("P_10", "P@10"), ("P.10", "P@10"),
        ("ndcg_cut_10", "nDCG@10"), ("nDCG@10", "nDCG@10"), ("recall_1000", "R@1000"),
        ("AP(rel=2)", "AP(rel=2)"), ("AP(rel=1)", "AP"), (" AP ( rel = 2 ) @ 10 ", "AP(rel=2)@10"),
        ("recip_rank", "RR"), ("bpref", "Bpref"), ("num_rel_ret", "NumRelRet"), ("map_cut_10", "AP@10"),
    ],
)
def test_names_parse_to_canonical_form(text, canonical):
    assert str(parse_measure(text)) == canonical


def test_grammar_parts():
    parsed = parse_name("CT(gamma=0.3,time=tbg,weights='my file.txt')@10")
    assert parsed.name == "CT" and parsed.cutoff == 10
    assert parsed.params == (("gamma", "0.3"), ("time", "tbg"), ("weights", "my file.txt"))


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "a measure name must be a non-empty string; got ''"),
        ("AP(", "cannot read measure name 'AP(': expected a parameter name at the end"),
        ("AP(rel)", "cannot read measure name 'AP(rel)': expected '=' at position 7, found ')'"),
        ("P@x", "cannot read measure name 'P@x': expected a positive integer cutoff at position 3, found 'x'"),
        ("P@0", "cannot read measure name 'P@0': expected a positive integer cutoff at position 3, found '0'"),
        ("AP(rel=1,rel=2)", "cannot read measure name 'AP(rel=1,rel=2)': parameter 'rel' given twice"),
        ("AP#", "cannot read measure name 'AP#': unexpected character at position 3"),
        ("nDGC@10", "unknown measure 'nDGC' in 'nDGC@10'; did you mean 'nDCG@10' or 'D_nDCG@10'?"),
        ("Foo@3", "unknown measure 'Foo' in 'Foo@3'; `pateval measures` lists them"),
        ("AP(gamma=1)", "AP has no parameter 'gamma' (its parameters: rel)"),
        ("P", "P needs a cutoff, e.g. P@10"),
        ("Rprec@5", "Rprec takes no cutoff (@k)"),
    ],
)
def test_bad_names(text, message):
    with pytest.raises(MeasureNameError) as caught:
        parse_measure(text)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    "text, message",
    [
        ("AP(rel=0)", "AP: parameter rel must be in [1, inf]; got 0"),
        ("AP(rel=x)", "AP: parameter rel takes int; got 'x'"),
    ],
)
def test_bad_parameter_values(text, message):
    with pytest.raises(ParameterError) as caught:
        parse_measure(text)
    assert str(caught.value) == message


@settings(max_examples=100, deadline=None)
@given(name=st.sampled_from(["AP", "P", "R", "RR", "nDCG", "Bpref", "NumRel"]),
       rel=st.integers(1, 5), cutoff=st.integers(1, 5000))
def test_round_trip(name, rel, cutoff):
    from pateval.measures import REGISTRY

    spec = REGISTRY[name]
    params = {"rel": rel} if any(p.name == "rel" for p in spec.params) else {}
    measure = spec(cutoff=cutoff if spec.cutoff != "none" else None, **params)
    assert parse_measure(str(measure)) == measure
