"""Failures in a log: what went wrong, its numbers, and the start-up phase it happened in.

Phases (the ``phase`` of a failure)::

    weights        loading the checkpoint
    kv_pool        sizing or allocating the KV cache (SGLang profile + pools; vLLM profile run, KV check,
                   KV tensors)
    cuda_graph     CUDA-graph capture, or vLLM's CUDA-graph memory estimate
    first_request  after start-up: warm-up or the first requests
    imbalance      SGLang's TP memory-imbalance check
    other          before the weights (distributed init, the vLLM free-memory check) or unknown

The phase comes from, in order: the failure's own kind (a "not enough KV cache" error is ``kv_pool``),
the frames of the traceback it ends (``capture_model`` → ``cuda_graph``), and the last start-up step
the same rank logged before it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from tpkit.logs.recovered import BUILD_NEEDLES, build_notices, first_build_error
from tpkit.logs.lazyre import lazy
from tpkit.logs.oommessage import oom_message as _oom
from tpkit.logs.phases import (_LOAD_OOM, MARKER_NEEDLES, STEP_ORDER, dummy_run_phase,  # noqa: F401
                               frame_phase, load_only_phase, load_phase, marker, marker_phase, traceback_phase,
                               warmup_phase)
from tpkit.logs.prefix import RankKey
from tpkit.logs.printed import PrintedCount, PrintedSize, count_from_text, size_from_text
from tpkit.records import dataclass

__all__ = ["Failure", "PHASES", "KINDS", "detect", "frame_phase", "traceback_phase", "dummy_run_phase", "marker",
           "marker_phase", "FAILURE_NEEDLES", "ROOT_KINDS", "POOL_SLOT_ERRORS", "TB_FIRST", "cut_header"]

PHASES = ("weights", "kv_pool", "cuda_graph", "first_request", "imbalance", "other")
KINDS = ("cuda_oom", "kv_too_small", "no_kv_memory", "kv_budget_non_positive", "imbalance",
         "startup_free_memory", "cuda_graph_capture_failed", "cpu_kv_space", "host_oom_killed", "hybrid_state_memory",
         "nccl_error", "pool_exhausted", "custom_allreduce_disabled", "engine_start_failed", "exception")
ROOT_KINDS = KINDS[:12]
"""kinds that name a cause; the others (a generic exception, "EngineCore failed to start") only say that
something failed"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Failure:
    """One failure or warning, with its evidence."""

    kind: str
    """one of :data:`KINDS`"""
    severity: str
    """``"error"`` or ``"warning"``"""
    phase: str | None
    """one of :data:`PHASES`; None for warnings"""
    phase_evidence: str
    """why this phase: the kind, a traceback frame, or the last start-up step"""
    rank: RankKey
    line_no: int
    evidence: str
    """the line (clipped to 400 characters)"""
    sizes: tuple[tuple[str, PrintedSize], ...] = ()
    """e.g. ("requested", …), ("free", …), ("total", …), ("process_in_use", …)"""
    counts: tuple[tuple[str, PrintedCount], ...] = ()
    """e.g. ("max_model_len", …), ("kv_tokens", …)"""
    detail: str = ""
    """free text: the custom all-reduce reason, the exception type …"""
    occurrences: int = 1
    """how often the same failure was printed (ranks re-raise, engines repeat)"""

    def size(self, name: str) -> PrintedSize | None:
        return next((s for n, s in self.sizes if n == name), None)

    def count(self, name: str) -> PrintedCount | None:
        return next((c for n, c in self.counts if n == name), None)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "severity": self.severity, "phase": self.phase,
                "phase_evidence": self.phase_evidence, "rank": self.rank.label, "line_no": self.line_no,
                "evidence": self.evidence, "sizes": {n: s.to_dict() for n, s in self.sizes},
                "counts": {n: c.to_dict() for n, c in self.counts}, "detail": self.detail,
                "occurrences": self.occurrences}


_OOM = lazy(r"OutOfMemoryError|(?:CUDA|HIP|XPU|NPU) out of memory|CUDA (?:driver )?error: out of memory|"
                  r"CUDA Error: out of memory at \S|"
                  r"cudaErrorMemoryAllocation|RuntimeError: out of memory|NCCL WARN .{0,80}out of memory|"
                  r"Tried to allocate \d|has a total capac(?:ity|ty) of \d")
