"""``tpkit explain LOG``: read an SGLang or vLLM start-up or crash log, anchor the ledger on its printed numbers,
rebuild the capacity, name the failure and re-plan the fixes from the same measurements (no GPU, no torch)."""

from __future__ import annotations

import json
import re
import sys

from tpkit.errors import PlanInputError
from tpkit.units import Bytes, gib_text

__all__ = ["register", "run_explain", "read_log", "not_an_engine_log", "HELP", "flag_values", "check_flag_values", "engine_flags_given"]

HELP = "explain an SGLang/vLLM log: the ledger from its printed numbers, the failure and re-planned fixes"
"""one line for ``tpkit --help``"""

EPILOG = ("exit status: 0 an SGLang or vLLM log was read (a crash log too: its diagnosis says failed); 2 a user "
          "error: no such file, an empty file, a file that is not text or a model config.json, a text with no SGLang "
          "or vLLM line (not an engine log), a flag value no engine accepts (a message, no traceback; with --json "
          "the tpkit.error/1 object); 1 a bug.")
"""the end of ``tpkit explain --help``: what each exit status means, for scripts"""

MAX_LOG_BYTES = 2 * 2**30
"""a larger file is refused (read into memory whole)"""
_LIMIT = gib_text(Bytes(MAX_LOG_BYTES), 0)
"""``MAX_LOG_BYTES`` as the refusals print it ('2 GiB'): one home, so the words follow the constant (helper rev32)"""


OWN_DESTS = frozenset({"model", "engine", "gpu", "gpu_memory", "memory_virtualiser", "tp", "pp", "dp", "ep"})
"""the dests of ``tpkit explain``'s own flags that fill the run (beside LOG, --rank and --json); every other flag
comes from the engines' options (``cli.engine_flags``)"""


def _own_options() -> frozenset[str]:
    from tpkit.cli import PARALLEL_ALIASES

    layout = {o for name in ("tp", "pp", "dp", "ep") for o in (f"--{name}", *PARALLEL_ALIASES[name])}
    return frozenset({"--rank", "--model", "--engine", "--gpu", "--gpu-memory", "--memory-virtualiser", "--json",
                      *layout})


def _needs_engine_flags(argv: list[str] | None) -> bool:
    """Whether the parser for ``argv`` needs the engines' flags: always for the full parser and for ``--help``;
    otherwise only when ``argv`` has a word that starts with '-' and is not exactly one of explain's own options
    (an engine flag, an abbreviation, ``--flag=value``, a negative number, an unknown flag: the full parser reads
    all of them as before).  Without them a plain ``tpkit explain LOG`` does not import every engine's options
    (issue 12: the other engine's rules and the flag table were a tenth of the cold start)."""
    if argv is None:
        return True
    own = _own_options()
    return any(w.startswith("-") and w != "-" and w not in own for w in argv)


def register(sub, argv: list[str] | None = None) -> None:
    """Add ``tpkit explain LOG`` with the plan flags that fill what the log does not print."""
    from tpkit.cli import PARALLEL_ALIASES
    from tpkit.engines.registry import engine_names

    p = sub.add_parser("explain", help=HELP, description=HELP + ". LOG is a file path or '-' for standard input. "
                       "Plan flags fill what the log does not print; a flag that contradicts the log is reported.",
                       epilog=EPILOG)
    p.add_argument("log", metavar="LOG", help="the log file, or - to read standard input")
    p.add_argument("--rank", default=None, help="rank to explain: a TP/worker rank number or a label such as "
                                                "'TP3' (default: the tightest rank)")
    p.add_argument("--model", default=None, help="model config when the log's path is not on this machine: an HF "
                                                 "id (HF cache or catalog), a model dir or a config.json")
    p.add_argument("--engine", type=str.lower, choices=engine_names(), default=None,
                   help="the engine, when the log does not say")
    p.add_argument("--gpu", default=None, help="GPU name when the log does not print it, e.g. H100")
    p.add_argument("--gpu-memory", default=None, metavar="SIZE", help="device memory with a unit, e.g. 96GiB")
    p.add_argument("--memory-virtualiser", type=memory_virtualiser, default=None, metavar="NAME",
                   help="the GPU-memory virtualiser the server ran under, when the log does not name it: HAMi (a "
                        "vGPU slice, nvidia.com/gpumem on the pod); its reported free memory leaves out what its "
                        "hooks do not record (SGLang's stream pool)")
    for name in ("tp", "pp", "dp", "ep"):
        p.add_argument(f"--{name}", *PARALLEL_ALIASES[name], dest=name, type=int, default=None,
                       help=f"{name.upper()} size when the log does not print it")
    if _needs_engine_flags(argv):
        from tpkit.cli.engine_flags import add_engine_flags

        add_engine_flags(p, {})
    p.add_argument("--json", action="store_true", help="machine-readable output (schema tpkit.explain/1)")
    p.set_defaults(func=run_explain)


