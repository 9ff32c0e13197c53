"""Calibration: TBG's constants from interaction logs, and simulated logs."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from ..core.docids import patent_key
from ..errors import ParameterError
from ..formats.inputs import as_qrels, as_runs
from ..measures import Measure, parse_measure
from ..options import EvaluationOptions
from .usermodel import time_to_rank

if TYPE_CHECKING:  # pandas is imported by the functions that build frames (the command line starts without it)
    import pandas as pd

    from ..core.run import Run


def _rankings_of(qrels, runs, *, lists, rel: int, options: EvaluationOptions) -> dict:
    """``{list id: ListRanking}`` from the runs ranked against the qrels (a lists file maps lists)."""
    import numpy as np

    from ..calibration.frames import ranked_runs
    from ..calibration.tbg import ListRanking
    from ..formats.interactions import read_list_map

    whole_runs = cast("list[Run]", list(as_runs(runs, on_duplicate=options.on_duplicate,  # no blocks: whole runs
                                                run_format=options.run_format)))
    ranked = ranked_runs(as_qrels(qrels, qrels_format=options.qrels_format, on_duplicate=options.on_duplicate),
                         whole_runs, order=options.order, doc_key=options.doc_key)
    by_run: dict[str, dict] = {}
    for rankings in ranked:
        relevant = rankings.relevant(rel)
        docnos = rankings.docno
        per_topic = {}
        for t, topic in enumerate(rankings.topic_ids):
            rows = slice(int(rankings.ptr[t]), int(rankings.ptr[t + 1]))
            per_topic[str(topic)] = ListRanking(str(topic), np.asarray(docnos[rows], dtype=object),
                                                relevant[rows].copy())
        by_run[rankings.run_name] = per_topic
    if lists is None:
        if len(by_run) != 1:
            raise ParameterError(f"{len(by_run)} runs given: a lists file must say which run (and topic) each list is")
        return next(iter(by_run.values()))
    mapping = read_list_map(lists) if isinstance(lists, (str, os.PathLike)) else dict(lists)
    out = {}
    for list_id, (topic, run_name) in mapping.items():
        if run_name is None:
            if len(by_run) != 1:
                raise ParameterError(f"list {list_id!r}: {len(by_run)} runs given, name the run of every list")
            run_name = next(iter(by_run))
        if run_name not in by_run:
            raise ParameterError(f"list {list_id!r}: no run named {run_name!r} (runs: {', '.join(sorted(by_run))})")
        ranking = by_run[run_name].get(str(topic))
        if ranking is None:
            raise ParameterError(f"list {list_id!r}: run {run_name!r} ranks no documents for topic {topic!r} in the "
                                 f"qrels")
        out[str(list_id)] = ranking
    return out


def _side_files(doc_lengths, duplicates) -> tuple:
    """The document lengths and the near-duplicate groups (None: none), each read when given as a path."""
    from ..formats.doclengths import read_doc_lengths
    from ..formats.groups import read_duplicate_groups

    return tuple(reader(value) if isinstance(value, (str, os.PathLike)) else value
                 for value, reader in ((doc_lengths, read_doc_lengths), (duplicates, read_duplicate_groups)))


def _duplicate_labels(measure, resources: Mapping):
    """The near-duplicate group of a document, as the TBG measure's ``duplicates`` mode defines it (None: none)."""
    mode = measure["duplicates"]
    needed = {"groups": ("duplicate_groups", "the near-duplicate groups (--duplicates)"),
              "families": ("patent_families", "the patent families (--families)")}
    if mode in needed:
        resource, what = needed[mode]
        if (labels := resources.get(resource)) is None:
            raise ParameterError(f"{measure}: duplicates={mode} needs {what}")
        return lambda docno: labels.get(docno, docno)
    if mode == "patent":
        return patent_key
    return None


def calibrate(log, *, qrels, runs, doc_lengths, duplicates=None, lists=None, by: str | None = None,
              n_classes: int = 2, B: int = 1000, seed: int = 0, confidence: float = 0.95, rel: int = 1,
              options: EvaluationOptions | None = None):
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
    options : EvaluationOptions, optional
        How the qrels and runs are read and ranked (``qrels_format``, ``order``, ``doc_key``,
        ``on_duplicate``).

    Returns
    -------
    CalibrationResult
        ``.frame()`` (``group, parameter, value, ci_low, ci_high, user_average, users``),
        ``.calibrations[i].measure`` (the TBG measure name, e.g. for :func:`evaluate`),
        ``.to_json()``.
    """
    import pandas as pd

    from ..calibration.tbg import calibrate_log
    from ..formats.interactions import InteractionLog, log_from_frame, read_interaction_log

    parsed = (log if isinstance(log, InteractionLog) else log_from_frame(log) if isinstance(log, pd.DataFrame)
              else read_interaction_log(log))
    rankings = _rankings_of(qrels, runs, lists=lists, rel=rel, options=options or EvaluationOptions())
    lengths, groups = _side_files(doc_lengths, duplicates)
    return calibrate_log(parsed, rankings, lengths=lengths, groups=groups, by=by, n_classes=n_classes, B=B, seed=seed,
                         confidence=confidence, rel=rel)


def calibration_figures(result, *, doc_lengths, duplicates=None) -> dict:
    """The calibration's figures, by name: reading time against length with the fit (the
    paper's Figure 1), T(k) against the ranks users reached (Figure 2), the stopping curve
    with the fitted exponential (Figure 5); and ``validation``, the rank errors behind Figure 2."""
    from ..report.calibration import calibration_figures as figures

    lengths, groups = _side_files(doc_lengths, duplicates)
    return figures(result, result.rankings, lengths, groups=groups)


def simulate_log(qrels, run, *, doc_lengths, model: str | Measure = "TBG", n_users: int = 48, seed: int = 0,
                 out: str | os.PathLike | None = None, page_size: int = 10, p_save_nonrel: float = 0.27,
                 summary_noise: float = 0.5, read_noise: float = 0.5, speed_spread: float = 0.0,
                 options: EvaluationOptions | None = None) -> pd.DataFrame:
    """Simulate users who behave as a TBG calibration says, as an interaction log (one session per user and topic).

    Parameters
    ----------
    qrels, run
        The judgements and the run whose rankings the users work through (list id = topic).
    doc_lengths : path or mapping
    model : str or Measure, default "TBG"
        The calibration, as a TBG measure name; with ``duplicates=groups`` and
        ``options.resources["duplicate_groups"]`` near-duplicates are read as length 0.
    n_users, seed
    out : path, optional
        Also write the log (``.csv``, ``.jsonl``, ``.parquet``, ``.gz``), atomically.
    page_size, p_save_nonrel, summary_noise, read_noise, speed_spread
        See :mod:`pateval.usermodel.logsim` (the noise is documented there).
    options : EvaluationOptions, optional
        How the qrels and run are read and ranked, and the side inputs, as for :func:`time_to_rank`.

    Returns
    -------
    DataFrame
        ``user, list, time, event, rank, docno``.
    """
    from ..formats.interactions import write_interaction_log
    from ..usermodel.logsim import SimulatedList
    from ..usermodel.logsim import simulate_log as _simulate

    frame = time_to_rank(qrels, run, model=model, doc_lengths=doc_lengths, options=options)
    measure = parse_measure(model) if isinstance(model, str) else model
    from ..measures.tbg import time_model_of

    label_of = _duplicate_labels(measure, options.resources if options else {})
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
