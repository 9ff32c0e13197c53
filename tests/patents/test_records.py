"""Identifiers (ucid, patent-level key), IPC prefixes and relevant-claims lists."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pateval.core.docids import patent_key, patent_keys, split_ucid
from pateval.errors import InputFormatError, ParameterError
from pateval.patents import Citation, format_claim_list, ipc_prefix, parse_claim_list
from pateval.patents.records import PatentDocument


@pytest.mark.parametrize(
    ("ucid", "key"),
    [
        ("EP-0971326-B1", "EP0971326"),
        ("EP-0971326-A2", "EP0971326"),
        ("EP-971326", "EP0971326"),
        ("EP0971326B1", "EP0971326"),
        ("ep-0971326-b1", "EP0971326"),
        ("EP-7654321", "EP7654321"),
        ("US-08930553-B2", "US8930553"),
        ("US-8930553-B2", "US8930553"),
        ("US-2007/0140112-A1", "US20070140112"),
        ("WO-2003065434-A1", "WO2003065434"),
        ("JP-2003224099-A", "JP2003224099"),
        ("US-RE38888-E", "USRE38888"),
    ],
)
def test_patent_key(ucid, key):
    assert patent_key(ucid) == key


def test_patent_key_rejects_non_ids():
    with pytest.raises(ParameterError, match="not a patent document id: 'PAC-1'"):
        patent_key("PAC-1")


def test_split_ucid():
    assert split_ucid("EP-1010180-B1") == ("EP", "1010180", "B1")
    assert split_ucid("EP-1010180") == ("EP", "1010180", None)


ucid_strategy = st.builds(
    lambda country, number, kind, compact: (
        f"{country}{number}{kind or ''}" if compact else f"{country}-{number}" + (f"-{kind}" if kind else "")
    ),
    st.sampled_from(["EP", "US", "WO", "DE", "JP"]),
    st.from_regex(r"\A[0-9]{1,11}\Z"),
    st.sampled_from([None, "A", "A1", "A2", "B1", "B2"]),
    st.booleans(),
)


@given(st.lists(ucid_strategy, max_size=30))
def test_vectorised_keys_agree_with_the_scalar_function(ucids):
    expected = [patent_key(u) for u in ucids]
    assert patent_keys(ucids).to_pylist() == expected
    assert patent_keys(np.array(ucids, dtype=object)).to_pylist() == expected
    assert patent_keys(pa.chunked_array([pa.array(ucids, pa.string())])).to_pylist() == expected


def test_vectorised_keys_nulls_and_invalid():
    assert patent_keys(pd.Series(["EP-1-A1", None])).to_pylist() == ["EP0000001", None]
    with pytest.raises(ParameterError, match="'PAC-1'"):
        patent_keys(["EP-1-A1", "PAC-1"])
    assert patent_keys(["EP-1-A1", "pac-1"], invalid="keep").to_pylist() == ["EP0000001", "PAC-1"]
    with pytest.raises(ParameterError):
        patent_keys(["EP-1"], invalid="drop")


def test_ipc_prefix_levels():
    assert ipc_prefix("G11C 16/04", level="section") == "G"
    assert ipc_prefix("G11C 16/04", level="class") == "G11"
    assert ipc_prefix("G11C 16/04") == "G11C"
    assert ipc_prefix("G11C 16/04", level="group") == "G11C 16"
    with pytest.raises(ParameterError):
        ipc_prefix("G11C 16/04", level="family")


def test_parse_claim_list_examples():
    assert parse_claim_list("1-7,14,15") == (1, 2, 3, 4, 5, 6, 7, 14, 15)
    assert parse_claim_list(" 3 , 1 - 2 ") == (1, 2, 3)
    assert parse_claim_list("") == ()
    with pytest.raises(InputFormatError) as caught:
        parse_claim_list("1-7;14", path="f.xml", line=12)
    assert str(caught.value) == (
        "f.xml, line 12: bad relevant-claims list (expected N or N-M items separated by commas, found '1-7;14')"
    )
    with pytest.raises(InputFormatError) as caught:
        parse_claim_list("7-1", path="f.xml", line=3)
    assert str(caught.value) == "f.xml, line 3: bad relevant-claims range (expected 1 <= N <= M in N-M, found '7-1')"


@given(st.sets(st.integers(min_value=1, max_value=200), max_size=40))
def test_claim_list_round_trips(numbers):
    text = format_claim_list(numbers)
    assert parse_claim_list(text) == tuple(sorted(numbers))
    # The written form follows the grammar item (',' item)*.
    for item in filter(None, text.split(",")):
        low, _, high = item.partition("-")
        assert low.isdigit() and (not high or (high.isdigit() and int(high) > int(low)))


def test_citation_source_is_checked():
    with pytest.raises(ParameterError):
        Citation("EP-1-A1", "EP", "1", "A1", source="patent office")
    citation = Citation("EP-0680812-A1", "EP", "0680812", "A1", source="search", categories="XY")
    assert citation.is_highly_relevant and citation.cited_patent_key == "EP0680812"


def test_document_is_frozen():
    document = PatentDocument(ucid="EP-1-A1", country="EP", doc_number="1", kind="A1")
    with pytest.raises(AttributeError):
        document.ucid = "EP-2-A1"


written_ucid = st.builds(
    lambda country, number, kind: f"{country}-{number}-{kind}",
    st.from_regex(r"\A[A-Z]{2}\Z"), st.from_regex(r"\A[0-9]{7}\Z"), st.from_regex(r"\A[A-Z0-9]{1,3}\Z"),
)
near_miss = st.sampled_from(["ep-0971326-A1", "EP-971326-A1", "EP-09713260-A1", "EP-0971326", "EP-0971326-A1B2",
                             "EP0971326A1", " EP-0971326-A1", "EP-0971326-a1", "EP-097132X-A1", "E1-0971326-A1"])


def _key_or_id(ucid):
    """The plain-Python patent_key; an id that is not a ucid is kept, upper-cased (invalid="keep")."""
    try:
        return patent_key(ucid)
    except ParameterError:
        return ucid.strip().upper()


@given(st.lists(written_ucid, min_size=1, max_size=30), st.one_of(st.none(), near_miss), st.booleans())
@example(["EP-0971326-A1", "WO-0000000-A"], None, True)
@example(["EP-0971326-A1"], "ep-0971326-A1", False)
@example(["EP-0971326-A1"], "EP-0971326-a1", False)
def test_keys_read_off_the_written_form_agree_with_the_scalar_function(ucids, odd_one, chunked):
    """Ids all written CC-NNNNNNN-K take a shortcut; one written otherwise sends all to the general path."""
    if odd_one is not None:
        ucids = [*ucids, odd_one]
    expected = [_key_or_id(u) for u in ucids]
    array = pa.array(ucids, pa.string())
    keys = patent_keys(pa.chunked_array([array[:1], array[1:]]) if chunked else array, invalid="keep")
    assert keys.to_pylist() == expected
    assert isinstance(keys, pa.ChunkedArray) == chunked
