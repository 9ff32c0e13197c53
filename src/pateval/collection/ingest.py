"""``pateval corpus ingest``: parse patent XML files once into a corpus store.

Files are grouped into batches (about ``batch_bytes`` of XML each, and at least a few
batches per worker so that the work spreads); each batch is parsed by one worker, which
writes the batch's Parquet parts straight into the store, and the batch is committed by
writing its manifest file (see :mod:`pateval.collection.store`). Workers are local
processes by default, or the workers of a Dask cluster when a scheduler address is given
(``tcp://host:8786``): then every worker must see the input files and the store at the
same paths (a shared file system), as on any cluster that reads a corpus in place.

Resuming: ingesting into an existing store skips every file that a committed batch
already holds with the same size and modification time (or, when those changed, the same
SHA-256), and removes the parts an interrupted run left behind. A file that changed since
it was ingested is an error: its old rows cannot be told apart from new ones, so such a
corpus goes into a new store.

One writer at a time: an ingest holds the store's lock file (``.ingest.lock``, an
``flock``) from before it looks at the committed batches until its last batch is
committed. A second ingest into the same store refuses with a message naming the process
that holds it, or, given ``wait`` seconds, waits for it and then skips every file the first
one ingested, so nothing is written twice.

Damage: :func:`verify_store` checks every committed part against its manifest (size and
SHA-256), and repairs a damaged batch by ingesting its source files again (their paths
and checksums are in the batch manifest) or drops it, saying which documents went.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..cluster import DEFAULT_SCHEDULER_TIMEOUT, cluster_failures, completed, connect
from ..errors import InputFormatError, ParameterError, malformed
from ..patents.reader import ReadError, expand_paths, iter_file
from ..tuning import INGEST_BATCH_BYTES
from .store import (
    LOCK_NAME,
    TABLES,
    DamagedPart,
    PartWriter,
    batch_ucids_path,
    check_parts,
    committed_batches,
    file_sha256,
    part_path,
    raise_if_damaged,
    read_store_manifest,
    remove_uncommitted_parts,
    write_batch_manifest,
    write_batch_ucids,
    write_store_manifest,
)

__all__ = ["IngestSummary", "StoreVerification", "ingest", "ingest_batch", "plan_batches", "store_lock", "verify_store"]

# What a batch's manifest keeps of the result of ingest_batch.
_MANIFEST_KEYS = ("files", "errors", "documents", "parts")


@dataclass
class IngestSummary:
    """What an ingest run did.

    Attributes
    ----------
    store : str
    documents : int
        Documents written by this run.
    files : int
        Files read by this run.
    skipped_files : int
        Files already in the store (resume), not read again.
    errors : list of ReadError
        Bad documents left out (``on_error="skip"``).
    bytes : int
        XML bytes read by this run.
    seconds : float
        Wall-clock time of the run.
    batches : int
        Batches committed by this run.
    total_documents : int
        Documents in the store after the run.
    """

    store: str
    documents: int = 0
    files: int = 0
    skipped_files: int = 0
    errors: list[ReadError] = field(default_factory=list)
    bytes: int = 0
    seconds: float = 0.0
    batches: int = 0
    total_documents: int = 0

    @property
    def documents_per_second(self) -> float:
        return self.documents / self.seconds if self.seconds > 0 else 0.0

    @property
    def megabytes_per_second(self) -> float:
        return self.bytes / 1e6 / self.seconds if self.seconds > 0 else 0.0


class _CountingDigest:
    """SHA-256 that also counts the bytes it was fed."""

    def __init__(self) -> None:
        self._digest = hashlib.sha256()
        self.size = 0

    def update(self, data: bytes) -> None:
        self._digest.update(data)
        self.size += len(data)

    def hexdigest(self) -> str:
        return self._digest.hexdigest()


@contextlib.contextmanager
def store_lock(store: str | os.PathLike[str], *, wait: float = 0.0) -> Iterator[None]:
    """Hold the store's writer lock (``STORE/.ingest.lock``) for the ``with`` block.

    Another holder makes this wait up to ``wait`` seconds, then refuse with an
    InputFormatError naming the process that holds the lock. Where ``fcntl`` does not
    exist (Windows) no lock is taken.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        yield
        return
    folder = Path(store)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK_NAME, "a+", encoding="utf-8") as handle:
        deadline = time.monotonic() + max(0.0, wait)
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    handle.seek(0)
                    holder = handle.read().strip() or "another process"
                    waited = f" after waiting {wait:g} s" if wait > 0 else ""
                    malformed(folder, None, f"another pateval ingest is writing to this store ({holder}){waited}; "
                                            "let it finish, or give --wait SECONDS to wait for it")
                time.sleep(min(0.2, max(0.01, deadline - time.monotonic())))
        handle.seek(0)
        handle.truncate()
        handle.write(f"process {os.getpid()}, since {time.strftime('%Y-%m-%d %H:%M:%S')}\n")
        handle.flush()
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            handle.flush()
            fcntl.flock(handle, fcntl.LOCK_UN)


