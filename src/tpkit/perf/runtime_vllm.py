"""How vLLM (V1) runs the passes of a decode step on one GPU architecture (pure engine facts; ``perf.runtime``
assembles them into its ``Runtime``).

    in:  vLLM version, attention backend, compute capability, MLA / sparse MLA or not, the speculative algorithm,
         the model's architecture (which picks the default model runner)
    out: the ``Runtime`` fields for vLLM (async scheduling, verify path, target/draft graphs, the proposer's eager
         launches) with the facts' sources

Facts read from vLLM's own sources (wheels in /work/data/wheels, 2026-12-01; the default attention backend is
chosen in ``engines.vllm.backend_choice.auto_attention_backend``, shared with plan):

    attention backend  ``_get_backend_priorities`` (0.16/0.20 platforms/cuda.py) filtered by
                       ``supports_compute_capability``: FLASH_ATTN_MLA needs SM90, FLASHMLA SM90/100,
                       FLASHINFER_MLA/CUTLASS_MLA SM100, TRITON_MLA any → on SM120/SM8x an MLA model gets
                       TRITON_MLA; MHA: FLASH_ATTN (FLASHINFER on SM100)
    FLASH_ATTN (FA2)   on SM8x/SM12x (FA3 on SM9x, FA4 on SM10x): KV split only at one query token per request,
                       so the verify and the drafter's first step run without it (``perf.fa2_verify``, helper aw13)
    TRITON_ATTN        Triton unified attention splits the KV only at one query token per request before 0.33
                       (≤ 8 tokens from 0.33); the V1 drafter (0.21–0.33) picks its own backend when the target's
                       was forced (``perf.triton_verify``, helper tri18)
    CUTLASS_MLA        (never a default: SM10x lists FLASHINFER_MLA first) reorder_batch_threshold 1 /
                       SINGLE_ONLY and UNIFORM_SINGLE_TOKEN_DECODE graphs in every release read (0.10.2–0.33
                       cutlass_mla.py): chosen with --attention-backend, its verify takes the prefill path, piecewise
    TRITON_MLA         < 0.22: ``_cudagraph_support`` NEVER (inherits the base builder) → the engine falls back
                       to PIECEWISE graphs, attention runs eagerly between graph pieces; query-length support
                       SINGLE_ONLY up to 0.30 → reorder_batch_threshold 1, so a verify batch (1 + k tokens per
                       request) goes through the MLA *prefill* path: every layer gathers the cached latents,
                       up-projects them with kv_b_proj into per-head K and V for the whole context and runs
                       a prefill attention on them (model_executor/layers/attention/mla_attention.py
                       ``_compute_prefill_context``); 0.31: UNIFORM_BATCH + QueryLenSupport.UNIFORM (verify as
                       decode under full graphs)
    sparse MLA         a DeepSeek-sparse-attention model (``index_topk``: DeepSeek-V3.2, GLM-5) runs only on a
                       sparse-MLA backend (v1/attention/backend.py ``validate_configuration``: ``use_sparse !=
                       cls.is_sparse()`` is invalid): FLASHMLA_SPARSE on SM9x/SM10x from 0.11.0,
                       FLASHINFER_MLA_SPARSE_SM120 on SM12x from 0.24.0, none elsewhere (the engine refuses the
                       model; a build with its own sparse backend is assumed).  Every token, the verify's included,
                       attends decode-style over the indexer's top-k latents (0.11.0 flashmla_sparse.py ``forward``;
                       0.16–0.25 mla_attention.py: 'Sparse MLA impls only support forward_mqa'; from 0.26 a
                       prefill's tokens may take a dense MHA path, ``_use_sparse_mha``, decode tokens stay MQA),
                       under full CUDA graphs (UNIFORM_BATCH, ``supports_spec_as_decode=True``: the verify is a
                       decode): no TRITON_MLA rule applies
    overlap            async scheduling off by default up to 0.13 ("we won't reach here until async scheduling
                       is enabled by default", 0.12 config/vllm.py); from 0.14 on by default, EAGLE/MTP
                       speculation included; draft_model (STANDALONE) excluded up to 0.27, included from 0.28
                       (``DRAFT_MODEL_ASYNC_FIRST``)
    graphs             FULL_AND_PIECEWISE default from 0.11 (PIECEWISE before: attention eager between
                       pieces) for the target model.  The drafter (every EAGLE/EAGLE-3/MTP head) never follows
                       it into FULL graphs in the V1 model runner:
                       < 0.9         no CUDA graph (0.8.5 v1/spec_decode/eagle.py; vllm PR #17211/#17504 add it)
                       0.9.0–0.10.0  PIECEWISE: the draft is compiled at CompilationLevel.PIECEWISE and the
                                     piecewise backend captures/replays by padded size by itself
                       0.10.1–0.11.0 no CUDA graph: from the CUDA-graph dispatcher (vllm PR #20059;
                                     compilation/cuda_graph.py first in 0.10.1) a graph replays only when the
                                     forward context names a runtime mode, and ``EagleProposer`` calls
                                     ``set_forward_context`` without ``cudagraph_runtime_mode`` (default NONE) in
                                     propose and dummy_run (0.10.1, 0.10.2, 0.11.0 eagle.py) — the compiled draft
                                     runs with every kernel launched from Python
                       ≥ 0.11.1      PIECEWISE only: ``use_cuda_graph = cudagraph_mode.has_mode(PIECEWISE)``
                                     and ``cudagraph_runtime_mode = CUDAGraphMode.PIECEWISE`` (0.11.1–0.14.1
                                     eagle.py, vllm PR #25109); from 0.16 ``initialize_cudagraph_keys`` maps
                                     FULL or PIECEWISE mixed mode to PIECEWISE ("Eagle only supports PIECEWISE
                                     cudagraphs", 0.16–0.19 eagle.py, 0.20–0.33 llm_base_proposer.py)
                       Model Runner V2 (``init_cudagraph_manager``: 0.22 v1/worker/gpu/spec_decode/eagle/
                       speculator.py, 0.25–0.29 autoregressive/speculator.py, 0.33 target_dependent_ar/
                       speculator.py; EAGLE and MTP speculators alike): the draft steps after the first run FULL graphs
                       (FULL_DECODE_ONLY) when the target's decode mode is FULL, else none; the first draft step
                       dispatches like the target.  V2 is opt-in (VLLM_USE_V2_MODEL_RUNNER, default 0) up to
                       0.21; the default for EAGLE/EAGLE-3/MTP (config/vllm.py ``use_v2_model_runner``,
                       ``_is_default_v2_model_runner_model``) for: 0.22 Qwen3ForCausalLM, 0.23 also
                       Llama/MistralForCausalLM (both unquantised, non-MoE only); 0.24 a list of six
                       architectures; 0.25–0.28 every non-MoE model plus a few listed MoE architectures
                       (hybrid models excluded unless listed: 0.25–0.26 always); every model from 0.29
                       A draft model (STANDALONE) runs the V1 runner (PIECEWISE drafter) up to 0.30, Model
                       Runner V2 from 0.31 (``DRAFT_MODEL_V2_FIRST``), whose draft-model speculator captures no
                       graph before 0.34 (eager) and FULL draft decodes from 0.34 (``DRAFT_MODEL_V2_GRAPHS``).
                       0.34.0 has no V1 runner at all (``v1/worker/gpu_model_runner.py`` and ``v1/spec_decode``
                       gone); the V1 facts below stop at 0.33
    proposer loop      ``EagleProposer.propose`` (v1/spec_decode/eagle.py) runs every draft step after the first
                       from a Python loop whose bookkeeping is one eager torch op each: 0.8.3–0.8.4 positions += 1,
                       seq_lens += 1, // block_size, block_table.gather, *, %, + (7); 0.8.5 adds the max-model-len
                       guard (>=, torch.where, two masked_fill_: 11); 0.9.0–0.17.x add the int cast of the
                       previous draft token and the three copies into the CUDA-graph input buffers (15; read in
                       0.9.0, 0.9.2, 0.14.1, 0.17.0).  From 0.18.0 the positions/slot-mapping/seq_lens update is
                       one triton kernel (``eagle_step_update_slot_mapping_and_metadata``): 4 ops a step (the int
                       cast, that kernel, the input-id and hidden-state copies; read 0.18.0, 0.19.1, 0.20.0,
                       0.21.0, 0.26.0, 0.33.0; helper sp34b).  Every V1 release also calls
                       ``self.model.compute_logits`` and ``argmax`` after the draft forward, outside its graph:
                       the lm_head GEMM, the argmax and, for EAGLE-3 heads with a reduced draft vocabulary, the
                       draft→target remap of ``Eagle3LlamaForCausalLM.compute_logits`` (llama_eagle3.py, every
                       release read 0.8.5–0.33: arange, + d2t, new_full(-inf) over the target vocab, index_put)
                       are launched from Python.  A draft step takes max(GPU work, these launches) where
                       the drafter starts after a host sync (up to 0.11.0); from 0.11.1 the drafter is
                       launched with no blocking CPU operation after the verify, so the launches run while the
                       GPU is still on the verify and only what outlasts it counts (``DRAFTER_QUEUED``)
"""

