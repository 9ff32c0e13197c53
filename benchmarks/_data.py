"""Benchmark inputs: a synthetic run of n_topics x depth documents and its qrels, seeded.

Written with numpy string operations (not a Python loop per line) so that making 10
million lines takes seconds; cached under benchmarks/_work/ (ignored by git).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

WORK = Path(__file__).resolve().parent / "_work"


def compile_pateval() -> None:
    """pateval's modules compiled to bytecode before pateval is timed, as an installed package
    has them (pip compiles them at install; an editable install writes them at the first import,
    unless PYTHONDONTWRITEBYTECODE is set, as on the development VM, where every timed process
    would otherwise compile pateval's sources again: about 0.15 CPU-seconds at start-up)."""
    import compileall

    import pateval

    compileall.compile_dir(Path(pateval.__file__).parent, quiet=1)


def make_standard_inputs(*, n_topics: int = 10_000, depth: int = 1_000, seed: int = 42,
                         collection_size: int = 5_000_000, relevant: int = 50, judged: int = 200,
                         score_order: bool = True) -> tuple[Path, Path]:
    """Write (qrels, run) files once; return their paths.

    ``score_order=False`` writes each topic's lines in random order (not by score), the
    rank column counting lines in file order: the same rankings, so the same numbers.
    """
    WORK.mkdir(exist_ok=True)
    qrels_path = WORK / f"qrels_{n_topics}_{depth}_{seed}.txt"
    run_path = WORK / f"run_{n_topics}_{depth}_{seed}{'' if score_order else '_unordered'}.txt"
    if qrels_path.exists() and run_path.exists():
        return qrels_path, run_path
    rng = np.random.default_rng(seed)
    topics = np.char.add("T", np.arange(1, n_topics + 1).astype(str))
    qlines, lines = _lines(topics, rng, rng, depth=depth, collection_size=collection_size, relevant=relevant,
                           judged=judged, score_order=score_order)
    if not qrels_path.exists():
        _write_lines(qrels_path, qlines)
    _write_lines(run_path, lines)
    return qrels_path, run_path


def _lines(topics: np.ndarray, rng, score_rng, *, depth: int, collection_size: int, relevant: int, judged: int,
           score_order: bool) -> tuple[np.ndarray, np.ndarray]:
    """(qrels lines, run lines) of some topics: documents and judgements drawn from ``rng``,
    scores (and the order of unordered lines) from ``score_rng``."""
    n_topics = len(topics)
    # run documents: one per block of the id space, so they are distinct within a topic
    block = collection_size // depth
    docs = np.arange(depth) * block + rng.integers(0, block - 1, size=(n_topics, depth))
    # judged documents: half of them retrieved (a random subset of the run's), half not
    # (the id just after a retrieved one: never retrieved, never repeated)
    picks = rng.permuted(np.tile(np.arange(depth), (n_topics, 1)), axis=1)[:, :judged]
    qdocs = np.take_along_axis(docs, picks, axis=1)
    qdocs[:, judged // 2 :] += 1
    grades = np.zeros((n_topics, judged), dtype=np.int64)
    grades[:, :relevant] = rng.integers(1, 4, size=(n_topics, relevant))
    qlines = np.char.add(np.char.add(np.repeat(topics, judged), " 0 D"), qdocs.ravel().astype(str))
    qlines = np.char.add(np.char.add(qlines, " "), grades.ravel().astype(str))
    # relevant retrieved documents score higher, so runs are better than chance
    scores = score_rng.normal(10.0, 2.0, size=(n_topics, depth))
    boost = np.zeros((n_topics, depth))
    np.put_along_axis(boost, picks[:, : relevant // 2], 3.0, axis=1)
    scores = np.round(scores + boost, 4)  # 4 decimals: some ties, as real engines print
    order = np.argsort(-scores, axis=1, kind="stable") if score_order else score_rng.permuted(
        np.tile(np.arange(depth), (n_topics, 1)), axis=1)
    docs = np.take_along_axis(docs, order, axis=1)
    scores = np.take_along_axis(scores, order, axis=1)
    ranks = np.tile(np.arange(1, depth + 1), n_topics)
    lines = np.char.add(np.repeat(topics, depth), " Q0 D")
    lines = np.char.add(lines, docs.ravel().astype(str))
    lines = np.char.add(np.char.add(lines, " "), ranks.astype(str))
    lines = np.char.add(np.char.add(lines, " "), np.char.mod("%.4f", scores.ravel()))
    lines = np.char.add(lines, " bench")
    return qlines, lines


def _write_lines(path: Path, lines: np.ndarray) -> None:
    tmp = path.with_suffix(".part")
    with open(tmp, "w") as out:
        for start in range(0, len(lines), 1_000_000):
            out.write("\n".join(lines[start : start + 1_000_000].tolist()))
            out.write("\n")
    tmp.rename(path)


def make_large_inputs(*, n_topics: int, depth: int = 1_000, seed: int = 42, score_seed: int | None = None,
                      chunk_topics: int = 5_000, score_order: bool = True, name: str | None = None,
                      collection_size: int = 5_000_000, relevant: int = 50, judged: int = 200) -> tuple[Path, Path]:
    """As :func:`make_standard_inputs`, written ``chunk_topics`` topics at a time (so that
    100 million lines need a few hundred MB to make); topics T1..Tn in file order.

    Chunk ``c`` draws its documents and judgements from ``(seed, c)`` and its scores from
    ``(score_seed, c)`` (default: ``seed``): runs with another ``score_seed`` share the qrels.
    """
    WORK.mkdir(exist_ok=True)
    score_seed = seed if score_seed is None else score_seed
    tag = name or f"{n_topics}_{depth}_{seed}"
    qrels_path = WORK / f"qrels_large_{n_topics}_{depth}_{seed}.txt"
    run_path = WORK / f"run_large_{tag}_{score_seed}{'' if score_order else '_unordered'}.txt"
    if qrels_path.exists() and run_path.exists():
        return qrels_path, run_path
    write_qrels = not qrels_path.exists()
    with open(run_path.with_suffix(".part"), "w") as run_out, \
            (open(qrels_path.with_suffix(".part"), "w") if write_qrels else open(os.devnull, "w")) as qrels_out:
        for chunk, first in enumerate(range(0, n_topics, chunk_topics)):
            count = min(chunk_topics, n_topics - first)
            topics = np.char.add("T", np.arange(first + 1, first + count + 1).astype(str))
            qlines, lines = _lines(topics, np.random.default_rng([seed, chunk]), np.random.default_rng([score_seed,
                                                                                                        chunk]),
                                   depth=depth, collection_size=collection_size, relevant=relevant, judged=judged,
                                   score_order=score_order)
            qrels_out.write("\n".join(qlines.tolist()) + "\n")
            run_out.write("\n".join(lines.tolist()) + "\n")
    if write_qrels:
        qrels_path.with_suffix(".part").rename(qrels_path)
    run_path.with_suffix(".part").rename(run_path)
    return qrels_path, run_path
