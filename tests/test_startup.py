"""Start-up: ``pateval --help``, ``pateval COMMAND --help`` and ``import pateval`` load no heavy
library. The rule is checked on ``sys.modules`` in a fresh interpreter (the time itself is
benchmarks/bench_startup.py's, not a test's)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pateval.cli import build_parser, leaf_parsers

#: Libraries whose import costs tenths of a second (or pulls in a compiled extension) and
#: that no help text needs.
HEAVY = ("numpy", "pandas", "pyarrow", "scipy", "matplotlib", "duckdb", "lxml", "tantivy", "dask", "distributed",
         "networkx", "tqdm")

_PROBE = """
import contextlib, io, json, sys
argv = json.loads(sys.argv[1])
code = 0
if argv == ["import"]:
    import pateval
    pateval.__version__
else:
    from pateval.cli import main
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as exit_:
            code = exit_.code
print(json.dumps([code, sorted({name.split(".")[0] for name in sys.modules})]))
"""


def _command_paths() -> list[list[str]]:
    """Every command line that ends in a sub-command: ``evaluate``, ``corpus ingest``, ..."""
    parser = build_parser()
    paths = []
    for leaf in leaf_parsers(parser):
        words = leaf.prog.split()[1:]  # "pateval corpus ingest" -> ["corpus", "ingest"]
        paths.append(words)
    return paths


def _loaded_after(argv: list[str]) -> set[str]:
    """The top-level modules loaded once ``pateval ARGV`` ran (successfully) in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(argv)], capture_output=True, text=True, check=True)
    code, modules = json.loads(done.stdout.splitlines()[-1])
    assert code == 0, f"`pateval {' '.join(argv)}` exited {code}: {done.stderr[-500:]}"
    return set(modules)


def test_every_command_is_probed():
    paths = _command_paths()
    assert ["evaluate"] in paths and ["corpus", "ingest"] in paths and ["user-model", "simulate"] in paths
    assert len(paths) >= 18


@pytest.mark.parametrize("argv", [["import"], ["--help"], ["--version"], *[[*p, "--help"] for p in _command_paths()]],
                         ids=lambda argv: " ".join(argv))
def test_help_and_import_load_no_heavy_library(argv):
    heavy = sorted(set(HEAVY) & _loaded_after(argv))
    assert heavy == [], (f"`{' '.join(argv)}` imported {heavy}: "
                         "import them inside the handler, not when building the parser")


def test_evaluate_loads_only_what_it_uses():
    """Scoring and printing a run needs NumPy and Arrow, not pandas (pyarrow's optional
    pandas import is deferred), nor SciPy, matplotlib, lxml, DuckDB, tantivy or Dask."""
    from pateval.api import example_files

    loaded = _loaded_after(["evaluate", "--example", "-m", "AP", "-m", "nDCG@10", "-q", "--format", "csv"])
    assert sorted(set(HEAVY) & loaded) == ["numpy", "pyarrow"]
    qrels, runs = example_files()
    loaded = _loaded_after(["evaluate", str(qrels), str(runs[0]), "-m", "P@10"])
    assert sorted(set(HEAVY) & loaded) == ["numpy", "pyarrow"]


def test_deferred_pandas_is_loaded_when_a_measure_or_option_needs_it(tmp_path):
    """A fresh process (pandas deferred) prints what this one (pandas loaded) prints, for
    measures and options that use pandas: TBG's lengths, subtopic ids, --group-by."""
    from pateval.api import example_files

    qrels, runs = example_files()
    docnos = sorted({line.split()[2] for path in [qrels, *runs] for line in Path(path).read_text().splitlines()})
    lengths = tmp_path / "lengths.txt"
    lengths.write_text("".join(f"{d} {100 + i % 50}\n" for i, d in enumerate(docnos)))
    groups = tmp_path / "groups.txt"
    topics = sorted({line.split()[0] for line in Path(qrels).read_text().splitlines()})
    groups.write_text("".join(f"{t} {'a' if i % 2 else 'b'}\n" for i, t in enumerate(topics)))
    argv = ["evaluate", "--example", "-m", "TBG", "-m", "AP", "-m", "P@5", "--doc-lengths", str(lengths),
            "--group-by", str(groups), "-q", "--format", "json"]
    fresh = subprocess.run([sys.executable, "-m", "pateval.cli", *argv], capture_output=True, text=True, check=True)
    import contextlib
    import io

    from pateval.cli import main

    here = io.StringIO()
    with contextlib.redirect_stdout(here):
        assert main(argv) == 0
    assert json.loads(fresh.stdout) == json.loads(here.getvalue())
    assert any(row["topic"] == "all:a" for row in json.loads(fresh.stdout))


