"""``plan_vllm``: vLLM's start-up memory sizing for one serving instance, predicted before launch.

Read it next to ``specs/vllm-memory-and-allreduce.md``.  The steps follow vLLM's own order:

0. the layout vLLM's flags make (layout.py: --data-parallel-size, --enable-expert-parallel, DCP) and the
   release's rules (versions.py)
1. baseline before the init snapshot (baseline.py, allreduce.py) and ``requested = total × util`` (budget.py,
   start-up check)
2. weights as the torch-allocated delta of loading (+ vLLM's rotary cos/sin cache, + the drafter's weights:
   drafter.py)
3. the profile run's activation peak (profile.py, an estimate) and, from 0.20, the CUDA-graph estimate
   (profile_lines.py: which terms apply to the run)
4. available KV bytes (budget.py) → blocks, printed tokens, concurrency, fit check (capacity.py)
5. the per-layer pages and groups (pages.py, with the drafter's KV layers and the mamba mode) → the KV
   buffers vLLM allocates
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import replace
from typing import TYPE_CHECKING, Callable

from tpkit.engines.vllm.baseline import plan_baseline, profile_nontorch_growth
from tpkit.engines.vllm.budget import Budget, build_ledger, compute_budget, v0_room
from tpkit.engines.vllm.capacity import KvCapacity, plan_capacity
from tpkit.engines.vllm.drafter import Drafter, plan_drafter
from tpkit.engines.vllm.inputs import Resolved, resolve_inputs
from tpkit.engines.vllm.layout import resolve_parallel
from tpkit.engines.vllm.mamba import mamba_mode
from tpkit.engines.vllm.logs import available_line, capacity_lines, v0_profile_line, weights_line
from tpkit.engines.vllm.options import VllmOptions
from tpkit.engines.vllm.pages import KvLayout, build_layout
from tpkit.engines.vllm.encoder import all_limits_zero, not_modelled as encoder_not_modelled
from tpkit.engines.vllm.mmlimits import parse_mm_limits
from tpkit.engines.vllm.profile_lines import activation_lines, compile_cache_text, graphs_line, v2_state_lines
from tpkit.engines.vllm.verdict import Retry, decide, override_spare
from tpkit.engines.vllm.versions import CURRENT, VllmRules, is_newer_than_latest, resolve_rules
from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import GpuSpec
from tpkit.memory.band import aside, estimated_weights, measured_term, replan_weights, unmeasured
from tpkit.memory.invariant import checked
from tpkit.memory.kvpool import KVBuffer, KVPoolPlan
from tpkit.memory.ledger import LineItem, use_lines
from tpkit.memory.result import PlanResult
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, GiB, format_bytes

if TYPE_CHECKING:
    from tpkit.hardware.machine import MachineProfile

__all__ = ["plan_vllm", "rotary_cache_bytes"]

_SWAP_SPACE = GiB(4)
"""V0 default swap_space per GPU (CPU blocks in its log)"""


_PER_LAYER_ROPE = frozenset({"gemma", "gemma2"})
"""model types whose attention built its own rotary embedding per layer in vLLM ≤ 0.5.4 (``GemmaRotaryEmbedding(...)``
in ``Gemma{,2}Attention.__init__``, "TODO(woosuk): Use the get_rope interface"; vLLM 0.5.4
``model_executor/models/gemma.py`` / ``gemma2.py``); from 0.5.5 both call ``get_rope``, whose ``_ROPE_DICT`` hands
every layer the same module (read in 0.5.5, 0.6.0, 0.6.3, 0.6.6, 0.7.1, 0.14.1)"""


def rotary_cache_positions(model: ModelSpec, version: str | None = None) -> tuple[int, str]:
    """(positions, how) of vLLM's main rotary cos/sin cache for ``version`` (None / "current": the newest release
    read): ``engines.vllm.rotary.rotary_cache_positions`` (max_position_embeddings; original × factor for YaRN;
    max_position × factor for linear, and for dynamic up to 0.21; × 4 for MRoPE from 0.7.2; original +
    max_position for longrope)."""
    from tpkit.engines.vllm.rotary import rotary_cache_positions as positions

    return positions(model, _release(version))


def _release(version: str | None) -> tuple[int, int, int] | None:
    if not version:
        return None
    try:
        return resolve_rules(version).release
    except PlanInputError:
        return None


def rotary_cache_bytes(model: ModelSpec, act_bytes: int, version: str | None = None, *,
                       enforce_eager: bool = False, cuda: bool = True) -> Bytes:
    """vLLM's rotary cos/sin caches (``engines.vllm.rotary.rotary_caches``: rows × rotary_dim × element per
    distinct rope config; built at model init, so "Model loading took" includes them) — one shared cache per rope
    config (``get_rope``), or one per decoder layer for the model types of ``_PER_LAYER_ROPE`` on vLLM ≤ 0.5.4
    (``version`` None or "current": the shared cache).  ``enforce_eager``: the ``rotary_embedding`` custom op is
    on (a DeepSeek-scaling cache stays float32 on CUDA from 0.14)."""
    from tpkit.engines.vllm.rotary import rotary_caches

    release = _release(version)
    caches = rotary_caches(model, act_bytes, release, custom_rope_op=enforce_eager, cuda=cuda)
    total = sum(c.bytes for c in caches)
    copies = 1
    if version and version not in ("current", "latest") and model.model_type in _PER_LAYER_ROPE:
        copies = model.num_layers if release is not None and release <= (0, 5, 4) else 1
    return Bytes(total * copies)


def _rope_line(model: ModelSpec, options: VllmOptions, r: Resolved, *, cuda_gpu: bool = True) -> LineItem:
    """vLLM's rotary cos/sin cache as a load-delta line (``rotary_cache_bytes``)."""
    from tpkit.engines.vllm.rotary import rotary_caches

    eager, cuda = bool(options.enforce_eager), cuda_gpu
    rope_bytes = rotary_cache_bytes(model, r.act_bytes, options.engine_version, enforce_eager=eager, cuda=cuda)
    caches = rotary_caches(model, r.act_bytes, _release(options.engine_version), custom_rope_op=eager, cuda=cuda)
    per_layer = rope_bytes.bytes > sum(c.bytes for c in caches)
    return LineItem(item="rotary cos/sin cache", bytes=rope_bytes,
                    source=(" + ".join(f"{c.how}: {c.rows:,} positions × rotary_dim {c.dim} × {c.elem} B"
                                       for c in caches) + " (vLLM buffer, in the load delta)") if caches else
                           "none: learned position embeddings (counted in the weights), no rotary cache"
                           + (f", one per layer × {model.num_layers} (vLLM ≤ 0.5.4 {model.model_type})"
                              if per_layer else ""))


