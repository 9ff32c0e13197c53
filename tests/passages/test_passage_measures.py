"""Precision(D) and MAP(D) on hand-computed cases, and against a plain per-document loop."""

from __future__ import annotations

import numpy as np
import pytest

import pateval.api as api
from pateval.core.qrels import Qrels
from pateval.errors import ParameterError
from pateval.formats.passages import PassageRun, normalise_xpath

D = "/patent-document/description"

# Passage qrels. T1: D1 {p1, p3} (+ a heading, removed), D2 {p2}, D4 {abstract p} (not retrieved).
# T2: D5 {p1}, never retrieved. T3: D7 {p1}, D8 {p1, p2}. T4: D9 {abstract/p}.
QRELS = f"""T1 D1 {D}/p[1]
T1 D1 {D}/p[3]
T1 D1 {D}/heading[1]
T1 D2 {D}/p[2]
T1 D4 /patent-document/abstract/p
T2 D5 {D}/p[1]
T3,D7,{D}/p[1]
T3 0 D8 {D}/p[1]
T3 0 D8 {D}/p[2]
T4 D9 /patent-document/abstract/p
"""

# Passage run. T1: D1 p1 (hit), heading (removed), p2, p3 (hit); D3 (not relevant); D2 p5, p2 (hit),
# written in the file in the reverse of their rank order. T2: only a non-relevant document.
# T3: D7 with no relevant passage retrieved; D8 p5, p2 (hit). T4: an XPath written differently.
RUN = f"""T1 Q0 D1 {D}/p[1] 1 9
T1 Q0 D1 {D}/heading[1] 2 8.5
T1 Q0 D1 {D}/p[2] 3 8
T1 Q0 D1 {D}/p[3] 4 7
T1 Q0 D3 {D}/p[1] 5 6
T1 Q0 D2 {D}/p[2] 7 4
T1 Q0 D2 {D}/p[5] 6 5
T2 Q0 D6 {D}/p[1] 1 3
T3 Q0 D7 {D}/p[9] 1 2
T3 Q0 D8 {D}/p[5] 2 1
T3 Q0 D8 {D}/p[2] 3 0.5
T4 Q0 D9 /patent-document/abstract[1]/p[1] 1 1
"""

# T1: D1 passages p1 p2 p3 -> Precision 2/3, AP (1/2)(1/1 + 2/3) = 5/6; D2 passages p5 p2 ->
#     Precision 1/2, AP (1/1)(1/2) = 1/2. RelRet = {D1, D2}: P(D) = 7/12, MAP(D) = 2/3.
# T2: no relevant document retrieved -> 0, 0.
# T3: D7 -> 0, 0 (still in RelRet); D8 p5 p2 -> Precision 1/2, AP (1/2)(1/2) = 1/4: P(D) 1/4, MAP(D) 1/8.
# T4: the same passage after normalisation -> 1, 1.
EXPECTED = {
    "P_psg": {"T1": 7 / 12, "T2": 0.0, "T3": 0.25, "T4": 1.0},
    "MAP_psg": {"T1": 2 / 3, "T2": 0.0, "T3": 0.125, "T4": 1.0},
}


@pytest.fixture()
def files(tmp_path):
    qrels = tmp_path / "qrels_PSG.txt"
    qrels.write_text(QRELS)
    run = tmp_path / "ABC-run1-PSG.txt"
    run.write_text(RUN)
    return qrels, run


def _by_topic(frame, measure):
    rows = frame[frame["measure"] == measure]
    return dict(zip(rows["topic"], rows["value"], strict=False))


def test_hand_computed_values(files):
    qrels, run = files
    frame = api.evaluate(qrels, run, ["P_psg", "MAP_psg"])
    assert set(frame["run"]) == {"ABC-run1"}  # the run id from the file name
    for measure, expected in EXPECTED.items():
        got = _by_topic(frame, measure)
        assert got == pytest.approx(expected, abs=1e-12)
    summary = api.aggregate(frame)
    means = dict(zip(summary["measure"], summary["value"], strict=False))
    assert means["P_psg"] == pytest.approx((7 / 12 + 0 + 0.25 + 1) / 4)
    assert means["MAP_psg"] == pytest.approx((2 / 3 + 0 + 0.125 + 1) / 4)


