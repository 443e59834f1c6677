"""SGLang's LoRA memory pool (``--enable-lora``), planned from the model config and the LoRA flags.

Read in the wheels 0.4.2, 0.4.10, 0.5.2 – 0.5.10, 0.5.11, 0.5.20, 0.5.23 (``python/sglang/srt/``):

* When: ``ModelRunner.initialize`` calls ``init_lora_manager`` (0.5.23: ``maybe_init_lora_manager``) after
  ``load_model`` and BEFORE ``init_memory_pool`` / ``KVCacheConfigurator._profile_available_bytes``, which measure
  the free memory then: the pool comes off the KV budget exactly like the weights (not off the slack, which is
  ``pre_model_load_memory × (1 − f)`` sampled before the load).
* What (``lora/mem_pool.py`` ``LoRAMemoryPool.init_buffers``, 0.4.10+): per layer and per normalised target module
  an A buffer (max_loras_per_batch, rank × c, in) and a B buffer (max_loras_per_batch, out, rank) in the model
  dtype; c = 3 for ``qkv_proj`` and 2 for ``gate_up_proj`` (``lora/utils.py`` ``get_stacked_multiply``); q/k/v
  normalise to ``qkv_proj``, gate/up to ``gate_up_proj``.  With TP, row-parallel modules (``o_proj``,
  ``down_proj``: ``ROW_PARALLELISM_LINEAR_LORA_NAMES``) split A's input, the others split B's output.
  0.4.2 (``lora/lora_manager.py`` ``init_lora_memory_pool``) had the same buffers without the TP split.
* ``embed_tokens`` / ``lm_head`` (0.5.7+, ``get_embedding_lora_A_shape`` / ``_B_shape``): embedding A
  (n, rank, vocab), B (n, hidden, rank); lm_head A (n, rank, hidden), B (n, vocab, rank), the B split over TP
  from 0.5.10 (``get_lm_head_lora_b_shard_size``).  ``--lora-target-modules all`` includes them from 0.5.7
  (``utils/common.py`` ``SUPPORTED_LORA_TARGET_MODULES``).
* MoE models (0.5.10+, ``is_moe_module``): ``gate_up_proj`` / ``down_proj`` become 4-D expert buffers
  (n, num_experts, …) over ALL experts of the config, plus 3-D shared-expert buffers when the model has shared
  experts.  Before 0.5.10 they are the plain 3-D buffers sized from ``intermediate_size``.
* Defaults (``server_args.py``): ``--max-loras-per-batch`` 8; ``--max-lora-rank`` and the target modules are
  inferred from the adapters of ``--lora-paths`` when not given (tpkit cannot read the adapters, so the rank is
  required and the targets default to the linear projections, with a note).

Not modelled: MLA / linear-attention projections (left out with a note), the added-token embedding rows of
adapters with extra tokens, the backend's small batch-info tensors.
"""

from __future__ import annotations

from tpkit.engines.engine import check_switches, check_whole_numbers
from tpkit.errors import PlanInputError
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["SglangLora", "supported_targets", "normalise_targets", "check_lora_flags", "lora_pool",
           "TP_SPLIT_FIRST", "EMBEDDING_FIRST", "LM_HEAD_SHARD_FIRST", "MOE_FIRST"]

TP_SPLIT_FIRST = (0, 4, 10)
"""first release read whose pool splits the buffers over TP (``mem_pool.py``; 0.4.2's ``lora_manager.py`` does not)"""
EMBEDDING_FIRST = (0, 5, 7)
"""embed_tokens / lm_head LoRA buffers and their place in ``all`` (absent in 0.5.6, present in 0.5.7)"""
LM_HEAD_SHARD_FIRST = (0, 5, 10)
"""lm_head B split over TP (``get_lm_head_lora_b_shard_size``; absent in 0.5.9, present in 0.5.10)"""
MOE_FIRST = (0, 5, 10)
"""MoE expert buffers (``is_moe_module``; absent in 0.5.9, present in 0.5.10)"""
_LINEAR = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
_NORMALISED = {"q_proj": "qkv_proj", "k_proj": "qkv_proj", "v_proj": "qkv_proj", "qkv_proj": "qkv_proj",
               "gate_proj": "gate_up_proj", "up_proj": "gate_up_proj", "gate_up_proj": "gate_up_proj",
               "o_proj": "o_proj", "down_proj": "down_proj", "embed_tokens": "embed_tokens", "lm_head": "lm_head"}


def supported_targets(release: tuple[int, ...]) -> tuple[str, ...]:
    """``--lora-target-modules`` choices tpkit sizes for ``release`` (SGLang's ``SUPPORTED_LORA_TARGET_MODULES``:
    the seven linear projections in 0.4.10 – 0.5.6; + qkv_proj, gate_up_proj, embed_tokens, lm_head from 0.5.7)."""
    if release < EMBEDDING_FIRST:
        return _LINEAR
    return _LINEAR + ("qkv_proj", "gate_up_proj", "embed_tokens", "lm_head")


