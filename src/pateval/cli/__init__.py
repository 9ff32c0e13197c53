"""The ``pateval`` command line: a thin layer over :mod:`pateval.api`.

Each sub-command parses its options, calls one API function and prints or writes what it
returns. Exit status: 0 success; 1 findings (a check or evaluation that found bad files);
2 bad input or usage (:class:`pateval.errors.PatevalError`, a file that cannot be opened:
one line on stderr); 70 (``EX_SOFTWARE``) an unexpected exception, i.e. a bug in pateval:
one line asking for a report, and the traceback with ``--debug``; 130 interrupted.

One module per group of commands (imported below), and :mod:`~pateval.cli.shared` for what
they share: the one group of evaluation flags, the output option, writing. A missing optional
dependency is the user's to install: one line naming the extra (exit 2). Building the parser
imports no heavy library (NumPy, pandas, Arrow, ...; see the note on ``_COMMANDS``), so
``pateval --help`` starts in milliseconds.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from collections.abc import Iterator, Sequence

from .. import __version__
from .._optional import missing_dependency
from ..errors import DocKeyWarning, PatevalError, TopicsLeftOutWarning
from .assess import _add_assess
from .check import _add_check
from .collection import _add_collection, _add_corpus
from .compare import SCORE_FORMATS as SCORE_FORMATS  # re-exported: a test keeps it equal to the readers'
from .compare import _add_analyse_measures, _add_compare, _add_report, _add_stability
from .evaluate import _add_evaluate, _add_measures
from .flowchart import _add_flowchart
from .pooling import _add_fuse, _add_pool
from .search import _add_demo, _add_index, _add_search
from .shared import _PENDING_NOTES, CommandParser, command_inputs
from .trec_eval import _add_trec_eval
from .usermodel import _add_calibrate, _add_user_model

__all__ = ["build_parser", "leaf_parsers", "main"]

#: Exit status of an unexpected exception (a bug): sysexits.h EX_SOFTWARE, distinct from
#: 1 (findings) and 2 (bad input or usage).
EXIT_BUG = 70
_DEBUG_HELP = "on an unexpected error (a bug), print its traceback"

# Each entry adds one sub-command to the parser; the handler is stored with set_defaults(run=...) and called
# with the command's inputs as keywords (shared.command_inputs), never the Namespace; it returns the
# exit status when that is not 0 (1: findings), else nothing.
# Adding one: take option choices from a ``names`` module (formats/names.py, core/names.py,
# stats/names.py, report/names.py -- modules that import nothing), never from a reader or a
# measure module; import what the handler needs inside the handler; declare an output option
# with shared.add_output (it answers to -o, --out and --output); a command that evaluates takes
# shared.add_evaluation_options; raise PatevalError for bad input (exit 2).
# tests/test_startup.py and tests/test_cli_shape.py check all of it.
_COMMANDS: list = [_add_evaluate, _add_measures, _add_corpus, _add_collection, _add_check, _add_user_model,
                   _add_calibrate, _add_compare, _add_analyse_measures, _add_stability, _add_report, _add_index,
                   _add_search, _add_demo, _add_flowchart, _add_assess, _add_trec_eval, _add_fuse, _add_pool]


def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="pateval",
        description="Evaluate patent prior-art search and other professional search.",
        epilog="Exit status: 0 done, 1 findings (check, flowchart eval), 2 bad input or usage (one line naming "
        "the file and line), 70 a bug in pateval (--debug prints its traceback), 130 interrupted.",
    )
    parser.add_argument("--version", action="version", version=f"pateval {__version__}")
    parser.add_argument("--debug", action="store_true", help=_DEBUG_HELP)
    commands = parser.add_subcommands(dest="command", metavar="COMMAND")
    for add in _COMMANDS:
        add(commands)
    for leaf in leaf_parsers(parser):  # --debug after the sub-command too
        if leaf is not parser:
            leaf.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=_DEBUG_HELP)
    return parser


def leaf_parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """Every parser that parses a command line's last word (sub-commands of sub-commands too)."""
    subcommands = getattr(parser, "subcommands", None)
    if subcommands is None:
        yield parser
        return
    for child in dict.fromkeys(subcommands.choices.values()):
        yield from leaf_parsers(child)


