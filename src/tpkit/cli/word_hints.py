"""What to say about positional words a command did not take, and about a missing LOG (helper ux23, session 23).

A user who serves models types ``tpkit explain logs/*.log`` (the shell expands it to several files), ``tpkit perf
… --batch 1 8 32`` (a list where one batch goes) and ``docker logs vllm 2>&1 | tpkit explain`` (no ``-``); argparse
answered "unexpected argument(s) …" and "the following arguments are required: LOG", which say what is wrong but
not how to get what was meant.
"""

from __future__ import annotations

import argparse
import os
import re

from tpkit.cli.argtypes import BATCH_LIST_HINT

__all__ = ["extra_words_hint", "missing_log_hint", "device_memory", "plan_flags_in_perf", "config_override_hint"]

_NUMBER = re.compile(r"\d{1,12}")


def _takes_log(parser: argparse.ArgumentParser) -> bool:
    return any(a.dest == "log" and not a.option_strings for a in parser._actions)  # noqa: SLF001 - argparse's list


def extra_words_hint(parser: argparse.ArgumentParser, extras: list[str], argv: list[str]) -> str | None:
    """The message for positional ``extras`` that have a likely meaning, else None: several log files given to
    ``tpkit explain`` (it reads one), or the rest of a batch list after ``--batch N`` (``tpkit perf``)."""
    if _takes_log(parser) and extras and all(os.path.isfile(w) for w in extras if not w.startswith("-")):
        words = [w for w in extras if not w.startswith("-")]
        if words:
            shown = " ".join(words[:3]) + (" …" if len(words) > 3 else "")
            return (f"{parser.prog} reads one log at a time, and got {len(words) + 1} files (the extra: {shown}); "
                    f"run it once per file, e.g. for f in *.log; do {parser.prog} \"$f\"; done")
    if "--batch" in argv and extras and all(_NUMBER.fullmatch(w) for w in extras):
        i = argv.index("--batch")
        first = argv[i + 1] if i + 1 < len(argv) else extras[0]
        return BATCH_LIST_HINT.format(first=first)
    return None


def missing_log_hint(parser: argparse.ArgumentParser, message: str) -> str:
    """``message`` (argparse's "the following arguments are required: LOG") with how to give the log: a file, or
    ``-`` for standard input (``docker logs vllm 2>&1 | tpkit explain`` without ``-`` got only argparse's words)."""
    if not (_takes_log(parser) and re.search(r"\bLOG\b", message)):
        return message
    return (f"{message} (the server's log file, e.g. {parser.prog} server.log; a piped log needs - for standard "
            f"input: docker logs vllm 2>&1 | {parser.prog} -)")


_FRACTION_FLAGS = "--mem-fraction-static (SGLang) or --gpu-memory-utilization (vLLM)"


def device_memory(text: str, what: str = "--gpu-memory"):
    """``--gpu-memory``'s ``Bytes``, as ``units.parse_bytes`` reads it; a fraction or a percentage (``0.9``,
    ``90%``: what ``--gpu-memory-utilization`` takes) is refused as such, not with "has no unit; say '0.9GiB'"."""
    from tpkit.errors import UnitError
    from tpkit.units import Bytes, parse_bytes

    t = str(text).strip()
    m = re.fullmatch(r"(\d*\.\d+)|(\d+(?:\.\d+)?)\s*%", t)  # 0.9, .85, 90 %: not 2 (GiB or GB: asked below)
    if m:
        frac = float(m.group(1)) if m.group(1) else float(m.group(2)) / 100
        if 0 < frac <= 1:
            raise UnitError(f"{what}: {text!r} reads as a fraction ({frac:g}), but {what} is the card's whole memory "
                            "as CUDA reports it, with a unit, e.g. 80GiB; the share of it the engine may use goes "
                            f"to {_FRACTION_FLAGS}, e.g. {frac:g}")
    if t.startswith("-"):  # parse_bytes says "a memory size must be ≥ 0", but a card has more than 0 (tidy32)
        raise UnitError(f"{what}: {text!r} is negative; give the card's memory as CUDA reports it, e.g. 80GiB")
    # a bare 0 is refused as 0, not with "has no unit; say '0GiB'" (helper tidy32); the > 0 check has one home
    # here (cli.plan and cli.explain each held a copy, without an example)
    total = Bytes(0) if re.fullmatch(r"0*\.?0*", t) and t.strip(".") else parse_bytes(text, what=what)
    if total.bytes <= 0:
        raise UnitError(f"{what} must be > 0, got {text!r}; give the card's memory as CUDA reports it, e.g. 80GiB")
    return total


