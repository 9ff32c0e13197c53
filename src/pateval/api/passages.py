"""Passage runs and passage qrels: routed to both levels of an evaluation, checked as CLEF-IP's
organisers did, and results broken down by topic group."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.qrels import Qrels
from ..core.run import Run
from ..errors import ParameterError
from ..formats.inputs import is_frame, is_ranx, is_records, is_single_run_dict

if TYPE_CHECKING:  # pandas is imported by the functions that build frames (the command line starts without it)
    import pandas as pd


def passage_inputs(qrels, runs, resources, *, on_duplicate: str):
    """Passage runs and passage qrels given to :func:`evaluation`, routed to both levels.

    A run file with an XPath in its 4th column (or a :class:`PassageRun`) is a CLEF-IP
    passage run: it is evaluated as its document-level run (each document at its first
    occurrence in passage-rank order, headings removed) by every measure, and its passages
    go to ``resources["passage_runs"]`` (run name -> PassageRun) for ``P_psg`` and
    ``MAP_psg``. A qrels file whose lines end with an XPath is read as passage qrels:
    its documents are the document-level judgements and its passages fill
    ``resources["passage_qrels"]`` unless one was given.
    """
    from ..formats.passages import (
        PassageRun,
        looks_like_passage_qrels,
        looks_like_passage_run,
        read_passage_qrels,
        read_passage_run,
    )

    resources = dict(resources or {})
    if isinstance(qrels, (str, os.PathLike)) and looks_like_passage_qrels(qrels):
        qrels = read_passage_qrels(qrels)
    if isinstance(qrels, Qrels) and qrels.format == "clefip-psg":
        resources.setdefault("passage_qrels", qrels)
    given = resources.get("passage_runs")
    found: dict = {}

    def routed(item, name):
        if isinstance(item, (str, os.PathLike)) and looks_like_passage_run(item):
            item = read_passage_run(item, on_duplicate=on_duplicate, name=name)
        if isinstance(item, PassageRun):
            if name is not None and item.name != name:
                item = dataclasses.replace(item, name=name, _cache={})
            found[item.name] = item
            return item.document_run()
        return item

    if isinstance(runs, (str, os.PathLike, PassageRun, Run)):
        runs = [routed(runs, None)]
    elif is_frame(runs) or is_ranx(runs, "Run") or is_records(runs):
        runs = [runs]  # one run in a tool's form (issue 15), read by as_run
    elif isinstance(runs, Mapping):
        if not is_single_run_dict(runs):
            runs = {key: routed(value, str(key)) for key, value in runs.items()}
    else:
        runs = [routed(item, None) for item in runs]
    if found:
        if isinstance(given, Mapping):
            found = {**given, **found}
        elif isinstance(given, PassageRun):
            found = {given.name: given, **found}
        resources["passage_runs"] = found
    return qrels, runs, resources


def check_passage_run(run: str | os.PathLike, *, topics: str | os.PathLike | None = None, store=None,
                      max_documents: int = 100, fix: str | os.PathLike | None = None,
                      log: str | os.PathLike | None = None):
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
    from ..check import check_passage_run as _check
    from ..check import fix_passage_run as _fix
    from ..formats.source import streams_kept

    with streams_kept():  # standard input: checked, then read again to be fixed
        report = _check(run, topics=topics, store=store, max_documents=max_documents)
        if fix is not None:
            _fix(report, fix, log=log)
        elif log is not None:
            raise ParameterError("log goes with fix")
    return report


def evaluate_by_group(frame: pd.DataFrame, groups, *, measures=None,
                      plot: str | os.PathLike | None = None) -> pd.DataFrame:
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
    from ..formats.atomic import atomic_output
    from ..report.breakdown import group_summary, plot_group_summary, read_topic_groups

    if not isinstance(groups, Mapping):
        groups = read_topic_groups(groups)
    summary, notes = group_summary(frame, groups, measures)
    summary.attrs["notes"] = notes
    if plot is not None:
        suffix = Path(plot).suffix.lstrip(".").lower() or "png"
        with atomic_output(plot, "wb") as handle:
            plot_group_summary(summary).savefig(handle, format=suffix, dpi=150)
    return summary
