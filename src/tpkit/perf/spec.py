"""Speculative decoding: the draft model, one cycle's time, and its speed-up over plain decoding (pure).

    cycle = num_steps draft forwards (batch × topk tokens each, with the draft's own all-reduces)
          + one verify forward of the target on batch × num_draft_tokens tokens
          + one draft "extend" forward on the accepted tokens (batch × (num_steps + 1) tokens)
          + overheads: tree build / accept / sampling kernels and the GPU→CPU sync of accepted tokens
    tok/s = accept_length × batch / cycle,   speed-up = that / plain decoding tok/s

Drafts (``draft_spec``):

    EAGLE, EAGLE3  one Llama-style decoder layer with the target's hidden size and dense MLP width, GQA
                   with hidden/heads head_dim, run at the target's TP; EAGLE adds its 2·hidden → hidden fc,
                   EAGLE3 the 3·hidden → hidden fusion GEMM and a 32,000-row draft lm_head; EAGLE reuses the
                   target's lm_head.  These
                   follow the public EAGLE/EAGLE-3 heads; a real draft checkpoint can differ.
    NEXTN / MTP    the checkpoint's own MTP layer (a decoder layer like the target's last MoE layer +
                   eh_proj 2·hidden → hidden) and the target's lm_head
    STANDALONE     a separate draft model (``--speculative-draft-model-path``), its whole forward
"""

from __future__ import annotations

import dataclasses

from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import is_nvidia
from tpkit.models.params import LAYER0_NAME_KEY
from tpkit.models.spec import ModelSpec
from tpkit.perf.constants import C
from tpkit.perf.draft_terms import eagle3_midlayer_kernels, sampling_bw_fraction
from tpkit.perf.kernels import GEMV_MAX_TOKENS, Kernel
from tpkit.records import dataclass

__all__ = ["SpecSettings", "ALGORITHMS", "draft_spec", "default_accept_rate", "extra_draft_kernels",
           "vocab_remap_kernels", "draft_topk_kernels", "draft_step_kernels", "running_requests", "EAGLE3_QKV_KEY",
           "SGLANG_TOPK1_ARGMAX_FIRST"]

