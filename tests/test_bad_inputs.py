"""The table of bad inputs (docs/reference/bad-input.md, once the README's), row by row: each
command, run in a folder holding the row's files, gives the exit status and exactly the message
the table shows.

The table is the test's data (parsed from docs/reference/bad-input.md between
``<!-- bad-inputs -->`` and ``<!-- /bad-inputs -->``), so the two cannot drift apart.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from pateval.cli import main

PAGE = Path(__file__).resolve().parents[1] / "docs" / "reference" / "bad-input.md"
_FILE = re.compile(r"`([^`]+)`(?::\s*(?:`([^`]*)`|(\(empty\))))?")
_DEFAULTS_PREFIX = "Beside its own files, each row's folder holds: "


def _unpipe(text: str) -> str:
    return text.replace("\\|", "|")


def _files(cell: str) -> dict[str, bytes | None]:
    """``name``: ``content`` pairs of a table cell (None: a folder; content with Python escapes)."""
    if cell.strip() == "-":
        return {}
    files = {}
    for name, content, empty in _FILE.findall(_unpipe(cell)):
        if name.endswith("/"):
            files[name] = None
        else:
            files[name] = b"" if empty else codecs.escape_decode(content.encode("utf-8"))[0]
    return files


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def _table() -> tuple[dict[str, bytes | None], list[tuple[int, str, dict, str, int, str]]]:
    text = PAGE.read_text(encoding="utf-8")
    block = text.split("<!-- bad-inputs -->", 1)[1].split("<!-- /bad-inputs -->", 1)[0]
    defaults: dict[str, bytes | None] = {}
    rows = []
    for line in block.splitlines():
        if line.startswith(_DEFAULTS_PREFIX):
            defaults = _files(line[len(_DEFAULTS_PREFIX):])
        elif line.startswith("| ") and not line.startswith("| #"):
            number, kind, what, files, command, status, message = _cells(line)
            assert command.startswith("`pateval ") and command.endswith("`"), line
            assert message.startswith("`` ") and message.endswith(" ``"), line
            said = _unpipe(message[3:-3]).replace("\\t", "\t")
            rows.append((int(number), f"{kind}: {what}", _files(files), command[1:-1], int(status), said))
    return defaults, rows


DEFAULTS, ROWS = _table()


def test_the_table_has_forty_numbered_rows_or_more():
    assert len(ROWS) >= 40
    assert [row[0] for row in ROWS] == list(range(1, len(ROWS) + 1))
    kinds = {row[1].split(":")[0] for row in ROWS}
    assert {"run", "qrels", "passage run", "passage qrels", "passage topics", "patent XML", "flowchart",
            "store", "topic groups"} <= kinds


@pytest.mark.parametrize("number, what, files, command, status, message", ROWS, ids=[f"{r[0]}-{r[1]}" for r in ROWS])
def test_bad_input_row(tmp_path, monkeypatch, number, what, files, command, status, message):
    monkeypatch.chdir(tmp_path)
    for name, content in {**DEFAULTS, **files}.items():
        target = tmp_path / name
        if content is None:
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(shlex.split(command)[1:])
        except SystemExit as exit_:  # argparse's own usage errors
            code = exit_.code
    said = [line for line in err.getvalue().splitlines() if not line.startswith("pateval: note:")]
    first = (said or out.getvalue().splitlines() or [""])[0]
    assert "Traceback" not in err.getvalue()
    assert (code, first.replace(str(tmp_path), "$PWD")) == (status, message)
