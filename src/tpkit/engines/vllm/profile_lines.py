"""The profile run's lines of one vLLM plan (step 3 of ``policy``): the activation peak and its phases (the
multimodal encoder step first, the dummy sampler, a cold torch.compile's scratch), Model Runner V2's request/sampling
state, the CUDA-graph estimate, and what the plan assumes about the torch.compile cache.  The arithmetic is
``profile`` (activation peak), ``graphs`` and ``encoder``; this module picks which of it applies to a run.  The V0
engine's own terms (its kernels' phases, the memory its profile leaves reserved, vLLM 0.2.5's held all-reduce
activations) are ``v0_profile_lines``.
"""

from __future__ import annotations

from dataclasses import replace

from tpkit.engines.vllm.encoder import all_limits_zero, encoder_profile
from tpkit.engines.vllm.graphs import estimate_cudagraph_memory
from tpkit.engines.vllm.inputs import Resolved
from tpkit.engines.vllm.mmlimits import parse_mm_limits
from tpkit.engines.vllm.option_checks import capture_size_list
from tpkit.engines.vllm.options import VllmOptions, cudagraph_estimate_applied, cudagraph_mode_of, torch_compile_off
from tpkit.engines.vllm.profile import estimate_profile_peak
from tpkit.engines.vllm.sampler import TRITON_MIN_ROWS, dummy_rejection
from tpkit.engines.vllm.towers import LANGUAGE_MODEL_ONLY_FROM
from tpkit.engines.vllm.v0_forward import (v0_additions, v0_mlp_keeps_gate_up, with_mla_v0_workspace,
                                           with_phase_additions)
from tpkit.engines.vllm.versions import VllmRules
from tpkit.memory.band import estimated_activation_peak, estimated_share, resolve
from tpkit.memory.ledger import LineItem
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from tpkit.engines.vllm.encoder import EncoderProfile

__all__ = ["activation_lines", "v2_state_lines", "pinned_scratch_lines", "graphs_line", "compile_cache_text",
           "embeds_input", "drafter_cold_compile", "profile_sampler", "uses_gptq_kernel"]


def _v2_runner(model: ModelSpec, options: VllmOptions, r: Resolved, rules: VllmRules) -> bool:
    """Model Runner V2 runs this model (``Resolved.v2_runner``: ``inputs.uses_v2_runner`` with
    ``--vllm-use-v2-model-runner`` first; V1-generation releases only)."""
    return rules.engine == "V1" and r.v2_runner


def v2_state_lines(model: ModelSpec, options: VllmOptions, r: Resolved, rules: VllmRules) -> tuple[LineItem, ...]:
    """Model Runner V2's request and sampling state (``profile.v2_runner_state_bytes``): on the GPU from the runner's
    construction, after the init snapshot and outside the load delta; a line only on a V2 run whose release charges
    it.  From 0.27.0 (``memory_rule == "consumed"``) ``utils/mem_utils.py memory_profiling`` charges the free-memory
    drop since the init snapshot ("total consumed"), which holds the state.  Up to 0.26 (``"increase"``) the non-KV
    sum is the load delta + torch's peak increase over the profile (measured from the allocation level at its start,
    state included) + the non-torch increase (``gpu_worker.py determine_available_memory``, 0.22.0–0.26.0 wheels;
    ``total_consumed`` first in the 0.27.0 wheel), so the state, made before the profile, is never charged."""
    from tpkit.engines.vllm.profile import v2_runner_state_bytes

    if not _v2_runner(model, options, r, rules) or rules.memory_rule != "consumed":
        return ()
    spec_tokens = (r.spec.num_speculative_tokens or 0) if r.spec is not None else 0
    nbytes, how = v2_runner_state_bytes(vocab_size=model.vocab_size, max_num_seqs=r.max_num_seqs,
                                        max_num_batched_tokens=r.max_num_batched_tokens, spec_tokens=spec_tokens)
    return (LineItem(item="Model Runner V2 request/sampling state", bytes=nbytes,
                     source=f"{how} (vLLM ≥ 0.22 v1/worker/gpu: sample/penalties.py PenaltiesState, "
                            "structured_outputs.py, states.py, input_batch.py; made after the init snapshot, "
                            "outside the load delta, so in the profile's total consumed, charged from 0.27)"),)


