"""trec_eval's rules in one place: its nicknames and the order of its measure table, the ``-m``
parameter grammar (each measure declares its own trec_eval names and syntax:
:class:`pateval.measures.base.TrecEval`), the ``-M`` and ``-J`` cuts, ``-c``'s stand-in
rankings, its values on rankings ``-J`` leaves empty, its sums of the ``all`` lines, relstring.

:func:`pateval.evaluation.evaluate_runs` applies the cuts for every evaluation and, with
``EvaluationOptions(compat="trec_eval")``, trec_eval's quirks (:func:`stand_in_run`,
:func:`zeroed_on_stand_in`, :func:`nan_on_empty_rankings`, :func:`complete_totals`,
:func:`trec_eval_summary_rows`), so that the library, ``pateval evaluate --compat trec_eval``
and ``pateval trec_eval`` give the same numbers; ``pateval trec_eval`` reads its command line
with the grammar here. Where and why trec_eval's rules differ from pateval's: docs/trec_eval-compat.md.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .errors import PatevalError

if TYPE_CHECKING:  # NumPy, Arrow and the core are imported where used: the command line's parser reads the tables
    import numpy as np

    from .core.qrels import Qrels
    from .core.ranking import RankedTopics
    from .core.run import Run
    from .measures import Measure, MeasureSpec

#: The trec_eval release whose command line and quirks these are.
TREC_EVAL_VERSION = "10.0"

# trec_eval's nicknames of measure sets (measures.c): each marks the measures it names
_ALL_TREC = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
             "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
             "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg",
             "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret")
_ALL_PREFS = ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
              "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
              "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp")
NICKNAMES = {"official": _ALL_TREC[:12],  # runid ... P
             "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
                     "set_relative_P", "set_map", "set_F"),
             "all_trec": _ALL_TREC, "all_prefs": _ALL_PREFS, "prefs": _ALL_PREFS[:8],  # runid ... prefs_avgjg
             "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")}
# -R: the judgements' formats; each but qrels is a side input of its own measures
REL_INFO_FORMATS = {"qrels": None, "prefs": "preferences", "qrels_prefs": "preferences",
                     "qrels_jg": "judgement_groups"}
# the order in which trec_eval prints its measures (its measure table, trec_eval 10.0 meas_init.c)
TREC_EVAL_ORDER = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                   "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
                   "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
                   "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
                   "num_nonrel_judged_ret", *_ALL_PREFS[2:], *NICKNAMES["qrels_jg"][2:], "yaap", "rbp", "rbp_resid",
                   "unj")


def syntax(base: str) -> str | None:
    """How trec_eval's measure ``base`` reads its parameters (None: not a trec_eval measure), as
    the measures declare it (:data:`pateval.measures.registry.TREC_EVAL_MEASURES`)."""
    from .measures.registry import TREC_EVAL_MEASURES

    return TREC_EVAL_MEASURES[base][2] if base in TREC_EVAL_MEASURES else None


def print_order(name: str) -> tuple[int, int, float]:
    """Where trec_eval prints a measure: in the order of its measure table, the values of a
    measure's cutoffs ascending (``P_5`` before ``P_10``, ``Rprec_mult_0.20`` before
    ``Rprec_mult_5.00``); measures trec_eval does not have come after."""
    if name in TREC_EVAL_ORDER:
        return (0, TREC_EVAL_ORDER.index(name), 0.0)
    bases = [base for base in TREC_EVAL_ORDER if name.startswith(base + "_")]
    if not bases:
        return (1, 0, 0.0)
    base = max(bases, key=len)  # map_cut_5 is map_cut's, not map's
    try:
        cutoff = float(name[len(base) + 1:])
    except ValueError:  # parameters that are no cutoff (utility_2,-1,0,0)
        cutoff = 0.0
    return (0, TREC_EVAL_ORDER.index(base), cutoff)


# ---- -m: measure names and their parameters ----------------------------------------------------

def marked_measures(given: list[str]) -> dict[str, str | None]:
    """trec_eval's -m arguments as the measures they mark, each with its parameters (the first
    given for a measure, as trec_eval takes them); nicknames mark every measure they name.
    :func:`measure_names` refuses the others trec_eval has not (reading the measures' declarations)."""
    marked: dict[str, str | None] = {}
    params: dict[str, str] = {}
    for text in given:
        name, dot, rest = text.partition(".")
        if dot and not rest:
            raise PatevalError(f"trec_eval -m {text}: improper measure parameters (nothing after '.')")
        if dot:
            params.setdefault(name, rest)
        marked.update(dict.fromkeys(NICKNAMES.get(name, (name,))))
    return {name: params.get(name) for name in marked}


def measure_names(marked: dict[str, str | None], *, num_docs: int | None) -> dict[str, str]:
    """pateval's name of each measure marked -> the name trec_eval prints for it."""
    names: dict[str, str] = {}
    for base, params in marked.items():
        if base in ("runid", "num_q", "relstring"):
            continue  # not measures of the topics (relstring is text: see relstrings)
        if syntax(base) is None:
            raise PatevalError(f"trec_eval -m {base}{'.' + params if params else ''}: illegal measure (not a "
                               "trec_eval measure)")
        names.update(expand_measure(base, params, num_docs=num_docs))
    return names


def _numbers(base: str, params: str) -> list[float]:
    try:
        return [float(x) for x in params.split(",")]
    except ValueError:
        raise PatevalError(f"trec_eval -m {base}.{params}: the parameters must be numbers") from None


def expand_measure(base: str, params: str | None, *, num_docs: int | None) -> dict[str, str]:
    """The pateval measures of one trec_eval measure with its parameters (or its defaults),
    each with the name trec_eval prints; the syntax is the measure's declaration's
    (:class:`pateval.measures.base.TrecEval`)."""
    from .measures import Measure
    from .measures.registry import TREC_EVAL_MEASURES

    spec, trec, how = TREC_EVAL_MEASURES[base]
    settings = dict(trec.defaults)
    printed = f"{base}_{params}" if params else base
    if how == "cutoffs":
        cutoffs = sorted({int(x) for x in _numbers(base, params)}) if params else trec.cutoffs
        if cutoffs[0] <= 0:
            raise PatevalError(f"trec_eval -m {base}.{params}: cutoffs must be positive")
        return {str(Measure.make(spec, settings, k)): f"{base}_{k}" for k in cutoffs}
    if how == "each":
        levels = sorted(set(_numbers(base, params))) if params else trec.levels
        return {str(Measure.make(spec, {**settings, trec.params[0]: x}, None)): f"{base}_{x:3.2f}" for x in levels}
    if params and how == "list":
        values = _numbers(base, params)
        if len(values) > len(trec.params):
            raise PatevalError(f"trec_eval -m {base}.{params}: at most {len(trec.params)} parameters")
        settings.update(zip(trec.params, values, strict=False))
    elif params and how == "numbers":
        settings[trec.params[0]] = ",".join(repr(x) for x in _numbers(base, params))
    elif params and how == "text":
        settings[trec.params[0]] = params
    elif params and how == "pairs":
        settings.update(_pairs(base, params, spec, trec.params))
    elif params:
        raise PatevalError(f"trec_eval -m {base}.{params}: {base} takes no parameters in pateval")
    if num_docs is not None and any(p.name == "num_docs" for p in spec.params):
        settings["num_docs"] = num_docs  # -N: utility's documents in the collection
    return {str(Measure.make(spec, settings, None)): printed}


def _pairs(base: str, params: str, spec: MeasureSpec, keys: tuple[str, ...]) -> dict[str, float]:
    pairs: dict[str, float] = {}
    for pair in params.split(","):
        key, equals, value = pair.partition("=")
        if not equals or key not in keys:  # each value named by its description's head (p=PERSISTENCE)
            what = " and ".join(f"{k}={spec.param(k).description.split(':')[0].upper()}" for k in keys)
            raise PatevalError(f"trec_eval -m {base}.{params}: pateval's {base} takes only {what}")
        pairs[key] = _numbers(base, value)[0]
    return pairs


# ---- -M and -J: the rankings cut ---------------------------------------------------------------

def _subset(run: Run, keep: np.ndarray) -> Run:
    """The run's rows where ``keep`` (topics kept even when left without rows)."""
    from .core.run import Run

    return Run(run.name, run.topic_ids, run.topic[keep], run.doc_ids, run.doc[keep], run.score[keep],
               run.rank[keep], source=run.source, notes=run.notes, metadata=run.metadata, resources=run.resources)


def top_rows_only(run: Run, max_documents: int, *, order: str = "score", preferences: bool = False) -> Run:
    """trec_eval -M: each topic's first ``max_documents`` rows in evaluation order, or in the
    preference measures' (``preferences``: by score, equal scores in ascending docno order, as
    trec_eval's preference code ranks them)."""
    import numpy as np

    from .core.ranking import evaluation_order
    from .core.segments import place_in_runs
    from .measures.prefs import ascending_docno_ties

    rows = evaluation_order(run, order="score" if preferences else order)
    if preferences:
        rows = rows[ascending_docno_ties(run.topic[rows], run.score[rows])]
    keep = np.zeros(len(run), dtype=bool)
    keep[rows[place_in_runs(run.topic[rows]) < max_documents]] = True
    return run if keep.all() else _subset(run, keep)


def judged_rows_only(run: Run, qrels: Qrels, *, doc_key: str = "publication") -> Run:
    """trec_eval -J: the rows whose document the qrels judge for the topic (a grade >= 0)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from .core.docids import document_keys

    judged = pa.array(np.asarray(qrels.rel) >= 0)
    qrels_keys = pc.binary_join_element_wise(pc.filter(qrels.arrow("topic"), judged),
                                             document_keys(pc.filter(qrels.arrow("docno"), judged), doc_key), "\t")
    topics = pa.array(np.asarray(run.topic_ids, dtype=object), type=pa.string()).take(pa.array(run.topic))
    docs = run.row_doc_ids()
    if isinstance(docs, pa.ChunkedArray):
        docs = docs.combine_chunks()
    run_keys = pc.binary_join_element_wise(topics, document_keys(docs, doc_key), "\t")
    keep = pc.is_in(run_keys, value_set=qrels_keys).to_numpy(zero_copy_only=False)
    return run if keep.all() else _subset(run, keep)


def as_cut(measure: Measure, *, judged_only: bool, compat: str) -> tuple[Measure, bool]:
    """How -J (``judged_only``) and -M apply to a measure: the measure as scored, ``judged_only=true``
    where -J applies (a judgement-group measure then keeps in each group's ranking what it judges, as
    trec_eval), and whether -M cuts in the preference measures' order (:func:`top_rows_only`):
    with ``compat="trec_eval"`` they ignore -J and cut so, as trec_eval's; else they are as any."""
    from .measures import Measure

    preferences = compat == "trec_eval" and "preferences" in measure.spec.requires
    if judged_only and not preferences and not measure.judged_only:
        measure = Measure.make(measure.spec, {**dict(measure.values), "judged_only": True}, measure.cutoff)
    return measure, preferences


# ---- -c: stand-in rankings; -J: empty rankings; relstring -------------------------------------

#: The document of trec_eval -c's stand-in ranking of a qrels topic without results (trec_eval.c).
STAND_IN_DOCNO = "ceci_nest_pas_un_docno"


def stand_in_run(topics, name: str) -> Run:
    """trec_eval -c scores a qrels topic without results on a ranking of one document no
    qrels judge (trec_eval.c's bogus ranking): that ranking for each of ``topics``."""
    from .core.run import Run

    topics = list(topics)
    return Run.from_columns(topics, [STAND_IN_DOCNO] * len(topics), [1.0] * len(topics), name=name)


def zeroed_on_stand_in(measure: Measure, *, relevance_level: int | None = None, printed: str | None = None) -> bool:
    """Whether trec_eval clears a measure's value on a stand-in ranking: it zeroes the values
    *named* exactly num_ret, utility, rbp_resid and those starting unj, so that a measure it
    names otherwise (``utility_1,-1,0,2``) counts the stand-in document. ``printed``: the name
    trec_eval prints it under, when not the registry's."""
    name = _printed(measure, relevance_level, printed)
    return name is not None and (name in ("num_ret", "utility", "rbp_resid") or name.startswith("unj"))


def _printed(measure: Measure, relevance_level: int | None, printed: str | None) -> str | None:
    from .measures.registry import trec_eval_name

    return printed if printed is not None else trec_eval_name(measure, relevance_level=relevance_level or 1)


def complete_totals(qrels: Qrels, measures, printed, *, relevance_level: int | None) -> dict[str, float]:
    """trec_eval -c's ``all`` values that are not its topics' sum: ``num_rel`` counts every
    qrels grade > 0, whatever -l says (by measure; ``printed`` as for :func:`zeroed_on_stand_in`)."""
    import numpy as np

    return {str(m): float((np.asarray(qrels.rel) > 0).sum()) for m, name in zip(measures, printed, strict=True)
            if _printed(m, relevance_level, name) == "num_rel"}


def nan_on_empty_rankings(ranked: RankedTopics, measures, values: np.ndarray) -> None:
    """trec_eval's iprec_at_recall and 11pt_avg divide 0 by 0 on a topic whose ranking is
    empty (one that -J leaves without documents), at each recall level x with round(x R) =
    0 (R: the topic's relevant documents): the value there is NaN, printed -nan, as is the
    mean over topics; 11pt_avg is NaN when its lowest level is. ``values``: one row per
    measure, one column per topic of ``ranked``, set here before any result is made."""
    import numpy as np

    empty = np.flatnonzero(ranked.ptr[1:] == ranked.ptr[:-1])
    if not len(empty):
        return
    for j, measure in enumerate(measures):
        if measure.spec.name == "IPrec":
            lowest = measure["recall"]
        elif measure.spec.name == "IPrec_11pt":
            lowest = float(measure["levels"].split(",")[0]) if measure["levels"] else 0.0
        else:
            continue
        num_rel = ranked.num_rel(measure["rel"])[empty]
        values[j, empty[lowest * num_rel < 0.5]] = np.nan


# ---- the all lines: trec_eval's sums ----------------------------------------------------------

def trec_eval_mean(values, topics: Sequence, how: str, *, order: np.ndarray | None = None) -> float:
    """One ``all`` value as trec_eval 10.0 accumulates it (meas_acc.c, meas_avg.c): the values
    added one at a time in its topic order (byte order), then divided by their number
    (``how="mean"``), kept (``"sum"``: the counts) or, the values being logs already
    (log(max(v, 0.00001))), exp of their mean (``"gmean"``). The order matters in the last
    bit, and so in the printed digits of a mean such as 2.739 / 4 (0.6848, not 0.6847).
    ``order``: the topics' positions in that order, when the caller has them already.
    """
    import numpy as np

    if order is None:
        order = _trec_eval_topic_order(topics)
    # cumsum adds one value at a time, left to right, as trec_eval's loop does; 0.0 + makes a
    # sum of negative zeros the 0.0 that loop, starting from 0.0, gives
    total = 0.0 + float(np.cumsum(np.asarray(values, dtype=np.float64)[order])[-1]) if len(order) else 0.0
    if how == "sum":
        return total
    return math.exp(total / len(topics)) if how == "gmean" else total / len(topics)


def _trec_eval_topic_order(topics: Sequence) -> np.ndarray:
    import numpy as np

    return np.array(sorted(range(len(topics)), key=lambda i: str(topics[i]).encode()), dtype=np.intp)


def trec_eval_summary_rows(scored, measures: Sequence, *, logged: bool = False,
                           totals: Mapping[str, float] | None = None) -> list[tuple[str, str, float, int]]:
    """The ``all`` rows ``(run, measure, value, topics)`` of :attr:`Evaluation.scored
    <pateval.evaluation.Evaluation.scored>` as trec_eval sums them (:func:`trec_eval_mean`), but
    ``totals`` (by measure: :func:`complete_totals`). ``logged``: the values of geometric means
    are logs already (their z-scores, :mod:`pateval.results.zscores`)."""
    import numpy as np

    from .measures import parse_measure

    how = {str(m): parse_measure(m).spec.aggregate for m in measures}
    totals = totals or {}
    rows = []
    for piece in scored:
        n = len(piece.topics)
        if not n:
            continue
        order = _trec_eval_topic_order(piece.topics)  # once for all the run's measures
        for j, measure in enumerate(piece.measures):
            values = np.asarray(piece.values[j * n:(j + 1) * n], dtype=np.float64)
            if how[measure] == "gmean" and not logged:
                values = np.log(np.maximum(values, 0.00001))
            total = totals[measure] if measure in totals else trec_eval_mean(values, piece.topics, how[measure],
                                                                             order=order)
            rows.append((piece.run, measure, total, n))
    return rows


def relstrings(ranked: RankedTopics, params: str | None) -> dict[str, str]:
    """trec_eval's relstring of each topic of ``ranked`` (the run as scored: cut by -M and -J;
    ``relstring.N``: N documents, default 10)."""
    from .measures.relstring import RELSTRING_LENGTH, relevance_strings

    length = int(_numbers("relstring", params)[0]) if params else RELSTRING_LENGTH
    strings = dict(zip(map(str, ranked.topic_ids), relevance_strings(ranked, length), strict=True))
    if params and length > 0:
        # with -c, trec_eval scores a topic without results on a ranking of one unlisted document and
        # then clears the value named "relstring" only: "relstring_N" shows that document, '-'
        missing = ranked.ptr[1:] == ranked.ptr[:-1]
        strings.update(dict.fromkeys(map(str, ranked.topic_ids[missing]), "-"))
    return strings
