"""``--cpu-offload-gb``: which weights SGLang and vLLM move to CPU memory, and what stays on the GPU (pure).

Both engines take the value in GiB per GPU (``int(cpu_offload_gb * 1024**3)`` bytes) and apply one rule, read
in the wheels:

    vLLM 0.5.4–0.16.0   ``model_executor/models/utils.py`` ``set_cpu_offload_max_bytes`` / ``maybe_offload_to_cpu``
    vLLM 0.17.0–0.33.0  ``model_executor/offloader/uva.py`` ``UVAOffloader._maybe_offload_to_cpu`` (backend "uva",
                        picked by ``offloader/base.py create_offloader`` when cpu_offload_gb > 0 and no
                        offload_group_size)
    SGLang 0.4.0–0.4.10 ``srt/utils.py`` ``set_cpu_offload_max_bytes`` / ``maybe_offload_to_cpu`` (0.3.6: no flag)
    SGLang 0.5.2–0.5.23 ``srt/offloader.py`` (0.5.2, 0.5.3), ``srt/utils/offloader.py`` (0.5.4+) ``OffloaderV1``

The rule, the same in every release read: ``make_layers`` passes each decoder layer of the rank's stage, in order,
to the offloader; while the running total of offloaded bytes is below the cap, the layer's parameters are taken in
``module.parameters()`` order and each one moves whole (the check is made *before* each parameter, so the last one
may overshoot the cap: "per-parameter offloading, one module might have some parameters offloaded and some not").
Only decoder layers built by ``make_layers`` are eligible: the embedding, the final norm and the lm_head stay on
the GPU (vLLM 0.29+ also offers multimodal towers, ``models/interfaces.py`` ``_mark_tower_model``; not modelled).
A cap above the eligible bytes offloads every decoder layer and is otherwise ignored by both engines.

What the offloaded parameters cost on the GPU differs:

    transient copy      the layer's ``forward`` is wrapped: every call copies the layer's ``state_dict`` to the
                        device (``v.to(device)``, a no-op for parameters still there) and runs
                        ``functional_call``; the copies are freed when the call returns, so one layer's offloaded
                        bytes are on the GPU at a time.  SGLang: every release (no UVA path).  vLLM: the V0 engine
                        (every release ≤ 0.10 that runs V0; 0.8.0–0.8.2 fall back to V0 for this flag,
                        ``engine/arg_utils.py _is_v1_supported_oracle``).  0.7.x's opt-in V1 offloads nothing at
                        all (``engines.vllm.load_lines.offload_ignored``).
    UVA (zero copy)     the parameter's data becomes a device view of pinned CPU memory
                        (``get_cuda_view_from_cpu_tensor`` / ``get_accelerator_view_from_cpu_tensor``): no device
                        copy at all.  vLLM V1 from 0.8.3 (``uva_offloading = True`` under VLLM_USE_V1; 0.11.1+
                        asserts UVA); 0.17+ unless VLLM_WEIGHT_OFFLOADING_DISABLE_UVA is set (not modelled).

In parameter order tpkit uses its own tensors (``models.params.layer_parts``) with the engines' fusions: q/k/v as
one ``qkv_proj`` and gate/up as one ``gate_up_proj`` (a quantised matrix's scales counted with it).
"""

from __future__ import annotations

import math

from tpkit.dtypes import DTYPES
from tpkit.errors import PlanInputError
from tpkit.models.layout import stage_layers
from tpkit.models.params import layer_parts
from tpkit.models.quant import is_quantised, matrix_bytes
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.records import dataclass
from tpkit.units import Bytes, format_bytes, gib_text

__all__ = ["CpuOffload", "plan_offload", "offload_of", "check_cpu_offload_gb", "offload_cap_bytes"]

_FUSED = {"q_proj": "qkv_proj", "k_proj": "qkv_proj", "v_proj": "qkv_proj",
          "gate_proj": "gate_up_proj", "up_proj": "gate_up_proj"}
