"""The tuned sizes and thresholds of pateval's fast paths, in one place.

None of these changes a number pateval computes: each only chooses how work is cut
(block sizes, chunk sizes) or which of two exact methods runs (thresholds). Each states
where it came from: the benchmark (``benchmarks/``) and the machine that set it, or "set
by hand, not measured". The machine of the measured ones is the 2-core development
machine the project is built on (the README's "2-core machine"); change a value only with
the benchmark run before and after on one machine.
"""

from __future__ import annotations

__all__ = ["SORTED_KEYS_MIN", "STEP_BLOCK_ROWS", "SHORT_STRING_BYTES", "TABLE_SLACK", "INGEST_BATCH_BYTES",
           "HASH_BLOCK_BYTES", "XML_BLOCK_BYTES", "BLOCK_THREADS"]

# ---- measures -------------------------------------------------------------------------------

#: Keys (lengths tables, lookups) from which strings are found by sorted fingerprints
#: (measures.lookup.SortedKeys) rather than Arrow's hash table, which is as quick below.
#: Set 2026-11-22 (commit 465ec9a, TBG's lengths lookup); the message names no benchmark:
#: set by hand, not measured.
SORTED_KEYS_MIN = 50_000

#: Rows of whole topics per block of TBG's T(k) (measures.tbg.times_at): a block's step
#: times stay in the cache. Set 2026-11-22 (commit 3caa691) with
#: benchmarks/bench_professional.py, 10M rows: TBG 0.48-0.54 -> 0.31 CPU s, on the 2-core
#: development machine.
STEP_BLOCK_ROWS = 1 << 17

# ---- core -----------------------------------------------------------------------------------

#: Strings up to this many bytes are ordered as big-endian words (core.order); longer ones
#: take Arrow's sort. Set 2026-11-22 (commit c997097): set by hand, not measured.
SHORT_STRING_BYTES = 24

#: Groups of unequal sizes are summed or sorted as the rows of one zero-padded table when
#: the table holds at most ``2 * n + TABLE_SLACK`` cells for ``n`` values (core.segments'
#: running sums, TBG's shortest-first order), else by size class or one sort: set by hand,
#: not measured.
TABLE_SLACK = 4096

#: Threads scoring the blocks of a run file at once (executor.BlockScorer; at most one per
#: core): memory holds one block per thread. Set 2026-11-26 with
#: benchmarks/bench_trec_eval.py (10M rows, ``pateval trec_eval``) on the 2-core
#: development machine.
BLOCK_THREADS = 2

# ---- collection and patents -----------------------------------------------------------------

#: Bytes of XML per ingest batch (collection.ingest): one worker's unit of work and resume.
#: Set 2026-11-22 (commit 3b246f5): set by hand, not measured.
INGEST_BATCH_BYTES = 64 * 1024 * 1024

#: Bytes read at a time to checksum a corpus store's parts (collection.store). Set
#: 2026-11-24 (commit 6d020df): set by hand, not measured.
HASH_BLOCK_BYTES = 1 << 20

#: Bytes read at a time by the safe XML reader (patents.safexml). Set 2026-11-22 (commit
#: 668bc34): set by hand, not measured.
XML_BLOCK_BYTES = 1 << 20
