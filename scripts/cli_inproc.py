"""One home for running ``tpkit`` in this interpreter from a script: the CLI's own ``main`` (argument parsing, flag
checks, the JSON writer) with stdout and stderr captured (helper tidy28, session 28: seven scripts each carried
their own copy — plan_sweep, cli_output_compare, explain_golden, emitted_flags_check, model_by_name_check,
from_log_capacity_check, explain_roundtrip_check).

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from cli_inproc import run_tpkit
    code, out, err = run_tpkit(["plan", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--json"])

The caller puts ``src`` on ``sys.path`` (or runs with PYTHONPATH=src) before the first call.
"""

from __future__ import annotations

import contextlib
import io
import sys

__all__ = ["run_tpkit", "PipedStdin"]


class PipedStdin:
    """A piped standard input holding ``data`` (what ``tpkit explain -`` reads: ``sys.stdin.buffer``, not a tty)."""

    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)

    def isatty(self) -> bool:
        return False


def run_tpkit(argv: list[str], *, stdin: bytes | None = None, internal_errors: bool = False) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``tpkit ARGV``.  argparse's exits (``--help``, a bad flag) read as their
    status (a status that is not a number: 1).  ``stdin``: the bytes standard input holds for the run.
    ``internal_errors``: an exception escaping ``main`` is a result — status 1, ``INTERNAL Type: message`` on
    stderr — instead of raised (a sweep records a crash as a row)."""
    from tpkit.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    try:
        if stdin is not None:
            sys.stdin = PipedStdin(stdin)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(argv))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except Exception as exc:  # noqa: BLE001 - only with internal_errors; re-raised otherwise
                if not internal_errors:
                    raise
                code = 1
                err.write(f"INTERNAL {type(exc).__name__}: {exc}\n")
    finally:
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue()