"""a CUDA out-of-memory error in any of its wordings. 'CUDA driver error: out of memory' is torch's for a failed
driver-API call (``C10_CUDA_DRIVER_CHECK``, torch 2.13 include/c10/cuda/driver_api.h: "CUDA driver error: " and the
driver's error string, which is "out of memory" for
CUDA_ERROR_OUT_OF_MEMORY): a custom op allocating through the driver, e.g. vLLM's ``gptq_marlin_repack``
(noonghunna/club-3090#60, round ex28's vl_1142). 'CUDA Error: out of memory at FILE:LINE' is vLLM's sleep-mode
allocator's CUDA_CHECK (the format string "CUDA Error: %s at %s:%d" in the 0.8.5 wheel's ``cumem_allocator.abi3.so``;
the driver's string for CUDA_ERROR_OUT_OF_MEMORY), raised from ``create_and_map`` (round ex35: vllm#13941)"""
_CUSTOM_AR_CUDACHECK = lazy(r"Failed: Cuda error (\S{1,300}):(\d{1,7}) '([^'\n]{1,160})'")
"""the CUDACHECK macro of the custom all-reduce kernels: ``printf("Failed: Cuda error %s:%d '%s'\\n", __FILE__,
__LINE__, cudaGetErrorString(e))`` (the format string is in vLLM 0.11.0's ``_C.abi3.so``; vllm#56180 prints it from
``custom_all_reduce.cuh:164`` after CUDA-graph capture, then 'Worker proc VllmWorker-0 died unexpectedly'): the worker
ends with no Python traceback, so the line is the only failure it leaves (round ex28's vl_1153)"""
_V0_TOO_SMALL = lazy(r"max seq len \((\d{1,24})\) is larger than the maximum number of tokens that can be stored "
                           r"in KV cache \((\d{1,24})\)")
_V1_TOO_SMALL = lazy(r"max seq len \((\d{1,24})\)")
_V1_NEEDED = lazy(r"\(?(\d{1,24}(?:\.\d{1,12})?) ?GiB KV cache is needed")
_V1_AVAILABLE = lazy(r"available KV cache memory \((-?\d{1,24}(?:\.\d{1,12})?) ?GiB\)")
_V1_ESTIMATE = lazy(r"estimated maximum model length is (\d{1,24})")
_IMBALANCE = lazy(r"(min_per_gpu_memory|pre_model_load_memory|local_gpu_memory \* 0\.9|local_gpu_memory)"
                  r"(?:=| (?:threshold )?(?:around|of|at|is) )(-?\d{1,24}(?:\.\d{1,12})?(?:e-?\d{1,3})?)")
"""SGLang's 'pre_model_load_memory=…, local_gpu_memory=…, local_gpu_memory * 0.9=…' (GiB, unrounded), also as a
report paraphrases it ('pre_model_load_memory around 147.9 GiB')"""
_IMBALANCE_PAIR = lazy(r"\b(\d{1,6}(?:\.\d{1,6})?) ?(GiB|GB) vs\.? (\d{1,6}(?:\.\d{1,6})?) ?(GiB|GB)\b")
"""a report's 'A GB vs B GB' beside the unbalanced-capacity error, when SGLang's key=value numbers are not quoted:
the smaller is the minimum over the ranks, the larger the local rank (SGLang prints GB but divides by 2**30)"""
_HYBRID_STATE = (
    ("max_mamba_cache_size", lazy(r"max_mamba_cache_size=(-?\d{1,24})"), "count"),
    ("total_rest_memory", lazy(r"total_rest_memory=(-?\d{1,24}(?:\.\d{1,12})?) ?GB"), "GiB"),
    ("mamba_cache_per_req", lazy(r"mamba_cache_per_req=(\d{1,24}(?:\.\d{1,12})?) ?MB"), "MiB"),
)
"""SGLang's 'Not enough GPU memory for hybrid (mamba/linear-attention) state cache. Computed max_mamba_cache_size=K
(total_rest_memory=R GB, mamba_cache_per_req=P MB). Try: …' (``_handle_max_mamba_cache``: model_runner_kv_cache_mixin
.py 0.5.13–0.5.15, mem_cache/kv_cache_configurator.py 0.5.16–0.5.23, the same words; not in 0.5.9): R in GiB (divided by 1 << 30), P in MiB
(divided by 1 << 20); K ≤ 0 raises it"""
_NUM = r"(\d{1,24}(?:\.\d{1,12})?)"
_STARTUP = lazy(r"\(" + _NUM + "/" + _NUM + r" GiB\).{0,80}utilization \(" + _NUM + ", "
                      r"(\d{1,24}(?:\.\d{1,12})?) GiB\)")
