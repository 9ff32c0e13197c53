"""Lazy package exports: a package names what it exports and the module each comes from;
the module is imported on first use, so that ``import pateval`` and the command line start
without loading scipy or matplotlib."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def lazy_exports(package: str, exports: Mapping[str, str], namespace: dict) -> tuple[Callable, Callable]:
    """Return the ``__getattr__`` and ``__dir__`` of ``package`` for ``{name: submodule}``."""

    def __getattr__(name: str):
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