from __future__ import annotations

from tpkit.perf.fa2_verify import fa2_verify_without_split
from tpkit.perf.triton_verify import triton_verify_without_split
from tpkit.perf.flashinfer_spec import flashinfer_spec_piecewise
from tpkit.perf.mla_splits import HEURISTIC_FROM, verify_rows_per_token

__all__ = ["SPARSE_CUSTOM", "VLLM_SPARSE_FIRST", "VLLM_SPARSE_SM120_FIRST"]

VLLM_SPARSE_FIRST = (0, 11, 0)
"""first vLLM release with a sparse-MLA backend (``flashmla_sparse.py``; DeepSeek-V3.2's indexer cache)"""
VLLM_SPARSE_SM120_FIRST = (0, 24, 0)
"""first vLLM release with a sparse-MLA backend for SM12x (``flashinfer_mla_sparse_sm120.py``; platforms/cuda.py
lists ``FLASHINFER_MLA_SPARSE_SM120`` for major 12); before it FLASHMLA_SPARSE (SM9x/SM10x) and, from 0.17,
FLASHINFER_MLA_SPARSE (SM10x) are the only ones"""


_V2_METHODS = ("EAGLE", "EAGLE3", "NEXTN", "MTP")

DRAFT_MODEL_ASYNC_FIRST = (0, 28, 0)
"""first vLLM release whose async scheduling stays on by default with a draft model (``--speculative-config``
method ``draft_model``, tpkit STANDALONE) (helper perf17): config/vllm.py, the ``async_scheduling is None`` branch,
disables it for a method not in EagleModelTypes / NgramGPUTypes and not dspark in 0.16.0–0.27.0 (read 0.16.0,
0.27.0: draft_model is only in the explicit-flag branch's allowed list), adds ``!= "draft_model"`` in 0.28.0
(read 0.28.0–0.32.0), 0.33.0 names it in ``v1_async_sched_incompat``'s allowed tuple, 0.34.0 has no V1-runner
incompatibility at all (only pooling, the executor, ROCm DeepEP HT DBO turn it off)"""