_PROFILED = lazy(r"larger than the profiled value (-?\d{1,24})")
_FRACTION = lazy(r"(?:mem_fraction_static=|--mem-fraction-static above )(\d{1,24}(?:\.\d{1,12})?)")
_WEIGHTS_FLOOR = (
    ("run_mem_fraction_static", lazy(r"leave no GPU memory for the KV cache under --mem-fraction-static=(\d(?:\.\d{1,12})?)"),
     "the fraction the run used (SGLang's 'Loaded weights leave no GPU memory' error)"),
    ("suggested_mem_fraction_static", lazy(r"Raise --mem-fraction-static above (\d(?:\.\d{1,12})?)"),
     "SGLang's suggested fraction: ceil(minimum × 1000) / 1000"),
    ("minimum_mem_fraction_static", lazy(r"minimum viable = (?:1 - available/pre = )?(\d(?:\.\d{1,12})?)"),
     "SGLang's minimum viable fraction: 1 − free memory after the load / pre-load memory"),
)
"""SGLang's 'Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=F. Raise
--mem-fraction-static above S (minimum viable = 1 - available/pre = M).' (sglang 0.5.16
``mem_cache/kv_cache_configurator.py`` ``_profile_available_bytes``: raised when available − pre × (1 − F) ≤ 0,
with M = 1 − available / pre and S = ceil(M × 1000) / 1000): each number read wherever a paste wraps or elides the
message (``_no_kv`` reads the flattened region)"""
_CPU_KV = lazy(r"Available memory on node \d{1,4} \(" + _NUM + "/" + _NUM + r" GiB\) on kv cache allocation is less "
                r"than requested memory for kv \(" + _NUM + r" GiB\)")
"""vLLM's CPU backend: 'Available memory on node N (A/T GiB) on kv cache allocation is less than requested memory for
kv (R GiB). Decrease --kv-cache-memory-bytes, VLLM_CPU_KVCACHE_SPACE, …' (``v1/worker/cpu_worker.py``
``CPUWorker.determine_available_memory``, read in the 0.27.1, 0.29.0 and 0.30.0 wheels: raised when the KV space set
explicitly, --kv-cache-memory-bytes or VLLM_CPU_KVCACHE_SPACE in whole GiB (``platforms/cpu.py``), exceeds the NUMA
node's available host memory)"""
_HOST_OOM = lazy(r"OOM[- ]?[Kk]illed|OOMKilled|Out of memory: Killed process")
"""the host's out-of-memory killer, in the words of the kernel ('Out of memory: Killed process N'), of a container
runtime's state ('OOMKilled') or of a report ('was OOM-killed (exit 137)'): host RAM, not
device memory. A bare 'Killed' is not enough (a SIGKILL after a child's sigquit prints the same, sg_034)"""
# 'NCCL error: {' is the raise statement's source line a traceback quotes (``raise RuntimeError(f"NCCL error:
# {error_str}")``, pynccl_wrapper.py NCCL_CHECK), not the error: the exception line below it names the result (ex31)
_NCCL = lazy(r"NCCL error(?!: \{)|nccl(?:UnhandledCudaError|InternalError|SystemError|InvalidUsage|RemoteError|"
                   r"InvalidArgument)|DistBackendError|NCCL WARN|ProcessGroupNCCL.{0,80}(?:[Tt]imeout|[Ww]atchdog)")
