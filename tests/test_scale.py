"""Run files read and scored in blocks of whole topics (and partitioned when their topics are
scattered) give the frame, notes and errors of the whole run read at once; tiny blocks."""

from __future__ import annotations

import os
import random

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pateval
from pateval import api
from pateval.cli import main
from pateval.errors import InputFormatError, ParameterError
from pateval.evaluation import evaluate_runs
from pateval.formats.qrels import read_qrels
from pateval.formats.runblocks import RunFile, merge_counted_notes, readable_in_blocks, topic_block_ranges
from pateval.formats.trec import read_run
from pateval.options import EvaluationOptions
from pateval.tuning import BLOCK_THREADS

MEASURES = ["AP", "P@5", "nDCG@10", "R@1000", "RR", "NumRet", "NumRelRet", "bpref", "PRES@20"]


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return path


def _run_lines(rng: random.Random, topics: int, *, tag: str = "sys", ties: bool = True) -> list[str]:
    lines = []
    for t in range(topics):
        docs = rng.sample(range(60), rng.randint(0, 25))
        for k, d in enumerate(docs):
            score = rng.choice([1.0, 2.0, 2.5]) if ties else round(rng.uniform(-3, 3), 3)
            doc = f"EP-{d % 20:07d}-{'AB'[d // 20 % 2]}{1 + d // 40}"  # publications of 20 patents
            lines.append(f"q{t} Q0 {doc} {k + 1} {score} {tag}")
    return lines


def _qrels_lines(rng: random.Random, topics: int) -> list[str]:
    lines = []
    for t in range(topics):
        for d in rng.sample(range(60), rng.randint(1, 15)):
            lines.append(f"q{t} 0 EP-{d % 20:07d}-{'AB'[d // 20 % 2]}{1 + d // 40} {rng.choice([-1, 0, 0, 1, 2])}")
    return lines


def _both(qrels, run, block_bytes, **options):
    whole = api.evaluation(qrels, run, MEASURES, block_bytes=0, **options)
    blocks = api.evaluation(qrels, run, MEASURES, block_bytes=block_bytes, **options)
    return whole, blocks


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), block_bytes=st.integers(1, 400), scatter=st.booleans(),
       complete=st.booleans(), order=st.sampled_from(["score", "rank", "file"]),
       doc_key=st.sampled_from(["publication", "patent"]))
def test_blocks_give_the_values_and_notes_of_the_whole_run(tmp_path_factory, seed, block_bytes, scatter, complete,
                                                           order,
                                                           doc_key):
    rng = random.Random(seed)
    tmp = tmp_path_factory.mktemp("blocks")
    lines = _run_lines(rng, rng.randint(1, 12))
    if scatter:  # one topic's lines over the whole file: partitioned on disk
        rng.shuffle(lines)
    if not lines:
        lines = ["q0 Q0 D1 1 1.0 sys"]
    run = _write(tmp / "run.txt", lines)
    qrels = _write(tmp / "qrels.txt", _qrels_lines(rng, rng.randint(1, 14)))
    whole, blocks = _both(qrels, run, block_bytes, complete=complete, order=order, doc_key=doc_key, work_dir=tmp)
    pd.testing.assert_frame_equal(whole.frame, blocks.frame, check_exact=True)
    assert whole.notes == blocks.notes
    assert [p.name for p in tmp.iterdir()] in (["run.txt", "qrels.txt"], ["qrels.txt", "run.txt"])  # parts removed


def test_a_scattered_run_is_partitioned_and_its_repeats_dropped_as_in_memory(tmp_path):
    rng = random.Random(7)
    lines = _run_lines(rng, 8, ties=False)
    lines += [lines[3].replace(" sys", " sys"), lines[20]]  # repeats, far from their first lines
    rng.shuffle(lines)
    run = _write(tmp_path / "run.txt", lines)
    qrels = _write(tmp_path / "qrels.txt", _qrels_lines(rng, 8))
    assert len(topic_block_ranges(run, 64)) > 4
    whole, blocks = _both(qrels, run, 64, on_duplicate="first", work_dir=tmp_path)
    pd.testing.assert_frame_equal(whole.frame, blocks.frame, check_exact=True)
    assert whole.notes == blocks.notes
    assert any("2 duplicate document line(s) dropped" in note for note in blocks.notes)