def run() -> None:
    """The ``pateval`` command: :func:`main`, then the process ends without the interpreter's
    teardown (the output flushed, main's status; every file was closed by then, atomic_output).

    The readers no longer leave Arrow a Python buffer to drop during finalisation
    (:func:`pateval.formats.source.release`; apache/arrow#34314 made such a process abort,
    exit 134, after all its work); the command still skips the teardown, which only frees
    memory the process is about to give back.
    """
    _memory_settings()
    _native_library_settings()
    status = main()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader gone (`| head`), a closed stream
            stream.flush()
    os._exit(status)


def _memory_settings() -> None:
    """The command's own memory settings, never a library caller's: ordinary pages, not
    transparent huge pages (:data:`pateval.tuning.HUGE_PAGES`; Linux), and large blocks from
    glibc's heap kept there when freed (:data:`pateval.tuning.MALLOC_MMAP_THRESHOLD`; glibc)."""
    import ctypes

    from ..tuning import HUGE_PAGES, MALLOC_MMAP_THRESHOLD, MALLOC_TRIM_THRESHOLD

    try:
        libc = ctypes.CDLL(None)  # the process's own symbols: its C library's
    except (OSError, TypeError):  # no CDLL(None) (Windows)
        return
    if not HUGE_PAGES and sys.platform == "linux":
        libc.prctl(41, 1, 0, 0, 0)  # PR_SET_THP_DISABLE (linux/prctl.h): this process and its children
    mallopt = getattr(libc, "mallopt", None)  # glibc's only (not musl's, not macOS's)
    if mallopt is not None:
        mallopt(-3, MALLOC_MMAP_THRESHOLD)  # M_MMAP_THRESHOLD (malloc.h)
        mallopt(-1, MALLOC_TRIM_THRESHOLD)  # M_TRIM_THRESHOLD


def _native_library_settings() -> None:
    """Settings the native libraries read once, as they are loaded, made for the command's
    process before NumPy and pyarrow are imported; a value the user set is kept: OpenBLAS's
    threads (:data:`pateval.tuning.BLAS_THREADS`) and how soon Arrow's allocator hands freed
    pages back (:data:`pateval.tuning.ARROW_PURGE_DELAY_MS`)."""
    from ..tuning import ARROW_PURGE_DELAY_MS, BLAS_THREADS

    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(BLAS_THREADS))
    os.environ.setdefault("MIMALLOC_PURGE_DELAY", str(ARROW_PURGE_DELAY_MS))


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    debug = getattr(args, "debug", False)
    from ..formats.source import streams_kept  # a command is a job: stdin kept for its readers until it ends

    try:
        with warnings.catch_warnings(), streams_kept():  # the commands print the API's notes themselves
            warnings.simplefilter("ignore", TopicsLeftOutWarning)
            warnings.simplefilter("ignore", DocKeyWarning)
            return int(args.run(**command_inputs(args)) or 0)
    except PatevalError as error:
        print(f"pateval: error: {error}", file=sys.stderr)
        return 2
    except ImportError as error:  # an optional dependency not installed: name its extra
        missing = missing_dependency(error, feature=_command_line(args), extra=getattr(args, "extra", None))
        if missing is None or debug:
            return _report_bug(error, debug)
        print(f"pateval: error: {missing}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `pateval evaluate ... | head`
        return 0
    except KeyboardInterrupt:
        print("pateval: interrupted", file=sys.stderr)
        return 130
    except OSError as error:  # a file that cannot be opened or written: the user's to fix, not a bug
        if error.filename is None or debug:
            return _report_bug(error, debug)
        print(f"pateval: error: {error.filename}: {error.strerror or error}", file=sys.stderr)
        return 2
    except Exception as error:  # noqa: BLE001 -- the one place that catches everything
        return _report_bug(error, debug)
    finally:
        _PENDING_NOTES.clear()  # a command's notes are never told by the next one (tests call main again)


def _command_line(args: argparse.Namespace) -> str:
    """``pateval COMMAND [SUBCOMMAND]`` of the parsed arguments."""
    sub = getattr(args, f"{args.command.replace('-', '_')}_command", None)
    return " ".join(["pateval", args.command, *([sub] if sub else [])])


def _report_bug(error: BaseException, debug: bool) -> int:
    """An unexpected exception: one line asking for a report (the traceback with --debug)."""
    if debug:
        import traceback

        traceback.print_exception(error, file=sys.stderr)
    where = "" if debug else "; run again with --debug for the traceback"
    print(f"pateval: internal error ({type(error).__name__}: {error}): this is a bug in pateval; please report it "
          f"with the command line and `pateval --version`{where}", file=sys.stderr)
    return EXIT_BUG