_NCCL_RESULT = lazy(r"NCCL error(?: in: [^,\n]{1,300},)?:?[ \t]*([a-z][a-z ]{2,80}?)(?=[ \t]*(?:\(|-|,|$))", re.M)
"""the NCCL result string after 'NCCL error': vLLM's ``NCCLLibrary.NCCL_CHECK`` raises
``RuntimeError(f"NCCL error: {error_str}")`` with ``ncclGetErrorString(result)``
(distributed/device_communicators/pynccl_wrapper.py, 0.11.0 wheel; the same text in V0 logs of 0.5.4, vllm#7800),
and torch's ``C10D_NCCL_CHECK`` writes 'NCCL error in: FILE:LINE, ' then ``ncclGetErrorWithVersion(result)``
(torch/csrc/distributed/c10d/NCCLUtils.hpp, torch 2.x headers): 'unhandled system error', 'unhandled cuda error',
'internal error', 'invalid usage', 'remote process exited or there was a network error' (round ex31)"""
POOL_SLOT_ERRORS = {
    "alloc_token_slots": "Out of memory. Try to lower your batch size.",
    "alloc_paged_token_slots_extend": "Prefill out of memory. Try to lower your batch size.",
    "alloc_paged_token_slots_decode": "Decode out of memory. Try to lower your batch size.",
    "alloc_req_slots": "alloc_req_slots runs out of memory. Please set a smaller number for `--max-running-requests`.",
}
"""SGLang's run-time pool allocators and the one error each raises when a scheduled batch finds no free slots (its
first line): the KV pool's token slots (``alloc_token_slots``, ``alloc_paged_token_slots_extend`` / ``_decode``) or
the request-to-token pool's rows (``alloc_req_slots``).  ``RuntimeError(error_msg)`` is each function's only raise:
sglang 0.5.9 ``mem_cache/common.py``, 0.5.23 ``mem_cache/allocation.py``; 0.4.0–0.4.7 raise "{phase_str} out of
memory. Try to lower your batch size." (Prefill or Decode) and the request-slot error from
``managers/schedule_batch.py``, 0.2.15 logs the prefill wording there.  Neither is a CUDA allocation: the pools exist
and are full (round ex29: sglang#10408, sglang#26265).  The one home of these messages: ``_POOL_SLOTS`` (the failure
kind ``pool_exhausted``), ``FAILURE_NEEDLES`` and ``explain.unnamed`` (a traceback cut in one of these frames) read
them from here."""


def _slot_needle(message: str) -> str:
    """What a log must show of a ``POOL_SLOT_ERRORS`` message to be read as it: the text before its "Please …" advice,
    without the final stop ("Prefill out of memory. Try to lower your batch size"; "alloc_req_slots runs out of
    memory", all an issue title or a cut paste may quote)."""
    return message.split(". Please", 1)[0].rstrip(".")


_POOL_SLOTS = lazy("|".join(re.escape(_slot_needle(m)) for m in POOL_SLOT_ERRORS.values()))
"""any ``POOL_SLOT_ERRORS`` message (``pool_exhausted``).  No SGLang wheel read (0.2.15–0.5.23) prints an "Extend out
of memory" that an earlier pattern also admitted: ``phase_str`` is "Prefill" or "Decode" (helper tidy30)"""
_CAR = lazy(r"Custom allreduce is disabled (?:because |due to )?(.{0,200})")
_START = lazy(r"EngineCore failed to start|Engine core initialization failed|Scheduler hit an exception|"
                    r"Received sigquit from a child process|Initialization failed|Worker failed with error|"
                    r"Error executing method|Exception in run_tp_server|Exception in ModelTpServer|"
                    r"scheduler is dead")

_QUOTING = lazy(r"(?m)^[ \t]*>+|`+")
"""markdown quoting of a pasted, wrapped message"""

_NPU_CAPTURE = "begin capture stream failed"
_MEMSAVER = "[torch_memory_saver.cpp]"  # logs.memsaver.NEEDLE
"""CANN's ACL line for a failed NPU graph-capture begin (``logs.npucapture.NEEDLE``; a test keeps the two equal)"""

TB_FIRST = "Traceback (most recent call last):"
"""the first line of a Python traceback (``traceback.format_exception``).  SGLang's scheduler logs
``f"Scheduler hit an exception: {traceback}"`` with ``get_exception_traceback()`` = ``"".join(traceback.
format_exception(…))`` (managers/scheduler.py ``run_scheduler_process`` and sglang/utils.py, 0.4.3.post2 and 0.5.9
wheels), so the header's own line ends in this line of the traceback it quotes, never in the error"""

