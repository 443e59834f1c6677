"""The profile run's activation peak, estimated analytically (vLLM 0.33
``vllm/v1/worker/gpu_model_runner.py`` and ``vllm/v1/worker/gpu/model_runner.py`` ``profile_run``).

vLLM measures this peak by running one dummy forward pass of ``max_num_batched_tokens`` tokens (T) spread
over ``R = min(T, max_num_seqs)`` requests, then the sampler on one row per request.  tpkit cannot run it,
so every term below is an ESTIMATE of the tensors alive at the peak of one rank (a = activation bytes,
H = hidden, I = MLP width, k = experts per token, V = vocabulary):

    dense MLP   T × (3H + 3·I/tp) × a        residual, MLP input, gate_up (2I), act (I), down output (H); I is the
                                             widest layer's (Gemma 4 ``use_double_wide_mlp``: 2 × intermediate_size
                                             in the shared-KV layers, vLLM 0.19.0–0.33.0 ``models/gemma4.py``)
    Gemma 4     + T × L × P × a on the dense  the (T, L, P) per-layer inputs (P = hidden_size_per_layer_input) that
    per-layer   MLP and attention phases      ``project_per_layer_inputs`` builds before the layer loop for every
    inputs                                    layer to slice: alive through the forward, full width on every rank
                                              (``gather_output=True``; 0.19.0–0.33.0 ``models/gemma4.py``; t4g4)
    attention   T × (3H + (q + 2·kv + q)·d/tp) × a
    GPTQ        + K × N × a of the phase's last GEMM (down_proj / o_proj) with vLLM's GPTQ (exllama) kernel,
                whose ``gptq_gemm`` dequantises the weight into a temporary per call
    MoE layer   T·(2H + E)·a + M·(H + E)·a + M·k·8 + C·k·(max(2N, H) + N)·a (+ fp8 copies),  M = T × dp
                (tokens gathered for the experts with DP), C = min(M, 32768) fused-MoE chunk, N = expert
                width per rank; buffer by buffer from vllm 0.10.1's fused_experts_impl (see ``profile_moe.moe_phase``)
    sampler     T·H·a + R × V × 38 / 14 B     the dummy sampler run on one row per request, by sampler (PyTorch-
                (+ Triton's buffer), or       native, FlashInfer, Triton top-k/top-p, Model Runner V2's greedy
                R × V × a (+ 4 B, V2)         batch): ``sampler.sampler_phase``, whose docstring gives each term

    cold        ⌈V/tp⌉ × H × a              V2 0.22–0.32, V1 0.11.1–0.32: a cold torch.compile inside the
    compile                                  profile run.  ``gpu_worker.determine_available_memory`` measures the
    scratch                                  peak over ``profile_run``, and on a cold compile cache the first
                                             forward compiles there: Inductor / Triton compilation, autotuning
                                             and the AOT export allocate temporaries that the window charges as
                                             peak activation
                                             (vllm-project/vllm issue #54122 and #54383, open PRs #54209 / #54479:
                                             "cold boots stop losing capacity"; 1CatAI/1Cat-vLLM PR #518: cold
                                             torch peak +2.59 GiB vs +0.74 warm; no peak reset after compilation in
                                             the 0.26.0–0.33.0 wheels).  Its size is EVIDENCE, not source: the
                                             printed peaks are one vocabulary × hidden tensor in the activation
                                             dtype (``V2_VOCAB_HIDDEN_EVIDENCE``: 0.25 GiB for Qwen2.5-0.5B, 1.04
                                             twice for Qwen2.5-7B-AWQ, 2.59 for Qwen3.8-27B; 0.254 / 1.015 / 2.52
                                             by the formula).  Plain torch.compile of the same shapes (torch 2.11,
                                             H200, cold and warm, combo kernels on and off) allocates no such
                                             tensor, so what vLLM's compile path holds is not known.  tpkit cannot
                                             see the compile cache, so the phase assumes a first start (a fresh
                                             container or pod); a warm restart may plan up to that much too little
                                             (vl_073, a likely warm rerun, prints 1.89 GiB where the formula gives
                                             2.52).  It stays under the MLP phase at the LLM class's larger T
                                             (vp_022, vp_101).  0.33 V2 runs print no split that shows it, so
                                             they keep the phases above (``VllmRules.v2_vocab_hidden_peak``).
                                             V2 runs of 0.22–0.25 charge it too (helper mv26): their
                                             ``profile_run`` → ``_dummy_run(is_profile=True)`` → ``execute_model``
                                             calls ``self.model(**model_inputs)``, the ``support_torch_compile``
                                             module (``compilation/decorators.py`` bypasses it only under
                                             ``skip_compiled``, set for encoder-decoder inputs), so a first start
                                             compiles inside the window as the V1 runner does (``v1/worker/gpu/
                                             model_runner.py``, 0.22.0 and 0.23.0 wheels); vp_533 (0.23.0 V2,
                                             MiniCPM5-1B, RTX 4090 D, a first start) printed 0.39 GiB less KV
                                             memory than planned without the phase.
                                             V1-runner runs of 0.11.1–0.32 charge it too (helper v11b: vLLM's
                                             Inductor combo-kernel benchmark allocates every kernel input, the
                                             embedding table too, which a multimodal run keeps out of the graph:
                                             ``VllmRules.v1_vocab_hidden_peak``, ``profile_lines.embeds_input``;
                                             gem4's reading: the AOT compile of the torch 2.10 pin, from 0.17,
                                             saves inside the profile window): vl_330 / vl_331 (0.23.0 V1,
                                             Qwen2.5-Coder-7B, RTX 4090, one command cold then warm) print 0.78 GiB
                                             less KV memory cold, the formula's 1.015 GiB over the 0.26 GiB warm
                                             peak 0.76.

    V0 out-of-   + T × H × a on the dense     The V0 engine from 0.6.5 with tp > 1: every all-reduce is out of place
    place        MLP and attention phases     (``GroupCoordinator.all_reduce`` → ``torch.ops.vllm.all_reduce`` →
    all-reduce                                ``_all_reduce_out_place``; custom all-reduce returns a new tensor and
                                              ``PyNcclCommunicator.all_reduce`` allocates ``out_tensor =
                                              torch.empty_like(in_tensor)``: vllm 0.6.5, 0.6.6, 0.7.0–0.7.3, 0.8.0,
                                              0.8.5, 0.9.0, 0.10.2 wheels; 0.6.4 and earlier reduce the NCCL path
                                              in place, ``inplace_all_reduce`` / ``pynccl_comm.all_reduce(input_)``).
                                              RowParallelLinear (``down_proj`` / ``o_proj``) reduces its partial
                                              output while the eager forward still holds gate_up, act, qkv and the
                                              attention output by reference, so one more T × H tensor is alive at
                                              those phases' peak (``VllmRules.v0_allreduce_out_of_place``); in the
                                              MLP at ``down_proj``'s moment, which is the MLP's peak only where the
                                              body keeps gate_up (``_v0_dense_mlp``).  V1's compiled forward frees
                                              dead intermediates itself and keeps the phases above.

    V0 eager     dense MLP T × max(3H + 3I,   The V0 engine runs the forward eagerly: the layer loop holds the
    forward      4H + 3I or I (+ H))          layer's input through the MLP, and the MLP keeps its gate_up output
                 MoE layer + T × H            unless the model file rebinds it (``LlamaMLP`` from 0.6.4); the
                                              all-reduced copy joins at ``down_proj`` (``engines/vllm/v0_forward.py``).

The peak is the larger of the forward pass and the sampler (the forward's intermediates are freed first).
A multimodal model's encoder step comes first (``engines/vllm/encoder.py``): its pass is one more phase, and the
encoder outputs it keeps are added to every text phase.

Model Runner V2 also keeps per-request state on the GPU from its construction (after the init snapshot, outside
"Model loading took", so in vLLM's "total consumed"; ``v2_runner_state_bytes``).

vLLM 0.2.5 with tp > 1 (``VllmRules.v0_allreduce_held``) also charges the blocks its all-reduces keep reserved
(``held_allreduce_bytes``): ProcessGroupNCCL records each collective's tensors on the NCCL stream, so a block
freed on the CPU side is not reused until the GPU has run that collective; the CPU launches the eager forward far
ahead of the GPU, so every collective's block stays reserved, and 0.2.5's total − free reads them all:

    held        (2·L + 1) × T × H × a + R × V × (1 + 1/tp) × a
                one all-reduce per attention output and per MLP output projection of each of the L layers
                (RowParallelLinear reduce_results) and one for the vocab-parallel embedding, each of T × H
                activations; the sampler's all_gather_into_tensor of the R rows' vocab-parallel logits (input and
                output).  Read in the vllm 0.2.5 wheel (model_executor/parallel_utils/communication_op.py
                tensor_model_parallel_all_reduce / _all_gather: torch.distributed with no
                TORCH_NCCL_AVOID_RECORD_STREAMS; worker/worker.py profile_num_available_blocks: total − free
                after torch.cuda.synchronize, no empty_cache).  Its ± (``HELD_ALLREDUCE_SHARE``) covers how many
                collectives are still in flight when the allocator next needs a block, which is not measured.
                Check: PR #2031 (vllm-project/vllm, 2023-12-12) printed 31,615 → 20,865 blocks for Llama-2-70B at
                tp 4 on A100-80GB when it switched to total − free (13.1 GiB) and 7,449 → 7,351 at tp 1 (0.1 GiB);
                this term gives 10.1 GiB of the 13.1.
"""

