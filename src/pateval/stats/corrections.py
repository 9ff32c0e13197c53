"""Corrections of p-values for testing many run pairs at once.

Testing all pairs of m runs makes m(m-1)/2 tests; at alpha = 0.05 about one in twenty true
null hypotheses is rejected by chance. These corrections raise the p-values so that the
family-wise error rate (Bonferroni, Holm) or the false discovery rate (Benjamini-Hochberg)
stays at alpha. Each adjusted p-value is at least the raw one and at most 1, and the
adjustment keeps the order of the raw p-values.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import ParameterError

__all__ = ["CORRECTIONS", "adjust_p_values", "benjamini_hochberg", "bonferroni", "holm"]


def _as_p_values(p_values) -> np.ndarray:
    p = np.asarray(p_values, dtype=float)
    if p.ndim != 1:
        raise ParameterError("p-values must be a one-dimensional sequence")
    if p.size and (np.isnan(p).any() or (p < 0).any() or (p > 1).any()):
        raise ParameterError("p-values must lie in [0, 1]")
    return p


def _stepwise(p_values, scale: Callable[[np.ndarray, int], np.ndarray],
              monotone: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """A step-wise method: ``scale(sorted p-values, m)`` made monotone in the sorted order, then put
    back in the order of ``p_values`` (ties keep their order)."""
    p = _as_p_values(p_values)
    if p.size == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(p.size)
    adjusted[order] = monotone(scale(p[order], p.size))
    return adjusted


def bonferroni(p_values) -> np.ndarray:
    """Bonferroni: ``min(1, m p_i)`` for m tests; controls the family-wise error rate."""
    p = _as_p_values(p_values)
    return np.minimum(1.0, p * p.size)


def holm(p_values) -> np.ndarray:
    """Holm's step-down method (Holm 1979): uniformly at least as powerful as Bonferroni.

    With the p-values sorted ascending, ``p~_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))``.
    """
    return _stepwise(p_values, lambda p, m: np.minimum(1.0, (m - np.arange(m)) * p), np.maximum.accumulate)


def benjamini_hochberg(p_values) -> np.ndarray:
    """Benjamini & Hochberg (1995) step-up method; controls the false discovery rate.

    With the p-values sorted ascending, ``p~_(i) = min_{j >= i} min(1, m p_(j) / j)``.
    """
    return _stepwise(p_values, lambda p, m: np.minimum(1.0, p * m / np.arange(1, m + 1)),
                     lambda scaled: np.minimum.accumulate(scaled[::-1])[::-1])


#: Corrections by the names the API and command line accept.
CORRECTIONS = {"bonferroni": bonferroni, "holm": holm, "bh": benjamini_hochberg}


def adjust_p_values(p_values, *, method: str = "holm") -> np.ndarray:
    """Adjust p-values with one of :data:`CORRECTIONS` (``"none"`` returns them unchanged)."""
    if method == "none":
        return _as_p_values(p_values).copy()
    if method not in CORRECTIONS:
        raise ParameterError(f"unknown correction {method!r}; choose one of {', '.join(CORRECTIONS)} or none")
    return CORRECTIONS[method](p_values)
