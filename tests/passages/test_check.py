"""`pateval check`: every defect class of a passage-run submission found with its line and
repaired by --fix, each change logged."""

from __future__ import annotations

import pytest

from pateval.check import check_passage_run, fix_passage_run
from pateval.cli import main
from pateval.errors import ParameterError
from pateval.formats.passages import read_passage_run

P = "/patent-document/description/p"
TOPICS = ("<tid>PSG-1</tid><tfile>EP-1-A1.xml</tfile><tclaims>/patent-document/claims/claim[1]</tclaims>\n"
          "<tid>PSG-2</tid><tfile>EP-2-A1.xml</tfile><tclaims>/patent-document/claims/claim[1]</tclaims>\n"
          "<tid>PSG-3</tid><tfile>EP-3-A1.xml</tfile><tclaims>/patent-document/claims/claim[2]</tclaims>\n")

# line: defect
DEFECTIVE = [
    f"PSG-1 Q0 D1 {P}[1] 1 9.0",                              # 1 fine
    "PSG-1 Q0 D1 /patent-document/description/heading[2] 2 8.0",  # 2 heading
    f"PSG-1 Q0 D1 {P}[3] 3",                                  # 3 format: 5 columns
    f"PSG-1 Q0 D1 {P}[1] 4 7.0",                              # 4 duplicate of line 1
    f"PSG-2 Q0 D2 {P}[1] 1 5.0",                              # 5 fine
    f"PSG-1 Q0 D3 {P}[2] 5 6.0",                              # 6 scattered: PSG-1 resumes
    f"PSG-9 Q0 D4 {P}[1] 1 1.0",                              # 7 unknown topic
    f"PSG-2 Q0 D2 {P.replace('p', 'p')}[x] 2 4.0",            # 8 format: XPath position
    f"PSG-2 Q1 D2 {P}[2] 3 4.0",                              # 9 format: not Q0
]


@pytest.fixture()
def submission(tmp_path):
    run = tmp_path / "ABC-run1-PSG.txt"
    run.write_text("\n".join(DEFECTIVE) + "\n")
    topics = tmp_path / "topics_PSG.txt"
    topics.write_text(TOPICS)
    return run, topics


def test_every_defect_found_with_its_line(submission):
    run, topics = submission
    report = check_passage_run(run, topics=topics)
    found = {(f.line, f.kind) for f in report.findings}
    assert found == {(2, "heading"), (3, "format"), (4, "duplicate"), (6, "scattered"), (7, "unknown-topic"),
                     (8, "format"), (9, "format"), (None, "missing-topic")}
    assert report.run_id == "ABC-run1" and not report.ok
    assert report.lines == 9
    messages = {f.line: f.message for f in report.findings}
    assert "already at line 1" in messages[4] and "began at line 1" in messages[6] and "(found 5)" in messages[3]
    assert [m for m in (f.message for f in report.findings if f.kind == "missing-topic")] == [
        f"topic PSG-3 of {topics} has no line"]


def test_fix_writes_a_clean_run_and_logs_each_change(submission, tmp_path):
    run, topics = submission
    report = check_passage_run(run, topics=topics)
    out, log = fix_passage_run(report, tmp_path / "fixed" / "ABC-run1-PSG.txt")
    assert out.read_text().splitlines() == [DEFECTIVE[0], DEFECTIVE[5], DEFECTIVE[4]]
    log_lines = log.read_text().splitlines()
    assert log_lines[0].endswith("6 line(s) removed, 1 moved, 3 kept")
    changes = {line.split("\t")[0]: line.split("\t")[1:3] for line in log_lines[1:]}
    assert changes == {"line 2": ["removed", "heading"], "line 3": ["removed", "format"], "line 4": ["removed",
                                                                                                     "duplicate"],
                       "line 6": ["moved", "joins its topic's lines, which begin at line 1"],
                       "line 7": ["removed", "unknown-topic"], "line 8": ["removed", "format"], "line 9": ["removed",
                                                                                                           "format"]}
    again = check_passage_run(out, topics=topics)
    assert again.ok and {f.kind for f in again.findings} == {"missing-topic"}
    assert len(read_passage_run(out)) == 3  # the repaired run reads


def test_too_many_documents_per_topic(tmp_path):
    run = tmp_path / "ABC-many-PSG.txt"
    # 102 documents; passage ranks put D0 last, so the documents beyond the 100th are D0 and D101
    lines = [f"PSG-1 Q0 D{d} {P}[1] {d if d else 500} 1.0" for d in range(102)]
    run.write_text("\n".join(lines) + "\n")
    report = check_passage_run(run)
    flagged = [(f.line, f.kind) for f in report.findings]
    assert flagged == [(1, "too-many-documents"), (102, "too-many-documents")]
    out, log = fix_passage_run(report, tmp_path / "fixed.txt")
    assert len(out.read_text().splitlines()) == 100
    assert "line 1\tremoved\ttoo-many-documents" in log.read_text()
    assert check_passage_run(run, max_documents=102).ok
    with pytest.raises(ParameterError):
        check_passage_run(run, max_documents=0)


def test_file_name_and_clean_runs(tmp_path):
    run = tmp_path / "myrun.txt"
    run.write_text(f"PSG-1 Q0 D1 {P}[1] 1 1.0\n")
    report = check_passage_run(run)
    assert report.ok and [(f.line, f.kind) for f in report.findings] == [(None, "file-name")]


def test_cli_check_and_fix(submission, tmp_path, capsys):
    run, topics = submission
    assert main(["check", str(run), "--topics", str(topics)]) == 1
    out = capsys.readouterr().out
    assert "line 2\theading\t" in out and "line 6\tscattered\t" in out
    assert out.splitlines()[-1].endswith("3 format, 1 heading, 1 missing-topic, 1 scattered, 1 unknown-topic")
    fixed = tmp_path / "ABC-run1-PSG.fixed.txt"
    log = tmp_path / "changes.log"
    assert main(["check", str(run), "--topics", str(topics), "--fix", str(fixed), "--log", str(log)]) == 0
    assert fixed.is_file() and log.read_text().count("\tremoved\t") == 6
    assert main(["check", str(fixed), "--topics", str(topics)]) == 0
    assert main(["check", str(run), "--fix", str(run)]) == 2  # never overwrites its input
    assert "overwrite" in capsys.readouterr().err


def test_check_lists_what_it_checked_and_what_it_skipped(submission, capsys):
    """Issue 30: without --store or --topics the summary says what was not checked, and why."""
    run, topics = submission
    main(["check", str(run)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[-3].startswith("checked: the format of each line; repeated passages;")
    assert lines[-2] == ("not checked: topic ids (no topics file: --topics, topics=); XPaths against the documents "
                         "(no corpus store: --store, store=)")
    main(["check", str(run), "--topics", str(topics)])
    lines = capsys.readouterr().out.splitlines()
    assert f"topic ids against {topics}, and topics without a line" in lines[-3]
    assert lines[-2] == "not checked: XPaths against the documents (no corpus store: --store, store=)"