from __future__ import annotations

from tpkit.engines.vllm.sampler import sampler_phase
from tpkit.memory.ledger import LineItem
from tpkit.models.params import per_layer_input_width, widest_dense_mlp
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.records import dataclass
from tpkit.units import Bytes, gib_text

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (cold start)
if TYPE_CHECKING:
    from tpkit.engines.vllm.encoder import EncoderProfile

__all__ = ["ActivationEstimate", "estimate_profile_peak", "drafter_compile_phase", "DRAFTER_PHASE",
           "V2_VOCAB_HIDDEN_EVIDENCE", "HELD_ALLREDUCE_SHARE", "held_allreduce_bytes", "v2_runner_state_bytes",
           "vocab_hidden_scratch"]

HELD_ALLREDUCE_SHARE = 0.25
"""± share of ``held_allreduce_bytes`` (the in-flight count is not measured; the activation estimate's share)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class ActivationEstimate:
    """The profile-run peak above the weights, with its parts."""

    peak: Bytes
    """max(forward phase, sampler phase), bytes per rank"""
    parts: tuple[LineItem, ...]
    """each phase as an ``info`` line with its formula"""
    limiting_phase: str


def _dequant_temp(k: int, n: int, a: int, dequant: bool) -> tuple[int, str]:
    """vLLM's GPTQ (exllama) kernel: ``gptq_gemm`` (csrc/quantization/gptq/q_gemm.cu) allocates a K × N
    ``temp_dq`` of the activation dtype on every call, next to its output, to dequantise the weight."""
    return (k * n * a, f" + GPTQ temp_dq K {k:,} × N {n:,} × {a} B") if dequant else (0, "")


def _dense_mlp(model: ModelSpec, tp: int, tokens: int, a: int, dequant: bool) -> tuple[Bytes, str]:
    width = widest_dense_mlp(model) // tp
    per_token = (3 * model.hidden_size + 3 * width) * a
    temp, note = _dequant_temp(width, model.hidden_size, a, dequant)  # down_proj, the peak's last GEMM
    wide = " (I of the double-wide shared-KV layers, 2 × intermediate_size)" if width * tp > model.intermediate_size \
        else ""
    return Bytes(tokens * per_token + temp), (
        f"T {tokens:,} × (3H + 3·I/tp = {3 * model.hidden_size + 3 * width:,}{wide}) × {a} B{note}")


def _per_layer_inputs(model: ModelSpec, tokens: int, a: int) -> tuple[Bytes, str]:
    """Gemma 4's per-layer inputs alive through the whole layer loop (module docstring, "Gemma 4 per-layer inputs")."""
    width = per_layer_input_width(model)
    return Bytes(tokens * width * a), (f" + Gemma 4 per-layer inputs T × L·P {width:,} × {a} B, alive through every "
                                       f"layer" if width else "")


