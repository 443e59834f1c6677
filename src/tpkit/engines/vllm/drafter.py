"""The speculative drafter's memory in vLLM: its weights and its KV layers (vLLM 0.10.2–0.33;
sources below).

- **Weights.**  The drafter is loaded inside the same ``DeviceMemoryProfiler`` block as the target
  (``v1/worker/gpu_model_runner.py load_model``; 0.33 also ``v1/worker/gpu/model_runner.py``), so "Model loading
  took" includes it and it is part of the non-KV memory.  Tensors the proposer shares with the target are
  freed inside that block (``v1/spec_decode/llm_base_proposer.py _maybe_share_embeddings /
  _maybe_share_lm_head``): MTP always shares the embedding and the lm_head (also every MTP layer's
  ``shared_head.head``); an EAGLE draft shares them when its checkpoint has none or an identical copy — tpkit
  assumes the embedding is shared (EAGLE/EAGLE-3 heads ship without one or with the target's) and the
  lm_head is shared for EAGLE; an EAGLE-3 head's lm_head by ``eagle3_shares_lm_head``.  A ``draft_model``
  shares nothing.  ngram has no weights.
- **KV.**  Drafter attention layers are ordinary ``Attention``/MLA layers registered in the forward context,
  so ``get_kv_cache_spec`` gives them pages like the target's (DeepSeek MTP: one more MLA layer per
  ``num_nextn_predict_layers``; an EAGLE/EAGLE-3 Llama head: its GQA layers at the drafter's TP).  The same
  spec as the target's joins the target's group; a different one joins a uniform-type group (0.11+) or gets
  its own group (``pages.py``).  One real log (vLLM ~0.9.1, Llama-3.1-8B + EAGLE, H100) prints 33 × 4,096 B
  per token.
- **DFlash** (``method: dflash``, vLLM 0.20.0+; ``model_executor/models/qwen3_dflash.py``,
  ``v1/spec_decode/dflash.py``): ``num_hidden_layers`` Qwen3 decoder layers, each one ``Attention`` of
  ``AttentionType.DECODER`` (non-causal by default, which changes the backend, not the page), registered like an
  EAGLE head's (``get_draft_kv_cache_layer_names``): the draft's GQA pages at the drafter's TP, grouped with the
  target's as an EAGLE head's — in a hybrid only when the head shape is the target's too (``DraftKv.shape``).  Weights: an embedding and lm_head shared as EAGLE's (``llm_base_proposer.py
  _maybe_share_embeddings / _maybe_share_lm_head``: shared when the checkpoint ships none), the ``fc`` over the
  target's hidden states, the layers.  Sliding layers (``_resolve_layer_attention``, 0.25.0+; 0.20.0–0.24.0 build
  every DFlash layer full whatever the config says): ``dflash_config.use_swa`` or an all-``sliding_attention``
  ``layer_types`` makes every layer a sliding-window ``Attention`` of ``dflash_config.swa_window_size`` (else
  ``sliding_window``), a ``SlidingWindowSpec`` of its own that joins a target group only when the target has
  sliding layers of that window and page, else forms drafter groups (``pages.build_layout``).  A draft that
  mixes sliding and full layers is refused (0.25–0.27 refuse it; 0.28+ force Model Runner V2 for it,
  ``config/vllm.py _dflash_needs_multi_kv_group``; tpkit does not split a drafter over two kinds).
- Not modelled: 0.28+ force Model Runner V2 for a ``DFlash2DraftModel`` draft (``config/vllm.py
  _is_dflash2_draft``); tpkit picks the runner from the target and the method alone.
- Not modelled: the drafter's share of the profile run's activations and of the CUDA-graph estimate.
- Not modelled: Model Runner V2 (0.24.0+ ``v1/worker/gpu/spec_decode/eagle/utils.py load_eagle_model``) looks for
  the lm_head on the target model itself, not on its language model, so a multimodal target whose lm_head sits in
  its language model keeps the head's own copy there; tpkit shares it as on the V1 runner.  An EAGLE-3 head's
  ``draft_id_to_target_id`` (int64 × ``draft_vocab_size``: 0.24 MiB for a 32k vocabulary) is left out (below the
  printed load's rounding); its ``t2d`` is skipped on load (``llama_eagle3.py load_weights``).
"""

from __future__ import annotations

