"""Results broken down by a topic attribute: topic language, or any grouping the user gives.

CLEF-IP 2013 reported its passage task on all topics and on the English, German and French
subsets (Piroi et al., CLEF-IP 2013 overview, Figure 5: document-level recall per
language). Evaluation stays per topic; a breakdown is the mean (or, for counts, the sum)
of the per-topic values within each group, for every run and measure.

Groups come from a file of ``topic attribute`` lines (``--group-by FILE``; any attribute:
language, technical field, topic set) or from a CLEF-IP passage topics file, whose topics'
languages are those of their topic documents (:func:`pateval.formats.passages.topic_languages`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import malformed
from ..formats.source import iter_fields, read_bytes
from ..measures import parse_measures

__all__ = ["ALL", "group_summary", "plot_group_summary", "read_topic_groups"]

ALL = "all"


def read_topic_groups(path: str | os.PathLike[str]) -> dict[str, str]:
    """Topic -> group from ``topic attribute`` lines, or topic -> language from a PSG topics file.

    Raises
    ------
    pateval.errors.InputFormatError
        A line without exactly 2 fields, or a topic given two different groups (with its line).
    """
    path = Path(path)
    data = read_bytes(path)
    if b"<tid>" in data:
        from ..formats.passages import topic_languages

        return topic_languages(path)
    groups: dict[str, str] = {}
    first_line: dict[str, int] = {}
    for number, fields in iter_fields(path, data):
        if len(fields) != 2:
            malformed(path, number, "wrong number of fields", expected="2 fields: topic attribute", found=len(fields))
        topic, group = fields
        if topic in groups and groups[topic] != group:
            malformed(path, number, f"topic {topic} is given group {groups[topic]!r} at line {first_line[topic]}",
                      expected=groups[topic], found=group)
        groups[topic] = group
        first_line.setdefault(topic, number)
    return groups


def group_summary(frame: pd.DataFrame, groups: Mapping[str, str], measures: Sequence | None = None,
                  *, include_all: bool = True) -> tuple[pd.DataFrame, list[str]]:
    """Aggregate per-topic values within each group.

    Parameters
    ----------
    frame : DataFrame
        Per-topic values (``run, topic, measure, value``), as :func:`pateval.evaluate` returns.
    groups : mapping
        topic -> group.
    measures : sequence, optional
        For the aggregation rule (mean, or sum for counts) and the order; default: those in ``frame``.
    include_all : bool, default True
        Also give the ``all`` group (every evaluated topic).

    Returns
    -------
    (DataFrame, list of str)
        Columns ``run, group, measure, value, topics``; and notes (topics without a group).
    """
    if measures is None:
        measures = list(pd.unique(frame["measure"]))
    parsed = parse_measures(measures)
    group_of = frame["topic"].map(dict(groups))
    notes = []
    ungrouped = sorted(set(frame.loc[group_of.isna(), "topic"]))
    if ungrouped:
        shown = ", ".join(ungrouped[:5]) + (f", ... ({len(ungrouped) - 5} more)" if len(ungrouped) > 5 else "")
        notes.append(f"{len(ungrouped)} evaluated topic(s) have no group and count only in 'all': {shown}")
    labelled = frame.assign(group=group_of)
    pieces = [labelled.dropna(subset=["group"])]
    if include_all:
        pieces.insert(0, frame.assign(group=ALL))
    data = pd.concat(pieces, ignore_index=True)
    grouped = data.groupby(["run", "group", "measure"], sort=False)["value"]
    sums, means, counts = grouped.sum(), grouped.mean(), grouped.size()
    group_order = ([ALL] if include_all else []) + sorted(set(labelled["group"].dropna()))
    rows = []
    for run in pd.unique(frame["run"]):
        for measure in parsed:
            for group in group_order:
                key = (run, group, str(measure))
                if key in counts.index:
                    value = sums[key] if measure.spec.aggregate == "sum" else means[key]
                    rows.append((run, group, str(measure), float(value), int(counts[key])))
    return pd.DataFrame(rows, columns=["run", "group", "measure", "value", "topics"]), notes


def plot_group_summary(summary: pd.DataFrame, measure: str | None = None, *, title: str | None = None):
    """Grouped bars (one group of bars per run, one bar per topic group): CLEF-IP 2013's Figure 5.

    Parameters
    ----------
    summary : DataFrame
        From :func:`group_summary`.
    measure : str, optional
        The measure to plot; default the first in ``summary``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from .plots import new_figure  # matplotlib's object API: no pyplot, no backend switched for the caller

    if measure is None:
        measure = str(summary["measure"].iloc[0])
    if (data := summary[summary["measure"] == measure]).empty:
        raise ValueError(f"no values of {measure} to plot")
    runs = list(pd.unique(data["run"]))
    group_names = list(pd.unique(data["group"]))
    table = data.pivot(index="run", columns="group", values="value").reindex(index=runs, columns=group_names)
    figure, axes = new_figure(max(6.0, 0.9 * len(runs) * max(1, len(group_names)) / 2), 4.0)
    width = 0.8 / len(group_names)
    x = np.arange(len(runs))
    for i, group in enumerate(group_names):
        axes.bar(x + (i - (len(group_names) - 1) / 2) * width, table[group].fillna(0).to_numpy(), width,
                 label=str(group))
    axes.set_xticks(x)
    axes.set_xticklabels(runs, rotation=45 if len(runs) > 4 else 0, ha="right" if len(runs) > 4 else "center")
    axes.set(ylabel=measure, title=title or f"{measure} by topic group")
    axes.legend(title="topics")
    return figure