def memory_virtualiser(text: str) -> str:
    """``--memory-virtualiser``: the one virtualiser tpkit has a rule for (``engines.sglang.streams.UNSEEN_BY``),
    any case; anything else is refused with the names it takes."""
    import argparse

    from tpkit.engines.sglang.streams import UNSEEN_BY

    if str(text).strip().lower() in (UNSEEN_BY.lower(), "hami-core"):
        return UNSEEN_BY
    raise argparse.ArgumentTypeError(f"got {text!r}; tpkit knows one GPU-memory virtualiser, {UNSEEN_BY} (HAMi-core, "
                                     "a vGPU slice set by nvidia.com/gpumem); leave the flag out for a whole GPU")


def read_log(path: str) -> bytes:
    """The log's bytes; a path that cannot be read is the user's error."""
    if path == "-":
        if sys.stdin is None:  # `tpkit explain - <&-`: Python sets a closed stdin to None
            raise PlanInputError("LOG is - but standard input is closed; pipe the log in (cat server.log | tpkit "
                                 "explain -) or give its path")
        if sys.stdin.isatty():  # `tpkit explain -` typed at a terminal would wait without a word
            print("tpkit explain: reading the log from standard input: paste it, then Ctrl-D (or pipe it: "
                  "cat server.log | tpkit explain -)", file=sys.stderr)
        return _not_empty(_at_most(sys.stdin.buffer, "standard input"), "standard input")
    import os
    import stat

    if os.path.isdir(path):
        raise PlanInputError(f"LOG {path!r} is a directory; give the log file (or - for standard input)")
    try:
        mode = os.stat(path).st_mode  # the check of fileio.read_small_text, kept here: fileio's imports (tempfile →
        # shutil, threading) are not in explain's cold-start set (tests/cli/test_cold_imports.py; helper rev32)
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):  # /dev/zero was read until the memory ran out (helper tidy32)
            raise PlanInputError(f"LOG {path!r} is a device, not a log file; give the server's log file, or - to read "
                                 "a piped log from standard input (docker logs CONTAINER 2>&1 | tpkit … -)")
        size = os.path.getsize(path)
        if size > MAX_LOG_BYTES:
            raise PlanInputError(f"LOG {path!r} is {size:,} bytes, more than the {_LIMIT} tpkit reads; cut the "
                                 "start-up part out (head -c 100M) and pass that")
        with open(path, "rb") as fh:  # a pipe (<(docker logs …)) has no size: read at most the limit
            return _not_empty(_at_most(fh, f"LOG {path!r}"), f"LOG {path!r}")
    except FileNotFoundError:
        raise PlanInputError(f"LOG {path!r} does not exist; give the path of the server's log file, or - to read "
                             "standard input") from None
    except OSError as exc:
        raise PlanInputError(f"LOG {path!r} cannot be read ({exc.strerror or exc}); check the path and its "
                             "permissions") from None


def _at_most(stream, what: str) -> bytes:
    """What ``stream`` holds, up to ``MAX_LOG_BYTES``: a pipe or standard input longer than that is refused as a
    longer file is (``cat /dev/zero | tpkit explain -`` read until the memory ran out; helper tidy32)."""
    data = stream.read(MAX_LOG_BYTES + 1)
    if len(data) > MAX_LOG_BYTES:
        raise PlanInputError(f"{what} holds more than the {_LIMIT} tpkit reads; cut the start-up part out (head -c "
                             "100M) and pass that")
    return data