DRAFT_MODEL_V2_FIRST = (0, 31, 0)
"""first vLLM release whose default runner for a draft model is Model Runner V2 (helper perf17; plan's
``engines.vllm.speculative._V2_UNSUPPORTED_SPEC``): ``_get_v2_model_runner_unsupported_features`` lists
draft_model in 0.29.0 (every method but eagle, eagle3, mtp, dflash, dspark, extract_hidden_states) and 0.30.0,
not in 0.31.0–0.33.0; 0.34.0 has no V1 runner (``gpu_model_runner.py`` gone)"""

DRAFT_MODEL_V2_GRAPHS = (0, 34, 0)
"""first vLLM release whose Model Runner V2 draft-model speculator captures CUDA graphs (helper perf17):
0.31.0 ``draft_model/speculator.py`` ``PlainDraftModelSpeculator.init_cudagraph_manager`` and 0.32.0–0.33.0
``standalone_ar/speculator.py`` ``StandaloneARSpeculator.init_cudagraph_manager`` are ``pass`` ("CUDA graph not yet
supported"): every draft forward is launched from Python.  0.34.0 ``StandaloneARSpeculator`` derives from
``autoregressive/speculator.py`` ``AutoRegressiveSpeculator``: its expanded first step gets a graph manager in the
target's cudagraph mode, and the later one-token steps FULL_DECODE_ONLY when the target's decode mode is FULL
(else none), as the EAGLE/MTP speculators already did"""


DRAFTER_QUEUED = (0, 11, 1)
"""first vLLM release whose V1 model runner launches the EAGLE drafter straight after sampling with no blocking CPU
operation before it (helper be11, 2026-12-05).  ``gpu_model_runner.py`` ``execute_model`` / ``sample_tokens``: with
``use_padded_batch_for_eagle`` (EAGLE, EAGLE-3, MTP unless ``disable_padded_drafter_batch``, default False from
0.11.0) ``propose_draft_token_ids`` takes the GPU's sampled tokens before ``_bookkeeping_sync`` ('EAGLE speculative
decoding can use the GPU sampled tokens as inputs, and does not need to wait for bookkeeping to finish'), and
``EagleProposer.prepare_inputs_padded`` 'No blocking CPU operations should be introduced in this function'.  In
0.11.0 the gate before it, ``input_fits_in_drafter = seq_lens.max() + k <= max_model_len``, reads the GPU tensor
``seq_lens`` in an ``if`` (a device sync: the host waits for the verify); from 0.11.1 it reads the host integer
``max_seq_len`` (read: 0.11.0 sync; 0.11.1, 0.11.2, 0.12.0, 0.13.0, 0.14.0, 0.15.1, 0.17.1 none).  Up to 0.10.x
the drafter always ran after ``_bookkeeping_sync`` (its ``tolist``: read 0.8.5, 0.9.2, 0.10.0, 0.10.2)."""
"""speculative families Model Runner V2 runs (config/vllm.py: eagle, eagle3, mtp; not draft_model / ngram)"""

