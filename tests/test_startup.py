"""Start-up: ``pateval --help``, ``pateval COMMAND --help`` and ``import pateval`` load no heavy
library. The rule is checked on ``sys.modules`` in a fresh interpreter (the time itself is
benchmarks/bench_startup.py's, not a test's)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pateval.cli import _leaf_parsers, build_parser

#: Libraries whose import costs tenths of a second (or pulls in a compiled extension) and
#: that no help text needs.
HEAVY = ("numpy", "pandas", "pyarrow", "scipy", "matplotlib", "duckdb", "lxml", "tantivy", "dask", "distributed",
         "networkx", "tqdm")

_PROBE = """
import contextlib, io, json, sys
argv = json.loads(sys.argv[1])
if argv == ["import"]:
    import pateval
    pateval.__version__
else:
    from pateval.cli import main
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            main(argv)
        except SystemExit:
            pass
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def _command_paths() -> list[list[str]]:
    """Every command line that ends in a sub-command: ``evaluate``, ``corpus ingest``, ..."""
    parser = build_parser()
    paths = []
    for leaf in _leaf_parsers(parser):
        words = leaf.prog.split()[1:]  # "pateval corpus ingest" -> ["corpus", "ingest"]
        paths.append(words)
    return paths


def _loaded_after(argv: list[str]) -> set[str]:
    done = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(argv)], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_every_command_is_probed():
    paths = _command_paths()
    assert ["evaluate"] in paths and ["corpus", "ingest"] in paths and ["user-model", "simulate"] in paths
    assert len(paths) >= 18


@pytest.mark.parametrize("argv", [["import"], ["--help"], ["--version"], *[[*p, "--help"] for p in _command_paths()]],
                         ids=lambda argv: " ".join(argv))
def test_help_and_import_load_no_heavy_library(argv):
    heavy = sorted(set(HEAVY) & _loaded_after(argv))
    assert heavy == [], f"`{' '.join(argv)}` imported {heavy}: import them inside the handler, not when building the parser"
