"""Whatever the user passed as qrels or runs, as :class:`Qrels` and :class:`Run`.

The one dispatch from the forms the API takes -- a path (text, compressed, Parquet,
standard input, a TREC DD run), a :class:`Run` or :class:`Qrels`, a ``{topic: {docno:
value}}`` dict, a DataFrame, named records (ir_measures' and ir_datasets' tuples, dicts)
or a ranx object -- to the readers and constructors, all of which end in
``Run.from_columns`` / ``Qrels.from_columns``, so every form is checked alike.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ..core.qrels import Qrels
from ..core.run import NestedRun, Run
from ..errors import ParameterError
from .qrels import read_qrels
from .trec import read_run

if TYPE_CHECKING:
    from .runblocks import RunFile

__all__ = ["as_qrels", "as_run", "as_runs", "is_frame", "is_ranx", "is_records", "is_single_run_dict"]


def is_frame(value: object) -> bool:
    """A pandas DataFrame, told without importing pandas (none can exist before it is imported)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(value, pandas.DataFrame)


def is_ranx(value: object, kind: str) -> bool:
    """Whether ``value`` is a ranx ``Run`` / ``Qrels`` (``kind``), without importing ranx."""
    return type(value).__name__ == kind and type(value).__module__.split(".")[0] == "ranx"


def _is_record(item: object) -> bool:
    """A named record: a namedtuple (ScoredDoc, Qrel, TrecQrel ...) or a flat dict of fields
    (not a ``{topic: {docno: score}}`` run)."""
    if isinstance(item, Mapping):
        return bool(item) and not any(isinstance(v, Mapping) for v in item.values())
    return isinstance(item, tuple) and hasattr(type(item), "_fields")


def is_records(value: object) -> bool:
    """A list or tuple of records (named, or plain tuples that ``from_records`` reads or
    refuses with what it expects): one run or one set of qrels, never several runs."""
    return isinstance(value, (list, tuple)) and bool(value) and (_is_record(value[0]) or isinstance(value[0], tuple))


def is_single_run_dict(runs: Mapping) -> bool:
    """``{topic: {docno: score}}`` (one run), as opposed to ``{name: run}``: told by each
    topic's first value (a score, not a dict), never by a pass over every score."""
    return all(isinstance(docs, Mapping) and not isinstance(next(iter(docs.values()), None), Mapping)
               for docs in runs.values())


def as_qrels(qrels: object, *, qrels_format: str, on_duplicate: str) -> Qrels:
    """The qrels of a path, a :class:`Qrels`, a dict, a DataFrame, records or a ranx Qrels."""
    if isinstance(qrels, Qrels):
        return qrels
    if isinstance(qrels, Mapping):
        return Qrels.from_dict(qrels)
    if isinstance(qrels, (str, os.PathLike)):
        return read_qrels(qrels, format=qrels_format, on_duplicate=on_duplicate)
    if is_frame(qrels):
        return Qrels.from_frame(qrels, on_duplicate=on_duplicate)
    if is_ranx(qrels, "Qrels"):
        return Qrels.from_ranx(qrels)
    if is_records(qrels) or (hasattr(qrels, "__iter__") and not isinstance(qrels, (bytes, Run))):
        # named records, also as an iterator (ir_datasets' qrels_iter())
        return Qrels.from_records(qrels, on_duplicate=on_duplicate)
    raise ParameterError(f"qrels must be a path, a Qrels, a {{topic: {{docno: rel}}}} dict, a DataFrame (qid, docno, "
                         f"label / query_id, doc_id, relevance), Qrel/TrecQrel records or a ranx Qrels; got "
                         f"{type(qrels).__name__}")


