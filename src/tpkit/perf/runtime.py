"""How an engine version runs the passes of a decode step on one GPU architecture (pure engine facts).

    in:  engine, engine version (None = the newest tpkit knows), compute capability, MLA or not, the
         speculative settings, an attention backend override, eager mode
    out: ``Runtime``: the attention backend, whether the host work overlaps the GPU (plain decoding and
         speculation separately), how the verify pass reads the KV cache, and which passes run under
         full CUDA graphs, piecewise graphs or eagerly — each fact with the source file it was read from

The engine facts live in one module per engine, each with the sources it read: ``runtime_sglang`` (overlap
scheduler, spec v1/v2, the triton verify kernel, draft-extend graphs) and ``runtime_vllm`` (async scheduling,
TRITON_MLA / CUTLASS_MLA verify through the prefill path, sparse MLA, the drafter's graphs per runner, the
proposer's eager launches).  This module holds the ``Runtime`` they fill, the version parsing, the default
attention backend per engine and GPU (SGLang ``get_default_attn_backend``, vLLM ``_get_backend_priorities``;
sources in the engine modules) and the ``--attention-backend`` checks.
"""

from __future__ import annotations

from tpkit.engines import release_tuple
from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import is_amd
from tpkit.perf.fa2_verify import multi_token_attention
from tpkit.perf.mla_splits import decode_kv_splits
from tpkit.perf.runtime_sglang import _sglang, sglang_default_backend, streams_new_ids_only
from tpkit.perf.runtime_sglang import sglang_spec_v2  # noqa: F401  (public: in __all__)
from tpkit.records import dataclass

__all__ = ["Runtime", "runtime_for", "parse_version", "sglang_spec_v2", "NEWEST", "ATTENTION_BACKENDS"]

NEWEST = {"sglang": (0, 5, 23), "vllm": (0, 34, 0)}
"""the newest version whose sources tpkit read; ``--engine-version`` omitted means this one"""
OLDEST = {"sglang": (0, 2, 15), "vllm": (0, 2, 0)}
"""the oldest release of each engine tpkit models: ``tpkit plan`` refuses older ones (SGLang: the first rule era,
``engines/sglang/versions.py`` ERAS; vLLM: ``engines/vllm/versions.py`` rules_for_version), and ``tpkit perf``
refuses the same, so the two commands take the same ``--engine-version`` values"""

ATTENTION_BACKENDS = {
    "sglang": ("fa3", "fa4", "flashinfer", "triton", "trtllm_mha", "trtllm_mla", "flashmla", "cutlass_mla", "aiter"),
    "vllm": ("FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "FLASH_ATTN_MLA", "FLASHMLA", "FLASHINFER_MLA",
             "CUTLASS_MLA", "TRITON_MLA", "FLASHMLA_SPARSE", "FLASHINFER_MLA_SPARSE", "FLASHINFER_MLA_SPARSE_SM120"),
}
"""``--attention-backend`` values per engine (the engines' own spellings)"""

_MLA_BACKENDS = {"trtllm_mla", "flashmla", "cutlass_mla", "FLASH_ATTN_MLA", "FLASHMLA", "FLASHINFER_MLA",
                 "CUTLASS_MLA", "TRITON_MLA", "FLASHMLA_SPARSE", "FLASHINFER_MLA_SPARSE", "FLASHINFER_MLA_SPARSE_SM120"}
