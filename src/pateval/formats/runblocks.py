"""A TREC run read in blocks of whole topics, streamed from the file, never whole in memory.

Engines write a run topic by topic, so a large file is cut into byte ranges of about
``block_bytes`` whose cuts fall where the topic changes (found by reading a few lines after
each nominal cut, not by scanning the file). Each range is read by the run reader's own fast
and careful paths (:mod:`pateval.formats.trec`), so a block is the :class:`Run` of its
topics, checked as the whole file would be; an error names the line of the whole file.

A run whose topics are scattered over the file (one topic's lines in two ranges) is found
out when two ranges hold one topic; :func:`partition_run` then writes the run's rows to
Arrow IPC part files on disk, a topic's rows all in one part and in file order, and each
part is read back as one block (:func:`read_part`).
"""

from __future__ import annotations

import os
import re
import zlib
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from ..core.run import MIXED_TAG_POLICIES, Run
from ..errors import InputFormatError, PatevalError, malformed
from ..tuning import BLOCK_THREADS, READ_AHEAD_SPARE
from ..validation import check_choice
from .source import map_range, plain_text, read_range, without_comments
from .trec import DUPLICATE_POLICIES, LINE_RULES, _read_careful, _read_fast

__all__ = ["RunFile", "DEFAULT_BLOCK_BYTES", "readable_in_blocks", "topic_block_ranges", "read_block", "read_ahead",
           "partition_run", "read_part",
           "merge_counted_notes"]

# about 250,000 lines of a typical run. Set 2026-12-07 with pateval trec_eval -m official on
# benchmarks/bench_trec_eval.py's 10M-line run (2 turns each, shared 2-core machine): 32 MB
# 697-717 MB peak, 4.0-4.4 CPU-s (0.9-1.4 s of it system: every block's arrays were fresh
# pages); 8 MB 438-478 MB, 3.2-3.5 CPU-s; 4 MB 397-429 MB, 3.6-3.8 CPU-s (the per-block
# steps begin to count). all_trec alike: 32 MB 702-709 MB; 8 MB 434-465 MB.
DEFAULT_BLOCK_BYTES = 8 << 20
_NOT_SPACE = re.compile(rb"\S")
_SCAN = 1 << 16  # bytes read at a time when looking for a topic change


@dataclass(frozen=True)
class RunFile:
    """A run file to be evaluated block by block (see :func:`pateval.evaluation.evaluate_runs`).

    Attributes
    ----------
    path : Path
    on_duplicate : {"error", "first"}
    name : str or None
        The run's name; by default its tag.
    block_bytes : int
        About how many bytes of the file each block holds (a block always holds whole topics).
    lines : {"pateval", "trec_eval"}
        How a line is read (as :func:`pateval.formats.trec.read_run` has it).
    mixed_tags : {"refuse", "last"}
        Lines carrying different run tags are refused, or the run takes the last line's tag
        (as :meth:`pateval.core.run.Run.from_columns` has it; a Parquet run's rows too).
    """

    path: Path
    on_duplicate: str = "error"
    name: str | None = None
    block_bytes: int = DEFAULT_BLOCK_BYTES
    lines: str = "pateval"
    mixed_tags: str = "refuse"

    def __post_init__(self) -> None:
        check_choice("on_duplicate", self.on_duplicate, DUPLICATE_POLICIES)
        check_choice("lines", self.lines, LINE_RULES)
        check_choice("mixed_tags", self.mixed_tags, MIXED_TAG_POLICIES)
        object.__setattr__(self, "path", Path(self.path))
        if int(self.block_bytes) < 1:
            raise ValueError("block_bytes must be at least 1")


_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"  # not read by pateval: left to the whole-file reader to refuse


def readable_in_blocks(path: str | os.PathLike[str]) -> bool:
    """Whether a run can be read in blocks: a regular, uncompressed text file (in byte
    ranges) or a Parquet file (in row ranges, :func:`pateval.formats.parquet.parquet_run_blocks`);
    anything else -- a stream, a compressed file, a missing path -- goes to the run reader
    whole, which reads it or words the error."""
    from .source import compression, is_regular_file

    if not is_regular_file(path):  # "-" is standard input, even beside a file named "-"
        return False
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            head = handle.read(8)
    except OSError:
        return False
    return compression(head) is None and not head.startswith(_ZSTD_MAGIC)


def _size(path: Path) -> int:
    try:
        if path.is_dir():
            malformed(path, None, "is a directory, not a file")
        size = path.stat().st_size
    except FileNotFoundError:
        malformed(path, None, "no such file")
    if size == 0:
        malformed(path, None, "the file is empty")
    return size