from tpkit.engines.vllm.pages import DraftKv, kv_heads_per_rank
from tpkit.engines.vllm.kvdtype import per_token_head_bytes
from tpkit.engines.vllm.speculative import SpecConfig
from tpkit.errors import PlanInputError
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["Drafter", "plan_drafter", "drafter_kv", "whole_model_draft"]

_DRAFT_METHOD = {"mtp": "mtp", "eagle": "eagle", "eagle3": "eagle3", "draft_model": "standalone", "dflash": "dflash"}
"""vLLM method → ``tpkit.models.draft`` method"""
_SHARED = {"mtp": frozenset({"embedding", "lm_head"}), "eagle": frozenset({"embedding", "lm_head"}),
           "eagle3": frozenset({"embedding"}), "draft_model": frozenset(),
           "dflash": frozenset({"embedding", "lm_head"})}
"""tensors the proposer takes from the target instead of keeping its own copy (EAGLE-3's lm_head:
``eagle3_shares_lm_head``)"""
EAGLE3_LM_HEAD_SHARED_FROM = (0, 11, 0)
"""the first release whose EAGLE-3 head can take the target's lm_head (``eagle3_shares_lm_head``)"""


def eagle3_shares_lm_head(model: ModelSpec, draft: ModelSpec, release: tuple[int, ...] | None) -> bool:
    """Whether vLLM replaces an EAGLE-3 head's lm_head by the target's (so "Model loading took" holds one copy).

    The head always builds its own ``ParallelLMHead(draft_vocab_size, hidden_size)`` (``model_executor/models/
    llama_eagle3.py Eagle3LlamaForCausalLM.__init__``; ``draft_vocab_size`` defaults to ``vocab_size``), and the
    proposer's ``load_model`` decides after loading (read in the wheels):

    - 0.10.2 and older (read 0.10.1.1, 0.10.2 ``v1/spec_decode/eagle.py EagleProposer.load_model``): the lm_head is
      taken from the target only for ``method != "eagle3"``; an EAGLE-3 head keeps its own.
    - 0.11.0 (the same function): an EAGLE-3 head takes the target's lm_head when the two weights have the same
      shape ('Assuming the EAGLE head shares the same lm_head with the target model').
    - 0.11.1 – 0.19.0 (``eagle.py load_model``), 0.16.0+ ``_maybe_share_lm_head``, 0.20.0 – 0.33.0
      (``v1/spec_decode/llm_base_proposer.py SpecDecodeBaseProposer._maybe_share_lm_head``; Model Runner V2, 0.24.0+:
      ``v1/worker/gpu/spec_decode/eagle/utils.py load_eagle_model`` / ``_should_share``): shared when the head's
      checkpoint has no lm_head or one ``torch.equal`` to the target's ('Detected EAGLE model with lm_head identical
      to the target model. Sharing …'); ``torch.equal`` is False for tensors of different shapes.

    tpkit cannot read the checkpoint's tensors, so from 0.11.0 it takes the shape as the test: a head whose
    ``draft_vocab_size`` and ``hidden_size`` equal the target's ``vocab_size`` and ``hidden_size`` shares the lm_head
    (the full-vocabulary heads seen in real logs print 'lm_head identical … Sharing': dishantghai's Qwen3-8B head on
    0.20.0 (docs/accuracy.md §6.4, round eg30), and dcstang's on 0.24.0 whose load is 0.55 GiB over the target's), one
    of another vocabulary (a 32k draft vocabulary, with its ``d2t`` map) keeps its own.  A full-vocabulary head
    trained with its own lm_head would load one more copy than planned."""
    if release is not None and tuple(release[:3]) < EAGLE3_LM_HEAD_SHARED_FROM:
        return False
    vocab = int(draft.extra.get("draft_vocab_size") or draft.vocab_size)
    return vocab == model.vocab_size and draft.hidden_size == model.hidden_size


def _shared(model: ModelSpec, spec: SpecConfig, draft: ModelSpec, release: tuple[int, ...] | None,
            pp: int = 1) -> frozenset[str]:
    """The tensors this drafter takes from the target (``_SHARED``; EAGLE-3's lm_head by ``eagle3_shares_lm_head``).
    Under pipeline parallelism the embedding is never shared: every reading (0.10.1.1 ``eagle.py load_model``,
    0.20.0 – 0.33.0 ``llm_base_proposer.py _maybe_share_embeddings``, 0.24.0+ V2 ``eagle/utils.py
    load_eagle_model``) shares it only when ``get_pp_group().world_size == 1`` ('The draft model's vocab embedding
    will be loaded separately'); the lm_head test has no such guard."""
    shared = _SHARED[spec.method]
    if spec.method == "eagle3" and eagle3_shares_lm_head(model, draft, release):
        shared = shared | {"lm_head"}
    if pp > 1:
        shared = shared - {"embedding"}
    return shared


