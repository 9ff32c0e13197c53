"""Data flows one way: the layers contract of pyproject.toml ([tool.importlinter]) holds.

A module imports only from the floors below its own, siblings on a floor (``|``) do not import
each other, and every module of pateval is on a floor; imports inside functions count too. The
same check as ``lint-imports`` on the command line, so that the tests fail on an upward import
or a cycle.
"""

from __future__ import annotations

from pathlib import Path

from importlinter.cli import lint_imports

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_imports_keep_the_layers(capsys):
    code = lint_imports(config_filename=str(PYPROJECT), no_cache=True, no_logo=True)
    report = capsys.readouterr().out
    assert code == 0, report
    assert "1 kept, 0 broken" in report
