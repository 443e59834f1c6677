"""Two GPUs: a peer later than the spin limit makes tpkit's kernels raise, never return a wrong sum.

    NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 torchrun --nproc-per-node 2 scripts/gpu_skew_check.py

For each Triton backend (one_shot, one_shot_pull, two_shot) on a fresh ``AllReduce`` with a short spin limit:
one call with both ranks in step must sum right; then rank 1 sleeps ``--skew-s`` seconds before its call.
Rank 0 must raise ``AllReduceTimeout`` naming the backend and peer rank 1 (``check_errors`` after the sync)
with the first symptom (the data or barrier wait, kept over later consequences), its push one-shot output
must be NaN, and its next call must refuse to run.  The late rank 1 must either raise or hold the right sum,
never a wrong one silently.  Rank 0 prints the time its timed-out call took (the poll cost on this machine).
Prints PASS/FAIL per check and exits 1 on a failure.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tpkit.comm.allreduce import AllReduce  # noqa: E402
from tpkit.comm.backends.error_flag import AllReduceTimeout  # noqa: E402
from tpkit.comm.benchrun import init_torchrun_nccl  # noqa: E402
from tpkit.units import MiB  # noqa: E402

FAILED: list[str] = []


def check(rank: int, label: str, ok: bool, detail: str = "") -> None:
    if not ok:
        FAILED.append(label)
    if rank == 0 or not ok:
        print(f"[rank {rank}] {'PASS' if ok else 'FAIL'} {label}" + (f": {detail}" if detail else ""), flush=True)


def one_backend(name: str, rank: int, world: int, dev, spin_limit: int, skew_s: float) -> None:
    ar = AllReduce.create(max_bytes=MiB(1), backends=(name, "nccl"), device=dev, spin_limit=spin_limit, env={})
    if name not in ar.backends:
        check(rank, f"{name} started", False, ar.skipped.get(name, "?"))
        return
    x = torch.full((65536,), float(rank + 1), dtype=torch.bfloat16, device=dev)
    out = torch.empty_like(x)
    ar(x, out=out, backend=name)
    torch.cuda.synchronize()
    ar.check_errors()
    check(rank, f"{name}: ranks in step sum right", bool((out == world * (world + 1) / 2).all()))
    dist.barrier()
    if rank == 1:
        time.sleep(skew_s)
    out.fill_(-1.0)
    t0 = time.perf_counter()
    ar(x, out=out, backend=name)
    torch.cuda.synchronize()
    took = time.perf_counter() - t0
    if rank == 0:
        try:
            ar.check_errors()
            raised = ""
        except AllReduceTimeout as exc:
            raised = str(exc)
        first = "waiting for the data of peer rank 1" if name == "one_shot" else "waiting for peer rank 1 at the"
        check(rank, f"{name}: rank 0 raises for a peer {skew_s:g} s late (its call took {took:.2f} s for "
                    f"{spin_limit:,} polls)", name in raised and first in raised, raised[:200])
        if name == "one_shot":
            check(rank, "one_shot: the timed-out output is NaN, not a partial sum", bool(torch.isnan(out).all()))
        try:
            ar(x, out=out, backend=name)
            check(rank, f"{name}: the next call refuses to run", False)
        except AllReduceTimeout:
            check(rank, f"{name}: the next call refuses to run", True)
    elif rank == 1:
        late_rank_raises_or_sums_right(name, ar, out, world)
    torch.cuda.synchronize()
    dist.barrier()


def late_rank_raises_or_sums_right(name: str, ar, out, world: int) -> None:
    """The late rank found rank 0's data and signals waiting: its sum may be right; if not, it must raise."""
    try:
        ar.check_errors()
        raised = ""
    except AllReduceTimeout as exc:
        raised = str(exc)
    right = bool((out == world * (world + 1) / 2).all())
    check(1, f"{name}: the late rank 1 raises or sums right ({'raised' if raised else 'no error'}, "
             f"sum {'right' if right else 'wrong'})", bool(raised) or right, raised[:200])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--spin-limit", type=int, default=1 << 16, help="polls before a wait gives up")
    ap.add_argument("--skew-s", type=float, default=5.0, help="how late rank 1 calls")
    a = ap.parse_args()
    dev = init_torchrun_nccl()
    rank, world = dist.get_rank(), dist.get_world_size()
    for name in ("one_shot", "one_shot_pull", "two_shot"):
        try:
            one_backend(name, rank, world, dev, a.spin_limit, a.skew_s)
        except Exception as exc:  # noqa: BLE001 - report, then stop: the group may be out of step
            check(rank, f"{name} raised {type(exc).__name__}", False, str(exc)[:300])
            break
    print(f"[rank {rank}] {'ALL PASSED' if not FAILED else 'FAILED: ' + '; '.join(FAILED)}", flush=True)
    dist.destroy_process_group()
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
