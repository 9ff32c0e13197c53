"""pytrec_eval's API, computed by pateval: ``import pateval.pytrec_eval as pytrec_eval``.

The names, arguments and results of pytrec_eval (``RelevanceEvaluator``,
``supported_measures``, ``supported_nicknames``, ``parse_qrel``, ``parse_run``,
``compute_aggregated_measure``), so that changing the import line is all a script, BEIR's
``EvaluateRetrieval.evaluate`` or MTEB's retrieval evaluator needs; nothing to compile.

>>> import pateval.pytrec_eval as pytrec_eval
>>> qrel = {"q1": {"d1": 0, "d2": 1, "d3": 0}, "q2": {"d2": 1, "d3": 1}}
>>> evaluator = pytrec_eval.RelevanceEvaluator(qrel, {"map", "ndcg_cut.3", "P.1"})
>>> evaluator.evaluate({"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {}, "q9": {"d1": 1.0}})
{'q1': {'map': 0.3333333333333333, 'P_1': 0.0, 'ndcg_cut_3': 0.5}, 'q2': {'map': 0.0, 'P_1': 0.0, 'ndcg_cut_3': 0.0}}

What is pytrec_eval's:

- the measure strings: trec_eval's measures (:data:`supported_measures`) and nicknames
  (:data:`supported_nicknames`: ``official``, ``set``, ``all_trec``), with parameters after
  ``.`` or ``_`` (``ndcg_cut.5,10``, ``ndcg_cut_10``, ``P_5``, ``iprec_at_recall.0.15``);
  the parameters of one measure given several times are united; a measure given without
  parameters anywhere gets trec_eval's defaults (``P``, ``ndcg_cut``, ``recall`` and
  ``map_cut`` at 5, 10, 15, 20, 30, 100, 200, 500, 1000);
- the keys of the results: trec_eval's names, the parameter in the name for the measures
  trec_eval prints so (``P_5``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``,
  ``Rprec_mult_0.20``), the bare name for the others (``map``, ``ndcg``, ``utility``);
- the topics: those of the run that have judgements (a topic whose judgements are an empty
  dict has none), in the run's order; a topic of the run with no document is scored as an
  empty ranking; per-topic values as trec_eval computes them (``gm_map`` and ``gm_bpref``
  are the logarithms that :func:`compute_aggregated_measure` averages, ``num_q`` is 1,
  ``runid`` and ``relstring`` 0);
- ``relevance_level`` (trec_eval's ``-l``) and ``judged_docs_only_flag`` (``-J``).

What is pateval's: the evaluation (:func:`pateval.evaluation.evaluate_runs` with
:class:`~pateval.options.EvaluationOptions`, the run and qrels built by
:meth:`Run.from_dict` and :meth:`Qrels.from_dict`), so scores are kept as 64-bit doubles
(pytrec_eval rounds them to 32 bits, which can tie documents), ``iprec_at_recall`` and
``11pt_avg`` take trec_eval 10.0's rounded cut-offs (pytrec_eval embeds 9.0.8's
truncation), and each :meth:`RelevanceEvaluator.evaluate` call is independent of the last.
docs/porting/pytrec_eval.md lists every difference.
"""

from __future__ import annotations

import collections
import math
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from ._lazy import pandas_deferred
from .errors import ParameterError, PatevalError
from .measures import parse_measure, parse_measures

# trec_eval's -m grammar, the one `pateval trec_eval` reads: the pateval measure of each trec_eval
# measure and parameter list, and which measures carry their parameter in their names
from .trec_eval_rules import NICKNAMES, expand_measure, print_order, syntax

if TYPE_CHECKING:
    from .core.qrels import Qrels

__all__ = ["RelevanceEvaluator", "supported_measures", "supported_nicknames", "parse_qrel", "parse_run",
           "compute_aggregated_measure"]

#: trec_eval's measures computed here: pytrec_eval's (trec_eval 9.0.8's ``all_trec``) and the
#: three trec_eval 10.0 added to ``all_trec`` (``rbp``, ``rbp_resid``, ``unj``).
supported_measures: set[str] = set(NICKNAMES["all_trec"])
_ALL_TREC_9 = supported_measures - {"rbp", "rbp_resid", "unj"}

