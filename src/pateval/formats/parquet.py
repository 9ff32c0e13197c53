"""Runs and qrels stored as Parquet, read directly by Arrow.

:func:`pateval.formats.trec.read_run` and :func:`pateval.formats.qrels.read_qrels` hand a
file that starts with Parquet's magic bytes (``PAR1``) to this module, whatever its name.

=======  ===========================================================================
input    columns (any other column is ignored)
=======  ===========================================================================
run      topic: ``topic``, ``qid``, ``query_id`` or ``q_id``; document: ``docno`` or ``doc_id``;
         ``score``; optionally ``rank`` (else the row order within each topic) and the
         rows' run tag in ``tag``, ``run`` or ``name`` (else the run is named by the file)
qrels    topic and document as above; grade: ``rel``, ``label`` or ``relevance``
=======  ===========================================================================

These are PyTerrier's (``qid docno score rank``, ``label``), ir_measures' (``query_id
doc_id score``, ``relevance``), ranx's (``q_id``) and pateval's own (``topic docno score
rank``, ``rel``) names: :data:`pateval.core.fields.ROLE_NAMES`, as for frames and records.
The columns are checked as a text file's lines are (no empty id, no null, no NaN score,
no document twice for a topic); an error names the file, the column and the row (1-based,
in file order).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # imported lazily: the command line starts without pyarrow.parquet
    from concurrent.futures import ThreadPoolExecutor

    import pyarrow.parquet as pq

from .. import tuning
from ..core.fields import ROLE_NAMES
from ..core.qrels import Qrels
from ..core.run import Run
from ..core.segments import place_in_segments
from ..errors import malformed

__all__ = ["PARQUET_MAGIC", "is_parquet", "read_parquet_run", "read_parquet_qrels", "parquet_run_blocks",
           "ParquetBlockReader"]

PARQUET_MAGIC = b"PAR1"
# the column names of the ecosystem's tables: the one table frames and records are read by
_TOPIC, _DOCNO, _GRADE, _TAG = ROLE_NAMES["topic"], ROLE_NAMES["docno"], ROLE_NAMES["rel"], ROLE_NAMES["tag"]


def is_parquet(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a regular file that starts with Parquet's magic bytes."""
    from .source import is_regular_file

    if not is_regular_file(path):
        return False
    with open(path, "rb") as handle:
        return handle.read(4) == PARQUET_MAGIC