def _not_empty(data: bytes, what: str) -> bytes:
    """An empty log is a wrong path or a log not written yet, not a log to explain; a gzip-compressed log (a rotated
    ``server.log.1.gz``) is read as its text."""
    compressed = data[:2] == b"\x1f\x8b"
    if compressed:
        import gzip
        import io
        import zlib

        try:  # read at most one byte past the limit: a small file may expand to gigabytes
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as fh:
                data = fh.read(MAX_LOG_BYTES + 1)
        except (OSError, EOFError, zlib.error) as exc:
            raise PlanInputError(f"{what} looks gzip-compressed but does not decompress ({exc}); pass the plain "
                                 "log (zcat it first)") from None
        if len(data) > MAX_LOG_BYTES:
            raise PlanInputError(f"{what} decompresses to {len(data):,} bytes, more than the {_LIMIT} tpkit reads; "
                                 "cut the start-up part out (zcat … | head -c 100M) and pass that")
    if data[257:262] == b"ustar":  # a tar archive (POSIX / GNU header magic at byte 257), compressed or not: its
        # members would be read as one text, headers and all (helper ux26: `tpkit explain logs.tar.gz`)
        raise PlanInputError(f"{what} is a tar archive{' (gzip-compressed)' if compressed else ''}, not a log; "
                             f"extract it first (tar xf FILE) and pass the log inside")
    if not data.replace(b"\xef\xbb\xbf", b"").strip():  # a UTF-8 byte-order mark alone is no text either
        raise PlanInputError(f"{what} is empty ({len(data):,} bytes); give the server's log after it started (or "
                             "crashed), e.g. the file its stdout/stderr went to")
    binary, advice, signature = _not_text(data)
    if binary and (signature or not _recognised(data)):  # binary noise around real log lines is still a log
        raise PlanInputError(f"{what} is not a text log: {binary}; " + (advice or "give the server's log (the file "
                             "its stdout/stderr went to; a .gz is read as its text)"))
    document = _json_document(data)
    whole_config = document.startswith(_WHOLE_CONFIG) and ", broken" not in document
    if document and (whole_config or not _recognised(data)):
        raise PlanInputError(f"{what} is {document}, not a server log; " + (
            "plan the model with `tpkit plan FILE --gpu NAME`, or " if "config" in document else "")
            + "give the server's log (the file its stdout/stderr went to)")
    return data


def _json_document(data: bytes) -> str:
    """What a whole-file JSON object or list is (a model config.json, a machine profile, a tpkit plan …), "" when
    ``data`` is not one: a JSON file passed for a log."""
    if len(data) > _SAMPLE_BYTES * 16 or data.lstrip()[:1] not in (b"{", b"["):
        return ""
    try:
        doc = json.loads(data)
    except ValueError as exc:  # a config.json cut short or mis-edited is still a config, not a log
        key = _CONFIG_KEY.search(data[:_SAMPLE_BYTES])
        if not key or data.lstrip()[:1] != b"{":
            return ""
        where = f" at line {exc.lineno}, column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        return (f"a model config.json (JSON with {key.group(1).decode()}, broken{where}: cut short or "
                "mis-edited)")
    except RecursionError:
        return ""
    if isinstance(doc, dict) and ("model_type" in doc or "architectures" in doc):
        return _WHOLE_CONFIG + ("model_type" if "model_type" in doc else "architectures") + ")"
    keys = f" with keys {', '.join(list(doc)[:4])}" if isinstance(doc, dict) and doc else ""
    return f"a JSON document (a {type(doc).__name__}{keys})"


_WHOLE_CONFIG = "a model config.json (JSON with "
"""how ``_json_document`` names a whole, parsed config.json: refused even where a string in it quotes an engine's
log line (a config with a note copied from a log was explained as a vLLM log; helper tidy32) — a broken one is
still read as a log when engine lines follow it (a log that starts with a dumped config)"""

_CONFIG_KEY = re.compile(rb'"(model_type|architectures)"\s*:')
"""a key only a model config.json has at its top level, read where the JSON does not parse"""