#: trec_eval's nicknames of measure sets, as pytrec_eval lists them (trec_eval 9.0.8's).
supported_nicknames: dict[str, set[str]] = {name: set(_ALL_TREC_9 if name == "all_trec" else measures)
                                            for name, measures in NICKNAMES.items()}

# pytrec_eval's measure with numeric parameters written after '.' or '_': ndcg_cut_20,4, P.5
_PARAMETERS = r"[\._]([0-9]+(?:\.[0-9]+)?(?:,[0-9]+(?:\.[0-9]+)?)*)"
# the per-topic values trec_eval keeps for these (pateval's values are the measures themselves)
_LOGGED = ("gm_map", "gm_bpref")  # log(max(value, 0.00001)): their mean's exp is the geometric mean
_ZERO = ("runid", "relstring")  # text in trec_eval's output, 0 in pytrec_eval's results
_MIN_GEO_MEAN = 0.00001


def parse_run(f_run: Iterable[str]) -> dict[str, dict[str, float]]:
    """A TREC run's lines (``qid Q0 docno rank score tag``) as ``{qid: {docno: score}}``."""
    return _nested(f_run, "run", "qid Q0 docno rank score tag", 4, float)


def parse_qrel(f_qrel: Iterable[str]) -> dict[str, dict[str, int]]:
    """A TREC qrels file's lines (``qid 0 docno rel``) as ``{qid: {docno: rel}}``."""
    return _nested(f_qrel, "qrels", "qid iter docno rel", 3, int)


def _nested(lines: Iterable[str], kind: str, columns: str, value_column: int, value_type):
    """pytrec_eval's parsers take the open file's lines (not a path, as pateval's readers do),
    so they are read here: ``{qid: {docno: value}}``, a document twice for a query refused."""
    width = len(columns.split())
    nested: dict = collections.defaultdict(dict)
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if len(fields) != width:
            raise ValueError(f"{kind} line {number}: {len(fields)} fields, not {width} ({columns})")
        query_id, object_id = fields[0], fields[2]
        if object_id in nested[query_id]:
            raise ValueError(f"{kind} line {number}: document {object_id!r} twice for query {query_id!r}")
        nested[query_id][object_id] = value_type(fields[value_column])
    return nested


def compute_aggregated_measure(measure: str, values: Iterable[float]) -> float:
    """The value over all topics of per-topic values, as pytrec_eval aggregates them: the sum
    for ``num_*``, the exp of the mean for ``gm_*`` (per-topic values are logarithms), else the mean."""
    values = [float(v) for v in values]
    if measure.startswith("num_"):
        return math.fsum(values)
    if measure.startswith("gm_"):
        return math.exp(math.fsum(values) / len(values))
    return math.fsum(values) / len(values) if values else math.nan


def _expand_nicknames(measures: Iterable[str]) -> set[str]:
    result: set[str] = set()
    for measure in measures:
        if not isinstance(measure, str):
            raise TypeError(f"a measure must be a string such as 'map' or 'ndcg_cut.10', not {measure!r}")
        result.update(supported_nicknames.get(measure, {measure}))
    return result


def _combine_measures(measures: Iterable[str]) -> dict[str, list[str] | None]:
    """Each trec_eval measure asked for -> its parameters (None: trec_eval's defaults), as
    pytrec_eval combines them; a parameter list that is not numbers (``utility.2,-1,0,0``) is
    read as trec_eval's ``-m`` reads it."""
    params: dict[str, list[str] | None] = {}
    for measure in sorted(measures):
        if measure in supported_measures:
            params.setdefault(measure, None)
            continue
        base, dot, rest = measure.partition(".")
        match = next((m for m in (re.match(re.escape(b) + _PARAMETERS, measure) for b in _BY_LENGTH) if m), None)
        if match is not None and (match.end() == len(measure) or base not in supported_measures):
            base, given = measure[:match.start(1) - 1], match.group(1).split(",")
        elif dot and rest and base in supported_measures:
            given = [rest]  # trec_eval's own parameter syntax, kept whole
        else:
            if measure.split(".")[0] in supported_nicknames or measure.startswith("prefs") or "avgjg" in measure:
                raise ValueError(f"unsupported measure {measure}: it needs preference or judgement-group files, which "
                                 "pytrec_eval does not read (use `pateval trec_eval -R ...`)")
            raise ValueError(f"unsupported measure {measure} (supported: {', '.join(sorted(supported_measures))}, "
                             f"with parameters as in 'P.5,10' or 'ndcg_cut_10'; nicknames: "
                             f"{', '.join(sorted(supported_nicknames))})")
        known = params.get(base)
        if syntax(base) in ("cutoffs", "each"):  # one value each: P.5,10 is P_5 and P_10
            params[base] = sorted({*(known or ()), *given})
        elif known is not None and known != given:
            raise ValueError(f"measure {base} given with two parameter lists: {','.join(known)} and {','.join(given)}")
        else:
            params[base] = given
    return params