PINNED_SCRATCH_ITEM = "cold-compile scratch block kept reserved (counted as consumed)"
PINNED_SCRATCH_SHARE = 0.5
"""± share of the pinned scratch line (``pinned_scratch_lines``): which freed block a later allocation pins is decided
by allocation order, not by the model"""


def pinned_scratch_lines(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, r: Resolved,
                         rules: VllmRules) -> tuple[LineItem, ...]:
    """The cold compile's scratch block charged a second time, as reserved memory (``VllmRules.
    pinned_profile_scratch``, 0.27.0–0.30.x): a V1-runner run whose profile holds the scratch (``_cold_compile``)
    and whose dummy sampler then takes the Triton top-k/top-p kernel (``profile_sampler`` "triton", at least
    ``TRITON_MIN_ROWS`` rows).  That kernel keeps its per-program float32 buffer in the module-level
    ``_TRITON_BUFFER_CACHE`` (``v1/sample/ops/topk_topp_triton.py apply_top_k_top_p_triton``; ``reset_buffer_cache``
    is called nowhere in the 0.29.0 wheel): a large-pool allocation made after the scratch is freed that outlives the
    profile, so the caching allocator can carve it out of the freed scratch block, and ``empty_cache()`` then cannot
    release that segment.  Model Runner V2's greedy dummy batch (0.26–0.32) runs no top-k/top-p and makes no such
    allocation.  Size: the scratch itself (``profile.vocab_hidden_scratch``).  Evidence: the six study-28 probes (vp_210,
    vp_211, vp_500–vp_503: 0.29.0 V1, Qwen3-8B-FP8, cold) print 1.28–1.31 GiB of "consumed" above the weights with
    any linear kernel, attention backend or KV dtype, and a transient peak of 1.14–1.16 GiB: the 1.16 GiB scratch
    twice; vp_440 (0.27.1 V1, Qwen3.8-27B on a GB10, cold) prints "consumed" 4.64 GiB above its weights against a
    2.37 GiB scratch (helper v11b: but its printed transient peak, 1.84 GiB, is the vision encoder's and holds no
    scratch: a multimodal run, ``embeds_input``; the 4.64 GiB is not this mechanism).  0.29.0 V2 cold runs (vp_190–vp_200) show no second copy.  Where the later allocation lands
    depends on allocation order (a smaller freed block, or more than one), so the line is an estimate of ± half its
    size (``PINNED_SCRATCH_SHARE``)."""
    if not (rules.pinned_profile_scratch and _cold_compile(model, options, r, rules)
            and not _v2_runner(model, options, r, rules)):
        return ()
    sampler = profile_sampler(rules, r.compute_capability, options.topk_topp_sampler, v2_runner=False)
    if sampler != "triton" or r.sampler_rows < TRITON_MIN_ROWS:
        return ()
    from tpkit.engines.vllm.profile import vocab_hidden_scratch

    nbytes, how = vocab_hidden_scratch(model, parallel.tp, r.act_bytes)
    source = (f"{how}; freed after the compile, then pinned by the Triton top-k/top-p buffer the V1 dummy sampler "
              "keeps (_TRITON_BUFFER_CACHE): vLLM 0.27.0–0.30.x count the reserved segment in 'consumed' "
              "(utils/mem_utils.py total_consumed; profile_run without the 0.31.0 split limit, "
              f"v1/worker/gpu_worker.py); ± {PINNED_SCRATCH_SHARE:.0%}: allocation order decides which block stays "
              "pinned")
    planned = estimated_share(nbytes, PINNED_SCRATCH_SHARE, term="vllm_pinned_scratch", item=PINNED_SCRATCH_ITEM,
                              source=source)
    return (LineItem(item=PINNED_SCRATCH_ITEM, bytes=planned, source=source),)


