"""The source of every text input: the one place an input becomes bytes, and is read line by line.

Every text reader (runs, qrels, DD runs, run blocks, side inputs, interaction logs, patent
XML and APS text) gets its bytes or its stream here, so that all take the same inputs.
The careful path of every text reader: it decodes UTF-8 strictly, refuses binary files
and empty files, and yields ``(line_number, fields)`` for each non-blank line, so that a
reader's checks can name the 1-based line of any problem. Fast readers (pyarrow) fall
back to it to word their errors.

It is also the one place where an input becomes bytes (:func:`read_bytes` for the careful
path, :func:`map_file` for the fast one, :func:`map_range` for a block of a run file), so every
reader takes the same inputs:

* a file compressed with gzip, bzip2 or xz, recognised by its first bytes (not its name),
  is decompressed whole; errors then name the file and the 1-based line of the
  decompressed text, as for a plain file. Decompression stops at a bound
  (:func:`decompression_limit`: 1,000 times the compressed size, and at least 64 MiB;
  ``PATEVAL_MAX_DECOMPRESSED`` or :func:`max_decompressed` sets another), so that a
  small "bomb" is refused in one line instead of filling the memory;
* ``-`` is standard input; a named pipe, ``/dev/stdin`` or a process substitution
  (``<(zcat run.gz)``), which cannot be memory-mapped or read twice, is read once and kept
  by the job reading it (:func:`streams_kept`) for the readers after the first;
* a line starting with ``#`` is a comment and skipped (trec_eval skips them, and
  ir_metadata headers are written so); :func:`ir_metadata` returns the block between
  ``# ir_metadata.start`` and ``# ir_metadata.end``.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import math
import mmap
import os
import re
import stat
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any, NoReturn

from ..errors import malformed

__all__ = ["read_bytes", "map_file", "release", "iter_fields", "NUMBER", "parse_float", "parse_int", "foreign_space",
           "plain_text", "STDIN", "is_stdin", "compression", "without_comments", "ir_metadata", "is_regular_file",
           "first_line", "streams_kept", "streams_are_kept", "open_stream", "map_range", "read_range",
           "decompression_limit", "max_decompressed", "decode_text"]

# A decimal number as trec_eval's atof reads it, without Python's extras (underscores,
# surrounding spaces); inf is accepted, nan is recognised so that it can be refused.
# ASCII only: Python's int() and float() also take other scripts' digits and case-fold
# letters such as the dotless i, which trec_eval does not
NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf|infinity|nan)",
                    re.IGNORECASE | re.ASCII)
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

    One pass over the bytes (:func:`_unusual`); the few bytes left are searched.

    Examples
    --------
    >>> foreign_space(b"q1 0 d1 1\\n", delimiter=b" "), foreign_space(b"q1\\t0\\td 1\\t1\\n", delimiter=b"\\t")
    (False, True)
    """
    odd = _unusual(data, delimiter + b"\n")
    if not odd:
        return False
    if any(space in odd for space in _ASCII_SPACE if space != delimiter):
        return True
    # the bytes of each UTF-8 sequence stay together in ``odd`` (only ASCII was removed); a
    # sequence formed across what was removed can only be found in invalid UTF-8, which the
    # careful path refuses anyway
    return max(odd) >= 0x80 and any(space in odd for space in _OTHER_SPACE)


def plain_text(data, *, delimiter: bytes) -> bool:
    """Whether ``data`` holds only printable ASCII other than ``#``, ``delimiter`` and
    newlines: then it has no NUL byte, no comment line, no other white space
    (:func:`foreign_space`) and is valid UTF-8, and a fast reader checks none of these.

    The bytes are counted, not copied: those outside ``!``..``~`` must be as many as the
    delimiters and newlines, and no ``#``; NumPy counts in slices that stay in cache and
    lets other threads run meanwhile (a run's blocks are checked by several at once).

    >>> plain_text(b"q1 Q0 d1 1 2.5 t\\n", delimiter=b" "), plain_text(b"q1 Q0 d1\\t1 2.5 t\\n", delimiter=b" ")
    (True, False)
    """
    import numpy as np

    octets = np.frombuffer(data, dtype=np.uint8)
    shifted = np.empty(min(len(octets), _SLICE), dtype=np.uint8)
    low, span, ordinary = np.uint8(0x21), np.uint8(0x7E - 0x21), (delimiter[0], ord("\n"))
    for start in range(0, len(octets), _SLICE):
        part = octets[start : start + _SLICE]
        scratch = np.subtract(part, low, out=shifted[: len(part)])  # wraps below "!" round to the top
        outside = np.count_nonzero(scratch > span)
        if outside != sum(np.count_nonzero(part == byte) for byte in ordinary) or np.count_nonzero(part == 0x23):
            return False
    return True


