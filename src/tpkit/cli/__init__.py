"""``tpkit`` command line: thin commands that parse flags, call a pure function and render.

argparse (stdlib) + rich: argparse keeps ``tpkit plan`` cold start small (no framework import
chain) and gives the flag names scripts rely on; rich renders tables only when printing.

Exit codes: 0 ok, 2 user error (message, no traceback), 1 internal error.
Each sub-command lives in its own module exposing ``register(subparsers)`` whose parser
sets ``func(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from tpkit import __version__

__all__ = ["main", "build_parser"]

COMMANDS = ("plan", "probe", "bench", "perf")
"""sub-command modules under tpkit.cli, each with ``register(subparsers)``"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tpkit",
        description="Memory and all-reduce planning for tensor-parallel LLM serving (SGLang, vLLM).",
    )
    parser.add_argument("--version", action="version", version=f"tpkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"tpkit.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"tpkit.cli.{name}":
                continue
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from tpkit.errors import is_user_error

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - user errors become messages
        if is_user_error(exc):
            print(f"tpkit {args.command}: error: {exc}", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
