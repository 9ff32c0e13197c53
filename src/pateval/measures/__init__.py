"""Evaluation measures, one module per family, all declared in one registry.

Importing this package registers every family. Look measures up with
:func:`parse_measure`; list them with :func:`all_specs`.
"""

# Each family registers its measures on import (order = listing order within families).
from . import (  # noqa: F401
    coverage,
    cubetest,
    cwl,
    gains,
    geometric,
    inference,
    interpolated,
    judgement_groups,
    novelty,
    passage,
    preference,
    prefs,
    pres,
    sets,
    standard,
    subtopic,
    tar,
    tbg,
)
from .base import EvaluationContext, Measure, MeasureSpec, Param
from .registry import REGISTRY, all_specs, parse_measure, parse_measures, register

__all__ = ["EvaluationContext", "Measure", "MeasureSpec", "Param", "REGISTRY", "all_specs", "parse_measure",
           "parse_measures", "register"]
