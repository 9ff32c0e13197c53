"""Document lengths files: ``docno length`` per line (length in words), for time models.

A collection has millions of documents, so the lengths are read by Arrow's CSV reader into
a :class:`DocLengths` table (the ids as one Arrow string array, the lengths as one NumPy
array) that the measures use as it is; a file the fast path does not take line for line
as the careful path would (irregular white space, a problem to report) is read line by
line, and every error names its line.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from ..core.docids import DocLengths
from ..core.keys import PairIndex, StringKeys, string_parts
from ..errors import ParameterError, malformed
from .atomic import atomic_output
from .resources import column_lines
from .source import foreign_space, map_file, parse_int, release

__all__ = ["DocLengths", "read_doc_lengths", "write_doc_lengths"]


def read_doc_lengths(path: str | os.PathLike[str]) -> DocLengths:
    """Read ``docno length`` lines (white space separated) into a :class:`DocLengths`.

    A document listed twice with different lengths, a negative or non-integer length, or a
    line without two fields is an error naming the line; a document listed twice with the
    same length is kept once.

    Examples
    --------
    >>> import tempfile, os
    >>> f = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
    >>> _ = f.write("EP-0971326-A1 4210\\nEP-1010180-B1 980\\n"); f.close()
    >>> lengths = read_doc_lengths(f.name)
    >>> lengths["EP-1010180-B1"], len(lengths)
    (980, 2)
    >>> os.unlink(f.name)
    """
    path = Path(path)
    fast = _read_fast(path)
    return fast if fast is not None else _read_careful(path)


def write_doc_lengths(lengths: DocLengths | Mapping[str, int], path: str | os.PathLike[str]) -> int:
    """Write ``docno length`` lines, one per document in the order given; returns how many.

    The file is what :func:`read_doc_lengths` reads back to the same lengths; it appears
    only when complete. An id that is empty, holds white space or starts with ``#`` (a
    comment line to every reader), or a length that is not
    an integer >= 0, is an error naming the document, and nothing is written.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "lengths.txt")
    >>> write_doc_lengths({"EP-0971326-A1": 4210, "EP-1010180-B1": 980}, path)
    2
    >>> dict(read_doc_lengths(path))
    {'EP-0971326-A1': 4210, 'EP-1010180-B1': 980}
    """
    if isinstance(lengths, DocLengths):
        ids, values = lengths.ids.to_pylist(), lengths.values.tolist()
    else:
        ids, values = [str(k) for k in lengths], [lengths[k] for k in lengths]
    for docno, value in zip(ids, values, strict=True):
        if not docno or any(c.isspace() for c in docno) or docno.startswith("#"):
            raise ParameterError(f"document lengths: the id {docno!r} cannot be written (empty, holds white space, "
                                 "or starts with '#', which makes a comment line)")
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ParameterError(f"document lengths: the length of {docno!r} is {value!r}; lengths are integers >= 0")
    with atomic_output(path) as out:
        out.writelines(f"{docno} {int(value)}\n" for docno, value in zip(ids, values, strict=False))
    return len(ids)


def _read_fast(path: Path) -> DocLengths | None:
    """Arrow's CSV reader for a regular file without duplicates; None sends it to the careful path."""
    if not path.is_file() or path.stat().st_size == 0:
        return None
    data, _ = map_file(path)
    view = memoryview(data)  # released once Arrow's threads let go of it (source.release)
    try:
        if data[:3] == b"\xef\xbb\xbf":
            return None  # a byte-order mark: the careful path skips it
        end = data.find(b"\n")
        first = data[: end if end >= 0 else len(data)]
        delimiter = next((d for d in (b"\t", b" ") if len(first.split(d)) == 2 and all(first.split(d))), None)
        if delimiter is None or foreign_space(data, delimiter=delimiter):
            return None
        table = pacsv.read_csv(
            pa.py_buffer(view),
            read_options=pacsv.ReadOptions(column_names=["docno", "length"], block_size=1 << 24),
            parse_options=pacsv.ParseOptions(delimiter=delimiter.decode(), quote_char=False, double_quote=False,
                                             escape_char=False, newlines_in_values=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types={"docno": pa.string(), "length": pa.int64()},
                                                 strings_can_be_null=False, null_values=[], check_utf8=True),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError):
        return None  # the careful path finds and words the problem
    finally:
        release(data, view)
    ids = table.column("docno").combine_chunks()
    values = table.column("length").to_numpy()
    offsets, _ = string_parts(ids)
    if len(ids) == 0 or np.any(offsets[1:] == offsets[:-1]) or values.min() < 0:
        return None  # empty fields (doubled delimiters) or a negative length: worded by the careful path
    if PairIndex.build(np.zeros(len(ids), dtype=np.int64), StringKeys.of(ids), n_groups=1).repeated.any():
        return None  # a document listed twice: the careful path keeps or refuses it
    return DocLengths(ids, values, source=str(path))


def _read_careful(path: Path) -> DocLengths:
    seen: dict[str, tuple[int, int]] = {}  # the first line and length of each document
    for line, (docno, text) in column_lines(path, "docno length"):
        length = parse_int(path, line, text, "the length (2nd column)")
        if length < 0:
            malformed(path, line, "a negative document length", expected="a length in words >= 0", found=text)
        first_line, first = seen.setdefault(docno, (line, length))
        if first != length:
            malformed(path, line, f"document {docno!r} has two lengths: {first} on line {first_line}, {length} here")
    return DocLengths(pa.array(list(seen), type=pa.string()),
                      np.fromiter((length for _, length in seen.values()), dtype=np.int64, count=len(seen)),
                      source=str(path))
