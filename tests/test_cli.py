"""The `pateval evaluate` and `pateval measures` commands: output shapes and exit codes."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

from pateval import tuning
from pateval.cli import main


def _files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n")
    run_a = tmp_path / "a.run"
    run_a.write_text("q1 Q0 d1 1 2.0 A\nq1 Q0 d2 2 1.0 A\nq2 Q0 d3 1 1.0 A\n")
    run_b = tmp_path / "b.run"
    run_b.write_text("q1 Q0 d2 1 2.0 B\nq1 Q0 d1 2 1.0 B\nq2 Q0 d9 1 1.0 B\n")
    return qrels, run_a, run_b


def test_trec_eval_style_output(tmp_path, capsys):
    qrels, run_a, _ = _files(tmp_path)
    assert main(["evaluate", str(qrels), str(run_a), "-m", "AP", "-m", "NumRet", "-q"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "AP                    \tq1\t1.0000",
        "AP                    \tq2\t1.0000",
        "AP                    \tall\t1.0000",
        "NumRet                \tq1\t2",
        "NumRet                \tq2\t1",
        "NumRet                \tall\t3",
    ]


def test_several_runs_get_a_run_column_and_json_csv_carry_the_same_rows(tmp_path, capsys):
    qrels, run_a, run_b = _files(tmp_path)
    main(["evaluate", str(qrels), str(run_a), str(run_b), "-m", "P@1"])
    text = capsys.readouterr().out.splitlines()
    assert text == ["A\tP@1                   \tall\t1.0000", "B\tP@1                   \tall\t0.0000"]
    main(["evaluate", str(qrels), str(run_a), str(run_b), "-m", "P@1", "--format", "json"])
    records = json.loads(capsys.readouterr().out)
    assert records == [{"run": "A", "measure": "P@1", "topic": "all", "value": 1.0},
                       {"run": "B", "measure": "P@1", "topic": "all", "value": 0.0}]
    main(["evaluate", str(qrels), str(run_a), str(run_b), "-m", "P@1", "--format", "csv"])
    assert capsys.readouterr().out.splitlines() == ["run,measure,topic,value", "A,P@1,all,1", "B,P@1,all,0"]


def test_bad_input_exits_2_with_one_clear_line_and_writes_nothing(tmp_path, capsys):
    qrels, run_a, _ = _files(tmp_path)
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 2.0 A\nq1 Q0 d2 2 oops A\n")
    out = tmp_path / "results.txt"
    assert main(["evaluate", str(qrels), str(run_a), str(bad), "-m", "AP", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == (f"pateval: error: {bad}, line 2: the score (5th column) is not a number "
                   "(expected a decimal number, found 'oops')\n")
    assert not out.exists()
    assert list(tmp_path.glob("*.part")) == []


def test_unknown_measure_exits_2(tmp_path, capsys):
    qrels, run_a, _ = _files(tmp_path)
    assert main(["evaluate", str(qrels), str(run_a), "-m", "MAP@x"]) == 2
    assert "pateval: error: cannot read measure name 'MAP@x'" in capsys.readouterr().err


def test_output_file_and_notes(tmp_path, capsys):
    qrels, _, run_b = _files(tmp_path)
    out = tmp_path / "res.txt"
    assert main(["evaluate", str(qrels), str(run_b), "-m", "AP", "-o", str(out)]) == 0
    assert out.read_text() == "AP                    \tall\t0.2500\n"
    assert "pateval: note: means are over topics in both the qrels and the run" in capsys.readouterr().err


def test_example_runs_from_a_fresh_process():
    done = subprocess.run([sys.executable, "-m", "pateval.cli", "evaluate", "--example", "-m", "AP"],
                          capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert [line.split("\t")[0] for line in lines] == ["run1", "run2", "run3"]


def test_measures_listing(capsys):
    assert main(["measures", "--format", "json"]) == 0
    names = {m["name"] for m in json.loads(capsys.readouterr().out)}
    assert {"AP", "P", "nDCG", "Bpref"} <= names


def test_measures_listing_gives_each_professional_measures_parameters_defaults_and_reference(capsys):
    from pateval.measures import all_specs

    assert main(["measures", "--format", "json"]) == 0
    listed = {m["name"]: m for m in json.loads(capsys.readouterr().out)}
    specs = {spec.name: spec for spec in all_specs()}
    assert listed.keys() == specs.keys()
    for name in ("PRES", "TBG", "CT", "ACT", "CT_pgc", "alpha_nDCG", "ERR_IA", "D_nDCG"):
        spec, row = specs[name], listed[name]
        assert row["formula"] == spec.formula and row["reference"] == spec.reference
        assert [p.split(" (")[0] for p in row["parameters"]] == [p.name for p in spec.params]
    ct = dict(p.split(" (", 1) for p in listed["CT"]["parameters"])
    assert ct["gamma"].startswith("float, in [0, 1]; default 0.5)")
    assert ct["time"].startswith("str, one of rank|tbg|words150; default rank)")
    assert "Luo, Wing, Yang & Hearst" in listed["CT"]["reference"]
    assert dict(p.split(" (",
                        1) for p in listed["ERR_IA"]["parameters"])["compat"].startswith("str, one of none|ndeval")


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_measures_listing_formats(capsys, fmt):
    assert main(["measures", "--format", fmt, "--family", "standard"]) == 0
    assert "Bpref" in capsys.readouterr().out


def _example_args():
    from pateval.api import example_files

    qrels, runs = example_files()
    return ["--qrels", str(qrels), *[str(r) for r in runs]]


def test_stability_table_is_seeded_and_written_in_every_format(tmp_path, capsys):
    args = ["stability", *_example_args(), "-m", "AP", "-m", "P@10", "--sizes", "5,10,S", "--trials", "7", "--seed",
            "3"]
    assert main(args + ["--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["settings"] == {"sizes": ["5", "10", "S"], "trials": 7, "seed": 3}
    rows = document["rows"]
    # S (500 topics) is more than the example's 25: left out
    assert [(r["measure"], r["size"], r["topics"], r["trials"]) for r in rows] == \
        [("AP", "5", 5, 7), ("AP", "10", 10, 7), ("P@10", "5", 5, 7), ("P@10", "10", 10, 7)]
    assert all(-1 <= r["min_tau"] <= r["mean_tau"] <= r["max_tau"] <= 1 for r in rows)
    assert main(args + ["--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == rows  # the same seed, the same subsets
    out = tmp_path / "stability.txt"
    assert main(args + ["-o", str(out)]) == 0
    assert out.read_text().splitlines()[0].split() == ["measure", "size", "topics", "trials", "mean_tau", "min_tau",
                                                       "max_tau"]


@pytest.mark.parametrize("extra, message", [
    (["--sizes", "5,huge"], "pateval: error: topic-set size must be S, M, L, XL or a positive integer, not 'huge'"),
    (["--trials", "0"], "pateval: error: trials must be a positive integer, not 0"),
])
def test_stability_bad_settings_exit_2_and_write_nothing(tmp_path, capsys, extra, message):
    out = tmp_path / "stability.txt"
    assert main(["stability", *_example_args(), "-m", "AP", "-o", str(out), *extra]) == 2
    assert message in capsys.readouterr().err.splitlines()
    assert not out.exists()


def test_stability_needs_two_runs(capsys):
    from pateval.api import example_files

    qrels, runs = example_files()
    assert main(["stability", "--qrels", str(qrels), str(runs[0]), "-m", "AP"]) == 2
    assert "pateval: error: ranking stability needs at least two systems" in capsys.readouterr().err.splitlines()


def test_stability_bad_run_line_is_an_error_naming_file_and_line(tmp_path, capsys):
    from pateval.api import example_files

    qrels, runs = example_files()
    bad = tmp_path / "bad.run"
    lines = runs[1].read_text().splitlines(keepends=True)
    lines[4] = "PAC-1 Q0 EP-00001 x 0.5 bad\n"
    bad.write_text("".join(lines))
    out = tmp_path / "stability.txt"
    assert main(["stability", "--qrels", str(qrels), str(runs[0]), str(bad), "-m", "AP", "-o", str(out)]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"pateval: error: {bad}, line 5: the rank (4th column) is not an integer (expected an integer, found 'x')")
    assert not out.exists()


@pytest.mark.parametrize("extra, message", [
    (["--sizes", " , "], "pateval: error: sizes must name at least one topic-set size (a number, or S, M, L, XL)"),
    (["--precision", "-1"], "pateval: error: precision must be an integer from 0 to 17, not -1"),
    (["--format", "csv", "--precision", "18"], "pateval: error: precision must be an integer from 0 to 17, not 18"),
])
def test_stability_bad_sizes_and_precision_exit_2(tmp_path, capsys, extra, message):
    out = tmp_path / "stability.txt"
    assert main(["stability", *_example_args(), "-m", "AP", "-o", str(out), *extra]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == message
    assert not out.exists()


def test_stability_help_names_every_option(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["stability", "--help"])
    assert caught.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "Kendall's tau" in text
    for option in ("--qrels", "--sizes", "--trials", "--seed", "--format", "--precision", "--output", "--complete"):
        assert option in text


def test_stability_api_takes_sizes_as_text_or_a_sequence():
    from pateval import api

    qrels, runs = api.example_files()
    from_text = api.ranking_stability(qrels, runs, "AP", sizes="5, 10", trials=3, seed=1)
    from_list = api.ranking_stability(qrels, runs, ["AP"], sizes=[5, "10"], trials=3, seed=1)
    assert from_text.equals(from_list)
    assert list(from_text["size"]) == ["5", "10"]
    assert from_text.attrs["settings"] == {"sizes": ["5", "10"], "trials": 3, "seed": 1}


def _user_model_files(tmp_path):
    """The spec's TBG example: relevant (500 words), non-relevant (1000), relevant (200)."""
    qrels, run, lengths = tmp_path / "qrels.txt", tmp_path / "run.txt", tmp_path / "lengths.txt"
    qrels.write_text("q 0 d1 1\nq 0 d2 0\nq 0 d3 1\n")
    run.write_text("q Q0 d1 1 3.0 r\nq Q0 d2 2 2.0 r\nq Q0 d3 3 1.0 r\n")
    lengths.write_text("d1 500\nd2 1000\nd3 200\n")
    return str(qrels), str(run), str(lengths)


