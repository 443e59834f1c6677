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
gs_004 interval leaves 19–54 MiB more, which DeepGEMM's 32 MiB cuBLASLt workspace fills (0.5.15+ on compute
capability 9.0+ but 12.0, every world size: ``engines.sglang.streams.deepgemm_workspace``, helper cap33).

What sets the pool's size (torch's source, helper cap31b): ``c10/cuda/CUDAStream.cpp`` ``getStreamFromPool`` runs
``initDeviceStreamState`` once per device, which creates ``kStreamsPerPool`` (32) streams for each of
``max_stream_priorities`` = min(``max_compile_time_stream_priorities`` (4 in ``c10/cuda/CUDAStream.h``, torch 2.13 as
2.11), the span ``cudaDeviceGetStreamPriorityRange`` reports) priorities, all with ``cudaStreamCreateWithPriority``; a
ROCm build creates only the stream asked for (Note [HIP Lazy Streams]).  So the term is that stream count times the
device memory the closed driver takes per stream: no source sizes the second factor, only a measurement on the card
(``bench/stream_pool_anatomy.py`` splits the two).  The logs place it at 11–32 MiB on an RTX 4090 (torch 2.13, CUDA
13: sg_741, sg_762–sg_764) and 89–127 MiB on sg_253's H100 (torch 2.13: the pool and DeepGEMM's 32 MiB workspace,
``engines.sglang.streams.deepgemm_workspace``), against the 70 MiB measured on H100 / H200 (torch 2.11): not charged per card without a
measurement of that card.

