"""The prefilter of the pass over a log: which lines are worth reading.

Each line is reduced to a *template* (digits → 0); a trigger regex (literals starting with a capital or a rare
character, factored as a trie) plus a few ``find`` passes for lower-case literals run over the distinct templates
only.  :func:`candidates` returns the indices of the lines whose template holds a trigger; ``tpkit.logs.scan`` reads
those.  ``tests/logs/test_corpus.py`` checks on every real log that this reads exactly what reading every line reads.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate, compress

from tpkit.logs.lazyre import lazy

__all__ = ["TRIGGERS", "SOURCE_TRIGGERS", "LOWER_TRIGGERS", "KEYWORDS", "KEYWORDS_BYTES", "templates", "candidates"]

TRIGGERS = (
    # SGLang memory lines and steps
    "Load weight", "Memory", "Init torch", "Capture", "Capturing", "Dynamo bytecode", "KV Cache",
    "Use sliding window", "SWAKVPool", "GB",
    # vLLM memory lines and steps
    "KV cache size", "Available KV", "KV cache memory", "Model loading", "Loading model weights", "Loading weights", "Maximum concurrency",
    "GPU blocks", "CUDA blocks", "# cuda blocks", "CPU blocks", "PyTorch", "GiB", "Total non KV", "Graph capturing",
    "CUDA graph", "Estimated CUDA", "Free memory", "Desired GPU", "Loading safetensors", "Starting to load",
    "Multi-thread loading",
    # dumps, versions, start-up done
    "ServerArgs", "LLM engine", "Using max model len", "Chunked prefill", "vLLM", "SGLang", "The server is fired",
    "Application startup", "Uvicorn running", "Starting vLLM", "Available routes",
    # vLLM V1's top-k/top-p sampler choice (v1/sample/ops/topk_topp_sampler.py; the fallbacks say "PyTorch")
    "Using FlashInfer for top", "FlashInfer version >=",
    "Skipping memory profiling",  # vLLM V1 profile_run under --skip-mm-profiling
    # vLLM's DeepSeek-V4 KV layout (tpkit.logs.settings._DSV4_FP8_LINE)
    "Using DeepSeek's",  # no digit: the prefilter reads templates with digits as 0
    # vLLM's mixed-precision kernel for a weight-only quantised linear method (tpkit.logs.settings._KERNEL_LINE)
    "Kernel for ", "Setting max_num_batched_tokens", "Supported_tasks",  # + vLLM's entrypoint (logs.run)
    # vLLM's torch.compile cache: graphs loaded or compiled in this run (tpkit.logs.settings._COMPILE_CACHE_LINES)
    "Directly load the compiled", "Directly load AOT", "Compiling a graph", "Cache the graph", "Compiling model again",
    # failures and tracebacks
    "OutOfMemory", "CUDA out of memory", "HIP out of memory", "CUDA error", "Tried to allocate", "To serve",
    "The model's max", "Based on the available", "No available memory", "Not enough memory", "Loaded weights",
    "The memory capacity", "NCCL WARN", "NCCL error", "ProcessGroupNCCL", "Error", "Exception", "Custom allreduce",
    "EngineCore failed", "Engine core", "Scheduler hit", "Failed to load model", "Received sigquit",
    "Initialization failed", "Worker failed", "Exit", "Child process unexpectedly",  # _EXCEPTION's classes end in Error, Exception or Exit
    # failures: host OOM killer (_HOST_OOM), CPU KV space (_CPU_KV), custom all-reduce CUDACHECK, vLLM V1's 'Worker proc'
    "OOM", "Out of memory: Killed", "Available memory on node", "Failed: Cuda error", "Worker proc",
    "Available memory: ",  # vLLM-Ascend's 'Available memory: N, total memory: M' bytes line (logs.ascendmem, fx38)
    "Dumping ",  # vLLM V1's failed-step dump (logs.stepdump)
    "Traceback", 'File "', "_WEIGHT", "LONG_MAX_MODEL_LEN", "_USE_MARLIN",  # + engine variables (logs.run.env_settings;
    # the templates mask digits, so VLLM_MXFP4_USE_MARLIN is found by its digit-free tail)
    # engine source names in headers, tracebacks and quoted call trees (tpkit.logs.engine.SOURCE_NAMES)
    "_runner", "_worker", "_memory", "_max_num_token",
    # GPU names
    "NVIDIA", "Tesla", "GeForce", "Instinct",
)
"""Literals that start with a capital or a rare character: the prefilter regex over every new line."""
SOURCE_TRIGGERS = ("_runner", "_worker", "_memory", "_max_num_token")
"""parts of the engine-specific source names of :data:`tpkit.logs.engine.SOURCE_NAMES`; they start with the rare
``_``, so they join the prefilter regex (one pass) rather than :data:`LOWER_TRIGGERS` (a pass each)"""
LOWER_TRIGGERS = ("max_total_num_tokens", "non-default args", "sglang", "vllm", "--", "scheduler is dead",
                  "torch.compile takes", "profiled value", "changing page_size", "api_server.py:",
                  # vLLM 0.16.0+'s banner, '█  version X' (logs.engine.LOGO_VERSION): the templates drop '█'
                  " version ",
                  # a native linker's error lines (logs.recovered.BUILD_NEEDLES, round ex34; templates read digits as 0,
                  # so 'collect2: error: ld returned 1' is found by its digit-free part)
                  "error: ld returned ", "ld: cannot find ")
"""Literals that start in lower case: tested with ``in``, which costs less than adding them to the regex."""


def _trie(words) -> str:
    """One regex for many literals, factored by common prefixes (the regex engine tries fewer branches)."""
    tree: dict = {}
    for word in words:
        node = tree
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:
        branches = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(tree)


_KEYWORDS_PATTERN = _trie(TRIGGERS)
KEYWORDS = lazy(_KEYWORDS_PATTERN)
"""the prefilter as a text regex (tools and tests); the scan runs :data:`KEYWORDS_BYTES`"""


KEYWORDS_BYTES = (re.compile(_KEYWORDS_PATTERN.encode()), re.compile(rb"pid=0{1,12}\)(?=\n|\Z)"))
"""the keyword trie, and a bare '(… pid=N)' line: ')' then a newline or the end of the joined templates.  The last
template has no newline after it, and in :func:`candidates`' distinct-template branch which template is last
depends on the set's order, i.e. on PYTHONHASHSEED: with the newline required, a log whose only worker-prefixed
lines were bare was read as a vLLM log or as no engine's from one run to the next (``explain`` exit 0 or 2;
fuzz_explain seed 32, case 4748, helper tidy31)"""
_LOWER_BYTES = tuple(w.encode() for w in LOWER_TRIGGERS)
_DIGITS_BYTES = bytes.maketrans(b"123456789", b"000000000")


def _hits(joined: bytes, lengths: list[int]) -> set[int]:
    """Indices of the lines of ``joined`` (lines of the given lengths, joined by newlines) that hold a
    trigger: two regex passes (a bare '(Worker_TP0 pid=N)' line apart: inside the keyword trie's alternation it slowed
    the 100 MB unique-line log 2.9x) and one ``find`` per lower-case trigger (C loops, no Python loop per line)."""
    ends = [end + i + 1 for i, end in enumerate(accumulate(lengths))]
    found: set[int] = set()
    for pattern in KEYWORDS_BYTES:
        pos = 0
        while (m := pattern.search(joined, pos)) is not None:
            index = bisect_right(ends, m.start())
            found.add(index)
            pos = ends[index] if index < len(ends) else len(joined)
    for word in _LOWER_BYTES:
        pos = joined.find(word)
        while pos >= 0:
            index = bisect_right(ends, pos)
            found.add(index)
            pos = joined.find(word, ends[index]) if index < len(ends) else -1
    return found


_UTF8_TAIL = bytes(range(0x80, 0xC0))


def templates(text: str, raw: bytes | None) -> list[bytes]:
    """One ASCII-ish bytes template per line, as long (in characters) as the line, digits → 0.

    From the log's UTF-8 bytes when given: deleting UTF-8 continuation bytes leaves one byte per character,
    in one ``translate`` pass; otherwise from the text (other characters become ``?``).
    """
    if raw is not None:
        return raw.translate(_DIGITS_BYTES, _UTF8_TAIL).split(b"\n")
    return text.encode("ascii", "replace").translate(_DIGITS_BYTES).split(b"\n")


def candidates(templates: list[bytes], every_line: bool = False) -> list[int]:
    """Indices of the lines holding a trigger.

    Lines are compared as templates: a log of request traffic has a few hundred templates in a million
    lines, so the trigger search covers the distinct templates, not the whole log; a log of mostly distinct
    lines is searched in one pass as it is.
    """
    if every_line:
        return list(range(len(templates)))
    unique = set(templates)
    if len(unique) * 2 > len(templates):
        return sorted(_hits(b"\n".join(templates), list(map(len, templates))))
    ordered = list(unique)
    wanted = {ordered[i] for i in _hits(b"\n".join(ordered), list(map(len, ordered)))}
    return list(compress(range(len(templates)), map(wanted.__contains__, templates)))
