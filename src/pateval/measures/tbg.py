"""Time-biased gain (Smucker & Clarke 2012): gain discounted by the time a user needs to reach it.

    TBG = (1/N) sum_k g_k D(T(k)),   D(t) = exp(-t ln2 / h),
    g_k = P(C=1|R=1) P(S=1|R=1) if the document at rank k is relevant (grade >= rel), else 0,
    T(k) = sum_{i<k} [T_S + T_D(l_i) P(C=1|R=r_i)],  T_D(l) = a l + b.

The time model is :mod:`pateval.usermodel.time`; every calibration value is a parameter of
the measure (defaults: the paper's Table 1 and h = 224 s). Document lengths ``l`` (words)
come from the ``doc_lengths`` resource (``--doc-lengths FILE``, or
:func:`pateval.usermodel.time.document_lengths` over the texts); a length that is needed and
missing is an error naming the document and topic unless ``default_length`` is given.

Near-duplicates (``duplicates=groups|families|patent``): a document whose group already
occurred higher in the ranking is read as length 0; it still earns gain unless
``duplicate_gain=false``. Groups come from ``--duplicates FILE`` (one group per line),
``--families FILE`` (``docno family`` lines) or the patent key
(:func:`pateval.core.docids.patent_key`: publications of one patent).

Normalisation N (``norm``): ``none`` (N = 1, the paper's choice: TBG is then a lower bound on
the number of relevant documents a user is expected to save); ``ideal`` (N = TBG of the best
ordering of the topic's relevant documents: shortest first, a near-duplicate group read
together; 0 for a topic without relevant documents); ``bound`` (N = g / (1 - 2^(-T_x/h)),
T_x = T_S + T_D(0) P(C=1|R=1): an endless list of zero-length relevant documents; 17.20
with the default calibration).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..core.docids import patent_keys
from ..core.ranking import RankedTopics
from ..errors import ParameterError
from ..formats.groups import group_codes
from ..usermodel.time import TimeModel, duplicates_of_earlier, segment_exclusive_cumsum, step_times
from ..validation import Interval
from .base import EvaluationContext, Measure, MeasureSpec, Param
from .registry import register

__all__ = ["TBG_PARAMS", "LengthTable", "TBGRows", "tbg_rows", "time_biased_gain", "ideal_gain", "normaliser", "time_model_of"]

_PROBABILITY = Interval(0, 1)
_NONNEGATIVE = Interval(0, None)
DUPLICATE_MODES = ("none", "groups", "families", "patent")
NORMALISATIONS = ("none", "ideal", "bound")

TBG_PARAMS = (
    Param("rel", int, 1, "minimum grade counted as relevant (graded qrels are binary at this level)", interval=Interval(1, None)),
    Param("halflife", float, 224.0, "h, seconds after which half of the users have stopped (D(t) = 2^(-t/h))",
          interval=Interval(0, None, closed="neither")),
    Param("summary_time", float, 4.4, "T_S, seconds to read one summary", interval=_NONNEGATIVE),
    Param("read_slope", float, 0.018, "a in T_D(l) = a*l + b: seconds per word of a document read", interval=_NONNEGATIVE),
    Param("read_intercept", float, 7.8, "b in T_D(l) = a*l + b: fixed seconds to judge a document read", interval=_NONNEGATIVE),
    Param("p_click_rel", float, 0.64, "P(C=1|R=1), probability of clicking a relevant document's summary", interval=_PROBABILITY),
    Param("p_click_nonrel", float, 0.39, "P(C=1|R=0), probability of clicking a non-relevant document's summary",
          interval=_PROBABILITY),
    Param("p_save_rel", float, 0.77, "P(S=1|R=1), probability of saving a relevant document read", interval=_PROBABILITY),
    Param("norm", str, "none", "normalisation: none (N=1), ideal (best ordering of the relevant documents), "
          "bound (endless zero-length relevant documents)", choices=NORMALISATIONS),
    Param("duplicates", str, "none", "near-duplicate groups: none, groups (--duplicates file), families "
          "(--families file), patent (publications of one patent)", choices=DUPLICATE_MODES),
    Param("duplicate_gain", bool, True, "a near-duplicate of a document ranked above still earns gain (TREC practice)"),
    Param("default_length", float, -1.0, "length (words) of documents missing from the lengths (-1: a missing length is an error)",
          interval=Interval(-1, None)),
)
REFERENCE = ("M. D. Smucker and C. L. A. Clarke, Time-based calibration of effectiveness measures, SIGIR 2012 "
             "(calibration: Table 1; decay: Section 5.2; normalisation: Section 5.4)")


def time_model_of(measure: Measure) -> TimeModel:
    """The :class:`TimeModel` a TBG measure's parameters describe."""
    return TimeModel.from_values(dict(measure.values))