def _open(path: Path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(path, memory_map=True)
    except (pa.ArrowInvalid, OSError) as error:
        malformed(path, None, f"not a readable Parquet file: {error}")


def _read_columns(path: Path, columns: list[str], *, dictionary: list[str]):
    """The columns as a table, the topic (and tag) column dictionary-encoded as it is decoded
    (topics repeat: no string per row is made for them)."""
    import pyarrow.parquet as pq

    return pq.read_table(path, columns=columns, memory_map=True, use_threads=True, read_dictionary=dictionary)


def _pick(path: Path, names: list[str], wanted: tuple[str, ...], what: str, kind: str) -> str:
    found = [name for name in wanted if name in names]
    if not found:
        malformed(path, None, f"a Parquet {kind} needs a {what} column",
                  expected=" or ".join(wanted), found="columns " + ", ".join(names))
    if len(found) > 1:
        malformed(path, None, f"a Parquet {kind} has two {what} columns ({', '.join(found)}): keep one")
    return found[0]


def _strings(path: Path, column, name: str):
    """A string column (ids), one chunk per row group: ids that are numbers become their
    decimal text; a null is an error with its row (an empty id is from_columns')."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(column.type):
        if pa.types.is_string(column.type.value_type):
            encoded = column.unify_dictionaries()
            _no_nulls(path, encoded, name)
            return encoded  # kept encoded: _topics takes the codes as they are
        column = column.cast(column.type.value_type)
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        if not pa.types.is_integer(column.type):
            malformed(path, None, f"column {name!r} holds {column.type}, not ids (strings or integers)")
        column = pc.cast(column, pa.string())
    if column.type != pa.string():
        column = column.cast(pa.string())
    _no_nulls(path, column, name)
    return column


def _no_nulls(path: Path, column, name: str) -> None:
    import pyarrow.compute as pc

    if column.null_count:
        row = int(pc.index(pc.is_null(column), True).as_py())
        malformed(path, None, f"a null value in column {name!r} (row {row + 1})")


def _numbers(path: Path, column, name: str, dtype) -> np.ndarray:
    """A numeric column as ``dtype`` (None: int64 for integers, float64 for floats)."""
    import pyarrow as pa

    if not (pa.types.is_integer(column.type) or pa.types.is_floating(column.type)):
        malformed(path, None, f"column {name!r} holds {column.type}, not numbers")
    if dtype is None:
        dtype = np.int64 if pa.types.is_integer(column.type) else np.float64
    if dtype is np.int64 and not pa.types.is_integer(column.type):
        malformed(path, None, f"column {name!r} holds {column.type}, not integers")
    _no_nulls(path, column, name)
    return np.ascontiguousarray(column.to_numpy(), dtype=dtype)  # a NaN score: refused by Run.from_columns


def _topics(column):
    """(codes int32, ids as an object array) of a topic column (dictionary-encoded or not)."""
    import pyarrow as pa

    encoded = column if pa.types.is_dictionary(column.type) else column.dictionary_encode()
    encoded = encoded.unify_dictionaries()
    ids = encoded.chunk(0).dictionary.to_numpy(zero_copy_only=False).astype(object) if encoded.num_chunks else \
        np.zeros(0, dtype=object)
    codes = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in encoded.chunks]) if encoded.num_chunks \
        else np.zeros(0, dtype=np.int32)
    used = np.bincount(codes, minlength=len(ids)) > 0
    if not used.all():
        # a slice of rows keeps its row group's whole dictionary: only the topics of its rows
        codes = (np.cumsum(used) - 1)[codes]
        ids = ids[used]
    return codes.astype(np.int32, copy=False), ids


def read_parquet_run(path: str | os.PathLike[str], *, on_duplicate: str = "error", name: str | None = None,
                     mixed_tags: str = "refuse") -> Run:
    """Read a run stored as Parquet (see the module notes for its columns).

    Parameters
    ----------
    path : path-like
    on_duplicate : {"error", "first"}
        A document twice for one topic is an error, or its later rows are dropped.
    name : str, optional
        The run's name; by default the tag column's (``run``/``tag``) one value, else the
        file name without extension.
    mixed_tags : {"refuse", "last"}
        Rows of different tags are refused, or the run takes the last row's tag.
    """
    path = Path(path)
    columns = _run_columns(path)
    table = _read_columns(path, columns.wanted, dictionary=columns.dictionary)
    _earliest_null(path, table, columns.wanted)
    return _run_from_table(path, table, columns, on_duplicate=on_duplicate, name=name, mixed_tags=mixed_tags)


def _earliest_null(path: Path, table, names: list[str]) -> None:
    """Refuse the first row holding a null in any column (checking column by column would
    name a later row of an earlier-checked column first)."""
    import pyarrow.compute as pc

    rows = [(int(pc.index(pc.is_null(table[name]), True).as_py()), name)
            for name in names if table[name].null_count]
    if rows:
        row, name = min(rows)
        malformed(path, None, f"a null value in column {name!r} (row {row + 1})")


@dataclass(frozen=True)
class _RunColumns:
    """The names of a Parquet run's columns (rank and tag optional)."""

    topic: str
    doc: str
    rank: str | None
    tag: str | None

    @property
    def wanted(self) -> list[str]:
        return [self.topic, self.doc, "score", *(c for c in (self.rank, self.tag) if c)]

    @property
    def dictionary(self) -> list[str]:
        """The columns read dictionary-encoded: their values repeat."""
        return [self.topic, *([self.tag] if self.tag else [])]


def _run_columns(path: Path) -> _RunColumns:
    names = _open(path).schema_arrow.names
    topic_name = _pick(path, names, _TOPIC, "topic", "run")
    doc_name = _pick(path, names, _DOCNO, "document", "run")
    _pick(path, names, ("score",), "score", "run")
    return _RunColumns(topic=topic_name, doc=doc_name, rank="rank" if "rank" in names else None,
                       tag=_pick(path, names, _TAG, "tag", "run") if set(_TAG) & set(names) else None)


def _run_from_table(path: Path, table, columns: _RunColumns, *, on_duplicate: str, name: str | None,
                    mixed_tags: str) -> Run:
    """The run of a table of a Parquet run's rows (the whole file, or a block of whole topics)."""
    import pyarrow as pa

    topic_name, doc_name, rank_name, tag_name = columns.topic, columns.doc, columns.rank, columns.tag
    if table.num_rows == 0:
        malformed(path, None, "the file is empty (no rows)")
    topic, topic_ids = _topics(_strings(path, table.column(topic_name), topic_name))
    doc_ids = _strings(path, table.column(doc_name), doc_name)
    score = _numbers(path, table.column("score"), "score", np.float64)
    if rank_name:
        rank = _numbers(path, table.column(rank_name), rank_name, np.int64)
    else:
        # the row order within each topic, as a text run's rank column usually is
        rank = np.empty(len(topic), dtype=np.int64)
        rank[np.argsort(topic, kind="stable")] = place_in_segments(np.bincount(topic, minlength=len(topic_ids)),
                                                                   first=1)
    tags = _strings(path, table.column(tag_name), tag_name) if tag_name else None
    del table
    codes = pa.DictionaryArray.from_arrays(pa.array(topic), pa.array(topic_ids, type=pa.string()))
    if name is None and tags is None:
        name = default_run_name(path)
    return Run.from_columns(codes, doc_ids, score, rank, tags=tags, name=name, source=str(path),
                            on_duplicate=on_duplicate, mixed_tags=mixed_tags)


def read_parquet_qrels(path: str | os.PathLike[str], *, on_duplicate: str = "error") -> Qrels:
    """Read qrels stored as Parquet (topic, document and grade columns; see the module notes).

    Identical repeated judgements are merged with a note; two different grades of one
    document are an error, or (``on_duplicate="first"``) the first is kept.
    """
    path = Path(path)
    parquet = _open(path)
    names = parquet.schema_arrow.names
    topic_name = _pick(path, names, _TOPIC, "topic", "qrels")
    doc_name = _pick(path, names, _DOCNO, "document", "qrels")
    grade_name = _pick(path, names, _GRADE, "grade", "qrels")
    table = _read_columns(path, [topic_name, doc_name, grade_name], dictionary=[topic_name])
    if table.num_rows == 0:
        malformed(path, None, "the file is empty (no rows)")
    topics = _strings(path, table.column(topic_name), topic_name)
    docnos = _strings(path, table.column(doc_name), doc_name)
    # integers, or floats: fractional grades are float64 grades (core.qrels)
    rel = _numbers(path, table.column(grade_name), grade_name, None)
    return Qrels.from_columns(topics, docnos, rel, format="trec", source=str(path), on_duplicate=on_duplicate)


# ---- a Parquet run read in blocks of whole topics ------------------------------------------

def parquet_run_blocks(path: str | os.PathLike[str], block_bytes: int) -> tuple[list[tuple[int, int]], str | None]:
    """Row ranges ``[start, stop)`` covering a Parquet run, each of whole topics and about
    ``block_bytes / tuning.PARQUET_BLOCK_SHARE`` of the file's uncompressed pages (or one
    topic, if larger), and the run's name from its tag column (None: no tag column, or not
    one tag).

    Only the topic and tag columns are read (their dictionary codes). A run whose topics are
    scattered (a topic in two places), whose topic column cannot be read so, or whose rows
    carry no one tag, is one range: it is read whole, as :func:`read_parquet_run` reads it
    (which words any error, or names the run by its last row's tag).
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    path = Path(path)
    columns = _run_columns(path)
    # the topic column as dictionary codes: no string per row is made
    parquet = pq.ParquetFile(path, memory_map=True, read_dictionary=columns.dictionary)
    n = parquet.metadata.num_rows
    name = None
    if columns.tag:  # (dictionary-encoded as decoded: the distinct tags, not one string per row)
        tags = pc.unique(parquet.read(columns=[columns.tag]).column(0)).cast(pa.string()).to_pylist()
        if len(tags) != 1 or not tags[0]:
            return [(0, n)], None
        name = tags[0]
    whole = [(0, n)]
    decoded = sum(parquet.metadata.row_group(k).total_byte_size for k in range(parquet.num_row_groups))
    rows_per_block = max(1, int(block_bytes) * n // (tuning.PARQUET_BLOCK_SHARE * max(decoded, 1)))
    if n == 0 or rows_per_block >= n:
        return whole, name
    pieces: list[np.ndarray] = []
    start_topics: list = []
    at, last = 0, None
    try:
        for k in range(parquet.num_row_groups):
            column = parquet.read_row_group(k, columns=[columns.topic]).column(0).combine_chunks()
            if column.null_count:
                return whole, name
            if not pa.types.is_dictionary(column.type):  # ids that are numbers
                column = pc.cast(column, pa.string()).dictionary_encode()
            codes = column.indices.to_numpy(zero_copy_only=False)
            if len(codes):
                local = np.r_[0, np.flatnonzero(codes[1:] != codes[:-1]) + 1]
                topics = column.dictionary.take(pa.array(codes[local])).to_pylist()
                if topics[0] == last:  # the topic goes on from the row group before
                    local, topics = local[1:], topics[1:]
                pieces.append(local + at)
                start_topics.extend(topics)
                last = column.dictionary[int(codes[-1])].as_py()
            at += len(codes)
    except (pa.ArrowException, ValueError, TypeError):
        return whole, name  # the whole-file reader words the problem
    if len(set(start_topics)) < len(start_topics):
        return whole, name  # scattered topics: read whole
    starts = np.concatenate(pieces)
    cuts = [0]
    while True:
        k = int(np.searchsorted(starts, cuts[-1] + rows_per_block))
        if k >= len(starts):
            break
        cuts.append(int(starts[k]))
    return list(zip(cuts, cuts[1:] + [n], strict=False)), name


def default_run_name(path: str | os.PathLike[str]) -> str:
    """A Parquet run's name when its file gives none: the file name without extension."""
    return Path(path).name.split(".", 1)[0]


class ParquetBlockReader:
    """Reads row ranges of one Parquet run (see :func:`parquet_run_blocks`) as runs.

    Row groups are decoded as a range needs them; the last one is kept, because a range's
    last row group is usually the next range's first. With ``prefetch``, the row group after
    a range's last is decoded in a thread while the range is scored (Arrow decodes without
    the GIL): the wall time of decoding hides behind the scoring's.
    """

    def __init__(self, path: str | os.PathLike[str], *, prefetch: bool = False) -> None:
        self.path = Path(path)
        self.columns = _run_columns(self.path)
        self.prefetch = prefetch
        self._file: pq.ParquetFile | None = None
        self._bounds: np.ndarray | None = None
        self._kept: dict[int, object] = {}  # row group -> its table, or a future of it
        self._decoder: ThreadPoolExecutor | None = None  # one thread: every read of the file goes through it

    def close(self) -> None:
        if self._decoder is not None:
            self._decoder.shutdown(cancel_futures=True)
            self._decoder = None
        self._kept.clear()

    def _read_group(self, k: int):
        assert self._file is not None  # opened by read() before any group is asked for
        return self._file.read_row_group(k, columns=self.columns.wanted, use_threads=True)

    def _group(self, k: int):
        kept = self._kept.get(k)
        if kept is None:
            kept = self._read_group(k) if self._decoder is None else self._decoder.submit(self._read_group, k)
        if hasattr(kept, "result"):  # decoded in the thread
            kept = kept.result()
        # the groups before this one are done with (ranges come in file order)
        self._kept = {j: v for j, v in self._kept.items() if j > k}
        self._kept[k] = kept
        return kept

    def _start_next(self, k: int) -> None:
        if not self.prefetch or self._file is None or k >= self._file.num_row_groups or k in self._kept:
            return
        if self._decoder is None:
            from concurrent.futures import ThreadPoolExecutor

            self._decoder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pateval-parquet")
        self._kept[k] = self._decoder.submit(self._read_group, k)

    def read(self, start: int, stop: int, *, name: str | None, on_duplicate: str = "error",
             mixed_tags: str = "refuse") -> Run:
        """The run of rows ``[start, stop)`` (whole topics), named ``name`` (the whole run's:
        see :func:`parquet_run_blocks`); an error names the row of the whole file, as
        :func:`read_parquet_run` would."""
        import pyarrow as pa

        from ..errors import InputFormatError

        if self._file is None:
            import pyarrow.parquet as pq

            _open(self.path)  # a file that is not Parquet: its error
            self._file = pq.ParquetFile(self.path, memory_map=True, read_dictionary=self.columns.dictionary)
            parquet = self._file
            self._bounds = np.cumsum(np.asarray([0] + [parquet.metadata.row_group(k).num_rows
                                                       for k in range(parquet.num_row_groups)]))
        n = self._file.metadata.num_rows
        if (start, stop) == (0, n):
            return read_parquet_run(self.path, on_duplicate=on_duplicate, name=name, mixed_tags=mixed_tags)
        bounds = self._bounds
        assert bounds is not None  # set with the file
        first = int(np.searchsorted(bounds, start, side="right")) - 1
        last = int(np.searchsorted(bounds, stop, side="left")) - 1
        pieces = [self._group(k) for k in range(first, last + 1)]
        self._start_next(last + 1)
        table = (pieces[0] if len(pieces) == 1 else pa.concat_tables(pieces)).slice(start - int(bounds[first]),
                                                                                    stop - start)
        try:
            return _run_from_table(self.path, table, self.columns, on_duplicate=on_duplicate, name=name,
                                   mixed_tags=mixed_tags)
        except InputFormatError:
            # the whole file read as one: its error names the row of the file
            read_parquet_run(self.path, on_duplicate=on_duplicate, name=name, mixed_tags=mixed_tags)
            raise
