"""MkDocs hooks (mkdocs.yml ``hooks:``): the reference pages generated from pateval itself.

Nothing here is written twice by hand: at every build

- ``reference/cli.md`` is made from the argparse parser the ``pateval`` command runs
  (:func:`pateval.cli.build_parser`): every command, every flag, its default and help, and the
  examples that end each ``--help``;
- ``reference/api.md`` lists every name of ``pateval.api.__all__`` for mkdocstrings, which renders
  it from its docstring (numpydoc);
- the side inputs' table of ``reference/formats.md`` (at its ``<!-- side-inputs -->`` mark) is made
  from ``pateval.formats.resources.RESOURCES``, which declares every side input once;
- every page is checked to load no script or style sheet from elsewhere: the offline plugin's
  shim for search from ``file://`` pages (a script on a CDN) is left out, so pages read with no
  network, and search works where the site is served (``python -m http.server``);
- ``measures.md`` (written by ``scripts/make_measures_doc.py`` from the registry, and tested) is
  checked against the registry: a stale page fails the build.

``python scripts/mkdocs_hooks.py cli|api`` prints a generated page (to read it without a build).
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
log = logging.getLogger("mkdocs.plugins.pateval")

#: the width help text is wrapped to, whatever terminal builds the site
WIDTH = "100"


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ("pateval",)
             ) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser, str]]:
    """Every parser of the command tree, depth first: (its words, the parser, its one-line help)."""
    subcommands = getattr(parser, "subcommands", None)
    if subcommands is None:
        return
    summaries = {action.dest: action.help or "" for action in subcommands._choices_actions}
    seen: set[int] = set()
    for name, child in subcommands.choices.items():
        if id(child) in seen:  # an alias
            continue
        seen.add(id(child))
        yield (*path, name), child, summaries.get(name, "")
        yield from commands(child, (*path, name))


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _flag_rows(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) or action.help == argparse.SUPPRESS:
            continue
        if action.option_strings:
            names = ", ".join(f"`{flag}`" for flag in action.option_strings)
        else:
            names = f"`{action.metavar or action.dest}`"
        if action.nargs == 0:
            argument = ""
        elif action.choices is not None and not isinstance(action.choices, dict):
            argument = "`" + "\\|".join(str(choice) for choice in action.choices) + "`"
        else:
            argument = f"`{action.metavar or action.dest.upper()}`" if action.option_strings else ""
        default = action.default
        shown = ("" if default in (None, False, argparse.SUPPRESS) or action.nargs == 0
                 else f"`{default}`" if not isinstance(default, list | tuple) or default else "")
        helped = (action.help or "").replace("%(default)s", str(default)).replace("%%", "%")
        rows.append(f"| {names} | {argument} | {shown} | {_cell(helped)} |")
    return rows


def cli_reference() -> str:
    """The command-line reference page, from the parser itself."""
    from pateval.cli import build_parser

    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        parser = build_parser()
        lines = ["# Command reference", "",
                 "Generated at every build from the parser the `pateval` command runs (`pateval.cli.build_parser`), so "
                 "it lists every command and flag that `--help` shows, with the same words. "
                 "Every command also takes `--debug` (print the traceback of an unexpected error), before or after its "
                 "name.", "",
                 "```text", parser.format_help().rstrip(), "```", ""]
        for path, command, summary in commands(parser):
            depth = min(len(path), 3)
            lines += ["#" * depth + f" {' '.join(path)}", ""]
            if summary:
                lines += [_cell(summary), ""]
            if getattr(command, "subcommands", None) is None:
                lines += ["| flag | argument | default | what it does |", "| --- | --- | --- | --- |",
                          *_flag_rows(command), ""]
            lines += [f"`{' '.join(path)} --help`:", "", "```text", command.format_help().rstrip(), "```", ""]
        return "\n".join(lines)
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous


def api_names() -> list[tuple[str, str]]:
    """Each public name of ``pateval.api`` with the dotted path of the object it is."""
    import pateval.api as api

    found = []
    for name in api.__all__:
        value: Any = getattr(api, name)
        module = getattr(value, "__module__", "pateval.api")
        qualified = getattr(value, "__qualname__", name)
        found.append((name, f"{module}.{qualified}"))
    return found


def api_reference() -> str:
    """The Python API reference page: every name of ``pateval.api.__all__``, rendered by mkdocstrings."""
    lines = ["# Python API", "",
             "Generated at every build: every name of `pateval.api.__all__`, each rendered from its docstring "
             "(numpydoc). `import pateval` gives the most used of them as `pateval.evaluate`, `pateval.aggregate`, "
             "`pateval.read_run`, `pateval.read_qrels`, `pateval.example_files` ...", ""]
    names = api_names()
    lines += ["| name | defined in |", "| --- | --- |"]
    lines += [f"| [`{name}`](#{path}) | `{path.rsplit('.', 1)[0]}` |" for name, path in names]
    lines.append("")
    for _name, path in names:
        lines += [f"::: {path}", "    options:", "      show_root_heading: true", "      show_root_full_path: false",
                  "      heading_level: 2", ""]
    return "\n".join(lines)


SIDE_INPUTS_MARK = "<!-- side-inputs -->"


def side_inputs_table() -> str:
    """The side inputs of the measures: option, Python key and lines, from their one declaration."""
    from pateval.formats.resources import RESOURCES

    rows = ["| option | `resources=` key | the file |", "| --- | --- | --- |"]
    rows += [f"| `{r.option}` | `{r.name}` | {_cell(r.help)} |" for r in RESOURCES]
    return "\n".join(rows)


def measures_page_is_current() -> bool:
    from pateval.api import measures_document

    page = ROOT / "docs" / "measures.md"
    return page.exists() and page.read_text(encoding="utf-8") == measures_document()


# ---- the hooks --------------------------------------------------------------------------------------

def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    if str(ROOT / "src") not in sys.path:
        sys.path.insert(0, str(ROOT / "src"))
    files.append(File.generated(config, "reference/cli.md", content=cli_reference()))
    files.append(File.generated(config, "reference/api.md", content=api_reference()))
    if not measures_page_is_current():
        log.warning("docs/measures.md is out of date with the measure registry: "
                    "run python scripts/make_measures_doc.py")
    return files


#: the offline plugin's polyfill for web workers on file:// pages, fetched from a CDN: left out
_CDN_SHIM = '<script src="https://unpkg.com/iframe-worker/shim"></script>'
_EXTERNAL = re.compile(r"<(?:script|link)\b[^>]*\b(?:src|href)=[\"']?(?:https?:)?//[^>]*>", re.I)


#: Sphinx roles in the docstrings (``:func:`x` ``, ``:class:`~a.b.C` ``), which Markdown leaves as text
_ROLE = re.compile(r":(?:func|class|meth|mod|attr|data|exc|obj):(<code>)~?(?:[\w.]*\.)?")


def on_post_page(output: str, page: Any, config: Any) -> str:
    output = output.replace(_CDN_SHIM, "")
    if page.file.src_uri == "reference/api.md":
        output = _ROLE.sub(r"\1", output)
    for tag in _EXTERNAL.findall(output):
        log.warning("%s loads from elsewhere, so it cannot be read offline: %s", page.file.src_uri, tag)
    return output


def on_post_template(output: str, template_name: str, config: Any) -> str:
    """The same for the pages made from a template alone (404.html)."""
    output = output.replace(_CDN_SHIM, "")
    for tag in _EXTERNAL.findall(output):
        log.warning("%s loads from elsewhere, so it cannot be read offline: %s", template_name, tag)
    return output


#: a relative Markdown link, as CHANGELOG.md writes them from the top of the checkout
_RELATIVE_LINK = re.compile(r"\[([^\]]*)\]\((?!https?://|#|mailto:)([^)\s]+)\)")


def changelog_links(markdown: str) -> str:
    """CHANGELOG.md's links, written from the top of the checkout, made right for docs/changelog.md,
    which includes it: ``docs/X`` becomes ``X``; a link to a file outside docs/ becomes its text and path.

    >>> changelog_links("[m](docs/measures.md), [r](README.md#x), [k](https://keepachangelog.com/)")
    '[m](measures.md), r (`README.md#x`), [k](https://keepachangelog.com/)'
    """
    def fix(match: re.Match[str]) -> str:
        text, target = match.group(1), match.group(2)
        if target.startswith("docs/"):
            return f"[{text}]({target[len('docs/'):]})"
        return f"{text} (`{target}`)"

    return _RELATIVE_LINK.sub(fix, markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if SIDE_INPUTS_MARK in markdown:
        markdown = markdown.replace(SIDE_INPUTS_MARK, side_inputs_table())
    if page.file.src_uri == "changelog.md":
        markdown = changelog_links(markdown)
    return markdown


if __name__ == "__main__":
    page = {"cli": cli_reference, "api": api_reference}[sys.argv[1]]
    print(page())
