"""Which GPUs SGLang runs on at all (pure; imports only its parent package: read on `tpkit explain`'s cold path)."""

from __future__ import annotations

from tpkit.engines import MIN_COMPUTE_CAPABILITY
from tpkit.hardware.gpu import is_nvidia

__all__ = ["SGLANG_MIN_COMPUTE_CAPABILITY", "sglang_runs_on"]

SGLANG_MIN_COMPUTE_CAPABILITY = MIN_COMPUTE_CAPABILITY["sglang"]
"""SGLang refuses an NVIDIA GPU below SM75 at its weight load: ``RuntimeError("SGLang only supports sm75 and
above.")`` (value in ``tpkit.engines.MIN_COMPUTE_CAPABILITY``; sglang 0.4.2–0.5.20 ``model_executor/model_runner.py``
``ModelRunner.load_model``; 0.5.23
``model_executor/model_runner_components/load_model_utils.py``); below SM80 it also loads in float16."""


def sglang_runs_on(vendor: str, compute_capability: tuple[int, int] | None) -> bool:
    """False for an NVIDIA GPU below ``SGLANG_MIN_COMPUTE_CAPABILITY`` (a V100); True when it is unknown."""
    if not is_nvidia(vendor) or compute_capability is None:
        return True
    return tuple(compute_capability) >= SGLANG_MIN_COMPUTE_CAPABILITY
