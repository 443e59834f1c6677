"""NVLink ceiling measured in the same run: copy a peer's symmetric buffer into local memory.

one-way: only rank 0 reads rank 1's buffer; both: each rank reads the other's at once (what one-shot
does).  Bytes counted = bytes read over the link; GB = 10^9 B.  Run with torchrun, 2 processes.
"""

import os
import sys

import torch
import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem

os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
if (why := __import__("tpkit.runtime.machine_probe", fromlist=["no_gpu_reason"]).no_gpu_reason()) is not None:
    print(f"bench/p2p_bandwidth.py: needs CUDA GPUs: {why}; run it on a GPU machine under torchrun", file=sys.stderr)
    raise SystemExit(2)
local = int(os.environ.get("LOCAL_RANK", 0))
torch.cuda.set_device(local)
dev = torch.device("cuda", local)
dist.init_process_group("nccl", device_id=dev)
rank, world = dist.get_rank(), dist.get_world_size()
nbytes = 256 << 20
buf = symm_mem.empty(nbytes, dtype=torch.uint8, device=dev)
hdl = symm_mem.rendezvous(buf, dist.group.WORLD.group_name)
buf.fill_(rank + 1)
peer = hdl.get_buffer((rank + 1) % world, (nbytes,), torch.uint8)
dst = torch.empty(nbytes, dtype=torch.uint8, device=dev)
dist.barrier()
for mode in ("one-way", "both"):
    active = mode == "both" or rank == 0
    times = []
    for _ in range(7):
        dist.barrier()
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        if active:
            dst.copy_(peer)
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    if rank == 0:
        t = sorted(times)[len(times) // 2]
        print(f"p2p read {mode:<8} 256 MiB: {t * 1e3:8.1f} us  {nbytes / (t * 1e-3) / 1e9:6.1f} GB/s per direction",
              flush=True)
a = torch.empty(nbytes, dtype=torch.uint8, device=dev)
torch.cuda.synchronize()
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
s.record()
for _ in range(5):
    a.copy_(dst)
e.record()
e.synchronize()
if rank == 0:
    print(f"local d2d copy 256 MiB: {2 * 5 * nbytes / (s.elapsed_time(e) * 1e-3) / 1e9:.0f} GB/s (read + write)")
dist.barrier()
dist.destroy_process_group()