_MAGIC = (
    (b"\x7fELF", "an ELF executable or library", ""),
    (b"PK\x03\x04", "a zip archive", "unzip it and pass the log inside"),
    (b"\xfd7zXZ\x00", "xz-compressed", "decompress it first: xz -dc FILE | tpkit explain -"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed", "decompress it first: zstd -dc FILE | tpkit explain -"),
    (b"BZh", "bzip2-compressed", "decompress it first: bzcat FILE | tpkit explain -"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "extract the log from it first"),
    (b"\x89PNG", "a PNG image", ""),
    (b"\xff\xd8\xff", "a JPEG image", ""),
    (b"%PDF-", "a PDF document", "pass the log as the plain text the server wrote (the file its stdout/stderr went to, "
                                 "or copy the PDF's text into a .log file)"),
)
"""file signatures of what a user passes by mistake for a log: (leading bytes, what it is, how to read it)"""

_SAMPLE_BYTES = 1 << 16
_BINARY_SHARE = 0.3
"""a sample whose bytes are this share or more control bytes or not UTF-8 is not text: a real log's odd bytes (a
non-UTF-8 name, a stray escape) are a few per line; compressed or executable data is ~half of them"""


def _recognised(data: bytes) -> bool:
    """Whether the log reader finds any engine line, setting or failure in ``data``."""
    from tpkit.logs import parse_log

    parsed = parse_log(data)
    return bool(parsed.anchors or parsed.failures or parsed.settings)


def _not_text(data: bytes) -> tuple[str, str, bool]:
    """Why ``data`` is not a text log, how to read it, and whether a file signature says so (("", "", False) when it
    is text): a known binary signature (an archive or a compressed file holds no readable log lines), nothing but
    NUL bytes (as definite as a signature), or
    64 KiB from the first byte that is not NUL (NUL bytes left out: a log cut by a crash may hold a run of them;
    UTF-16 with a byte-order mark is text) of which 30 % or more are control bytes or bytes that are not UTF-8."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "", "", False
    for magic, kind, advice in _MAGIC:
        if data.startswith(magic):
            return f"it is {kind} (it starts with {data[:len(magic)]!r})", advice, True
    import re

    first = re.search(rb"[^\x00]", data)
    if first is None:  # no line to find: said at once (the log reader took ~2 min over 1 GiB of them)
        return f"its {len(data):,} bytes are all NUL", "", True
    sample = data[first.start():first.start() + _SAMPLE_BYTES].replace(b"\x00", b"")
    control = sum(sample.count(bytes([c])) for c in (*range(1, 9), 11, *range(14, 27), *range(28, 32), 127))
    foreign = sample.decode("utf-8", "replace").count("\ufffd")
    share = (control + foreign) / len(sample)
    if share < _BINARY_SHARE:
        return "", "", False
    return (f"{share:.0%} of the {len(sample):,} bytes read are control bytes or not UTF-8 (it starts with "
            f"{data[:16]!r})"), "", False


def check_flag_values(args) -> None:
    """Refuse a flag value no engine could run (``--tp 0``, ``--mem-fraction-static 85``) before the log is read,
    with the message ``tpkit plan`` gives: each engine flag is checked by its engine's options on its own, a
    dependency another flag or the log may fill (``--speculative-num-steps`` needs an algorithm) excepted."""
    from tpkit.parallel import ParallelSpec

    ParallelSpec(**{n: 1 if getattr(args, n) is None else getattr(args, n) for n in ("tp", "pp", "dp", "ep")})
    if args.gpu_memory is not None:
        from tpkit.cli.word_hints import device_memory

        device_memory(args.gpu_memory)  # refuses what is not a size > 0
    if not engine_flags_given(args):  # nothing below to check (and no engine's options to import)
        return
    from tpkit.cli.engine_flags import engine_fields, size_flag

    for field in engine_fields():
        value = getattr(args, field.name, None)
        if value is None:
            continue
        value = size_flag(value, field.option) if field.flag.kind == "size" else value
        if field.flag.elsewhere and args.engine not in {e.name for e in field.owners}:
            continue  # the other engine has a flag of this name (SGLang's `--attention-backend fa3`): checked once
            # the log names the engine (``_check_deferred``), not refused with the owner's list before
        owners = [e for e in field.owners if args.engine in (None, e.name)] or list(field.owners)
        errors = [e for e in (_refusal(owner, field.name, value) for owner in owners) if e is not None]
        if len(errors) == len(owners):  # no engine the run may be takes it (--engine-version 0.8.2:v0 is vLLM's)
            raise _refused_by_all(field.option, value, owners, errors)


def _check_deferred(args, engine) -> None:
    """The values ``check_flag_values`` left for the log's engine (a flag both engines spell alike), checked by it;
    so is a value from a closed list, which the other engine may have taken (``--attention-backend fa3``: SGLang's
    name, not vLLM's; helper ab28)."""
    from tpkit.cli.engine_flags import engine_fields

    for field in engine_fields((engine,)):
        value = getattr(args, field.name, None)
        if (field.flag.elsewhere or field.flag.choices) and value is not None:
            error = _refusal(engine, field.name, value)
            if error is not None:
                raise error


def _refused_by_all(option: str, value, owners, errors) -> PlanInputError:
    """The one error for a flag value every engine the run may be refuses: their own message when they say the
    same (or only one was asked), else each engine's, named (before the log is read the engine is not known, and
    ``--engine-version abc`` on a vLLM log must not be refused as an SGLang version alone)."""
    texts = list(dict.fromkeys(str(e) for e in errors))
    if len(texts) == 1:
        return errors[0]
    said = "; ".join(f"{o.name}: {e}" for o, e in zip(owners, errors))
    return PlanInputError(f"{option} {value!r}: no engine takes it ({said}); pass --engine to name the log's engine")


def _refusal(engine, name: str, value) -> PlanInputError | None:
    """Why ``engine``'s options refuse ``name=value`` alone, None when they take it."""
    from tpkit.cli.engine_flags import engine_fields

    try:
        engine.options(**{name: value})
        return None
    except PlanInputError as exc:
        algorithms = next((f.choices for f in engine_fields((engine,)) if f.name == "speculative_algorithm"), None)
        if name == "speculative_algorithm" or not algorithms:
            return exc
        try:  # a speculative setting alone: its algorithm may come from the log
            engine.options(**{name: value, "speculative_algorithm": algorithms[0]})
            return None
        except PlanInputError as again:
            return again


def engine_flags_given(args) -> bool:
    """Whether the user gave any engine flag (one not of explain's own)."""
    return any(k not in OWN_DESTS for k in flag_values(args))


def flag_values(args) -> dict:
    """The flags the user gave (None = not given), by argparse dest."""
    skip = {"log", "json", "rank", "func", "command"}
    return {k: v for k, v in vars(args).items() if k not in skip and v is not None}


def not_an_engine_log(parsed, what: str) -> PlanInputError | None:
    """The user error for a readable text in which the reader found no SGLang or vLLM line at all (no start-up,
    memory, setting or failure line, and no line that names either engine), None for an engine log.

    Such a text (a note, another program's log, a prose table) was explained with exit 0 and ``Diagnosis ok``
    ("nothing to diagnose"), which a script could not tell from a healthy start-up; with ``--engine`` the cause
    line was empty as well.  It is refused like a config.json or a binary passed for a log: exit 2, one message
    (with ``--json``, the ``tpkit.error/1`` object), so ``tpkit.explain/1`` keeps its keys and its two status values
    for logs.  The flags do not count: they fill what a log leaves out, they are not read from it.  A log that
    names its engine (a version line, a launch command) is explained as before, with its ``missing`` list."""
    if parsed.anchors or parsed.failures or parsed.settings or parsed.engine.engine or parsed.engine.evidence:
        return None
    lines = parsed.line_count
    return PlanInputError(
        f"{what} is not an SGLang or vLLM log: none of its {lines:,} line{'s' if lines != 1 else ''} is a start-up, "
        "memory, setting or failure line either engine prints ('Load weight end', 'KV Cache is allocated', "
        "'Available KV cache memory', 'GPU KV cache size', a server-args dump, a launch command, a CUDA "
        "out-of-memory traceback …); give the server's own log, from the launch command on (the file its "
        "stdout/stderr went to, or docker logs CONTAINER 2>&1 | tpkit explain -); to plan without a log: "
        "tpkit plan MODEL --gpu NAME")


def _rank(text):
    if text is None:
        return None
    return int(text) if str(text).strip().lstrip("-").isdigit() else str(text)


def run_explain(args) -> int:
    """Read the log (a file, ``-`` or a .gz), explain it with the given flags and print text or JSON; 0 for any SGLang or vLLM
    log."""
    from tpkit.explain import explain_log

    check_flag_values(args)
    flags = flag_values(args)
    if flags.get("engine") and engine_flags_given(args):
        from tpkit.cli.engine_flags import check_engine_flags
        from tpkit.engines.registry import get_engine

        check_engine_flags(args, get_engine(flags["engine"]))
    explanation = explain_log(read_log(args.log), rank=_rank(args.rank), flags=flags)
    refusal = not_an_engine_log(explanation.parsed, "standard input" if args.log == "-" else f"LOG {args.log!r}")
    if refusal is not None:
        raise refusal
    logged = explanation.context.engine
    if not flags.get("engine") and logged and engine_flags_given(args):
        # the engine came from the log: a flag of the other engine would be recorded and never used (an SGLang
        # log with --compile-cache warm); refuse it as `tpkit plan --from-log` does, naming where the engine came from
        from tpkit.cli.engine_flags import check_engine_flags
        from tpkit.engines.registry import get_engine

        check_engine_flags(args, get_engine(logged), engine_from="read from the log")
        _check_deferred(args, get_engine(logged))
    if args.json:
        from tpkit.cli.streams import write_json  # an ASCII locale gets \u escapes, not "?"

        write_json(explanation.to_dict())
    else:
        from tpkit.explain.render import format_explanation

        sys.stdout.write(format_explanation(explanation))
    return 0
