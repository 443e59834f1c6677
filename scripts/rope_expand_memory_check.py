"""Device memory taken by SGLang's RoPE pre-expansion step after the weights load (issue 12/11 evidence).

SGLang 0.5.10+ calls ``reserve_rope_cache_for_long_sequences`` between the 'Load weight end' print and the KV
pool profile (model_runner.py load_model; utils/common.py).  For a default context it grows each rotary
module's cos/sin cache by a few hundred rows with torch.einsum / cos / sin / cat on the GPU.  This script
re-does those operations (no SGLang import; the shapes of Qwen3-8B: rotary dim 128, 40,960 positions) in a fresh
process and prints what torch.cuda.mem_get_info sees before and after, with torch.cuda.empty_cache() as SGLang's
get_available_gpu_memory does.  A first cuBLAS/cuBLASLt call, if one happens, shows up as memory the caching
allocator cannot return.

Run: python scripts/rope_expand_memory_check.py   (one CUDA GPU; writes JSON to stdout)
"""

import json
import os
import sys

os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")

from cuda_memory_lib import free_mib, torch  # noqa: E402  (NVLink multicast off, then torch)


def main(mode: str) -> dict:
    dev = torch.device("cuda", 0)
    torch.zeros(1, device=dev)
    out = {"mode": mode, "torch": torch.__version__, "gpu": torch.cuda.get_device_name(0)}
    f0 = free_mib()
    dim, base, max_pos = 128, 1_000_000.0, 40_960
    # the rope module's initial cache, as SGLang builds it (computed, then held on the device)
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float) / dim))
    t = torch.arange(max_pos, dtype=torch.float)
    freqs = torch.einsum("i,j->ij", t, inv_freq)
    cache = torch.cat((freqs.cos(), freqs.sin()), dim=-1).to(dev)
    f1 = free_mib()
    if mode == "rope":
        # _ensure_cos_sin_cache_length(41215): new_len = 41344, rows 40960..41343 computed on the device
        inv = (1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float) / dim))).to(dev)
        t_new = torch.arange(max_pos, 41_344, dtype=inv.dtype, device=dev)
        f = torch.einsum("i,j->ij", t_new, inv)
        rows = torch.cat((f.cos(), f.sin()), dim=-1).to(dtype=cache.dtype)
        cache = torch.cat((cache, rows), dim=0).to(device=dev, dtype=cache.dtype)
        del inv, t_new, f, rows
    elif mode == "matmul":
        a = torch.randn(64, 64, device=dev, dtype=torch.bfloat16)
        (a @ a).sum().item()
        del a
    f2 = free_mib()
    out.update(free_after_init_mib=round(f0, 2), cache_mib=round(f0 - f1, 2), step_mib=round(f1 - f2, 2),
               cache_rows=int(cache.shape[0]))
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1] if len(sys.argv) > 1 else "rope")))
