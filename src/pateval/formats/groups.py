"""Near-duplicate groups and patent families: which documents a reader treats as one.

Two file formats, both plain UTF-8 text, blank lines ignored:

``--duplicates FILE`` (:func:`read_duplicate_groups`)
    one group per line, its document ids separated by white space::

        EP-1234567-A1 EP-1234567-B1 US-7654321-B2
        FT921-5631 FT921-5632

    A document may belong to one group only (listed on two lines is an error naming both
    lines); a document in no group is a group of its own.

``--families FILE`` (:func:`read_patent_families`)
    one ``docno family`` pair per line (e.g. a DOCDB family id per publication)::

        EP-1234567-A1 12345678
        US-7654321-B2 12345678

Both readers return a mapping ``docno -> group label``; documents with the same label are
near-duplicates of each other.
"""

from __future__ import annotations

import os

from ..core.docids import group_codes
from ..errors import malformed
from .resources import column_lines
from .source import iter_fields

__all__ = ["read_duplicate_groups", "read_patent_families", "group_codes"]


def read_duplicate_groups(path: str | os.PathLike[str]) -> dict[str, str]:
    """Read a near-duplicate groups file (one group per line); return ``{docno: group label}``.

    The label of a group is its first document id as written, so that labels of different
    groups differ and never equal an ungrouped document's id.
    """
    label_of: dict[str, str] = {}
    line_of: dict[str, int] = {}
    for line, docnos in iter_fields(path):
        label = docnos[0]
        for docno in docnos:
            if docno in label_of:
                if line_of[docno] == line:
                    malformed(path, line, f"document {docno!r} is listed twice in its group")
                malformed(path, line, f"document {docno!r} is in two groups: on line {line_of[docno]} and here",
                          expected="each document in one group at most")
            label_of[docno] = label
            line_of[docno] = line
    return label_of


def read_patent_families(path: str | os.PathLike[str]) -> dict[str, str]:
    """Read ``docno family`` lines; return ``{docno: family}``."""
    seen: dict[str, tuple[int, str]] = {}  # the first line and family of each document
    for line, (docno, family) in column_lines(path, "docno family"):
        first_line, first = seen.setdefault(docno, (line, family))
        if first != family:
            malformed(path, line, f"document {docno!r} is in two families: {first!r} on line {first_line}, "
                                  f"{family!r} here")
    return {docno: family for docno, (_, family) in seen.items()}