def _compiles(model: ModelSpec, options: VllmOptions, r: Resolved, rules: VllmRules) -> bool:
    """Whether the run's profile peak depends on the torch.compile cache (``profile`` module docstring, "cold
    compile scratch"): a V2 run of a release with ``v2_vocab_hidden_peak`` (0.22–0.32), or a V1-runner run of a release
    with ``v1_vocab_hidden_peak`` (0.11.1–0.32), with torch.compile on.  ``--enforce-eager`` turns
    torch.compile off with the CUDA graphs ("Enforce eager set, disabling torch.compile and CUDAGraphs",
    ``config/vllm.py`` ``VllmConfig.__post_init__``, 0.25.1 and 0.27.1 wheels: ``compilation_config.mode =
    CompilationMode.NONE``), so nothing compiles inside the profile window (vp_082: 0.30.0 V2, eager, prints a 0.15
    GiB peak)."""
    if torch_compile_off(options) or rules.engine != "V1":  # --enforce-eager or -O0 (helper cap11)
        return False
    if _breakable_graphs(model, rules):
        return False
    if _v2_runner(model, options, r, rules):
        return rules.v2_vocab_hidden_peak
    return rules.v1_vocab_hidden_peak  # the V1 runner (VllmRules.v1_vocab_hidden_peak)


BREAKABLE_GRAPHS_FROM = (0, 23, 0)
"""first release that turns ``VLLM_USE_BREAKABLE_CUDAGRAPH`` on by itself for DeepSeek-V4 (``_breakable_graphs``)"""


def _breakable_graphs(model: ModelSpec, rules: VllmRules) -> bool:
    """DeepSeek-V4 from vLLM 0.23.0 runs without torch.compile (helper v11b): ``VllmConfig.__post_init__``
    (``config/vllm.py``, 0.23.0 and 0.25.0 wheels; ``_maybe_enable_breakable_cudagraph`` in 0.29.0) sets
    ``VLLM_USE_BREAKABLE_CUDAGRAPH=1`` for a ``DeepseekV4ForCausalLM`` / ``DeepSeekV4MTPModel`` architecture unless the
    variable is set, and then sets ``compilation_config.mode = CompilationMode.NONE`` ("disabling vLLM's
    torch.compile pipeline", printed by vp_593's log); 0.22.0 reads the variable but does not set it.  So nothing
    compiles inside the profile window (tpkit has no flag for ``VLLM_USE_BREAKABLE_CUDAGRAPH=0``)."""
    return (getattr(model, "model_type", None) == "deepseek_v4" and rules.engine == "V1"
            and rules.release >= BREAKABLE_GRAPHS_FROM)


def _cold_compile(model: ModelSpec, options: VllmOptions, r: Resolved, rules: VllmRules) -> bool:
    """Whether the profile peak holds a cold torch.compile's scratch: a run that compiles (``_compiles``) on an empty
    compile cache (``--compile-cache cold``, the default: a first start) whose compiled language model takes the token
    ids (``embeds_input``: not a multimodal run).  With ``--compile-cache warm`` vLLM loads
    every graph from its cache ("Directly load the compiled graph(s) for compile range … from the cache",
    ``compilation/backends.py`` ``CompilerManager.compile``, 0.26.0–0.32.0 wheels) and compiles nothing in the
    window (vllm-project/vllm issue #54122: the loss lasts "until restart"; 1CatAI/1Cat-vLLM PR #518: +0.74 GiB torch
    peak warm vs +2.59 cold for Qwen3.8-27B), so the phase is dropped."""
    return options.compile_cache == "cold" and _cache_matters(model, options, r, rules)


COMPILED_DRAFTER_METHODS = ("eagle", "eagle3", "mtp")
"""speculative methods whose drafter is a ``support_torch_compile`` module that looks the token ids up in the target's
embedding table (``profile.drafter_compile_phase``)"""


def drafter_cold_compile(model: ModelSpec, options: VllmOptions, r: Resolved, rules: VllmRules) -> bool:
    """Whether the profile holds the drafter's own cold-compile phase (``profile.drafter_compile_phase``, helper
    mtp12): the target's cold compile holds the table scratch (``_cold_compile``: a first start, torch.compile on, a
    text run, 0.11.1–0.32) and the speculative method's drafter is an EAGLE / MTP module compiled with the target's
    config.  ``--compile-cache warm`` drops it with the target's phase (the drafter's graphs are cached under their
    own model tag, ``eagle_head``)."""
    return (r.spec is not None and r.spec.method in COMPILED_DRAFTER_METHODS
            and _cold_compile(model, options, r, rules))