def _check_default_length(measure: Measure) -> float | None:
    value = measure["default_length"]
    if value == -1.0:
        return None
    if value < 0:
        raise ParameterError(f"{measure}: default_length must be -1 (no default) or a length >= 0; got {value!r}")
    return value


def distinct_documents(ranked: RankedTopics) -> tuple[np.ndarray, pa.Array]:
    """``codes, ids``: each row's document as a code into ``ids``, the distinct document ids.

    Side inputs (lengths, groups) are looked up once per distinct document, not once per
    row: the ranking's own document codes when it carries them (``ranked.doc`` into
    ``ranked.doc_ids``), else the ids factorised.
    """
    if hasattr(ranked, "doc") and hasattr(ranked, "doc_ids"):
        return np.asarray(ranked.doc, dtype=np.int64), ranked.doc_ids
    codes, uniques = pd.factorize(pd.Index(np.asarray(ranked.docno, dtype=object), dtype=object))
    return codes.astype(np.int64), pa.array(np.asarray(uniques, dtype=object), type=pa.string())


def _as_arrow_strings(values) -> pa.Array:
    values = list(values)
    try:
        return pa.array(values, type=pa.string())
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        return pa.array([str(v) for v in values], type=pa.string())


@dataclass(frozen=True)
class LengthTable:
    """A ``docno -> words`` mapping as Arrow keys and a value array, converted once per kernel call."""

    keys: pa.Array
    values: np.ndarray

    @classmethod
    def of(cls, lengths: "Mapping | LengthTable") -> "LengthTable":
        if isinstance(lengths, LengthTable):
            return lengths
        return cls(_as_arrow_strings(lengths.keys()), np.fromiter(lengths.values(), dtype=np.float64, count=len(lengths)))


def _lookup_lengths(ids: pa.Array, lengths: "Mapping | LengthTable", default: float | None, *, measure: Measure,
                    needed: np.ndarray, describe, what: str) -> np.ndarray:
    """Lengths of the documents ``ids`` (Arrow strings) from the mapping ``docno -> words``.

    Only entries where ``needed`` holds must have a length; the first one without (or with
    a negative or non-finite length) is named in the error, with ``describe(i)`` saying where.
    """
    table = LengthTable.of(lengths)
    known = table.values
    where = pc.index_in(ids, value_set=table.keys).fill_null(-1).to_numpy(zero_copy_only=False)
    values = np.where(where >= 0, known[np.maximum(where, 0)] if len(known) else 0.0, np.nan)
    missing = (where < 0) & needed
    invalid = (where >= 0) & needed & ~((values >= 0) & np.isfinite(values))
    if invalid.any():
        i = int(np.flatnonzero(invalid)[0])
        raise ParameterError(f"{measure}: the length of {what} {ids[i].as_py()!r} ({describe(i)}) is {values[i]!r}; "
                             "lengths are numbers of words >= 0")
    if missing.any():
        if default is None:
            i = int(np.flatnonzero(missing)[0])
            raise ParameterError(
                f"{measure}: no length for {what} {ids[i].as_py()!r} ({describe(i)}) in the document lengths; "
                f"{int(missing.sum())} such document(s). Give every length, or a default: TBG(default_length=...)")
        values[where < 0] = default
    return values