# printable ASCII (not the space)
_PRINTABLE = bytes(range(0x21, 0x7F))
# bytes of a memory map copied (_unusual) or counted (plain_text) at a time: a slice small
# enough for malloc to hand the same memory back each time; 16 MB slices were fresh pages each
# time, faulted in one by one (10M-line run, 11 blocks: 82,000 minor faults and 0.16-0.27 s of
# system time; 1 MB: 703, 0.006 s)
_SLICE = 1 << 20


def _unusual(data, ordinary: bytes, *, also: bytes = b"") -> bytes:
    """The bytes of ``data`` that are neither printable ASCII nor in ``ordinary`` (and those
    in ``also``), in order: one pass (bytes.translate), a memory map (or a view of one) read
    in slices."""
    delete = _PRINTABLE.translate(None, also) + ordinary
    if isinstance(data, bytes):
        return data.translate(None, delete)
    return b"".join(bytes(data[start : start + _SLICE]).translate(None, delete)
                    for start in range(0, len(data), _SLICE))


STDIN = "-"
# first bytes of the compressed formats read (gzip: RFC 1952; bzip2; xz: the .xz magic)
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))
# inputs that cannot be read twice (standard input, pipes), by name: the memo of the job
# reading them (streams_kept), a context variable so that it is the job's own and goes with it
_KEPT: ContextVar[dict[str, bytes] | None] = ContextVar("pateval_kept_streams", default=None)


def is_stdin(path) -> bool:
    """Whether ``path`` names standard input (``-``)."""
    return os.fspath(path) == STDIN


def compression(head: bytes) -> str | None:
    """The compression a file's first bytes announce: ``"gzip"``, ``"bzip2"``, ``"xz"`` or None.

    Examples
    --------
    >>> compression(gzip.compress(b"q1 0 d1 1\\n")), compression(b"q1 0 d1 1\\n")
    ('gzip', None)
    """
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return None


#: A compressed input may decompress to this many times its own size ...
MAX_RATIO = 1000
#: ... and always to this many bytes (real text compresses 3 to 30 times; a "bomb" of one
#: repeated byte, 1,000 (gzip) to 7,000 (xz) times and more).
RATIO_FLOOR = 64 << 20
#: The environment variable that sets the bound in bytes (``8G``, ``500M``, ``1000000``).
LIMIT_VARIABLE = "PATEVAL_MAX_DECOMPRESSED"
_LIMIT: ContextVar[int | None] = ContextVar("pateval_max_decompressed", default=None)
_SIZE = re.compile(r"\s*(\d+)\s*([kmgt]?)i?b?\s*", re.IGNORECASE)
# each compression's decompressor (gzip's checks the header and trailer) and its file reader
_DECOMPRESSORS: dict[str, Callable[[], Any]] = {"gzip": lambda: zlib.decompressobj(wbits=31),
                                                "bzip2": bz2.BZ2Decompressor, "xz": lzma.LZMADecompressor}
_OPENERS: dict[str, Callable[..., Any]] = {"gzip": gzip.open, "bzip2": bz2.open, "xz": lzma.open}


def decompression_limit(compressed_size: int) -> int:
    """The bytes an input of ``compressed_size`` compressed bytes may decompress to: the
    bound :func:`max_decompressed` or ``PATEVAL_MAX_DECOMPRESSED`` sets, else
    ``max(RATIO_FLOOR, MAX_RATIO * compressed_size)``.

    Examples
    --------
    >>> decompression_limit(20_000) == 64 << 20, decompression_limit(10 << 20) == 1000 * (10 << 20)
    (True, True)
    """
    given = _LIMIT.get()
    if given is None and (text := os.environ.get(LIMIT_VARIABLE)):
        found = _SIZE.fullmatch(text)
        if found is None:
            from ..errors import ParameterError

            raise ParameterError(f"{LIMIT_VARIABLE} must be a size such as 8G, 500M or 1000000, not {text[:40]!r}")
        given = int(found.group(1)) << (10 * "kmgt".find(found.group(2).lower()) + 10 if found.group(2) else 0)
    return given if given is not None else max(RATIO_FLOOR, MAX_RATIO * compressed_size)


