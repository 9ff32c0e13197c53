"""``pateval index``, ``pateval search`` (baselines) and ``pateval demo`` (the whole pipeline)."""

from __future__ import annotations

import sys
from typing import Any

from ..errors import PatevalError
from .shared import add_command, add_flags, add_output, examples


def _add_index(commands) -> None:
    p = add_command(
        commands, "index", _run_index, extra="search", help="index a corpus store with tantivy for baseline search",
        description="Index a corpus store (or patent XML files) with tantivy: title, abstract, claims and "
        "description per language (English, German, French stemming and stop words), plus the term "
        "statistics that re-scoring with LM-Dirichlet and TF-IDF needs.",
        epilog=examples("pateval index --store store --out index",
                        "pateval index --store store --out index --until 2000-12-31 --no-passages"),
    )
    p.add_argument("--store", required=True, metavar="STORE",
                   help="corpus store (pateval corpus ingest), or patent XML file/directory")
    add_output(p, "--out", required=True, metavar="INDEX", help="index directory to create")
    p.add_argument("--no-passages", action="store_true", help="do not keep paragraphs (no passage retrieval)")
    p.add_argument("--until", metavar="YYYY-MM-DD",
                   help="only documents published up to this date (a collection's corpus_end)")
    p.add_argument("--heap-mb", type=int, default=512, help="tantivy indexing memory budget in MB (default 512)")
    p.add_argument("--threads", type=int, help="tantivy indexing threads (default: cores, at most 8)")
    add_flags(p, "no_progress")


def _run_index(*, store, out, no_passages: bool, until, heap_mb: int, threads, progress: bool) -> None:
    from .. import api

    summary = api.build_search_index(store, out, passages=not no_passages, until=until, heap_mb=heap_mb,
                                     threads=threads, progress=progress)
    print(f"indexed {summary.documents:,} documents ({summary.passages:,} paragraphs) in {summary.seconds:.1f} s "
          f"({summary.documents_per_second:,.0f} docs/s), {summary.bytes_on_disk / 1e6:,.1f} MB: {summary.path}")


def _add_search(commands) -> None:
    p = add_command(
        commands, "search", _run_search, extra="search", help="baseline prior-art search: one run, or a grid of runs",
        description="Search the topics with a baseline and write a TREC run tagged MODEL.STRATEGY. "
        "Models: bm25[:k1=,b=], lm[:mu=], tfidf[:k1=,b=]. Query strategies: PARTS[,OPTION=VALUE...] with "
        "PARTS title, abstract, claims, description joined by '+', or full; options top=K, mindf=N, maxdf=F, "
        "ipc=filter|boost, ipcw=W, split=claims, merge=sum|max|rrf, w.FIELD=W. With --grid (or several "
        "--model/--query) one run per configuration is written into the --out directory.",
        epilog=examples("pateval search --index index --topics collection --model bm25 --query claims --out bm25.run",
                        "pateval search --index index --topics collection --grid seeds --out runs/",
                        "pateval search --index index --topics collection/topics_PSG.txt --passages --out psg.run"),
    )
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--index", metavar="INDEX", help="index directory (pateval index)")
    source.add_argument("--store", metavar="STORE", help="corpus store: index it first, into a temporary directory")
    p.add_argument("--topics", required=True, metavar="TOPICS",
                   help="topics_PAC.xml, a collection directory, or a directory of topic XML files "
                        "(topics_PSG.txt with --passages)")
    p.add_argument("--model", action="append", dest="models", metavar="MODEL",
                   help="ranking model (repeatable; default bm25)")
    p.add_argument("--query", action="append", dest="queries", metavar="STRATEGY",
                   help="query strategy (repeatable; default claims)")
    p.add_argument("--grid", metavar="NAME",
                   help="a named grid: seeds (3 models x 11 strategies = 33 runs), small, models")
    add_output(p, "--out", required=True, metavar="RUN", help="run file (a directory with a grid)")
    p.add_argument("--depth", type=int, default=1000, help="documents per topic (default 1000)")
    p.add_argument("--candidates", type=int, default=2000,
                   help="engine candidates re-scored by lm/tfidf/bm25 with other k1,b (default 2000)")
    p.add_argument("--no-date-filter", action="store_true",
                   help="also retrieve documents published after the topic's date")
    p.add_argument("--keep-family", action="store_true", help="keep publications of the topic's own patent family")
    p.add_argument("--unit", choices=("publication", "patent"), default="publication",
                   help="rank publications, or the best publication of each patent")
    p.add_argument("--passages", action="store_true",
                   help="passage retrieval for PSG topics: write the 6-column passage run")
    p.add_argument("--passage-documents", type=int, default=20,
                   help="documents whose paragraphs are ranked (default 20)")
    p.add_argument("--ir-metadata", action="store_true",
                   help="start each run with an ir_metadata block saying how it was made (pateval reads it; "
                        "trec_eval, ir_measures, PyTerrier and ranx do not)")
    add_flags(p, "no_progress")