def tower_weights(model: ModelSpec, options: VllmOptions, plan):
    """``plan`` less the vision tower where this release does not build it (``engines/vllm/towers.py``)."""
    from tpkit.engines.vllm.towers import tower_not_built
    from tpkit.models.weights import without_tower

    release = resolve_rules(options.engine_version).release
    why = tower_not_built(model, release=release, language_model_only=bool(options.language_model_only),
                          limits=parse_mm_limits(options.limit_mm_per_prompt, release))
    return without_tower(plan, why)


def _weights(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, r: Resolved, weights) -> LineItem:
    if weights is None:
        from tpkit.models.weights import plan_weights

        weights = tower_weights(model, options, plan_weights(
            model, parallel, dtype=r.act_dtype, quantization=options.quantization,
            checkpoint_dir=options.checkpoint_dir, engine="vllm"))
    method = getattr(weights, "method", "given")
    off = cpu_offload(model, parallel, options, weights)
    if off is not None:  # the offloaded parameters never count in the load delta (CPU memory or a UVA view)
        weights = replace(weights, bytes_per_rank=weights.bytes_per_rank - min(off.offloaded, weights.bytes_per_rank))
        method = f"{method}; less {off.describe()} (engines.offload)"
    measured = measured_term("weights")
    if measured is not None:
        return LineItem(item="model weights", bytes=estimated_weights(weights, item="model weights"),
                        source=f"'Model loading took', {measured[1]}: the torch-allocated delta of loading, per rank "
                               "(it holds the load-time lines below that say so)")
    tower = next((l.source for l in getattr(weights, "lines", ()) if l.item == "vision tower"
                  and l.source.startswith("vision tower not loaded")), "")
    return LineItem(item="model weights", bytes=estimated_weights(weights, item="model weights"),
                    source=f"torch-allocated delta of loading, per rank ({method})" + (f"; {tower}" if tower else ""))


def lora_in_load_delta(rules: VllmRules) -> bool:
    """Whether vLLM builds the LoRA A/B stacks inside the measured 'Model loading took' block: V1 from its first
    LoRA release (0.7.3 ``v1/worker/gpu_model_runner.py load_model``: ``load_lora_model`` inside the
    ``DeviceMemoryProfiler``, every later release read: 0.8.0, 0.10.1, 0.14.1, 0.19, 0.25.1, 0.27.1, 0.29.0); V0
    from 0.8.0 (``worker/model_runner.py load_model``: ``create_lora_manager`` moved inside the profiler, read 0.8.0,
    0.10.1).  V0 ≤ 0.7.3 (read 0.5.4, 0.7.1, 0.7.2, 0.7.3) creates the LoRA manager after 'Loading model weights took'
    is printed: outside the measurement."""
    return rules.engine == "V1" or rules.release >= (0, 8, 0)


def drafter_in_load_delta(rules: VllmRules) -> bool:
    """Whether the drafter's weights are inside the measured 'Model loading took': V1 loads the drafter inside the
    runner's ``DeviceMemoryProfiler`` block (``self.drafter.load_model(self.model)``, read 0.10.1, 0.14.1, 0.19,
    0.25.1, 0.27.1, 0.29.0); V0's speculative decoding loads the draft model in a worker of its own, which prints a
    load line of its own (``spec_decode/spec_decode_worker.py load_model``): outside the target's."""
    return rules.engine == "V1"