ALGORITHMS = ("EAGLE", "EAGLE3", "NEXTN", "MTP", "STANDALONE")
"""accepted --speculative-algorithm values (SGLang's names; MTP is an alias of NEXTN)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class SpecSettings:
    """One speculative configuration."""

    algorithm: str
    """one of ``ALGORITHMS``"""
    num_steps: int
    """draft forwards per cycle (count)"""
    topk: int
    """candidates kept per draft step (count); 1 = chain"""
    num_draft_tokens: int
    """tokens the target verifies per sequence, the verified one included (count)"""

    def __post_init__(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise PlanInputError(f"--speculative-algorithm {self.algorithm!r} is not known; use one of "
                                 f"{', '.join(ALGORITHMS)}")
        for name in ("num_steps", "topk", "num_draft_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                flag = {"num_steps": "--speculative-num-steps", "topk": "--speculative-eagle-topk",
                        "num_draft_tokens": "--speculative-num-draft-tokens"}[name]
                raise PlanInputError(f"{flag} must be a whole number ≥ 1, got {value!r}")
        most = 1 + sum(self.topk ** d for d in range(1, self.num_steps + 1))
        if self.num_draft_tokens < 2 or self.num_draft_tokens > most:
            raise PlanInputError(
                f"--speculative-num-draft-tokens {self.num_draft_tokens} does not fit {self.num_steps} steps × topk "
                f"{self.topk}: use 2 … {most}" + (f" (a chain uses {self.num_steps + 1})" if self.topk == 1 else ""))

    @property
    def family(self) -> str:
        return "NEXTN" if self.algorithm == "MTP" else self.algorithm

    def to_dict(self) -> dict:
        return {"algorithm": self.algorithm, "num_steps": self.num_steps, "topk": self.topk,
                "num_draft_tokens": self.num_draft_tokens}


def default_accept_rate(family: str) -> tuple[float, str]:
    """(per-token acceptance, its source) used when no --accept-length is given."""
    key = {"EAGLE": "accept_rate_eagle", "EAGLE3": "accept_rate_eagle3", "NEXTN": "accept_rate_mtp",
           "STANDALONE": "accept_rate_standalone"}[family]
    const = C[key]
    return const.value, f"{family} default per-token acceptance {const.value} ({const.confidence}: {const.source})"


def draft_spec(target: ModelSpec, settings: SpecSettings, draft: ModelSpec | None) -> ModelSpec:
    """The draft model whose forward one draft step runs."""
    family = settings.family
    if family == "STANDALONE":
        if draft is None:
            raise PlanInputError("--speculative-algorithm STANDALONE needs --speculative-draft-model-path (a config.json, "
                                 "checkpoint directory or catalog id of the draft model)")
        return draft
    if family == "NEXTN":
        if not target.num_nextn_layers:
            raise PlanInputError(
                f"{target.name} has no MTP/nextn layers (num_nextn_predict_layers / mtp_num_hidden_layers are 0 or "
                "absent), so NEXTN/MTP cannot run; "
                "use EAGLE-3 instead: --speculative-algorithm EAGLE3 (with --engine vllm also "
                "--speculative-config '{\"method\": \"eagle3\", \"num_speculative_tokens\": 3}'); perf sizes a "
                "one-layer draft head when no draft model is given")
        return _mtp_layer(target)
    if draft is not None:
        return _given_head(draft) if family == "EAGLE3" else draft
    heads = target.num_attention_heads
    kv = target.num_kv_heads if target.mla is None else min(8, heads)
    vocab = int(C["eagle3_draft_vocab"].value) if family == "EAGLE3" else target.vocab_size
    return dataclasses.replace(
        target, name=f"{family} head for {target.name}", num_layers=1, layer_kinds=(), mla=None, moe=None, quant=None,
        linear_attn=None, num_kv_heads=kv, head_dim=target.hidden_size // heads, v_head_dim=target.hidden_size // heads,
        vocab_size=vocab, num_nextn_layers=0, tie_word_embeddings=False,
        intermediate_size=target.intermediate_size, extra={**target.extra, "qk_norm": False,
                                                           **({EAGLE3_QKV_KEY: True} if family == "EAGLE3" else {})})


EAGLE3_QKV_KEY = "eagle3_qkv_input_2h"
"""``ModelSpec.extra`` key set on an EAGLE-3 head: its layer 0 q/k/v read 2·hidden (``models.params._gqa``)"""


def _given_head(draft: ModelSpec) -> ModelSpec:
    """An EAGLE-3 head read from its own config (``--speculative-draft-model-path``), as the engines build it: its
    own widths (MLP ``intermediate_size``: SpecForge's heads for MoE targets use their own, e.g. 6·hidden for
    Qwen3-30B-A3B), lm_head over ``draft_vocab_size`` rows when the config gives one (sglang 0.5.6
    ``models/llama_eagle3.py`` ``LlamaForCausalLMEagle3.__init__``: ``ParallelLMHead(config.draft_vocab_size, …)``;
    vllm 0.11.0 same file ``Eagle3LlamaForCausalLM``), and the midlayer's qkv from 2·hidden (``EAGLE3_QKV_KEY``)."""
    vocab = int(draft.extra.get("draft_vocab_size") or draft.vocab_size)
    return dataclasses.replace(draft, vocab_size=min(vocab, draft.vocab_size), tie_word_embeddings=False,
                               extra={**draft.extra, EAGLE3_QKV_KEY: True})


def _mtp_layer(target: ModelSpec) -> ModelSpec:
    """The nextn layer as a one-layer model shaped like the target's last MoE layer.  Its attention is the
    target's last layer's kind, full when that is a linear-attention layer: the MTP layer of Qwen3-Next / Qwen3.5
    is full attention and holds no linear-attention state (``models.mtp_parts.mtp_parts``).  Its layer keeps the MTP
    layer's module name (``models.mtp_parts.mtp_layer_name``), so the target's quantisation ignore list reads it as
    the engine does (a checkpoint that keeps the head in BF16, e.g. ``re:^mtp.*``, streams BF16 weights)."""
    from tpkit.models.mtp_parts import mtp_layer_name  # an MTP draft only (cold start)

    moe = target.moe
    if moe is not None:
        moe = dataclasses.replace(moe, num_dense_layers=0, moe_layer_ids=(0,))
    last = target.kinds[-1] if target.layer_kinds else None
    kinds = ("full" if last == "linear" else last,) if last is not None else ()
    return dataclasses.replace(target, name=f"MTP layer of {target.name}", num_layers=1, moe=moe, layer_kinds=kinds,
                               num_nextn_layers=0, extra={**target.extra, LAYER0_NAME_KEY: mtp_layer_name(target)})


