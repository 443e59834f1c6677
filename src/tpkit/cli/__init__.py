"""``tpkit`` command line: thin commands that parse flags, call a pure function and render.

argparse (stdlib) only: it keeps ``tpkit plan`` cold start small (no framework import chain) and gives the
flag names scripts rely on; the ledger is plain text fitted to the terminal (``tpkit.cli.render``).

Exit codes: 0 ok, 2 user error (message, no traceback), 1 internal error, 130 interrupted (^C: "interrupted", no
traceback); ``tpkit plan``: 3 DOES NOT FIT.
Each sub-command lives in its own module exposing ``register(subparsers, argv=None)`` whose parser
sets ``func(args) -> int``.  Only the command being run is imported (``tpkit plan`` never imports
the probe or the benchmarks); the others are listed by their help line.  ``argv``, when given, is the command
line being run: ``tpkit explain`` leaves out the engines' flags when it names none of them (``--help`` lists
them all).
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys

from tpkit import __version__
from tpkit.cli.streams import cannot_write, disk_full, unicode_stream, usable_streams

__all__ = ["main", "build_parser", "COMMANDS", "PARALLEL_ALIASES", "TpkitArgumentParser"]

COMMANDS = {
    "plan": "predict per-GPU memory and KV-cache capacity before launch",
    "probe": "measure each GPU's free memory, its users, NVLink/PCIe topology and peer access",
    "bench": "benchmarks (all-reduce)",
    "perf": "predict decode tok/s with every all-reduce costed, and whether speculative decoding pays",
    "explain": "explain an SGLang/vLLM log: the ledger from its printed numbers, the failure and re-planned fixes",
}
"""sub-command module under tpkit.cli → its help line (the module's own parser says the same)"""


PARALLEL_ALIASES = {
    "tp": ("--tensor-parallel-size", "--tp-size", "-tp"),
    "pp": ("--pipeline-parallel-size", "--pp-size", "-pp"),
    "dp": ("--dp-size",),
    "ep": ("--expert-parallel-size", "--ep-size"),
}
"""the engines' own spellings of tpkit's layout flags, accepted as aliases (SGLang server_args.py:
``--tensor-parallel-size/--tp-size``, ``--pipeline-parallel-size/--pp-size``, ``--dp-size``,
``--expert-parallel-size/--ep-size``; vLLM arg_utils.py: ``--tensor-parallel-size``,
``--pipeline-parallel-size`` and their short ``-tp`` / ``-pp``, 0.29.0 ``add_cli_args``).  ``--data-parallel-size``
(vLLM ``-dp``) is left out: it is tpkit's vLLM flag of its own."""


class TpkitArgumentParser(argparse.ArgumentParser):
    """argparse with one-line errors: the message and where the flags are listed, not the whole usage block
    (``tpkit plan`` has ~50 flags; the usage buried the one line that said what was wrong)."""

    argv: list[str] = []
    """the command line ``main`` is parsing (class-wide: argparse builds the sub-parsers itself)"""

    if sys.version_info < (3, 14):  # 3.14's argparse also sets the formatter's colours here: left as it is

        def _get_formatter(self):
            """argparse's formatter at the width argparse picks, found without importing ``shutil`` (argparse
            imports it, with bz2, lzma and fnmatch, for ``shutil.get_terminal_size`` on every ``add_argument``)."""
            return self.formatter_class(prog=self.prog, width=terminal_columns() - 2)

    def error(self, message: str):  # noqa: D401 - argparse's hook
        unknown = self._unknown_options() if message.startswith("the following arguments are required") else []
        if unknown:  # `tpkit perf … --gpu-memory 141GB`: say the flag it does not have, not only the one it lacks
            _refuse(self, f"{message}; {unknown_flags_message(self, unknown)}")
        from tpkit.cli.word_hints import missing_log_hint

        message = missing_log_hint(self, message)  # `docker logs vllm 2>&1 | tpkit explain` (no -)
        negative = _negative_value(message, self.argv)
        if negative is not None:  # `--gpu-memory -80GiB`: parse it as the flag's value, whose check says why
            raise _Reparse(negative)
        _refuse(self, f"{_plainer(message)}; `{self.prog} --help` lists the flags")

    def _unknown_options(self) -> list[str]:
        """The ``--flags`` of the command line this parser has not (not even as an abbreviation argparse takes)."""
        known = [o for a in self._actions for o in a.option_strings]  # noqa: SLF001 - argparse keeps them here
        words = [w for w in self.argv if w.startswith("--") and len(w) > 2]
        return [w for w in words if not any(k.startswith(w.split("=", 1)[0]) for k in known)]


def terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``: $COLUMNS when a positive number, else the terminal's width, else 80
    (the same steps as shutil's)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        size = os.get_terminal_size(sys.__stdout__.fileno())
    except (AttributeError, ValueError, OSError):
        return 80
    return size.columns or 80


ERROR_SCHEMA = "tpkit.error/1"
"""``schema`` of the object ``--json`` prints on stdout for a user error (exit 2): ``{"schema", "command",
"exit_code", "error": {"type", "message"}}``; ``type`` is the error's class (``usage`` for a flag argparse
refused), ``message`` the line printed on stderr after ``error:``"""


def _wants_json(argv: list[str]) -> bool:
    """``--json`` given to a command whose ``--json`` is a switch (``bench allreduce --json FILE`` writes a file)."""
    return any(w == "--json" or w.startswith("--json=") for w in argv) and _command(argv) in _JSON_SWITCH


_JSON_SWITCH = ("plan", "perf", "explain", "probe")
"""the commands whose ``--json`` is a switch (JSON on stdout)"""


def _refuse(parser: argparse.ArgumentParser, message: str, exc: Exception | None = None, *, leave: bool = True):
    """A user error: the one line on stderr and exit 2 (``leave``: by SystemExit, as argparse does; else the
    caller returns 2); with ``--json``, also an error object on stdout, so a script that reads the JSON gets JSON
    (``ERROR_SCHEMA``) rather than nothing."""
    if _wants_json(TpkitArgumentParser.argv):
        import json

        body = {"schema": ERROR_SCHEMA, "command": parser.prog, "exit_code": 2,
                "error": {"type": type(exc).__name__ if exc is not None else "usage", "message": message}}
        try:
            print(json.dumps(body, ensure_ascii=not unicode_stream()), flush=True)
        except BrokenPipeError:
            pass
    if leave:
        parser.exit(2, f"{parser.prog}: error: {message}\n")
    print(f"{parser.prog}: error: {message}", file=sys.stderr)


class _Reparse(Exception):
    """Raised by the parser's error hook: parse this command line instead (a flag's negative value joined to it)."""

    def __init__(self, argv: list[str]):
        super().__init__("reparse")
        self.argv = argv


_NEGATIVE = re.compile(r"-(\.?\d|(inf|infinity|nan)$)", re.IGNORECASE)
"""a word that is a negative value, not a flag: ``-80GiB``, ``-0.5%``, ``-inf``, ``-nan`` (argparse reads only plain
negative numbers such as ``-2`` as values; ``--gpu-memory -80GiB`` and ``--batch -inf`` reached the user as 'expected
one argument', without the value)"""


def _negative_value(message: str, argv: list[str]) -> list[str] | None:
    """``argv`` with ``--flag -VALUE`` joined to ``--flag=-VALUE`` when argparse refused the flag for want of a
    value and a negative value follows it; None otherwise."""
    m = re.fullmatch(r"argument (\S+): expected one argument", message)
    if not m:
        return None
    names = m.group(1).split("/")
    for i, word in enumerate(argv[:-1]):
        if word in names and _NEGATIVE.match(argv[i + 1]):
            return [*argv[:i], f"{word}={argv[i + 1]}", *argv[i + 2:]]
    return None


def _plainer(message: str) -> str:
    """argparse's type and choice errors in words a user can act on: a whole number where ``int`` failed, and the
    accepted value closest to a refused choice (``FP8`` → ``fp8``: the engines' choices are case-sensitive)."""
    m = re.fullmatch(r"argument (\S+): invalid int value: '(.*)'", message, flags=re.S)
    if m:
        flag, value = m.groups()
        hint = ""
        try:
            number = float(value)
            if number == number and abs(number) != float("inf"):
                hint = f"; it counts whole things: write e.g. {flag.split('/')[0]} {max(1, round(number))}"
        except ValueError:
            hint = f"; write it in digits, e.g. {flag.split('/')[0]} 2"
        return f"argument {flag}: expected a whole number, got {value!r}{hint}"
    m = re.fullmatch(r"argument --json: ignored explicit argument '(.*)'", message, flags=re.S)
    if m and _command(TpkitArgumentParser.argv) in _JSON_SWITCH:  # `--json=plan.json`
        prog = " ".join(["tpkit", _command(TpkitArgumentParser.argv) or ""]).strip()
        return (f"--json takes no file name (got --json={m.group(1)}): {prog} --json prints the JSON on standard "
                f"output; write it to a file with the shell: {prog} … --json > {m.group(1)}")
    m = re.fullmatch(r"argument (\S+): invalid choice: '(.*)' \(choose from (.*)\)", message, flags=re.S)
    if m:
        import difflib

        flag, value, listed = m.groups()
        choices = re.findall(r"'([^']*)'", listed)
        same = [c for c in choices if c.lower() == value.lower()]
        close = same or difflib.get_close_matches(value.lower(), choices, n=2, cutoff=0.75)
        if close:
            written = "upper" if same and same[0].isupper() else "lower"
            case = f" (the engine spells it in {written} case)" if same and value != same[0] else ""
            return f"{message}; did you mean {' or '.join(repr(c) for c in close)}?{case}"
        v = re.fullmatch(r"([a-z]+)[-_=:@ ]*v?(\d+(?:\.\d+)+\S*)", value.strip().lower())
        if value.strip().upper() == "MTP" and "NEXTN" in choices:  # perf reads MTP as NEXTN (helper ux23)
            return f"{message}; MTP is NEXTN in SGLang's spelling: --speculative-algorithm NEXTN"
        if flag == "--engine" and v and v.group(1) in choices:  # `--engine sglang-0.5.2` (helper nc20, session 20)
            return f"{message}; the release goes to its own flag: --engine {v.group(1)} --engine-version {v.group(2)}"
        from tpkit.cli.pasted import LAUNCH_WORDS, launch_hint
        if flag == "COMMAND" and value.lower() in LAUNCH_WORDS:  # `tpkit vllm serve M …` (helper ux25)
            return f"{message}; {launch_hint(value)}"
    return message


def unknown_flags_message(parser: argparse.ArgumentParser, extras: list[str]) -> str:
    """What to say about flags no parser took: each one with the closest flag the command has."""
    import difflib

    known = [o for a in parser._actions  # noqa: SLF001 - argparse keeps them here
             if a.help != argparse.SUPPRESS for o in a.option_strings]  # not the hidden serving flags
    argv = TpkitArgumentParser.argv
    units = [w for w in extras if w.lower() in _UNIT_WORDS  # after a number: `--gpu-memory 80 GiB`
             and any(re.fullmatch(r"-?[\d.]+", argv[i - 1]) for i, a in enumerate(argv) if a == w and i)]
    if units:
        return (f"{units[0]!r} stands on its own: write a size as one word, number and unit together, e.g. 80GiB "
                "(= 80 × 2^30 bytes) or 80GB (= 80 × 10^9 bytes)")
    parts = []
    from tpkit.cli.pasted import MODEL_FLAGS
    from tpkit.cli.word_hints import config_override_hint, extra_words_hint, plan_flags_in_perf

    meant = extra_words_hint(parser, extras, argv)
    if meant is not None:  # `tpkit explain *.log`, `tpkit perf … --batch 1 8 32` (helper ux23)
        return meant
    meant = plan_flags_in_perf(parser, [w.split("=", 1)[0] for w in extras if w.startswith("--")])
    if meant is not None:  # `tpkit perf … --mem-fraction-static 0.85`: a pasted server line (helper ux23)
        return meant
    launcher = _launcher_words(parser)
    if launcher is not None:  # `tpkit plan vllm serve MODEL …`: the engine's command pasted with its flags
        engine, words = launcher
        return (f"{' '.join(words)!r} is the engine's own command; {parser.prog} takes MODEL and the engine's flags "
                f"without it: {parser.prog} MODEL --engine {engine} … (drop {' '.join(words)!r})")
    written = _json_file_word(parser, extras)
    if written is not None:  # `tpkit plan MODEL --json plan.json`: --json is a switch here, not a file
        return _json_takes_no_file(parser, written)
    gpus = _gpu_words(parser, extras)
    if gpus:  # `tpkit plan MODEL H100`: a GPU name where no argument is taken
        return (f"unexpected argument {gpus[0]!r}: it is a GPU name, which {parser.prog} takes as --gpu "
                f"{gpus[0]}; `{parser.prog} --help` shows what it takes")
    for word in extras:
        if not word.startswith("-") or _NEGATIVE.match(word):  # `--gpu-memory -1`: -1 is the unknown flag's value
            continue
        name = word.split("=", 1)[0]
        if name == "--revision" and any(a.dest == "model" and not a.option_strings for a in parser._actions):
            return (f"{parser.prog} has no flag --revision: it reads the config of the local HF cache's current "
                    "snapshot or of its embedded catalog; for another revision pass its snapshot directory "
                    "(~/.cache/huggingface/hub/models--ORG--NAME/snapshots/COMMIT) or its config.json as MODEL")
        override = config_override_hint(parser, name)
        if override is not None:  # `--hf-overrides '{…}'`, `--rope-scaling '{…}'` (helper ux24)
            return override
        if name in MODEL_FLAGS and any(a.dest == "model" and not a.option_strings for a in parser._actions):
            return (f"{name} is the engines' flag for the model; {parser.prog} takes it as its first argument: "
                    f"{parser.prog} MODEL … (an HF id, a checkpoint directory or a config.json)")
        bare: dict[str, str] = {}  # compared without the dashes, which made --port "close" to --tp
        for k in known:
            bare.setdefault(k.lstrip("-"), k)  # --tp before its short -tp
        close = ([bare[c] for c in difflib.get_close_matches(name.lstrip("-"), list(bare), n=2, cutoff=0.6)]
                 or [k for k in known if k.startswith("--") and name.startswith(k + "-")][-1:])  # --gpu-memory → --gpu
        parts.append(f"{name} (did you mean {' or '.join(close)}?)" if close else name)
    if not parts:
        return f"unexpected argument(s) {' '.join(extras)!s}; `{parser.prog} --help` shows what it takes"
    return (f"{parser.prog} has no flag {', '.join(parts)}; `{parser.prog} --help` lists its flags")


def _note_serving_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """One line on stderr naming the serving flags taken and ignored (``cli.argtypes.SERVING_FLAGS``)."""
    if not any(k.startswith("serving_") for k in vars(args)):  # a command without them: nothing to import
        return
    from tpkit.cli.argtypes import serving_flags_given

    given = serving_flags_given(args)
    if given:
        print(f"{parser.prog}: note: ignored {', '.join(given)}: serving option(s) that change neither GPU memory "
              "nor decode speed", file=sys.stderr)


def _launcher_words(parser: argparse.ArgumentParser) -> tuple[str, list[str]] | None:
    """(engine, the words that launch it) when the command line holds an engine's launch command: ``vllm serve``,
    ``python -m vllm.entrypoints.openai.api_server``, ``python -m sglang.launch_server``; None otherwise."""
    if not any(a.dest == "model" and not a.option_strings for a in parser._actions):  # noqa: SLF001
        return None
    argv = TpkitArgumentParser.argv
    for i, word in enumerate(argv):
        nxt = argv[i + 1] if i + 1 < len(argv) else ""
        if word == "vllm" and nxt == "serve":
            return "vllm", [word, nxt]
        if word.startswith(("vllm.entrypoints", "sglang.launch_server")):
            before = argv[max(0, i - 2):i] if i >= 1 and argv[i - 1] == "-m" else []
            return word.split(".")[0], [*before, word]
    return None


def _json_file_word(parser: argparse.ArgumentParser, extras: list[str]) -> str | None:
    """The word after ``--json`` when the command's ``--json`` is a switch and that word was not taken as a flag's
    value: ``--json plan.json`` (left over, or taken as MODEL while the real MODEL is left over)."""
    if not extras or not _wants_json(TpkitArgumentParser.argv):
        return None
    argv = TpkitArgumentParser.argv
    for i, word in enumerate(argv[:-1]):
        if word == "--json" and not argv[i + 1].startswith("-"):
            return argv[i + 1]
    return None


def _json_takes_no_file(parser: argparse.ArgumentParser, word: str) -> str:
    return (f"--json takes no file name (got {word!r} after it): {parser.prog} --json prints the JSON on standard "
            f"output; write it to a file with the shell: {parser.prog} … --json > {word}")


def _gpu_words(parser: argparse.ArgumentParser, extras: list[str]) -> list[str]:
    """The words of ``extras`` that are catalog GPU names, for a command that has ``--gpu``."""
    if not any("--gpu" in a.option_strings for a in parser._actions):  # noqa: SLF001
        return []
    from tpkit.errors import UnknownGpuError
    from tpkit.hardware.catalog import lookup_gpu

    found = []
    for word in extras:
        if word.startswith("-"):
            continue
        try:
            lookup_gpu(word)
        except UnknownGpuError:
            continue
        found.append(word)
    return found


_UNIT_WORDS = frozenset({"b", "kib", "mib", "gib", "tib", "kb", "mb", "gb", "tb"})
"""a unit typed apart from its number (``--gpu-memory 80 GiB``) reaches argparse as a word of its own"""


def _command(argv: list[str]) -> str | None:
    """The sub-command ``argv`` runs (its first word that is not an option), None when it names none."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return first if first in COMMANDS else None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The ``tpkit`` parser.  With ``argv``, only the command it runs is built, for that command line (the others
    are listed by their help line); without, every command is built in full."""
    parser = TpkitArgumentParser(
        prog="tpkit",
        description="Memory and all-reduce planning for tensor-parallel LLM serving (SGLang, vLLM).",
    )
    parser.add_argument("--version", action="version", version=f"tpkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = None if argv is None else _command(argv)
    for name, help_line in COMMANDS.items():
        if argv is None or name == wanted:
            importlib.import_module(f"tpkit.cli.{name}").register(sub, argv)
        else:
            sub.add_parser(name, help=help_line)
    return parser


def _subparser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The innermost parser ``args`` went through (``tpkit bench allreduce``)."""
    for action in parser._actions:  # noqa: SLF001 - argparse keeps its sub-parsers here
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            chosen = getattr(args, action.dest, None)
            if chosen in action.choices:
                return _subparser(action.choices[chosen], args)
    return parser


def main(argv: list[str] | None = None) -> int:
    """``tpkit ARGV``: parse, run the command, and map a user error to one line on stderr and exit 2 (see the module
    docstring for the exit codes); ``argv`` None reads ``sys.argv``."""
    usable_streams()
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        return _main(argv)
    except KeyboardInterrupt:  # ^C, also while the command's modules are imported and its flags parsed
        print("interrupted", file=sys.stderr)
        return 130


def _check_release_tail(parser: argparse.ArgumentParser, text: str) -> None:
    """Refuse an ``--engine-version`` whose text goes on past the release in a way no release is written
    (``0.5.x``, ``0.5.23garbage``): the engines' reader took its MAJOR.MINOR[.PATCH] and dropped the rest, so
    ``0.5.x`` was planned as 0.5.0 with no word (helper tidy32).  Pre / post / development parts and local labels
    still read as their base release (``tpkit.engines.unread_release_tail``)."""
    from tpkit.engines import unread_release_tail

    tail = unread_release_tail(text)
    if tail:
        from tpkit.errors import PlanInputError

        head = text[:len(text) - len(tail)].strip()  # the release the engines' reader took
        exc = PlanInputError(
            f"--engine-version {text!r}: cannot read {tail.strip()!r} after the release {head!r}; write one "
            "release as MAJOR.MINOR[.PATCH] (e.g. 0.5.9; 'rc', '.post' and '.dev' parts and a '+' label are read as "
            "their base release), or leave --engine-version out for the newest rules tpkit read")
        _refuse(parser, str(exc), exc)


def _main(argv: list[str]) -> int:
    """``main`` less its ^C handling."""
    from tpkit.cli.pasted import rewrite
    from tpkit.errors import is_user_error

    argv, pasted = rewrite(argv, os.environ)  # a pasted `vllm serve M …` / `python -m sglang.launch_server --model-path M …`
    for note in pasted:
        print(f"tpkit {_command(argv)}: note: {note}", file=sys.stderr)
    TpkitArgumentParser.argv = argv
    parser = build_parser(argv)
    try:
        args, extras = parser.parse_known_args(argv)
    except _Reparse as again:
        return _main(again.argv)
    if extras:
        sub = _subparser(parser, args)
        _refuse(sub, unknown_flags_message(sub, extras))
    if not getattr(args, "func", None):  # `tpkit` or `tpkit bench` alone: the usage and one error line, on stderr
        sub = _subparser(parser, args)  # (before: the help on stdout and exit 2 with no word on what was wrong)
        sub.print_help(sys.stderr)
        example = " e.g. `tpkit plan MODEL --gpu NAME`;" if sub is parser else ""
        print(f"{sub.prog}: error: no command given; pick one of the commands listed above,{example} "
              f"`{sub.prog} COMMAND --help` describes each", file=sys.stderr)
        return 2
    _note_serving_flags(_subparser(parser, args), args)
    version = getattr(args, "engine_version", None)
    if isinstance(version, str) and re.fullmatch(r"\s*[vV]\d+\.\d+\S*\s*", version):  # 'v0.5.4'; not 'v0' (ux24)
        args.engine_version = version.strip()[1:]
    if isinstance(version, str):
        _check_release_tail(_subparser(parser, args), version)
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a full disk under stdout fails here, with a message, not at the exit's flush
        return code
    except BrokenPipeError:  # `tpkit plan … | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as exc:  # noqa: BLE001 - user errors become messages
        if disk_full(exc):
            return cannot_write(_subparser(parser, args).prog, exc)
        if is_user_error(exc):
            _refuse(_subparser(parser, args), str(exc), exc, leave=False)  # `tpkit bench allreduce`
            return 2
        raise


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
