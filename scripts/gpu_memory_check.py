#!/usr/bin/env python3
"""Check tpkit's runtime memory layer on real GPUs: probe, group init, KV pool planned vs measured.

One process per GPU (own ``torch.multiprocessing`` spawn, NCCL + a gloo CPU group). Per rank:

1. CUDA context + NCCL communicator warm-up (the baseline SGLang measures after these).
2. ``init_memory`` over the group → per-rank table, min, imbalance verdict.
3. Imbalance path: rank 1 holds a 20 % "hog"; ``init_memory`` must refuse on every rank, and pass
   with a warning under ``TPKIT_ALLOW_MEMORY_IMBALANCE=1``. The hog is then freed.
4. Weights-sized dummy allocation (checkpoint tensor bytes / TP), measured.
5. ``init_memory`` again → min free after weights; KV budget = that − pre × (1 − f) (SGLang §3.2).
6. KV pool planned by ``plan_sglang`` (the function behind ``tpkit plan``) from the live group table
   (as a machine profile) and the weight bytes, allocated with ``allocate_kv_pool``, planned vs
   measured bytes compared.

Rank 0 writes ``gpu_memory_check.json`` and ``gpu_memory_check.md`` to ``--out``.

    python scripts/gpu_memory_check.py --out $OUT            # all visible GPUs
    python scripts/gpu_memory_check.py --fake --world 2      # CPU: gloo, fake probes, meta tensors
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tpkit.errors import RuntimeSetupError  # noqa: E402
from tpkit.runtime.balance import ALLOW_IMBALANCE_ENV, format_group_table  # noqa: E402
from tpkit.runtime.probe import FakeProbe  # noqa: E402
from tpkit.units import Bytes, GiB, MiB  # noqa: E402

DEFAULT_FRACTION = 0.902
"""SGLang 0.5.23 default mem_fraction_static for 143,771 MiB at TP2 (spec §4.1: reserved 14,032 MiB)"""


class SimProbe:
    """--fake: a device of ``total`` bytes whose free memory the script debits by hand."""

    def __init__(self, rank: int, total: Bytes, free: Bytes) -> None:
        self.rank, self.total, self.free = rank, total, free

    def take(self, amount: Bytes) -> None:
        self.free = self.free - amount

    def snapshot(self):
        return FakeProbe(total_bytes=self.total, free_bytes=self.free, device_index=self.rank,
                         device_name="Fake H200").snapshot()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _plan(model: str, tp: int, pre_group, weights: Bytes, fraction: float):
    """The KV pool from ``plan_sglang`` itself (what ``tpkit plan --machine`` shows), fed by the live table.

    The machine profile is the group table measured before weights; the planner adds back this
    process's own usage and charges SGLang's start-up terms, exactly as for a probed machine.
    Returns (PlanResult, planned KV budget).
    """
    from tpkit.engines.sglang import SglangOptions, plan_sglang
    from tpkit.errors import UnknownGpuError
    from tpkit.hardware.catalog import custom_gpu, lookup_gpu
    from tpkit.models import load_model
    from tpkit.parallel import ParallelSpec

    profile = pre_group.to_machine_profile()
    first = profile.gpus[0]
    try:
        gpu = lookup_gpu(first.name)
    except UnknownGpuError:
        gpu = custom_gpu(first.total_bytes, name=first.name)
    result = plan_sglang(load_model(model), gpu, ParallelSpec(tp=tp), SglangOptions(mem_fraction_static=fraction),
                         machine=profile, weights=weights)
    return result, Bytes(result.extra["sglang"]["kv_budget_bytes"])


def _weights_bytes(model: str, tp: int) -> Bytes:
    from tpkit.models.catalog import find_entry

    return Bytes(find_entry(model).facts["checkpoint"]["tensor_bytes_derived"] // tp)


def _imbalance_step(rank, probe, device, fake, timeout_s) -> dict:
    import torch

    from tpkit.runtime.group import init_memory

    hog_bytes = probe.snapshot().free_bytes * 0.2 if rank == 1 else Bytes(0)
    hog = torch.empty(hog_bytes.bytes, dtype=torch.uint8, device=device) if hog_bytes else None
    if fake and hog_bytes:
        probe.take(hog_bytes)
    out = {"hog_bytes": hog_bytes.bytes}
    try:
        init_memory(probe=probe, timeout_s=timeout_s)
        out["refused"] = False
    except RuntimeSetupError as exc:
        out["refused"], out["message"] = True, str(exc)
    os.environ[ALLOW_IMBALANCE_ENV] = "1"
    g = init_memory(probe=probe, timeout_s=timeout_s)
    del os.environ[ALLOW_IMBALANCE_ENV]
    out["allowed_with_env"] = g.imbalance is not None
    del hog
    if fake and hog_bytes:
        probe.take(-hog_bytes)
    return out


def _worker(rank: int, world: int, port: int, opts: dict) -> None:
    import torch
    import torch.distributed as dist

    from tpkit.runtime.group import init_memory
    from tpkit.runtime.kv_alloc import allocate_kv_pool

    fake = opts["fake"]
    if fake:
        device = torch.device("meta")
        probe = SimProbe(rank, GiB(139.8), GiB(139.2) - MiB(256) * rank)
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    else:
        from tpkit.runtime.cuda_probe import CudaProbe

        torch.cuda.set_device(rank)
        device = torch.device("cuda", rank)
        probe = CudaProbe(rank)
        dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world,
                                device_id=device)
        x = torch.ones(1, device=device)
        dist.all_reduce(x)  # communicator memory is part of the baseline
        torch.cuda.synchronize()
    t0 = time.time()
    pre = init_memory(probe=probe, timeout_s=opts["timeout_s"])
    row = {"rank": rank, "pre_table": format_group_table(pre), "pre_min_rank": pre.min_rank.rank,
           "pre_min_free_bytes": pre.min_free_bytes.bytes, "pre_local": pre.local.snapshot.to_dict()}
    row["imbalance"] = _imbalance_step(rank, probe, device, fake, opts["timeout_s"]) if world > 1 else {}
    weights = _weights_bytes(opts["model"], world)
    before = probe.snapshot().free_bytes
    w = torch.empty(weights.bytes, dtype=torch.uint8, device=device)
    if fake:
        probe.take(weights)
    after = probe.snapshot().free_bytes
    row["weights"] = {"planned": weights.bytes, "measured": (before - after).bytes}
    post = init_memory(probe=probe, timeout_s=opts["timeout_s"])
    result, planned_budget = _plan(opts["model"], world, pre, weights, opts["fraction"])
    plan, cell_source = result.kv_pool, result.ledger.get("KV pool").source
    # the same rule on live numbers: min free after weights − min free before weights × (1 − f)
    budget = post.min_free_bytes - pre.min_free_bytes * (1 - opts["fraction"])
    kv_probe = FakeProbe(total_bytes=GiB(139.8), free_bytes=[post.local.free_bytes, post.local.free_bytes - plan.total_bytes]) if fake else probe
    alloc = allocate_kv_pool(plan, device, kv_probe)
    row.update(post_min_rank=post.min_rank.rank, post_min_free_bytes=post.min_free_bytes.bytes,
               budget_bytes=budget.bytes, planned_budget_bytes=planned_budget.bytes, cell_source=cell_source,
               kv_tokens=plan.num_tokens,
               padded_rows=plan.padded_tokens, kv_planned=alloc.planned_bytes.bytes,
               kv_measured=alloc.measured_bytes.bytes, kv_diff=alloc.difference_bytes.bytes,
               kv_rounding=alloc.rounding_bytes.bytes, kv_unexplained=alloc.unexplained_bytes.bytes,
               kv_tolerance=alloc.tolerance_bytes.bytes, kv_ok=alloc.ok, kv_summary=alloc.summary(),
               free_after_kv=alloc.free_after_bytes.bytes, seconds=round(time.time() - t0, 2))
    rows = [None] * world
    dist.all_gather_object(rows, row, group=_gloo(dist))
    if rank == 0:
        _write(rows, opts)
    del w, alloc
    dist.barrier(group=_gloo(dist))
    dist.destroy_process_group()


def _gloo(dist):
    from tpkit.runtime.group import cpu_group

    return cpu_group(None, 60.0)


def _write(rows: list[dict], opts: dict) -> None:
    out = Path(opts["out"])
    out.mkdir(parents=True, exist_ok=True)
    meta = {"date_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "command": " ".join(sys.argv),
            "model": opts["model"], "tp": len(rows), "mem_fraction_static": opts["fraction"], "fake": opts["fake"]}
    (out / "gpu_memory_check.json").write_text(json.dumps({"meta": meta, "ranks": rows}, indent=2))
    md = _markdown(rows, meta)
    (out / "gpu_memory_check.md").write_text(md)
    print(md)


def _gib(n: int) -> str:
    return f"{n / 2**30:.3f}"


def _markdown(rows: list[dict], meta: dict) -> str:
    lines = [f"run {meta['date_utc']} UTC, model {meta['model']}, TP{meta['tp']}, f = {meta['mem_fraction_static']}"
             + (" (FAKE: CPU, simulated probes)" if meta["fake"] else ""), "",
             "group table before weights (init_memory):", "```", rows[0]["pre_table"], "```", "",
             "| rank | weights planned GiB | weights measured GiB | KV tokens | KV planned B | KV measured B | "
             "measured − planned B | allocator rounding B | unexplained B | tolerance B | ok |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['rank']} | {_gib(r['weights']['planned'])} | {_gib(r['weights']['measured'])} | "
                     f"{r['kv_tokens']:,} | {r['kv_planned']:,} | {r['kv_measured']:,} | {r['kv_diff']:+,} | "
                     f"{r['kv_rounding']:,} | {r['kv_unexplained']:+,} | ±{r['kv_tolerance']:,} | "
                     f"{'yes' if r['kv_ok'] else 'NO'} |")
    r0 = rows[0]
    lines += ["", f"KV pool from plan_sglang(machine=<group table before weights>, weights=<bytes per rank>): "
              f"planned KV budget {_gib(r0['planned_budget_bytes'])} GiB; the same rule on live numbers "
              f"(min free after weights {_gib(r0['post_min_free_bytes'])} GiB (rank {r0['post_min_rank']}) − min free "
              f"before weights {_gib(r0['pre_min_free_bytes'])} GiB × (1 − f)) = {_gib(r0['budget_bytes'])} GiB; "
              f"the difference is the SGLang start-up terms this script does not allocate (custom all-reduce, "
              f"cuBLAS, process overhead). Pool: {r0['cell_source']}"]
    for r in rows:
        imb = r.get("imbalance") or {}
        if imb:
            lines.append(f"imbalance step rank {r['rank']}: hog {_gib(imb['hog_bytes'])} GiB, refused={imb['refused']}, "
                         f"allowed with {ALLOW_IMBALANCE_ENV}=1: {imb['allowed_with_env']}")
    msg = next((r["imbalance"].get("message") for r in rows if r.get("imbalance", {}).get("message")), None)
    if msg:
        lines += ["", "imbalance error text (rank 0):", "```", msg, "```"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--fake", action="store_true", help="CPU run: gloo, simulated probes, meta tensors")
    p.add_argument("--world", type=int, default=None, help="ranks (default: visible GPUs; 2 with --fake)")
    p.add_argument("--model", default="Llama-3.1-8B-Instruct")
    p.add_argument("--mem-fraction-static", type=float, default=DEFAULT_FRACTION)
    p.add_argument("--out", default=os.environ.get("OUT", "."))
    p.add_argument("--timeout-s", type=float, default=60.0)
    a = p.parse_args(argv)
    import torch
    import torch.multiprocessing as mp

    world = a.world or (2 if a.fake else torch.cuda.device_count())
    if world < 1:
        from tpkit.runtime.machine_probe import no_gpu_reason

        print(f"gpu_memory_check: no GPU visible ({no_gpu_reason() or 'CUDA shows 0 devices'}); run it on a GPU "
              "machine, or check the CPU path with --fake", file=sys.stderr)
        return 2
    opts = {"fake": a.fake, "model": a.model, "fraction": a.mem_fraction_static, "out": a.out, "timeout_s": a.timeout_s}
    mp.spawn(_worker, args=(world, _free_port(), opts), nprocs=world, join=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
