"""The TREC DD jig's run files through ``pateval evaluate``: the format recognised, the
iterations taken from the file, and repeated documents scored as the jig scores them
(examined again, no gain), against the jig's own values (fixtures/cubetest_jig_repeat_cases.json,
made by fixtures/cubetest_make_jig_repeat_fixtures.py with the real jig)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import pateval
from pateval.cli import main
from pateval.errors import InputFormatError
from pateval.formats.dd import looks_like_dd_run, read_dd_run

FIXTURE = Path(__file__).parent / "fixtures" / "cubetest_jig_repeat_cases.json"


def _groups():
    data = json.loads(FIXTURE.read_text())
    groups: dict[tuple, dict] = {}
    for case in data["cases"]:
        group = groups.setdefault((case["gamma"], case["cutoff"]), {"qrels": [], "run": [], "jig": {}})
        rename = {t: f"DD{case['case']}-{t.split('-')[1]}" for t in {row[0] for row in case["qrels"] + case["run"]}}
        group["qrels"] += [[rename[t], *rest] for t, *rest in case["qrels"]]
        group["run"] += [[rename[t], *rest] for t, *rest in case["run"]]
        group["jig"].update({rename[t]: v for t, v in case["jig"].items()})
    return data, groups


def test_the_fixture_has_repeats_and_says_where_it_came_from():
    data, _ = _groups()
    assert data["command"].startswith("python tests/measures/fixtures/cubetest_make_jig_repeat_fixtures.py")
    assert "trec-dd-jig" in data["source"] and len(data["cases"]) >= 200
    repeats = sum(len(case["run"]) - len({(t, d) for t, _, d, _ in case["run"]}) for case in data["cases"])
    assert repeats >= 300


def test_jig_run_files_with_repeats_score_as_the_jig(tmp_path):
    _, groups = _groups()
    worst = 0.0
    for (gamma, cutoff), group in groups.items():
        qrels = tmp_path / "qrels.txt"
        qrels.write_text("".join(f"{t}\t{s}\t{d}\t{p}\t{g}\n" for t, s, d, p, g in group["qrels"]))
        run = tmp_path / "run.txt"
        run.write_text("".join(f"{t}\t{it}\t{d}\t{sc!r}\n" for t, it, d, sc in group["run"]))
        names = [f"{m}(gamma={gamma!r},compat=trec-dd)@{cutoff}" for m in ("CT", "ACT")]
        frame = pateval.evaluate(qrels, run, names)  # no --iterations, no --order: both from the file
        got: dict = {}
        for topic, measure, value in zip(frame["topic"], frame["measure"], frame["value"], strict=False):
            got.setdefault(topic, {})["CT" if measure.startswith("CT") else "ACT"] = value
        assert got.keys() == group["jig"].keys()
        for topic, jig in group["jig"].items():
            for kind in ("CT", "ACT"):
                worst = max(worst, abs(got[topic][kind] - jig[kind]))
    assert worst <= 1e-12, worst


QRELS = "DD17-1\tDD17-1.1\tdA\t1\t2\nDD17-1\tDD17-1.1\tdB\t2\t3\nDD17-1\tDD17-1.2\tdB\t3\t1\n"
# dA comes back in iteration 1, dB twice in iteration 2 (after its first showing in iteration 1)
JIG_RUN = ("DD17-1\t0\tdA\t2.0\t1\tDD17-1.1:2\nDD17-1\t0\tdC\t1.0\t0\n"
           "DD17-1\t1\tdB\t9.0\t1\tDD17-1.1:3|DD17-1.2:1\nDD17-1\t1\tdA\t3.0\t1\tDD17-1.1:2\n"
           "DD17-1\t2\tdB\t1.0\t1\nDD17-1\t2\tdB\t0.5\t1\n")


def _by_hand(gamma=0.5):
    """The jig's loop written out: gains per subtopic capped at 5, weight 1/2 per subtopic."""
    weight, height, count = 0.5, {"1": 0.0, "2": 0.0}, {"1": 0, "2": 0}
    truth = {"dA": {"1": 2}, "dB": {"1": 3, "2": 1}}
    session = [["dA", "dC"], ["dB", "dA_dup"], ["dB_dup", "dB_dup"]]
    total = accumulated = 0.0
    examined = 0
    for time, documents in enumerate(session, start=1):
        for doc in documents:
            for subtopic, rating in truth.get(doc, {}).items():
                if height[subtopic] < 5:
                    gain = min(gamma ** (count[subtopic] + 1) * rating, 5 - height[subtopic])
                    total += weight * gain
                    height[subtopic] += gain
                    count[subtopic] += 1
            accumulated += total / 5 / time
            examined += 1
    return total / 5 / len(session), accumulated / examined


