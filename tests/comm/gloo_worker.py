"""Helper for test_gloo.py: ``python gloo_worker.py WORLD OUTDIR`` runs AllReduce on CPU ranks (gloo)."""

import json
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def rank_main(rank: int, world: int, port: int, outdir: str) -> None:
    from tpkit.comm.allreduce import AllReduce
    from tpkit.comm.benchrun import check_once
    from tpkit.units import MiB

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    ar = AllReduce.create(max_bytes=MiB(1), env={})
    res = {"started": sorted(ar.backends), "skipped": ar.skipped, "ledger": len(ar.ledger_lines()), "sums": {},
           "topology": ar.topology.describe()}
    for name, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        x = (torch.arange(1000) % 17 + 100 * rank).to(dtype)
        want = sum((torch.arange(1000) % 17 + 100 * r) for r in range(world)).to(dtype)
        y = ar(x)
        z = x.clone()
        ar(z, out=z)
        res["sums"][name] = {"out_of_place": bool(torch.equal(y, want)), "in_place": bool(torch.equal(z, want)),
                             "input_kept": bool(torch.equal(x, (torch.arange(1000) % 17 + 100 * rank).to(dtype))),
                             "check_once_wrong": check_once(ar, None, torch.randn(4099).to(dtype))}
    d = ar.decide(torch.empty(4096))
    res["decision"] = [d.backend, d.reason]
    with open(f"{outdir}/rank{rank}.json", "w") as fh:
        json.dump(res, fh)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    world, outdir = int(sys.argv[1]), sys.argv[2]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(rank_main, args=(world, port, outdir), nprocs=world, join=True)
