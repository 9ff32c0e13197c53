"""Page policy for the large, short-lived arrays of an evaluation.

NumPy advises the kernel to back every array over 4 MB with transparent huge pages.
Evaluating a large run creates a few GB of such arrays, each written once and soon
freed, so what matters is the cost of memory the process touches for the first time.
On the project's reference machine (a 2-core VM whose guest hands freed memory back to
the host) that cost was about 3 ms per MB with huge pages and 0.5 ms per MB without
(200 MB: 0.56-0.61 s against 0.10-0.12 s, `benchmarks/bench_standard.py` notes), which
made up seconds of a 10-million-line evaluation. :func:`plain_pages` turns the advice
off for the duration of a call and restores it after; a user who sets
``NUMPY_MADVISE_HUGEPAGE`` keeps NumPy's behaviour as they chose it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

__all__ = ["plain_pages"]


def _setter():
    if "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        return None
    core = getattr(np, "_core", None) or getattr(np, "core", None)
    return getattr(getattr(core, "multiarray", None), "_set_madvise_hugepage", None)


@contextmanager
def plain_pages() -> Iterator[None]:
    """Within the block, NumPy does not ask for huge pages (the previous setting is restored)."""
    setter = _setter()
    if setter is None:
        yield
        return
    previous = setter(False)
    try:
        yield
    finally:
        setter(previous)