def normalise_targets(text: str | None, release: tuple[int, ...]) -> tuple[str, ...]:
    """The normalised modules (``qkv_proj``, ``o_proj``, ``gate_up_proj``, ``down_proj``, ``embed_tokens``,
    ``lm_head``) of a ``--lora-target-modules`` value (space- or comma-separated; ``all``; None: the linear
    projections).  Refuses what SGLang refuses (``server_args.py`` choices, ``all`` with others)."""
    names = _LINEAR if text is None else tuple(t for t in text.replace(",", " ").split() if t)
    if not names:
        raise PlanInputError("--lora-target-modules is empty; name modules such as 'q_proj v_proj' or 'all'")
    if "all" in names:
        if len(names) > 1:
            raise PlanInputError("--lora-target-modules: 'all' must be the only module named (SGLang asserts it)")
        names = supported_targets(release)
    allowed = supported_targets(release)
    bad = [n for n in names if n not in allowed]
    if bad:
        raise PlanInputError(f"--lora-target-modules {' '.join(bad)} is not among SGLang's choices for this release "
                             f"({', '.join(allowed)}, all)")
    order = ("qkv_proj", "o_proj", "gate_up_proj", "down_proj", "embed_tokens", "lm_head")
    got = {_NORMALISED[n] for n in names}
    return tuple(n for n in order if n in got)


def check_lora_flags(options, release: tuple[int, ...]) -> None:
    """Refuse the LoRA flags SGLang refuses, and a rank tpkit cannot infer (module docstring)."""
    check_whole_numbers(options, ("max_loras_per_batch", "max_lora_rank"),
                        why={"max_loras_per_batch": "SGLang asserts max_loras_per_batch > 0"})
    check_switches(options, ("enable_lora",))
    if options.lora_target_modules is not None:
        normalise_targets(options.lora_target_modules, release)
    if options.enable_lora and options.max_lora_rank is None:
        raise PlanInputError("--enable-lora needs --max-lora-rank for a plan: SGLang infers it from the adapters of "
                             "--lora-paths, which tpkit cannot read; give the largest r among your adapters "
                             "(e.g. --max-lora-rank 16)")


@dataclass(frozen=True, kw_only=True, slots=True)
class SglangLora:
    """The LoRA memory pool of one GPU."""

    bytes: Bytes
    """the pool's A/B buffers on one GPU (bytes)"""
    source: str
    """how they were sized, in words"""
    notes: tuple[str, ...] = ()
    """what is not modelled for this model or release"""


def lora_pool(model: ModelSpec, parallel: ParallelSpec, release: tuple[int, ...], *, max_loras_per_batch: int,
              max_lora_rank: int, targets: tuple[str, ...], elem_bytes: int, targets_given: bool) -> SglangLora:
    """Bytes per GPU of SGLang's ``LoRAMemoryPool`` (module docstring)."""
    n, r = max_loras_per_batch, max_lora_rank
    tp = parallel.tp  # the pool's tp_size (server --tp)
    split = tp if release >= TP_SPLIT_FIRST else 1
    h, hd = model.hidden_size, model.head_dim
    notes: list[str] = []
    if not targets_given:
        notes.append("LoRA: --lora-target-modules not given; SGLang takes the union of the adapters' target modules, "
                     "tpkit assumes the linear projections q/k/v/o/gate/up/down (name them to plan exactly)")
    attn_modelled = model.mla is None and model.linear_attn is None
    if not attn_modelled and {"qkv_proj", "o_proj"} & set(targets):
        notes.append("LoRA: the A/B buffers of MLA / linear-attention projections are not modelled (left out)")
    moe = model.moe if release >= MOE_FIRST else None
    per_layer = 0
    parts = []
    for t in targets:
        if t == "qkv_proj" and attn_modelled:
            out = hd * (model.num_attention_heads + 2 * model.num_kv_heads) // split
            per_layer += 3 * r * h + out * r
        elif t == "o_proj" and attn_modelled:
            per_layer += r * (hd * model.num_attention_heads // split) + h * r
        elif t in ("gate_up_proj", "down_proj"):
            if moe is not None:
                e, i_m = moe.num_experts, moe.moe_intermediate_size
                per_layer += e * (2 * r * h + 2 * i_m // split * r if t == "gate_up_proj"
                                  else r * (i_m // split) + h * r)
                shared = moe.shared_intermediate_size or (moe.moe_intermediate_size * moe.num_shared_experts)
                if moe.num_shared_experts or moe.shared_intermediate_size:
                    per_layer += (2 * r * h + 2 * shared // split * r if t == "gate_up_proj"
                                  else r * (shared // split) + h * r)
            else:
                i = model.intermediate_size
                per_layer += 2 * r * h + 2 * i // split * r if t == "gate_up_proj" else r * (i // split) + h * r
        else:
            continue
        parts.append(t)
    layers = -(-model.num_layers // parallel.pp)
    total = n * layers * per_layer
    v = model.vocab_size
    if "embed_tokens" in targets:
        total += n * (r * v + h * r)
        parts.append("embed_tokens")
    if "lm_head" in targets:
        total += n * (r * h + (-(-v // tp) if release >= LM_HEAD_SHARD_FIRST else v) * r)
        parts.append("lm_head")
    total *= elem_bytes
    source = (f"SGLang LoRAMemoryPool: max_loras_per_batch {n} × rank {r} × {elem_bytes} B over {layers} layers × "
              f"({' + '.join(parts) or 'nothing sized'})"
              + (f"; MoE: all {moe.num_experts} experts' gate_up/down (0.5.10+)" if moe is not None
                 and {"gate_up_proj", "down_proj"} & set(targets) else "")
              + ("; TP-split as mem_pool.py" if split > 1 else "")
              + "; allocated after the weights, before the KV pool is sized (engines/sglang/lora.py)")
    return SglangLora(bytes=Bytes(total), source=source, notes=tuple(notes))
