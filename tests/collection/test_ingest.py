"""Ingest: parallel (processes, Dask), resumable, atomic per batch, errors reported."""

from __future__ import annotations

import os

import pyarrow.parquet as pq
import pytest

from pateval.cli import main
from pateval.collection.ingest import ingest, plan_batches
from pateval.collection.store import CorpusStore, committed_batches
from pateval.errors import InputFormatError, ParameterError


def clefip_xml(number: int, *, claims: int = 3, cited: tuple[str, ...] = ()) -> str:
    """A small CLEF-IP document: claim k > 1 depends on claim k - 1 in words."""
    claim_xml = "".join(
        f'<claim num="{k}"><claim-text>'
        + (f"A device as claimed in claim {k - 1}, wherein part {k} is round." if k > 1
           else "A device comprising a part.")
        + "</claim-text></claim>"
        for k in range(1, claims + 1)
    )
    citations = "".join(
        f'<patcit ucid="{ucid}"><document-id><country>{ucid[:2]}</country><doc-number>{ucid.split("-")[1]}</doc-number>'
        f'</document-id><sources><source name="SEA" category="X"/></sources>'
        f"<rel-passage><passage>column "
                        f"1</passage><category>Y</category><rel-claims>1-2,{claims}</rel-claims></rel-passage>"
        "</patcit>"
        for ucid in cited
    )
    citations_xml = f"<citations><patent-citations>{citations}</patent-citations></citations>" if cited else ""
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n',
        f'<patent-document ucid="EP-{number:07d}-A1" country="EP" doc-number="{number:07d}" kind="A1" ',
        f'lang="EN" date="20000517" family-id="{900000 + number}">\n',
        "<bibliographic-data><technical-data>",
        "<classifications-ipcr><classification-ipcr>B28B  1/00  20060101AFI20051220RMEP</classification-ipcr>",
        "</classifications-ipcr>",
        f'<invention-title lang="EN">Device number {number}</invention-title>',
        citations_xml,
        "</technical-data></bibliographic-data>\n",
        f'<abstract lang="EN"><p>An abstract for {number}.</p></abstract>\n',
        f'<description lang="EN"><heading>FIELD</heading><p num="0001">Paragraph one of {number}.</p>',
        '<p num="0002">Paragraph two.</p></description>\n',
        f'<claims lang="EN">{claim_xml}</claims>\n',
        "</patent-document>\n",
    ]
    return "".join(parts)


def write_corpus(folder, count, *, start=1):
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number in range(start, start + count):
        path = folder / f"EP-{number:07d}-A1.xml"
        path.write_text(clefip_xml(number, cited=("EP-0000001-A1",) if number % 2 else ()), encoding="utf-8")
        paths.append(path)
    return paths


def _rows(store_path, query):
    with CorpusStore(store_path) as store:
        return store.sql(query).to_dict("records")


def test_sequential_and_parallel_ingest_give_the_same_store(tmp_path):
    write_corpus(tmp_path / "xml", 24)
    one = ingest(tmp_path / "xml", tmp_path / "one", workers=1)
    two = ingest(tmp_path / "xml", tmp_path / "two", workers=2, batch_bytes=4096)
    assert one.documents == two.documents == 24
    assert two.batches > 2  # really split over workers
    query = "SELECT ucid, lang, number, depends_on FROM claims ORDER BY ucid, lang, number"

    def as_tuples(rows):
        return [(r["ucid"], r["lang"], r["number"], tuple(r["depends_on"])) for r in rows]

    sequential = as_tuples(_rows(tmp_path / "one", query))
    assert len(sequential) == 72 and sequential[:3] == [
        ("EP-0000001-A1", "EN", 1, ()), ("EP-0000001-A1", "EN", 2, (1,)), ("EP-0000001-A1", "EN", 3, (2,)),
    ]
    assert sequential == as_tuples(_rows(tmp_path / "two", query))
    citations = _rows(tmp_path / "two", "SELECT DISTINCT categories, relevant_claims, passages, source FROM citations")
    assert len(citations) == 1
    assert citations[0]["categories"] == "XY"
    assert list(citations[0]["relevant_claims"]) == [1, 2, 3]
    assert list(citations[0]["passages"]) == ["column 1"]
    assert citations[0]["source"] == "search"


def test_dask_local_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    write_corpus(tmp_path / "xml", 12)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        summary = ingest(tmp_path / "xml", tmp_path / "store", scheduler=cluster.scheduler_address, batch_bytes=4096)
    assert summary.documents == 12 and summary.batches > 1
    with CorpusStore(tmp_path / "store") as store:
        assert store.count() == 12
        assert store.count("claims") == 36
        assert store.sql("SELECT count(DISTINCT ucid) AS n FROM documents")["n"].iloc[0] == 12