def _error(function):
    with pytest.raises(InputFormatError) as caught:
        function()
    return str(caught.value)


@pytest.mark.parametrize("scatter", [False, True])
def test_a_repeated_document_is_the_same_error_whole_or_in_blocks(tmp_path, scatter):
    lines = [f"q{t} Q0 D{d} {d} {10 - d} sys" for t in range(6) for d in range(1, 9)]
    lines.insert(40, "q1 Q0 D3 9 0.5 sys")  # q1's D3 again, on line 41, in another block
    if scatter:
        lines = lines[::2] + lines[1::2]
        lines.insert(50, lines.pop(lines.index("q1 Q0 D3 9 0.5 sys")))
    run = _write(tmp_path / "run.txt", lines)
    qrels = _write(tmp_path / "qrels.txt", ["q1 0 D3 1"])
    expected = _error(lambda: read_run(run))
    assert "retrieved twice for topic 'q1'" in expected
    assert _error(lambda: pateval.evaluate(qrels, run, ["AP"], block_bytes=50, work_dir=tmp_path)) == expected


@pytest.mark.parametrize("bad, expected", [
    ("q4 Q0 D1 1 high sys",
     "run.txt, line 31: the score (5th column) is not a number (expected a decimal number, found 'high')"),
    ("q4 Q0 D1 1 nan sys", "run.txt, line 31: the score (5th column) is NaN (expected a decimal number, found 'nan')"),
    ("q4 Q0 D1 x 1.0 sys",
     "run.txt, line 31: the rank (4th column) is not an integer (expected an integer, found 'x')"),
    ("q4 Q0 D1 1 1.0",
     "run.txt, line 31: wrong number of columns (expected 6 columns: qid Q0 docno rank score run_id, found 5)"),
    ("q4 Q0 D1 1 1.0 other",
     "run.txt, line 31: mixed run tags: 'sys' on line 1, another here (expected 'sys', found 'other')"),
    ("q4 Q0 D1 1 1.0 s\x00s", "run.txt, line 31: binary data (a NUL byte) in a text file"),
])
def test_a_bad_line_in_a_later_block_is_named_as_in_the_whole_file(tmp_path, bad, expected):
    lines = [f"q{t} Q0 D{d} {d} {10 - d} sys" for t in range(4) for d in range(1, 9)]
    lines.insert(30, bad)
    run = _write(tmp_path / "run.txt", lines)
    qrels = _write(tmp_path / "qrels.txt", ["q1 0 D3 1"])
    whole = _error(lambda: read_run(run))
    assert whole.endswith(expected)
    assert _error(lambda: pateval.evaluate(qrels, run, ["AP"], block_bytes=40)) == whole


def test_compressed_runs_and_other_paths_go_to_the_whole_file_reader(tmp_path):
    import gzip

    plain = _write(tmp_path / "run.txt", ["q1 Q0 D1 1 1.0 sys"])
    (tmp_path / "run.gz").write_bytes(gzip.compress(plain.read_bytes()))
    assert readable_in_blocks(plain)
    assert not readable_in_blocks(tmp_path / "run.gz")
    assert not readable_in_blocks(tmp_path / "missing.txt") and not readable_in_blocks(tmp_path)


def test_an_empty_or_missing_run_file(tmp_path):
    qrels = _write(tmp_path / "qrels.txt", ["q1 0 D3 1"])
    (tmp_path / "blank.txt").write_text("\n  \n\n")
    assert _error(lambda: pateval.evaluate(qrels, tmp_path / "blank.txt", ["AP"], block_bytes=2)).endswith(
        "blank.txt: the file is empty")
    assert _error(lambda: pateval.evaluate(qrels, tmp_path / "none.txt", ["AP"])).endswith("none.txt: no such file")


def test_block_ranges_cut_between_topics_and_cover_the_file(tmp_path):
    lines = [f"q{t} Q0 D{d} {d} 1.0 sys" for t in range(5) for d in range(30)]
    run = _write(tmp_path / "run.txt", lines)
    data = run.read_bytes()
    ranges = topic_block_ranges(run, 100)
    assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:], strict=False))
    for start, end in ranges:
        topics = {line.split()[0] for line in data[start:end].decode().splitlines()}
        assert len(topics) == 1  # a topic (30 lines) is longer than a block: one per block
    assert len(ranges) == 5


