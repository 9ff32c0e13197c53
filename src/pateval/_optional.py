"""Optional dependencies: one message for a feature whose extra is not installed."""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import ParameterError

__all__ = ["import_optional", "missing_dependency"]

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
        raise _not_installed(module.split(".")[0], feature) from None


def missing_dependency(error: ImportError, *, feature: str) -> ParameterError | None:
    """The one-line ParameterError for an ImportError of a dependency that is not installed
    (None when the import that failed is pateval's own: a bug, not a missing extra).

    >>> str(missing_dependency(ModuleNotFoundError("no", name="distributed.client"), feature="pateval evaluate"))
    'pateval evaluate needs distributed, which is not installed: pip install "pateval[dask]"'
    """
    package = (error.name or "").split(".")[0]
    if not package or package == __package__:
        return None
    return _not_installed(package, feature)


def _not_installed(package: str, feature: str) -> ParameterError:
    return ParameterError(f'{feature} needs {package}, which is not installed: '
                          f'pip install "pateval[{EXTRAS.get(package, package)}]"')