def test_unreachable_scheduler_is_a_clear_error(tmp_path):
    write_corpus(tmp_path / "xml", 1)
    with pytest.raises(ParameterError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        ingest(tmp_path / "xml", tmp_path / "store", scheduler="tcp://127.0.0.1:9", scheduler_timeout=1.0)


def test_resume_skips_ingested_files_and_adds_new_ones(tmp_path):
    write_corpus(tmp_path / "xml", 5)
    first = ingest(tmp_path / "xml", tmp_path / "store", workers=1)
    assert (first.documents, first.skipped_files) == (5, 0)
    again = ingest(tmp_path / "xml", tmp_path / "store", workers=1)
    assert (again.documents, again.files, again.skipped_files, again.total_documents) == (0, 0, 5, 5)
    write_corpus(tmp_path / "xml", 3, start=6)
    more = ingest(tmp_path / "xml", tmp_path / "store", workers=1)
    assert (more.documents, more.skipped_files, more.total_documents) == (3, 5, 8)
    # A touched but unchanged file is recognised by its hash.
    os.utime(tmp_path / "xml" / "EP-0000001-A1.xml", ns=(1, 1))
    assert ingest(tmp_path / "xml", tmp_path / "store", workers=1).skipped_files == 8
    with CorpusStore(tmp_path / "store") as store:
        assert store.count() == 8 and store.duplicates().empty


def test_changed_file_is_refused(tmp_path):
    paths = write_corpus(tmp_path / "xml", 2)
    ingest(tmp_path / "xml", tmp_path / "store", workers=1)
    paths[0].write_text(clefip_xml(1, claims=5), encoding="utf-8")
    with pytest.raises(InputFormatError) as caught:
        ingest(tmp_path / "xml", tmp_path / "store", workers=1)
    assert str(caught.value) == (
        f"{paths[0]}: the file changed since it was ingested into this store (size or content differ); "
        "ingest the corpus into a new store"
    )


def test_interrupted_ingest_resumes_without_duplicates(tmp_path):
    paths = write_corpus(tmp_path / "xml", 6)
    good = paths[4].read_text(encoding="utf-8")
    paths[4].write_text(good.replace("</claims>", "</claimz>"), encoding="utf-8")
    # One file per batch; the bad fifth file stops the run after four committed batches.
    with pytest.raises(InputFormatError,
                       match=r"EP-0000005-A1.xml, line 6: XML error: Opening and ending tag mismatch"):
        ingest(tmp_path / "xml", tmp_path / "store", workers=1, batch_bytes=1)
    assert len(committed_batches(tmp_path / "store")) == 4
    assert not list((tmp_path / "store" / "documents").glob(".*tmp"))
    # Leftovers of a crash between writing parts and committing: never read, removed.
    leftover = tmp_path / "store" / "documents" / "part-000099.parquet"
    leftover.write_bytes((tmp_path / "store" / "documents" / "part-000000.parquet").read_bytes())
    with CorpusStore(tmp_path / "store") as store:
        assert store.count() == 4
    paths[4].write_text(good, encoding="utf-8")
    resumed = ingest(tmp_path / "xml", tmp_path / "store", workers=1)
    assert (resumed.documents, resumed.skipped_files, resumed.total_documents) == (2, 4, 6)
    assert not leftover.exists()
    with CorpusStore(tmp_path / "store") as store:
        assert store.count() == 6 and store.duplicates().empty


def test_skip_records_errors_and_keeps_the_rest(tmp_path):
    paths = write_corpus(tmp_path / "xml", 4)
    paths[1].write_text(clefip_xml(2)[:200], encoding="utf-8")
    summary = ingest(tmp_path / "xml", tmp_path / "store", workers=2, on_error="skip", batch_bytes=1)
    assert summary.documents == 3
    assert [(e.path, e.line) for e in summary.errors] == [(str(paths[1]), 3)]
    with CorpusStore(tmp_path / "store") as store:
        assert store.errors()["path"].tolist() == [str(paths[1])]


def test_parallel_stop_reports_the_worker_error(tmp_path):
    paths = write_corpus(tmp_path / "xml", 4)
    paths[2].write_text("", encoding="utf-8")
    with pytest.raises(InputFormatError) as caught:
        ingest(tmp_path / "xml", tmp_path / "store", workers=2, batch_bytes=1)
    assert str(caught.value) == f"{paths[2]}: the file is empty (no XML document)"


def test_row_groups_bound_the_buffer(tmp_path):
    folder = tmp_path / "xml"
    folder.mkdir()
    # One weekly-style file of 250 concatenated documents.
    (folder / "week.xml").write_text("".join(clefip_xml(n) for n in range(1, 251)), encoding="utf-8")
    from pateval.collection.ingest import ingest_batch

    (tmp_path / "store").mkdir()
    result = ingest_batch(str(tmp_path / "store"), 0, [str(folder / "week.xml")], rows_per_group=100)
    assert result["documents"] == 250
    metadata = pq.ParquetFile(tmp_path / "store" / "documents" / "part-000000.parquet").metadata
    assert [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)] == [100, 100, 50]


