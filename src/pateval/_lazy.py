"""Lazy package exports: a package names what it exports and the module each comes from;
the module is imported on first use, so that ``import pateval`` and the command line start
without loading scipy or matplotlib."""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Callable, Iterator, Mapping


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


class lazy_module:  # lower case: called as a function, as importlib.import_module is
    """``pd = lazy_module("pandas")``: stands for a module until an attribute of it is first
    used, then imports it, so that importing a module a few of whose functions need it stays
    cheap (the command line's evaluate path never loads pandas)."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str):
        if self._name == "pandas":
            _PANDAS_DEFERRED.active = False  # pateval itself needs pandas now
        return getattr(importlib.import_module(self._name), attribute)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported on first use>"


class _DeferPandas:
    """A meta-path finder that, while active, answers ``import pandas`` with ImportError."""

    active = False

    def find_spec(self, name, path=None, target=None):
        if self.active and (name == "pandas" or name.startswith("pandas.")):
            raise ImportError(f"{name} is deferred (pateval._lazy.pandas_deferred)")
        return None


_PANDAS_DEFERRED = _DeferPandas()


@contextlib.contextmanager
def pandas_deferred() -> Iterator[None]:
    """Within the block, pandas is imported only if pateval itself uses it.

    pyarrow imports pandas, when it is installed, the first time an array is converted to
    NumPy or built from a list (for its optional pandas integration); that import is 0.3 s
    of the 0.45 s ``pateval evaluate`` took on a small run. Inside the block such an
    optional import fails as if pandas were absent (pyarrow carries on without it, and
    tries again when a conversion needs pandas), and the first use of a
    :func:`lazy_module` ``pd`` lifts the block. Only for code that reaches pandas through
    ``lazy_module`` (a plain ``import pandas`` inside the block fails); pandas already
    imported is left alone.
    """
    if "pandas" in sys.modules or _PANDAS_DEFERRED.active:
        yield
        return
    if _PANDAS_DEFERRED not in sys.meta_path:
        sys.meta_path.insert(0, _PANDAS_DEFERRED)
    _PANDAS_DEFERRED.active = True
    try:
        yield
    finally:
        _PANDAS_DEFERRED.active = False
