"""``pateval demo``: the whole pipeline on a synthetic corpus, in a few minutes.

The demo sits above the API (as the command line does): it calls :mod:`pateval.api` and
nothing in the API imports it.

Steps, each timed and written under the output directory::

    corpus/        synthetic CLEF-IP XML (pateval.collection.synthetic)
    store/         the corpus store (Parquet, DuckDB)            -- pateval corpus ingest
    collection/    topics, qrels (document, claim, passage level) -- pateval collection build
    index/         tantivy index and re-scoring statistics        -- pateval index
    runs/          a grid of baseline runs, and a random run       -- pateval search --grid
    doc_lengths.txt  words per document (time-biased gain)
    evaluation.tsv   run, topic, measure, value
    comparison.txt   means and paired tests against bm25.claims
    report.html      the self-contained HTML report
    demo.json        parameters, timings, means

:func:`prepare_assess_demo` makes the assessment tool's demo workspace the same way (a
synthetic corpus, its store and collection, a database with two accounts).

The random run ranks, for each topic, documents drawn at random (seeded) from the index:
the chance level the baselines are compared with.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import ParameterError, PatevalError
from .formats.atomic import atomic_output
from .options import EvaluationOptions

__all__ = ["DemoSummary", "run_demo", "random_run", "DEMO_MEASURES", "prepare_assess_demo"]

#: The measures the demo reports: standard ones and the professional-search ones.
DEMO_MEASURES = ("AP", "nDCG@10", "R@100", "PRES@100", "R@1000", "TBG")
_BASELINE = "bm25.claims"
_RANDOM_TAG = "random"


@dataclass
class DemoSummary:
    """What the demo did: where things are, how long each step took, the mean scores."""

    out_dir: str
    report: str
    timings: dict[str, float] = field(default_factory=dict)
    means: dict[str, dict[str, float]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        return sum(self.timings.values())

    def as_dict(self) -> dict:
        return {**asdict(self), "seconds": round(self.seconds, 2)}


def random_run(index, topics, *, depth: int = 1000, seed: int = 0) -> dict[str, dict[str, float]]:
    """For each topic, ``depth`` documents of the index in a random (seeded) order.

    Returns ``{topic: {docno: score}}`` with scores ``depth, depth - 1, ...``.
    """
    rng = np.random.default_rng(seed)
    n_docs = index.num_docs
    run = {}
    for topic in topics:
        rows = rng.choice(n_docs, size=min(depth, n_docs), replace=False)
        run[topic.qid] = {str(index.ucids[r]): float(len(rows) - i) for i, r in enumerate(rows)}
    return run


def _write_random_run(run: dict[str, dict[str, float]], path: Path) -> None:
    with atomic_output(path) as out:
        for qid, docs in run.items():
            for rank, (docno, score) in enumerate(docs.items(), start=1):
                out.write(f"{qid} Q0 {docno} {rank} {score!r} {_RANDOM_TAG}\n")


def run_demo(out_dir: str | os.PathLike[str] = "pateval-demo", *, n_patents: int = 1000, seed: int = 0,
             grid: str = "small", progress: bool = False, echo: Callable[[str], None] | None = None) -> DemoSummary:
    """Generate, ingest, build a collection, index, search a grid, evaluate, compare, report.

    Parameters
    ----------
    out_dir : path-like
        A new directory for everything the demo writes.
    n_patents : int, default 1000
        Synthetic EP patents (about 2 publications each).
    seed : int, default 0
        Seeds the corpus, the random run and the resampling tests.
    grid : str, default "small"
        The baseline grid (:data:`pateval.search.run.GRIDS`).
    progress : bool
        Progress bars for the long steps.
    echo : callable, optional
        Called with each line of the terminal summary (``print`` on the command line).

    Returns
    -------
    DemoSummary
    """
    from . import api
    from .formats.resources import load_resources
    from .report.tables import render_comparison
    from .search.index import SearchIndex
    from .search.run import grid_configs, load_topics, run_file_name, run_grid

    if n_patents < 200:
        raise ParameterError(f"the demo needs at least 200 patents to find topics; got {n_patents}")
    say = echo or (lambda line: None)
    root = Path(out_dir)
    if root.exists():
        raise PatevalError(f"{root} exists already; choose a new demo directory")
    root.mkdir(parents=True)
    summary = DemoSummary(str(root), str(root / "report.html"))

    def step(name: str, action):
        say(f"- {name} ...")
        started = time.perf_counter()
        value = action()
        summary.timings[name] = round(time.perf_counter() - started, 2)
        say(f"  done in {summary.timings[name]:.1f} s")
        return value

    say(f"pateval demo: {n_patents} synthetic patents, seed {seed}, grid {grid!r}, in {root}")
    generated = step("generate a synthetic CLEF-IP corpus",
                     lambda: api.generate_corpus(root / "corpus", n_patents=n_patents, seed=seed, progress=progress))
    summary.counts["documents"] = generated.n_documents
    step("ingest it into a corpus store", lambda: api.ingest_corpus(root / "corpus", root / "store", progress=progress))
    built = step("build a test collection (topics, qrels)",
                 lambda: api.build_collection(root / "store", root / "collection", seed=seed, progress=progress))
    summary.counts.update(topics=built.counts.get("pac_topics", 0), judgements=built.counts.get("pac_judgements", 0))
    if not summary.counts["topics"]:
        raise PatevalError("the collection has no topics; generate more patents (--patents)")
    corpus_end = built.parameters["split"]["corpus_end"]
    indexed = step(f"index the corpus (documents up to {corpus_end}) with tantivy",
                   lambda: api.build_search_index(root / "store", root / "index", until=corpus_end,
                                                  progress=progress))
    summary.counts["indexed_documents"] = indexed.documents
    index = SearchIndex(root / "index")
    topics = load_topics(root / "collection")
    configs = grid_configs(grid)
    results = step(f"run {len(configs)} baselines on {len(topics)} topics",
                   lambda: run_grid(index, topics, configs, root / "runs", progress=progress))
    _write_random_run(random_run(index, topics, seed=seed), root / "runs" / f"{_RANDOM_TAG}.run")
    step("write document lengths", lambda: api.corpus_doc_lengths(root / "store", out=root / "doc_lengths.txt"))

    qrels = root / "collection" / "qrels_PAC.txt"
    paths = {r.tag: str(root / "runs" / run_file_name(r.tag)) for r in results}
    paths[_RANDOM_TAG] = str(root / "runs" / f"{_RANDOM_TAG}.run")
    resources = load_resources({"doc_lengths": str(root / "doc_lengths.txt")})
    options = EvaluationOptions(resources=resources)

    def evaluate():
        frame = api.evaluate(qrels, paths, list(DEMO_MEASURES), resources=resources)
        with atomic_output(root / "evaluation.tsv") as out:
            frame.to_csv(out, sep="\t", index=False)
        return frame

    frame = step("evaluate (standard and professional-search measures)", evaluate)
    means = frame.groupby(["run", "measure"])["value"].mean().unstack()
    summary.means = {run: {m: round(float(v), 4) for m, v in row.items()} for run, row in means.iterrows()}
    baseline = _BASELINE if _BASELINE in paths else next(iter(paths))
    comparison = step("compare the runs (paired t-tests against the baseline, Holm)",
                      lambda: api.compare(qrels, paths, list(DEMO_MEASURES), baseline=baseline, seed=seed,
                                          options=options))
    with atomic_output(root / "comparison.txt") as out:
        out.write(render_comparison(comparison, format="text"))
    step("write the HTML report",
         lambda: api.write_report(qrels, paths, list(DEMO_MEASURES), out=root / "report.html", baseline=baseline,
                                  seed=seed, title=f"pateval demo: baselines on a synthetic collection "
                                  f"({n_patents} patents, seed {seed})", options=options))
    with atomic_output(root / "demo.json") as out:
        json.dump(summary.as_dict(), out, indent=1)
    for line in _terminal_table(means, baseline):
        say(line)
    say(f"total {summary.seconds:.0f} s; report: {summary.report}")
    return summary


def _terminal_table(means: pd.DataFrame, baseline: str) -> list[str]:
    """The mean of every measure for every run, best PRES@100 first."""
    columns = [m for m in DEMO_MEASURES if m in means.columns]
    order = means.sort_values(columns[3] if len(columns) > 3 else columns[0], ascending=False)
    width = max(len(r) for r in order.index) + 2
    lines = ["", "mean over topics" + " " * max(width - 16, 1) + "".join(f"{m:>10}" for m in columns)]
    for run, row in order.iterrows():
        marker = " (baseline)" if run == baseline else ""
        lines.append(f"{run:<{width}}" + "".join(f"{row[m]:>10.4f}" for m in columns) + marker)
    return lines


# ---- the assessment tool's demo workspace (pateval assess serve --demo) ----------------------

_DEMO_ASSESSORS = (("alice", True), ("bob", False))


def _refuse_a_real_database(url: str, root: Path) -> None:
    """A ParameterError unless the database at ``url`` is new, empty, or this demo's own (marked
    so in its meta table; a demo made before the mark: only the demo's accounts, its store):
    the demo adds an administrator, prints passwords and points the database at its corpus."""
    from .assess import db

    held = db.held(url)
    if held is None:
        return
    mark, store = held["meta"].get("demo"), held["meta"].get("store")
    own_store = str((root / "store").resolve())
    if mark == str(root.resolve()) or (mark is None and set(held["names"]) <= {n for n, _a in _DEMO_ASSESSORS}
                                        and store in (None, own_store)):
        return
    counts = {"assessors": "accounts", "topics": "topics", "selections": "saved selections"}
    what = ", ".join(f"{held['rows'][t]} {w}" for t, w in counts.items() if held["rows"].get(t))
    whose = f"the demo of {mark}" if mark is not None else (f"{what or 'data'}" + (f" about the corpus {store}"
                                                                                     if store else ""))
    raise ParameterError(f"--demo: the database {db.shown_url(url)} holds {whose}, not this demo's: --demo would add "
                         "its accounts to it and point it at its synthetic corpus; give --demo a new database (or "
                         "none), or serve this one with --store and --collection")


def _demo_password(name: str) -> str:
    """16 random characters that the tool accepts as a password (not containing the name)."""
    from .assess.service import AssessError, check_new_password

    while True:
        password = secrets.token_urlsafe(12)
        try:
            return check_new_password(password, name)
        except AssessError:
            continue


def prepare_assess_demo(directory, *, url: str | None = None, n_patents: int = 300, seed: int = 0,
                        echo=print) -> dict:
    """Make (once) a demo workspace: a synthetic corpus, its store and collection, a
    database (``url``, by default a SQLite file in the directory) and two accounts (alice,
    an administrator, and bob) whose passwords are written to ``DIR/demo-accounts.txt``
    (``pateval assess serve --demo``)."""
    from sqlalchemy import select

    from . import api
    from .assess import db, service

    root = Path(directory)
    url = url or f"sqlite:///{(root / 'assess.db').resolve()}"
    _refuse_a_real_database(url, root)
    root.mkdir(parents=True, exist_ok=True)
    if not (root / "store" / "manifest.json").exists():
        echo(f"assess demo: generating {n_patents} synthetic patents into {root}/corpus")
        if not (root / "corpus").exists():
            api.generate_corpus(root / "corpus", n_patents=n_patents, seed=seed, workers=1)
        api.ingest_corpus(root / "corpus", root / "store", workers=1)
    if not (root / "collection").exists():
        api.build_collection(root / "store", root / "collection")
    engine = db.open_database(url)
    with engine.begin() as connection:  # the mark of the demo's own database
        if connection.execute(select(db.meta.c.value).where(db.meta.c.key == "demo")).first() is None:
            connection.execute(db.meta.insert().values(key="demo", value=str(root.resolve())))
    accounts_file = root / "demo-accounts.txt"
    accounts: dict[str, str] = {}
    if accounts_file.exists():
        accounts = dict(line.split(" ", 1) for line in accounts_file.read_text(encoding="utf-8").splitlines())
    with engine.connect() as connection:
        names = set(connection.execute(select(db.assessors.c.name)).scalars())
    new = [(name, admin) for name, admin in _DEMO_ASSESSORS if name not in names]
    for name, _admin in new:
        accounts[name] = _demo_password(name)
    # the passwords are kept (owner-only file) before the accounts exist, so none is lost
    with atomic_output(accounts_file, private=True) as handle:
        handle.write("".join(f"{n} {p}\n" for n, p in accounts.items()))
    for name, admin in new:
        service.add_assessor(engine, name, accounts[name], is_admin=admin)
    engine.dispose()
    return {"db": url, "store": str(root / "store"), "collection": str(root / "collection"), "accounts": accounts}