_VLLM_SPARSE_BACKENDS = {"FLASHMLA_SPARSE", "FLASHINFER_MLA_SPARSE", "FLASHINFER_MLA_SPARSE_SM120"}
"""vLLM's sparse-MLA backends (``is_sparse()`` True): the only ones a DeepSeek-sparse-attention model may run, and
they run nothing else (v1/attention/backend.py ``validate_configuration``: ``use_sparse != cls.is_sparse()``)"""


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
    """eager launches of the proposer's Python loop per draft step after the first (vLLM's V1 runner: 7–15 before
    0.18, 4 from 0.18, ``perf.runtime_vllm.PROPOSER_LOOP_FUSED``; count)"""
    draft_logits_eager: bool = False
    """the draft's lm_head, argmax (and EAGLE-3 vocab remap) are launched from Python after its forward, outside
    its CUDA graph (vLLM's V1 runner, every release read 0.8.5–0.33; helper sp34b)"""
    spec_v2: bool | None = None
    """SGLang speculation runs spec v2 (the overlapped draft worker); None: not SGLang speculation"""
    spec_v2_source: str = ""
    """``default`` (the release's choice) or ``flag`` (``--sglang-spec-v2`` / SGLANG_ENABLE_SPEC_V2 given)"""
    draft_skips_last_forward: bool = False
    """SGLang's EAGLE draft loop skips the forward of its last step: the first step's top-k comes from the previous
    draft extend, so a cycle runs num_steps − 1 draft forwards ("We don't need to run the last forward. we get 1
    token from draft prefill and (#spec steps - 1) tokens here": ``eagle_worker.py`` ``draft_forward`` 0.4.3–0.5.12,
    ``eagle_worker_v2.py`` 0.5.4–0.5.23; 0.4.2.post4 runs every step)"""
    drafter_queued: bool = False
    """vLLM launches the drafter right after sampling, with no blocking CPU operation between the verify and the
    draft steps (EAGLE's padded drafter batch, ``perf.runtime_vllm.DRAFTER_QUEUED``): the draft steps' launches are
    issued while the GPU still runs the verify, so they cost only what the host has not finished by the time the
    GPU reaches them"""
    verify_rows_per_token: bool = False
    """the verify runs each query token as its own decode row that reads the request's whole cached latent (vLLM
    TRITON_MLA from 0.31, ``perf.mla_splits``): 1 + k reads of the context per request"""
    draft_backend: str = ""
    """the attention backend of vLLM's drafter where it differs from the target's forced one (its own automatic
    choice: ``perf.triton_verify.draft_backend_independent``); "" = the target's"""
    draft_split_kv: bool = True
    """the drafter's first step (1 + k query tokens per request) splits the KV on ``draft_backend`` (read only when
    ``draft_backend`` is set)"""
    sparse_mla: bool = False
    """the attention is DeepSeek sparse attention through a sparse-MLA implementation: every token, the verify's
    included, attends decode-style (MQA over the latents) to the indexer's top-k tokens"""
    stream_new_ids_only: bool = True
    """SGLang's scheduler streams each request only the output ids new since its last send
    (``scheduler_output_processor_mixin.py`` ``stream_output_generation``: ``decode_ids[req.send_decode_id_offset:]``,
    from 0.4.6.post4; before it the whole output every cycle, read in 0.4.4.post2–0.4.6.post3)"""

    @property
    def label(self) -> str:
        v = ".".join(map(str, self.version))
        return f"{self.engine} {v}" + ("" if self.version_given else " (newest known; --engine-version to change)")

    def to_dict(self) -> dict:
        """JSON form (``tpkit perf --json`` ``runtime``)."""
        return {"engine_version": ".".join(map(str, self.version)), "version_given": self.version_given,
                "attention_backend": self.attention_backend, "plain_overlap": self.plain_overlap,
                "spec_overlap": self.spec_overlap,
                "verify_attention": "mla_prefill" if self.verify_mla_prefill else (
                    "decode_rows" if self.verify_rows_per_token else
                    "split_kv" if self.verify_split_kv else "no_kv_split"),
                "graphs": {"plain": self.target_graph, "verify": self.verify_graph, "draft": self.draft_graph,
                           "draft_extend": self.extend_graph},
                "draft_loop_kernels": self.draft_loop_kernels, "draft_logits_eager": self.draft_logits_eager,
                "sparse_mla": self.sparse_mla, "drafter_queued": self.drafter_queued,
                "draft_attention_backend": self.draft_backend or self.attention_backend,
                "spec_v2": self.spec_v2, "spec_v2_source": self.spec_v2_source or None,
                "facts": list(self.facts)}

    @property
    def multi_token_attention(self) -> str:
        """``perf.work`` attention mode of a draft pass with 1 + k query tokens per request (``perf.fa2_verify``; the
        drafter's own backend where it has one, ``perf.triton_verify``)."""
        return multi_token_attention(self, draft=True)

    def mla_kv_splits(self, model, max_seq_len: int, sm_count: int | None) -> int:
        """KV splits of one MLA decode row of ``model`` whose fp32 partial outputs pass through memory
        (vLLM TRITON_MLA, ``perf.mla_splits``); 0: none charged."""
        return decode_kv_splits(self.engine, self.attention_backend, self.version, model, max_seq_len, sm_count)


