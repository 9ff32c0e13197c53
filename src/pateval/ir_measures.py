"""pateval's measures inside ir_measures (and so inside PyTerrier's ``pt.Experiment``).

``import pateval.ir_measures`` registers every pateval measure that ir_measures lacks --
PRES, Rnorm, TBG, the Cube Test family (CT, ACT, the CT_* variants), D_nDCG, Dsharp_nDCG,
P_psg, MAP_psg -- through ir_measures' documented extension hooks: each is a
``ir_measures.measures.Measure`` subclass added with ``ir_measures.measures.register`` and
carrying a runtime implementation, which ir_measures' ``runtime`` provider (first in its
default pipeline) runs. The implementation builds pateval's :class:`~pateval.core.run.Run`
and :class:`~pateval.core.qrels.Qrels` from the frames ir_measures hands it and calls the
same evaluation core as ``pateval evaluate``, so the numbers are pateval's.

Measures both packages have (AP, nDCG, P, alpha_nDCG, ERR_IA, StRecall ...) stay with
ir_measures' own providers.

Names and parameters follow ir_measures' syntax: ``PRES@100``, ``TBG(halflife=600)``,
``CT(gamma=0.5)@10``, string values quoted: ``CT(time='tbg')@10``. Side inputs (document
lengths, subtopic weights, intent probabilities, TREC DD iterations, duplicate groups,
patent families, passage qrels) are measure parameters naming a file
(``TBG(doc_lengths='lengths.txt')``) or set once for all measures with
:func:`set_resources`. Subtopic measures read the subtopic from a qrels ``subtopic_id``
column (ir_datasets' TrecSubQrel) or else from ``iteration`` (ir_measures' convention for
its diversity measures); qrels whose iteration is 0 on every line have no subtopics, and
subtopic measures refuse them as ``pateval evaluate`` does; passage measures read a
``passage`` column (the XPath) from the run and the qrels, or passage qrels given as a
resource.

ir_measures scores every qrels topic: a topic the run misses gets the measure's default 0
(as ``pateval evaluate -c``); topics present in both get pateval's values.

>>> import ir_measures, pateval.ir_measures
>>> qrels = {"q1": {"d1": 1, "d2": 1}}
>>> run = {"q1": {"d1": 2.0, "d3": 1.0}}
>>> ir_measures.calc_aggregate([ir_measures.parse_measure("PRES@10")], qrels, run)
{PRES@10: 0.5}
"""

from __future__ import annotations

import os
from typing import Any

import ir_measures
from ir_measures.measures import Measure as _IrMeasure
from ir_measures.measures import ParamInfo
from ir_measures.measures import register as _register

from .core.qrels import Qrels
from .core.run import Run
from .errors import ParameterError
from .evaluation import evaluate_runs
from .formats.resources import RESOURCES, prepare_resources, resource_options
from .measures import EvaluationContext, MeasureSpec, all_specs
from .measures import Measure as PatevalMeasure
from .memo import Memo
from .options import EvaluationOptions

__all__ = ["MEASURES", "set_resources", "clear_resources", "measure_class"]

#: pateval measures ir_measures already has under another name (kept with ir_measures).
_EQUIVALENT = {"I_rec": "StRecall"}
_RESOURCE_READERS = {r.name: r.read for r in RESOURCES}
#: Resources set once for every pateval measure (see :func:`set_resources`).
_SHARED: dict[str, Any] = {}
#: The frames ir_measures is evaluating (it calls each measure in turn with the same two)
#: and the memo of what is made from them: their conversion, the resource files read, what
#: the measures share. Replaced when other frames come: nothing outlives their evaluation.
_FRAMES: list[tuple[Any, Any, Memo]] = []


def set_resources(**resources: Any) -> None:
    """Set side inputs once for every pateval measure computed through ir_measures.

    Parameters
    ----------
    **resources
        ``doc_lengths``, ``subtopic_weights``, ``intent_probabilities``, ``iterations``,
        ``duplicate_groups``, ``patent_families``, ``passage_qrels``: a path (read with
        pateval's reader of that file) or the loaded object; None removes one.

    Examples
    --------
    >>> import pateval.ir_measures as pim
    >>> pim.set_resources(doc_lengths={"d1": 120, "d2": 300})
    >>> pim.clear_resources()
    """
    unknown = sorted(set(resources) - set(_RESOURCE_READERS))
    if unknown:
        raise ParameterError(f"unknown resource {unknown[0]!r}; known: {', '.join(sorted(_RESOURCE_READERS))}")
    for name, value in resources.items():
        if value is None:
            _SHARED.pop(name, None)
        else:
            _SHARED[name] = _load(name, value)


def clear_resources() -> None:
    """Forget every resource set with :func:`set_resources`."""
    _SHARED.clear()


def _load(name: str, value: Any, memo: Memo | None = None) -> Any:
    """A resource file read (once per path and modification time in ``memo``); objects pass through."""
    if not isinstance(value, (str, os.PathLike)):
        return value
    path = os.fspath(value)
    if memo is None:
        return _RESOURCE_READERS[name](path)
    key = (name, os.path.abspath(path), os.stat(path).st_mtime if os.path.exists(path) else 0.0)
    return memo.get(key, lambda: _RESOURCE_READERS[name](path))


def _param_info(param) -> ParamInfo:
    dtype = {float: (int, float), int: int, bool: bool, str: str}[param.kind]
    info = ParamInfo(dtype=dtype, default=param.default, desc=param.description)
    if param.choices is not None:
        info.choices = tuple(param.choices)
    return info


