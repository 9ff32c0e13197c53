"""``pateval fuse`` and ``pateval pool build|stats`` on the command line."""

from __future__ import annotations

import pytest

from pateval.cli import main
from pateval.formats.pools import read_pool


@pytest.fixture
def runs(tmp_path):
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text("q Q0 d1 1 3 a\nq Q0 d2 2 2 a\nq Q0 d3 3 1 a\n")
    b.write_text("q Q0 d2 1 3 b\nq Q0 d4 2 2 b\n")
    return [str(a), str(b)]


def test_fuse_prints_a_trec_run(runs, capsys):
    assert main(["fuse", *runs, "--method", "rrf", "--k", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"q Q0 d2 1 {1 / 2 + 1!r} rrf"
    assert [line.split()[2] for line in lines] == ["d2", "d1", "d4", "d3"]


def test_fuse_writes_the_run_file(runs, tmp_path, capsys):
    out = tmp_path / "fused.txt"
    assert main(["fuse", *runs, "--method", "combmnz", "--norm", "sum", "--name", "mnz", "-o", str(out)]) == 0
    # sum: a gives d2 (2 - 1) / (6 - 3 * 1) = 1/3, b (3 - 2) / (5 - 2 * 2) = 1; MNZ: (1/3 + 1) * 2 runs
    assert out.read_text().splitlines()[0].split()[2:] == ["d2", "1", repr((1 / 3 + 1) * 2), "mnz"]


def test_fuse_refuses_a_normalisation_of_ranks_in_one_line(runs, capsys):
    assert main(["fuse", *runs, "--method", "borda", "--norm", "z-score"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "borda fuses ranks" in err


def test_pool_build_and_stats(runs, tmp_path, capsys):
    pool = tmp_path / "pool.txt"
    assert main(["pool", "build", *runs, "--method", "depth", "--depth", "2", "-o", str(pool), "--stats"]) == 0
    err = capsys.readouterr().err
    assert "pooled 3 documents over 1 topics from 2 runs" in err and "a\t2\t1" in err
    assert read_pool(pool).docno.tolist() == ["d2", "d1", "d4"]
    assert main(["pool", "stats", str(pool)]) == 0
    assert "q\t3" in capsys.readouterr().out


def test_pool_build_adaptive_needs_qrels(runs, tmp_path, capsys):
    assert main(["pool", "build", *runs, "--method", "mtf", "-o", str(tmp_path / "p.txt")]) == 2
    assert "give qrels" in capsys.readouterr().err
    assert not (tmp_path / "p.txt").exists()
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q 0 d2 1\nq 0 d4 1\n")
    assert main(["pool", "build", *runs, "--method", "mtf", "--qrels", str(qrels), "--size", "2",
                 "-o", str(tmp_path / "p.txt")]) == 0
    assert read_pool(tmp_path / "p.txt").docno.tolist() == ["d1", "d2"]


def test_a_misspelt_pool_method_is_a_usage_error(runs, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["pool", "build", *runs, "--method", "mft", "-o", str(tmp_path / "p.txt")])
    assert exit_.value.code == 2 and "invalid choice: 'mft'" in capsys.readouterr().err