_LENGTH_FLAGS = ("--context-length", "--max-model-len")


def plan_flags_in_perf(parser: argparse.ArgumentParser, names: list[str]) -> str | None:
    """``tpkit perf`` given the engines' memory flags that ``tpkit plan`` reads (a pasted server line:
    ``--mem-fraction-static``, ``--gpu-memory-utilization``, ``--max-model-len`` …): say that perf sizes no KV pool
    and where each goes, instead of "no flag --context-length (did you mean --accept-length or --context?)"; None
    when ``names`` holds a flag neither command has."""
    if parser.prog != "tpkit perf" or not names:
        return None
    from tpkit.cli.engine_flags import engine_fields

    plan_flags = {f.option for f in engine_fields()}
    if not all(n in plan_flags for n in names):
        return None
    length = [n for n in names if n in _LENGTH_FLAGS]
    why = (f"; {length[0]} is the server's longest request, while perf's --context is the tokens each decoded "
           "sequence holds in its KV cache (default 1024)" if length else "")
    return (f"{', '.join(names)}: read by tpkit plan (the server's memory and KV-pool settings), not by tpkit perf, "
            f"which sizes no KV pool: leave {'it' if len(names) == 1 else 'them'} out here, and plan the memory with "
            f"tpkit plan{why}")


_CONFIG_OVERRIDES = {"--hf-overrides": "vLLM", "--rope-scaling": "vLLM 0.5.5–0.11.0",
                     "--rope-theta": "vLLM 0.5.5–0.11.0", "--json-model-override-args": "SGLang"}
"""engine flags that rewrite the model's config.json at start-up (vLLM ``--hf-overrides``, 0.6.5–0.34.0, and its
older ``--rope-scaling`` / ``--rope-theta``, 0.5.5–0.11.0; SGLang ``--json-model-override-args``, 0.4.0–0.5.23; the
releases from ``engines.cliflags``' table read from the wheels): tpkit reads the config itself"""


_TORCH_COMPILE = ("--enable-torch-compile", "--torch-compile-max-bs")
"""SGLang's torch.compile switches (srt/server_args.py), which tpkit does not model"""


def config_override_hint(parser: argparse.ArgumentParser, name: str) -> str | None:
    """The message for an engine flag that overrides config.json keys (a Qwen 128k YaRN launch passes
    ``--rope-scaling`` / ``--hf-overrides``): "has no flag" alone left no way to plan it (helper ux24)."""
    engine = _CONFIG_OVERRIDES.get(name)
    if engine is None and name in _TORCH_COMPILE:  # helper ux25: before, "did you mean --enable-chunked-prefill?"
        return (f"{parser.prog} has no flag {name}: tpkit models no torch.compile of SGLang's decode graphs "
                "(--enable-torch-compile, --torch-compile-max-bs), neither its memory nor its speed; drop the flag to "
                f"{'plan' if 'plan' in parser.prog else 'predict'} the run without it")
    if engine is None:
        return None
    where = ("pass it with --model DIR" if any(a.dest == "model" and a.option_strings for a in parser._actions)
             else "pass DIR as MODEL")  # noqa: SLF001 - argparse's list
    return (f"{parser.prog} has no flag {name}: it is {engine}'s override of the model's config.json, and tpkit "
            "reads the config itself; write the overridden keys (e.g. rope_scaling, max_position_embeddings) into "
            f"a copy of config.json in a folder DIR and {where}")
