"""A corpus store that knows it is damaged: checksums in the manifests, `corpus verify`,
refusal with one line by every command that opens the store, repair, drop, and one
writer at a time (tested with separate processes)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pateval import api
from pateval.cli import main
from pateval.collection.ingest import ingest, store_lock, verify_store
from pateval.collection.store import TABLES, CorpusStore, committed_batches, part_path
from pateval.errors import InputFormatError

DATA = Path(__file__).resolve().parents[1] / "data" / "uspto"
SAMPLES = ("US20010000044A1.xml", "US20010000943A1.xml", "pa040101.two.xml", "US06336130.xml",
           "USD435854S1.xml", "US03937375.greenbook", "US04347903.greenbook")


def _counts(store: Path) -> dict[str, int]:
    with CorpusStore(store) as opened:
        return {table: opened.count(table) for table in TABLES}


@pytest.fixture()
def corpus(tmp_path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name in SAMPLES:
        shutil.copy(DATA / name, folder / name)
    return folder


@pytest.fixture()
def store(corpus, tmp_path) -> Path:
    out = tmp_path / "store"
    # Small batches: several batches, so that one can be repaired or dropped alone.
    ingest(corpus, out, workers=1, batch_bytes=100_000)
    return out


def _batch_of(store: Path, name: str) -> int:
    for batch, manifest in committed_batches(store).items():
        if any(entry["path"].endswith(name) for entry in manifest["files"]):
            return batch
    raise AssertionError(name)


def _expected_line(part: Path, store: Path, batch: int, reason: str) -> str:
    return (f"{part}: damaged corpus store part (batch {batch}: {reason}); run `pateval corpus verify {store} "
            f"--repair` to re-ingest the batch's source files, or `--drop` to remove the batch")


def test_manifest_records_each_part_size_mtime_and_checksum(store):
    import hashlib

    batches = committed_batches(store)
    assert len(batches) >= 3
    for batch, manifest in batches.items():
        assert set(manifest["parts"]) == set(TABLES)
        for table, recorded in manifest["parts"].items():
            path = part_path(store, table, batch)
            assert recorded["file"] == f"{table}/{path.name}"
            assert recorded["size"] == path.stat().st_size
            assert recorded["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        listed = (store / "manifest" / f"batch-{batch:06d}.ucids").read_text().split()
        assert len(listed) == manifest["documents"]


def test_clean_store_verifies(store, capsys):
    assert main(["corpus", "verify", str(store)]) == 0
    out = capsys.readouterr().out
    batches = len(committed_batches(store))
    assert out == f"store {store}: {4 * batches} parts checked (sizes and SHA-256), 0 damaged, 7 documents\n"


def _truncate(path: Path, keep: int = 100) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:keep])


def _flip(path: Path, at: int | None = None) -> None:
    # File times tick with the kernel's coarse clock (a few ms): damage written in the
    # same tick as the part would keep its mtime, which only the DuckDB-error path sees
    # (test_damage_that_kept_the_modification_time_...); real damage comes later.
    time.sleep(0.05)
    data = bytearray(path.read_bytes())
    at = len(data) // 2 if at is None else at
    data[at] ^= 0xFF
    data[at + 1] ^= 0x55
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", ["truncate", "flip"])
def test_every_command_names_the_damaged_part(store, tmp_path, capsys, damage):
    batch = _batch_of(store, "US06336130.xml")
    part = part_path(store, "passages", batch)
    size = part.stat().st_size
    if damage == "truncate":
        _truncate(part)
        reason = f"100 bytes, the manifest says {size:,}"
    else:
        _flip(part)
        reason = "its SHA-256 differs from the manifest's"
    line = _expected_line(part, store, batch, reason)
    with pytest.raises(InputFormatError) as caught:
        api.open_corpus(store)
    assert str(caught.value) == line
    commands = [
        ["corpus", "lengths", str(store), "--out", str(tmp_path / "lengths.txt")],
        ["collection", "build", "--store", str(store), "--out", str(tmp_path / "collection")],
        ["index", "--store", str(store), "--out", str(tmp_path / "index")],
        ["corpus", "ingest", str(DATA / "US06336130.xml"), "--out", str(store), "--no-progress"],
    ]
    for command in commands:
        capsys.readouterr()
        assert main(command) == 2, command
        captured = capsys.readouterr()
        assert captured.err == f"pateval: error: {line}\n", command
    assert not (tmp_path / "lengths.txt").exists()
    # verify: exit 1, the part named; --quick sees a truncation but not same-size flipped bytes.
    capsys.readouterr()
    assert main(["corpus", "verify", str(store)]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith(f"damaged: {part} (batch {batch}: {reason})\n")
    assert captured.err == f"pateval: {line}\n"
    assert main(["corpus", "verify", str(store), "--quick"]) == (1 if damage == "truncate" else 0)


@pytest.mark.parametrize("table", ["documents", "claims"])
def test_repair_gives_the_counts_of_a_clean_ingest(store, corpus, tmp_path, capsys, table):
    clean = _counts(store)
    fresh = tmp_path / "fresh"
    ingest(corpus, fresh, workers=1)
    assert _counts(fresh) == clean
    batch = _batch_of(store, "US20010000943A1.xml")
    _truncate(part_path(store, table, batch))
    other = _batch_of(store, "US04347903.greenbook")
    _flip(part_path(store, "citations", other))
    assert main(["corpus", "verify", str(store), "--repair"]) == 0
    out = capsys.readouterr().out
    assert f"repaired: batch {min(batch, other)}\nrepaired: batch {max(batch, other)}\n" in out
    assert out.endswith(", 2 damaged, 2 batches repaired, 7 documents\n")
    assert _counts(store) == clean
    report = verify_store(store)
    assert report.damaged == [] and report.ok
    with CorpusStore(store) as opened:
        assert opened.duplicates().empty


def test_repair_refuses_when_a_source_file_changed(store, corpus):
    batch = _batch_of(store, "US06336130.xml")
    _truncate(part_path(store, "documents", batch))
    source = corpus / "US06336130.xml"
    source.write_bytes(source.read_bytes().replace(b"Arrangement for improving", b"Arrangement for impairing"))
    with pytest.raises(InputFormatError) as caught:
        verify_store(store, repair=True)
    assert str(caught.value) == (
        f"{source}: cannot repair batch {batch} of {store}: its source file changed since it was ingested "
        f"(size or SHA-256 differ); remove the batch with `pateval corpus verify {store} --drop`")


def test_drop_removes_the_batch_and_says_which_documents_went(store, capsys):
    before = _counts(store)
    batch = _batch_of(store, "US03937375.greenbook")
    gone = (store / "manifest" / f"batch-{batch:06d}.ucids").read_text().split()
    assert "US-3937375-A" in gone
    _flip(part_path(store, "documents", batch))
    assert main(["corpus", "verify", str(store), "--drop"]) == 0
    out = capsys.readouterr().out
    assert f"dropped: batches {batch}, {len(gone)} documents: {' '.join(gone)}\n" in out
    assert out.endswith(f", 1 damaged, 1 batch dropped, {before['documents'] - len(gone)} documents\n")
    after = _counts(store)
    assert after["documents"] == before["documents"] - len(gone)
    assert not part_path(store, "documents", batch).exists()
    assert json.loads((store / "manifest.json").read_text())["documents"] == after["documents"]
    # The dropped files are ingested again by the next ingest (they are no longer in the store).
    summary = ingest(Path(store).parent / "corpus", store, workers=1)
    assert summary.documents == len(gone)
    assert _counts(store) == before


# ---- one writer at a time: separate processes -------------------------------------------------

_HOLD = """
import sys, time
from pathlib import Path
from pateval.collection.ingest import store_lock
with store_lock(sys.argv[1]):
    Path(sys.argv[2]).write_text("held")
    while not Path(sys.argv[3]).exists():
        time.sleep(0.05)
