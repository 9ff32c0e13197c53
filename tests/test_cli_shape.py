"""One shape for every command: QRELS first, -o/--out/--output alike, --debug anywhere, and
the exit statuses (0 success, 1 findings, 2 bad input, 70 a bug, with one line asking for a
report)."""

from __future__ import annotations

import json

import pytest

from pateval import cli
from pateval.cli import EXIT_BUG, build_parser, main


def _files(tmp_path, topics=("q1", "q2", "q3")):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 d1 1\n{t} 0 d2 0\n" for t in topics))
    runs = []
    for name, first in (("a", "d1"), ("b", "d2")):
        second = "d2" if first == "d1" else "d1"
        run = tmp_path / f"{name}.run"
        run.write_text("".join(f"{t} Q0 {first} 1 2.0 {name}\n{t} Q0 {second} 2 1.0 {name}\n" for t in topics))
        runs.append(str(run))
    return str(qrels), runs


@pytest.mark.parametrize("command", [["compare"], ["analyse-measures"], ["stability", "--sizes", "2", "--trials", "2"]])
def test_qrels_first_positional_or_qrels_option_give_the_same_output(tmp_path, capsys, command):
    qrels, runs = _files(tmp_path)
    assert main([*command, qrels, *runs, "-m", "AP", "--format", "json"]) == 0
    positional = capsys.readouterr().out
    assert main([*command, "--qrels", qrels, *runs, "-m", "AP", "--format", "json"]) == 0
    assert capsys.readouterr().out == positional
    assert main([*command, *runs, "--qrels", qrels, "-m", "AP", "--format", "json"]) == 0
    assert capsys.readouterr().out == positional


def test_report_takes_qrels_first(tmp_path, capsys):
    qrels, runs = _files(tmp_path)
    out = tmp_path / "report.html"
    assert main(["report", qrels, *runs, "-m", "AP", "--out", str(out)]) == 0
    assert out.read_text().lstrip().lower().startswith("<!doctype html")


def test_qrels_without_a_run_is_one_line_and_exit_2(tmp_path, capsys):
    qrels, _ = _files(tmp_path)
    assert main(["compare", qrels, "-m", "AP"]) == 2
    assert capsys.readouterr().err == "pateval: error: compare needs QRELS and at least one RUN\n"


def test_output_option_answers_to_o_out_and_output_everywhere():
    parser = build_parser()
    checked = 0
    for leaf in cli.leaf_parsers(parser):
        spelled = [flag for flag in ("-o", "--out", "--output") if flag in leaf._option_string_actions]
        if spelled:
            checked += 1
            assert spelled == ["-o", "--out", "--output"], leaf.prog
            actions = {id(leaf._option_string_actions[flag]) for flag in spelled}
            assert len(actions) == 1, f"{leaf.prog}: -o, --out and --output are different options"
        assert "--debug" in leaf._option_string_actions, leaf.prog
    assert checked >= 15  # evaluate, check, compare, ..., corpus ingest, collection build, index, search, demo


@pytest.mark.parametrize("flag", ["-o", "--out", "--output"])
def test_every_spelling_of_the_output_option_writes_the_file(tmp_path, capsys, flag):
    qrels, runs = _files(tmp_path)
    out = tmp_path / "out.txt"
    assert main(["evaluate", qrels, runs[0], "-m", "AP", flag, str(out)]) == 0
    assert out.read_text() == "AP                    \tall\t1.0000\n"
    assert capsys.readouterr().out == ""


