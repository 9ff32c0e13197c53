"""The measure-name grammar, one small recursive-descent parser for every measure.

::

    measure := NAME [ "(" [ param ("," param)* ] ")" ] [ "@" INTEGER ]
    param   := KEY "=" value
    value   := NUMBER | WORD | QUOTED
    NAME    := letter (letter | digit | "_" | "-")*
    WORD    := (letter | digit | "_" | "." | "-" | "+" | "/")+
    QUOTED  := "'" ... "'" | '"' ... '"'   (backslash escapes the quote)

Examples: ``AP``, ``P@10``, ``AP(rel=2)``, ``CT(gamma=0.3,time=tbg)@10``,
``TBG(halflife=600)``, ``alpha_nDCG(alpha=0.5)@20``. trec_eval's names (``map``,
``P_10``, ``ndcg_cut_10``, ``recall_1000`` ...) are read as aliases and printed in the
canonical form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NoReturn, cast

from ..errors import MeasureNameError

__all__ = ["ParsedName", "parse_name"]

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<quoted>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
      | (?P<word>[A-Za-z0-9_.\-+/]+)
      | (?P<punct>[(),=@])
    )""",
    re.VERBOSE,
)
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.\-]*")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class ParsedName:
    """The parts of a measure name, before the registry gives them meaning."""

    name: str
    params: tuple[tuple[str, str], ...]
    cutoff: int | None


def _tokens(text: str) -> list[tuple[str, str, int]]:
    tokens = []
    at = 0
    while text[at:].strip():  # (white space left: the end)
        match = _TOKEN.match(text, at)
        if match is None or match.end() == at:
            raise MeasureNameError(f"cannot read measure name {text!r}: unexpected character at position {at + 1}")
        kind = cast(str, match.lastgroup)  # every alternative of _TOKEN is a named group
        value = match.group(kind)
        if kind == "quoted":
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        tokens.append((kind, value, match.start(kind)))
        at = match.end()
    return tokens


def parse_name(text: str) -> ParsedName:
    """Split a measure name into name, parameters (as strings) and cutoff.

    Raises
    ------
    MeasureNameError
        With the position of the first thing that does not fit the grammar.
    """
    if not isinstance(text, str) or not text.strip():
        raise MeasureNameError(f"a measure name must be a non-empty string; got {text!r}")
    tokens = _tokens(text)
    position = 0

    def fail(expected: str) -> NoReturn:
        if position < len(tokens):
            _, value, at = tokens[position]
            raise MeasureNameError(f"cannot read measure name {text!r}: expected {expected} at position {at + 1}, "
                                   f"found {value!r}")
        raise MeasureNameError(f"cannot read measure name {text!r}: expected {expected} at the end")

    def take(kind: str, value: str | None = None) -> str | None:
        nonlocal position
        if position < len(tokens) and tokens[position][0] == kind and (value is None or tokens[position][1] == value):
            position += 1
            return tokens[position - 1][1]
        return None

    name = take("word")
    if name is None or not _NAME.fullmatch(name):
        fail("a measure name")
    params: list[tuple[str, str]] = []
    if take("punct", "(") and not take("punct", ")"):
        while True:
            key = take("word")
            if key is None or not _KEY.fullmatch(key):
                fail("a parameter name")
            if not take("punct", "="):
                fail("'='")
            value = take("word") or take("quoted")  # (a word is never empty)
            if value is None:
                fail("a parameter value")
            if any(k == key for k, _ in params):
                raise MeasureNameError(f"cannot read measure name {text!r}: parameter {key!r} given twice")
            params.append((key, value))
            if take("punct", ")"):
                break
            if not take("punct", ","):
                fail("',' or ')'")
    cutoff = None
    if take("punct", "@"):
        value = take("word")
        if value is None or not value.isdigit() or int(value) < 1:
            position -= value is not None
            fail("a positive integer cutoff")
        cutoff = int(value)
    if position != len(tokens):
        fail("the end of the name")
    return ParsedName(name, tuple(params), cutoff)