FAILURE_NEEDLES = ("OutOfMemory", "out of memory", "Failed to load model - not enough GPU memory", "Tried to allocate",
                   "total capacity", "cudaErrorMemoryAllocation", "Available memory on node",
                   "max seq len",
                   "No available memory for the cache blocks", "Not enough memory", "leave no GPU memory",
                   "memory capacity is unbalanced", "GPU memory for hybrid", "Free memory on device",
                   "Capture cuda graph failed", "Failed: Cuda error", _NPU_CAPTURE, _MEMSAVER,
                   "NCCL", "nccl", "DistBackendError", "OOM-killed", "OOM killed", "OOMKilled", "Killed process",
                   "Custom allreduce is disabled", "EngineCore failed", *BUILD_NEEDLES,
                   "Engine core initialization failed", "Scheduler hit an exception", "sigquit",
                   "Initialization failed", "Worker failed", "Error executing method", "profiled value",
                   "Exception in run_tp_server", "Exception in ModelTpServer", "scheduler is dead",
                   *(_slot_needle(m) for m in POOL_SLOT_ERRORS.values()))


def _gib(text: str, meaning: str) -> PrintedSize | None:
    return size_from_text(text, "GiB", meaning=meaning)


def _too_small(message: str) -> tuple[tuple, tuple, str] | None:
    """vLLM's not-enough-KV error's numbers.  ``detect`` reads its region twice: with the line break after the record
    as a space, then, when that finds no such error, with no separator at all: a terminal that hard-wraps a paste at
    its width cuts words ("… (4.26 GiB KV cach" / "e is needed, …", SergiioB/intel-arc-pro-b70-inference-cookbook#4,
    round ex28's vl_1140); the second reading only adds matches the first could not make."""
    message = " ".join(message.split())
    m = _V0_TOO_SMALL.search(message)
    if m:
        counts = (("max_model_len", count_from_text(m.group(1), meaning="max_model_len")),
                  ("kv_tokens", count_from_text(m.group(2), meaning="KV capacity in tokens (blocks × block size)")))
        return (), counts, "V0: max_model_len is larger than the KV capacity"
    if "KV cache is needed" not in message and "estimated maximum model length" not in message:
        return None
    sizes, counts = [], []
    for name, pattern in (("needed", _V1_NEEDED), ("available", _V1_AVAILABLE)):
        m = pattern.search(message)
        if m:
            sizes.append((name, _gib(m.group(1), f"KV bytes {name} (GiB)")))
    for name, pattern in (("max_model_len", _V1_TOO_SMALL), ("estimated_max_len", _V1_ESTIMATE)):
        m = pattern.search(message)
        if m:
            counts.append((name, count_from_text(m.group(1), meaning=name.replace("_", " "))))
    return tuple(sizes), tuple(counts), "V1: one request of max_model_len does not fit in the KV budget"


def _imbalance(message: str) -> tuple[tuple, tuple, str]:
    sizes = []
    for key, number in _IMBALANCE.findall(message):
        name = {"local_gpu_memory * 0.9": "local_times_0_9", "min_per_gpu_memory": "pre_model_load_memory"}.get(
            key, key)
        size = _gib(number, f"SGLang imbalance check: {key} (GiB, unrounded)")
        if size is not None and all(n != name for n, _ in sizes):
            sizes.append((name, size))
    if not sizes:
        pair = _IMBALANCE_PAIR.search(message)
        if pair:
            a, b = _gib(pair.group(1), "a report's lower free memory beside the imbalance error"), \
                _gib(pair.group(3), "a report's higher free memory beside the imbalance error")
            if a is not None and b is not None:
                low, high = sorted((a, b), key=lambda z: z.value.bytes)
                sizes = [("pre_model_load_memory", low), ("local_gpu_memory", high)]
    return tuple(sizes), (), "some GPU has more than 10% less free memory than this one (other processes?)"


