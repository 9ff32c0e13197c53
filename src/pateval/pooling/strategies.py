"""Judging orders: which documents of the runs are judged, and in what order.

Every way of pooling is a :class:`JudgingOrder`: given the runs (a :class:`RunStack`), the
judgements as they arrive (``relevant``: one flag per (topic, document) pair, or None for
the orders that do not use them) and a budget of judgements per topic, it gives each
topic's documents in the order they are judged. ``pateval pool build`` writes that order as
a pool; the budget simulation replays it against complete qrels. The orders:

- :class:`DepthOrder`, depth-k (TREC): every document some run ranks in its first ``k``, by
  the best rank any run gives it, then by how many runs retrieved it (more first), then by
  docno descending (the ranking step's tie rule); judged to the end, it is the depth-k pool;
- :class:`WeightedOrder`, the pools of trectools' ``TrecPoolMaker``: each document weighted
  by RBP, ``(1 - p) p^(rank - 1)``, summed or maxed over the runs, or by RRF,
  ``sum 1 / (k + rank)``; the ``budget`` heaviest documents (trectools' ``topX``), equal
  weights by docno ascending (as trectools); or by the AP-prior of Aslam, Pavlu and Savell
  (2003), the sampling distribution of statAP (Aslam, Pavlu and Yilmaz 2006): a run of ``Z``
  documents gives the one at ``rank`` ``(1 + 1/rank + 1/(rank+1) + ... + 1/Z) / (2Z)`` (its
  weights sum to 1), summed over the runs -- every document the runs retrieved, heaviest
  first, so that strata by place sample documents with probabilities falling with their prior;
- :class:`FusedOrder`, Take@N: the first ``budget`` documents of a fused ranking (CombSUM,
  CombMNZ, RRF, Borda: :mod:`~pateval.pooling.fusion`);
- :class:`MoveToFront` (Cormack, Palmer and Clarke 1998): all runs start with equal
  priority; the run of highest priority (the first such run in the order given) gives its
  next unjudged document; a non-relevant one lowers the run's priority by one;
- :class:`MaxMean` (Losada, Parapar and Barreiro 2016, 2017, "MM" and "MM-NS"): each run's
  chance to give a relevant document is Beta(1 + rel, 1 + nonrel) over the judgements of
  its documents so far; the run of highest posterior mean gives its next unjudged
  document. Non-stationary (NS): before each update, the run's counts are multiplied by
  ``discount`` (< 1), so recent judgements weigh more -- a run's yield falls with depth.

Ranks are places in each run's ranking (:func:`~pateval.pooling.stack.stack_runs`; pools
rank equal scores by docno ascending, as trectools, unless told otherwise).
A document the judge does not know (absent from the qrels) is judged non-relevant.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..core.segments import offsets, place_in_segments
from ..errors import ParameterError
from ..validation import check_choice
from .fusion import fuse_stack
from .names import FUSION_METHODS, NORMALISATIONS, POOL_METHODS, RBP_AGGREGATES
from .stack import RunStack

__all__ = ["JudgingOrder", "Ordered", "DepthOrder", "WeightedOrder", "FusedOrder", "MoveToFront", "MaxMean",
           "make_order"]


@dataclass(frozen=True)
class Ordered:
    """Each topic's documents in judging order: ``pair`` (into ``stack.pairs()``) at
    ``ptr[t]:ptr[t+1]`` for topic ``t``; ``considered``: the rows whose runs count as
    contributing (the rows the order looked at)."""

    pair: np.ndarray
    ptr: np.ndarray
    considered: np.ndarray


class JudgingOrder(Protocol):
    """A way of choosing and ordering the documents to judge (see the module)."""

    @property
    def name(self) -> str: ...

    @property
    def adaptive(self) -> bool: ...

    def order(self, stack: RunStack, relevant: np.ndarray | None, budget: int | None) -> Ordered:
        """Each topic's first ``budget`` documents to judge (None: all it would judge);
        ``relevant`` flags each pair of ``stack.pairs()`` (needed when ``adaptive``)."""
        ...


def _positive(name: str, value: int | None) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1):
        raise ParameterError(f"{name} must be a positive integer, not {value!r}")


def _rank_pairs(stack: RunStack, keys: tuple[np.ndarray, ...], budget: int | None, chosen: np.ndarray | None = None,
                considered: np.ndarray | None = None) -> Ordered:
    """Pairs ``chosen`` (default: all) sorted per topic by ``keys`` (lexsort keys, last the most
    significant after the topic), cut to ``budget`` per topic; ``considered`` rows default to all."""
    topic, _, inverse = stack.pairs()
    ids = np.arange(len(topic)) if chosen is None else np.flatnonzero(chosen)
    order = ids[np.lexsort(tuple(k[ids] for k in keys) + (topic[ids],))]
    counts = np.bincount(topic[order], minlength=stack.n_topics)
    if budget is not None:
        keep = place_in_segments(counts, first=1) <= budget
        order = order[keep]
        counts = np.bincount(topic[order], minlength=stack.n_topics)
    return Ordered(order, offsets(counts), np.ones(len(inverse), dtype=bool) if considered is None else considered)


@dataclass(frozen=True)
class DepthOrder:
    """Depth-k pooling (see the module); ``k`` None: every retrieved document."""

    k: int | None = 10
    name: str = "depth"
    adaptive: bool = False

    def __post_init__(self) -> None:
        _positive("depth k", self.k)

    def order(self, stack: RunStack, relevant: np.ndarray | None, budget: int | None) -> Ordered:
        topic, doc, inverse = stack.pairs()
        considered = np.ones(len(inverse), dtype=bool) if self.k is None else stack.position <= self.k
        best = np.full(len(topic), np.iinfo(np.int64).max)
        np.minimum.at(best, inverse[considered], stack.position[considered])
        runs = np.bincount(inverse[considered], minlength=len(topic))
        return _rank_pairs(stack, (stack.doc_ranks()[doc], -runs, best), budget, runs > 0, considered)


@dataclass(frozen=True)
class WeightedOrder:
    """trectools' RBP- and RRF-weighted pools, and the AP-prior order (see the module)."""

    weighting: str = "rbp"
    p: float = 0.8
    aggregate: str = "sum"
    k: float = 60.0
    name: str = "rbp"
    adaptive: bool = False

    def __post_init__(self) -> None:
        check_choice("weighting", self.weighting, ("rbp", "rrf", "ap"))
        check_choice("RBP aggregate", self.aggregate, RBP_AGGREGATES)
        if not 0 < self.p < 1:
            raise ParameterError(f"RBP's p must be in (0, 1), not {self.p}")
        if not self.k >= 0:
            raise ParameterError(f"RRF's k must be at least 0, not {self.k}")

    def weights(self, stack: RunStack) -> np.ndarray:
        """Each pair's weight."""
        topic, _, inverse = stack.pairs()
        if self.weighting == "rrf":
            return np.bincount(inverse, weights=1.0 / (self.k + stack.position), minlength=len(topic))
        if self.weighting == "ap":
            length = stack.segment_lengths()[stack.run, stack.topic]  # Z: the documents of the row's run and topic
            harmonic = np.r_[0.0, np.cumsum(1.0 / np.arange(1, int(length.max(initial=0)) + 1))]
            row = (1.0 + harmonic[length] - harmonic[stack.position - 1]) / (2.0 * length)
            return np.bincount(inverse, weights=row, minlength=len(topic))
        row = (1.0 - self.p) * self.p ** (stack.position - 1.0)
        if self.aggregate == "sum":
            return np.bincount(inverse, weights=row, minlength=len(topic))
        best = np.zeros(len(topic))
        np.maximum.at(best, inverse, row)
        return best

    def order(self, stack: RunStack, relevant: np.ndarray | None, budget: int | None) -> Ordered:
        _, doc, _ = stack.pairs()
        return _rank_pairs(stack, (stack.doc_ranks()[doc], -self.weights(stack)), budget)