_V2_ARCHS = {
    (0, 22): frozenset({"Qwen3ForCausalLM"}),
    (0, 23): frozenset({"LlamaForCausalLM", "MistralForCausalLM", "Qwen3ForCausalLM"}),
    (0, 24): frozenset({"Qwen3ForCausalLM", "DeepseekV2ForCausalLM", "Qwen2MoeForCausalLM", "GraniteMoeForCausalLM",
                        "LlamaForCausalLM", "MistralForCausalLM"}),
    (0, 25): frozenset({"DeepseekV2ForCausalLM", "Qwen2MoeForCausalLM", "GraniteMoeForCausalLM"}),
    (0, 26): frozenset({"DeepseekV2ForCausalLM", "GraniteMoeForCausalLM", "InklingForCausalLM",
                        "InklingForConditionalGeneration", "LongcatFlashNgramForCausalLM", "Qwen2MoeForCausalLM"}),
    (0, 27): frozenset({"DeepseekV2ForCausalLM", "GraniteMoeForCausalLM", "InklingForCausalLM",
                        "InklingForConditionalGeneration", "KimiK3ForConditionalGeneration",
                        "LongcatFlashNgramForCausalLM", "Qwen2MoeForCausalLM"}),
    (0, 28): frozenset({"DeepseekV2ForCausalLM", "DeepseekV4ForCausalLM", "GraniteMoeForCausalLM",
                        "InklingForCausalLM", "InklingForConditionalGeneration", "KimiK3ForConditionalGeneration",
                        "LongcatFlashNgramForCausalLM", "Qwen2MoeForCausalLM"}),
}
"""``DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES`` per release (vllm 0.22.0–0.28.0 config/vllm.py; 0.27.1 read for 0.27)"""


def _vllm_runner_v2_default(ver: tuple[int, int, int], architecture: str | None, *, moe: bool, quantized: bool,
                            hybrid: bool) -> bool:
    """Whether vLLM picks Model Runner V2 by default for an EAGLE/EAGLE-3/MTP deployment (``use_v2_model_runner``
    and ``_is_default_v2_model_runner_model``, config/vllm.py): never before 0.22 (VLLM_USE_V2_MODEL_RUNNER
    default 0, 0.14–0.21 envs.py); 0.22–0.23 a listed architecture, not MoE, not quantised; 0.24 a listed
    architecture; 0.25–0.26 a listed architecture or not MoE, never hybrid; 0.27–0.28 the same, hybrid only when
    listed; from 0.29 every model (only unsupported features, none of them modelled here, fall back to V1)."""
    if ver < (0, 22, 0):
        return False
    if ver >= (0, 29, 0):
        return True
    listed = architecture in _V2_ARCHS[ver[:2]]
    if ver < (0, 24, 0):
        return listed and not moe and not quantized
    if ver < (0, 25, 0):
        return listed
    if hybrid and (ver < (0, 27, 0) or not listed):
        return False
    return listed or not moe


def _vllm_async_scheduling(ver: tuple, algorithm: str | None, facts: list[str]) -> tuple[bool, bool]:
    """(plain decoding overlapped, speculation overlapped) under vLLM's async scheduling: the default from 0.14 for
    plain decoding and EAGLE / MTP, off before (``config/vllm.py``); draft-model speculation turns it off by default
    before 0.28 (``DRAFT_MODEL_ASYNC_FIRST``); the fact is said when speculating."""
    spec_ok = algorithm in (None, "EAGLE", "EAGLE3", "NEXTN", "MTP") or (
        algorithm == "STANDALONE" and ver >= DRAFT_MODEL_ASYNC_FIRST)
    plain_overlap = ver >= (0, 14, 0)
    spec_overlap = plain_overlap and spec_ok
    if algorithm is not None:
        facts.append("async scheduling " + ("on" if spec_overlap else "off") + (
            (" (default from 0.14 for plain decoding and EAGLE/MTP, from 0.28 for draft_model)"
             if algorithm == "STANDALONE" else " (default from 0.14 for plain decoding and EAGLE/MTP)")
            if plain_overlap else " (off by default before 0.14, config/vllm.py)") + (
            "; draft_model speculation disables it before 0.28" if plain_overlap and not spec_ok else ""))
    return plain_overlap, spec_overlap


def _vllm_runner_v2(ver: tuple[int, int, int], algorithm: str | None, architecture: str | None, *, moe: bool,
                    quantized: bool, hybrid: bool) -> bool:
    """Whether the speculative deployment runs on Model Runner V2: EAGLE/EAGLE-3/MTP per
    ``_vllm_runner_v2_default``; a draft model (STANDALONE) from 0.31 (``DRAFT_MODEL_V2_FIRST``); from 0.34 there
    is no other runner (``gpu_model_runner.py`` gone)."""
    if algorithm in _V2_METHODS:
        return _vllm_runner_v2_default(ver, architecture, moe=moe, quantized=quantized, hybrid=hybrid)
    return algorithm == "STANDALONE" and ver >= DRAFT_MODEL_V2_FIRST