def inside_load_delta(line: LineItem, where: str) -> LineItem:
    """``line`` as 0 bytes: its memory is inside the measured load delta read at ``where`` (``tpkit plan --from-log``
    with the log's weights), so the ledger still names it and adds up."""
    return replace(line, bytes=Bytes(0),
                   source=f"inside the measured load delta ({where}); planned {format_bytes(line.bytes)}: "
                          f"{line.source}")


def cpu_offload(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, weights):
    """``--cpu-offload-gb``'s ``engines.offload.CpuOffload`` on the reported rank; None without the flag or for
    weights given as plain bytes (a measured load delta already lacks them)."""
    from tpkit.engines.offload import offload_of

    return offload_of(model, parallel, options.cpu_offload_gb, weights)


def offload_copies(rules: VllmRules) -> bool:
    """True where vLLM's offloaded layers run through the wrapped forward that copies them to the device per call
    (``engines.offload``): the V0 engine, and V1 before 0.8.3 (0.7.x opt-in V1; ``uva_offloading`` from 0.8.3,
    ``model_executor/models/utils.py maybe_offload_to_cpu``).  From 0.8.3 V1 reads them through UVA: no copy."""
    return rules.engine == "V0" or rules.release < (0, 8, 3)


def offload_v0_fallback(options: VllmOptions, rules: VllmRules) -> VllmOptions | None:
    """vLLM 0.8.0–0.8.2 run V0 when --cpu-offload-gb is set ("--cpu-offload-gb is not supported by the V1 Engine.
    Falling back to V0", ``engine/arg_utils.py _is_v1_supported_oracle`` → ``_raise_or_fallback``; 0.8.3 drops the
    check): the options with the release's V0 rules, None where nothing changes.  An explicit ``:v1`` is what
    VLLM_USE_V1=1 asks for, which those releases refuse (NotImplementedError)."""
    if not options.cpu_offload_gb or rules.engine != "V1" or not (0, 8, 0) <= rules.release < (0, 8, 3):
        return None
    version = str(options.engine_version)
    if version.endswith(":v1"):
        raise PlanInputError(f"--engine-version {version} with --cpu-offload-gb: vLLM 0.8.0–0.8.2 refuse "
                             "VLLM_USE_V1=1 with this flag (engine/arg_utils.py _raise_or_fallback) and otherwise "
                             "fall back to V0; plan without ':v1', or a 0.8.3+ release")
    return replace(options, engine_version=version.partition(":")[0] + ":v0")


def _offload_copy(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, w_weights,
                  rules: VllmRules) -> tuple[LineItem, ...]:
    """The profile run's copy of one offloaded layer on the device where the release copies (``offload_copies``):
    the wrapped forward of each offloaded layer puts its parameters on the GPU until the call returns, so the torch
    peak holds the largest layer's offloaded bytes (outside the load delta)."""
    off = cpu_offload(model, parallel, options, w_weights)
    if off is None or not offload_copies(rules) or not off.largest_layer:
        return ()
    return (LineItem(item="CPU-offload layer copy (profile run)", bytes=off.largest_layer,
                     source=f"one offloaded decoder layer's parameters copied to the GPU for its forward and freed "
                            f"after it ({rules.engine}, vLLM {'.'.join(map(str, rules.release))}: "
                            "maybe_offload_to_cpu's wrapped forward, no UVA); in the profile's torch peak"),)


def _mla_absorbed(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, r: Resolved,
                  rules: VllmRules) -> tuple[LineItem, ...]:
    """What the MLA backends build after loading (``tpkit.engines.vllm.mla``), a line only where it exists: the V0
    absorbed decode matrices of vLLM 0.7.1–0.7.3, and from 0.8.0 (V0 and V1) the activation-dtype copy of a
    quantised ``kv_b_proj``."""
    from tpkit.engines.vllm.mla import mla_absorbed_bytes, mla_dequant_kv_b_bytes
    from tpkit.engines.vllm.versions import CURRENT, parse_version

    if model.mla is None:
        return ()
    version = CURRENT if options.engine_version in ("current", "latest") else options.engine_version
    try:
        release = parse_version(version)
    except PlanInputError:  # an era name ("v0"): no release to place it in
        return ()
    lines = []
    if rules.engine == "V0":
        extra = mla_absorbed_bytes(model, parallel, release, act_bytes=r.act_bytes,
                                   quantization=options.quantization)
        if extra.bytes:
            lines.append(LineItem(item="MLA absorbed decode matrices", bytes=extra,
                                  source="W_QR + W_Q_UK + W_UV_O per MLA layer (vLLM 0.7.1–0.7.3 V0 MLA backend, "
                                         "process_weights_after_loading; in the load delta)"))
    copy = mla_dequant_kv_b_bytes(model, parallel, release, act_bytes=r.act_bytes, quantization=options.quantization)
    if copy.bytes:
        lines.append(LineItem(item="MLA kv_b_proj dequantised copy", bytes=copy,
                              source="kv_lora_rank × heads/rank × (qk_nope + v_head) × dtype bytes per MLA layer "
                                     "with a quantised kv_b_proj: W_UK_T / W_UV are views of it (vLLM ≥ 0.8.0 MLA "
                                     "process_weights_after_loading; in the load delta)"))
    return tuple(lines)


