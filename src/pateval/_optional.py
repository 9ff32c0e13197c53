"""Optional dependencies: the extras, and the one way to import what an extra provides.

pateval's core (``pip install pateval``) is what ``pateval evaluate`` needs; everything
else comes with an extra named for its job (pyproject.toml's optional dependencies, which
this table mirrors). A module that needs an extra imports it inside :func:`needs_extra`,
so that a missing package is the user's error -- one line naming the extra, exit status 2
on the command line -- and never an internal error::

    with needs_extra("report"):
        from matplotlib.figure import Figure
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator
from types import ModuleType

from .errors import ParameterError

__all__ = ["EXTRAS", "MissingExtraError", "needs_extra", "import_optional", "missing_dependency"]

#: Each extra: the top-level modules it provides, and the extras it includes.
EXTRAS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "stats": (("scipy",), ()),
    "report": (("matplotlib",), ("stats",)),
    "patents": (("lxml", "tqdm"), ()),
    "store": (("duckdb",), ("patents",)),
    "search": (("tantivy",), ("store", "stats")),
    "flowchart": (("networkx",), ("stats",)),
    "assess": (("starlette", "jinja2", "sqlalchemy", "uvicorn", "multipart", "python_multipart"), ()),
    "postgresql": (("psycopg",), ("assess",)),
    "dask": (("dask", "distributed"), ()),
    # the documentation site's generator (mkdocs.yml), not a feature of the package: never in "all"
    "docs": (("mkdocs", "material", "mkdocstrings"), ()),
    "all": ((), ("stats", "report", "patents", "store", "search", "flowchart", "assess", "postgresql", "dask")),
}


def _provides(extra: str) -> set[str]:
    """The top-level modules ``extra`` installs, with those of the extras it includes."""
    modules, included = EXTRAS[extra]
    return set(modules).union(*(_provides(name) for name in included))


class MissingExtraError(ParameterError):
    """A module an optional extra provides is not installed.

    Attributes
    ----------
    module : str
        The top-level module that could not be imported.
    extra : str
        The extra that installs it (``pip install "pateval[EXTRA]"``).
    """

    def __init__(self, module: str, extra: str, feature: str | None = None) -> None:
        self.module = module
        self.extra = extra
        self.feature = feature
        needs = f"{feature} needs {module}, which is not installed" if feature else f"{module} is not installed"
        super().__init__(f'{needs}: pip install "pateval[{extra}]"')


@contextlib.contextmanager
def needs_extra(extra: str, *, feature: str | None = None) -> Iterator[None]:
    """Imports inside the block that fail for a module ``extra`` provides raise :class:`MissingExtraError`.

    Nested blocks name the outermost extra that provides the module (``report`` rather
    than the ``stats`` it includes); an import error of any other module passes unchanged.

    >>> with needs_extra("stats"):
    ...     import no_such_module_anywhere
    Traceback (most recent call last):
    ModuleNotFoundError: No module named 'no_such_module_anywhere'
    """
    provided = _provides(extra)
    try:
        yield
    except MissingExtraError as error:
        if error.module not in provided:
            raise
        raise MissingExtraError(error.module, extra, feature or error.feature) from None
    except ModuleNotFoundError as error:  # not ImportError: a broken install is not a missing one
        module = (error.name or "").split(".")[0]
        if module not in provided:
            raise
        raise MissingExtraError(module, extra, feature) from None


def _extra_of(module: str) -> str | None:
    """The extra that provides the top-level module of ``module`` itself, if any."""
    top = module.split(".")[0]
    return next((name for name, (modules, _) in EXTRAS.items() if top in modules), None)


def import_optional(module: str, *, feature: str | None = None) -> ModuleType:
    """Import ``module`` (named at run time), or raise :class:`MissingExtraError` naming its extra.

    >>> import_optional("json").__name__
    'json'
    """
    extra = _extra_of(module)
    if extra is None:
        return importlib.import_module(module)
    with needs_extra(extra, feature=feature):
        return importlib.import_module(module)


def missing_dependency(error: ImportError, *, feature: str, extra: str | None = None) -> MissingExtraError | None:
    """The error to show for an import that escaped :func:`needs_extra` (the command line's last
    resort): None unless the module is one an extra provides (pateval's own: a bug). ``extra``
    is the command's own extra: named when it provides the module (``all`` for the demo), so
    that one install brings everything the command needs.

    >>> str(missing_dependency(ModuleNotFoundError("no", name="distributed.client"), feature="pateval evaluate"))
    'pateval evaluate needs distributed, which is not installed: pip install "pateval[dask]"'
    """
    module = (error.name or "").split(".")[0]
    own = _extra_of(module) if isinstance(error, ModuleNotFoundError) else None
    if own is None:
        return None
    return MissingExtraError(module, extra if extra is not None and module in _provides(extra) else own, feature)
