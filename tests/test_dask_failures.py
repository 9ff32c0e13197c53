"""When a real Dask cluster fails under a run (issue 23, section 6): a scheduler and workers run
as `dask scheduler` and `dask worker` processes on 127.0.0.1; the user reads one line saying
what happened (exit 2), never "a bug in pateval"."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

import pateval
from pateval.cli import main
from pateval.collection import ingest as ingest_module
from pateval.errors import ParameterError
from pateval.executor import BlockScorer

distributed = pytest.importorskip("distributed")

QRELS = "".join(f"q{t} 0 D{d} {(t + d) % 3}\n" for t in range(12) for d in range(6))
RUN = "".join(f"q{t} Q0 D{(d * 5 + t) % 9} {d + 1} {10 - d} sys\n" for t in range(12) for d in range(8))
#: preloaded by a worker, it makes the worker one of a machine without pateval
NO_PATEVAL = """import sys


class NoPateval:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.split(".")[0] == "pateval":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, NoPateval())
"""


class Cluster:
    """A `dask scheduler` and its `dask worker` processes (no nanny: a worker killed stays dead),
    started in a folder of their own (their working directory is not the test's)."""

    def __init__(self, folder: Path, workers: int, *, preload: Path | None = None) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.address = f"tcp://127.0.0.1:{port}"
        folder.mkdir(exist_ok=True)
        env = {**os.environ, "PYTHONPATH": str(Path(pateval.__file__).parents[1])}
        self.scheduler = self._start(["scheduler", "--host", "127.0.0.1", "--port", str(port)], folder, env)
        extra = ["--preload", str(preload)] if preload else []
        self.workers = [self._start(["worker", self.address, "--nthreads", "1", "--no-nanny", *extra], folder, env)
                        for _ in range(workers)]

    def wait(self) -> None:
        with distributed.Client(self.address, timeout=60) as client:
            client.wait_for_workers(len(self.workers), timeout=60)

    @staticmethod
    def _start(arguments: list[str], folder: Path, env: dict) -> subprocess.Popen:
        with open(folder / f"{arguments[0]}-{time.monotonic_ns()}.log", "wb") as log:  # to read when a test fails
            return subprocess.Popen([sys.executable, "-m", "dask", *arguments, "--no-dashboard"], cwd=folder,
                                    env=env, stdout=subprocess.DEVNULL, stderr=log)

    def kill(self, processes: list[subprocess.Popen]) -> None:
        for process in processes:
            process.kill()
            process.wait()

    def close(self) -> None:
        self.kill([self.scheduler, *self.workers])


@pytest.fixture
def cluster(tmp_path):
    started: list[Cluster] = []

    def start(workers: int = 2, **keywords) -> Cluster:
        started.append(Cluster(tmp_path / "cluster", workers, **keywords))
        started[-1].wait()  # once closed by the fixture whatever happens
        return started[-1]

    yield start
    for each in started:
        each.close()


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return tmp_path


def _killing_after_submit(monkeypatch, kill) -> None:
    """The blocks are submitted, then ``kill()`` runs: the cluster fails while the run waits for them."""
    submit_all = BlockScorer.submit_all

    def submit_then_kill(self, runs):
        runs = submit_all(self, runs)
        kill()
        return runs
    monkeypatch.setattr(BlockScorer, "submit_all", submit_then_kill)


# The scheduler timeout of a run whose failure is told by an event (workers lost, an import
# that fails): long, so that a slow CI machine is never taken for a lost scheduler. _LOST where
# the timeout is part of what is tested: the lost scheduler's message names it, and an ingest
# says "no worker left" once the scheduler has had none for that long (cluster.completed). There
# the scheduler or the workers are really gone, so a slow machine only makes the test wait
# longer (cluster.completed waits again while the scheduler still lists a worker), never changes
# its outcome. The tests assert messages, exit status and the timeout given, never how long
# anything took.
_PATIENT, _LOST = "60", "5"


def _evaluate(files, capsys, address: str, *more: str, timeout: str = _PATIENT) -> tuple[int, str]:
    status = main(["evaluate", str(files / "qrels.txt"), str(files / "run.txt"), "-m", "AP", "--block-size", "200",
                   "--scheduler", address, "--scheduler-timeout", timeout, *more])
    return status, capsys.readouterr().err


def test_a_scheduler_lost_mid_run_is_said(files, cluster, capsys, monkeypatch):
    spread = cluster()
    _killing_after_submit(monkeypatch, lambda: spread.kill([spread.scheduler]))
    status, err = _evaluate(files, capsys, spread.address, timeout=_LOST)
    assert (status, err.splitlines()[-1]) == (
        2, f"pateval: error: the Dask scheduler at {spread.address} was lost (no answer within {_LOST} s)")


def test_every_worker_lost_mid_run_is_said(files, cluster, capsys, monkeypatch):
    spread = cluster()
    _killing_after_submit(monkeypatch, lambda: spread.kill(spread.workers))
    status, err = _evaluate(files, capsys, spread.address)
    assert (status, err.splitlines()[-1]) == (
        2, f"pateval: error: no Dask worker left: the scheduler at {spread.address} lost every worker during the run")


def test_every_worker_lost_under_corpus_ingest_is_said(cluster, capsys, monkeypatch, tmp_path):
    """Its batches need no data of the client's: Dask would wait for a worker for ever."""
    spread = cluster(1)
    connect = ingest_module.connect

    def connect_then_kill(*args, **keywords):
        client = connect(*args, **keywords)
        spread.kill(spread.workers)
        return client
    monkeypatch.setattr(ingest_module, "connect", connect_then_kill)
    _xml(tmp_path / "xml")
    assert main(["corpus", "ingest", str(tmp_path / "xml"), "--out", str(tmp_path / "store"), "--scheduler",
                 spread.address, "--scheduler-timeout", _LOST, "--no-progress"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"pateval: error: no Dask worker left: the scheduler at {spread.address} lost every worker during the run")


def _xml(folder: Path) -> None:
    folder.mkdir()
    (folder / "EP-0000001-A1.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<patent-document ucid="EP-0000001-A1" country="EP" '
        'doc-number="0000001" kind="A1" lang="EN" date="20000517"><claims lang="EN"><claim num="1"><claim-text>'
        'A device.</claim-text></claim></claims></patent-document>\n', encoding="utf-8")


def test_workers_without_pateval_are_said(files, cluster, capsys, tmp_path):
    (tmp_path / "no_pateval.py").write_text(NO_PATEVAL)
    spread = cluster(1, preload=tmp_path / "no_pateval.py")
    message = (f"pateval: error: the Dask workers of the scheduler at {spread.address} cannot import pateval: install "
               "pateval (the same version) on every worker")
    status, err = _evaluate(files, capsys, spread.address)
    assert (status, err.splitlines()[-1]) == (2, message)
    # corpus ingest sends its batches without scattering data first: its workers are asked too
    _xml(tmp_path / "xml")
    assert main(["corpus", "ingest", str(tmp_path / "xml"), "--out", str(tmp_path / "store"), "--scheduler",
                 spread.address, "--scheduler-timeout", _PATIENT, "--no-progress"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == message


def test_a_scheduler_not_running_is_said_with_the_timeout_given(files, capsys, monkeypatch):
    import distributed

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{probe.getsockname()[1]}"
    waits = []  # the connect timeout the client is given (it was a fixed 30 s): behaviour, not a clock

    class Client(distributed.Client):
        def __init__(self, *args, **kwargs):
            waits.append(kwargs.get("timeout"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(distributed, "Client", Client)
    status = main(["evaluate", str(files / "qrels.txt"), str(files / "run.txt"), "-m", "AP", "--scheduler", address,
                   "--scheduler-timeout", "1"])
    assert waits == [1.0]
    assert (status, capsys.readouterr().err.splitlines()[-1]) == (
        2, f"pateval: error: cannot reach the Dask scheduler at {address} within 1 s: is it running? "
        "(--scheduler-timeout waits longer)")


@pytest.mark.parametrize("value", ["0", "-1", "soon"])
def test_the_scheduler_timeout_is_a_positive_number_of_seconds(files, capsys, value):
    with pytest.raises(SystemExit) as caught:
        main(["evaluate", str(files / "qrels.txt"), str(files / "run.txt"), "--scheduler-timeout", value])
    assert caught.value.code == 2
    assert f"argument --scheduler-timeout: not a number of seconds > 0: '{value}'" in capsys.readouterr().err
    with pytest.raises(ParameterError, match="scheduler_timeout must be a number of seconds > 0, not 0"):
        pateval.evaluate(files / "qrels.txt", files / "run.txt", "AP", scheduler_timeout=0)


def test_relative_run_paths_and_work_dir_are_sent_absolute(files, cluster, capsys, monkeypatch):
    spread = cluster(1)  # working in a folder of its own
    lines = RUN.replace(" sys", " scattered").splitlines(keepends=True)
    (files / "scattered.txt").write_text("".join(lines[1::2] + lines[::2]))  # a topic in two blocks: partitioned
    monkeypatch.chdir(files)
    command = ["evaluate", "qrels.txt", "run.txt", "scattered.txt", "-m", "AP", "--block-size", "200"]
    assert main(command) == 0
    here = capsys.readouterr().out
    assert main([*command, "--scheduler", spread.address, "--work-dir", "parts"]) == 0
    assert capsys.readouterr().out == here
    assert not any(Path("parts").iterdir())  # the parts removed afterwards


#: preloaded by a worker, it makes the worker one of a machine that does not see the folder "unseen"
NOT_SHARED = """import _io
import builtins
import io


def open_seen(file, *args, **keywords):
    if "unseen" in str(file):
        raise FileNotFoundError(2, "No such file or directory", str(file))
    return _io.open(file, *args, **keywords)


builtins.open = io.open = open_seen
"""


def test_a_file_the_workers_do_not_see_is_said(files, cluster, capsys, tmp_path):
    (tmp_path / "not_shared.py").write_text(NOT_SHARED)
    spread = cluster(1, preload=tmp_path / "not_shared.py")
    (files / "unseen").mkdir()
    (files / "unseen" / "run.txt").write_text(RUN)
    status = main(["evaluate", str(files / "qrels.txt"), str(files / "unseen" / "run.txt"), "-m", "AP",
                   "--scheduler", spread.address])
    assert (status, capsys.readouterr().err.splitlines()[-1]) == (
        2, f"pateval: error: the Dask workers of the scheduler at {spread.address} cannot see "
        f"{files / 'unseen' / 'run.txt'}, which is here: they need the files at the same absolute paths (shared "
        "storage, and a --work-dir on it for runs whose topics are scattered)")


def test_workers_with_another_version_of_pateval_are_said(files, cluster, capsys, tmp_path):
    (tmp_path / "old_pateval.py").write_text("import pateval\n\npateval.__version__ = '0.0.9'\n")
    spread = cluster(1, preload=tmp_path / "old_pateval.py")
    status, err = _evaluate(files, capsys, spread.address)
    assert (status, err.splitlines()[-1]) == (
        2, f"pateval: error: the Dask workers of the scheduler at {spread.address} have pateval 0.0.9, this is pateval "
        f"{pateval.__version__}: install pateval {pateval.__version__} on every worker")


def test_workers_dying_of_a_task_are_said():
    """Dask gives up on a task after the workers running it died (allowed-failures) times."""
    from distributed import KilledWorker

    from pateval.cluster import cluster_failures
    from pateval.errors import ClusterError

    client = SimpleNamespace(close=lambda: None)
    with pytest.raises(ClusterError) as caught, cluster_failures(client, "tcp://127.0.0.1:8786", 10):
        raise KilledWorker("score_block-1", SimpleNamespace(address="tcp://127.0.0.1:40000"), 3)
    assert str(caught.value) == ("the Dask workers of the scheduler at tcp://127.0.0.1:8786 died while running the "
                                 "same task 4 times (out of memory?)")
