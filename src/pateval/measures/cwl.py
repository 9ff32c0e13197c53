"""User-model measures of the C/W/L framework (cwl_eval), ERR (gdeval) and Compat.

C/W/L (Moffat et al. 2013, 2017; Azzopardi, Thomas & Moffat 2019): a user reads rank 1 and
goes on from rank i to i + 1 with probability C(i); the weight of rank i is
W(i) = prod_{j<i} C(j) / sum_{k=1..N} prod_{j<k} C(j), and the measure is the expected gain
per document read, sum_i W(i) g_i. As cwl_eval (and so ir_measures, which runs it), the
ranking is cut or padded with non-relevant documents to N = 1000 ranks, and the gain of a
judged document is its grade clipped to [min_rel, max_rel] and scaled to [0, 1]; unjudged
documents and negative grades gain 0. The measures differ in C(i), i the rank, T_i = T - (gain
in ranks <= i):

- ``INST(T)``: C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2 (Moffat et al., ADCS 2015);
- ``INSQ(T)``: C(i) = ((i + 2T - 1) / (i + 2T))^2 (Moffat et al., ADCS 2012);
- ``BPM(T)@k``: C(i) = 1 while the gain so far is below T and i < k, then 0 (static Bejewelled
  Player Model, Zhang et al., SIGIR 2017);
- ``SDCG@k``: C(i) = log2(i + 1) / log2(i + 2) for i < k, then 0 (scaled DCG: DCG@k over
  sum_{i<=k} 1 / log2(i + 1));
- ``NERR8@k``: C(i) = 1 - g_i for i < k, then 0; ``NERR9@k``: C(i) = (i / (i + 1)) (1 - g_i) for
  i < k, then 0; ``NERR10(p)``: C(i) = p (1 - g_i); ``NERR11(T)``: C(i) = ((i + 2T - 1) /
  (i + 2T))^2 (1 - g_i) (Azzopardi et al., "ERR is not C/W/L", ICTIR 2021).

``ERR@k`` is gdeval's expected reciprocal rank (Chapelle et al., CIKM 2009):
sum_{i<=k} (R_i / i) prod_{j<i} (1 - R_j), R = (2^g - 1) / 2^max_grade (gdeval: max_grade 4).

``Compat`` is Clarke, Vtyurina & Smucker's compatibility (TOIS 2021): the rank-biased overlap
(persistence p) of the ranking with the ideal one (the relevant documents by grade, then by
the run's score, 0 for those not retrieved), RBO = sum_{i<=D} p^(i-1) |I_i & R_i| / i over
sum_{i<=D} p^(i-1), D the longer of the two lists; ``normalize`` divides by the ideal's own
RBO. ir_measures breaks equal scores by docno ascending where pateval ranks ties by docno
descending (trec_eval's rule): runs with tied scores may differ.

References: cwl_eval (https://github.com/ireval/cwl) through ir_measures' cwl_eval
provider; gdeval.pl 1.2a (TREC Web track) through ir_measures' gdeval provider; ir_measures'
compat provider.
"""

from __future__ import annotations

import numpy as np

from ..core.ranking import RankedTopics
from ..core.segments import place_in_runs, run_lengths, run_starts
from ..errors import ParameterError
from ..validation import Interval
from .base import EvaluationContext, Measure, MeasureSpec, Param, divide_or_zero
from .registry import register

__all__ = ["cwl_measure", "expected_reciprocal_rank", "compatibility", "CWL_DEPTH"]

#: cwl_eval's ranking depth (ir_measures runs it with max_n=1000).
CWL_DEPTH = 1000
_BLOCK_CELLS = 1 << 21  # topics are scored in blocks of at most this many (topic, rank) cells
CWL_EVAL = "cwl_eval (Azzopardi, Thomas & Moffat, SIGIR 2019), ir_measures' cwl_eval provider"


def _continuation(name: str, measure: Measure, gains: np.ndarray) -> np.ndarray:
    """C(i) for ranks i = 1..N of a block of topics (rows) with gains ``gains``."""
    rank = np.arange(1, gains.shape[1] + 1, dtype=np.float64)
    k = measure.cutoff
    before_k = rank < k if k is not None else np.ones(len(rank), dtype=bool)
    if name == "INST":
        t = measure["T"]
        left = t - np.cumsum(gains, axis=1)
        return ((rank + t + left - 1.0) / (rank + t + left)) ** 2.0
    if name in ("INSQ", "NERR11"):
        t = measure["T"]
        c = np.broadcast_to(((rank + 2.0 * t - 1.0) / (rank + 2.0 * t)) ** 2.0, gains.shape)
        return c * (1.0 - gains) if name == "NERR11" else c
    if name == "BPM":
        return ((np.cumsum(gains, axis=1) < measure["T"]) & before_k).astype(np.float64)
    if name == "SDCG":
        return np.broadcast_to(np.where(before_k, np.log(rank + 1.0) / np.log(rank + 2.0), 0.0), gains.shape)
    if name == "NERR8":
        return np.where(before_k, 1.0 - gains, 0.0)
    if name == "NERR9":
        return np.where(before_k, (rank / (rank + 1.0)) * (1.0 - gains), 0.0)
    if name == "NERR10":
        return measure["p"] * (1.0 - gains)
    raise ValueError(name)


