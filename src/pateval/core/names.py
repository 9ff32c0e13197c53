"""Names the command line offers before NumPy or Arrow is loaded (this module imports nothing)."""

#: How run documents are matched to judged ones: by id, or by patent (EP-0971326-B1 ~ EP0971326).
DOC_KEYS = ("publication", "patent")
#: How each topic's documents are ordered: by score (trec_eval), the rank column, or file order.
ORDERS = ("score", "rank", "file")
