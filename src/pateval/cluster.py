"""The Dask cluster that scores run blocks and parses corpus batches: connecting to its
scheduler, and saying in one line what happened when it fails under a run (its scheduler
lost, no worker left, workers that cannot import pateval or do not see the files), never "a
bug in pateval".

Imports nothing heavy: :mod:`pateval.options` reads the default timeout from here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .errors import ClusterError, ParameterError

__all__ = ["DEFAULT_SCHEDULER_TIMEOUT", "connect", "cluster_failures", "completed"]

#: Seconds to wait for a scheduler to answer (when connecting, and to reconnect after losing it).
DEFAULT_SCHEDULER_TIMEOUT = 10.0


def connect(scheduler: str, timeout: float, *, feature: str) -> Any:
    """A ``distributed.Client`` of the scheduler at ``scheduler``, waiting at most ``timeout``
    seconds for it to answer (a ParameterError naming both if it does not), whose workers
    import this version of pateval (a ClusterError if one does not)."""
    import pkgutil

    from . import __version__
    from ._optional import import_optional

    distributed = import_optional("distributed", feature=feature)
    try:
        client = distributed.Client(scheduler, timeout=timeout)
    except OSError as error:  # TimeoutError too
        raise ParameterError(f"cannot reach the Dask scheduler at {scheduler} within {timeout:g} s: is it running? "
                             "(--scheduler-timeout waits longer)") from error
    try:
        # a worker that cannot unpickle pateval's tasks dies of them: ask first (a stdlib function, by reference)
        with cluster_failures(client, scheduler, timeout):
            versions = set(client.run(pkgutil.resolve_name, "pateval:__version__").values()) - {__version__}
        if versions:
            raise ClusterError(f"the Dask workers of the scheduler at {scheduler} have pateval "
                               f"{', '.join(sorted(versions))}, this is pateval {__version__}: install pateval "
                               f"{__version__} on every worker")
    except BaseException:
        client.close()
        raise
    return client


@contextmanager
def cluster_failures(client: Any, scheduler: str, timeout: float) -> Iterator[None]:
    """Within the block, Dask's failures become a :class:`~pateval.errors.ClusterError`
    saying what happened to the cluster; every other error (a bad line a worker found, a
    file missing here too) passes as it is. The client's own tracebacks (of its attempts to
    reconnect to a lost scheduler) are not logged meanwhile: the error says what they mean."""
    import logging

    client_log = logging.getLogger("distributed.client")
    client_log.addFilter(_without_traceback)
    try:
        yield
    except Exception as error:
        happened = _what_happened(error, client, scheduler, timeout)
        if happened is None:
            raise
        client.close()  # the run is over: closed here, as its reconnecting is not logged
        raise ClusterError(happened) from error
    finally:
        client_log.removeFilter(_without_traceback)


def _without_traceback(record: Any) -> bool:
    return record.exc_info is None


def completed(client: Any, futures: list, scheduler: str, timeout: float) -> Iterator[Any]:
    """The futures, each as it completes; a ClusterError when the scheduler has had no worker
    for ``timeout`` seconds (Dask would wait for one for ever)."""
    from distributed import wait

    pending = set(futures)
    while pending:
        try:
            done, pending = wait(pending, timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            if client.status == "running" and not _workers(client):
                raise ClusterError(_no_worker_left(scheduler)) from None
            continue
        yield from done


def _no_worker_left(scheduler: str) -> str:
    return f"no Dask worker left: the scheduler at {scheduler} lost every worker during the run"


def _what_happened(error: Exception, client: Any, scheduler: str, timeout: float) -> str | None:
    from distributed import KilledWorker
    from distributed.client import FutureCancelledError

    if _cannot_import_pateval(error):
        return (f"the Dask workers of the scheduler at {scheduler} cannot import pateval: install pateval (the same "
                "version) on every worker")
    if isinstance(error, FileNotFoundError) and error.filename and os.path.exists(error.filename):
        return (f"the Dask workers of the scheduler at {scheduler} cannot see {error.filename}, which is here: they "
                "need the files at the same absolute paths (shared storage, and a --work-dir on it for runs whose "
                "topics are scattered)")
    lost = f"the Dask scheduler at {scheduler} was lost (no answer within {timeout:g} s)"
    if isinstance(error, FutureCancelledError):
        if error.reason == "scheduler-connection-lost" or client.status != "running":
            return lost
        if not _workers(client):
            return _no_worker_left(scheduler)
        return f"the Dask scheduler at {scheduler} cancelled the run's work ({error.reason})"
    if isinstance(error, KilledWorker):
        return (f"the Dask workers of the scheduler at {scheduler} died while running the same task "
                f"{error.allowed_failures + 1} times (out of memory?)")
    if isinstance(error, TimeoutError) and "No valid workers" in str(error):  # the scheduler's answer to a scatter
        return f"the Dask scheduler at {scheduler} has no worker"
    if isinstance(error, OSError) and type(error).__module__.startswith("distributed"):
        return lost  # the connection to the scheduler closed
    return None


def _cannot_import_pateval(error: BaseException | None) -> bool:
    """The error, or one it came from, is a worker's failure to import pateval (Dask passes
    some as a plain Exception holding the worker's message)."""
    while error is not None:
        if "No module named 'pateval" in str(error):
            return True
        error = error.__cause__ or error.__context__
    return False


def _workers(client: Any) -> int:
    try:
        return len(client.scheduler_info()["workers"])
    except Exception:  # noqa: BLE001 -- the scheduler cannot say: it is gone too
        return 0
