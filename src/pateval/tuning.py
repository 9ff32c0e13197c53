"""The tuned sizes and thresholds of pateval's fast paths, in one place.

None of these changes a number pateval computes: each only chooses how work is cut
(block sizes, chunk sizes) or which of two exact methods runs (thresholds). Each states
where it came from: the benchmark (``benchmarks/``) and the machine that set it, or "set
by hand, not measured". The machine of the measured ones is the 2-core development
machine the project is built on (the README's "2-core machine"); change a value only with
the benchmark run before and after on one machine.
"""

from __future__ import annotations

__all__ = ["SORTED_KEYS_MIN", "SORT_SLICE_ROWS",
           "STEP_BLOCK_ROWS", "SHORT_STRING_BYTES", "TABLE_SLACK", "INGEST_BATCH_BYTES",
           "HASH_BLOCK_BYTES", "XML_BLOCK_BYTES", "CSV_BLOCK_BYTES", "DD_QRELS_BLOCK_BYTES", "ID_BLOCK_ROWS",
           "PARQUET_BLOCK_SHARE", "SIMULATION_BLOCK_CELLS", "BOOTSTRAP_BLOCK_CELLS", "RESAMPLE_CHUNK_VALUES",
           "EXACT_SIGN_TOPICS", "BLOCK_THREADS", "HUGE_PAGES", "MALLOC_MMAP_THRESHOLD", "MALLOC_TRIM_THRESHOLD",
           "BLAS_THREADS", "ARROW_PURGE_DELAY_MS", "READ_AHEAD_SPARE", "DICT_GROUP_TOPICS"]

# ---- measures -------------------------------------------------------------------------------

#: Rows per slice when integers whose leading bits number contiguous runs (a run's topics) are
#: sorted slice by slice (core.segments.sort_in_slices; a slice holds whole runs, so it may be
#: longer): 8 KB of integers, in the first-level cache. Set 2026-12-07 on the 2-core development
#: machine (NumPy 2.4, AVX-512): 1M random uint64 in one sort 59 ms; core.order.score_order of
#: 1M rows, 1,000 topics of 1,000, by slices of 16,384 37.5 ms, 4,096 30.5 ms, 1,024 24.1 ms,
#: 512 23.4 ms (10,000 topics of 100: 40.5, 32.6, 26.8 ms at 16,384, 4,096, 1,024).
SORT_SLICE_ROWS = 1 << 10

#: Keys (lengths tables, lookups) from which strings are found by sorted fingerprints
#: (core.keys.PairIndex, measures.tbg.LengthTable) rather than Arrow's hash table, which is as quick below.
#: Set 2026-11-22 (commit 465ec9a, TBG's lengths lookup); the message names no benchmark:
#: set by hand, not measured.
SORTED_KEYS_MIN = 50_000

#: Rows of whole topics per block of TBG's T(k) (measures.tbg.times_at): a block's step
#: times stay in the cache. Set 2026-11-22 (commit 3caa691) with
#: benchmarks/bench_professional.py, 10M rows: TBG 0.48-0.54 -> 0.31 CPU s, on the 2-core
#: development machine.
STEP_BLOCK_ROWS = 1 << 17

# ---- core -----------------------------------------------------------------------------------

#: Topics per group of judgements in pateval.pytrec_eval: a run given as a dict is scored group
#: by group, so that memory holds one group's rankings. Measured 2026-12-07 (second time, runs
#: ranked without converting their ids: core.ranking.rank_nested) with
#: benchmarks/bench_pytrec_eval.py's data (10,000 topics x 1,000 documents, AP, nDCG@10, R@100,
#: P@10), on the shared 2-core machine: groups of 64, 256 and 2,048 topics 2.0-2.2 CPU s and a
#: peak of 1,398 MB, the whole run at once 2.1-2.5 s and 1,643 MB.
DICT_GROUP_TOPICS = 256

#: Strings up to this many bytes are ordered as big-endian words (core.order); longer ones
#: take Arrow's sort. Set 2026-11-22 (commit c997097): set by hand, not measured.
SHORT_STRING_BYTES = 24

#: Groups of unequal sizes are summed or sorted as the rows of one zero-padded table when
#: the table holds at most ``2 * n + TABLE_SLACK`` cells for ``n`` values (core.segments'
#: running sums, TBG's shortest-first order), else by size class or one sort: set by hand,
#: not measured.
TABLE_SLACK = 4096