def test_compare_on_one_topic_prints_the_means_and_says_why_no_test_ran(tmp_path, capsys):
    qrels, runs = _files(tmp_path, topics=("q1",))
    assert main(["compare", qrels, *runs, "-m", "AP"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        "#  run  AP",
        "-  ---  ------",
        "1  a    1.0000",
        "2  b    0.5000",
        "",
        "no significance test: 1 topic (a paired test needs at least 2).",
    ]
    assert ("pateval: note: no significance test was run: the runs share 1 topic and a paired test needs at least 2; "
            "the table gives the means only") in captured.err.splitlines()
    assert main(["compare", qrels, *runs, "-m", "AP", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["tests"] == [] and document["means"] == {"a": {"AP": 1.0}, "b": {"AP": 0.5}}


def _raise_bug(**inputs):
    raise KeyError("surprise")


@pytest.fixture
def buggy_evaluate(monkeypatch):
    """`pateval evaluate` whose handler raises an exception no reader should raise."""
    original = cli._add_evaluate

    def add(commands):
        original(commands)
        commands.choices["evaluate"].set_defaults(run=_raise_bug)

    monkeypatch.setattr(cli, "_COMMANDS", [add if f is original else f for f in cli._COMMANDS])


def test_a_bug_exits_70_with_one_line_asking_for_a_report(buggy_evaluate, capsys):
    assert main(["evaluate", "--example"]) == EXIT_BUG == 70
    assert capsys.readouterr().err == (
        "pateval: internal error (KeyError: 'surprise'): this is a bug in pateval; please report it with the command "
        "line and `pateval --version`; run again with --debug for the traceback\n")


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_before_or_after_the_command_prints_the_traceback(buggy_evaluate, capsys, where):
    argv = ["--debug", "evaluate", "--example"] if where == "before" else ["evaluate", "--example", "--debug"]
    assert main(argv) == EXIT_BUG
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):")
    assert "KeyError: 'surprise'" in err
    assert err.splitlines()[-1] == ("pateval: internal error (KeyError: 'surprise'): this is a bug in pateval; please "
                                    "report it with the command line and `pateval --version`")


def test_an_unwritable_output_is_exit_2_not_a_bug(tmp_path, capsys):
    qrels, runs = _files(tmp_path)
    target = tmp_path / "qrels.txt" / "out.txt"  # a file where a directory should be
    assert main(["evaluate", qrels, runs[0], "-m", "AP", "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (f"pateval: error: {target}: cannot write there, {tmp_path / 'qrels.txt'} is a "
                                    f"file, "
                                    "not a directory")


def test_interrupted_is_exit_130_without_a_traceback(monkeypatch, capsys):
    original = cli._add_evaluate

    def interrupted(**inputs):
        raise KeyboardInterrupt

    def add(commands):
        original(commands)
        commands.choices["evaluate"].set_defaults(run=interrupted)

    monkeypatch.setattr(cli, "_COMMANDS", [add if f is original else f for f in cli._COMMANDS])
    assert main(["evaluate", "--example"]) == 130
    assert capsys.readouterr().err == "pateval: interrupted\n"


def test_python_dash_m_pateval_is_the_command(tmp_path):
    import subprocess
    import sys

    qrels, runs = _files(tmp_path)
    done = subprocess.run([sys.executable, "-m", "pateval", "evaluate", qrels, runs[0], "-m", "AP"],
                          capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "AP                    \tall\t1.0000\n")
    done = subprocess.run([sys.executable, "-m", "pateval", "evaluate", qrels, str(tmp_path / "nope"), "-m", "AP"],
                          capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (2, f"pateval: error: {tmp_path / 'nope'}: no such file\n")


def test_the_command_ends_with_its_status_and_all_its_output(tmp_path):
    """`run` leaves without the interpreter's teardown (Arrow's worker threads could abort it,
    exit 134, after the work was done): stdout to a file and to a closed pipe are flushed, and
    the status is main's, over many runs of a command that reads with Arrow."""
    import subprocess
    import sys

    from pateval.api import example_files

    qrels, runs = example_files()
    qrels, run = str(qrels), str(runs[0])
    command = [sys.executable, "-m", "pateval", "evaluate", "-q", "-m", "AP", "-m", "P@10", qrels, run]
    expected = subprocess.run(command, capture_output=True, text=True)
    assert expected.returncode == 0 and expected.stdout.count("\n") > 50
    for attempt in range(20):
        out = tmp_path / f"out{attempt}.txt"
        with open(out, "w") as handle:
            done = subprocess.run(command, stdout=handle, stderr=subprocess.PIPE, text=True)
        assert (done.returncode, out.read_text()) == (0, expected.stdout), done.stderr
    head = subprocess.run(f"{subprocess.list2cmdline(command)} | head -1", shell=True, capture_output=True,
                          text=True)
    assert head.stdout == expected.stdout.splitlines(keepends=True)[0] and "Traceback" not in head.stderr
