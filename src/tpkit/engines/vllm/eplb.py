"""vLLM's expert-parallel load balancer (``--enable-eplb``, ``--eplb-config``): what it adds to the load delta (pure).

Read in the wheels 0.10.1, 0.11.0, 0.11.2, 0.12.0, 0.14.0, 0.17.0, 0.18.0, 0.19.0, 0.20.0, 0.24.0, 0.25.1, 0.26.0,
0.29.0 and 0.33.0 (helper vr31, 2026-12-07, session 31):

* **Flags** (``engine/arg_utils.py``): ``--enable-eplb`` in every release read; ``--eplb-config`` (JSON,
  ``config/parallel.py EPLBConfig``: ``window_size`` 1000, ``step_interval`` 3000, ``num_redundant_experts`` 0,
  ``log_balancedness``, ``log_balancedness_interval``, ``use_async``, ``policy``, ``communicator``) from 0.11.0;
  0.10.1 spells them ``--num-redundant-experts`` / ``--eplb-window-size`` (not taken here: ``EPLB_CONFIG_FROM``).
  ``ParallelConfig`` refuses EPLB without ``--enable-expert-parallel`` or at tp × dp 1, and redundant experts
  without EPLB (0.25.1 ``_verify_args``); tpkit refuses the same launches (``option_checks`` / ``eplb_lines``).
* **Redundant experts** (every release read): the MoE layer builds ``num_experts + num_redundant_experts``
  physical experts and EP spreads them over the ranks (``FusedMoE`` / ``determine_expert_map``), so each MoE
  layer's local expert tensors (weights and their quantisation scales) grow to ⌈(E + R) / EP⌉ experts — model
  parameters, inside 'Model loading took' (``redundant_expert_bytes``).
* **The balancer's state** (``distributed/eplb/eplb_state.py EplbState.add_model``): ``expert_buffer``, an
  ``empty_like`` of every tensor of the first MoE layer's ``expert_weights`` (one layer's local experts, scales
  included: the transfer buffer; from 0.12.0, absent in 0.11.2), ``logical_to_physical_map`` (int64, MoE layers × E
  × ``MAX_EXPERT_REDUNDANCY`` + 1 = 1,024 slots, ``.contiguous()``), ``physical_to_logical_map`` and
  ``logical_replica_count`` (int64, layers × E + R / E), ``expert_load_pass`` (int32, layers × (E + R)) and
  ``expert_load_window`` (int32, ``window_size`` × layers × (E + R)).  Where it lands: the V1 runner calls
  ``add_model`` for the target model inside ``load_model``'s ``DeviceMemoryProfiler`` window from 0.20.0 (0.24.0,
  0.25.1, 0.29.0, 0.33.0 alike); in 0.12.0 – 0.19.x after ``model_memory_usage`` is read, and Model Runner V2
  (0.24.0 – 0.33.0 ``v1/worker/gpu/model_runner.py``: ``eplb.maybe_register_model`` after the window) likewise —
  there the tensors sit in torch's memory before ``memory_profiling`` resets the peak (``utils/mem_utils.py``), so
  neither the load delta nor the profile's torch-peak increase holds them and the KV budget does not see them
  (``state_charged``).
* Not modelled: the profile's dummy rearrangement (``rebalance_execute.py``: a one-layer ``empty_like`` for a dummy
  all-gather where the communicator ``needs_profile_buffer_reservation``; NIXL, the default where installed, does
  not), the communicator's own registrations, and EPLB on non-MoE models (refused).

Check: lyell0710/vllmExperience EXP-017 (docs/accuracy.md §6.4, round vr31; 0.25.1, Qwen3-30B-A3B-FP8 tp 2 + EP,
``window_size`` 50, no redundant experts) prints 'Model loading took 14.87 GiB' against its control's 14.54: the state
is 302,063,616 + 50,331,648 + 49,152 × 2 + 24,576 + 1,228,800 B = 0.33 GiB.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace

from tpkit.engines import flag_json
from tpkit.errors import PlanInputError
from tpkit.memory.ledger import LineItem
from tpkit.models.layout import stage_layers
from tpkit.models.params import layer_groups, layer_parts
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

__all__ = ["EPLB_FROM", "EPLB_CONFIG_FROM", "STATE_IN_LOAD_FROM", "BUFFER_FROM", "EPLB_KEYS", "eplb_settings",
           "state_charged", "eplb_state_bytes", "redundant_expert_bytes", "eplb_lines"]

EPLB_FROM = (0, 10, 1)
"""the oldest release read with ``--enable-eplb`` (earlier ones are not planned with it)"""
EPLB_CONFIG_FROM = (0, 11, 0)
"""``--eplb-config`` first in ``engine/arg_utils.py`` (0.10.1: ``--num-redundant-experts``, ``--eplb-window-size``)"""
BUFFER_FROM = (0, 12, 0)
"""``EplbState.add_model`` allocates ``expert_buffer`` (absent in 0.11.2)"""
STATE_IN_LOAD_FROM = (0, 20, 0)
"""the V1 runner registers the target model's EPLB state inside the load window (0.19.0: after it)"""
MAP_SLOTS = 1024
"""``MAX_EXPERT_REDUNDANCY`` 1023 + 1: slots per logical expert of ``logical_to_physical_map`` (every release read)"""
EPLB_KEYS = {"window_size": 1000, "step_interval": 3000, "num_redundant_experts": 0, "log_balancedness": False,
             "log_balancedness_interval": 1, "use_async": True, "policy": "default", "communicator": None}