def _hybrid_state(message: str) -> tuple[tuple, tuple, str]:
    sizes, counts = [], []
    for name, pattern, unit in _HYBRID_STATE:
        m = pattern.search(message)
        if not m:
            continue
        if unit == "count":
            counts.append((name, count_from_text(m.group(1), meaning="SGLang's computed max_mamba_cache_size")))
        else:
            sizes.append((name, size_from_text(m.group(1), unit, meaning=f"SGLang hybrid state cache: {name} "
                                                                        f"({unit}, printed GB/MB)")))
    return tuple(sizes), tuple(counts), "no request slot of the hybrid (mamba / linear-attention) state pool fits"


def _startup(message: str) -> tuple[tuple, tuple, str]:
    m = _STARTUP.search(message)
    if not m:
        return (), (), "free memory below gpu_memory_utilization × total"
    sizes = (("free", _gib(m.group(1), "free memory at start-up (GiB)")),
             ("total", _gib(m.group(2), "device total (GiB)")),
             ("requested", _gib(m.group(4), "total × gpu_memory_utilization (GiB)")))
    counts = (("gpu_memory_utilization", count_from_text(m.group(3), meaning="gpu_memory_utilization")),)
    return tuple((n, s) for n, s in sizes if s), counts, "free memory below gpu_memory_utilization × total"


def _no_kv(message: str) -> tuple[tuple, tuple, str]:
    m = _FRACTION.search(message)
    counts = ((("mem_fraction_static", count_from_text(m.group(1), meaning="fraction named in the error")),)
              if m else ())
    for name, pattern, meaning in _WEIGHTS_FLOOR:
        hit = pattern.search(message)
        if hit:
            counts += ((name, count_from_text(hit.group(1), meaning=meaning)),)
    return (), tuple((n, c) for n, c in counts if c), ""


def _region(message: str, after: str, at: int) -> str:
    """The text around a keyword at ``at``, continued into the lines after the record (wrapped messages)."""
    text = message[max(0, at - 300):at + 1500]
    return text + after[:1500] if at + 1500 >= len(message) else text


def _flat(text: str) -> str:
    return " ".join(_QUOTING.sub(" ", text).split())


def _first(message: str, *needles: str) -> int:
    return min((at for at in (message.find(n) for n in needles) if at >= 0), default=-1)


DETAIL_CHARS = 200
"""where a ``detail`` taken from the message is cut (graph capture, start header, NCCL WARN): one length for every kind
(tidy34; the NCCL WARN's former 240 had no reason a test shows, and the corpus' NCCL details are all shorter)"""


