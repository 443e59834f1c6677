"""vLLM's load delta, line by line: the weights as the torch-allocated delta of loading, and what vLLM allocates with
them inside the same measured window — the rotary cos/sin cache, the vision tower (or none with
``--language-model-only``), LoRA buffers (``engines.vllm.lora_lines``), MLA's absorbed / dequantised matrices and workspace, MXFP4 padding, the
CPU-offload copy — each with the release range it was read in (split from ``engines.vllm.policy``, pure).

    in:  the model, the parallel layout, ``VllmOptions``, the resolved inputs and the release's rules
    out: ``LineItem`` rows for ``plan_vllm``'s ledger, and whether a term sits inside vLLM's measured load delta
"""

from __future__ import annotations

from dataclasses import replace

from tpkit.engines.vllm.inputs import Resolved
from tpkit.engines.vllm.options import VllmOptions, torch_compile_off
from tpkit.engines.vllm.mmlimits import parse_mm_limits
from tpkit.engines.vllm.versions import VllmRules, resolve_rules
from tpkit.errors import PlanInputError
from tpkit.memory.band import estimated_weights, measured_term
from tpkit.memory.ledger import LineItem
from tpkit.models.layout import split_note
from tpkit.models.params import per_layer_input_width
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, format_bytes, gib_text

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


def rope_line(model: ModelSpec, options: VllmOptions, r: Resolved, *, cuda_gpu: bool = True) -> LineItem:
    """vLLM's rotary cos/sin cache as a load-delta line (``rotary_cache_bytes``)."""
    from tpkit.engines.vllm.rotary import rotary_caches

    eager, cuda = torch_compile_off(options), cuda_gpu  # -O0 too: every custom op on (helper cap11)
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
    """``plan`` less the vision and audio towers where this release does not build them (``engines/vllm/towers.py``)."""
    from tpkit.engines.vllm.towers import audio_not_built, tower_not_built
    from tpkit.models.weights import without_tower

    release = resolve_rules(options.engine_version).release
    flags = dict(release=release, language_model_only=bool(options.language_model_only),
                 limits=parse_mm_limits(options.limit_mm_per_prompt, release))
    plan = without_tower(plan, audio_not_built(model, **flags), item="audio tower")
    return without_tower(plan, tower_not_built(model, **flags))


def weights_item(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, r: Resolved, weights) -> LineItem:
    """The weights line of ``weights`` (``plan_vllm``'s planned ``WeightsPlan``, or a figure given for the run)."""
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
                    source=f"torch-allocated delta of loading, per rank ({method})" + (f"; {tower}" if tower else "")
                    + _stage_words(model, parallel, weights))


def _stage_words(model: ModelSpec, parallel: ParallelSpec, weights) -> str:
    """Under PP, which stage the weights line is (the heaviest: ``WeightsPlan.stage``) and how vLLM's release splits
    the decoder layers (``models.layout.split_note``); "" at pp 1 or for weights given as a figure."""
    if parallel.pp < 2 or not hasattr(weights, "stage"):
        return ""
    return (f"; PP stage {weights.stage} of {parallel.pp}, the heaviest (every worker sizes its KV cache for its own "
            f"stage and the executor takes the fewest blocks); "
            f"{split_note(model.num_layers, parallel.pp, weights.pp_split)}{stage_table(model, parallel, weights)}")


