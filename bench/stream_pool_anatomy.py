"""What torch's CUDA stream pool is made of on one GPU: the streams it creates and the device memory each takes.

Why (issue 12, helper cap31b, docs/accuracy.md §7 "The NVIDIA capacity misses, round cap31b"): SGLang 0.5.9+ builds
torch's stream pool after its pre-load sample at world size 1 (``tpkit/engines/sglang/streams.py``), and tpkit
charges the 70 MiB ``scripts/stream_pool_memory_check.py`` measured on an H100 / H200.  RTX 4090 logs (sg_741,
sg_762-sg_764) place the same term at 11-36 MiB.  The torch side is source: ``c10/cuda/CUDAStream.cpp``
``getStreamFromPool`` -> ``initDeviceStreamState`` creates, on the first pool request for a device, ``kStreamsPerPool``
(32) streams for each of ``max_stream_priorities`` priorities, ``min(max_compile_time_stream_priorities`` (4, in
``c10/cuda/CUDAStream.h`` of torch 2.13), ``cudaDeviceGetStreamPriorityRange``'s span), all at once (ROCm creates
each stream lazily, Note [HIP Lazy Streams]).  The bytes each ``cudaStreamCreateWithPriority`` takes are the
closed driver's.  This script splits the measured total into those two factors on the card it runs on:

* ``torch``: free memory before / after the process's first ``torch.cuda.Stream()`` (the whole pool), with the
  default ``CUDA_DEVICE_MAX_CONNECTIONS`` and with 1 and 32 (each in a fresh process);
* ``raw``: the same number of streams created one by one through the driver API (``cuStreamCreateWithPriority``,
  torch's order: index outer, priority inner), the free-memory drop after each, then 32 more at priority 0:
  whether the memory is per stream, per priority level or per hardware connection.

No SGLang import; one CUDA GPU; under a minute.  Run (the lead, on the device machine):

    python bench/stream_pool_anatomy.py > $OUT/stream_pool_anatomy.json
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys

STREAMS_PER_POOL = 32
"""``kStreamsPerPool`` (``1 << kStreamsPerPoolBits``, 5) in torch's ``c10/cuda/CUDAStream.cpp``"""

MAX_COMPILE_TIME_PRIORITIES = 4
"""``c10::cuda::max_compile_time_stream_priorities`` in torch's ``c10/cuda/CUDAStream.h`` (2.13)"""


def _free_mib(torch) -> float:
    torch.cuda.synchronize()
    return torch.cuda.mem_get_info()[0] / 2**20


def _context(torch) -> dict:
    """The card and stack, after a CUDA context and a first kernel (what SGLang has done before its pre sample)."""
    torch.cuda.set_device(0)
    torch.zeros(1, device="cuda")
    props = torch.cuda.get_device_properties(0)
    driver = ctypes.c_int(0)
    _cuda().cuDriverGetVersion(ctypes.byref(driver))
    return {"gpu": props.name, "sm_count": props.multi_processor_count, "total_mib": props.total_memory / 2**20,
            "torch": torch.__version__, "cuda_runtime": torch.version.cuda, "driver_api": driver.value,
            "max_connections": os.environ.get("CUDA_DEVICE_MAX_CONNECTIONS", "(default)"),
            "torch_priority_range": _torch_priority_range(torch)}


def _torch_priority_range(torch) -> list[int] | None:
    """``CUDAStream::priority_range`` (the span torch uses, capped at 4 levels), where this torch exposes it."""
    try:
        return list(torch.cuda.Stream.priority_range())
    except (AttributeError, RuntimeError):
        return None


def _cuda():
    return ctypes.CDLL("libcuda.so.1")


def child_torch() -> dict:
    """The whole pool: the first ``torch.cuda.Stream()`` of the process."""
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    import torch

    out = _context(torch)
    before = _free_mib(torch)
    keep = torch.cuda.Stream()
    out["pool_mib"] = round(before - _free_mib(torch), 2)
    before = _free_mib(torch)
    keep2 = torch.cuda.Stream(priority=-1)
    out["second_stream_mib"] = round(before - _free_mib(torch), 2)
    del keep, keep2
    return out


def child_raw() -> dict:
    """Driver-API streams in torch's order, the cumulative free-memory drop after each."""
    import torch

    out = _context(torch)
    cu = _cuda()
    least, greatest = ctypes.c_int(0), ctypes.c_int(0)
    cu.cuCtxGetStreamPriorityRange(ctypes.byref(least), ctypes.byref(greatest))
    levels = min(MAX_COMPILE_TIME_PRIORITIES, least.value - greatest.value + 1)
    out.update(driver_priority_range=[least.value, greatest.value], torch_levels=levels)
    start = _free_mib(torch)
    handles, steps = [], []
    order = [(i, p) for i in range(STREAMS_PER_POOL) for p in range(levels)] + [(STREAMS_PER_POOL + i, 0)
                                                                                for i in range(STREAMS_PER_POOL)]
    for _, p in order:
        h = ctypes.c_void_p()
        rc = cu.cuStreamCreateWithPriority(ctypes.byref(h), 1, -p)  # CU_STREAM_NON_BLOCKING, torch's flag
        if rc:
            out["error"] = f"cuStreamCreateWithPriority returned {rc}"
            break
        handles.append(h)
        steps.append(round(start - _free_mib(torch), 2))
    n = STREAMS_PER_POOL * levels
    out.update(streams_like_torch=n, cumulative_mib=steps, distinct_levels_mib=sorted(set(steps)),
               pool_like_torch_mib=steps[n - 1] if len(steps) >= n else None)
    return out


def main() -> dict:
    runs = {}
    for name, mode, env in (("torch_default", "torch", {}),
                            ("torch_max_connections_1", "torch", {"CUDA_DEVICE_MAX_CONNECTIONS": "1"}),
                            ("torch_max_connections_32", "torch", {"CUDA_DEVICE_MAX_CONNECTIONS": "32"}),
                            ("raw_default", "raw", {})):
        proc = subprocess.run([sys.executable, __file__, "--child", mode], capture_output=True, text=True,
                              env={**os.environ, **env}, timeout=120)
        runs[name] = json.loads(proc.stdout) if proc.returncode == 0 else {"rc": proc.returncode,
                                                                           "stderr": proc.stderr[-2000:]}
    return runs


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        print(json.dumps(child_torch() if sys.argv[2] == "torch" else child_raw()))
    else:
        print(json.dumps(main(), indent=1))