def ingest_batch(store: str, batch: int, files: list[str], *, on_error: str = "stop",
                 rows_per_group: int = 1000) -> dict:
    """Parse one batch of files and write its parts (runs in a worker).

    Returns the batch's manifest content (files with size, mtime, hash and document
    counts; errors) for the caller to commit. Raises InputFormatError with
    ``on_error="stop"``; the parts written so far are removed then.
    """
    writer = PartWriter(store, batch, rows_per_group=rows_per_group)
    entries: list[dict] = []
    errors: list[dict] = []
    started = time.perf_counter()
    try:
        for path in files:
            stat = os.stat(path)
            documents = 0
            file_errors = 0
            # The checksum is taken from the blocks the parser reads (one read of the file);
            # a compressed file, or one not read to its end, is hashed separately.
            digest = None if path.endswith((".gz", ".bz2")) else _CountingDigest()
            for item in iter_file(path, on_error=on_error, digest=digest):
                if isinstance(item, ReadError):
                    errors.append({"path": item.path, "line": item.line, "reason": item.reason})
                    file_errors += 1
                else:
                    writer.add(item)
                    documents += 1
            sha256 = digest.hexdigest() if digest is not None and digest.size == stat.st_size else file_sha256(path)
            entries.append({"path": path, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": sha256,
                            "documents": documents, "errors": file_errors})
        parts = writer.commit()
        write_batch_ucids(store, batch, writer.ucids)
    except BaseException:
        writer.abort()
        raise
    return {"parts": parts, "files": entries, "errors": errors, "documents": writer.documents,
            "bytes": sum(e["size"] for e in entries), "seconds": time.perf_counter() - started}