_BY_LENGTH = sorted(supported_measures, key=len, reverse=True)


def _trec_eval_measures(measures: Iterable[str]) -> dict[str, tuple[str, str]]:
    """pytrec_eval's key of each result -> (the trec_eval measure, pateval's measure name).

    The one place where trec_eval's names meet pateval's: `pateval trec_eval`'s expansion of
    one measure and its parameters (:func:`pateval.trec_eval_rules.expand_measure`)."""
    keys: dict[str, tuple[str, str]] = {}
    for base, given in _combine_measures(_expand_nicknames(measures)).items():
        if base in ("runid", "relstring", "num_q"):
            keys[base] = (base, "NumQ")  # runid and relstring: scored as a count, given as 0 (see _ZERO)
            continue
        written = f"{base}.{','.join(given)}" if given else base
        if syntax(base) == "text" and given and not all("=" in x for x in given):
            raise ValueError(f"measure {written}: trec_eval's {base} takes grade=gain pairs ({base}.1=3,2=9), not "
                             f"numbers; {base} alone takes the grades as gains")
        try:  # each measure made, its parameters checked
            expanded = expand_measure(base, ",".join(given) if given else None, num_docs=None)
        except PatevalError as error:  # the trec_eval grammar's refusal: pytrec_eval raises ValueError
            raise ValueError(f"measure {written}: {error}") from None
        listed = syntax(base) in ("cutoffs", "each")  # P.5,10: P_5 and P_10
        keys.update({printed if listed else base: (base, ours) for ours, printed in expanded.items()})
    return keys


def _check_pairs(value: object, what: str, kind: str) -> None:
    if not isinstance(value, Mapping):
        raise TypeError(f"{what} must be a dict {{query_id: {{doc_id: {kind}}}}}, not {type(value).__name__}")


