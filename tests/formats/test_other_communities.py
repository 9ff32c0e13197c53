"""The files of other communities (issue 30, item 3): BEIR's and MTEB's qrels TSV with its
header, runs and qrels saved as JSON of nested dicts (pytrec_eval's, BEIR's, MTEB's shape),
from a file or standard input; and a first line that is a header named as one (item 4)."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest

import pateval
from pateval.cli import main
from pateval.errors import InputFormatError

DATA = Path(__file__).resolve().parents[1] / "data" / "beir"
MEASURES = ["AP", "nDCG@10", "P@5", "R@100", "RR", "NumRelRet"]


def _as_trec(tmp_path):
    """The BEIR sample written as TREC qrels and a TREC run, converted here line by line."""
    qrels = tmp_path / "qrels.txt"
    lines = (DATA / "test.tsv").read_text().splitlines()[1:]
    qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in (line.split("\t") for line in lines)))
    run = tmp_path / "run.txt"
    results = json.loads((DATA / "results.json").read_text())
    run.write_text("".join(f"{q} Q0 {d} 0 {s!r} results\n" for q, docs in results.items() for d, s in docs.items()))
    return qrels, run


def _values(frame):
    return {(r.topic, r.measure): r.value for r in frame.itertuples()}


def test_beir_qrels_and_a_json_run_give_the_numbers_of_their_trec_forms(tmp_path):
    qrels, run = _as_trec(tmp_path)
    expected = _values(pateval.evaluate(str(qrels), str(run), MEASURES))
    result = pateval.api.evaluation(str(DATA / "test.tsv"), str(DATA / "results.json"), MEASURES)
    assert _values(result.frame) == expected
    assert set(result.frame["run"]) == {"results"}  # JSON has no tag: named by its file
    assert any("read as BEIR/MTEB qrels (its header query-id corpus-id score)" in n for n in result.notes)
    assert pateval.read_qrels(DATA / "test.tsv").format == "beir"


def test_json_qrels_and_the_formats_by_name(tmp_path):
    qrels, run = _as_trec(tmp_path)
    expected = _values(pateval.evaluate(str(qrels), str(run), MEASURES))
    as_json = tmp_path / "qrels.json"
    as_json.write_text(json.dumps(pateval.read_qrels(qrels).to_dict()))
    result = pateval.api.evaluation(str(as_json), str(DATA / "results.json"), MEASURES)
    assert _values(result.frame) == expected
    assert any("read as JSON of nested dicts" in n for n in result.notes)
    named = pateval.evaluate(str(as_json), str(DATA / "results.json"), MEASURES, qrels_format="json",
                             run_format="json")
    assert _values(named) == expected
    # a JSON run named as TREC is read as TREC, and refused as such
    with pytest.raises(InputFormatError, match="results.json, line 1"):
        pateval.evaluate(str(qrels), str(DATA / "results.json"), MEASURES, run_format="trec")


def test_the_command_reads_beir_qrels_and_a_json_run_from_standard_input(tmp_path, capsys):
    qrels, run = _as_trec(tmp_path)
    assert main(["evaluate", str(qrels), str(run), "-m", "nDCG@10", "-m", "AP"]) == 0
    expected = capsys.readouterr().out
    piped = io.TextIOWrapper(io.BytesIO((DATA / "results.json").read_bytes()))
    with mock.patch.object(sys, "stdin", piped):
        assert main(["evaluate", str(DATA / "test.tsv"), "-", "-m", "nDCG@10", "-m", "AP"]) == 0
    captured = capsys.readouterr()
    assert captured.out == expected
    assert "read as BEIR/MTEB qrels" in captured.err


def test_qrels_format_beir_reads_a_three_column_file_with_another_header(tmp_path, capsys):
    headed = tmp_path / "qrels.txt"
    headed.write_text("qid docno rel\n1 31715818 1\n3 14717500 1\n")
    qrels = pateval.read_qrels(headed, format="beir")
    assert qrels.to_dict() == {"1": {"31715818": 1}, "3": {"14717500": 1}}
    assert "the header line skipped" in qrels.notes[-1]


@pytest.mark.parametrize(("text", "problem"), [
    ("qid docno rel\n1 d1 1\n", "line 1: the first line looks like a header ('qid docno rel'), not a judgement: "
     "qrels of 3 columns with a header (BEIR's, MTEB's) are read with --qrels-format beir"),
    ("qid iter docno rel\nq1 0 d1 1\n", "line 1: the first line looks like a header ('qid iter docno rel'), not a "
     "judgement: remove it"),
])
def test_a_header_line_of_qrels_is_named_as_a_header(tmp_path, text, problem):
    path = tmp_path / "qrels.txt"
    path.write_text(text)
    with pytest.raises(InputFormatError) as caught:
        pateval.read_qrels(path)
    assert problem in str(caught.value) and str(path) in str(caught.value)


def test_beir_qrels_named_as_trec_say_header_and_the_flag(capsys):
    assert main(["evaluate", str(DATA / "test.tsv"), str(DATA / "results.json"), "--qrels-format", "trec"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "line 1: the first line looks like a header ('query-id corpus-id score')" in err
    assert "--qrels-format beir" in err


def test_a_header_line_of_a_run_is_named_as_a_header(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("qid Q0 docno rank score tag\nq1 Q0 d1 1 2.0 bm25\n")
    with pytest.raises(InputFormatError, match=r"line 1: the first line looks like a header .*run files have no "
                       r"header line"):
        pateval.read_run(path)


@pytest.mark.parametrize(("content", "problem"), [
    ('["q1"]', "the JSON is not an object of topics"),
    ('{"q1": [1, 2]}', "topic 'q1' is not an object of documents"),
    ('{"q1": {"d1": "high"}}', "topic 'q1', document 'd1': the score is not a number"),
    ('{"q1": {"d1": true}}', "topic 'q1', document 'd1': the score is not a number"),
    ('{"q1": {"d1": 2.0}, "q2": {"d1": 1.0, "d7": NaN}}', "topic 'q2', document 'd7': the score is not a number"),
    ('{"q1": {"d1": 1' + '0' * 400 + '}}', "topic 'q1', document 'd1': the score is not a number"),
    ('{"q1": {"d1": 1.0}', "not valid JSON"),
])
def test_a_json_run_is_refused_in_one_line_naming_the_file_and_the_item(tmp_path, content, problem):
    path = tmp_path / "run.json"
    path.write_text(content)
    with pytest.raises(InputFormatError) as caught:
        pateval.read_run(path, format="json")
    assert problem in str(caught.value) and str(path) in str(caught.value)
    assert "\n" not in str(caught.value)


def test_json_qrels_grades_are_checked_as_every_grade(tmp_path):
    path = tmp_path / "qrels.json"
    path.write_text('{"q1": {"d1": "x"}}')
    with pytest.raises(InputFormatError, match="topic 'q1', document 'd1': the grade is not a number"):
        pateval.read_qrels(path)


TREC_EVAL = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")


@pytest.mark.skipif(TREC_EVAL is None, reason="no trec_eval binary (set TREC_EVAL or put trec_eval on PATH)")
def test_beir_files_give_trec_eval_numbers(tmp_path, capsys):
    """The calls BEIR's EvaluateRetrieval makes (map_cut, ndcg_cut, recall, P at its k values),
    on the BEIR sample read as BEIR qrels and a JSON run, against trec_eval 10.0 on the same
    data in TREC form (trec_eval is what pytrec_eval embeds)."""
    qrels, run = _as_trec(tmp_path)
    flags = ["-m", "map_cut.1,3,5", "-m", "ndcg_cut.1,3,5,10", "-m", "recall.1,3,5,100", "-m", "P.1,3,5"]
    out = subprocess.run([TREC_EVAL, *flags, str(qrels), str(run)], capture_output=True, text=True, check=True).stdout
    expected = {line.split()[0]: line.split()[2] for line in out.splitlines()}
    assert main(["evaluate", str(DATA / "test.tsv"), str(DATA / "results.json"), "--names", "trec", *flags]) == 0
    got = {line.split()[0]: line.split()[2] for line in capsys.readouterr().out.splitlines()
           if line.split()[0] not in ("runid", "num_q")}
    assert got == expected and len(expected) == 14
