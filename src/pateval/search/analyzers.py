"""Per-language text analysis shared by the index, the statistics beside it and the queries.

One analyzer per language turns text into index terms: tantivy's simple tokenizer (runs
of letters and digits), tokens longer than 40 bytes dropped (noise such as chemical
strings and base64), lower-casing, the language's Snowball stop-word list and its Snowball
stemmer. Documents are analysed once, in Python, with these :class:`tantivy.TextAnalyzer` objects;
the engine receives the terms (joined by spaces, split again by its whitespace tokenizer),
the statistics count them, and queries are analysed the same way -- so the terms of a
query, of the engine's posting lists and of the re-scoring statistics are identical by
construction (a test checks the engine's document frequencies against the statistics).
The language analyzers are also registered with the index under ``pateval_en`` etc.

Languages other than English, German and French (rare in CLEF-IP) fall back to the
``"other"`` analyzer: the same pipeline without stop words or stemming.
"""

from __future__ import annotations

from functools import cache

import tantivy

from ..errors import ParameterError

__all__ = ["LANGUAGES", "TEXT_FIELDS", "TERMS_ANALYZER", "analyzer", "analyzer_name", "analyze", "field_name",
           "language_of", "register_analyzers", "describe_analyzers"]

#: Languages with their own fields and analyzers (upper-case codes, as the records use them).
LANGUAGES = ("EN", "DE", "FR")
#: The text fields of a patent document that are indexed, each once per language.
TEXT_FIELDS = ("title", "abstract", "claims", "description")

#: The analyzer of the index's text fields: they receive terms analysed already (see
#: :mod:`pateval.search.index`) and only split them at white space.
TERMS_ANALYZER = "pateval_terms"

_SNOWBALL = {"EN": "english", "DE": "german", "FR": "french"}
_MAX_TOKEN_BYTES = 40


def language_of(lang: str | None) -> str:
    """The analyzer language for a record's language code: EN, DE, FR or ``"OTHER"``."""
    code = (lang or "").upper()
    return code if code in _SNOWBALL else "OTHER"


def analyzer_name(lang: str) -> str:
    """The name an analyzer is registered under in the index (``pateval_en`` ...)."""
    return f"pateval_{language_of(lang).lower()}"


def field_name(field: str, lang: str) -> str:
    """The index field of one text field in one language (``claims_de``)."""
    if field not in TEXT_FIELDS:
        raise ParameterError(f"text field must be one of {', '.join(TEXT_FIELDS)}; got {field!r}")
    return f"{field}_{language_of(lang).lower()}"


@cache
def analyzer(lang: str) -> tantivy.TextAnalyzer:
    """The analyzer of a language (cached; analyzers are immutable)."""
    code = language_of(lang)
    builder = (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
               .filter(tantivy.Filter.remove_long(_MAX_TOKEN_BYTES))
               .filter(tantivy.Filter.lowercase()))
    if code in _SNOWBALL:
        builder = (builder.filter(tantivy.Filter.stopword(_SNOWBALL[code]))
                   .filter(tantivy.Filter.stemmer(_SNOWBALL[code])))
    return builder.build()


def analyze(text: str, lang: str) -> list[str]:
    """The index terms of ``text`` in language ``lang``, in order, with repetitions.

    Examples
    --------
    >>> analyze("The claimed devices, connected to a housing", "EN")
    ['claim', 'devic', 'connect', 'hous']
    >>> analyze("Die Vorrichtungen nach Anspruch 1", "DE")
    ['vorricht', 'anspruch', '1']
    """
    if not text:
        return []
    return analyzer(lang).analyze(text)


def register_analyzers(index: tantivy.Index) -> None:
    """Register every language's analyzer with an (open or new) index."""
    for code in (*LANGUAGES, "OTHER"):
        index.register_tokenizer(analyzer_name(code), analyzer(code))
    index.register_tokenizer(TERMS_ANALYZER, tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build())


def describe_analyzers() -> dict[str, str]:
    """What each analyzer does, for the index's metadata and the README."""
    described = {}
    for code in (*LANGUAGES, "OTHER"):
        steps = ["simple tokenizer", f"drop tokens > {_MAX_TOKEN_BYTES} bytes", "lowercase"]
        if code in _SNOWBALL:
            steps += [f"{_SNOWBALL[code]} stop words", f"{_SNOWBALL[code]} Snowball stemmer"]
        described[analyzer_name(code)] = ", ".join(steps)
    described[TERMS_ANALYZER] = "the index fields: terms analysed by the language's analyzer, split at white space"
    return described
