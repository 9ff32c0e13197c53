"""The registry of measures: every measure family registers its specs here, once.

``pateval measures``, the documentation tables and :func:`parse_measure` are all generated
from this registry, so a measure exists in exactly one place.
"""

from __future__ import annotations

import difflib
import re

from ..errors import MeasureNameError
from .base import Measure, MeasureSpec, TrecEval
from .grammar import parse_name
from .relevance import ELEVEN_POINTS

__all__ = ["REGISTRY", "TREC_EVAL_MEASURES", "register", "parse_measure", "parse_measures", "all_specs",
           "trec_eval_name"]

REGISTRY: dict[str, MeasureSpec] = {}
_ALIASES: dict[str, str] = {}
# trec_eval writes cutoffs into names: P_10, P.10, recall_1000, ndcg_cut_10
_CUTOFF_ALIAS = re.compile(r"^(?P<base>[A-Za-z][A-Za-z_]*?)[_.](?P<k>[1-9]\d*)$")
# trec_eval writes a real-valued parameter into a name: iprec_at_recall_0.10, Rprec_mult_0.20 (TrecEval "each")
_PARAM_SUFFIX = re.compile(r"^(?P<base>[A-Za-z][A-Za-z_]*?)_(?P<x>\d*\.?\d+)$")
#: trec_eval's measures -> (the spec declaring it, its TrecEval, how -m reads it: "cutoffs" or the syntax declared)
TREC_EVAL_MEASURES: dict[str, tuple[MeasureSpec, TrecEval, str]] = {}
# ir_measures writes IPrec's recall level as a cutoff, IPrec@0.5: its numbers are trec_eval 9's (pytrec_eval)
_IR_MEASURES_IPREC = re.compile(r"^IPrec(?P<params>\(.*\))?@(?P<x>\d*\.?\d+)$", re.IGNORECASE)
# trec_eval's measure lists: P.5,10,20 is P_5, P_10 and P_20
_CUTOFF_LIST = re.compile(r"^(?P<base>[A-Za-z][A-Za-z_]*?)\.(?P<ks>[1-9]\d*(?:,[1-9]\d*)+)$")
# the spellings of ir_measures and ranx (matched without regard to case, as are all names):
# MAP, NDCG@10, MRR, BPref, RPrec, precision@10, r-precision, hits@10, judged@10, AP_IA, StRecall@10
_OTHER_SPELLINGS = {"map": "AP", "mrr": "RR", "precision": "P", "r-precision": "Rprec", "r_precision": "Rprec",
                    "recall": "R", "hits": "Hits", "judged": "Judged", "ndcg": "nDCG", "bpref": "Bpref",
                    "rprec": "Rprec", "mrr_cut": "RR", "ap_ia": "MAP_IA", "strecall": "I_rec"}


def register(*specs: MeasureSpec) -> None:
    """Add measures to the registry, in order (names and aliases must be new)."""
    for spec in specs:
        for name in (spec.name, *spec.aliases):
            if name in REGISTRY or name in _ALIASES:
                raise ValueError(f"measure name {name!r} is registered twice")
        REGISTRY[spec.name] = spec
        for alias in spec.aliases:
            _ALIASES[alias] = spec.name
        if (trec := spec.trec_eval) is not None:  # map is AP's, map_cut AP's with cutoffs
            TREC_EVAL_MEASURES.update({name: (spec, trec, how) for name, how in ((trec.name, trec.syntax),
                                                                                 (trec.cut, "cutoffs")) if name})


def all_specs() -> list[MeasureSpec]:
    """Every registered measure, by family then name."""
    return sorted(REGISTRY.values(), key=lambda s: (s.family, s.name.lower()))


def _lookup(name: str) -> MeasureSpec | None:
    if name in REGISTRY:
        return REGISTRY[name]
    if name in _ALIASES:
        return REGISTRY[_ALIASES[name]]
    folded = name.lower()
    if folded in _OTHER_SPELLINGS and _OTHER_SPELLINGS[folded] in REGISTRY:
        return REGISTRY[_OTHER_SPELLINGS[folded]]
    # any other spelling that differs only in case, when it names one measure
    found = {REGISTRY[_ALIASES.get(n, n)].name for n in (*REGISTRY, *_ALIASES) if n.lower() == folded}
    return REGISTRY[found.pop()] if len(found) == 1 else None


def _suggestions(name: str) -> list[str]:
    """Known names close to an unknown one (``nDGC`` -> ``nDCG``), canonical names first."""
    known = {n.lower(): n for n in (*_ALIASES, *_OTHER_SPELLINGS)}
    known.update({n.lower(): n for n in REGISTRY})
    close = [known[folded] for folded in difflib.get_close_matches(name.lower(), list(known), n=3, cutoff=0.6)]
    return list(dict.fromkeys(spec.name if (spec := _lookup(n)) is not None else n for n in close))  # each once