def test_a_jig_file_by_hand_from_the_command_line(tmp_path, capsys):
    (tmp_path / "q.txt").write_text(QRELS)
    run = tmp_path / "run.txt.gz"
    run.write_bytes(gzip.compress(JIG_RUN.encode()))  # compressed, too
    assert looks_like_dd_run(run)
    assert main(["evaluate", str(tmp_path / "q.txt"), str(run), "-m", "CT(compat=trec-dd)@10",
                 "-m", "ACT(compat=trec-dd)@10", "-m", "NumRet", "--format", "json"]) == 0
    captured = capsys.readouterr()
    values = {r["measure"]: r["value"] for r in json.loads(captured.out)}
    ct, act = _by_hand()
    assert values["CT(compat=trec-dd)@10"] == pytest.approx(ct, abs=1e-15)
    assert values["ACT(compat=trec-dd)@10"] == pytest.approx(act, abs=1e-15)
    assert values["NumRet"] == 6  # every examined line, repeats included
    assert "3 repeated document line(s) kept as examined documents without gain" in captured.err


def test_repeats_are_an_error_or_dropped_when_asked(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text(JIG_RUN)
    with pytest.raises(InputFormatError) as error:
        read_dd_run(path)
    assert str(error.value) == (f"{path}, line 4: document 'dA' returned twice for topic 'DD17-1' (first on line 1); "
                                "use on_duplicate='first' (--on-duplicate first) to keep the first")
    assert len(read_dd_run(path, on_duplicate="first").run) == 3
    kept = read_dd_run(path, on_duplicate="jig")
    assert sorted(kept.run.docnos) == ["dA", "dA\t(repeat 1)", "dB", "dB\t(repeat 1)", "dB\t(repeat 2)", "dC"]


def test_the_first_occurrence_follows_the_jig_order(tmp_path):
    # iteration 1 is listed before iteration 0: the jig keeps the repeat of iteration 1 as the first
    path = tmp_path / "run.txt"
    path.write_text("T-1\t1\td1\t1.0\nT-1\t0\td1\t5.0\nT-1\t0\td2\t4.0\n")
    dd = read_dd_run(path, on_duplicate="jig")
    by_iteration = dict(zip(dd.iterations.iteration.tolist(), dd.run.docnos, strict=False))
    assert by_iteration[1] == "d1" and dd.run.docnos.tolist().count("d1\t(repeat 1)") == 1


@pytest.mark.parametrize("line, expected", [
    ("DD16-1\t0\tebola-1\t833.00\t1\tDD16-1.1:2|DD16-1.2:3", True),
    ("DD16-1\t0\tebola-1\t833.00\t0\t", True),
    ("DD16-1\t3\tebola-1\t833.00", True),
    ("DD16-1\t3\tebola-1\t833.00\t1", True),
    ("q1\tQ0\td1\t1\t2.5\tbm25", False),
    ("q1\t0\td1\t1\t2.5\tbm25", False),
    ("q1 Q0 d1 1 2.5 bm25", False),
    ("organizers\ttoy\t1\t2\ttopic\tdoc\t800\tfalse\t", True),
])
def test_recognising_dd_run_files(tmp_path, line, expected):
    path = tmp_path / "run.txt"
    path.write_text("# a comment first\n" + line + "\n")
    assert looks_like_dd_run(path) is expected


def test_the_2015_harness_file_is_read_by_evaluate(test_data):
    frame = pateval.evaluate({"where_are_aid_workers_housed_near_Monrovia": {"x": 1}},
                             test_data / "trecdd" / "trecdd2015_harness_demo_runfile.txt", ["NumRet"])
    assert frame["value"].sum() > 0


def test_max_documents_cuts_a_dd_run_in_session_order(tmp_path):
    (tmp_path / "q.txt").write_text(QRELS)
    run = tmp_path / "run.txt"
    run.write_text("DD17-1\t0\tdA\t2.0\nDD17-1\t0\tdC\t1.0\nDD17-1\t1\tdB\t9.0\n")
    frame = pateval.evaluate(tmp_path / "q.txt", run, ["NumRelRet", "NumRet"], max_documents=2)
    # dA, dC: not dB (9.0)
    assert dict(zip(frame["measure"], frame["value"], strict=False)) == {"NumRelRet": 1, "NumRet": 2}