EAGLE3_AUX_HELD = (0, 22, 0), (0, 30, 0)
"""releases (from, before) whose Model Runner V2 keeps the EAGLE-3 auxiliary states through the dummy propose (read:
0.22.0, 0.24.0, 0.26.0, 0.29.0; 0.33.0's speculators are restructured and were not read far enough)"""
EAGLE3_AUX_LAYERS = 3
"""auxiliary hidden states an EAGLE-3 target returns by default (``get_eagle3_aux_hidden_state_layers``: layers 2,
L // 2 and L − 3)"""


def eagle3_aux_held(r: Resolved, rules: VllmRules, v2_runner: bool) -> int:
    """T × H tensors besides the target's last hidden states that Model Runner V2 holds while the EAGLE-3 drafter's
    first (compiling) call runs (helper vr31): ``v1/worker/gpu/model_runner.py _dummy_run`` keeps the target's
    ``aux_hidden_states`` (3 × T × H) in a local it passes to ``speculator.propose``, which binds
    ``hidden_states = self.model.combine_hidden_states(torch.cat(aux_hidden_states, dim=-1))`` (T × H; the cat is
    freed when the call returns) and keeps it through ``_prefill`` → ``_run_model``
    (``spec_decode/autoregressive/speculator.py``, 0.24.0 – 0.29.0; ``spec_decode/eagle/speculator.py`` in 0.22.0).
    The V1 runner drops them (``gpu_model_runner.py _dummy_run``: ``hidden_states, _ = outputs``, 0.24.0): 0."""
    start, stop = EAGLE3_AUX_HELD
    if not v2_runner or r.spec is None or r.spec.method != "eagle3" or not start <= rules.release < stop:
        return 0
    return EAGLE3_AUX_LAYERS + 1


def embeds_input(model: ModelSpec, options: VllmOptions, rules: VllmRules) -> str:
    """Why the run's compiled language model takes ``inputs_embeds`` instead of the token ids, so that no cold-compile
    scratch of vocabulary × hidden enters the profile peak ("" where it takes the token ids; helper v11b).

    Source (V1 runner: ``v1/worker/gpu_model_runner.py`` ``_dummy_run``, 0.20.2, 0.26.0 and 0.29.0 wheels; Model
    Runner V2: ``v1/worker/gpu/model_runner.py`` ``execute_model``, 0.26.0 and 0.29.0 wheels): where
    ``supports_multimodal_inputs`` is true (a multimodal architecture with at least one modality's limit above 0;
    ``--language-model-only`` sets every limit to 0, ``multimodal/registry.py``) the profile's dummy forward passes
    ``input_ids=None`` and the runner's ``inputs_embeds`` buffer (unless the model sets ``requires_raw_input_tokens``,
    which no Qwen or Gemma model does), and the language model skips its embedding lookup when ``inputs_embeds`` is
    given (``qwen3_5.py``, ``gemma4.py`` ``Gemma4Model.forward``, 0.26.0): the embedding table, the one vocabulary ×
    hidden tensor of the compiled graph, is not an input of the graph the first start compiles.

    Evidence that a multimodal first start charges no such scratch (the phase's size being one vocabulary × hidden
    tensor is itself EVIDENCE, ``profile.V2_VOCAB_HIDDEN_EVIDENCE``, all from text runs): vp_594's four boots (0.26.0,
    Qwen3.8-27B-FP8, L40S; the first compiled for 57 s, the three restarts loaded the cache in 15 s) print the same
    7.04 GiB; vp_597's boots (0.26.0, Qwen3.8-27B-INT4, A100-40GB; AOT artifact loaded, then AOT off and a fresh
    compile) print the same 16.74 GiB; vp_253 (0.28.0, gemma-4-E2B-it, T4, a first serve) and vp_567 (0.27.2, the
    same command, a cached compile) print the same 329,579 tokens; the printed peaks of cold multimodal starts are
    the vision encoder's, not vocabulary × hidden: vp_440 (0.27.1 Qwen3.8-27B, 3.78 − 1.94 GiB graph estimate = 1.84
    against the encoder phase's 1.88 and the scratch phase's 2.71), vl_073 (0.29.0, 2.58 − 0.69 = 1.89), vp_568
    (0.30.0 gemma-4-E2B, 0.79 − 0.53 = 0.26 GiB against a 0.75 GiB vocabulary × hidden).  PR #518's warm +0.74 GiB
    is below any Qwen3.8 dummy-image encoder pass printed above, so that run was text-only and keeps the phase."""
    if not model.is_multimodal:
        return ""
    if options.language_model_only and rules.release >= LANGUAGE_MODEL_ONLY_FROM:
        return ""
    if all_limits_zero(model, parse_mm_limits(options.limit_mm_per_prompt, rules.release), rules.release):
        return ""
    return ("a multimodal run: the compiled language model takes inputs_embeds, not the token ids, so its graph holds "
            "no embedding table (vLLM gpu_model_runner _dummy_run / V2 execute_model; helper v11b)")


