"""A pasted engine command line, taken as it is (helper ux25).

A user who serves a model has its launch line at hand: ``vllm serve M --tensor-parallel-size 2 …``, ``python -m
sglang.launch_server --model-path M --tp 2 …``.  ``tpkit plan`` / ``tpkit perf`` read the engines' flags already
(their spellings, the serving flags taken and ignored); this module takes the rest of such a line before argparse
sees it:

- the launch words — ``vllm serve``, ``python -m vllm.entrypoints.openai.api_server``, ``python -m
  sglang.launch_server`` (``python3``, a bare ``-m MODULE`` or the module alone too) — are dropped and name the
  engine: ``--engine vllm`` / ``--engine sglang`` is added unless ``--engine`` is given (a different ``--engine``
  leaves the line as it is, and the refusal says which words to drop);
- the engines' model flag — vLLM ``--model`` (``vllm serve`` takes it as a flag too), SGLang ``--model-path`` — is
  read as tpkit's MODEL argument when the line gives no MODEL of its own.

Each rewrite is said in one note on stderr, so the user sees how the line was read.  ``rewrite`` is pure: it
returns the new argv and the notes.

A launch line is often pasted with its environment (``VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve …``), and the
shell then sets it for tpkit.  tpkit reads no engine variable from its own environment (it plans a server, often on
another machine), so each one that has a tpkit flag is named with that flag in a note (``ENV_FLAGS``).
"""

from __future__ import annotations

__all__ = ["rewrite", "LAUNCH_WORDS", "launch_hint", "ENV_FLAGS", "env_notes", "MODEL_FLAGS"]

LAUNCH_WORDS = ("vllm", "sglang", "python", "python3")
"""the first word of an engine's launch line, typed where tpkit's command goes (``tpkit vllm serve M …``)"""


def launch_hint(word: str) -> str:
    """What to write instead of ``tpkit vllm serve M …``: the line after ``tpkit plan`` (memory) or ``tpkit perf``
    (speed), which take it as it is."""
    return (f"'{word} …' is the engine's launch line: put the command tpkit runs before it, tpkit plan {word} … for "
            f"the GPU memory and KV cache, or tpkit perf {word} … for the decode speed (the line is taken as it is)")

_COMMANDS = ("plan", "perf")
MODEL_FLAGS = ("--model", "--model-path")
"""vLLM's ``--model`` and SGLang's ``--model-path``: tpkit plan/perf take MODEL as a positional argument (a pasted
line's flag becomes MODEL here; ``tpkit.cli.unknown_flags_message`` names it where it is left over)"""
_MODULES = {"vllm.entrypoints.openai.api_server": "vllm", "vllm.entrypoints.api_server": "vllm",
            "sglang.launch_server": "sglang"}


def _launcher(argv: list[str], start: int) -> tuple[int, int, str] | None:
    """(first index, end index, engine) of the launch words in ``argv[start:]``; None when there are none."""
    for i in range(start, len(argv)):
        word = argv[i]
        if word == "vllm" and i + 1 < len(argv) and argv[i + 1] == "serve":
            return i, i + 2, "vllm"
        if word in _MODULES:
            first = i
            if first >= 1 and argv[first - 1] == "-m":
                first -= 1
                if first >= 1 and argv[first - 1].rsplit("/", 1)[-1].startswith("python"):
                    first -= 1
            return first, i + 1, _MODULES[word]
    return None


def _given(argv: list[str], flag: str) -> str | None:
    """The value of ``flag`` in ``argv`` (``--flag V`` or ``--flag=V``), None when absent."""
    for i, word in enumerate(argv):
        if word == flag and i + 1 < len(argv):
            return argv[i + 1]
        if word.startswith(flag + "="):
            return word.split("=", 1)[1]
    return None


def _has_model(argv: list[str], start: int) -> bool:
    """Whether ``argv[start:]`` holds a MODEL word: a word that is not a flag and not a flag's value.  A flag takes the
    next word when that word is no flag (every tpkit/engine flag that precedes a bare word here takes a value, except
    switches, which a MODEL right after would be read as: so a word after a known switch counts as MODEL)."""
    from tpkit.cli.argtypes import SERVING_FLAGS

    switches = {f for f, n in SERVING_FLAGS if n == 0}
    i = start
    while i < len(argv):
        word = argv[i]
        if word.startswith("-") and len(word) > 1 and not word[1:2].isdigit():
            takes = "=" not in word and word not in switches and not _is_switch(word)
            i += 2 if takes and i + 1 < len(argv) and not argv[i + 1].startswith("--") else 1
            continue
        return True
    return False


