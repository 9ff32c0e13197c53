"""trec_eval's -J and -M for the preference and judgement-group measures, decided by the
evaluation (``EvaluationOptions(compat=...)``): the library, ``pateval evaluate`` and
``pateval trec_eval`` (which tests/measures/test_prefs_trec_eval.py checks against the
trec_eval binary) give the same values with ``compat="trec_eval"``; pateval's own rules with
``compat="pateval"``."""

from __future__ import annotations

from pathlib import Path

import pytest

import pateval.api as api
from pateval.cli import main
from pateval.formats.prefs import read_prefs, read_qrels_jg, read_qrels_prefs
from pateval.measures import Measure, parse_measure
from pateval.measures.registry import trec_eval_name
from pateval.options import EvaluationOptions
from pateval.trec_eval_rules import REL_INFO_FORMATS, marked_measures, measure_names

DATA = Path(__file__).parent.parent / "data"
QUICKTEST = DATA / "trec_eval_quicktest"
READERS = {"prefs": read_prefs, "qrels_prefs": read_qrels_prefs, "qrels_jg": read_qrels_jg}

# trec_eval's own quicktest inputs (tests/data/README.md): preferences, qrels read as
# preferences, and qrels with judgement groups (topic 1 judged by groups 1, 2 and 3)
INPUTS = {"prefs": (QUICKTEST / "prefs.test", QUICKTEST / "prefs.results.test", "all_prefs"),
          "qrels_prefs": (DATA / "trec" / "qrels.test", DATA / "trec" / "results.test", "all_prefs"),
          "qrels_jg": (QUICKTEST / "qrels.123.gz", DATA / "trec" / "results.test", "qrels_jg")}


def _printed(out: str) -> dict[tuple[str, str], str]:
    """(measure, topic) -> value of trec_eval's output lines."""
    return {(line.split("\t")[0].strip(), line.split("\t")[1]): line.split("\t")[2] for line in out.splitlines()
            if not line.startswith(("runid", "num_q"))}


def _library(fmt: str, rel: Path, run: Path, measures, **options) -> dict[tuple[str, str], str]:
    """The library's values, printed as trec_eval prints them (4 decimals; counts whole)."""
    groups = READERS[fmt](rel)
    result = api.evaluation(groups.qrels(), [str(run)], options=EvaluationOptions(
        measures=measures, compat="trec_eval", resources={REL_INFO_FORMATS[fmt]: groups}, **options))
    rows = [(topic, measure, value) for _, topic, measure, value in result.frame.itertuples(index=False)]
    rows += [("all", measure, value) for _, measure, value, _ in result.summary_rows()]
    values = {}
    for topic, measure, value in rows:
        parsed = parse_measure(measure)
        values[trec_eval_name(parsed), topic] = f"{value:.0f}" if parsed.spec.integer else f"{value:.4f}"
    return values


@pytest.mark.parametrize("fmt", list(INPUTS))
@pytest.mark.parametrize("flags", [["-M", "5"], ["-J"], ["-J", "-M", "7"], ["-c", "-J", "-M", "3"]], ids=" ".join)
def test_the_library_gives_the_commands_values(capsys, fmt, flags):
    rel, run, nickname = INPUTS[fmt]
    assert main(["trec_eval", "-q", "-R", fmt, "-m", nickname, *flags, str(rel), str(run)]) == 0
    theirs = _printed(capsys.readouterr().out)
    measures = list(measure_names(marked_measures([nickname]), num_docs=None))
    ours = _library(fmt, rel, run, measures, complete="-c" in flags, judged_only="-J" in flags,
                    max_documents=int(flags[-1]) if "-M" in flags else None)
    assert ours == theirs
    # -M and -J change values here (the preference measures ignore -J: test_each_compat_applies_its_rules)
    assert main(["trec_eval", "-q", "-R", fmt, "-m", nickname, *(f for f in flags if f == "-c"), str(rel),
                 str(run)]) == 0
    assert (_printed(capsys.readouterr().out) != theirs) == ("-M" in flags or fmt == "qrels_jg")


# a run whose -M cut depends on the order of equal scores, an unjudged document above all
_PREFS = "q u s a 2\nq u s b 1\nq u s c 0\n"
_RUN = "q Q0 x 1 3 t\nq Q0 b 2 2 t\nq Q0 a 3 2 t\nq Q0 c 4 1 t\n"
# qrels read as preferences: n's negative level is below m's 0 (pooled but unjudged as a qrels grade)
_QRELS_PREFS = "q u a 1\nq u n -1\nq u m 0\n"
_RUN_2 = "q Q0 n 1 2 t\nq Q0 a 2 1 t\n"
# judgement groups: A judges d1, d2, d3; B d2, d4
_QRELS_JG = "q A d1 1\nq A d2 0\nq A d3 1\nq B d2 1\nq B d4 1\n"
_RUN_JG = "q Q0 d1 1 3 t\nq Q0 d2 2 2 t\nq Q0 d3 3 1 t\n"

