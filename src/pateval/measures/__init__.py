"""Evaluation measures, one module per family, all declared in one registry.

Importing this package registers every family. Look measures up with
:func:`parse_measure`; list them with :func:`all_specs`.
"""

from .base import EvaluationContext, Measure, MeasureSpec, Param
from .registry import REGISTRY, all_specs, parse_measure, parse_measures, register

# Each family registers its measures on import (order = listing order within families).
from . import standard  # noqa: E402,F401
from . import passage  # noqa: E402,F401
from . import cubetest  # noqa: E402,F401
from . import pres, tbg  # noqa: E402,F401
from . import subtopic  # noqa: E402,F401
from . import coverage  # noqa: E402,F401

__all__ = [
    "EvaluationContext",
    "Measure",
    "MeasureSpec",
    "Param",
    "REGISTRY",
    "all_specs",
    "parse_measure",
    "parse_measures",
    "register",
]