def _vllm_draft_graph(ver: tuple[int, int, int], target: str, runner_v2: bool, algorithm: str | None = None) -> str:
    """The graph mode of vLLM's draft steps (module docstring, 'graphs'): V1 runner eager < 0.9, piecewise
    0.9.0–0.10.0, eager 0.10.1–0.11.0 (no runtime mode passed after the dispatcher), piecewise from 0.11.1 even
    when the target runs FULL_AND_PIECEWISE; Model Runner V2 full when the target's decode graphs are full, except
    its draft-model speculator before 0.34, which captures none (``DRAFT_MODEL_V2_GRAPHS``)."""
    if runner_v2:
        if algorithm == "STANDALONE" and ver < DRAFT_MODEL_V2_GRAPHS:
            return "eager"
        return "full" if target == "full" else "eager"
    if ver < (0, 9, 0) or (0, 10, 1) <= ver < (0, 11, 1):
        return "eager"
    return "piecewise"


def _vllm(ver, backend, mla, topk, algorithm, *, runner_v2: bool = False, cc: tuple[int, int] | None = None,
          query_tokens: int = 2, draft_backend: str = "", hybrid: bool = False) -> dict:
    """The vLLM facts for one deployment (``perf.runtime.runtime_for``): graph modes, the verify's attention, the
    draft steps and the host overlap, each step appending its sourced lines to ``facts`` in this order.  ``hybrid``:
    the model has linear-attention / mamba layers (``perf.spec_sync``)."""
    facts = [f"attention backend {backend} (vllm platforms/cuda.py backend priorities filtered by compute capability)"]
    graph, verify_graph, spec_graph, prefill = _vllm_graph_modes(ver, backend, mla, algorithm, cc, facts,
                                                                 draft_backend)
    rows = verify_rows_per_token("vllm", backend, ver, mla=mla, speculative=algorithm is not None, prefill=prefill)
    if rows:
        facts.append("TRITON_MLA from 0.31 runs the verify's 1 + k query tokens as 1 + k decode rows, each reading "
                     "the request's whole cached latent (triton_mla.py forward_mqa: block_table.repeat_interleave; "
                     "perf.mla_splits)")
    split = _vllm_verify_split(ver, backend, algorithm, cc, query_tokens, facts)
    draft_split = _vllm_draft_split(ver, algorithm, cc, query_tokens, draft_backend, facts)
    plain_overlap, spec_overlap = _vllm_async_scheduling(ver, algorithm, facts)
    draft = _vllm_draft_graph(ver, spec_graph, runner_v2, algorithm)
    _vllm_draft_graph_fact(ver, algorithm, runner_v2, draft, spec_graph, facts)
    loop, queued = _draft_loop(ver, algorithm, runner_v2, facts, hybrid=hybrid)
    return dict(plain_overlap=plain_overlap, spec_overlap=spec_overlap, verify_split_kv=split,
                verify_mla_prefill=prefill and mla, target_graph=graph, verify_graph=verify_graph, draft_graph=draft,
                extend_graph="piecewise" if prefill and draft == "full" else draft, facts=tuple(facts),
                draft_loop_kernels=loop, draft_logits_eager=bool(loop), drafter_queued=queued,
                verify_rows_per_token=rows, draft_backend=draft_backend if algorithm is not None else "",
                draft_split_kv=draft_split)


def _vllm_graph_modes(ver, backend, mla, algorithm, cc, facts: list[str],
                      draft_backend: str = "") -> tuple[str, str, str, bool]:
    """(plain decode graph, verify graph, the speculative server's decode graph, verify takes the MLA prefill path):
    the release's default graph mode, FlashInfer below SM 9.0 under speculation (the target's backend or the
    drafter's own, ``perf.spec_sync.drafter_forces_piecewise``) and the MLA backends' limits."""
    graph = "full" if ver >= (0, 11, 0) else "piecewise"
    if graph == "piecewise":
        facts.append("PIECEWISE CUDA graphs before 0.11 (FULL_AND_PIECEWISE default from 0.11): attention eager "
                     "between graph pieces")
    verify_graph, prefill = graph, False
    spec_graph = graph          # the speculative server's decode mode (the plain server keeps ``graph``)
    if graph == "full" and flashinfer_spec_piecewise(backend, cc, ver, algorithm):
        verify_graph = spec_graph = "piecewise"
        facts.append("FLASHINFER below SM 9.0 declares full CUDA graphs for single-token decode only (UNIFORM_SINGLE_"
                     "TOKEN_DECODE, flashinfer.py get_cudagraph_support, 0.11–0.32): with speculative decoding vLLM "
                     "sets cudagraph_mode=PIECEWISE ('not supported with spec-decode', config/compilation.py), so "
                     "the verify runs every layer's attention eagerly between graph pieces")
    elif graph == "full" and draft_backend and algorithm is not None:   # the drafter's own backend (speculation only)
        from tpkit.perf.spec_sync import DRAFTER_PIECEWISE_FACT, drafter_forces_piecewise
        if drafter_forces_piecewise(draft_backend, cc, ver, algorithm):
            verify_graph = spec_graph = "piecewise"
            facts.append(DRAFTER_PIECEWISE_FACT)
    if backend == "TRITON_MLA":
        if ver < (0, 22, 0):
            graph = verify_graph = "piecewise"
            facts.append("TRITON_MLA has no full-CUDA-graph support before 0.22 (_cudagraph_support NEVER → "
                         "cudagraph_mode PIECEWISE)")
        if ver < (0, 31, 0) and algorithm is not None:
            verify_graph, prefill = "piecewise", True
            facts.append("TRITON_MLA before 0.31 supports single-token decode queries only: the verify batch "
                         "(1 + k tokens per request) takes the MLA prefill path, which up-projects every cached "
                         "latent to per-head K/V in every layer (mla_attention.py _compute_prefill_context)")
    if backend == "TRITON_MLA" and mla:
        facts.append("TRITON_MLA decode splits each row's KV " + ("into next_power_of_2(seq_len / 512) ≤ 2 × SMs parts"
                     if ver >= HEURISTIC_FROM else "into 4 parts") + "; the fp32 partial outputs (kv_lora_rank + 1 "
                     "per row, head and split) are written and read back between its two kernels (triton_mla.py "
                     "forward_mqa, perf.mla_splits)")
    if backend == "CUTLASS_MLA" and mla and algorithm is not None:
        verify_graph, prefill = "piecewise", True
        facts.append("CUTLASS_MLA takes single-token decode queries only in every release read (reorder_batch_"
                     "threshold 1, query_len_support SINGLE_ONLY from 0.13; graphs UNIFORM_SINGLE_TOKEN_DECODE, "
                     "cutlass_mla.py 0.10.2–0.33): the verify batch takes the MLA prefill path under piecewise graphs")
    return graph, verify_graph, spec_graph, prefill


