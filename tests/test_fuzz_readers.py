"""Fuzzing every reader: mutated valid files and random bytes end in a result or in
pateval's own input error (a :class:`pateval.errors.PatevalError`), never in another
exception -- which the command line would report as a bug (exit 70).

Bounded and derandomised (the same examples on every run), so that the whole module runs in
CI in well under a minute. Seeds: the heads of the real samples in tests/data and small
hand-made files for the formats without a sample.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pateval.errors import PatevalError

DATA = Path(__file__).resolve().parent / "data"


def _head(path: Path, lines: int) -> bytes:
    import gzip

    # the large qrels in tests/data are stored gzipped: their heads are read as text
    with (gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")) as handle:
        return b"".join(handle.readline() for _ in range(lines))


def _batch_manifests(committed_batches):
    """Read a batch manifest as a store does: the file in ``STORE/manifest/``."""

    def read(path):
        folder = os.path.dirname(path)
        os.makedirs(os.path.join(folder, "manifest"), exist_ok=True)
        os.replace(path, os.path.join(folder, "manifest", os.path.basename(path)))
        return committed_batches(folder)

    return read


def _beside_topic_file(load_topics):
    """Read a topics file with the patent file it names beside it."""

    def read(path):
        Path(os.path.dirname(path),
             "EP-1221372-A2.xml").write_bytes((DATA / "clefip" / "EP-0050001-A2.xml").read_bytes())
        return load_topics(path)

    return read


def _readers() -> dict[str, tuple[Callable[[str], object], bytes, str]]:
    """name -> (reader of a path, a valid file's bytes, the file's name)."""
    from pateval.check import check_passage_run
    from pateval.collection.store import STORE_FORMAT, STORE_VERSION, committed_batches, read_store_manifest
    from pateval.flowchart.generator import generate_flowchart
    from pateval.flowchart.reader import read_flowchart
    from pateval.flowchart.writer import format_flowchart
    from pateval.formats.dd import read_dd_iterations, read_dd_run
    from pateval.formats.doclengths import read_doc_lengths
    from pateval.formats.groups import read_duplicate_groups, read_patent_families
    from pateval.formats.intents import read_intents
    from pateval.formats.interactions import read_interaction_log, read_list_map
    from pateval.formats.passages import read_passage_qrels, read_passage_run, read_passage_topics
    from pateval.formats.qrels import read_qrels
    from pateval.formats.trec import read_run
    from pateval.formats.weights import read_subtopic_weights
    from pateval.patents.reader import read_patent
    from pateval.report.breakdown import read_topic_groups
    from pateval.results.readers import read_scores
    from pateval.search.run import load_topics

    def qrels(fmt):
        return lambda path: read_qrels(path, format=fmt)

    dd_run = DATA / "trecdd" / "trecdd2015_harness_demo_runfile.txt"
    return {
        "run": (read_run, _head(DATA / "trec" / "results.test", 40), "run.txt"),
        "qrels auto": (qrels("auto"), _head(DATA / "trec" / "qrels.test", 40), "qrels.txt"),
        "qrels trec": (qrels("trec"), _head(DATA / "trec" / "qrels.rel_level", 40), "qrels.txt"),
        "qrels subtopic": (qrels("subtopic"), b"q1 1 d1 1\nq1 2 d2 1\nq1 2 d3 0\nq2 1 d1 2\nq2 3 d4 1\n", "qrels.txt"),
        "qrels dd": (qrels("dd"), _head(DATA / "trecdd" / "qrels.txt.gz", 30), "qrels.txt"),
        "qrels ntcir": (qrels("ntcir"), _head(DATA / "ntcir" / "ntcir_patent_qrels.txt.gz", 30), "qrels.txt"),
        "qrels clefip-pac": (qrels("clefip-pac"), _head(DATA / "clefip" / "PAC_qrels_2010_with_lang.txt.gz", 30),
                             "qrels.txt"),
        "qrels clefip-2011": (qrels("clefip-2011"),
                              (DATA / "clefip" / "clefip2011_PAC_training_qrels_format_example.txt").read_bytes(),
                              "qrels.txt"),
        "doc lengths": (read_doc_lengths, b"d1 120\nd2 0\nEP-0971326-B1 5000\n", "lengths.txt"),
        "duplicate groups": (read_duplicate_groups, b"d1 d2\nd3 d4 d5\n", "groups.txt"),
        "patent families": (read_patent_families, b"d1 f1\nd2 f1\nd3 f2\n", "families.txt"),
        "intents": (read_intents, b"q1 1 0.5\nq1 2 0.5\nq2 1 1.0\n", "intents.txt"),
        "subtopic weights": (read_subtopic_weights, b"q1 1 1\nq1 2 0.5\nq2 1 1\n", "weights.txt"),
        "dd run": (read_dd_run, dd_run.read_bytes(), "ddrun.txt"),
        "dd iterations": (read_dd_iterations, b"DD16-1\t1\td1\t0.5\nDD16-1\t2\td2\t0.25\nDD16-2\t1\td1\t1\n",
                          "ddrun.txt"),
        "passage qrels": (read_passage_qrels,
                          b"tPSG-5 0 WO-2002015251-A1 /patent-document/claims/claim[5]\n"
                          b"tPSG-5 0 WO-2002015251-A1 /patent-document/description/p[22]\n", "psg_qrels.txt"),
        "passage run": (read_passage_run, (DATA / "clefip" / "clefip2012_PSG_run_example.txt").read_bytes(), "psg.run"),
        "passage topics": (read_passage_topics, (DATA / "clefip" / "clefip2012_PSG_topic_example.txt").read_bytes(),
                           "topics_PSG.txt"),
        "patent XML (CLEF-IP)": (read_patent, (DATA / "clefip" / "EP-0050001-A2.xml").read_bytes(),
                                 "EP-0050001-A2.xml"),
        "patent XML (USPTO)": (read_patent, (DATA / "uspto" / "US20050004437A1.xml").read_bytes(),
                               "US20050004437A1.xml"),
        "flowchart": (read_flowchart, format_flowchart(generate_flowchart(seed=1, steps=4)).encode(), "fig.txt"),
        "search topics": (_beside_topic_file(load_topics),
                          (DATA / "clefip" / "clefip2011_PAC_topic_example.xml").read_bytes(),
                          "topics_PAC.xml"),
        "score file (trec_eval -q)": (read_scores, (DATA / "trec_eval_q" / "run1.eval").read_bytes(), "run1.eval"),
        "score file (pateval JSON)": (read_scores, b'[{"run": "a", "measure": "AP", "topic": "q1", "value": 0.5},\n'
                                      b' {"run": "a", "measure": "AP", "topic": "q2", "value": 0.25}]\n', "a.json"),
        "score file (CSV)": (read_scores, b"run,measure,topic,value\na,AP,q1,0.5\na,AP,q2,0.25\n", "a.csv"),
        "interaction log (CSV)": (read_interaction_log,
                                  b"user,list,time,event,rank,docno\nu1,q1,0,start,,\nu1,q1,1.5,serp,1,\nu1,q1,4,click,2,d2\n"
                        b"u1,q1,20,save,,\nu1,q1,21,back,,\nu1,q1,30,next,11,\nu1,q1,35,end,,\n", "log.csv"),
        "interaction log (JSON Lines)": (read_interaction_log,
                                         b'{"user": "u1", "list": "q1", "time": 0, "event": "start"}\n'
                          b'{"user": "u1", "list": "q1", "time": 2, "event": "serp", "rank": 1}\n'
                          b'{"user": "u1", "list": "q1", "time": 3, "event": "click", "rank": 1, "docno": "d1"}\n'
                          b'{"user": "u1", "list": "q1", "time": 9, "event": "end"}\n', "log.jsonl"),
        "interaction lists": (read_list_map, b"l1 q1 bm25\nl2 q1\nl3 q2 lm\n", "lists.txt"),
        "topic groups": (read_topic_groups, b"q1 en\nq2 de\nq3 en\n", "groups.txt"),
        "passage run check": (check_passage_run, (DATA / "clefip" / "clefip2012_PSG_run_example.txt").read_bytes(),
                              "p-r-PSG.txt"),
        "store manifest": (lambda path: read_store_manifest(os.path.dirname(path)),
                           json.dumps({"format": STORE_FORMAT, "version": STORE_VERSION, "defaults": {}}).encode(),
                           "manifest.json"),
        "store batch manifest": (_batch_manifests(committed_batches), json.dumps({"batch": 1, "files": []}).encode(),
                                 "batch-000001.json"),
    }


READERS = _readers()

#: Bytes that make readers stumble: separators, signs, number spellings, encodings, markup.
_TOKENS = [b"\t", b" ", b"\n", b"\r\n", b"\r", b"\x00", b"-", b"+", b".", b"e", b"nan", b"inf", b"-inf", b"1e309",
           b"0x10", b"\xff\xfe", b"\xc3\x28", b"\xef\xbb\xbf", b"#", b'"', b"<", b"&", b"]]>", b"<!DOCTYPE x [",
           b"9" * 30,
           b"-1", b"Q0", b"<claim-ref idref=\"c-1\">", b"</", b"[", b"]", b"/", b"\xe2\x80\xa8", b"\x0b", b"\x1c"]


@st.composite
def mutated(draw, seed: bytes) -> bytes:
    """``seed`` after 1-4 edits: a byte flipped, a span deleted or duplicated, a token
    inserted, lines swapped or dropped, the file cut short."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        n = len(data)
        edit = draw(st.sampled_from(["flip", "delete", "duplicate", "insert", "lines", "truncate"]))
        at = draw(st.integers(0, max(n - 1, 0)))
        if edit == "flip" and n:
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif edit == "delete" and n:
            del data[at:at + draw(st.integers(1, 16))]
        elif edit == "duplicate" and n:
            data[at:at] = data[at:at + draw(st.integers(1, 64))]
        elif edit == "insert":
            data[at:at] = draw(st.sampled_from(_TOKENS))
        elif edit == "lines":
            lines = bytes(data).split(b"\n")
            if len(lines) > 1:
                i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
                if draw(st.booleans()):
                    lines[i], lines[j] = lines[j], lines[i]
                else:
                    del lines[i]
                data = bytearray(b"\n".join(lines))
        elif edit == "truncate":
            del data[at:]
    return bytes(data)