def detect(message: str, after: str) -> list[tuple[str, str, tuple, tuple, str]]:
    """(kind, severity, sizes, counts, detail) for every failure named in one record.

    ``after`` holds the lines that follow the record (engine messages are often wrapped in pastes).  Every
    number is read near its keyword, so a long line costs one pass, not one per number.
    """
    found = []
    m = _OOM.search(message) or _LOAD_OOM.search(message)
    if m:
        # vLLM's weight-load message carries the torch error in "(original error: …)", which a paste may wrap onto
        # the next lines: its numbers are read from the region after it (load_phase)
        found.append(("cuda_oom", "error", *_oom(_flat(_region(message, after, m.start())))))
    at = message.find("max seq len")
    region = _region(message, after, at) if at >= 0 else ""
    too_small = (_too_small(_flat(region)) or _too_small(_flat(region.replace("\n", "", 1)))) if at >= 0 else None
    if too_small:
        found.append(("kv_too_small", "error", *too_small))
    at = _first(message, "No available memory for the cache blocks", "Not enough memory. Please try",
                "leave no GPU memory")
    if at >= 0:
        found.append(("no_kv_memory", "error", *_no_kv(_flat(_region(message, after, at)))))
    m = _POOL_SLOTS.search(message)
    if m:
        found.append(("pool_exhausted", "error", (), (), m.group(0)))
    found += _host_failures(message, after)
    at = message.find("memory capacity is unbalanced")
    if at >= 0:
        found.append(("imbalance", "error", *_imbalance(_flat(_region(message, after, at)))))
    at = message.find("GPU memory for hybrid")
    if at >= 0:
        found.append(("hybrid_state_memory", "error", *_hybrid_state(_flat(_region(message, after, at)))))
    at = message.find("Free memory on device")
    near = _flat(_region(message, after, at)) if at >= 0 else ""
    if at >= 0 and "less than desired" in near[:500]:
        found.append(("startup_free_memory", "error", *_startup(near)))
    m = _PROFILED.search(message)
    if m and m.group(1).startswith("-"):
        count = count_from_text(m.group(1), meaning="KV tokens SGLang profiled (negative: no room for the KV pool)")
        found.append(("kv_budget_non_positive", "error", (), (("profiled_tokens", count),),
                      "the profiled KV token count is negative"))
    m = _CUSTOM_AR_CUDACHECK.search(message)
    if m:
        found.append(("exception", "error", (), (), f"CUDA error: {m.group(3)} ({m.group(1).rsplit('/', 1)[-1]}:"
                                                   f"{m.group(2)}, a CUDACHECK exit)"))
    if "Capture cuda graph failed" in message:
        found.append(("cuda_graph_capture_failed", "error", (), (),
                      message.split("failed:", 1)[-1].strip()[:DETAIL_CHARS]))
    if _NPU_CAPTURE in message:  # CANN's failed NPU capture begin (logs.npucapture, imported only here: cold start)
        from tpkit.logs.npucapture import npu_capture_failures
        found += npu_capture_failures(message)
    if _MEMSAVER in message:  # torch_memory_saver's failed call (logs.memsaver, imported only here: cold start)
        from tpkit.logs.memsaver import memsaver_failures
        found += memsaver_failures(message)
    found += _notices(message, oom=any(f[0] == "cuda_oom" for f in found))
    start = _START.search(message) if not found else None
    if start:  # not the traceback the header goes on to quote (``TB_FIRST``)
        found.append(("engine_start_failed", "error", (), (),
                      message[start.start():].strip().removesuffix(TB_FIRST).rstrip(" :")[:DETAIL_CHARS]))
    return [(k, s, tuple((n, v) for n, v in sz if v), tuple((n, v) for n, v in ct if v), d)
            for k, s, sz, ct, d in found]


def _host_failures(message: str, after: str) -> list[tuple]:
    """Failures of host memory, not device memory: the host's OOM killer, the CPU backend's KV space."""
    found = []
    if _HOST_OOM.search(message):
        found.append(("host_oom_killed", "error", (), (),
                      "the host's OOM killer ended the process: host RAM ran out, not device memory"))
    at = message.find("Available memory on node")
    m = _CPU_KV.search(_flat(_region(message, after, at))) if at >= 0 else None
    if m:
        sizes = (("free", _gib(m.group(1), "available host memory on the NUMA node (GiB)")),
                 ("total", _gib(m.group(2), "the node's host memory (GiB)")),
                 ("requested", _gib(m.group(3), "KV space set explicitly (GiB)")))
        found.append(("cpu_kv_space", "error", tuple((n, z) for n, z in sizes if z), (),
                      "the CPU backend's KV space exceeds the node's available host memory"))
    return found


def _notices(message: str, *, oom: bool) -> list[tuple]:
    """NCCL errors and warnings, and the custom all-reduce 'disabled because …' warning."""
    out = []
    m = _NCCL.search(message)
    if m:
        detail = m.group(0) if m.group(0) != "NCCL WARN" else message[m.start():].strip()[:DETAIL_CHARS]
        if m.group(0) != "NCCL WARN" and (result := _NCCL_RESULT.search(message)):
            detail = f"NCCL error: {result.group(1)}"
        out.append(("nccl_error", "warning" if m.group(0) == "NCCL WARN" and not oom else "error", (), (), detail))
    m = _CAR.search(message)
    if m:
        out.append(("custom_allreduce_disabled", "warning", (), (), m.group(1).strip()))
    return out + build_notices(message)


KIND_ENGINE = {"kv_too_small": "vllm", "startup_free_memory": "vllm", "cpu_kv_space": "vllm", "imbalance": "sglang",
               "cuda_graph_capture_failed": "sglang", "hybrid_state_memory": "sglang", "pool_exhausted": "sglang"}
"""failures whose wording only one engine prints"""