def _vllm_verify_split(ver, backend, algorithm, cc, query_tokens: int, facts: list[str]) -> bool:
    """The verify's attention splits each request's KV over several blocks (False: FlashAttention 2 or Triton
    unified attention with more query tokens than they split for)."""
    split = not (algorithm is not None and _no_split(backend, cc, ver, query_tokens))
    if not split and backend == "FLASH_ATTN":
        facts.append("FLASH_ATTN runs FlashAttention 2 on this GPU (fa_utils.py get_flash_attn_version), which splits "
                     "the KV only for one query token per request (vllm-flash-attn flash_api.cpp mha_varlen_fwd: "
                     "'Only apply split-k for decoding'): the verify and the drafter's first step stream each "
                     "request's whole cache through one block per query head (perf.fa2_verify)")
    elif not split:
        facts.append("TRITON_ATTN (Triton unified attention) splits the KV only for one query token per request "
                     + ("before 0.33" if ver < (0, 33, 0) else "or up to 8 (MAX_3D_QUERY_LEN)")
                     + " (triton_unified_attention.py unified_attention: max_seqlen_q > 1 takes the 2D kernel): the "
                     "verify streams each request's whole cache through one program per (query block, KV head) "
                     "(perf.triton_verify)")
    return split


def _vllm_draft_split(ver, algorithm, cc, query_tokens: int, draft_backend: str, facts: list[str]) -> bool:
    """The drafter's first step splits the KV on its own backend (``draft_backend``, where it does not inherit the
    target's forced one); True when it inherits."""
    if algorithm is None or not draft_backend:
        return True
    draft_split = not _no_split(draft_backend, cc, ver, query_tokens)
    facts.append(f"the drafter does not inherit the forced backend: it runs {draft_backend}, vLLM's own choice "
                 "(v1/spec_decode/llm_base_proposer.py _create_draft_vllm_config, 0.21–0.33: 'Never inherit the "
                 "attention backend from base'; perf.triton_verify)"
                 + ("" if draft_split else ", whose first step (1 + k tokens) reads the KV without a split"))
    return draft_split


def _vllm_draft_graph_fact(ver, algorithm, runner_v2: bool, draft: str, spec_graph: str, facts: list[str]) -> None:
    """The sourced line for the draft steps' graph mode (``_vllm_draft_graph``), if speculation runs."""
    if algorithm is None:
        return
    if runner_v2 and algorithm == "STANDALONE" and ver < DRAFT_MODEL_V2_GRAPHS:
        facts.append("Model Runner V2 (the default for a draft model from 0.31): its draft-model speculator "
                     "captures no CUDA graph before 0.34 (draft_model / standalone_ar speculator.py "
                     "init_cudagraph_manager: 'CUDA graph not yet supported'): every draft forward is eager")
    elif runner_v2:
        facts.append("Model Runner V2 (the default for this model and method in this release): draft steps "
                     + ("under FULL CUDA graphs" if draft == "full" else "without CUDA graph (no full decode "
                        "graphs for the target)")
                     + " (v1/worker/gpu/spec_decode speculator init_cudagraph_manager)")
    elif ver < (0, 9, 0):
        facts.append("the EAGLE proposer runs without CUDA graph before 0.9 (vllm PR #17211/#17504)")
    elif draft == "eager":
        facts.append("the EAGLE proposer runs without CUDA graph in 0.10.1–0.11.0: it sets no cudagraph runtime "
                     "mode after the CUDA-graph dispatcher (vllm PR #20059; restored as PIECEWISE by PR #25109)")
    elif spec_graph == "full":
        facts.append("the drafter runs PIECEWISE CUDA graphs only (v1/spec_decode EagleProposer: 'Eagle only "
                     "supports PIECEWISE cudagraphs'), attention eager between pieces, while the target runs "
                     "FULL graphs")