"""``EPLBConfig``'s fields and defaults (0.25.1 ``config/parallel.py``; 0.11.0 – 0.33.0 take these keys)"""


def eplb_settings(value) -> dict:
    """``--eplb-config`` (JSON text, a dict, or None) as ``EPLB_KEYS`` with the given values; raises
    ``PlanInputError`` for what vLLM's ``EPLBConfig`` refuses (unknown keys, a window or interval below 1, negative
    redundant experts)."""
    data = value
    if isinstance(value, str):
        try:
            data = flag_json(value)
        except json.JSONDecodeError as exc:
            raise PlanInputError(f"--eplb-config is not JSON ({exc.msg} at character {exc.pos}): {value!r}; give a "
                                 "JSON object, e.g. '{\"num_redundant_experts\": 32, \"window_size\": 1000}'") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise PlanInputError(f"--eplb-config must be a JSON object, got {value!r}")
    unknown = sorted(set(data) - set(EPLB_KEYS))
    if unknown:
        raise PlanInputError(f"--eplb-config: unknown key(s) {', '.join(unknown)} (vLLM's EPLBConfig takes "
                             f"{', '.join(EPLB_KEYS)})")
    for key, low in (("window_size", 1), ("step_interval", 1), ("log_balancedness_interval", 1),
                     ("num_redundant_experts", 0)):
        v = data.get(key, EPLB_KEYS[key])
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            raise PlanInputError(f"--eplb-config: {key} must be a whole number ≥ {low}, got {v!r}")
    return {**EPLB_KEYS, **data}


def state_charged(release: tuple[int, int, int], *, v2_runner: bool) -> bool:
    """Whether the balancer's state lands in the load delta (module docstring): the V1 runner from 0.20.0."""
    return not v2_runner and release >= STATE_IN_LOAD_FROM


def _moe_layers(model: ModelSpec, parallel: ParallelSpec, stage: int, pp_split: str) -> tuple[int, int]:
    """(the first MoE layer of PP stage ``stage``, the stage's MoE layers); (-1, 0) without one."""
    groups = [(i, n) for i, n, moe in layer_groups(model, stage_layers(model.num_layers, parallel.pp, stage, pp_split))
              if moe]
    return (min(i for i, _ in groups), sum(n for _, n in groups)) if groups else (-1, 0)


def _layer_expert_bytes(model: ModelSpec, parallel: ParallelSpec, layer: int, count: int, *, dtype: str,
                        quantization: str | None) -> Bytes:
    """One MoE layer's routed-expert tensors on a rank (weights + quantisation scales) with ``count`` experts."""
    from tpkit.models.weights import plan_parts

    parts = [replace(p, count=count) for p in layer_parts(model, layer, moe_layer=True)
             if p.category == "routed_experts"]
    return plan_parts(model, parallel, parts, dtype=dtype, quantization=quantization).bytes_per_rank


