"""trec_eval's habits: --names trec gives trec_eval's own lines on its own test files (recorded
from a real trec_eval, see fixtures/make_trec_eval_outputs.py), with -q, -l, -M and -J;
measure lists P.5,10,20; ir_measures' and ranx's spellings; did-you-mean; jsonl."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pateval
from pateval.cli import main
from pateval.errors import MeasureNameError
from pateval.measures import parse_measure, parse_measures
from pateval.measures.registry import trec_eval_name

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "trec_eval_outputs.json").read_text())


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda c: f"{c['qrels']} {' '.join(c['arguments'])[:60]}")
def test_names_trec_prints_trec_evals_own_lines(case, test_data, capsys):
    trec = test_data / "trec"
    arguments = ["evaluate", "--names", "trec", *case["arguments"], str(trec / case["qrels"]), str(trec / case["run"])]
    assert main(arguments) == 0
    assert capsys.readouterr().out.splitlines() == case["lines"]


def test_the_issues_check_line_for_line(test_data, capsys):
    trec = test_data / "trec"
    case = next(c for c in FIXTURE["cases"] if c["arguments"] == ["-m", "map", "-m", "P.5,10", "-m", "ndcg_cut.10",
                                                                  "-q"])
    assert main(["evaluate", "--names", "trec", "-m", "map", "-m", "P.5,10", "-m", "ndcg_cut.10", "-q",
                 str(trec / "qrels.test"), str(trec / "results.test")]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == case["lines"]
    assert "map                   \tall\t0.1785" in out.splitlines()  # what `grep '^map\s+all'` finds


def test_default_measures_with_trec_names_start_with_runid_and_num_q(test_data, capsys):
    trec = test_data / "trec"
    assert main(["evaluate", "--names", "trec", str(trec / "qrels.test"), str(trec / "results.test")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["runid                 \tall\tSTANDARD", "num_q                 \tall\t3"]
    assert [line.split()[0] for line in lines[2:]] == ["num_ret", "num_rel", "num_rel_ret", "map", "P_10",
                                                       "recall_1000", "ndcg_cut_10"]


def test_trec_names_in_json_and_jsonl_and_pateval_names_for_others(test_data, capsys):
    trec = test_data / "trec"
    args = ["evaluate", "--names", "trec", "-m", "AP", "-m", "PRES@100", "-m", "P@5",
            str(trec / "qrels.test"), str(trec / "results.test")]
    assert main([*args, "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["measure"] for r in records] == ["map", "PRES@100", "P_5"]
    assert main([*args, "--format", "jsonl"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line) for line in lines] == records


@pytest.mark.parametrize("name, expected", [
    ("AP", "map"), ("AP@100", "map_cut_100"), ("P@10", "P_10"), ("nDCG", "ndcg"), ("nDCG@10", "ndcg_cut_10"),
    ("R@1000", "recall_1000"), ("Rprec", "Rprec"), ("RR", "recip_rank"), ("Bpref", "bpref"),
    ("NumRet", "num_ret"), ("NumRel", "num_rel"), ("NumRelRet", "num_rel_ret"), ("Success@10", "success_10"),
    ("R", None), ("RR@10", None), ("AP(rel=2)", None), ("PRES@100", None), ("nDCG(judged_only=true)@10", None),
])
def test_trec_eval_name(name, expected):
    assert trec_eval_name(name) == expected


@pytest.mark.parametrize("spelling, canonical", [
    ("MAP", "AP"), ("map", "AP"), ("NDCG@10", "nDCG@10"), ("ndcg@10", "nDCG@10"), ("MRR", "RR"), ("mrr", "RR"),
    ("BPref", "Bpref"), ("RPrec", "Rprec"), ("precision@10", "P@10"), ("r-precision", "Rprec"),
    ("hits@10", "Hits@10"), ("Judged@10", "Judged@10"), ("judged@5", "Judged@5"), ("P_10", "P@10"), ("P.10", "P@10"),
    ("ndcg_cut.10", "nDCG@10"), ("recall_1000", "R@1000"), ("recip_rank", "RR"), ("hit_rate@10", "Success@10"),
    ("success_5", "Success@5"), ("Success@1", "Success@1"),
])
def test_other_toolkits_spellings(spelling, canonical):
    assert str(parse_measure(spelling)) == canonical


def test_trec_eval_measure_lists():
    assert [str(m) for m in parse_measures(["P.5,10,20", "ndcg_cut.5,10", "recall.1000"])] == \
        ["P@5", "P@10", "P@20", "nDCG@5", "nDCG@10", "R@1000"]


@pytest.mark.parametrize("name, message", [
    ("nDGC@10", "unknown measure 'nDGC' in 'nDGC@10'; did you mean 'nDCG@10' or 'D_nDCG@10'?"),
    ("Presicion@10", "unknown measure 'Presicion' in 'Presicion@10'; did you mean 'P@10'?"),
    ("zzz", "unknown measure 'zzz' in 'zzz'; `pateval measures` lists them"),
])
def test_unknown_names_get_suggestions(name, message):
    with pytest.raises(MeasureNameError) as error:
        parse_measure(name)
    assert str(error.value) == message


QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2, "d6": -1}, "q2": {"d4": 1, "d5": 0}}
RUN = {"q1": {"d9": 5.0, "d1": 4.0, "d8": 3.0, "d2": 2.0, "d6": 1.5, "d3": 1.0},
       "q2": {"d7": 3.0, "d4": 2.0, "d5": 1.0}}


def _by(frame):
    return {(t, m): v for t, m, v in zip(frame["topic"], frame["measure"], frame["value"], strict=False)}


def test_judged_at_k_hits_and_judged_only_by_hand():
    values = _by(pateval.evaluate(QRELS, RUN, ["Judged@2", "Judged@10", "Hits@3", "P(judged_only=true)@2",
                                               "NumRet(judged_only=true)"]))
    # q1 ranking: d9 (unjudged) d1 (1) d8 (unjudged) d2 (0) d6 (-1: in the pool) d3 (2); Judged counts
    # every qrels entry, d6 too, as ir_measures does (judged_only drops d6, as trec_eval -J), and
    # divides by the 6 retrieved when fewer than k are (ir_measures' rule)
    assert values[("q1", "Judged@2")] == 0.5 and values[("q1", "Judged@10")] == 4 / 6
    assert values[("q2", "Judged@2")] == 0.5
    assert values[("q1", "Hits@3")] == 1 and values[("q2", "Hits@3")] == 1
    # judged only: q1 becomes d1 d2 d3, q2 d4 d5
    assert values[("q1", "P(judged_only=true)@2")] == 0.5 and values[("q2", "P(judged_only=true)@2")] == 0.5
    assert values[("q1", "NumRet(judged_only=true)")] == 3 and values[("q2", "NumRet(judged_only=true)")] == 2


def test_api_trec_eval_options_by_hand():
    level2 = _by(pateval.evaluate(QRELS, RUN, ["P@6", "P(rel=1)@6"], relevance_level=2))
    assert level2[("q1", "P(rel=2)@6")] == 1 / 6  # only d3 is relevant at level 2
    top2 = _by(pateval.evaluate(QRELS, RUN, ["NumRet", "P@2"], max_documents=2))
    assert top2[("q1", "NumRet")] == 2 and top2[("q2", "P@2")] == 0.5
    judged = _by(pateval.evaluate(QRELS, RUN, ["NumRet", "RR"], judged_only=True))
    assert judged[("q1", "NumRet")] == 3 and judged[("q1", "RR")] == 1.0 and judged[("q2", "RR")] == 1.0
    # -M first, then -J (trec_eval's order): the first 2 of q1 hold one judged document
    both = _by(pateval.evaluate(QRELS, RUN, ["NumRet"], max_documents=2, judged_only=True))
    assert both[("q1", "NumRet")] == 1
    with pytest.raises(pateval.errors.ParameterError, match="max_documents must be a positive integer"):
        pateval.evaluate(QRELS, RUN, ["AP"], max_documents=0)


def test_judged_only_on_a_run_file_read_in_blocks(tmp_path):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("".join(f"{t} 0 {d} {g}\n" for t, docs in QRELS.items() for d, g in docs.items()))
    run.write_text("".join(f"{t} Q0 {d} 1 {s} x\n" for t, docs in RUN.items() for d, s in docs.items()))
    names = ["P(judged_only=true)@2", "NumRet(judged_only=true)", "P@2"]
    from_file = _by(pateval.evaluate(qrels, run, names, block_bytes=64))  # blocks asked for: the run is read whole
    assert from_file == _by(pateval.evaluate(QRELS, RUN, names))
    assert from_file[("q1", "NumRet(judged_only=true)")] == 3