# ---- formats --------------------------------------------------------------------------------

#: Bytes per block of Arrow's multi-threaded CSV reader (runs, DD runs, 4-column qrels).
#: Set 2026-11-22 (commits da2ce70, 981795f): set by hand, not measured.
CSV_BLOCK_BYTES = 1 << 24

#: Arrow's CSV block for TREC DD qrels (read in one thread): a file of up to 64 MB in one
#: block, its columns parsed unchunked (a larger one in blocks of that size, then joined:
#: parsing holds about three times a block at once). Set 2026-11-22 (commit c3532c2) with
#: benchmarks/bench_cubetest.py's DD qrels, on the 2-core development machine.
DD_QRELS_BLOCK_BYTES = 1 << 26

#: Rows per block of the scratch arrays that read short ids as integers (core.qrels'
#: duplicate check of DD passage ids): a few tens of kB each, kept in cache. Set
#: 2026-11-22 (commit c3532c2) with benchmarks/bench_cubetest.py, on the 2-core
#: development machine.
ID_BLOCK_ROWS = 1 << 13

#: A Parquet run read in blocks takes about ``block_bytes / PARQUET_BLOCK_SHARE`` of the
#: file's uncompressed pages per block: the arrays a block makes (ids, fingerprints, pair
#: index, ranking) take several times its pages. Set 2026-11-24 (commit 423b4f2) with
#: benchmarks/bench_inputs.py, 10M rows, on the 2-core development machine: a quarter of
#: 32 MB (half a million rows) was the fastest; 32 MB of pages took 1.4 times as long.
#: 1 since text blocks became 8 MB (2026-12-07): the same 8 MB of pages per block.
PARQUET_BLOCK_SHARE = 1

#: Threads scoring the blocks of a run file at once (executor.BlockScorer; at most one per
#: core), and threads reading its first blocks ahead (formats.runblocks.read_ahead): memory
#: holds one block per thread (and READ_AHEAD_SPARE more at the start). Set 2026-11-26 with
#: benchmarks/bench_trec_eval.py (10M rows, ``pateval trec_eval``) on the 2-core
#: development machine. Each thread parses its block itself, without Arrow's threads (2026-12-07,
#: 8 MB blocks, the same runs, 6-8 runs each way alternating, medians): Arrow's two threads on
#: top of the two scoring threads only switched between the blocks; wall 2.76 -> 2.60 s
#: (all_trec, shuffled), 2.12 -> 1.86 s (official, score order), CPU -1 to -4%.
BLOCK_THREADS = 2

#: Blocks of a run file read ahead beyond one per scoring thread (formats.runblocks.read_ahead):
#: the reading threads go on while the qrels' last part and the judgement index are made on one
#: core. Set 2026-11-26 to 1 with 32 MB blocks (wall 3.33 -> 3.10 s, official, score order), and
#: 2026-12-07 to 0 with 8 MB blocks parsed without Arrow's threads (the same benchmark, 1 and 0
#: alternating, 6-8 runs each, medians): wall 2.70 -> 2.58 s (all_trec, shuffled), 2.24 -> 1.97 s
#: (official, score order), peak memory 416 -> 409 MB, 404 -> 399 MB: a block more held bought
#: nothing once a block takes 8 MB.
READ_AHEAD_SPARE = 0

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

# ---- usermodel, calibration and stats -------------------------------------------------------

#: Users x ranks simulated at once (usermodel.simulation.simulate_users; memory: a few
#: arrays of this size). Set 2026-11-22 (commit 0018657): set by hand, not measured.
SIMULATION_BLOCK_CELLS = 2_000_000

#: Resamples x users counted at once by the calibration's user bootstrap (calibration.tbg;
#: memory: 8 bytes each). Set 2026-11-24 (commit f621cea): set by hand, not measured
#: (benchmarks/bench_calibrate.py times the whole calibration).
BOOTSTRAP_BLOCK_CELLS = 4_000_000

#: About this many float64 values per chunk of resampled statistics (stats.significance;
#: 64 MiB). Set 2026-11-22 (commit 87d6e69): set by hand, not measured (benchmarks/bench_stats.py
#: times the tests at this value).
RESAMPLE_CHUNK_VALUES = 1 << 23