def _groups(docnos: np.ndarray, mode: str, measure: Measure, context: EvaluationContext) -> np.ndarray | None:
    if mode == "none":
        return None
    if mode == "patent":
        keys = patent_keys(docnos if isinstance(docnos, pa.Array) else np.asarray(docnos, dtype=object))
        if not isinstance(keys, pa.Array):
            keys = _as_arrow_strings(keys)
        return pc.dictionary_encode(keys).indices.to_numpy(zero_copy_only=False).astype(np.int64)
    resource = "duplicate_groups" if mode == "groups" else "patent_families"
    return group_codes(docnos, context.require(resource, measure))


@dataclass(frozen=True)
class TBGRows:
    """What the time model needs at every rank of a ranking (arrays aligned with its rows).

    Attributes
    ----------
    ptr : ndarray, shape (T+1,)
        Topic offsets.
    relevant : ndarray of bool
        Binary relevance at ``rel``.
    lengths : ndarray of float
        Document lengths as given (words).
    duplicate : ndarray of bool
        A near-duplicate of a document ranked above (read as length 0).
    gain : ndarray of float
        Expected gain of the rank when reached: ``P(C=1|R=1) P(S=1|R=1)`` or 0.
    model : TimeModel
    """

    ptr: np.ndarray
    relevant: np.ndarray
    lengths: np.ndarray
    duplicate: np.ndarray
    gain: np.ndarray
    model: TimeModel

    @property
    def earns(self) -> np.ndarray:
        """Ranks that can earn gain (relevant, and not a duplicate when duplicates earn none)."""
        return self.gain > 0


def tbg_rows(ranked: RankedTopics, measure: Measure, context: EvaluationContext, *,
             lengths: LengthTable | None = None) -> TBGRows:
    """Relevance, lengths and duplicates of every retrieved row, per the measure's parameters.

    ``lengths``: the ``doc_lengths`` resource already converted (:class:`LengthTable`).
    """
    model = time_model_of(measure)
    default = _check_default_length(measure)
    if lengths is None:
        lengths = LengthTable.of(context.require("doc_lengths", measure))
    relevant = ranked.relevant(measure["rel"])
    codes, ids = distinct_documents(ranked)
    needed = np.zeros(len(ids), dtype=bool)
    needed[codes] = True

    def describe(i: int) -> str:
        row = int(np.flatnonzero(codes == i)[0])
        return f"topic {ranked.topic_ids[ranked.row_topic[row]]!r}, rank {int(ranked.position[row])}"

    row_lengths = _lookup_lengths(ids, lengths, default, measure=measure, needed=needed, describe=describe,
                                  what="document")[codes]
    mode = measure["duplicates"]
    if mode == "none":
        duplicate = np.zeros(len(relevant), dtype=bool)
    else:
        groups = _groups(ids if mode == "patent" else ids.to_numpy(zero_copy_only=False).astype(object), mode, measure, context)
        duplicate = duplicates_of_earlier(groups[codes], ranked.ptr)
    earns = relevant if measure["duplicate_gain"] else relevant & ~duplicate
    gain = np.where(earns, model.gain_relevant, 0.0)
    return TBGRows(ranked.ptr, relevant, row_lengths, duplicate, gain, model)


def time_biased_gain(rows: TBGRows) -> np.ndarray:
    """Unnormalised TBG per topic: ``sum_k g_k D(T(k))``."""
    times = segment_exclusive_cumsum(step_times(rows.relevant, rows.lengths, model=rows.model, duplicate=rows.duplicate),
                                     rows.ptr)
    segment = np.repeat(np.arange(len(rows.ptr) - 1), np.diff(rows.ptr))
    earning = rows.earns
    return np.bincount(segment[earning], weights=rows.gain[earning] * rows.model.decay(times[earning]),
                       minlength=len(rows.ptr) - 1)


