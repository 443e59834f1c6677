"""``tpkit explain LOG``: read an SGLang or vLLM start-up or crash log, anchor the ledger on its printed numbers,
rebuild the capacity, name the failure and re-plan the fixes from the same measurements (no GPU, no torch)."""

from __future__ import annotations

import json
import sys

from tpkit.errors import PlanInputError

__all__ = ["register", "run_explain", "read_log", "HELP", "flag_values"]

HELP = "explain an SGLang/vLLM log: the ledger from its printed numbers, the failure and re-planned fixes"
"""one line for ``tpkit --help``"""

MAX_LOG_BYTES = 2 * 2**30
"""a larger file is refused (read into memory whole)"""


def register(sub) -> None:
    from tpkit.cli.engine_flags import add_engine_flags
    from tpkit.engines.registry import engine_names

    p = sub.add_parser("explain", help=HELP, description=HELP + ". LOG is a file path or '-' for standard input. "
                       "Plan flags fill what the log does not print; a flag that contradicts the log is reported.")
    p.add_argument("log", metavar="LOG", help="the log file, or - to read standard input")
    p.add_argument("--rank", default=None, help="rank to explain: a TP/worker rank number or a label such as "
                                                "'TP3' (default: the tightest rank)")
    p.add_argument("--model", default=None, help="model config when the log's path is not on this machine: an HF "
                                                 "id (HF cache or catalog), a model dir or a config.json")
    p.add_argument("--engine", choices=engine_names(), default=None, help="the engine, when the log does not say")
    p.add_argument("--gpu", default=None, help="GPU name when the log does not print it, e.g. H100")
    p.add_argument("--gpu-memory", default=None, metavar="SIZE", help="device memory with a unit, e.g. 96GiB")
    for name in ("tp", "pp", "dp", "ep"):
        p.add_argument(f"--{name}", type=int, default=None, help=f"{name.upper()} size when the log does not print it")
    add_engine_flags(p, {})
    p.add_argument("--json", action="store_true", help="machine-readable output (schema tpkit.explain/1)")
    p.set_defaults(func=run_explain)


def read_log(path: str) -> bytes:
    """The log's bytes; a path that cannot be read is the user's error."""
    if path == "-":
        return sys.stdin.buffer.read()
    import os

    if os.path.isdir(path):
        raise PlanInputError(f"LOG {path!r} is a directory; give the log file (or - for standard input)")
    try:
        size = os.path.getsize(path)
        if size > MAX_LOG_BYTES:
            raise PlanInputError(f"LOG {path!r} is {size:,} bytes, more than the 2 GiB tpkit reads; cut the start-up "
                                 "part out (head -c 100M) and pass that")
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        raise PlanInputError(f"LOG {path!r} does not exist; give the path of the server's log file, or - to read "
                             "standard input") from None
    except OSError as exc:
        raise PlanInputError(f"LOG {path!r} cannot be read ({exc.strerror or exc}); check the path and its "
                             "permissions") from None


def flag_values(args) -> dict:
    """The flags the user gave (None = not given), by argparse dest."""
    skip = {"log", "json", "rank", "func", "command"}
    return {k: v for k, v in vars(args).items() if k not in skip and v is not None}


def _rank(text):
    if text is None:
        return None
    return int(text) if str(text).strip().lstrip("-").isdigit() else str(text)


def run_explain(args) -> int:
    from tpkit.explain import explain_log

    flags = flag_values(args)
    if flags.get("engine"):
        from tpkit.cli.engine_flags import check_engine_flags
        from tpkit.engines.registry import get_engine

        check_engine_flags(args, get_engine(flags["engine"]))
    explanation = explain_log(read_log(args.log), rank=_rank(args.rank), flags=flags)
    if args.json:
        json.dump(explanation.to_dict(), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        from tpkit.explain.render import format_explanation

        sys.stdout.write(format_explanation(explanation))
    return 0