def test_counted_notes_are_summed():
    notes = ["r.txt: 2 duplicate document line(s) dropped (kept the first)", "other",
             "r.txt: 3 duplicate document line(s) dropped (kept the first)"]
    assert merge_counted_notes(notes) == ["r.txt: 5 duplicate document line(s) dropped (kept the first)", "other"]


def test_cli_block_size_prints_what_the_whole_run_gives(tmp_path, capsys):
    rng = random.Random(3)
    lines = _run_lines(rng, 10)
    rng.shuffle(lines)
    run = _write(tmp_path / "run.txt", lines)
    qrels = _write(tmp_path / "qrels.txt", _qrels_lines(rng, 10))
    outputs = []
    for size in ("0", "100", "1K"):
        assert main(["evaluate", str(qrels), str(run), "-q", "--block-size", size, "--work-dir", str(tmp_path)]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] == outputs[2] and "\tq3\t" in outputs[0]
    with pytest.raises(SystemExit) as caught:
        main(["evaluate", str(qrels), str(run), "--block-size", "12Q"])
    assert caught.value.code == 2
    assert "argument --block-size: not a size in bytes (such as 32M, 512K or 0): '12Q'" in capsys.readouterr().err


def test_dask_local_cluster_gives_the_same_frame(tmp_path):
    distributed = pytest.importorskip("distributed")
    rng = random.Random(11)
    runs = []
    for k, scatter in enumerate([False, True]):
        lines = _run_lines(rng, 9, tag=f"sys{k}")
        if scatter:
            rng.shuffle(lines)
        runs.append(_write(tmp_path / f"run{k}.txt", lines))
    qrels = _write(tmp_path / "qrels.txt", _qrels_lines(rng, 9))
    whole = api.evaluation(qrels, runs, MEASURES, block_bytes=0)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        spread = api.evaluation(qrels, runs, MEASURES, block_bytes=120, scheduler=cluster.scheduler_address,
                                    work_dir=tmp_path)
    pd.testing.assert_frame_equal(whole.frame, spread.frame, check_exact=True)
    assert whole.notes == spread.notes


def test_unreachable_scheduler_is_a_clear_error(tmp_path):
    run = _write(tmp_path / "run.txt", ["q1 Q0 D1 1 1.0 sys"])
    qrels = _write(tmp_path / "qrels.txt", ["q1 0 D1 1"])
    with pytest.raises(ParameterError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        evaluate_runs(read_qrels(qrels), [RunFile(run)],
                      EvaluationOptions(measures=["AP"], scheduler="tcp://127.0.0.1:9", scheduler_timeout=1.0))


def test_subtopic_measures_in_blocks_give_the_whole_runs_values(tmp_path):
    rng = random.Random(5)
    lines = _run_lines(rng, 8, ties=False)
    rng.shuffle(lines)
    run = _write(tmp_path / "run.txt", lines)
    qrels = _write(tmp_path / "qrels.txt",
                   [f"q{t} {s} EP-{d % 20:07d}-{'AB'[d // 20 % 2]}{1 + d // 40} {rng.randint(0, 1)}"
                                             for t in range(8) for s in range(1, 4) for d in rng.sample(range(60), 6)])
    measures = ["alpha_nDCG@10", "ERR_IA@5", "I_rec@10", "MAP_IA", "AP"]
    whole = api.evaluation(qrels, run, measures, qrels_format="subtopic", block_bytes=0)
    blocks = api.evaluation(qrels, run, measures, qrels_format="subtopic", block_bytes=90, work_dir=tmp_path)
    # alpha-nDCG's kernel takes running sums over all the topics at once, so a topic's value
    # may differ in its last bit (1.1e-16 here) with the topics evaluated beside it
    pd.testing.assert_frame_equal(whole.frame, blocks.frame, check_exact=False, rtol=0, atol=1e-15)
    exact = whole.frame["measure"] != "alpha_nDCG@10"
    assert whole.frame[exact]["value"].tolist() == blocks.frame[exact]["value"].tolist()
    assert whole.notes == blocks.notes


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), block_bytes=st.integers(1, 400), comments=st.lists(st.integers(0, 10**6),
                                                                                      max_size=4),
       header=st.booleans())