@dataclass(frozen=True, kw_only=True, slots=True)
class Drafter:
    """What a speculative drafter adds on one rank."""

    method: str
    weights: Bytes
    """drafter weight bytes per rank (in "Model loading took")"""
    weights_source: str
    kv: DraftKv | None
    """the drafter's KV layers (None: ngram)"""
    num_speculative_tokens: int
    hidden_states_width: int = 0
    """elements per token of the proposer's persistent ``hidden_states`` buffer: the draft config's
    ``get_hidden_size()`` (× ``hc_mult`` for DeepSeek-V4's MTP; ``v1/spec_decode/llm_base_proposer.py``
    ``SpecDecodeBaseProposer.__init__``); 0 for a method without such a proposer (ngram)"""
    inputs_embeds_width: int = 0
    """elements per token of the proposer's ``inputs_embeds`` buffer (the draft config's
    ``get_inputs_embeds_size()``, its hidden size); 0 without such a proposer"""


def _draft_tp(spec: SpecConfig, parallel: ParallelSpec) -> int:
    tp = spec.draft_tensor_parallel_size or parallel.tp
    if tp not in (1, parallel.tp):
        raise PlanInputError(f"--speculative-config: draft_tensor_parallel_size {tp} must be 1 or the target's --tp "
                             f"{parallel.tp} (vLLM refuses other values)")
    return tp


def _kv(model: ModelSpec, draft_spec: ModelSpec, layers: int, tp: int, kv_bytes: int, mtp: bool,
        window: int | None = None, kv_format=None, release: tuple[int, ...] | None = None) -> DraftKv:
    """The drafter's KV layers; ``kv_format``: the run's ``--kv-cache-dtype`` layout, which the drafter's attention
    layers share (they take the target's cache config); per-token-head pages add their fp32 scales
    (``kvdtype.per_token_head_bytes``), other packed layouts are refused by the callers."""
    if mtp and model.mla is not None:
        per_token = (model.mla.kv_lora_rank + model.mla.qk_rope_head_dim) * kv_bytes
        return DraftKv(kind="mla", num_layers=layers, per_token_bytes=per_token, label="MTP (MLA) layers")
    src = model if mtp else draft_spec
    if src.mla is not None:
        per_token = (src.mla.kv_lora_rank + src.mla.qk_rope_head_dim) * kv_bytes
        return DraftKv(kind="mla", num_layers=layers, per_token_bytes=per_token, label="drafter MLA layers")
    heads = kv_heads_per_rank(src, tp)
    shape = (heads, src.head_dim, src.v_head_dim)
    kind = "full" if window is None else "sliding"
    row = heads * (src.head_dim + src.v_head_dim) * kv_bytes
    if kv_format is not None and kv_format.layout == "per_token_head":
        row = heads * per_token_head_bytes(kv_format, src.head_dim, src.v_head_dim, kind=kind, release=release)
    if window is not None:
        return DraftKv(kind="sliding", num_layers=layers, per_token_bytes=row, window=window, shape=shape,
                       label=f"drafter sliding-window ({window:,}) layers ({heads} KV head(s) × {src.head_dim} "
                             "per rank)")
    return DraftKv(kind="full", num_layers=layers, per_token_bytes=row,
                   shape=shape, label=f"drafter layers ({heads} KV head(s) × {src.head_dim} per rank)")


def _load(model: ModelSpec, spec: SpecConfig):
    """The draft (``models.draft.load_draft``).  An MTP draft's layer count is the config reader's
    ``num_nextn_layers`` (``models.config.mtp_layer_count``): vLLM's MTP of the Qwen3.5 family counts its layers in
    ``mtp_num_hidden_layers`` (``config/speculative.py SpeculativeConfig.hf_config_override``, 0.33: n_predict of
    ``qwen3_5``/``qwen3_5_text``/``qwen3_5_moe`` … is ``mtp_num_hidden_layers``; ``qwen3_5_mtp.py`` builds that
    many full-attention layers), Qwen3-Next in ``num_nextn_predict_layers`` (default 1, ``qwen3_next_mtp.py``,
    0.10.2+), DeepSeek-style models in ``num_nextn_predict_layers``."""
    from tpkit.models.draft import load_draft

    method = _DRAFT_METHOD[spec.method]
    return method, load_draft(method, None if method == "mtp" else spec.model, target=model)


