"""The public Python API of pateval. The command line (:mod:`pateval.cli`) is a thin layer
over these functions, and each of them is a thin layer over the package's modules.

One module per concern: :mod:`~pateval.api.evaluate` (runs against qrels),
:mod:`~pateval.api.usermodel` and :mod:`~pateval.api.calibration` (time-biased gain's
user), :mod:`~pateval.api.collection` (patents, corpus stores, test collections),
:mod:`~pateval.api.passages`, :mod:`~pateval.api.compare` (comparing systems and
measures), :mod:`~pateval.api.search` (baselines), :mod:`~pateval.api.flowchart` and
:mod:`~pateval.api.assess`; every public name is here.
"""

from __future__ import annotations

from ..core.docids import patent_key, patent_keys
from ..core.qrels import Qrels
from ..core.run import Run
from ..evaluation import Evaluation, aggregate, evaluate_runs
from ..formats.qrels import read_qrels
from ..formats.trec import read_run, write_run
from ..measures import EvaluationContext, Measure, all_specs, parse_measure
from ..options import EvaluationOptions
from .assess import assess_app, assess_export, assess_import, assess_pool
from .calibration import calibrate, calibration_figures, simulate_log
from .collection import build_collection, corpus_doc_lengths, generate_corpus
from .compare import analyse_measures, compare, ranking_stability, read_scores, write_report
from .evaluate import evaluate, evaluation, example_files, list_measures, measures_document
from .flowchart import evaluate_flowcharts
from .passages import check_passage_run, evaluate_by_group
from .pooling import (
    estimate_from_sample,
    fuse,
    leave_out,
    make_pool,
    pool_stats,
    read_pool,
    sample_pool,
    simulate_budgets,
    write_pool,
)
from .search import build_search_index, search, search_grid, search_passages
from .usermodel import simulate_users, time_to_rank

#: Public functions of modules that import heavy libraries (lxml, DuckDB, Arrow): imported on
#: first use (PEP 562), ``{name: (module, its name there)}``.
_ON_FIRST_USE = {"iter_patents": ("..patents", "iter_patents"), "read_patent": ("..patents", "read_patent"),
                 "ingest_corpus": ("..collection.ingest", "ingest"),
                 "verify_corpus": ("..collection.ingest", "verify_store"),
                 "collection_stats": ("..collection.stats", "collection_stats"),
                 "open_corpus": ("..collection.store", "CorpusStore")}


def __getattr__(name: str):
    if name in _ON_FIRST_USE:
        import importlib

        module, defined = _ON_FIRST_USE[name]
        return getattr(importlib.import_module(module, __name__), defined)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

# The public API: the functions of this package's modules, and the names they re-export from
# the modules that define them (and those loaded on first use, above).
__all__ = ["Evaluation", "EvaluationContext", "EvaluationOptions", "Measure", "Qrels", "Run", "aggregate", "all_specs",
           "analyse_measures", "assess_app", "assess_export", "assess_import", "assess_pool", "build_collection",
           "build_search_index", "calibrate", "calibration_figures", "check_passage_run", "collection_stats",
           "compare", "corpus_doc_lengths", "evaluate", "evaluate_by_group", "evaluate_flowcharts", "evaluate_runs",
           "estimate_from_sample", "evaluation", "example_files", "fuse", "generate_corpus", "ingest_corpus",
           "leave_out", "verify_corpus", "iter_patents", "list_measures", "make_pool", "measures_document",
           "open_corpus", "parse_measure", "patent_key", "patent_keys", "pool_stats", "ranking_stability",
           "read_patent", "read_pool", "read_qrels", "read_run", "read_scores", "sample_pool", "search", "search_grid",
           "search_passages", "simulate_budgets", "simulate_log", "simulate_users", "time_to_rank", "write_pool",
           "write_report", "write_run"]