def test_user_model_time_gives_t_of_k_and_the_gain_rank_by_rank(tmp_path, capsys):
    import io

    import pandas as pd

    qrels, run, lengths = _user_model_files(tmp_path)
    assert main(["user-model", "time", qrels, run, "--doc-lengths", lengths, "--format", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert frame["time"].tolist() == pytest.approx([0.0, 15.152, 29.614], abs=1e-12)
    assert frame["cumulative_gain"].iloc[-1] == pytest.approx(0.942448, abs=5e-7)
    # another calibration, to a file
    out = tmp_path / "times.json"
    assert main(["user-model", "time", qrels, run, "--doc-lengths", lengths, "--model", "TBG(summary_time=0)",
                 "--format", "json", "-o", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [round(row["time"], 3) for row in rows] == [0.0, 10.752, 20.814]  # 4.4 s less per rank passed


def test_user_model_simulate_is_seeded_and_near_the_closed_form(tmp_path, capsys):
    qrels, run, lengths = _user_model_files(tmp_path)
    arguments = ["user-model", "simulate", qrels, run, "--doc-lengths", lengths, "--users", "4000", "--seed", "7",
                 "--format", "json"]
    assert main(arguments) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(arguments) == 0
    assert json.loads(capsys.readouterr().out) == first
    row = first["rows"][0]
    assert first["settings"]["seed"] == 7 and row["n_users"] == 4000
    assert row["ci_low"] <= row["expected"] <= row["ci_high"] and row["tbg"] == pytest.approx(0.942448, abs=5e-7)


@pytest.mark.parametrize(("extra", "message"), [
    ([], "pateval: error: TBG needs doc lengths; none was given (give --doc-lengths FILE / resources={'doc_lengths': "
         "...})\n"),
    (["--doc-lengths", "LENGTHS", "--model", "AP"],
     "pateval: error: the user model is given as a TBG measure name, e.g. 'TBG(halflife=600)'; got 'AP'\n"),
    (["--doc-lengths", "LENGTHS", "--users", "1"],
     "pateval: error: n_users must be at least 2 (a spread needs two users); got 1\n"),
])
def test_user_model_errors_exit_2_and_write_nothing(tmp_path, capsys, extra, message):
    qrels, run, lengths = _user_model_files(tmp_path)
    extra = [lengths if value == "LENGTHS" else value for value in extra]
    out = tmp_path / "out.txt"
    assert main(["user-model", "simulate", qrels, run, *extra, "-o", str(out)]) == 2
    assert capsys.readouterr().err == message
    assert not out.exists()


_REALLOCATED_FAULTS = """
import resource, sys
import numpy as np
if sys.argv[1] == "kept":
    from pateval.cli import _memory_settings
    _memory_settings()
def block():
    array = np.empty(16 << 20, dtype=np.uint8)
    array[:] = 1
    return array
first = block()
del first
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
second = block()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_the_command_process_takes_a_freed_block_again_without_page_faults():
    # a block's arrays, freed, are the next block's: 16 MB allocated again faults in none of
    # its pages once the command's malloc settings are made (tuning.MALLOC_MMAP_THRESHOLD)
    faults = {mode: int(subprocess.run([sys.executable, "-c", _REALLOCATED_FAULTS, mode], capture_output=True,
                                       text=True, check=True, timeout=120).stdout)
              for mode in ("default", "kept")}
    assert faults["kept"] < 16 < faults["default"]


_HUGE_PAGES = """
import ctypes, sys
if sys.argv[1] == "command":
    from pateval.cli import _memory_settings
    _memory_settings()
print(ctypes.CDLL(None).prctl(42, 0, 0, 0, 0))  # PR_GET_THP_DISABLE
"""


@pytest.mark.skipif(sys.platform != "linux", reason="transparent huge pages are Linux's")
def test_the_command_process_takes_ordinary_pages_and_a_library_caller_keeps_its_own():
    # tuning.HUGE_PAGES: each 2 MB page is zeroed whole when first touched, which a VM handing
    # freed memory back to its host makes dear; a library caller's process is left as it is
    import ctypes

    own = str(ctypes.CDLL(None).prctl(42, 0, 0, 0, 0))
    disabled = {mode: subprocess.run([sys.executable, "-c", _HUGE_PAGES, mode], capture_output=True, text=True,
                                     check=True, timeout=120).stdout.strip() for mode in ("library", "command")}
    assert disabled == {"library": own, "command": "0" if tuning.HUGE_PAGES else "1"}


_BLAS_THREADS = """
import os, sys
from pateval.cli import _native_library_settings
_native_library_settings()
import numpy
print(os.environ["OPENBLAS_NUM_THREADS"], len(os.listdir("/proc/self/task")))
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts the process's threads in /proc")
@pytest.mark.parametrize("users, expected", [(None, "1 1"), ("3", "3")])
def test_the_command_process_runs_blas_without_threads_of_its_own_unless_asked(users, expected):
    # OpenBLAS's idle threads spin beside the run's reader threads at start-up (tuning.BLAS_THREADS);
    # a user's own OPENBLAS_NUM_THREADS is kept
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if users is not None:
        env["OPENBLAS_NUM_THREADS"] = users
    out = subprocess.run([sys.executable, "-c", _BLAS_THREADS], capture_output=True, text=True, check=True,
                         timeout=120, env=env).stdout.split()
    assert " ".join(out if users is None else out[:1]) == expected


_ARROW_FREED = """
import sys, time
if sys.argv[1] == "command":
    from pateval.cli import _native_library_settings
    _native_library_settings()
import pyarrow as pa, pyarrow.compute as pc

def resident():
    return int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) // 1024

before = resident()
columns = [pc.add(pa.array(range(200_000)), 1) for _ in range(100)]  # 160 MB in Arrow's pool
grown = resident() - before
del columns
time.sleep(2 * float(sys.argv[2]) / 1000)  # then Arrow's next calls hand back the pages freed longer ago
more = [pc.add(pa.array(range(1000)), 1) for _ in range(10)]
del more
print(grown, resident() - before, pa.default_memory_pool().backend_name)
"""


@pytest.mark.skipif(not os.path.isfile("/proc/self/status"), reason="reads the resident memory from /proc")
def test_the_command_process_hands_arrows_freed_pages_back():
    # a block's Arrow columns, freed, leave the process once tuning.ARROW_PURGE_DELAY_MS has passed
    # (mimalloc's own delay, about a second, kept every block's): the peak then holds what is alive
    env = {k: v for k, v in os.environ.items() if k != "MIMALLOC_PURGE_DELAY"}
    grown, kept, pool = subprocess.run([sys.executable, "-c", _ARROW_FREED, "command",
                                        str(tuning.ARROW_PURGE_DELAY_MS)], capture_output=True,
                                       text=True, check=True, timeout=120, env=env).stdout.split()
    if pool != "mimalloc":
        pytest.skip(f"Arrow's pool here is {pool}, not mimalloc (whose setting this is)")
    assert int(grown) > 100 and int(kept) < int(grown) / 2