def _check(reader: Callable[[str], object], name: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, name)
        with open(path, "wb") as handle:
            handle.write(data)
        # pateval's own error: the command line prints it as one line, exit 2
        with contextlib.suppress(PatevalError):
            reader(path)


_SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("reader_name", sorted(READERS))
def test_the_valid_seed_reads(reader_name):
    reader, seed, name = READERS[reader_name]
    _check(reader, name, seed)
    with tempfile.TemporaryDirectory() as folder:  # and it really is valid: no error at all
        path = os.path.join(folder, name)
        Path(path).write_bytes(seed)
        reader(path)


@pytest.mark.parametrize("reader_name", sorted(READERS))
def test_mutated_files_give_a_result_or_pateval_error(reader_name):
    reader, seed, name = READERS[reader_name]

    @_SETTINGS
    @given(data=st.data())
    def run(data):
        _check(reader, name, data.draw(mutated(seed)))

    run()


@pytest.mark.parametrize("reader_name", sorted(READERS))
def test_random_bytes_give_a_result_or_pateval_error(reader_name):
    reader, _, name = READERS[reader_name]

    @settings(_SETTINGS, max_examples=25)
    @given(data=st.binary(max_size=300) | st.text(alphabet=" \t\n0123456789.-abcQ#<>/", max_size=200).map(str.encode))
    def run(data):
        _check(reader, name, data)

    run()


