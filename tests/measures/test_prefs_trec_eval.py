"""The preference and judgement-group measures against the real trec_eval 10.0 (built from
usnistgov/trec_eval; never committed; TREC_EVAL names it, skipped without): random
preferences, qrels read as preferences and qrels with judgement groups, random runs (tied
scores, unjudged documents, topics on one side only), ``pateval trec_eval`` and trec_eval
with the same flags print the same."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pateval.cli import main

TREC_EVAL = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
pytestmark = pytest.mark.skipif(TREC_EVAL is None, reason="no trec_eval binary (set TREC_EVAL or put it on PATH)")

_TOPICS = ["1", "10", "2", "t"]
_DOCS = [f"d{i}" for i in range(10)] + ["D1", "a-b"]
_GROUPS = ["u1", "u2", "U", "x"]


@st.composite
def _prefs(draw):
    """A prefs file: each group ranks its documents by a hidden level (0: non-relevant), and
    each sub-group lists some of them with that level times a factor of its own, so that the
    sub-groups of a group agree (trec_eval stops at a contradiction)."""
    lines = []
    for topic in draw(st.lists(st.sampled_from(_TOPICS), min_size=1, max_size=3, unique=True)):
        for group in draw(st.lists(st.sampled_from(_GROUPS), min_size=1, max_size=3, unique=True)):
            docs = draw(st.lists(st.sampled_from(_DOCS), min_size=1, max_size=8, unique=True))
            hidden = {d: draw(st.integers(0, 3)) for d in docs}
            for subgroup in range(draw(st.integers(1, 3))):
                factor = draw(st.sampled_from([1, 2, 0.5]))
                for doc in draw(st.lists(st.sampled_from(docs), min_size=1, max_size=len(docs), unique=True)):
                    lines.append(f"{topic} {group} s{subgroup} {doc} {hidden[doc] * factor}\n")
    return "".join(draw(st.permutations(lines)))


@st.composite
def _qrels_with_groups(draw, grades):
    lines = []
    for topic in draw(st.lists(st.sampled_from(_TOPICS), min_size=1, max_size=3, unique=True)):
        for group in draw(st.lists(st.sampled_from(_GROUPS), min_size=1, max_size=3, unique=True)):
            for doc in draw(st.lists(st.sampled_from(_DOCS), min_size=1, max_size=8, unique=True)):
                lines.append(f"{topic} {group} {doc} {draw(st.sampled_from(grades))}\n")
    return "".join(draw(st.permutations(lines)))


@st.composite
def _run(draw):
    lines = []
    for topic in draw(st.lists(st.sampled_from(_TOPICS), min_size=1, max_size=4, unique=True)):
        for rank, doc in enumerate(draw(st.lists(st.sampled_from(_DOCS), min_size=1, max_size=10, unique=True))):
            lines.append(f"{topic} Q0 {doc} {rank + 1} {draw(st.sampled_from([0, 1, 2, 2.5, -1, 3]))} tag\n")
    return "".join(draw(st.permutations(lines)))


def _compare(flags: list[str], judgements: str, run_text: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        rel, run = Path(directory) / "rel", Path(directory) / "run"
        rel.write_text(judgements)
        run.write_text(run_text)
        expected = subprocess.run([str(TREC_EVAL), *flags, str(rel), str(run)], capture_output=True, text=True)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(["trec_eval", *flags, str(rel), str(run)])
    if expected.returncode != 0:  # a judged topic without results, without -c: trec_eval 10.0 stops,
        # pateval averages over the topics in both, as trec_eval on the judgements of those topics alone
        assert "not found in qrels" in expected.stderr, expected.stderr
        assert status == 0 and "qrels topic(s) without results left out of the mean" in err.getvalue()
        in_run = {line.split()[0] for line in run_text.splitlines()}
        kept = "".join(line for line in judgements.splitlines(keepends=True) if line.split()[0] in in_run)
        if not kept:
            assert out.getvalue() == ""  # no topic in both: nothing to average
            return
        with tempfile.TemporaryDirectory() as directory:
            rel, run = Path(directory) / "rel", Path(directory) / "run"
            rel.write_text(kept)
            run.write_text(run_text)
            expected = subprocess.run([str(TREC_EVAL), *flags, str(rel), str(run)], capture_output=True, text=True)
        assert expected.returncode == 0, expected.stderr
    assert status == 0, err.getvalue()
    assert out.getvalue() == expected.stdout


PREFS_FLAGS = [["-m", "all_prefs", "-q"], ["-m", "all_prefs", "-q", "-c"], ["-m", "all_prefs", "-q", "-c", "-M", "3"],
               ["-m", "all_prefs", "-c", "-J"]]
JG_FLAGS = [["-m", "qrels_jg", "-q"], ["-m", "qrels_jg", "-q", "-c"], ["-m", "qrels_jg", "-q", "-c", "-M", "4"],
            ["-m", "qrels_jg", "-q", "-c", "-J"], ["-m", "qrels_jg", "-q", "-c", "-J", "-M", "3", "-l", "2"],
            ["-q", "-c", "-m", "P_avgjg.1,3,20", "-m", "Rprec_mult_avgjg.0.5,1,3"]]


@pytest.mark.parametrize("flags", PREFS_FLAGS, ids=" ".join)
@settings(max_examples=40, deadline=None)
@given(judgements=_prefs(), run=_run())
def test_prefs_as_trec_eval(flags, judgements, run):
    _compare(["-R", "prefs", *flags], judgements, run)


@pytest.mark.parametrize("flags", PREFS_FLAGS, ids=" ".join)
@settings(max_examples=40, deadline=None)
@given(judgements=_qrels_with_groups([0, 1, 2, 3, 0.5]), run=_run())
def test_qrels_prefs_as_trec_eval(flags, judgements, run):
    _compare(["-R", "qrels_prefs", *flags], judgements, run)


@pytest.mark.parametrize("flags", JG_FLAGS, ids=" ".join)
@settings(max_examples=40, deadline=None)
@given(judgements=_qrels_with_groups([-1, 0, 1, 2, 3]), run=_run())
def test_qrels_jg_as_trec_eval(flags, judgements, run):
    _compare(["-R", "qrels_jg", *flags], judgements, run)
