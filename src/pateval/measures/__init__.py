"""Evaluation measures, one module per family, all declared in one registry.

Importing this package registers every family. Look measures up with
:func:`parse_measure`; list them with :func:`all_specs`.
"""

# Each family registers its measures on import (order = listing order within families).
from . import (  # noqa: E402,F401
    coverage,  # noqa: E402,F401
    cubetest,  # noqa: E402,F401
    cwl,  # noqa: E402,F401
    gains,  # noqa: E402,F401
    geometric,  # noqa: E402,F401
    inference,  # noqa: E402,F401
    interpolated,  # noqa: E402,F401
    judgement_groups,  # noqa: E402,F401
    novelty,  # noqa: E402,F401
    passage,  # noqa: E402,F401
    preference,  # noqa: E402,F401
    prefs,  # noqa: E402,F401
    pres,
    sets,  # noqa: E402,F401
    standard,  # noqa: E402,F401
    subtopic,  # noqa: E402,F401
    tar,  # noqa: E402,F401
    tbg,
)
from .base import EvaluationContext, Measure, MeasureSpec, Param
from .registry import REGISTRY, all_specs, parse_measure, parse_measures, register

__all__ = ["EvaluationContext", "Measure", "MeasureSpec", "Param", "REGISTRY", "all_specs", "parse_measure",
           "parse_measures", "register"]
