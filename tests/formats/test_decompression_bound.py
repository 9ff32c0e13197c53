"""A compressed input decompresses within a bound (issue 34): a small "bomb" is refused in
one line naming the file, its memory bounded, whichever reader reads it (the whole-file
readers, the streamed one, standard input); the bound is set by PATEVAL_MAX_DECOMPRESSED
or max_decompressed()."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tracemalloc

import pytest

from pateval.cli import main
from pateval.errors import InputFormatError, ParameterError
from pateval.formats import source
from pateval.formats.qrels import read_qrels
from pateval.formats.trec import read_run

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d4 1\nq2 0 d5 1\n"
RUN = "q1 Q0 d1 1 3.0 bm25\nq1 Q0 d2 2 2.0 bm25\nq2 Q0 d4 1 1.0 bm25\n"
COMPRESSORS = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}


def _xz_bomb(path, mib: int) -> None:
    """``mib`` MiB of zero bytes as xz (about 15 KB for 100 MiB), made a MiB at a time."""
    packer = lzma.LZMACompressor()
    zeros = bytes(1 << 20)
    with open(path, "wb") as handle:
        for _ in range(mib):
            handle.write(packer.compress(zeros))
        handle.write(packer.flush())


def test_a_bomb_is_refused_at_the_default_bound_in_bounded_memory(tmp_path):
    bomb = tmp_path / "qrels.xz"
    _xz_bomb(bomb, 200)
    size = bomb.stat().st_size
    assert size < 100_000  # 200 MiB in under 100 KB: far beyond what text compresses to
    tracemalloc.start()
    try:
        with pytest.raises(InputFormatError) as raised:
            read_qrels(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(raised.value) == (f"{bomb}: the xz data decompresses to more than 64 MiB (from {size / 1024:.4g} KiB): "
                                 "refused as a decompression bomb; set PATEVAL_MAX_DECOMPRESSED (e.g. 8G) to read more")
    assert peak < 160 << 20  # the bound (64 MiB) and its copy, never the 200 MiB


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_the_bound_applies_to_every_compression_and_reader(tmp_path, kind, monkeypatch):
    packed = tmp_path / f"run.{kind}"
    packed.write_bytes(COMPRESSORS[kind](RUN.encode()))
    assert len(read_run(packed)) == 3
    with source.max_decompressed(len(RUN) - 1), pytest.raises(InputFormatError, match=rf"^{packed}: the {kind} data "
                                                                   r"decompresses to more than \d+ bytes"):
        read_run(packed)
    with source.max_decompressed(len(RUN)):  # exactly the bound: read
        assert len(read_run(packed)) == 3
    # the streamed reader (patent XML, APS text) and standard input
    with source.max_decompressed(10), pytest.raises(InputFormatError, match="decompression bomb"), \
            source.open_stream(packed) as stream:
        stream.read()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(COMPRESSORS[kind](RUN.encode()))))
    with source.streams_kept(), source.max_decompressed(10), pytest.raises(InputFormatError, match="bomb"):
        source.read_bytes("-")


def test_the_bound_from_the_environment(tmp_path, monkeypatch, capsys):
    qrels, run = tmp_path / "qrels.gz", tmp_path / "run.txt"
    qrels.write_bytes(gzip.compress(QRELS.encode()))
    run.write_text(RUN)
    monkeypatch.setenv("PATEVAL_MAX_DECOMPRESSED", "10")
    assert main(["evaluate", str(qrels), str(run), "-m", "P@1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pateval: error: {qrels}: the gzip data decompresses to more than 10 bytes") and \
        err.count("\n") == 1
    for given, expected in (("1k", 1024), ("2M", 2 << 20), ("8G", 8 << 30), ("500", 500), ("3 MiB", 3 << 20)):
        monkeypatch.setenv("PATEVAL_MAX_DECOMPRESSED", given)
        assert source.decompression_limit(1) == expected
    monkeypatch.setenv("PATEVAL_MAX_DECOMPRESSED", "1k")
    assert main(["evaluate", str(qrels), str(run), "-m", "P@1"]) == 0
    monkeypatch.setenv("PATEVAL_MAX_DECOMPRESSED", "lots")
    with pytest.raises(ParameterError, match="PATEVAL_MAX_DECOMPRESSED must be a size such as 8G"):
        read_qrels(qrels)


def test_multi_member_files_and_trailing_zeros_read_as_before(tmp_path):
    path = tmp_path / "q.gz"
    path.write_bytes(gzip.compress(QRELS[:20].encode()) + gzip.compress(QRELS[20:].encode()) + bytes(16))
    assert len(read_qrels(path)) == 5
    path = tmp_path / "q.bz2"
    path.write_bytes(bz2.compress(QRELS[:20].encode()) + bz2.compress(QRELS[20:].encode()))
    assert len(read_qrels(path)) == 5
    path = tmp_path / "q.xz"
    path.write_bytes(lzma.compress(QRELS[:20].encode()) + lzma.compress(QRELS[20:].encode()))
    assert len(read_qrels(path)) == 5
    path.write_bytes(gzip.compress(QRELS.encode()) + b"garbage")
    with pytest.raises(InputFormatError, match="not valid gzip data"):
        read_qrels(path)