def _no_split(backend: str, cc, ver: tuple, query_tokens: int) -> bool:
    """A pass of ``query_tokens`` > 1 per request reads the KV without a split on ``backend``: FlashAttention 2
    (``perf.fa2_verify``) or Triton unified attention (``perf.triton_verify``)."""
    return fa2_verify_without_split(backend, cc) or triton_verify_without_split(backend, ver, query_tokens)


def _drafter_queued(ver: tuple, algorithm: str | None, runner_v2: bool, facts: list[str], *,
                    hybrid: bool = False) -> bool:
    """The V1 runner launches the EAGLE-family drafter with no blocking CPU operation after the verify
    (``DRAFTER_QUEUED``), except for a hybrid model whose accepted counts are copied with a blocking ``.cpu()``
    before it (``perf.spec_sync.hybrid_copy_blocks_drafter``, 0.10.2–0.16.x); Model Runner V2 is not read for it
    (its draft steps launch no eager work here)."""
    if hybrid and algorithm is not None:        # speculation on a hybrid model only: keeps plain perf's imports
        from tpkit.perf.spec_sync import HYBRID_COPY_FACT, hybrid_copy_blocks_drafter
        if hybrid_copy_blocks_drafter(ver, algorithm, hybrid=hybrid, runner_v2=runner_v2):
            facts.append(HYBRID_COPY_FACT)
            return False
    queued = algorithm in _V2_METHODS and ver >= DRAFTER_QUEUED and not runner_v2
    if queued:
        facts.append("the drafter is launched straight after sampling with no blocking CPU operation (gpu_model_"
                     "runner.py: padded drafter batch before _bookkeeping_sync, from 0.11.1): its launches overlap "
                     "the verify on the GPU")
    return queued


SPARSE_CUSTOM = "sparse MLA (not in this release for this GPU)"
"""the backend label of a DeepSeek-sparse-attention model on vLLM where the release has no sparse-MLA backend for the
GPU: the engine refuses the model there, so a build carrying its own sparse backend is assumed"""


def _vllm_sparse_backend(cc: tuple[int, int], ver: tuple[int, int, int]) -> str:
    """vLLM's sparse-MLA backend for a DeepSeek-sparse-attention model (platforms/cuda.py ``_get_backend_priorities``
    filtered by ``is_sparse`` and ``supports_compute_capability``): FLASHMLA_SPARSE on SM9x/SM10x from 0.11.0 (the
    only one 0.11–0.16; FLASHINFER_MLA_SPARSE, SM10x only, ahead of it for fp8 KV from 0.17); on SM12x
    FLASHINFER_MLA_SPARSE_SM120 from 0.24.0 and nothing before (0.20.2 lists FLASHMLA_SPARSE only, capability
    9/10); nothing on other GPUs.  The fp8-KV choice on SM10x is not made here (no KV dtype is passed): the label
    stays FLASHMLA_SPARSE, and ``_vllm_sparse`` costs every sparse-MLA backend alike, so no figure depends on it."""
    if ver >= VLLM_SPARSE_FIRST and cc[0] in (9, 10):
        return "FLASHMLA_SPARSE"
    if ver >= VLLM_SPARSE_SM120_FIRST and cc[0] == 12:
        return "FLASHINFER_MLA_SPARSE_SM120"
    return SPARSE_CUSTOM


