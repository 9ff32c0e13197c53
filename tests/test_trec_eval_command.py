"""``pateval trec_eval``: trec_eval 10.0's ``make quicktest`` (its 15 command lines, its test
files and expected outputs, tests/data/trec_eval_quicktest and tests/data/trec), byte for byte;
the flags pateval refuses; and, where a trec_eval binary is at hand, random inputs compared
with it."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pateval.cli import main

DATA = Path(__file__).parent / "data"
QUICKTEST = DATA / "trec_eval_quicktest"
# trec_eval's test/ files: three are in tests/data/trec, the large ones gzipped
FILES = {"qrels.test": DATA / "trec" / "qrels.test", "results.test": DATA / "trec" / "results.test",
         "qrels.rel_level": DATA / "trec" / "qrels.rel_level",
         **{name: QUICKTEST / f"{name}.gz" for name in ("qrels.123", "qrels.comment.test", "qrels.comments.123",
                                                       "results.comment.test")}}

# the command lines of trec_eval's Makefile target quicktest (./trec_eval ARGS | diff - EXPECTED)
QUICKTEST_LINES = [
    ("test/qrels.test test/results.test", "out.test", None),
    ("test/qrels.test.with-comments test/results.test", "out.test", None),
    ("test/qrels.comment.test test/results.comment.test", "out.comment.test", None),
    ("-m all_trec test/qrels.test test/results.test", "out.test.a", None),
    ("-m all_trec -q test/qrels.test test/results.test", "out.test.aq", None),
    ("-m all_trec -q -c test/qrels.test test/results.trunc", "out.test.aqc", None),
    ("-m all_trec -q -c -M100 test/qrels.test test/results.trunc", "out.test.aqcM", None),
    ("-m all_trec -mrelstring.20 -q -l2 test/qrels.rel_level test/results.test", "out.test.aql", None),
    ("-m all_prefs -q -R prefs test/prefs.test test/prefs.results.test", "out.test.prefs", None),
    ("-m all_prefs -q -R prefs test/prefs.comment.test test/prefs.results.test", "out.test.prefs", None),
    ("-m all_prefs -q -R qrels_prefs test/qrels.test test/results.test", "out.test.qrels_prefs", None),
    ("-m qrels_jg -q -R qrels_jg test/qrels.123 test/results.test", "out.test.qrels_jg", None),
    ("-m qrels_jg -q -R qrels_jg test/qrels.comments.123 test/results.test", "out.test.qrels_jg", None),
    ("-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35 "
     "-mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 "
     "test/qrels.test test/results.test", "out.test.meas_params", None),
    ("-q -m all_trec -Z test/zscores_file test/qrels.test test/results.test", "out.test.aqZ", None),
]


def _argv(line: str) -> list[str]:
    return [str(FILES.get(word[5:], QUICKTEST / word[5:])) if word.startswith("test/") else word
            for word in line.split()]


@pytest.mark.parametrize(("line", "expected", "missing"), [
    pytest.param(line, expected, missing, id=f"{number}:{expected}",
                 marks=[pytest.mark.xfail(strict=True, reason=missing)] if missing else [])
    for number, (line, expected, missing) in enumerate(QUICKTEST_LINES, 1)])
def test_trec_eval_quicktest(capsys, line, expected, missing):
    status = main(["trec_eval", *_argv(line)])
    out = capsys.readouterr().out
    assert status == 0
    assert out == (QUICKTEST / expected).read_text()


@pytest.mark.parametrize(("flags", "message"), [
    (["-D", "1"], "trec_eval -D: not supported"),
    (["-R", "other"], "trec_eval -R other: illegal rel_info format"),
    (["-T", "other"], "trec_eval -T other: pateval reads only -T trec_results"),
    (["-m", "nosuch"], "trec_eval -m nosuch: illegal measure"),
    (["-m", "all_prefs"], "trec_eval -m prefs_num_prefs_poss: needs -R prefs or -R qrels_prefs, not -R qrels"),
    (["-m", "map_avgjg"], "trec_eval -m map_avgjg: needs -R qrels_jg, not -R qrels"),
    (["-R", "qrels_prefs", "-m", "map"], "trec_eval -m map: needs -R qrels, not -R qrels_prefs"),
    (["-R", "qrels_jg", "-m", "relstring"], "trec_eval -m relstring: needs -R qrels, not -R qrels_jg"),
    (["-m", "P."], "trec_eval -m P.: improper measure parameters"),
    (["-m", "P.a,b"], "the parameters must be numbers"),
    (["-m", "rbp_resid.q=0.5"], "trec_eval -m rbp_resid.q=0.5: pateval's rbp_resid takes only p=PERSISTENCE"),
    (["-M", "0"], "trec_eval -M 0: must be a positive number"),
])
def test_trec_eval_refuses_in_one_line(capsys, flags, message):
    assert main(["trec_eval", *flags, str(FILES["qrels.test"]), str(FILES["results.test"])]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err and captured.err.count("\n") == 1


def test_trec_eval_without_files_prints_its_usage(capsys):
    assert main(["trec_eval", str(FILES["qrels.test"])]) == 2
    assert "usage: pateval trec_eval" in capsys.readouterr().err


def test_trec_eval_version_line(capsys):
    assert main(["trec_eval", "-v"]) == 0
    assert capsys.readouterr().err.startswith("trec_eval version 10.0 (pateval ")


def test_trec_eval_nosummary_prints_the_topics_only(capsys):
    assert main(["trec_eval", "-q", "-n", str(FILES["qrels.test"]), str(FILES["results.test"])]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all("\tall\t" not in line for line in lines)
    assert {line.split("\t")[1] for line in lines} == {"301", "302", "303"}


def test_relstring_marks_each_kind_of_judgement(tmp_path, capsys):
    # as trec_eval 10.0 prints it (q2, -c, relstring.4: its one-document stand-in ranking, see _relevance_strings)
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 12\nq1 0 d2 -1\nq1 0 d3 0\nq1 0 d4 3\nq2 0 x 1\n")
    run = tmp_path / "run"
    run.write_text("".join(f"q1 Q0 {doc} {i} {9 - i} tag\n" for i, doc in enumerate(["d1", "d2", "new", "d3", "d4"]))
                   + "q3 Q0 x 1 1 tag\n")
    assert main(["trec_eval", "-q", "-c", "-m", "relstring.4", "-m", "num_ret", str(qrels), str(run)]) == 0
    assert capsys.readouterr().out == ("num_ret               \tq1\t5\nrelstring_4           \tq1\t'>.-0'\n"
                                       "num_ret               \tq2\t0\nrelstring_4           \tq2\t'-'\n"
                                       "num_ret               \tall\t5\n")


def test_a_qrels_topic_without_results_is_left_out_with_a_note(tmp_path, capsys):
    # trec_eval 10.0 exits 4 here ("result qid not found in qrels"); 9.0.x, pytrec_eval and
    # ir_measures average over the topics in both files (usnistgov/trec_eval#18), as pateval does
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 1\nq2 0 x 1\n")
    run.write_text("q1 Q0 d1 1 1 tag\n")
    assert main(["trec_eval", "-m", "num_q", "-m", "map", str(qrels), str(run)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "num_q                 \tall\t1\nmap                   \tall\t1.0000\n"
    assert captured.err == ("pateval: note: run 'tag': 1 qrels topic(s) without results left out of the mean (use -c / "
                            "complete=True to count them as 0): q2\n")
    assert main(["trec_eval", "-c", "-m", "num_q", "-m", "num_ret", str(qrels), str(run)]) == 0
    assert capsys.readouterr().out.endswith("num_q                 \tall\t2\nnum_ret               \tall\t1\n")
    many = tmp_path / "many"
    many.write_text("".join(f"q{k} 0 x 1\n" for k in range(1, 10)))
    assert main(["trec_eval", "-m", "num_q", str(many), str(run)]) == 0
    assert capsys.readouterr().err == ("pateval: note: run 'tag': 8 qrels topic(s) without results left out of the "
                                       "mean (use -c / complete=True to count them as 0): q2, q3, q4, q5, q6, ... (3 "
                                       "more)\n")


def test_complete_scores_missing_topics_as_trec_eval(tmp_path, capsys):
    # trec_eval 10.0's output: with -c, num_rel's all line counts every grade > 0 (not >= 2), and
    # topic 1 (no results, R = 2) is scored on a ranking of one unjudged document:
    # utility 1*0 - 1*1 + 0*2 + 2*(30 - 1 - 2)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 2\n1 0 b 1\n2 0 c 1\n2 0 d 3\n3 0 e 1\n")
    run.write_text("2 Q0 a 1 3 tag\n2 Q0 x 2 2 tag\n3 Q0 c 1 1 other\n")
    assert main(["trec_eval", "-c", "-l2", "-m", "num_rel", "-m", "runid", str(qrels), str(run)]) == 0
    assert capsys.readouterr().out == "runid                 \tall\tother\nnum_rel               \tall\t5\n"
    assert main(["trec_eval", "-q", "-c", "-m", "utility.1,-1,0,2", "-N", "30", str(qrels), str(run)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "utility_1,-1,0,2      \t1\t53.0000"


def test_judged_only_prints_nan_where_trec_eval_divides_zero_by_zero(tmp_path, capsys):
    # trec_eval 10.0's output: topic 10 (no results, -c) is left without documents by -J, and
    # iprec_at_recall at x is 0/0 where round(x R) = 0 (R = 2: x = 0.1, not 0.5)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 d0 0\n10 0 d0 1\n10 0 d1 1\n")
    run.write_text("1 Q0 d0 1 0 tag\n")
    assert main(["trec_eval", "-q", "-c", "-J", "-m", "iprec_at_recall..1,.5", "-m", "11pt_avg..3,.6", str(qrels),
                 str(run)]) == 0
    assert capsys.readouterr().out.splitlines()[3:7] == [
        "iprec_at_recall_0.10  \t10\t  -nan", "iprec_at_recall_0.50  \t10\t0.0000",
        "11pt_avg_.3,.6        \t10\t0.0000", "iprec_at_recall_0.10  \tall\t  -nan"]


@pytest.mark.parametrize("level", [1, 2, 3])
def test_evaluate_names_trec_uses_the_same_names(level):
    """`pateval evaluate --names trec` names each measure `pateval trec_eval -m all_trec` prints as it does."""
    from pateval.api import evaluation
    from pateval.results.writers import trec_eval_names
    from pateval.trec_eval_rules import marked_measures as _marked_measures
    from pateval.trec_eval_rules import measure_names as _measure_names

    printed = _measure_names(_marked_measures(["all_trec", "dcg", "ideal_dcg", "yaap"]), num_docs=None)
    # the measures as an evaluation with -l scores them
    scored = evaluation({"q1": {"d1": 1}}, {"q1": {"d1": 1.0}}, list(printed), relevance_level=level).measures
    assert list(trec_eval_names(scored, relevance_level=level).values()) == list(printed.values())


def test_zscores_of_missing_and_constant_references(tmp_path, capsys):
    qrels, run, zscores = tmp_path / "qrels", tmp_path / "run", tmp_path / "z"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n")
    run.write_text("q1 Q0 d1 1 2 tag\nq1 Q0 d2 2 1 tag\nq2 Q0 d9 1 1 tag\n")
    # q1: map 1 against 0.5 +- 0.25; num_ret 2 against 2 +- 0 (z 0); P_5 0.2 against 0.1 +- 0 (missing)
    zscores.write_text("q1 map 0.5 0.25\nq1 num_ret 2 0\nq1 P_5 0.1 0\n")
    flags = ["-q", "-m", "map", "-m", "num_ret", "-m", "P.5", "-m", "num_q", "-Z", str(zscores)]
    assert main(["trec_eval", *flags, str(qrels), str(run)]) == 0
    assert capsys.readouterr().out == (
        "Znum_ret               \tq1\t0.0000\nZmap                   \tq1\t2.0000\n"
        "ZP_5                   \tq1\t-1000000.0000\n"
        "Znum_ret               \tq2\t-1000000.0000\nZmap                   \tq2\t-1000000.0000\n"
        "ZP_5                   \tq2\t-1000000.0000\n"
        "Znum_q                 \tall\t2.0000\nZnum_ret               \tall\t-1000000.0000\n"
        "Zmap                   \tall\t-499999.0000\nZP_5                   \tall\t-1000000.0000\n")


@pytest.mark.parametrize(("text", "message"), [
    ("q1 map 0.5\n", "line 1: wrong number of columns"),
    ("q1 map 0.5 0.1\nq1 map x 0.1\n", "line 2: the mean (3rd column) is not a number"),
    ("q1 map 0.5 -0.1\n", "line 1: a standard deviation that is negative or infinite"),
    ("q1 map 0.5 0.1\nq1 map 0.4 0.1\n", "line 2: measure 'map' of topic 'q1' has two means"),
    ("", "the file is empty"),
])
def test_a_bad_zscore_file_is_named_in_one_line(tmp_path, capsys, text, message):
    zscores = tmp_path / "z"
    zscores.write_text(text)
    assert main(["trec_eval", "-Z", str(zscores), str(FILES["qrels.test"]), str(FILES["results.test"])]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and str(zscores) in captured.err and message in captured.err
    assert captured.err.count("\n") == 1


def _trec_eval_output(capsys, monkeypatch, argv: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    status = main(["trec_eval", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# whole (-c, relstring per topic: read whole; standard input: not in blocks) and in blocks (the rest)
@pytest.mark.parametrize("flags", [[], ["-q"], ["-c"], ["-q", "-m", "runid", "-m", "relstring", "-m", "P.1,2"],
                                   ["STDIN"]])
def test_the_rank_column_is_not_looked_at_and_the_last_tag_names_the_run(tmp_path, capsys, monkeypatch, flags):
    qrels, ranked, junk = tmp_path / "qrels", tmp_path / "ranked", tmp_path / "junk"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n")
    ranked.write_text("1 Q0 d1 1 1.5 last\n1 Q0 d2 2 1.0 last\n2 Q0 d3 1 0.5 last\n")
    # ranks that are not integers, or no numbers at all; a column after the sixth; tags that differ
    junk.write_text("1 Q0 d1 x 1.5 first\n1 Q0 d2 2.5 1.0 other trailing\n2 Q0 d3 - 0.5 last\n")
    outputs = []
    for run in (ranked, junk):
        argv = [str(qrels), "-"] if flags == ["STDIN"] else [*flags, str(qrels), str(run)]
        status, out, err = _trec_eval_output(capsys, monkeypatch, argv, run.read_bytes())
        assert status == 0, err
        outputs.append(out)
        if TREC_EVAL is not None:
            expected = subprocess.run([str(TREC_EVAL), *[a for a in flags if a != "STDIN"], str(qrels), str(run)],
                                      capture_output=True)
            assert out == expected.stdout.decode()
    assert outputs[0] == outputs[1] and "last" in outputs[1]
    # pateval evaluate reads the rank column (it can order by it) and refuses mixed tags
    assert main(["evaluate", "-m", "AP", str(qrels), str(junk)]) == 2
    assert "line 1: the rank (4th column) is not an integer" in capsys.readouterr().err


def test_a_score_that_atof_would_cut_short_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    # trec_eval reads a score with atof ("0.5abc" is 0.5); pateval refuses it (README, pateval trec_eval)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 d1 1\n")
    run.write_text("1 Q0 d1 1 0.5abc r\n")
    status, out, err = _trec_eval_output(capsys, monkeypatch, [str(qrels), str(run)])
    assert status == 2 and out == ""
    assert err == f"pateval: error: {run}, line 1: the score (5th column) is not a number (expected a decimal " \
                  "number, found '0.5abc')\n"


# ---- against the real trec_eval (built from usnistgov/trec_eval; never committed) ----------------

TREC_EVAL = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
_ALL = ["-m", "all_trec"]
# trec_eval's flags alone and together; ZFILE stands for a random z-score file
FLAG_SETS = [[], [*_ALL, "-q"], [*_ALL, "-q", "-c"], [*_ALL, "-q", "-M", "3"], [*_ALL, "-q", "-l", "2"],
             [*_ALL, "-q", "-l2", "-c"], [*_ALL, "-q", "-J"], [*_ALL, "-c", "-J", "-M5"],
             [*_ALL, "-q", "-c", "-J", "-M", "2", "-l", "3"], [*_ALL, "-q", "-n", "-T", "trec_results", "-N", "50"],
             [*_ALL, "-q", "-Z", "ZFILE"], [*_ALL, "-q", "-c", "-l2", "-M4", "-Z", "ZFILE"],
             ["-q", "-m", "relstring.5", "-m", "ndcg.1=3,2=1", "-m", "utility.2,-1,0,0", "-m", "11pt_avg..2,.5,.8",
              "-m", "rbp.p=0.5", "-m", "set_F.0.5", "-N", "40", "-m", "Rprec_mult.0.5,3"],
             ["-q", "-c", "-m", "utility.1,-1,0,2", "-N", "30", "-m", "ndcg_cut.3,7", "-m", "map_cut.2", "-m",
              "success.2", "-m", "recall.3", "-m", "relative_P.4", "-m", "unj.2", "-m", "iprec_at_recall..3",
              "-m", "Rndcg.1=2", "-m", "ndcg_rel.0=1,2=5", "-m", "G.2=4", "-m", "P.1,2"],
             # not with rbp: trec_eval's rbp reads its min and max uninitialised (m_rbp.c), left on the
             # stack by the measure computed before it, as dcg and yaap leave them
             ["-q", "-c", "-m", "official", "-m", "dcg", "-m", "ideal_dcg", "-m", "yaap", "-m", "ndcg"],
             # trec_eval crashes when one of dcg, ideal_dcg and ndcg has parameters and another is asked for
             ["-q", "-c", "-J", "-l2", "-m", "yaap", "-m", "dcg.0=-1,2=4", "-m", "rbp_resid.p=0.6"],
             ["-q", "-M2", "-m", "ideal_dcg.1=2,2=0", "-m", "yaap", "-m", "rbp_resid.p=0.2", "-Z", "ZFILE"]]
_TOPICS = ["1", "10", "2", "t", "T"]
_DOCS = [f"d{i}" for i in range(9)] + ["D1", "a-b", "z"]
# some of the names trec_eval prints with -m all_trec, for the z-score files
_ZSCORE_NAMES = ["num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "P_5",
                 "iprec_at_recall_0.00", "iprec_at_recall_0.50", "recall_10", "infAP", "gm_bpref", "utility",
                 "11pt_avg", "ndcg", "relative_P_5", "Rprec_mult_0.20", "success_1", "map_cut_5", "ndcg_cut_10",
                 "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
                 "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj_5", "yaap", "ideal_dcg_1=2,2=0",
                 "rbp_resid_p=0.2"]


@st.composite
def _collection(draw):
    """Random qrels, a run and a z-score file: grades -2 to 4, tied scores, topics on one side
    only, unjudged documents, mixed run tags, ranks that are not integers; means and deviations missing, zero
    or equal to the value."""
    qrels = []
    for topic in draw(st.lists(st.sampled_from(_TOPICS), min_size=1, max_size=4, unique=True)):
        for doc in draw(st.lists(st.sampled_from(_DOCS), min_size=1, max_size=8, unique=True)):
            qrels.append(f"{topic} 0 {doc} {draw(st.integers(-2, 4))}\n")
    run = []
    for topic in draw(st.lists(st.sampled_from(_TOPICS), min_size=1, max_size=4, unique=True)):
        for rank, doc in enumerate(draw(st.lists(st.sampled_from(_DOCS), min_size=1, max_size=10, unique=True))):
            score = draw(st.sampled_from([0, 1, 2, 2.5, -1, 3]))  # few values: ties
            tag = draw(st.sampled_from(["tag", "tag", "run2"]))  # trec_eval names the run by the last line's
            # the rank column: trec_eval does not look at it
            shown = draw(st.sampled_from([str(rank + 1), str(rank + 1), "x", "2.5", "-3"]))
            run.append(f"{topic} Q0 {doc} {shown} {score} {tag}\n")
    # every topic has a line, and one whose name sorts after every measure's: trec_eval's binary
    # search (convert_zscores.c) reads past its table for a topic or measure beyond the last one
    zscores = [f"{topic} zz_last 0 1\n" for topic in _TOPICS]
    for topic in draw(st.lists(st.sampled_from(_TOPICS), max_size=5, unique=True)):
        for name in draw(st.lists(st.sampled_from(_ZSCORE_NAMES), max_size=20, unique=True)):
            mean, stddev = draw(st.sampled_from([(0, 0), (1, 0), (0.25, 0.5), (3, 2), (-0.5, 0.125), (12, 7.5)]))
            zscores.append(f"{topic} {name} {mean} {stddev}\n")
    return "".join(qrels), "".join(draw(st.permutations(run))), "".join(draw(st.permutations(zscores)))


@pytest.mark.skipif(TREC_EVAL is None, reason="no trec_eval binary (set TREC_EVAL or put trec_eval on PATH)")
@pytest.mark.parametrize("flags", FLAG_SETS, ids=[" ".join(f) or "official" for f in FLAG_SETS])
@settings(max_examples=40, deadline=None)
@given(collection=_collection())
def test_same_output_as_trec_eval(flags, collection):
    qrels_text, run_text, zscores_text = collection
    with tempfile.TemporaryDirectory() as directory:
        qrels, run, zscores = Path(directory) / "qrels", Path(directory) / "run", Path(directory) / "zscores"
        qrels.write_text(qrels_text)
        run.write_text(run_text)
        zscores.write_text(zscores_text)
        flags = [str(zscores) if flag == "ZFILE" else flag for flag in flags]
        expected = subprocess.run([str(TREC_EVAL), *flags, str(qrels), str(run)], capture_output=True, text=True)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(["trec_eval", *flags, str(qrels), str(run)])
    if expected.returncode < 0:
        return  # trec_eval crashed (a signal; -c -J on a topic all of whose grades are negative): nothing to match
    if "not found in qrels" in expected.stderr:
        # trec_eval 10.0 stops at a qrels topic without results (without -c); pateval averages over
        # the topics in both files, as trec_eval does on the qrels of those topics alone (9.0.x's rule)
        assert status == 0 and "qrels topic(s) without results left out of the mean" in err.getvalue()
        in_run = {line.split()[0] for line in run_text.splitlines()}
        if not any(line.split()[0] in in_run for line in qrels_text.splitlines()):
            assert out.getvalue() == ""  # no topic in both: nothing to average (trec_eval reads no qrels)
            return
        expected = _on_topics_in_both(flags, qrels_text, run_text, zscores_text)
    if expected.returncode < 0:
        return
    if expected.returncode != 0:
        # trec_eval fails on a topic whose qrels grades are all negative: pateval scores it
        assert status == 0 and "Can't calculate measure" in expected.stderr, err.getvalue()
        return
    assert status == 0, err.getvalue()
    grades: dict[str, list[int]] = {}
    for line in qrels_text.splitlines():
        grades.setdefault(line.split()[0], []).append(int(line.split()[3]))
    if any(max(topic) < 0 for topic in grades.values()):
        # a topic all of whose grades are negative: trec_eval fails on it (above) or, after another
        # topic, reads that topic's grade counts (form_res_rels.c keeps its buffer): nothing defined to match
        return
    # byte for byte, -nan too (iprec_at_recall and 11pt_avg of a topic that -J leaves without documents)
    assert out.getvalue() == expected.stdout


def _on_topics_in_both(flags: list[str], qrels_text: str, run_text: str, zscores_text: str):
    """trec_eval on the qrels of the run's topics alone (every flag and file as given)."""
    in_run = {line.split()[0] for line in run_text.splitlines()}
    with tempfile.TemporaryDirectory() as directory:
        qrels, run, zscores = Path(directory) / "qrels", Path(directory) / "run", Path(directory) / "zscores"
        qrels.write_text("".join(line for line in qrels_text.splitlines(keepends=True) if line.split()[0] in in_run))
        run.write_text(run_text)
        zscores.write_text(zscores_text)
        flags = [str(zscores) if flag.endswith("zscores") else flag for flag in flags]
        return subprocess.run([str(TREC_EVAL), *flags, str(qrels), str(run)], capture_output=True, text=True)


