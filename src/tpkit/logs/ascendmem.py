"""vLLM-Ascend's own KV-budget line: ``Available memory: N, total memory: M`` (helper fx38, 2026-12-08, issue 12;
docs/accuracy.md §7.3 round fx38).

Facts read in the vllm-project/vllm-ascend repository (not copied): ``NPUWorker.determine_available_memory``
(``vllm_ascend/worker/worker_v1.py`` at tags v0.9.1rc2 … v0.12.0rc1, ``vllm_ascend/worker/worker.py`` at v0.13.0rc1 …
v0.14.0rc1; not at v0.9.1rc1 and earlier, nor at v0.15.0rc1 and later, which print vLLM's 'Available KV cache memory:
X GiB') reads ``M`` = the device total from ``NPUPlatform.mem_get_info()`` before the profile run, runs
``profile_run``, and prints ``N`` = ``int(max(M × gpu_memory_utilization − peak, 0))``, the peak being torch_npu's
'allocated_bytes.all.peak' plus the non-torch memory ``mem_get_info`` shows after the run (HCCL buffers …); both are
raw integers of **bytes**, no unit word, logged at INFO by the worker (``logger.info(f"Available memory: …")``).

So ``N`` means what vLLM's 'Available KV cache memory' means on CUDA (the KV budget of one worker, anchor
``available_kv``) and ``M`` what V0's 'total_gpu_memory' means (the device total, anchor ``total_gpu_memory``); ``N``
is clamped at 0, so a printed 0 is a budget ≤ 0 (``logs.reader._derived_failures`` reads it as one).  The line is
read by ``logs.rules`` (the hook) with :data:`NEEDLE` and these patterns; the prefilter's trigger is
:data:`TRIGGER`.  Neither engine prints these words elsewhere: SGLang's warm-up line 'Required memory for warmup: …,
Available memory: 15.07GB' carries a unit word and no 'total memory' (0.5.x ``cuda_graph_runner``), and vLLM's CPU
back end prints 'Available memory on node N (A/T GiB)' (``logs.failures``)."""

from __future__ import annotations

from tpkit.logs.lazyre import lazy

__all__ = ["NEEDLE", "TRIGGER", "AVAILABLE", "TOTAL", "DIVISOR_BYTES", "RELEASES"]

NEEDLE = ", total memory: "
"""the literal a record must hold (the comma and 'total memory' tie the two numbers of one line)"""
TRIGGER = "Available memory: "
"""the prefilter's literal (``logs.prefilter.TRIGGERS``)"""
AVAILABLE = lazy(r"\bAvailable memory: (\d{1,16}), total memory: \d{1,16}\b(?![.\d])(?! ?[KMGT]i?B)")
"""group 1: N, the KV budget in bytes (an integer followed by the total; a number with a unit word is another line)"""
TOTAL = lazy(r"\bAvailable memory: \d{1,16}, total memory: (\d{8,16})\b(?![.\d])(?! ?[KMGT]i?B)")
"""group 1: M, the device total in bytes (≥ 10^8: a device total; a line cut inside the number reads fewer digits,
so a total under 100 MB is taken as cut and not read)"""
DIVISOR_BYTES = 1
"""the numbers are raw bytes: ``PrintedSize`` with divisor 1 (exact)"""
RELEASES = "vLLM-Ascend v0.9.1rc2–v0.14.0rc1"
"""the plug-in releases that print the line (tags read: every tag from v0.7.1rc1 to v0.25.1rc1)"""