class RelevanceEvaluator:
    """Scores runs against the judgements ``query_relevance`` with trec_eval's ``measures``.

    Parameters
    ----------
    query_relevance : dict
        ``{query_id: {doc_id: relevance}}``, relevance an integer (negative: judged, but
        not as relevant or non-relevant; trec_eval's convention).
    measures : iterable of str
        trec_eval measures and nicknames (see the module's documentation).
    relevance_level : int, default 1
        The least grade counted as relevant (trec_eval's ``-l``).
    judged_docs_only_flag : bool, default False
        Remove the documents without a judgement from each ranking first (trec_eval's ``-J``).
    """

    def __init__(self, query_relevance: Mapping[str, Mapping[str, int]], measures: Iterable[str],
                 relevance_level: int = 1, judged_docs_only_flag: bool = False) -> None:
        if isinstance(measures, str):
            raise TypeError(f"measures must be a set of measure names, such as {{{measures!r}}}, not a string")
        _check_pairs(query_relevance, "query_relevance", "relevance")
        if isinstance(relevance_level, bool) or not isinstance(relevance_level, int):
            raise TypeError(f"relevance_level must be an integer, not {relevance_level!r}")
        if relevance_level < 1:
            raise TypeError(f"Argument relevance_level should be positive (got {relevance_level}).")
        self._keys = _trec_eval_measures(measures)
        self._relevance_level = relevance_level
        self._judged_only = bool(judged_docs_only_flag)
        with pandas_deferred():  # pyarrow would import pandas for nothing (a third of a second)
            self._groups, self._group_of = _qrels_groups(query_relevance)

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """``{query_id: {measure: value}}`` of the run ``scores`` (``{query_id: {doc_id: score}}``),
        for its queries that have judgements, in its order."""
        _check_pairs(scores, "the run (scores)", "score")
        if not all(type(topic) is str for topic in scores):
            bad = next(topic for topic in scores if type(topic) is not str)
            raise TypeError(f"query ids must be strings; got {bad!r} in the run")
        # the run's topics that have judgements, by group of judgements: converted and scored group
        # by group (tuning.DICT_GROUP_TOPICS), each topic's values being its own
        blocks: dict[int, dict[str, Mapping[str, float]]] = {}
        for topic, docs in scores.items():
            group = self._group_of.get(topic)
            if group is not None:
                blocks.setdefault(group, {})[topic] = docs
        if not self._keys:
            return {topic: {} for topic in scores if topic in self._group_of}
        from .core.run import NestedRun

        results: dict[str, dict[str, float]] = {}
        with pandas_deferred():
            for group, block in sorted(blocks.items()):
                run = NestedRun.of(block, name="run", source="<pytrec_eval run>")
                results.update(self._scores(self._groups[group], run, list(block)))
        return {topic: results[topic] for topic in scores if topic in results}

    def _scores(self, qrels: Qrels, run, order: list) -> dict[str, dict[str, float]]:
        import numpy as np

        from .evaluation import evaluate_runs
        from .options import EvaluationOptions

        measures = list(dict.fromkeys(ours for _, ours in self._keys.values()))
        # compat="trec_eval": trec_eval's NaN of interpolated precision on an empty ranking
        options = EvaluationOptions(measures=measures, relevance_level=self._relevance_level,
                                    judged_only=self._judged_only, block_bytes=0, compat="trec_eval")
        scored = evaluate_runs(qrels, [run], options).scored[0]
        n = len(scored.topics)
        values = scored.values.reshape(len(scored.measures), n)
        # the rows come in the order of the distinct measures (-l may rename them: AP(rel=2))
        distinct = [str(m) for m in parse_measures(measures)]
        by_name = {name: values[distinct.index(str(parse_measure(name)))] for name in measures}
        keys = sorted(self._keys, key=print_order)
        columns = []
        for key in keys:
            base, ours = self._keys[key]
            column = by_name[ours]
            if base in _LOGGED:
                column = np.log(np.maximum(column, _MIN_GEO_MEAN))
            elif base in _ZERO:
                column = np.zeros(n)
            columns.append(column)
        rows = np.vstack(columns).T.tolist() if columns else [[] for _ in range(n)]
        at = dict(zip(scored.topics, rows, strict=True))
        return {topic: dict(zip(keys, at[topic], strict=True)) for topic in order if topic in at}


def _qrels_groups(query_relevance: Mapping[str, Mapping[str, int]]) -> tuple[list[Qrels], dict[str, int]]:
    """The judgements of the topics that have some (pytrec_eval drops an empty dict's topic),
    as Qrels of groups of :data:`~pateval.tuning.DICT_GROUP_TOPICS` topics, and each topic's group."""
    from .core.qrels import Qrels, is_fractional
    from .tuning import DICT_GROUP_TOPICS

    for topic, docs in query_relevance.items():
        if not isinstance(topic, str):
            raise TypeError(f"query ids must be strings; got {topic!r} in query_relevance")
        _check_pairs(docs, f"query_relevance[{topic!r}]", "relevance")
    judged = [topic for topic, docs in query_relevance.items() if len(docs) > 0]
    groups, group_of = [], {}
    for start in range(0, len(judged), DICT_GROUP_TOPICS):
        topics = judged[start:start + DICT_GROUP_TOPICS]
        group = Qrels.from_dict({topic: query_relevance[topic] for topic in topics}, source="<pytrec_eval qrels>")
        if is_fractional(group.rel):  # pytrec_eval's qrels are ints (pateval.evaluate takes fractions)
            raise ParameterError("relevance grades must be integers; the qrels hold fractional grades")
        groups.append(group)
        group_of.update(dict.fromkeys(topics, len(groups) - 1))
    return groups, group_of