def _v0_dense_mlp(model: ModelSpec, tp: int, tokens: int, a: int, dequant: bool, *, kept: bool,
                  oop: bool) -> tuple[Bytes, str]:
    """The V0 eager MLP peak (``engines/vllm/v0_forward.py``): at the activation, residual + layer input + MLP input
    + gate_up + act = 3H + 3I; at ``down_proj``, residual + layer input + MLP input + (gate_up if kept) + act +
    output (+ the all-reduced copy) = 4H + 3I or 4H + I (+ H)."""
    h, width = model.hidden_size, widest_dense_mlp(model) // tp
    temp, note = _dequant_temp(width, h, a, dequant)  # down_proj's GEMM
    act = tokens * (3 * h + 3 * width) * a
    down_w = 4 * h + (3 * width if kept else width) + (h if oop else 0)
    down = tokens * down_w * a + temp
    body = "gate_up kept" if kept else "gate_up freed after the activation (LlamaMLP ≥ 0.6.4)"
    return Bytes(max(act, down)), (
        f"V0 eager: T {tokens:,} × max(3H + 3·I/tp = {3 * h + 3 * width:,} at the activation, "
        f"4H + {'3' if kept else ''}·I/tp{' + H (all-reduced copy)' if oop else ''} = {down_w:,} at down_proj) × "
        f"{a} B{note} (residual, the layer input the loop holds, MLP input; {body})")