def _lines_from(handle, position: int) -> Iterator[tuple[int, bytes]]:
    """``(offset, line)`` for the lines from ``position`` on (the first may be partial)."""
    handle.seek(position)
    rest, offset = b"", position
    while True:
        data = handle.read(_SCAN)
        if not data:
            if rest:
                yield offset, rest
            return
        lines = (rest + data).split(b"\n")
        rest = lines.pop()
        for line in lines:
            yield offset, line
            offset += len(line) + 1


def _next_topic_change(handle, position: int, size: int) -> int:
    """The offset of the first line after ``position`` whose topic differs from the line
    before it (``size`` if none): a place to cut between whole topics."""
    lines = _lines_from(handle, position - 1)
    next(lines, None)  # the line holding byte position - 1: not whole
    topic = None
    for offset, line in lines:
        fields = line.split(None, 1)
        if not fields or fields[0].startswith(b"#"):  # blank, or a comment (if the reader allows them): no topic
            continue
        if topic is None:
            topic = fields[0]
        elif fields[0] != topic:
            return offset
    return size


def topic_block_ranges(path: str | os.PathLike[str], block_bytes: int = DEFAULT_BLOCK_BYTES) -> list[tuple[int, int]]:
    """Byte ranges ``[start, end)`` covering the file, each about ``block_bytes`` long (or one
    topic, if longer), cut where the topic changes from one line to the next.

    A run whose topics are contiguous then has each topic in one range; one whose topics
    are scattered has some topic in two (the reader finds it and partitions the run).
    """
    path = Path(path)
    size = _size(path)
    cuts = [0]
    with open(path, "rb") as handle:
        while cuts[-1] + block_bytes < size:
            cut = _next_topic_change(handle, cuts[-1] + block_bytes, size)
            if cut >= size:
                break
            cuts.append(cut)
    return list(zip(cuts, cuts[1:] + [size], strict=False))


def _lines_before(path: Path, offset: int) -> int:
    """The number of newlines in the file's first ``offset`` bytes (for error positions)."""
    count = 0
    with open(path, "rb") as handle:
        while offset > 0:
            data = handle.read(min(offset, 1 << 24))
            if not data:
                break
            count += data.count(b"\n")
            offset -= len(data)
    return count


def read_block(path: str | os.PathLike[str], start: int, end: int, *, on_duplicate: str = "error",
               only_block: bool = False, lines: str = "pateval", mixed_tags: str = "refuse") -> Run | None:
    """The run of bytes ``[start, end)`` of a run file (whole lines), or None if they are blank.

    Read as :func:`pateval.formats.trec.read_run` reads a file; an error names the line of
    the whole file. ``only_block``: the range is the whole file (blank: the file is empty);
    ``lines`` and ``mixed_tags`` as for :func:`~pateval.formats.trec.read_run`. A block being
    read ahead (:func:`read_ahead`) is taken from there.
    """
    ahead = (_AHEAD.get() or {}).pop((str(path), start, end, on_duplicate, only_block, lines, mixed_tags), None)
    if ahead is not None:
        return ahead.result()
    return _read_block(Path(path), start, end, on_duplicate=on_duplicate, only_block=only_block, lines=lines,
                       mixed_tags=mixed_tags)


def _read_block(path: Path, start: int, end: int, *, on_duplicate: str, only_block: bool, lines: str,
                mixed_tags: str) -> Run | None:
    rules = {"lines": lines, "mixed_tags": mixed_tags}
    with map_range(path, start, end) as view:
        # one pass over the bytes finds that most blocks have no NUL, comment or other white
        # space: Arrow then reads the file's own pages
        plain = plain_text(view, delimiter=b" ")
        blank = _NOT_SPACE.search(view) is None
        # parsed in this thread: the blocks are read by several at once (tuning.BLOCK_THREADS),
        # and Arrow's threads on top of them only switched between the blocks (see the tuning note)
        run = (_read_fast(path, view, on_duplicate, plain=True, lines=lines, mixed_tags=mixed_tags,
                          arrow_threads=False) if plain and not blank else None)
        if run is not None:
            return run
        data = bytes(view)  # the others, and a problem for the careful path to word: as bytes
    nul = -1 if plain else data.find(b"\x00")
    if nul >= 0:
        malformed(path, _lines_before(path, start + nul) + 1, "binary data (a NUL byte) in a text file")
    if blank:
        if only_block:
            malformed(path, None, "the file is empty")
        return None
    if not plain:  # comments: the careful path skips them too
        run = _read_fast(path, without_comments(data), on_duplicate, lines=lines, mixed_tags=mixed_tags,
                         arrow_threads=False)
    if run is None:
        try:
            run = _read_careful(path, data, on_duplicate, **rules)
        except InputFormatError:
            if start == 0:
                raise
            # read again behind the file's first line, at its place, and as many blank lines
            # as precede the block: the message then names the lines (and the first run
            # tag) of the whole file
            first, text = _first_line(path)
            before = _lines_before(path, start)
            _read_careful(path, b"\n" * (first - 1) + text + b"\n" * (before - first + 1) + data, on_duplicate,
                          **rules)
            raise
    return run