# ---- the same through the command line: bad input is exit 2, never 70 (a bug) ----------------

_QRELS = b"q1 0 d1 1\nq1 0 d2 0\nq1 0 d5 2\nq2 0 d3 2\nq2 0 d4 1\nq3 0 d9 1\n"
_RUN = b"q1 Q0 d1 1 2.5 a\nq1 Q0 d2 2 1.0 a\nq1 Q0 d7 3 0.5 a\nq2 Q0 d3 1 1.0 a\nq2 Q0 d4 2 1.0 a\nq4 Q0 d1 1 3 a\n"
_MEASURES = ["-m", "AP", "-m", "nDCG@3", "-m", "P@2", "-m", "RR", "-m", "Bpref", "-m", "PRES@5", "-m", "NumRelRet"]


def _exit_status(argv, files: dict[str, bytes]) -> int:
    import contextlib
    import io

    from pateval.cli import main

    with tempfile.TemporaryDirectory() as folder:
        for name, content in files.items():
            Path(folder, name).write_bytes(content)
        argv = [str(Path(folder, a)) if a in files else a for a in argv]
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            code = main(argv)
        assert "internal error" not in err.getvalue(), err.getvalue()
        return code


@pytest.mark.parametrize("which", ["qrels", "run"])
def test_evaluate_on_mutated_files_exits_0_or_2(which):
    seed = _QRELS if which == "qrels" else _RUN

    @settings(_SETTINGS, max_examples=50)
    @given(data=st.data())
    def run(data):
        files = {"qrels.txt": _QRELS, "run.txt": _RUN, f"{which}.txt": data.draw(mutated(seed))}
        assert _exit_status(["evaluate", "qrels.txt", "run.txt", *_MEASURES, "-q", "-c"], files) in (0, 2)

    run()