def _with_sparse_indexer(act, model: ModelSpec, r: Resolved, rules: VllmRules):
    """``act`` with the sparse-attention indexer's profile reservation as one more phase, on top of the attention
    phase's live tensors, for every model that builds the indexer (``sparse_indexer.indexer_profile_reservation``:
    DeepSeek-V3.2 / GLM-5 style ``index_topk`` configs from 0.11.0, DeepSeek-V4 from 0.20.0; V1 engine; helpers
    v11b, idx12).  The MoE phase is left as it is: where its workspace request is below the indexer's, the kept
    buffer would stay larger through it (the workspace manager only grows); not modelled."""
    if rules.engine != "V1" or (model.dsa is None and getattr(model, "model_type", None) != "deepseek_v4"):
        return act  # no indexer: the module is not imported (tests/cli/test_cold_imports.py)
    from tpkit.engines.vllm.sparse_indexer import indexer_profile_reservation

    got = indexer_profile_reservation(model, rules.release, max_model_len=r.max_model_len)
    attention = next((p for p in act.parts if p.item == "profile phase: attention"), None)
    if got is None or attention is None:
        return act
    name = "sparse indexer profile reservation"
    part = LineItem(item=f"profile phase: {name}", bytes=Bytes(attention.bytes.bytes + got[0]), kind="info",
                    source=f"estimate: {got[1]} + the attention phase ({attention.source.removeprefix('estimate: ')})")
    if part.bytes.bytes <= act.peak.bytes:
        return replace(act, parts=act.parts + (part,))
    return replace(act, peak=part.bytes, parts=act.parts + (part,), limiting_phase=name)


def _cache_matters(model: ModelSpec, options: VllmOptions, r: Resolved, rules: VllmRules) -> bool:
    """Whether the plan depends on the torch.compile cache: a run that compiles in the profile window (``_compiles``)
    with the embedding table in the compiled graph (``embeds_input`` empty)."""
    return _compiles(model, options, r, rules) and not embeds_input(model, options, rules)


def compile_cache_text(model: ModelSpec, options: VllmOptions, r: Resolved, rules: VllmRules) -> str:
    """The assumption about the torch.compile cache, for the activation line and the plan's notes ("" where the
    plan does not depend on it)."""
    if not _cache_matters(model, options, r, rules):
        if options.compile_cache != "warm":  # the default: nothing to say
            return ""
        why = ("--enforce-eager turns torch.compile off" if options.enforce_eager else
               "--optimization-level 0 turns torch.compile off" if torch_compile_off(options) else
               "vLLM ≥ 0.23 runs DeepSeek-V4 with breakable CUDA graphs and no torch.compile "
               "(VLLM_USE_BREAKABLE_CUDAGRAPH on by default)" if _breakable_graphs(model, rules) else
               embeds_input(model, options, rules) if _compiles(model, options, r, rules) else
               "this run's model runner and release charge no cold-compile scratch (Model Runner V2 of vLLM "
               "0.22–0.32 and the V1 runner of 0.11.1–0.32 only)")
        return (f"--compile-cache warm changes nothing here: {why}, so the plan is the same warm or cold; leave "
                "--compile-cache out")
    if options.compile_cache == "warm":
        return ("torch.compile cache assumed warm (--compile-cache warm: a restart that loads the compiled graphs "
                "from vLLM's cache): no cold-compile scratch phase in the profile peak")
    return ("torch.compile cache assumed cold (a first start, --compile-cache cold, the default): the profile peak "
            "holds the cold-compile scratch phase; a warm restart needs up to that much less (--compile-cache warm)")


EXTENSIBLE_GRAPHS_ITEM = "CUDA graphs (captured before KV sizing)"
"""the ledger item of the graph memory an extensible-KV run (vLLM ≥ 0.34) measures rather than estimates"""