def _attention(model: ModelSpec, tp: int, tokens: int, a: int, dequant: bool) -> tuple[Bytes, str]:
    heads = max(1, model.num_attention_heads // tp)
    if model.mla is not None:
        m = model.mla
        width = heads * (m.qk_nope_head_dim + m.qk_rope_head_dim) + m.kv_lora_rank + m.qk_rope_head_dim
        width += heads * (m.qk_nope_head_dim + m.v_head_dim) + heads * m.v_head_dim
    else:
        kv = max(1, model.num_kv_heads // tp)
        width = (2 * heads + kv) * model.head_dim + kv * model.v_head_dim
    per_token = (3 * model.hidden_size + width) * a
    temp, note = _dequant_temp(heads * model.v_head_dim, model.hidden_size, a, dequant)  # o_proj
    return Bytes(tokens * per_token + temp), (
        f"T {tokens:,} × (3H + q/k/v/out widths = {per_token // a:,}) × {a} B{note}")


def _add_to(phases: dict[str, tuple[Bytes, str]], names: tuple[str, ...], extra: Bytes, note: str) -> None:
    """Add ``extra`` (and ``note`` to the formula) to each phase of ``names`` the profile pass has."""
    for p in names:
        if p in phases:
            b, f = phases[p]
            phases[p] = (b + extra, f + note)


V2_VOCAB_HIDDEN_EVIDENCE: tuple[tuple[str, str, float, float], ...] = (
    # (case, run, printed peak activation GiB, V × H × a GiB) — docs/accuracy.md §11.8
    ("vp_100", "0.27.1 V2, Qwen2.5-0.5B-Instruct bf16, RTX 4090, vllm serve, T 2,048", 0.25, 0.254),
    ("vp_102/vp_103", "0.28.0 V2, Qwen2.5-7B-Instruct-AWQ fp16, L4, vllm serve (fresh container), T 2,048",
     1.04, 1.015),
    ("vl_022", "V2 run without a CUDA-graph estimate (0.25-0.28), Qwen2.5-7B-Instruct-AWQ, 16 GB GPU, vllm serve",
     1.04, 1.015),
    ("1Cat-vLLM PR #518", "cold compile, Qwen3.8-27B-NVFP4, RTX 8000 (torch peak +2.59 GiB; +0.74 warm)", 2.59, 2.52),
    ("vp_210/vp_211 (vl_290/vl_291)", "0.29.0 V1 runner (VLLM_USE_V2_MODEL_RUNNER=0), Qwen3-8B-FP8, MIG 1g.16gb slice "
     "of an RTX PRO 4500, cold compile, T 2,048, R 256: printed peak 1.69 / 1.95 − printed CUDA-graph estimate "
     "0.55 / 0.81 (from 0.27 the printed peak adds the estimate, gpu_worker.py determine_available_memory)",
     1.14, 1.16),
)
"""Printed peak activations of first (cold-compile) starts whose source phases (forward, greedy sampler) give far
less, against one vocabulary × hidden tensor in the activation dtype (module docstring, "cold compile scratch")."""


def vocab_hidden_scratch(model: ModelSpec, tp: int, act_bytes: int) -> tuple[Bytes, str]:
    """The cold torch.compile scratch of ⌈V/tp⌉ × H activations in the profile window, and its source."""
    rows = -(-model.vocab_size // tp)
    return (Bytes(rows * model.hidden_size * act_bytes), f"⌈V/tp⌉ {rows:,} × H {model.hidden_size:,} × {act_bytes} B: "
            "a cold torch.compile's scratch inside the profile window (vLLM issue #54122; size from printed "
            "first-start peaks, 0.22–0.32), assuming a first start")


DRAFTER_PHASE = "drafter cold compile scratch ≈ vocab × hidden + target hidden states"


def drafter_compile_phase(model: ModelSpec, tp: int, tokens: int, act_bytes: int,
                          aux_held: int = 0) -> tuple[Bytes, str]:
    """The speculative drafter's own cold torch.compile inside the profile window (helper mtp12), and its formula.

    Source (vLLM 0.26.0 and 0.30.0 wheels; the V1 runner's call also in 0.11.2 and 0.20.2): the profile's dummy pass
    runs the drafter after the target.  Model Runner V2: ``v1/worker/gpu/model_runner.py`` ``profile_run`` →
    ``_dummy_run(is_profile=True)`` → ``speculator.propose(dummy_run=True, is_profile=True)`` →
    ``spec_decode/autoregressive/speculator.py`` ``_prefill`` → ``_run_model``; ``need_eager=is_profile`` only turns
    the CUDA graphs off, and ``self.model(**model_inputs)`` is the drafter's ``support_torch_compile`` module
    (``qwen3_5_mtp.py`` ``Qwen3_5MTP``, ``deepseek_mtp.py``, ``qwen3_next_mtp.py``), which compiles on its first
    call unless the compilation mode is NONE (``compilation/decorators.py``).  V1 runner:
    ``gpu_model_runner.py`` ``_dummy_run`` → ``drafter.dummy_run`` → ``self.model(**kwargs)``
    (``spec_decode/llm_base_proposer.py``).  The drafter is built under ``set_model_tag("eagle_head")``
    (``spec_decode/eagle/utils.py`` ``load_eagle_model``) with the target's compilation config, so its graphs have
    their own cache entry and Inductor's combo-kernel benchmark runs for them on a cold start too.  Its graph takes
    the token ids on a text run (``_run_model`` / ``dummy_run`` pass ``inputs_embeds`` only when
    ``supports_mm_inputs``), and the forward looks them up in ``embed_tokens``, which ``maybe_share_target_embed`` /
    ``_maybe_share_embeddings`` replace by the target's table: the benchmark's ``get_args()`` copies that
    ⌈V/tp⌉ × H table again.  The copy is freed and the cache emptied after each benchmarked partition (torch
    ``_inductor/codegen/triton.py`` ``benchmark_combo_kernel``: ``args = … = None``, ``empty_cache()``), so it does
    not stack on the target's scratch: the phase is the copy plus what the target's dummy pass still holds at that
    point, its last hidden states T × H (``_dummy_run`` keeps ``hidden_states`` for the sampler run).  ``aux_held``:
    further T × H tensors alive then (``profile_lines.eagle3_aux_held``: Model Runner V2's EAGLE-3 auxiliary states)."""
    rows = -(-model.vocab_size // tp)
    table = rows * model.hidden_size * act_bytes
    held = (1 + aux_held) * tokens * model.hidden_size * act_bytes
    aux = (f" + {aux_held} more T × H held by Model Runner V2's EAGLE-3 propose (the target's auxiliary hidden "
           "states and their combination)") if aux_held else ""
    return (Bytes(table + held),
            f"⌈V/tp⌉ {rows:,} × H {model.hidden_size:,} × {act_bytes} B (the drafter's compile copies the shared "
            f"embedding table, vLLM speculator propose(dummy_run) → support_torch_compile, 0.11.1–0.32) + the "
            f"target's hidden states T {tokens:,} × H × {act_bytes} B still held{aux}, assuming a first start")


def estimate_profile_peak(model: ModelSpec, parallel: ParallelSpec, *, tokens: int, rows: int,
                          act_bytes: int, dequant_gemm: bool = False, sampler: str = "native",
                          sm_count: int | None = None, encoder: "EncoderProfile | None" = None,
                          vocab_hidden: bool = False, drafter_vocab_hidden: bool = False, drafter_aux_held: int = 0,
                          allreduce_out_of_place: bool = False,
                          moe_workspace_experts: str | None = None, moe_cache3_separate: bool = False,
                          moe_shared_held: bool = False,
                          v0_eager: bool = False, v0_gate_up_kept: bool = True,
                          rejection: str = "none") -> ActivationEstimate:
    """Estimated torch-allocated peak of the profile run above what stays allocated (per rank).

    ``dequant_gemm``: the dense linear layers run vLLM's GPTQ (exllama) kernel, which dequantises each weight into a
    temporary per call (see ``_dequant_temp``).  ``sampler``: the top-k/top-p sampler of the dummy sampler run
    (``sampler.SAMPLERS``); ``sm_count``: the GPU's SMs (the Triton sampler's buffer).  ``encoder``: the multimodal
    encoder step that runs first (``engines.vllm.encoder``): its pass is a phase of its own and what it keeps is added
    to each text phase.  ``vocab_hidden``: add the cold torch.compile scratch phase (module docstring, "cold compile
    scratch"; ``V2_VOCAB_HIDDEN_EVIDENCE``).  ``drafter_vocab_hidden``: add the speculative drafter's own cold-compile
    phase (``drafter_compile_phase``; ``drafter_aux_held``: its further T × H tensors).  ``allreduce_out_of_place``:
    the V0 engine (≥ 0.6.5) reduces RowParallelLinear's output out of place; with tp > 1 the dense MLP and attention
    phases hold one more T × H tensor (module docstring, "V0 out-of-place all-reduce").  ``moe_workspace_experts``:
    ``"bf16"`` / ``"fp8"`` where the release runs unquantised / FP8 experts through the unchunked modular kernel
    (``profile_moe.moe_phase``); ``moe_cache3_separate``: the release (< 0.8.0) allocates the fused MoE's second GEMM
    output apart (``moe_phase``); ``moe_shared_held``: the release (< 0.11.0) keeps the shared experts' output through
    the routed ones. ``v0_eager``: the V0 engine's eager forward (module docstring, "V0 eager forward"): the dense MLP
    phase is ``_v0_dense_mlp`` (``v0_gate_up_kept``: the MLP keeps its gate_up output through ``down_proj``) and the
    MoE phase holds the layer's input too.  ``rejection``: the dummy rejection-sampler run's form under a speculative
    config (``sampler.dummy_rejection``), charged in the sampler phase."""
    phases: dict[str, tuple[Bytes, str]] = {
        "attention": _attention(model, parallel.tp, tokens, act_bytes, dequant_gemm)}
    oop = allreduce_out_of_place and parallel.tp > 1
    if model.moe is None or model.moe.num_dense_layers > 0:
        phases["dense MLP"] = (_v0_dense_mlp(model, parallel.tp, tokens, act_bytes, dequant_gemm,
                                             kept=v0_gate_up_kept, oop=oop) if v0_eager
                               else _dense_mlp(model, parallel.tp, tokens, act_bytes, dequant_gemm))
    ple, ple_note = _per_layer_inputs(model, tokens, act_bytes)
    if ple.bytes:  # helper t4g4: Gemma 4's (T, L, P) per-layer inputs stay alive under both forward phases
        _add_to(phases, ("attention", "dense MLP"), ple, ple_note)
    kept_ws = Bytes(0)
    if model.moe is not None:  # imported here: a dense plan's cold start does not load the MoE module
        from tpkit.engines.vllm.profile_moe import moe_profile_phase

        kept_ws = moe_profile_phase(phases, model, parallel, tokens, act_bytes, moe_workspace_experts,
                                    moe_cache3_separate, moe_shared_held, v0_eager=v0_eager)
    if oop:
        _add_to(phases, ("attention",) if v0_eager else ("attention", "dense MLP"),
                Bytes(tokens * model.hidden_size * act_bytes),
                f" + the all-reduced copy T × H × {act_bytes} B (V0 ≥ 0.6.5, out of place)")
    phases["logits" if sampler == "none" else "logits + sampler"] = sampler_phase(model, tokens, rows, act_bytes,
                                                                                  sampler, sm_count, rejection)
    if kept_ws.bytes:  # helper v11a: the WorkspaceManager's MoE workspace stays under every later phase of the pass
        _add_to(phases, ("attention", "logits", "logits + sampler"), kept_ws,
                f" + the MoE workspace kept from the first MoE layer on, {gib_text(kept_ws)} "
                f"(v1/worker/workspace.py: it only grows)")
    _add_compile_and_encoder(phases, model, parallel.tp, tokens, act_bytes, vocab_hidden, drafter_vocab_hidden,
                             encoder, drafter_aux_held)
    return _peak_of(phases)


def _add_compile_and_encoder(phases: dict[str, tuple[Bytes, str]], model: ModelSpec, tp: int, tokens: int,
                             act_bytes: int, vocab_hidden: bool, drafter_vocab_hidden: bool,
                             encoder: "EncoderProfile | None", drafter_aux_held: int = 0) -> None:
    """The phases outside the text forward (``estimate_profile_peak``'s ``vocab_hidden``, ``drafter_vocab_hidden``
    and ``encoder``): the cold-compile scratch, the drafter's own compile, and the encoder pass whose outputs every
    text phase keeps."""
    if vocab_hidden:
        phases["cold compile scratch ≈ vocab × hidden"] = vocab_hidden_scratch(model, tp, act_bytes)
    if drafter_vocab_hidden:
        phases[DRAFTER_PHASE] = drafter_compile_phase(model, tp, tokens, act_bytes, drafter_aux_held)
    if encoder is not None:
        _add_to(phases, tuple(phases), encoder.kept, f" + encoder outputs kept {gib_text(encoder.kept)}")
        phases["vision encoder (dummy items)"] = (encoder.peak, encoder.formula)


def _peak_of(phases: dict[str, tuple[Bytes, str]]) -> ActivationEstimate:
    """The largest phase is the peak; every phase an info line."""
    name = max(phases, key=lambda p: phases[p][0])
    parts = tuple(LineItem(item=f"profile phase: {p}", bytes=b, kind="info", source=f"estimate: {f}")
                  for p, (b, f) in phases.items())
    return ActivationEstimate(peak=phases[name][0], parts=parts, limiting_phase=name)


def held_allreduce_bytes(model: ModelSpec, parallel: ParallelSpec, *, tokens: int, rows: int,
                         act_bytes: int) -> tuple[Bytes, str]:
    """Bytes vLLM 0.2.5 keeps reserved for the profile's collectives at tp > 1, and the formula (module
    docstring, "held"); (0, "") at tp 1, where nothing is all-reduced."""
    tp = parallel.tp
    if tp <= 1:
        return Bytes(0), ""
    count = 2 * model.num_layers + 1
    forward = count * tokens * model.hidden_size * act_bytes
    gather = rows * model.vocab_size * act_bytes + rows * -(-model.vocab_size // tp) * act_bytes
    return Bytes(forward + gather), (
        f"{count} all-reduces (2 per layer × {model.num_layers} + embedding) × T {tokens:,} × H "
        f"{model.hidden_size:,} × {act_bytes} B + logits all-gather R {rows:,} × V {model.vocab_size:,} × "
        f"(1 + 1/{tp}) × {act_bytes} B")


V2_SMALL_STATE_COLUMNS = 3 * 1024 + 128 + 1024 + 129 + 128
"""int32 columns per request of Model Runner V2's small per-request tables (``v1/worker/gpu/sample``, 0.22–0.33):
allowed token ids, logit-bias ids and values (``MAX_NUM_ALLOWED_TOKEN_IDS`` / ``MAX_NUM_LOGIT_BIAS_TOKENS`` 1,024
each), stop token ids (``MAX_NUM_STOP_TOKEN_IDS`` 128), bad-word tokens and offsets (1,024 and 128 + 1, constants
≤ 0.27, ``VLLM_MAX_BAD_WORDS_TOTAL_TOKENS`` / ``VLLM_MAX_NUM_BAD_WORDS`` defaults from 0.28), logprob token ids
(``MAX_LOGPROB_TOKEN_IDS`` 128)"""


def v2_runner_state_bytes(*, vocab_size: int, max_num_seqs: int, max_num_batched_tokens: int,
                          spec_tokens: int = 0) -> tuple[Bytes, str]:
    """GPU memory Model Runner V2 allocates for its request and sampling state before the profile run, and the
    formula (vLLM 0.22–0.33 wheels, read in 0.22.0, 0.25.0, 0.27.1, 0.28.0, 0.29.0, 0.33.0).

    Made in ``GPUModelRunner.__init__`` (``states.py RequestState``, ``input_batch.py InputBuffers``) and in
    ``load_model`` after its ``DeviceMemoryProfiler`` block (``Sampler``, ``StructuredOutputsWorker``), i.e. after
    ``gpu_worker.init_device``'s snapshot and outside "Model loading took": vLLM charges them through
    ``memory_profiling``'s total consumed (≥ 0.27) or the torch increase (before).  R = max_num_seqs, V = vocab,
    q = 1 + speculative tokens, T = max_num_batched_tokens:

        PenaltiesState.output_bin_counts   R × V × 4 B            (int32, "can be very large", sample/penalties.py)
        PenaltiesState.prompt_bin_mask     R × ⌈V/32⌉ × 4 B
        StructuredOutputsWorker bitmask    R·q × ⌈V/32⌉ × 4 B     (+ R·q × 4 B logits indices)
        small per-request tables           R × 4,481 × 4 B        (``V2_SMALL_STATE_COLUMNS``)
        InputBuffers                       T × 13 B + R × 12 B    (input ids int32, positions int64, padding bool;
                                                                    query_start_loc, seq_lens, DCP seq_lens)
        RequestState                       R × (16 + 8·s + 4) B   (total_len, computed tokens, last sampled int64,
                                                                    draft tokens int64 × s, next prefill tokens)

    ``all_token_ids`` (R × max_model_len) and every ``UvaBackedTensor`` live in pinned host memory (UVA), not on
    the GPU.  The caching allocator's 2 MiB small-block segments around these tensors are not counted.  Block
    tables, attention metadata and CUDA-graph buffers are made in ``initialize_kv_cache``, after the KV sizing."""
    r, v, q, s = max_num_seqs, vocab_size, 1 + spec_tokens, spec_tokens
    words = -(-v // 32)
    parts = (r * v * 4 + r * words * 4 + r * q * (words + 1) * 4 + r * V2_SMALL_STATE_COLUMNS * 4
             + max_num_batched_tokens * 13 + r * 12 + r * (16 + 8 * s + 4))
    return Bytes(parts), (f"output_bin_counts R {r:,} × V {v:,} × 4 B + prompt/grammar bitmasks (R + R·q {r * q:,}) × "
                          f"⌈V/32⌉ × 4 B + per-request tables R × {V2_SMALL_STATE_COLUMNS:,} × 4 B + input buffers "
                          f"T {max_num_batched_tokens:,} × 13 B")
