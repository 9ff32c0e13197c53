"""Random qrels and runs, and the references the trec_eval measures are checked against.

Cases have graded and negative grades (pooled but not judged), ties (few distinct scores,
broken by docno descending), retrieved documents the qrels omit, and topics with nothing
relevant. References: pytrec_eval (trec_eval 9 in a Python module) and, when the
environment variable ``TREC_EVAL`` names a trec_eval 10 binary built locally (or one is on
the PATH, as tests/integrations/test_scores.py finds it), that binary (``trec_eval -q``; its
printed digits set the tolerance, so a build that prints ``%.17g`` is checked to 1e-9).
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np

import pateval.api as api


def random_case(seed: int, *, n_topics: int = 4, grades: int = 3, tie_values: int = 5, n_docs: int = 40,
                all_negative_ok: bool = False) -> tuple[dict, dict]:
    """A qrels dict and a run dict (topic -> docno -> grade / score)."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for t in range(n_topics):
        topic = f"q{t}"
        docs = [f"d{i:02d}" for i in rng.choice(n_docs, size=rng.integers(1, 25), replace=False)]
        qrels[topic] = {d: int(rng.integers(-1, grades + 1)) for d in docs}
        if rng.random() < 0.2:  # a topic with nothing relevant
            qrels[topic] = {d: min(g, 0) for d, g in qrels[topic].items()}
        if not all_negative_ok:
            # trec_eval crashes on a topic whose grades are all negative (it allocates no rel_levels)
            qrels[topic][docs[0]] = max(qrels[topic][docs[0]], 0)
        retrieved = [f"d{i:02d}" for i in rng.choice(n_docs, size=rng.integers(1, 35), replace=False)]
        run[topic] = {d: float(rng.integers(0, tie_values)) / 4 for d in retrieved}
    return qrels, run


def pateval_values(qrels: dict, run: dict, measures: list[str], **options) -> dict[str, dict[str, float]]:
    """measure -> topic -> value, as pateval computes them."""
    frame = api.evaluate(qrels, run, measures, **options)
    values: dict[str, dict[str, float]] = {}
    for row in frame.itertuples():
        values.setdefault(row.measure, {})[row.topic] = row.value
    return values


def pateval_summary(qrels: dict, run: dict, measures: list[str], **options) -> dict[str, float]:
    summary = api.evaluation(qrels, run, measures, **options).summary()
    return dict(zip(summary["measure"], summary["value"], strict=True))


def trec_eval_binary() -> str | None:
    path = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    return path if path and Path(path).is_file() else None


def write_trec(qrels: dict, run: dict, folder: Path) -> tuple[Path, Path]:
    qrels_path, run_path = folder / "qrels.txt", folder / "run.txt"
    qrels_path.write_text("".join(f"{t} 0 {d} {g}\n" for t, docs in qrels.items() for d, g in docs.items()))
    run_path.write_text("".join(f"{t} Q0 {d} 0 {s!r} r\n" for t, docs in run.items() for d, s in docs.items()))
    return qrels_path, run_path


def run_trec_eval(binary: str, qrels: dict, run: dict, folder: Path, args: list[str]) -> dict[tuple[str, str],
                                                                                               tuple[float, float]]:
    """(measure, topic) -> (value, tolerance) from ``trec_eval -q ARGS``."""
    qrels_path, run_path = write_trec(qrels, run, folder)
    done = subprocess.run([binary, "-q", *args, str(qrels_path), str(run_path)], capture_output=True, text=True,
                          check=True)
    out = {}
    for line in done.stdout.splitlines():
        name, topic, value = (part.strip() for part in line.split("\t"))
        if name in ("runid", "relstring"):
            continue
        decimals = len(value.split(".")[1]) if "." in value and "e" not in value else 17
        out[name, topic] = (float(value), max(1e-9, 0.5 * 10.0 ** -decimals + 1e-12))
    return out


def max_difference(ours: dict[str, float], reference: dict[str, float]) -> float:
    assert set(ours) == set(reference), (sorted(ours), sorted(reference))
    return max((abs(ours[t] - reference[t]) for t in ours), default=0.0)


def assert_close(ours: float, reference: float, tolerance: float = 1e-9, what: object = "") -> None:
    assert math.isfinite(ours), what
    assert abs(ours - reference) <= tolerance, (what, ours, reference)


def assert_as_trec_eval(ours: dict[str, dict[str, float]], reference: dict[tuple[str, str], tuple[float, float]],
                        names: dict[str, str], summary: dict[str, float] | None = None) -> None:
    """Each pateval measure's value of every topic (and the mean, given ``summary``) equal to
    trec_eval's within its printed precision; ``names``: pateval's name -> trec_eval's."""
    for name, trec_name in names.items():
        for topic, value in ours[name].items():
            expected, tolerance = reference[trec_name, topic]
            assert_close(value, expected, tolerance, (name, topic))
        if summary is not None:
            expected, tolerance = reference[trec_name, "all"]
            assert_close(summary[name], expected, tolerance, (name, "all"))
