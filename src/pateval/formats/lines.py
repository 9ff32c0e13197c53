"""Reading whitespace-separated text files line by line, with exact error positions.

The careful path of every text reader: it decodes UTF-8 strictly, refuses binary files
and empty files, and yields ``(line_number, fields)`` for each non-blank line, so that a
reader's checks can name the 1-based line of any problem. Fast readers (pyarrow) fall
back to it to word their errors.
"""

from __future__ import annotations

import mmap
import os
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ..errors import malformed

__all__ = ["read_bytes", "map_file", "release", "iter_fields", "NUMBER", "parse_float", "parse_int", "foreign_space"]

# A decimal number as trec_eval's atof reads it, without Python's extras (underscores,
# surrounding spaces); inf is accepted, nan is recognised so that it can be refused.
# ASCII only: Python's int() and float() also take other scripts' digits and case-fold
# letters such as the dotless i, which trec_eval does not
NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf|infinity|nan)", re.IGNORECASE | re.ASCII)
INTEGER = re.compile(r"[+-]?\d+", re.ASCII)
_NOT_SPACE = re.compile(rb"\S")
# every character that str.split() and str.strip() take for white space, as UTF-8 bytes,
# but the newline; ASCII ones first (one byte each: searched at memchr speed)
_ASCII_SPACE = (b"\t", b" ", b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x1f")
_OTHER_SPACE = tuple(chr(c).encode() for c in (0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029,
                                                0x202F, 0x205F, 0x3000))


def foreign_space(data, *, delimiter: bytes) -> bool:
    """Whether ``data`` holds white space other than ``delimiter`` and newlines.

    A fast reader splits lines on one delimiter; the careful path splits on any run of
    white space (or strips it from fields). A file holding other white space -- a space
    inside a tab-separated field, a carriage return, a no-break space -- is read by the
    careful path, which reads it as trec_eval does or words the error.

    Examples
    --------
    >>> foreign_space(b"q1 0 d1 1\\n", delimiter=b" "), foreign_space(b"q1\\t0\\td 1\\t1\\n", delimiter=b"\\t")
    (False, True)
    """
    if any(data.find(space) >= 0 for space in _ASCII_SPACE if space != delimiter):
        return True
    if len(data) == 0 or int(np.frombuffer(data, dtype=np.uint8).max()) < 0x80:
        return False
    return any(data.find(space) >= 0 for space in _OTHER_SPACE)


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """Read a whole input file, refusing a missing, empty or binary one."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        malformed(path, None, "no such file")
    except IsADirectoryError:
        malformed(path, None, "is a directory, not a file")
    _refuse_empty_or_binary(path, data)
    return data


def map_file(path: str | os.PathLike[str]) -> mmap.mmap:
    """The file's bytes, memory-mapped, with :func:`read_bytes`'s refusals: fast readers
    hand the map to Arrow, so a large file is never copied whole into the process (Arrow's
    string columns may point into the map, which then lives as long as they do)."""
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size == 0:
                malformed(path, None, "the file is empty")
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except FileNotFoundError:
        malformed(path, None, "no such file")
    except IsADirectoryError:
        malformed(path, None, "is a directory, not a file")
    try:
        _refuse_empty_or_binary(path, data)
    except BaseException:
        data.close()
        raise
    return data


def release(data) -> None:
    """Unmap a :func:`map_file` map once parsed, unless Arrow's columns still point into it
    (then it goes when they do): the file's pages then leave the process at once."""
    if isinstance(data, mmap.mmap):
        try:
            data.close()
        except BufferError:
            pass


def _refuse_empty_or_binary(path: Path, data) -> None:
    if _NOT_SPACE.search(data) is None:
        malformed(path, None, "the file is empty")
    nul = data.find(b"\x00")
    if nul >= 0:
        malformed(path, data[:nul].count(b"\n") + 1, "binary data (a NUL byte) in a text file")


def iter_fields(path: str | os.PathLike[str], data: bytes | None = None, *, separator: str | None = None) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(line_number, fields)`` for every non-blank line of a UTF-8 text file.

    Parameters
    ----------
    path : path-like
        The file (named in errors).
    data : bytes, optional
        Its content, when already read.
    separator : str, optional
        Split on this string instead of on any run of white space.
    """
    if data is None:
        data = read_bytes(path)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # a UTF-8 byte-order mark is not content
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            malformed(path, number, "not valid UTF-8 text", found=raw[max(0, error.start - 10) : error.end + 10])
        if separator is None:
            fields = line.split()
        else:
            stripped = line.rstrip("\r")
            fields = stripped.split(separator) if stripped.strip() else []
        if fields:
            yield number, fields


def parse_float(path, line: int, text: str, what: str) -> float:
    """A float field: a decimal number, never NaN."""
    if not NUMBER.fullmatch(text):
        malformed(path, line, f"{what} is not a number", expected="a decimal number", found=text)
    value = float(text)
    if value != value:
        malformed(path, line, f"{what} is NaN", expected="a decimal number", found=text)
    return value


def parse_int(path, line: int, text: str, what: str) -> int:
    """An integer field."""
    if not INTEGER.fullmatch(text):
        malformed(path, line, f"{what} is not an integer", expected="an integer", found=text)
    value = int(text)
    if not -(2**63) <= value < 2**63:
        malformed(path, line, f"{what} is out of range", expected="a 64-bit integer", found=text)
    return value
