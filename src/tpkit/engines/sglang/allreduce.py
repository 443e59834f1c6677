"""SGLang's own custom all-reduce buffers for a plan's first TP group (its own module: `tpkit explain` needs it
without the rest of the start-up baseline).

On HIP the buffers depend on the release (helper xg27, issue 11): from 0.5.6 ``dispatch_custom_allreduce`` picks
aiter's ``CustomAllreduce`` (``SGLANG_USE_AITER_AR`` default true; 0.5.5.post2's wheel has no dispatch), sized by
the aiter the release's ROCm image pins, and from 0.5.9 that image sets ``ROCM_QUICK_REDUCE_QUANTIZATION=INT8``, so
QuickAllReduce allocates its 2 × 2 GiB too (``ROCM_RELEASES``; ``tpkit.startup.custom_allreduce.sglang_rocm_allreduce``).
"""

from __future__ import annotations

from tpkit.engines.sglang.versions import at_least
from tpkit.hardware.gpu import GpuSpec, is_amd
from tpkit.parallel import ParallelSpec
from tpkit.startup.cost import Cost
from tpkit.startup.custom_allreduce import RocmAllreduceRelease, sglang_custom_allreduce, sglang_rocm_allreduce
from tpkit.startup.links import LinkChoice, group_links
from tpkit.units import MiB

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from tpkit.hardware.machine import MachineProfile

__all__ = ["custom_allreduce_cost", "ROCM_RELEASES", "rocm_release"]

ROCM_RELEASES: tuple[tuple[str, RocmAllreduceRelease], ...] = (
    ("0.5.10", RocmAllreduceRelease(aiter_max_size=MiB(1024), aiter_buffers=3, quick_reduce=True)),
    ("0.5.9", RocmAllreduceRelease(aiter_max_size=MiB(128), aiter_buffers=3, quick_reduce=True)),
    ("0.5.6", RocmAllreduceRelease(aiter_max_size=MiB(64), aiter_buffers=2, quick_reduce=False)),
)
"""first SGLang release → its HIP all-reduce buffers, newest first.  Sources: sglang wheels 0.5.6–0.5.23
``custom_all_reduce.py dispatch_custom_allreduce`` (aiter by default on HIP from 0.5.6; from 0.5.10 it passes
``enable_register_for_capturing``, a keyword aiter has from v0.1.11) and ``quick_all_reduce.py`` (env default NONE);
sgl-project/sglang ``docker/rocm.Dockerfile`` at the releases: v0.5.5.post3 aiter v0.1.7.post1, v0.5.8 v0.1.9.post1,
neither sets the QuickReduce env; v0.5.9 aiter v0.1.10.post3 / v0.1.11.post1 and ``ROCM_QUICK_REDUCE_QUANTIZATION=
INT8``; v0.5.10.post1 and v0.5.17 aiter commits of 2026-04-29 … 2026-08 with the same env.  ROCm/aiter
``CustomAllreduce.__init__`` ``max_size``: 64 MiB to v0.1.10.post1 (meta + buffer), 128 MiB v0.1.10.post2–v0.1.11.post1
(meta + input + output), 1 GiB from v0.1.12 (meta of 2 × max_size + input).  A 0.5.10rc0 image of 2026-04-15 prints
10.04 GiB at world 8 (Jacob0226/SGLang-benchmarks), which the 1 GiB size and QuickReduce account for."""


def rocm_release(version: str) -> RocmAllreduceRelease | None:
    """The release's HIP all-reduce buffers (``ROCM_RELEASES``), or None before 0.5.6 (SGLang's own CustomAllreduce)."""
    return next((rel for first, rel in ROCM_RELEASES if at_least(version, first)), None)


def custom_allreduce_cost(gpu: GpuSpec, parallel: ParallelSpec, version: str,
                          machine: MachineProfile | None = None, links: LinkChoice | None = None) -> Cost:
    """SGLang's custom all-reduce buffers on the first TP group for a release (0 bytes when disabled); ``links``:
    what the user or the log says about the links (``tpkit.startup.links``)."""
    links = group_links(gpu, machine, range(parallel.tp), links)
    rel = rocm_release(version) if is_amd(gpu.vendor) else None
    if rel is not None:
        return sglang_rocm_allreduce(gpu, links, parallel.tp, rel)
    return sglang_custom_allreduce(gpu, links, parallel.tp, v2=at_least(version, "0.5.12"))