# (format, judgements, run, measure, flags, trec_eval 10.0's value (the binary, on these files), pateval's value)
CASES = [
    # -M 2: trec_eval cuts in its preference order (equal scores by ascending docno: x, a), pateval in
    # the evaluation's (by descending docno: x, b): a > b, a > c kept (2 of 3), or b > c only
    ("prefs", _PREFS, _RUN, "prefs_simp", ["-M", "2"], 2 / 3, 1 / 3),
    ("prefs", _PREFS, _RUN, "prefs_num_prefs_ful", ["-J", "-M", "2"], 2, 1),
    # -J: trec_eval's preference measures ignore it (n above a: a > m kept of a > m, a > n, m > n);
    # pateval's drops n, pooled but unjudged (a > m and a > n kept)
    ("qrels_prefs", _QRELS_PREFS, _RUN_2, "prefs_simp", ["-J"], 1 / 3, 2 / 3),
    ("qrels_prefs", _QRELS_PREFS, _RUN_2, "prefs_simp", [], 1 / 3, 1 / 3),
    # -J on judgement groups, in both: each group's ranking keeps what that group judges (B: d2 first)
    ("qrels_jg", _QRELS_JG, _RUN_JG, "map_avgjg", ["-J"], (5 / 6 + 1 / 2) / 2, (5 / 6 + 1 / 2) / 2),
    ("qrels_jg", _QRELS_JG, _RUN_JG, "map_avgjg", [], (5 / 6 + 1 / 4) / 2, (5 / 6 + 1 / 4) / 2),
    ("qrels_jg", _QRELS_JG, _RUN_JG, "P_avgjg_5", ["-J", "-M", "2"], (1 / 5 + 1 / 5) / 2, (1 / 5 + 1 / 5) / 2),
]


@pytest.mark.parametrize(("fmt", "text", "run_text", "measure", "flags", "theirs", "ours"), CASES,
                         ids=[f"{fmt} {measure} {' '.join(flags)}" for fmt, _, _, measure, flags, *_ in CASES])
def test_each_compat_applies_its_rules(tmp_path, capsys, fmt, text, run_text, measure, flags, theirs, ours):
    rel, run = tmp_path / "rel", tmp_path / "run"
    rel.write_text(text)
    run.write_text(run_text)
    trec_measure = measure.rpartition("_")[0] if measure.startswith("P_") else measure
    param = ["-m", f"{trec_measure}.{measure.rpartition('_')[2]}"] if measure.startswith("P_") else ["-m", measure]
    assert main(["trec_eval", "-R", fmt, *param, *flags, str(rel), str(run)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].split("\t")[-1] == (
        f"{theirs:.0f}" if measure.startswith("prefs_num") else f"{theirs:.4f}")
    groups = READERS[fmt](rel)
    max_documents = int(flags[-1]) if "-M" in flags else None
    for compat, expected in (("trec_eval", theirs), ("pateval", ours)):
        result = api.evaluation(groups.qrels(), [str(run)], options=EvaluationOptions(
            measures=[measure], compat=compat, judged_only="-J" in flags, max_documents=max_documents,
            resources={REL_INFO_FORMATS[fmt]: groups}))
        assert result.summary_rows()[0][2] == pytest.approx(expected), compat
    if fmt != "qrels_prefs":  # pateval evaluate takes --prefs and --qrels-jg beside the qrels they judge
        qrels = tmp_path / "qrels"
        q = groups.qrels()
        qrels.write_text("".join(f"{t} 0 {d} {g}\n" for t, d, g in zip(q.topic, q.docno, q.rel, strict=True)))
        option = {"prefs": "--prefs", "qrels_jg": "--qrels-jg"}[fmt]
        for compat, expected in (("trec_eval", theirs), ("pateval", ours)):
            assert main(["evaluate", "--names", "trec", "--compat", compat, option, str(rel), "-m", measure,
                         *flags, str(qrels), str(run)]) == 0
            assert capsys.readouterr().out.split("\t")[-1].strip() == (
                f"{expected:.0f}" if measure.startswith("prefs_num") else f"{expected:.4f}")
    if fmt == "qrels_jg":  # -J is judged_only=true on each measure
        plain = parse_measure(measure)
        judged = api.evaluation(groups.qrels(), [str(run)], options=EvaluationOptions(
            measures=[Measure.make(plain.spec, {**dict(plain.values), "judged_only": True}, plain.cutoff)],
            max_documents=max_documents, resources={"judgement_groups": groups}))
        assert (judged.summary_rows()[0][2] == pytest.approx(ours)) == ("-J" in flags)


@pytest.mark.parametrize("fmt", list(INPUTS))
def test_a_run_read_in_blocks_gives_the_values_of_the_run_read_whole(fmt):
    # pateval trec_eval reads a run of the side inputs' measures in blocks of whole topics too
    rel, run, nickname = INPUTS[fmt]
    groups = READERS[fmt](rel)
    measures = list(measure_names(marked_measures([nickname]), num_docs=None))
    frames = [api.evaluation(groups.qrels(), [str(run)], options=EvaluationOptions(
        measures=measures, compat="trec_eval", complete=True, block_bytes=size,
        resources={REL_INFO_FORMATS[fmt]: groups})).frame for size in (0, 3000)]
    assert frames[0].equals(frames[1])
