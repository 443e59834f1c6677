"""An SGLang or vLLM launch command in a log: is a line one, and the settings it passes.

Each flag becomes a :class:`~tpkit.logs.settings.Setting` named in tpkit's words with ``source="command_line"``;
the flag as written is kept as its key.  The engine's dumps and single log lines are read by ``tpkit.logs.settings``.
"""

from __future__ import annotations

import shlex

from tpkit.logs.dumps import MAX_DIGITS, literal_dict, read_value
from tpkit.logs.lazyre import lazy
from tpkit.logs.settings import KEYS, Setting, setting_text

__all__ = ["is_command", "command_settings"]

_FLAG_ALIASES: dict[str, str] = {
    "tp": "tp_size", "tensor_parallel_size": "tensor_parallel_size", "pp": "pp_size", "dp": "dp_size",
    "ep": "ep_size", "model": "model", "m": "model", "q": "quantization", "dcp": "decode_context_parallel_size",
    "speculative_algo": "speculative_algorithm", "speculative_draft_model": "speculative_draft_model_path",
    "speculative_draft": "speculative_draft_model_path", "kv_cache_memory": "kv_cache_memory_bytes",
}
"""short and alternative spellings of a launch flag → the engine's own key (both engines)"""
_VLLM_SHORT = {"tp": "tensor_parallel_size", "pp": "pipeline_parallel_size", "dp": "data_parallel_size"}
_BOOL_FLAGS = {"disable_cuda_graph", "enforce_eager", "enable_dp_attention", "disable_custom_all_reduce",
               "enable_expert_parallel", "enable_ep_moe", "trust_remote_code", "enable_prefix_caching",
               "enable_torch_symm_mem", "disable_radix_cache", "disable_log_stats", "enable_chunked_prefill",
               "disable_overlap_schedule", "skip_mm_profiling", "enable_lora", "fully_sharded_loras",
               "async_scheduling", "language_model_only"}
_LAUNCHERS = ("sglang.launch_server", "sglang serve", "vllm serve", "vllm.entrypoints", "-m sglang", "python -m vllm")
_COMMAND = lazy(r"(?<!from )(?<!import )"  # a traceback's `from vllm.entrypoints.cli.main import main` (ux23)
                r"(?:sglang\.launch_server|sglang serve|vllm serve|vllm\.entrypoints\.[\w.]+|-m sglang\b)")
_FLAGS_ONLY = lazy(r"--(?:model|model-path|tp|tp-size|tensor-parallel-size|mem-fraction-static|"
                         r"gpu-memory-utilization|max-model-len|context-length)[ =]")
_QUOTED_LAUNCHER = lazy(r"\b\w*Warning: |^\s*(?:Example|Usage|usage): ")
"""a Python warning that quotes a launcher ("UserWarning: 'python -m sglang.launch_server' is still supported, but
'sglang serve' is the recommended entrypoint", SGLang 0.5.9+ launch_server.py) and a usage line with placeholders
('Example: sglang serve --model-path <model> [options]'): text about a command, no launch (helper fx36: they gave
the model 'is' and '<model>')"""
_HUMAN_INT = lazy(r"^(\d+(?:\.\d+)?)([kKmMgG])$")


def is_command(message: str) -> bool:
    """True for an SGLang or vLLM launch command, or only its flags (``--model … --tp 8``); not for SGLang's DeepGEMM
    warning, whose fixed example `compile_deep_gemm … --tp 8` is no launch (0.5.8.post1 compile_utils.py, gs26)."""
    if any(l in message for l in _LAUNCHERS) and _COMMAND.search(message) is not None:
        return "compile_deep_gemm" not in message and _QUOTED_LAUNCHER.search(message) is None
    if "vllm-openai" in message and _docker().mentions_server_image(message):  # docker run … vllm/vllm-openai
        return True
    return (head := message.lstrip(" `$>")).startswith("--") and _FLAGS_ONLY.search(head) is not None


def _docker():
    """``tpkit.logs.docker``, imported only for a line naming the server image (the cold-import budget)."""
    from tpkit.logs import docker

    return docker


def _tokens(command: str) -> list[str]:
    command = command.replace("\\\n", " ").replace("\\ ", " ")
    try:
        return shlex.split(command[:20_000])
    except ValueError:
        return command[:20_000].split()


def _flag_value(key: str, raw: str | None):
    if raw is None:
        return True
    m = _HUMAN_INT.match(raw)
    if m and key in ("max_model_len", "context_length", "max_num_batched_tokens", "chunked_prefill_size"):
        if len(m.group(1)) > MAX_DIGITS:  # does not fit a 64-bit integer: a damaged flag, kept as written
            return raw
        base, suffix = float(m.group(1)), m.group(2)
        scale = {"k": 10**3, "m": 10**6, "g": 10**9, "K": 2**10, "M": 2**20, "G": 2**30}[suffix]
        return int(base * scale)
    if raw.startswith("{"):
        return literal_dict(raw.replace("true", "True").replace("false", "False").replace("null", "None"))
    return read_value(raw) if raw[:1] in "0123456789.-'\"[" or raw in ("True", "False", "None") else raw


def _canonical_flag(flag: str, engine: str) -> str:
    key = flag.lstrip("-").replace("-", "_")
    if engine == "vllm" and key in _VLLM_SHORT:
        return _VLLM_SHORT[key]
    return _FLAG_ALIASES.get(key, key)


def _parse_flags(tokens: list[str], engine: str) -> tuple[list[tuple[str, str, object]], str | None]:
    """([(flag as written, engine key, value)], positional model)."""
    found, model, i = [], None, 0
    while i < len(tokens):
        tok = tokens[i]
        if not tok.startswith("-") or tok in ("-", "--"):
            if model is None and i == 0:
                model = tok
            i += 1
            continue
        flag, eq, raw = tok.partition("=")
        key = _canonical_flag(flag, engine)
        if not eq:
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            takes = nxt is not None and not nxt.startswith("--") and (
                key not in _BOOL_FLAGS or nxt in ("True", "False"))
            raw = nxt if takes else None
            i += 1 if takes else 0
        found.append((flag, key, _flag_value(key, raw)))
        i += 1
    return found, model


def command_settings(command: str, *, line_no: int) -> tuple[str | None, list[Setting]]:
    """(engine, settings) of a launch command (continuation backslashes joined), with its PP layer partition."""
    tokens = _tokens(command.lstrip(" `$>"))
    start = next((i for i, t in enumerate(tokens) if _COMMAND.search(t) or t == "serve"), None)
    docker = _docker().server_image_args(tokens) if start is None and "vllm-openai" in command else None
    if docker is not None:
        engine, rest = docker
    elif start is None and tokens and tokens[0].startswith("--"):
        engine, rest = None, tokens
    elif start is None:
        return None, []
    else:
        engine = "sglang" if "sglang" in " ".join(tokens[max(0, start - 2):start + 1]) else "vllm"
        rest = tokens[start + 1:]
    flags, model = _parse_flags(rest, engine or "vllm")
    text = setting_text(command)
    out = [Setting(name=KEYS[key], value=value, key=flag, source="command_line", line_no=line_no, text=text)
           for flag, key, value in flags if key in KEYS]
    if model and not any(s.name == "model" for s in out):
        out.append(Setting(name="model", value=model, key="(positional)", source="command_line", line_no=line_no,
                           text=text))
    return engine, out + __import__("tpkit.logs.run").logs.run.partition_settings(command, line_no=line_no)