class _PatevalIrMeasure(_IrMeasure):
    """An ir_measures measure computed by pateval (one subclass per pateval measure)."""

    SPEC: MeasureSpec
    DEFAULT = 0.0

    def pateval_measure(self) -> PatevalMeasure:
        """The pateval :class:`~pateval.measures.Measure` with these parameters."""
        own = {p.name for p in self.SPEC.params}
        params = {k: v for k, v in self.params.items() if k in own}
        return PatevalMeasure.make(self.SPEC, params, self.params.get("cutoff"))

    def _context(self, memo: Memo) -> EvaluationContext:
        resources = dict(_SHARED)
        for name in _RESOURCE_READERS:
            if self.params.get(name) is not None:
                resources[name] = _load(name, self.params[name], memo)
        return EvaluationContext(prepare_resources(resources), memo, resource_options())

    def runtime_impl(self, qrels, run):
        """Called by ir_measures' runtime provider with its qrels and run frames."""
        measure = self.pateval_measure()
        if len(run) == 0:
            return
        if not _FRAMES or _FRAMES[0][0] is not qrels or _FRAMES[0][1] is not run:  # other frames: a new memo
            _FRAMES[:] = [(qrels, run, Memo())]
        memo = _FRAMES[0][2]
        pqrels, prun, passage_run = memo.get("converted", lambda: _convert(qrels, run))
        context = self._context(memo)
        if passage_run is not None:
            context.resources.setdefault("passage_runs", passage_run)
        if "passage_qrels" in self.SPEC.requires and "passage_qrels" not in context.resources and pqrels.has("passage"):
            context.resources["passage_qrels"] = pqrels
        frame = evaluate_runs(pqrels, [prun], EvaluationOptions(measures=(measure,), resources=context.resources)).frame
        for topic, value in zip(frame["topic"].tolist(), frame["value"].tolist(), strict=True):
            yield ir_measures.Metric(str(topic), self, float(value))


def _convert(qrels, run):
    """pateval's Qrels and Run from ir_measures' frames (and the passage run, if any)."""
    # ir_measures keeps subtopics in TREC's iteration column (for document-level measures a
    # document's best grade over its subtopics is used); plain TREC qrels (iteration 0 on every
    # line) have no subtopics, so that subtopic measures are refused as `pateval evaluate` refuses them
    read_iteration = "iteration" in qrels.columns and "subtopic_id" not in qrels.columns \
        and "subtopic" not in qrels.columns and not (qrels["iteration"].astype(str) == "0").all()
    pqrels = Qrels.from_frame(qrels, subtopics="iteration" if read_iteration else None, source="<ir_measures qrels>")
    passage_run = None
    if "passage" in run.columns:
        from .formats.passages import PassageRun

        # ranked by score (a document where its best passage is), whatever order ir_measures sorted into
        ordered = run.sort_values(["query_id", "score", "doc_id", "passage"], ascending=[True, False, True, True],
                                  kind="stable")
        ranks = ordered["rank"].tolist() if "rank" in ordered.columns else [1] * len(ordered)
        passage_run = PassageRun.from_records(zip(ordered["query_id"].astype(str), ordered["doc_id"].astype(str),
                                                  ordered["passage"].astype(str), ranks,
                                                  ordered["score"].astype(float), strict=False),
                                              fields=("query_id", "doc_id", "passage", "rank", "score"),
                                              name="run", source="<ir_measures run>")
        prun = passage_run.document_run()
    else:
        prun = Run.from_frame(run, name="run", source="<ir_measures run>")
    return pqrels, prun, passage_run


def measure_class(spec: MeasureSpec) -> type:
    """The ir_measures measure class of a pateval measure spec."""
    supported = {p.name: _param_info(p) for p in spec.params}
    if spec.cutoff != "none":
        supported["cutoff"] = ParamInfo(dtype=int, required=spec.cutoff == "required", desc="ranking cutoff (@k)")
    for name in _RESOURCE_READERS:
        supported[name] = ParamInfo(dtype=object, default=None,
                                    desc=f"a {name.replace('_', ' ')} file for this measure (see pateval.ir_measures)")
    return type(spec.name, (_PatevalIrMeasure,), {
        "SPEC": spec, "NAME": spec.name, "__name__": spec.name, "SUPPORTED_PARAMS": supported,
        "RUN_INPUTS": ["query_id", "doc_id", "score"], "QREL_INPUTS": ["query_id", "doc_id", "relevance"],
        "__doc__": f"{spec.summary}\n\n{spec.formula}\n\nReference: {spec.reference} (computed by pateval)",
    })


def _register_all() -> dict[str, _PatevalIrMeasure]:
    registered = {}
    for spec in all_specs():
        if spec.name in ir_measures.measures.registry:
            existing = ir_measures.measures.registry[spec.name]
            if isinstance(existing, _PatevalIrMeasure):  # module reloaded
                registered[spec.name] = existing
            continue
        if spec.name in _EQUIVALENT:
            continue
        measure = measure_class(spec)()
        _register(measure, name=spec.name)
        registered[spec.name] = measure
    return registered


#: The measures registered with ir_measures, by name (e.g. ``MEASURES["PRES"]@100``).
MEASURES: dict[str, _PatevalIrMeasure] = _register_all()
globals().update(MEASURES)
__all__ += sorted(MEASURES)


if __name__ == "__main__":  # `python -m pateval.ir_measures QRELS RUN 'PRES@100' AP -q`: ir_measures' command
    from ir_measures.__main__ import main_cli

    main_cli()