def stage_table(model: ModelSpec, parallel: ParallelSpec, weights) -> str:
    """Each PP stage's decoder layers and weights per GPU, and which stage the plan binds on ("" without
    per-stage weights).  The KV cache is sized for the stage with the most layers and the weights of the heaviest
    stage; where those are two stages the plan charges both to one GPU, which is conservative (on like GPUs the
    executor takes the fewest blocks over the workers, ``pp_split``)."""
    sizes_b = getattr(weights, "stage_bytes", ()) or ()
    if len(sizes_b) != parallel.pp:
        return ""
    from tpkit.models.layout import stage_sizes

    layers = stage_sizes(model.num_layers, parallel.pp, weights.pp_split)
    rows = ", ".join(f"{s}: {n} layers, {gib_text(b)}" for s, (n, b) in enumerate(zip(layers, sizes_b)))
    most = max(range(parallel.pp), key=lambda s: (layers[s], s))
    heavy = weights.stage
    bind = (f"stage {heavy} binds (the heaviest weights and the most layers)" if layers[heavy] == layers[most]
            else f"weights of stage {heavy} (the heaviest) with the KV cache of stage {most} (the most layers) on "
                 f"one GPU: conservative, each GPU holds only one of them")
    return f"; stages (decoder layers, weights per GPU) {rows}; {bind}"


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
    """``--cpu-offload-gb``'s ``engines.offload.CpuOffload`` on the reported rank; None without the flag, for
    weights given as plain bytes (a measured load delta already lacks them) or where the engine ignores the flag
    (``offload_ignored``)."""
    from tpkit.engines.offload import offload_of

    if options.cpu_offload_gb and offload_ignored(resolve_rules(options.engine_version)):
        return None
    return offload_of(model, parallel, options.cpu_offload_gb, weights)


OFFLOAD_IGNORED_SOURCE = ("vLLM 0.7.3 wheel: set_cpu_offload_max_bytes, the cap maybe_offload_to_cpu checks, has one "
                          "caller, V0's worker/model_runner.py; nothing under vllm/v1 sets it, so the opt-in V1 engine "
                          "of 0.7.x offloads nothing (0.8.0 falls back to V0 for the flag)")


def offload_ignored(rules: VllmRules) -> bool:
    """True where vLLM accepts ``--cpu-offload-gb`` and offloads nothing: the opt-in V1 engine before 0.8.0
    (``OFFLOAD_IGNORED_SOURCE``; helper cr37's reading, session 37).  Every weight loads on the GPU."""
    return rules.engine == "V1" and rules.release < (0, 8, 0)


def offload_copies(rules: VllmRules) -> bool:
    """True where vLLM's offloaded layers run through the wrapped forward that copies them to the device per call
    (``engines.offload``): the V0 engine, and V1 before 0.8.3 (0.7.x's opt-in V1 offloads nothing: ``offload_ignored``;
    ``uva_offloading`` from 0.8.3,
    ``model_executor/models/utils.py maybe_offload_to_cpu``).  From 0.8.3 V1 reads them through UVA: no copy."""
    return rules.engine == "V0" or rules.release < (0, 8, 3)


def _v0_options(options: VllmOptions) -> VllmOptions:
    """``options`` with the V0 engine of the same release (``"0.8.2"`` or ``"0.8.2:v1"`` → ``"0.8.2:v0"``): what
    the release's fallbacks to V0 below plan."""
    return replace(options, engine_version=str(options.engine_version).partition(":")[0] + ":v0")


def _v0_fallback(options: VllmOptions, *, refused) -> VllmOptions | None:
    """The V0 fallback of a release that runs V0 for this launch: ``options`` with the V0 rules, unless the version
    names ``:v1`` explicitly (VLLM_USE_V1=1, or a launch V1 takes): then ``refused(version)`` is the message of the
    release's refusal, or, with ``refused`` None, V1 runs as asked and nothing changes (None)."""
    version = str(options.engine_version)
    if not version.endswith(":v1"):
        return _v0_options(options)
    if refused is None:
        return None
    raise PlanInputError(refused(version))


def offload_v0_fallback(options: VllmOptions, rules: VllmRules) -> VllmOptions | None:
    """vLLM 0.8.0–0.8.2 run V0 when --cpu-offload-gb is set ("--cpu-offload-gb is not supported by the V1 Engine.
    Falling back to V0", ``engine/arg_utils.py _is_v1_supported_oracle`` → ``_raise_or_fallback``; 0.8.3 drops the
    check): the options with the release's V0 rules, None where nothing changes.  An explicit ``:v1`` is what
    VLLM_USE_V1=1 asks for, which those releases refuse (NotImplementedError)."""
    if not options.cpu_offload_gb or rules.engine != "V1" or not (0, 8, 0) <= rules.release < (0, 8, 3):
        return None
    return _v0_fallback(options, refused=lambda version: (
        f"--engine-version {version} with --cpu-offload-gb: vLLM 0.8.0–0.8.2 refuse VLLM_USE_V1=1 with this flag "
        "(engine/arg_utils.py _raise_or_fallback) and otherwise fall back to V0; plan without ':v1', or a 0.8.3+ "
        "release"))