def ideal_gain(topic: np.ndarray, lengths: np.ndarray, group: np.ndarray | None, n_topics: int, *,
               model: TimeModel, duplicate_gain: bool = True) -> np.ndarray:
    """TBG of the best ordering of each topic's relevant documents (the ``ideal`` normalisation).

    Parameters
    ----------
    topic, lengths, group : ndarray, shape (M,)
        One entry per relevant document: its topic position, length (words) and duplicate
        group code (distinct codes for documents without near-duplicates); ``group=None``:
        no near-duplicates at all.
    n_topics : int

    Notes
    -----
    All relevant documents earn the same gain g, so without near-duplicates the best order
    is shortest first. A near-duplicate group is a chain: its shortest member is read in
    full, the others as length 0 (the cheapest step there is), so they follow it at once.
    Whole groups, of total expected time P and discounted gain V (counted from the group's
    start), are then ordered by decreasing V / (1 - exp(-P ln2/h)), the optimal rule for
    exponential discounting (the exchange argument for two adjacent blocks). Duplicates
    that earn no gain are left out (they would only cost time). The tests check the result
    against every permutation of small cases.
    """
    rate = model.decay_rate
    g = model.gain_relevant
    if len(topic) == 0:
        return np.zeros(n_topics, dtype=np.float64)
    topic = np.asarray(topic, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.float64)
    if group is None:
        # no near-duplicates: shortest first, one sort
        order = np.lexsort((lengths, topic))
        step = model.summary_time + model.reading_time(lengths[order]) * model.p_click_rel
        counts = np.bincount(topic, minlength=n_topics)
        start = segment_exclusive_cumsum(step, np.r_[0, np.cumsum(counts)].astype(np.int64))
        return np.bincount(topic[order], weights=g * np.exp(-rate * start), minlength=n_topics)
    group = np.asarray(group, dtype=np.int64)
    # blocks = (topic, group); sorted so that each block starts with its shortest member
    order = np.lexsort((lengths, group, topic))
    topic, group, lengths = topic[order], group[order], lengths[order]
    starts = np.flatnonzero(np.r_[True, (topic[1:] != topic[:-1]) | (group[1:] != group[:-1])])
    block_topic = topic[starts]
    shortest = lengths[starts]
    members = np.diff(np.r_[starts, len(topic)]).astype(np.float64) if duplicate_gain else np.ones(len(starts))
    first = model.summary_time + model.reading_time(shortest) * model.p_click_rel
    follower = model.zero_length_step()
    followers = members - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        if rate * follower > 0:
            geometric = np.expm1(-rate * follower * followers) / np.expm1(-rate * follower)
        else:
            geometric = followers
        value = g * (1.0 + np.exp(-rate * first) * geometric)
        duration = first + follower * followers
        ratio = value / -np.expm1(-rate * duration)
    ratio = np.where(np.isnan(ratio), np.inf, ratio)
    order = np.lexsort((-ratio, block_topic))
    block_topic, value, duration = block_topic[order], value[order], duration[order]
    counts = np.bincount(block_topic, minlength=n_topics)
    ptr = np.r_[0, np.cumsum(counts)].astype(np.int64)
    start = segment_exclusive_cumsum(duration, ptr)
    return np.bincount(block_topic, weights=value * np.exp(-rate * start), minlength=n_topics)


def _relevant_judged(ranked: RankedTopics, measure: Measure, context: EvaluationContext,
                     lengths: LengthTable) -> tuple[np.ndarray, ...]:
    """Every relevant judged document of the evaluated topics: topic, length, group code."""
    judgements = ranked.judgements
    default = _check_default_length(measure)
    if judgements.doc_key == "patent":
        return _relevant_patents(ranked, measure, context, lengths, default)
    relevant = judgements.grade >= measure["rel"]
    topic = judgements.topic_position[relevant]
    code = judgements.key[relevant] % max(len(judgements.doc_keys), 1)
    distinct, inverse = np.unique(code, return_inverse=True)
    ids = getattr(judgements, "doc_keys_arrow", None)
    ids = _as_arrow_strings(np.asarray(judgements.doc_keys, dtype=object)[distinct]) if ids is None else ids.take(pa.array(distinct))
    first_topic = np.zeros(len(distinct), dtype=np.int64)
    first_topic[inverse[::-1]] = topic[::-1]
    values = _lookup_lengths(ids, lengths, default, measure=measure, needed=np.ones(len(distinct), dtype=bool),
                             describe=lambda i: f"topic {ranked.topic_ids[first_topic[i]]!r}; needed by norm=ideal",
                             what="relevant document")
    mode = measure["duplicates"]
    if mode == "none":
        return topic, values[inverse], None
    source = ids if mode == "patent" else ids.to_numpy(zero_copy_only=False).astype(object)
    groups = _groups(source, mode, measure, context)[inverse]
    return topic, values[inverse], groups


