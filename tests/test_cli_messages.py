"""What the commands tell their users (issue 23, section 3): a word when nothing matches,
sizes that cannot be drawn, flags named as flags, the names the user wrote, examples in every
--help, one markdown document of the measures, full precision in CSV, demo output ignored by git."""

from __future__ import annotations

from pathlib import Path

from pateval.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]


def _leaf(*path: str):
    parser = build_parser()
    for name in path:
        parser = parser.subcommands.choices[name]
    return parser


def test_gitignore_covers_the_default_output_folders_of_the_demos():
    ignored = set((ROOT / ".gitignore").read_text().split())
    for path, dest in ((("demo",), "out"), (("assess", "serve"), "demo_dir")):
        default = _leaf(*path).get_default(dest)
        assert f"/{default}/" in ignored, f"pateval {' '.join(path)} writes {default}/, not in .gitignore"
    assert "/assess.db" in ignored  # the README's `--db sqlite:///assess.db`


def _three_topics(tmp_path):
    """Qrels and two runs whose means need all 17 digits (thirds and sevenths)."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{t} 0 d{d} 1\n" for t in range(3) for d in range(7)))
    runs = []
    for name, shift in (("a", 0), ("b", 3)):
        run = tmp_path / f"{name}.run"
        run.write_text("".join(f"q{t} Q0 {'d' if (d + shift + t) % 3 else 'x'}{d} {d + 1} {20 - d} {name}\n"
                               for t in range(3) for d in range(9)))
        runs.append(str(run))
    return str(qrels), runs


def test_compare_csv_keeps_full_precision(tmp_path, capsys):
    import csv
    import io
    import json

    from pateval.cli import main

    qrels, runs = _three_topics(tmp_path)
    assert main(["compare", qrels, *runs, "-m", "AP", "--format", "json"]) == 0
    tests = json.loads(capsys.readouterr().out)["tests"]
    assert main(["compare", qrels, *runs, "-m", "AP", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == len(tests) == 1
    for column in ("mean_a", "mean_b", "difference", "p_value"):
        assert float(rows[0][column]) == tests[0][column], column


def _example_args():
    from pateval.api import example_files

    qrels, runs = example_files()
    return [str(qrels), *[str(r) for r in runs]]


def test_stability_names_the_sizes_above_the_topic_count(capsys):
    from pateval.cli import main

    assert main(["stability", *_example_args(), "-m", "AP", "--sizes", "10,50,S", "--trials", "2"]) == 0
    captured = capsys.readouterr()
    assert [line.split()[:2] for line in captured.out.splitlines()[2:]] == [["AP", "10"]]
    assert "pateval: note: topic-set sizes 50, S (500) exceed the 25 topics: left out" in captured.err.splitlines()


def test_stability_with_no_size_left_is_one_line_and_exit_2(tmp_path, capsys):
    from pateval.cli import main

    out = tmp_path / "stability.txt"
    assert main(["stability", *_example_args(), "-m", "AP", "--sizes", "50,100,S,M", "-o", str(out)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "pateval: error: no topic-set size fits the 25 topics: 50, 100, S (500), M (1000) exceed them; give sizes "
        "(--sizes) of at most 25"]
    assert not out.exists()


def _patent_files(tmp_path, run_ids):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 EP-0900001 1\nq1 0 EP-0900002 0\nq2 0 EP-0900003 1\n")
    run = tmp_path / "pubs.run"
    run.write_text("".join(f"{t} Q0 {d} {i + 1} {9 - i} pubs\n" for t in ("q1", "q2") for i, d in enumerate(run_ids)))
    return str(qrels), str(run)


def test_a_run_of_publications_against_qrels_of_patents_is_told_to_match_by_patent(tmp_path, capsys):
    from pateval.cli import main

    qrels, run = _patent_files(tmp_path, ["EP-0900001-B1", "EP-0900003-A1"])
    assert main(["evaluate", qrels, run, "-m", "AP"]) == 0
    captured = capsys.readouterr()
    assert captured.out.split() == ["AP", "all", "0.0000"]
    assert ("pateval: note: run 'pubs': none of the 4 document(s) it retrieved for qrels topics is in the qrels, so "
            "every topic scores as if nothing relevant was found; their patents are judged: match by patent "
            "(EP-0971326-B1 ~ EP-0971326) with --doc-key patent (doc_key='patent')") in captured.err.splitlines()
    assert main(["evaluate", qrels, run, "-m", "AP", "--doc-key", "patent"]) == 0
    captured = capsys.readouterr()
    assert captured.out.split() == ["AP", "all", "0.7500"] and "none of the" not in captured.err


def test_a_run_matching_nothing_is_told_so_without_the_patent_hint(tmp_path, capsys, caplog):
    import logging

    from pateval import api
    from pateval.cli import main

    qrels, run = _patent_files(tmp_path, ["doc-1", "doc-2"])
    for block_size in ("0", "32M"):  # the run whole, and read in blocks
        assert main(["evaluate", qrels, run, "-m", "AP", "--block-size", block_size]) == 0
        notes = [line for line in capsys.readouterr().err.splitlines() if "none of the" in line]
        assert notes == ["pateval: note: run 'pubs': none of the 4 document(s) it retrieved for qrels topics is in "
                         "the qrels, so every topic scores as if nothing relevant was found"]
    with caplog.at_level(logging.INFO, logger="pateval"):
        api.evaluate({"q1": {"EP-0900001": 1}}, {"q1": {"EP-0900001-B1": 1.0}}, ["AP"])
    assert any("--doc-key patent" in record.getMessage() for record in caplog.records)


def test_a_run_matching_one_judged_document_gets_no_such_note(tmp_path, capsys):
    from pateval.cli import main

    qrels, run = _patent_files(tmp_path, ["doc-1", "EP-0900002"])
    assert main(["evaluate", qrels, run, "-m", "AP"]) == 0
    assert "none of the" not in capsys.readouterr().err


def test_no_line_of_the_readme_pipeline_doubles_a_word(tmp_path, monkeypatch, capsys):
    """`corpus generate --out corpus` printed `corpus corpus`, `collection build --out collection`
    printed `collection collection` (the README's commands, run in their folder)."""
    import re

    from pateval.cli import main

    monkeypatch.chdir(tmp_path)
    for command in (["corpus", "generate", "--out", "corpus", "--patents", "60", "--seed", "1"],
                    ["corpus", "ingest", "corpus", "--out", "store", "--workers", "1"],
                    ["corpus", "verify", "store"],
                    ["collection", "build", "--store", "store", "--out", "collection"]):
        assert main(command) == 0, command
        captured = capsys.readouterr()
        for line in (captured.out + captured.err).splitlines():
            assert not re.search(r"\b([a-z]{2,})\s+\1\b", line, flags=re.IGNORECASE), line


def _message_strings():
    """The string literals of pateval's modules that are not docstrings: (place, text)."""
    import ast

    import pateval

    package = Path(pateval.__file__).parent
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text())
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                yield f"{path.relative_to(package)}:{node.lineno}", node.value


