"""Evaluating runs against qrels: :func:`evaluate` (a frame) and :func:`evaluation` (with its notes)."""

from __future__ import annotations

import dataclasses
import logging
import os
import sys
import warnings
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from ..evaluation import Evaluation, evaluate_runs
from ..formats.inputs import as_qrels, as_runs
from ..formats.source import streams_kept
from ..measures import all_specs
from ..options import EvaluationOptions
from .passages import passage_inputs

if TYPE_CHECKING:  # pandas is imported by the functions that build frames (the command line starts without it)
    import pandas as pd


def evaluation(qrels, runs, measures: Any = None, *, options: EvaluationOptions | None = None,
               **keywords: Any) -> Evaluation:
    """Like :func:`evaluate`, returning the :class:`~pateval.evaluation.Evaluation` with its notes
    (told to the ``pateval`` logger and, for topics left out, as a warning, as :func:`evaluate` does)."""
    from ..formats.runblocks import DEFAULT_BLOCK_BYTES

    options = _options(measures, options, keywords)
    block_bytes = DEFAULT_BLOCK_BYTES if options.block_bytes is None else options.block_bytes
    if options.cuts_runs:
        block_bytes = 0  # trec_eval's -M and -J cut each run whole (issue 14)
    with streams_kept():  # standard input sniffed for passages is kept for its reader, until the end
        qrels, runs, side = passage_inputs(qrels, runs, options.resources, on_duplicate=options.on_duplicate)
        result = evaluate_runs(as_qrels(qrels, qrels_format=options.qrels_format, on_duplicate=options.on_duplicate),
                               as_runs(runs, on_duplicate=options.on_duplicate, block_bytes=block_bytes,
                                       run_format=options.run_format),
                               dataclasses.replace(options, resources=side))
    tell(result.notes)
    return result


def read_inputs(qrels, runs, options: EvaluationOptions | None = None) -> tuple[Any, list[Any], EvaluationOptions]:
    """Qrels and runs read once, whole, for several steps that use them (the report and its
    budgets section): the qrels, the runs (:class:`~pateval.core.run.Run`, named as
    :func:`evaluate` names them) and ``options`` with the passages' side inputs routed, as
    :func:`evaluation` reads them; give the three to each step."""
    options = options or EvaluationOptions()
    with streams_kept():
        qrels, runs, side = passage_inputs(qrels, runs, options.resources, on_duplicate=options.on_duplicate)
        read = as_qrels(qrels, qrels_format=options.qrels_format, on_duplicate=options.on_duplicate)
        whole = list(as_runs(runs, on_duplicate=options.on_duplicate, run_format=options.run_format))
    return read, whole, dataclasses.replace(options, resources=side)


def _options(measures: Any, options: EvaluationOptions | None, keywords: Mapping[str, Any]) -> EvaluationOptions:
    """The options of one evaluation: ``options`` (default: the defaults), with the measures
    and the keywords given (the fields of :class:`~pateval.options.EvaluationOptions`) in place."""
    if measures is not None:
        keywords = {**keywords, "measures": measures}
    if "resources" in keywords:
        keywords = {**keywords, "resources": dict(keywords["resources"] or {})}
    return dataclasses.replace(options or EvaluationOptions(), **keywords)