def _relevant_patents(ranked, measure, context, lengths, default) -> tuple[np.ndarray, ...]:
    """As :func:`_relevant_judged` with ``doc_key="patent"``: a judged patent's length is its shortest publication's."""
    level = ranked.judgements.qrels.document_level()
    position = pd.Index(ranked.topic_ids).get_indexer(level.topic)
    keep = (position >= 0) & (np.asarray(level.rel) >= measure["rel"])
    docnos = np.asarray(level.docno, dtype=object)[keep]
    topic = position[keep].astype(np.int64)
    values = _lookup_lengths(_as_arrow_strings(docnos), lengths, default, measure=measure,
                             needed=np.ones(len(docnos), dtype=bool),
                             describe=lambda i: f"topic {ranked.topic_ids[topic[i]]!r}; needed by norm=ideal",
                             what="relevant document")
    keys = patent_keys(docnos)
    mode = measure["duplicates"]
    codes = _groups(keys if mode == "patent" else docnos, mode, measure, context)
    frame = pd.DataFrame({"topic": topic, "key": keys, "length": values,
                          "group": codes if codes is not None else pd.factorize(pd.Index(keys, dtype=object))[0]})
    frame = frame.sort_values("length", kind="stable").drop_duplicates(["topic", "key"])
    return (frame["topic"].to_numpy(dtype=np.int64), frame["length"].to_numpy(dtype=np.float64),
            frame["group"].to_numpy(dtype=np.int64))


def tbg(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Time-biased gain, per the module notes (``TBG``, ``TBG(norm=ideal)``, ``TBG(halflife=600)``).

    Examples
    --------
    The spec's example: relevant (500 words), non-relevant (1000), relevant (200).

    >>> from pateval.api import evaluate
    >>> qrels = {"q": {"d1": 1, "d2": 0, "d3": 1}}
    >>> run = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    >>> lengths = {"d1": 500, "d2": 1000, "d3": 200}
    >>> value = float(evaluate(qrels, run, "TBG", resources={"doc_lengths": lengths})["value"][0])
    >>> round(value, 6)
    0.942448
    """
    lengths = LengthTable.of(context.require("doc_lengths", measure))
    rows = tbg_rows(ranked, measure, context, lengths=lengths)
    raw = time_biased_gain(rows)
    scale = normaliser(ranked, measure, context, rows.model, lengths=lengths)
    out = np.zeros(ranked.n_topics, dtype=np.float64)
    np.divide(raw, scale, out=out, where=scale > 0)
    return out


def normaliser(ranked: RankedTopics, measure: Measure, context: EvaluationContext, model: TimeModel | None = None, *,
               lengths: LengthTable | None = None) -> np.ndarray:
    """N per topic for the measure's ``norm``: 1, the ideal TBG (0 without relevant documents), or the bound."""
    model = model or time_model_of(measure)
    norm = measure["norm"]
    if norm == "none":
        return np.ones(ranked.n_topics, dtype=np.float64)
    if norm == "bound":
        return np.full(ranked.n_topics, model.bound(), dtype=np.float64)
    table = lengths if lengths is not None else LengthTable.of(context.require("doc_lengths", measure))
    topic, ideal_lengths, group = _relevant_judged(ranked, measure, context, table)
    return ideal_gain(topic, ideal_lengths, group, ranked.n_topics, model=model, duplicate_gain=measure["duplicate_gain"])


register(MeasureSpec(
    "TBG", "professional", "time-biased gain: expected relevant documents saved by a user who tires with time",
    "TBG = (1/N) sum_k g_k exp(-T(k) ln2/h), g_k = P(C=1|R=1)P(S=1|R=1) if relevant, "
    "T(k) = sum_{i<k} [T_S + (a l_i + b) P(C=1|R=r_i)]",
    REFERENCE, tbg, TBG_PARAMS, requires=frozenset({"doc_lengths"}),
))
