"""What the commands share: the parser that knows its sub-commands, the output option in its
three spellings, the one group of evaluation flags (and the options built from it), and how
a command writes its text and figures.

Building the parser imports no heavy library: option choices come from the ``names``
modules and defaults from :class:`pateval.options.EvaluationOptions` (which imports
nothing heavy); handlers import what they use.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import sys
from typing import Any

from ..core.names import DOC_KEYS, ORDERS
from ..formats.names import QRELS_FORMATS, RUN_FORMATS
from ..formats.resources import RESOURCES
from ..options import COMPAT, EvaluationOptions
from ..stats.names import CORRECTION_NAMES, TEST_SPELLINGS, TESTS

#: The spellings of an output option: each command that has one accepts all three.
OUTPUT_FLAGS = ("-o", "--out", "--output")


#: How a command's --help begins its examples (see :func:`examples`).
EXAMPLES_HEADING = "examples:"


def examples(*command_lines: str, glossary: tuple[str, ...] = ()) -> str:
    """A command's epilog: two or three example command lines, printed one a line at the end of
    its --help (``commands.add_parser(..., epilog=examples(...))``), then the meaning of the
    columns of the ``glossary`` tables it writes (:mod:`pateval.report.glossary`)."""
    text = "\n".join([EXAMPLES_HEADING, *(f"  {line}" for line in command_lines)])
    if glossary:
        from ..report.glossary import glossary_text

        text += "\n\n" + glossary_text(*glossary)
    return text


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, except that the examples keep their lines (a command a line)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith(EXAMPLES_HEADING):
            return "\n".join(indent + line for line in text.splitlines())
        return super()._fill_text(text, width, indent)


class CommandParser(argparse.ArgumentParser):
    """An argument parser that keeps the group of its sub-commands (argparse offers no public
    way to find it again), so that the leaves of the command tree can be walked; its help
    ends with the command's examples (:func:`examples`)."""

    subcommands: Any = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        kwargs.setdefault("allow_abbrev", False)  # --comp is not --complete: a flag is spelled out or refused
        super().__init__(*args, **kwargs)

    def add_subcommands(self, *, dest: str, metavar: str = "SUBCOMMAND") -> Any:
        self.subcommands = self.add_subparsers(dest=dest, metavar=metavar, required=True, parser_class=CommandParser)
        return self.subcommands

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """argparse's, except that a command without sub-commands refuses a flag it does not know
        itself, with its own usage and the flags it may have meant (argparse leaves the unknown
        flag to the top-level parser, which prints the top-level usage)."""
        namespace, extras = super().parse_known_args(args, namespace)
        if self.subcommands is None and extras:
            unknown = [arg for arg in extras if arg.startswith("-") and len(arg) > 1]
            if unknown:
                self.error(f"unrecognized arguments: {' '.join(extras)}{self._did_you_mean(unknown[0])}")
        return namespace, extras

    def _did_you_mean(self, flag: str) -> str:
        import difflib

        spelling = flag.split("=", 1)[0]
        known = [s for s in self._option_string_actions if s.startswith("--") == spelling.startswith("--")]
        close = difflib.get_close_matches(spelling, known, n=3, cutoff=0.6)
        close += [s for s in known if s.startswith(spelling) and s not in close][: 3 - len(close)]
        return f" (did you mean {' or '.join(close)}?)" if close else ""

    def error(self, message: str) -> Any:
        """A bad value for an option with choices is one line naming them; any other usage error
        is the command's usage, then the error (argparse's)."""
        if "invalid choice:" in message:
            self.exit(2, f"{self.prog}: error: {message}{_closest_choice(message)}\n")
        return super().error(message)