def parse_measure(text: str | Measure) -> Measure:
    """Read a measure name (``AP``, ``P@10``, ``CT(gamma=0.3)@10``, ``ndcg_cut_10``).

    Examples
    --------
    >>> str(parse_measure("P_10")), str(parse_measure("AP(rel=2)"))
    ('P@10', 'AP(rel=2)')
    """
    if isinstance(text, Measure):
        return text
    if text.strip() in _ALIASES:  # as written, even where the grammar reads no name (11pt_avg)
        return Measure.make(REGISTRY[_ALIASES[text.strip()]], {}, None)
    suffixed = _PARAM_SUFFIX.match(text.strip())
    declared = TREC_EVAL_MEASURES.get(suffixed.group("base")) if suffixed else None
    if suffixed and declared and declared[2] == "each":
        return Measure.make(declared[0], {declared[1].params[0]: float(suffixed.group("x"))}, None)
    iprec = _IR_MEASURES_IPREC.match(text.strip())
    if iprec:
        params = {"rounding": "trec_eval9", **dict(parse_name("IPrec" + (iprec.group("params") or "")).params)}
        return Measure.make(REGISTRY["IPrec"], {**params, "recall": float(iprec.group("x"))}, None)
    parsed = parse_name(text)
    spec = _lookup(parsed.name)
    cutoff = parsed.cutoff
    if spec is None:
        match = _CUTOFF_ALIAS.match(parsed.name)
        if match and cutoff is None:
            spec = _lookup(match.group("base"))
            cutoff = int(match.group("k"))
    if spec is None:
        rest = text.strip()[len(parsed.name):] if text.strip().startswith(parsed.name) else ""
        close = [c for c in _suggestions(parsed.name) if _accepts(c + rest)]
        hint = ("; did you mean " + " or ".join(repr(c + rest) for c in close) + "?" if close
                else "; `pateval measures` lists them")
        raise MeasureNameError(f"unknown measure {parsed.name!r} in {text!r}{hint}")
    return Measure.make(spec, dict(parsed.params), cutoff)


def _accepts(text: str) -> bool:
    """Whether a suggested name, with the parameters and cutoff as given, is a valid measure."""
    try:
        parse_measure(text)
    except MeasureNameError:
        return False
    return True


def _expand(text):
    """trec_eval's measure lists as their measures: ``P.5,10,20`` as ``P_5``, ``P_10``, ``P_20``;
    ``iprec_at_recall`` as the 11 recall levels 0, 0.1, ..., 1 in recall order (trec_eval's
    ``-m iprec_at_recall``); other names as they are."""
    if isinstance(text, str):
        match = _CUTOFF_LIST.match(text.strip())
        if match:
            return [f"{match.group('base')}_{k}" for k in match.group("ks").split(",")]
        if text.strip() == "iprec_at_recall":
            return [f"iprec_at_recall_{x:.2f}" for x in ELEVEN_POINTS]
    return [text]


def parse_measures(texts) -> list[Measure]:
    """Parse several names; a name given twice is kept once, in first-seen order."""
    seen: dict[str, Measure] = {}
    for given in texts:
        for text in _expand(given):
            measure = parse_measure(text)
            seen.setdefault(str(measure), measure)
    return list(seen.values())


def trec_eval_name(measure: str | Measure, *, relevance_level: int = 1) -> str | None:
    """trec_eval's name of a measure (``AP`` -> ``map``, ``P@10`` -> ``P_10``, ``nDCG@10`` ->
    ``ndcg_cut_10``, ``R@1000`` -> ``recall_1000``), or None when trec_eval has none.

    A measure keeps trec_eval's name only with the parameters trec_eval uses: every one at
    its default, but ``rel``, which is trec_eval's relevance level (``-l``).

    Examples
    --------
    >>> [trec_eval_name(m) for m in ("AP", "P@10", "nDCG@10", "R@1000", "NumRet", "AP(rel=2)", "PRES@100")]
    ['map', 'P_10', 'ndcg_cut_10', 'recall_1000', 'num_ret', None, None]
    >>> trec_eval_name("AP(rel=2)", relevance_level=2)
    'map'
    """
    measure = parse_measure(measure)
    trec = measure.spec.trec_eval
    if trec is None or len(measure.values) > len(measure.spec.params):
        return None  # judged_only and the like: not trec_eval's measure
    named = trec.params if trec.syntax == "each" else ()  # written into the name, any value
    defaults = dict(trec.defaults)
    for (key, value), param in zip(measure.values, measure.spec.params, strict=False):
        if key not in named and value != defaults.get(key, relevance_level if key == "rel" else param.default):
            return None
    if measure.cutoff is not None:
        return f"{trec.cut}_{measure.cutoff}" if trec.cut else None
    return f"{trec.name}_{measure[named[0]]:.2f}" if named and trec.name else trec.name
