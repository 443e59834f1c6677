"""Capture sizes under speculative decoding: vLLM rounds them to multiples of 1 + speculative tokens (split from
``engines.vllm.graphs`` by helper ev24, 2026-12-06, session 24, to keep that module under the size limit; the functions
are unchanged and ``graphs`` re-exports them)."""

from __future__ import annotations

from tpkit.errors import PlanInputError

__all__ = ["spec_decode_rounding_applies", "spec_decode_rounded_sizes"]


def spec_decode_rounding_applies(release: tuple[int, int, int], *, v2_runner: bool, mode: str,
                                 decode_query_len: int) -> bool:
    """Whether vLLM rounds the capture sizes to multiples of ``decode_query_len`` (1 + speculative tokens)
    (``CompilationConfig.adjust_cudagraph_sizes_for_spec_decode``; helper g593, wheels 0.15.0–0.33.0): called by the
    V1 runner in 0.15.0–0.19.1 when FULL has a separate decode routine (FULL_AND_PIECEWISE, FULL_DECODE_ONLY), by
    ``resolve_cudagraph_mode_and_sizes`` in 0.20.0–0.33.0 for any FULL decode mode, from 0.25.0 not for Model
    Runner V2 (which sizes its own, ``full_capture_sizes``; before 0.29 its estimate is 0 anyway).  PIECEWISE-only
    runs keep the plain ladder (a PIECEWISE-only NVFP4 start with MTP prints 9 unrounded graphs).  ``enable_sp`` (off by default) not modelled."""
    if v2_runner or decode_query_len <= 1:
        return False
    full_decode = ("FULL_AND_PIECEWISE", "FULL_DECODE_ONLY") if release < (0, 20, 0) else \
        ("FULL_AND_PIECEWISE", "FULL_DECODE_ONLY", "FULL")
    return mode in full_decode


def spec_decode_rounded_sizes(sizes: tuple[int, ...], decode_query_len: int) -> tuple[int, ...]:
    """``adjust_cudagraph_sizes_for_spec_decode``: each size rounded up to a multiple of ``decode_query_len``,
    those above the largest size dropped, de-duplicated; none left: ``decode_query_len`` when it fits, else vLLM
    refuses (``PlanInputError``).  A DeepSeek-V4 start with MTP 2 and 64 sequences prints the rounded
    'PIECEWISE=42, FULL=26'."""
    if decode_query_len <= 1 or not sizes:
        return sizes
    top = max(sizes)
    rounded = sorted({r for r in (-(-s // decode_query_len) * decode_query_len for s in sizes) if r <= top})
    if not rounded and decode_query_len <= top:
        rounded = [decode_query_len]
    if not rounded:
        raise PlanInputError(f"vLLM rounds the CUDA-graph capture sizes up to multiples of 1 + speculative tokens "
                             f"({decode_query_len}) and refuses the start when none is left: the largest capture size "
                             f"is {top}. Pass a --max-cudagraph-capture-size or --cudagraph-capture-sizes of at least "
                             f"{decode_query_len}, or fewer speculative tokens.")
    return tuple(rounded)