def _vllm_sparse(ver, backend, cc, algorithm, *, runner_v2: bool = False) -> dict:
    """A DeepSeek-sparse-attention (DSA) model on vLLM: a sparse-MLA implementation runs every token decode-style
    (0.11.0–0.33 flashmla_sparse.py: 'the sparse FlashMLA kernels ... use MQA 576/512 approach for both prefill and
    decode'; 0.16–0.25 mla_attention.py ``MLAAttention.forward``: 'Sparse MLA impls only support forward_mqa
    (decode-style attention)'; from 0.26 only a prefill's tokens may take a dense MHA path, ``_use_sparse_mha``),
    each query over the indexer's top-k latents; the sparse metadata
    builders declare ``AttentionCGSupport.UNIFORM_BATCH`` and take a verify as a decode
    (``_init_reorder_batch_threshold(1, supports_spec_as_decode=True)``, flashmla_sparse.py 0.16–0.33, the same in
    flashinfer_mla_sparse.py), so plain decode and the verify run under full CUDA graphs (FULL_AND_PIECEWISE from
    0.11), and the TRITON_MLA rules (piecewise < 0.22, prefill-path verify < 0.31) never apply."""
    facts = [f"DeepSeek sparse attention: vLLM runs it on a sparse-MLA backend only ({backend}); every token, the "
             "verify's included, attends decode-style to the indexer's top-k latents (flashmla_sparse.py: 'MQA 576/512 "
             "approach for both prefill and decode'); full CUDA graphs (UNIFORM_BATCH, spec as decode)"]
    if backend == SPARSE_CUSTOM:
        first = "0.24" if cc[0] == 12 else "no release read"
        facts.append(f"vLLM {'.'.join(map(str, ver))} has no sparse-MLA backend for SM{cc[0]}{cc[1]} (first: "
                     f"{first}; FLASHMLA_SPARSE needs SM9x/SM10x) and refuses the model there: a build with its own "
                     "sparse backend is assumed, costed as the stock sparse backends run")
    if ver < VLLM_SPARSE_FIRST:
        facts.append("no sparse-MLA backend before vLLM 0.11.0 (flashmla_sparse.py first in 0.11.0): costed as 0.11")
    graph = "full"
    plain_overlap, spec_overlap = _vllm_async_scheduling(ver, algorithm, facts)
    draft = _vllm_draft_graph(ver, graph, runner_v2, algorithm)
    loop, queued = _draft_loop(ver, algorithm, runner_v2, facts)
    return dict(plain_overlap=plain_overlap, spec_overlap=spec_overlap, verify_split_kv=True,
                verify_mla_prefill=False, target_graph=graph, verify_graph=graph, draft_graph=draft,
                extend_graph=draft, facts=tuple(facts), draft_loop_kernels=loop, draft_logits_eager=bool(loop),
                sparse_mla=True, drafter_queued=queued)


PROPOSER_LOOP_FUSED = 4
"""eager ops per draft step of vLLM's V1 proposer loop from 0.18.0 (helper sp34b): ``draft_token_ids_list[-1].int()``,
``eagle_step_update_slot_mapping_and_metadata`` (one triton kernel; from 0.21 inside
``_update_positions_dependent_metadata``), ``self.input_ids[:batch_size] = input_ids`` and ``self.hidden_states[
:batch_size] = hidden_states`` — v1/spec_decode/eagle.py ``EagleProposer.propose`` in 0.18.0 / 0.19.1,
llm_base_proposer.py ``SpecDecodeBaseProposer.propose`` in 0.20.0, 0.21.0, 0.26.0, 0.33.0.  After them each step
calls ``_greedy_sample`` (read 0.18.0–0.21.0) / ``_sample_draft_tokens`` (read 0.26.0, 0.33.0): ``self.model.compute_logits(...)
.argmax(-1)``, outside the PIECEWISE graph of the draft forward (``Runtime.draft_logits_eager``)."""


def _draft_loop(ver: tuple, algorithm: str | None, runner_v2: bool, facts: list[str], *,
                hybrid: bool = False) -> tuple[int, bool]:
    """(eager ops per draft step of the proposer loop, the drafter is launched with no blocking CPU operation), with
    their facts: one home for the dense and the sparse-MLA paths (``_vllm``, ``_vllm_sparse``; the proposer loop is
    the same ``EagleProposer.propose`` whatever the target's attention)."""
    loop = _proposer_loop_kernels(ver) if algorithm is not None and not runner_v2 else 0
    queued = _drafter_queued(ver, algorithm, runner_v2, facts, hybrid=hybrid)
    if loop:
        facts.append(f"the proposer launches {loop} bookkeeping ops per draft step and the draft's lm_head/argmax "
                     + ("and EAGLE-3 vocab remap " if algorithm == "EAGLE3" else "")
                     + "from Python, outside its graph (v1/spec_decode/eagle.py, from 0.20 llm_base_proposer.py, "
                     "propose loop; llama_eagle3.py compute_logits): "
                     + ("issued while the GPU runs the verify" if queued else "a small draft step waits for them"))
    return loop, queued


def _proposer_loop_kernels(ver: tuple[int, int, int]) -> int:
    """Eager torch ops of one pass of vLLM's V1 ``propose`` draft loop (see module docstring): 7 before 0.8.5, 11 in
    0.8.5, 15 in 0.9.0–0.17.x; from 0.18.0 ``PROPOSER_LOOP_FUSED`` (the fused triton update, the int cast of the
    previous draft token and the two copies into the graph's input buffers; helper sp34b, round sp34b: before it
    the loop was taken as free from 0.18, and the lm_head / argmax / remap that every V1 release still launches
    from Python after each draft forward were left out with it).  Model Runner V2 runs no such loop (0)."""
    if ver >= (0, 18, 0):
        return PROPOSER_LOOP_FUSED
    if ver >= (0, 9, 0):
        return 15
    return 11 if ver >= (0, 8, 5) else 7