"""tpkit tensor name → the engines' fused parameter (``QKVParallelLinear``, ``MergedColumnParallelLinear``)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class CpuOffload:
    """What ``--cpu-offload-gb`` moves off one GPU (the reported rank)."""

    asked: Bytes
    """the cap: ``int(cpu_offload_gb × 2^30)``"""
    offloaded: Bytes
    """parameter bytes moved to CPU memory (the cap, rounded up to whole parameters, at most ``eligible``)"""
    eligible: Bytes
    """bytes of every decoder layer on the rank (what a cap without limit would move)"""
    layers_whole: int
    """decoder layers moved entirely"""
    layers_total: int
    """decoder layers on the rank"""
    largest_layer: Bytes
    """most offloaded bytes of one layer: the transient device copy of a wrapped forward"""

    @property
    def capped(self) -> bool:
        """The cap is above the eligible bytes: every decoder layer moved, the rest of the cap unused."""
        return self.asked.bytes > self.eligible.bytes

    def describe(self) -> str:
        """One phrase for a ledger source."""
        what = (f"all {self.layers_total} decoder layers" if self.layers_whole == self.layers_total else
                f"{self.layers_whole} of {self.layers_total} decoder layers whole"
                + (" + part of the next (per parameter)" if self.offloaded.bytes > 0 and
                   self.layers_whole < self.layers_total else ""))
        text = f"--cpu-offload-gb {gib_text(self.asked, None, label='')} (GiB per GPU) moves {format_bytes(self.offloaded)} to CPU: {what}"
        if self.capped:
            text += (f"; the cap is above the {format_bytes(self.eligible)} of decoder layers on this GPU, the rest "
                     "stays (embedding, norm, lm_head are never offloaded)")
        return text


def offload_cap_bytes(cpu_offload_gb: float) -> Bytes:
    """The engines' cap: ``int(cpu_offload_gb * 1024**3)`` (both engines)."""
    return Bytes(int(cpu_offload_gb * 1024**3))


def check_cpu_offload_gb(value, *, whole: bool, engine: str) -> None:
    """Refuse a value the engine refuses: not a number, negative (vLLM ``CacheConfig``/``UVAOffloadConfig``
    ``ge=0``), or, for SGLang (``type=int`` in every release read, 0.4.0 – 0.5.23), not a whole number."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise PlanInputError(f"--cpu-offload-gb must be a number of GiB per GPU (e.g. 8), got {value!r}")
    if value < 0:
        raise PlanInputError(f"--cpu-offload-gb must be ≥ 0 GiB per GPU, got {value:g}; 0 (the default) offloads "
                             "nothing")
    if whole and value != int(value):
        raise PlanInputError(f"--cpu-offload-gb {value:g}: {engine} reads it as a whole number of GiB per GPU "
                             f"(type=int in server_args.py); write {math.floor(value)} or {math.ceil(value)}")


def _param_bytes(spec: ModelSpec, parallel: ParallelSpec, layer: int, elem: str, quant) -> list[int]:
    """Bytes of layer ``layer``'s parameters on one rank, in the engines' order, fused as they fuse them."""
    from tpkit.models.weights import local_shape

    order: dict[str, int] = {}
    for part in layer_parts(spec, layer):
        out, inp, count = local_shape(spec, part, tp=parallel.tp, attn_tp=parallel.attn_tp, ep=parallel.ep,
                                      expert_tp=parallel.expert_tp)
        if is_quantised(part, quant):
            b = count * matrix_bytes(out, inp, quant)
        else:
            b = out * inp * count * DTYPES[elem].bytes
        head, _, tail = part.name.rpartition(".")
        key = f"{head}.{_FUSED[tail]}" if tail in _FUSED else part.name
        order[key] = order.get(key, 0) + b
    return list(order.values())


def plan_offload(spec: ModelSpec, parallel: ParallelSpec, cpu_offload_gb: float, *, dtype: str,
                 quant=None, stage: int = 0, pp_split: str = "sglang") -> CpuOffload:
    """The engines' rule (module docstring) on PP stage ``stage``'s decoder layers of ``spec`` under ``parallel``."""
    cap = offload_cap_bytes(cpu_offload_gb).bytes
    done = whole = largest = eligible = 0
    layers = stage_layers(spec.num_layers, parallel.pp, stage, pp_split)
    for i in layers:
        params = _param_bytes(spec, parallel, i, dtype, quant)
        eligible += sum(params)
        if done >= cap:
            continue
        moved = 0
        for b in params:
            if done >= cap:
                break
            done += b
            moved += b
        whole += moved == sum(params)
        largest = max(largest, moved)
    return CpuOffload(asked=Bytes(cap), offloaded=Bytes(done), eligible=Bytes(eligible), layers_whole=whole,
                      layers_total=len(layers), largest_layer=Bytes(largest))


def offload_of(spec: ModelSpec, parallel: ParallelSpec, cpu_offload_gb: float | None, weights) -> CpuOffload | None:
    """The offload of planned weights (a ``models.weights.WeightsPlan``: its dtype, quantisation and PP stage);
    None without the flag or for weights given as a figure (a measured load already lacks the offloaded layers)."""
    if not cpu_offload_gb or not hasattr(weights, "lines"):
        return None
    return plan_offload(spec, parallel, cpu_offload_gb, dtype=weights.dtype, quant=weights.quant, stage=weights.stage,
                        pp_split=getattr(weights, "pp_split", "sglang"))