def _mla_workspace(model: ModelSpec, options: VllmOptions, r: Resolved, rules: VllmRules) -> tuple[LineItem, ...]:
    """The V1 MLA chunked-prefill workspace of vLLM 0.8.0–0.8.5 (``tpkit.engines.vllm.mla``): allocated before the
    profile, so in its torch peak but not in "Model loading took"; a line only where it exists."""
    from tpkit.engines.vllm.mla import mla_prefill_workspace_bytes
    from tpkit.engines.vllm.versions import parse_version

    if model.mla is None or rules.engine != "V1":
        return ()
    try:
        release = parse_version(options.engine_version)
    except PlanInputError:  # "current" (no workspace before the profile) or an era name
        return ()
    ws = mla_prefill_workspace_bytes(model, release, engine=rules.engine, max_model_len=r.max_model_len,
                                     max_num_seqs=r.max_num_seqs, block_size=r.block_size, act_bytes=r.act_bytes)
    if not ws.bytes:
        return ()
    return (LineItem(item="MLA chunked-prefill workspace", bytes=ws,
                     source="min(max(8 × max_model_len, 4 × max_num_seqs × block), 131,072) rows × "
                            "(kv_lora_rank + qk_rope_head_dim) × dtype bytes (vLLM 0.8.0–0.8.5 V1 "
                            "MLACommonMetadataBuilder, made in GPUModelRunner.__init__: alive through the profile, "
                            "not in the load delta)"),)


def _mxfp4_padding(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions,
                   r: Resolved) -> tuple[LineItem, ...]:
    """What vLLM's MXFP4 MoE backend adds to the expert tensors at load (``tpkit.engines.vllm.mxfp4``): the Marlin
    padding below compute capability 9.0, the triton_kernels swizzled scales and float32 biases on Hopper; a line
    only where they grow."""
    from tpkit.engines.vllm.mxfp4 import marlin_mxfp4_padding_bytes, triton_mxfp4_extra_bytes
    from tpkit.engines.vllm.versions import CURRENT, parse_version

    version = CURRENT if options.engine_version in ("current", "latest") else options.engine_version
    try:
        release = parse_version(version)
    except PlanInputError:
        return ()
    extra = marlin_mxfp4_padding_bytes(model, parallel, release, r.compute_capability)
    if extra.bytes:
        return (LineItem(item="MXFP4 MoE padding (Marlin)", bytes=extra,
                         source="experts padded to intermediate/tp ↑128, hidden ↑256 by vLLM's Marlin MXFP4 backend "
                                "(GPUs below compute capability 9.0; in the load delta)"),)
    extra = triton_mxfp4_extra_bytes(model, parallel, release, r.compute_capability)
    if extra.bytes:
        kept = "original scales kept beside the swizzled copy (≤ 0.24), " if release < (0, 25, 0) else ""
        return (LineItem(item="MXFP4 MoE swizzle (Hopper triton_kernels)", bytes=extra,
                         source="vLLM's triton_kernels MXFP4 backend on compute capability 9.0: Hopper-swizzled "
                                f"scales padded to 256 rows, {kept}float32 expert biases, intermediate/tp ↑64 "
                                "(mxfp4.py / fused_moe/oracle/mxfp4.py; in the load delta)"),)
    return ()


_LORA_ITEM = "LoRA adapter buffers (A/B stacks)"
_LORA_DTYPE_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4}


def _lora(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, r: Resolved,
          rules: VllmRules) -> tuple[LineItem, ...]:
    """``--enable-lora``: the stacked LoRA A/B buffers and punica metadata vLLM allocates inside the load delta
    (``engines.vllm.lora``: ``load_lora_model`` → ``create_lora_weights``, every release)."""
    if not options.enable_lora:
        return ()
    from tpkit.engines.vllm.lora import lora_buffers

    lora = lora_buffers(model, parallel, release=rules.release, max_loras=options.max_loras or 1,
                        max_lora_rank=options.max_lora_rank or 16, fully_sharded=options.fully_sharded_loras,
                        lora_bytes=_LORA_DTYPE_BYTES.get(options.lora_dtype or "auto", r.act_bytes),
                        model_bytes=r.act_bytes, max_num_batched_tokens=r.max_num_batched_tokens,
                        max_num_seqs=r.max_num_seqs, extra_vocab=options.lora_extra_vocab_size)
    return (LineItem(item=_LORA_ITEM, bytes=lora.bytes, source=lora.source),)


def _lora_notes(model: ModelSpec, options: VllmOptions, rules: VllmRules) -> tuple[str, ...]:
    if not options.enable_lora:
        given = [f"--{n.replace('_', '-')}" for n in ("max_loras", "max_lora_rank", "max_cpu_loras", "lora_dtype",
                                                     "lora_extra_vocab_size") if getattr(options, n) is not None]
        given += ["--fully-sharded-loras"] if options.fully_sharded_loras else []
        return ((f"{', '.join(given)} without --enable-lora: vLLM builds no LoRA config (EngineArgs."
                 "create_lora_config), so these flags change nothing; add --enable-lora to plan the adapters' "
                 "buffers",) if given else ())
    notes = []
    if model.mla is not None or model.linear_attn is not None:
        notes.append("LoRA: the A/B buffers of MLA / linear-attention projections are not modelled (left out)")
    if model.moe is not None and rules.release < (0, 12, 0):
        notes.append("LoRA: this release does not wrap the routed experts (FusedMoE LoRA from vLLM 0.12.0)")
    return tuple(notes)


