"""The public API lists every public function it defines, and everything it lists exists."""

from __future__ import annotations

import inspect

from pateval import api


def test_api_all_is_complete_and_exact():
    defined = {name for name, value in vars(api).items()
               if inspect.isfunction(value) and value.__module__.startswith("pateval.api") and not name.startswith("_")}
    assert defined <= set(api.__all__)
    assert all(hasattr(api, name) for name in api.__all__)
    assert len(api.__all__) == len(set(api.__all__))


def test_the_demo_sits_above_the_api():
    """The demo calls the API; nothing the API imports (now or in a function) is the demo."""
    import ast
    from pathlib import Path

    package = Path(api.__file__).parent  # pateval/api/, one module per concern
    imported = {node.module for source in package.glob("*.py") for node in ast.walk(ast.parse(source.read_text()))
                if isinstance(node, ast.ImportFrom) and node.module}
    assert not {m for m in imported if m.split(".")[-1] == "demo"}
    demo_source = (package.parent / "demo.py").read_text()
    assert "from . import api" in demo_source
