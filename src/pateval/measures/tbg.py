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
(:func:`pateval.core.docids.patent_keys`: publications of one patent).

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
from functools import cached_property
from typing import cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._lazy import lazy_module
from ..core.docids import DocLengths, document_keys, group_codes
from ..core.keys import PairIndex, StringKeys
from ..core.order import unique_inverse
from ..core.ranking import RankedTopics
from ..core.segments import (
    duplicates_of_earlier,
    offsets,
    run_lengths,
    run_starts,
    segment_exclusive_cumsum,
    segment_exclusive_cumsum_at,
)
from ..errors import ParameterError
from ..tuning import SORTED_KEYS_MIN, STEP_BLOCK_ROWS, TABLE_SLACK
from ..usermodel.time import TimeModel
from ..validation import Interval
from .base import EvaluationContext, Measure, MeasureSpec, Param, divide_or_zero
from .registry import register
from .relevance import topic_and_column

pd = lazy_module("pandas")  # a few functions build frames; scoring runs never needs pandas

__all__ = ["TBG_PARAMS", "LengthTable", "length_table", "TBGRows", "tbg_rows", "times_at",
           "ideal_gain", "normaliser", "time_model_of"]

_PROBABILITY = Interval(0, 1)
_NONNEGATIVE = Interval(0, None)
DUPLICATE_MODES = ("none", "groups", "families", "patent")
NORMALISATIONS = ("none", "ideal", "bound")