@given(st.lists(st.tuples(st.text(min_size=1, max_size=4),
                          st.one_of(st.floats(-1e6, 1e6), st.just(-0.0), st.just(0.1), st.just(0.7))),
                min_size=1, max_size=40, unique_by=lambda pair: pair[0]),
       st.sampled_from(["mean", "sum"]))
@settings(max_examples=200, deadline=None)
def test_the_all_value_is_trec_evals_left_to_right_sum_in_byte_order(pairs, how):
    """trec_eval adds a measure's values one topic at a time, topics in byte order, from 0.0;
    the last bit (and so a printed digit) depends on that order."""
    import math

    import numpy as np

    from pateval.results.writers import trec_eval_mean

    topics = [topic for topic, _ in pairs]
    values = np.array([value for _, value in pairs])
    total = 0.0
    for _topic, value in sorted(pairs, key=lambda pair: pair[0].encode()):
        total += value
    expected = total if how == "sum" else total / len(pairs)
    found = trec_eval_mean(values, topics, how)
    assert found == expected and math.copysign(1.0, found) == math.copysign(1.0, expected)


# ---- compat="trec_eval": the library, pateval evaluate and pateval trec_eval agree ---------------

_COMPAT_QRELS = "1 0 a 2\n1 0 b 1\n2 0 c 1\n2 0 d 3\n3 0 e 1\n3 0 f -1\n4 0 g 1\n4 0 h 0\n"
_COMPAT_RUN = "1 Q0 a 1 3 t\n1 Q0 zz 2 2 t\n2 Q0 c 1 1 t\n2 Q0 q 2 0.5 t\n3 Q0 unj 1 1 t\n"


