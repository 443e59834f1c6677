"""Which ``--block-size`` vLLM's ROCm MLA attention backends take (V1 engine, AMD GPUs), by release.

Read in the vllm wheels 0.8.0, 0.9.0, 0.10.0, 0.11.0, 0.16.0–0.21.0, 0.26.0 and 0.30.0 (helper pl37):

    release        ROCm MLA backend choice (``platforms/rocm.py``)          block sizes it takes
    0.8.0          Triton MLA only (no AITER MLA in the wheel)               multiples of 16 (tpkit's V1 rule)
    0.9.0–0.15     ROCM_AITER_MLA when AITER MLA is on *or* block_size == 1,  AITER MLA: 1 only ("currently only
                   else TRITON_MLA (``get_attn_backend_cls``)                 supports block size 1"); Triton MLA:
                                                                              any other (multiples of 16 here)
    0.16–0.17      the same choice; ROCM_AITER_MLA                           any size of the CLI's ``BlockSize``
                   ``get_supported_kernel_block_sizes() = [1]`` and the      choices 1, 8, 16, 32, 64, 128, 256
                   hybrid-block rule of ``supports_block_size``               (``config/cache.py``)
                   (block % kernel block == 0)
    ≥ 0.18         priority list [ROCM_AITER_MLA, TRITON_MLA,                any positive size (AITER MLA: kernel
                   ROCM_AITER_TRITON_MLA] with AITER MLA on, else            block [1] in 0.18–0.19,
                   [TRITON_MLA] (``_get_backend_priorities``); a backend     ``MultipleOf(1)`` from 0.20: the
                   whose kernel blocks cannot divide the size is skipped     metadata builder expands blocks to
                   ("Found incompatible backend(s) [TRITON_MLA] …            per-token indices)
                   Overriding with ROCM_AITER_MLA")

So a size that is not a multiple of 16 runs on ROCm only through AITER MLA.  From 0.18 that needs AITER MLA on
(``VLLM_ROCM_USE_AITER=1``; tpkit does not see the environment and takes it as on when such a size is passed);
0.9–0.17 pick AITER MLA for block size 1 by themselves.  Sparse MLA (``ROCM_AITER_MLA_SPARSE``: block 1 in 0.16,
[1, 64] in 0.21) is not covered here.  Not read: 0.8.1–0.8.5 (the V1 rule stands there) and 0.12–0.15 (the
0.11 rule is kept there; the kernel-block [1] of 0.16 may have come earlier).
"""

from __future__ import annotations

__all__ = ["AITER_MLA_FIRST", "AITER_MLA_ANY_SIZE", "rocm_mla_block_refusal", "rocm_mla_backend"]

AITER_MLA_FIRST = (0, 9, 0)
"""first release read whose ROCm MLA selection takes ``--block-size 1`` (AITER MLA; none in the 0.8.0 wheel)"""

AITER_MLA_ANY_SIZE = (0, 16, 0)
"""first release whose ROCM_AITER_MLA backend declares kernel block [1] (any size by the hybrid-block rule)"""

CLI_BLOCK_CHOICES_016 = (1, 8, 16, 32, 64, 128, 256)
"""``config/cache.py BlockSize`` of 0.16–0.17 (0.18 makes ``block_size`` a plain int)"""

CLI_CHOICES_END = (0, 18, 0)


def rocm_mla_block_refusal(block_size: int, release: tuple[int, int, int]) -> str | None:
    """Why ROCm vLLM ``release`` refuses ``--block-size block_size`` for an MLA model, or ``None`` when a ROCm MLA
    backend takes it (module table)."""
    if block_size < 1:
        return f"--block-size {block_size} must be a positive number of tokens"
    if block_size % 16 == 0:
        return None  # Triton MLA (MultipleOf(16)) in every release
    if release < AITER_MLA_FIRST:
        return (f"--block-size {block_size} is not a multiple of 16, which vLLM's ROCm MLA backend (Triton MLA) "
                f"needs before AITER MLA (0.9.0); use {max(16, block_size // 16 * 16)} or leave it unset")
    if release < AITER_MLA_ANY_SIZE:
        if block_size == 1:
            return None
        return (f"--block-size {block_size} is neither 1 (ROCm AITER MLA) nor a multiple of 16 (Triton MLA), the "
                "sizes vLLM's ROCm MLA backends take before 0.16; use 1, 16 or leave it unset")
    if release < CLI_CHOICES_END and block_size not in CLI_BLOCK_CHOICES_016:
        return (f"--block-size {block_size} is not one of vLLM's choices "
                f"{', '.join(map(str, CLI_BLOCK_CHOICES_016))} (config/cache.py BlockSize, 0.16–0.17)")
    return None


def rocm_mla_backend(auto_choice: str, block_size: int, *, rocm: bool, dense_mla: bool, given: str | None) -> str:
    """The backend name the plan reports: ROCM_AITER_MLA where vLLM's automatic choice on ROCm must fall to it
    (a dense-MLA block size that is not a multiple of 16: Triton MLA cannot take it, module table), else
    ``auto_choice``.  A backend the user names is kept."""
    if rocm and dense_mla and given in (None, "", "auto", "AUTO") and block_size % 16:
        return "ROCM_AITER_MLA"
    return auto_choice
