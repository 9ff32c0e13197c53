"""The documentation site (issue 31): the generated reference lists everything the code has, the
README stays a front door, and the built site reads offline and finds a measure and a flag."""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _hooks():
    spec = importlib.util.spec_from_file_location("mkdocs_hooks", ROOT / "scripts" / "mkdocs_hooks.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOOKS = _hooks()


def test_the_command_reference_lists_every_command_and_flag():
    from pateval.cli import build_parser

    page = HOOKS.cli_reference()
    paths = [" ".join(path) for path, _, _ in HOOKS.commands(build_parser())]
    assert {"pateval evaluate", "pateval trec_eval", "pateval assess serve", "pateval corpus ingest"} <= set(paths)
    for path in paths:
        assert re.search(rf"^#+ {re.escape(path)}$", page, re.M), path
    flags = 0
    for path, parser, _ in HOOKS.commands(build_parser()):
        if parser.subcommands is not None:
            continue
        section = page.split(f" {' '.join(path)}\n", 1)[1]
        table = section.split("--help`:", 1)[0]
        for action in parser._actions:
            if action.help == argparse.SUPPRESS:
                continue
            for flag in action.option_strings:
                assert f"`{flag}`" in table, f"{' '.join(path)}: {flag}"
                flags += 1
    assert flags > 300


def test_the_api_reference_renders_every_public_name():
    import pateval.api as api

    page = HOOKS.api_reference()
    targets = re.findall(r"^::: (\S+)$", page, re.M)
    assert len(targets) == len(api.__all__)
    for name, target in zip(api.__all__, targets, strict=True):
        assert f"[`{name}`](#{target})" in page
    for target in targets:  # each a dotted path to the object that the name is
        module, _, qualified = target.rpartition(".")
        while module and module not in sys.modules:
            module, _, outer = module.rpartition(".")
            qualified = f"{outer}.{qualified}"
        value = sys.modules[module]
        for part in qualified.split("."):
            value = getattr(value, part)
        assert value is not None


def test_the_side_inputs_table_is_the_declaration():
    from pateval.formats.resources import RESOURCES

    table = HOOKS.side_inputs_table()
    assert len(table.splitlines()) == 2 + len(RESOURCES)
    for resource in RESOURCES:
        assert f"`{resource.option}`" in table and f"`{resource.name}`" in table
    assert HOOKS.SIDE_INPUTS_MARK in (ROOT / "docs" / "reference" / "formats.md").read_text(encoding="utf-8")


def test_the_readme_is_short_and_keeps_ci_s_command():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    lines = text.splitlines()
    i = lines.index("# 2. install the test dependencies and run the whole test suite")
    assert "pip install" in lines[i + 1] and "pytest" in lines[i + 1]
    assert "# 1. install pateval with every extra and run its main job, the whole pipeline on generated example data" \
        in lines
    assert "mkdocs build --strict" in text


def test_the_readme_links_to_pages_that_exist():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    assert len(targets) > 20
    for target in targets:
        assert "://" not in target, target
        assert (ROOT / target).exists(), target


def test_every_page_is_in_the_nav():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1]
    listed = set(re.findall(r":\s+(\S+\.md)\s*$", nav, re.M))
    generated = {"reference/cli.md", "reference/api.md"}
    pages = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert generated <= listed
    assert pages <= listed, sorted(pages - listed)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr
    return out


def test_the_site_loads_nothing_from_elsewhere(site):
    pages = list(site.rglob("*.html"))
    assert len(pages) > 30
    external = re.compile(r"<(?:script|link)\b[^>]*\b(?:src|href)=[\"']?(?:https?:)?//", re.I)
    for page in pages:
        assert not external.search(page.read_text(encoding="utf-8")), page
    assert not re.search(r"fonts\.googleapis|fonts\.gstatic", "".join(p.read_text(encoding="utf-8") for p in pages))


def test_the_search_index_finds_a_measure_and_a_flag(site):
    index = site / "search" / "search_index.json"
    if not index.exists():  # the offline plugin writes the index as a script
        text = (site / "search" / "search_index.js").read_text(encoding="utf-8")
        data = json.loads(text[text.index("{"):text.rindex("}") + 1])
    else:
        data = json.loads(index.read_text(encoding="utf-8"))
    docs = data["docs"]
    assert any(d["location"].startswith("measures.html#presk") for d in docs)
    assert any("-c" in d["text"] and "trec_eval" in d["text"] for d in docs)
    assert any(d["location"].startswith("reference/cli.html") and "--doc-key" in d["text"] for d in docs)


def test_the_changelog_is_included_not_copied_and_its_links_fit_the_site():
    assert (ROOT / "docs" / "changelog.md").read_text(encoding="utf-8").strip() == '--8<-- "CHANGELOG.md"'
    fixed = HOOKS.changelog_links("[m](docs/measures.md#presk), [r](README.md), [k](https://keepachangelog.com/)")
    assert fixed == "[m](measures.md#presk), r (`README.md`), [k](https://keepachangelog.com/)"
