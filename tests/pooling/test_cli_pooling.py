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


ROBUST = ("InexpC2", "MU03rob01", "NLPR03vb10", "SABIR03BASE", "Sel50", "uic0301")


def test_pool_simulate_writes_the_table_and_the_figure(test_data, tmp_path, capsys):
    runs = [str(test_data / "pooling" / f"{name}.txt") for name in ROBUST]
    qrels = str(test_data / "pooling" / "robust03_qrels.txt")
    out = tmp_path / "table.csv"
    assert main(["pool", "simulate", qrels, *runs, "--budgets", "10,400", "--orders", "depth,mtf", "--format", "csv",
                 "--plots", str(tmp_path / "fig"), "-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "order,budget,judgements,relevant_found,found_per_judgement,tau,tau_ap,max_rank_change"
    assert len(lines) == 5 and lines[2].startswith("depth,400,1715,")
    assert (tmp_path / "fig" / "budgets.png").stat().st_size > 0


def test_pool_simulate_refuses_a_misspelt_order_and_bad_budgets(test_data, tmp_path, capsys):
    runs = [str(test_data / "pooling" / f"{name}.txt") for name in ROBUST[:2]]
    qrels = str(test_data / "pooling" / "robust03_qrels.txt")
    assert main(["pool", "simulate", qrels, *runs, "--budgets", "10", "--orders", "depth,mft"]) == 2
    assert "pool method" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["pool", "simulate", qrels, *runs, "--budgets", "10,0"])
    assert "budgets are comma-separated positive integers" in capsys.readouterr().err


def test_pool_reuse_by_group(test_data, tmp_path, capsys):
    runs = [str(test_data / "pooling" / f"{name}.txt") for name in ROBUST]
    qrels = str(test_data / "pooling" / "robust03_qrels.txt")
    groups = tmp_path / "groups.txt"
    groups.write_text("".join(f"{name} team{i // 2}\n" for i, name in enumerate(ROBUST)))
    assert main(["pool", "reuse", qrels, *runs, "--depth", "20", "--groups", str(groups), "--format", "json"]) == 0
    import json

    rows = json.loads(capsys.readouterr().out)
    assert [row["left_out"] for row in rows] == ["team0", "team0", "team1", "team1", "team2", "team2"]
    groups.write_text("InexpC2 a\nInexpC2 b\n")
    assert main(["pool", "reuse", qrels, *runs, "--groups", str(groups)]) == 2
    assert "line 2: run 'InexpC2' listed twice (first on line 1)" in capsys.readouterr().err


def test_pool_sample_and_estimate(test_data, tmp_path, capsys):
    runs = [str(test_data / "pooling" / f"{name}.txt") for name in ROBUST]
    qrels = str(test_data / "pooling" / "robust03_qrels.txt")
    pool = tmp_path / "pool.txt"
    assert main(["pool", "build", *runs, "--depth", "100", "-o", str(pool)]) == 0
    to_judge = tmp_path / "sample.txt"
    assert main(["pool", "sample", str(pool), "--strata", "1-20:1,21-100:0.5,101-:0.2", "--seed", "3",
                 "-o", str(to_judge)]) == 0
    assert to_judge.read_text().startswith("# topic docno stratum probability sampled\n")
    sampled = tmp_path / "sampled_qrels.txt"
    assert main(["pool", "sample", str(pool), "--strata", "1-20:1,21-100:0.5,101-:0.2", "--seed", "3",
                 "--qrels", qrels, "-o", str(sampled)]) == 0
    # the same draw as the test data's sampled qrels (made by this command, judged by the robust qrels)
    assert sampled.read_text() == (test_data / "sampling" / "robust03_sampled_qrels.txt").read_text()
    capsys.readouterr()
    assert main(["pool", "estimate", str(sampled), runs[4]]) == 0
    out = capsys.readouterr().out.splitlines()
    expected = {line.split()[0]: line.split()[2] for line in
                (test_data / "sampling" / "Sel50.sample_eval").read_text().splitlines() if "\tall\t" in line}
    assert f"Sel50\txinfAP\tall\t{expected['infAP']}" in out and f"Sel50\tinfNDCG\tall\t{expected['infNDCG']}" in out


def test_pool_sample_refuses_a_rate_outside_0_1(tmp_path, runs, capsys):
    pool = tmp_path / "pool.txt"
    assert main(["pool", "build", *runs, "-o", str(pool)]) == 0
    assert main(["pool", "sample", str(pool), "--strata", "1-:1.5", "-o", str(tmp_path / "s.txt")]) == 2
    assert "must lie in (0, 1]" in capsys.readouterr().err and not (tmp_path / "s.txt").exists()