@pytest.mark.parametrize("judged_only", [False, True])
def test_compat_trec_eval_gives_the_trec_eval_commands_values(tmp_path, capsys, judged_only):
    """Topic 4 has no results (-c: trec_eval's stand-in ranking, utility_1,-1,0,2 counts its
    document); with -J topic 3 is left without documents (iprec_at_recall: 0 / 0)."""
    import pateval
    from pateval.options import EvaluationOptions

    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(_COMPAT_QRELS)
    run.write_text(_COMPAT_RUN)
    flags = ["-c", "-q", *(["-J"] if judged_only else [])]
    assert main(["trec_eval", *flags, "-m", "utility.1,-1,0,2", "-m", "iprec_at_recall.0", "-m", "num_ret",
                 "-m", "unj.5", str(qrels), str(run)]) == 0
    theirs = {(line.split("\t")[0].strip(), line.split("\t")[1]): line.split("\t")[2]
              for line in capsys.readouterr().out.splitlines()}
    # trec_eval 10.0's own output (the binary, run on these files): -J removes topic 4's stand-in document
    assert theirs["utility_1,-1,0,2", "4"] == ("-2.0000" if judged_only else "-5.0000")
    assert theirs["num_ret", "4"] == "0" and theirs["unj_5", "4"] == "0.0000"
    assert theirs["iprec_at_recall_0.00", "3"] == ("  -nan" if judged_only else "0.0000")
    measures = ["Utility(d=2)", "IPrec@0.0", "NumRet", "Unj@5"]
    assert main(["evaluate", *flags, "--compat", "trec_eval", "--names", "trec", *[a for m in measures
                                                                                     for a in ("-m", m)],
                 str(qrels), str(run)]) == 0
    ours = {(line.split("\t")[0].strip(), line.split("\t")[1]): line.split("\t")[2]
            for line in capsys.readouterr().out.splitlines()}
    names = {"Utility(d=2.0)": "utility_1,-1,0,2", "IPrec(rounding=trec_eval9)": "iprec_at_recall_0.00"}
    assert {(names.get(m, m), t): v for (m, t), v in ours.items()} == theirs
    frame = pateval.evaluate(str(qrels), str(run), options=EvaluationOptions(
        measures=["Utility(d=2)"], complete=True, judged_only=judged_only, compat="trec_eval"))
    assert frame.set_index("topic")["value"].to_dict() == ({"1": -3.0, "2": -3.0, "3": -2.0, "4": -2.0} if judged_only
                                                           else {"1": -6.0, "2": -6.0, "3": -5.0, "4": -5.0})
    # pateval's own rule: topic 4 retrieved nothing, its utility is that of an empty ranking
    assert main(["evaluate", *flags, "-m", "Utility(d=2)", str(qrels), str(run)]) == 0
    assert "Utility(d=2)          \t4\t-2.0000" in capsys.readouterr().out.splitlines()