def test_messages_naming_a_keyword_of_the_evaluation_also_name_its_flag():
    """A message that tells the user to set `complete=True` or `on_duplicate='first'` names the
    command line's flag too (-c, --on-duplicate first): users of the command read them."""
    import dataclasses
    import re

    from pateval.options import EvaluationOptions

    keywords = [f.name for f in dataclasses.fields(EvaluationOptions)] + ["on_duplicate", "passages"]
    keyword = re.compile(r"\b(" + "|".join(keywords) + r")=(True|False|'|\")")
    unflagged = [f"{place}: {text!r}" for place, text in _message_strings()
                 if keyword.search(text) and not re.search(r"(^|[\s(/])--?[a-z]", text)]
    assert not unflagged, "\n".join(unflagged)


def test_the_missing_side_input_error_names_its_option(tmp_path, capsys):
    from pateval.cli import main

    qrels, run = _patent_files(tmp_path, ["EP-0900001", "EP-0900003"])
    assert main(["evaluate", qrels, run, "-m", "TBG"]) == 2
    assert "--doc-lengths FILE" in capsys.readouterr().err


def test_a_measure_is_printed_by_the_name_the_user_wrote(capsys):
    from pateval.cli import main

    for written in ("map", "MAP", "AP"):
        assert main(["evaluate", "--example", "-m", written, "--format", "csv"]) == 0
        rows = capsys.readouterr().out.splitlines()[1:]
        assert {row.split(",")[1] for row in rows} == {written}
    assert main(["evaluate", "--example", "-m", "MAP", "--names", "trec"]) == 0
    assert {line.split()[1] for line in capsys.readouterr().out.splitlines()} == {"map"}
    assert main(["compare", *_example_args(), "-m", "map", "-m", "P_10", "--format", "json"]) == 0
    import json

    assert {test["measure"] for test in json.loads(capsys.readouterr().out)["tests"]} == {"map", "P_10"}


