"""vLLM releases whose memory rules tpkit models, as data (spec vllm-memory-and-allreduce.md §0–§3).

Three rule sets ("eras"):

    era    releases            what differs
    v0     ≤ 0.7 (V0 engine)   budget = total × util − (torch peak + all non-torch memory, CUDA context
                               included); "# GPU blocks"; no null block; profile at max(max_model_len, 2048)
    0.11   0.8 … 0.20 (V1)     budget = total × util (float) − (weights + torch peak increase + non-torch
                               increase); no CUDA-graph term; two log lines; N = blocks // groups × block
    0.33   ≥ 0.21 (V1)         budget = ceil(total × util) − (consumed + transient peak) − CUDA-graph
                               estimate; default util 0.92; one log line; N = int(concurrency × max_model_len)

The release that moved the default utilisation from 0.9 to 0.92 and the one that added ``ceil`` are
UNVERIFIED (spec §7); both are placed at the start of the 0.33 era, where the CUDA-graph estimate
became the default (v0.21.0, per vLLM's own log text).

Inside the 0.11 era, releases before 0.11.0 take the init snapshot *before* the distributed init
(vllm 0.10.1 and 0.10.2 wheels, ``v1/worker/gpu_worker.py`` ``init_device``: ``MemorySnapshot()`` then
``init_worker_distributed_environment``; 0.11.0 swaps them, "Initialize the distributed environment BEFORE
taking memory snapshot"), so their NCCL communicators and custom all-reduce buffers are non-torch memory
grown after the snapshot and charged to the budget.  cuBLAS handles are created lazily by the profile's first
GEMM up to 0.11.0 at least (no warm-up matmul in that ``init_device``); v0.33 warms them up before the
snapshot (spec §1.1).  The release that added the warm-up is UNVERIFIED; it is placed at the 0.33 era.
V1 releases before 0.9.1 still size the cache the V0 way (vllm 0.8.5 and 0.9.0 wheels,
``gpu_worker.determine_available_memory``: total × util − (torch allocated peak + all non-torch memory after
the profile)); ``memory_profiling`` with the init snapshot arrives in 0.9.1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from tpkit.errors import PlanInputError

__all__ = ["VllmRules", "RULES", "CURRENT", "resolve_rules", "parse_version"]

CURRENT = "0.33"
"""the newest vLLM release whose rules were examined (spec §0)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class VllmRules:
    """One era's memory and logging rules."""

    era: str
    """``"v0"``, ``"0.11"`` or ``"0.33"``"""
    engine: str
    """``"V0"`` or ``"V1"``"""
    default_utilization: float
    """``--gpu-memory-utilization`` default (fraction of the device total)"""
    ceil_requested: bool
    """requested = ceil(total × util) (True) or the float product (False)"""
    memory_rule: str
    """``"v0_peak"`` (V0, and V1 < 0.9.1) | ``"increase"`` | ``"consumed"`` (spec §1.6)"""
    cudagraph_estimate: bool
    """the CUDA-graph memory estimate is subtracted before KV sizing (spec §2)"""
    null_block: bool
    """one block is reserved as the null block (spec §3.6)"""
    one_line_log: bool
    """"GPU KV cache size … , Maximum concurrency …" printed as one line"""
    tokens_rule: str
    """``"blocks"`` (V0: blocks × block) | ``"groups"`` (0.11) | ``"concurrency"`` (0.33), spec §3.7"""
    fit_check_reserves_block: bool
    """the max_model_len fit check uses available − one block (spec §3.6)"""
    sliding_in_flight: bool
    """sliding-window need counts max_concurrent_batches × max_num_batched_tokens (0.33) or one batch"""
    custom_ar_buffer_mib: int
    """eager staging buffer of vLLM's custom all-reduce, MiB (spec §5.3)"""
    custom_ar_signal_bytes: int
    """sizeof(Signal) of the custom all-reduce meta buffer (spec §5.3)"""
    custom_ar_world_sizes: tuple[int, ...]
    """world sizes where custom all-reduce initialises (spec §5.2)"""
    distributed_after_snapshot: bool = False
    """V1: NCCL communicators and custom all-reduce buffers are created after the init snapshot (< 0.11.0)"""
    cublas_after_snapshot: bool = False
    """V1: cuBLAS/cuBLASLt handles are first created by the profile run, after the init snapshot"""


RULES: dict[str, VllmRules] = {
    "0.33": VllmRules(
        era="0.33", engine="V1", default_utilization=0.92, ceil_requested=True, memory_rule="consumed",
        cudagraph_estimate=True, null_block=True, one_line_log=True, tokens_rule="concurrency",
        fit_check_reserves_block=True, sliding_in_flight=True, custom_ar_buffer_mib=16,
        custom_ar_signal_bytes=4_864, custom_ar_world_sizes=(2, 4, 6, 8, 16)),
    "0.11": VllmRules(
        era="0.11", engine="V1", default_utilization=0.9, ceil_requested=False, memory_rule="increase",
        cudagraph_estimate=False, null_block=True, one_line_log=False, tokens_rule="groups",
        fit_check_reserves_block=False, sliding_in_flight=False, custom_ar_buffer_mib=8,
        custom_ar_signal_bytes=2_560, custom_ar_world_sizes=(2, 4, 6, 8), cublas_after_snapshot=True),
    "v0": VllmRules(
        era="v0", engine="V0", default_utilization=0.9, ceil_requested=False, memory_rule="v0_peak",
        cudagraph_estimate=False, null_block=False, one_line_log=False, tokens_rule="blocks",
        fit_check_reserves_block=False, sliding_in_flight=False, custom_ar_buffer_mib=8,
        custom_ar_signal_bytes=2_560, custom_ar_world_sizes=(2, 4, 6, 8)),
}
"""era name → rules"""

_ALIASES = {"current": CURRENT, "latest": CURRENT, "v1": "0.11", "v0": "v0", "V0": "v0", "V1": "0.11"}
_VERSION_RE = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?(?:[.\-+]?(?:rc|post|dev|a|b)?\d*.*)?$")


def parse_version(text: str) -> tuple[int, int, int]:
    """``"0.10.1.dev101+gbda9d0535"`` → ``(0, 10, 1)``; raises ``PlanInputError`` when unreadable."""
    m = _VERSION_RE.match(str(text))
    if not m:
        raise PlanInputError(
            f"--engine-version: cannot read {text!r} as a vLLM version; write it like '0.11', "
            f"'0.10.1', '{CURRENT}', 'current' or 'v0'")
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def resolve_rules(version: str) -> VllmRules:
    """The rule set for a version string (``"current"``, ``"0.11"``, ``"0.6.4"``, ``"v0"`` …)."""
    text = str(version).strip()
    if text in _ALIASES:
        return RULES[_ALIASES[text]]
    parsed = parse_version(text)
    if parsed < (0, 2, 0):
        raise PlanInputError(f"--engine-version {text}: vLLM releases before 0.2 are not modelled; use 0.2 or later")
    if parsed < (0, 8, 0):
        return RULES["v0"]
    if parsed < (0, 9, 1):
        return replace(RULES["0.11"], memory_rule="v0_peak", distributed_after_snapshot=True)
    if parsed < (0, 11, 0):
        return replace(RULES["0.11"], distributed_after_snapshot=True)
    if parsed < (0, 21, 0):
        return RULES["0.11"]
    return RULES["0.33"]