def _closest_choice(message: str) -> str:
    """`` (did you mean X?)`` for argparse's "invalid choice: 'x' (choose from 'a', 'b')", when one is close."""
    import difflib
    import re

    found = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
    if found is None:
        return ""
    choices = re.findall(r"'([^']*)'", found.group(2))
    close = difflib.get_close_matches(found.group(1), choices, n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def test_name(text: str) -> str:
    """A significance test's name as the option's choices spell it (``randomization`` is
    ``randomisation``): the ``type`` of every ``--test`` option."""
    return TEST_SPELLINGS.get(text, text)


def add_output(p: argparse.ArgumentParser | Any, *flags: str, **kwargs: Any) -> None:
    """A command's output option, declared as any of -o, --out, --output, answering to all three
    (the dest from the spelling declared first), so that ``-o`` and ``--out`` mean the same everywhere."""
    p.add_argument(*flags, *[flag for flag in OUTPUT_FLAGS if flag not in flags], **kwargs)


# ---- inputs spelled alike: QRELS RUN... or --qrels, STORE or --store --------------------------------

def add_qrels_and_runs(p: Any, *, qrels_help: str = "qrels file", runs_help: str = "run file(s)") -> None:
    """``QRELS RUN...``, or ``--qrels QRELS RUN...``: every command that takes qrels and runs
    accepts both (its handler gets ``qrels`` and ``runs``, see :func:`command_inputs`)."""
    p.add_argument("qrels", metavar="QRELS", help=qrels_help)
    p.add_argument("runs", nargs="*", metavar="RUN", help=runs_help)
    p.add_argument("--qrels", dest="qrels_option", metavar="QRELS",
                   help="the qrels file as an option (then every positional argument is a run)")


def add_run_names(p: Any, *flags: str) -> None:
    """``--run-names A,B,...`` (and the other spellings ``flags``): the runs' names, one per run
    in order, instead of their tags (its handler gets ``runs`` as ``{name: path}``, see
    :func:`named_runs`)."""
    p.add_argument("--run-names", *flags, dest="run_names", metavar="A,B,...",
                   help="name the runs A, B, ... (one name per run, in order) instead of by their run tags; runs "
                   "whose tags collide are otherwise named by their files")


def named_runs(runs: list[str], names: str | None, *, run_format: str = "auto") -> tuple[list[str] | dict[str, str],
                                                                                          list[str]]:
    """The run files as the API takes them, and notes: ``{name: path}`` with ``--run-names``, or
    when two files carry the same run tag (those are then named by their files, said in a
    note); else the list as given (each run named by its tag)."""
    from ..errors import ParameterError

    if names is not None:
        given = [name.strip() for name in names.split(",")]
        if len(given) != len(runs) or not all(given):
            raise ParameterError(f"--run-names gives {len(given)} name(s) for {len(runs)} run(s): give one name per "
                                 "run, in order, separated by commas")
        if len(set(given)) != len(given):
            raise ParameterError(f"--run-names names two runs alike: {names}")
        return dict(zip(given, runs, strict=True)), []
    if len(runs) < 2:
        return runs, []
    from ..formats.trec import run_tag

    tags = [run_tag(run, format=run_format) for run in runs]
    shared = {tag for tag in tags if tag is not None and tags.count(tag) > 1}
    if not shared or len(set(runs)) != len(runs):
        return runs, []  # one file twice: refused by the evaluation, which names the run
    named = {(str(run) if tag in shared else tag or str(run)): run for run, tag in zip(runs, tags, strict=True)}
    if len(named) != len(runs):
        return runs, []  # a file named as another run's tag: the evaluation says which name is twice
    renamed = [str(run) for run, tag in zip(runs, tags, strict=True) if tag in shared]
    tag_list = ", ".join(repr(tag) for tag in sorted(shared))
    return named, [f"runs {', '.join(renamed)} share the run tag {tag_list}: each is named by its file (--run-names "
                   "A,B,... names the runs)"]


def add_store(p: Any) -> None:
    """A corpus store, as ``STORE`` or ``--store STORE`` (as the commands that read one beside
    other inputs spell it); its handler gets ``store``."""
    p.add_argument("store", metavar="STORE", nargs="?", help="corpus store (from `pateval corpus ingest`)")
    p.add_argument("--store", dest="store_option", metavar="STORE", help="the store as an option")


#: Flags that several commands take alike, each declared once: ``{dest: (spellings, add_argument keywords)}``.
FLAGS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "no_progress": (("--no-progress",), {"action": "store_true", "help": "no progress bar"}),
    "order": (("--order",), {"choices": ORDERS, "default": EvaluationOptions.order,
                             "help": "rank by score (trec_eval), the rank column, or file order"}),
    "on_duplicate": (("--on-duplicate",), {"choices": ("error", "first"), "default": EvaluationOptions.on_duplicate,
                                           "help": "a document twice for a topic: error, or keep the first"}),
    "seed": (("--seed",), {"type": int, "default": 0, "help": "random seed (default 0)"}),
    "workers": (("--workers",), {"type": int, "metavar": "N", "help": "local worker processes (default: all CPUs)"}),
    "memory_limit": (("--memory-limit",), {"metavar": "SIZE", "help": "DuckDB memory limit (e.g. 4GB)"}),
    "wait": (("--wait",), {"type": float, "default": 0.0, "metavar": "SECONDS",
                           "help": "wait this long for another ingest writing to the store (default: refuse at once)"}),
    "db": (("--db",), {"metavar": "URL", "required": True, "help": "database URL"}),
    "store": (("--store",), {"metavar": "STORE", "help": "corpus store (default: the one the server used)"}),
    "collection": (("--collection",), {"metavar": "DIR", "help": "collection (default: the one the server used)"}),
    "summary_format": (("--format",), {"choices": ("text", "json"), "default": "text",
                                       "help": "output format (default text)"}),
    "ipc_level": (("--ipc-level",), {"choices": ("section", "class", "subclass", "group"), "default": "class",
                                     "help": "what 'a different IPC class' means, and the level at which IPC "
                                     "classes are counted (default class)"}),
    "baseline": (("--baseline",), {"metavar": "RUN",
                                   "help": "name of the run to test the others against (default: all pairs)"}),
    "correction": (("--correction",), {"choices": CORRECTION_NAMES, "default": "holm",
                                       "help": "multiple-comparison correction (default: holm)"}),
    "agreement_test": (("--agreement-test",), {"choices": TESTS, "type": test_name, "default": "wilcoxon",
                                               "help": "test behind the agreement verdicts (default: wilcoxon)"}),
    "plots": (("--plots",), {"metavar": "DIR", "help": "also write the figures (PNG and SVG) to DIR"}),
    "model": (("--model",), {"default": "TBG", "metavar": "TBG(...)",
                             "help": "the calibration as a TBG measure name, e.g. 'TBG(halflife=600,read_slope=0.03)' "
                             "(default: TBG)"}),
}