"""


def _python(*args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            **kwargs)


def _pateval(*args: str) -> subprocess.Popen:
    return _python("-c", "import sys; from pateval.cli import main; sys.exit(main(sys.argv[1:]))", *args)


def test_second_ingest_refuses_or_waits_for_the_lock(corpus, tmp_path):
    out = tmp_path / "store"
    held, release = tmp_path / "held", tmp_path / "release"
    holder = _python("-c", _HOLD, str(out), str(held), str(release))
    try:
        deadline = time.monotonic() + 60
        while not held.exists():
            assert holder.poll() is None and time.monotonic() < deadline, holder.communicate()
            time.sleep(0.05)
        refused = _pateval("corpus", "ingest", str(corpus), "--out", str(out), "--workers", "1", "--no-progress")
        _, err = refused.communicate(timeout=120)
        assert refused.returncode == 2
        assert err.startswith(f"pateval: error: {out}: another pateval ingest is writing to this store "
                              f"(process {holder.pid}, since ")
        assert err.endswith("); let it finish, or give --wait SECONDS to wait for it\n")
        assert not (out / "manifest.json").exists()
        waiting = _pateval("corpus", "ingest", str(corpus), "--out", str(out), "--workers", "1", "--no-progress",
                           "--wait", "120")
        time.sleep(1.0)
        assert waiting.poll() is None  # still waiting for the lock
        release.write_text("go")
        stdout, err = waiting.communicate(timeout=120)
        assert waiting.returncode == 0, err
        assert f"store {out}: 7 documents" in stdout
    finally:
        release.write_text("go")
        holder.wait(timeout=60)


def test_two_ingests_at_once_write_nothing_twice(corpus, tmp_path):
    out = tmp_path / "store"
    runs = [_pateval("corpus", "ingest", str(corpus), "--out", str(out), "--workers", "1", "--no-progress",
                     "--wait", "120") for _ in range(2)]
    outputs = [run.communicate(timeout=240) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    written = sorted(int(stdout.split()[1]) for stdout, _ in outputs)  # "documents N  files ..."
    assert written == [0, 7]
    counts = _counts(out)
    assert counts["documents"] == 7
    with CorpusStore(out) as opened:
        assert opened.duplicates().empty
    assert verify_store(out).damaged == []
    assert not any(name.startswith(".") and name.endswith(".tmp") for name in os.listdir(out / "documents"))


def test_lock_is_reentrant_across_calls_in_one_process(tmp_path):
    with store_lock(tmp_path / "s"):
        pass
    with store_lock(tmp_path / "s"):
        pass


def test_damage_that_kept_the_modification_time_is_named_when_a_query_meets_it(store):
    # Bit rot: the bytes change, the size and mtime do not; the size check on opening
    # cannot see it, the DuckDB read that meets the part names it.
    batch = _batch_of(store, "US06336130.xml")
    part = part_path(store, "passages", batch)
    stat = part.stat()
    data = bytearray(part.read_bytes())
    data[-8:-4] = b"\x00\x00\x00\x00"  # the footer length: the file no longer reads
    part.write_bytes(bytes(data))
    os.utime(part, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    with pytest.raises(InputFormatError) as caught, CorpusStore(store) as opened:
        opened.count("passages")
    assert str(caught.value) == _expected_line(part, store, batch, "its SHA-256 differs from the manifest's")


def test_source_checksums_taken_while_parsing_equal_a_separate_read(store, corpus):
    import hashlib

    for manifest in committed_batches(store).values():
        for entry in manifest["files"]:
            assert entry["sha256"] == hashlib.sha256(Path(entry["path"]).read_bytes()).hexdigest()


def test_a_directory_that_is_not_a_store_is_refused_without_a_lock_file_left_in_it(corpus, tmp_path):
    folder = tmp_path / "documents"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(InputFormatError) as caught:
        ingest(corpus, folder, workers=1)
    assert str(caught.value) == (f"{folder}: not a corpus store (no manifest.json); "
                                 "create one with `pateval corpus ingest`")
    assert sorted(os.listdir(folder)) == ["notes.txt"]


def _rot_in_place(part: Path) -> None:
    """Bit rot: the footer length zeroed, size and modification time kept (what the check on
    opening cannot see)."""
    stat = part.stat()
    data = bytearray(part.read_bytes())
    data[-8:-4] = b"\x00\x00\x00\x00"
    part.write_bytes(bytes(data))
    os.utime(part, ns=(stat.st_atime_ns, stat.st_mtime_ns))


@pytest.mark.parametrize("which", ["first", "last"])
@pytest.mark.parametrize("table", ["documents", "citations"])
def test_collection_build_names_a_part_damaged_in_place(store, tmp_path, capsys, which, table):
    # The first batch's part is read when the build's views are made, a later one by the
    # build's queries: both come out as the store's one line, not a DuckDB error.
    batches = sorted(committed_batches(store))
    batch = batches[0] if which == "first" else batches[-1]
    part = part_path(store, table, batch)
    _rot_in_place(part)
    line = _expected_line(part, store, batch, "its SHA-256 differs from the manifest's")
    capsys.readouterr()
    assert main(["collection", "build", "--store", str(store), "--out", str(tmp_path / "collection")]) == 2
    assert capsys.readouterr().err == f"pateval: error: {line}\n"
    with pytest.raises(InputFormatError) as caught:
        api.build_collection(store, tmp_path / "collection-api")
    assert str(caught.value) == line


def test_a_query_error_on_a_sound_store_is_raised_as_it_is(store):
    import duckdb

    with CorpusStore(store) as opened, pytest.raises(duckdb.Error) as caught:
        opened.sql("SELECT no_such_column FROM documents")
    assert not isinstance(caught.value, InputFormatError)
    assert "no_such_column" in str(caught.value)