@contextlib.contextmanager
def max_decompressed(limit: int | None) -> Iterator[None]:
    """Within the block, a compressed input may decompress to ``limit`` bytes (None: the
    default bound of :func:`decompression_limit`)."""
    token = _LIMIT.set(limit)
    try:
        yield
    finally:
        _LIMIT.reset(token)


def _too_large(path, kind: str, limit: int, compressed_size: int) -> NoReturn:
    malformed(path, None, f"the {kind} data decompresses to more than {_bytes(limit)} (from "
                          f"{_bytes(compressed_size)}): refused as a decompression bomb; set {LIMIT_VARIABLE} "
                          "(e.g. 8G) to read more")


def _bytes(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.4g} {unit}"
    return f"{n} bytes"


def _decompress(path, data, kind: str) -> bytes:
    """The decompressed content (every member of a multi-member file), or the error; at
    most :func:`decompression_limit` bytes of it, the decompressor never asked for more."""
    limit = decompression_limit(len(data))
    pieces: list[bytes] = []
    total = 0
    rest = data
    try:
        while True:
            decompressor = _DECOMPRESSORS[kind]()
            piece = decompressor.decompress(rest, limit + 1 - total)
            total += len(piece)
            if total > limit:
                break
            pieces.append(piece)
            if not decompressor.eof:  # all the input given, and no end-of-stream marker
                raise EOFError
            rest = decompressor.unused_data
            if kind == "gzip":
                rest = rest.lstrip(b"\x00")  # (gzip.decompress also ignores zeros after a member)
            if not rest or (kind == "xz" and compression(rest[:6]) != "xz"):  # lzma.decompress ignores trailing data
                return pieces[0] if len(pieces) == 1 else b"".join(pieces)
    except EOFError:
        malformed(path, None, f"the {kind} data is truncated (the file ends before its end-of-stream marker)")
    except (OSError, zlib.error, lzma.LZMAError, ValueError) as error:
        malformed(path, None, f"not valid {kind} data: {error}")
    del pieces
    _too_large(path, kind, limit, len(data))


class _Capped(io.RawIOBase):
    """A decompressing stream that refuses to give more than its bound
    (:func:`decompression_limit`), read as far as a reader reads it."""

    def __init__(self, inner, path, kind: str, compressed_size: int) -> None:
        super().__init__()
        self.inner, self.path, self.kind, self.compressed_size = inner, path, kind, compressed_size
        self.limit = decompression_limit(compressed_size)
        self.given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self.inner.readinto(buffer)
        self.given += n
        if self.given > self.limit:
            _too_large(self.path, self.kind, self.limit, self.compressed_size)
        return n

    def close(self) -> None:
        if not self.closed:
            self.inner.close()
        super().close()


def is_regular_file(path) -> bool:
    """Whether ``path`` is a regular file (not standard input, a pipe or a device)."""
    if is_stdin(path):
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _stream_bytes(path) -> bytes:
    """The whole of standard input or a pipe, read once for the job (:func:`streams_kept`)."""
    kept = _KEPT.get()
    memo = {} if kept is None else kept  # outside a job: a lone read, kept nowhere
    key = os.fspath(path)
    if key not in memo:
        memo[key] = sys.stdin.buffer.read() if is_stdin(path) else Path(path).read_bytes()
    return memo[key]


@contextlib.contextmanager
def streams_kept(path: str | os.PathLike[str] | None = None) -> Iterator[None]:
    """Within the block, standard input and pipes are read once and kept for each reader of
    the job (a sniffer and the reader after it; a reader's fast and careful paths), by the
    outermost block: a command, an evaluation, a reader called alone. Its memo goes when it
    ends, failed or not, so no job is served another's bytes. ``path``: this reader is done
    with that input on leaving (a large run from a pipe is not held for the whole job).
    Threads started within see the memo only if run in a copy of the context."""
    kept = _KEPT.get()
    token = _KEPT.set({}) if kept is None else None
    try:
        yield
    finally:
        if token is not None:
            _KEPT.reset(token)
        elif path is not None and kept is not None:
            kept.pop(os.fspath(path), None)