def graphs_line(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, r: Resolved,
            rules: VllmRules, *, rocm: bool = False) -> LineItem | None:
    """The CUDA-graph estimate vLLM subtracts before KV sizing (``engines.vllm.graphs.estimate_cudagraph_memory``, vLLM
    ≥ 0.20), as a ledger line with its band; None when the release does not subtract one (on ROCm: before 0.26,
    ``VllmRules.cudagraph_estimate_rocm``), when ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` is off (the release's
    default before 0.20, or ``--vllm-memory-profiler-estimate-cudagraphs 0``; helper hyb11: 0.18.0–0.33.0, ``options.
    cudagraph_estimate_applied``), under --enforce-eager, or when --kv-cache-memory-bytes replaces the profiled
    budget.  ``rocm``: an AMD GPU."""
    mode = cudagraph_mode_of(options)
    if r.extensible_kv and mode != "NONE":  # ≥ 0.34: the captured graphs are measured before KV sizing
        line = graphs_line(model, parallel, replace(options, vllm_memory_profiler_estimate_cudagraphs="1"),
                           replace(r, extensible_kv=False), replace(rules, cudagraph_estimate_rocm=True), rocm=rocm)
        return None if line is None else replace(line, item=EXTENSIBLE_GRAPHS_ITEM, source=(
            f"{line.source}; the graphs vLLM captures before it measures the free memory that sizes the extensible KV "
            "cache (v1/worker/extensible_kv_cache.py measure_kv_cache_bytes, vLLM ≥ 0.34: no estimate is subtracted, "
            "profile_cudagraph_memory returns 0)"))
    if not cudagraph_estimate_applied(options, rules):
        return None  # VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS off (the release's default or the user's): measured only
    if mode == "NONE" or options.kv_cache_memory_bytes is not None:
        return None  # no graphs: vLLM's determine_available_memory skips profile_cudagraph_memory (0.20.0–0.33.0)
    if rocm and not rules.cudagraph_estimate_rocm:
        return None
    spec_tokens = r.spec.num_speculative_tokens if r.spec is not None else 0
    v2 = _v2_runner(model, options, r, rules)
    warmup = Bytes(0)
    if model.dsa is not None or getattr(model, "model_type", None) == "deepseek_v4":  # may build the indexer
        from tpkit.engines.vllm.sparse_indexer import indexer_graph_profile_bytes
        warmup = indexer_graph_profile_bytes(model, rules.release, v2_runner=v2, rocm=rocm)
    est = estimate_cudagraph_memory(rules, v2_runner=v2,
                                    max_num_seqs=r.max_num_seqs, max_num_batched_tokens=r.max_num_batched_tokens,
                                    compute_capability=r.compute_capability, layers=model.num_layers,
                                    attention_backend=r.attention_backend, rocm=rocm,
                                    max_capture_size=options.max_cudagraph_capture_size,
                                    given_sizes=capture_size_list(options.cudagraph_capture_sizes),
                                    decode_query_len=1 + (spec_tokens or 0), mode=mode, piecewise_warmup=warmup,
                                    heads=max(model.num_attention_heads // parallel.tp, 1),
                                    head_dim_v=max(model.v_head_dim, model.full_head_dim or 0))
    if not est.uncertainty.bytes:
        return LineItem(item="CUDA graphs (estimate)", bytes=est.bytes, source=est.formula)
    planned, _, source = resolve(est.bytes, est.uncertainty, term="cuda_graphs", item="CUDA graphs (estimate)",
                                 source=est.formula)
    return LineItem(item="CUDA graphs (estimate)", bytes=planned, source=source)  # a measured term says where


def uses_gptq_kernel(model: ModelSpec, options: VllmOptions, rules: VllmRules) -> bool:
    """vLLM runs its GPTQ (exllama) linear method, whose ``gptq_gemm`` dequantises each weight per call, when
    ``--quantization gptq`` is passed on a GPTQ checkpoint of a release up to 0.21 (``VllmRules.
    gptq_explicit_exllama``): 0.3.0 has no other GPTQ kernel, and from the release with gptq_marlin on,
    ``GPTQMarlinConfig.override_quantization_method`` keeps ``gptq`` when it is asked for explicitly (vllm 0.6.4
    and 0.21.0 wheels).  From 0.22.0 ``AutoGPTQConfig.override_quantization_method`` takes the explicit ``gptq``
    too and runs the Marlin-family mixed-precision kernel (no per-call copy; vllm 0.22.0, 0.29.0, 0.33.0 wheels,
    model_executor/layers/quantization/auto_gptq.py).  Without the flag, releases with gptq_marlin pick it (not
    modelled as a temporary)."""
    flag = (options.quantization or "").lower()
    return (rules.gptq_explicit_exllama and flag == "gptq"
            and (model.quant is None or model.quant.raw_method in ("", "gptq")))


_FLASHINFER_CC = ((8, 0), (12, 1))
"""compute capabilities FlashInferBackend.supports_compute_capability accepts for the sampler (vllm 0.21: 7.5–12.1;
0.28 raises the floor to 8.0 while SM75 is broken), taken as 8.0–12.1"""


def profile_sampler(rules: VllmRules, compute_capability: tuple[int, int] | None,
                    stated: str | None = None, *, v2_runner: bool = False) -> str:
    """The top-k/top-p sampler of the profile's dummy sampler run (``VllmRules.flashinfer_sampler``): native
    (the full sort, or from 0.17.0 the Triton kernel: ``VllmRules.triton_topk_topp``), FlashInfer,
    "native_unless_installed" where it depends on the install (0.8.0–0.11.0: native as a plain pip install gives
    it, with a band down to FlashInfer), or "either" for a GPU of unknown capability where FlashInfer is the
    default.  ``stated``: the sampler a log's topk_topp_sampler line names (``"native"`` / ``"flashinfer"``;
    ``VllmOptions.topk_topp_sampler``), which replaces the release's default on a V1 run with the dummy sampler.
    ``v2_runner``: Model Runner V2 runs the profile (``inputs.uses_v2_runner``): its greedy dummy batch runs no
    top-k/top-p before 0.33 (``VllmRules.v2_dummy_sampler``: ``"v2_fp32"`` 0.22–0.25, ``"v2_greedy"`` 0.26–0.32);
    from 0.33 its warm-up-parameter pass is charged as the V1 estimate below."""
    if v2_runner and rules.v2_dummy_sampler in ("fp32_copy", "greedy"):
        return "v2_fp32" if rules.v2_dummy_sampler == "fp32_copy" else "v2_greedy"
    if rules.engine == "V1" and not rules.dummy_sampler:
        return "none"
    native = "triton" if rules.engine == "V1" and rules.triton_topk_topp else "native"
    if rules.engine == "V1" and rules.v1_native_sampler_warmup and not v2_runner:
        return native  # the V1 runner's second, seeded call runs the native path whatever the sampler (VllmRules)
    if rules.engine == "V1" and stated in ("native", "flashinfer"):
        return native if stated == "native" else "flashinfer"
    if rules.engine != "V1" or rules.flashinfer_sampler == "no":
        return native
    if rules.flashinfer_sampler == "if_installed":
        if compute_capability is not None and not (
                _FLASHINFER_CC[0] <= tuple(compute_capability) <= _FLASHINFER_CC[1]):
            return native
        return "native_unless_installed"
    if compute_capability is None:
        return "either"
    if not _FLASHINFER_CC[0] <= tuple(compute_capability) <= _FLASHINFER_CC[1]:
        return native
    return "flashinfer"


def activation_lines(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, r: Resolved,
                     rules: VllmRules) -> tuple[LineItem, ...]:
    """The profile run's activation peak line, then its phases (info lines; vLLM 0.2.5: + the held all-reduced
    activations)."""
    encoder = _encoder(model, parallel, options, r, rules)
    act = estimate_profile_peak(model, parallel, tokens=r.max_num_batched_tokens, rows=r.sampler_rows,
                                act_bytes=r.act_bytes, dequant_gemm=uses_gptq_kernel(model, options, rules),
                                sampler=profile_sampler(rules, r.compute_capability, options.topk_topp_sampler,
                                                        v2_runner=_v2_runner(model, options, r, rules)),
                                rejection=dummy_rejection(rules, r.spec, _v2_runner(model, options, r, rules)),
                                sm_count=r.sm_count, encoder=encoder,
                                vocab_hidden=_cold_compile(model, options, r, rules),
                                drafter_vocab_hidden=drafter_cold_compile(model, options, r, rules),
                                drafter_aux_held=eagle3_aux_held(r, rules, _v2_runner(model, options, r, rules)),
                                allreduce_out_of_place=rules.engine == "V0" and rules.v0_allreduce_out_of_place,
                                moe_workspace_experts=_moe_workspace_experts(model, options, rules),
                                moe_cache3_separate=rules.moe_cache3_separate,
                                moe_shared_held=rules.moe_shared_output_held,
                                v0_eager=rules.engine == "V0",
                                v0_gate_up_kept=v0_mlp_keeps_gate_up(model, rules.release))
    act = with_phase_additions(act, v0_additions(model, parallel, options, r, rules))
    if parallel.pp > 1:  # helper pp18: what differs per stage (imported here: a pp 1 plan does not load it)
        from tpkit.engines.vllm.pp_stage import with_stage_phases
        act = with_stage_phases(act, parallel, engine=rules.engine, tokens=r.max_num_batched_tokens,
                                hidden_size=model.hidden_size, act_bytes=r.act_bytes,
                                v2_runner=_v2_runner(model, options, r, rules), memory_rule=rules.memory_rule)
    act = with_mla_v0_workspace(act, model, parallel, options, r, rules)
    if rules.engine == "V0":  # imported here: a V1 plan does not load the V0 engine's terms
        from tpkit.engines.vllm.v0_profile_lines import with_v0_kernel_phases
        act = with_v0_kernel_phases(act, model, parallel, options, r, rules)
    act = _with_sparse_indexer(act, model, r, rules)
    if getattr(model, "model_type", None) == "deepseek_v4":  # helper v417 (the module only for DeepSeek-V4)
        from tpkit.engines.vllm.dsv4_profile import with_dsv4_forward
        act = with_dsv4_forward(act, model, parallel, r, rules)
    line = LineItem(item="activation peak (profile run, estimate)", bytes=estimated_activation_peak(act.peak),
                    source=f"max of the profile phases below ({act.limiting_phase}); "
                           f"T = {r.max_num_batched_tokens:,} tokens, {r.sampler_rows:,} sampler rows"
                           + (f"; {compile_cache_text(model, options, r, rules)}"
                              if _cache_matters(model, options, r, rules) else "")
                           + (f"; multimodal encoder step first: {encoder.items} dummy {encoder.modality} item(s) of "
                              f"{encoder.tokens_per_item:,} tokens (engines/vllm/encoder.py, vLLM profile_run)"
                              if encoder is not None else ""))
    if rules.engine != "V0":
        return (line,) + act.parts
    from tpkit.engines.vllm.v0_profile_lines import with_v0_reserved_charges

    line, notes = with_v0_reserved_charges(line, model, parallel, options, r, rules)
    return (line,) + act.parts + notes


def _moe_workspace_experts(model: ModelSpec, options: VllmOptions, rules: VllmRules) -> str | None:
    """``"bf16"`` / ``"fp8"`` where this release runs the model's experts through the unchunked modular kernel with
    the Triton-sized workspaces (``VllmRules.moe_unchunked_workspace``, ``profile._moe``): unquantised experts, or FP8
    ones (a checkpoint's or ``--quantization fp8`` applied at load); None otherwise (other formats, older releases)."""
    if model.moe is None or not rules.moe_unchunked_workspace:
        return None
    from tpkit.models.quant import resolve_quant

    quant = resolve_quant(model.quant, options.quantization)
    if quant is None:
        return "bf16"
    if quant.method == "fp8" and quant.weight_bits == 8:
        return "fp8"
    return None


def _encoder(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, r: Resolved,
             rules: VllmRules) -> "EncoderProfile | None":
    """The multimodal encoder step of the profile run where it is modelled (``engines/vllm/encoder.py``)."""
    if not model.is_multimodal or options.skip_mm_profiling or options.language_model_only:
        return None  # --language-model-only: every modality's limit 0 (engines/vllm/towers.py), no encoder pass
    return encoder_profile(model, release=rules.release, engine=rules.engine, tp=parallel.tp,
                           max_num_batched_tokens=r.max_num_batched_tokens, max_num_seqs=r.max_num_seqs,
                           max_model_len=r.max_model_len, act_bytes=r.act_bytes,
                           v2_runner=_v2_runner(model, options, r, rules),
                           enforce_eager=torch_compile_off(options),
                           limits=parse_mm_limits(options.limit_mm_per_prompt, rules.release))[0]
