"""Benchmark: pateval's Cube Test (compat=trec-dd) against the TREC DD jig's scorer/cubetest.py.

10,000 synthetic DD topics (fixed seed): 3-7 subtopics, judged documents with 1-3 rated
passages, and a session of 10 iterations of 5 documents per topic (500,000 run lines). Both
sides read the same files: the jig its topic XML, parameter pickle and run file; pateval the
same judgements as DD qrels (``topic subtopic docno passage rating``) and the same run file
(:func:`pateval.formats.dd.read_dd_run`). Both compute CT@10 and ACT@10 (10 iterations,
gamma 0.5) and the values must agree to 1e-12.

Three CPU timings (``time.process_time``: the machine may be shared) are printed per side
(the kernels: the best of ``--repeats`` runs, each with the iteration lookup made again;
scoring and end to end: one run):

- kernels: the Cube Test itself, from prepared judgements to CT and ACT of every topic (the
  jig's ``cubetest_per_topic`` over topics, its ``truth4CT`` tables made beforehand; pateval's
  CT and ACT kernels over all topics at once, the ranking and subtopic view made beforehand,
  the iteration lookup included);
- scoring: from judgements and run already parsed (adds the jig's ``truth4CT`` tables and
  pateval's judgement index, ranking and subtopic view);
- end to end: reading the files included (the jig's ``cubetest()``, which also computes its
  normalised CT; pateval's readers and :func:`pateval.api.evaluate`).

The jig is never part of pateval. Point ``PATEVAL_TREC_DD_JIG`` to its ``scorer/`` directory,
or let this script clone https://github.com/trec-dd/trec-dd-jig into /tmp. Without it, the
script says so and compares with a plain per-document loop of the jig's definition instead.

Run: ``python benchmarks/bench_cubetest.py [--topics 10000]``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import pickle
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

from pateval.api import evaluate
from pateval.core.ranking import JudgementIndex, rank_run
from pateval.formats.dd import read_dd_run
from pateval.formats.qrels import read_qrels
from pateval.measures import EvaluationContext, parse_measure
from pateval.measures.cubetest import _view

CUTOFF = 10
GAMMA = 0.5


def make_files(folder: Path, n_topics: int, seed: int):
    """Write the topic XML, the parameter pickle, the DD qrels and the run file."""
    rng = np.random.default_rng(seed)
    xml = ["<trecdd>", '<domain name="bench">']
    qrels_lines, run_lines = [], []
    passage = 0
    for t in range(1, n_topics + 1):
        topic = f"DD-{t}"
        docs = np.array([f"{topic}-d{i}" for i in range(60)], dtype=object)
        xml.append(f'<topic id="{topic}" name="t">')
        for s in range(1, int(rng.integers(3, 8)) + 1):
            subtopic = f"{topic}.{s}"
            xml.append(f'<subtopic id="{subtopic}" name="s">')
            for doc in rng.choice(docs, size=int(rng.integers(3, 9)), replace=False):
                for _ in range(int(rng.integers(1, 4))):
                    passage += 1
                    rating = int(rng.integers(0, 5))
                    xml.append(f'<passage id="{passage}"><docno>{doc}</docno><rating>{rating}</rating>'
                               "<type>MANUAL</type></passage>")
                    qrels_lines.append(f"{topic}\t{subtopic}\t{doc}\t{passage}\t{rating}\n")
            xml.append("</subtopic>")
        xml.append("</topic>")
        session = rng.choice(docs, size=50, replace=False)
        scores = np.round(rng.random(50) * 1000, 2)
        run_lines += [f"{topic}\t{k // 5}\t{d}\t{float(s)!r}\n" for k, (d, s) in enumerate(zip(session, scores,
                                                                                               strict=False))]
    xml.append("</domain></trecdd>")
    paths = {name: folder / name for name in ("topics.xml", "params.pkl", "qrels.txt", "run.txt")}
    paths["topics.xml"].write_text("\n".join(xml))
    with open(paths["params.pkl"], "wb") as out:
        pickle.dump({}, out)
    paths["qrels.txt"].write_text("".join(qrels_lines))
    paths["run.txt"].write_text("".join(run_lines))
    return paths, len(run_lines), len(qrels_lines)


def find_jig() -> Path | None:
    """The jig's scorer/ directory: $PATEVAL_TREC_DD_JIG, an earlier clone in /tmp, or a new clone."""
    given = os.environ.get("PATEVAL_TREC_DD_JIG")
    if given:
        return Path(given) if (Path(given) / "cubetest.py").exists() else None
    clone = Path(tempfile.gettempdir()) / "trec-dd-jig"
    if not (clone / "scorer" / "cubetest.py").exists():
        try:
            subprocess.run(["git", "clone", "--depth", "1", "https://github.com/trec-dd/trec-dd-jig", str(clone)],
                           check=True, capture_output=True, timeout=120)
        except (OSError, subprocess.SubprocessError):
            return None
    return clone / "scorer" if (clone / "scorer" / "cubetest.py").exists() else None


