"""Names the command line offers before any reader is loaded (this module imports nothing)."""

#: Output formats of evaluation results (``pateval evaluate``, ``pateval flowchart eval``).
RESULT_FORMATS = ("trec", "json", "jsonl", "csv", "prototext")
#: Qrels formats ``--qrels-format`` accepts (``auto``: detected where that is safe).
QRELS_FORMATS = ("auto", "trec", "subtopic", "dd", "ntcir", "clefip-pac", "clefip-2011", "beir", "json")
#: Run formats ``--run-format`` accepts (``auto``: JSON of nested dicts when the file begins with ``{``).
RUN_FORMATS = ("auto", "trec", "json")
