"""Readers of passage topics, passage qrels and passage runs; XPath normalisation."""

from __future__ import annotations

import numpy as np
import pytest

from pateval.errors import InputFormatError
from pateval.formats.passages import (
    PassageRun,
    is_heading_xpath,
    looks_like_passage_qrels,
    looks_like_passage_run,
    normalise_xpath,
    read_passage_qrels,
    read_passage_run,
    read_passage_topics,
    run_id_from_file_name,
    write_passage_run,
)

CLAIMS = tuple(f"/patent-document/claims/claim[{n}]" for n in (1, 2, 3, 16, 17, 18))


@pytest.mark.parametrize("written, normal", [
    ("/patent-document/abstract/p", "/patent-document/abstract/p[1]"),
    ("/patent-document/abstract/p[1]", "/patent-document/abstract/p[1]"),
    ("/patent-document/abstract[1]/p[1]", "/patent-document/abstract/p[1]"),
    ("/patent-document/abstract[2]/p", "/patent-document/abstract[2]/p[1]"),
    ("/patent-document/claims[1]/claim[02]", "/patent-document/claims/claim[2]"),
    ("/patent-document/claims[2]/claim[1]", "/patent-document/claims[2]/claim[1]"),
    (" /patent-document/description/p[ 20 ] ", "/patent-document/description/p[20]"),
    ("/patent-document/description/p[20]/", "/patent-document/description/p[20]"),
    ("/patent-document/description/p[20]/text()", "/patent-document/description/p[20]"),
    ("/patent-document[1]/description/heading[3]", "/patent-document/description/heading[3]"),
])
def test_xpath_normalisation(written, normal):
    assert normalise_xpath(written) == normal
    assert normalise_xpath(normal) == normal  # idempotent


@pytest.mark.parametrize("bad", ["claim[1]", "/other/p[1]", "/patent-document", "/patent-document//p[1]",
                                 "/patent-document/p[0]", "/patent-document/p[@id='x']", "", "5"])
def test_not_xpaths(bad):
    assert normalise_xpath(bad) is None


def test_headings_are_recognised_by_their_element():
    assert is_heading_xpath("/patent-document/description/heading[2]")
    assert is_heading_xpath("/patent-document/description/heading")
    assert not is_heading_xpath("/patent-document/description/p[2]")
    assert not is_heading_xpath("/patent-document/description/headings[2]")


def test_clefip_2012_topic_example_parses(test_data):
    (topic,) = read_passage_topics(test_data / "clefip" / "clefip2012_PSG_topic_example.txt")
    assert (topic.tid, topic.tfile, topic.ucid, topic.tfam_docs, topic.line) == ("tPSG-5", "EP-1480263-A1.xml",
                                                                                 "EP-1480263-A1", (), 1)
    assert topic.tclaims == CLAIMS
    assert topic.claim_numbers == (1, 2, 3, 16, 17, 18)


def test_clefip_2013_fragment_parses_as_a_partial_topic(test_data):
    path = test_data / "clefip" / "clefip2013_PSG_topic_fragment.txt"
    (topic,) = read_passage_topics(path, partial=True)
    assert topic.tfam_docs == ("JP-2003224099-A.xml", "WO-2003065434-A1.xml")
    assert topic.tclaims == CLAIMS  # the claims span three lines
    with pytest.raises(InputFormatError, match=r"line 1.*without <tid>"):
        read_passage_topics(path)


def test_topics_with_commas_and_several_topics(tmp_path):
    path = tmp_path / "topics.txt"
    path.write_text("<topics>\n<tid>PSG-1</tid><tfile>EP-1-A1.xml</tfile>\n<tfam-docs>A.xml,B.xml</tfam-docs>\n"
                    "<tclaims>/patent-document/claims/claim[1],/patent-document/claims/claim[2]</tclaims>\n"
                    "<tid>PSG-2</tid>\n<tfile>EP-2-A1.xml</tfile>\n<tclaims>/patent-document/claims[1]/claim[3]</tclaims>\n</topics>\n")
    first, second = read_passage_topics(path)
    assert first.tfam_docs == ("A.xml", "B.xml") and first.claim_numbers == (1, 2)
    assert (second.tid, second.line, second.tclaims) == ("PSG-2", 5, ("/patent-document/claims/claim[3]",))


@pytest.mark.parametrize("text, line, message", [
    ("<tid>A</tid><tfile>x.xml</tfile><tclaims>/patent-document/claims/claim[1]</tclaims>\n"
     "<tid>A</tid><tfile>y.xml</tfile><tclaims>/patent-document/claims/claim[1]</tclaims>\n", 2, "given twice"),
    ("<tid>A</tid>\n<tfile>x.xml</tfile>\n<tclaims>/patent-document/claims/claim[1]\nclaim[2]</tclaims>\n", 4,
     "not an XPath"),
    ("<tid>A</tid>\n<tclaims>/patent-document/claims/claim[1]</tclaims>\n", 1, "without <tfile>"),
])
def test_bad_topics_name_the_line(tmp_path, text, line, message):
    path = tmp_path / "topics.txt"
    path.write_text(text)
    with pytest.raises(InputFormatError, match=message) as error:
        read_passage_topics(path)
    assert f":{line}:" in str(error.value) or f"line {line}" in str(error.value)


