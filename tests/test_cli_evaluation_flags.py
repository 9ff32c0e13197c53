"""Every command that evaluates takes the same evaluation flags (one argparse group), and a
missing optional dependency is one line naming its extra."""

from __future__ import annotations

import sys

import pytest

from pateval import cli
from pateval.cli import build_parser, main

EVALUATING = ("evaluate", "compare", "report", "stability", "analyse-measures")


def test_every_evaluating_command_lists_the_same_evaluation_flags():
    leaves = {leaf.prog.split()[-1]: leaf for leaf in cli.leaf_parsers(build_parser())}
    flags = {}
    for name in EVALUATING:
        text = leaves[name].format_help()
        assert "\nevaluation:\n" in text, name
        section = text.split("\nevaluation:\n", 1)[1]
        flags[name] = [line.split()[0].rstrip(",") for line in section.splitlines() if line.startswith("  -")]
    assert len({tuple(f) for f in flags.values()}) == 1, flags
    for flag in ("-m", "-c", "--qrels-format", "--order", "--doc-key", "--on-duplicate", "--doc-lengths",
                 "--duplicates", "--families", "--intents", "--subtopic-weights", "--iterations", "--passage-qrels",
                 "-l", "-M", "-J", "--block-size", "--scheduler", "--scheduler-timeout", "--work-dir"):
        assert flag in flags["compare"], flag


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


@pytest.mark.parametrize("command", ["compare", "stability", "analyse-measures"])
def test_comparing_commands_take_doc_key_and_side_inputs(tmp_path, capsys, command):
    qrels = _write(tmp_path / "qrels.txt", ["q1 0 EP-1000001-A1 1", "q1 0 EP-1000002-B1 1", "q2 0 EP-1000003-A1 1",
                                            "q2 0 EP-1000004-A1 0"])
    runs = [_write(tmp_path / f"{name}.txt", [f"q1 Q0 {first} 1 3.0 {name}", f"q1 Q0 EP-1000002-A1 2 2.0 {name}",
                                              f"q2 Q0 EP-1000004-B1 1 2.0 {name}", f"q2 Q0 {last} 2 1.0 {name}"])
            for name, first, last in (("a", "EP-1000001-B1", "EP-1000003-B1"), ("b", "EP-1000009-A1",
                                                                                 "EP-1000003-A1"))]
    lengths = _write(tmp_path / "lengths.txt", [f"EP-100000{i}-{kind} {100 * i}" for i in range(1, 10)
                                                for kind in ("A1", "B1")])
    extra = ["--sizes", "1,2", "--trials", "2"] if command == "stability" else ["-B", "50"]
    code = main([command, qrels, *runs, "--doc-key", "patent", "--doc-lengths", lengths, "-m", "TBG", "-m",
                 "PRES@100", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "TBG" in out and "PRES@100" in out
    # by patent, run a finds every relevant patent; by publication it would find none of them
    code = main(["compare", qrels, *runs, "--doc-key", "patent", "-m", "R@10", "--format", "csv"])
    by_patent = capsys.readouterr().out
    main(["compare", qrels, *runs, "-m", "R@10", "--format", "csv"])
    assert by_patent != capsys.readouterr().out


def test_scores_refuse_the_evaluation_flags(tmp_path, capsys):
    first = _write(tmp_path / "a.eval", ["map\tq1\t0.5", "map\tq2\t0.25", "map\tall\t0.375"])
    second = _write(tmp_path / "b.eval", ["map\tq1\t0.4", "map\tq2\t0.2", "map\tall\t0.3"])
    assert main(["compare", "--scores", first, second, "--doc-key", "patent"]) == 2
    assert capsys.readouterr().err == ("pateval: error: --doc-key act on runs and qrels; with --scores the files' "
                                       "topics are used as they are\n")


def test_a_missing_optional_dependency_names_its_extra(tmp_path):
    """Not "internal error ... a bug in pateval": one line saying what to install, exit 2."""
    import subprocess

    # a fresh interpreter in which `import sqlalchemy` fails as if it were not installed
    code = ("import sys; sys.modules['sqlalchemy'] = None; from pateval.cli import main; "
            f"sys.exit(main(['assess', 'serve', '--demo', '--demo-dir', {str(tmp_path / 'demo')!r}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("pateval: error: pateval assess serve needs sqlalchemy, which is not installed: "
                                  "pip install \"pateval[") and done.stderr.count("\n") == 1, done.stderr
