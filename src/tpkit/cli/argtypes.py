"""argparse types shared by the commands: a whole number that refuses ``128k`` with both readings spelled out.

A module of its own so that ``tpkit perf`` takes it without importing the engine flag table
(``tpkit.cli.engine_flags``, which ``plan`` and ``explain`` build from every engine's options).
"""

from __future__ import annotations

import argparse
import re

__all__ = ["whole_number", "within_int64", "exponent_hint", "batch_size", "BATCH_LIST_HINT", "size_for_fraction_hint",
           "SERVING_FLAGS", "add_serving_flags", "serving_flags_given"]

INT64_MAX = 2**63 - 1
"""the largest whole number a flag takes"""

_SUFFIXED = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kKmM])i?\s*")


def within_int64(value: int, text: str) -> int:
    """``value`` (read from ``text``) where it is a 64-bit integer; else the refusal that names the bound (helper
    nc19: 400 digits ended in an OverflowError traceback deep in a plan)."""
    if abs(value) > INT64_MAX:
        t = text.strip()
        shown = t if len(t) <= 30 else f"{t[:20]}… ({len(t)} characters)"
        raise argparse.ArgumentTypeError(
            f"expected a whole number of at most {INT64_MAX:,} (a 64-bit integer, the largest count the engines' "
            f"torch and C code hold), got {shown}; pass a smaller number")
    return value


def whole_number(text: str) -> int:
    """A whole number; ``128k`` and the like are refused with both readings spelled out (no guessing k = 1000
    or 1024)."""
    try:
        value = int(text)
    except ValueError:
        pass
    else:
        return within_int64(value, text)
    m = _SUFFIXED.fullmatch(text)
    if m:
        n, big = float(m.group(1)), m.group(2).lower() == "m"
        within_int64(int(m.group(1).split(".")[0]) * (2**20 if big else 2**10), text)  # 400 digits + k: no inf
        dec, binary = int(n * (10**6 if big else 10**3)), int(n * (2**20 if big else 2**10))
        unit = "M" if big else "k"
        raise argparse.ArgumentTypeError(
            f"expected a whole number, got {text!r}; write it out: {dec} (with {unit} = {'10^6' if big else '1000'}) "
            f"or {binary} (with {unit} = {'2^20' if big else '1024'})")
    raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}"
                                     f"{comma_hint(text, whole=True) or exponent_hint(text)}")


def exponent_hint(text: str) -> str:
    """How to write a whole number typed in exponent notation (helper tidy28, session 28: ``--max-model-len 1e6``
    was refused with no word on why): the digits it stands for; "" for anything else (a fraction such as 1.5e0, a
    value past a 64-bit integer)."""
    t = str(text).strip()
    if not re.fullmatch(r"\d+(?:\.\d+)?[eE]\+?\d{1,3}", t):
        return ""
    value = float(t)
    if value > INT64_MAX or value != int(value):  # inf (1e400) first: int() of it raises
        return ""
    return f"; write it out in digits: {int(value)}"


BATCH_LIST_HINT = ("--batch takes one batch size (the one the header and the verdict are for); the batch table "
                   "already sweeps 1, 2, 4, … 256 and adds the --batch given, so give the batch your server runs, "
                   "e.g. --batch {first}, and read the others off the table (--json: by_batch)")
"""the refusal of a list given to ``tpkit perf --batch`` (``{first}``: its first number; helper ux23)"""


def batch_size(text: str) -> int:
    """``tpkit perf --batch``: one whole number; a list (``1,8,32``, ``"1 8 32"``, ``[1, 8, 32]``) is refused with
    where the other batches are (the sweep), not only "expected a whole number"."""
    numbers = re.findall(r"\d+", text)
    if len(numbers) > 1 and re.fullmatch(r"\s*\[?\s*\d+(?:\s*[,; ]\s*\d+)+\s*\]?\s*", text) \
            and not re.fullmatch(r"\d{1,3}(?:,\d{3})+", text.strip()):  # 1,024 is a number with a separator
        raise argparse.ArgumentTypeError(f"got the list {text!r}; " + BATCH_LIST_HINT.format(first=numbers[0]))
    return whole_number(text)