def _dflash_window(draft: ModelSpec, release: tuple[int, ...] | None) -> int | None:
    """The sliding window of a DFlash draft's layers, None when they are full (module docstring: 0.25.0+
    ``qwen3_dflash.py _resolve_layer_attention``)."""
    if release is not None and tuple(release[:3]) < (0, 25, 0):
        return None
    x = draft.extra
    cfg = x.get("dflash_config") or {}
    types = draft.kinds  # ``layer_types`` as the config loader reads it
    sliding = sum(t == "sliding" for t in types)
    if 0 < sliding < len(types):
        raise PlanInputError(f"--speculative-config: the DFlash draft {draft.name} mixes sliding and full layers "
                             f"({sliding} of {len(types)} sliding); tpkit plans DFlash drafts whose layers are all "
                             "full or all sliding (vLLM 0.25–0.27 refuses mixed drafts; 0.28+ runs them on Model "
                             "Runner V2 in two KV groups, which tpkit does not model)")
    if not (cfg.get("use_swa") or (types and sliding == len(types))):
        return None
    window = cfg.get("swa_window_size") or draft.sliding_window or x.get("sliding_window")
    if not isinstance(window, int) or isinstance(window, bool) or window < 1:
        raise PlanInputError(f"--speculative-config: the DFlash draft {draft.name} has sliding layers but no window "
                             "(dflash_config.swa_window_size or sliding_window); vLLM refuses it too")
    return window


def drafter_kv(model: ModelSpec, spec: SpecConfig, parallel: ParallelSpec, *, kv_bytes: int,
               release: tuple[int, ...] | None = None, kv_format=None) -> tuple[DraftKv | None, int, str]:
    """(the drafter's KV layers on one rank, speculative tokens per step, where the draft came from) — the KV side
    of ``plan_drafter`` alone (``explain`` rebuilds the pages from a log without sizing the drafter's weights)."""
    if not spec.has_drafter:
        return None, spec.num_speculative_tokens or 0, f"{spec.method}: no drafter model"
    tp = _draft_tp(spec, parallel)
    method, draft = _load(model, spec)
    window = _dflash_window(draft.spec, release) if method == "dflash" else None
    return (_kv(model, draft.spec, draft.num_layers, tp, kv_bytes, method == "mtp", window, kv_format, release),
            spec.num_speculative_tokens or draft.num_layers, draft.source)


def plan_drafter(model: ModelSpec, spec: SpecConfig, parallel: ParallelSpec, *, kv_bytes: int, act_dtype: str,
                 target_quantization: str | None, release: tuple[int, ...] | None = None,
                 kv_format=None) -> Drafter:
    """The drafter's weights and KV layers on one rank of ``parallel`` (``release``: the vLLM release's rules,
    None = newest)."""
    if not spec.has_drafter:
        return Drafter(method=spec.method, weights=Bytes(0), weights_source=f"{spec.method}: no drafter model",
                       kv=None, num_speculative_tokens=spec.num_speculative_tokens or 0)
    from tpkit.models.draft import plan_draft_weights

    tp = _draft_tp(spec, parallel)
    method, draft = _load(model, spec)
    quant = target_quantization if method == "mtp" else spec.quantization
    if method == "mtp" and model.model_type == "deepseek_v4":
        return _dsv4_mtp(model, spec, parallel if tp == parallel.tp else ParallelSpec(tp=tp), draft, act_dtype,
                         quant, tp)
    shares = _shared(model, spec, draft.spec, release, parallel.pp)
    plan = plan_draft_weights(draft, parallel if tp == parallel.tp else ParallelSpec(tp=tp),
                              shared=shares, dtype=act_dtype, quantization=quant, fc_split=True,
                              fc_quantised=_mtp_fc_quantised(model, quant, release))
    tokens = spec.num_speculative_tokens or draft.num_layers
    shared = ", ".join(sorted(shares)) or "nothing"
    width = model.hidden_size if method == "mtp" else draft.spec.hidden_size  # the draft config's hidden size
    return Drafter(method=spec.method, weights=plan.bytes_per_rank, hidden_states_width=width,
                   inputs_embeds_width=width,
                   weights_source=f"{draft.source}: {draft.num_layers} layer(s) at TP {tp}, {plan.method}; shares "
                                  f"{shared} with the target (in vLLM's \"Model loading took\")",
                   kv=_kv(model, draft.spec, draft.num_layers, tp, kv_bytes, method == "mtp",
                          _dflash_window(draft.spec, release) if method == "dflash" else None, kv_format, release),
                   num_speculative_tokens=tokens)