def test_scattered_runs_with_comment_lines_give_the_whole_runs_values(tmp_path_factory, seed, block_bytes, comments,
                                                                      header):
    """Comment lines (an ir_metadata header, or anywhere) are skipped on the partitioned
    path too: they are neither rows nor lines with a run tag (a review found the line
    numbering counting them, and a two-word comment breaking it)."""
    rng = random.Random(seed)
    folder = tmp_path_factory.mktemp("commented")
    lines = _run_lines(rng, rng.randint(2, 6))
    rng.shuffle(lines)  # topics scattered over the file
    for position in comments:
        lines.insert(position % (len(lines) + 1), "# a comment")
    if header:
        lines = ["# ir_metadata.start", "# tag: sys", "# ir_metadata.end", *lines]
    qrels = _write(folder / "qrels.txt", _qrels_lines(rng, 6))
    run = _write(folder / "run.txt", lines)
    if not any(not line.startswith("#") for line in lines):
        return
    whole, blocks = _both(qrels, run, block_bytes)
    pd.testing.assert_frame_equal(whole.frame, blocks.frame, check_exact=True)


def test_a_mixed_tag_after_comment_lines_names_the_tagged_line(tmp_path):
    qrels = _write(tmp_path / "qrels.txt", ["q1 0 d1 1", "q2 0 d2 1"])
    run = _write(tmp_path / "run.txt", ["# ir_metadata.start", "# ir_metadata.end", "q1 Q0 d1 1 1.0 a",
                                        "# a comment", "q2 Q0 d2 1 1.0 b"])
    with pytest.raises(InputFormatError) as whole:
        api.evaluation(qrels, run, ["AP"], block_bytes=0)
    with pytest.raises(InputFormatError) as blocks:
        api.evaluation(qrels, run, ["AP"], block_bytes=1)
    assert str(blocks.value) == str(whole.value)
    assert "line 5" in str(blocks.value)


def test_complete_with_tbg_ideal_norm_scores_a_missing_topic_in_blocks_as_whole(tmp_path):
    """-c with TBG(norm=ideal): a qrels topic the run lacks is scored as an empty ranking in
    the block path too (it raised IndexError there, and worked with --block-size 0)."""
    qrels = _write(tmp_path / "qrels.txt", ["q1 0 d1 1", "q1 0 d2 1", "q2 0 d3 1"])
    run = _write(tmp_path / "run.txt", ["q1 Q0 d1 1 2.0 r", "q1 Q0 d9 2 1.0 r"])
    lengths = {"d1": 100, "d2": 200, "d3": 300, "d9": 50}
    measures = ["TBG(norm=ideal)", "AP"]
    options = {"complete": True, "resources": {"doc_lengths": lengths}}
    whole = api.evaluation(qrels, run, measures, block_bytes=0, **options)
    blocks = api.evaluation(qrels, run, measures, block_bytes=1 << 20, **options)
    pd.testing.assert_frame_equal(whole.frame, blocks.frame, check_exact=True)
    assert blocks.frame.loc[blocks.frame["topic"] == "q2", "value"].tolist() == [0.0, 0.0]



def test_blocks_read_ahead_are_taken_by_the_evaluation_or_dropped(tmp_path):
    from pateval.formats import runblocks
    from pateval.tuning import READ_AHEAD_SPARE

    rng = random.Random(5)
    run = _write(tmp_path / "run.txt", _run_lines(rng, 12))
    qrels = _write(tmp_path / "qrels.txt", _qrels_lines(rng, 12))
    run_file = RunFile(run, block_bytes=200)
    expected = api.evaluation(qrels, [run_file], MEASURES, block_bytes=200).scored[0]
    with runblocks.read_ahead(run_file):
        ahead = runblocks._AHEAD.get()
        assert len(ahead) == min(os.cpu_count() or 1, BLOCK_THREADS) + READ_AHEAD_SPARE  # a block per thread, and more
        scored = api.evaluation(qrels, [run_file], MEASURES, block_bytes=200).scored[0]
        assert not ahead  # taken
    assert scored.topics == expected.topics and list(scored.values) == list(expected.values)
    with runblocks.read_ahead(run_file):
        ahead = runblocks._AHEAD.get()
    assert not ahead  # dropped
    assert runblocks._AHEAD.get() is None  # the memo went with the block