# Blocks read ahead by read_block's arguments: the memo of the job within read_ahead's block.
# The taker, score_block, is a plain function of primitives (what Dask ships to workers, which
# never see the memo and read blocks themselves): it finds the memo in its context, which the
# executor's scoring threads run in a copy of.
_AHEAD: ContextVar[dict[tuple, Future] | None] = ContextVar("pateval_blocks_ahead", default=None)


@contextmanager
def read_ahead(run_file: RunFile) -> Iterator[None]:
    """Within the block, the first blocks of a text run file (one per scoring thread,
    :data:`pateval.tuning.BLOCK_THREADS`, and :data:`pateval.tuning.READ_AHEAD_SPARE` more)
    are read by those threads, for :func:`read_block` to take when the evaluation asks for
    them: ``pateval trec_eval`` starts them before it reads its qrels, which keeps about one
    core busy.

    A block's error is raised when it is taken, so errors come in the order they did; the
    blocks not taken are dropped on leaving the block (memory held meanwhile: those blocks).
    """
    from .parquet import is_parquet

    try:
        ranges = [] if is_parquet(run_file.path) else topic_block_ranges(run_file.path, run_file.block_bytes)
    except (PatevalError, OSError):  # said when the run is read, in its turn (after the qrels' errors)
        ranges = []
    threads = min(os.cpu_count() or 1, BLOCK_THREADS)
    keys = [(str(run_file.path), start, end, run_file.on_duplicate, len(ranges) == 1, run_file.lines,
             run_file.mixed_tags) for start, end in ranges[:threads + READ_AHEAD_SPARE]]
    pool = ThreadPoolExecutor(max(min(len(keys), threads), 1), thread_name_prefix="pateval-ahead")
    ahead: dict[tuple, Future] = {}
    for key in keys:
        path, start, end, on_duplicate, only_block, lines, mixed_tags = key
        ahead[key] = pool.submit(_read_block, Path(path), start, end, on_duplicate=on_duplicate, only_block=only_block,
                                 lines=lines, mixed_tags=mixed_tags)
    pool.shutdown(wait=False)
    token = _AHEAD.set(ahead)
    try:
        yield
    finally:
        _AHEAD.reset(token)
        for left in ahead.values():  # those not taken (a copy of the context may still hold the memo)
            left.cancel()
        ahead.clear()


def _first_line(path: Path) -> tuple[int, bytes]:
    """The 1-based number and bytes of the file's first line that is neither blank nor a
    comment (the line the careful reader takes the run tag from)."""
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if raw.strip() and not raw.startswith(b"#"):
                return number, raw.rstrip(b"\n")
    raise AssertionError("a block after the first follows a line that is not blank")  # pragma: no cover


def mixed_tag_error(path: str | os.PathLike[str], start: int, end: int, tag: str) -> None:
    """Raise the careful reader's error for the first line in ``[start, end)`` whose run tag
    is not ``tag`` (the first line's), naming both lines."""
    path = Path(path)
    first_line, _ = _first_line(path)
    before = _lines_before(path, start)
    for number, raw in enumerate(read_range(path, start, end).split(b"\n"), start=before + 1):
        if raw.startswith(b"#"):  # a comment line has no tag
            continue
        fields = raw.decode("utf-8", errors="replace").split()
        if fields and fields[-1] != tag:
            malformed(path, number, f"mixed run tags: {tag!r} on line {first_line}, another here",
                      expected=repr(tag), found=fields[-1])
    raise AssertionError("no line with another tag in the block")  # pragma: no cover


_COUNTED = re.compile(r"^(.*?): (\d+) (.*)$")


def merge_counted_notes(notes) -> list[str]:
    """Notes of the form ``PREFIX: N REST`` that differ only in N, as one with the sum
    (what blocks of one run each note about the lines they dropped); others kept once."""
    merged: dict[tuple, int] = {}
    order: list = []
    for note in notes:
        found = _COUNTED.match(note)
        key = (found.group(1), found.group(3)) if found else (note,)
        if key not in merged:
            merged[key] = 0
            order.append(key)
        if found:
            merged[key] += int(found.group(2))
    return [f"{k[0]}: {merged[k]} {k[1]}" if len(k) == 2 else k[0] for k in order]


# ---- runs whose topics are scattered: partitioned on disk --------------------------------

_PART_SCHEMA = pa.schema([("topic", pa.string()), ("docno", pa.string()), ("rank", pa.int64()),
                          ("score", pa.float64()), ("line", pa.int64())])


