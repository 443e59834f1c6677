"""Randomised all-reduce correctness on GPUs (run with torchrun, one process per GPU).

Cases: sizes from 1 element to a few MiB (odd counts and non-multiples of 16 bytes included),
element offsets 0–7 into a larger tensor (unaligned pointers), bf16/fp16/fp32, out-of-place and in
place, eager and CUDA-graph replay, every started backend forced (when eligible) plus auto dispatch.
A case passes when every element is within the bf16/fp16/fp32 rounding bound of the fp32 reference
(2·(n+1)·u·Σ|x|) and all ranks hold bitwise the same result.

    torchrun --nproc-per-node 2 bench/allreduce_correctness.py --cases 1200
"""

import argparse
import collections
import random
import sys
import time

import torch
import torch.distributed as dist

from tpkit.comm.allreduce import AllReduce
from tpkit.comm.benchrun import check_once, init_torchrun_nccl
from tpkit.comm.dispatch import skip_reason
from tpkit.comm.env import parse_env
from tpkit.units import Bytes

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def pick_numel(rng: random.Random) -> int:
    kind = rng.random()
    if kind < 0.3:
        return rng.randint(1, 2048)
    if kind < 0.7:
        return rng.randint(2048, 300_000)
    if kind < 0.9:
        return rng.choice([8, 16, 4096, 65536, 1 << 20]) * rng.randint(1, 3)
    return rng.randint(300_000, 2_000_000)


def run_cases(ar, cases: int, seed: int, rank: int, dev) -> dict:
    """Run ``cases`` randomized checks; returns {(backend or auto->chosen, mode): [cases, failed, wrong elems]}."""
    names = sorted(ar.backends) + ["auto"]
    rng = random.Random(seed)  # same case list on every rank
    data_gen = torch.Generator(device="cpu").manual_seed(seed * 10 + rank)
    stats = collections.defaultdict(lambda: [0, 0, 0])
    broken: set[str] = set()
    for i in range(cases):
        dtype = rng.choice(list(DTYPES))
        numel, offset = pick_numel(rng), rng.randint(0, 7)
        esize = torch.tensor([], dtype=DTYPES[dtype]).element_size()
        if rng.random() < 0.75:  # mostly 16-byte multiples, so the peer-memory kernels take them
            numel = -(-numel // (16 // esize)) * (16 // esize)
        name = names[i % len(names)]
        graph, inplace = rng.random() < 0.3, rng.random() < 0.3
        if name != "auto" and (name in broken or skip_reason(
                name, nbytes=Bytes(numel * esize), dtype=dtype, world_size=ar.world_size, topology=ar.topology,
                env=parse_env({}), capacity=ar.available[name])):
            name = "auto"
        base = (torch.randn(numel + offset, generator=data_gen) * rng.choice([1.0, 100.0])).to(DTYPES[dtype]).to(dev)
        x = base[offset:]
        mode = "graph" if graph else "eager"  # the mode the call will be dispatched in
        chosen = name if name != "auto" else ar.decide_bytes(Bytes(numel * esize), dtype, mode).backend
        wrong = check_once(ar, None if name == "auto" else name, x, graph=graph, inplace=inplace)
        ar.check_errors()  # a kernel timeout is an error, never a counted case
        s = stats[(f"{name}->{chosen}" if name == "auto" else name, mode)]
        s[0], s[1], s[2] = s[0] + 1, s[1] + int(wrong > 0), s[2] + wrong
        if wrong and name != "auto":
            broken.add(name)
            if rank == 0:
                print(f"FAIL case {i}: {name} {dtype} numel={numel} offset={offset} graph={graph} "
                      f"inplace={inplace}: {wrong} wrong", flush=True)
    return stats


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=1200)
    ap.add_argument("--max-bytes", type=int, default=16 << 20)
    ap.add_argument("--seed", type=int, default=1234)
    a = ap.parse_args()
    from tpkit.runtime.machine_probe import no_gpu_reason

    if (why := no_gpu_reason()) is not None:  # a GPU script on a CPU machine: say so, exit 2, no traceback
        print(f"bench/allreduce_correctness.py: needs a CUDA GPU: {why}; run it on a GPU machine", file=sys.stderr)
        raise SystemExit(2)
    dev = init_torchrun_nccl()
    rank = dist.get_rank()
    ar = AllReduce.create(max_bytes=Bytes(a.max_bytes), device=dev)
    if rank == 0:
        print(f"backends: {sorted(ar.backends)}; skipped: {ar.skipped}", flush=True)
    t0 = time.time()
    stats = run_cases(ar, a.cases, a.seed, rank, dev)
    torch.cuda.synchronize()
    if rank == 0:
        total, failed = sum(v[0] for v in stats.values()), sum(v[1] for v in stats.values())
        print(f"\n{'backend (auto->chosen)':<34} {'mode':<6} {'cases':>6} {'failed':>7} {'wrong elems':>12}")
        for (k, mode), (n, f, w) in sorted(stats.items()):
            print(f"{k:<34} {mode:<6} {n:>6} {f:>7} {w:>12}")
        print(f"TOTAL cases={total} failed={failed} in {time.time() - t0:.1f} s "
              f"(world {ar.world_size}, {torch.cuda.get_device_name(dev)})", flush=True)
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