def _run_search(*, index, store, topics, models, queries, grid, out, depth: int, candidates: int,
                no_date_filter: bool, keep_family: bool, unit: str, passages: bool, passage_documents: int,
                ir_metadata: bool, progress: bool) -> None:
    import contextlib
    import tempfile

    from .. import api

    with (tempfile.TemporaryDirectory(prefix="pateval-index-", ignore_cleanup_errors=True) if index is None
          else contextlib.nullcontext()) as temporary:
        if temporary is not None:  # --store: indexed into a temporary directory, removed at the end
            index = f"{temporary}/index"
            print("pateval: note: indexing the store into a temporary directory; `pateval index` keeps an index "
                  "for reuse", file=sys.stderr)
            api.build_search_index(store, index, passages=passages, progress=progress)
        options: dict[str, Any] = {"depth": depth, "candidates": candidates, "date_filter": not no_date_filter,
                   "exclude_family": not keep_family, "unit": unit}
        given_models, given_queries = models, queries
        models, queries = models or ["bm25"], queries or ["claims"]
        if passages:
            if grid or len(models) > 1 or len(queries) > 1:
                raise PatevalError("--passages writes one passage run: give one --model and one --query")
            results = api.search_passages(index, topics, model=models[0], query=queries[0], out=out,
                                          documents=passage_documents, progress=progress)
            print(f"{sum(len(r) for r in results.values()):,} passages for {len(results)} topics: {out}")
        elif grid or len(models) > 1 or len(queries) > 1:
            grid_results = api.search_grid(index, topics, out, grid=grid,
                                           models=None if grid and not given_models else models,
                                           queries=given_queries if grid else queries, ir_metadata=ir_metadata,
                                           progress=progress, **options)
            for result in grid_results:
                print(f"{result.tag}\t{len(result.rankings)} topics\t{result.queries_per_second:.1f} topics/s")
            print(f"{len(grid_results)} runs written to {out}")
        else:
            result = api.search(index, topics, model=models[0], query=queries[0], out=out, progress=progress,
                                ir_metadata=ir_metadata, **options)
            print(f"{result.tag}: {len(result.rankings)} topics in {result.seconds:.1f} s "
                  f"({result.queries_per_second:.1f} topics/s): {out}")


def _add_demo(commands) -> None:
    p = add_command(
        commands, "demo", _run_demo, extra="all", help="the whole pipeline on a synthetic corpus, with an HTML report",
        description="Generate a synthetic CLEF-IP corpus, ingest it, build a test collection, index it, run a "
        "grid of baselines, evaluate them with standard and professional-search measures, compare them and "
        "write the HTML report.",
        epilog=examples("pateval demo --out pateval-demo",
                        "pateval demo --out small-demo --patents 300 --seed 2"),
    )
    add_output(p, "--out", default="pateval-demo", metavar="DIR",
               help="output directory (default ./pateval-demo; must not exist)")
    p.add_argument("--patents", type=int, default=1000, help="synthetic patents to generate (default 1000)")
    add_flags(p, "seed")
    p.add_argument("--grid", default="small", help="baseline grid: small (12 runs, default), seeds (33 runs), models")
    add_flags(p, "no_progress")


def _run_demo(*, out, patents: int, seed: int, grid: str, progress: bool) -> None:
    from ..demo import run_demo

    run_demo(out, n_patents=patents, seed=seed, grid=grid, progress=progress, echo=print)  # echo: the report's path
