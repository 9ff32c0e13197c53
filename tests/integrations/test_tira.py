"""TIRA's evaluation.prototext from `pateval evaluate --format prototext`."""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stderr, redirect_stdout

from pateval import api
from pateval.cli import main

BLOCK = re.compile(r'measure \{\n  key: "([^"]*)"\n  value: "([^"]*)"\n\}\n')


def _cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def test_prototext_of_one_run_has_one_block_per_measure_at_full_precision(tmp_path):
    qrels, runs = api.example_files()
    path = tmp_path / "evaluation.prototext"
    code, out, err = _cli("evaluate", qrels, runs[0], "-q", "-m", "AP", "-m", "PRES@100", "-m", "nDCG@10",
                          "--format", "prototext", "-o", path)
    assert code == 0 and out == "", err
    text = path.read_text()
    blocks = BLOCK.findall(text)
    assert "".join(f'measure {{\n  key: "{k}"\n  value: "{v}"\n}}\n' for k, v in blocks) == text  # nothing else
    _, out, _ = _cli("evaluate", qrels, runs[0], "-m", "AP", "-m", "PRES@100", "-m", "nDCG@10", "--format", "json")
    expected = {r["measure"]: r["value"] for r in json.loads(out) if r["topic"] == "all"}
    assert [k for k, _ in blocks] == ["AP", "PRES@100", "nDCG@10"]
    assert {k: float(v) for k, v in blocks} == expected


def test_prototext_of_several_runs_names_the_run_in_the_key():
    qrels, runs = api.example_files()
    _, out, _ = _cli("evaluate", qrels, *runs, "-m", "AP", "--format", "prototext")
    assert [k for k, _ in BLOCK.findall(out)] == ["run1 AP", "run2 AP", "run3 AP"]
