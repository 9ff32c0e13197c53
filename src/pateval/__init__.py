"""pateval: evaluation of patent prior-art search and other professional search.

The public API lives in :mod:`pateval.api`; its main functions are importable from here
(loaded on first use, so that ``import pateval`` stays quick).

>>> import pateval
>>> pateval.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 2.0}}, ["AP"])["value"].tolist()
[1.0]
"""

__version__ = "0.1.0"

_API = ("evaluate", "evaluation", "aggregate", "read_run", "read_qrels", "write_run", "list_measures",
        "parse_measure", "example_files")

__all__ = ["__version__", *_API]


def __getattr__(name: str):
    if name == "api":  # the module itself, imported on first use as its functions are
        import importlib

        return importlib.import_module(f"{__name__}.api")
    if name in _API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'pateval' has no attribute {name!r}")