def _mtp_fc_quantised(model: ModelSpec, quantization: str | None, release: tuple[int, ...] | None) -> bool:
    """Whether vLLM builds a Qwen MTP ``fc`` (a ``ColumnParallelLinear``, ``models.mtp_parts.mtp_parts``) with the
    model's quant config: from 0.11.0, except a ModelOpt NVFP4 checkpoint's from 0.20.0 (``qwen3_5_mtp.py``
    ``Qwen3_5MultiTokenPredictor.__init__``: ``fc_quant = None`` when ``quant_config.get_name() == "modelopt_fp4"``,
    'mtp.fc is stored as BF16 in NVFP4 checkpoints'; absent in 0.19.1, present 0.20.0 – 0.34.0). Whether a
    quantised ``fc`` is then kept BF16 by the ignore list is ``models.quant.is_ignored``'s (named ``mtp.fc``)."""
    from tpkit.models.quant import resolve_quant

    at = tuple(release[:3]) if release is not None else None
    if at is not None and at < (0, 11, 0):
        return False
    quant = resolve_quant(model.quant, quantization)
    modelopt_fp4 = quant is not None and quant.method == "fp4" and quant.raw_method in ("modelopt", "modelopt_fp4")
    return not (modelopt_fp4 and (at is None or at >= (0, 20, 0)))


def _dsv4_mtp(model: ModelSpec, spec: SpecConfig, parallel: ParallelSpec, draft, act_dtype: str,
              quantization: str | None, tp: int) -> Drafter:
    """DeepSeek-V4's MTP drafter (``models.dsv4_weights.dsv4_mtp_weights``: a decoder layer of the target's
    anatomy, FP8 / FP4 like the target, + e_proj / h_proj / hc_head; the embedding and head shared).  Its KV is the
    MTP layer's SWA cache, which ``engines.vllm.dsv4`` adds to the DeepSeek-V4 groups (``mtp_layers``), so ``kv``
    describes it only: one sliding layer of the model's window."""
    from tpkit.models.dsv4_weights import dsv4_mtp_weights
    from tpkit.models.quant import resolve_quant
    from tpkit.models.weights import local_shape

    quant = resolve_quant(model.quant, quantization)
    nbytes = dsv4_mtp_weights(model, parallel, layers=draft.num_layers, elem=act_dtype, quant=quant, engine="vllm",
                              shape=local_shape)
    window = model.sliding_window or 0
    kv = DraftKv(kind="sliding", num_layers=draft.num_layers, per_token_bytes=584, window=window,
                 label=f"DeepSeek-V4 MTP layer SWA cache(s) (window {window:,}; in the DeepSeek-V4 groups)")
    hc = int(model.extra.get("hc_mult") or 1)  # llm_base_proposer.py widens hidden_states by hc_mult
    return Drafter(method=spec.method, weights=nbytes, hidden_states_width=hc * model.hidden_size,
                   inputs_embeds_width=model.hidden_size,
                   weights_source=f"{draft.source}: {draft.num_layers} DeepSeek-V4 MTP layer(s) at TP {tp}, "
                                  "FP8 linears / FP4 experts like the target, + e_proj / h_proj / hc_head "
                                  "(models.dsv4_weights.dsv4_mtp_weights); shares the embedding and lm_head with "
                                  "the target (in vLLM's \"Model loading took\")",
                   kv=kv, num_speculative_tokens=spec.num_speculative_tokens or draft.num_layers)


def whole_model_draft(spec: SpecConfig | None) -> tuple[str, ...]:
    """The plan's warning for an EAGLE / EAGLE-3 drafter whose "model" is a whole model
    (``models.draft.whole_model_draft_note``; helper ux23), else ()."""
    if spec is None or spec.method not in ("eagle", "eagle3") or not spec.model:
        return ()
    from tpkit.models.draft import whole_model_draft_note
    from tpkit.models.load import load_model

    note = whole_model_draft_note(spec.method, load_model(spec.model), f'--speculative-config\'s "model" {spec.model}',
                                  standalone='"method": "draft_model"')
    return (note,) if note else ()
