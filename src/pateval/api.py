"""The public Python API of pateval. The command line (:mod:`pateval.cli`) is a thin layer
over these functions, and each of them is a thin layer over the package's modules."""

from __future__ import annotations

# ---- foundation: reading, evaluating --------------------------------------------------------
import dataclasses as _dataclasses
import logging as _logging
import os as _os
import warnings as _warnings
from collections.abc import Mapping as _Mapping
from collections.abc import Sequence as _Sequence
from importlib import resources as _resources
from pathlib import Path as _Path
from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:  # pandas is imported by the functions that build frames (the command line starts without it)
    import pandas as _pd


from .core.qrels import Qrels
from .core.run import Run
from .errors import ParameterError as _ParameterError
from .errors import PatevalError as _PatevalError
from .evaluation import Evaluation, aggregate, evaluate_runs
from .formats import inputs as _inputs
from .formats.qrels import read_qrels
from .formats.trec import read_run, write_run
from .measures import EvaluationContext, Measure, all_specs, parse_measure
from .measures import parse_measures as _parse_measures
from .patents.records import patent_key, patent_keys

_PATENT_READERS = ("iter_patents", "read_patent")  # need lxml: imported on first use (PEP 562)


def __getattr__(name: str):
    if name in _PATENT_READERS:
        from . import patents

        return getattr(patents, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

# The public API: the names defined here, and the ones imported above from the modules that
# define them (Qrels, Run, Evaluation, EvaluationContext, Measure, aggregate, evaluate_runs,
# all_specs, parse_measure, read_qrels, read_run, write_run, iter_patents, read_patent,
# patent_key, patent_keys), re-exported.
__all__ = [
    "Evaluation",
    "EvaluationContext",
    "Measure",
    "Qrels",
    "Run",
    "aggregate",
    "all_specs",
    "analyse_measures",
    "assess_app",
    "assess_export",
    "assess_import",
    "build_collection",
    "build_search_index",
    "calibrate",
    "calibration_figures",
    "check_passage_run",
    "collection_stats",
    "compare",
    "corpus_doc_lengths",
    "evaluate",
    "evaluate_by_group",
    "evaluate_flowcharts",
    "evaluate_runs",
    "evaluation",
    "example_files",
    "generate_corpus",
    "ingest_corpus",
    "verify_corpus",
    "iter_patents",
    "list_measures",
    "open_corpus",
    "parse_measure",
    "patent_key",
    "patent_keys",
    "ranking_stability",
    "read_patent",
    "read_qrels",
    "read_run",
    "read_scores",
    "search",
    "search_grid",
    "search_passages",
    "simulate_log",
    "simulate_users",
    "time_to_rank",
    "write_report",
    "write_run",
]

_PathLike = str | _os.PathLike


def _as_measures(measures) -> list:
    """Measure names, pateval measures, and ir_measures measure objects (ir_measures' own,
    read by their canonical name, or pateval's as registered by :mod:`pateval.ir_measures`)."""
    if isinstance(measures, (str, Measure)) or type(measures).__module__.split(".")[0] == "ir_measures" \
            or hasattr(measures, "pateval_measure"):
        measures = [measures]
    converted = []
    for measure in measures:
        if hasattr(measure, "pateval_measure"):
            converted.append(measure.pateval_measure())
        elif isinstance(measure, (str, Measure)):
            converted.append(measure)
        elif type(measure).__module__.split(".")[0] == "ir_measures":
            try:
                converted.append(parse_measure(repr(measure)))
            except _PatevalError as error:
                raise _ParameterError(f"the ir_measures measure {measure!r} has no pateval equivalent ({error}); "
                                      "compute it with ir_measures") from None
        else:
            raise _ParameterError(f"a measure must be a name, a pateval Measure or an ir_measures measure; got "
                                  f"{type(measure).__name__}")
    return converted


def evaluation(
    qrels,
    runs,
    measures: _Sequence[str | Measure] | str,
    *,
    qrels_format: str = "auto",
    complete: bool = False,
    order: str = "score",
    doc_key: str = "publication",
    on_duplicate: str = "error",
    resources: _Mapping | None = None,
    block_bytes: int | None = None,
    scheduler: str | None = None,
    work_dir: str | _os.PathLike[str] | None = None,
    relevance_level: int | None = None,
    max_documents: int | None = None,
    judged_only: bool = False,
) -> Evaluation:
    """Like :func:`evaluate`, returning the :class:`~pateval.evaluation.Evaluation` with its notes
    (told to the ``pateval`` logger and, for topics left out, as a warning, as :func:`evaluate` does)."""
    from .formats.runblocks import DEFAULT_BLOCK_BYTES

    measures = _as_measures(measures)
    if block_bytes is not None and (isinstance(block_bytes, bool) or not isinstance(block_bytes,
                                                                                    int) or block_bytes < 0):
        raise _ParameterError(f"block_bytes must be a whole number of bytes >= 0, not {block_bytes!r}")
    if max_documents is not None or judged_only or any(m.judged_only for m in _parse_measures(measures)):
        block_bytes = 0  # trec_eval's -M and -J cut each run whole (issue 14)
    qrels, runs, resources = _passage_inputs(qrels, runs, resources, on_duplicate=on_duplicate)
    result = evaluate_runs(
        _inputs.as_qrels(qrels, qrels_format=qrels_format, on_duplicate=on_duplicate),
        _inputs.as_runs(runs, on_duplicate=on_duplicate,
                 block_bytes=DEFAULT_BLOCK_BYTES if block_bytes is None else block_bytes),
        measures,
        complete=complete,
        order=order,
        doc_key=doc_key,
        context=EvaluationContext(dict(resources or {})),
        scheduler=scheduler,
        work_dir=work_dir,
        relevance_level=relevance_level,
        max_documents=max_documents,
        judged_only=judged_only,
    )
    _tell(result.notes)
    return result


def evaluate(
    qrels,
    runs,
    measures: _Sequence[str | Measure] | str,
    *,
    qrels_format: str = "auto",
    complete: bool = False,
    order: str = "score",
    doc_key: str = "publication",
    on_duplicate: str = "error",
    resources: _Mapping | None = None,
    style: str = "pateval",
    block_bytes: int | None = None,
    scheduler: str | None = None,
    work_dir: str | _os.PathLike[str] | None = None,
    relevance_level: int | None = None,
    max_documents: int | None = None,
    judged_only: bool = False,
) -> _pd.DataFrame:
    """Evaluate runs against qrels: one row per (run, topic, measure).

    Parameters
    ----------
    qrels : path, Qrels or dict
        A qrels file (any format of :func:`read_qrels`), loaded qrels, or ``{topic: {docno: rel}}``.
    runs : path, Run, dict, or a list / dict of them
        One run or several; a dict maps run names to paths or runs.
    measures : str or sequence of str
        Measure names (``"AP"``, ``"P@10"``, ``"nDCG@10"``, ``"PRES@100"`` ...).
    qrels_format : str, default "auto"
        See :func:`read_qrels`.
    complete : bool, default False
        Average over all qrels topics (trec_eval -c).
    order : {"score", "rank", "file"}, default "score"
    doc_key : {"publication", "patent"}, default "publication"
    on_duplicate : {"error", "first"}, default "error"
    resources : dict, optional
        Side inputs for measures that need them (e.g. ``doc_lengths``).
    style : {"pateval", "pyterrier"}, default "pateval"
        Column names: pateval's, or PyTerrier's per-query ``pt.Experiment`` frame
        (``name, qid, measure, value``).
    block_bytes : int, optional
        Run files are read and scored in blocks of whole topics of about this many bytes
        (default 32 MB), so memory holds one block; a run whose topics are scattered over
        the file is partitioned on disk first. 0 reads each run file whole. The values are
        the same either way.
    scheduler : str, optional
        A Dask scheduler address (``tcp://host:8786``): the blocks of every run file are
        scored on its workers (which must see the same paths).
    work_dir : path-like, optional
        Where scattered runs are partitioned (default: the system's temporary directory).
    relevance_level : int, optional
        trec_eval ``-l``: the ``rel`` of every measure not given one.
    max_documents : int, optional
        trec_eval ``-M``: only each topic's first N documents count.
    judged_only : bool, default False
        trec_eval ``-J``: unjudged documents are removed from the rankings first.

    Returns
    -------
    DataFrame
        Columns ``run, topic, measure, value`` (per topic; :func:`aggregate` gives the
        means). ``frame.attrs["notes"]`` lists topics left out and how means are taken.

    Examples
    --------
    >>> import pateval
    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
    >>> run = {"q1": {"d1": 1.0, "d2": 2.0}, "q2": {"d3": 1.0}}
    >>> pateval.evaluate(qrels, run, ["AP", "P@1"]).pivot(index="topic", columns="measure", values="value")
    measure   AP  P@1
    topic
    q1       0.5  0.0
    q2       1.0  1.0
    """
    from .validation import check_choice

    check_choice("style", style, ("pateval", "pyterrier"))
    result = evaluation(qrels, runs, measures, qrels_format=qrels_format, complete=complete, order=order,
                        doc_key=doc_key, on_duplicate=on_duplicate, resources=resources, block_bytes=block_bytes,
                        scheduler=scheduler, work_dir=work_dir, relevance_level=relevance_level,
                        max_documents=max_documents, judged_only=judged_only)
    frame = result.frame
    frame.attrs["notes"] = list(result.notes)
    if style == "pyterrier":  # issue 15: PyTerrier's column names on request
        frame = frame.rename(columns={"run": "name", "topic": "qid"})
    if result.run_metadata:
        frame.attrs["run_metadata"] = dict(result.run_metadata)
    return frame


_log = _logging.getLogger("pateval")


def _tell(notes: _Sequence[str]) -> None:
    """A notebook user sees the notes: each to the ``pateval`` logger (INFO), and topics left
    out of the means also as a :class:`~pateval.errors.TopicsLeftOutWarning`."""
    from .errors import TopicsLeftOutWarning
    from .evaluation import TopicsLeftOut

    for note in notes:
        _log.info("%s", note)
        if isinstance(note, TopicsLeftOut):
            _warnings.warn(str(note), TopicsLeftOutWarning, stacklevel=_caller_level())


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside pateval: the user's line that called it."""
    import sys

    package = _os.path.dirname(_os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1
    while frame is not None and _os.path.abspath(frame.f_code.co_filename).startswith(package + _os.sep):
        frame, level = frame.f_back, level + 1
    return level


def list_measures() -> _pd.DataFrame:
    """Every registered measure with its parameters, defaults and reference."""
    import pandas as _pd

    rows = []
    for spec in all_specs():
        rows.append({
            "name": spec.name,
            "family": spec.family,
            "cutoff": spec.cutoff,
            "summary": spec.summary,
            "formula": spec.formula,
            "parameters": [p.describe() for p in spec.params],
            "aggregate": spec.aggregate,
            "aliases": ", ".join(spec.aliases),
            "reference": spec.reference,
        })
    return _pd.DataFrame(rows)


def example_files() -> tuple[_Path, list[_Path]]:
    """The example qrels and runs that ship with pateval (synthetic, seeded; see data/examples/README)."""
    root = _Path(str(_resources.files("pateval") / "data" / "examples"))
    return root / "qrels.txt", sorted(root.glob("run*.txt"))


def _user_model_inputs(qrels, runs, model, doc_lengths, resources, *, qrels_format, order, doc_key, on_duplicate):
    from .formats.doclengths import DocLengths, read_doc_lengths
    from .usermodel.frames import ranked_runs, tbg_measure

    measure = tbg_measure(model)
    side = dict(resources or {})
    if doc_lengths is not None:
        side["doc_lengths"] = (read_doc_lengths(doc_lengths) if isinstance(doc_lengths, (str, _os.PathLike))
                               else doc_lengths if isinstance(doc_lengths, DocLengths) else dict(doc_lengths))
    ranked = ranked_runs(_inputs.as_qrels(qrels, qrels_format=qrels_format, on_duplicate=on_duplicate),
                         _inputs.as_runs(runs, on_duplicate=on_duplicate), order=order, doc_key=doc_key)
    return ranked, measure, EvaluationContext(side)


def time_to_rank(
    qrels,
    runs,
    *,
    model: str | Measure = "TBG",
    doc_lengths: _PathLike | _Mapping | None = None,
    resources: _Mapping | None = None,
    qrels_format: str = "auto",
    order: str = "score",
    doc_key: str = "publication",
    on_duplicate: str = "error",
) -> _pd.DataFrame:
    """The time-biased gain user model rank by rank: when the user reaches each document (T(k)).

    Parameters
    ----------
    qrels, runs
        As for :func:`evaluate`.
    model : str or Measure, default "TBG"
        The calibration, as a TBG measure name, e.g. ``"TBG(halflife=600,read_slope=0.03)"``.
    doc_lengths : path or dict, optional
        Document lengths in words (a ``docno length`` file or ``{docno: length}``); or give
        ``resources={"doc_lengths": ...}``, with ``duplicate_groups`` / ``patent_families``
        for ``duplicates=groups|families``.

    Returns
    -------
    DataFrame
        One row per retrieved document: ``run, topic, rank, docno, relevant, length,
        duplicate, time`` (T(k), seconds), ``decay`` (D(T(k))), ``gain`` (its share of the
        TBG value) and ``cumulative_gain`` (TBG at that depth). Plot ``time`` against ``rank``.

    Examples
    --------
    >>> frame = time_to_rank({"q": {"d1": 1, "d3": 1}}, {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}},
    ...                      doc_lengths={"d1": 500, "d2": 1000, "d3": 200})
    >>> frame["time"].round(3).tolist()
    [0.0, 15.152, 29.614]
    """
    from .usermodel.frames import time_to_rank_frame

    ranked, measure, context = _user_model_inputs(qrels, runs, model, doc_lengths, resources, qrels_format=qrels_format,
                                                  order=order, doc_key=doc_key, on_duplicate=on_duplicate)
    return time_to_rank_frame(ranked, measure, context)


def simulate_users(
    qrels,
    runs,
    *,
    model: str | Measure = "TBG",
    n_users: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    doc_lengths: _PathLike | _Mapping | None = None,
    resources: _Mapping | None = None,
    qrels_format: str = "auto",
    order: str = "score",
    doc_key: str = "publication",
    on_duplicate: str = "error",
) -> _pd.DataFrame:
    """Simulate stochastic users of the TBG model on each topic: expected gain and its spread.

    Each user clicks with P(C|R), saves with P(S|R=1), and stops after an exponential time of
    half-life h (see :mod:`pateval.usermodel.simulation`). Seeded: the same seed gives the
    same numbers.

    Parameters
    ----------
    qrels, runs, model, doc_lengths, resources, qrels_format, order, doc_key, on_duplicate
        As for :func:`time_to_rank`.
    n_users : int, default 10000
    seed : int, default 0
        Seed of the first run (the next runs use seed+1, seed+2, ...).
    confidence : float, default 0.95

    Returns
    -------
    DataFrame
        One row per (run, topic): ``mean``, ``std``, ``ci_low``, ``ci_high`` of the simulated
        gain, ``expected`` (the exact expectation, the limit of ``mean``), ``tbg`` (the
        measure's closed form, at most ``expected``), ``n_users``; all divided by the
        model's normalisation N.
    """
    from .usermodel.frames import simulation_frame

    ranked, measure, context = _user_model_inputs(qrels, runs, model, doc_lengths, resources, qrels_format=qrels_format,
                                                  order=order, doc_key=doc_key, on_duplicate=on_duplicate)
    return simulation_frame(ranked, measure, context, n_users=n_users, seed=seed, confidence=confidence)


# ---- calibration: TBG's constants from interaction logs, simulated logs ---------------------


def _rankings_of(qrels, runs, *, lists, rel: int, qrels_format: str, order: str, doc_key: str,
                 on_duplicate: str) -> dict:
    """``{list id: ListRanking}`` from the runs ranked against the qrels (a lists file maps lists)."""
    from .formats.interactions import read_list_map
    from .usermodel.calibration import ListRanking
    from .usermodel.frames import ranked_runs

    ranked = ranked_runs(_inputs.as_qrels(qrels, qrels_format=qrels_format, on_duplicate=on_duplicate),
                         list(_inputs.as_runs(runs, on_duplicate=on_duplicate)), order=order, doc_key=doc_key)
    by_run: dict[str, dict] = {}
    for rankings in ranked:
        relevant = rankings.relevant(rel)
        docnos = rankings.docno
        per_topic = {}
        for t, topic in enumerate(rankings.topic_ids):
            rows = slice(int(rankings.ptr[t]), int(rankings.ptr[t + 1]))
            per_topic[str(topic)] = ListRanking(str(topic), _np_object(docnos[rows]), relevant[rows].copy())
        by_run[rankings.run_name] = per_topic
    if lists is None:
        if len(by_run) != 1:
            raise _ParameterError(f"{len(by_run)} runs given: a lists file must say which run (and topic) each list is")
        return next(iter(by_run.values()))
    mapping = read_list_map(lists) if isinstance(lists, (str, _os.PathLike)) else dict(lists)
    out = {}
    for list_id, (topic, run_name) in mapping.items():
        if run_name is None:
            if len(by_run) != 1:
                raise _ParameterError(f"list {list_id!r}: {len(by_run)} runs given, name the run of every list")
            run_name = next(iter(by_run))
        if run_name not in by_run:
            raise _ParameterError(f"list {list_id!r}: no run named {run_name!r} (runs: {', '.join(sorted(by_run))})")
        ranking = by_run[run_name].get(str(topic))
        if ranking is None:
            raise _ParameterError(f"list {list_id!r}: run {run_name!r} ranks no documents for topic {topic!r} in the "
                                  f"qrels")
        out[str(list_id)] = ranking
    return out


def _np_object(values):
    import numpy as np

    return np.asarray(values, dtype=object)


def _side_file(value, reader):
    return reader(value) if isinstance(value, (str, _os.PathLike)) else value


def _duplicate_labels(measure, resources):
    """The near-duplicate group of a document, as the TBG measure's ``duplicates`` mode defines it (None: none)."""
    mode = measure["duplicates"]
    resources = dict(resources or {})
    if mode == "groups":
        groups = resources.get("duplicate_groups")
        if groups is None:
            raise _ParameterError(f"{measure}: duplicates=groups needs the near-duplicate groups (--duplicates)")
        return lambda docno: groups.get(docno, docno)
    if mode == "families":
        families = resources.get("patent_families")
        if families is None:
            raise _ParameterError(f"{measure}: duplicates=families needs the patent families (--families)")
        return lambda docno: families.get(docno, docno)
    if mode == "patent":
        return patent_key
    return None


def calibrate(
    log,
    *,
    qrels,
    runs,
    doc_lengths,
    duplicates=None,
    lists=None,
    by: str | None = None,
    n_classes: int = 2,
    B: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    rel: int = 1,
    qrels_format: str = "auto",
    order: str = "score",
    doc_key: str = "publication",
    on_duplicate: str = "error",
):
    """Calibrate time-biased gain from an interaction log (Smucker & Clarke 2012, Sections 3.2, 5.2).

    Parameters
    ----------
    log : path or InteractionLog or DataFrame
        The log (see :mod:`pateval.formats.interactions`: CSV, JSON Lines, Parquet, gzipped).
    qrels, runs
        The judgements and the ranked lists the users searched (as for :func:`evaluate`);
        a log's ``list`` is a topic of the one run unless ``lists`` maps it.
    doc_lengths : path or mapping
        Document lengths in words (``docno length`` lines).
    duplicates : path or mapping, optional
        Near-duplicate groups (one group per line): later views of a group are duplicate views.
    lists : path or mapping, optional
        ``list topic [run]`` lines (or ``{list: (topic, run)}``): the topic and run of each list.
    by : {None, "topic", "user-class"}
        Also one calibration per topic, or per class of users by speed (``n_classes``).
    B, seed, confidence
        The bootstrap over users: resamples, seed, interval level.
    rel : int, default 1
        The grade at which documents count as relevant.

    Returns
    -------
    CalibrationResult
        ``.frame()`` (``group, parameter, value, ci_low, ci_high, user_average, users``),
        ``.calibrations[i].measure`` (the TBG measure name, e.g. for :func:`evaluate`),
        ``.to_json()``.
    """
    import pandas as _pd

    from .formats.doclengths import read_doc_lengths
    from .formats.groups import read_duplicate_groups
    from .formats.interactions import InteractionLog, log_from_frame, read_interaction_log
    from .usermodel.calibration import calibrate_log

    if isinstance(log, InteractionLog):
        parsed = log
    elif isinstance(log, _pd.DataFrame):
        parsed = log_from_frame(log)
    else:
        parsed = read_interaction_log(log)
    rankings = _rankings_of(qrels, runs, lists=lists, rel=rel, qrels_format=qrels_format, order=order, doc_key=doc_key,
                            on_duplicate=on_duplicate)
    return calibrate_log(parsed, rankings, lengths=_side_file(doc_lengths, read_doc_lengths),
                           groups=_side_file(duplicates, read_duplicate_groups) if duplicates is not None else None,
                         by=by, n_classes=n_classes, B=B, seed=seed, confidence=confidence, rel=rel)


def calibration_figures(result, *, doc_lengths, duplicates=None) -> dict:
    """The calibration's figures, by name: reading time against length with the fit (the
    paper's Figure 1), T(k) against the ranks users reached (Figure 2), the stopping curve
    with the fitted exponential (Figure 5); and ``validation``, the rank errors behind Figure 2."""
    from .formats.doclengths import read_doc_lengths
    from .formats.groups import read_duplicate_groups
    from .report.calibration import calibration_figures as figures

    return figures(result, result.rankings, _side_file(doc_lengths, read_doc_lengths),
                   groups=_side_file(duplicates, read_duplicate_groups) if duplicates is not None else None)


def simulate_log(
    qrels,
    run,
    *,
    doc_lengths,
    model: str | Measure = "TBG",
    n_users: int = 48,
    seed: int = 0,
    out: _PathLike | None = None,
    resources: _Mapping | None = None,
    page_size: int = 10,
    p_save_nonrel: float = 0.27,
    summary_noise: float = 0.5,
    read_noise: float = 0.5,
    speed_spread: float = 0.0,
    qrels_format: str = "auto",
    order: str = "score",
    doc_key: str = "publication",
    on_duplicate: str = "error",
) -> _pd.DataFrame:
    """Simulate users who behave as a TBG calibration says, as an interaction log (one session per user and topic).

    Parameters
    ----------
    qrels, run
        The judgements and the run whose rankings the users work through (list id = topic).
    doc_lengths : path or mapping
    model : str or Measure, default "TBG"
        The calibration, as a TBG measure name; with ``duplicates=groups`` and
        ``resources={"duplicate_groups": ...}`` near-duplicates are read as length 0.
    n_users, seed
    out : path, optional
        Also write the log (``.csv``, ``.jsonl``, ``.parquet``, ``.gz``), atomically.
    page_size, p_save_nonrel, summary_noise, read_noise, speed_spread
        See :mod:`pateval.usermodel.logsim` (the noise is documented there).

    Returns
    -------
    DataFrame
        ``user, list, time, event, rank, docno``.
    """
    from .formats.interactions import write_interaction_log
    from .usermodel.logsim import SimulatedList
    from .usermodel.logsim import simulate_log as _simulate

    frame = time_to_rank(qrels, run, model=model, doc_lengths=doc_lengths, resources=resources,
                         qrels_format=qrels_format,
                         order=order, doc_key=doc_key, on_duplicate=on_duplicate)
    measure = parse_measure(model) if isinstance(model, str) else model
    from .measures.tbg import time_model_of

    label_of = _duplicate_labels(measure, resources)
    lists = [SimulatedList(str(topic), group["docno"].to_numpy(object), group["relevant"].to_numpy(bool),
                           group["length"].to_numpy(float),
                           None if label_of is None else [label_of(d) for d in group["docno"]])
             for topic, group in frame.groupby("topic", sort=True)]
    log = _simulate(lists, model=time_model_of(measure), n_users=n_users, seed=seed, page_size=page_size,
                    p_save_nonrel=p_save_nonrel, summary_noise=summary_noise, read_noise=read_noise,
                    speed_spread=speed_spread)
    if out is not None:
        write_interaction_log(log, out)
    return log


# ---- patents and test collections -----------------------------------------------------------


def ingest_corpus(
    paths,
    out,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    on_error: str = "stop",
    memory_limit: str | None = None,
    progress: bool = False,
    wait: float = 0.0,
):
    """Parse patent XML files (CLEF-IP / MAREC, USPTO ICE and the older USPTO formats)
    once into a corpus store.

    Parameters
    ----------
    paths : path or iterable of paths
        Files and directories (searched recursively for ``*.xml``, ``.xml.gz``, ``.xml.bz2``).
    out : path-like
        The store directory; an existing store is resumed (files already in it are skipped).
    workers : int, optional
        Local worker processes (default: all CPUs).
    scheduler : str, optional
        A Dask scheduler address (``tcp://host:8786``) to parse on a cluster instead;
        its workers must see the files and the store at the same paths.
    on_error : {"stop", "skip"}
        Stop at the first bad document, or leave it out, record it and go on.
    memory_limit : str, optional
        DuckDB memory limit to keep as the store's default for queries (``"4GB"``).
    progress : bool
        Show a progress bar on stderr.
    wait : float
        Seconds to wait for another ingest writing to the same store (0: refuse at once).

    Returns
    -------
    pateval.collection.ingest.IngestSummary
    """
    from .collection.ingest import ingest

    return ingest(
        paths, out, workers=workers, scheduler=scheduler, on_error=on_error,
        memory_limit=memory_limit, progress=progress, wait=wait,
    )


# ---- corpus store integrity (verify, repair, drop) ------------------------------------------


def verify_corpus(store, *, quick: bool = False, repair: bool = False, drop: bool = False, wait: float = 0.0,
                  progress: bool = False):
    """Check every part of a corpus store against its manifest (size and SHA-256, or sizes
    only with ``quick``); with ``repair``, ingest the source files of each damaged batch
    again; with ``drop``, remove the damaged batches; ``progress`` shows a bar over the
    bytes hashed.

    Returns a :class:`pateval.collection.ingest.StoreVerification` (damaged parts, repaired
    or dropped batches, the ucids of dropped documents). See
    :func:`pateval.collection.ingest.verify_store`.
    """
    from .collection.ingest import verify_store

    return verify_store(store, quick=quick, repair=repair, drop=drop, wait=wait, progress=progress)


def open_corpus(path, *, memory_limit: str | None = None, threads: int | None = None):
    """Open a corpus store for DuckDB queries (:class:`pateval.collection.store.CorpusStore`)."""
    from .collection.store import CorpusStore

    return CorpusStore(path, memory_limit=memory_limit, threads=threads)


def corpus_doc_lengths(store, *, out: _PathLike | None = None):
    """Document lengths in words computed from a corpus store's documents, for TBG and the
    Cube Test's ``time=tbg`` (what ``--doc-lengths`` reads).

    Each document counts the words of its abstracts, description and claims, in every
    language. Returns a :class:`pateval.formats.doclengths.DocLengths` (``docno -> words``);
    with ``out``, also writes it as a ``docno length`` file (complete, or not at all).
    """
    from .collection.store import CorpusStore
    from .formats.doclengths import write_doc_lengths

    if not _Path(store).is_dir():
        raise _ParameterError(f"no corpus store at {store} (make one with `pateval corpus ingest`)")
    with CorpusStore(store) as corpus:
        lengths = corpus.doc_lengths()
    if out is not None:
        write_doc_lengths(lengths, out)
    return lengths


def generate_corpus(out_dir, *, n_patents: int, seed: int = 0, workers: int | None = None,
                    progress: bool = False, **options):
    """Write a seeded synthetic patent corpus in CLEF-IP XML (technology clusters, families,
    A/B publications, claims in EN/DE/FR, search-report citations).

    Parameters
    ----------
    out_dir : path-like
        A new directory; files laid out as in CLEF-IP (``EP/000001/01/01/80/EP-1010180-B1.xml``).
    n_patents : int
        EP patents to generate (about 1.9 publication files each).
    seed : int
    workers : int, optional
        Rendering processes (the output does not depend on it).
    progress : bool
    **options
        Further keywords of :func:`pateval.collection.synthetic.generate_corpus`
        (``start_year``, ``end_year``, ``n_clusters``, ``grant_rate``, ...).

    Returns
    -------
    pateval.collection.synthetic.GenerationSummary
    """
    from .collection.synthetic import generate_corpus as _generate

    return _generate(out_dir, n_patents=n_patents, seed=seed, workers=workers, progress=progress, **options)


def build_collection(store, out_dir, *, criteria="roda2009", corpus_end="2000-12-31", pool_start=None,
                     corpus_start=None, pool_end=None, stratify: bool = False, per_group: int = 20,
                     ipc_level: str = "class", size=None, seed: int = 0, family: str = "none",
                     patent_level: bool = True, theta_ind: float = 1.0, theta_dep: float = 0.5,
                     passages: bool = True, max_passage_topics_per_patent: int | None = None,
                     threads: int | None = None, memory_limit: str | None = None, progress: bool = False):
    """Build a CLEF-IP-style test collection from a corpus store.

    Parameters
    ----------
    store : path-like
        A corpus store (``pateval corpus ingest``).
    out_dir : path-like
        A new directory for the collection (topics, qrels at four levels, build.json).
    criteria : str or pateval.collection.topics.SelectionCriteria
        A preset (``"roda2009"``, ``"clefip2013"``, ``"both"``, ``"none"``) or criteria.
    corpus_end, pool_start, corpus_start, pool_end : str, optional
        The date split (ISO dates or years); the pool starts after the corpus by default.
    stratify, per_group, ipc_level : see :func:`pateval.collection.sampling.stratified_sample`
    size : {"S", "M", "L", "XL"} or int, optional
        Topic-set size (nested sets for one seed).
    seed : int
    family : {"none", "cited", "topic", "both"}
        Family extension of the document-level qrels.
    patent_level : bool
        Judge every corpus publication of a cited patent.
    theta_ind, theta_dep : float
        Claim importance for the theta (subtopic weight) file.
    passages : bool
        Build the passage (PSG) topics and qrels too.
    max_passage_topics_per_patent : int, optional
    threads, memory_limit : DuckDB settings.
    progress : bool

    Returns
    -------
    pateval.collection.build.BuildSummary
    """
    from .collection.build import build_collection as _build
    from .collection.split import DateSplit
    from .collection.store import naming_damage
    from .collection.tables import open_store
    from .collection.topics import SelectionCriteria

    if isinstance(criteria, str):
        criteria = SelectionCriteria.preset(criteria)
    split = DateSplit.of(corpus_end=corpus_end, pool_start=pool_start, corpus_start=corpus_start, pool_end=pool_end)
    con = open_store(store, threads=threads, memory_limit=memory_limit)
    try:
        # Parts damaged in place (size and mtime kept) pass the check on opening and
        # surface when a query reads them: named as the store names damage.
        with naming_damage(store):
            return _build(con, out_dir, split=split, criteria=criteria, stratify=stratify, per_group=per_group,
                          ipc_level=ipc_level, size=size, seed=seed, family=family, patent_level=patent_level,
                          theta_ind=theta_ind, theta_dep=theta_dep, passages=passages,
                          max_passage_topics_per_patent=max_passage_topics_per_patent, progress=progress)
    finally:
        con.close()


def collection_stats(collection, *, ipc_level: str = "class", top: int = 10) -> dict:
    """Statistics of a built collection: judgment points, relevant documents per topic,
    languages, IPC classes, citation sources, the selection funnel
    (:func:`pateval.collection.stats.collection_stats`)."""
    from .collection.stats import collection_stats as _stats

    return _stats(collection, ipc_level=ipc_level, top=top)


# ---- passage runs ---------------------------------------------------------------------------


def _passage_inputs(qrels, runs, resources, *, on_duplicate: str):
    """Passage runs and passage qrels given to :func:`evaluation`, routed to both levels.

    A run file with an XPath in its 4th column (or a :class:`PassageRun`) is a CLEF-IP
    passage run: it is evaluated as its document-level run (each document at its first
    occurrence in passage-rank order, headings removed) by every measure, and its passages
    go to ``resources["passage_runs"]`` (run name -> PassageRun) for ``P_psg`` and
    ``MAP_psg``. A qrels file whose lines end with an XPath is read as passage qrels:
    its documents are the document-level judgements and its passages fill
    ``resources["passage_qrels"]`` unless one was given.
    """
    from .formats.passages import (
        PassageRun,
        looks_like_passage_qrels,
        looks_like_passage_run,
        read_passage_qrels,
        read_passage_run,
    )

    resources = dict(resources or {})
    if isinstance(qrels, (str, _os.PathLike)) and looks_like_passage_qrels(qrels):
        qrels = read_passage_qrels(qrels)
    if isinstance(qrels, Qrels) and qrels.format == "clefip-psg":
        resources.setdefault("passage_qrels", qrels)
    given = resources.get("passage_runs")
    found: dict = {}

    def routed(item, name):
        if isinstance(item, (str, _os.PathLike)) and looks_like_passage_run(item):
            item = read_passage_run(item, on_duplicate=on_duplicate, name=name)
        if isinstance(item, PassageRun):
            if name is not None and item.name != name:
                item = _dataclasses.replace(item, name=name, _cache={})
            found[item.name] = item
            return item.document_run()
        return item

    if isinstance(runs, (str, _os.PathLike, PassageRun, Run)):
        runs = [routed(runs, None)]
    elif _inputs.is_frame(runs) or _inputs.is_ranx(runs, "Run") or _inputs.is_records(runs):
        runs = [runs]  # one run in a tool's form (issue 15), read by as_run
    elif isinstance(runs, _Mapping):
        if not _inputs.is_single_run_dict(runs):
            runs = {key: routed(value, str(key)) for key, value in runs.items()}
    else:
        runs = [routed(item, None) for item in runs]
    if found:
        if isinstance(given, _Mapping):
            found = {**given, **found}
        elif isinstance(given, PassageRun):
            found = {given.name: given, **found}
        resources["passage_runs"] = found
    return qrels, runs, resources


def check_passage_run(run: _PathLike, *, topics: _PathLike | None = None, store=None, max_documents: int = 100,
                      fix: _PathLike | None = None, log: _PathLike | None = None):
    """Check a CLEF-IP passage-run submission as the organisers did; optionally repair it.

    Parameters
    ----------
    run : path-like
        ``topic_id Q0 doc_id xpath psg_rank psg_score`` lines.
    topics : path-like, optional
        The passage topics file (unknown and missing topics).
    store : path-like or CorpusStore, optional
        The corpus store (XPaths the document does not have, the store's headings).
    max_documents : int, default 100
    fix, log : path-like, optional
        Write the repaired run to ``fix`` and the change log to ``log`` (default ``fix + ".log"``).

    Returns
    -------
    pateval.check.CheckReport
        ``findings`` (line, kind, message), ``ok``, ``format()``.
    """
    from .check import check_passage_run as _check
    from .check import fix_passage_run as _fix

    report = _check(run, topics=topics, store=store, max_documents=max_documents)
    if fix is not None:
        _fix(report, fix, log=log)
    elif log is not None:
        raise _ParameterError("log goes with fix")
    return report


def evaluate_by_group(frame: _pd.DataFrame, groups, *, measures=None, plot: _PathLike | None = None) -> _pd.DataFrame:
    """Per-topic results broken down by topic group (CLEF-IP 2013's Figure 5: recall by language).

    Parameters
    ----------
    frame : DataFrame
        From :func:`evaluate` (``run, topic, measure, value``).
    groups : mapping or path-like
        topic -> group; or a file of ``topic attribute`` lines; or a passage topics file
        (groups = the topics' languages).
    measures : sequence, optional
    plot : path-like, optional
        Write the grouped-bar figure of the first measure there (.png, .pdf, .svg).

    Returns
    -------
    DataFrame
        ``run, group, measure, value, topics``, the group ``all`` first; ``attrs["notes"]``
        names topics without a group.
    """
    from .formats.atomic import atomic_output
    from .report.breakdown import group_summary, plot_group_summary, read_topic_groups

    if not isinstance(groups, _Mapping):
        groups = read_topic_groups(groups)
    summary, notes = group_summary(frame, groups, measures)
    summary.attrs["notes"] = notes
    if plot is not None:
        suffix = _Path(plot).suffix.lstrip(".").lower() or "png"
        with atomic_output(plot, "wb") as handle:
            plot_group_summary(summary).savefig(handle, format=suffix, dpi=150)
    return summary


# ---- comparing systems and measures -------------------------------------------------------


def _comparison_matrices(qrels, runs, measures, evaluate_options) -> tuple[dict[str, _pd.DataFrame], list[str]]:
    """Per-topic scores of every run as one topics x runs matrix per measure, plus notes.

    Paired tests need every run scored on the same topics: a topic some run has no score
    for is left out of that measure's tests (evaluate with ``complete=True`` to score it 0).
    """
    from .evaluation import TopicsLeftOut
    from .stats import score_matrices

    if qrels is None:  # per-topic scores instead of runs (issue 15): see read_scores
        frame = read_scores(runs, measures=measures, format=dict(evaluate_options or {}).get("scores_format", "auto"))
    else:
        frame = evaluate(qrels, runs, measures, **dict(evaluate_options or {}))
    notes = list(frame.attrs.get("notes", []))
    names = list(dict.fromkeys(frame["measure"]))
    matrices = score_matrices(frame, names)
    for name, matrix in matrices.items():
        scored = frame.loc[frame["measure"] == name, "topic"].nunique()
        if len(matrix) < scored:
            left_out = TopicsLeftOut(f"{name}: {scored - len(matrix)} of {scored} topics left out of the tests because "
                                     "some run has no score for them (use complete=True / -c to score them as 0)")
            notes.append(left_out)
            _tell([left_out])
    return matrices, notes


def read_scores(sources, *, measures: _Sequence[str] | str | None = None, format: str = "auto") -> _pd.DataFrame:
    """Per-topic scores of several runs from score files, for comparing without the runs.

    ``compare``, ``analyse_measures`` and ``write_report`` take such scores in place of
    runs when ``qrels`` is None: ``pateval.api.compare(None, ["a.eval", "b.eval"], ["AP"])``.

    Parameters
    ----------
    sources : path, list of paths, or DataFrame
        Files written by ``trec_eval -q``, ``ir_measures -q`` (TSV or jsonl) or
        ``pateval evaluate -q`` (text, CSV, JSON) -- see :mod:`pateval.formats.scores` --
        or a frame ``run, topic, measure, value``.
    measures : str or sequence of str, optional
        The measures to keep (``AP`` matches trec_eval's ``map``); default: those every run has.
    format : {"auto", "trec_eval", "ir_measures", "pateval-csv", "pateval-json"}

    Returns
    -------
    DataFrame
        ``run, topic, measure, value``, measure names as pateval writes them where it knows them.
    """
    from .formats.scores import read_score_files

    if isinstance(measures, str):
        measures = [measures]
    if _inputs.is_frame(sources):
        frame = sources[sources["topic"].astype(str) != "all"]
        return frame if not measures else frame[frame["measure"].isin([str(parse_measure(m)) for m in measures])]
    if isinstance(sources, (str, _os.PathLike)):
        sources = [sources]
    return read_score_files(list(sources), measures=list(measures) if measures else None, format=format)


def compare(
    qrels,
    runs,
    measures: _Sequence[str] | str,
    *,
    baseline: str | None = None,
    test: str = "t",
    correction: str | None = "holm",
    alpha: float = 0.05,
    seed: int = 0,
    B: int | None = None,
    evaluate_options: _Mapping | None = None,
):
    """Evaluate runs and test them against a baseline, or all pairs, under each measure.

    Parameters
    ----------
    qrels, runs, measures
        As for :func:`evaluate`; or ``qrels=None`` and per-topic score files (or a frame
        ``run, topic, measure, value``) as ``runs``, see :func:`read_scores`.
    baseline : str, optional
        Name of the run to test the others against; default all pairs.
    test : {"t", "wilcoxon", "randomisation", "bootstrap", "tukey"}
    correction : {"holm", "bonferroni", "bh", None}
    alpha : float
    seed : int
        Seed of the resampling tests (reported with the results).
    B : int, optional
        Resamples (default 10,000 randomisation, 1,000 bootstrap, 5,000 Tukey HSD).
    evaluate_options : dict, optional
        Passed to :func:`evaluate` (e.g. ``{"complete": True}``).

    Returns
    -------
    pateval.stats.Comparison
        Means, every test, the settings and notes (e.g. topics left out);
        :func:`pateval.report.render_comparison` prints it as a table.
    """
    import dataclasses

    from .stats import compare_runs

    matrices, notes = _comparison_matrices(qrels, runs, measures, evaluate_options)
    shared = min(len(matrix) for matrix in matrices.values())
    if shared < 2:  # a paired test needs two topics: the means alone, and why
        return _untested_comparison(matrices, notes, shared, baseline=baseline, test=test, correction=correction,
                                    alpha=alpha)
    result = compare_runs(matrices, baseline=baseline, test=test, correction=correction, alpha=alpha, seed=seed, B=B)
    return dataclasses.replace(result, notes=tuple(notes))


_TEST_COLUMNS = ("measure", "run_a", "run_b", "n_topics", "mean_a", "mean_b", "difference", "statistic", "p_value",
                 "p_adjusted", "significant", "effect_size", "ci_low", "ci_high", "critical_difference", "test",
                 "correction", "alpha", "B", "seed")


def _untested_comparison(matrices, notes, shared: int, *, baseline, test, correction, alpha):
    """A :class:`~pateval.stats.Comparison` of the means only, with a note saying why no test was run."""
    import pandas as _pd

    from .stats import Comparison, mean_scores

    means = mean_scores(matrices)
    if baseline is not None and baseline not in means.index:
        raise _ParameterError(f"the baseline {baseline!r} is not among the runs {list(means.index)}")
    tests = _pd.DataFrame({column: _pd.Series([], dtype=bool if column == "significant" else object)
                           for column in _TEST_COLUMNS})
    untested = (f"no significance test was run: the runs share {shared} topic{'' if shared == 1 else 's'} "
                "and a paired test needs at least 2; the table gives the means only")
    _tell([untested])
    notes = [*notes, untested]
    return Comparison(means=means, tests=tests, topics={m: len(x) for m, x in matrices.items()}, baseline=baseline,
                      test=test, correction=correction or "none", alpha=float(alpha), B=None, seed=None,
                      notes=tuple(notes), scores={m: x for m, x in matrices.items()})


def analyse_measures(
    qrels,
    runs,
    measures: _Sequence[str] | str,
    *,
    test: str | _Sequence[str] = "bootstrap",
    agreement_test: str = "wilcoxon",
    alpha: float = 0.05,
    seed: int = 0,
    B: int | None = None,
    evaluate_options: _Mapping | None = None,
):
    """Evaluate runs and compare the measures: discriminative power, rank correlation, agreement.

    ``test`` may name several tests (e.g. ``["t", "randomisation", "bootstrap"]``, as
    Smucker & Clarke's table 2). See :func:`pateval.stats.analyse_measures`; returns its
    :class:`~pateval.stats.MeasureAnalysis`.
    """
    import dataclasses

    from .stats import analyse_measures as analyse

    matrices, notes = _comparison_matrices(qrels, runs, measures, evaluate_options)
    result = analyse(matrices, test=test, agreement_test=agreement_test, alpha=alpha, seed=seed, B=B)
    return dataclasses.replace(result, notes=tuple(notes))


def ranking_stability(
    qrels,
    runs,
    measures: _Sequence[str] | str,
    *,
    sizes: _Sequence[int | str] | str = (10, 25, 50, 100, "S", "M", "L", "XL"),
    trials: int = 20,
    seed: int = 0,
    evaluate_options: _Mapping | None = None,
) -> _pd.DataFrame:
    """How stable the ranking of the runs is on random topic subsets of growing size.

    Evaluates the runs, then per measure :func:`pateval.collection.sampling.ranking_stability`:
    for each size, ``trials`` random topic subsets (seeded), each ranking of the runs by
    their mean on the subset compared with their ranking on all topics by Kendall's tau.

    Parameters
    ----------
    qrels, runs, measures
        As for :func:`evaluate` (at least two runs).
    sizes : sequence of int or {"S", "M", "L", "XL"}, or str
        Topic-set sizes (S, M, L, XL: CLEF-IP's 500, 1000, 5000, 10000); a string is a
        comma-separated list (``"10,25,S"``).
    trials : int
        Random subsets per size.
    seed : int
        Seed of the subsets: the same seed gives the same subsets.
    evaluate_options : dict, optional
        Passed to :func:`evaluate` (e.g. ``{"complete": True}``).

    Returns
    -------
    pandas.DataFrame
        ``measure, size, topics, trials, mean_tau, min_tau, max_tau``; sizes above the
        number of topics are left out. ``frame.attrs["notes"]`` says which topics were left
        out (a run without a score for them), ``frame.attrs["settings"]`` holds the sizes
        (as text), trials and seed.
    """
    import pandas as _pd

    from .collection.sampling import ranking_stability as stability
    from .collection.sampling import resolve_size

    if isinstance(measures, str):
        measures = [measures]
    if isinstance(sizes, str):
        sizes = [part.strip() for part in sizes.split(",") if part.strip()]
    sizes = list(sizes)
    if not sizes:
        raise _ParameterError("sizes must name at least one topic-set size (a number, or S, M, L, XL)")
    for size in sizes:  # checked before the runs are evaluated; None (all topics) is no subset size
        if resolve_size(size) is None:
            raise _ParameterError("topic-set size must be S, M, L, XL or a positive integer, not None")
    matrices, notes = _comparison_matrices(qrels, runs, measures, evaluate_options)
    pieces = []
    for measure, matrix in matrices.items():
        scores = matrix.rename_axis(index="qid", columns="system").stack().rename("score").reset_index()
        pieces.append(stability(scores, sizes=sizes, trials=trials, seed=seed).assign(measure=measure))
    columns = ["measure", "size", "topics", "trials", "mean_tau", "min_tau", "max_tau"]
    frame = _pd.concat(pieces, ignore_index=True)[columns] if pieces else _pd.DataFrame(columns=columns)
    frame.attrs["notes"] = notes
    frame.attrs["settings"] = {"sizes": [str(size) for size in sizes], "trials": trials, "seed": seed}
    return frame


def write_report(
    qrels,
    runs,
    measures: _Sequence[str] | str,
    *,
    out: _PathLike,
    baseline: str | None = None,
    test: str = "t",
    correction: str | None = "holm",
    analysis_test: str = "bootstrap",
    agreement_test: str = "wilcoxon",
    alpha: float = 0.05,
    seed: int = 0,
    B: int | None = None,
    title: str = "pateval report",
    image_format: str = "svg",
    gain_over_time=None,
    ct_by_gamma: _pd.DataFrame | None = None,
    evaluate_options: _Mapping | None = None,
    calibration=None,
) -> _Path:
    """Evaluate runs and write one self-contained HTML report comparing runs and measures.

    The report holds the comparison table (``test``, ``correction`` against ``baseline`` or
    over all pairs), per-topic differences, and -- with two or more measures --
    discriminative power (``analysis_test``), rank correlation and the agreement chart.
    ``gain_over_time`` (frame ``run, time, gain``) and ``ct_by_gamma`` (frame
    ``run, gamma, score``) add the G(t) and Cube-Test-against-gamma plots; pateval's TBG and
    CT measures can produce them, or any other source. ``calibration``: a ``(result, figures)``
    pair from :func:`calibrate` and :func:`calibration_figures` adds a section with the TBG
    calibration. Returns the path written.
    """
    from .report import render_report, report_sections, write_html
    from .stats import analyse_measures as analyse
    from .stats import compare_runs

    matrices, notes = _comparison_matrices(qrels, runs, measures, evaluate_options)
    comparison = compare_runs(matrices, baseline=baseline, test=test, correction=correction, alpha=alpha, seed=seed,
                              B=B)
    analysis = analyse(matrices, test=analysis_test, agreement_test=agreement_test, alpha=alpha, seed=seed, B=B)
    sections = report_sections(comparison=comparison, analysis=analysis, matrices=matrices,
                               gain_over_time=gain_over_time,
                               ct_by_gamma=ct_by_gamma, image_format=image_format)
    if calibration is not None:
        from .report.calibration import calibration_section

        sections.append(calibration_section(*calibration, image_format=image_format))
    write_html(render_report(sections, title=title, runs=comparison.runs, measures=comparison.measures, notes=notes),
               out)
    return _Path(out)


# ---- baselines ------------------------------------------------------------------------------


def build_search_index(source, out: _PathLike, *, passages: bool = True, until: str | None = None,
                       heap_mb: int = 512, threads: int | None = None, progress: bool = False):
    """Index a corpus store (or patent XML, or records) with tantivy for baseline search.

    See :func:`pateval.search.index.build_index`; returns its
    :class:`~pateval.search.index.IndexSummary`.
    """
    from .search.index import build_index

    return build_index(source, out, passages=passages, until=until, heap_mb=heap_mb, threads=threads,
                       progress=progress)


def search(index, topics, *, model: str = "bm25", query: str = "claims", out: _PathLike | None = None,
           depth: int = 1000, candidates: int = 2000, date_filter: bool = True, exclude_family: bool = True,
           unit: str = "publication", progress: bool = False):
    """Run one baseline over the topics; write a TREC run when ``out`` is given.

    Parameters
    ----------
    index : path or SearchIndex
        Built by :func:`build_search_index`.
    topics : path or list of Topic
        A CLEF-IP topics file (``topics_PAC.xml``), a collection directory, or a
        directory of topic XML files.
    model : str
        ``bm25``, ``bm25:k1=0.9,b=0.4``, ``lm``, ``lm:mu=1000``, ``tfidf``.
    query : str
        A query strategy name (``claims``, ``title+claims,top=100``; see
        :mod:`pateval.search.queries`).
    depth, candidates, date_filter, exclude_family, unit
        See :class:`pateval.search.run.SearchConfig`.

    Returns
    -------
    pateval.search.run.RunResult
        ``.as_dict()`` gives ``{topic: {docno: score}}`` for :func:`evaluate`; the run
        tag is ``MODEL.STRATEGY``.
    """
    from .search.index import SearchIndex
    from .search.run import SearchConfig, load_topics, run_metadata, search_topics, write_trec_run

    config = SearchConfig(model=model, query=query, depth=depth, candidates=candidates, date_filter=date_filter,
                          exclude_family=exclude_family, unit=unit)
    opened = index if isinstance(index, SearchIndex) else SearchIndex(index)
    topic_list = load_topics(topics) if isinstance(topics, (str, _os.PathLike)) else list(topics)
    result = search_topics(opened, topic_list, config, progress=progress)
    if out is not None:  # with an ir_metadata header saying how the run was made (issue 15)
        named = topics if isinstance(topics, (str, _os.PathLike)) else None
        write_trec_run(result, out, metadata=run_metadata(config, opened, topics=named))
    return result


def search_grid(index, topics, out_dir: _PathLike | None, *, grid: str | None = "seeds",
                models: _Sequence[str] | None = None, queries: _Sequence[str] | None = None, depth: int = 1000,
                candidates: int = 2000, date_filter: bool = True, exclude_family: bool = True,
                unit: str = "publication", progress: bool = False):
    """Run a grid of baselines (every model times every query strategy), one run file each.

    ``grid`` names a preset (``seeds``: 3 models x 11 strategies = 33 runs; ``small``;
    ``models``); ``models`` and ``queries`` given instead make the grid. Runs are written
    as ``OUT_DIR/TAG.run``. Returns the list of :class:`~pateval.search.run.RunResult`.
    """
    from .search.index import SearchIndex
    from .search.run import grid_configs, load_topics, run_grid

    options = {"depth": depth, "candidates": candidates, "date_filter": date_filter, "exclude_family": exclude_family,
               "unit": unit}
    configs = grid_configs(models if models else grid, queries, **options)
    opened = index if isinstance(index, SearchIndex) else SearchIndex(index)
    topic_list = load_topics(topics) if isinstance(topics, (str, _os.PathLike)) else list(topics)
    named = topics if isinstance(topics, (str, _os.PathLike)) else None
    return run_grid(opened, topic_list, configs, out_dir, progress=progress, metadata=True, metadata_topics=named)


def search_passages(index, topics, *, model: str = "bm25", query: str = "claims", out: _PathLike | None = None,
                    documents: int = 20, passages_per_document: int = 10, progress: bool = False):
    """Passage retrieval for CLEF-IP passage topics (``topics_PSG.txt``): the paragraphs of
    the best ``documents`` ranked against each topic's claims; writes the 6-column passage
    run (``topic Q0 docno xpath rank score``) when ``out`` is given. Returns
    ``{topic: [(docno, xpath, score), ...]}``."""
    from .search.index import SearchIndex
    from .search.run import SearchConfig, load_passage_topics, write_passage_run
    from .search.run import search_passages as rank_passages

    opened = index if isinstance(index, SearchIndex) else SearchIndex(index)
    topic_list = load_passage_topics(topics) if isinstance(topics, (str, _os.PathLike)) else list(topics)
    results = rank_passages(opened, topic_list, SearchConfig(model=model, query=query, depth=documents,
                                                             candidates=max(2000, documents)),
                            documents=documents, passages_per_document=passages_per_document, progress=progress)
    if out is not None:
        write_passage_run(results, out)
    return results


# ---- flowcharts -----------------------------------------------------------------------------


def evaluate_flowcharts(
    truth_dir,
    submission_dir,
    *,
    level: str = "all",
    text_threshold: float = 0.2,
    time_budget: float | None = 2.0,
):
    """Score recognised flowcharts (CLEF-IP 2012/2013 encoding) against ground truth.

    Per image: the distance of Bunke & Shearer (1998), ``d = 1 - |mcs(G1, G2)| /
    max(|G1|, |G2|)`` with ``|G| = nodes + edges``, at the levels ``structure``, ``types``
    (node shapes, edge styles) and ``texts`` (also texts, normalised, within
    ``text_threshold`` relative edit distance); node, edge and text precision, recall and F1
    under the best node mapping of the ``types`` level; and ``mcs_approximate`` (1 when the
    exact search ran out of ``time_budget``). See :mod:`pateval.flowchart.scoring`.

    Parameters
    ----------
    truth_dir, submission_dir : path-like
        Directories of flowchart files, paired by file name without extension.
    level : {"all", "structure", "types", "texts"}
        Which distances to report.
    text_threshold : float
        Relative edit distance in [0, 1] up to which two normalised texts are equal.
    time_budget : float or None
        Seconds of exact search per pair and level (None: no limit).

    Returns
    -------
    pateval.flowchart.scoring.FlowchartEvaluation
        ``(scores, bad_files)``: a DataFrame ``measure, image, value`` (image ``all`` = the
        mean) and the list of problems found in the files (evaluation goes on without them).
    """
    from .flowchart.scoring import evaluate_flowchart_dirs, levels_for

    return evaluate_flowchart_dirs(
        truth_dir, submission_dir, levels=levels_for(level), text_threshold=text_threshold, time_budget=time_budget
    )


# ---- the assessment tool (pateval assess) -------------------------------------------------

def assess_app(db: str, *, store: _PathLike, collection: _PathLike | None = None):
    """The assessment web application (an ASGI app: ``uvicorn.run(app, host="127.0.0.1")``)
    over the database at URL ``db`` (``sqlite:///assess.db`` or ``postgresql://...``),
    a corpus store and a collection built from it. Needs ``pip install "pateval[assess]"``."""
    from .assess.app import create_app
    from .assess.commands import open_workspace

    engine, corpus = open_workspace(db, store=store, collection=collection, remember=True)
    return create_app(engine, corpus)


def assess_export(db: str, out: _PathLike, *, policy: str = "final", store: _PathLike | None = None,
                  collection: _PathLike | None = None) -> dict:
    """Write the qrels of an assessment database into the new directory ``out``, in the
    formats of :func:`build_collection` (``qrels_PSG.txt``, ``qrels_PSG_graded.txt``,
    ``qrels_PSG_docs.txt``, ``qrels_PSG_claims.txt``, ``theta_PSG.txt``, ``topics_PSG.tsv``,
    ``topics_PSG.txt``).

    Parameters
    ----------
    db : str
        Database URL.
    out : path-like
        A new directory.
    policy : str
        ``"final"`` (adjudicated, else agreed), ``"union"``, or an assessor's name.
    store, collection : path-like, optional
        Default: those the server was started with.

    Returns
    -------
    dict
        Counts and the unresolved disagreements (also in ``out/export.json``).
    """
    from .assess.commands import export

    return export(url=db, out=out, policy=policy, store=store, collection=collection)


def assess_import(db: str, qrels: _PathLike, *, owner: str, topics: _PathLike | None = None,
                  store: _PathLike | None = None, collection: _PathLike | None = None) -> dict:
    """Load passage qrels (``qid docno xpath``) into an assessment database as the
    judgements of assessor ``owner``, for review; ``topics`` (a ``topics_PSG.tsv``) defines
    topics the database lacks. All checked before anything is written."""
    from .assess.commands import import_qrels

    return import_qrels(url=db, qrels=qrels, owner=owner, topics=topics, store=store, collection=collection)
