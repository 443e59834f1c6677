"""The KV block size vLLM picks, and which ``--block-size`` it accepts, per release and GPU (vLLM ≤ 0.33;
sources below).

Non-MLA attention (FlashAttention, Triton, FlashInfer): 16 by default (64 from 0.34.0, ``VllmRules.default_block_size``:
``config/cache.py CacheConfig.DEFAULT_BLOCK_SIZE``, which every CUDA backend but CUTLASS-MLA / FlashMLA takes), any
multiple of 16 (V0: 8, 16, 32).  From 0.34.0 the MLA backends below that prefer 16 (FLASH_ATTN_MLA, Triton-MLA) or
32 (FlashInfer-MLA) take 64 too.

MLA, by compute capability (the attention backend decides):

    release      Hopper (9.x)                          Blackwell (10.x)                         Ampere/Ada
    ≤ 0.11       FlashMLA: forced 64 (block != 64)     CUTLASS-MLA: forced 128 (block != 128)   Triton MLA 16
    0.12–0.14    FlashMLA: forced 64 (block % 64)      CUTLASS-MLA: forced 128 (block % 128)    16
    0.15–0.17    FlashMLA: forced 64 (block % 64)      FlashInfer-MLA forced 64 (block % 64) if 16
                                                       qk_nope_head_dim = 128, else CUTLASS 128
    ≥ 0.18       FLASH_ATTN_MLA first: preferred 16,   FLASHINFER_MLA first: 32 (accepts 32,    16
                 any multiple of 16 kept; fp8 KV →     64; smallest = 32)
                 FLASHMLA: 64 only

Sources: ≤ 0.17 ``platforms/cuda.py CudaPlatform.check_and_update_config`` ("Forcing kv cache block size to
64 for FlashMLA backend."); ≥ 0.18 ``platforms/interface.py update_block_size_for_backend`` with
``v1/attention/backend.py get_preferred_block_size`` and the Hopper/Blackwell priority lists of
``platforms/cuda.py _get_backend_priorities`` (FLASH_ATTN_MLA is SM90-only and takes only auto/fp16/bf16 KV).
A forced size overrides the user's (vLLM logs it, it does not refuse); ≥ 0.18 a size the first backend cannot
take makes vLLM fall through to the next one in the priority list (Triton-MLA, last, takes multiples of 16), so
``--block-size 16`` is kept (which backend then runs is not modelled).
"""

from __future__ import annotations

from tpkit.engines.vllm.versions import VllmRules
from tpkit.errors import PlanInputError
from tpkit.models.spec import ModelSpec

__all__ = ["DEFAULT_BLOCK_SIZE", "default_block_size", "check_block_size", "resolve_block_size"]

DEFAULT_BLOCK_SIZE = 16
"""CacheConfig.DEFAULT_BLOCK_SIZE (tokens), ``vllm/config/cache.py`` (vLLM ≤ 0.33; 64 from 0.34.0:
``VllmRules.default_block_size``)"""


def _mla_backend(model: ModelSpec, rules: VllmRules, cap: tuple[int, int], fp8_kv: bool) -> tuple[str, int]:
    """(backend name, the block it uses by default) for an MLA model on capability ``cap``; from 0.18 the backend's
    preferred size: the release's default block when the backend takes it, else its smallest
    (``VllmRules.default_block_size``: 16 → FLASH_ATTN_MLA 16, FlashInfer-MLA 32; 64 from 0.34.0 → 64 for both)."""
    default = rules.default_block_size
    if cap[0] == 9:
        if rules.mla_preferred_block and not fp8_kv:
            return "FLASH_ATTN_MLA", default  # MultipleOf(16)
        return "FlashMLA", 64
    if cap[0] == 10:
        if rules.mla_preferred_block:
            return "FlashInfer-MLA", default if default in (32, 64) else 32  # [32, 64]
        if rules.release >= (0, 15, 0) and model.mla.qk_nope_head_dim == 128:
            return "FlashInfer-MLA", 64
        return "CUTLASS-MLA", 128
    return "Triton-MLA", default  # MultipleOf(16)


