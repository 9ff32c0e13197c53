"""Declared parameter rules, checked in one place (never with ``assert``).

Functions and measures state what each parameter accepts -- a type, a set of choices, an
interval -- and call these checks, which raise :class:`pateval.errors.ParameterError`
with the parameter's name, the rule and the value given.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .errors import ParameterError

__all__ = ["Interval", "check_choice", "check_interval", "check_type"]


@dataclass(frozen=True)
class Interval:
    """A numeric range rule: ``low``/``high`` may be None (unbounded); ``closed`` says which ends belong."""

    low: float | None = None
    high: float | None = None
    closed: str = "both"  # "both", "left", "right", "neither"

    def __contains__(self, value: float) -> bool:
        if isinstance(value, float) and math.isnan(value):
            return False
        below = self.low is not None and (value < self.low
                                          or (value == self.low and self.closed in ("right", "neither")))
        above = self.high is not None and (value > self.high
                                           or (value == self.high and self.closed in ("left", "neither")))
        return not (below or above)

    def __str__(self) -> str:
        left = "[" if self.closed in ("both", "left") else "("
        right = "]" if self.closed in ("both", "right") else ")"
        low = "-inf" if self.low is None else f"{self.low:g}"
        high = "inf" if self.high is None else f"{self.high:g}"
        return f"{left}{low}, {high}{right}"


def check_choice(name: str, value: Any, choices: Iterable[Any]) -> Any:
    choices = tuple(choices)
    if value not in choices:
        raise ParameterError(f"{name} must be one of {', '.join(repr(c) for c in choices)}; got {value!r}")
    return value


def check_interval(name: str, value: float, interval: Interval, *, owner: str = "") -> float:
    if value not in interval:
        where = f"{owner}: " if owner else ""
        raise ParameterError(f"{where}{name} must be in {interval}; got {value!r}")
    return value


def check_type(name: str, value: Any, kind: type | tuple[type, ...]) -> Any:
    # True is not a number a user meant
    ok = False if isinstance(value, bool) and kind in (int, float) else isinstance(value, kind)
    if not ok:
        wanted = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise ParameterError(f"{name} must be {wanted}; got {value!r}")
    return value