def test_passage_qrels_spaces_commas_three_or_four_fields(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("PSG-5 EP-1078736-A1 /patent-document/description/p[20]\n"
                    "PSG-5,EP-1078736-A1,/patent-document/description/p[21]\n"
                    "PSG-6 0 EP-2-A1 /patent-document/abstract/p\n"
                    "PSG-6 0 EP-2-A1 /patent-document/abstract[1]/p[1]\n"  # the same passage again
                    "PSG-6 0 EP-2-A1 /patent-document/description/heading[4]\n")
    qrels = read_passage_qrels(path)
    assert qrels.format == "clefip-psg"
    assert list(zip(qrels.topic, qrels.docno, qrels.passage, strict=False)) == [
        ("PSG-5", "EP-1078736-A1", "/patent-document/description/p[20]"),
        ("PSG-5", "EP-1078736-A1", "/patent-document/description/p[21]"),
        ("PSG-6", "EP-2-A1", "/patent-document/abstract/p[1]"),
    ]
    assert any("merged" in n for n in qrels.notes) and any("heading" in n for n in qrels.notes)
    assert len(qrels.document_level()) == 2
    assert looks_like_passage_qrels(path)


@pytest.mark.parametrize("line, message", [
    ("PSG-5 EP-1 /patent-document/p[1] extra more", "wrong number of fields"),
    ("PSG-5 EP-1 p[1]", "not a passage XPath"),
])
def test_bad_passage_qrels(tmp_path, line, message):
    path = tmp_path / "qrels.txt"
    path.write_text("PSG-5 EP-1 /patent-document/description/p[1]\n" + line + "\n")
    with pytest.raises(InputFormatError, match=message) as error:
        read_passage_qrels(path)
    assert ":2:" in str(error.value) or "line 2" in str(error.value)


def test_clefip_2012_run_example_parses(test_data, tmp_path):
    path = test_data / "clefip" / "clefip2012_PSG_run_example.txt"
    run = read_passage_run(path)
    assert len(run) == 3 and run.name == "clefip2012_PSG_run_example"
    assert list(run.xpath) == ["/patent-document/claims/claim[1]", "/patent-document/description/p[22]",
                               "/patent-document/description/p[23]"]
    assert list(run.rank) == [5, 6, 7] and list(run.line) == [1, 2, 3]
    assert looks_like_passage_run(path) and not looks_like_passage_qrels(path)
    document = run.document_run()
    assert list(document.docnos) == ["WO-2002015251-A1"] and list(document.rank) == [1]


def test_run_id_from_the_file_name(tmp_path):
    assert run_id_from_file_name("TUW-split3-PSG.txt") == "TUW-split3"
    assert run_id_from_file_name("/x/In-cos-w1-PSG.res.gz") == "In-cos-w1"
    assert run_id_from_file_name("run.txt") is None
    path = tmp_path / "TUW-split3-PSG.txt"
    path.write_text("t Q0 d /patent-document/description/p[1] 1 1.0\n")
    assert read_passage_run(path).name == "TUW-split3"
    assert read_passage_run(path, name="mine").name == "mine"


@pytest.mark.parametrize("line, message", [
    ("t Q0 d /patent-document/description/p[2] 2", "wrong number of columns"),
    ("t Q1 d /patent-document/description/p[2] 2 1.0", "not Q0"),
    ("t Q0 d 2 /patent-document/description/p[2] 1.0", "not a passage XPath"),
    ("t Q0 d /patent-document/description/p[2] two 1.0", "rank is not an integer"),
    ("t Q0 d /patent-document/description/p[2] 2 nan", "score is not a number"),
    ("t Q0 d /patent-document/description/p[1] 2 1.0", "listed twice"),
])
def test_bad_runs_name_the_line(tmp_path, line, message):
    path = tmp_path / "X-r-PSG.txt"
    path.write_text("t Q0 d /patent-document/description/p[1] 1 2.0\n\n" + line + "\n")
    with pytest.raises(InputFormatError, match=message) as error:
        read_passage_run(path)
    assert ":3:" in str(error.value) or "line 3" in str(error.value)


def test_duplicates_kept_first_on_request(tmp_path):
    path = tmp_path / "X-r-PSG.txt"
    path.write_text("t Q0 d /patent-document/abstract/p 1 2.0\nt Q0 d /patent-document/abstract/p[1] 2 1.0\n")
    run = read_passage_run(path, on_duplicate="first")
    assert len(run) == 1 and run.notes


def test_document_run_takes_first_occurrences_in_passage_rank_order():
    run = PassageRun.from_records([
        ("t", "B", "/patent-document/description/p[1]", 3, 1.0),
        ("t", "A", "/patent-document/description/p[1]", 2, 1.0),
        ("t", "B", "/patent-document/description/p[2]", 1, 1.0),
        ("t", "C", "/patent-document/description/heading[1]", 0, 1.0),  # only a heading: gone
        ("u", "A", "/patent-document/description/p[1]", 1, 1.0),
    ], fields=("topic", "docno", "xpath", "rank", "score"))
    document = run.document_run()
    assert list(zip(document.topic_ids[document.topic], document.docnos, document.rank, strict=False)) == [
        ("t", "B", 1), ("t", "A", 2), ("u", "A", 1)]
    assert np.all(np.diff(document.score[:2]) < 0)  # scores agree with ranks
    order = run.passage_order()
    assert [(run.topic[i], run.docno[i], run.xpath[i].rsplit("/", 1)[1]) for i in order] == [
        ("t", "C", "heading[1]"), ("t", "B", "p[2]"), ("t", "B", "p[1]"), ("t", "A", "p[1]"), ("u", "A", "p[1]")]


def test_write_and_read_back(tmp_path):
    run = PassageRun.from_records([("t", "d", "/patent-document/abstract/p", 1, 0.1 + 0.2)],
                                 fields=("topic", "docno", "xpath", "rank", "score"), name="x")
    path = write_passage_run(run, tmp_path / "P-x-PSG.txt")
    again = read_passage_run(path)
    assert list(again.xpath) == ["/patent-document/abstract/p[1]"] and again.score[0] == 0.1 + 0.2