def cwl_measure(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """sum_i W(i) g_i, W from the measure's C(i) (see the module notes)."""
    low, high = measure["min_rel"], measure["max_rel"]
    if high <= low:
        raise ParameterError(f"{measure}: max_rel must be above min_rel")
    # the judged rows within the depth, their gains in [0, 1]
    topic = ranked.judged_topic
    position = ranked.judged_row - ranked.ptr[topic] + 1
    keep = position <= CWL_DEPTH
    gain = (np.clip(np.maximum(ranked.judged_grade[keep], 0), low, high) - low) / (high - low)
    topic, position = topic[keep], position[keep]
    values = np.zeros(ranked.n_topics, dtype=np.float64)
    n = CWL_DEPTH
    block = max(1, _BLOCK_CELLS // n)
    for start in range(0, ranked.n_topics, block):
        stop = min(start + block, ranked.n_topics)
        inside = (topic >= start) & (topic < stop)
        gains = np.zeros((stop - start, n), dtype=np.float64)
        gains[topic[inside] - start, position[inside] - 1] = gain[inside]
        c = _continuation(measure.spec.name, measure, gains)
        reach = np.ones_like(gains)
        reach[:, 1:] = np.cumprod(c[:, :-1], axis=1)  # prod_{j<i} C(j)
        first = 1.0 / reach.sum(axis=1)
        values[start:stop] = ((reach[:, 1:] * first[:, None]) * gains[:, 1:]).sum(axis=1) + first * gains[:, 0]
    return values


def expected_reciprocal_rank(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """ERR@k = sum_{i<=k} (R_i / i) prod_{j<i} (1 - R_j), R = (2^g - 1) / 2^max_grade."""
    top = measure["max_grade"]
    positive = ranked.judged_grade > 0
    rows, grades = ranked.judged_row[positive], ranked.judged_grade[positive]
    if (grades > top).any():
        raise ParameterError(f"{measure}: a grade above max_grade={top} ({int(grades.max())}); "
                             "give max_grade as the highest grade of the scale")
    topic = ranked.topic_of(rows)
    position = rows - ranked.ptr[topic] + 1
    if measure.cutoff is not None:
        keep = position <= measure.cutoff
        topic, position, grades = topic[keep], position[keep], grades[keep]
    r = (2.0 ** grades - 1.0) / 2.0 ** top
    # prod_{j<i} (1 - R_j) over the topic's earlier relevant rows (R < 1: the logs are finite)
    logs = np.log1p(-r)
    running = np.cumsum(logs)
    first = run_starts(topic)
    base = np.repeat(running[first] - logs[first], run_lengths(first, len(topic)))
    decay = np.exp(running - logs - base)
    return np.bincount(topic, weights=r * decay / position, minlength=ranked.n_topics).astype(np.float64)


def compatibility(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Compat = RBO_p(run, ideal) over the depth D (normalised by RBO_p(ideal, ideal))."""
    p = measure["p"]
    judgements = ranked.judgements
    relevant = judgements.grade > 0
    # each relevant judgement's score in the run (0 when not retrieved) and its ideal rank
    score = np.zeros(len(judgements.grade))
    place = np.full(len(judgements.grade), -1, dtype=np.int64)
    score[ranked.judged_entry] = ranked.score[ranked.judged_row]
    place[ranked.judged_entry] = ranked.judged_row
    entries = np.flatnonzero(relevant)
    order = np.lexsort((np.where(place[entries] >= 0, place[entries], np.iinfo(np.int64).max),
                        -score[entries], -judgements.grade[entries], judgements.topic_position[entries]))
    entries = entries[order]
    ideal_topic = judgements.topic_position[entries]
    ideal_rank = place_in_runs(ideal_topic) + 1
    n_ideal = np.bincount(ideal_topic, minlength=ranked.n_topics)
    depth = np.maximum(ranked.num_ret(), n_ideal)
    # |I_i & R_i| counts the relevant retrieved documents d with max(run rank, ideal rank) <= i
    retrieved = place[entries] >= 0
    run_rank = place[entries][retrieved] - ranked.ptr[ideal_topic[retrieved]] + 1
    both = np.maximum(run_rank, ideal_rank[retrieved])
    longest = int(depth.max(initial=0))
    i = np.arange(1, longest + 1, dtype=np.float64)
    weight = p ** (i - 1.0)
    harmonic = np.r_[0.0, np.cumsum(weight / i)]  # sum_{j<=n} p^(j-1)/j
    total_weight = np.r_[0.0, np.cumsum(weight)]
    topic = ideal_topic[retrieved]
    score_sum = np.bincount(topic, weights=harmonic[depth[topic]] - harmonic[both - 1], minlength=ranked.n_topics)
    value = divide_or_zero(score_sum, total_weight[depth])
    if measure["normalize"]:
        # the ideal against itself: min(i, |ideal|) / i at each rank
        best = total_weight[n_ideal] + n_ideal * (harmonic[depth] - harmonic[n_ideal])
        value = np.where(best > 0, divide_or_zero(score_sum, best), value)
    return value


T_PARAM = Param("T", float, 1.0, "the gain the user wants (total, on the [0, 1] gain scale)",
                interval=Interval(0, None, closed="neither"))
MIN_REL = Param("min_rel", int, 0, "the grade of gain 0 (lower grades are clipped to it)")
MAX_REL = Param("max_rel", int, 1, "the grade of gain 1 (higher grades are clipped to it; ir_measures requires it)")
NERR_P = Param("p", float, 0.9, "persistence", interval=Interval(0, 1))

_NERR = "Azzopardi et al., ICTIR 2021"
# name, summary, C(i), reference beside cwl_eval, the parameters before min_rel and max_rel, cutoff
for _name, _summary, _formula, _source, _params, _cutoff in (
    ("INST", "INST: adaptive expected rate of gain (C/W/L)", "C(i) = ((i+T+T_i-1)/(i+T+T_i))^2",
     "Moffat et al., ADCS 2015", (T_PARAM,), "none"),
    ("INSQ", "INSQ: expected rate of gain, static goal (C/W/L)", "C(i) = ((i+2T-1)/(i+2T))^2",
     "Moffat et al., ADCS 2012", (T_PARAM,), "none"),
    ("BPM", "static Bejewelled Player Model (C/W/L)", "C(i) = 1 while gain so far < T and i < k",
     "Zhang et al., SIGIR 2017", (T_PARAM,), "required"),
    ("SDCG", "scaled DCG: DCG@k over its largest value for binary gains (C/W/L)",
     "C(i) = log2(i+1)/log2(i+2) for i < k", "Jarvelin & Kekalainen, TOIS 2002", (), "required"),
    ("NERR8", "not-quite ERR, eq. 8 (C/W/L)", "C(i) = 1 - g_i for i < k", _NERR, (), "required"),
    ("NERR9", "not-quite ERR, eq. 9 (C/W/L)", "C(i) = (i/(i+1)) (1 - g_i) for i < k", _NERR, (), "required"),
    ("NERR10", "not-quite ERR, eq. 10 (C/W/L)", "C(i) = p (1 - g_i)", _NERR, (NERR_P,), "none"),
    ("NERR11", "not-quite ERR, eq. 11 (C/W/L)", "C(i) = ((i+2T-1)/(i+2T))^2 (1 - g_i)", _NERR, (T_PARAM,), "none"),
):
    register(MeasureSpec(_name, "standard", _summary, _formula, f"{CWL_EVAL}; {_source}", cwl_measure,
                         (*_params, MIN_REL, MAX_REL), cutoff=_cutoff))
register(
    MeasureSpec("ERR", "standard", "expected reciprocal rank (cascade model)",
                "ERR@k = sum_{i<=k} (R_i/i) prod_{j<i} (1-R_j), R = (2^g-1)/2^max_grade",
                "gdeval.pl 1.2a (TREC Web track), ir_measures' gdeval provider; Chapelle et al., CIKM 2009",
                expected_reciprocal_rank,
                (Param("max_grade", int, 4, "the highest grade of the scale (gdeval: 4)", interval=Interval(1, 30)),),
                cutoff="optional"),
    MeasureSpec("Compat", "standard", "compatibility: rank-biased overlap with the ideal ranking",
                "RBO_p(run, ideal) [/ RBO_p(ideal, ideal)]",
                "Clarke, Vtyurina & Smucker, TOIS 2021; ir_measures' compat provider", compatibility,
                (Param("p", float, 0.95, "persistence", interval=Interval(0, 1, closed="neither")),
                 Param("normalize", bool, True, "divide by the ideal ranking's own overlap"))),
)