def test_names_trec_with_several_runs_says_the_run_on_every_line(capsys):
    from pateval.cli import main

    qrels, *runs = _example_args()
    assert main(["evaluate", "--names", "trec", "-m", "map", "-q", qrels, *runs]) == 0
    several = capsys.readouterr().out.splitlines()
    assert {line.split("\t")[0] for line in several} == {"run1", "run2", "run3"}
    assert main(["evaluate", "--names", "trec", "-m", "map", "-q", qrels, runs[1]]) == 0
    alone = capsys.readouterr().out.splitlines()  # one run: trec_eval's own lines
    assert alone == [line.split("\t", 1)[1] for line in several if line.startswith("run2\t")]


def test_the_us_spelling_of_randomisation_is_accepted(capsys):
    from pateval.cli import main

    args = ["compare", *_example_args(), "-m", "AP", "-B", "200", "--format", "json"]
    assert main([*args, "--test", "randomization"]) == 0
    us = capsys.readouterr().out
    assert main([*args, "--test", "randomisation"]) == 0
    assert capsys.readouterr().out == us


def test_every_command_help_ends_with_two_or_three_examples_that_parse():
    """... then, for the commands that write result tables, the glossary of their columns."""
    import shlex

    from pateval.cli import leaf_parsers
    from pateval.cli.shared import EXAMPLES_HEADING

    parser = build_parser()
    for leaf in leaf_parsers(parser):
        if leaf is parser:
            continue
        text = leaf.format_help().rstrip("\n")
        assert EXAMPLES_HEADING in text, f"{leaf.prog}: no examples"
        examples, _, glossary = text[text.rindex(EXAMPLES_HEADING) + len(EXAMPLES_HEADING):].strip("\n").partition(
            "\n\n")
        assert not glossary or glossary.startswith("columns of "), leaf.prog
        lines = examples.splitlines()
        assert 2 <= len(lines) <= 3, leaf.prog
        path = leaf.prog.split()[1:]
        for line in lines:
            command = next(part for part in line.split("|") if part.strip().startswith("pateval "))
            words = shlex.split(command)
            words = words[:words.index(">")] if ">" in words else words
            assert words[1:1 + len(path)] == path, line
            build_parser().parse_args(words[1:])  # exits (a failed test) on a wrong option


def test_flags_meaning_the_same_are_spelled_the_same_and_old_spellings_still_work():
    parser = build_parser()
    qrels, *runs = _example_args()
    # the qrels first or as --qrels, in the user-model commands as in the comparisons
    first = parser.parse_args(["user-model", "time", qrels, *runs])
    option = parser.parse_args(["user-model", "time", "--qrels", qrels, *runs])
    from pateval.cli.shared import command_inputs

    first, option = command_inputs(first), command_inputs(option)  # what the handler is given
    assert (first["qrels"], first["runs"]) == (option["qrels"], option["runs"]) == (qrels, runs)
    # a store as STORE or --store, as collection build, index, check and assess take it
    for command in (["corpus", "lengths", "--out", "l.txt"], ["corpus", "verify"]):
        assert command_inputs(parser.parse_args([*command, "s"]))["store"] == "s"
        assert command_inputs(parser.parse_args([*command, "--store", "s"]))["store"] == "s"
    # the test of discriminative power is --analysis-test in analyse-measures as in report (--test: the old)
    for flag in ("--analysis-test", "--test"):
        assert parser.parse_args(["analyse-measures", qrels, *runs, flag, "randomization"]).tests == ["randomisation"]
    assert "--analysis-test" in _leaf("report").format_help()
    # calibrate's grade counted as relevant: -l / --relevance-level as in evaluate (--rel: the old)
    base = ["calibrate", "log.csv", "--qrels", qrels, "--run", runs[0]]
    for flag in ("-l", "--relevance-level", "--rel"):
        assert parser.parse_args([*base, flag, "2"]).rel == 2
    assert parser.parse_args(base).rel == 1
    help_text = _leaf("calibrate").format_help()
    assert "--relevance-level" in help_text and "--rel " not in help_text
