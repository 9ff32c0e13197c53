"""What one evaluation makes once and shares: the memo of an evaluation context.

The measures of one evaluation share costly intermediate results: a ranking's subtopic
view, where its documents are in the lengths table, a side input converted once. They keep
them in the :class:`Memo` of the :class:`~pateval.measures.EvaluationContext` that drives
the evaluation, never in module globals, so all is dropped with the context; what belongs
to one ranking is dropped with the ranking as well (a large run is scored block by block).
Nothing outlives an evaluation unless the caller keeps its context.

An entry's key names what it was made from; :func:`fingerprint` identifies plain values by
value and every other input (an array, a table, a resource) by identity: two reads of one
file are two inputs. The entry keeps its key's objects alive, so an identity cannot be
reused while the entry stands.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

__all__ = ["Memo", "fingerprint"]

T = TypeVar("T")

_PLAIN = (str, bytes, int, float, bool, type(None))


class _Identity:
    """The tag of an object identified by identity in a fingerprint (never a plain value)."""


def fingerprint(key: Any) -> Hashable:
    """A hashable stand-in for ``key``: plain values (str, bytes, numbers, None) as they are,
    tuples part by part, any other object by its identity (settings go in as tuples of
    their values, e.g. ``dataclasses.astuple``).

    Examples
    --------
    >>> table = [1, 2]
    >>> fingerprint(("where", table)) == fingerprint(("where", table)), fingerprint(("where", [1, 2])) == \\
    ...     fingerprint(("where", table))
    (True, False)
    """
    if isinstance(key, tuple):
        return tuple(fingerprint(part) for part in key)
    if isinstance(key, _PLAIN):
        return key
    return (_Identity, id(key))


class Memo:
    """Values made once per key, kept for the life of an evaluation (see the module notes).

    ``get(key, build)`` returns the value made for ``key`` by the first ``build()``;
    ``ranking=`` files the entry under a ranking, dropped when the ranking is. A memo is
    never sent to another process: a pickled one arrives empty.
    """

    def __init__(self) -> None:
        self._entries: dict[Hashable, tuple[Any, Any]] = {}
        self._rankings: weakref.WeakKeyDictionary[Any, dict[Hashable, tuple[Any, Any]]] = weakref.WeakKeyDictionary()

    def _store(self, ranking: object | None, *, make: bool) -> dict[Hashable, tuple[Any, Any]] | None:
        if ranking is None:
            return self._entries
        try:
            return self._rankings.setdefault(ranking, {}) if make else self._rankings.get(ranking)
        except TypeError:  # a ranking that cannot be referenced weakly: nothing is kept for it
            return None

    def get(self, key: Any, build: Callable[[], T], *, ranking: object | None = None) -> T:
        """The value of ``key`` (made by ``build()`` the first time)."""
        store = self._store(ranking, make=True)
        if store is None:
            return build()
        print_ = fingerprint(key)
        known = store.get(print_)
        if known is None:
            known = store[print_] = (key, build())
        return known[1]

    def peek(self, key: Any, *, ranking: object | None = None) -> Any:
        """The value of ``key`` if it was made, else None (nothing is built)."""
        store = self._store(ranking, make=False)
        known = None if store is None else store.get(fingerprint(key))
        return None if known is None else known[1]

    def __reduce__(self) -> tuple[type[Memo], tuple[()]]:
        return (Memo, ())
