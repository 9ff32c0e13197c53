"""Side inputs of measures, read from files: one declaration each.

Some measures need more than a ranking and qrels: document lengths (time-biased gain, the
Cube Test's time models), near-duplicate groups, subtopic weights, intent probabilities.
Each is declared here once -- its name in :class:`pateval.measures.EvaluationContext`,
its command-line option, its reader and the function that converts the other forms the
API takes (a mapping, a path) -- and ``pateval evaluate`` offers an option for every entry.
The evaluation converts every side input before scoring (:func:`prepare_resources`), so
that the measures read one form of each and import no reader.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import malformed

__all__ = ["Resource", "RESOURCES", "load_resources", "prepare_resources", "resource_options", "column_lines"]


@dataclass(frozen=True)
class Resource:
    """A side input: ``name`` in the evaluation context, ``option`` on the command line,
    ``reader`` the function that reads its file as ``"module:function"`` of
    :mod:`pateval.formats` (imported when a file is read, so that the command line's
    parser loads no reader); ``convert``, the same for the function that turns any form the
    API takes into the one the measures read (none: they read the value as given)."""

    name: str
    option: str
    help: str
    reader: str
    convert: str = ""

    def read(self, path: str) -> Any:
        return _function(self.reader)(path)


def _function(name: str) -> Any:
    module, function = name.split(":")
    return getattr(importlib.import_module(f"{__package__}.{module}"), function)


RESOURCES: list[Resource] = [
    Resource("doc_lengths", "--doc-lengths",
             "document lengths file (`docno length` lines, words) for time-based measures",
             "doclengths:read_doc_lengths"),
    Resource("duplicate_groups", "--duplicates", "near-duplicate groups file (one group per line: docnos separated "
             "by spaces) for TBG(duplicates=groups)", "groups:read_duplicate_groups"),
    Resource("patent_families", "--families",
             "patent families file (`docno family` lines) for TBG(duplicates=families)",
             "groups:read_patent_families"),
    Resource("intent_probabilities", "--intents", "intent probabilities file (`qid subtopic probability` lines, "
             "each topic summing to 1) for the subtopic measures' intents=file", "intents:read_intents",
             "intents:as_intent_probabilities"),
    Resource("subtopic_weights", "--subtopic-weights", "subtopic weights file (`qid subtopic weight` lines, e.g. the "
             "claim weights theta_ind=1, theta_dep=0.5) for the Cube Test's importance=weights and CT_p* variants",
             "weights:read_subtopic_weights", "weights:as_subtopic_weights"),
    Resource("iterations", "--iterations",
             "TREC DD run file (`topic<TAB>iteration<TAB>docno<TAB>score...`) giving each "
             "document's iteration, for CT/ACT with compat=trec-dd", "dd:read_dd_iterations",
             "dd:as_dd_iterations"),
    Resource("passage_qrels", "--passage-qrels", "CLEF-IP passage qrels (`topic [0] docno xpath`, spaces or commas) "
             "for P_psg and MAP_psg; not needed when the qrels given are passage qrels", "passages:read_passage_qrels"),
    Resource("preferences", "--prefs", "trec_eval preferences file (`qid jg jsg docno rel_level` lines) for the "
             "preference measures (PrefSimp, PrefPair, PrefAvgJG, ...)", "prefs:read_prefs"),
    Resource("judgement_groups", "--qrels-jg", "qrels with judgement groups (`qid jg docno rel` lines, the group in "
             "the iter column) for AP_avgJG, P_avgJG, Rprec_mult_avgJG", "prefs:read_qrels_jg"),
]
_BY_NAME = {r.name: r for r in RESOURCES}


def load_resources(paths: dict[str, str | None]) -> dict[str, Any]:
    """Read every side input given (``{resource name: path or None}``)."""
    return {name: _BY_NAME[name].read(path) for name, path in paths.items() if path is not None}


def prepare_resources(values: Mapping[str, Any]) -> dict[str, Any]:
    """Side inputs in the form the measures read: each given one (not None) converted by its
    declaration's ``convert``; names not declared here pass as they are."""
    return {name: _function(_BY_NAME[name].convert)(value)
            if name in _BY_NAME and _BY_NAME[name].convert and value is not None else value
            for name, value in values.items()}


def resource_options() -> dict[str, str]:
    """The command-line option of every side input (``doc_lengths`` -> ``--doc-lengths``)."""
    return {r.name: r.option for r in RESOURCES}


def column_lines(path: str | os.PathLike[str], names: str) -> Iterator[tuple[int, list[str]]]:
    """``(line_number, fields)`` of every line of a file of white-space separated columns,
    named by ``names`` (``"qid subtopic weight"``): the side inputs' layout. A line with
    another number of fields is an InputFormatError naming it."""
    from .source import iter_fields  # (the command line's parser imports this module, and no reader)

    width = len(names.split())
    for line, fields in iter_fields(path):
        if len(fields) != width:
            malformed(path, line, "wrong number of columns", expected=f"{width} columns: {names}", found=len(fields))
        yield line, fields
