"""Optional dependencies: one message for a feature whose extra is not installed."""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import ParameterError

__all__ = ["import_optional"]

#: pip extras by the module they provide.
EXTRAS = {"distributed": "dask", "dask": "dask"}


def import_optional(module: str, *, feature: str) -> ModuleType:
    """Import ``module`` for ``feature``, or raise the one-line ParameterError saying how to install it.

    >>> import_optional("json", feature="tests").__name__
    'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        extra = EXTRAS.get(module.split(".")[0], module)
        raise ParameterError(f'{feature} needs {module.split(".")[0]}, which is not installed: '
                             f'pip install "pateval[{extra}]"') from None
