"""The example of the guide "Using pateval from PyTerrier and ir_measures"
(docs/guides/ir-measures-pyterrier.md, once the README's section) runs as written, and its numbers are
pateval's."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from pateval.options import EvaluationOptions

pytest.importorskip("pyterrier")

PAGE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "ir-measures-pyterrier.md"
SECTION = "# Using pateval from PyTerrier and ir_measures"


def _example() -> str:
    text = PAGE.read_text(encoding="utf-8")
    assert SECTION in text, "the guide lost its PyTerrier section"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks, "the PyTerrier section has no python example"
    return blocks[0]


def test_readme_example_runs_and_gives_pateval_numbers():
    import pyterrier as pt

    import pateval

    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(_example(), "ir-measures-pyterrier.md", "exec"), namespace)  # noqa: S102 - the guide's own code
    table = namespace["table"]
    qrels_file, run_files = pateval.example_files()
    frame = pateval.evaluate(qrels_file, run_files[:2], ["AP", "PRES@100", "nDCG@10"], complete=True)
    means = pateval.aggregate(frame)
    for (name, run) in (("bm25", "run1"), ("lm", "run2")):
        for measure in ("AP", "PRES@100", "nDCG@10"):
            expected = means.loc[(means["run"] == run) & (means["measure"] == measure), "value"].iloc[0]
            assert table.loc[table["name"] == name, measure].iloc[0] == pytest.approx(expected, abs=1e-12, rel=0)
    comparison = pateval.api.compare(qrels_file, run_files[:2], ["PRES@100"], baseline="run1", test="randomisation",
                                     correction=None, seed=1, B=10000, options=EvaluationOptions(complete=True))
    assert table.loc[table["name"] == "lm", "PRES@100 p-value"].iloc[0] == comparison.tests["p_value"].iloc[0]
    assert "PRES@100" in out.getvalue()
    assert not pt.java.started()
