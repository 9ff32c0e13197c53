"""`pateval search --ir-metadata` writes an ir_metadata block at the top of its runs (parsed
here from the header lines directly); without the flag a run is plain TREC, which trec_eval,
ir_measures, PyTerrier and ranx read."""

from __future__ import annotations

import pytest

from pateval.cli import main
from pateval.formats.ir_metadata import END, START, ir_metadata_lines

yaml = pytest.importorskip("yaml")


def _header(path):
    lines = path.read_text().splitlines()
    assert lines[0] == START
    end = lines.index(END)
    assert all(line.startswith("# ") for line in lines[1:end])
    return yaml.safe_load("\n".join(line[2:] for line in lines[1:end])), lines[end + 1:]


def test_search_run_says_how_it_was_made(collection, tmp_path):
    run = tmp_path / "lm.run"
    assert main(["search", "--index", str(collection["index"]), "--topics", str(collection["collection"]), "--model",
                 "lm:mu=1000", "--query", "title+claims,top=30", "--out", str(run), "--depth", "20",
                 "--no-progress", "--ir-metadata"]) == 0
    meta, rows = _header(run)
    assert meta["tag"] == "lm-mu=1000.title+claims,top=30"
    indexing, (model, query, filters) = meta["method"]["indexing"], meta["method"]["retrieval"]
    assert indexing["engine"] == "tantivy" and indexing["index"] == str(collection["index"])
    assert indexing["documents"] > 0
    assert indexing["analyzers"]["pateval_en"].endswith("english stop words, english Snowball stemmer")
    assert model["name"] == "lm-mu=1000" and model["method"] == "LMDirichlet" and model["mu"] == 1000.0
    assert "re-scored exactly" in model["scoring"]
    assert query["strategy"] == "title+claims,top=30" and query["parts"] == ["title", "claims"]
    assert query["top terms"] == 30
    assert filters == {"name": "filters", "depth": 20, "date filter": True, "exclude family": True,
                       "unit": "publication"}
    assert meta["data"]["test collection"]["topics"] == str(collection["collection"])
    assert meta["method"]["automatic"] is True
    assert meta["platform"]["software"]["libraries"]["python"][0].startswith("pateval")
    assert rows and all(len(r.split()) == 6 for r in rows)  # the run itself follows, no comment among its lines


def test_grid_runs_have_their_own_blocks(collection, tmp_path):
    out = tmp_path / "grid"
    assert main(["search", "--index", str(collection["index"]), "--topics", str(collection["collection"]), "--model",
                 "bm25", "--model", "tfidf", "--query", "claims", "--out", str(out), "--depth", "10",
                 "--no-progress", "--ir-metadata"]) == 0
    tags = {_header(path)[0]["tag"]: _header(path)[0]["method"]["retrieval"][0] for path in out.iterdir()}
    assert set(tags) == {"bm25.claims", "tfidf.claims"}
    assert tags["bm25.claims"]["scoring"] == "tantivy BM25" and tags["tfidf.claims"]["k1"] == 1.0


def test_metadata_values_cannot_break_the_comment_lines():
    with pytest.raises(ValueError, match="ir_metadata values must not hold line breaks"):
        ir_metadata_lines({"tag": "a", "notes": {"a\nb": 1}})


def test_engine_version_is_named_once(collection, tmp_path):
    run = tmp_path / "bm25.run"
    assert main(["search", "--index", str(collection["index"]), "--topics", str(collection["collection"]),
                 "--out", str(run), "--depth", "5", "--no-progress", "--ir-metadata"]) == 0
    libraries = _header(run)[0]["platform"]["software"]["libraries"]["python"]
    engine = [entry for entry in libraries if "tantivy" in entry]
    assert len(engine) == 1 and engine[0].count("tantivy") == 1 and engine[0].startswith("tantivy")


def test_default_runs_are_plain_trec_that_ir_measures_and_ranx_read(collection, tmp_path):
    """No comment block by default: ir_measures and ranx read the run and score it as pateval does."""
    import pateval

    ir_measures = pytest.importorskip("ir_measures")
    ranx = pytest.importorskip("ranx")
    run, grid = tmp_path / "bm25.run", tmp_path / "grid"
    common = ["--index", str(collection["index"]), "--topics", str(collection["collection"]), "--depth", "20",
              "--no-progress"]
    assert main(["search", *common, "--out", str(run)]) == 0
    assert main(["search", *common, "--model", "bm25", "--model", "tfidf", "--out", str(grid)]) == 0
    for path in (run, *grid.iterdir()):
        lines = path.read_text().splitlines()
        assert lines and not any(line.startswith("#") for line in lines)
    theirs_run = list(ir_measures.read_trec_run(str(run)))
    assert len(theirs_run) == len(run.read_text().splitlines())
    qrels = str(collection["qrels"])
    ours = pateval.evaluate(qrels, str(run), ["AP", "P@10"])
    ours_mean = ours.groupby("measure")["value"].mean()
    theirs = ir_measures.calc_aggregate([ir_measures.AP, ir_measures.P @ 10], ir_measures.read_trec_qrels(qrels),
                                        theirs_run)
    assert theirs[ir_measures.AP] == pytest.approx(ours_mean["AP"], abs=1e-12)
    ranx_run = ranx.Run.from_file(str(run), kind="trec")
    assert sum(len(docs) for docs in ranx_run.to_dict().values()) == len(theirs_run)
    ranx_value = ranx.evaluate(ranx.Qrels.from_file(qrels, kind="trec"), ranx_run, "precision@10")
    assert ranx_value == pytest.approx(ours_mean["P@10"], abs=1e-12)