def plain_loop(qrels, run_iterations, *, gamma: float, cutoff: int):
    """The jig's definition, one document at a time (used when the jig is absent)."""
    rel: dict[str, dict[str, dict[str, int]]] = {}
    for topic, subtopic, doc, rating in qrels:
        per_doc = rel.setdefault(topic, {}).setdefault(doc, {})
        per_doc[subtopic] = per_doc.get(subtopic, 0) + (1 if rating == 0 else rating)
    subtopic_count = {t: len({s for d in docs.values() for s in d}) for t, docs in rel.items()}
    values = {}
    for topic, iterations in run_iterations.items():
        height, count = Counter(), Counter()
        weight = 1.0 / subtopic_count[topic]
        total = accumulated = 0.0
        documents = walked = 0
        for i in range(min(max(iterations) + 1, cutoff)):
            walked += 1
            for doc in iterations.get(i, ["(empty iteration)"]):
                for subtopic, r in rel[topic].get(doc, {}).items():
                    if height[subtopic] < 5:
                        add = min(gamma ** (count[subtopic] + 1) * r, 5 - height[subtopic])
                        total += weight * add
                        height[subtopic] += add
                        count[subtopic] += 1
                accumulated += total / 5 / walked
                documents += 1
        values[topic] = (total / 5 / walked, accumulated / documents)
    return values


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=2017)
    parser.add_argument("--repeats", type=int, default=3, help="kernel timings of both sides: best of this many")
    options = parser.parse_args(argv)
    measures = [parse_measure(f"{m}(gamma={GAMMA!r},compat=trec-dd)@{CUTOFF}") for m in ("CT", "ACT")]
    with tempfile.TemporaryDirectory() as tmp:
        paths, n_rows, n_qrels = make_files(Path(tmp), options.topics, options.seed)
        print(f"{options.topics} topics, {n_rows} run lines (10 iterations of 5), {n_qrels} passage judgements")

        # ---- pateval (CPU seconds of this process: the machine may be shared)
        clock = time.process_time
        start = clock()
        qrels = read_qrels(paths["qrels.txt"], format="dd")
        read_qrels_time = clock() - start
        dd = read_dd_run(paths["run.txt"])
        read_run_time = clock() - start - read_qrels_time
        frame = evaluate(qrels, dd.run, measures, order="rank", resources={"iterations": dd.iterations})
        pateval_total = clock() - start
        print(f"pateval end to end: qrels read {read_qrels_time:.3f} s, DD run read {read_run_time:.3f} s, "
              f"evaluate {pateval_total - read_qrels_time - read_run_time:.3f} s")
        start = clock()
        index = JudgementIndex.build(qrels, qrels.topic_ids)
        ranked = rank_run(dd.run, index, order="rank")
        prepared_at = clock()
        context = EvaluationContext({"iterations": dd.iterations})
        view_start = clock()
        _view(ranked, "trec-dd", context)
        view_time = clock() - view_start
        kernel_start = clock()
        ct, act = (m.compute(ranked, context) for m in measures)
        pateval_kernels = clock() - kernel_start
        pateval_scoring = clock() - start
        for _ in range(options.repeats - 1):
            # again from the subtopic view (made before the clock starts): the iteration lookup
            # and the values made anew
            context = EvaluationContext({"iterations": dd.iterations})
            _view(ranked, "trec-dd", context)
            kernel_start = clock()
            again = [m.compute(ranked, context) for m in measures]
            pateval_kernels = min(pateval_kernels, clock() - kernel_start)
            assert np.array_equal(again[0], ct) and np.array_equal(again[1], act)
        print(f"pateval scoring: judgement index and ranking {prepared_at - start:.3f} s, subtopic view "
              f"{view_time:.3f} s, CT and ACT kernels (iteration lookup included) {pateval_kernels:.3f} s")
        ours = {t: (c, a) for t, c, a in zip(ranked.topic_ids, ct, act, strict=False)}
        by_frame = frame.pivot(index="topic", columns="measure", values="value")
        assert np.array_equal(by_frame[str(measures[0])].reindex(ranked.topic_ids).to_numpy(), ct)

        # ---- the reference
        scorer = find_jig()
        if scorer is not None:
            sys.path.insert(0, str(scorer))
            import cubetest as jig  # the jig's module, outside pateval
            from reader import DDReader
            from truth import DDTruth

            start = clock()
            with contextlib.redirect_stdout(io.StringIO()):
                _, ct_list, act_list = jig.cubetest(str(paths["run.txt"]), str(paths["topics.xml"]),
                                                    str(paths["params.pkl"]), gamma=GAMMA, max_height=5, cutoff=CUTOFF)
            reference_total = clock() - start
            truth = DDTruth(str(paths["topics.xml"]), str(paths["params.pkl"]))
            run_result = DDReader(str(paths["run.txt"])).run_result
            topics = sorted(run_result, key=lambda x: int(x.split("-")[1]))
            # from parsed inputs: its per-topic judgement tables (truth4CT), then the scoring loop
            start = clock()
            tables = [truth.truth4CT(t) for t in topics]
            kernel_start = clock()
            scored = [jig.cubetest_per_topic(table, run_result[t], GAMMA, 5, CUTOFF) for table, t in zip(tables,
                                                                                                         topics,
                                                                                                         strict=False)]
            reference_kernels = clock() - kernel_start
            reference_scoring = clock() - start
            for _ in range(options.repeats - 1):
                kernel_start = clock()
                for table, t in zip(tables, topics, strict=False):
                    jig.cubetest_per_topic(table, run_result[t], GAMMA, 5, CUTOFF)
                reference_kernels = min(reference_kernels, clock() - kernel_start)
            reference = {t: (c, a) for t, (_, c, a) in zip(topics, scored, strict=False)}
            assert all(reference[t][0] == c and reference[t][1] == a for t, c, a in zip(topics, ct_list, act_list,
                                                                                        strict=False))
            name = "TREC DD jig"
            print(f"jig: {scorer}")
        else:
            print("the TREC DD jig is not available (set PATEVAL_TREC_DD_JIG to its scorer/ directory, or allow "
                  "git clone); comparing with a plain per-document loop of its definition instead")
            frame_q = qrels.to_frame()
            rows = list(zip(frame_q["topic"], frame_q["subtopic"], frame_q["docno"], frame_q["rel"], strict=False))
            sessions: dict[str, dict[int, list[str]]] = {}
            order = np.argsort(dd.run.rank, kind="stable")
            topic_of = dd.run.topic_ids[dd.run.topic]
            iteration_of = dd.iterations.lookup(topic_of, dd.run.docnos)
            for i in order:
                sessions.setdefault(topic_of[i], {}).setdefault(int(iteration_of[i]), []).append(dd.run.docnos[i])
            start = clock()
            reference = plain_loop(rows, sessions, gamma=GAMMA, cutoff=CUTOFF)
            reference_scoring = reference_total = reference_kernels = clock() - start
            name = "plain loop"

        worst = max(max(abs(ours[t][0] - v[0]), abs(ours[t][1] - v[1])) for t, v in reference.items())
        assert reference.keys() == ours.keys()
        print(f"values: {len(reference)} topics, CT and ACT, max |difference| = {worst:.3g}")
        assert worst <= 1e-12, "pateval and the reference disagree"
        print("CPU seconds      pateval    reference   ratio (reference / pateval)")
        for label, ours_time, theirs in (("kernels", pateval_kernels, reference_kernels),
                                         ("scoring", pateval_scoring, reference_scoring),
                                         ("end to end", pateval_total, reference_total)):
            print(f"{label:<12} {ours_time:10.3f} {theirs:12.3f}   {theirs / ours_time:6.1f}x   ({name})")
        mean_ct = float(np.mean([v[0] for v in ours.values()]))
        print(f"mean CT@{CUTOFF} = {mean_ct:.6f} (finite: {math.isfinite(mean_ct)})")


if __name__ == "__main__":
    main()
