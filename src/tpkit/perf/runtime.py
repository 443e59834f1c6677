"""How an engine version runs the passes of a decode step on one GPU architecture (pure engine facts).

    in:  engine, engine version (None = the newest tpkit knows), compute capability, MLA or not, the
         speculative settings, an attention backend override, eager mode
    out: ``Runtime``: the attention backend, whether the host work overlaps the GPU (plain decoding and
         speculation separately), how the verify pass reads the KV cache, and which passes run under
         full CUDA graphs, piecewise graphs or eagerly — each fact with the source file it was read from

Facts read from the engines' own sources (wheels in /work/data/wheels, 2026-12-01):

SGLang
    attention backend  ``_get_default_attn_backend`` (0.5.10 server_args.py; 0.5.23
                       arg_groups/model_override_base.py ``get_default_attn_backend``): MLA → fa3 on SM90,
                       flashinfer on SM100, triton elsewhere (SM120, SM80/86/89); MHA → fa3 on SM90 unless
                       topk > 1, trtllm_mha on SM100 unless topk > 1, else flashinfer
    verify kernel      the triton backend runs target-verify and draft-extend through ``extend_attention_fwd``
                       whose grid is (batch, q heads, ⌈q/BLOCK_M⌉): no split over the KV cache, so one block
                       per (sequence, head) streams the whole context (0.5.10
                       layers/attention/triton_ops/extend_attention.py; 0.5.23
                       kernels/ops/attention/extend_attention.py).  Plain decode uses the split-KV decode kernel.
    overlap            plain decoding: overlap scheduler on by default (since 0.3.x: "--enable-overlap-schedule
                       is deprecated. It is enabled by default now").  EAGLE/EAGLE3/NEXTN/STANDALONE: spec v1
                       (no overlap) up to 0.5.10 (``disable_overlap_schedule = True`` unless SGLANG_ENABLE_SPEC_V2);
                       0.5.11–0.5.12: spec v2 (overlap) by default for topk = 1, v1 for topk > 1; from 0.5.13
                       ``eagle_worker.py`` (v1) is gone: always v2.  The switch per release: ``sglang_spec_v2``
    graphs             target verify and the multi-step draft run as CUDA graphs; the draft extend has its own
                       graph from 0.4.7 (``eagle_draft_extend_cuda_graph_runner.py``: absent in 0.4.6, present
                       in 0.4.7; sglang PR #6606) — before, it ran eagerly

vLLM (V1)
    attention backend  ``_get_backend_priorities`` (0.16/0.20 platforms/cuda.py) filtered by
                       ``supports_compute_capability``: FLASH_ATTN_MLA needs SM90, FLASHMLA SM90/100,
                       FLASHINFER_MLA/CUTLASS_MLA SM100, TRITON_MLA any → on SM120/SM8x an MLA model gets
                       TRITON_MLA; MHA: FLASH_ATTN (FLASHINFER on SM100)
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
                       speculation included, draft_model (STANDALONE) excluded
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
    proposer loop      ``EagleProposer.propose`` (v1/spec_decode/eagle.py) runs every draft step after the first
                       from a Python loop whose bookkeeping is one eager torch op each: 0.8.3–0.8.4 positions += 1,
                       seq_lens += 1, // block_size, block_table.gather, *, %, + (7); 0.8.5 adds the max-model-len
                       guard (>=, torch.where, two masked_fill_: 11); 0.9.0–0.17.x add the int cast of the
                       previous draft token and the three copies into the CUDA-graph input buffers (15; read in
                       0.9.0, 0.9.2, 0.14.1, 0.17.0).  From 0.18.0 the positions/slot-mapping/seq_lens update is
                       one triton kernel (``eagle_step_update_slot_mapping_and_metadata``) and the loop's few
                       remaining launches are not modelled.  Before 0.18 every step also calls
                       ``self.model.compute_logits`` and ``argmax`` after the draft forward, outside its graph:
                       the lm_head GEMM, the argmax and, for EAGLE-3 heads with a reduced draft vocabulary, the
                       draft→target remap of ``Eagle3LlamaForCausalLM.compute_logits`` (llama_eagle3.py, every
                       release read 0.8.5–0.33: arange, + d2t, new_full(-inf) over the target vocab, index_put)
                       are launched from Python.  A draft step takes max(GPU work, these launches)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tpkit.errors import PlanInputError

__all__ = ["Runtime", "runtime_for", "parse_version", "sglang_spec_v2", "NEWEST", "ATTENTION_BACKENDS"]

NEWEST = {"sglang": (0, 5, 23), "vllm": (0, 33, 0)}
OLDEST = {"sglang": (0, 2, 15), "vllm": (0, 2, 0)}
"""the oldest release of each engine tpkit models: ``tpkit plan`` refuses older ones (SGLang: the first rule era,
``engines/sglang/versions.py`` ERAS; vLLM: ``engines/vllm/versions.py`` rules_for_version), and ``tpkit perf``
refuses the same, so the two commands take the same ``--engine-version`` values"""
"""the newest version whose sources tpkit read; ``--engine-version`` omitted means this one"""
_VERSION = re.compile(r"^[vV]?(\d+)\.(\d+)(?:\.(\d+))?(?:\D.*)?$")

ATTENTION_BACKENDS = {
    "sglang": ("fa3", "fa4", "flashinfer", "triton", "trtllm_mha", "trtllm_mla", "flashmla", "cutlass_mla"),
    "vllm": ("FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "FLASH_ATTN_MLA", "FLASHMLA", "FLASHINFER_MLA",
             "CUTLASS_MLA", "TRITON_MLA", "FLASHMLA_SPARSE", "FLASHINFER_MLA_SPARSE", "FLASHINFER_MLA_SPARSE_SM120"),
}
"""``--attention-backend`` values per engine (the engines' own spellings)"""

_MLA_BACKENDS = {"trtllm_mla", "flashmla", "cutlass_mla", "FLASH_ATTN_MLA", "FLASHMLA", "FLASHINFER_MLA",
                 "CUTLASS_MLA", "TRITON_MLA", "FLASHMLA_SPARSE", "FLASHINFER_MLA_SPARSE", "FLASHINFER_MLA_SPARSE_SM120"}
_VLLM_SPARSE_BACKENDS = {"FLASHMLA_SPARSE", "FLASHINFER_MLA_SPARSE", "FLASHINFER_MLA_SPARSE_SM120"}
"""vLLM's sparse-MLA backends (``is_sparse()`` True): the only ones a DeepSeek-sparse-attention model may run, and
they run nothing else (v1/attention/backend.py ``validate_configuration``: ``use_sparse != cls.is_sparse()``)"""
VLLM_SPARSE_FIRST = (0, 11, 0)
"""first vLLM release with a sparse-MLA backend (``flashmla_sparse.py``; DeepSeek-V3.2's indexer cache)"""
VLLM_SPARSE_SM120_FIRST = (0, 24, 0)
"""first vLLM release with a sparse-MLA backend for SM12x (``flashinfer_mla_sparse_sm120.py``; platforms/cuda.py
lists ``FLASHINFER_MLA_SPARSE_SM120`` for major 12); before it FLASHMLA_SPARSE (SM9x/SM10x) and, from 0.17,
FLASHINFER_MLA_SPARSE (SM10x) are the only ones"""


@dataclass(frozen=True, kw_only=True, slots=True)
class Runtime:
    """How one engine version runs plain decoding and a speculative cycle."""

    engine: str
    """``sglang`` or ``vllm``"""
    version: tuple[int, int, int]
    """engine version the facts are for"""
    version_given: bool
    """False: the newest version tpkit knows was assumed"""
    attention_backend: str
    """the attention backend (engine spelling)"""
    plain_overlap: bool
    """the host work of a plain decode step runs while the GPU computes the previous one"""
    spec_overlap: bool
    """the same for a speculative cycle (SGLang spec v2, vLLM async scheduling)"""
    verify_split_kv: bool
    """the verify pass's attention splits each sequence's context over several blocks"""
    verify_mla_prefill: bool
    """the verify pass runs MLA through the prefill path (context up-projected every layer)"""
    target_graph: str
    """plain decode: ``full``, ``piecewise`` (attention eager between graph pieces) or ``eager``"""
    verify_graph: str
    """the verify pass: ``full``, ``piecewise`` or ``eager``"""
    draft_graph: str
    """the draft steps: ``full``, ``piecewise`` or ``eager``"""
    extend_graph: str
    """the draft extend (SGLang) / first draft step on the accepted tokens (vLLM)"""
    facts: tuple[str, ...]
    """one line per fact that shapes the cost here, with its source"""
    draft_loop_kernels: int = 0
    """eager launches of the proposer's Python loop per draft step after the first (vLLM before 0.18; count)"""
    draft_logits_eager: bool = False
    """the draft's lm_head, argmax (and EAGLE-3 vocab remap) are launched from Python after its forward, outside
    its CUDA graph (vLLM before 0.18)"""
    spec_v2: bool | None = None
    """SGLang speculation runs spec v2 (the overlapped draft worker); None: not SGLang speculation"""
    spec_v2_source: str = ""
    """``default`` (the release's choice) or ``flag`` (``--sglang-spec-v2`` / SGLANG_ENABLE_SPEC_V2 given)"""
    draft_skips_last_forward: bool = False
    """SGLang's EAGLE draft loop skips the forward of its last step: the first step's top-k comes from the previous
    draft extend, so a cycle runs num_steps − 1 draft forwards ("We don't need to run the last forward. we get 1
    token from draft prefill and (#spec steps - 1) tokens here": ``eagle_worker.py`` ``draft_forward`` 0.4.3–0.5.12,
    ``eagle_worker_v2.py`` 0.5.4–0.5.23; 0.4.2.post4 runs every step)"""
    sparse_mla: bool = False
    """the attention is DeepSeek sparse attention through a sparse-MLA implementation: every token, the verify's
    included, attends decode-style (MQA over the latents) to the indexer's top-k tokens"""

    @property
    def label(self) -> str:
        v = ".".join(map(str, self.version))
        return f"{self.engine} {v}" + ("" if self.version_given else " (newest known; --engine-version to change)")


def parse_version(text: str | None, engine: str) -> tuple[tuple[int, int, int], bool]:
    """(version, given) from ``0.5.10``, ``v0.21.0``, ``0.5.10.post1``; None → the newest known."""
    if text is None:
        return NEWEST[engine], False
    m = _VERSION.match(str(text).strip())
    if m is None:
        raise PlanInputError(f"--engine-version {text!r} is not a version; give it as MAJOR.MINOR[.PATCH], e.g. "
                             "0.5.10 or 0.21.0")
    version = (int(m[1]), int(m[2]), int(m[3] or 0))
    oldest = OLDEST.get(engine)
    if oldest is not None and version < oldest:
        first = ".".join(map(str, oldest[:2] if oldest[2] == 0 else oldest))
        newest = ".".join(map(str, NEWEST[engine]))
        label = {"sglang": "SGLang", "vllm": "vLLM"}.get(engine, engine)
        raise PlanInputError(f"--engine-version {text}: {label} releases before {first} are not modelled; use "
                             f"{first} or later (latest examined: {newest}), or leave --engine-version out for the "
                             "newest")
    return version, True


def runtime_for(engine: str, version: str | None, *, compute_capability: tuple[int, int] | None, mla: bool,
                topk: int | None, algorithm: str | None, attention_backend: str | None = None,
                eager: bool = False, architecture: str | None = None, moe: bool = False, quantized: bool = False,
                hybrid: bool = False, spec_v2: bool | None = None, sparse: bool = False) -> Runtime:
    """The engine facts for one deployment (see module docstring).  ``architecture`` (``architectures[0]``),
    ``moe``, ``quantized`` (weight quantisation) and ``hybrid`` (linear-attention / mamba layers) pick vLLM's
    default model runner; an unknown architecture counts as not listed.  ``spec_v2``: SGLang's
    SGLANG_ENABLE_SPEC_V2 (None = the release's default; a setting the release cannot run is refused).  ``sparse``:
    the model has DeepSeek sparse attention (an indexer's ``index_topk``; vLLM then runs a sparse-MLA backend)."""
    ver, given = parse_version(version, engine)
    ver = tuple(ver)
    cc = compute_capability or (9, 0)
    vllm_sparse = engine == "vllm" and mla and sparse
    if vllm_sparse:
        backend = attention_backend or _vllm_sparse_backend(cc, ver)
    else:
        backend = attention_backend or _default_backend(engine, cc, mla, topk)
    _check_backend(engine, backend, mla, sparse=vllm_sparse, given=attention_backend is not None)
    if engine == "sglang":
        rt = _sglang(ver, backend, mla, topk, algorithm, spec_v2)
    else:
        if spec_v2 is not None:
            raise PlanInputError("--sglang-spec-v2 is an SGLang setting (SGLANG_ENABLE_SPEC_V2); vLLM has no spec "
                                 "v1/v2 switch: drop it or use --engine sglang")
        v2 = algorithm in _V2_METHODS and _vllm_runner_v2_default(ver, architecture, moe=moe, quantized=quantized,
                                                                   hybrid=hybrid)
        rt = (_vllm_sparse(ver, backend, cc, algorithm, runner_v2=v2) if vllm_sparse
              else _vllm(ver, backend, mla, topk, algorithm, runner_v2=v2))
    if eager:
        rt = {**rt, "target_graph": "eager", "verify_graph": "eager", "draft_graph": "eager", "extend_graph": "eager",
              "facts": rt["facts"] + ("eager mode (SGLang --disable-cuda-graph / vLLM --enforce-eager): every "
                                      "kernel is launched from Python",)}
    return Runtime(engine=engine, version=ver, version_given=given, attention_backend=backend, **rt)


def _default_backend(engine: str, cc: tuple[int, int], mla: bool, topk: int | None) -> str:
    chain = topk is None or topk == 1
    if engine == "sglang":
        if mla:
            return {9: "fa3", 10: "flashinfer"}.get(cc[0], "triton")
        if cc[0] == 9 and chain:
            return "fa3"
        if cc[0] == 10 and chain:
            return "trtllm_mha"
        return "flashinfer"
    if mla:
        return {9: "FLASH_ATTN_MLA", 10: "FLASHINFER_MLA"}.get(cc[0], "TRITON_MLA")
    return "FLASHINFER" if cc[0] == 10 else "FLASH_ATTN"


def _check_backend(engine: str, backend: str, mla: bool, *, sparse: bool = False, given: bool = True) -> None:
    allowed = ATTENTION_BACKENDS[engine]
    if not given:
        return
    if engine == "vllm" and mla and sparse != (backend in _VLLM_SPARSE_BACKENDS):
        need = ", ".join(sorted(_VLLM_SPARSE_BACKENDS)) if sparse else "a dense MLA backend (TRITON_MLA, FLASHMLA, …)"
        raise PlanInputError(f"--attention-backend {backend}: vLLM runs a model "
                             + ("with" if sparse else "without") + " DeepSeek sparse attention (index_topk) only on "
                             f"{'a sparse' if sparse else 'a dense'} MLA backend (v1/attention/backend.py "
                             f"validate_configuration); use {need}, or leave --attention-backend out")
    if backend not in allowed:
        raise PlanInputError(f"--attention-backend {backend!r} is not a {engine} attention backend tpkit models; use "
                             f"one of {', '.join(allowed)}")
    if backend in _MLA_BACKENDS and not mla:
        raise PlanInputError(f"--attention-backend {backend} is an MLA backend but the model has no MLA; use one of "
                             f"{', '.join(b for b in allowed if b not in _MLA_BACKENDS)}")


def _sglang(ver, backend, mla, topk, algorithm, spec_v2=None) -> dict:
    facts = [f"attention backend {backend} (sglang get_default_attn_backend: MLA → fa3 on SM90, flashinfer on "
             "SM100, triton elsewhere)"]
    split = backend != "triton"
    if not split:
        facts.append("triton backend: target verify and draft extend run extend_attention_fwd, grid (batch, heads, "
                     "⌈q/BLOCK_M⌉) with no KV split: one block per (sequence, head) streams the whole context "
                     "(sglang kernels/ops/attention/extend_attention.py)")
    v2, source = None, ""
    if algorithm is not None:
        v2, why = sglang_spec_v2(ver, topk, algorithm, spec_v2)
        source = "default" if spec_v2 is None else "flag"
        facts.append(why)
    spec_overlap = bool(v2)
    extend = "full" if ver >= (0, 4, 7) else "eager"
    if algorithm is not None and extend == "eager":
        facts.append("draft extend without CUDA graph before 0.4.7 (eagle_draft_extend_cuda_graph_runner.py first "
                     "in 0.4.7)")
    skips = ver >= SKIP_LAST_DRAFT_FORWARD
    if algorithm is not None and skips:
        facts.append("num_steps − 1 draft forwards per cycle: the last step's forward is skipped, its top-k coming "
                     "from the draft extend (eagle_worker draft_forward, from 0.4.3)")
    return dict(plain_overlap=True, spec_overlap=spec_overlap, verify_split_kv=split, verify_mla_prefill=False,
                target_graph="full", verify_graph="full", draft_graph="full", extend_graph=extend, facts=tuple(facts),
                spec_v2=v2, spec_v2_source=source, draft_skips_last_forward=skips)


SKIP_LAST_DRAFT_FORWARD = (0, 4, 3)
"""first SGLang release whose EAGLE draft loop skips its last forward (``Runtime.draft_skips_last_forward``)"""


SPEC_V2_FLAG = "SGLANG_ENABLE_SPEC_V2=1"
"""the environment setting that asks SGLang 0.5.5–0.5.10 for spec v2"""
SPEC_V2_FIRST = (0, 5, 4)
"""first SGLang release with the overlapped EAGLE worker (``eagle_worker_v2.py`` first in the 0.5.4 wheel)"""
SPEC_V2_DEFAULT = (0, 5, 11)
"""first release where spec v2 is the default (0.5.11 environ.py ``SGLANG_ENABLE_SPEC_V2 = EnvBool(True)``)"""
SPEC_V2_ONLY = (0, 5, 13)
"""first release without the spec-v1 worker (``eagle_worker.py`` absent from the 0.5.13 wheel)"""


def sglang_spec_v2(ver: tuple[int, int, int], topk: int | None, algorithm: str,
                   requested: bool | None) -> tuple[bool, str]:
    """Whether SGLang runs speculation as spec v2 (the overlapped draft worker) or spec v1 (overlap scheduler
    off), and why; ``requested``: SGLANG_ENABLE_SPEC_V2 as set (None = unset).  Raises ``PlanInputError`` for a
    setting the release cannot run.  Read in the released wheels (server_args.py ``_handle_speculative_decoding``
    or its predecessor, environ.py, speculative/spec_info.py, managers/scheduler.py):

    < 0.5.4        no v2 worker: v1 only
    0.5.4          CLI flag ``--enable-beta-spec`` (there is no variable yet): overlap kept, the scheduler builds
                   ``EAGLEWorkerV2`` for EAGLE/EAGLE3 (NEXTN is EAGLE); STANDALONE has no v2 worker; no topk check
    0.5.5–0.5.6    SGLANG_ENABLE_SPEC_V2 (environ.py EnvBool(False): 1/true/yes/y on, 0/false/no/n off) replaces
                   the flag, same support (``_create_eagle_worker``: EAGLE and EAGLE3 take ``enable_overlap``)
    0.5.7          EAGLE/EAGLE3 only; ``ValueError('Spec v2 currently only supports topk = 1 …')`` for topk > 1;
                   STANDALONE with the variable set silently stays v1 (refused here: v2 cannot run)
    0.5.8–0.5.10   EAGLE/EAGLE3/STANDALONE (``standalone_worker_v2.py``); the same topk > 1 ValueError
    0.5.11–0.5.12  default on (EnvBool(True)); topk > 1 falls back to v1 ("spec v2 currently only supports
                   topk = 1"), SGLANG_ENABLE_SPEC_V2=0/False (or ``--disable-overlap-schedule``) → v1
    ≥ 0.5.13       ``create_worker`` always returns the V2 workers (any topk); the variable is no longer read,
                   so v1 cannot be asked for (``--disable-overlap-schedule`` drives the v2 worker synchronously,
                   not modelled)

    DP attention and the attention backend do not enter the choice in any of these releases (no check on them
    next to the variable); what v2 changes in the perf model is the overlap of the cycle's host work (the
    draft extend runs num_steps + 1 tokens under its own CUDA graph in both)."""
    chain = topk is None or topk == 1
    name = "SGLANG_ENABLE_SPEC_V2" if ver >= (0, 5, 5) else "--enable-beta-spec"
    if ver >= SPEC_V2_ONLY:
        if requested is False:
            raise PlanInputError("--sglang-spec-v2 off: SGLang 0.5.13 and later have no spec v1 worker "
                                 "(eagle_worker.py removed; SGLANG_ENABLE_SPEC_V2 is no longer read); drop the flag "
                                 "or give --engine-version 0.5.12 or older")
        return True, ("spec v2 (overlap scheduling) for every EAGLE-family setting from 0.5.13 (spec_info.py "
                      "create_worker: V2 workers only)" + (" — as asked" if requested else ""))
    if ver >= SPEC_V2_DEFAULT:
        if requested is False:
            return False, ("spec v1 (no overlap): SGLANG_ENABLE_SPEC_V2=0 given (--sglang-spec-v2 off); "
                           "0.5.11–0.5.12 default to v2 for topk 1")
        if not chain:
            if requested:
                raise PlanInputError(f"--sglang-spec-v2 on with --speculative-eagle-topk {topk}: SGLang "
                                     "0.5.11–0.5.12 run spec v2 for topk 1 only and fall back to v1 for topk > 1 "
                                     "(server_args.py: 'spec v2 currently only supports topk = 1'); use topk 1, drop "
                                     "the flag, or --engine-version 0.5.13 or newer")
            return False, ("topk > 1 falls back to spec v1 without overlap in 0.5.11–0.5.12 (server_args.py: 'spec "
                           "v2 currently only supports topk = 1')")
        how = ("as asked (SGLANG_ENABLE_SPEC_V2=1, also the default)" if requested else
               "by default for topk 1 in 0.5.11–0.5.12 (environ.py SGLANG_ENABLE_SPEC_V2 default True)")
        return True, "spec v2 (overlap) " + how
    v1 = ("spec v1: speculative decoding turns the overlap scheduler off up to 0.5.10 (server_args.py "
          f"disable_overlap_schedule = True unless {name})")
    if ver < SPEC_V2_FIRST and not requested:
        return False, ("spec v1: speculative decoding turns the overlap scheduler off (server_args.py "
                       "disable_overlap_schedule = True; no spec v2 worker before 0.5.4)")
    if not requested:
        return False, v1 + (" — as asked" if requested is False else "")
    if ver < SPEC_V2_FIRST:
        raise PlanInputError(f"--sglang-spec-v2 on: SGLang {'.'.join(map(str, ver))} has no spec v2 worker "
                             "(eagle_worker_v2.py first in 0.5.4); drop the flag or give --engine-version 0.5.4 or "
                             "newer")
    if algorithm == "STANDALONE" and ver < (0, 5, 8):
        raise PlanInputError("--sglang-spec-v2 on with STANDALONE: SGLang before 0.5.8 has no spec v2 worker for a "
                             "standalone draft (standalone_worker_v2.py first in 0.5.8); drop the flag or give "
                             "--engine-version 0.5.8 or newer")
    if not chain and ver >= (0, 5, 7):
        raise PlanInputError(f"--sglang-spec-v2 on with --speculative-eagle-topk {topk}: SGLang 0.5.7–0.5.10 refuse "
                             "spec v2 for topk > 1 (server_args.py: 'Spec v2 currently only supports topk = 1'); "
                             "use topk 1 or drop the flag")
    return True, (f"spec v2 (overlap scheduling) as asked ({name}"
                  + ("=1" if name.startswith("SGLANG") else "") + "; the release's default is v1, "
                  "server_args.py keeps the overlap scheduler only with it)")


_V2_METHODS = ("EAGLE", "EAGLE3", "NEXTN", "MTP")
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
    plain decoding and EAGLE / MTP, off before (``config/vllm.py``), off for draft-model speculation; the fact is
    said when speculating."""
    spec_ok = algorithm in (None, "EAGLE", "EAGLE3", "NEXTN", "MTP")
    plain_overlap = ver >= (0, 14, 0)
    spec_overlap = plain_overlap and spec_ok
    if algorithm is not None:
        facts.append("async scheduling " + ("on" if spec_overlap else "off") + (
            " (default from 0.14 for plain decoding and EAGLE/MTP)" if plain_overlap else
            " (off by default before 0.14, config/vllm.py)") + (
            "; draft_model speculation disables it" if plain_overlap and not spec_ok else ""))
    return plain_overlap, spec_overlap


def _vllm_draft_graph(ver: tuple[int, int, int], target: str, runner_v2: bool) -> str:
    """The graph mode of vLLM's draft steps (module docstring, 'graphs'): V1 runner eager < 0.9, piecewise
    0.9.0–0.10.0, eager 0.10.1–0.11.0 (no runtime mode passed after the dispatcher), piecewise from 0.11.1 even
    when the target runs FULL_AND_PIECEWISE; Model Runner V2 full when the target's decode graphs are full."""
    if runner_v2:
        return "full" if target == "full" else "eager"
    if ver < (0, 9, 0) or (0, 10, 1) <= ver < (0, 11, 1):
        return "eager"
    return "piecewise"


def _vllm(ver, backend, mla, topk, algorithm, *, runner_v2: bool = False) -> dict:
    facts = [f"attention backend {backend} (vllm platforms/cuda.py backend priorities filtered by compute capability)"]
    graph = "full" if ver >= (0, 11, 0) else "piecewise"
    if graph == "piecewise":
        facts.append("PIECEWISE CUDA graphs before 0.11 (FULL_AND_PIECEWISE default from 0.11): attention eager "
                     "between graph pieces")
    verify_graph, prefill = graph, False
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
    if backend == "CUTLASS_MLA" and mla and algorithm is not None:
        verify_graph, prefill = "piecewise", True
        facts.append("CUTLASS_MLA takes single-token decode queries only in every release read (reorder_batch_"
                     "threshold 1, query_len_support SINGLE_ONLY from 0.13; graphs UNIFORM_SINGLE_TOKEN_DECODE, "
                     "cutlass_mla.py 0.10.2–0.33): the verify batch takes the MLA prefill path under piecewise graphs")
    plain_overlap, spec_overlap = _vllm_async_scheduling(ver, algorithm, facts)
    draft = _vllm_draft_graph(ver, graph, runner_v2)
    if algorithm is not None:
        if runner_v2:
            facts.append("Model Runner V2 (the default for this model and method in this release): draft steps "
                         + ("under FULL CUDA graphs" if draft == "full" else "without CUDA graph (no full decode "
                            "graphs for the target)")
                         + " (v1/worker/gpu/spec_decode speculator init_cudagraph_manager)")
        elif ver < (0, 9, 0):
            facts.append("the EAGLE proposer runs without CUDA graph before 0.9 (vllm PR #17211/#17504)")
        elif draft == "eager":
            facts.append("the EAGLE proposer runs without CUDA graph in 0.10.1–0.11.0: it sets no cudagraph runtime "
                         "mode after the CUDA-graph dispatcher (vllm PR #20059; restored as PIECEWISE by PR #25109)")
        elif graph == "full":
            facts.append("the drafter runs PIECEWISE CUDA graphs only (v1/spec_decode EagleProposer: 'Eagle only "
                         "supports PIECEWISE cudagraphs'), attention eager between pieces, while the target runs "
                         "FULL graphs")
    loop = _proposer_loop_kernels(ver) if algorithm is not None else 0
    if loop:
        facts.append(f"the proposer launches {loop} bookkeeping ops per draft step and the draft's lm_head/argmax "
                     + ("and EAGLE-3 vocab remap " if algorithm == "EAGLE3" else "")
                     + "from Python, outside its graph, before 0.18 (v1/spec_decode/eagle.py propose loop; "
                     "llama_eagle3.py compute_logits): a small draft step waits for them")
    return dict(plain_overlap=plain_overlap, spec_overlap=spec_overlap, verify_split_kv=True,
                verify_mla_prefill=prefill and mla, target_graph=graph, verify_graph=verify_graph, draft_graph=draft,
                extend_graph="piecewise" if prefill and draft == "full" else draft, facts=tuple(facts),
                draft_loop_kernels=loop, draft_logits_eager=bool(loop))


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
    draft = _vllm_draft_graph(ver, graph, runner_v2)
    loop = _proposer_loop_kernels(ver) if algorithm is not None else 0
    if loop:
        facts.append(f"the proposer launches {loop} bookkeeping ops per draft step and the draft's lm_head/argmax "
                     "from Python, outside its graph, before 0.18 (v1/spec_decode/eagle.py propose loop)")
    return dict(plain_overlap=plain_overlap, spec_overlap=spec_overlap, verify_split_kv=True,
                verify_mla_prefill=False, target_graph=graph, verify_graph=graph, draft_graph=draft,
                extend_graph=draft, facts=tuple(facts), draft_loop_kernels=loop, draft_logits_eager=bool(loop),
                sparse_mla=True)


def _proposer_loop_kernels(ver: tuple[int, int, int]) -> int:
    """Eager torch ops of one pass of vLLM's ``EagleProposer.propose`` draft loop (see module docstring):
    7 before 0.8.5, 11 in 0.8.5, 15 in 0.9.0–0.17.x; from 0.18.0 one fused kernel (not modelled: 0)."""
    if ver >= (0, 18, 0):
        return 0
    if ver >= (0, 9, 0):
        return 15
    return 11 if ver >= (0, 8, 5) else 7