def extra_draft_kernels(target: ModelSpec, settings: SpecSettings, tokens: int, tp: int, *,
                        target_hidden: bool = True) -> list[Kernel]:
    """GEMMs a draft step runs besides its decoder layer: EAGLE3's fusion fc (3h → h), MTP's eh_proj (2h → h), and
    the EAGLE(-1/2) head's fc over [embedding, target hidden] (2h → h, replicated on every rank: sglang 0.4.4
    ``models/llama_eagle.py`` ``LlamaModel.fc`` = ``nn.Linear(2 × hidden, hidden)``; vllm 0.17.1
    ``models/llama_eagle.py`` ``self.fc = ReplicatedLinear(2 × hidden, hidden)``; helper be11).

    EAGLE3's fc runs only on a pass fed the target's hidden states (``target_hidden``): SGLang's draft extend after
    verify, not its draft decode steps (sglang 0.5.6 ``models/llama_eagle3.py`` ``LlamaModel.forward``: ``self.fc``
    only when ``hidden_states.shape[-1] != embeds.shape[-1]``; the steps feed back the head's own hidden states in
    ``speculative/eagle_worker.py`` ``draft_forward``); vLLM's first proposer forward, not the later ones (vllm
    0.11.0 ``v1/spec_decode/eagle.py`` ``EagleProposer.propose``: ``combine_hidden_states`` once on the target's
    hidden states before the first forward).  Same in every release read (sglang 0.4.4–0.5.6, vllm 0.10.2–0.11.0)."""
    h = target.hidden_size
    width = {"EAGLE": 2 * h, "EAGLE3": 3 * h, "NEXTN": 2 * h}.get(settings.family)
    if width is None or settings.family == "EAGLE3" and not target_hidden:
        return []
    local_out = -(-h // tp) if settings.family == "NEXTN" else h
    name = {"EAGLE": "EAGLE fc", "EAGLE3": "EAGLE3 fusion fc"}.get(settings.family, "MTP eh_proj")
    return [Kernel(kind="gemm", name=name, bytes=2.0 * width * local_out + 2.0 * tokens * (width + local_out),
                   flops=2.0 * tokens * width * local_out, latency_k=width if tokens <= GEMV_MAX_TOKENS else 0)]


def vocab_remap_kernels(target: ModelSpec, draft: ModelSpec, settings: SpecSettings, rows: int) -> list[Kernel]:
    """vLLM's EAGLE-3 draft→target vocabulary remap, run on the ``rows`` sampled positions of every draft step when
    the head's vocabulary is smaller than the target's (``Eagle3LlamaForCausalLM.compute_logits``, vllm
    model_executor/models/llama_eagle3.py, every release read 0.8.5–0.33): ``torch.arange(draft_vocab)``,
    ``+ draft_id_to_target_id``, ``new_full((rows, vocab), -inf)`` and ``logits_new[:, targets] = logits``; the
    argmax then reads the target-vocab row.  Four small kernels on the GPU; launched from Python outside the
    draft's graph where ``Runtime.draft_logits_eager``."""
    if settings.family != "EAGLE3" or draft.vocab_size >= target.vocab_size:
        return []
    d, v = draft.vocab_size, target.vocab_size
    idx = 8.0 * d                                                    # int64 draft ids / offsets
    return [Kernel(kind="small", name="EAGLE3 remap: arange", bytes=idx),
            Kernel(kind="small", name="EAGLE3 remap: + d2t", bytes=3 * idx),
            Kernel(kind="small", name="EAGLE3 remap: new_full(-inf) over the target vocab", bytes=2.0 * rows * v),
            Kernel(kind="small", name="EAGLE3 remap: index_put", bytes=idx + 4.0 * rows * d)]


SGLANG_TOPK1_ARGMAX_FIRST = (0, 5, 13)
"""first SGLang release whose chain drafts (topk 1) take an argmax over the logits instead of softmax + max on CUDA
(sglang 0.5.13 ``speculative/eagle_worker_v2.py`` ``draft_forward`` / ``_draft_extend_for_decode``: ``if self.topk
== 1 and not _is_hip: torch.argmax(...)``; 0.5.6–0.5.12 ``eagle_worker.py`` / ``eagle_worker_v2.py``: softmax +
``fast_topk`` for every topk; ROCm keeps softmax + max)"""


def draft_topk_kernels(draft: ModelSpec, settings: SpecSettings, rows: int, *, version: tuple = (0, 5, 6),
                       cuda: bool = True) -> list[Kernel]:
    """SGLang's softmax + top-k over the draft's vocabulary after each EAGLE/EAGLE3 draft forward, on the ``rows``
    whose logits it keeps (the draft steps: batch × topk; the extend after verify: batch).  sglang 0.5.6
    ``speculative/eagle_worker.py`` ``EAGLEWorker.draft_forward`` (every step: ``torch.softmax`` of the
    ``next_token_logits`` then ``fast_topk(probs, topk)``) and ``capture_for_decode`` (after the extend), same in
    ``eagle_worker_v2.py``; ``fast_topk`` (``utils/common.py``) is ``torch.max`` for topk 1, else ``torch.topk``.
    The logits are fp32 over the full draft vocab on every rank (gathered).  Kernels: the softmax reads and writes
    4 B per logit; ``torch.max`` one reduction pass; ``torch.topk`` PyTorch's multi-block radix select over 32-bit
    keys (8-bit digits: 4 passes of digit counts + cumsum + within-k counts, then one gather pass: 13 kernels, 5
    reads of the probabilities), the kernel names torch.profiler shows in docs/benchmarks.md §3.6 (``mbtopk::
    computeBlockDigitCounts`` ×4, ``computeDigitCumSum`` ×4, ``computeBlockwiseWithinKCounts`` ×4,
    ``gatherTopK``).  vLLM's proposer takes ``logits.argmax`` (vllm 0.11.0 ``v1/spec_decode/eagle.py``
    ``propose``), already in the forward's sampling: none here.  From ``SGLANG_TOPK1_ARGMAX_FIRST`` (``version``)
    a chain on CUDA takes one argmax over the logits instead.  The softmax, the digit-count passes and the gather
    stream at the rates measured on the H200 reference (``draft_terms.sampling_bw_fraction``)."""
    if settings.family not in ("EAGLE", "EAGLE3") or rows <= 0:
        return []
    cells = 4.0 * rows * draft.vocab_size                            # fp32 bytes of one pass over the logits
    if settings.topk == 1 and cuda and tuple(version) >= SGLANG_TOPK1_ARGMAX_FIRST:
        return [Kernel(kind="small", name="draft argmax", bytes=cells)]
    out = [Kernel(kind="small", name="draft softmax", bytes=2.0 * cells, bw_fraction=sampling_bw_fraction("softmax"),
                  cta_bytes=8.0 * draft.vocab_size)]
    if settings.topk == 1:
        return out + [Kernel(kind="small", name="draft top-1 (torch.max)", bytes=cells)]
    passes = 4
    return out + [Kernel(kind="small", name="draft top-k: radix digit counts", bytes=cells, count=passes,
                         bw_fraction=sampling_bw_fraction("radix")),
                  Kernel(kind="small", name="draft top-k: digit cumsum + within-k counts", bytes=0.0,
                         count=2 * passes),
                  Kernel(kind="small", name="draft top-k: gather", bytes=cells, bw_fraction=sampling_bw_fraction("gather"))]


def sglang_extend_logit_rows(batch: int, pad: int, spec_v2: bool) -> int:
    """Rows the draft lm_head (and the logits gather) runs on in SGLang's draft extend after verify, for ``batch``
    sequences and ``pad`` graph-padding rows.  Spec v1 (``ForwardMode.DRAFT_EXTEND``, an
    extend mode): ``LogitsProcessor._get_pruned_states`` keeps the last token of each sequence (``last_index =
    cumsum(extend_seq_lens) - 1``) and ``eagle_draft_extend_cuda_graph_runner.py`` sizes its logits output to the
    captured ``bs``: batch + pad rows (sglang 0.5.6 ``layers/logits_processor.py`` ``LogitsProcessor.forward``,
    0.5.10 and 0.5.15 ``_get_pruned_states``).  Spec v2 (``DRAFT_EXTEND_V2``) keeps every row
    (``is_draft_extend_v2()`` → ``pruned_states = hidden_states``, 0.5.6–0.5.15) and picks the accepted ones after."""
    return 0 if spec_v2 else batch + pad


def draft_step_kernels(req, draft: ModelSpec, settings: SpecSettings, batch: int, tokens: int, version: tuple, *,
                       target_hidden: bool, sample_rows: int) -> tuple[list[Kernel], int]:
    """(kernels a draft forward of ``batch`` × ``tokens`` runs besides the draft model's own, how many of them are
    vLLM's vocab remap) for ``req`` (a ``PerfRequest``): ``extra_draft_kernels`` (the fc where ``target_hidden``),
    an EAGLE-3 head's ``hidden_norm`` + concat (``draft_terms.eagle3_midlayer_kernels``), vLLM's
    ``vocab_remap_kernels`` on the batch's rows, SGLang's ``draft_topk_kernels`` on ``sample_rows``."""
    remap = vocab_remap_kernels(req.model, draft, settings, batch) if req.engine == "vllm" else []
    topk = draft_topk_kernels(draft, settings, sample_rows, version=version,
                              cuda=is_nvidia(req.gpu.vendor)) if req.engine == "sglang" else []
    fc = extra_draft_kernels(req.model, settings, batch * tokens, req.tp, target_hidden=target_hidden)
    mid = eagle3_midlayer_kernels(draft.hidden_size, batch * tokens) if settings.family == "EAGLE3" else []
    return fc + mid + remap + topk, len(remap)


def running_requests(req, batch: int, speculative: bool) -> tuple[int, str]:
    """(requests decoded at once, why it is below ``batch`` or "") for ``req`` (a ``PerfRequest``) at ``batch``
    concurrent requests.  SGLang: ``--max-running-requests`` when given caps both sides; unset, speculation gets the
    release's cap (``engines.sglang.spec.spec_running_cap``: 32 in 0.4.3.post3–0.4.4.post3, 48 from 0.4.4.post4)
    and plain decoding none; the value is split over the DP-attention ranks (``max_running_requests // dp``), so
    the server runs ``dp × (value // dp)``.  The requests above it wait: the side's tok/s is that of the capped
    batch.  vLLM sets no cap under speculation (``max_num_seqs`` keeps its usage-context default with or without
    it: read in vllm 0.10.2, 0.20.0 and 0.33.0 ``engine/arg_utils.py``, ``config/speculative.py``,
    ``config/vllm.py``)."""
    if req.engine != "sglang":
        return batch, ""
    from tpkit.engines.sglang.spec import spec_running_cap, spec_running_requests
    from tpkit.perf.runtime import NEWEST

    version = req.engine_version or ".".join(map(str, NEWEST["sglang"]))
    algo = req.spec.algorithm if speculative and req.spec is not None else None
    arch = req.model.architecture
    per_rank = spec_running_requests(version, algo, req.max_running_requests, attn_dp=req.dp_attention,
                                     architecture=arch)
    if per_rank is None or per_rank * req.dp_attention >= batch:
        return batch, ""
    running = per_rank * req.dp_attention
    if req.max_running_requests is not None:
        why = f"--max-running-requests {req.max_running_requests}"
    else:
        why = spec_running_cap(version, algo, architecture=arch).source
    if req.dp_attention > 1:
        why += f"; {per_rank} per DP-attention rank × {req.dp_attention}"
    return running, why
