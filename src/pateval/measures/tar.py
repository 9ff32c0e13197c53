"""Measures of technology-assisted review (TAR), as CLEF eHealth TAR's ``tar_eval.py`` computes them.

A TAR run ranks a topic's candidate documents (those a Boolean query retrieved) for
screening; the qrels judge every candidate. The measures weigh recall against the reading
effort, relative to N, the topic's candidates:

- N is the number of documents the qrels judge for the topic (grade >= 0, and below
  ``excluded`` when given), or ``collection`` less the qrels' documents with a negative
  grade or one of ``excluded`` and above, when ``collection`` is given (tar_eval 2018's task 1
  used 5000); R the documents judged relevant (``rel`` <= grade, below ``excluded``);
- documents the qrels grade ``excluded`` or above (tar_eval's 3 and 4: relevant abstracts
  the Boolean query did not retrieve) are removed from the ranking before anything is
  counted (``excluded=0``: none is); S, the documents shown, counts what is left, documents
  the qrels lack too; where S > N, tar_eval takes N' = S as the candidates (N' = max(N, S)).

The values are tar_eval's (CLEF-TAR ``scripts/tar_eval_2018.py``, task 2, every document
seen: the run's second column, the threshold action, is not read) except that tar_eval
rounds norm_last_rel and norm_area to 3 decimals per topic and skips topics without a
relevant document, where these measures give 0 (last_rel, num_shown: their counts;
total_cost: the cost of reading). tar_eval reads the run in file order: evaluate with
``--order file`` (order="file") to rank as it does.
"""

from __future__ import annotations

import numpy as np

from ..core.ranking import RankedTopics
from ..errors import ParameterError
from ..validation import Interval
from .base import EvaluationContext, Measure, MeasureSpec, Param, divide_or_zero
from .registry import register

__all__ = ["TAR_REFERENCE", "tar_counts"]

TAR_REFERENCE = ("E. Kanoulas, D. Li, L. Azzopardi and R. Spijker, CLEF 2017 / 2018 technologically assisted "
                 "reviews in empirical medicine overview, CLEF 2017-2018 working notes; reference implementation: "
                 "CLEF-TAR tar_eval.py (github.com/CLEF-TAR/tar, scripts/tar_eval_2018.py); WSS: A. M. Cohen et "
                 "al., JAMIA 2006; norm_area and loss measures: L. Azzopardi, CLEF-TAR")

REL = Param("rel", int, 1, "minimum grade counted as relevant", interval=Interval(1, None))
EXCLUDED = Param("excluded", int, 0, "grades from this one up are removed from ranking and candidates (CLEF-TAR: 3; "
                 "0 = none)", interval=Interval(0, None))
COLLECTION = Param("collection", int, 0, "N, the candidates per topic (0 = the documents the qrels judge)",
                   interval=Interval(0, None))
TAR_PARAMS = (REL, EXCLUDED, COLLECTION)

#: tar_eval's costs: a document shown costs 1, a relevant one shown 1 - 20, one missed 20.
_COST_SHOWN, _COST_MISSED = 1.0, 20.0
#: loss_e's b (tar_eval: 100).
_LOSS_B = 100.0


def _excluded(grade: np.ndarray, measure: Measure) -> np.ndarray:
    excluded = measure["excluded"]
    return (grade >= excluded) if excluded > 0 else np.zeros(len(grade), dtype=bool)


def tar_counts(ranked: RankedTopics, measure: Measure) -> dict[str, np.ndarray]:
    """Per topic: ``N`` (candidates), ``R`` (relevant), ``S`` (shown), ``F`` (relevant found),
    and ``rank``, ``topic`` of each relevant document found (rank among the documents shown), in
    ranking order."""
    level = measure["rel"]
    judgements = ranked.judgements
    gone = _excluded(judgements.grade, measure)
    relevant_judged = (judgements.grade >= level) & ~gone
    r = judgements.count(relevant_judged)
    if measure["collection"] > 0:
        n = measure["collection"] - judgements.count((judgements.grade < 0) | gone)
    else:
        n = judgements.count((judgements.grade >= 0) & ~gone)
    rows = ranked.judged_row
    grade = ranked.judged_grade
    row_gone = _excluded(grade, measure)
    removed = rows[row_gone]
    removed_topic = ranked.topic_of(removed)
    shown = ranked.num_ret() - np.bincount(removed_topic, minlength=ranked.n_topics)
    found = rows[(grade >= level) & ~row_gone]
    topic = ranked.topic_of(found)
    rank = ranked.position_of(found).astype(np.int64)
    if len(removed):  # ranks among the documents left: less the removed ones above (rows ascend: keys too)
        span = int(ranked.num_ret().max()) + 1
        key_removed = removed_topic.astype(np.int64) * span + ranked.position_of(removed)
        topic_key = topic.astype(np.int64) * span
        rank = rank - (np.searchsorted(key_removed, topic_key + rank) - np.searchsorted(key_removed, topic_key))
    f = np.bincount(topic, minlength=ranked.n_topics)
    return {"N": n.astype(np.int64), "R": r.astype(np.int64), "S": shown.astype(np.int64), "F": f.astype(np.int64),
            "rank": rank, "topic": topic}