The other memory taken between the same two samples: in 0.4.6.post5–0.4.9.x at world size 1, the expert-location
metadata's first kernels (``metadata_kernels``, helper cap26); from 0.5.15 on compute capability 9.0+ but 12.0, at
every world size, DeepGEMM's 32 MiB cuBLASLt workspace (``deepgemm_workspace``, helper cap33; the last section).
"""

from __future__ import annotations

from tpkit.engines.sglang.versions import at_least
from tpkit.hardware.gpu import is_amd
from tpkit.units import Bytes, MiB

__all__ = ["STREAM_POOL_BYTES", "FIRST_RELEASE", "UNSEEN_BY", "STREAM_POOL_SOURCE", "forward_stream_pool",
           "METADATA_FIRST", "METADATA_FIRST_DATE", "METADATA_END", "first_kernel_bytes", "metadata_kernels",
           "metadata_kernels_span", "WORKSPACE_BYTES", "DEEPGEMM_FIRST", "WORKSPACE_SOURCE", "WORKSPACE_ITEM",
           "deepgemm_workspace", "takes_deepgemm"]

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
    if is_amd(vendor):
        return Bytes(0)
    return STREAM_POOL_BYTES


# --- the expert-location metadata's first kernels (helper cap26, 2026-12-06, session 26) -------------------------

METADATA_FIRST = "0.4.6.post5"
"""first SGLang release whose ``ModelRunner.initialize`` builds the expert-location metadata for every model, after
``init_torch_distributed`` has sampled the pre memory and before ``load_model`` prints 'Load weight begin'"""

METADATA_FIRST_DATE = "2025-05-24"
"""the build date of the files in the sglang 0.4.6.post5 wheel (``unzip -l``): a log dated before it runs 0.4.6.post4
or older"""

METADATA_END = "0.4.10"
"""first release whose ``ModelConfigForExpertLocation.from_model_config`` returns None for a model class without
``get_model_config_for_expert_location`` (a dense model then builds no metadata and launches no kernel there)"""


def first_kernel_bytes() -> Bytes:
    """What a SGLang process's first CUDA kernel launches take on the device at world size 1: the start-up table's
    ``sglang_tp1_init[>=0.5.8]`` cell, 'Init torch distributed ends. mem usage' at tp 1 from 0.5.8 (0.09 GiB in
    its five samples: H100 ×4, H200, B200), where ``GroupCoordinator.__init__``'s ``torch.ones(..., device=cuda)``
    (``distributed/parallel_state.py``, new in 0.5.8) is the one kernel inside ``init_torch_distributed``; up to
    0.5.7 that line prints 0.00 at tp 1."""
    from tpkit.startup.table import entry

    return entry("sglang_tp1_init", ">=0.5.8").bytes


def _in_window(version: str) -> bool:
    from tpkit.engines.sglang.versions import release_key

    return release_key(METADATA_FIRST) <= release_key(version) < release_key(METADATA_END)


def metadata_kernels(version: str, *, world: int, vendor: str | None, virtualiser: str | None = None) -> Bytes:
    """Bytes SGLang ``version`` takes between its pre sample and 'Load weight begin' for the expert-location metadata
    on one rank of a ``world``-rank group.

    Read in the wheels (``model_executor/model_runner.py`` ``ModelRunner.initialize``, ``managers/expert_location.py``
    (0.4.6.post5–0.4.8) / ``eplb/expert_location.py`` (0.4.9–0.5.x) ``compute_initial_expert_location_metadata``,
    ``ExpertLocationMetadata.init_trivial`` / ``_init_raw``, ``ModelConfigForExpertLocation.from_model_config``; read
    0.4.6.post4, 0.4.6.post5, 0.4.7.post1, 0.4.8, 0.4.9.post6, 0.4.10, 0.5.5, 0.5.7, 0.5.8): from 0.4.6.post5 to
    0.4.9.post6 a model class without ``get_model_config_for_expert_location`` gets ``init_dummy()`` (one layer,
    one expert) and the metadata is built on the GPU all the same — a host→device copy, ``F.pad``, the ``!= -1``
    comparison and ``torch.count_nonzero`` — right after the pre sample; 0.4.6.post4 builds none, and from 0.4.10
    ``from_model_config`` returns None for such a class (no tensor, no kernel).  At world size 1 nothing launches a
    kernel earlier (no PyNccl warm-up, no custom all-reduce; 0.5.8 is the first release whose GroupCoordinator fills
    a device tensor inside ``init_torch_distributed``), so these are the process's first kernels and their cost
    (``first_kernel_bytes``) leaves the free memory between SGLang's pre sample and 'Load weight begin', where
    older and newer releases take it inside the load (``startup.terms.sglang_load_extra``).  The size is the one
    0.5.8+ prints in its init line at tp 1; a model class that has ``get_model_config_for_expert_location`` (the MoE
    classes) builds the metadata in every release from 0.4.6.post5 — not charged here outside the window (no log
    of such a run at world size 1 read).  0 at world > 1 (PyNccl's warm-up all-reduce launches kernels inside
    ``init_torch_distributed``, before the sample), on AMD GPUs (not measured) and in a HAMi slice (its free memory
    counts only its hooked allocations), as for the stream pool."""
    if world != 1 or virtualiser == UNSEEN_BY or not _in_window(version):
        return Bytes(0)
    if is_amd(vendor):
        return Bytes(0)
    return first_kernel_bytes()


def metadata_kernels_span(oldest: str | None, newest: str, *, date: str | None, world: int, vendor: str | None,
                          virtualiser: str | None = None) -> tuple[Bytes, Bytes]:
    """(lowest, highest) of ``metadata_kernels`` over the releases from ``oldest`` (None: any) to ``newest`` that a
    log dated ``date`` (YYYY-MM-DD or None) can run: the highest is the charge where any of them lies in
    0.4.6.post5–0.4.9.x (and the date does not precede 0.4.6.post5), the lowest where all of them do."""
    from tpkit.engines.sglang.versions import release_key

    charge = metadata_kernels(METADATA_FIRST, world=world, vendor=vendor, virtualiser=virtualiser)
    if not charge or (date is not None and date < METADATA_FIRST_DATE):
        return Bytes(0), Bytes(0)
    lo_key = release_key(oldest) if oldest else (0, 0, 0, 0)
    hi_key = release_key(newest)
    if hi_key < release_key(METADATA_FIRST) or lo_key >= release_key(METADATA_END) or lo_key > hi_key:
        return Bytes(0), Bytes(0)
    inside = lo_key >= release_key(METADATA_FIRST) and hi_key < release_key(METADATA_END)
    return (charge if inside else Bytes(0)), charge


# --- DeepGEMM's cuBLASLt workspace (helper cap33, 2026-12-07, session 33) ---------------------------------------
#
# SGLang's DeepGEMM runtime: a 32 MiB cuBLASLt workspace taken after ``pre_model_load_memory`` is sampled.
#
# Read in the release wheels (``pip download --no-deps sglang==X``; helper cap33, docs/accuracy.md §7):
#
# * ``model_executor/model_runner.py`` ``ModelRunner.__init__`` (0.5.12.post1, 0.5.13, 0.5.14, 0.5.15, 0.5.16, 0.5.18):
#   ``pre_model_load_memory = self.init_torch_distributed()`` samples the free memory, then, where
#   ``deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM``, ``deep_gemm_wrapper.update_deep_gemm_config(gpu_id, server_args)`` runs,
#   then ``initialize`` → ``load_model`` prints 'Load weight begin'.
# * ``layers/deep_gemm_wrapper/entrypoint.py`` ``update_deep_gemm_config``: from 0.5.13 (absent in 0.5.12.post1) it
#   calls ``deep_gemm.set_pdl(True)`` when ``SGLANG_DEEPGEMM_PDL`` (``environ.py``, default True from 0.5.13) is set and
#   ``hasattr(deep_gemm, "set_pdl")``; the comment says ``set_pdl`` "can initialize CUDA state".
# * ``layers/deep_gemm_wrapper/configurer.py`` ``_compute_enable_deep_gemm`` (0.5.13, 0.5.15, 0.5.18): CUDA only, compute
#   capability 9.0 or higher but not 12.0 (SM120 has no tcgen05), ``import deep_gemm`` succeeds (the wheel requires
#   ``sgl-deep-gemm``) and ``SGLANG_ENABLE_JIT_DEEPGEMM`` (default True).
# * The DeepGEMM each release pins (its ``METADATA`` ``Requires-Dist``): 0.5.12.post1 ``sgl-deep-gemm==0.1.0``, 0.5.13
#   ``0.1.2``, 0.5.14 ``0.1.3``, 0.5.15 ``0.1.4``, 0.5.16 ``0.1.4.post1``, 0.5.18 ``0.1.5.post3``, 0.5.23
#   ``0.2.3.post2``.  Its ``deep_gemm/__init__.py`` binds ``set_pdl = _C.set_pdl`` from 0.1.4 (read 0.1.4, 0.1.4.post1,
#   0.1.5.post3, 0.2.3.post2); 0.1.2 and 0.1.3 build the op into ``_C.so`` but do not bind it in the package, so
#   ``hasattr`` is False and nothing is called (0.1.0 has no such op).  So the first release that takes the workspace
#   here is 0.5.15.
# * DeepGEMM's ``csrc/apis/runtime.hpp`` ``set_pdl`` calls ``device_runtime->set_pdl``; ``device_runtime`` is a
#   ``LazyInit<DeviceRuntime>`` (``csrc/jit/device_runtime.hpp``, deepseek-ai/DeepGEMM and the sgl-project fork): the
#   first access constructs ``DeviceRuntime``, whose constructor creates a cuBLASLt handle (``cublasLtCreate``) and a
#   ``kCublasLtWorkspaceSize`` = 32 MiB workspace on the current CUDA device (``torch::empty`` of 32 MiB bytes, which
#   torch's caching allocator serves from a 32 MiB segment), held for the process's life; upstream's two switches,
#   ``DG_USE_PYTORCH_CUBLASLT_HANDLE`` and ``DG_USE_TEMP_CUBLASLT_WORKSPACE``, are off by default.  The sgl-deep-gemm
#   0.1.4 / 0.1.5.post3 / 0.2.3.post2 ``_C.so`` carry both switch names and link ``torch::empty`` (read with
#   ``strings`` / ``nm``): the same constructor.
#
# So from 0.5.15, on a CUDA GPU of compute capability ≥ 9.0 other than 12.0, at every world size (nothing touches
# DeepGEMM inside ``init_torch_distributed``), 32 MiB leave the free memory after the pre sample and before 'Load weight
# begin', as torch's stream pool does at world size 1 (``engines.sglang.streams``).  The cuBLASLt handle's own device
# memory is not sized by any source read here: not charged.  A user's own DeepGEMM build or
# ``SGLANG_DEEPGEMM_PDL=0`` / ``SGLANG_ENABLE_JIT_DEEPGEMM=0`` changes this; the log does not print either.  Releases
# 0.5.17 and 0.5.19–0.5.22 were not read: their pins lie between 0.1.4.post1 and 0.2.3.post2, which all bind
# ``set_pdl``.

WORKSPACE_BYTES: Bytes = MiB(32)
"""DeepGEMM's ``DeviceRuntime::kCublasLtWorkspaceSize`` (``csrc/jit/device_runtime.hpp``)"""