def add_flags(p: Any, *dests: str, **changes: Any) -> None:
    """The flags ``dests`` of :data:`FLAGS`; ``changes`` (keywords of add_argument) apply to each."""
    for dest in dests:
        spellings, settings = FLAGS[dest]
        p.add_argument(*spellings, **{**settings, **changes})


# ---- the evaluation flags: one group, the same for every command that evaluates -----------------

_DEFAULTS = EvaluationOptions()
_SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def _byte_size(text: str) -> int:
    """A size such as 32M, 512K, 1G or 1000000 (bytes); 0 allowed."""
    number, unit = text.strip(), ""
    if number[-1:].upper() in ("K", "M", "G"):
        number, unit = number[:-1], number[-1].upper()
    if not number.isdigit():
        raise argparse.ArgumentTypeError(f"not a size in bytes (such as 32M, 512K or 0): {text!r}")
    return int(number) * _SIZE_UNITS[unit]


def add_ranking_options(p: Any) -> None:
    """How qrels and runs are read and ranked, and the measures' side inputs (a part of
    :func:`add_evaluation_options`; the user model and calibration take this part only)."""
    p.add_argument("--qrels-format", choices=QRELS_FORMATS, default=_DEFAULTS.qrels_format,
                   help="qrels format (default: detect where safe; beir: BEIR/MTEB's TSV with its header; json: "
                   "{topic: {docno: grade}})")
    p.add_argument("--run-format", choices=RUN_FORMATS, default=_DEFAULTS.run_format,
                   help="run format (default: JSON of nested dicts {topic: {docno: score}} when a file begins with "
                   "'{', else TREC or Parquet)")
    add_flags(p, "order")
    p.add_argument("--doc-key", choices=DOC_KEYS, default=_DEFAULTS.doc_key,
                   help="match documents by id or by patent (EP-0971326-B1 ~ EP0971326)")
    add_flags(p, "on_duplicate")
    for resource in RESOURCES:
        p.add_argument(resource.option, dest=f"resource_{resource.name}", metavar="FILE", help=resource.help)


