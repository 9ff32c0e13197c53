"""Document lengths files: both paths give the same table, and bad lines are named exactly."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pateval.errors import InputFormatError, ParameterError
from pateval.formats.doclengths import DocLengths, _read_careful, _read_fast, read_doc_lengths, write_doc_lengths


def _write(tmp_path, text: str):
    path = tmp_path / "lengths.txt"
    path.write_bytes(text.encode())
    return path


@settings(max_examples=60, deadline=None)
# an id starting with "#" would make a comment line, which every reader skips
@given(st.dictionaries(st.text(st.characters(codec="ascii", exclude_categories=("Cc", "Zs")), min_size=1, max_size=20)
                       .filter(lambda docno: not docno.startswith("#")),
                       st.integers(0, 10**9), min_size=1, max_size=30),
       st.sampled_from([" ", "\t"]))
def test_the_fast_path_reads_what_the_careful_path_reads(tmp_path_factory, lengths, delimiter):
    path = _write(tmp_path_factory.mktemp("lengths"), "".join(f"{d}{delimiter}{n}\n" for d, n in lengths.items()))
    fast, careful = _read_fast(path), _read_careful(path)
    assert fast is not None
    assert fast.ids.to_pylist() == careful.ids.to_pylist() == list(lengths)
    assert np.array_equal(fast.values, careful.values)
    assert dict(read_doc_lengths(path)) == lengths


@pytest.mark.parametrize("text, message", [
    ("d1 10\nd2\n", "line 2: wrong number of columns (expected 2 columns: docno length, found 1)"),
    ("d1 10\nd2 -3\n", "line 2: a negative document length (expected a length in words >= 0, found '-3')"),
    ("d1 10\nd2 ten\n", "line 2: the length (2nd column) is not an integer"),
    ("d1 10\nd2 5\nd1 11\n", "line 3: document 'd1' has two lengths: 10 on line 1, 11 here"),
])
def test_bad_lines_are_named(tmp_path, text, message):
    path = _write(tmp_path, text)
    assert _read_fast(path) is None
    with pytest.raises(InputFormatError, match=re.escape(message)):
        read_doc_lengths(path)


@pytest.mark.parametrize("text, expected", [
    ("d1 10\nd1 10\nd2 5\n", {"d1": 10, "d2": 5}),  # the same length twice: kept once
    ("\ufeffd1 10\n", {"d1": 10}),  # a byte-order mark is not part of the first id
    ("d1 10\r\nd2 5\r\n", {"d1": 10, "d2": 5}),  # CRLF lines
    ("d1\t10\nd2  5\n", {"d1": 10, "d2": 5}),  # white space of any kind and width
    ("d1\u00a0x 10\n", None),  # a no-break space splits the line for the careful path
])
def test_the_careful_path_takes_what_the_fast_path_leaves(tmp_path, text, expected):
    path = _write(tmp_path, text)
    assert _read_fast(path) is None
    if expected is None:
        with pytest.raises(InputFormatError, match="wrong number of columns"):
            read_doc_lengths(path)
    else:
        assert dict(read_doc_lengths(path)) == expected


def test_doc_lengths_is_a_read_only_mapping():
    import pyarrow as pa

    lengths = DocLengths(pa.array(["a", "b"]), np.array([1, 2]))
    assert lengths["b"] == 2 and "a" in lengths and list(lengths) == ["a", "b"]
    with pytest.raises(KeyError):
        lengths["c"]
    with pytest.raises(ValueError, match="differ in length"):
        DocLengths(pa.array(["a"]), np.array([1, 2]))


@settings(max_examples=40, deadline=None)
@given(lengths=st.dictionaries(st.text(st.characters(codec="utf-8", exclude_categories=("Z", "C")), min_size=1,
                                       max_size=12)
                               .filter(lambda docno: not docno.startswith("#")),
                               st.integers(0, 10**12), max_size=30))
def test_written_lengths_read_back_the_same(tmp_path_factory, lengths):
    path = tmp_path_factory.mktemp("written") / "lengths.txt"
    assert write_doc_lengths(lengths, path) == len(lengths)
    if lengths:
        assert dict(read_doc_lengths(path)) == lengths
        assert dict(read_doc_lengths(path)) == dict(read_doc_lengths(path))  # a DocLengths writes back as read
        again = path.with_name("again.txt")
        write_doc_lengths(read_doc_lengths(path), again)
        assert again.read_bytes() == path.read_bytes()


@pytest.mark.parametrize(("lengths", "message"), [
    ({"d 1": 3}, "document lengths: the id 'd 1' cannot be written (empty, holds white space, or starts with '#', "
                 "which makes a comment line)"),
    ({"": 3}, "document lengths: the id '' cannot be written (empty, holds white space, or starts with '#', "
              "which makes a comment line)"),
    ({"#d": 3}, "document lengths: the id '#d' cannot be written (empty, holds white space, or starts with '#', "
                "which makes a comment line)"),
    ({"d1": -1}, "document lengths: the length of 'd1' is -1; lengths are integers >= 0"),
    ({"d1": 2.5}, "document lengths: the length of 'd1' is 2.5; lengths are integers >= 0"),
])
def test_writing_bad_lengths_is_refused_and_writes_nothing(tmp_path, lengths, message):
    path = tmp_path / "lengths.txt"
    with pytest.raises(ParameterError) as error:
        write_doc_lengths(lengths, path)
    assert str(error.value) == message
    assert list(tmp_path.iterdir()) == []
