"""Test collections from a patent corpus: corpus store, ingest, topics, qrels, statistics.

:func:`open_dataset` (from :mod:`.dataset`) opens a built collection as an ir_datasets-style
dataset; it is loaded on first use.
"""

from .._lazy import lazy_exports

_EXPORTS = {"open_dataset": "dataset"}

__all__ = tuple(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