def add_evaluation_options(p: argparse.ArgumentParser, *, default_measures: tuple[str, ...]) -> None:
    """The flags of every command that evaluates runs (evaluate, compare, analyse-measures,
    stability, report), as one group: the fields of :class:`~pateval.options.EvaluationOptions`."""
    group = p.add_argument_group("evaluation", "how the runs are read, ranked and scored (the same flags for "
                                 "every command that evaluates)")
    group.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                       help=f"a measure name (repeatable; default: {' '.join(default_measures)}); see `pateval "
                       "measures`")
    group.add_argument("-c", "--complete", action="store_true",
                       help="average over all qrels topics; missing ones score 0 (trec_eval -c)")
    add_ranking_options(group)
    group.add_argument("-l", "--relevance-level", type=int, metavar="N",
                       help="grade counted as relevant by every measure not given rel= (trec_eval -l; default 1)")
    group.add_argument("-M", "--max-documents", type=int, metavar="N",
                       help="only each topic's first N documents count (trec_eval -M)")
    group.add_argument("-J", "--judged-only", action="store_true",
                       help="remove unjudged documents from the rankings first (trec_eval -J; or judged_only=true "
                       "per measure)")
    group.add_argument("--compat", choices=COMPAT, default=_DEFAULTS.compat,
                       help="trec_eval: trec_eval 10.0's values where its quirks differ from pateval's rules (-c's "
                       "stand-in rankings, -J's empty rankings), as `pateval trec_eval` prints them")
    group.add_argument("--block-size", type=_byte_size, dest="block_bytes", metavar="SIZE",
                       help="read and score each run file in blocks of whole topics of about SIZE bytes (default "
                       "32M; 0: each run whole in memory); runs with scattered topics are partitioned on disk first")
    add_scheduler_options(group, work="score the blocks of the runs")
    group.add_argument("--work-dir", metavar="DIR",
                       help="where runs with scattered topics are partitioned (default: the temporary directory; "
                       "with --scheduler, on storage the workers share)")


def add_scheduler_options(p: Any, *, work: str) -> None:
    """--scheduler and --scheduler-timeout, of every command that can work on a Dask cluster."""
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help=f"Dask scheduler (tcp://host:8786) to {work} on a cluster; its workers need pateval and "
                   "the same paths")
    p.add_argument("--scheduler-timeout", type=_seconds, default=_DEFAULTS.scheduler_timeout, metavar="SECONDS",
                   help=f"wait this long for the scheduler to answer (default {_DEFAULTS.scheduler_timeout:g})")


