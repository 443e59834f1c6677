"""SGLang speculative decoding: the draft, its defaults, and where its memory comes from (pure).

    flags            --speculative-algorithm EAGLE | EAGLE3 | NEXTN | STANDALONE, --speculative-draft-model-path,
                     --speculative-num-steps, --speculative-eagle-topk, --speculative-num-draft-tokens
    defaults         NEXTN is EAGLE; a DeepSeek-V3/V3.2/V4, GLM-4 MoE, Bailing, Mistral-Large-3 … target without a
                     draft path drafts with its own MTP layers; steps/topk/draft tokens (5, 4, 8) for Llama and
                     Grok targets, (3, 1, 4) otherwise and for STANDALONE (0.5.23
                     ``arg_groups/speculative_hook.py _auto_choose_speculative_params``; 0.5.10 ``server_args.py
                     _handle_speculative_decoding``)
    running cap      max_running_requests when the user leaves it unset: none to 0.4.3.post2, 32 in
                     0.4.3.post3–0.4.4.post3, 48 from 0.4.4.post4 (``spec_running_cap``; the one home of the rule,
                     used by the planner's sizing and by ``tpkit perf``)
    draft weights    shared with the target: embedding and lm_head (MTP, EAGLE), the embedding (EAGLE-3; its
                     lm_head too when the draft has no draft vocab), nothing (STANDALONE)
                     (``speculative/eagle_worker_v2.py init_lm_head``)
    0.5.10–0.5.13    the draft worker is built after the target's pools: draft weights, draft KV pool (same token
                     count) and CUDA graphs come out of the slack; the default reserve grows instead
                     (``defaults.ReserveExtras``; ``managers/scheduler.py``)
    0.5.14–latest    the draft is loaded before the pools (``maybe_init_draft_worker``): its weights are in the
                     measured free memory; the target cell grows by ``int(cell × d / L)`` (d draft layers, L the
                     target's KV layers) — the draft pool is assumed to cost the target's per-layer KV
                     (``model_executor/pool_configurator.py DefaultPoolConfigurator``); the draft pool really
                     allocates its own per-layer KV (an EAGLE-3 GQA head on an MLA target: less)
    Qwen MTP         NEXTN/EAGLE on Qwen3-Next / Qwen3.5 / Qwen3.6 (``models.config.QWEN_MTP_ARCHS``) without a draft
                     path drafts with the model itself (``ModelConfig.from_server_args``: ``model_path or
                     server_args.model_path``), which SGLang loads as ``Qwen3NextForCausalLMMTP`` /
                     ``Qwen3_5ForCausalLMMTP`` with ``num_nextn_predict_layers = 1`` (``configs/model_config.py``,
                     0.5.10.post1 and 0.5.23): ONE full-attention layer (MoE or dense MLP) + ``fc`` + 3 norms
                     (``mtp_parts.mtp_parts``); embedding and lm_head shared (``set_embed_and_head``); its draft pool
                     is one layer of the target's full-attention KV (no linear-attention state; the target's
                     mamba pool keeps the verify states, ``mamba.py``)
    req_to_token     + ``speculative_num_draft_tokens`` columns (0.5.23 ``mem_cache/allocation_sizing.py
                     get_req_to_token_extra_context_len``; 0.5.10 the same sum)
"""

from __future__ import annotations

from dataclasses import replace

from tpkit.dtypes import DTYPES
from tpkit.engines.sglang.options import SPEC_ALGORITHMS, SglangOptions
from tpkit.engines.sglang.versions import at_least, release_key
from tpkit.errors import PlanInputError
from tpkit.models.config import QWEN_MTP_ARCHS
from tpkit.models.draft import DraftModel, load_draft, plan_draft_weights
from tpkit.models.kv import kv_heads_per_rank
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["SPEC_ALGORITHMS", "SpecPlan", "plan_speculative", "DEFAULT_SPEC_RUNNING_REQUESTS", "SpecRunningCap",
           "spec_running_cap", "spec_running_requests", "DRAFT_PATH_FILLED_ARCHS", "draft_cell_counted"]

