"""Parallel layout of one serving instance (pure value type)."""

from __future__ import annotations

import math


from tpkit.errors import PlanInputError
from tpkit.records import dataclass

__all__ = ["ParallelSpec", "check_layout_size", "parse_partition"]


MAX_SIZE = 1024
"""largest tp, pp, dp or ep tpkit plans: per-GPU matrices (links, p2p) grow with its square"""


_MEANING = {"tp": "tensor parallel: the GPUs each layer is split over", "pp": "pipeline stages",
            "dp": "data-parallel replicas", "ep": "expert parallel: the GPUs the experts are spread over"}
"""what each layout flag counts, for the message that refuses a value below 1"""


def check_layout_size(name: str, value: object) -> None:
    """Refuse a layout size (``name``: ``tp``, ``pp``, ``dp`` or ``ep``) that is not a whole number from 1 to
    ``MAX_SIZE``, saying what it counts: the one check of ``tpkit plan``, ``perf`` and ``explain``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise PlanInputError(f"--{name} must be a whole number ≥ 1, got {value!r}; it counts GPUs "
                             f"({_MEANING[name]}): 1 when not split that way, e.g. --{name} 1")
    if value > MAX_SIZE:
        raise PlanInputError(f"--{name} {value:,} is more than tpkit plans ({MAX_SIZE:,} per dimension: no "
                             f"released model has more attention heads or layers to split); use "
                             f"--{name} ≤ {MAX_SIZE:,}")


def parse_partition(text: object, pp: int | None = None, *, flag: str = "--pp-layer-partition") -> tuple[int, ...]:
    """The layer count of each PP stage from a partition string such as "16,32" (``tpkit.models.layout.
    PARTITION_ENV``), refused with what was received and how to fix it when a part is not a whole number, is
    negative, or (``pp`` given) the count of parts is not ``pp``."""
    raw = str(text).strip()
    parts = [p.strip() for p in raw.split(",")]
    try:
        sizes = tuple(int(p) for p in parts)
    except ValueError:
        raise PlanInputError(f"{flag} {raw!r}: every part must be a whole number of decoder layers, comma-"
                             f"separated, one per PP stage (e.g. {flag} 16,32 for --pp 2); the engines refuse it too "
                             "('Invalid partition string')") from None
    if any(n < 0 for n in sizes):
        raise PlanInputError(f"{flag} {raw!r}: a stage cannot hold a negative number of layers; give each stage's "
                             f"layer count (e.g. {flag} 16,32)")
    if pp is not None and len(sizes) != pp:
        raise PlanInputError(f"{flag} {raw!r} names {len(sizes)} stage(s) but --pp is {pp}: give one layer count "
                             f"per pipeline stage ({pp} parts), or set --pp {len(sizes)}")
    return sizes


@dataclass(frozen=True, kw_only=True, slots=True)
class ParallelSpec:
    """How the model is split across GPUs.

    ``tp * pp`` GPUs serve one model replica; ``dp`` replicas; ``ep`` splits MoE experts
    (within the ``tp`` group, as SGLang's ``--ep-size``).

    With ``dp_attention`` (SGLang ``--enable-dp-attention``) ``dp`` is not a count of replicas: the TP group
    runs attention as ``dp`` data-parallel ranks of ``tp / dp`` GPUs each (``attn_tp``), while the MLP / MoE
    layers stay tensor- (or expert-) parallel over all ``tp`` GPUs.  One replica then uses ``tp × pp`` GPUs
    (SGLang 0.5.23 ``runtime_context.derive_attn_tp_size``: attn_tp = tp / attn_dp).
    """

    tp: int = 1
    """tensor-parallel size (count)"""
    pp: int = 1
    """pipeline-parallel size (count)"""
    dp: int = 1
    """data-parallel replicas (count)"""
    ep: int = 1
    """expert-parallel size (count); 1 = experts are TP-sharded"""
    dp_attention: bool = False
    """``dp`` is attention data parallelism inside the TP group (SGLang ``--enable-dp-attention``)"""
    expert_tp: int | None = None
    """GPUs each routed expert's matrices are split over when that differs from ``tp`` (None: ``tp``): vLLM's
    ``--data-parallel-size`` without ``--enable-expert-parallel`` shards the experts over tp × dp
    (``engines.vllm.layout.resolve_parallel``)"""
    layer_partition: tuple[int, ...] | None = None
    """decoder layers of each PP stage set by hand (``--pp-layer-partition``: vLLM's ``VLLM_PP_LAYER_PARTITION``,
    SGLang's ``SGLANG_PP_LAYER_PARTITION``, ``tpkit.models.layout.PARTITION_ENV``); None: the engine's default
    split.  One count per stage; their sum is checked against the model's layers when the stages are planned"""
    stage: int | None = None
    """the PP stage this plan is for (0-based; ``engines.vllm.stages``: one plan per stage when the stages run on
    unlike GPUs, ``tpkit plan --gpu A,B``); None: the stage with the most layers / the heaviest weights"""

    def __post_init__(self) -> None:
        for name in ("tp", "pp", "dp", "ep"):
            check_layout_size(name, getattr(self, name))
        if self.expert_tp is not None and (isinstance(self.expert_tp, bool) or not isinstance(self.expert_tp, int)
                                           or self.expert_tp < 1):
            raise PlanInputError(f"expert_tp must be a whole number ≥ 1 or None, got {self.expert_tp!r}")
        if self.layer_partition is not None:
            text = (",".join(map(str, self.layer_partition)) if isinstance(self.layer_partition, (tuple, list))
                    else self.layer_partition)
            object.__setattr__(self, "layer_partition", parse_partition(text, self.pp))
        if self.stage is not None and (isinstance(self.stage, bool) or not isinstance(self.stage, int)
                                       or not 0 <= self.stage < self.pp):
            raise PlanInputError(f"stage must be a whole number from 0 to pp - 1 = {self.pp - 1}, got {self.stage!r}")
        if not isinstance(self.dp_attention, bool):
            raise PlanInputError(f"dp_attention must be True or False, got {self.dp_attention!r}")
        if self.dp_attention and self.tp % self.dp:
            raise PlanInputError(
                f"--enable-dp-attention runs --dp {self.dp} attention ranks inside the TP group, so --dp must divide "
                f"--tp {self.tp}; use --dp {self.tp} (one GPU per attention rank) or a divisor of {self.tp}")
        expert_gpus = self.tp if self.dp_attention else self.tp * self.dp
        if expert_gpus % self.ep:
            where = f"tp = {self.tp}" if self.dp_attention else f"tp × dp = {self.tp} × {self.dp}"
            ok = [d for d in range(1, expert_gpus + 1) if expert_gpus % d == 0] if expert_gpus <= 4096 else [1]
            shown = ", ".join(map(str, ok[:8])) + (" …" if len(ok) > 8 else "")
            per = expert_gpus // self.tp  # GPUs per TP rank in the expert group (dp, or 1)
            tp_keep = self.tp * self.ep // math.gcd(self.tp * per, self.ep)
            raise PlanInputError(
                f"--ep {self.ep} must divide the {expert_gpus} GPU(s) of {where} that hold the experts; use "
                + (f"--ep {' or '.join(shown.rsplit(', ', 1))} (--ep {expert_gpus} spreads the experts over all of "
                   f"them)" if len(ok) > 1 else "--ep 1 (one GPU holds every expert)")
                + f", or keep --ep {self.ep} with --tp {tp_keep}")

    @property
    def attn_dp(self) -> int:
        """Attention data-parallel ranks inside the TP group (1 without ``dp_attention``)."""
        return self.dp if self.dp_attention else 1

    @property
    def attn_tp(self) -> int:
        """GPUs of one attention rank: tp / dp with ``dp_attention``, else tp."""
        return self.tp // self.attn_dp

    @property
    def num_gpus(self) -> int:
        """GPUs in total: tp × pp × dp, or tp × pp when ``dp`` is attention DP inside the TP group."""
        return self.tp * self.pp * (1 if self.dp_attention else self.dp)

    def to_dict(self) -> dict[str, int]:
        out = {"tp": self.tp, "pp": self.pp, "dp": self.dp, "ep": self.ep}
        if self.dp_attention:
            out["dp_attention"] = True
        if self.layer_partition is not None:
            out["layer_partition"] = list(self.layer_partition)
        return out