def test_compat_names_its_choices():
    from pateval.errors import ParameterError
    from pateval.options import EvaluationOptions

    with pytest.raises(ParameterError, match="compat"):
        EvaluationOptions(compat="trec_eval9")


def test_compat_clears_values_by_the_name_trec_eval_prints(tmp_path, capsys):
    # trec_eval 10.0 -c clears the value named "utility" on a stand-in ranking, not the same measure
    # asked for with its default parameters written out ("utility_1,-1,0,0"): the binary prints
    # 0.0000 and -1.0000 for topic 2 here
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n2 0 b 1\n")
    run.write_text("1 Q0 x 1 1 tag\n")
    for measure, value in (("utility", "0.0000"), ("utility.1,-1,0,0", "-1.0000")):
        assert main(["trec_eval", "-c", "-q", "-m", measure, str(qrels), str(run)]) == 0
        assert capsys.readouterr().out.splitlines()[1].split("\t")[1:] == ["2", value]
    import dataclasses

    import pateval
    from pateval.options import EvaluationOptions

    options = EvaluationOptions(measures=["Utility"], complete=True, compat="trec_eval")
    frame = pateval.evaluate(str(qrels), str(run), options=options)
    assert frame.set_index("topic")["value"].to_dict() == {"1": -1.0, "2": 0.0}
    frame = pateval.evaluate(str(qrels), str(run), options=dataclasses.replace(
        options, trec_eval_names={"Utility": "utility_1,-1,0,0"}))
    assert frame.set_index("topic")["value"].to_dict() == {"1": -1.0, "2": -1.0}


