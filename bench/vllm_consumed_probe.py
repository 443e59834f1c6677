"""Split vLLM's "consumed memory (weights + non-torch)" into its parts on one GPU (helper pl38b, 2026-12-08).

Why: vLLM ≥ 0.27 (``utils/mem_utils.py memory_profiling``) charges ``total_consumed`` = the worker's init-snapshot
free memory − the free memory after ``profile_run`` (device-wide ``mem_get_info``).  Qwen3.5-0.8B on an A100 with
0.28.0 prints 4.18 GiB of it against 1.72 GiB of weights (vp_1156); tpkit explains ~1.8 GiB (docs/accuracy.md §6,
round pl38b).  This probe runs the engine in-process (``VLLM_ENABLE_V1_MULTIPROCESSING=0``), wraps
``Worker.determine_available_memory`` and records, right after the profile, what vLLM measured and how it splits:
torch allocated, torch reserved (reserved − allocated = segments ``empty_cache()`` could not release), non-torch
(device used − torch reserved), the largest reserved segments with their live bytes (a pinned segment shows as a big
segment with few live bytes), and ``nvidia-smi``'s per-process use (another process's growth).

GPU run (needs ``pip install vllm==0.28.0`` and the checkpoint):
    python bench/vllm_consumed_probe.py --model Qwen/Qwen3.5-0.8B --gpu-memory-utilization 0.85 \
        --max-model-len 8192 --max-num-seqs 32 --out $OUT/probe_08b.json
    python bench/vllm_consumed_probe.py --model Qwen/Qwen3.8-27B --out $OUT/probe_27b.json   # the 27B contrast
CPU path: ``--dry-run`` validates the arguments and prints what would be measured (no torch, no vLLM import).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

GIB = 2**30


def _args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="Qwen/Qwen3.5-0.8B")
    p.add_argument("--gpu-memory-utilization", type=float, default=0.92)
    p.add_argument("--max-model-len", type=int, default=None)
    p.add_argument("--max-num-seqs", type=int, default=None)
    p.add_argument("--max-num-batched-tokens", type=int, default=None)
    p.add_argument("--segments", type=int, default=20, help="largest reserved segments to list")
    p.add_argument("--out", default=None, help="write the JSON record here (else stdout)")
    p.add_argument("--dry-run", action="store_true", help="validate and describe; import neither torch nor vLLM")
    a = p.parse_args(argv)
    if not 0.0 < a.gpu_memory_utilization <= 1.0:
        p.exit(2, f"error: --gpu-memory-utilization must be in (0, 1], got {a.gpu_memory_utilization}\n")
    for name in ("max_model_len", "max_num_seqs", "max_num_batched_tokens"):
        v = getattr(a, name)
        if v is not None and v <= 0:
            p.exit(2, f"error: --{name.replace('_', '-')} must be a positive integer, got {v}\n")
    if a.segments < 0:
        p.exit(2, f"error: --segments must be ≥ 0, got {a.segments}\n")
    return a


def _engine_kwargs(a: argparse.Namespace) -> dict:
    kw = {"model": a.model, "gpu_memory_utilization": a.gpu_memory_utilization, "trust_remote_code": True}
    for name in ("max_model_len", "max_num_seqs", "max_num_batched_tokens"):
        if getattr(a, name) is not None:
            kw[name] = getattr(a, name)
    return kw


def _segments(torch, limit: int) -> list[dict]:
    """Reserved segments, largest first, with their live (allocated) bytes."""
    out = []
    for seg in torch.cuda.memory_snapshot():
        live = sum(b["size"] for b in seg["blocks"] if b["state"] == "active_allocated")
        out.append({"bytes": seg["total_size"], "live_bytes": live, "pool": seg.get("segment_type")})
    return sorted(out, key=lambda s: -s["bytes"])[:limit]


def _smi() -> list[dict]:
    try:
        text = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                              capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    rows = [line.split(",") for line in text.strip().splitlines() if line.strip()]
    return [{"pid": int(r[0]), "used_mib": int(r[1])} for r in rows if len(r) == 2 and r[1].strip().isdigit()]


def probe(a: argparse.Namespace) -> dict:
    os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")  # the worker in this process, so we can read it
    import gc

    import torch
    from vllm import LLM
    from vllm.v1.worker.gpu_model_runner import GPUModelRunner
    from vllm.v1.worker.gpu_worker import Worker

    record: dict = {"model": a.model, "engine_kwargs": _engine_kwargs(a)}
    determine, profile_run = Worker.determine_available_memory, GPUModelRunner.profile_run

    def after_profile(self):  # the state memory_profiling measures: right after profile_run, gc + empty_cache
        profile_run(self)
        gc.collect()
        torch.cuda.empty_cache()
        free, total = torch.cuda.mem_get_info()
        reserved, allocated = torch.cuda.memory_reserved(), torch.cuda.memory_allocated()
        record.update({
            "total_gib": total / GIB, "after_profile_free_gib": free / GIB,
            "weights_gib": self.model_memory_usage / GIB,
            "torch_allocated_gib": allocated / GIB, "torch_reserved_gib": reserved / GIB,
            "reserved_not_allocated_gib": (reserved - allocated) / GIB,
            "non_torch_gib": (total - free - reserved) / GIB,
            "segments": _segments(torch, a.segments), "nvidia_smi": _smi(), "pid": os.getpid()})

    def wrapped(self):
        record["init_free_gib"] = self.init_snapshot.free_memory / GIB
        record["init_non_torch_gib"] = self.init_snapshot.non_torch_memory / GIB
        result = determine(self)
        record["total_consumed_gib"] = getattr(self, "total_consumed", 0) / GIB
        return result

    Worker.determine_available_memory = wrapped
    GPUModelRunner.profile_run = after_profile
    LLM(**_engine_kwargs(a))
    return record


def main(argv: list[str] | None = None) -> int:
    a = _args(argv)
    if a.dry_run:
        print(json.dumps({"would_run": _engine_kwargs(a), "measures": [
            "init-snapshot free", "free after profile_run", "vLLM total_consumed", "weights (load delta)",
            "torch allocated / reserved after the profile", "non-torch = used - reserved",
            f"{a.segments} largest reserved segments with live bytes", "nvidia-smi per-process use"]}, indent=1))
        return 0
    record = probe(a)
    text = json.dumps(record, indent=1)
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
