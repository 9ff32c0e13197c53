"""`pateval compare --scores`: per-topic score files of trec_eval -q, ir_measures and pateval
give the p-values of `pateval compare` on the runs themselves."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pandas as pd
import pytest

from pateval import api
from pateval.cli import main
from pateval.errors import InputFormatError, PatevalError
from pateval.results.readers import read_scores

TESTS = ["t", "wilcoxon", "randomisation", "bootstrap"]


@pytest.fixture(scope="module")
def example():
    qrels, runs = api.example_files()
    return qrels, runs


def _cli(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def _tests(*args) -> pd.DataFrame:
    code, out, err = _cli("compare", *args, "--format", "csv", "-B", "2000", "--seed", "5")
    assert code == 0, err
    return pd.read_csv(io.StringIO(out))


@pytest.mark.parametrize("test", TESTS)
def test_trec_eval_q_output_gives_the_p_values_of_the_runs(test_data, example, test):
    """Files written by the real trec_eval (4 decimals): P@10 is exact at 4 decimals, so every
    p-value is equal; AP and nDCG@10 are rounded, so the t-test's p-values agree to the rounding
    and the rank and resampling tests (which these roundings do not reorder) exactly."""
    qrels, runs = example
    files = sorted((test_data / "trec_eval_q").glob("run*.eval"))
    measures = ["-m", "AP", "-m", "P@10", "-m", "nDCG@10"]
    from_scores = _tests("--scores", *files, *measures, "--test", test)
    from_runs = _tests("--qrels", qrels, *runs, *measures, "--test", test)
    assert from_scores[["measure", "run_a", "run_b"]].equals(from_runs[["measure", "run_a", "run_b"]])
    exact = from_runs["measure"].eq("P@10") | (test != "t")
    assert (from_scores["p_value"][exact] == from_runs["p_value"][exact]).all()
    assert ((from_scores["p_value"] - from_runs["p_value"]).abs() <= 2e-3 * from_runs["p_value"]).all()
    assert ((from_scores["mean_a"] - from_runs["mean_a"]).abs() <= 5e-5).all()


@pytest.mark.skipif(not (os.environ.get("TREC_EVAL") or shutil.which("trec_eval")), reason="no trec_eval binary "
                    "(set TREC_EVAL); the recorded trec_eval output is tested above")
def test_live_trec_eval(tmp_path, example):
    binary = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    qrels, runs = example
    files = []
    for run in runs[:2]:
        path = tmp_path / f"{run.stem}.eval"
        path.write_text(subprocess.run([binary, "-q", "-m", "P.10", "-m", "map", str(qrels), str(run)],
                                       capture_output=True, text=True, check=True).stdout)
        files.append(path)
    got = _tests("--scores", *files, "-m", "P@10", "--test", "randomisation")
    expected = _tests("--qrels", qrels, *runs[:2], "-m", "P@10", "--test", "randomisation")
    assert got["p_value"].tolist() == expected["p_value"].tolist()


@pytest.mark.parametrize("fmt", ["csv", "json", "trec"])
def test_pateval_per_topic_output_at_full_precision_gives_equal_p_values(tmp_path, example, fmt):
    qrels, runs = example
    files = []
    for run in runs:
        path = tmp_path / f"{run.stem}.{fmt}"
        code, _, err = _cli("evaluate", qrels, run, "-q", "-m", "AP", "-m", "nDCG@10", "-m", "PRES@100", "--format",
                            fmt,
                            "--precision", "17", "-o", path)
        assert code == 0, err
        files.append(path)
    for test in TESTS:
        got = _tests("--scores", *files, "--test", test)
        expected = _tests("--qrels", qrels, *runs, "-m", "AP", "-m", "nDCG@10", "-m", "PRES@100", "--test", test)
        assert got["p_value"].tolist() == pytest.approx(expected["p_value"].tolist(), abs=1e-12, rel=0)


def test_one_file_of_several_runs(tmp_path, example):
    qrels, runs = example
    path = tmp_path / "all.txt"
    assert _cli("evaluate", qrels, *runs, "-q", "-m", "AP", "--precision", "17", "-o", path)[0] == 0
    other = tmp_path / "run9.txt"
    other.write_text(path.read_text().replace("run1\t", "run9\t").replace("run2\t", "run8\t").replace("run3\t",
                                                                                                      "run7\t"))
    got = _tests("--scores", path, "--test", "t")
    expected = _tests("--qrels", qrels, *runs, "-m", "AP", "--test", "t")
    assert got["p_value"].tolist() == pytest.approx(expected["p_value"].tolist(), abs=1e-12, rel=0)


def test_ir_measures_output(tmp_path, example):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, runs = example
    files = []
    for run in runs:
        for suffix, extra in (("tsv", []), ("jsonl", ["-o", "jsonl"])):
            out = subprocess.run([sys.executable, "-m", "ir_measures", str(qrels), str(run), "P@10", "R@100", "-q",
                                  "-p", "-1", *extra], capture_output=True, text=True, check=True).stdout
            path = tmp_path / f"{run.stem}.{suffix}"
            path.write_text(out)
            frame = read_scores(path)
            assert frame.attrs["format"] == "ir_measures" and set(frame["measure"]) == {"P@10", "R@100"}
            values = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(
                [ir_measures.P @ 10, ir_measures.R @ 100], ir_measures.read_trec_qrels(str(qrels)),
                ir_measures.read_trec_run(str(run)))}
            assert {(t, m): v for t, m, v in zip(frame["topic"], frame["measure"], frame["value"],
                                                 strict=False)} == values
        files.append(tmp_path / f"{run.stem}.tsv")
    got = _tests("--scores", *files, "--test", "wilcoxon")
    expected = _tests("--qrels", qrels, *runs, "-m", "P@10", "-m", "R@100", "--test", "wilcoxon")
    assert got["p_value"].tolist() == pytest.approx(expected["p_value"].tolist(), abs=1e-12, rel=0)


def test_analyse_measures_and_report_take_scores(tmp_path, test_data):
    files = sorted((test_data / "trec_eval_q").glob("run*.eval"))
    code, out, err = _cli("analyse-measures", "--scores", *files, "-m", "AP", "-m", "P@10", "--format", "json", "-B",
                          "200")
    assert code == 0, err and json.loads(out)
    report = tmp_path / "r.html"
    code, _, err = _cli("report", "--scores", *files, "-m", "AP", "-m", "nDCG@10", "-o", report, "-B", "200")
    assert code == 0, err
    assert "run3" in report.read_text()


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_bad_score_files_are_refused_with_file_and_line(tmp_path, test_data):
    good = test_data / "trec_eval_q" / "run1.eval"
    bad = _write(tmp_path, "bad.eval", "map\tq1\t0.5\nmap\tq2\tzero\nmap\tall\t0.25\n")
    code, out, err = _cli("compare", "--scores", good, bad)
    assert (code, out) == (2, "")
    assert err == f"pateval: error: {bad}, line 2: the score is not a number (expected a number, found 'zero')\n"
    with pytest.raises(InputFormatError, match=r"x.eval, line 2: topic q1 has a second AP score$"):
        read_scores(_write(tmp_path, "x.eval", "map\tq1\t0.5\nmap\tq1\t0.25\nmap\tall\t0.25\n"))
    with pytest.raises(InputFormatError, match=r"y.eval: cannot tell whether the measure or the topic comes first "
                                               r"\(expected --scores-format trec_eval"):
        read_scores(_write(tmp_path, "y.eval", "map\tAP\t0.5\n"))
    assert read_scores(_write(tmp_path, "z.tsv", "q1\tAP\t0.5\nq2\tAP\t0.25\n")).attrs["format"] == "ir_measures"
    with pytest.raises(InputFormatError, match=r"w.eval: no per-topic score \(only aggregates, or nothing\)"):
        read_scores(_write(tmp_path, "w.eval", "map\tall\t0.5\nrunid\tall\tw\n"))
    with pytest.raises(PatevalError, match=r"run1.eval: run 'run1' has no per-topic RR@5 scores"):
        api.read_scores([good, test_data / "trec_eval_q" / "run2.eval"], measures=["RR@5"])
    with pytest.raises(PatevalError, match="comparing needs per-topic scores of at least two runs; the files hold 1"):
        api.read_scores([good])
    code, _, err = _cli("compare", "--scores", good, good)
    assert err == (f"pateval: error: {good}: run 'run1' is also in {good}; each run once "
                   "(rename one file or its runid)\n")
    code, _, err = _cli("compare", "--scores", "--qrels", "q.txt", good, good)
    assert (code, err) == (2, "pateval: error: --scores compares score files without qrels; leave out --qrels\n")
    code, _, err = _cli("compare", good, good)  # without --scores the first file is the qrels (issue 14: QRELS first)
    assert (code, err) == (2, f"pateval: error: {good}, line 4: the relevance grade (3rd column) is not an integer "
                              "(expected an integer, found '0.1003')\n")


def test_compare_takes_a_score_frame(example):
    qrels, runs = example
    frame = api.evaluate(qrels, runs, ["AP", "P@10"])
    from_frame = api.compare(None, frame, ["AP"], test="t", correction=None).tests
    from_runs = api.compare(qrels, runs, ["AP"], test="t", correction=None).tests
    assert from_frame["p_value"].tolist() == from_runs["p_value"].tolist()


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_ids = st.text(alphabet="abcXYZ019-_.", min_size=1, max_size=6).filter(lambda s: s != "all")


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.tuples(_ids, st.sampled_from(["AP", "P@10", "nDCG@10", "my_score"])),
                       st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=30),
       st.sampled_from(["trec_eval", "ir_measures"]))
def test_written_scores_read_back_exactly(tmp_path_factory, scores, layout):
    path = tmp_path_factory.mktemp("scores") / "r.eval"
    lines = [f"{m}\t{t}\t{v!r}" if layout == "trec_eval" else f"{t}\t{m}\t{v!r}" for (t, m), v in scores.items()]
    path.write_text("\n".join(lines) + "\n")
    frame = read_scores(path, format=layout)
    assert {(t, m): v for t, m, v in zip(frame["topic"], frame["measure"], frame["value"], strict=False)} == scores
    assert set(frame["run"]) == {"r"}


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=200))
def test_any_text_is_read_or_refused_with_an_input_error(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "x.eval"
    path.write_text(text)
    try:
        frame = read_scores(path)
    except InputFormatError:
        return
    assert list(frame.columns) == ["run", "topic", "measure", "value"] and len(frame) > 0


def test_bad_csv_of_scores(tmp_path):
    path = _write(tmp_path, "s.csv", 'run,measure,topic,value\nr,AP,q1,0.5\nr,AP,"q2\n')
    with pytest.raises(InputFormatError, match=r"s.csv, line 3: 3 fields where the header has 4"):
        read_scores(path)
    path = _write(tmp_path, "t.csv", "run,measure,topic,value\nr,AP,q1,half\n")
    with pytest.raises(InputFormatError,
                       match=r"t.csv, line 2: the score is not a number \(expected a number, found 'half'\)"):
        read_scores(path)


def test_nan_scores_are_refused(tmp_path):
    with pytest.raises(InputFormatError, match=r"n.eval, line 1: the score is not a finite number \(expected a number, "
                                               r"found 'nan'\)"):
        read_scores(_write(tmp_path, "n.eval", "map\tq1\tnan\nmap\tall\t0.5\n"))


def test_run_options_are_refused_with_scores(test_data):
    good = test_data / "trec_eval_q" / "run1.eval"
    code, _, err = _cli("compare", "--scores", "-c", good, test_data / "trec_eval_q" / "run2.eval")
    assert (code, err) == (2, "pateval: error: -c and --qrels-format act on runs and qrels; with --scores the files' "
                              "topics are used as they are\n")


def test_cli_lists_the_readers_formats():
    from pateval import cli
    from pateval.results import readers

    assert cli.SCORE_FORMATS == readers.SCORE_FORMATS


def test_white_space_only(tmp_path):
    with pytest.raises(InputFormatError, match=r"s.eval: no per-topic score \(the file holds only white space\)"):
        read_scores(_write(tmp_path, "s.eval", "\x1f \n\t\n"))


def test_csv_of_scores_read_as_every_input_is(tmp_path, monkeypatch):
    """Line numbers count blank lines; standard input, compression by content and invalid
    UTF-8 behave as in every other reader (review: the CSV was read a second time by name)."""
    import bz2

    text = "run,measure,topic,value\n\nr,AP,q1,0.5\n\nr,AP,q2,half\n"
    with pytest.raises(InputFormatError, match=r"b.csv, line 5: the score is not a number"):
        read_scores(_write(tmp_path, "b.csv", text), format="pateval-csv")
    good = "run,measure,topic,value\nr,AP,q1,0.5\nr,AP,q2,0.25\n"
    packed = tmp_path / "scores"  # bzip2 without a telling name
    packed.write_bytes(bz2.compress(good.encode()))
    assert read_scores(packed, format="pateval-csv")["value"].tolist() == [0.5, 0.25]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(good.encode())))
    assert read_scores("-", format="pateval-csv")["value"].tolist() == [0.5, 0.25]
    bad = tmp_path / "u.csv"
    bad.write_bytes(b"run,measure,topic,value\nr,AP,q\xff1,0.5\n")
    with pytest.raises(InputFormatError, match=r"u.csv, line 2: not valid UTF-8 text"):
        read_scores(bad)