def parse_version(text: str | None, engine: str) -> tuple[tuple[int, int, int], bool]:
    """(version, given) from ``0.5.10``, ``v0.21.0``, ``0.5.10.post1``; None → the newest known.  Read by the
    engines' one reader, ``tpkit.engines.release_tuple``, on the stripped text; a leading ``V`` reads as ``v``, as
    perf's own pattern read it before (the CLI refuses it earlier, in the engine's options check)."""
    if text is None:
        return NEWEST[engine], False
    stripped = str(text).strip()
    version = release_tuple("v" + stripped[1:] if stripped[:1] == "V" else stripped)
    if version is None:
        raise PlanInputError(f"--engine-version {text!r} is not a version; give it as MAJOR.MINOR[.PATCH], e.g. "
                             "0.5.10 or 0.21.0")
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
                hybrid: bool = False, spec_v2: bool | None = None, sparse: bool = False, head_dim: int = 128,
                kv_quantized: bool = False, verify_tokens: int = 2, vendor: str = "NVIDIA",
                kv_heads_per_rank: int | None = None) -> Runtime:
    """The engine facts for one deployment (see module docstring).  ``architecture`` (``architectures[0]``),
    ``moe``, ``quantized`` (weight quantisation) and ``hybrid`` (linear-attention / mamba layers) pick vLLM's
    default model runner; an unknown architecture counts as not listed.  ``spec_v2``: SGLang's
    SGLANG_ENABLE_SPEC_V2 (None = the release's default; a setting the release cannot run is refused).  ``sparse``:
    the model has DeepSeek sparse attention (an indexer's ``index_topk``; vLLM then runs a sparse-MLA backend).
    ``head_dim`` (``engines.vllm.backend_choice.attention_head_dim``) and ``kv_quantized`` (an fp8 KV cache) feed vLLM's
    automatic backend choice, which plan and perf share (``engines.vllm.backend_choice.auto_attention_backend``), and
    the drafter's own choice where vLLM's drafter does not inherit a forced backend (``perf.triton_verify``).
    ``verify_tokens``: query tokens per request of the verify (1 + k; Triton attention splits up to 8 from 0.33).
    ``vendor`` (the GPU catalog's) and ``kv_heads_per_rank``: SGLang's default backend on ROCm
    (``runtime_sglang.sglang_rocm_backend``); NVIDIA GPUs are read by compute capability as before."""
    ver, given = parse_version(version, engine)
    ver = tuple(ver)
    cc = compute_capability or (9, 0)
    vllm_sparse = engine == "vllm" and mla and sparse
    if engine == "vllm" and attention_backend:  # vLLM reads any case, "auto" its own choice (config/attention.py
        attention_backend = attention_backend.upper()  # validate_backend_before, 0.29.0, 0.33.0)
        attention_backend = None if attention_backend == "AUTO" else attention_backend
    if engine == "vllm":  # the vLLM tables load for a vLLM run only (cold start of `tpkit perf`)
        from tpkit.engines.vllm.backend_choice import auto_attention_backend
        from tpkit.perf.runtime_vllm import _vllm, _vllm_runner_v2, _vllm_sparse, _vllm_sparse_backend
        from tpkit.perf.triton_verify import draft_backend_independent
    if vllm_sparse:
        backend = attention_backend or _vllm_sparse_backend(cc, ver)
    elif engine == "vllm":
        backend = attention_backend or auto_attention_backend(compute_capability=cc, head_dim=head_dim,
                                                              kv_quantized=kv_quantized, mla=mla)
    else:
        backend = attention_backend or sglang_default_backend(ver, cc, mla, topk, vendor=vendor,
                                                              kv_heads_per_rank=kv_heads_per_rank,
                                                              speculative=algorithm is not None)
    _check_backend(engine, backend, mla, sparse=vllm_sparse, given=attention_backend is not None)
    if engine == "sglang":
        rt = _sglang_runtime(ver, version, backend, mla, topk, algorithm, spec_v2, vendor)
    else:
        if spec_v2 is not None:
            raise PlanInputError("--sglang-spec-v2 is an SGLang setting (SGLANG_ENABLE_SPEC_V2); vLLM has no spec "
                                 "v1/v2 switch: drop it or use --engine sglang")
        v2 = _vllm_runner_v2(ver, algorithm, architecture, moe=moe, quantized=quantized, hybrid=hybrid)
        draft = ""
        if (attention_backend is not None and algorithm in ("EAGLE", "EAGLE3", "NEXTN", "MTP") and not mla
                and draft_backend_independent(ver, v2)):
            own = auto_attention_backend(compute_capability=cc, head_dim=head_dim, kv_quantized=kv_quantized, mla=mla)
            draft = own if own != backend else ""
        rt = (_vllm_sparse(ver, backend, cc, algorithm, runner_v2=v2) if vllm_sparse
              else _vllm(ver, backend, mla, topk, algorithm, runner_v2=v2, cc=cc, query_tokens=verify_tokens,
                         draft_backend=draft, hybrid=hybrid))
    if eager:
        rt = {**rt, "target_graph": "eager", "verify_graph": "eager", "draft_graph": "eager", "extend_graph": "eager",
              "facts": rt["facts"] + ("eager mode (SGLang --disable-cuda-graph / vLLM --enforce-eager): every "
                                      "kernel is launched from Python",)}
    return Runtime(engine=engine, version=ver, version_given=given, attention_backend=backend, **rt)


def _sglang_runtime(ver: tuple, version: str | None, backend: str, mla: bool, topk: int | None,
                    algorithm: str | None, spec_v2: bool | None, vendor: str) -> dict:
    """``runtime_for``'s SGLang facts (``_sglang``) and whether its stream sends new ids only; aiter, SGLang's ROCm
    backend, is refused on another vendor's GPU."""
    if backend == "aiter" and not is_amd(vendor):
        raise PlanInputError(f"--attention-backend aiter is SGLang's ROCm backend (AMD aiter kernels) and the GPU is "
                             f"{vendor}; use one of {', '.join(b for b in ATTENTION_BACKENDS['sglang'] if b != 'aiter')}, "
                             "or leave --attention-backend out")
    return {**_sglang(ver, backend, mla, topk, algorithm, spec_v2, rocm=is_amd(vendor)),
            "stream_new_ids_only": streams_new_ids_only(version)}


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