def pp_v0_fallback(options: VllmOptions, rules: VllmRules, pp: int) -> VllmOptions | None:
    """vLLM 0.8.0–0.9.0 run V0 for pipeline parallelism (``--pipeline-parallel-size`` > 1) unless the launch names an
    executor backend V1 takes: ``engine/arg_utils.py _is_v1_supported_oracle`` falls back on any PP in 0.8.0–0.8.2
    (``_warn_or_fallback("PP")``), on PP "without Ray distributed executor" in 0.8.3–0.8.5 and without ray / mp /
    external_launcher in 0.9.0 (``_raise_or_fallback``); 0.9.1 adds the default backend (ParallelConfig's None) to
    the accepted ones, so V1 runs (read in the 0.8.0, 0.8.2, 0.8.5, 0.9.0, 0.9.1, 0.9.2 and 0.10.0 wheels).
    tpkit has no executor-backend option, so the default launch is planned: the options with the release's V0 rules,
    None where nothing changes.  An explicit ``:v1`` is a launch that named the backend (or VLLM_USE_V1=1 on
    0.8.0–0.8.2, where V1 PP is experimental) and is kept."""
    if (pp or 1) <= 1 or rules.engine != "V1" or not (0, 8, 0) <= rules.release < (0, 9, 1):
        return None
    return _v0_fallback(options, refused=None)


def capability_v0_fallback(options: VllmOptions, rules: VllmRules,
                           compute_capability: tuple[int, int] | None) -> VllmOptions | None:
    """vLLM 0.8.0–0.10.1.1 run V0 on CUDA GPUs of compute capability below 8.0 (Volta, Turing: "Need at least Ampere
    for now (FA support required)", ``engine/arg_utils.py _is_v1_supported_oracle`` → ``_raise_or_fallback("Compute
    Capability < 8.0")``, read in the 0.8.0 … 0.10.1.1 wheels); 0.10.2 drops the check and runs V1 on them.  The
    options with the release's V0 rules, None where nothing changes (an unknown capability changes nothing; ROCm
    devices report gfx majors ≥ 9).  An explicit ``:v1`` is what VLLM_USE_V1=1 asks for, which those releases refuse
    (NotImplementedError)."""
    cc = compute_capability
    if not cc or cc[0] >= 8 or rules.engine != "V1" or not (0, 8, 0) <= rules.release < (0, 10, 2):
        return None
    return _v0_fallback(options, refused=lambda version: (
        f"--engine-version {version} on a compute-capability {cc[0]}.{cc[1]} GPU: vLLM 0.8.0–0.10.1 refuse "
        "VLLM_USE_V1=1 below 8.0 (engine/arg_utils.py _raise_or_fallback) and otherwise fall back to V0; plan "
        "without ':v1', or a 0.10.2+ release"))