def _kv_pool(layout: KvLayout, cap: KvCapacity) -> KVPoolPlan | None:
    if cap.num_blocks <= 0:
        return None
    buffers = []
    if not layout.is_hybrid:
        g = layout.groups[0]
        per_tok = g.page_bytes.bytes // (g.block_size * layout.dtype_bytes)
        shape = ((cap.num_blocks, g.block_size, per_tok) if g.kind == "mla"
                 else (2, cap.num_blocks, g.block_size, per_tok // 2))
        buffers.append(KVBuffer(name="latent" if g.kind == "mla" else "kv", count=g.num_layers, shape=shape,
                                element_bytes=layout.dtype_bytes))
        if not layout.draft_in_groups and layout.draft_layers:
            per_tok = layout.draft_page_bytes.bytes // (layout.block_size * layout.dtype_bytes)
            shape = ((cap.num_blocks, layout.block_size, per_tok) if layout.draft_kind == "mla"
                     else (2, cap.num_blocks, layout.block_size, per_tok // 2))
            buffers.append(KVBuffer(name="drafter_kv", count=layout.draft_layers, shape=shape,
                                    element_bytes=layout.dtype_bytes))
    else:
        buffers.append(KVBuffer(name="shared_slot", count=layout.group_size,
                                shape=(cap.num_blocks, layout.bytes_per_block.bytes // layout.group_size),
                                element_bytes=1))
    return KVPoolPlan(num_tokens=cap.tokens, padded_tokens=cap.num_blocks * layout.block_size,
                      cell_bytes=layout.bytes_per_block / layout.block_size, buffers=tuple(buffers),
                      page_size=layout.block_size, dtype=layout.element_dtype)


def _engine_log(budget: Budget, cap: KvCapacity, layout: KvLayout, r: Resolved, rules: VllmRules,
                total: Bytes, graphs: Bytes) -> tuple[str, ...]:
    if budget.weights > budget.free_at_snapshot or budget.free_at_snapshot <= Bytes(0):
        # loading (or the CUDA context) runs out of memory: nothing after it is printed
        return tuple([r.block_log] if r.block_log else [])
    log = ([r.block_log] if r.block_log else []) + [weights_line(budget.weights, rules)]
    if rules.engine == "V0":
        peak = budget.weights + budget.activation
        log.append(v0_profile_line(total=total, initial=budget.weights + budget.non_torch, peak_torch=peak,
                                   post_profile=budget.weights + budget.non_torch, non_torch=budget.non_torch,
                                   kv=budget.available, utilization=r.utilization))
    else:
        log.append(available_line(budget.available, rules))
        if graphs:
            u = r.utilization
            log.append(f"CUDA graph memory profiling is enabled (default since v0.21.0). The current "  # sic
                       f"--gpu-memory-utilization={u:.4f} is equivalent to --gpu-memory-utilization="
                       f"{u - graphs / total:.4f} without it; to keep the same KV cache, raise it to "
                       f"{min(u + graphs / total, 1.0):.4f}")
    log += list(layout.warnings)
    cpu_blocks = _SWAP_SPACE // layout.bytes_per_block
    log += capacity_lines(tokens=cap.tokens, blocks=cap.num_blocks, cpu_blocks=cpu_blocks,
                          max_model_len=r.max_model_len, concurrency=cap.max_concurrency, rules=rules, dcp=r.dcp)
    return tuple(log)


def _layout(model: ModelSpec, parallel: ParallelSpec, r: Resolved, rules: VllmRules,
            drafter: Drafter | None) -> KvLayout:
    spec_tokens = drafter.num_speculative_tokens if drafter is not None else 0
    mamba = mamba_mode(model, rules, spec_tokens=spec_tokens, prefix_caching=r.enable_prefix_caching,
                       compute_capability=r.compute_capability) \
        if "linear" in model.kinds and rules.engine == "V1" else None
    if r.spec is not None and r.spec.eagle_family:
        rules = replace(rules, chunked_local_hybrid=False)  # chunked-local + EAGLE: hybrid manager off
    return build_layout(model, parallel, block_size=r.block_size, era=rules.era, dtype_bytes=r.kv_bytes,
                        dtype_name=r.kv_dtype, act_bytes=r.act_bytes, rules=rules,
                        draft=drafter.kv if drafter is not None else None, mamba=mamba, spec_tokens=spec_tokens,
                        kv_format=r.kv_format)


def _drafter(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, r: Resolved,
             rules: VllmRules) -> Drafter | None:
    if r.spec is None:
        return None
    if r.kv_format is not None and r.kv_format.layout != "dense":
        raise PlanInputError(f"--kv-cache-dtype {r.kv_format.name} with --speculative-config: tpkit does not model "
                             "the drafter's packed KV pages; plan without the drafter or with fp8/auto KV")
    return plan_drafter(model, r.spec, parallel, kv_bytes=r.kv_bytes, act_dtype=r.act_dtype,
                        target_quantization=options.quantization, release=rules.release)


def _draft_lines(drafter: Drafter | None, layout: KvLayout, cap: KvCapacity,
                 r: Resolved) -> tuple[list[LineItem], LineItem | None]:
    """(the drafter's weight line, its KV line) — empty when no drafter is loaded."""
    if drafter is None or drafter.kv is None:
        return [], None
    w = LineItem(item=f"drafter weights ({drafter.method})", bytes=drafter.weights, source=drafter.weights_source)
    pool = layout.bytes_per_block * cap.num_blocks
    if not layout.draft_in_groups:
        nbytes, how = layout.draft_bytes_per_block * cap.num_blocks, (
            f"{layout.draft_page_bytes.bytes:,} B per block per layer × {cap.num_blocks:,} blocks")
    else:
        in_flight = r.max_num_batched_tokens * r.concurrent_batches
        per_request = {i: g.blocks_per_request(r.max_model_len, in_flight, r.dcp) for i, g in enumerate(layout.groups)}
        share = layout.draft_share(per_request)
        nbytes, how = Bytes(int(pool.bytes * share)), f"{share:.2%} of the shared pool (its blocks per request)"
    kv = LineItem(item=f"drafter KV cache ({drafter.method})", bytes=nbytes,
                  source=f"{drafter.kv.num_layers} {drafter.kv.label}: {how} (inside the KV pool; "
                         f"{drafter.num_speculative_tokens} speculative tokens per step)")
    return [w], kv


def _kv_source(layout: KvLayout, cap: KvCapacity) -> str:
    kinds = ", ".join(f"{g.kind} {g.num_layers} layers × {g.page_bytes.bytes:,} B/page" for g in layout.groups)
    return (f"num_blocks {cap.num_blocks:,} = available // bytes_per_block {layout.bytes_per_block.bytes:,} "
            f"(block {layout.block_size} tokens; groups: {kinds})")


def _extra(budget: Budget, cap: KvCapacity, layout: KvLayout, r: Resolved, rules: VllmRules) -> dict:
    """``kv_blocks`` and ``block_size`` (every vLLM plan) and the ``vllm`` block of vLLM's own numbers, like the
    ``sglang`` block of an SGLang plan.  Schema 1 also keeps the block's keys at the top level (older scripts)."""
    own = _own_numbers(budget, cap, layout, r, rules)
    return {"kv_blocks": cap.num_blocks, "block_size": layout.block_size, **own, "vllm": dict(own)}


def _own_numbers(budget: Budget, cap: KvCapacity, layout: KvLayout, r: Resolved, rules: VllmRules) -> dict:
    return {
        "kv_blocks": cap.num_blocks, "block_size": layout.block_size,
        "bytes_per_block": layout.bytes_per_block.bytes, "null_block": rules.null_block,
        "usable_blocks": cap.num_blocks - (1 if rules.null_block and cap.num_blocks else 0),
        "available_kv_bytes": budget.available.bytes, "requested_bytes": budget.requested.bytes,
        "gpu_memory_utilization": r.utilization, "max_num_batched_tokens": r.max_num_batched_tokens,
        "max_num_seqs": r.max_num_seqs, "estimated_max_model_len": cap.estimated_max_model_len,
        "kv_groups": [{"kind": g.kind, "layers": g.num_layers, "page_bytes": g.page_bytes.bytes,
                       "block_size": g.block_size} for g in layout.groups],
        "padding_layers": layout.padding_layers, "cuda_graph_bytes": budget.graphs.bytes,
        "rule_era": rules.era, "engine_generation": rules.engine,
        **({"decode_context_parallel_size": r.dcp} if r.dcp > 1 else {}),
    }


def _offload_notes(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, w_plan,
                   fell_back: bool) -> tuple[str, ...]:
    """What ``--cpu-offload-gb`` changed that the ledger does not say: the V0 fallback, a cap above the layers."""
    out = []
    if fell_back:
        out.append("--cpu-offload-gb: vLLM 0.8.0–0.8.2 fall back to the V0 engine for this flag "
                   "(engine/arg_utils.py _is_v1_supported_oracle); planned with the release's V0 rules")
    off = cpu_offload(model, parallel, options, w_plan)
    if off is not None and off.capped:
        out.append(f"--cpu-offload-gb {options.cpu_offload_gb:g} is more than the {format_bytes(off.eligible)} of "
                   f"decoder layers on each GPU: vLLM offloads all {off.layers_total} and ignores the rest (the "
                   "value is GiB per GPU, not for the whole model)")
    return tuple(out)


def _notes(model: ModelSpec, options: VllmOptions, rules: VllmRules) -> tuple[str, ...]:
    # the release whose rules apply is in the plan's header and engine_version (not repeated as a warning)
    notes = tuple(f"model: {a}" for a in model.assumptions)
    notes += _lora_notes(model, options, rules)
    from tpkit.engines.vllm.towers import tower_not_built

    tower = tower_not_built(model, release=rules.release, language_model_only=bool(options.language_model_only),
                            limits=parse_mm_limits(options.limit_mm_per_prompt, rules.release))
    if tower:
        notes += (f"weights: vision tower not loaded: {tower}",)
    if model.is_multimodal and options.language_model_only:
        return notes + ("multimodal: --language-model-only sets every modality to 0, so vLLM runs no encoder "
                        "profile (config/multimodal.py)",)
    if not model.is_multimodal or options.skip_mm_profiling:
        return notes
    why = encoder_not_modelled(model, release=rules.release, engine=rules.engine)
    limits = parse_mm_limits(options.limit_mm_per_prompt, rules.release)
    if all_limits_zero(model, limits, rules.release):
        return notes + ("multimodal: --limit-mm-per-prompt sets every modality to 0, so vLLM runs no encoder "
                        "profile (engines/vllm/mmlimits.py)",)
    if not why:
        return notes
    return notes + (f"multimodal: vLLM profiles the vision encoder and its cache first; {why}, so that memory is "
                    "not in the plan and the real KV cache is smaller (--skip-mm-profiling leaves it out)",)


def _newer(options: VllmOptions) -> tuple[str, ...]:
    """A release after the newest one read is planned with the newest rules: say so (as the SGLang plan does)."""
    if not is_newer_than_latest(options.engine_version):
        return ()
    return (f"vLLM {options.engine_version} is newer than the latest examined release {CURRENT}; its rules are "
            "assumed unchanged",)


def _retry(model: ModelSpec, gpu: GpuSpec, parallel: ParallelSpec, options: VllmOptions,
           machine: MachineProfile | None, weights, extra_uses) -> Retry:
    """The verdict's re-planner: the same plan with knobs changed; does it fit?  A re-plan at another TP size or
    quantisation drops the log's measured weights (``memory.band.replan_weights``: they are per rank at the log's
    layout); ``retry.note(**changes)`` gives the words the fix then adds."""

    def changed(tp: int | None, changes: dict) -> str | None:
        if tp is not None and tp != parallel.tp:
            return f"tp {tp}"
        if "quantization" in changes and changes["quantization"] != options.quantization:
            return f"quantization {changes['quantization']}"
        return None

    def retry(*, tp: int | None = None, **changes) -> bool:
        if weights is not None and (tp is not None or "quantization" in changes):
            return False  # weights were given for this layout and quantisation only
        derived, _ = replan_weights(tp=parallel.tp, pp=parallel.pp, changed=changed(tp, changes))
        try:
            with aside(), (unmeasured("weights") if derived else nullcontext()):
                again = plan_vllm(model, gpu, replace(parallel, tp=tp) if tp else parallel,
                                  replace(options, **changes), machine=machine, weights=weights,
                                  extra_uses=extra_uses, search_fixes=False)
        except PlanInputError:
            return False
        return again.verdict.fits

    def note(*, tp: int | None = None, **changes) -> str:
        return replan_weights(tp=parallel.tp, pp=parallel.pp, changed=changed(tp, changes))[1]

    retry.note = note
    return retry


def plan_vllm(model: ModelSpec, gpu: GpuSpec, parallel: ParallelSpec, options: VllmOptions, *,
              machine: MachineProfile | None = None, weights=None,
              extra_uses: "tuple[LineItem, ...] | Callable[[int], tuple[LineItem, ...]]" = (),
              search_fixes: bool = True) -> PlanResult:
    """Predict vLLM's per-GPU memory ledger, KV blocks/tokens and start-up verdict (pure; no torch).

    ``weights`` is a ``tpkit.models.weights.WeightsPlan`` (anything with ``bytes_per_rank: Bytes``);
    when None it is planned from the model.  With ``machine`` the GPU with the least free memory decides.
    ``extra_uses`` ("use" lines, e.g. ``comm.plan.planned_allreduce_lines``): memory allocated before the init
    snapshot, charged like the CUDA context (V1: outside the budget, it only tightens the start-up check; V0:
    non-torch memory, it shrinks the KV cache); a function ``tp -> lines`` gives them for each TP size the
    verdict re-plans (``tpkit plan --tpkit-allreduce`` passes one).
    ``search_fixes``: re-plan every fix the verdict could name and name only those that fit (False: name none;
    the re-plans themselves run with False).
    """
    uses_for = extra_uses if callable(extra_uses) else None  # tp -> lines: re-plans at another TP get their own
    extra_uses = uses_for(parallel.tp) if uses_for is not None else extra_uses
    rules = resolve_rules(options.engine_version)
    fallback = offload_v0_fallback(options, rules)
    if fallback is not None:
        options, rules = fallback, resolve_rules(fallback.engine_version)
    given = parallel
    parallel = resolve_parallel(parallel, options, model, machine=machine is not None)
    r = resolve_inputs(model, gpu, options, rules, parallel)
    drafter = _drafter(model, parallel, options, r, rules)
    layout = _layout(model, parallel, r, rules, drafter)
    baseline = plan_baseline(gpu, parallel, rules, machine, extra_uses=use_lines(extra_uses),
                             disable_custom_all_reduce=options.disable_custom_all_reduce, links=options.links)
    if weights is None:
        from tpkit.models.weights import plan_weights

        w_plan = tower_weights(model, options, plan_weights(
            model, parallel, dtype=r.act_dtype, quantization=options.quantization,
            checkpoint_dir=options.checkpoint_dir, engine="vllm"))
    else:
        w_plan = weights
    w_line = _weights(model, parallel, options, r, w_plan)
    rope = _rope_line(model, options, r, cuda_gpu=str(gpu.vendor).upper() != "AMD")
    act_line, *parts = activation_lines(model, parallel, options, r, rules)
    mla_lines = _mla_absorbed(model, parallel, options, r, rules) + _mxfp4_padding(model, parallel, options, r)
    mla_lines += _lora(model, parallel, options, r, rules)
    # torch memory at the profile, outside the load delta
    ws_lines = _mla_workspace(model, options, r, rules) + v2_state_lines(model, options, r, rules)
    ws_lines += _offload_copy(model, parallel, options, w_plan, rules)
    g_line = graphs_line(model, parallel, options, r, rules)
    growth = (*baseline.after_snapshot, *profile_nontorch_growth(gpu, parallel, rules, moe=model.moe is not None,
                                                                     links=options.links, machine=machine))
    measured = measured_term("weights")
    if measured is not None:  # the log's 'Model loading took' already holds what the load allocates beside them
        where = measured[1]
        rope = inside_load_delta(rope, where) if rope.bytes else rope
        mla_lines = tuple(inside_load_delta(l, where) if l.item != _LORA_ITEM or lora_in_load_delta(rules) else l
                          for l in mla_lines)
    draft_inside = measured is not None and drafter_in_load_delta(rules)
    draft_w = drafter.weights if drafter is not None and not draft_inside else Bytes(0)
    budget = compute_budget(baseline, rules, utilization=r.utilization, weights=w_line.bytes + rope.bytes + draft_w
                            + sum((l.bytes for l in mla_lines), Bytes(0)),
                            activation=act_line.bytes + sum((l.bytes for l in ws_lines), Bytes(0)),
                            graphs=g_line.bytes if g_line else Bytes(0),
                            override=options.kv_cache_memory_bytes, growth=sum((g.bytes for g in growth), Bytes(0)))
    cap = plan_capacity(layout, budget.available, max_model_len=r.max_model_len,
                        max_num_batched_tokens=r.max_num_batched_tokens, pp=parallel.pp, rules=rules,
                        concurrent_batches=r.concurrent_batches, dcp=r.dcp)
    draft_w_lines, draft_kv = _draft_lines(drafter, layout, cap, r)
    if draft_inside:
        draft_w_lines = [inside_load_delta(l, measured[1]) if l.bytes else l for l in draft_w_lines]
    ledger, expected = build_ledger(baseline, budget, rules, utilization=r.utilization,
                                    weight_lines=[w_line, rope, *mla_lines, *ws_lines, *draft_w_lines],
                                    activation_line=act_line,
                                    graph_line=g_line, growth_lines=growth,
                                    kv_bytes=layout.bytes_per_block * cap.num_blocks,
                                    kv_source=_kv_source(layout, cap), info=parts, draft_kv=draft_kv)
    problems = ledger.check(expected)
    assert not problems, problems
    retry = _retry(model, gpu, given, options, machine, weights, uses_for or extra_uses) if search_fixes else None
    quantizable = (model.quant is None or model.quant.weight_bits >= 16) and not options.quantization
    room = v0_room(baseline) if rules.memory_rule == "v0_peak" and rules.v0_context_outside else (
        baseline.free_at_snapshot if rules.memory_rule == "v0_peak" and rules.v0_torch_peak_only else None)
    verdict, error_line = decide(budget, cap, r, rules, baseline.total_bytes, retry=retry, tp=parallel.tp,
                                 quantizable=quantizable, v0_room=room)
    log = _engine_log(budget, cap, layout, r, rules, baseline.total_bytes, budget.graphs) + (
        (error_line,) if error_line else ())
    current = options.engine_version in ("current", "latest")
    return checked(PlanResult(
        engine="vllm", engine_version=rules.era if current else options.engine_version, model=model.summary(),
        gpu=gpu.summary(), parallel=parallel, ledger=ledger, kv_tokens=cap.tokens,
        kv_pool=None if budget.override and override_spare(budget) < Bytes(0) else _kv_pool(layout, cap),  # OOM
        max_running_requests=r.max_num_seqs, max_concurrency=cap.max_concurrency, context_length=r.max_model_len,
        verdict=verdict, engine_log=log, extra=_extra(budget, cap, layout, r, rules),
        warnings=layout.warnings + r.notes + _notes(model, options, rules) + _newer(options)
        + _offload_notes(model, parallel, options, w_plan, fallback is not None)
        + tuple(t for t in (compile_cache_text(model, options, r, rules),) if t)))
