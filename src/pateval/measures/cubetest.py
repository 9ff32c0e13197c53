"""The Cube Test (Luo, Wing, Yang & Hearst, CIKM 2013): CT, ACT and the paper's variants.

The user's need is a cube of unit volume whose floor is divided among the topic's subtopics
(subtopic c_i takes area theta_i, sum theta_i = 1). Every examined document pours "water"
into the columns of the subtopics it is relevant to, until a column is full. The Cube Test
is the speed at which the cube fills::

    Gain(d_j) = sum_i gamma^nrel(c_i, j-1) * theta_i * rel(d_j, c_i)
                      * I( sum_{k<j} rel(d_k, c_i) < MaxHeight )
    CT@t  = Gain(D_t) / Time(D_t),      Gain(D_t) = sum_{j<=t} Gain(d_j)
    ACT@t = (1/t) sum_{s<=t} Gain(D_s) / Time(D_s)

``rel(d, c) = grade / maxgrade`` in [0, 1]; ``nrel(c, j-1)`` is the number of documents
examined before d_j with rel > 0 for c (the novelty discount); the indicator looks at the
raw, undiscounted height of the column. A run with fewer than t documents is scored at its
length. Documents are taken in the evaluation order: ``order="file"`` scores an unranked
Boolean result set in the order it was read, or the concatenated results of the queries of
one session.

Parameters of ``CT`` and ``ACT`` (in the measure name, e.g. ``CT(gamma=0.3,time=tbg)@10``):

- ``gamma`` (0.5): the novelty discount;
- ``maxheight`` (1): the height of the cube (the cap);
- ``cap`` (true): ``false`` drops the indicator and multiplies the gain by the position decay
  ``e^(-a*j + b)`` instead (the paper's c-bar variants; ``decay_a = decay_b = 1``);
- ``importance``: ``uniform`` theta, ``log`` (theta_k proportional to 1/log2(1+k) for the k-th
  subtopic in natural order of the subtopic ids: claim 1, 2, ..., 10), or ``weights`` (the
  ``subtopic_weights`` resource, ``qid subtopic weight`` lines, normalised per topic over every
  subtopic listed; the collection builder writes the claims' theta_ind = 1, theta_dep = 0.5);
- ``time``: ``rank`` (one unit per document), ``tbg`` (the expected seconds of time-biased
  gain's user, :mod:`pateval.usermodel.time`, to examine d_1..d_t inclusive; document lengths
  from the ``doc_lengths`` resource) or ``words150`` (the same with every length 150 words);
- ``maxgrade`` (0 = the highest grade found in the qrels): rel = grade / maxgrade.

The paper's Table 2 names variants by three letters, each registered as a measure of its own
(``CT_lgc``, ``CT_ptc``, ``CT_lacbar`` ...): subtopic importance ``l`` (log decay) or ``p``
(claim weights from the ``subtopic_weights`` resource); time ``t`` (only the top 10 documents,
one unit each), ``a`` (150 words per document) or ``g`` (TBG's time with the real lengths);
``c`` capped or ``cbar`` (no cap, position decay).

``compat=trec-dd`` reproduces the TREC Dynamic Domain 2017 jig (``scorer/cubetest.py``):
rel(d, c) is the sum of the document's passage ratings for c (a rating of 0 counts 1),
theta is uniform, the discount is gamma^(count+1), the column height is the discounted
height, capped at MaxHeight = 5 by clipping the last addition, the gain is divided by 5,
and Time is the number of iterations examined; ACT averages Gain/Time over every document
examined. The cutoff ``@k`` then counts iterations (the jig's ``--cutoff``). Each document's
iteration comes from the ``iterations`` resource (a DD run file, see
:mod:`pateval.formats.dd`), or ``iteration=n`` cuts the ranking into iterations of n
documents. An iteration without documents counts as one examined non-relevant document, as
in the jig.

References
----------
J. Luo, C. Wing, H. Yang, M. A. Hearst. The water filling model and the cube test:
multi-dimensional evaluation for professional search. CIKM 2013, Eq. 7-12, Table 2, 5.3.
TREC Dynamic Domain jig, scorer/cubetest.py (Georgetown University, 2017),
https://github.com/trec-dd/trec-dd-jig.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._lazy import lazy_module
from ..core.order import stable_order
from ..core.ranking import RankedTopics, SubtopicView
from ..core.segments import (
    offsets,
    place_in_runs,
    place_in_segments,
    run_starts,
    running_count,
    running_sum,
    segment_of,
)
from ..errors import ParameterError
from ..usermodel.time import TimeModel, step_times
from ..validation import Interval
from .base import EvaluationContext, Measure, MeasureSpec, Param, divide_or_zero
from .registry import parse_measure, register
from .subtopic import _view as subtopic_view
from .tbg import distinct_documents, length_table, row_steps, shared_lookup

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")  # a few functions build frames; scoring runs never needs pandas

__all__ = ["CubeSettings", "cube_test", "average_cube_test", "cube_test_values", "cube_gain_table", "VARIANTS",
           "DD_MAX_HEIGHT"]

REFERENCE = ("Luo, Wing, Yang & Hearst, The water filling model and the cube test, CIKM 2013; "
             "compat=trec-dd: TREC Dynamic Domain jig 2017 scorer/cubetest.py (github.com/trec-dd/trec-dd-jig)")
DD_MAX_HEIGHT = 5.0  # the jig's MaxHeight
TOP_DOCUMENTS = 10  # the paper's "t" variants examine the top 10 documents
WORDS_PER_DOCUMENT = 150  # the paper's "a" variants

GAMMA = Param("gamma", float, 0.5, "novelty discount: a subtopic's gain from a document is multiplied by "
              "gamma^(earlier documents relevant to that subtopic)", interval=Interval(0, 1))
MAXHEIGHT = Param("maxheight", float, 1.0, "height of the cube: a subtopic whose raw height (sum of rel) has reached "
                  "it gains nothing more (cap=true)", interval=Interval(0, None, closed="neither"))
CAP = Param("cap", bool, True,
            "true: the MaxHeight cap (the paper's c); false: no cap, gain times e^(-decay_a*j + decay_b) "
            "at position j (the paper's c-bar)")
DECAY_A = Param("decay_a", float, 1.0, "a of the position decay e^(-a*j + b) of cap=false", interval=Interval(0, None))
DECAY_B = Param("decay_b", float, 1.0, "b of the position decay e^(-a*j + b) of cap=false")
IMPORTANCE = Param("importance", str, "uniform", "subtopic importance theta: uniform; log (1/log2(1+k) for the k-th "
                   "subtopic, natural order of ids); weights (the --subtopic-weights file, normalised per topic)",
                   choices=("uniform", "log", "weights"))
TIME = Param("time", str, "rank", "Time(D_t): rank (t); tbg (TBG's expected seconds to examine d_1..d_t, lengths from "
             "--doc-lengths); words150 (the same, every document 150 words)", choices=("rank", "tbg", "words150"))
MAXGRADE = Param("maxgrade", int, 0, "rel = grade / maxgrade; 0: the highest grade found in the qrels",
                 interval=Interval(0, None))
COMPAT = Param("compat", str, "none", "trec-dd: the TREC Dynamic Domain 2017 jig's Cube Test (rating sums, "
               "MaxHeight 5, time = iterations; @k counts iterations)", choices=("none", "trec-dd"))
ITERATION = Param("iteration", int, 0, "compat=trec-dd: documents per iteration (the track's 5); 0: each document's "
                  "iteration from the --iterations DD run file", interval=Interval(0, None))
DEFAULT_LENGTH = Param("default_length", float, -1.0, "time=tbg: the length (words) of a document the lengths lack; "
                       "-1: a missing length is an error (as TBG's default_length)", interval=Interval(-1, None))
# TBG's calibration (Smucker & Clarke 2012), names as in pateval.usermodel.time.TimeModel
CALIBRATION = (
    Param("summary_time", float, 4.4, "time=tbg/words150: seconds to read a summary (T_S)", interval=Interval(0, None)),
    Param("read_slope", float, 0.018, "time=tbg/words150: seconds per word read, a of T_D(l) = a*l + b",
          interval=Interval(0, None)),
    Param("read_intercept", float, 7.8, "time=tbg/words150: b of T_D(l) = a*l + b (seconds)",
          interval=Interval(0, None)),
    Param("p_click_rel", float, 0.64, "time=tbg/words150: P(C=1|R=1), probability of reading a relevant document",
          interval=Interval(0, 1)),
    Param("p_click_nonrel", float, 0.39, "time=tbg/words150: P(C=1|R=0)", interval=Interval(0, 1)),
)


@dataclass(frozen=True)
class CubeSettings:
    """Everything that defines one Cube Test computation (from a measure's parameters)."""

    gamma: float = 0.5
    maxheight: float = 1.0
    cap: bool = True
    decay_a: float = 1.0
    decay_b: float = 1.0
    importance: str = "uniform"
    time: str = "rank"
    maxgrade: int = 0
    compat: str = "none"
    iteration: int = 0
    default_length: float = -1.0
    time_model: TimeModel = TimeModel()
    cutoff: int | None = None
    owner: str = "CT"

    @classmethod
    def from_measure(cls, measure: Measure) -> CubeSettings:
        names = {p.name for p in measure.spec.params}
        values = dict(measure.values)
        fixed = VARIANTS.get(measure.spec.name, {})
        settings = {f.name: values[f.name] for f in dataclasses.fields(cls) if f.name in names}
        settings.update({k: v for k, v in fixed.items() if k != "cutoff"})
        cutoff = fixed.get("cutoff", measure.cutoff)
        model = TimeModel.from_values(values) if names & {p.name for p in CALIBRATION} else TimeModel()
        made = cls(**settings, time_model=model, cutoff=cutoff, owner=str(measure))
        made.check(measure)
        return made

    def check(self, measure: Measure) -> None:
        """Refuse parameter combinations that mean nothing (declared rules, never assert)."""
        if self.compat == "trec-dd":
            spec = measure.spec
            for name in ("maxheight", "cap", "decay_a", "decay_b", "importance", "time", "maxgrade", "default_length"):
                if name in {p.name for p in spec.params} and measure[name] != spec.param(name).default:
                    raise ParameterError(f"{measure}: compat=trec-dd fixes {name} (the jig's definition); "
                                         "only gamma and iteration may be set")
            return
        if self.iteration:
            raise ParameterError(f"{measure}: iteration applies to compat=trec-dd only")
        if self.cap and (self.decay_a != 1.0 or self.decay_b != 1.0):
            raise ParameterError(f"{measure}: decay_a and decay_b apply to cap=false only")


def _importance(ranked: RankedTopics, view: SubtopicView, settings: CubeSettings, context: EvaluationContext,
                measure: Measure) -> np.ndarray:
    """theta of every subtopic of the view (each topic's values sum to 1)."""
    counts = np.diff(view.subtopic_ptr)
    topic = view.subtopic_topic
    if settings.importance == "uniform":
        return 1.0 / counts[topic]
    if settings.importance == "weights":
        weights = context.require("subtopic_weights", measure)
        return weights.normalised(ranked.topic_ids[topic], view.subtopic_ids)
    # log decay over the subtopics in natural order of their ids (claim 2 before claim 10)
    ids = pd.Series(view.subtopic_ids, dtype=object).astype(str)
    number = pd.to_numeric(ids.str.extract(r"(\d+)$", expand=False), errors="coerce").fillna(-1.0).to_numpy()
    prefix = ids.str.replace(r"\d+$", "", regex=True).to_numpy(dtype=object).astype(str)
    order = np.lexsort((ids.to_numpy(dtype=str), number, prefix, topic))
    k = np.empty(len(order), dtype=np.int64)
    k[order] = place_in_segments(np.diff(view.subtopic_ptr)) + 1  # ``order`` runs topic by topic
    raw = 1.0 / np.log2(1.0 + k)
    total = np.bincount(topic, weights=raw, minlength=ranked.n_topics)
    return raw / total[topic]


def _row_step_time(ranked: RankedTopics, settings: CubeSettings, context: EvaluationContext,
                   measure: Measure, examined: np.ndarray) -> np.ndarray | None:
    """Time spent on each row (None for time=rank: one unit each); lengths needed for examined rows only."""
    if settings.time == "rank":
        return None
    relevant = ranked.relevant(1)
    if settings.time == "words150":
        lengths = np.full(len(relevant), float(WORDS_PER_DOCUMENT))
        return step_times(relevant, lengths, model=settings.time_model)
    # TBG's user: lengths looked up once per distinct document (shared with TBG in one
    # evaluation), step times worked out per document and gathered per row
    table = length_table(context, measure)
    codes, ids = distinct_documents(ranked)
    where = shared_lookup(context, ranked, table, ids)
    if (where < 0).any():
        missing = (where[codes] < 0) & examined
        if missing.any() and settings.default_length < 0:
            if settings.default_length != -1.0:
                raise ParameterError(f"{measure}: default_length must be -1 (no default) or a length >= 0")
            first = int(np.flatnonzero(missing)[0])
            raise ParameterError(f"{measure}: no length for document {str(ranked.docno[first])!r} "
                                 f"({int(missing.sum())} missing); give it in the lengths file or set default_length")
    values = table.values
    lengths = np.where(where < 0, max(settings.default_length, 0.0),
                       values[np.maximum(where, 0)] if len(values) else 0.0)
    return row_steps(codes, lengths, np.flatnonzero(relevant), None, settings.time_model)


# ---- the paper's Cube Test -------------------------------------------------------------------

def _paper_pairs(ranked: RankedTopics, settings: CubeSettings, context: EvaluationContext, measure: Measure,
                 examined: np.ndarray):
    """Per (examined row, subtopic) with rel > 0: row, subtopic, rel and gain, by (subtopic, row)."""
    view = subtopic_view(ranked, context)  # the costly join, shared with the subtopic measures
    theta = _importance(ranked, view, settings, context, measure)
    grades = ranked.judgements.qrels.rel
    highest = int(grades.max()) if len(grades) else 0
    if highest > settings.maxgrade > 0:
        raise ParameterError(f"{settings.owner}: the qrels hold grade {highest}, above maxgrade={settings.maxgrade}")
    maxgrade = float(settings.maxgrade or max(highest, 1))  # maxgrade=0: the highest grade found
    keep = (view.pair_grade > 0) & examined[view.pair_row]
    rows, subtopics, grades = view.pair_row[keep], view.pair_subtopic[keep], view.pair_grade[keep]
    # by subtopic, each subtopic's in examination order (pairs come by row)
    order = stable_order(subtopics)
    rows, subtopics, grades = rows[order], subtopics[order], grades[order]
    earlier = place_in_runs(subtopics)  # nrel(c_i, j-1): all kept pairs have rel > 0
    rel = grades / maxgrade
    gain = np.power(settings.gamma, earlier) * theta[subtopics] * rel
    if settings.cap:
        # raw height before d_j, summed in integer grades so that "reached MaxHeight" is exact
        before = running_count(grades, run_starts(subtopics)) - grades
        gain = np.where(before < settings.maxheight * maxgrade, gain, 0.0)
    else:
        gain = gain * np.exp(-settings.decay_a * ranked.position[rows] + settings.decay_b)
    return view, rows, subtopics, rel, gain


def _speeds(ranked: RankedTopics, row_gain: np.ndarray, step: np.ndarray | None, examined: np.ndarray,
            settings: CubeSettings) -> tuple[np.ndarray, np.ndarray]:
    """CT and ACT per topic from each row's gain and time (rows in examination order)."""
    n_topics = ranked.n_topics
    rows = np.flatnonzero(examined)
    topic = ranked.row_topic[rows]
    gain_so_far = running_sum(row_gain[rows], topic)
    time_so_far = ranked.position[rows].astype(np.float64) if step is None else running_sum(step[rows], topic)
    if np.any(time_so_far <= 0):
        raise ParameterError(f"{settings.owner}: the time model gives 0 seconds for the first documents "
                             "(summary_time, read_intercept and the lengths are all 0); CT is undefined")
    speed = gain_so_far / time_so_far
    n_examined = np.bincount(topic, minlength=n_topics)
    ct = np.zeros(n_topics)
    has = n_examined > 0
    last = np.cumsum(n_examined) - 1
    ct[has] = speed[last[has]]
    act = divide_or_zero(np.bincount(topic, weights=speed, minlength=n_topics), n_examined)
    return ct, act


def _examined(ranked: RankedTopics, settings: CubeSettings) -> np.ndarray:
    return np.ones(len(ranked.position), dtype=bool) if settings.cutoff is None else ranked.position <= settings.cutoff


def _paper(ranked: RankedTopics, settings: CubeSettings, context: EvaluationContext, measure: Measure):
    examined = _examined(ranked, settings)
    _, rows, _, _, gain = _paper_pairs(ranked, settings, context, measure, examined)
    row_gain = np.bincount(rows, weights=gain, minlength=len(ranked.position))
    step = _row_step_time(ranked, settings, context, measure, examined)
    return _speeds(ranked, row_gain, step, examined, settings)


# ---- compat=trec-dd: the TREC DD 2017 jig ----------------------------------------------------

def _row_iterations(ranked: RankedTopics, settings: CubeSettings, context: EvaluationContext, measure: Measure):
    if settings.iteration > 0:
        return (ranked.position - 1) // settings.iteration
    iterations = context.require("iterations", measure)

    def find() -> np.ndarray:
        found = iterations.lookup_ranked(ranked)
        if np.any(found < 0):
            first = int(np.flatnonzero(found < 0)[0])
            source = iterations.source
            raise ParameterError(f"{measure}: the iterations ({source}) do not list document "
                                 f"{str(ranked.docno[first])!r} of topic "
                                 f"{str(ranked.topic_ids[ranked.row_topic[first]])!r}")
        return found

    return context.memo.get(("iterations", iterations), find, ranking=ranked)


def _add_empty_iterations(accumulated: np.ndarray, documents: np.ndarray, seq_key: np.ndarray, seq_topic: np.ndarray,
                          total: np.ndarray, span: np.ndarray, base: int, n_topics: int) -> None:
    """Count each walked iteration without documents as one non-relevant document (in place)."""
    all_topic = segment_of(offsets(span))
    all_iteration = place_in_segments(span)
    wanted = all_topic * base + all_iteration
    if len(seq_key):
        at = np.minimum(np.searchsorted(seq_key, wanted), len(seq_key) - 1)
        empty = seq_key[at] != wanted
    else:
        empty = np.ones(len(wanted), dtype=bool)
    if empty.any():
        gain_then = np.zeros(int(empty.sum()))
        if len(seq_key):
            before_index = np.searchsorted(seq_key, wanted[empty], side="left") - 1
            same_topic = (before_index >= 0) & (seq_topic[np.maximum(before_index, 0)] == all_topic[empty])
            gain_then = np.where(same_topic, total[np.maximum(before_index, 0)], 0.0)
        accumulated += np.bincount(all_topic[empty], weights=gain_then / DD_MAX_HEIGHT / (all_iteration[empty] + 1),
                                   minlength=n_topics)
        documents += np.bincount(all_topic[empty], minlength=n_topics)


def _trec_dd(ranked: RankedTopics, settings: CubeSettings, context: EvaluationContext, measure: Measure):
    n_rows, n_topics = int(ranked.ptr[-1]), ranked.n_topics
    if n_rows == 0:
        return np.zeros(n_topics), np.zeros(n_topics)
    iteration = _row_iterations(ranked, settings, context, measure)
    row_topic = ranked.row_topic
    # examination order: iteration by iteration, within one in evaluation order
    sequence = np.lexsort((ranked.position, iteration, row_topic))
    place = np.empty(n_rows, dtype=np.int64)
    place[sequence] = np.arange(n_rows)
    examined = None if settings.cutoff is None else iteration < settings.cutoff

    # subtopic judgements as the jig reads them (passage ratings summed, a rating of 0 counting 1), once for CT, ACT
    rel = ranked.judgements.qrels.rel
    view = context.memo.get("jig view", lambda: ranked.subtopic_view(aggregate="sum",
                                                                     grades=np.where(rel == 0, 1, rel)), ranking=ranked)
    weight = 1.0 / np.diff(view.subtopic_ptr)[view.subtopic_topic]
    rows, subtopics, rating = view.pair_row, view.pair_subtopic, view.pair_grade
    if examined is not None:
        keep = examined[rows]
        rows, subtopics, rating = rows[keep], subtopics[keep], rating[keep]
    # pairs by subtopic, each subtopic's in examination order
    order = np.argsort(subtopics * np.int64(n_rows) + place[rows], kind="stable")
    rows, subtopics, rating = rows[order], subtopics[order], rating[order].astype(np.float64)
    count = place_in_runs(subtopics)
    # gamma^(count+1) for each count, as np.power gives it element by element
    discount = np.power(settings.gamma, np.arange(1, int(count.max(initial=0)) + 2, dtype=np.int64))
    added = discount[count] * rating
    height = running_sum(added, subtopics)  # the jig's heights, added in the same order
    before = np.where(count > 0, np.r_[0.0, height[:-1]], 0.0)
    height_gain = np.where(before + added > DD_MAX_HEIGHT, DD_MAX_HEIGHT - before, added)
    if len(rating) == 0 or rating.min() >= 0:
        # heights never fall: a subtopic was full before if its height just before was
        full_before = before >= DD_MAX_HEIGHT
    else:
        full = (height >= DD_MAX_HEIGHT).astype(np.int64)
        full_before = running_count(full, run_starts(subtopics)) - full > 0
    pair_gain = np.where(full_before, 0.0, weight[subtopics] * height_gain)
    row_gain = np.bincount(rows, weights=pair_gain, minlength=n_rows)

    seq_rows = sequence if examined is None else sequence[examined[sequence]]
    seq_topic, seq_iteration, seq_gain = row_topic[seq_rows], iteration[seq_rows], row_gain[seq_rows]
    per_topic = np.bincount(seq_topic, minlength=n_topics)
    total = running_sum(seq_gain, seq_topic)  # the jig's total_gain after each document
    accumulated = np.bincount(seq_topic, weights=total / DD_MAX_HEIGHT / (seq_iteration + 1),
                              minlength=n_topics).astype(np.float64)
    documents = per_topic.astype(np.float64)

    # the jig walks iterations 0..M (M: the topic's last iteration), stopping at the cutoff
    last_iteration = np.full(n_topics, -1, dtype=np.int64)
    retrieved = np.flatnonzero(np.diff(ranked.ptr) > 0)
    last_iteration[retrieved] = np.maximum.reduceat(iteration, ranked.ptr[retrieved])
    walked = last_iteration + 1 if settings.cutoff is None else np.minimum(last_iteration + 1, settings.cutoff)
    final_total = np.zeros(n_topics)
    ends = np.cumsum(per_topic) - 1
    has_docs = documents > 0
    final_total[has_docs] = total[ends[has_docs]]

    # an iteration with no document is walked as one non-relevant document ("fill-non-relevant-doc")
    span = np.maximum(walked, 0)
    base = int(max(last_iteration.max(), 0)) + 2
    seq_key = seq_topic * base + seq_iteration  # ascending: rows run topic by topic, iteration by iteration
    # each examined (topic, iteration) is one the jig walks: as many distinct ones as it walks, none is empty
    if not (len(seq_key) and int(np.count_nonzero(seq_key[1:] != seq_key[:-1])) + 1 == int(span.sum())):
        _add_empty_iterations(accumulated, documents, seq_key, seq_topic, total, span, base, n_topics)

    return divide_or_zero(final_total / DD_MAX_HEIGHT, walked), divide_or_zero(accumulated, documents)


# ---- entry points ------------------------------------------------------------------------------

def cube_test_values(ranked: RankedTopics, measure: Measure, context: EvaluationContext | None = None):
    """CT and ACT of every topic for the settings of ``measure`` (a CT, ACT or variant measure).

    Returns
    -------
    (ndarray, ndarray)
        CT and ACT, one value per topic of ``ranked``.
    """
    context = context or EvaluationContext()
    settings = CubeSettings.from_measure(measure)
    # CT and ACT of the same settings come from one computation (both in one evaluation call)
    compute = _trec_dd if settings.compat == "trec-dd" else _paper
    return context.memo.get(("cube values", dataclasses.astuple(dataclasses.replace(settings, owner=""))),
                            lambda: compute(ranked, settings, context, measure), ranking=ranked)


def cube_test(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """The Cube Test: CT@t = Gain(D_t) / Time(D_t) (see the module notes for every parameter).

    Examples
    --------
    The spec's worked example: two subtopics, grades out of 4, documents examined in the
    order dA, dC (unjudged), dB, dD.

    >>> from pateval.api import evaluate
    >>> from pateval.core.qrels import Qrels
    >>> qrels = Qrels.from_records([("q", "s1", "dA", 2), ("q", "s2", "dA", 1), ("q", "s1", "dB", 3),
    ...                             ("q", "s2", "dD", 4)], fields=("topic", "subtopic", "docno", "rel"))
    >>> run = {"q": {"dA": 4.0, "dC": 3.0, "dB": 2.0, "dD": 1.0}}
    >>> evaluate(qrels, run, ["CT@4", "ACT@4"])["value"].tolist()
    [0.203125, 0.23828125]
    """
    return cube_test_values(ranked, measure, context)[0]


def average_cube_test(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """The average Cube Test: ACT@t = (1/t) sum_{s<=t} Gain(D_s) / Time(D_s)."""
    return cube_test_values(ranked, measure, context)[1]


def cube_gain_table(ranked: RankedTopics, measure: str | Measure,
                    context: EvaluationContext | None = None) -> pd.DataFrame:
    """The gain of every (examined document, subtopic) pair, to see where a CT value comes from.

    Only for the paper's definition (not ``compat=trec-dd``). Columns: ``topic, position,
    docno, subtopic, rel, gain``, ordered by topic and position.
    """
    measure = parse_measure(measure)
    context = context or EvaluationContext()
    settings = CubeSettings.from_measure(measure)
    if settings.compat != "none":
        raise ParameterError("cube_gain_table explains the paper's Cube Test; compat=trec-dd has its own heights")
    examined = _examined(ranked, settings)
    view, rows, subtopics, rel, gain = _paper_pairs(ranked, settings, context, measure, examined)
    frame = pd.DataFrame({"topic": ranked.topic_ids[ranked.row_topic[rows]], "position": ranked.position[rows],
                          "docno": ranked.docno[rows], "subtopic": view.subtopic_ids[subtopics], "rel": rel,
                          "gain": gain})
    return frame.sort_values(["topic", "position", "subtopic"], kind="mergesort").reset_index(drop=True)


# ---- declarations ----------------------------------------------------------------------------

FORMULA_CT = ("CT@t = Gain(D_t)/Time(D_t); Gain(d_j) = sum_i gamma^nrel(c_i,j-1) theta_i rel(d_j,c_i) "
              "I(sum_{k<j} rel(d_k,c_i) < MaxHeight)")
FORMULA_ACT = "ACT@t = (1/t) sum_{s<=t} Gain(D_s)/Time(D_s) (Gain, Time as CT)"
ALL_PARAMS = (GAMMA, MAXHEIGHT, CAP, DECAY_A, DECAY_B, IMPORTANCE, TIME, MAXGRADE, COMPAT, ITERATION, DEFAULT_LENGTH,
              *CALIBRATION)

# The paper's Table 2: importance l|p, time t|a|g, c (capped) | cbar (uncapped); each letter with its
# setting, its text, and the parameters and resources it adds
_IMPORTANCE_LETTER = {"l": ("log", "log-decay subtopic importance", ()),
                      "p": ("weights", "claim weights (theta_ind, theta_dep)", ("subtopic_weights",))}
_TIME_LETTER = {"t": ("rank", "top 10 documents", (), ()),
                "a": ("words150", "150 words per document", CALIBRATION, ()),
                "g": ("tbg", "TBG time", (DEFAULT_LENGTH, *CALIBRATION), ("doc_lengths",))}
_CAP_LETTER = {"c": (True, "capped", (MAXHEIGHT,)), "cbar": (False, "uncapped, position decay", (DECAY_A, DECAY_B))}
VARIANTS: dict[str, dict] = {}


def _variant_specs():
    for i, (importance, i_text, i_requires) in _IMPORTANCE_LETTER.items():
        for t, (time, t_text, t_params, t_requires) in _TIME_LETTER.items():
            for c, (cap, c_text, c_params) in _CAP_LETTER.items():
                name = f"CT_{i}{t}{c}"
                VARIANTS[name] = {"importance": importance, "time": time, "cap": cap}
                if t == "t":
                    VARIANTS[name]["cutoff"] = TOP_DOCUMENTS
                yield MeasureSpec(
                    name, "cube",
                    f"Cube Test, Table 2 variant {i}{t}{'c' if cap else 'c-bar'}: {i_text}, {t_text}, {c_text}",
                    f"CT(importance={importance},time={time},cap={'true' if cap else 'false'})"
                    + (f"@{TOP_DOCUMENTS}" if t == "t" else ""),
                    REFERENCE, cube_test, (GAMMA, MAXGRADE, *c_params, *t_params),
                    cutoff="none" if t == "t" else "optional",
                    requires=frozenset({"subtopics", *i_requires, *t_requires}))


register(
    MeasureSpec("CT", "cube", "Cube Test: speed of filling the subtopic cube (gain per unit of time)", FORMULA_CT,
                REFERENCE, cube_test, ALL_PARAMS, cutoff="optional", requires=frozenset({"subtopics"})),
    MeasureSpec("ACT", "cube", "average Cube Test: CT averaged over the first t documents", FORMULA_ACT,
                REFERENCE, average_cube_test, ALL_PARAMS, cutoff="optional", requires=frozenset({"subtopics"})),
    *_variant_specs(),
)