def streams_are_kept() -> bool:
    """Whether a job keeps standard input and pipes for its readers (within
    :func:`streams_kept`)."""
    return _KEPT.get() is not None


def _open_content(path: Path):
    """The input's bytes: a memory map of a plain regular file, else bytes (decompressed,
    or read from a stream)."""
    try:
        if not is_stdin(path) and is_regular_file(path):
            with open(path, "rb") as handle:
                if os.fstat(handle.fileno()).st_size == 0:
                    malformed(path, None, "the file is empty")
                head = handle.read(6)
                kind = compression(head)
                if kind is None:
                    return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
                handle.seek(0)
                return _decompress(path, handle.read(), kind)
        data = _stream_bytes(path)
    except FileNotFoundError:
        malformed(path, None, "no such file")
    except IsADirectoryError:
        malformed(path, None, "is a directory, not a file")
    except PermissionError:
        malformed(path, None, "permission denied")
    kind = compression(data[:6])
    return data if kind is None else _decompress(path, data, kind)


def read_bytes(path: str | os.PathLike[str], *, text: bool = True) -> bytes:
    """Read a whole input (decompressed), refusing a missing one and, as ``text``, an empty
    or binary one (``text=False``: a binary format, such as Parquet, compressed whole).

    Comment lines are kept: :func:`iter_fields` skips them, keeping line numbers.
    """
    path = Path(path)
    data = _open_content(path)
    if isinstance(data, mmap.mmap):
        with data:  # the map closed once copied
            data = data[:]
    if text:
        _refuse_empty_or_binary(path, data)
    return data


def map_file(path: str | os.PathLike[str]) -> tuple[Any, bytes | None]:
    """The input's bytes for a fast reader, with :func:`read_bytes`'s refusals and without
    comment lines: a plain file memory-mapped (fast readers hand the map to Arrow, so a
    large file is never copied whole into the process; Arrow's string columns may point
    into the map, which then lives as long as they do), a compressed file or a stream as
    bytes. And the delimiter of the first line (a tab, else a space) when the bytes are
    :func:`plain_text` with it, else None: such a file has no NUL byte or comment line to
    look for, and its reader checks neither white space nor UTF-8 -- one pass in NumPy,
    without the GIL, where the searches it spares hold it (a 2M-line qrels file: 0.1 s of
    GIL time while a run's first blocks were read beside it)."""
    path = Path(path)
    data = _open_content(path)
    try:
        delimiter = _first_delimiter(data)
        if delimiter is None or not plain_text(data, delimiter=delimiter) or _NOT_SPACE.search(data) is None:
            delimiter = None
            _refuse_empty_or_binary(path, data)
    except BaseException:
        release(data)
        raise
    if delimiter is not None:
        return data, delimiter
    stripped = without_comments(data)
    if stripped is not data:
        release(data)
    return stripped, None


def _first_delimiter(data) -> bytes | None:
    """A tab if the first line holds one, else a space if it does, else None."""
    newline = data.find(b"\n")
    first = data[: newline if newline >= 0 else len(data)]
    return b"\t" if b"\t" in first else b" " if b" " in first else None


def read_range(path: str | os.PathLike[str], start: int, end: int) -> bytes:
    """Bytes ``[start, end)`` of a plain file, copied (what an error message reads again)."""
    with open(path, "rb") as handle:
        handle.seek(start)
        return handle.read(end - start)


@contextlib.contextmanager
def map_range(path: str | os.PathLike[str], start: int, end: int) -> Iterator[memoryview]:
    """Bytes ``[start, end)`` of a plain file, as a view of a memory map (not a copy), unmapped
    on leaving as :func:`release` unmaps (a file system that cannot map files: read).

    Arrow then parses the file's own pages: a 33 MB block of a run file and its check for plain
    text took 26-37 ms of CPU so, 51-60 ms copied into fresh memory (which faults in page by
    page), on the development VM."""
    base = start - start % mmap.ALLOCATIONGRANULARITY  # a map starts at a multiple of it
    try:
        with open(path, "rb") as handle:
            mapped = mmap.mmap(handle.fileno(), end - base, access=mmap.ACCESS_READ, offset=base)
    except (OSError, ValueError):  # (an empty range is not mapped either)
        yield memoryview(read_range(path, start, end))
        return
    whole = memoryview(mapped)
    view = whole[start - base :]
    whole.release()
    try:
        yield view
    finally:
        release(mapped, view)


