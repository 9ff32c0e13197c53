"""Every code example of the documentation runs, and shows what it prints (issue 31).

The examples are taken from the Markdown sources (README.md and docs/**/*.md), so the site cannot
drift from the code:

- a ``console``/``bash``/``shell`` block whose lines start with ``$ `` is a session: each command
  (``\\`` continues it on the next line) runs with bash in a folder holding the bundled example files
  (``pateval.example_files()``: qrels.txt, run1.txt, run2.txt, run3.txt; also as bm25.run, lm.run and
  big.run, the names the guides use), a document-lengths file, lengths.txt, and an interaction log of
  simulated users on bm25.run, log.csv.gz (``pateval user-model simulate-log``); the lines after it are
  its output, compared with doctest's rules (``...`` stands for any text, runs of white space are
  equal). Shown lines that start with ``pateval: `` (notes, errors) are compared with standard error,
  the others with standard output; a command that shows ``pateval: error:`` must fail, any other must
  succeed. The sessions of one page run in one folder, one command after another, so that a page
  can build on what it made above (a shell user's terminal).
- a ``python`` block runs in such a folder too; the blocks of one page share their names, in order, as
  a notebook's cells; a ``>>>`` block is a doctest.
- a block that cannot run on the bundled data (a Dask cluster, a patent corpus, a server) says why on
  the line before it: ``<!-- not run: REASON -->``; a block that a test of its own runs says which:
  ``<!-- run by tests/PATH.py -->`` (that test must read the page). Bash blocks without ``$ `` are
  synopses (``pateval evaluate QRELS RUN...``) and are not run.
"""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import pateval

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_FENCE = re.compile(r"^(?P<indent>[ ]*)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ ]*$", re.M | re.S)
_MARK = re.compile(r"<!-- (not run: .+|run by (tests/\S+\.py)) -->\s*$")
_SHELLS = {"console", "bash", "shell", "sh"}
_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@dataclass
class Block:
    page: Path
    line: int
    lang: str
    body: str
    mark: str | None

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    found = []
    for match in _FENCE.finditer(text):
        before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = _MARK.search(before)
        indent = len(match["indent"])
        body = "\n".join(line[indent:] for line in match["body"].splitlines())
        found.append(Block(page, text.count("\n", 0, match.start()) + 1, match["lang"], body,
                           mark.group(1) if mark else None))
    return found


ALL = [block for page in PAGES for block in blocks(page)]
SESSIONS = [b for b in ALL if b.lang in _SHELLS and any(line.startswith("$ ") for line in b.body.splitlines())
            and b.mark is None]
PYTHON = [b for b in ALL if b.lang in ("python", "pycon") and b.mark is None]
MARKED = [b for b in ALL if b.mark is not None]


@pytest.fixture(scope="module")
def examples(tmp_path_factory) -> Path:
    """The bundled example data under the names the pages use, and lengths for every document."""
    here = tmp_path_factory.mktemp("examples")
    qrels, runs = pateval.example_files()
    shutil.copy(qrels, here / "qrels.txt")
    for run in runs:
        shutil.copy(run, here / Path(run).name)
    for name, source in (("bm25.run", runs[0]), ("lm.run", runs[1]), ("big.run", runs[2])):
        shutil.copy(source, here / name)
    documents = sorted({line.split()[2] for path in [qrels, *runs] for line in Path(path).read_text().splitlines()})
    (here / "lengths.txt").write_text("".join(f"{doc} {100 + 37 * i % 1900}\n" for i, doc in enumerate(documents)))
    from pateval.cli import main

    assert main(["user-model", "simulate-log", "--qrels", str(here / "qrels.txt"), "--run", str(here / "bm25.run"),
                 "--doc-lengths", str(here / "lengths.txt"), "--users", "24", "--seed", "1",
                 "--out", str(here / "log.csv.gz")]) == 0
    return here


def _folder(examples: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    shutil.copytree(examples, folder)
    return folder


def _commands(body: str) -> list[tuple[str, list[str]]]:
    """A session's commands, each with the output lines shown after it."""
    commands: list[tuple[str, list[str]]] = []
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1] + " " + lines[i].strip()
            commands.append((command, []))
        elif commands:
            commands[-1][1].append(line)
        i += 1
    return commands


def _check(shown: list[str], got: str, what: str, block: Block, command: str) -> None:
    want = "\n".join(shown).strip("\n")
    want = want + "\n" if want else ""
    if not doctest.OutputChecker().check_output(want, got.strip("\n") + "\n" if got.strip() else "", _FLAGS):
        pytest.fail(f"{block.name}: `{command}` {what} differs from the page\n--- page\n{want}--- got\n{got}")


def _session_pages() -> list[Path]:
    return sorted({b.page for b in SESSIONS}, key=str)


@pytest.mark.parametrize("page", _session_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_console_examples_show_what_they_print(page, examples, tmp_path):
    folder = _folder(examples, tmp_path)
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""), "COLUMNS": "100"}
    for block in (b for b in SESSIONS if b.page == page):
        for command, shown in _commands(block.body):
            done = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True,
                                  timeout=600)
            said = [line for line in shown if line.startswith("pateval: ")]
            printed = [line for line in shown if not line.startswith("pateval: ")]
            fails = any(line.startswith("pateval: error:") for line in said)
            assert (done.returncode != 0) == fails, \
                f"{block.name}: `{command}` exit status {done.returncode}\n{done.stderr}"
            _check(printed, done.stdout, "output", block, command)
            if said:
                _check(said, done.stderr, "message", block, command)


def _pages_with_python() -> list[Path]:
    return sorted({b.page for b in PYTHON}, key=str)


@pytest.mark.parametrize("page", _pages_with_python(), ids=lambda p: str(p.relative_to(ROOT)))
def test_python_examples_run(page, examples, tmp_path, monkeypatch):
    folder = _folder(examples, tmp_path)
    monkeypatch.chdir(folder)
    namespace: dict = {"__name__": "__docs__"}
    for block in (b for b in PYTHON if b.page == page):
        if block.body.lstrip().startswith(">>>"):
            test = doctest.DocTestParser().get_doctest(block.body, namespace, block.name, str(page), block.line)
            runner = doctest.DocTestRunner(optionflags=_FLAGS)
            runner.run(test, clear_globs=False)
            assert runner.failures == 0, f"{block.name}: a doctest line fails"
        else:
            exec(compile(block.body, block.name, "exec"), namespace)  # noqa: S102 - the page's own example


@pytest.mark.parametrize("block", MARKED, ids=[b.name for b in MARKED])
def test_an_example_not_run_here_says_why(block):
    assert block.mark is not None
    if block.mark.startswith("run by "):
        test = ROOT / block.mark.split(" ", 2)[2]
        assert test.exists(), f"{block.name}: {test} does not exist"
        assert str(block.page.relative_to(ROOT)) in test.read_text(encoding="utf-8"), \
            f"{block.name}: {test.name} does not read {block.page.name}"
    else:
        assert len(block.mark) > len("not run: ") + 10, f"{block.name}: say why the example is not run"


def test_the_examples_are_found():
    """The extraction itself: sessions and Python blocks in the getting-started pages."""
    started = {b.page.parent.name for b in SESSIONS}
    assert "getting-started" in started
    assert len(SESSIONS) >= 6 and len(PYTHON) >= 3