def plan_batches(files: list[tuple[str, int]], *, workers: int, batch_bytes: int) -> list[list[str]]:
    """Group ``(path, size)`` files, in order, into batches of about ``batch_bytes``, at
    least four per worker when there are enough files (so that a slow batch does not keep
    the others idle at the end)."""
    total = sum(size for _, size in files)
    target = max(1, min(batch_bytes, total // max(1, 4 * workers)))
    batches: list[list[str]] = []
    current: list[str] = []
    current_bytes = 0
    for path, size in files:
        if current and current_bytes + size > target:
            batches.append(current)
            current, current_bytes = [], 0
        current.append(path)
        current_bytes += size
    if current:
        batches.append(current)
    return batches


def _prepare_store(out: Path, memory_limit: str | None) -> dict[int, dict]:
    """Create the store or open it for resuming; returns the committed batches. Runs
    under the store lock."""
    if out.is_dir() and any(entry.name != LOCK_NAME for entry in out.iterdir()):
        read_store_manifest(out)  # refuses a non-store directory
    else:
        out.mkdir(parents=True, exist_ok=True)
        write_store_manifest(out, {"memory_limit": memory_limit})
    committed = committed_batches(out)
    # Adding to a damaged store would hide the damage under new batches.
    raise_if_damaged(out, committed, mode="open")
    remove_uncommitted_parts(out, committed)
    return committed


def _files_to_do(paths: list[str], committed: dict[int, dict]) -> tuple[list[tuple[str, int]], int]:
    """Input files not yet in the store (with sizes), and how many are already in."""
    known = {entry["path"]: entry for manifest in committed.values() for entry in manifest.get("files", [])}
    todo: list[tuple[str, int]] = []
    skipped = 0
    for path in paths:
        stat = os.stat(path)
        entry = known.get(path)
        if entry is None:
            todo.append((path, stat.st_size))
            continue
        # Same size and time, or touched or copied with the same content.
        if entry["size"] == stat.st_size and (entry["mtime_ns"] == stat.st_mtime_ns
                                              or entry.get("sha256") == file_sha256(path)):
            skipped += 1
            continue
        malformed(path, None, "the file changed since it was ingested into this store (size or content differ); "
                              "ingest the corpus into a new store")
    return todo, skipped


def ingest(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], out: str | os.PathLike[str], *,
           workers: int | None = None, scheduler: str | None = None, on_error: str = "stop",
           memory_limit: str | None = None, batch_bytes: int = INGEST_BATCH_BYTES, rows_per_group: int = 1000,
           progress: bool = False, scheduler_timeout: float = DEFAULT_SCHEDULER_TIMEOUT,
           wait: float = 0.0) -> IngestSummary:
    """Parse patent XML files (or directories of them) into the corpus store ``out``.

    Parameters
    ----------
    paths : path or iterable of paths
        Files and directories (searched recursively for ``*.xml``, ``*.xml.gz``, ...).
    out : path-like
        The store directory: created when absent, resumed when it is a store.
    workers : int, optional
        Local worker processes (default: the number of CPUs); 1 parses in this process.
        Ignored when ``scheduler`` is given.
    scheduler : str, optional
        Address of a Dask scheduler (``tcp://host:8786``); the batches run on its
        workers, which must see ``paths`` and ``out`` at the same paths.
    on_error : {"stop", "skip"}
        Stop at the first bad document (nothing of its batch is kept), or leave bad
        documents out, record them (``CorpusStore.errors()``) and go on.
    memory_limit : str, optional
        DuckDB memory limit recorded as the store's default for queries.
    batch_bytes : int
        Target XML bytes per batch (one part file per table per batch).
    rows_per_group : int
        Documents per Parquet row group (bounds a worker's buffer).
    progress : bool
        Show a progress bar (tqdm, on stderr) over the input bytes.
    scheduler_timeout : float
        Seconds to wait for the Dask scheduler to answer (when connecting, and after losing it).
    wait : float
        Seconds to wait for another ingest into the same store to finish; 0 refuses at
        once (an InputFormatError naming the process that writes to the store).

    Returns
    -------
    IngestSummary
    """
    if on_error not in ("stop", "skip"):
        raise ParameterError(f"on_error must be 'stop' or 'skip', not {on_error!r}")
    if workers is not None and workers < 1:
        raise ParameterError(f"workers must be >= 1, not {workers}")
    if batch_bytes < 1:
        raise ParameterError(f"batch_bytes must be >= 1, not {batch_bytes}")
    if scheduler is not None and not scheduler.strip():
        raise ParameterError("scheduler must be a Dask scheduler address such as tcp://host:8786")
    started = time.perf_counter()
    out_path = Path(out).absolute()
    # A file named twice (directly and through its folder) is read once.
    files = list(dict.fromkeys(os.path.abspath(p) for p in expand_paths(paths)))
    if out_path.exists() and not out_path.is_dir():
        malformed(out_path, None, "the store path exists and is not a directory")
    if out_path.is_dir() and any(entry.name != LOCK_NAME for entry in out_path.iterdir()):
        read_store_manifest(out_path)  # refuse a directory that is not a store before putting a lock file in it
    with store_lock(out_path, wait=wait):
        committed = _prepare_store(out_path, memory_limit)
        todo, skipped = _files_to_do(files, committed)
        worker_count = workers or os.cpu_count() or 1
        batches = plan_batches(todo, workers=worker_count, batch_bytes=batch_bytes)
        first_batch = max(committed, default=-1) + 1
        numbered = list(enumerate(batches, start=first_batch))

        summary = IngestSummary(store=str(out_path), skipped_files=skipped)
        from tqdm import tqdm

        bar = tqdm(total=sum(size for _, size in todo), unit="B", unit_scale=True, desc="ingest", leave=True,
                   disable=not progress)

        def record(batch: int, result: dict) -> None:
            write_batch_manifest(out_path, batch, {key: result[key] for key in _MANIFEST_KEYS})
            summary.documents += result["documents"]
            summary.files += len(result["files"])
            summary.bytes += result["bytes"]
            summary.batches += 1
            summary.errors.extend(ReadError(e["path"], e["line"], e["reason"], _message(e)) for e in result["errors"])
            bar.update(result["bytes"])
            bar.set_postfix(docs=summary.documents, errors=len(summary.errors))

        with bar:
            if scheduler is not None:
                _run_on_dask(scheduler, scheduler_timeout, str(out_path), numbered, on_error, rows_per_group, record)
            elif worker_count == 1 or len(numbered) <= 1:
                for batch, batch_files in numbered:
                    record(batch, ingest_batch(str(out_path), batch, batch_files, on_error=on_error,
                                               rows_per_group=rows_per_group))
            else:
                _run_on_processes(worker_count, str(out_path), numbered, on_error, rows_per_group, record)
        summary.seconds = time.perf_counter() - started
        summary.total_documents = _write_totals(out_path, memory_limit, {
            "documents": summary.documents, "files": summary.files, "skipped_files": summary.skipped_files,
            "errors": len(summary.errors), "bytes": summary.bytes, "seconds": round(summary.seconds, 3),
        })
        return summary


def _write_totals(out_path: Path, memory_limit: str | None, last_ingest: dict | None) -> int:
    """Rewrite manifest.json with the totals of the committed batches; returns the
    number of documents."""
    all_batches = committed_batches(out_path)
    total = sum(m.get("documents", 0) for m in all_batches.values())
    previous = read_store_manifest(out_path)
    write_store_manifest(out_path, {
        "memory_limit": memory_limit if memory_limit is not None else previous.get("memory_limit"), "documents": total,
        "files": sum(len(m.get("files", [])) for m in all_batches.values()), "batches": len(all_batches),
        "last_ingest": last_ingest if last_ingest is not None else previous.get("last_ingest"),
    })
    return total


def _message(error: dict) -> str:
    where = error["path"] if error["line"] is None else f"{error['path']}, line {error['line']}"
    return f"{where}: {error['reason']}"


def _run_on_processes(workers, store, numbered, on_error, rows_per_group, record) -> None:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    import pandas  # noqa: F401 - pyarrow's Table.from_pylist imports it; forked workers inherit it

    # fork where there is one: spawn and forkserver re-import the caller's __main__,
    # which breaks scripts without a main guard and code typed at an interactive prompt.
    # The pool is started before any DuckDB connection or thread of ours exists.
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with ProcessPoolExecutor(max_workers=min(workers, len(numbered)), mp_context=context) as pool:
        futures = {
            pool.submit(ingest_batch, store, batch, files, on_error=on_error,
                        rows_per_group=rows_per_group): batch
            for batch, files in numbered
        }
        pending = set(futures)
        try:
            while pending:
                # Commit each batch as soon as it is done, so that an interruption
                # loses at most the batches still running.
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    # pop: a recorded result is not kept alive until the end of the run.
                    record(futures.pop(future), future.result())
        except BaseException:
            for future in pending:
                future.cancel()
            raise


def _run_on_dask(scheduler, timeout, store, numbered, on_error, rows_per_group, record) -> None:
    client = connect(scheduler, timeout, feature="--scheduler (a Dask cluster)")
    try:
        futures = [
            client.submit(
                ingest_batch, store, batch, files, on_error=on_error, rows_per_group=rows_per_group,
                key=f"pateval-ingest-{os.path.basename(store)}-{batch}-{time.time_ns()}", pure=False,
            )
            for batch, files in numbered
        ]
        batch_of = {future.key: batch for future, (batch, _) in zip(futures, numbered, strict=False)}
        try:
            with cluster_failures(client, scheduler, timeout):
                for future in completed(client, futures, scheduler, timeout):
                    if future.status == "error":
                        future.result()  # re-raises the worker's exception here
                    record(batch_of.pop(future.key), future.result())
        except BaseException:
            if client.status == "running":  # not after losing the scheduler
                client.cancel(futures)
            raise
    finally:
        client.close()


# ---- verify, repair, drop ---------------------------------------------------------------


@dataclass
class StoreVerification:
    """What :func:`verify_store` found and did.

    Attributes
    ----------
    store : str
    mode : {"quick", "full"}
        Sizes only, or sizes and SHA-256.
    parts_checked : int
    unchecked_batches : list of int
        Batches written without part checksums (by an older pateval): not checked.
    damaged : list of DamagedPart
        The damaged parts found (before any repair).
    repaired_batches, dropped_batches : list of int
    dropped_documents : list of str
        The ucids of the documents that went with the dropped batches.
    documents : int
        Documents in the store afterwards.
    """

    store: str
    mode: str
    parts_checked: int = 0
    unchecked_batches: list[int] = field(default_factory=list)
    damaged: list[DamagedPart] = field(default_factory=list)
    repaired_batches: list[int] = field(default_factory=list)
    dropped_batches: list[int] = field(default_factory=list)
    dropped_documents: list[str] = field(default_factory=list)
    documents: int = 0

    @property
    def damaged_batches(self) -> list[int]:
        return sorted({part.batch for part in self.damaged})

    @property
    def ok(self) -> bool:
        """True when nothing is damaged, or everything damaged was repaired or dropped."""
        return set(self.damaged_batches) <= set(self.repaired_batches) | set(self.dropped_batches)


def verify_store(store: str | os.PathLike[str], *, quick: bool = False, repair: bool = False, drop: bool = False,
                 wait: float = 0.0, progress: bool = False) -> StoreVerification:
    """Check every committed part of a corpus store against its manifest; optionally
    repair or drop the damaged batches.

    Parameters
    ----------
    store : path-like
    quick : bool
        Compare sizes only (a truncated or extended part); by default also every SHA-256
        (flipped bytes).
    repair : bool
        Ingest the source files of each damaged batch again into the same batch; each file
        must still have the size and SHA-256 its manifest records, and the batch must come
        out with the same number of documents.
    drop : bool
        Remove each damaged batch (its manifest first, then its parts); the ucids of its
        documents are returned in ``dropped_documents``.
    wait : float
        Seconds to wait for an ingest writing to the store (repair and drop take its lock).
    progress : bool
        Show a progress bar (tqdm, on stderr) over the bytes hashed.

    Returns
    -------
    StoreVerification
    """
    if repair and drop:
        raise ParameterError("give repair or drop, not both")
    out = Path(store).absolute()
    read_store_manifest(out)
    mode = "quick" if quick else "full"
    if not (repair or drop):
        return _verify(out, mode, progress)
    with store_lock(out, wait=wait):
        report = _verify(out, mode, progress)
        batches = committed_batches(out)
        for batch in report.damaged_batches:
            if repair:
                _repair_batch(out, batch, batches[batch])
                report.repaired_batches.append(batch)
            else:
                report.dropped_documents.extend(_drop_batch(out, batch))
                report.dropped_batches.append(batch)
        if report.damaged_batches:
            report.documents = _write_totals(out, None, None)
        if repair:
            still, _ = check_parts(out, {b: committed_batches(out)[b] for b in report.repaired_batches}, mode="full")
            if still:
                raise InputFormatError(still[0].path, None, "still damaged after the repair: " + still[0].reason)
    return report


def _verify(out: Path, mode: str, progress: bool = False) -> StoreVerification:
    batches = committed_batches(out)
    damaged, checked = check_parts(out, batches, mode=mode, progress=progress)
    return StoreVerification(
        store=str(out), mode=mode, parts_checked=checked,
        unchecked_batches=sorted(b for b, m in batches.items() if not m.get("parts")),
        damaged=damaged, documents=sum(m.get("documents", 0) for m in batches.values()),
    )


def _repair_batch(out: Path, batch: int, manifest: dict) -> None:
    """Ingest a damaged batch's source files again, into the same batch number."""
    files = manifest.get("files", [])
    for entry in files:
        path = entry["path"]
        problem = None
        try:
            stat = os.stat(path)
        except FileNotFoundError:
            problem = "is missing"
        else:
            if stat.st_size != entry["size"] or file_sha256(path) != entry.get("sha256"):
                problem = "changed since it was ingested (size or SHA-256 differ)"
        if problem is not None:
            malformed(path, None, f"cannot repair batch {batch} of {out}: its source file {problem}; "
                                  f"remove the batch with `pateval corpus verify {out} --drop`")
    on_error = "skip" if manifest.get("errors") else "stop"
    result = ingest_batch(str(out), batch, [entry["path"] for entry in files], on_error=on_error)
    if result["documents"] != manifest.get("documents"):
        malformed(part_path(out, "documents", batch), None,
                  f"repairing batch {batch} gave {result['documents']} documents, its manifest says "
                  f"{manifest.get('documents')}; remove the batch with `pateval corpus verify {out} --drop`")
    write_batch_manifest(out, batch, {key: result[key] for key in _MANIFEST_KEYS})


def _drop_batch(out: Path, batch: int) -> list[str]:
    """Uncommit a batch (its manifest goes first) and delete its parts; returns the ucids
    of its documents (from the batch's id list, else from its documents part)."""
    ucids_file = batch_ucids_path(out, batch)
    ucids: list[str] = []
    if ucids_file.exists():
        ucids = [line.strip() for line in ucids_file.read_text(encoding="utf-8").splitlines() if line.strip()]
    else:  # a store written before the id lists: the documents part, when it still reads
        import pyarrow as pa
        import pyarrow.parquet as pq

        with contextlib.suppress(OSError, pa.ArrowException):
            ucids = pq.read_table(part_path(out, "documents", batch), columns=["ucid"]).column(0).to_pylist()
    (out / "manifest" / f"batch-{batch:06d}.json").unlink()
    for path in (*(part_path(out, table, batch) for table in TABLES), ucids_file):
        path.unlink(missing_ok=True)
    return ucids
