"""How the API reads what it is given: paths, loaded qrels and runs, dicts, frames, named
records and ranx objects, each to :class:`~pateval.core.qrels.Qrels` or
:class:`~pateval.core.run.Run` (or a :class:`~pateval.formats.runblocks.RunFile`, read in blocks)."""

from __future__ import annotations

import dataclasses as _dataclasses
import itertools as _itertools
import os as _os
from collections.abc import Mapping as _Mapping

from ..core.qrels import Qrels
from ..core.run import Run
from ..errors import ParameterError as _ParameterError
from ..formats.qrels import read_qrels
from ..formats.trec import read_run


def _is_frame(value) -> bool:
    """A pandas DataFrame, told without importing pandas (none can exist before it is imported)."""
    import sys

    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(value, pandas.DataFrame)


def _as_qrels(qrels, *, qrels_format: str, on_duplicate: str) -> Qrels:
    if isinstance(qrels, Qrels):
        return qrels
    if isinstance(qrels, _Mapping):
        return Qrels.from_dict(qrels)
    if isinstance(qrels, (str, _os.PathLike)):
        return read_qrels(qrels, format=qrels_format, on_duplicate=on_duplicate)
    # ---- the ecosystem's objects (issue 15): frames, named records, ranx ----
    if _is_frame(qrels):
        return Qrels.from_frame(qrels)
    if _from_ranx(qrels, "Qrels"):
        return Qrels.from_ranx(qrels)
    if _is_records(qrels) or (hasattr(qrels, "__iter__") and not isinstance(qrels, (bytes, Run))):
        return Qrels.from_records(qrels)  # named records, also as an iterator (ir_datasets' qrels_iter())
    raise _ParameterError(f"qrels must be a path, a Qrels, a {{topic: {{docno: rel}}}} dict, a DataFrame (qid, docno, "
                          f"label / "
                          f"query_id, doc_id, relevance), Qrel/TrecQrel records or a ranx Qrels; got "
                          f"{type(qrels).__name__}")


def _as_run(run, *, name: str | None, on_duplicate: str, block_bytes: int = 0):
    if isinstance(run, (str, _os.PathLike)):
        from ..formats.dd import looks_like_dd_run, read_dd_run

        if looks_like_dd_run(run):
            # a TREC DD run file (the jig's, or the 2015 harness's): its iterations come with
            # it, and a repeated document is scored as the jig scores it unless "first" is asked
            dd = read_dd_run(run, on_duplicate="first" if on_duplicate == "first" else "jig", name=name)
            return _dataclasses.replace(dd.run, resources={"iterations": dd.iterations})
    if block_bytes and isinstance(run, (str, _os.PathLike)):  # read and scored in blocks of whole topics
        from ..formats.runblocks import RunFile, readable_in_blocks

        if readable_in_blocks(run):
            return RunFile(run, on_duplicate=on_duplicate, name=name, block_bytes=block_bytes)
    if isinstance(run, Run):
        return run if name is None or name == run.name else _dataclasses.replace(run, name=name)
    if isinstance(run, _Mapping):
        return Run.from_dict(run, name=name or "run")
    if isinstance(run, (str, _os.PathLike)):
        return read_run(run, on_duplicate=on_duplicate, name=name)
    # ---- the ecosystem's objects (issue 15): frames, named records, ranx ----
    if _is_frame(run):
        return Run.from_frame(run, name=name)
    if _from_ranx(run, "Run"):
        return Run.from_ranx(run, name=name)
    if _is_records(run):
        return Run.from_records(run, name=name or "run")
    raise _ParameterError(f"a run must be a path, a Run, a {{topic: {{docno: score}}}} dict, a DataFrame (qid, docno, "
                          f"score / "
                          f"query_id, doc_id, score), ScoredDoc records or a ranx Run; got {type(run).__name__}")


def _from_ranx(value, kind: str) -> bool:
    """Whether ``value`` is a ranx ``Run`` / ``Qrels`` (without importing ranx)."""
    return type(value).__name__ == kind and type(value).__module__.split(".")[0] == "ranx"


def _is_record(item) -> bool:
    """A named record: a namedtuple (ScoredDoc, Qrel, TrecQrel ...) or a flat dict of fields
    (not a ``{topic: {docno: score}}`` run)."""
    if isinstance(item, _Mapping):
        return bool(item) and not any(isinstance(v, _Mapping) for v in item.values())
    return isinstance(item, tuple) and hasattr(type(item), "_fields")


def _is_records(value) -> bool:
    """A list or tuple of records (named, or plain tuples that ``from_records`` reads or
    refuses with what it expects): one run or one set of qrels, never several runs."""
    return isinstance(value, (list, tuple)) and bool(value) and (_is_record(value[0]) or isinstance(value[0], tuple))


def _is_single_run_dict(runs: _Mapping) -> bool:
    """``{topic: {docno: score}}`` (one run), as opposed to ``{name: run}``."""
    return all(isinstance(docs, _Mapping) and all(not isinstance(v, _Mapping) for v in docs.values())
               for docs in runs.values())


def _as_runs(runs, *, on_duplicate: str, block_bytes: int = 0):
    """The runs, each read only when the evaluation reaches it (one run in memory at a time;
    with ``block_bytes``, run files as RunFile: read block by block)."""
    if isinstance(runs, (str, _os.PathLike, Run)) or _is_frame(runs) or _from_ranx(runs, "Run") or _is_records(runs):
        yield _as_run(runs, name=None, on_duplicate=on_duplicate, block_bytes=block_bytes)
    elif isinstance(runs, _Mapping):
        if _is_single_run_dict(runs):
            yield _as_run(runs, name=None, on_duplicate=on_duplicate)
        else:
            for k, v in runs.items():
                yield _as_run(v, name=str(k), on_duplicate=on_duplicate, block_bytes=block_bytes)
    else:
        items = iter(runs)
        first = next(items, None)
        if first is not None and (_is_record(first) or isinstance(first, tuple)):  # an iterator of records: one run
            yield _as_run([first, *items], name=None, on_duplicate=on_duplicate)
            return
        for r in ([] if first is None else _itertools.chain([first], items)):
            yield _as_run(r, name=None, on_duplicate=on_duplicate, block_bytes=block_bytes)