def evaluate(qrels, runs, measures: Any = None, *, style: str = "pateval", options: EvaluationOptions | None = None,
             **keywords: Any) -> pd.DataFrame:
    """Evaluate runs against qrels: one row per (run, topic, measure).

    Parameters
    ----------
    qrels : path, Qrels or dict
        A qrels file (any format of :func:`read_qrels`), loaded qrels, or ``{topic: {docno: rel}}``.
    runs : path, Run, dict, or a list / dict of them
        One run or several; a dict maps run names to paths or runs.
    measures : str or sequence of str
        Measure names (``"AP"``, ``"P@10"``, ``"nDCG@10"``, ``"PRES@100"`` ...).
    style : {"pateval", "pyterrier"}, default "pateval"
        Column names: pateval's, or PyTerrier's per-query ``pt.Experiment`` frame
        (``name, qid, measure, value``).
    options : EvaluationOptions, optional
        How the runs are read, ranked and scored (see :class:`pateval.options.EvaluationOptions`).
    **keywords
        Any field of :class:`~pateval.options.EvaluationOptions` (``complete=True``,
        ``resources={"doc_lengths": ...}`` ...), in place of the one of ``options``.

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
    from ..validation import check_choice

    check_choice("style", style, ("pateval", "pyterrier"))
    result = evaluation(qrels, runs, measures, options=options, **keywords)
    frame = result.frame
    frame.attrs["notes"] = list(result.notes)
    if style == "pyterrier":  # issue 15: PyTerrier's column names on request
        frame = frame.rename(columns={"run": "name", "topic": "qid"})
    if result.run_metadata:
        frame.attrs["run_metadata"] = dict(result.run_metadata)
    return frame


_log = logging.getLogger("pateval")


def tell(notes: Sequence[str]) -> None:
    """A notebook user sees the notes: each to the ``pateval`` logger (INFO), and topics left
    out of the means also as a :class:`~pateval.errors.TopicsLeftOutWarning`."""
    from ..errors import DocKeyWarning, TopicsLeftOutWarning
    from ..executor import DocKeyNote, TopicsLeftOut

    for note in notes:
        _log.info("%s", note)
        if isinstance(note, TopicsLeftOut):
            warnings.warn(str(note), TopicsLeftOutWarning, stacklevel=_caller_level())
        elif isinstance(note, DocKeyNote):
            warnings.warn(str(note), DocKeyWarning, stacklevel=_caller_level())


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside pateval: the user's line that called it."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # pateval, not pateval.api
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    return level


def written_names(measures: Any) -> dict[str, str]:
    """The name each measure was asked by, where it differs from pateval's (``{"AP": "map"}`` for
    ``-m map``): what the commands print, so that a user finds the name they wrote. A name
    that stands for several measures (trec_eval's ``P.5,10``) keeps theirs."""
    from ..measures import parse_measures

    written: dict[str, str] = {}
    for text in [measures] if isinstance(measures, str) else list(measures or ()):
        parsed = parse_measures([text]) if isinstance(text, str) else []
        if len(parsed) == 1 and str(parsed[0]) != text.strip():
            written.setdefault(str(parsed[0]), text.strip())
    return written


def list_measures() -> pd.DataFrame:
    """Every registered measure with its parameters, defaults and reference."""
    import pandas as pd

    return pd.DataFrame([{"name": spec.name, "family": spec.family, "cutoff": spec.cutoff, "summary": spec.summary,
                          "formula": spec.formula, "parameters": [p.describe() for p in spec.params],
                          "aggregate": spec.aggregate, "aliases": ", ".join(spec.aliases), "reference": spec.reference}
                         for spec in all_specs()])


def measures_document(family: str | None = None) -> str:
    """The measures as one Markdown document: docs/measures.md (``scripts/make_measures_doc.py``
    writes it) and ``pateval measures --format markdown`` (only ``family``'s, if given)."""
    lines = ["# Measures", "",
             "Generated from the registry by `scripts/make_measures_doc.py`; `pateval measures` prints the same.",
             "Names: `NAME[(param=value,...)][@k]`; parameters left at their default are not written.", ""]
    current = None
    for spec in all_specs():
        if family is not None and spec.family != family:
            continue
        if spec.family != current:
            current = spec.family
            lines += [f"## {current}", ""]
        cutoff = {"none": "", "optional": "[@k]", "required": "@k"}[spec.cutoff]
        lines += [f"### `{spec.name}{cutoff}`", "", f"{spec.summary}.", "", f"    {spec.formula}", ""]
        lines += [f"- {param.describe()}" for param in spec.params] + ([""] if spec.params else [])
        extra = []
        if spec.aggregate == "sum":
            extra.append("summed over topics in the `all` line")
        if spec.requires:
            extra.append("needs " + ", ".join(sorted(spec.requires)))
        if spec.aliases:
            extra.append("also read as " + ", ".join(f"`{a}`" for a in spec.aliases))
        if extra:
            lines += ["; ".join(extra).capitalize() + ".", ""]
        lines += [f"Reference: {spec.reference}", ""]
    return "\n".join(lines)


def example_files() -> tuple[Path, list[Path]]:
    """The example qrels and runs that ship with pateval (synthetic, seeded; see data/examples/README)."""
    root = Path(str(resources.files("pateval") / "data" / "examples"))
    return root / "qrels.txt", sorted(root.glob("run*.txt"))