def offload_copy(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, w_weights,
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


MLA_ABSORBED_ITEM = "MLA absorbed decode matrices"
MLA_KV_B_COPY_ITEM = "MLA kv_b_proj dequantised copy"
"""the two load-delta lines of ``mla_absorbed``: built by the MLA attention's ``process_weights_after_loading``,
which the loader runs inside the load (vllm 0.7.3 ``model_loader/loader.py _process_weights_after_loading``, called
from ``DefaultModelLoader.load_model`` under ``ModelRunner.load_model``'s ``DeviceMemoryProfiler``), so "Model
loading took" holds them (the §6.3 table of ``scripts/validate.py`` adds them, helper mla15)"""


def mla_absorbed(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, r: Resolved,
                  rules: VllmRules, w_weights=None) -> tuple[LineItem, ...]:
    """What the MLA backends build after loading (``tpkit.engines.vllm.mla``), a line only where it exists: the V0
    absorbed decode matrices of vLLM 0.7.1–0.7.3, and from 0.8.0 (V0 and V1) the activation-dtype copy of a
    quantised ``kv_b_proj``.

    With ``--cpu-offload-gb`` the V0 absorbed matrices of an offloaded layer stay on the CPU: 0.7.2's
    ``DefaultModelLoader.load_model`` runs a quant method's ``process_weights_after_loading`` inside
    ``device_loading_context`` (parameters moved to the GPU and back) but calls the MLA attention's
    ``process_weights_after_loading`` outside it, which builds W_QR / W_Q_UK / W_UV_O from ``kv_b_proj`` and
    ``q_proj`` where they lie (``attention/backends/mla/utils.py``), i.e. in CPU memory for the layers
    ``maybe_offload_to_cpu`` moved.  The line keeps the layers not moved whole (a partly moved layer counts as on
    the GPU)."""
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
        off = cpu_offload(model, parallel, options, w_weights) if w_weights is not None else None
        note = ""
        if extra.bytes and off is not None and off.layers_whole and off.layers_total:
            kept = off.layers_total - off.layers_whole
            extra = Bytes(extra.bytes * kept // off.layers_total)
            note = (f"; the {off.layers_whole} of {off.layers_total} layers --cpu-offload-gb moved whole keep theirs "
                    "in CPU memory (built outside device_loading_context)")
        if extra.bytes:
            lines.append(LineItem(item=MLA_ABSORBED_ITEM, bytes=extra,
                                  source="W_QR + W_Q_UK + W_UV_O per MLA layer (vLLM 0.7.1–0.7.3 V0 MLA backend, "
                                         f"process_weights_after_loading; in the load delta){note}"))
    copy = mla_dequant_kv_b_bytes(model, parallel, release, act_bytes=r.act_bytes, quantization=options.quantization,
                                  engine=rules.engine)
    if copy.bytes:
        lines.append(LineItem(item=MLA_KV_B_COPY_ITEM, bytes=copy,
                              source="kv_lora_rank × heads/rank × (qk_nope + v_head) × dtype bytes per MLA layer "
                                     "with a quantised kv_b_proj: W_UK_T / W_UV (0.7.x V0: W_UK / W_UV; float32 in "
                                     "0.7.1–0.7.2) are views of it (vLLM ≥ 0.7.1 MLA process_weights_after_loading; "
                                     "in the load delta)"))
    return tuple(lines)


def mla_workspace(model: ModelSpec, options: VllmOptions, r: Resolved, rules: VllmRules) -> tuple[LineItem, ...]:
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


GEMMA4_PLE_BUFFER_ITEM = "Gemma 4 per-layer-embedding buffer"


def gemma4_ple_buffer(model: ModelSpec, r: Resolved, rules: VllmRules) -> tuple[LineItem, ...]:
    """Gemma 4's pre-allocated per-layer-embedding buffer (helper t4g4): ``Gemma4ForConditionalGeneration.__init__``
    (vLLM 0.19.0–0.33.0 ``model_executor/models/gemma4_mm.py``, read in the 0.19.0, 0.19.1, 0.20.2, 0.21.0, 0.23.0,
    0.25, 0.27.1, 0.28.0, 0.29.0, 0.30.0, 0.31.0, 0.32.0 and 0.33.0 wheels) allocates ``torch.zeros(
    max_num_batched_tokens, num_hidden_layers, hidden_size_per_layer_input)`` of the model dtype on the GPU for the
    CUDA graphs' per-layer inputs.  It is made while the model is built, so "Model loading took" holds it, with or
    without ``--language-model-only`` (the language model's class ``Gemma4ForCausalLM`` has no such buffer)."""
    width = per_layer_input_width(model)
    if not (rules.gemma4 and width and model.architecture == "Gemma4ForConditionalGeneration"):
        return ()
    nbytes = Bytes(r.max_num_batched_tokens * width * r.act_bytes)
    return (LineItem(item=GEMMA4_PLE_BUFFER_ITEM, bytes=nbytes,
                     source=f"max_num_batched_tokens {r.max_num_batched_tokens:,} × layers × "
                            f"hidden_size_per_layer_input = {width:,} × {r.act_bytes} B (gemma4_mm.py "
                            "per_layer_embeddings, made with the model: in the load delta)"),)


def dsv4_batched_buffers(model: ModelSpec, r: Resolved, rules: VllmRules) -> tuple[LineItem, ...]:
    """DeepSeek-V4's max_num_batched_tokens-sized buffers made with the model (``engines.vllm.dsv4_profile.
    batched_buffers``, helper v417): in "Model loading took"; a line only where they exist."""
    if model.model_type != "deepseek_v4":
        return ()
    from tpkit.engines.vllm.dsv4_profile import BUFFERS_ITEM, batched_buffers

    nbytes, how = batched_buffers(model, r.max_num_batched_tokens, r.act_bytes, rules.release)
    if not nbytes:
        return ()
    return (LineItem(item=BUFFERS_ITEM, bytes=Bytes(nbytes), source=how),)


def mxfp4_padding(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions,
                   r: Resolved) -> tuple[LineItem, ...]:
    """What vLLM's MXFP4 MoE backend adds to the expert tensors at load (``tpkit.engines.vllm.mxfp4``): the Marlin
    padding below compute capability 9.0 (and on Hopper for 0.10.1–0.11.x, or with VLLM_MXFP4_USE_MARLIN), the
    triton_kernels swizzled scales and float32 biases on Hopper; a line only where they grow."""
    from tpkit.engines.vllm.mxfp4 import marlin_forced, marlin_mxfp4_padding_bytes, triton_mxfp4_extra_bytes
    from tpkit.engines.vllm.versions import CURRENT, parse_version

    version = CURRENT if options.engine_version in ("current", "latest") else options.engine_version
    try:
        release = parse_version(version)
    except PlanInputError:
        return ()
    forced = marlin_forced(getattr(options, "vllm_mxfp4_use_marlin", None), release, r.compute_capability)
    extra = marlin_mxfp4_padding_bytes(model, parallel, release, r.compute_capability, forced=forced)
    if extra.bytes:
        why = ("VLLM_MXFP4_USE_MARLIN=1 forces it on Hopper" if forced else "GPUs below compute capability 9.0, and "
               "Hopper on 0.10.1–0.11.x, whose default install lacks triton_kernels or torch ≥ 2.8")
        return (LineItem(item="MXFP4 MoE padding (Marlin)", bytes=extra,
                         source="experts padded to intermediate/tp ↑128, hidden ↑256 by vLLM's Marlin MXFP4 backend "
                                f"({why}; in the load delta)"),)
    if forced:  # Marlin without padding: the Triton swizzle is not charged either
        return ()
    extra = triton_mxfp4_extra_bytes(model, parallel, release, r.compute_capability)
    if extra.bytes:
        kept = "original scales kept beside the swizzled copy (≤ 0.24), " if release < (0, 25, 0) else ""
        return (LineItem(item="MXFP4 MoE swizzle (Hopper triton_kernels)", bytes=extra,
                         source="vLLM's triton_kernels MXFP4 backend on compute capability 9.0: Hopper-swizzled "
                                f"scales padded to 256 rows, {kept}float32 expert biases, intermediate/tp ↑64 "
                                "(mxfp4.py / fused_moe/oracle/mxfp4.py; in the load delta)"),)
    return ()


FP8_MARLIN_ITEM = "FP8 block scales as Marlin group scales"


def fp8_marlin_scales(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, r: Resolved, w_plan, *,
                      rocm: bool = False) -> tuple[LineItem, ...]:
    """What vLLM's weight-only FP8 Marlin path adds to a block-FP8 checkpoint's scales below compute capability 8.9
    (``engines.vllm.fp8_marlin``; 0.9.0 on; in the load delta); a line only where it applies."""
    quant = getattr(w_plan, "quant", None)
    if quant is None or not quant.block_size or getattr(w_plan, "method", "") == "given":
        return ()
    from tpkit.engines.vllm.fp8_marlin import marlin_fp8_block_scale_bytes  # only for a block-FP8 checkpoint

    extra = marlin_fp8_block_scale_bytes(model, parallel, quant, act_bytes=r.act_bytes,
                                         release=_release(options.engine_version),
                                         compute_capability=r.compute_capability, rocm=rocm,
                                         stage=getattr(w_plan, "stage", 0) or 0,
                                         pp_split=getattr(w_plan, "pp_split", "vllm") or "vllm")
    if not extra.bytes:
        return ()
    b0, b1 = quant.block_size
    return (LineItem(item=FP8_MARLIN_ITEM, bytes=extra,
                     source=f"compute capability {r.compute_capability[0]}.{r.compute_capability[1]} < 8.9: vLLM runs "
                            f"the block-FP8 ({b0}×{b1}) linear layers weight-only through Marlin, whose "
                            f"prepare_fp8_layer_for_marlin repeats each fp32 block scale {b0}× along N as "
                            f"{r.act_bytes}-byte group scales (ceil(K/{b1}) × N per matrix, less the fp32 block "
                            "scales it replaces; dense layers; in the load delta)"),)


ALLOCATOR_ITEM = "weight tensors: caching-allocator rounding"
BNB_ABSMAX_ITEM = "bitsandbytes absmax dequantised to fp32"
"""the load-delta line of in-flight nf4's fp32 absmax (``engines.vllm.bnb_absmax``, lazy: named here for the tables)"""


def allocator_rounding(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, r: Resolved,
                       w_plan, rules: VllmRules | None = None, *, rocm: bool = False) -> tuple[LineItem, ...]:
    """What torch's caching allocator counts beyond the weight tensors' own bytes inside 'Model loading took'
    (``engines.vllm.weight_blocks``): unquantised weights derived from the config only (not a figure given for the
    run, not quantised checkpoints, DeepSeek-V4 or ``--cpu-offload-gb``); of the quantised ones only NVFP4 weights
    repacked by Marlin, from a best-fit replay of the repack (``engines.vllm.nvfp4_marlin``, vLLM 0.9.2–0.20.x,
    compute capability 8.0–9.x, dense models; helper g4l4).  ``rules.load_max_split_mib`` (≥ 0.21.0 on
    CUDA; ROCm where ``rules.load_max_split_rocm``): the whole segment of every tensor of at least that size."""
    from tpkit.engines.vllm.weight_blocks import weight_block_rounding
    from tpkit.models.quant import resolve_quant

    if (getattr(w_plan, "method", "") != "derived from config" or model.model_type == "deepseek_v4"
            or options.cpu_offload_gb):
        return ()
    quant = resolve_quant(model.quant, options.quantization)
    if quant is not None:  # only NVFP4 weights repacked by Marlin (lazy import: the cold-import budget)
        from tpkit.engines.vllm.nvfp4_marlin import marlin_nvfp4_rounding_applies, marlin_repack_rounding

        if not marlin_nvfp4_rounding_applies(quant, release=_release(options.engine_version),
                                             compute_capability=r.compute_capability, rocm=rocm,
                                             moe=model.moe is not None):
            return ()

        extra, n = marlin_repack_rounding(model, parallel, quant, r.act_bytes, stage=w_plan.stage,
                                          pp_split=w_plan.pp_split)
        if not extra.bytes:
            return ()
        return (LineItem(item=ALLOCATOR_ITEM, bytes=extra,
                         source=f"{n} weight tensor(s) counted with more than their bytes after vLLM's Marlin repack "
                                "of the NVFP4 weights (prepare_fp4_layer_for_marlin, compute capability < 10.0): a "
                                "best-fit replay of the model's init and each module's repack through c10 "
                                "CUDACachingAllocator's rules (engines.vllm.nvfp4_marlin; in the load delta)"),)
    mib = rules.load_max_split_mib if rules is not None and (not rocm or rules.load_max_split_rocm) else None
    extra, n = weight_block_rounding(model, parallel, r.act_bytes, stage=w_plan.stage, pp_split=w_plan.pp_split,
                                     max_split_bytes=mib << 20 if mib else None)
    if not extra.bytes:
        return ()
    how = (f"of ≥ 10 MiB whose 2 MiB-rounded segment leaves ≤ 1 MiB, or of ≥ {mib} MiB (the weights load under "
           f"max_split_size_mb {mib}: vLLM ≥ 0.21 gpu_worker.py load_model _scoped_allocator_max_split), "
           if mib else "of ≥ 10 MiB whose 2 MiB-rounded segment leaves ≤ 1 MiB, ")
    return (LineItem(item=ALLOCATOR_ITEM, bytes=extra,
                     source=f"{n} weight tensor(s) {how}"
                            "which the allocator does not split off and counts as allocated (c10 CUDACachingAllocator "
                            "get_allocation_size / should_split; vLLM's fused qkv / gate_up / w13 / w2 tensors; in "
                            "the load delta)"),)