DRAFT_PATH_FILLED_ARCHS = frozenset({
    "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV4ForCausalLM", "Glm4MoeForCausalLM",
    "Glm4MoeLiteForCausalLM", "GlmMoeDsaForCausalLM", "BailingMoeForCausalLM", "BailingMoeV2ForCausalLM",
    "BailingMoeV2_5ForCausalLM", "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "HYV3ForCausalLM"})
"""target architectures for which SGLang fills an unset ``--speculative-draft-model-path`` with the model path under
EAGLE (``arg_groups/speculative_hook.py _handle_eagle_family``; the same twelve in 0.5.14, 0.5.16, 0.5.17, 0.5.19)"""


PATHLESS_DRAFT_COUNTED_FROM = "0.5.20"
"""first release whose ``_resolve_eagle_aux_hidden_state`` reads a path-less draft's layers from the target's
``ModelConfig.num_nextn_predict_layers`` (0.5.20, 0.5.23) instead of leaving ``eagle_draft_num_layers`` unset
(0.5.14 – 0.5.19); tpkit keeps the cell scaled there (whether the target config yields the count is not modelled)"""


def draft_cell_counted(options: SglangOptions, architecture: str, algorithm: str) -> tuple[bool, str]:
    """(whether SGLang scales the target's cell by (1 + draft layers / target layers) when it sizes the pool, why).

    0.5.14 – 0.5.19 (``model_executor/model_runner.py`` 0.5.14 / 0.5.15, ``model_runner_components/
    spec_aux_hidden_state.py _resolve_eagle_aux_hidden_state`` 0.5.16 – 0.5.19) set ``eagle_draft_num_layers``, which
    ``pool_configurator.py DefaultPoolConfigurator`` / ``HybridSWAPoolConfigurator`` add to the cell, only for
    EAGLE / STANDALONE with ``speculative_draft_model_path`` set: given by the user, or filled with the model path
    for ``DRAFT_PATH_FILLED_ARCHS``.  An MTP draft of another architecture (Qwen3.5 / Qwen3.6, Qwen3-Next, MiMo …)
    launched without the flag leaves the cell unscaled; its draft KV pool is then allocated after the target's, from
    the slack (helper sgf14).  From 0.5.20 (``PATHLESS_DRAFT_COUNTED_FROM``) the cell stays scaled."""
    if algorithm not in ("EAGLE", "EAGLE3", "STANDALONE"):
        return True, ""
    if at_least(options.engine_version, PATHLESS_DRAFT_COUNTED_FROM):
        return True, (f"SGLang {options.engine_version}: a path-less draft's layers come from the target config's "
                      "num_nextn_predict_layers (spec_aux_hidden_state.py, 0.5.20 / 0.5.23; kept as counted)")
    if options.speculative_draft_model_path is not None:
        return True, "--speculative-draft-model-path given"
    if architecture in DRAFT_PATH_FILLED_ARCHS:
        return True, f"{architecture}: SGLang fills --speculative-draft-model-path with the model path"
    return False, (f"no --speculative-draft-model-path and {architecture} is not one whose path SGLang fills: "
                   "eagle_draft_num_layers unset, the target cell not scaled (spec_aux_hidden_state.py)")

DEFAULT_SPEC_RUNNING_REQUESTS = 48
"""max_running_requests SGLang sets under speculation when the user leaves it unset, 0.4.4.post4–0.5.23 (the newest
era of ``spec_running_cap``)"""

_SPEC_RUNNING_ERAS: tuple[tuple[tuple[int, int, int, int], int | None], ...] = (
    ((0, 0, 0, 0), None),
    ((0, 4, 3, 3), 32),
    ((0, 4, 4, 4), DEFAULT_SPEC_RUNNING_REQUESTS),
)
"""(first release as (major, minor, patch, post), max_running_requests set under speculation when unset)"""

_V4_RUNNING_REQUESTS = 256
"""DeepSeek-V4's own default (0.5.12+ ``arg_groups/deepseek_v4_hook.py apply_deepseek_v4_defaults``)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class SpecRunningCap:
    """What SGLang does to max_running_requests under speculation when ``--max-running-requests`` is unset."""

    requests: int | None
    """the value it sets (count, whole server, before the per-DP-rank split); None: it sets none"""
    source: str
    """the release's file and function, in words"""


def spec_running_cap(version: str, algorithm: str | None, *, architecture: str | None = None) -> SpecRunningCap:
    """The running-request cap SGLang release ``version`` sets under speculative ``algorithm`` (NEXTN, EAGLE, EAGLE3,
    STANDALONE; None: plain decoding, no cap) when ``--max-running-requests`` is unset.

    Read in every release wheel at the boundaries (``server_args.py`` ``__post_init__`` to 0.5.2,
    ``_handle_speculative_decoding`` 0.5.3–0.5.12, ``arg_groups/speculative_hook.py _handle_eagle_family`` from
    0.5.13; the NGRAM / DFLASH / Frozen-KV MTP branches set the same 48 but are not modelled):

    - up to 0.4.3.post2 (EAGLE read in 0.4.1.post7, 0.4.2, 0.4.2.post4, 0.4.3–0.4.3.post2): EAGLE sets none (0.4.3 also forces
      ``prefill_only_one_req``, no radix cache, no chunked prefill; the batch is then bounded by the memory only);
    - 0.4.3.post3 – 0.4.4.post3: 32 ("Max running request set to 32 because of using eagle speculative
      decoding"), for EAGLE and NEXTN (an alias of EAGLE), EAGLE3 from 0.4.4.post2 (its first release);
    - 0.4.4.post4 – 0.5.23: 48 for EAGLE / EAGLE3 / NEXTN, STANDALONE from 0.5.2 (its first release); 0.5.10+
      warn "Max running requests is reset to 48 for speculative decoding".

    No release ties it to DP attention, the page size, topk or the attention backend (with DP attention SGLang
    splits the value over the DP ranks, ``max_running_requests // dp_size``: ``spec_running_requests``). One
    model rule runs first: from 0.5.12 ``apply_deepseek_v4_defaults`` sets 256 for ``DeepseekV4ForCausalLM``
    (model-specific adjustments run before the speculative handler), so the 48 never applies to it. An algorithm
    the release does not have yet gets its era's value."""
    if algorithm is None:
        return SpecRunningCap(requests=None, source="plain decoding: no cap")
    release = release_key(version)
    if architecture == "DeepseekV4ForCausalLM" and release >= (0, 5, 12, 0):
        return SpecRunningCap(requests=_V4_RUNNING_REQUESTS, source=(
            "DeepSeek-V4's own default 256, set before the speculative handler (0.5.12+ "
            "arg_groups/deepseek_v4_hook.py apply_deepseek_v4_defaults)"))
    value = None
    for first, cap in _SPEC_RUNNING_ERAS:
        if release >= first:
            value = cap
    if value is None:
        return SpecRunningCap(requests=None, source=(
            f"sglang {version} sets no running-request cap under speculation (up to 0.4.3.post2, "
            "server_args.py __post_init__)"))
    where = ("server_args.py __post_init__" if release < (0, 5, 3, 0) else
             "server_args.py _handle_speculative_decoding" if release < (0, 5, 13, 0) else
             "arg_groups/speculative_hook.py _handle_eagle_family")
    era = "0.4.3.post3–0.4.4.post3" if value == 32 else "0.4.4.post4–0.5.23"
    return SpecRunningCap(requests=value, source=(
        f"sglang {version} sets max_running_requests {value} under speculation when --max-running-requests is unset "
        f"({era}, {where})"))


def spec_running_requests(version: str, algorithm: str | None, user: int | None, *, attn_dp: int = 1,
                          architecture: str | None = None) -> int | None:
    """max_running_requests per attention-DP rank under ``algorithm``: the user's ``--max-running-requests``, else
    the release's speculative cap (``spec_running_cap``), split over the DP ranks (``max_running_requests //
    dp_size``: 0.4.4 ``managers/tp_worker.py``, 0.5.9 ``model_executor/model_runner.py``); None: no cap."""
    value = user if user is not None else spec_running_cap(version, algorithm, architecture=architecture).requests
    return None if value is None else max(1, value // max(1, attn_dp))

_BUILTIN_MTP_ARCHS = frozenset({
    "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV4ForCausalLM", "Glm4MoeForCausalLM",
    "Glm4MoeLiteForCausalLM", "GlmMoeDsaForCausalLM", "BailingMoeForCausalLM", "BailingMoeV2ForCausalLM",
    "BailingMoeV2_5ForCausalLM", "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "HYV3ForCausalLM",
    "HYV4ForCausalLM", "Qwen4ExpForConditionalGeneration"})
"""targets whose draft path defaults to the model itself (their MTP layers), 0.5.23 ``_handle_eagle_family``"""

_WIDE_TREE_ARCHS = frozenset({"LlamaForCausalLM", "Grok1ForCausalLM", "Grok1VForCausalLM"})
"""targets whose default (steps, topk, draft tokens) is (5, 4, 8)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class SpecPlan:
    """What speculative decoding adds to one rank."""

    algorithm: str
    """the algorithm as SGLang resolves it (NEXTN → EAGLE)"""
    draft: DraftModel
    """the draft model (its spec, KV layers and source)"""
    num_steps: int
    """draft steps per verify (count)"""
    eagle_topk: int
    """branching per draft step (count)"""
    num_draft_tokens: int
    """tokens verified per step (count): extra req_to_token columns"""
    weights: Bytes
    """draft weight bytes per rank (shared tensors left out)"""
    weights_source: str
    """how the draft weights were derived"""
    loaded_before_pool: bool
    """True from 0.5.14: draft weights are in the measured free memory and the cell grows"""
    draft_layers: int
    """draft KV layers ``d`` (count)"""
    draft_bytes_per_token: int
    """bytes per token the draft KV pool really allocates on this rank (all draft layers)"""
    draft_kv_dims: tuple[int, int, int]
    """(KV heads per rank, K dim, V dim) of the draft pool's layers (MLA: (1, latent + rope, 0))"""
    draft_kv_dtype: str
    """draft pool element dtype (the target's KV dtype)"""
    weights_at_load: Bytes = Bytes(0)
    """draft weight bytes per rank while the draft loads, shared tensors included: SGLang builds the draft with
    its own embedding (and lm_head) and only then swaps in the target's — ``set_embed`` / ``set_embed_and_head``
    ``del`` the draft's tensor and ``torch.cuda.empty_cache()`` (0.5.2 ``speculative/eagle_worker.py``
    ``EAGLEWorker.__init__`` after ``super().__init__``, ``models/llama.py set_embed``; 0.5.20
    ``speculative/eagle_worker_v2.py``, same order; MTP drafts too: ``models/deepseek_nextn.py``,
    ``qwen3_next_mtp.py`` and ``qwen3_5_mtp.py`` build a ``VocabParallelEmbedding`` and a ``ParallelLMHead`` of
    their own, 0.5.10.post1 – 0.5.23; measured: sgl-project/sglang PR #32468, v0.5.19, Qwen3.5-style MTP at TP 2
    'Load weight end. type=Qwen3_5ForCausalLMMTP … mem usage=2.57 GB', of which ~2.37 GiB the two bf16
    vocab tables). The draft's 'Load weight end … mem usage' prints this peak;
    the steady state (``weights``) is what stays. 0 when not derived (caller-given weights)."""


def resolved_algorithm(options: SglangOptions) -> str | None:
    """The algorithm as SGLang runs it: NEXTN is an alias of EAGLE."""
    algo = options.speculative_algorithm
    return "EAGLE" if algo == "NEXTN" else algo


def plan_speculative(target: ModelSpec, parallel: ParallelSpec, options: SglangOptions, *,
                     kv_dtype: str, weights: Bytes | None = None) -> SpecPlan | None:
    """The draft of ``options`` and its memory on one rank (None without ``--speculative-algorithm``);
    ``weights`` overrides the derived draft weight bytes per rank (e.g. measured)."""
    algo = resolved_algorithm(options)
    if algo is None:
        return None
    if algo == "STANDALONE" and parallel.dp_attention:
        raise PlanInputError("SGLang refuses --speculative-algorithm STANDALONE with --enable-dp-attention "
                             "(_handle_eagle_family); use EAGLE/EAGLE3 or drop DP attention")
    draft = _draft(target, algo, options)
    steps, topk, tokens = _tree(target, algo, options)
    shared = _shared(draft)
    plan = plan_draft_weights(draft, parallel, shared=shared,
                              dtype=options.dtype if draft.method == "mtp" else None,
                              quantization=options.quantization if draft.method == "mtp" else None)
    heads, k_dim, v_dim = _draft_kv_dims(draft, parallel)
    per_token = heads * (k_dim + v_dim) * DTYPES[kv_dtype].bytes * draft.num_layers
    shared_text = f"; {', '.join(sorted(shared))} shared with the target" if shared else ""
    w_bytes, w_source = plan.bytes_per_rank, f"{draft.method} draft, {plan.method}{shared_text}"
    at_load = (plan_draft_weights(draft, parallel, dtype=options.dtype if draft.method == "mtp" else None,
                                  quantization=options.quantization if draft.method == "mtp" else None).bytes_per_rank
               if shared and draft.method in ("eagle", "eagle3", "mtp") else plan.bytes_per_rank)
    if weights is not None:
        w_bytes, w_source, at_load = weights, f"{draft.method} draft, given by the caller", Bytes(0)
    return SpecPlan(algorithm=algo, draft=draft, num_steps=steps, eagle_topk=topk, num_draft_tokens=tokens,
                    weights=w_bytes, weights_source=w_source,
                    loaded_before_pool=at_least(options.engine_version, "0.5.14"), draft_layers=draft.num_layers,
                    draft_bytes_per_token=per_token, draft_kv_dims=(heads, k_dim, v_dim), draft_kv_dtype=kv_dtype,
                    weights_at_load=at_load)


def _draft(target: ModelSpec, algo: str, options: SglangOptions) -> DraftModel:
    path = options.speculative_draft_model_path
    if path is not None and path.strip().lower() == target.name.strip().lower():
        path = None  # the draft path is the model itself: its MTP layers
    if path is None:
        if algo == "EAGLE" and (target.architecture in _BUILTIN_MTP_ARCHS or target.num_nextn_layers):
            draft = load_draft("mtp", None, target=target)
            if target.architecture in QWEN_MTP_ARCHS and draft.num_layers != 1:
                # SGLang builds one MTP layer whatever the config declares (module docstring: Qwen MTP)
                draft = replace(draft, num_layers=1, source=f"{draft.source}; SGLang builds 1 of them")
            return draft
        raise PlanInputError(
            f"--speculative-algorithm {options.speculative_algorithm} on {target.name} needs "
            "--speculative-draft-model-path (a draft config.json, checkpoint dir, HF id or catalog name"
            + (", e.g. " + ", ".join(_catalog_drafts(target)) if _catalog_drafts(target) else "") + ")")
    if algo == "STANDALONE":
        return load_draft("standalone", path, target=target)
    draft = load_draft("eagle3", path, target=target)
    if algo == "EAGLE" and not draft.spec.architecture.endswith("Eagle3"):
        return load_draft("eagle", path, target=target)
    return draft


def _catalog_drafts(target: ModelSpec) -> tuple[str, ...]:
    from tpkit.models.draft import catalog_drafts

    return catalog_drafts(target.extra.get("catalog_id") or target.name)


def _tree(target: ModelSpec, algo: str, options: SglangOptions) -> tuple[int, int, int]:
    """(steps, topk, draft tokens): the user's, else SGLang's choice for the target architecture."""
    steps, topk, tokens = (options.speculative_num_steps, options.speculative_eagle_topk,
                           options.speculative_num_draft_tokens)
    if steps is None and topk is None and tokens is None:
        wide = algo != "STANDALONE" and target.architecture in _WIDE_TREE_ARCHS
        return (5, 4, 8) if wide else (3, 1, 4)
    if steps is None:
        raise PlanInputError("--speculative-eagle-topk / --speculative-num-draft-tokens need --speculative-num-steps "
                             "too (SGLang chooses all three or none), e.g. --speculative-num-steps 3")
    topk = 1 if topk is None else topk
    if topk == 1:
        tokens = steps + 1  # a chain: SGLang sets draft tokens = steps + 1
    elif tokens is None:
        raise PlanInputError(f"--speculative-eagle-topk {topk} needs --speculative-num-draft-tokens (the tree's "
                             "verified tokens), e.g. --speculative-num-draft-tokens 8")
    return steps, topk, tokens


def _shared(draft: DraftModel) -> frozenset[str]:
    """Draft tensors SGLang takes from the target (``init_lm_head``; ``set_embed`` / ``set_embed_and_head``)."""
    if draft.method in ("mtp", "eagle"):
        return frozenset({"embedding", "lm_head"})
    if draft.method == "standalone":
        return frozenset()
    spec = draft.spec
    shared = set()
    if int(spec.extra.get("target_hidden_size") or spec.hidden_size) == spec.hidden_size:
        shared.add("embedding")
    if not spec.tie_word_embeddings and spec.extra.get("draft_vocab_size") is None:
        shared.add("lm_head")  # load_lm_head_from_target
    return frozenset(shared)


def _draft_kv_dims(draft: DraftModel, parallel: ParallelSpec) -> tuple[int, int, int]:
    spec = draft.spec
    if spec.mla is not None:
        return 1, spec.mla.kv_lora_rank + spec.mla.qk_rope_head_dim, 0
    return kv_heads_per_rank(spec, parallel.attn_tp), spec.head_dim, spec.v_head_dim


def budget_cell_growth(cell_bytes: float, target_kv_layers: int, spec: SpecPlan | None) -> float:
    """Bytes per token SGLang adds to the target cell for the draft pool (0.5.14+): ``int(cell × d / L)``."""
    if spec is None or not spec.loaded_before_pool or target_kv_layers < 1:
        return 0
    return int(cell_bytes * spec.draft_layers / target_kv_layers)
