"""The public API lists every public function it defines, and everything it lists exists."""

from __future__ import annotations

import inspect

from pateval import api


def test_api_all_is_complete_and_exact():
    defined = {name for name, value in vars(api).items()
               if inspect.isfunction(value) and value.__module__ == "pateval.api" and not name.startswith("_")}
    assert defined <= set(api.__all__)
    assert all(hasattr(api, name) for name in api.__all__)
    assert len(api.__all__) == len(set(api.__all__))


def test_the_demo_sits_above_the_api():
    """The demo calls the API; nothing the API imports (now or in a function) is the demo."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(api.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert not {m for m in imported if m.split(".")[-1] == "demo"}
    demo_source = (Path(api.__file__).parent / "demo.py").read_text()
    assert "from . import api" in demo_source
