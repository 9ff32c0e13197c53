"""The faster ingest paths give exactly what the plain ones give: the column-by-column
buffers of ``PartWriter`` against ``pyarrow.Table.from_pylist`` over :func:`document_rows`
(the previous way), on a generated corpus and the real samples. (The fast path of claim
references is tested in test_claims.py.)
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pateval.collection.ingest import ingest
from pateval.collection.store import SCHEMAS, TABLES, committed_batches, document_rows, part_path
from pateval.collection.synthetic import generate_corpus
from pateval.patents import iter_patents

DATA = Path(__file__).resolve().parents[1] / "data"

def _read_parts(store: Path) -> dict[str, pa.Table]:
    batches = sorted(committed_batches(store))
    return {table: pa.concat_tables([pq.read_table(part_path(store, table, b)) for b in batches])
            for table in TABLES}


def test_column_buffers_write_the_rows_of_document_rows(tmp_path):
    generate_corpus(tmp_path / "gen", n_patents=40, seed=9, workers=1, progress=False)
    for source in (tmp_path / "gen", DATA / "uspto"):
        store = tmp_path / f"store-{source.name}"
        ingest(source, store, workers=1, rows_per_group=7, on_error="skip")
        written = _read_parts(store)
        rows = {table: [] for table in TABLES}
        for document in iter_patents(source, on_error="skip"):
            for table, table_rows in document_rows(document).items():
                rows[table].extend(table_rows)
        for table in TABLES:
            expected = pa.Table.from_pylist(rows[table], schema=SCHEMAS[table])
            # Documents come out in file order in both: same rows, same order.
            assert written[table].num_rows == expected.num_rows > 0 or table == "citations"
            assert written[table].equals(expected), table