def without_comments(data):
    """``data`` without its comment lines (lines starting with ``#``); ``data`` itself
    when it has none. Line numbers change: only fast readers, which word no error, use it.

    Examples
    --------
    >>> without_comments(b"# ir_metadata.start\\n# tag: x\\nq1 0 d1 1\\n#c\\nq1 0 d2 0\\n")
    b'q1 0 d1 1\\nq1 0 d2 0\\n'
    """
    # a one-byte search first (memchr speed); "\n#" is slow to search, a newline being in every line
    if data.find(b"#") < 0 or (data[:1] != b"#" and data.find(b"\n#") < 0):
        return data
    return _COMMENT_LINE.sub(b"", data)


_COMMENT_LINE = re.compile(rb"^#[^\n]*(?:\n|$)", re.MULTILINE)
_METADATA_START = b"# ir_metadata.start"
_METADATA_END = b"# ir_metadata.end"


def open_stream(path: str | os.PathLike[str]):
    """A binary stream of the input's decompressed content, from the start: the way in for a
    reader that reads block by block (a compressed file is decompressed as far as it is
    read; standard input and pipes are read once, kept as :func:`streams_kept` says).
    Comment lines are in it: :func:`without_comments` removes them from whole lines. The
    sniffers read the head of an input through it."""
    path = Path(path)
    if not is_stdin(path) and is_regular_file(path):
        with open(path, "rb") as handle:
            kind = compression(handle.read(6))
        if kind is None:
            return open(path, "rb")
        # the compressed file's own reader (it closes the file when closed), within its bound
        return io.BufferedReader(_Capped(_OPENERS[kind](path, "rb"), path, kind, os.stat(path).st_size),
                                 buffer_size=1 << 16)
    data = _stream_bytes(path)
    kind = compression(data[:6])
    return io.BytesIO(data if kind is None else _decompress(path, data, kind))


def first_line(path: str | os.PathLike[str]) -> str | None:
    """The input's first line that is neither blank nor a comment, decoded (invalid UTF-8
    replaced), without its line end; None when there is none or the input cannot be read.

    For the format sniffers: only the head of a file (decompressed as far as read) is read,
    and standard input or a pipe is read once, for the reader that follows.
    """
    try:
        stream = open_stream(path)
    except (OSError, ValueError):
        return None
    with contextlib.suppress(OSError, EOFError, zlib.error, lzma.LZMAError), stream:
        for raw in stream:
            text = raw.decode("utf-8-sig", errors="replace").rstrip("\r\n")
            if text.strip() and not text.startswith("#"):
                return text
    return None


def ir_metadata(path: str | os.PathLike[str]) -> str | None:
    """The ir_metadata block of an input (the YAML between ``# ir_metadata.start`` and
    ``# ir_metadata.end``, each line's leading ``#`` and one space removed), or None.

    Only the comment lines at the head of the input are read, so a large (or compressed)
    run is not read twice; the block must be closed.

    Raises
    ------
    InputFormatError
        For a block that is opened and never closed, or that is not UTF-8.

    Examples
    --------
    >>> import tempfile, os
    >>> f = tempfile.NamedTemporaryFile("w", suffix=".run", delete=False)
    >>> _ = f.write("# ir_metadata.start\\n# tag: bm25\\n# ir_metadata.end\\nq1 Q0 d1 1 2.5 bm25\\n"); f.close()
    >>> ir_metadata(f.name)
    'tag: bm25\\n'
    >>> os.unlink(f.name)
    """
    path = Path(path)
    try:
        stream = open_stream(path)
    except FileNotFoundError:
        malformed(path, None, "no such file")
    except (IsADirectoryError, PermissionError):
        return None  # the reader words it
    body: list[bytes] = []
    start_line = None
    try:
        with stream:
            for number, line in enumerate(stream, start=1):
                if line[:1] != b"#":
                    break
                text = line.rstrip(b"\r\n")
                if start_line is None:
                    if text.strip() == _METADATA_START:
                        start_line = number
                elif text.strip() == _METADATA_END:
                    try:
                        return b"".join(part + b"\n" for part in body).decode("utf-8")
                    except UnicodeDecodeError:
                        malformed(path, start_line, "the ir_metadata block is not valid UTF-8 text")
                else:
                    content = text[1:]
                    body.append(content[1:] if content[:1] == b" " else content)
    except (OSError, EOFError, zlib.error, lzma.LZMAError):
        return None  # damaged compressed data: the reader words it
    if start_line is not None:
        malformed(path, start_line, "an ir_metadata block without its '# ir_metadata.end' line")
    return None


