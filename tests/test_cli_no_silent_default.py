"""No silent default on the command line (issue 30, items 3 and 4): flags spelled out or
refused with the command's usage and what was meant; a bad choice in one line; runs sharing a
run tag named by their files (said) or by --run-names; compare's tests in words;
``pateval.api`` after ``import pateval``."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from pateval.api import example_files
from pateval.cli import main


def _examples():
    qrels, runs = example_files()
    return str(qrels), [str(run) for run in runs]


def test_an_abbreviated_flag_is_refused_with_the_command_usage_and_what_was_meant(capsys):
    qrels, runs = _examples()
    with pytest.raises(SystemExit) as caught:
        main(["evaluate", qrels, runs[0], "--comp"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: pateval evaluate")
    # --comp begins two flags (--compat, --complete): both are named, neither is taken
    assert "pateval evaluate: error: unrecognized arguments: --comp (did you mean --compat or --complete?)" in err


def test_a_misspelt_flag_of_a_nested_command_gets_that_command_usage(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["corpus", "ingest", "docs", "--out", "store", "--worker", "2"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: pateval corpus ingest") and "did you mean --workers" in err


def test_a_bad_choice_is_one_line_naming_the_choices(capsys):
    qrels, runs = _examples()
    with pytest.raises(SystemExit) as caught:
        main(["evaluate", qrels, runs[0], "--doc-key", "patents"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err == ("pateval evaluate: error: argument --doc-key: invalid choice: 'patents' (choose from "
                   "'publication', 'patent') (did you mean patent?)\n")


def test_a_misspelt_command_is_one_line_with_what_was_meant(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["evalute", "qrels.txt", "run.txt"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("pateval: error: argument COMMAND: invalid choice: 'evalute'")
    assert err.endswith("(did you mean evaluate?)\n")


def test_pateval_api_is_there_after_import_pateval():
    code = "import sys, pateval; assert 'pateval.api' not in sys.modules; print(pateval.api.evaluate.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout == "evaluate\n"


def _same_tag(tmp_path):
    qrels, runs = _examples()
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    shutil.copy(runs[0], first)
    shutil.copy(runs[1], second)
    second.write_text(second.read_text().replace("run2", "run1"))  # the tag of run1
    return qrels, runs, first, second


def test_runs_sharing_a_tag_are_named_by_their_files(tmp_path, capsys):
    qrels, runs, first, second = _same_tag(tmp_path)
    assert main(["evaluate", qrels, str(first), str(second), runs[2], "-m", "AP"]) == 0
    captured = capsys.readouterr()
    assert [line.split("\t")[0] for line in captured.out.splitlines()] == [str(first), str(second), "run3"]
    assert (f"runs {first}, {second} share the run tag 'run1': each is named by its file (--run-names A,B,... names "
            "the runs)") in captured.err
    assert main(["evaluate", qrels, runs[0], runs[1], "-m", "AP"]) == 0
    assert "share the run tag" not in capsys.readouterr().err


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_run_names_name_the_runs(tmp_path, capsys, command):
    qrels, runs, first, second = _same_tag(tmp_path)
    assert main([command, qrels, str(first), str(second), "-m", "AP", "--run-names", "bm25,lm"]) == 0
    out = capsys.readouterr().out
    assert "bm25" in out and "lm" in out and str(first) not in out


def test_compare_takes_names_and_refuses_a_wrong_count(tmp_path, capsys):
    qrels, runs, first, second = _same_tag(tmp_path)
    assert main(["compare", qrels, str(first), str(second), "-m", "AP", "--names", "A"]) == 2
    assert capsys.readouterr().err == ("pateval: error: --run-names gives 1 name(s) for 2 run(s): give one name per "
                                       "run, in order, separated by commas\n")


def test_the_api_names_runs_by_the_keys_of_a_dict(tmp_path):
    import pateval

    qrels, runs, first, second = _same_tag(tmp_path)
    frame = pateval.evaluate(qrels, {"A": str(first), "B": str(second)}, ["AP"])
    assert sorted(set(frame["run"])) == ["A", "B"]
    with pytest.raises(pateval.errors.ParameterError, match=r"two runs are named 'run1'.*--run-names"):
        pateval.evaluate(qrels, [str(first), str(second)], ["AP"])


def test_compare_says_which_differences_are_significant_and_which_are_not(tmp_path, capsys):
    qrels, runs, first, second = _same_tag(tmp_path)
    assert main(["compare", qrels, runs[0], runs[1], "-m", "AP", "-m", "P@5"]) == 0
    out = capsys.readouterr().out
    # two runs: the legend names only runs of the table
    assert "'>1' / '>2': significantly better than run 1 / run 2." in out and "runs 2 and 3" not in out
    assert "p (holm-corrected)" in out
    assert "2 of the 2 differences are significant at alpha 0.05; 0 are not." in out
    # the same run twice: nothing is significant, and that is said
    assert main(["compare", qrels, str(first), runs[0], "-m", "AP", "--run-names", "x,y"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("AP ")]
    assert lines and lines[0].split()[-2:] == ["not", "significant"]
    assert "The difference is not significant at alpha 0.05." in out


def _patent_case(tmp_path, *, other_kind: int):
    """Qrels of EP-nnnnnnn-A1 ids (5 relevant, 3 not per topic) and a run retrieving every
    judged patent, ``other_kind`` of them per topic as EPnnnnnnnB1 (another publication)."""
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels_lines, run_lines = [], []
    for t in range(1, 4):
        for j in range(8):
            number = 1_000_000 + 100 * t + j
            qrels_lines.append(f"T{t} 0 EP-{number:07d}-A1 {int(j < 5)}\n")
            doc = f"EP{number:07d}B1" if j < other_kind else f"EP-{number:07d}-A1"
            run_lines.append(f"T{t} Q0 {doc} {j + 1} {100 - j} pat\n")
    qrels.write_text("".join(qrels_lines))
    run.write_text("".join(run_lines))
    return str(qrels), str(run)


@pytest.mark.parametrize("block", ["32M", "0"])
def test_documents_judged_only_under_another_publication_are_told_with_both_counts(tmp_path, capsys, block):
    qrels, run = _patent_case(tmp_path, other_kind=4)
    assert main(["evaluate", qrels, run, "-m", "P@5", "--block-size", block]) == 0
    captured = capsys.readouterr()
    assert captured.out.split() == ["P@5", "all", "0.2000"]  # 1 of the first 5 matched by id is relevant
    assert ("run 'pat': in the first 100 documents of each topic, 12 match judged documents by id and 12 more match "
            "judged patents only under another publication") in captured.err
    assert "--doc-key patent" in captured.err
    assert main(["evaluate", qrels, run, "-m", "P@5", "--block-size", block, "--doc-key", "patent"]) == 0
    captured = capsys.readouterr()
    assert captured.out.split() == ["P@5", "all", "1.0000"] and "another publication" not in captured.err


def test_the_api_warns_of_documents_judged_only_by_patent(tmp_path):
    import pateval
    from pateval.errors import DocKeyWarning

    qrels, run = _patent_case(tmp_path, other_kind=1)  # 1 in 8: a notable share
    with pytest.warns(DocKeyWarning, match="21 match judged documents by id and 3 more"):
        pateval.evaluate(qrels, run, ["P@5"])


def test_a_run_matching_by_id_gets_no_patent_note(tmp_path, capsys):
    qrels, run = _patent_case(tmp_path, other_kind=0)
    assert main(["evaluate", qrels, run, "-m", "P@5"]) == 0
    assert "another publication" not in capsys.readouterr().err


def test_a_few_documents_judged_under_another_publication_are_not_notable(tmp_path, capsys):
    """A run that happens on 3 of 300 judged patents under another publication (1%, as a random
    run of a patent collection does) gets no note: the share is of the judged documents."""
    qrels, run = _patent_case(tmp_path, other_kind=1)
    extra = "".join(f"T{t} 0 EP-{2_000_000 + 1000 * t + j:07d}-A1 0\n" for t in range(1, 4) for j in range(92))
    with open(qrels, "a") as handle:
        handle.write(extra)
    assert main(["evaluate", qrels, run, "-m", "P@5"]) == 0
    assert "another publication" not in capsys.readouterr().err