def _is_switch(flag: str) -> bool:
    """tpkit's and the engines' switches that take no value (those a pasted line carries), by name."""
    return flag.startswith(("--enable-", "--disable-", "--no-", "--enforce-", "--skip-", "--trust-")) or flag in (
        "--json", "--p2p", "--eager", "-ep", "--list-gpus", "--list-models")


ENV_FLAGS = (
    ("VLLM_ATTENTION_BACKEND", ("plan", "perf", "explain"), "--attention-backend {v}"),
    ("VLLM_USE_V1", ("plan",), "--engine-version RELEASE:v0 (V0) or the release alone (V1)"),
    ("VLLM_USE_V2_MODEL_RUNNER", ("plan",), "--vllm-use-v2-model-runner {v}"),
    ("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS", ("plan",), "--vllm-memory-profiler-estimate-cudagraphs {v}"),
    ("VLLM_PP_LAYER_PARTITION", ("plan",), "--pp-layer-partition {v}"),
    ("SGLANG_PP_LAYER_PARTITION", ("plan",), "--pp-layer-partition {v}"),
    ("SGLANG_ENABLE_SPEC_V2", ("perf",), "--sglang-spec-v2 {onoff}"),
    ("SGLANG_INT4_WEIGHT", ("plan",), "--sglang-int4-weight {onoff}"),
    ("VLLM_ALLOW_LONG_MAX_MODEL_LEN", ("plan",), "--vllm-allow-long-max-model-len {onoff}"),
    ("VLLM_MXFP4_USE_MARLIN", ("plan",), "--vllm-mxfp4-use-marlin {onoff}"),
)
"""(engine environment variable, the commands whose flag sets it, that flag): the variables a pasted launch line
carries that tpkit has a flag for (vLLM ``envs.py``, SGLang ``environ.py``; each flag's help names its variable)"""


def _onoff(value: str) -> str:
    return "on" if value.strip().lower() in ("1", "true", "yes", "on") else "off"


def env_notes(command: str | None, environ) -> list[str]:
    """One note per engine variable of ``ENV_FLAGS`` set in ``environ`` that ``command`` has a flag for."""
    return [f"{name}={v} is set in tpkit's own environment, which tpkit does not read (it plans the server from its "
            f"flags); to plan a server started with it, pass {flag.format(v=v, onoff=_onoff(v))}"
            for name, commands, flag in ENV_FLAGS if command in commands and (v := environ.get(name))]


def rewrite(argv: list[str], environ=None) -> tuple[list[str], tuple[str, ...]]:
    """``argv`` with a pasted launch line taken (see the module docstring), and the notes that say how (with those of
    ``env_notes`` on ``environ``, when given)."""
    command = next((i for i, a in enumerate(argv) if not a.startswith("-")), None)
    if command is None or argv[command] not in (*_COMMANDS, "explain"):
        return argv, ()
    envs = env_notes(argv[command], environ or {})
    if argv[command] not in _COMMANDS:
        return argv, tuple(envs)
    out, notes = list(argv), envs
    found = _launcher(out, command + 1)
    if found is not None:
        first, end, engine = found
        given = _given(out, "--engine")
        if given is not None and given.lower() != engine:
            return argv, ()  # the refusal names the words to drop (cli.unknown_flags_message)
        words = " ".join(out[first:end])
        del out[first:end]
        if given is None:
            out[command + 1:command + 1] = ["--engine", engine]
        notes.append(f"read the pasted {words!r} as --engine {engine}")
    for flag in MODEL_FLAGS:
        for i, word in enumerate(out):
            if i <= command or not (word == flag or word.startswith(flag + "=")):
                continue
            value = word.split("=", 1)[1] if "=" in word else (out[i + 1] if i + 1 < len(out) else None)
            if not value or value.startswith("-"):
                break
            rest = out[:i] + out[i + (1 if "=" in word else 2):]
            if _has_model(rest, command + 1):
                break  # MODEL given as well: the refusal says which one tpkit takes
            out = rest[:command + 1] + [value] + rest[command + 1:]
            notes.append(f"read {flag} {value} as MODEL")
            break
    return out, tuple(notes)