def release(data, view: memoryview | None = None) -> None:
    """Let go of an input once Arrow has parsed it: first ``view``, the memoryview of ``data``
    handed to Arrow (``pa.py_buffer(view)``), then a :func:`map_file` map, unmapped unless
    Arrow's columns still point into it (then it goes when they do): the file's pages then
    leave the process at once."""
    if view is not None:
        # An Arrow worker drops the reader's last reference to the buffer just after handing
        # back the table, taking the GIL to do so; if the interpreter is finalising by then,
        # CPython ends that thread inside Arrow's C++ and the process aborts after all its
        # work ("terminate called without an active exception", exit 134; apache/arrow#34314).
        # So the reader returns only once Arrow has let go, the GIL released meanwhile (a few
        # tries at most; the wait ends regardless if a column still holds the buffer).
        for _ in range(1000):
            try:
                view.release()
                break
            except BufferError:
                time.sleep(0.001)
    if isinstance(data, mmap.mmap):
        with contextlib.suppress(BufferError):
            data.close()


def _refuse_empty_or_binary(path: Path, data) -> None:
    if _NOT_SPACE.search(data) is None:
        malformed(path, None, "the file is empty")
    nul = data.find(b"\x00")
    if nul >= 0:
        malformed(path, data[:nul].count(b"\n") + 1, "binary data (a NUL byte) in a text file")


def decode_text(path, data: bytes, *, show: bool = False) -> str:
    """``data`` as text: UTF-8, a leading byte-order mark dropped; invalid UTF-8 is an error
    naming its line (and, with ``show``, quoting the bytes around it)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        text, at = error.object, error.start  # (without the byte-order mark)
        malformed(path, text.count(b"\n", 0, at) + 1, "not valid UTF-8 text",
                  found=text[max(0, at - 10) : error.end + 10] if show else None)


def iter_fields(path: str | os.PathLike[str], data: bytes | None = None, *,
                separator: str | None = None) -> Iterator[tuple[int, list[str]]]:
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
    data = data.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte-order mark is not content
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
        if fields and not line.startswith("#"):  # a comment line, as trec_eval skips them
            yield number, fields


def parse_float(path, line: int, text: str, what: str) -> float:
    """A float field: a decimal number, never NaN."""
    if not NUMBER.fullmatch(text):
        malformed(path, line, f"{what} is not a number", expected="a decimal number", found=text)
    value = float(text)
    if value != value:
        malformed(path, line, f"{what} is NaN", expected="a decimal number", found=text)
    return value


def parse_grade(path, line: int, text: str, what: str) -> int | float:
    """A relevance grade: an integer, or a decimal number with a fraction (BEIR's, MTEB's
    graded judgements); NaN and infinity are refused. Text that is no number is refused as
    not an integer, the grade most files hold."""
    if INTEGER.fullmatch(text):
        return parse_int(path, line, text, what)
    if NUMBER.fullmatch(text) and math.isfinite(value := float(text)):
        return value
    if NUMBER.fullmatch(text):
        malformed(path, line, f"{what} is not a finite number", expected="an integer or a decimal number", found=text)
    return parse_int(path, line, text, what)


def parse_int(path, line: int, text: str, what: str) -> int:
    """An integer field."""
    if not INTEGER.fullmatch(text):
        malformed(path, line, f"{what} is not an integer", expected="an integer", found=text)
    value = int(text)
    if not -(2**63) <= value < 2**63:
        malformed(path, line, f"{what} is out of range", expected="a 64-bit integer", found=text)
    return value
