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
from tpkit.models.spec import ModelSpec
from tpkit.perf.constants import C
from tpkit.perf.work import GEMV_MAX_TOKENS, Kernel
from tpkit.records import dataclass

__all__ = ["SpecSettings", "ALGORITHMS", "draft_spec", "default_accept_rate", "extra_draft_kernels",
           "vocab_remap_kernels", "running_requests"]

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
        return draft
    heads = target.num_attention_heads
    kv = target.num_kv_heads if target.mla is None else min(8, heads)
    vocab = int(C["eagle3_draft_vocab"].value) if family == "EAGLE3" else target.vocab_size
    return dataclasses.replace(
        target, name=f"{family} head for {target.name}", num_layers=1, layer_kinds=(), mla=None, moe=None, quant=None,
        linear_attn=None, num_kv_heads=kv, head_dim=target.hidden_size // heads, v_head_dim=target.hidden_size // heads,
        vocab_size=vocab, num_nextn_layers=0, tie_word_embeddings=False,
        intermediate_size=target.intermediate_size, extra={**target.extra, "qk_norm": False})


def _mtp_layer(target: ModelSpec) -> ModelSpec:
    """The nextn layer as a one-layer model shaped like the target's last MoE layer.  Its attention is the
    target's last layer's kind, full when that is a linear-attention layer: the MTP layer of Qwen3-Next / Qwen3.5
    is full attention and holds no linear-attention state (``models.params.mtp_parts``)."""
    moe = target.moe
    if moe is not None:
        moe = dataclasses.replace(moe, num_dense_layers=0, moe_layer_ids=(0,))
    last = target.kinds[-1] if target.layer_kinds else None
    kinds = ("full" if last == "linear" else last,) if last is not None else ()
    return dataclasses.replace(target, name=f"MTP layer of {target.name}", num_layers=1, moe=moe, layer_kinds=kinds,
                               num_nextn_layers=0)


def extra_draft_kernels(target: ModelSpec, settings: SpecSettings, tokens: int, tp: int) -> list[Kernel]:
    """GEMMs a draft step runs besides its decoder layer: EAGLE3's fusion fc (3h → h), MTP's eh_proj (2h → h), and
    the EAGLE(-1/2) head's fc over [embedding, target hidden] (2h → h, replicated on every rank: sglang 0.4.4
    ``models/llama_eagle.py`` ``LlamaModel.fc`` = ``nn.Linear(2 × hidden, hidden)``; vllm 0.17.1
    ``models/llama_eagle.py`` ``self.fc = ReplicatedLinear(2 × hidden, hidden)``; helper be11)."""
    h = target.hidden_size
    width = {"EAGLE": 2 * h, "EAGLE3": 3 * h, "NEXTN": 2 * h}.get(settings.family)
    if width is None:
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
