"""Document lengths files: ``docno length`` per line (length in words), for time models."""

from __future__ import annotations

import os

from ..errors import malformed
from .lines import iter_fields, parse_int

__all__ = ["read_doc_lengths"]


def read_doc_lengths(path: str | os.PathLike[str]) -> dict[str, int]:
    """Read ``docno length`` lines into a dict.

    A document listed twice with different lengths, a negative or non-integer length, or a
    line without two fields is an error naming the line.
    """
    lengths: dict[str, int] = {}
    first_line: dict[str, int] = {}
    for line, fields in iter_fields(path):
        if len(fields) != 2:
            malformed(path, line, "wrong number of columns", expected="2 columns: docno length", found=len(fields))
        docno, text = fields
        length = parse_int(path, line, text, "the length (2nd column)")
        if length < 0:
            malformed(path, line, "a negative document length", expected="a length in words >= 0", found=text)
        if docno in lengths and lengths[docno] != length:
            malformed(path, line, f"document {docno!r} has two lengths: {lengths[docno]} on line {first_line[docno]}, {length} here")
        lengths[docno] = length
        first_line.setdefault(docno, line)
    return lengths