def as_run(run: object, *, name: str | None, on_duplicate: str, block_bytes: int = 0,
           run_format: str = "auto") -> Run | NestedRun | RunFile:
    """The run of a path or a :class:`~pateval.formats.runblocks.RunFile` (a run file read in
    blocks when ``block_bytes`` and the file allow), a :class:`Run`, a dict (with
    ``block_bytes``, an evaluation's: kept as a :class:`~pateval.core.run.NestedRun`), a
    DataFrame, records or a ranx Run, named ``name`` if given. ``run_format``: of a path (see
    :func:`~pateval.formats.trec.read_run`)."""
    if isinstance(run, (str, os.PathLike)):
        from .dd import looks_like_dd_run, read_dd_run
        from .nested import looks_like_json
        from .source import streams_kept

        with streams_kept():  # standard input or a pipe: sniffed, then read
            if run_format == "json" or (run_format == "auto" and looks_like_json(run)):
                return read_run(run, on_duplicate=on_duplicate, name=name, format="json")
            if looks_like_dd_run(run):
                # a TREC DD run file (the jig's, or the 2015 harness's): its iterations come with
                # it, and a repeated document is scored as the jig scores it unless "first" is asked
                dd = read_dd_run(run, on_duplicate="first" if on_duplicate == "first" else "jig", name=name)
                return dataclasses.replace(dd.run, resources={"iterations": dd.iterations})
            if block_bytes:  # read and scored in blocks of whole topics
                from .runblocks import RunFile, readable_in_blocks

                if readable_in_blocks(run):
                    return RunFile(Path(run), on_duplicate=on_duplicate, name=name, block_bytes=block_bytes)
            return read_run(run, on_duplicate=on_duplicate, name=name)
    if isinstance(run, Run):
        return run if name is None or name == run.name else dataclasses.replace(run, name=name)
    from .runblocks import RunFile

    if isinstance(run, RunFile):  # read in blocks of block_bytes, or whole (-M, -J), with its settings
        if block_bytes:
            return dataclasses.replace(run, name=name or run.name, block_bytes=block_bytes)
        return read_run(run.path, on_duplicate=run.on_duplicate, name=name or run.name, lines=run.lines,
                        mixed_tags=run.mixed_tags)
    if isinstance(run, Mapping):
        if block_bytes:  # an evaluation: the dicts are kept, and their ids converted only if a step needs them
            return NestedRun.of(run, name=name or "run")
        return Run.from_dict(run, name=name or "run")
    if is_frame(run):
        return Run.from_frame(run, name=name, on_duplicate=on_duplicate)
    if is_ranx(run, "Run"):
        return Run.from_ranx(run, name=name)
    if is_records(run):
        return Run.from_records(run, name=name, on_duplicate=on_duplicate)
    raise ParameterError(f"a run must be a path, a Run, a {{topic: {{docno: score}}}} dict, a DataFrame (qid, docno, "
                         f"score / query_id, doc_id, score), ScoredDoc records or a ranx Run; got {type(run).__name__}")


def as_runs(runs: object, *, on_duplicate: str, block_bytes: int = 0,
            run_format: str = "auto") -> Iterator[Run | NestedRun | RunFile]:
    """The runs, each read only when the evaluation reaches it (one run in memory at a time;
    with ``block_bytes``, run files as RunFile: read block by block); a dict's keys name its
    runs. ``run_format``: of run files (see :func:`~pateval.formats.trec.read_run`)."""
    # (run_format only matters for a path, block_bytes not for records)
    read = functools.partial(as_run, on_duplicate=on_duplicate, block_bytes=block_bytes, run_format=run_format)
    if (isinstance(runs, (str, os.PathLike, Run)) or is_frame(runs) or is_ranx(runs, "Run") or is_records(runs)
            or (isinstance(runs, Mapping) and is_single_run_dict(runs))):
        yield read(runs, name=None)
    elif isinstance(runs, Mapping):
        for k, v in runs.items():
            yield read(v, name=str(k))
    else:
        items = iter(cast(Iterable, runs))
        first = next(items, None)
        if first is not None and (_is_record(first) or isinstance(first, tuple)):  # an iterator of records: one run
            yield read([first, *items], name=None)
            return
        for r in ([] if first is None else itertools.chain([first], items)):
            yield read(r, name=None)

