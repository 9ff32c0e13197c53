"""Fractional and negative grades (issue 30, item 3): read from files, frames and dicts;
relevant means grade >= rel, nDCG's gains are the grades; checked against an independent
loop. Measures defined on integer grade levels refuse them in one line; integer grades are
int64 as before, and ``pateval trec_eval`` keeps trec_eval's integer grades."""

from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest

import pateval
from pateval.cli import main
from pateval.core.qrels import Qrels
from pateval.errors import InputFormatError, ParameterError


def _case(seed: int):
    rng = random.Random(seed)
    qrels: dict = {}
    run: dict = {}
    for t in range(6):
        topic = f"q{t}"
        docs = [f"d{i}" for i in range(12)]
        qrels[topic] = {d: rng.choice([-1, 0, 0.25, 0.5, 1, 1.5, 2, 2.75, 3]) for d in rng.sample(docs, 8)}
        scores = rng.sample(range(1000), 10)  # distinct: no ties to break
        run[topic] = {d: float(s) for d, s in zip(rng.sample(docs, 10), scores, strict=True)}
    return qrels, run


def _ranking(docs: dict) -> list[str]:
    return sorted(docs, key=lambda d: -docs[d])


def _loop(qrels: dict, run: dict, k: int, rel: int) -> dict[str, dict[str, float]]:
    """AP, P@k, R@k, RR and nDCG@k written out, topic by topic."""
    values: dict[str, dict[str, float]] = {}
    for topic, docs in run.items():
        grades = qrels[topic]
        ranking = _ranking(docs)
        relevant = {d for d, g in grades.items() if g >= rel}
        hits, precisions = 0, []
        for i, doc in enumerate(ranking, start=1):
            if doc in relevant:
                hits += 1
                precisions.append(hits / i)
        first = next((i for i, d in enumerate(ranking, start=1) if d in relevant), None)
        dcg = sum(max(grades.get(d, 0), 0) / math.log2(i + 1) for i, d in enumerate(ranking[:k], start=1))
        ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:k]
        idcg = sum(g / math.log2(i + 1) for i, g in enumerate(ideal, start=1))
        values[topic] = {
            "AP": sum(precisions) / len(relevant) if relevant else 0.0,
            f"P@{k}": sum(d in relevant for d in ranking[:k]) / k,
            f"R@{k}": sum(d in relevant for d in ranking[:k]) / len(relevant) if relevant else 0.0,
            "RR": 1 / first if first else 0.0,
            f"nDCG@{k}": dcg / idcg if idcg else 0.0,
        }
    return values


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("rel", [1, 2])
def test_fractional_grades_against_an_independent_loop(seed, rel):
    qrels, run = _case(seed)
    expected = _loop(qrels, run, 5, rel)
    measures = [f"AP(rel={rel})", f"P(rel={rel})@5", f"R(rel={rel})@5", f"RR(rel={rel})", "nDCG@5"]
    frame = pateval.evaluate(qrels, run, measures)
    names = {f"AP(rel={rel})": "AP", f"P(rel={rel})@5": "P@5", f"R(rel={rel})@5": "R@5", f"RR(rel={rel})": "RR",
             "nDCG@5": "nDCG@5"}
    if rel == 1:
        names = {str(pateval.parse_measure(m)): n for m, n in names.items()}
    for row in frame[frame["topic"] != "all"].itertuples():
        assert row.value == pytest.approx(expected[row.topic][names[row.measure]], abs=1e-12), (row.topic, row.measure)


def test_every_form_reads_fractional_grades_alike(tmp_path):
    qrels, run = _case(0)
    lines = [(t, d, g) for t, docs in qrels.items() for d, g in docs.items()]
    text = tmp_path / "qrels.txt"
    text.write_text("".join(f"{t} 0 {d} {g}\n" for t, d, g in lines))
    beir = tmp_path / "qrels.tsv"
    beir.write_text("query-id\tcorpus-id\tscore\n" + "".join(f"{t}\t{d}\t{g}\n" for t, d, g in lines))
    frame = pd.DataFrame(lines, columns=["qid", "docno", "label"])
    parquet = tmp_path / "qrels.parquet"
    frame.rename(columns={"qid": "topic", "label": "rel"}).astype({"rel": float}).to_parquet(parquet)
    expected = pateval.evaluate(qrels, run, ["AP", "nDCG@5"])["value"].tolist()
    for form in (str(text), str(beir), frame, str(parquet)):
        assert pateval.evaluate(form, run, ["AP", "nDCG@5"])["value"].tolist() == expected
    read = pateval.read_qrels(text)
    assert read.rel.dtype == np.float64 and sorted(set(read.rel.tolist())) == sorted({g for *_, g in lines})


def test_integer_grades_stay_int64():
    assert Qrels.from_dict({"q1": {"d1": 1, "d2": 2.0}}).rel.dtype == np.int64
    assert Qrels.from_dict({"q1": {"d1": 1, "d2": 0.5}}).rel.dtype == np.float64


@pytest.mark.parametrize("measure", ["ERR@10", "nDCG(gains='1=3,2=9')", "Bpref", "alpha_nDCG@10"])
def test_a_measure_on_integer_levels_refuses_fractional_grades_in_one_line(measure):
    with pytest.raises(ParameterError) as caught:
        pateval.evaluate({"q1": {"d1": 0.5, "d2": 2}}, {"q1": {"d1": 2.0}}, [measure])
    message = str(caught.value)
    assert "defined on integer grade levels" in message and "(such as 0.5)" in message and "\n" not in message


def test_nan_and_infinite_grades_are_refused(tmp_path):
    with pytest.raises(ParameterError, match="finite numbers"):
        Qrels.from_dict({"q1": {"d1": float("nan")}})
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 d1 inf\n")
    with pytest.raises(InputFormatError, match="line 1: the relevance grade \\(4th column\\) is not a finite number"):
        pateval.read_qrels(path)


def test_trec_eval_command_keeps_integer_grades(tmp_path, capsys):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0.5\n")
    run.write_text("q1 Q0 d1 1 2.0 r\n")
    assert main(["trec_eval", str(qrels), str(run)]) == 2
    assert capsys.readouterr().err == (f"pateval: error: {qrels}, line 2: the relevance grade (4th column) is not an "
                                       "integer (expected an integer, found '0.5')\n")
    assert main(["evaluate", str(qrels), str(run), "-m", "AP"]) == 0
    assert capsys.readouterr().out.split() == ["AP", "all", "1.0000"]


@pytest.mark.parametrize("seed", range(3))
def test_measures_of_relevance_give_the_values_of_the_qrels_cut_at_rel(seed):
    """For a measure that reads relevance only, fractional grades give the values of integer
    qrels with 1 where grade >= rel and 0 elsewhere (negative grades kept)."""
    qrels, run = _case(seed)
    cut = {t: {d: (1 if g >= 1 else -1 if g < 0 else 0) for d, g in docs.items()} for t, docs in qrels.items()}
    measures = ["AP", "P@5", "R@5", "Rprec", "RR", "Success@3", "NumRel", "NumRelRet", "NumRet", "PRES@8"]
    assert Qrels.from_dict(qrels).rel.dtype == np.float64
    fractional = pateval.evaluate(qrels, run, measures)
    integer = pateval.evaluate(cut, run, measures)
    assert fractional["value"].tolist() == integer["value"].tolist()
