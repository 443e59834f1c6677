"""Shared by the one-GPU memory checks (scripts/rope_expand_memory_check.py, scripts/stream_pool_memory_check.py):
NVLink multicast off (``NCCL_NVLS_ENABLE=0``, ``TORCH_SYMM_MEM_DISABLE_MULTICAST=1``, where unset) before torch is
imported, and the free device memory as SGLang's ``get_available_gpu_memory`` reads it.

    from cuda_memory_lib import free_mib, torch   # scripts/ is on sys.path for a script run from there
"""

import os

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")

import torch  # noqa: E402

__all__ = ["free_mib", "torch"]


def free_mib() -> float:
    """Free device memory, MiB (2^20 B): ``torch.cuda.mem_get_info`` after a synchronize and ``empty_cache``."""
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    return torch.cuda.mem_get_info()[0] / 2**20
