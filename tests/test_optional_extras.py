"""The core install and the extras (issue 21): ``pateval evaluate`` needs only the core, and a
command whose extra is missing says which one to install, in one line with exit status 2.

Each command runs in a fresh interpreter in which every module an extra provides fails to
import as it does when it is not installed (a meta-path finder raising ModuleNotFoundError),
so the core install is seen on a machine that has every extra. (By hand, a venv made without
system site packages and with only the core dependencies gives the same lines.)
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import pateval
from pateval._optional import EXTRAS, _provides

EXAMPLES = Path(__file__).resolve().parent.parent / "src" / "pateval" / "data" / "examples"
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
EXTRA_MODULES = sorted(_provides("all"))
#: the interpreter in each test's directory imports the pateval under test
ENVIRONMENT = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(pateval.__file__).parent.parent),
                                                            os.environ.get("PYTHONPATH", "")])}

_PROBE = """
import json, sys
blocked = set(json.loads(sys.argv[1]))

class NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
from pateval.cli import main
sys.exit(main(json.loads(sys.argv[2])))
"""


def pateval(argv: list[str], cwd: Path, *, blocked: list[str] = EXTRA_MODULES) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _PROBE, json.dumps(blocked), json.dumps(argv)], cwd=cwd,
                          env=ENVIRONMENT, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """The example qrels and runs, a gzip copy and a Parquet copy of a run."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    here = tmp_path_factory.mktemp("core")
    for name in ("qrels.txt", "run1.txt", "run2.txt"):
        (here / name).write_bytes((EXAMPLES / name).read_bytes())
    (here / "run1.txt.gz").write_bytes(gzip.compress((EXAMPLES / "run1.txt").read_bytes()))
    rows = [line.split() for line in (EXAMPLES / "run2.txt").read_text().splitlines()]
    pq.write_table(pa.table({"qid": [r[0] for r in rows], "docno": [r[2] for r in rows],
                             "score": [float(r[4]) for r in rows]}), here / "run2.parquet")
    return here


@pytest.mark.parametrize("argv", [
    ["evaluate", "qrels.txt", "run1.txt", "-m", "AP"],
    ["evaluate", "-q", "qrels.txt", "run1.txt", "run2.txt", "--format", "json", "-m", "AP", "-m", "PRES@100"],
    ["evaluate", "qrels.txt", "run1.txt", "--format", "csv", "-m", "nDCG@10", "-m", "P@10"],
    ["evaluate", "-q", "qrels.txt", "run1.txt.gz"],
    ["evaluate", "qrels.txt", "run2.parquet", "-m", "AP", "-m", "R@1000"],
    ["evaluate", "--example"],
    ["measures"],
])
def test_the_core_evaluates(inputs, argv):
    core = pateval(argv, inputs)
    assert core.returncode == 0, core.stderr
    assert core.stdout == pateval(argv, inputs, blocked=[]).stdout  # the same bytes as with every extra


#: (command line, the extra its message names); files need not exist: the import comes first
MISSING = [
    (["compare", "qrels.txt", "run1.txt", "run2.txt"], "stats"),
    (["analyse-measures", "qrels.txt", "run1.txt", "run2.txt"], "stats"),
    (["report", "qrels.txt", "run1.txt", "run2.txt", "-o", "report.html"], "report"),
    (["flowchart", "eval", "truth", "submission"], "flowchart"),
]


MISSING_ELSEWHERE = [
    pytest.param(["stability", "qrels.txt", "run1.txt", "run2.txt"], "stats"),
    pytest.param(["calibrate", "--qrels", "qrels.txt", "--run", "run1.txt", "--doc-lengths", "lengths.txt",
                  "log.csv"], "stats"),
    pytest.param(["corpus", "ingest", "xml", "--out", "store"], "patents"),
    pytest.param(["corpus", "generate", "--out", "generated", "--patents", "10"], "patents"),
    pytest.param(["collection", "build", "--store", "store", "--out", "collection"], "store"),
    pytest.param(["index", "--store", "store", "--out", "index"], "search"),
    pytest.param(["search", "--index", "index", "--topics", "topics.xml", "--out", "run.txt"], "search"),
    pytest.param(["assess", "serve", "--store", "store", "--collection", "collection"], "assess"),
    pytest.param(["demo", "--out", "demo"], "all"),
]


@pytest.mark.parametrize(("argv", "extra"), [*MISSING, *MISSING_ELSEWHERE])
def test_a_missing_extra_is_named_in_one_line(inputs, tmp_path, argv, extra):
    for name in ("qrels.txt", "run1.txt", "run2.txt"):
        (tmp_path / name).write_bytes((inputs / name).read_bytes())
    done = pateval(argv, tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    # "MODULE is not installed" from needs_extra, "COMMAND needs MODULE, which is not installed" from
    # the command line's last resort (pateval._optional.missing_dependency)
    assert re.fullmatch(rf'pateval: error: (pateval [a-z -]+ needs [\w.]+, which|[\w.]+) is not installed: '
                        rf'pip install "pateval\[{extra}\]"\n', done.stderr)


def test_without_one_extra_only_its_modules_are_missing(inputs):
    """With scipy alone missing, the report names the report extra, which brings scipy too."""
    done = pateval(["report", "qrels.txt", "run1.txt", "run2.txt", "-o", "report.html"], inputs, blocked=["scipy"])
    assert done.returncode == 2
    assert done.stderr == 'pateval: error: scipy is not installed: pip install "pateval[report]"\n'
    assert not (inputs / "report.html").exists()


#: the modules a distribution installs, where they are not its name
_MODULES = {"python-multipart": {"multipart", "python_multipart"}, "dask": {"dask", "distributed"},
            "mkdocs-material": {"material"}}


def test_the_table_of_extras_is_pyproject_s():
    """pateval._optional.EXTRAS: the extras of pyproject.toml, their modules and the extras they include."""
    declared = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]
    assert set(declared) - set(EXTRAS) == {"dev", "test", "bench"}
    for extra, (modules, included) in EXTRAS.items():
        inside = [r[len("pateval["):-1].split(",") for r in declared[extra] if r.startswith("pateval[")]
        assert sorted(name for names in inside for name in names) == sorted(included), extra
        distributions = [re.split(r"[<>=\[ ]", r)[0] for r in declared[extra] if not r.startswith("pateval[")]
        assert set(modules) == set().union(*(_MODULES.get(d, {d}) for d in distributions)), extra


def test_core_dependencies_are_few():
    core = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    assert sorted(re.split(r"[<>=]", r)[0] for r in core) == ["numpy", "pandas", "pyarrow"]