DEEPGEMM_FIRST = "0.5.15"
"""first SGLang release whose pinned ``sgl-deep-gemm`` (0.1.4) binds ``set_pdl``, which 0.5.13+ calls after the pre
sample (0.5.13 / 0.5.14 pin 0.1.2 / 0.1.3, which do not bind it)"""

WORKSPACE_SOURCE = ("DeepGEMM's cuBLASLt workspace, 32 MiB (csrc/jit/device_runtime.hpp DeviceRuntime, built lazily "
                    "by deep_gemm.set_pdl): sglang 0.5.15+ ModelRunner.__init__ calls "
                    "deep_gemm_wrapper.update_deep_gemm_config after init_torch_distributed samples "
                    "pre_model_load_memory, before 'Load weight begin' (0.5.15 pins sgl-deep-gemm 0.1.4, the first "
                    "that binds set_pdl); CUDA compute capability ≥ 9.0 except 12.0 (configurer.py), every world size")

WORKSPACE_ITEM = "DeepGEMM's cuBLASLt workspace (after the pre sample)"
"""the line ``tpkit plan``'s ledger and ``tpkit explain`` give it (``ledger._stream_lines``; helper gx33)"""


def takes_deepgemm(compute_capability: tuple[int, int] | None, vendor: str | None) -> bool | None:
    """Whether SGLang's ``_compute_enable_deep_gemm`` is true on this GPU (CUDA, compute capability ≥ 9.0 and not
    12.0); None where the compute capability is not known on an NVIDIA (or unknown-vendor) GPU."""
    if is_amd(vendor):
        return False
    if compute_capability is None:
        return None
    major, minor = compute_capability
    return major * 10 + minor >= 90 and (major, minor) != (12, 0)


def deepgemm_workspace(version: str, *, compute_capability: tuple[int, int] | None, vendor: str | None) -> Bytes:
    """Bytes SGLang ``version`` takes for DeepGEMM's workspace between the pre sample and the weights on a GPU of
    ``compute_capability`` (None: not known, charged — the caller spans 0 … this where the card is open) and
    ``vendor``: ``WORKSPACE_BYTES`` from ``DEEPGEMM_FIRST`` where DeepGEMM is enabled, else 0."""
    if not at_least(version, DEEPGEMM_FIRST):
        return Bytes(0)
    if takes_deepgemm(compute_capability, vendor) is False:
        return Bytes(0)
    return WORKSPACE_BYTES