def test_a_measure_that_uses_pandas_inside_the_deferred_block(tmp_path):
    """Subtopic measures reach pandas through the lazy ``pd`` while pandas is deferred."""
    qrels = tmp_path / "subtopic.qrels"
    qrels.write_text("q1 1 d1 1\nq1 2 d2 1\nq1 10 d3 1\nq2 1 d1 1\nq2 a d4 2\n")
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d2 1 3 r\nq1 Q0 d1 2 2 r\nq1 Q0 d9 3 1 r\nq2 Q0 d4 1 2 r\nq2 Q0 d1 2 1 r\n")
    argv = ["evaluate", str(qrels), str(run), "--qrels-format", "subtopic", "-m", "alpha_nDCG@3", "-m", "I_rec@2",
            "-m", "AP", "-q", "--format", "json"]
    fresh = subprocess.run([sys.executable, "-m", "pateval.cli", *argv], capture_output=True, text=True, check=True)
    import contextlib
    import io

    from pateval.cli import main

    here = io.StringIO()
    with contextlib.redirect_stdout(here):
        assert main(argv) == 0
    assert json.loads(fresh.stdout) == json.loads(here.getvalue())


_DEFERRAL = """
import sys
import pyarrow as pa
from pateval._lazy import lazy_module, pandas_deferred
with pandas_deferred():
    pa.array([1, 2, 3]).to_numpy()          # pyarrow's optional pandas import: deferred
    assert "pandas" not in sys.modules
    try:
        import pandas
    except ImportError:
        pass
    else:
        raise AssertionError("a plain import inside the block is deferred too")
    pd = lazy_module("pandas")
    frame = pd.DataFrame({"a": [1, 2]})        # pateval's own use lifts the deferral
    assert "pandas" in sys.modules
    import pandas                               # and from then on pandas imports as usual
    table = pa.table({"s": ["x", "y"], "v": [1.0, 2.0]})
    assert table.to_pandas()["s"].tolist() == ["x", "y"]   # pyarrow's pandas integration works
    assert pa.array(pandas.Series([1, 2])).to_pylist() == [1, 2]
print("ok")
"""


def test_the_deferral_is_lifted_by_the_first_use_of_pandas():
    done = subprocess.run([sys.executable, "-c", _DEFERRAL], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ok\n"


@pytest.mark.parametrize("command, unused", [
    (["compare", "{q}", "{r1}", "{r2}", "-m", "AP"], {"matplotlib", "lxml", "duckdb", "tantivy", "networkx"}),
    (["analyse-measures", "{q}", "{r1}", "{r2}", "-m", "AP", "-m", "P@5"], {"matplotlib", "lxml", "duckdb", "tantivy"}),
    (["stability", "{q}", "{r1}", "{r2}", "-m", "AP", "--sizes", "5", "--trials", "2"], {"matplotlib", "lxml",
                                                                                         "duckdb"}),
    (["user-model", "time", "{q}", "{r1}", "--doc-lengths", "{lengths}"], {"scipy", "matplotlib", "lxml", "duckdb"}),
    (["measures"], {"scipy", "matplotlib", "lxml", "duckdb", "tantivy", "networkx"}),
], ids=lambda value: value[0] if isinstance(value, list) else "")
def test_a_command_loads_only_what_it_uses(tmp_path, command, unused):
    from pateval.api import example_files

    qrels, runs = example_files()
    lengths = tmp_path / "lengths.txt"
    docnos = sorted({line.split()[2] for path in [qrels, *runs] for line in Path(path).read_text().splitlines()})
    lengths.write_text("".join(f"{d} 150\n" for d in docnos))
    argv = [part.format(q=qrels, r1=runs[0], r2=runs[1], lengths=lengths) for part in command]
    assert sorted(unused & _loaded_after(argv)) == []