#: Topics up to which a randomisation test may enumerate every sign vector (2**24 of them;
#: stats.significance, exact=True or "auto"). Set 2026-11-22 (commit 87d6e69): set by hand,
#: not measured.
EXACT_SIGN_TOPICS = 24

# ---- the command's process ------------------------------------------------------------------

#: glibc's malloc in the ``pateval`` command's process (cli.run; mallopt M_MMAP_THRESHOLD): the
#: arrays of a block, up to this size (glibc's largest, 32 MB on 64-bit), come from the heap and
#: are used again by the next block, instead of fresh memory maps whose every page faults in.
#: With MALLOC_TRIM_THRESHOLD (M_TRIM_THRESHOLD), freed heap is kept for the next block rather
#: than handed back between blocks. Set 2026-11-26 with benchmarks/bench_trec_eval.py's 10M-line
#: run (``pateval trec_eval``, official measures, 6 runs each way alternating, on the 2-core
#: development machine): page faults 145,000 -> 82,000, system CPU 0.68 -> 0.44 s, CPU
#: 6.01 -> 5.54 s, wall 3.21 -> 2.92 s (medians), peak memory unchanged (589-634 MB, 562-634 MB).
MALLOC_MMAP_THRESHOLD = 32 << 20
MALLOC_TRIM_THRESHOLD = 1 << 30

#: Threads of NumPy's OpenBLAS in the ``pateval`` command's process (cli.run sets
#: OPENBLAS_NUM_THREADS before NumPy is imported, unless the user set it): pateval's matrix
#: products are matrix-vector products of a few thousand rows (stats, search), while OpenBLAS's
#: own threads spin for about 0.13 CPU-seconds after NumPy is imported, beside the threads that
#: read the run at start-up. Set 2026-11-26 with ``pateval trec_eval`` on trec_eval's test files
#: (15 runs each way alternating, on the 2-core development machine): CPU 0.36-0.54 -> 0.23-0.41 s,
#: wall unchanged (0.24-0.43 s both ways).
BLAS_THREADS = 1

#: Milliseconds Arrow's allocator (mimalloc) keeps freed pages before it hands them back (on
#: its next calls), in the ``pateval`` command's process (cli.run sets MIMALLOC_PURGE_DELAY
#: before pyarrow is loaded, unless the user set it). By default it kept every block's freed
#: columns, so the process held the high-water mark of Arrow's memory beside NumPy's. Set
#: 2026-12-07 with ``pateval trec_eval -m official`` on benchmarks/bench_trec_eval.py's 10M-line
#: run (3 turns, alternating, shared 2-core machine): kept 465-481 MB peak, 0.30-0.40 s system
#: CPU; 0 ms 359-369 MB, 0.38-0.59 s (pages faulted in again); 50 ms 378-388 MB, 0.23-0.29 s.
#: Raised to 250 ms with HUGE_PAGES off, whose ordinary pages leave less idle memory kept:
#: 2026-12-07, ``-m all_trec``, shuffled lines, each turn just after trec_eval (4 turns,
#: alternating), 50 ms -> 250 ms: peak 361 -> 393 MB, system CPU 0.77 -> 0.58 s.
ARROW_PURGE_DELAY_MS = 250

#: Transparent huge pages in the ``pateval`` command's process (cli.run; False: prctl
#: PR_SET_THP_DISABLE, Linux). Arrow's allocator (mimalloc) and NumPy (arrays of 4 MB or more)
#: ask the kernel for 2 MB pages, each zeroed whole when first touched; a block's columns come
#: and go, so a 10M-line evaluation zeroed about 370 of them (740 MB, /proc/vmstat
#: thp_fault_alloc) for a 390 MB peak. On a VM that hands freed memory back to its host,
#: a page touched afresh costs much more: ``clear_page_erms`` was 14% of the command's CPU
#: samples (perf) right after trec_eval had freed its 860 MB. Set 2026-12-07 with
#: benchmarks/bench_trec_eval.py's 10M-line run, ``-m all_trec``, shuffled lines, each turn
#: just after trec_eval, 8 turns alternating (with ARROW_PURGE_DELAY_MS 50 -> 250): wall
#: 2.87 -> 2.42 s, system CPU 1.03 -> 0.53 s, user CPU 3.68 -> 3.54 s, peak 387 -> 395 MB
#: (medians; page faults 99,000 -> 153,000, each now 4 KB).
HUGE_PAGES = False