def test_document_measures_from_the_same_run_in_one_call(files):
    qrels, run = files
    frame = api.evaluate(qrels, run, ["PRES@100", "R", "AP", "P_psg", "MAP_psg"])
    t1 = {m: _by_topic(frame, m)["T1"] for m in ("PRES@100", "R", "AP")}
    # T1 documents at their first occurrence: D1 (rank 1), D3 (rank 5), D2 (rank 6); relevant D1, D2, D4.
    assert t1["R"] == pytest.approx(2 / 3)
    assert t1["AP"] == pytest.approx((1 / 1 + 2 / 3) / 3)
    # PRES: ranks {1, 3}, n = 3, the missing one at Nmax + 2 + 1 = 103
    assert t1["PRES@100"] == pytest.approx(1 - ((1 + 3 + 103) / 3 - 2) / 100)
    assert _by_topic(frame, "R")["T2"] == 0.0


def test_headings_change_the_values_when_not_removed(files):
    """The heading is both judged and retrieved: kept, it would make D1's precision 3/4."""
    qrels, run = files
    frame = api.evaluate(qrels, run, "P_psg")
    assert _by_topic(frame, "P_psg")["T1"] == pytest.approx(7 / 12)
    assert any("heading" in note for note in frame.attrs["notes"])


def test_passage_qrels_as_a_side_input_with_document_qrels(files, tmp_path):
    qrels, run = files
    document_qrels = {"T1": {"D1": 1, "D2": 1, "D4": 1}, "T2": {"D5": 1}, "T3": {"D7": 1, "D8": 1}, "T4": {"D9": 1}}
    from pateval.formats.passages import read_passage_qrels, read_passage_run

    frame = api.evaluate(document_qrels, {"mine": read_passage_run(run)}, ["P_psg", "MAP_psg"],
                         resources={"passage_qrels": read_passage_qrels(qrels)})
    assert set(frame["run"]) == {"mine"}
    assert _by_topic(frame, "MAP_psg") == pytest.approx(EXPECTED["MAP_psg"])


def test_missing_passage_inputs_are_named(files):
    from pateval.formats.passages import read_passage_qrels

    qrels, _run = files
    with pytest.raises(ParameterError, match="passage runs"):
        api.evaluate({"T1": {"D1": 1}}, {"T1": {"D1": 1.0}}, "P_psg",
                     resources={"passage_qrels": read_passage_qrels(qrels)})
    with pytest.raises(ParameterError, match="passage qrels"):
        api.evaluate({"T1": {"D1": 1}}, _run, "MAP_psg")
    with pytest.raises(ParameterError, match="has none"):
        api.evaluate({"T1": {"D1": 1}}, _run, "MAP_psg", resources={"passage_qrels": Qrels.from_records([("T1", "D1",
                                                                                                          1)])})