SPARSE_MLA_BLOCK = 64
SPARSE_FORCED_RELEASES = ((0, 11, 0), (0, 18, 0))
"""[first, end) releases whose ``platforms/cuda.py`` ``check_and_update_config`` forces block 64 for sparse MLA
(``use_sparse = hasattr(hf_config, "index_topk")``: "Forcing kv cache block size to 64 for FlashMLASparse backend",
read in 0.11.0 and 0.14.1), whatever the GPU or ``--block-size``.  From 0.18 the block comes from the sparse
backend's preferred size (FlashMLA-Sparse [64], FlashInfer-MLA-Sparse [32, 64] in 0.29), not modelled here."""


def _sparse_forced(model: ModelSpec, rules: VllmRules) -> bool:
    return (model.mla is not None and model.dsa is not None and rules.engine != "V0"
            and SPARSE_FORCED_RELEASES[0] <= rules.release < SPARSE_FORCED_RELEASES[1])


def default_block_size(model: ModelSpec, rules: VllmRules, compute_capability: tuple[int, int] | None,
                       *, fp8_kv: bool = False) -> int:
    """The block size vLLM picks without ``--block-size``."""
    if _sparse_forced(model, rules):
        return SPARSE_MLA_BLOCK
    if model.mla is None or rules.engine == "V0":
        return DEFAULT_BLOCK_SIZE if rules.engine == "V0" else rules.default_block_size
    return _mla_backend(model, rules, compute_capability or (0, 0), fp8_kv)[1]


def _forced(block: int, need: int, rules: VllmRules) -> bool:
    """≤ 0.11 forces any other size; 0.12–0.17 only sizes that are not a multiple of the backend's."""
    return block != need if rules.release < (0, 12, 0) else block % need != 0


def resolve_block_size(model: ModelSpec, block_size: int | None, rules: VllmRules,
                       compute_capability: tuple[int, int] | None, *, fp8_kv: bool = False,
                       rocm: bool = False) -> tuple[int, str | None]:
    """(the block size vLLM runs with, its log line when it overrides the user's) — raises on a size the
    backend refuses (``rocm``: an AMD GPU, whose MLA backends are ``rocm_mla_block``'s)."""
    if block_size is None:
        return default_block_size(model, rules, compute_capability, fp8_kv=fp8_kv), None
    check_block_size(model, block_size, rules, compute_capability, fp8_kv=fp8_kv, rocm=rocm)
    if _sparse_forced(model, rules):
        if block_size != SPARSE_MLA_BLOCK:
            return SPARSE_MLA_BLOCK, "Forcing kv cache block size to 64 for FlashMLASparse backend."
        return block_size, None
    cap = compute_capability or (0, 0)
    if model.mla is None or rules.engine == "V0" or rules.mla_preferred_block or cap[0] not in (9, 10):
        return block_size, None
    name, need = _mla_backend(model, rules, cap, fp8_kv)
    if _forced(block_size, need, rules):
        return need, f"Forcing kv cache block size to {need} for {name.replace('-', '')} backend."
    return block_size, None


def check_block_size(model: ModelSpec, block_size: int, rules: VllmRules, cap: tuple[int, int] | None = None,
                     *, fp8_kv: bool = False, rocm: bool = False) -> None:
    """Raise ``PlanInputError`` when no attention backend of the release can use ``block_size``.

    Every V1 backend takes multiples of 16 (≥ 0.18 an MLA size the first backend refuses falls through the
    priority list to one that takes it, at the end Triton-MLA, ``MultipleOf(16)``); on ROCm an MLA model's
    sizes are ``rocm_mla_block``'s (AITER MLA takes 1, from 0.16 any size; sparse MLA keeps the V1 rule)."""
    if rocm and model.mla is not None and model.dsa is None and rules.engine != "V0":
        from tpkit.engines.vllm.rocm_mla_block import rocm_mla_block_refusal  # lazy: ROCm MLA only

        why = rocm_mla_block_refusal(block_size, rules.release)
        if why:
            raise PlanInputError(why)
        return
    if rules.engine == "V0":
        if block_size not in (8, 16, 32):
            raise PlanInputError(f"--block-size {block_size} is not one of the V0 engine's choices 8, 16, 32; "
                                 "pass one of those or leave it unset (16)")
        return
    if block_size % 16:
        raise PlanInputError(f"--block-size {block_size} is not a multiple of 16, which vLLM's attention "
                             f"backends need; use {max(16, block_size // 16 * 16)} or leave it unset")
