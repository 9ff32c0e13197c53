"""The options of an evaluation, declared once.

:func:`pateval.evaluate`, :func:`pateval.api.evaluation`, the evaluation core
(:func:`pateval.evaluation.evaluate_runs`) and every command that evaluates take one
:class:`EvaluationOptions`; the command line builds it from one shared group of flags
(:mod:`pateval.cli.shared`). This module imports nothing heavy: the command line's parser
reads its defaults.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .cluster import DEFAULT_SCHEDULER_TIMEOUT
from .core.names import DOC_KEYS, ORDERS
from .errors import ParameterError, PatevalError
from .formats.names import RUN_FORMATS
from .validation import check_choice

__all__ = ["EvaluationOptions", "COMPAT"]

#: Whose rules the values follow where trec_eval's quirks differ from pateval's (docs/trec_eval-compat.md)
COMPAT = ("pateval", "trec_eval")


@dataclass(frozen=True, kw_only=True)
class EvaluationOptions:
    """How runs are read, ranked and scored against qrels.

    Parameters
    ----------
    measures : str, Measure, or a sequence of them
        Measure names (``"AP"``, ``"P@10"``, ``"nDCG@10"``, ``"PRES@100"`` ...), pateval
        measures, or ir_measures measure objects (read by their canonical name).
    qrels_format : str, default "auto"
        See :func:`pateval.formats.qrels.read_qrels`.
    run_format : {"auto", "trec", "json"}, default "auto"
        How run files are read: TREC (or Parquet) runs, or JSON of nested dicts
        (``{topic: {docno: score}}``, pytrec_eval's, BEIR's and MTEB's); ``"auto"`` reads a
        file that begins with ``{`` as JSON (:mod:`pateval.formats.nested`).
    complete : bool, default False
        Average over every qrels topic, a topic the run misses scoring 0 (trec_eval -c).
    order : {"score", "rank", "file"}, default "score"
        How each topic's documents are ordered (see :func:`pateval.core.ranking.evaluation_order`).
    doc_key : {"publication", "patent"}, default "publication"
        Match documents by id, or by patent (CLEF-IP judged patents).
    on_duplicate : {"error", "first"}, default "error"
        A document twice for a topic: refused, or the first kept.
    resources : mapping, optional
        Side inputs some measures need, by the names of
        :data:`pateval.formats.resources.RESOURCES` (``doc_lengths``, ``duplicate_groups``,
        ``patent_families``, ``intent_probabilities``, ``subtopic_weights``, ``iterations``,
        ``passage_qrels``), as read by their readers.
    relevance_level : int, optional
        trec_eval's ``-l``: the ``rel`` of every measure that has one and was not given one.
    max_documents : int, optional
        trec_eval's ``-M``: only the first N documents of each topic (in evaluation order) count.
    judged_only : bool, default False
        trec_eval's ``-J``: unjudged documents (not in the qrels, or with a negative grade) are
        removed from each ranking first, for every measure (``judged_only=true`` on one measure
        does it for that measure). With ``max_documents``, the cut comes first, as in trec_eval.
    compat : {"pateval", "trec_eval"}, default "pateval"
        ``"trec_eval"``: trec_eval 10.0's values where its rules differ from pateval's (what
        ``pateval trec_eval`` prints): with ``complete``, a qrels topic without results is
        scored on trec_eval's stand-in ranking of one unjudged document, then the values
        trec_eval names num_ret, utility, rbp_resid and unj are cleared (``utility_1,-1,0,2``
        counts that document: -1 where pateval gives 0), and num_rel's ``all`` value counts every
        grade > 0; iprec_at_recall and 11pt_avg are NaN on a ranking ``judged_only`` leaves empty
        (trec_eval divides 0 by 0); the ``all`` values are summed as trec_eval sums them (topics
        in byte order); the preference measures ignore ``judged_only`` and cut ``max_documents``
        by score, ties by ascending docno. See docs/trec_eval-compat.md.
    trec_eval_names : mapping, optional
        With ``compat="trec_eval"``: the name trec_eval prints a measure under (by the
        measure's name in ``measures``) where it is not the registry's; trec_eval clears values
        by these names (``pateval trec_eval -m utility.1,-1,0,0`` prints ``utility_1,-1,0,0``,
        which trec_eval does not clear, where ``utility`` is cleared).
    block_bytes : int, optional
        Run files are read and scored in blocks of whole topics of about this many bytes
        (default 8 MB), so memory holds one block; a run whose topics are scattered over
        the file is partitioned on disk first. 0 reads each run file whole. The values are
        the same either way.
    scheduler : str, optional
        Address of a Dask scheduler (``tcp://host:8786``): the blocks of every run file are
        scored on its workers, which need pateval (the same version) and must see the run
        files at their absolute paths (relative paths are made absolute here).
    work_dir : path-like, optional
        Where a run whose topics are scattered is partitioned (default: the system's
        temporary directory; with ``scheduler``, a directory the workers see at the same
        path); the parts are removed afterwards.
    scheduler_timeout : float, default 10
        Seconds to wait for the Dask scheduler to answer, when connecting and after losing it.
    """

    measures: Sequence[Any] = ()
    qrels_format: str = "auto"
    run_format: str = "auto"
    complete: bool = False
    order: str = "score"
    doc_key: str = "publication"
    on_duplicate: str = "error"
    resources: Mapping[str, Any] = field(default_factory=dict)
    relevance_level: int | None = None
    max_documents: int | None = None
    judged_only: bool = False
    compat: str = "pateval"
    trec_eval_names: Mapping[str, str] = field(default_factory=dict)
    block_bytes: int | None = None
    scheduler: str | None = None
    work_dir: str | os.PathLike[str] | None = None
    scheduler_timeout: float = DEFAULT_SCHEDULER_TIMEOUT

    def __post_init__(self) -> None:
        object.__setattr__(self, "measures", tuple(_measures_of(self.measures)))
        check_choice("order", self.order, ORDERS)
        check_choice("doc_key", self.doc_key, DOC_KEYS)
        check_choice("run_format", self.run_format, RUN_FORMATS)
        check_choice("compat", self.compat, COMPAT)
        for value, least, must in ((self.relevance_level, 1, "the relevance level must be an integer >= 1"),
                                   (self.max_documents, 1, "max_documents must be a positive integer"),
                                   (self.block_bytes, 0, "block_bytes must be a whole number of bytes >= 0")):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < least):
                raise ParameterError(f"{must}, not {value!r}")
        if self.scheduler is not None and not str(self.scheduler).strip():
            raise ParameterError("scheduler must be a Dask scheduler address such as tcp://host:8786")
        wait = self.scheduler_timeout
        if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not wait > 0:
            raise ParameterError(f"scheduler_timeout must be a number of seconds > 0, not {wait!r}")

    @property
    def cuts_runs(self) -> bool:
        """trec_eval's -M and -J (or a measure's judged_only) cut each run whole, never in blocks."""
        from .measures import parse_measures

        return self.max_documents is not None or self.judged_only or any(
            m.judged_only for m in parse_measures(self.measures))


def _measures_of(measures: Any) -> list:
    """Measure names, pateval measures, and ir_measures measure objects (ir_measures' own,
    read by their canonical name, or pateval's as registered by :mod:`pateval.ir_measures`)."""
    if isinstance(measures, str):
        return [measures]
    if isinstance(measures, (list, tuple)) and all(isinstance(m, str) for m in measures):
        return list(measures)  # names: parsed by the evaluation (the command line's parser imports no measure)
    from .measures import Measure, parse_measure

    if isinstance(measures, (str, Measure)) or type(measures).__module__.split(".")[0] == "ir_measures" \
            or hasattr(measures, "pateval_measure"):
        measures = [measures]
    converted: list = []
    for measure in measures:
        if hasattr(measure, "pateval_measure"):
            converted.append(measure.pateval_measure())
        elif isinstance(measure, (str, Measure)):
            converted.append(measure)
        elif type(measure).__module__.split(".")[0] == "ir_measures":
            # ir_measures' NumRelRet is its NumRet(rel=k): pateval's NumRelRet(rel=k)
            name = repr(measure)
            if measure.NAME == "NumRet" and "rel" in measure.params:
                name = "NumRelRet" + name[len("NumRet"):]
            try:
                converted.append(parse_measure(name))
            except PatevalError as error:
                raise ParameterError(f"the ir_measures measure {measure!r} has no pateval equivalent ({error}); "
                                     "compute it with ir_measures") from None
        else:
            raise ParameterError(f"a measure must be a name, a pateval Measure or an ir_measures measure; got "
                                 f"{type(measure).__name__}")
    return converted