_SIZE = re.compile(r"\s*\d+(?:\.\d+)?\s*(?:[kKmMgGtT]i?[bB]|[gG]i?|[bB])\s*")
"""a size with a unit (``80GB``, ``0.95GiB``, ``40G``)"""


def size_for_fraction_hint(text: str) -> str:
    """The end of the refusal of a size given where a fraction goes (``--mem-fraction-static 80GB``): where a size
    goes instead; "" for anything else."""
    if not _SIZE.fullmatch(str(text)):
        return ""
    number = float(re.match(r"\s*(\d+(?:\.\d+)?)", str(text)).group(1))
    if 0 < number <= 1:  # `--gpu-memory-utilization 0.95GiB`: the fraction with a unit stuck to it
        return f": a fraction takes no unit: write {number:g}"
    return (": it is a fraction of the GPU's memory (e.g. 0.85), not a size; the card's memory goes to "
            f"--gpu-memory {str(text).strip()}, and vLLM's KV cache size to --kv-cache-memory-bytes")


def comma_hint(text: str, *, whole: bool) -> str:
    """How to write a number typed with a comma (helper nc20, session 20: '32,768' and '0,9' were refused with no
    word on why): a count takes no thousands separator, a fraction takes a decimal point; "" for anything else."""
    import re

    text = str(text).strip()
    if whole and re.fullmatch(r"\d{1,3}(?:,\d{3})+", text):
        return f"; write it without the thousands separator: {text.replace(',', '')}"
    if not whole and re.fullmatch(r"\d+,\d+", text):
        return f"; write it with a decimal point: {text.replace(',', '.')}"
    return ""


SERVING_FLAGS = (
    ("--host", 1), ("--port", 1), ("--served-model-name", 1), ("--api-key", 1), ("--root-path", 1),
    ("--ssl-keyfile", 1), ("--ssl-certfile", 1), ("--uvicorn-log-level", 1), ("--log-level", 1),
    ("--chat-template", 1), ("--tool-call-parser", 1), ("--reasoning-parser", 1), ("--tokenizer", 1),
    ("--tokenizer-path", 1), ("--tokenizer-mode", 1), ("--download-dir", 1), ("--seed", 1),
    ("--trust-remote-code", 0), ("--enable-auto-tool-choice", 0), ("--disable-log-requests", 0),
    ("--enable-log-requests", 0), ("--disable-log-stats", 0), ("--log-requests", 0), ("--enable-metrics", 0),
    ("--disable-fastapi-docs", 0), ("--disable-uvicorn-access-log", 0),
    # helper ux25: vLLM's CPU swap space (GiB of host memory for preempted V0 blocks), the executor that starts the
    # workers (mp / ray / uni: the same model and KV cache on each GPU), and more of the API server's own settings
    ("--swap-space", 1), ("--distributed-executor-backend", 1), ("--max-log-len", 1), ("--allowed-origins", 1),
    ("--response-role", 1), ("--disable-frontend-multiprocessing", 0),
)
"""The engines' serving flags that change neither GPU memory nor decode speed (the HTTP server, names, logging,
the tokenizer, chat templates and tool/reasoning parsers; vLLM ``vllm serve --help`` and SGLang
``launch_server --help`` spell them so): taken and ignored with a note, so that a pasted server command line is
planned as it is rather than refused word by word.  (flag, 1 when it takes a value)"""


def add_serving_flags(p: argparse.ArgumentParser) -> None:
    """The serving flags, hidden from ``--help``; ``serving_flags_given`` names those given."""
    for flag, values in SERVING_FLAGS:
        dest = "serving_" + flag[2:].replace("-", "_")
        if values:  # vLLM's --served-model-name takes several names
            p.add_argument(flag, dest=dest, default=None, metavar="VALUE", help=argparse.SUPPRESS,
                           nargs="+" if flag == "--served-model-name" else None)
        else:
            p.add_argument(flag, dest=dest, action="store_true", default=None, help=argparse.SUPPRESS)


def serving_flags_given(args: argparse.Namespace) -> list[str]:
    """The serving flags on the command line (in ``SERVING_FLAGS`` order)."""
    return [flag for flag, _ in SERVING_FLAGS
            if getattr(args, "serving_" + flag[2:].replace("-", "_"), None) is not None]
