"""Parallel layout of one serving instance (pure value type)."""

from __future__ import annotations

from dataclasses import dataclass

from tpkit.errors import PlanInputError

__all__ = ["ParallelSpec"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ParallelSpec:
    """How the model is split across GPUs.

    ``tp * pp`` GPUs serve one model replica; ``dp`` replicas; ``ep`` splits MoE experts
    (within the ``tp`` group, as SGLang's ``--ep-size``).
    """

    tp: int = 1
    """tensor-parallel size (count)"""
    pp: int = 1
    """pipeline-parallel size (count)"""
    dp: int = 1
    """data-parallel replicas (count)"""
    ep: int = 1
    """expert-parallel size (count); 1 = experts are TP-sharded"""

    def __post_init__(self) -> None:
        for name in ("tp", "pp", "dp", "ep"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise PlanInputError(f"--{name} must be a whole number ≥ 1, got {value!r}")
        if (self.tp * self.dp) % self.ep:
            raise PlanInputError(
                f"--ep {self.ep} must divide the {self.tp * self.dp} GPUs of tp × dp = {self.tp} × {self.dp} that hold "
                f"the experts; use --ep {self.tp} (experts spread over the TP group) or 1")

    @property
    def num_gpus(self) -> int:
        """GPUs in total (tp × pp × dp)."""
        return self.tp * self.pp * self.dp

    def to_dict(self) -> dict[str, int]:
        return {"tp": self.tp, "pp": self.pp, "dp": self.dp, "ep": self.ep}