def _row_lines(path: Path, start: int, end: int, run: Run, lines_before: int) -> tuple[np.ndarray, int]:
    """The 1-based line in the whole file of each row the reader made of ``[start, end)``
    (``lines_before``: the file's lines before ``start``), and the range's newlines."""
    data = read_range(path, start, end)
    bytes_ = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(bytes_ == 10)
    starts, ends = np.r_[0, newlines + 1], np.r_[newlines, len(data)]
    is_row = ends > starts  # lines that are not empty, nor comments (which the readers skip)
    is_row[is_row] = bytes_[starts[is_row]] != ord("#")
    lines = np.flatnonzero(is_row)
    if len(lines) != len(run):  # lines of white space, or repeated documents the reader dropped: line by line
        seen, kept = set(), []
        for number, raw in enumerate(data.split(b"\n")):
            if raw.startswith(b"#"):
                continue
            fields = raw.decode("utf-8").split()
            if fields and (fields[0], fields[2]) not in seen:
                seen.add((fields[0], fields[2]))
                kept.append(number)
        lines = np.asarray(kept, dtype=np.int64)
    return lines + lines_before + 1, len(newlines)


def partition_run(run_file: RunFile, directory: str | os.PathLike[str], *, parts: int | None = None) -> list[Path]:
    """Write the run's rows to Arrow IPC files under ``directory``, each topic's rows in one
    part and in file order (with their line numbers); return the parts' paths.

    Every line is checked as the run reader checks it (errors name the line); the tag must
    be the same throughout, unless ``run_file.mixed_tags`` takes the last. ``parts``: by
    default enough for each to hold about ``run_file.block_bytes`` of the file.
    """
    path = run_file.path
    ranges = topic_block_ranges(path, run_file.block_bytes)
    if parts is None:
        parts = max(1, -(-_size(path) // run_file.block_bytes))
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / f"part-{k:05d}.arrow" for k in range(parts)]
    writers: list[pa.ipc.RecordBatchStreamWriter | None] = [None] * parts
    tag = None
    lines_before = 0  # counted range by range (the ranges follow each other): each byte is read once for it
    try:
        for start, end in ranges:
            run = read_block(path, start, end, on_duplicate=run_file.on_duplicate, only_block=len(ranges) == 1,
                             lines=run_file.lines, mixed_tags=run_file.mixed_tags)
            if run is None:
                lines_before += read_range(path, start, end).count(b"\n")
                continue
            if tag is not None and run.name != tag and run_file.mixed_tags == "refuse":
                mixed_tag_error(path, start, end, tag)
            tag = run.name
            lines, newlines = _row_lines(path, start, end, run, lines_before)
            lines_before += newlines
            bucket_of_topic = np.asarray([zlib.crc32(t.encode()) % parts for t in run.topic_ids], dtype=np.int64)
            bucket = bucket_of_topic[run.topic]
            topics = pa.array(run.topic_ids[run.topic].astype(object), type=pa.string())
            table = pa.table([topics, run.row_doc_ids(), pa.array(run.rank), pa.array(run.score), pa.array(lines)],
                             schema=_PART_SCHEMA)
            order = np.argsort(bucket, kind="stable")
            bounds = np.searchsorted(bucket[order], np.arange(parts + 1))
            for k in np.flatnonzero(np.diff(bounds)):
                if writers[k] is None:
                    writers[k] = pa.ipc.new_stream(str(paths[k]), _PART_SCHEMA,
                                                   options=pa.ipc.IpcWriteOptions(compression="lz4"))
                writer = writers[k]
                assert writer is not None
                writer.write_table(table.take(pa.array(order[bounds[k]:bounds[k + 1]])))
    finally:
        for writer in writers:
            if writer is not None:
                writer.close()
    if tag is None:
        malformed(path, None, "the file is empty")
    (directory / "TAG").write_text(tag, encoding="utf-8")
    return [p for p, w in zip(paths, writers, strict=False) if w is not None]


def read_part(part: str | os.PathLike[str], *, source: str | os.PathLike[str], on_duplicate: str = "error") -> Run:
    """One part written by :func:`partition_run`, as the :class:`Run` of its topics.

    A document listed twice for a topic (in lines the blocks did not share) is an error
    naming both lines, or its later lines are dropped (``on_duplicate="first"``).
    """
    part = Path(part)
    table = pa.ipc.open_stream(str(part)).read_all()
    tag = (part.parent / "TAG").read_text(encoding="utf-8")
    return Run.from_columns(table.column("topic").combine_chunks().dictionary_encode(),
                            table.column("docno").combine_chunks(), table.column("score").to_numpy(),
                            table.column("rank").to_numpy(), name=tag, source=str(source), on_duplicate=on_duplicate,
                            lines=table.column("line").to_numpy(), unit="line")