TBG_PARAMS = (
    Param("rel", int, 1, "minimum grade counted as relevant (graded qrels are binary at this level)",
          interval=Interval(1, None)),
    Param("halflife", float, 224.0, "h, seconds after which half of the users have stopped (D(t) = 2^(-t/h))",
          interval=Interval(0, None, closed="neither")),
    Param("summary_time", float, 4.4, "T_S, seconds to read one summary", interval=_NONNEGATIVE),
    Param("read_slope", float, 0.018, "a in T_D(l) = a*l + b: seconds per word of a document read",
          interval=_NONNEGATIVE),
    Param("read_intercept", float, 7.8, "b in T_D(l) = a*l + b: fixed seconds to judge a document read",
          interval=_NONNEGATIVE),
    Param("p_click_rel", float, 0.64, "P(C=1|R=1), probability of clicking a relevant document's summary",
          interval=_PROBABILITY),
    Param("p_click_nonrel", float, 0.39, "P(C=1|R=0), probability of clicking a non-relevant document's summary",
          interval=_PROBABILITY),
    Param("p_save_rel", float, 0.77, "P(S=1|R=1), probability of saving a relevant document read",
          interval=_PROBABILITY),
    Param("norm", str, "none", "normalisation: none (N=1), ideal (best ordering of the relevant documents), "
          "bound (endless zero-length relevant documents)", choices=NORMALISATIONS),
    Param("duplicates", str, "none", "near-duplicate groups: none, groups (--duplicates file), families "
          "(--families file), patent (publications of one patent)", choices=DUPLICATE_MODES),
    Param("duplicate_gain", bool, True, "a near-duplicate of a document ranked above still earns gain (TREC practice)"),
    Param("default_length", float, -1.0,
          "length (words) of documents missing from the lengths (-1: a missing length is an error)",
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
        codes = np.asarray(ranked.doc)
        # any integer type gathers as well (no copy of millions of codes to int64)
        return (codes if codes.dtype.kind in "iu" else codes.astype(np.int64)), ranked.doc_ids
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
    """A ``docno -> words`` mapping as Arrow keys and a value array, converted once per evaluation
    (:func:`length_table`: kept in the evaluation context's memo, with its lookup index)."""

    keys: pa.Array
    values: np.ndarray

    @cached_property
    def index(self) -> PairIndex:
        """The keys indexed by their fingerprints for lookups (made on the first lookup, kept with the table)."""
        return PairIndex.build(np.zeros(len(self.keys), dtype=np.int64), StringKeys.of(self.keys), n_groups=1)

    def find(self, ids: pa.Array | pa.ChunkedArray) -> np.ndarray:
        """Where each of ``ids`` first occurs in the keys (``pc.index_in`` as int64), -1 where it does not."""
        return self.index.find(np.zeros(len(ids), dtype=np.int64), StringKeys.of(ids))

    @classmethod
    def of(cls, lengths: Mapping | DocLengths | LengthTable) -> LengthTable:
        if isinstance(lengths, LengthTable):
            return lengths
        if isinstance(lengths, DocLengths):  # as read from a file: the arrays as they are
            return cls(lengths.ids, cast(np.ndarray, lengths.values).astype(np.float64))
        return cls(_as_arrow_strings(lengths.keys()),
                   np.fromiter(lengths.values(), dtype=np.float64, count=len(lengths)))


def _positions(ids: pa.Array, table: LengthTable, *, distinct: bool = False) -> np.ndarray:
    """Where each of ``ids`` first occurs in ``table.keys`` (int64), -1 where it does not.

    Many keys: by the fingerprints of the table's keys (:class:`pateval.core.keys.PairIndex`,
    made once per table). Few keys, and ``distinct`` ids (no repeats) much fewer than the
    keys: the other way round, the keys probe a hash table of the ids, small enough to stay
    in cache. Otherwise Arrow's ``index_in``.
    """
    keys = table.keys
    if len(ids) == 0:
        return np.zeros(0, dtype=np.int64)
    if len(keys) >= SORTED_KEYS_MIN:
        return table.find(ids)
    if distinct and 4 * len(ids) < len(keys):
        found = pc.index_in(keys, value_set=ids).fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
        hits = np.flatnonzero(found >= 0)  # ascending: the first hit of each id is its first key
        targets, first = np.unique(found[hits], return_index=True)
        where = np.full(len(ids), -1, dtype=np.int64)
        where[targets] = hits[first]
        return where
    return pc.index_in(ids, value_set=keys).fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)


def _lengths_at(where: np.ndarray, table: LengthTable, ids: pa.Array, default: float | None, *, measure: Measure,
                needed, describe, what: str) -> np.ndarray:
    """The lengths (words) of the documents ``ids`` found at ``where`` in ``table``.

    ``needed``: a mask of the entries that must have a length, None (all), or a function
    that makes the mask (called only when some length is missing or invalid). The first
    needed one without a length (or with a negative or non-finite one) is named in the
    error, ``describe(i)`` saying where.
    """
    known = table.values
    values = np.where(where >= 0, known[np.maximum(where, 0)] if len(known) else 0.0, np.nan)
    bad = ~((values >= 0) & np.isfinite(values))  # missing ones (NaN) included
    if not bad.any():
        return values
    if needed is None:
        needed = np.ones(len(values), dtype=bool)
    elif callable(needed):
        needed = needed()
    missing = (where < 0) & needed
    invalid = (where >= 0) & needed & bad
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


def length_table(context: EvaluationContext, measure: Measure) -> LengthTable:
    """The ``doc_lengths`` resource of ``context`` as a :class:`LengthTable`, converted once per context."""
    resource = context.require("doc_lengths", measure)
    if isinstance(resource, LengthTable):
        return resource
    return context.memo.get(("length table", resource), lambda: LengthTable.of(resource))


def shared_lookup(context: EvaluationContext, ranked: RankedTopics, table: LengthTable, ids: pa.Array) -> np.ndarray:
    """Where each of the ranking's distinct documents ``ids`` is in ``table`` (-1: absent),
    looked up once per ranking and table in an evaluation (TBG, the Cube Test's time=tbg and
    the ideal share it)."""
    return context.memo.get(("where", table), lambda: _positions(ids, table), ranking=ranked)


def _document_lengths(ranked: RankedTopics, measure: Measure, context: EvaluationContext, table: LengthTable):
    """``codes, ids, lengths``: each row's document, the distinct documents and their lengths (words).

    Documents no row retrieves may be left without a length (NaN).
    """
    default = _check_default_length(measure)
    codes, ids = distinct_documents(ranked)
    where = shared_lookup(context, ranked, table, ids)

    def needed() -> np.ndarray:
        mask = np.zeros(len(ids), dtype=bool)
        mask[codes] = True
        return mask

    def describe(i: int) -> str:
        row = np.flatnonzero(codes == i)[:1]  # its first row
        return f"topic {ranked.topic_ids[ranked.topic_of(row)[0]]!r}, rank {int(ranked.position_of(row)[0])}"

    values = _lengths_at(where, table, ids, default, measure=measure, needed=needed, describe=describe, what="document")
    return codes, ids, values


def _row_duplicates(ranked: RankedTopics, measure: Measure, context: EvaluationContext, codes: np.ndarray,
                    ids: pa.Array) -> np.ndarray | None:
    """Rows holding a near-duplicate of a document ranked above (None: ``duplicates=none``)."""
    mode = measure["duplicates"]
    if mode == "none":
        return None

    def make() -> np.ndarray:
        groups = _groups(ids if mode == "patent" else ids.to_numpy(zero_copy_only=False).astype(object), mode, measure,
                         context)
        return duplicates_of_earlier(groups[codes], ranked.ptr)

    return context.memo.get(("duplicates", mode), make, ranking=ranked)


def row_steps(codes: np.ndarray, lengths: np.ndarray, relevant_rows: np.ndarray, duplicate: np.ndarray | None,
              model: TimeModel) -> np.ndarray:
    """:func:`pateval.usermodel.time.step_times` of every row, the same numbers to the last bit.

    ``T_S + T_D(l) P(C=1|R=r)`` is worked out once per distinct document for either
    relevance and gathered per row: one pass over the rows instead of one per operation.
    """
    steps = np.empty(len(codes), dtype=np.float64)
    _fill_steps(steps, codes, _step_tables(lengths, model), relevant_rows, duplicate, model)
    return steps


def _step_tables(lengths: np.ndarray, model: TimeModel) -> tuple[np.ndarray, np.ndarray]:
    """Each distinct document's step time if not relevant, and if relevant (as step_times)."""
    reading = model.reading_time(lengths)  # a*l + b, as step_times
    nonrelevant = reading * model.p_click_nonrel
    nonrelevant += model.summary_time
    relevant = reading * model.p_click_rel
    relevant += model.summary_time
    return nonrelevant, relevant


def _fill_steps(out: np.ndarray, codes: np.ndarray, tables: tuple[np.ndarray, np.ndarray], relevant_rows: np.ndarray,
                duplicate: np.ndarray | None, model: TimeModel) -> None:
    """Write the step time of rows ``codes`` (``relevant_rows`` and ``duplicate`` relative to them) to ``out``."""
    nonrelevant, relevant = tables
    np.take(nonrelevant, codes, out=out)
    if len(relevant_rows):
        out[relevant_rows] = np.take(relevant, codes[relevant_rows])
    if duplicate is not None and duplicate.any():
        is_relevant = np.zeros(len(codes), dtype=bool)
        is_relevant[relevant_rows] = True
        # a near-duplicate is read as length 0: T_D(0) = b
        out[duplicate & ~is_relevant] = model.read_intercept * model.p_click_nonrel + model.summary_time
        out[duplicate & is_relevant] = model.read_intercept * model.p_click_rel + model.summary_time


def times_at(codes: np.ndarray, lengths: np.ndarray, relevant_rows: np.ndarray, duplicate: np.ndarray | None,
             model: TimeModel, ptr: np.ndarray, rows: np.ndarray, *, block_rows: int = STEP_BLOCK_ROWS) -> np.ndarray:
    """``T(k)`` at ``rows`` (ascending): ``segment_exclusive_cumsum_at(row_steps(...), ptr, rows)``,
    the same numbers to the last bit.

    Made in blocks of whole topics of about ``block_rows`` rows in one reused buffer:
    gathered, summed and read while in the cache, where one array of every row's step
    (80 MB for 10 million rows) would go to memory and back twice. ``relevant_rows``
    ascending too.
    """
    ptr = np.asarray(ptr, dtype=np.int64)
    rows = np.asarray(rows, dtype=np.int64)
    relevant_rows = np.asarray(relevant_rows, dtype=np.int64)
    n = len(codes)
    tables = _step_tables(lengths, model)
    if n <= block_rows:
        steps = np.empty(n, dtype=np.float64)
        _fill_steps(steps, codes, tables, relevant_rows, duplicate, model)
        return segment_exclusive_cumsum_at(steps, ptr, rows, overwrite=True)
    # topic boundaries nearest above each multiple of the block size (a longer topic is a block alone)
    cuts = np.unique(np.r_[np.searchsorted(ptr, np.arange(0, n, block_rows), side="left"), len(ptr) - 1])
    starts = ptr[cuts]
    relevant_at = np.searchsorted(relevant_rows, starts)
    rows_at = np.searchsorted(rows, starts)
    buffer = np.empty(int(np.diff(starts).max()), dtype=np.float64)
    times = np.empty(len(rows), dtype=np.float64)
    for b in range(len(cuts) - 1):
        r0, r1 = int(starts[b]), int(starts[b + 1])
        steps = buffer[: r1 - r0]
        _fill_steps(steps, codes[r0:r1], tables, relevant_rows[relevant_at[b] : relevant_at[b + 1]] - r0,
                    None if duplicate is None else duplicate[r0:r1], model)
        times[rows_at[b] : rows_at[b + 1]] = segment_exclusive_cumsum_at(
            steps, ptr[cuts[b] : cuts[b + 1] + 1] - r0, rows[rows_at[b] : rows_at[b + 1]] - r0, overwrite=True)
    return times


def _groups(docnos: np.ndarray | pa.Array, mode: str, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Each document's near-duplicate group code, for ``mode`` other than ``none``."""
    if mode == "patent":
        keys = document_keys(docnos if isinstance(docnos, pa.Array) else np.asarray(docnos, dtype=object), "patent")
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


def tbg_rows(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> TBGRows:
    """Relevance, lengths and duplicates of every retrieved row, per the measure's parameters."""
    model = time_model_of(measure)
    relevant = ranked.relevant(measure["rel"])
    codes, ids, values = _document_lengths(ranked, measure, context, length_table(context, measure))
    row_lengths = values[codes]
    duplicate = _row_duplicates(ranked, measure, context, codes, ids)
    if duplicate is None:
        duplicate = np.zeros(len(relevant), dtype=bool)
    earns = relevant if measure["duplicate_gain"] else relevant & ~duplicate
    gain = np.where(earns, model.gain_relevant, 0.0)
    return TBGRows(ranked.ptr, relevant, row_lengths, duplicate, gain, model)


def _shortest_first(topic: np.ndarray, lengths: np.ndarray, n_topics: int) -> tuple[np.ndarray, np.ndarray]:
    """``topic[order], lengths[order]`` for ``order = np.lexsort((lengths, topic))``.

    Topics given in order (as the judgements are) and of similar sizes: each topic's
    lengths sorted in a row of a table (a sort of short rows), not one sort of them all.
    Only the sorted values are returned, and equal lengths are interchangeable.
    """
    counts = np.bincount(topic, minlength=n_topics)
    widest = int(counts.max())
    if (widest * n_topics <= 2 * len(topic) + TABLE_SLACK and bool(np.all(topic[1:] >= topic[:-1]))
            and bool(np.all(np.isfinite(lengths)))):
        if bool(np.all(counts == widest)):
            return topic, np.sort(lengths.reshape(n_topics, widest), axis=1).ravel()
        inside = np.arange(widest)[None, :] < counts[:, None]
        table = np.full((n_topics, widest), np.inf)
        table[inside] = lengths
        table.sort(axis=1)
        return topic, table[inside]
    order = np.lexsort((lengths, topic))
    return topic[order], lengths[order]


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
        topic, lengths = _shortest_first(topic, lengths, n_topics)
        step = model.summary_time + model.reading_time(lengths) * model.p_click_rel
        start = segment_exclusive_cumsum(step, offsets(np.bincount(topic, minlength=n_topics)))
        return np.bincount(topic, weights=g * np.exp(-rate * start), minlength=n_topics)
    group = np.asarray(group, dtype=np.int64)
    # blocks = (topic, group); sorted so that each block starts with its shortest member
    order = np.lexsort((lengths, group, topic))
    topic, group, lengths = topic[order], group[order], lengths[order]
    starts = run_starts(topic, group)
    block_topic = topic[starts]
    shortest = lengths[starts]
    members = run_lengths(starts, len(topic)).astype(np.float64) if duplicate_gain else np.ones(len(starts))
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
    start = segment_exclusive_cumsum(duration, offsets(np.bincount(block_topic, minlength=n_topics)))
    return np.bincount(block_topic, weights=value * np.exp(-rate * start), minlength=n_topics)


def _judged_positions(ranked: RankedTopics, context: EvaluationContext, table: LengthTable, level: int,
                      distinct: np.ndarray, ids: pa.Array) -> np.ndarray:
    """Where the judged documents ``distinct`` (codes into the judged ids, ``ids`` their ids) are in ``table``.

    Those the run retrieved were looked up already, with the run's documents (when TBG
    itself ran first): only the others are looked up.
    """
    run_where = context.memo.peek(("where", table), ranking=ranked)
    # (an empty ranking, a topic the run lacks scored with -c, looked nothing up)
    if run_where is None or not len(run_where):
        return _positions(ids, table, distinct=True)
    # the relevant judged rows and their documents' codes
    chosen = np.flatnonzero(ranked.judged_grade >= max(level, 1))
    rows, codes = np.take(ranked.judged_row, chosen), np.take(ranked.judged_code, chosen)
    run_code = np.full(max(len(ranked.judgements.doc_keys_arrow), 1), -1, dtype=np.int64)
    run_code[codes] = np.asarray(ranked.doc)[rows]
    mapped = run_code[distinct]
    where = np.where(mapped >= 0, run_where[np.maximum(mapped, 0)], -1)
    rest = np.flatnonzero(mapped < 0)
    if len(rest):
        where[rest] = _positions(ids.take(pa.array(rest)), table, distinct=True)
    return where


def _relevant_judged(ranked: RankedTopics, measure: Measure, context: EvaluationContext,
                     lengths: LengthTable) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Every relevant judged document of the evaluated topics: topic, length, group code."""
    judgements = ranked.judgements
    default = _check_default_length(measure)
    if judgements.doc_key == "patent":
        return _relevant_patents(ranked, measure, context, lengths, default)
    relevant = judgements.grade >= measure["rel"]
    topic = judgements.topic_position[relevant]
    ids = judgements.doc_keys_arrow  # the judged ids as Arrow strings (not as a pandas Index)
    distinct, inverse = unique_inverse(judgements.key[relevant] % max(len(ids), 1))
    ids = ids.take(pa.array(distinct))
    where = _judged_positions(ranked, context, lengths, measure["rel"], distinct, ids)

    def describe(i: int) -> str:
        first_topic = topic[int(np.flatnonzero(inverse == i)[0])]
        return f"topic {ranked.topic_ids[first_topic]!r}; needed by norm=ideal"

    values = _lengths_at(where, lengths, ids, default, measure=measure, needed=None, describe=describe,
                         what="relevant document")
    mode = measure["duplicates"]
    if mode == "none":
        return topic, values[inverse], None
    source = ids if mode == "patent" else ids.to_numpy(zero_copy_only=False).astype(object)
    groups = _groups(source, mode, measure, context)[inverse]
    return topic, values[inverse], groups


def _relevant_patents(ranked, measure, context, lengths, default) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """As :func:`_relevant_judged` with ``doc_key="patent"``: a judged patent's length is its shortest publication's."""
    level = ranked.judgements.qrels.document_level()
    position = pd.Index(ranked.topic_ids).get_indexer(level.topic)
    keep = (position >= 0) & (np.asarray(level.rel) >= measure["rel"])
    docnos = np.asarray(level.docno, dtype=object)[keep]
    topic = position[keep].astype(np.int64)
    ids = _as_arrow_strings(docnos)
    values = _lengths_at(_positions(ids, lengths), lengths, ids, default, measure=measure, needed=None,
                         describe=lambda i: f"topic {ranked.topic_ids[topic[i]]!r}; needed by norm=ideal",
                         what="relevant document")
    keys = document_keys(docnos, "patent")
    mode = measure["duplicates"]
    codes = None if mode == "none" else _groups(keys if mode == "patent" else docnos, mode, measure, context)
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
    lengths = length_table(context, measure)
    model = time_model_of(measure)
    # without an array of every row for each quantity: the step times and their running
    # sums block by block, read at the earning rows
    relevant = ranked.relevant_rows(measure["rel"])
    codes, ids, values = _document_lengths(ranked, measure, context, lengths)
    duplicate = _row_duplicates(ranked, measure, context, codes, ids)
    earning = relevant if duplicate is None or measure["duplicate_gain"] else relevant[~duplicate[relevant]]
    times = times_at(codes, values, relevant, duplicate, model, ranked.ptr, earning)
    topic, _ = topic_and_column(ranked, earning)
    raw = np.bincount(topic, weights=model.gain_relevant * model.decay(times), minlength=ranked.n_topics)
    return divide_or_zero(raw, normaliser(ranked, measure, context, model))


def normaliser(ranked: RankedTopics, measure: Measure, context: EvaluationContext,
               model: TimeModel | None = None) -> np.ndarray:
    """N per topic for the measure's ``norm``: 1, the ideal TBG (0 without relevant documents), or the bound."""
    model = model or time_model_of(measure)
    norm = measure["norm"]
    if norm == "none":
        return np.ones(ranked.n_topics, dtype=np.float64)
    if norm == "bound":
        return np.full(ranked.n_topics, model.bound(), dtype=np.float64)
    topic, ideal_lengths, group = _relevant_judged(ranked, measure, context, length_table(context, measure))
    return ideal_gain(topic, ideal_lengths, group, ranked.n_topics, model=model,
                      duplicate_gain=measure["duplicate_gain"])


register(MeasureSpec(
    "TBG", "professional", "time-biased gain: expected relevant documents saved by a user who tires with time",
    "TBG = (1/N) sum_k g_k exp(-T(k) ln2/h), g_k = P(C=1|R=1)P(S=1|R=1) if relevant, "
    "T(k) = sum_{i<k} [T_S + (a l_i + b) P(C=1|R=r_i)]",
    REFERENCE, tbg, TBG_PARAMS, requires=frozenset({"doc_lengths"}),
))
