"""Measures declared as data.

A :class:`MeasureSpec` states a measure once: its canonical name, parameters (type,
default, choices or interval, description), whether it takes a cutoff (``@k``), how topic
values are aggregated, what inputs it needs beyond a ranking and doc-level qrels, its
reference, and the kernel that computes it for all topics at once. A :class:`Measure` is a
spec with parameter values; its ``str`` is its canonical name, which
:func:`pateval.measures.parse_measure` reads back to an equal measure.

The split follows ranx: the kernel (vectorised over topics, reading
:class:`pateval.core.ranking.RankedTopics`) is looked up in the registry, the batch
wrapper is :func:`pateval.measures.compute`, and the public entry is
:func:`pateval.evaluate`.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import MeasureNameError, ParameterError
from ..memo import Memo
from ..validation import Interval

__all__ = ["Param", "TrecEval", "MeasureSpec", "Measure", "EvaluationContext", "format_value", "divide_or_zero",
           "shared_topic_values"]

_BARE = re.compile(r"[A-Za-z0-9_.\-+/]+")
_BOOLEANS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


@dataclass(frozen=True)
class Param:
    """One parameter of a measure, declared apart from the maths.

    Attributes
    ----------
    name : str
    kind : type
        ``int``, ``float``, ``str`` or ``bool``.
    default : object
    description : str
    choices : tuple, optional
        The only values allowed.
    interval : Interval, optional
        The numeric range allowed.
    """

    name: str
    kind: type
    default: Any
    description: str
    choices: tuple | None = None
    interval: Interval | None = None

    def coerce(self, value: Any, *, owner: str) -> Any:
        """Convert a parsed or given value to this parameter's type and check its rules."""
        kind = self.kind
        try:
            if kind is bool:
                if isinstance(value, str):
                    value = _BOOLEANS[value.lower()]
                elif not isinstance(value, (bool, np.bool_)):
                    raise ValueError(value)
            # a bool is no number; an int is given as one, as a whole float or as text
            elif (isinstance(value, bool) and kind is not str) or (
                    kind is int and not isinstance(value, (str, int, np.integer))
                    and not (isinstance(value, float) and value.is_integer())):
                raise ValueError(value)
            value = kind(value)
            if kind is float and math.isnan(value):
                raise ValueError(value)
        except (TypeError, ValueError, KeyError):
            raise ParameterError(f"{owner}: parameter {self.name} takes {kind.__name__}; got {value!r}") from None
        if self.choices is not None and value not in self.choices:
            listed = ", ".join(str(c) for c in self.choices)
            raise ParameterError(f"{owner}: parameter {self.name} must be one of {listed}; got {value!r}")
        if self.interval is not None and value not in self.interval:
            raise ParameterError(f"{owner}: parameter {self.name} must be in {self.interval}; got {value!r}")
        return value

    def describe(self) -> str:
        rule = ""
        if self.choices is not None:
            rule = " one of " + "|".join(str(c) for c in self.choices) + ";"
        elif self.interval is not None:
            rule = f" in {self.interval};"
        return f"{self.name} ({self.kind.__name__},{rule} default {format_value(self.default)}): {self.description}"