def test_plan_batches():
    files = [(f"f{i}", 10) for i in range(10)]
    batches = plan_batches(files, workers=1, batch_bytes=1000)
    # 100 bytes, at least 4 batches per worker: about 25 bytes (2 files) each.
    assert batches == [["f0", "f1"], ["f2", "f3"], ["f4", "f5"], ["f6", "f7"], ["f8", "f9"]]
    assert plan_batches(files, workers=1, batch_bytes=10) == [[f"f{i}"] for i in range(10)]
    assert plan_batches([], workers=2, batch_bytes=10) == []


def test_parameters_are_checked(tmp_path):
    with pytest.raises(ParameterError):
        ingest(tmp_path, tmp_path / "s", on_error="ignore")
    with pytest.raises(ParameterError):
        ingest(tmp_path, tmp_path / "s", workers=0)
    (tmp_path / "not-a-store").mkdir()
    (tmp_path / "not-a-store" / "x.txt").write_text("x")
    write_corpus(tmp_path / "xml", 1)
    with pytest.raises(InputFormatError, match="not a corpus store"):
        ingest(tmp_path / "xml", tmp_path / "not-a-store")


def test_cli_ingest(tmp_path, capsys):
    write_corpus(tmp_path / "xml", 3)
    assert main(["corpus", "ingest", str(tmp_path / "xml"), "--out", str(tmp_path / "store"), "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("documents 3  files 3  skipped files 0  errors 0  ")
    assert f"store {tmp_path / 'store'}: 3 documents" in out
    (tmp_path / "xml" / "EP-0000009-A1.xml").write_text("<patent-document>", encoding="utf-8")
    assert main(["corpus", "ingest", str(tmp_path / "xml"), "--out", str(tmp_path / "store"), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"pateval: error: {tmp_path / 'xml' / 'EP-0000009-A1.xml'}, line 1: "
        "XML error: Premature end of data in tag patent-document line 1\n"
    )
    assert main(["corpus", "ingest", str(tmp_path / "xml"), "--out", str(tmp_path / "store"),
                 "--on-error", "skip", "--workers", "1"]) == 0
    captured = capsys.readouterr()
    assert "documents 0  files 1  skipped files 3  errors 1" in captured.out
    assert captured.err.startswith("pateval: skipped: ")


def test_a_file_named_twice_is_read_once(tmp_path):
    paths = write_corpus(tmp_path / "xml", 2)
    summary = ingest([tmp_path / "xml", paths[0]], tmp_path / "store", workers=1)
    assert (summary.files, summary.documents) == (2, 2)


def test_corpus_lengths_writes_each_documents_words(tmp_path, capsys):
    """`pateval corpus lengths`: the lengths --doc-lengths reads, counted from the documents."""
    from pateval.formats.doclengths import read_doc_lengths

    write_corpus(tmp_path / "corpus", 3)
    store = tmp_path / "store"
    assert main(["corpus", "ingest", str(tmp_path / "corpus"), "--out", str(store), "--workers", "1",
                 "--no-progress"]) == 0
    out = tmp_path / "lengths.txt"
    assert main(["corpus", "lengths", str(store), "--out", str(out)]) == 0
    assert "3 document lengths written" in capsys.readouterr().out
    # by hand: abstract 4 words; description FIELD + "Paragraph one of N." + "Paragraph two." = 7;
    # claims "A device comprising a part." 5 + twice "A device as claimed in claim k, wherein part k+1 is round." 12
    assert dict(read_doc_lengths(out)) == {f"EP-{n:07d}-A1": 4 + 7 + 5 + 12 + 12 for n in (1, 2, 3)}


def test_corpus_lengths_refuses_conflicting_duplicates_and_missing_stores(tmp_path, capsys):
    write_corpus(tmp_path / "corpus", 2)
    (tmp_path / "corpus" / "again").mkdir()
    (tmp_path / "corpus" / "again" / "EP-0000002-A1.xml").write_text(clefip_xml(2, claims=5), encoding="utf-8")
    store = tmp_path / "store"
    assert main(["corpus", "ingest", str(tmp_path / "corpus"), "--out", str(store), "--workers", "1",
                 "--no-progress"]) == 0
    capsys.readouterr()
    out = tmp_path / "lengths.txt"
    assert main(["corpus", "lengths", str(store), "--out", str(out)]) == 2
    assert capsys.readouterr().err == (f"pateval: error: store {store}: document EP-0000002-A1 is stored with "
                                       f"different "
                                       "word counts [40, 64] (see CorpusStore.duplicates())\n")
    assert not out.exists() and not list(tmp_path.glob(".lengths.txt.*"))
    assert main(["corpus", "lengths", str(tmp_path / "nowhere"), "--out", str(out)]) == 2
    assert capsys.readouterr().err == (f"pateval: error: no corpus store at {tmp_path / 'nowhere'} "
                                       "(make one with `pateval corpus ingest`)\n")
    assert not out.exists()