@dataclass(frozen=True)
class FusedOrder:
    """Take@N over a fused ranking."""

    method: str = "rrf"
    norm: str | None = None
    k: float = 60.0
    name: str = "fused"
    adaptive: bool = False

    def __post_init__(self) -> None:
        check_choice("fusion method", self.method, FUSION_METHODS)
        if self.norm is not None:
            check_choice("normalisation", self.norm, NORMALISATIONS)

    def order(self, stack: RunStack, relevant: np.ndarray | None, budget: int | None) -> Ordered:
        fused = fuse_stack(stack, self.method, norm=self.norm, k=self.k)
        topic, doc, _ = stack.pairs()
        place = np.empty(len(topic), dtype=np.int64)  # each pair's place in the fused ranking
        pair_of = np.searchsorted(topic * max(len(stack.doc_ids), 1) + doc,
                                  fused.topic * max(len(stack.doc_ids), 1) + fused.doc)
        place[pair_of] = np.arange(len(pair_of))
        return _rank_pairs(stack, (place,), budget)


def _topic_lists(stack: RunStack, depth: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows considered (within ``depth``), and their (run, topic) segments' offsets."""
    _, _, inverse = stack.pairs()
    considered = np.ones(len(inverse), dtype=bool) if depth is None else stack.position <= depth
    lengths = np.bincount(stack.segment()[considered], minlength=stack.n_runs * stack.n_topics)
    return considered, inverse[considered], offsets(lengths)


class _Adaptive:
    """The loop shared by the adaptive orders: per topic, ask :meth:`_pick` for a run, judge
    its next unjudged document, tell :meth:`_learn` the outcome."""

    depth: int | None
    name: str
    adaptive = True

    def order(self, stack: RunStack, relevant: np.ndarray | None, budget: int | None) -> Ordered:
        if relevant is None:
            raise ParameterError(f"the {self.name} order uses judgements as they arrive: give qrels")
        considered, pairs, ptr = _topic_lists(stack, self.depth)
        n_runs, n_topics = stack.n_runs, stack.n_topics
        judged = np.zeros(len(relevant), dtype=bool)
        out: list[int] = []
        counts = np.zeros(n_topics, dtype=np.int64)
        for t in range(n_topics):
            lists = [pairs[ptr[r * n_topics + t]:ptr[r * n_topics + t + 1]].tolist() for r in range(n_runs)]
            cursor = [0] * n_runs
            active = [bool(lst) for lst in lists]
            state = self._start(n_runs)
            taken = 0
            while any(active) and (budget is None or taken < budget):
                r = self._pick(state, active)
                lst = lists[r]
                while cursor[r] < len(lst) and judged[lst[cursor[r]]]:
                    self._seen(state, r, bool(relevant[lst[cursor[r]]]))
                    cursor[r] += 1
                if cursor[r] == len(lst):
                    active[r] = False
                    continue
                pair = lst[cursor[r]]
                cursor[r] += 1
                judged[pair] = True
                out.append(pair)
                taken += 1
                self._learn(state, r, bool(relevant[pair]))
            counts[t] = taken
        return Ordered(np.asarray(out, dtype=np.int64), offsets(counts), considered)

    def _start(self, n_runs: int) -> list[np.ndarray]:
        raise NotImplementedError

    def _pick(self, state: list[np.ndarray], active: list[bool]) -> int:
        raise NotImplementedError

    def _learn(self, state: list[np.ndarray], run: int, relevant: bool) -> None:
        raise NotImplementedError

    def _seen(self, state: list[np.ndarray], run: int, relevant: bool) -> None:
        """A document of ``run`` judged already (from another run): nothing by default."""


@dataclass(frozen=True)
class MoveToFront(_Adaptive):
    """Move-to-front (Cormack, Palmer and Clarke 1998), see the module."""

    depth: int | None = None
    name: str = "mtf"

    def __post_init__(self) -> None:
        _positive("depth", self.depth)

    def order(self, stack: RunStack, relevant: np.ndarray | None, budget: int | None) -> Ordered:
        """The loop of :class:`_Adaptive` in rounds, without a choice per judgement: the
        active runs all share the highest priority when a round starts (each run left its
        last round on a non-relevant document, one step down), so the round takes the runs
        in the order given, each judging its next unjudged documents up to and including
        its first non-relevant one."""
        if relevant is None:
            raise ParameterError(f"the {self.name} order uses judgements as they arrive: give qrels")
        considered, pairs, ptr = _topic_lists(stack, self.depth)
        n_runs, n_topics = stack.n_runs, stack.n_topics
        judged = np.zeros(len(relevant), dtype=bool).tolist()
        is_relevant = relevant.tolist()
        pair_list, bounds = pairs.tolist(), ptr.tolist()
        limit = budget if budget is not None else len(pair_list) + 1
        out: list[int] = []
        counts = np.zeros(n_topics, dtype=np.int64)
        for t in range(n_topics):
            cursor = [bounds[r * n_topics + t] for r in range(n_runs)]
            end = [bounds[r * n_topics + t + 1] for r in range(n_runs)]
            active = [r for r in range(n_runs) if cursor[r] < end[r]]
            taken = 0
            while active and taken < limit:
                still = []
                for r in active:
                    at, stop = cursor[r], end[r]
                    while taken < limit:
                        while at < stop and judged[pair_list[at]]:
                            at += 1
                        if at == stop:
                            break
                        pair = pair_list[at]
                        at += 1
                        judged[pair] = True
                        out.append(pair)
                        taken += 1
                        if not is_relevant[pair]:
                            break
                    cursor[r] = at
                    if at < stop:
                        still.append(r)
                active = still
            counts[t] = taken
        return Ordered(np.asarray(out, dtype=np.int64), offsets(counts), considered)

    def _start(self, n_runs: int) -> list[np.ndarray]:
        return [np.zeros(n_runs)]

    def _pick(self, state: list[np.ndarray], active: list[bool]) -> int:
        priority = np.where(active, state[0], -np.inf)
        return int(np.argmax(priority))

    def _learn(self, state: list[np.ndarray], run: int, relevant: bool) -> None:
        if not relevant:
            state[0][run] -= 1


@dataclass(frozen=True)
class MaxMean(_Adaptive):
    """The Bayesian bandit of Losada, Parapar and Barreiro: MM (``discount=1``) and MM-NS."""

    depth: int | None = None
    discount: float = 0.9
    name: str = "mm-ns"

    def __post_init__(self) -> None:
        _positive("depth", self.depth)
        if not 0 < self.discount <= 1:
            raise ParameterError(f"the discount must be in (0, 1], not {self.discount}")

    def _start(self, n_runs: int) -> list[np.ndarray]:
        return [np.zeros(n_runs), np.zeros(n_runs)]  # relevant, non-relevant (discounted counts)

    def _pick(self, state: list[np.ndarray], active: list[bool]) -> int:
        rel, non = state
        mean = np.where(active, (1.0 + rel) / (2.0 + rel + non), -np.inf)
        return int(np.argmax(mean))

    def _learn(self, state: list[np.ndarray], run: int, relevant: bool) -> None:
        rel, non = state
        rel[run] = self.discount * rel[run] + relevant
        non[run] = self.discount * non[run] + (not relevant)

    _seen = _learn


def make_order(method: str, *, depth: int | None = 10, p: float = 0.8, aggregate: str = "sum", k: float = 60.0,
               fusion: str = "rrf", norm: str | None = None, discount: float = 0.9) -> JudgingOrder:
    """The judging order ``method`` (:data:`~pateval.pooling.names.POOL_METHODS`) with its parameters."""
    check_choice("pool method", method, POOL_METHODS)
    if method == "depth":
        return DepthOrder(depth)
    if method in ("rbp", "rrf"):
        return WeightedOrder(method, p=p, aggregate=aggregate, k=k, name=method)
    if method == "ap-prior":
        return WeightedOrder("ap", name=method)
    if method == "fused":
        return FusedOrder(fusion, norm=norm, k=k)
    if method == "mtf":
        return MoveToFront(depth)
    return MaxMean(depth, discount=discount)