def _last(topic: np.ndarray, rank: np.ndarray, n_topics: int) -> np.ndarray:
    out = np.zeros(n_topics, dtype=np.int64)
    np.maximum.at(out, topic, rank)
    return out


def _kth(topic: np.ndarray, rank: np.ndarray, k: np.ndarray, n_topics: int) -> np.ndarray:
    """Per topic, the rank of its ``k[t]``-th relevant document found (0 where ``k`` is 0 or
    fewer were found); ``topic, rank`` ascending (as :func:`tar_counts` gives them)."""
    counts = np.bincount(topic, minlength=n_topics)
    starts = np.cumsum(counts) - counts
    out = np.zeros(n_topics, dtype=np.int64)
    ok = (k > 0) & (k <= counts)
    out[ok] = rank[starts[ok] + k[ok] - 1]
    return out


def _n_prime(c: dict[str, np.ndarray]) -> np.ndarray:
    return np.maximum(c["N"], c["S"]).astype(np.float64)


def last_rel(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """The rank of the last relevant document found (0: none found); tar_eval's last_rel."""
    c = tar_counts(ranked, measure)
    return _last(c["topic"], c["rank"], ranked.n_topics).astype(np.float64)


def norm_last_rel(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """last_rel / N': the share of the candidates read to find the last relevant document found."""
    c = tar_counts(ranked, measure)
    value = divide_or_zero(_last(c["topic"], c["rank"], ranked.n_topics).astype(np.float64), _n_prime(c))
    return np.where(c["R"] > 0, value, 0.0)


def wss(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Work saved over sampling at ``recall`` 1 or 0.95 (Cohen et al. 2006, as tar_eval).

    WSS@100 = (N' - last_rel) / N' when every relevant document is found, else 0; WSS@95 =
    (N' - r95) / N' - 0.05, r95 the rank of the round(0.95 R)-th relevant document found
    (Python's round: half to even), 0 when fewer are found.
    """
    c = tar_counts(ranked, measure)
    n_prime = _n_prime(c)
    if measure["recall"] == 100:
        last = _last(c["topic"], c["rank"], ranked.n_topics)
        value = np.where(c["F"] >= c["R"], divide_or_zero(n_prime - last, n_prime), 0.0)
    else:
        need = np.round(c["R"].astype(np.float64) * 0.95).astype(np.int64)
        at = _kth(c["topic"], c["rank"], need, ranked.n_topics)
        value = np.where(c["F"] >= need, divide_or_zero(n_prime - at, n_prime) - 0.05, 0.0)
    return np.where(c["R"] > 0, value, 0.0)


def norm_area(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """The area under the gain curve (relevant found against documents shown, to N) over its best.

    area = sum over relevant found at rank p of (max(S, N) - p + 1/2); best = R M - R^2 / 2,
    M = N, or S when S > N (tar_eval's AreaBasedMeasures).
    """
    c = tar_counts(ranked, measure)
    width = _n_prime(c)
    area = np.bincount(c["topic"], weights=width[c["topic"]] - c["rank"] + 0.5, minlength=ranked.n_topics)
    r = c["R"].astype(np.float64)
    best = r * width - r * r / 2.0
    return np.where(c["R"] > 0, divide_or_zero(area, best), 0.0)


def loss(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """CLEF-TAR 2018's losses: loss_r = (1 - F/R)^2; loss_e = (b / N')^2 (S / (R + b))^2, b =
    100; loss_er = loss_r + loss_e."""
    c = tar_counts(ranked, measure)
    r = c["R"].astype(np.float64)
    loss_r = (1.0 - divide_or_zero(c["F"].astype(np.float64), r)) ** 2
    loss_e = (_LOSS_B / _n_prime(c)) ** 2 * (c["S"] / (r + _LOSS_B)) ** 2
    value = {"loss_r": loss_r, "loss_e": loss_e, "loss_er": loss_r + loss_e}[measure.spec.name]
    return np.where(c["R"] > 0, value, 0.0)


def total_cost(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """tar_eval's total_cost: 1 per document shown, 1 - 20 per relevant one shown, 20 per
    relevant one missed: (S - F) - 19 F + 20 (R - F)."""
    c = tar_counts(ranked, measure)
    f = c["F"].astype(np.float64)
    value = (c["S"] - f) * _COST_SHOWN + f * (_COST_SHOWN - _COST_MISSED) + (c["R"] - f) * _COST_MISSED
    return np.where(c["R"] > 0, value, 0.0)


def num_shown(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """S: the documents shown (the ranking less the excluded grades), tar_eval's num_shown."""
    return tar_counts(ranked, measure)["S"].astype(np.float64)


def recall_pct(ranked: RankedTopics, measure: Measure, context: EvaluationContext) -> np.ndarray:
    """Recall after screening k% of the candidates (tar_eval's recall@k%).

    The relevant documents found in the first m = round(N k / 100) documents shown, over R.
    When the ranking is shorter than m, tar_eval counts up to the last of the points
    round(N j / 100), j = 1..k, the ranking reaches (its gain curve is sampled there).
    """
    k = int(measure.cutoff or 0)  # the cutoff is required: parse_measure gives one
    if not 1 <= k <= 100:
        raise ParameterError(f"{measure}: k is a percentage of the candidates, 1 to 100")
    c = tar_counts(ranked, measure)
    n = c["N"].astype(np.float64)
    # (T, k) rising points round(N j / 100), j = 1..k (NumPy rounds half to even, as Python's round)
    points = np.round(n[:, None] * np.arange(1, k + 1, dtype=np.float64)[None, :] / 100.0).astype(np.int64)
    reached = np.where(points <= c["S"][:, None], points, 0).max(axis=1)
    within = c["rank"] <= reached[c["topic"]]
    found = np.bincount(c["topic"][within], minlength=ranked.n_topics).astype(np.float64)
    return np.where(c["R"] > 0, divide_or_zero(found, c["R"].astype(np.float64)), 0.0)


_RECALL = Param("recall", int, 100, "the recall level, in percent", choices=(95, 100))

register(
    MeasureSpec("recall_pct", "tar", "recall after screening k% of the candidates (tar_eval's recall@k%)",
                "recall_pct@k = |relevant in the first round(N k / 100) shown| / R", TAR_REFERENCE, recall_pct,
                TAR_PARAMS, cutoff="required"),
    MeasureSpec("WSS", "tar", "work saved over sampling at 95% or 100% recall (tar_eval's wss_95, wss_100)",
                "WSS(recall=100) = (N' - last_rel) / N' if all found; WSS(recall=95) = (N' - r95) / N' - 0.05",
                TAR_REFERENCE, wss, (_RECALL, *TAR_PARAMS)),
    MeasureSpec("last_rel", "tar", "rank of the last relevant document found (tar_eval's last_rel)",
                "last_rel = max rank of a relevant document found, 0 if none", TAR_REFERENCE, last_rel, TAR_PARAMS),
    MeasureSpec("norm_last_rel", "tar", "share of the candidates read to find the last relevant one",
                "norm_last_rel = last_rel / N', N' = max(N, S)", TAR_REFERENCE, norm_last_rel, TAR_PARAMS),
    MeasureSpec("norm_area", "tar", "area under the gain curve to N over its best (tar_eval's norm_area)",
                "norm_area = sum_found (max(S, N) - p + 1/2) / (R M - R^2 / 2)", TAR_REFERENCE, norm_area,
                TAR_PARAMS),
    MeasureSpec("loss_r", "tar", "CLEF-TAR recall loss", "loss_r = (1 - F / R)^2", TAR_REFERENCE, loss, TAR_PARAMS),
    MeasureSpec("loss_e", "tar", "CLEF-TAR effort loss", "loss_e = (100 / N')^2 (S / (R + 100))^2", TAR_REFERENCE,
                loss, TAR_PARAMS),
    MeasureSpec("loss_er", "tar", "CLEF-TAR loss: recall loss plus effort loss", "loss_er = loss_r + loss_e",
                TAR_REFERENCE, loss, TAR_PARAMS),
    MeasureSpec("total_cost", "tar", "tar_eval's cost of reading: shown 1, relevant shown -19, missed 20",
                "total_cost = (S - F) - 19 F + 20 (R - F)", TAR_REFERENCE, total_cost, TAR_PARAMS),
    MeasureSpec("num_shown", "tar", "documents shown: the ranking less the excluded grades (reading effort)",
                "num_shown = S", TAR_REFERENCE, num_shown, TAR_PARAMS, aggregate="sum", integer=True),
)