def redundant_expert_bytes(model: ModelSpec, parallel: ParallelSpec, redundant: int, *, dtype: str,
                           quantization: str | None, stage: int = 0, pp_split: str = "vllm") -> Bytes:
    """What ``redundant`` extra physical experts add to the rank's MoE layers (0 without)."""
    first, layers = _moe_layers(model, parallel, stage, pp_split)
    if not redundant or not layers:
        return Bytes(0)
    e = model.moe.num_experts
    kw = dict(dtype=dtype, quantization=quantization)
    grown = _layer_expert_bytes(model, parallel, first, e + redundant, **kw)
    return Bytes(layers * (grown.bytes - _layer_expert_bytes(model, parallel, first, e, **kw).bytes))


def eplb_state_bytes(model: ModelSpec, parallel: ParallelSpec, settings: dict, *, release: tuple[int, int, int],
                     dtype: str, quantization: str | None, stage: int = 0,
                     pp_split: str = "vllm") -> tuple[Bytes, str]:
    """(bytes, how) of ``EplbState.add_model``'s tensors on one rank (module docstring)."""
    first, layers = _moe_layers(model, parallel, stage, pp_split)
    e, r = model.moe.num_experts, settings["num_redundant_experts"]
    phys, window = e + r, settings["window_size"]
    buffer = _layer_expert_bytes(model, parallel, first, phys, dtype=dtype, quantization=quantization) \
        if release >= BUFFER_FROM and layers else Bytes(0)
    maps = layers * e * MAP_SLOTS * 8 + layers * phys * 8 + layers * e * 8
    counts = layers * phys * 4 + window * layers * phys * 4
    how = (f"expert_buffer {buffer.bytes:,} B (one MoE layer's {math.ceil(phys / parallel.ep)} local experts) + "
           f"expert maps {maps:,} B (int64, {layers} MoE layers × {e} experts × {MAP_SLOTS} slots …) + "
           f"load counters {counts:,} B (int32, window {window} × {layers} layers × {phys} physical experts)")
    return Bytes(buffer.bytes + maps + counts), how


def eplb_lines(model: ModelSpec, parallel: ParallelSpec, options, r, rules, w_plan) -> tuple[LineItem, ...]:
    """The load-delta lines of ``--enable-eplb`` (none without it): the redundant experts' weights and, where
    ``state_charged``, the balancer's state (``eplb_state.py EplbState.add_model``, vLLM 0.12.0 – 0.33.0)."""
    if not getattr(options, "enable_eplb", False):
        return ()
    if model.moe is None:
        raise PlanInputError(f"--enable-eplb: {model.name} has no routed experts; vLLM's expert-parallel load "
                             "balancer needs a mixture-of-experts model (leave --enable-eplb out)")
    if parallel.tp * parallel.dp <= 1:
        raise PlanInputError("--enable-eplb needs tp × dp > 1 (vLLM: 'EPLB requires tensor_parallel_size or "
                             "data_parallel_size to be greater than 1'); add --tp 2 or more, or leave it out")
    settings = eplb_settings(options.eplb_config)
    stage, split = getattr(w_plan, "stage", 0), getattr(w_plan, "pp_split", "vllm")
    kw = dict(dtype=r.act_dtype, quantization=options.quantization, stage=stage, pp_split=split)
    lines = []
    red = settings["num_redundant_experts"]
    if red:
        lines.append(LineItem(item="EPLB redundant experts", bytes=redundant_expert_bytes(model, parallel, red, **kw),
                              source=f"{red} redundant physical experts per MoE layer over EP {parallel.ep}: each "
                                     f"rank holds ⌈({model.moe.num_experts} + {red}) / {parallel.ep}⌉ experts "
                                     "(model parameters, in the load delta; engines/vllm/eplb.py)"))
    if state_charged(rules.release, v2_runner=bool(r.v2_runner)):
        nbytes, how = eplb_state_bytes(model, parallel, settings, release=rules.release, **kw)
        lines.append(LineItem(item="EPLB state", bytes=nbytes,
                              source=f"EplbState.add_model inside the load window (V1 runner, vLLM ≥ 0.20): {how}"))
    return tuple(lines)