KIND_PHASE = {"kv_too_small": "kv_pool", "no_kv_memory": "kv_pool", "kv_budget_non_positive": "kv_pool",
              "imbalance": "imbalance", "startup_free_memory": "other", "cuda_graph_capture_failed": "cuda_graph",
              "cpu_kv_space": "kv_pool", "host_oom_killed": "other", "hybrid_state_memory": "kv_pool",
              "pool_exhausted": "first_request"}


def npu_capture_phase(message: str) -> tuple[str, str] | None:
    """``logs.npucapture.npu_capture_phase``, imported only for a record that carries its line (cold start)."""
    if _NPU_CAPTURE not in message:
        return None
    from tpkit.logs.npucapture import npu_capture_phase as phase
    return phase(message)


def memsaver_phase(message: str) -> tuple[str, str] | None:
    """``logs.memsaver.memsaver_phase``, imported only for a record that carries its line (cold start)."""
    if _MEMSAVER not in message:
        return None
    from tpkit.logs.memsaver import memsaver_phase as phase
    return phase(message)


def cut_header(failure: Failure, warnings: list[Failure]) -> Failure:
    """An engine's start-failure header (``engine_start_failed``) whose own traceback is cut before its exception
    line: the detail says so, and names NCCL's last warning among ``warnings`` (those logged before it).  NCCL writes
    a warning as ``"\\n%s:%d:%d [%d] %s:%d NCCL WARN "`` + its text (host, pid, tid, device, source file and line;
    ``ncclDebugLog`` in NCCL's src/debug.cc) before the failing call returns its error to the engine, so with the
    exception line cut it is the only cause the log prints (round ex33: sglang#3820's 'socketPollConnect … No route
    to host' above a scheduler traceback cut in ``ModelRunner.__init__``); likewise a native linker's error line
    (``logs.recovered``, round ex34: 'ld: cannot find -lcuda' above an EngineCore traceback cut in the profile run)."""
    detail = f"{failure.detail.rstrip('.')}: its traceback is cut before the exception line"
    nccl = [w.detail for w in warnings if w.kind == "nccl_error" and w.detail.startswith("NCCL WARN ")]
    built = first_build_error(warnings)  # a linker's error above it (``logs.recovered``, round ex34)
    return replace(failure, detail=detail + (f"; NCCL's last warning before it: {nccl[-1]}" if nccl else "")
                   + (f"; the native build's error before it: {built}" if built else ""))


def engine_dead_phase(text: str, line_no: int) -> tuple[str, str] | None:
    """``logs.enginedead.engine_dead_phase``, imported only for a log that names vLLM's EngineDeadError (cold start)."""
    if "EngineDeadError" not in text:
        return None
    from tpkit.logs.enginedead import engine_dead_phase as phase
    return phase(text, line_no)


def served_phase(text: str, line_no: int) -> tuple[str, str] | None:
    """A cut traceback placed in serving by a line vLLM V1 logs only on a running engine: its ``EngineDeadError``
    (``logs.enginedead``) or its failed-step dump (``logs.stepdump``, round ex38), each imported only when named."""
    dead = engine_dead_phase(text, line_no)
    if dead or "Dumping " not in text:
        return dead
    from tpkit.logs.stepdump import step_dump_phase

    return step_dump_phase(text, line_no)


def abandoned_capture(text: str) -> Failure | None:
    """``logs.capturequit``'s capture left before its last batch, as a cut ``exception`` in ``cuda_graph`` on the
    registration line's rank; imported only for a log that has the all-reduce's registration line (cold start)."""
    if "cuda graph addresses" not in text:
        return None
    from tpkit.logs.capturequit import abandoned_capture as quit_at
    from tpkit.logs.prefix import MAIN, split_records
    from tpkit.logs.text import clean_line
    found = quit_at(text)
    if found is None:
        return None
    line_no, evidence, detail = found
    records = split_records(clean_line(text.split("\n", line_no)[line_no - 1][:4000])[0])
    rank = next((r.rank for r in reversed(records) if r.rank is not None), MAIN)
    return Failure(kind="exception", severity="error", phase="cuda_graph", rank=rank, line_no=line_no,
                   phase_evidence="a capture bar below N/N, then the graph-buffer registration that ends the capture "
                                  "context", evidence=evidence, detail=detail)