def test_a_bad_block_read_ahead_is_said_after_the_qrels_errors(tmp_path, capsys):
    run = _write(tmp_path / "run.txt", ["q1 Q0 D1 1 x sys"])
    assert main(["trec_eval", str(tmp_path / "none.qrels"), str(run)]) == 2
    assert capsys.readouterr().err.strip().endswith("none.qrels: no such file")
    qrels = _write(tmp_path / "qrels.txt", ["q1 0 D1 1"])
    assert main(["trec_eval", str(qrels), str(run)]) == 2
    assert "run.txt, line 1: the score (5th column) is not a number" in capsys.readouterr().err


@pytest.mark.parametrize("scatter", [False, True])
def test_trec_eval_lines_and_the_last_tag_are_read_alike_whole_in_blocks_and_on_dask(tmp_path, scatter):
    """RunFile's reading options go with every block, here and to Dask's workers: ranks
    that are not integers unread and the last line's tag naming the run (``pateval
    trec_eval``), or mixed tags refused with the whole file's message."""
    rng = random.Random(5)
    lines = [f"{line.rsplit(' ', 1)[0]} {rng.choice(['a', 'b'])}" for line in _run_lines(rng, 9)]
    lines = [" ".join([*line.split()[:3], rng.choice(["x", "1.5", line.split()[3]]), *line.split()[4:]])
             for line in lines]
    if scatter:
        rng.shuffle(lines)
    run = _write(tmp_path / "run.txt", [*lines[:-1], lines[-1].rsplit(" ", 1)[0] + " last"])
    qrels = _write(tmp_path / "qrels.txt", _qrels_lines(rng, 9))
    as_trec_eval = {"lines": "trec_eval", "mixed_tags": "last"}
    whole = api.evaluation(qrels, [read_run(run, **as_trec_eval)], MEASURES)
    assert {scored.run for scored in whole.scored} == {"last"}
    blocks = api.evaluation(qrels, [RunFile(run, **as_trec_eval)], MEASURES, block_bytes=200, work_dir=tmp_path)
    pd.testing.assert_frame_equal(whole.frame, blocks.frame, check_exact=True)
    refused = _error(lambda: read_run(run, lines="trec_eval"))
    assert "mixed run tags" in refused
    assert _error(lambda: api.evaluation(qrels, [RunFile(run, lines="trec_eval")], MEASURES, block_bytes=200,
                                         work_dir=tmp_path)) == refused
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        spread = api.evaluation(qrels, [RunFile(run, **as_trec_eval)], MEASURES, block_bytes=200,
                                scheduler=cluster.scheduler_address, work_dir=tmp_path)
    pd.testing.assert_frame_equal(whole.frame, spread.frame, check_exact=True)


def test_a_block_is_read_from_a_map_of_its_bytes_then_unmapped(tmp_path):
    from pateval.formats.source import map_range

    path = tmp_path / "bytes.bin"
    content = bytes(range(256)) * 100  # 25,600 bytes: ranges across map granules
    path.write_bytes(content)
    for start, end in ((0, 1), (1, 4095), (4095, 4097), (4097, 25_600), (8192, 12_288)):
        with map_range(path, start, end) as view:
            assert bytes(view) == content[start:end]
    with open("/proc/self/maps", encoding="utf-8") as maps:  # unmapped on leaving
        assert str(path) not in maps.read()


def test_a_block_is_read_where_a_file_cannot_be_mapped(tmp_path, monkeypatch):
    import mmap

    from pateval.formats import source
    from pateval.formats.runblocks import read_block

    refusals = []

    class Refused(mmap.mmap):  # a type still (the readers ask isinstance), one that makes no map
        def __new__(cls, *args, **kwargs):
            refusals.append(args)
            raise OSError("no maps on this file system")

    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\nq2 Q0 d1 1 1.0 r\n")
    mapped = read_block(path, 17, path.stat().st_size)
    monkeypatch.setattr(source.mmap, "mmap", Refused)
    read = read_block(path, 17, path.stat().st_size)
    assert refusals
    assert read.name == mapped.name == "r" and len(read) == len(mapped) == 2
    assert read.row_doc_ids().to_pylist() == mapped.row_doc_ids().to_pylist() == ["d2", "d1"]