def _reference(run: PassageRun, qrels: Qrels, document_relevant: set) -> tuple[dict, dict]:
    """Precision(D) and MAP(D) by a plain loop over topics and documents (the definition)."""
    judged: dict = {}
    for t, d, x in zip(qrels.topic, qrels.docno, qrels.passage, strict=False):
        judged.setdefault((t, d), set()).add(x)
    rows = sorted(range(len(run)), key=lambda i: (run.rank[i], i))
    precision, average = {}, {}
    for topic in sorted(set(run.topic)):
        passages: dict = {}
        for i in rows:
            if run.topic[i] == topic and not run.xpath[i].rsplit("/", 1)[-1].startswith("heading"):
                passages.setdefault(run.docno[i], []).append(run.xpath[i])
        relret = [d for d in passages if (topic, d) in document_relevant]
        p_sum = ap_sum = 0.0
        for d in relret:
            q = judged.get((topic, d), set())
            hits = 0
            ap = 0.0
            for j, x in enumerate(passages[d], start=1):
                if x in q:
                    hits += 1
                    ap += hits / j
            p_sum += hits / len(passages[d])
            ap_sum += ap / len(q) if q else 0.0
        precision[topic] = p_sum / len(relret) if relret else 0.0
        average[topic] = ap_sum / len(relret) if relret else 0.0
    return precision, average


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_vectorised_kernel_equals_a_plain_loop(seed):
    rng = np.random.default_rng(seed)
    records, judged = [], []
    for t in range(30):
        rank = 0
        for d in rng.choice(40, size=rng.integers(1, 15), replace=False):
            for k in rng.choice(12, size=rng.integers(1, 6), replace=False):
                rank += 1
                kind = "heading" if k == 0 else "p"
                records.append((f"t{t}", f"d{d}", f"{D}/{kind}[{k + 1}]", int(rng.integers(1, 60)), 1.0))
        for d in rng.choice(40, size=8, replace=False):
            for k in rng.choice(12, size=rng.integers(1, 4), replace=False):
                judged.append((f"t{t}", f"d{d}", normalise_xpath(f"{D}/p[{k + 1}]")))
    run = PassageRun.from_records(records, fields=("topic", "docno", "xpath", "rank", "score"), name="r")
    qrels = Qrels(topic=np.asarray([j[0] for j in judged], dtype=object), docno=np.asarray([j[1] for j in judged],
                                                                                           dtype=object),
                  rel=np.ones(len(judged), dtype=np.int64), passage=np.asarray([j[2] for j in judged], dtype=object))
    frame = api.evaluate(qrels, {"r": run}, ["P_psg", "MAP_psg"], resources={"passage_qrels": qrels})
    precision, average = _reference(run, qrels, set(zip(qrels.topic, qrels.docno, strict=False)))
    got_p, got_ap = _by_topic(frame, "P_psg"), _by_topic(frame, "MAP_psg")
    assert set(got_p) == set(precision)
    for topic in precision:
        assert got_p[topic] == pytest.approx(precision[topic], abs=1e-12)
        assert got_ap[topic] == pytest.approx(average[topic], abs=1e-12)
    assert max(precision.values()) > 0  # the case is not trivially zero


def test_cli_evaluates_passage_runs_with_group_breakdown(files, tmp_path, capsys):
    from pateval.cli import main

    qrels, run = files
    groups = tmp_path / "groups.txt"
    groups.write_text("T1 EN\nT2 DE\nT3 DE\nT4 FR\n")
    plot = tmp_path / "figure5.png"
    assert main(["evaluate", str(qrels), str(run), "-m", "R", "-m", "P_psg", "-m", "MAP_psg",
                 "--group-by", str(groups), "--group-plot", str(plot)]) == 0
    out = capsys.readouterr().out
    lines = [line.split("\t") for line in out.splitlines()]
    values = {(m.strip(), t): float(v) for m, t, v in lines}
    assert values[("P_psg", "all:DE")] == pytest.approx((0 + 0.25) / 2, abs=5e-5)
    assert values[("P_psg", "all:FR")] == pytest.approx(1.0)
    assert values[("MAP_psg", "all:EN")] == pytest.approx(2 / 3, abs=5e-5)
    assert values[("R", "all")] == pytest.approx((2 / 3 + 0 + 1 + 1) / 4, abs=5e-5)
    # each group's row follows its measure's 'all' row
    assert [t for m, t, _ in lines if m.strip() == "R"] == ["all", "all:DE", "all:EN", "all:FR"]
    assert plot.stat().st_size > 1000 and plot.read_bytes()[:4] == b"\x89PNG"


def test_api_check_and_breakdown(files, tmp_path):
    qrels, run = files
    report = api.check_passage_run(run, fix=tmp_path / "clean.txt")
    assert [(f.line, f.kind) for f in report.findings] == [(2, "heading")]
    assert (tmp_path / "clean.txt.log").read_text().count("\tremoved\theading\t") == 1
    frame = api.evaluate(qrels, tmp_path / "clean.txt", ["P_psg", "NumRelRet"])
    assert _by_topic(frame, "P_psg") == pytest.approx(EXPECTED["P_psg"])  # headings gone either way
    summary = api.evaluate_by_group(frame, {"T1": "EN", "T2": "DE", "T3": "DE"}, plot=tmp_path / "f.svg")
    values = {(g, m): v for g, m, v in zip(summary["group"], summary["measure"], summary["value"], strict=False)}
    assert values[("DE", "P_psg")] == pytest.approx(0.125)
    assert values[("DE", "NumRelRet")] == 2  # counts are summed: T2 none, T3 two
    assert values[("all", "NumRelRet")] == 5
    assert "T4" in summary.attrs["notes"][0]
    assert (tmp_path / "f.svg").read_text().lstrip().startswith("<?xml")
