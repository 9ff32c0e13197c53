"""Dask is an extra (``pateval[dask]``): without it, --scheduler says so in one line."""

from __future__ import annotations

import sys

import pytest

from pateval.cli import main

MESSAGE = ('pateval: error: --scheduler (a Dask cluster) needs distributed, which is not installed: '
           'pip install "pateval[dask]"')


@pytest.fixture
def no_dask(monkeypatch):
    """Importing dask or distributed fails, as when the extra is not installed."""
    for name in list(sys.modules):
        if name.split(".")[0] in ("dask", "distributed"):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "distributed", None)  # None in sys.modules: ImportError on import
    monkeypatch.setitem(sys.modules, "dask", None)


def test_scheduler_without_the_dask_extra_is_one_clear_line(tmp_path, capsys, no_dask):
    (tmp_path / "xml").mkdir()
    (tmp_path / "xml" / "EP-0000001-A1.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<patent-document ucid="EP-0000001-A1" country="EP" '
                                                        'doc-number="0000001" '
        'kind="A1" lang="EN" date="20000517"><bibliographic-data><technical-data><invention-title lang="EN">A device'
        '</invention-title></technical-data></bibliographic-data><claims lang="EN"><claim num="1"><claim-text>A device.'
        '</claim-text></claim></claims></patent-document>\n', encoding="utf-8")
    store = tmp_path / "store"
    assert main(["corpus", "ingest", str(tmp_path / "xml"), "--out", str(store), "--scheduler",
                 "tcp://127.0.0.1:9"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == MESSAGE
    assert not store.exists() or not any(store.glob("**/*.parquet"))


def test_pateval_works_without_dask(no_dask, capsys):
    assert main(["evaluate", "--example", "-m", "AP"]) == 0
    assert "dask" not in sys.modules or sys.modules["dask"] is None
