"""Benchmark: pateval's subtopic measures against pyndeval (ndeval v4.5 in C), one process.

Builds T topics (default 10,000) with a fixed seed: each topic has 2-8 subtopics, 10-60
judged documents (each judged for 1-3 subtopics, grades 0-3) and a run of D documents
(default 100, judged and unjudged mixed, distinct scores). Both tools compute the ndeval
measures at 5, 10 and 20 (alpha-nDCG, ERR-IA, nERR-IA, P-IA, strec / I-rec) and MAP-IA
from the same in-memory data: pyndeval from its tuple lists (RelevanceEvaluator + evaluate),
pateval from Qrels / Run (ranking, judgement index, subtopic view, kernels). Converting the
data to each tool's input shape is not timed. Prints both times, the ratio, and the largest
absolute difference over all (topic, measure) values. Run:

    .venv/bin/python benchmarks/bench_subtopic.py [--topics 10000 --depth 100 --repeats 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyndeval

from pateval.core.qrels import Qrels
from pateval.core.ranking import JudgementIndex, rank_run
from pateval.core.run import Run
from pateval.evaluation import evaluate_runs, score_ranked, topics_to_evaluate
from pateval.measures import EvaluationContext, parse_measure, parse_measures
from pateval.measures.subtopic import _view
from pateval.options import EvaluationOptions

CUTOFFS = (5, 10, 20)
NDEVAL = ("alpha-nDCG", "ERR-IA", "nERR-IA", "P-IA", "strec")


def make_case(n_topics: int, depth: int, seed: int):
    """Subtopic qrels rows (topic, subtopic, docno, rel) and run rows (topic, docno, score)."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for t in range(n_topics):
        topic = f"{t + 1}"
        n_sub = int(rng.integers(2, 9))
        n_judged = int(rng.integers(10, 61))
        judged = rng.choice(100_000, size=n_judged, replace=False)
        for d in judged:
            for s in rng.choice(n_sub, size=int(rng.integers(1, min(3, n_sub) + 1)), replace=False):
                qrels.append((topic, f"s{s}", f"D{d:06d}", int(rng.choice([0, 0, 1, 1, 2, 3]))))
        unjudged = rng.choice(100_000, size=depth, replace=False)
        pool = np.unique(np.r_[judged, unjudged])
        retrieved = rng.choice(pool, size=min(depth, len(pool)), replace=False)
        scores = depth - np.arange(len(retrieved), dtype=np.float64)  # distinct: no tie rule involved
        run.extend((topic, f"D{d:06d}", float(s)) for d, s in zip(retrieved, scores, strict=False))
    return qrels, run


def run_pyndeval(qrels_rows, run_rows, measures):
    evaluator = pyndeval.RelevanceEvaluator(qrels_rows, measures)
    return evaluator.evaluate(run_rows)


def run_pateval(qrels: Qrels, run: Run, measures):
    return evaluate_runs(qrels, [run], EvaluationOptions(measures=measures)).frame


def pateval_stages(qrels: Qrels, run: Run, measures, repeats: int = 1) -> dict[str, float]:
    """CPU seconds of each stage of :func:`evaluate_runs`, to show where the time goes: each
    stage's best of ``repeats`` passes, every pass from scratch (a new judgement index and
    ranking, so nothing is carried over, not even the ideal rankings)."""
    parsed = parse_measures(measures)
    seconds: dict[str, float] = {}

    def stage(name, function, *args):
        start = time.process_time()
        result = function(*args)
        seconds[name] = min(seconds.get(name, float("inf")), time.process_time() - start)
        return result

    for _ in range(repeats):
        topics, _ = stage("choose topics (core)", lambda: topics_to_evaluate(np.asarray(qrels.topic_ids, dtype=object),
                                                                             run, complete=False))
        index = stage("judgement index (core)", JudgementIndex.build, qrels, topics)
        ranked = stage("rank run (core)", rank_run, run, index)
        context = EvaluationContext()  # one evaluation's: the view made in it is shared by the kernels
        stage("subtopic view (core)", _view, ranked, context)
        stage("measure kernels (subtopic.py)", lambda r, c: [m.compute(r, c) for m in parsed], ranked, context)
        stage("result frame (core)", score_ranked, ranked, parsed, context)
    return seconds


def best_of(repeats, function, *args):
    """Shortest wall and CPU time of ``repeats`` calls (the machine may be shared)."""
    wall, cpu, result = float("inf"), float("inf"), None
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = function(*args)
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2011)
    args = parser.parse_args()

    qrels_rows, run_rows = make_case(args.topics, args.depth, args.seed)
    reference_measures = [f"{m}@{k}" for m in NDEVAL for k in CUTOFFS] + ["MAP-IA"]
    # pyndeval numbers subtopics in order of appearance: give them in string order, pateval's
    # order, so that both sum gains in the same order
    qrels_sorted = sorted(qrels_rows, key=lambda row: row[1])
    run_sorted = sorted(run_rows, key=lambda row: row[0])
    qrels = Qrels.from_records(qrels_rows, fields=("topic", "subtopic", "docno", "rel"))
    run = Run.from_records(run_rows, name="bench")
    print(f"{args.topics:,} topics, {len(qrels_rows):,} subtopic judgements, {len(run_rows):,} run rows, "
          f"{len(reference_measures)} measures; best of {args.repeats}")

    reference_wall, reference_cpu, reference = best_of(args.repeats, run_pyndeval, qrels_sorted, run_sorted,
                                                       reference_measures)
    pateval_wall, pateval_cpu, frame = best_of(args.repeats, run_pateval, qrels, run, reference_measures)

    topics = sorted(reference)
    worst, where = 0.0, None
    for name in reference_measures:
        ours = frame[frame["measure"] == str(parse_measure(name))]
        ours = ours.set_index("topic")["value"].reindex(topics).to_numpy()
        theirs = np.array([reference[t][name] for t in topics])
        difference = np.abs(ours - theirs)
        if difference.max() > worst:
            worst, where = float(difference.max()), name
    print(f"{'':10s} {'wall s':>9s} {'CPU s':>9s}")
    print(f"{'pyndeval':10s} {reference_wall:9.3f} {reference_cpu:9.3f}")
    print(f"{'pateval':10s} {pateval_wall:9.3f} {pateval_cpu:9.3f}   (evaluate_runs, end to end)")
    print(f"ratio      {reference_wall / pateval_wall:9.2f} {reference_cpu / pateval_cpu:9.2f}   (pyndeval / pateval; "
          f"> 1: pateval faster)")
    stages = pateval_stages(qrels, run, reference_measures, args.repeats)
    print(f"pateval stages, CPU s (each from scratch, best of {args.repeats}):")
    for name, seconds in stages.items():
        print(f"  {name:32s} {seconds:8.3f}")
    kernels = stages["measure kernels (subtopic.py)"]
    print(f"  pyndeval CPU / kernels CPU: {reference_cpu / kernels:.1f}")
    print(f"max |difference| over {len(topics):,} topics x {len(reference_measures)} measures: {worst:.3g}"
          + (f" ({where})" if where else ""))


if __name__ == "__main__":
    main()
