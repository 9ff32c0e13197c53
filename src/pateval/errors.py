"""The exceptions pateval raises, and the one place that words input errors.

Every reader reports bad input through :func:`malformed`, so that all messages share one
shape -- ``FILE, line N: PROBLEM (expected X, found Y)`` -- and tests can assert them
exactly. The command line turns a :class:`PatevalError` into that message on stderr and
exit status 2.
"""

from __future__ import annotations

import os
from functools import partial
from typing import NoReturn

__all__ = [
    "PatevalError",
    "InputFormatError",
    "ParameterError",
    "MeasureNameError",
    "ClusterError",
    "PatevalWarning",
    "TopicsLeftOutWarning",
    "DocKeyWarning",
    "malformed",
    "describe_found",
]


class PatevalError(Exception):
    """Base class of every error pateval raises on purpose."""


class InputFormatError(PatevalError, ValueError):
    """A file (or stream) does not hold what its format requires.

    Attributes
    ----------
    path : str
        The file, as the user named it (``<string>`` for in-memory input).
    line : int or None
        1-based line number, or None when the problem is the file as a whole.
    problem : str
        What is wrong, in words.
    expected, found : str or None
        What the format requires there and what the file holds instead.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        line: int | None,
        problem: str,
        *,
        expected: str | None = None,
        found: str | None = None,
    ) -> None:
        self.path = os.fspath(path)
        self.line = line
        self.problem = problem
        self.expected = expected
        self.found = found
        shown = "standard input" if self.path == "-" else self.path  # "-": the CLI's name for it
        where = shown if line is None else f"{shown}, line {line}"
        detail = ", ".join(f"{word} {value}" for word, value in (("expected", expected), ("found", found))
                           if value is not None)
        super().__init__(f"{where}: {problem}" + (f" ({detail})" if detail else ""))

    def __reduce__(self):
        # pickle (worker processes, Dask) would call the class with the message alone
        return partial(type(self), expected=self.expected, found=self.found), (self.path, self.line, self.problem)


class ParameterError(PatevalError, ValueError):
    """A function, measure or command was given a parameter value it does not accept."""


class MeasureNameError(ParameterError):
    """A measure name does not parse, or names no registered measure."""


class ClusterError(PatevalError, RuntimeError):
    """The Dask cluster a run was given to failed under it: its scheduler lost, no worker
    left, or workers that cannot import pateval (the message says which)."""


class PatevalWarning(UserWarning):
    """Base class of the warnings pateval gives (filter them with ``warnings.filterwarnings``)."""


class DocKeyWarning(PatevalWarning):
    """A run's documents match the qrels' only by patent (``--doc-key patent`` would match
    them), or not at all; the message gives the counts. The same text is in the notes."""


class TopicsLeftOutWarning(PatevalWarning):
    """Topics were left out of an evaluation's means (in one of qrels and run only); the
    message names them. The same text is in ``frame.attrs["notes"]``."""


def describe_found(text: str | bytes, limit: int = 60) -> str:
    """Quote a piece of input for an error message, shortened to ``limit`` characters."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="backslashreplace")
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return repr(text)


def malformed(
    path: str | os.PathLike[str],
    line: int | None,
    problem: str,
    *,
    expected: str | None = None,
    found: str | bytes | int | None = None,
) -> NoReturn:
    """Raise the :class:`InputFormatError` for bad input; the single exit of every reader.

    ``found`` is quoted when it is text taken from the input and written plainly when it
    is a count (an ``int``), so messages read "expected 6 columns, found 7" and
    "expected a number, found 'abc'".
    """
    if found is None or isinstance(found, int):
        shown = None if found is None else str(found)
    else:
        shown = describe_found(found)
    raise InputFormatError(path, line, problem, expected=expected, found=shown)