def test_compat_counts_num_rel_of_complete_as_trec_eval_does(tmp_path, capsys):
    # trec_eval 10.0 -c -l2 prints num_rel's all line as 5 here (every grade > 0; the binary's output
    # in test_complete_scores_missing_topics_as_trec_eval): the library and pateval evaluate give it
    # with compat="trec_eval", and their own sum over the topics (grades >= 2: a and d) without
    import pateval.api as api
    from pateval.options import EvaluationOptions

    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 2\n1 0 b 1\n2 0 c 1\n2 0 d 3\n3 0 e 1\n")
    run.write_text("2 Q0 a 1 3 tag\n2 Q0 x 2 2 tag\n3 Q0 c 1 1 tag\n")
    assert main(["trec_eval", "-c", "-l2", "-m", "num_rel", str(qrels), str(run)]) == 0
    assert capsys.readouterr().out == "num_rel               \tall\t5\n"
    assert main(["evaluate", "-c", "-l", "2", "--compat", "trec_eval", "--names", "trec", "-m", "NumRel", str(qrels),
                 str(run)]) == 0
    assert capsys.readouterr().out == "num_rel               \tall\t5\n"
    options = EvaluationOptions(measures=["NumRel"], complete=True, relevance_level=2, compat="trec_eval")
    assert [row[2] for row in api.evaluation(str(qrels), [str(run)], options=options).summary_rows()] == [5.0]
    plain = EvaluationOptions(measures=["NumRel"], complete=True, relevance_level=2)
    assert [row[2] for row in api.evaluation(str(qrels), [str(run)], options=plain).summary_rows()] == [2.0]


def test_compat_sums_the_all_values_as_trec_eval_does():
    """With compat="trec_eval" the library's all value is trec_eval's sum (topics in byte order,
    left to right), which pateval trec_eval prints; pateval's own is the exactly rounded sum."""
    import numpy as np

    from pateval.evaluation import Evaluation, ScoredRun
    from pateval.measures import parse_measure

    piece = ScoredRun("r", ["b", "a", "d", "c"], ["AP"], np.array([0.7705, 0.5396, 0.8603, 0.2322]))
    ours = Evaluation([piece], [parse_measure("AP")]).summary_rows()
    theirs = Evaluation([piece], [parse_measure("AP")], compat="trec_eval").summary_rows()
    assert ours == [("r", "AP", 0.60065, 4)]
    assert theirs == [("r", "AP", ((0.5396 + 0.7705) + 0.2322 + 0.8603) / 4, 4)] and theirs != ours