def test_compare_on_mutated_runs_exits_0_or_2():
    second = _RUN.replace(b" a\n", b" b\n").replace(b"2.5", b"0.1")

    @settings(_SETTINGS, max_examples=30)
    @given(data=st.data())
    def run(data):
        files = {"qrels.txt": _QRELS, "a.txt": _RUN, "b.txt": data.draw(mutated(second))}
        assert _exit_status(["compare", "qrels.txt", "a.txt", "b.txt", "-m", "AP", "-m", "P@2"], files) in (0, 2)

    run()


def test_check_and_flowchart_eval_on_mutated_files_exit_0_1_or_2():
    psg_run = (DATA / "clefip" / "clefip2012_PSG_run_example.txt").read_bytes()
    topics = (DATA / "clefip" / "clefip2012_PSG_topic_example.txt").read_bytes()
    _, flowchart, _ = READERS["flowchart"]

    @settings(_SETTINGS, max_examples=30)
    @given(data=st.data())
    def run(data):
        files = {"p-r-PSG.txt": data.draw(mutated(psg_run)), "topics.txt": data.draw(mutated(topics))}
        assert _exit_status(["check", "p-r-PSG.txt", "--topics", "topics.txt"], files) in (0, 1, 2)
        with tempfile.TemporaryDirectory() as folder:
            for side in ("truth", "sub"):
                os.makedirs(os.path.join(folder, side))
            Path(folder, "truth", "f.txt").write_bytes(flowchart)
            Path(folder, "sub", "f.txt").write_bytes(data.draw(mutated(flowchart)))
            code = _exit_status(["flowchart", "eval", os.path.join(folder, "truth"), os.path.join(folder, "sub"),
                                 "--time-budget", "0.2"], {})
            assert code in (0, 1, 2)

    run()


def test_corpus_ingest_of_mutated_xml_exits_0_or_2():
    xml = (DATA / "clefip" / "EP-0050001-A2.xml").read_bytes()

    @settings(_SETTINGS, max_examples=12)
    @given(data=st.data())
    def run(data):
        with tempfile.TemporaryDirectory() as folder:
            Path(folder, "doc.xml").write_bytes(data.draw(mutated(xml)))
            code = _exit_status(["corpus", "ingest", os.path.join(folder, "doc.xml"), "--out",
                                 os.path.join(folder, "store"), "--workers", "1", "--no-progress"], {})
            assert code in (0, 2)

    run()


def test_subtopic_and_professional_measures_on_mutated_inputs_exit_0_or_2():
    qrels = b"q1 1 d1 1\nq1 2 d2 2\nq1 2 d5 1\nq1 3 d7 1\nq2 1 d3 1\nq2 2 d4 1\n"
    lengths = b"d1 120\nd2 30\nd3 500\nd4 0\nd5 77\nd7 10\nd9 5\n"
    measures = ["-m", "alpha_nDCG@5", "-m", "nERR_IA@5", "-m", "I_rec@3", "-m", "CT@5", "-m", "ACT@5",
                "-m", "D_nDCG@5", "-m", "TBG", "-m", "CT(time=tbg)@5", "-m", "PRES@10", "-m", "Rprec"]

    @settings(_SETTINGS, max_examples=40)
    @given(data=st.data())
    def run(data):
        which = data.draw(st.sampled_from(["qrels.txt", "run.txt", "lengths.txt"]))
        files = {"qrels.txt": qrels, "run.txt": _RUN, "lengths.txt": lengths}
        files[which] = data.draw(mutated(files[which]))
        argv = ["evaluate", "qrels.txt", "run.txt", "--qrels-format", "subtopic", "--doc-lengths", "lengths.txt",
                *measures, "-q", "-c"]
        assert _exit_status(argv, files) in (0, 2)

    run()
