"""SGLang's forward stream: torch's CUDA stream pool, created after ``pre_model_load_memory`` is sampled.

Read in the release wheels (``pip download --no-deps sglang==X``, ``sglang/srt/model_executor/model_runner.py``
``ModelRunner.__init__``): from 0.5.9 (read 0.5.9, 0.5.10, 0.5.20, 0.5.23) the runner creates
``self.forward_stream = torch.get_device_module(device).Stream()`` right after ``init_torch_distributed`` has sampled
``pre_model_load_memory`` and before ``load_model`` prints 'Load weight begin'; 0.5.3–0.5.8 create no stream there
(read 0.5.3, 0.5.4, 0.5.5, 0.5.6, 0.5.7, 0.5.8).  The first ``torch.cuda.Stream()`` of a process makes torch build
its whole per-device stream pool, which takes device memory that ``torch.cuda.empty_cache`` does not return:
70 MiB on an H200 (``scripts/stream_pool_memory_check.py``: torch 2.11 + CUDA 13.0, driver 580.159; the same with
lazy and eager module loading; later ``Stream()`` calls, of any priority, take nothing).

Where it lands:

* world size (tp × pp) 1: the forward stream is the process's first torch stream, so the 70 MiB leave the free
  memory after the pre sample.  'Load weight begin' (and 'Load weight end') already miss them, while SGLang's
  slack ``pre × (1 − mem_fraction_static)`` is taken from the pre sample: the KV budget is
  ``free after weights − (1 − f) × ('Load weight begin' + pool)`` (explain), and the planner, whose free memory
  before the weights is the pre sample, charges the pool against the budget
  (``kv_cache_configurator.py _profile_available_bytes`` measures the free memory after it).
* world size > 1: ``PyNcclCommunicator.__init__`` (``distributed/device_communicators/pynccl.py``, 0.5.9–0.5.23)
  creates a warm-up ``torch.cuda.Stream()`` inside ``init_torch_distributed``, before the pre sample: the pool is
  part of the distributed init there and nothing moves.
* AMD GPUs: the HIP build of torch keeps the same pool, but its size was not measured: no charge.
* inside a HAMi slice (HAMi-core's ``libvgpu.so``, built with ``HOOK_MEMINFO_ENABLE`` by its ``build.sh``): the hooked
  ``cuMemGetInfo_v2`` (``src/cuda/memory.c``) reports ``min(limit, total) − usage``, where ``usage``
  (``get_gpu_memory_usage``, ``src/multiprocess/multiprocess_memory_limit.c``) is what HAMi's allocation hooks
  (``cuMemAlloc_v2``, ``cuMemCreate``, ...) recorded for the slice's processes; ``cuStreamCreate`` is passed through
  unrecorded (``src/cuda/stream.c``).  The driver's stream memory never leaves the free memory SGLang reads, so the
  pool moves neither the pre sample nor 'Load weight begin': no charge (``virtualiser="HAMi"``).

Evidence in the logs (four tp-1 start-ups of 0.5.10–0.5.20 whose printed pool pins the budget): the memory
taken between the pre sample and 'Load weight begin' lies in 34–176 MiB (sg_043, B200, 0.5.10 rules),
46–117 MiB (sg_062, H100, 0.5.20), 89–124 MiB (gs_004, H100, 0.5.18) and 44–169 MiB (gs_005, H100, 0.5.19), with the
2 MiB RoPE pre-expansion charged after the weights: the 70 MiB pool is the part read in the source; the
gs_004 interval leaves 19–54 MiB more that no line of the source read here allocates.
"""

from __future__ import annotations

from tpkit.engines.sglang.versions import at_least
from tpkit.units import Bytes, MiB

__all__ = ["STREAM_POOL_BYTES", "FIRST_RELEASE", "UNSEEN_BY", "STREAM_POOL_SOURCE", "forward_stream_pool"]

STREAM_POOL_BYTES: Bytes = MiB(70)
"""device memory torch's per-device CUDA stream pool takes when the first ``torch.cuda.Stream()`` is created
(measured on an H200, torch 2.11 + CUDA 13.0; ``scripts/stream_pool_memory_check.py``)"""

UNSEEN_BY = "HAMi"
"""the memory virtualiser whose reported free memory leaves the stream pool out (module docstring)"""

FIRST_RELEASE = "0.5.9"
"""first SGLang release whose ModelRunner creates ``forward_stream`` after the pre sample"""

STREAM_POOL_SOURCE = ("torch's CUDA stream pool, built by SGLang's forward_stream (sglang 0.5.9+ model_runner.py "
                      "ModelRunner.__init__, after init_torch_distributed samples pre_model_load_memory, before "
                      "'Load weight begin'; world size 1 only: with more ranks PyNccl's warm-up stream builds it "
                      "inside init_torch_distributed); 70 MiB measured on an H200, torch 2.11 + CUDA 13.0 "
                      "(scripts/stream_pool_memory_check.py)")


def forward_stream_pool(version: str, *, world: int, vendor: str | None, virtualiser: str | None = None) -> Bytes:
    """Bytes SGLang ``version`` takes for the stream pool between the pre sample and the weights, on one rank of a
    ``world``-rank (tp × pp) group on a GPU of ``vendor`` ("NVIDIA", "AMD" or None for not known: charged, the
    pool is a torch fact; only AMD, whose size is not measured, gets none): ``STREAM_POOL_BYTES`` for 0.5.9+ at
    world size 1, else 0; 0 also where ``virtualiser`` is "HAMi", whose free memory does not see the pool (see the
    module docstring)."""
    if world != 1 or not at_least(version, FIRST_RELEASE) or virtualiser == UNSEEN_BY:
        return Bytes(0)
    if vendor is not None and str(vendor).upper() == "AMD":
        return Bytes(0)
    return STREAM_POOL_BYTES
