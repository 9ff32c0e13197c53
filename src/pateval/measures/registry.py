"""The registry of measures: every measure family registers its specs here, once.

``pateval measures``, the documentation tables and :func:`parse_measure` are all generated
from this registry, so a measure exists in exactly one place.
"""

from __future__ import annotations

import re

from ..errors import MeasureNameError
from .base import Measure, MeasureSpec
from .grammar import parse_name

__all__ = ["REGISTRY", "register", "parse_measure", "parse_measures", "all_specs"]

REGISTRY: dict[str, MeasureSpec] = {}
_ALIASES: dict[str, str] = {}
# trec_eval writes cutoffs into names: P_10, P.10, recall_1000, ndcg_cut_10
_CUTOFF_ALIAS = re.compile(r"^(?P<base>[A-Za-z][A-Za-z_]*?)[_.](?P<k>[1-9]\d*)$")


def register(spec: MeasureSpec) -> MeasureSpec:
    """Add a measure to the registry (names and aliases must be new)."""
    for name in (spec.name, *spec.aliases):
        if name in REGISTRY or name in _ALIASES:
            raise ValueError(f"measure name {name!r} is registered twice")
    REGISTRY[spec.name] = spec
    for alias in spec.aliases:
        _ALIASES[alias] = spec.name
    return spec


def all_specs() -> list[MeasureSpec]:
    """Every registered measure, by family then name."""
    return sorted(REGISTRY.values(), key=lambda s: (s.family, s.name.lower()))


def _lookup(name: str) -> MeasureSpec | None:
    if name in REGISTRY:
        return REGISTRY[name]
    if name in _ALIASES:
        return REGISTRY[_ALIASES[name]]
    return None


def parse_measure(text: str | Measure) -> Measure:
    """Read a measure name (``AP``, ``P@10``, ``CT(gamma=0.3)@10``, ``ndcg_cut_10``).

    Examples
    --------
    >>> str(parse_measure("P_10")), str(parse_measure("AP(rel=2)"))
    ('P@10', 'AP(rel=2)')
    """
    if isinstance(text, Measure):
        return text
    parsed = parse_name(text)
    spec = _lookup(parsed.name)
    cutoff = parsed.cutoff
    if spec is None:
        match = _CUTOFF_ALIAS.match(parsed.name)
        if match and cutoff is None:
            spec = _lookup(match.group("base"))
            cutoff = int(match.group("k"))
    if spec is None:
        close = [s for s in REGISTRY if s.lower() == parsed.name.lower()]
        hint = f"; did you mean {close[0]!r}?" if close else "; `pateval measures` lists them"
        raise MeasureNameError(f"unknown measure {parsed.name!r} in {text!r}{hint}")
    return Measure.make(spec, dict(parsed.params), cutoff)


def parse_measures(texts) -> list[Measure]:
    """Parse several names; a name given twice is kept once, in first-seen order."""
    seen: dict[str, Measure] = {}
    for text in texts:
        measure = parse_measure(text)
        seen.setdefault(str(measure), measure)
    return list(seen.values())