def format_value(value: Any) -> str:
    """A parameter value as the canonical name writes it (parses back to the same value)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if _BARE.fullmatch(text):
        return text
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


@dataclass
class EvaluationContext:
    """Inputs some measures need beyond the ranking and the qrels.

    Attributes
    ----------
    resources : dict
        Named side inputs, e.g. ``"doc_lengths"`` (a mapping docno -> length in words),
        ``"duplicate_groups"``, ``"subtopic_weights"``, ``"intent_probabilities"``, in the
        form the measures read (the evaluation converts them before scoring:
        :func:`pateval.formats.resources.prepare_resources`).
    memo : Memo
        What the measures of this evaluation make once and share (see :mod:`pateval.memo`),
        dropped with the context.
    options : dict
        The command-line option that gives each side input (``doc_lengths`` ->
        ``--doc-lengths``), named when a measure finds its side input missing.
    """

    resources: dict[str, Any] = field(default_factory=dict)
    memo: Memo = field(default_factory=Memo, repr=False, compare=False)
    options: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)

    def require(self, name: str, measure: Measure) -> Any:
        if name not in self.resources or self.resources[name] is None:
            option = f"{self.options[name]} FILE / " if name in self.options else ""
            raise ParameterError(f"{measure} needs {name.replace('_', ' ')}; none was given (give {option}"
                                 f"resources={{{name!r}: ...}})")
        return self.resources[name]


def divide_or_zero(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` per topic (float64), 0 where the denominator is not > 0:
    the kernels' rule for a topic with nothing to divide by.

    >>> divide_or_zero(np.array([1, 3]), np.array([2, 0])).tolist()
    [0.5, 0.0]
    """
    out = np.zeros(len(numerator), dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


Kernel = Callable[["Any", "Measure", EvaluationContext], np.ndarray]


def shared_topic_values(kernel: Kernel) -> Kernel:
    """``kernel``, its topic values kept in the evaluation's memo per ranking, parameter values
    and cutoff: measures declared with the one kernel so made -- AP and GMAP, Bpref and GM_Bpref:
    the same value per topic, averaged two ways -- compute it once (the values are read-only)."""

    @functools.wraps(kernel)
    def shared(ranked, measure: Measure, context: EvaluationContext) -> np.ndarray:
        def make() -> np.ndarray:
            values = np.asarray(kernel(ranked, measure, context), dtype=np.float64)
            values.flags.writeable = False  # handed to every measure sharing it
            return values

        key = ("topic values", kernel.__module__, kernel.__qualname__, measure.values, measure.cutoff)
        return context.memo.get(key, make, ranking=ranked)

    return shared


JUDGED_ONLY = Param("judged_only", bool, False, "compute over judged documents only: unjudged ones are removed "
                    "from the ranking first (ir_measures' judged_only; trec_eval -J)")


@dataclass(frozen=True)
class TrecEval:
    """trec_eval's side of a measure (``MeasureSpec.trec_eval``): ``name``, what trec_eval calls
    it without a cutoff (``map``; None: nothing); ``cut``, with one (``map_cut``, printed
    ``map_cut_10``), its ``-m`` parameters cutoffs (``map_cut.5,10``; ``cutoffs`` by default);
    ``syntax``, how ``-m name.PARAMETERS`` reads: ``none``; ``each``, values of ``params[0]``,
    one measure each, printed ``name_x.xx`` (``levels`` by default); ``list``, numbers as the
    parameters ``params`` in order (``utility.1,-1,0,0``); ``numbers``, numbers as the text of
    ``params[0]`` (``11pt_avg.0.2,0.5``); ``text``, the text as ``params[0]`` (``ndcg.1=3,2=9``);
    ``pairs``, ``KEY=VALUE`` of the ``params`` (``rbp.p=0.8``). ``defaults``: trec_eval's values
    of the parameters whose defaults differ from pateval's (rbp's p = 0.9)."""

    name: str | None = None
    cut: str | None = None
    cutoffs: tuple[int, ...] = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    syntax: str = "none"
    params: tuple[str, ...] = ()
    levels: tuple[float, ...] = ()
    defaults: tuple[tuple[str, Any], ...] = ()


_TREC_EVAL_NAMES: tuple[str, ...] = ("trec_eval's names",)  # the default aliases (MeasureSpec.__post_init__)


@dataclass(frozen=True)
class MeasureSpec:
    """The declaration of one measure (see the module notes).

    Attributes
    ----------
    name : str
        Canonical name, as users write it (``AP``, ``nDCG``, ``PRES``, ``CT``).
    family : str
        The module it belongs to (``standard``, ``professional``, ``cube``, ``subtopic``, ...).
    summary : str
        One line.
    formula : str
        The definition, in plain text.
    reference : str
        The citation (paper, and reference implementation).
    kernel : callable
        ``kernel(ranked, measure, context) -> ndarray`` of one value per topic.
    params : tuple of Param
    cutoff : {"none", "optional", "required"}
        Whether the name takes ``@k``.
    aggregate : {"mean", "sum", "gmean"}
        How topic values make the ``all`` value (trec_eval sums the counts; ``gmean``: the
        geometric mean of max(value, 0.00001), trec_eval's gm_map and gm_bpref).
    integer : bool
        Values are counts (printed without decimals).
    requires : frozenset of str
        ``"subtopics"`` (subtopic qrels), or a resource name of :class:`EvaluationContext`.
    aliases : tuple of str
        Other names accepted on input, never printed; by default trec_eval's (``map``, ``map_cut``).
    trec_eval : TrecEval, optional
        trec_eval's names of the measure and its ``-m`` syntax (None: trec_eval has no such measure).
    """

    name: str
    family: str
    summary: str
    formula: str
    reference: str
    kernel: Kernel
    params: tuple[Param, ...] = ()
    cutoff: str = "none"
    aggregate: str = "mean"
    integer: bool = False
    requires: frozenset = frozenset()
    aliases: tuple[str, ...] = _TREC_EVAL_NAMES
    trec_eval: TrecEval | None = None

    def __post_init__(self) -> None:
        if self.aliases is _TREC_EVAL_NAMES:
            names = (self.trec_eval.name, self.trec_eval.cut) if self.trec_eval is not None else ()
            object.__setattr__(self, "aliases", tuple(n for n in names if n is not None and n != self.name))

    def param(self, name: str) -> Param:
        return {p.name: p for p in self.params}[name]  # KeyError(name) for an unknown one

    def __call__(self, *, cutoff: int | None = None, **params: Any) -> Measure:
        """Make a measure with parameters: ``nDCG(cutoff=10)``, ``AP(rel=2)``."""
        return Measure.make(self, params, cutoff)


@dataclass(frozen=True, eq=False)
class Measure:
    """A measure with its parameter values; ``str(measure)`` is its canonical name.

    Examples
    --------
    >>> from pateval.measures import parse_measure
    >>> m = parse_measure("ndcg_cut_10")
    >>> str(m), m == parse_measure(str(m))
    ('nDCG@10', True)
    """

    spec: MeasureSpec
    values: tuple[tuple[str, Any], ...]
    cutoff: int | None

    @classmethod
    def make(cls, spec: MeasureSpec, params: Mapping[str, Any], cutoff: int | None) -> Measure:
        # judged_only (ir_measures' parameter, trec_eval -J) applies to every measure: the
        # evaluation drops unjudged documents from the ranking before computing it
        judged_only = False
        if "judged_only" in params and all(p.name != "judged_only" for p in spec.params):
            params = dict(params)
            judged_only = JUDGED_ONLY.coerce(params.pop("judged_only"), owner=spec.name)
        known = {p.name for p in spec.params}
        unknown = sorted(set(params) - known)
        if unknown:
            listed = ", ".join(sorted(known)) or "none"
            raise MeasureNameError(f"{spec.name} has no parameter {unknown[0]!r} (its parameters: {listed})")
        if cutoff is not None:
            if spec.cutoff == "none":
                raise MeasureNameError(f"{spec.name} takes no cutoff (@k)")
            if isinstance(cutoff, bool) or not isinstance(cutoff, (int, np.integer)) or cutoff < 1:
                raise MeasureNameError(f"{spec.name}: the cutoff must be a positive integer; got {cutoff!r}")
            cutoff = int(cutoff)
        elif spec.cutoff == "required":
            raise MeasureNameError(f"{spec.name} needs a cutoff, e.g. {spec.name}@10")
        values = tuple((p.name, p.coerce(params[p.name],
                                         owner=spec.name) if p.name in params else p.default) for p in spec.params)
        if judged_only:
            values += (("judged_only", True),)
        return cls(spec, values, cutoff)

    @property
    def judged_only(self) -> bool:
        """Whether the measure is computed over judged documents only (``judged_only=true``)."""
        return len(self.values) > len(self.spec.params) and dict(self.values).get("judged_only", False)

    def __getitem__(self, name: str) -> Any:
        for key, value in self.values:
            if key == name:
                return value
        raise KeyError(f"{self.spec.name} has no parameter {name!r}")

    @property
    def name(self) -> str:
        return str(self)

    def __str__(self) -> str:
        changed = [(k, v) for (k, v), p in zip(self.values, self.spec.params, strict=False) if v != p.default]
        if self.judged_only:
            changed.append(("judged_only", True))
        text = self.spec.name
        if changed:
            text += "(" + ",".join(f"{k}={format_value(v)}" for k, v in changed) + ")"
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Measure) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def compute(self, ranked, context: EvaluationContext | None = None) -> np.ndarray:
        """The measure's value for every topic of ``ranked`` (a RankedTopics)."""
        return np.asarray(self.spec.kernel(ranked, self, context or EvaluationContext()), dtype=np.float64)