def _seconds(text: str) -> float:
    """A number of seconds > 0."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"not a number of seconds > 0: {text!r}")
    return seconds


#: The flag of each option of the evaluation group, by its field (and dest).
EVALUATION_FLAGS = {"complete": "-c", "qrels_format": "--qrels-format",
                    "run_format": "--run-format", "order": "--order", "doc_key": "--doc-key",
                    "on_duplicate": "--on-duplicate", "relevance_level": "-l", "max_documents": "-M",
                    "judged_only": "-J", "compat": "--compat", "block_bytes": "--block-size",
                    "scheduler": "--scheduler", "scheduler_timeout": "--scheduler-timeout", "work_dir": "--work-dir"}


# ---- from the parsed command line to a handler's inputs -----------------------------------------

#: What steers the command line, not a command's input.
_STEERING = ("command", "run", "needs", "extra", "debug")


def command_inputs(args: argparse.Namespace) -> dict[str, Any]:
    """A handler's keyword arguments, from the parsed command line (the one place that reads it):
    its own inputs by their dests; ``qrels`` and ``runs`` (``QRELS RUN...`` or ``--qrels``);
    ``store`` (``STORE`` or ``--store``); ``progress`` (a bar on a terminal, unless
    ``--no-progress``); and, for a command with the evaluation flags (or their ranking part),
    ``options``: one :class:`~pateval.options.EvaluationOptions` (None with ``--scores``,
    whose files are not ranked), the measures (``-m``) apart as ``measures``."""
    from ..errors import ParameterError, PatevalError

    if getattr(args, "needs", None):
        importlib.import_module(args.needs)
    inputs = {name: value for name, value in vars(args).items()
              if name not in _STEERING and not name.endswith("_command")}
    if "qrels_option" in inputs:
        option = inputs.pop("qrels_option")
        if option is not None or inputs.get("scores"):  # with --scores every positional argument is a score file
            inputs["qrels"], inputs["runs"] = option, [inputs["qrels"], *inputs["runs"]]
        if not inputs.get("scores") and not inputs["runs"]:
            raise PatevalError(f"{args.command} needs QRELS and at least one RUN")
    if "store_option" in inputs:
        store, option = inputs.pop("store"), inputs.pop("store_option")
        if (store is None) == (option is None):
            raise PatevalError("give the corpus store once: STORE or --store STORE")
        inputs["store"] = store if store is not None else option
    if "no_progress" in inputs:
        inputs["progress"] = not inputs.pop("no_progress") and sys.stderr.isatty()
    if "run_names" in inputs:
        names = inputs.pop("run_names")
        if inputs.get("scores"):
            if names is not None:
                raise ParameterError("--run-names names runs; with --scores the score files name their runs")
        elif inputs.get("runs"):
            inputs["runs"], notes = named_runs(inputs["runs"], names, run_format=inputs.get("run_format", "auto"))
            _PENDING_NOTES[:] = notes  # told with the command's own notes, once its inputs were read
    if "qrels_format" not in inputs:
        return inputs
    fields = [f.name for f in dataclasses.fields(EvaluationOptions) if f.name not in ("measures", "resources")]
    values = {name: inputs.pop(name) for name in fields if name in inputs}
    paths = {r.name: inputs.pop(f"resource_{r.name}") for r in RESOURCES}
    if not inputs.get("scores"):
        from ..formats.resources import load_resources

        inputs["options"] = EvaluationOptions(resources=load_resources(paths), **values)
        return inputs
    if inputs["qrels"] is not None:
        raise ParameterError("--scores compares score files without qrels; leave out --qrels")
    given = [EVALUATION_FLAGS[name] for name, value in values.items() if value != getattr(_DEFAULTS, name)]
    given += [r.option for r in RESOURCES if paths[r.name] is not None]
    if given:
        named = "-c and --qrels-format" if set(given) <= {"-c", "--qrels-format"} else ", ".join(given)
        raise ParameterError(f"{named} act on runs and qrels; with --scores the files' topics are used as they are")
    inputs["options"] = None
    return inputs


# ---- writing ---------------------------------------------------------------------------------

def add_table_output(p: argparse.ArgumentParser, *, formats: tuple[str, ...] | None = None, default: str = "text",
                     precision: str = "decimals of text and LaTeX output (default 4)") -> None:
    """Where and how a command writes its table: --format (default: a report table's formats),
    --precision, -o."""
    from ..report.names import TABLE_FORMATS

    p.add_argument("--format", choices=formats or TABLE_FORMATS, default=default,
                   help=f"output format (default: {default})")
    p.add_argument("--precision", type=int, default=4, help=precision)
    add_output(p, "-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout; - for stdout")


def write_text_or_print(text: str, output: str | None) -> None:
    """The output of a command: to ``output`` atomically (whole or not at all), else stdout
    (also for ``-o -``)."""
    if output and output != "-":
        from ..results.writers import write_results

        write_results(text, output)
    else:
        sys.stdout.write(text)


#: Notes of the command line itself (how it named the runs), told before the first notes of the
#: command's result (:func:`print_notes`), never before an error: a bad input is one line.
_PENDING_NOTES: list[str] = []


def print_notes(notes: Any) -> None:
    """The notes of a command's result on stderr, after the command line's own."""
    pending, _PENDING_NOTES[:] = list(_PENDING_NOTES), []
    for note in [*pending, *notes]:
        print(f"pateval: note: {note}", file=sys.stderr)


def figure_name(*parts: str) -> str:
    """A file name from measure and run names (characters a file system may refuse become _)."""
    import re

    return "_".join(re.sub(r"[^A-Za-z0-9@.+=-]+", "_", part) for part in parts)


def save_figures(figures: dict, directory: str) -> None:
    from pathlib import Path

    from ..report.plots import save_figure

    for name, figure in figures.items():
        for suffix in ("png", "svg"):
            save_figure(figure, Path(directory) / f"{name}.{suffix}")
    print(f"pateval: wrote {len(figures)} figure{'' if len(figures) == 1 else 's'} (PNG and SVG) to {directory}",
          file=sys.stderr)


def add_command(commands: Any, name: str, run: Any, *, needs: str | None = None, extra: str | None = None,
                **kwargs: Any) -> Any:
    """A sub-command's parser (``kwargs``: of ``add_parser``: help, description, ``epilog=examples(...)``);
    ``run`` handles it, called with the command's inputs as keywords (:func:`command_inputs`).
    ``needs``: a module of an optional extra, imported before any input is read (a missing extra
    is named first). ``extra``: the extra the command needs (pyproject.toml), named when a
    module it provides is missing."""
    parser = commands.add_parser(name, **kwargs)
    parser.set_defaults(run=run, needs=needs, extra=extra)
    return parser


def add_group(commands: Any, name: str, *, help: str, dest: str, description: str | None = None) -> Any:
    """A command with sub-commands (``corpus ingest``, ``corpus generate`` ...): their group."""
    parser = commands.add_parser(name, help=help, description=description or help)
    return parser.add_subcommands(dest=dest)
