"""SGLang's DeepGEMM runtime: a 32 MiB cuBLASLt workspace taken after ``pre_model_load_memory`` is sampled.

Read in the release wheels (``pip download --no-deps sglang==X``; helper cap33, docs/accuracy.md §7):

* ``model_executor/model_runner.py`` ``ModelRunner.__init__`` (0.5.12.post1, 0.5.13, 0.5.14, 0.5.15, 0.5.16, 0.5.18):
  ``pre_model_load_memory = self.init_torch_distributed()`` samples the free memory, then, where
  ``deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM``, ``deep_gemm_wrapper.update_deep_gemm_config(gpu_id, server_args)`` runs,
  then ``initialize`` → ``load_model`` prints 'Load weight begin'.
* ``layers/deep_gemm_wrapper/entrypoint.py`` ``update_deep_gemm_config``: from 0.5.13 (absent in 0.5.12.post1) it
  calls ``deep_gemm.set_pdl(True)`` when ``SGLANG_DEEPGEMM_PDL`` (``environ.py``, default True from 0.5.13) is set and
  ``hasattr(deep_gemm, "set_pdl")``; the comment says ``set_pdl`` "can initialize CUDA state".
* ``layers/deep_gemm_wrapper/configurer.py`` ``_compute_enable_deep_gemm`` (0.5.13, 0.5.15, 0.5.18): CUDA only, compute
  capability 9.0 or higher but not 12.0 (SM120 has no tcgen05), ``import deep_gemm`` succeeds (the wheel requires
  ``sgl-deep-gemm``) and ``SGLANG_ENABLE_JIT_DEEPGEMM`` (default True).
* The DeepGEMM each release pins (its ``METADATA`` ``Requires-Dist``): 0.5.12.post1 ``sgl-deep-gemm==0.1.0``, 0.5.13
  ``0.1.2``, 0.5.14 ``0.1.3``, 0.5.15 ``0.1.4``, 0.5.16 ``0.1.4.post1``, 0.5.18 ``0.1.5.post3``, 0.5.23
  ``0.2.3.post2``.  Its ``deep_gemm/__init__.py`` binds ``set_pdl = _C.set_pdl`` from 0.1.4 (read 0.1.4, 0.1.4.post1,
  0.1.5.post3, 0.2.3.post2); 0.1.2 and 0.1.3 build the op into ``_C.so`` but do not bind it in the package, so
  ``hasattr`` is False and nothing is called (0.1.0 has no such op).  So the first release that takes the workspace
  here is 0.5.15.
* DeepGEMM's ``csrc/apis/runtime.hpp`` ``set_pdl`` calls ``device_runtime->set_pdl``; ``device_runtime`` is a
  ``LazyInit<DeviceRuntime>`` (``csrc/jit/device_runtime.hpp``, deepseek-ai/DeepGEMM and the sgl-project fork): the
  first access constructs ``DeviceRuntime``, whose constructor creates a cuBLASLt handle (``cublasLtCreate``) and a
  ``kCublasLtWorkspaceSize`` = 32 MiB workspace on the current CUDA device (``torch::empty`` of 32 MiB bytes, which
  torch's caching allocator serves from a 32 MiB segment), held for the process's life; upstream's two switches,
  ``DG_USE_PYTORCH_CUBLASLT_HANDLE`` and ``DG_USE_TEMP_CUBLASLT_WORKSPACE``, are off by default.  The sgl-deep-gemm
  0.1.4 / 0.1.5.post3 / 0.2.3.post2 ``_C.so`` carry both switch names and link ``torch::empty`` (read with
  ``strings`` / ``nm``): the same constructor.

So from 0.5.15, on a CUDA GPU of compute capability ≥ 9.0 other than 12.0, at every world size (nothing touches
DeepGEMM inside ``init_torch_distributed``), 32 MiB leave the free memory after the pre sample and before 'Load weight
begin', as torch's stream pool does at world size 1 (``engines.sglang.streams``).  The cuBLASLt handle's own device
memory is not sized by any source read here: not charged.  A user's own DeepGEMM build or
``SGLANG_DEEPGEMM_PDL=0`` / ``SGLANG_ENABLE_JIT_DEEPGEMM=0`` changes this; the log does not print either.  Releases
0.5.17 and 0.5.19–0.5.22 were not read: their pins lie between 0.1.4.post1 and 0.2.3.post2, which all bind
``set_pdl``.
"""

from __future__ import annotations

from tpkit.engines.sglang.versions import at_least
from tpkit.units import Bytes, MiB

__all__ = ["WORKSPACE_BYTES", "FIRST_RELEASE", "WORKSPACE_SOURCE", "deepgemm_workspace", "takes_deepgemm"]

WORKSPACE_BYTES: Bytes = MiB(32)
"""DeepGEMM's ``DeviceRuntime::kCublasLtWorkspaceSize`` (``csrc/jit/device_runtime.hpp``)"""

FIRST_RELEASE = "0.5.15"
"""first SGLang release whose pinned ``sgl-deep-gemm`` (0.1.4) binds ``set_pdl``, which 0.5.13+ calls after the pre
sample (0.5.13 / 0.5.14 pin 0.1.2 / 0.1.3, which do not bind it)"""

WORKSPACE_SOURCE = ("DeepGEMM's cuBLASLt workspace, 32 MiB (csrc/jit/device_runtime.hpp DeviceRuntime, built lazily "
                    "by deep_gemm.set_pdl): sglang 0.5.15+ ModelRunner.__init__ calls "
                    "deep_gemm_wrapper.update_deep_gemm_config after init_torch_distributed samples "
                    "pre_model_load_memory, before 'Load weight begin' (0.5.15 pins sgl-deep-gemm 0.1.4, the first "
                    "that binds set_pdl); CUDA compute capability ≥ 9.0 except 12.0 (configurer.py), every world size")


def takes_deepgemm(compute_capability: tuple[int, int] | None, vendor: str | None) -> bool | None:
    """Whether SGLang's ``_compute_enable_deep_gemm`` is true on this GPU (CUDA, compute capability ≥ 9.0 and not
    12.0); None where the compute capability is not known on an NVIDIA (or unknown-vendor) GPU."""
    if vendor is not None and str(vendor).upper() == "AMD":
        return False
    if compute_capability is None:
        return None
    major, minor = compute_capability
    return major * 10 + minor >= 90 and (major, minor) != (12, 0)


def deepgemm_workspace(version: str, *, compute_capability: tuple[int, int] | None, vendor: str | None) -> Bytes:
    """Bytes SGLang ``version`` takes for DeepGEMM's workspace between the pre sample and the weights on a GPU of
    ``compute_capability`` (None: not known, charged — the caller spans 0 … this where the card is open) and
    ``vendor``: ``WORKSPACE_BYTES`` from ``FIRST_RELEASE`` where DeepGEMM is enabled, else 0."""
    if not at_least(version, FIRST_RELEASE):
        return Bytes(0)
    if takes_deepgemm(compute_capability, vendor) is False:
        return Bytes(0)
    return WORKSPACE_BYTES
