"""How SGLang runs the passes of a decode step on one GPU architecture (pure engine facts; ``perf.runtime``
assembles them into its ``Runtime``).

    in:  SGLang version, attention backend, MLA or not, top-k, the speculative algorithm, SGLANG_ENABLE_SPEC_V2
    out: the ``Runtime`` fields for SGLang (overlap, verify kernel, graphs, spec v1/v2) with the facts' sources

Facts read from SGLang's own sources (wheels in /work/data/wheels, 2026-12-01; the default attention backend is
``sglang_default_backend``):

    attention backend  ``_get_default_attn_backend`` (0.5.10 server_args.py; 0.5.23
                       arg_groups/model_override_base.py ``get_default_attn_backend``): MLA → fa3 on SM90,
                       flashinfer on SM100, triton elsewhere (SM120, SM80/86/89); MHA → fa3 on SM90 unless
                       topk > 1, trtllm_mha on SM100 unless topk > 1, else flashinfer.  Before 0.4.6
                       (``FA3_DEFAULT_FIRST``): MHA → flashinfer, MLA → triton (helper sp14).  On ROCm (the GPU
                       catalog's vendor, not the compute capability): ``sglang_rocm_backend`` (helper mi20)
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
    MoE router         grouped sigmoid routing with a correction bias: a fused gate or the unfused torch.compile
                       fallback (``router_extra_kernels``)
"""

from __future__ import annotations


from tpkit.errors import PlanInputError
from tpkit.hardware.gpu import is_amd
from tpkit.perf.constants import C

__all__ = ["sglang_spec_v2", "sglang_default_backend", "sglang_rocm_backend", "FA3_DEFAULT_FIRST", "AITER_DEFAULT_FIRST",
           "AITER_MLA_SPEC_FIRST", "AITER_MLA_HEADS",
           "AITER_MLA_VERIFY_FIRST", "SPEC_V2_FLAG", "SPEC_V2_FIRST", "SPEC_V2_DEFAULT", "SPEC_V2_ONLY",
           "SKIP_LAST_DRAFT_FORWARD", "router_extra_kernels", "ROUTER_FALLBACK_KERNELS", "MOE_FUSED_GATE_FIRST",
           "KIMI_GATE_FIRST", "spec_v1_sync_host_us", "spec_v1_request_host_us", "STREAM_NEW_IDS_FROM",
           "streams_new_ids_only"]


FA3_DEFAULT_FIRST = (0, 4, 6)
"""first SGLang release whose automatic attention backend picks fa3 (0.4.6 ``model_runner.py``
``model_specific_adjustment``: fa3 on Hopper for MLA, and for MHA with topk 1 on the listed architectures); before it
an MHA model takes flashinfer (``server_args.py``: "flashinfer" if available, read in 0.4.3, 0.4.4.post2, 0.4.5) and
an MLA model runs triton ("MLA optimization is turned on. Use triton backend": forced in 0.4.3–0.4.4.post2 unless
--enable-flashinfer-mla (0.4.4.post2 also --enable-flashmla), the default in 0.4.5)"""


def sglang_default_backend(ver: tuple[int, int, int], cc: tuple[int, int], mla: bool, topk: int | None, *,
                           vendor: str = "NVIDIA", kv_heads_per_rank: int | None = None,
                           speculative: bool = False) -> str:
    """SGLang's attention backend when none is given (vLLM's is ``engines.vllm.backend_choice.auto_attention_backend``):
    the module docstring's rule from 0.4.6, flashinfer (MHA) / triton (MLA) before ``FA3_DEFAULT_FIRST``.  Not
    modelled: 0.4.6+'s list of architectures that get fa3 (``is_fa3_default_architecture``; the others take
    flashinfer, which perf prices as it prices fa3: both split the KV).  ``vendor`` (the GPU catalog's) "AMD": the
    ROCm rule, ``sglang_rocm_backend`` (``kv_heads_per_rank`` and ``speculative`` are read there only); the compute
    capability is not read for it (MI300X reports 9.4, which is not Hopper)."""
    if is_amd(vendor):
        return sglang_rocm_backend(ver, mla, kv_heads_per_rank=kv_heads_per_rank, speculative=speculative)
    if ver < FA3_DEFAULT_FIRST:
        return "triton" if mla else "flashinfer"
    chain = topk is None or topk == 1
    if mla:
        return {9: "fa3", 10: "flashinfer"}.get(cc[0], "triton")
    if cc[0] == 9 and chain:
        return "fa3"
    if cc[0] == 10 and chain:
        return "trtllm_mha"
    return "flashinfer"


AITER_DEFAULT_FIRST = (0, 4, 7)
"""first SGLang release (as tpkit reads versions: post releases fold into their base) whose automatic backend on
ROCm (``is_hip()``) is ``aiter``: MHA → aiter unconditionally; MLA → aiter when ``get_num_kv_heads(tp_size)`` is
16 or 128 ("current aiter only support head number 16 or 128"), else triton (0.4.7 ``model_runner.py``
``model_specific_adjustment``).  The MHA branch is already in 0.4.6.post5 (absent from 0.4.6.post3); 0.4.6 and
older run triton on ROCm: neither fa3 (``is_hopper_with_cuda_12_3`` needs ``is_cuda()``) nor flashinfer
(``is_flashinfer_available`` needs ``is_cuda()``; 0.4.5 / 0.4.6 ``utils.py``) is picked there"""
AITER_MLA_SPEC_FIRST = (0, 5, 3)
"""first release whose ROCm MLA rule no longer also asks for no speculation: 0.4.7–0.5.2 take aiter for MLA only
with ``self.spec_algorithm.is_none()`` (read in 0.4.7, 0.4.8, 0.4.10, 0.5.2), so an EAGLE/NEXTN deployment runs
triton; 0.5.3 (``model_runner.py``), 0.5.5–0.5.10 (``server_args.py``), 0.5.15 (``_get_default_attn_backend``) and
0.5.23 (``arg_groups/model_override_base.py`` ``get_default_attn_backend``) drop that condition"""
AITER_MLA_VERIFY_FIRST = (0, 5, 0)
"""first release (0.5.0rc2, read; tpkit folds pre-releases into 0.5.0) whose aiter backend has an MLA target-verify
branch: ``forward_extend``'s ``is_target_verify()`` runs ``mla_decode_fwd`` (absorbed, split-KV decode; also read
in 0.5.1, 0.5.2, 0.5.6, 0.5.10, 0.5.23, which pass num_kv_splits from 0.5.10).  The 0.4.7 and 0.5.0rc0 wheels have
none: DeepSeek's absorbed verify (qk_head_dim = kv_lora_rank + rope) falls through both MLA branches of
``forward_extend`` (the auto rule's no-speculation condition keeps those releases on triton).  A given
``--attention-backend aiter`` with speculation is priced with the 0.5.0rc2 kernel for every release, since a run
that worked must have had it (the rocm_dsv3_mtp source ran it on the v0.5.0rc0 ROCm image)"""
AITER_MLA_HEADS = (16, 128)
"""KV heads per rank (``model_config.get_num_kv_heads(tp_size)``: the config's num_key_value_heads // tp, at
least 1) for which the ROCm rule gives an MLA model aiter (every release from 0.4.7 to 0.5.23)"""


def sglang_rocm_backend(ver: tuple[int, int, int], mla: bool, *, kv_heads_per_rank: int | None,
                        speculative: bool) -> str:
    """SGLang's automatic attention backend on ROCm (an AMD GPU of the catalog), by release: triton before
    ``AITER_DEFAULT_FIRST``; from it aiter for MHA, and for MLA aiter when the KV heads per rank are in
    ``AITER_MLA_HEADS`` (and, before ``AITER_MLA_SPEC_FIRST``, no speculative algorithm is set), else triton.
    ``kv_heads_per_rank`` None (not known) counts as not in the list.  SGLANG_USE_AITER is not read by this
    choice in any release read (0.4.6–0.5.23: it gates aiter's MoE / GEMM / norm paths, e.g. GPT-OSS's MoE runner
    in 0.5.10 ``server_args.py`` and 0.5.23 ``model_overrides/gpt_oss.py``).  Not modelled: model-specific
    overrides on ROCm (0.5.15+ ``arg_groups/overrides.py``: DeepSeek sparse attention's paged-MQA fallback, GPT-OSS,
    Llama 4's allowed list) and out-of-tree platforms."""
    if ver < AITER_DEFAULT_FIRST:
        return "triton"
    if not mla:
        return "aiter"
    if speculative and ver < AITER_MLA_SPEC_FIRST:
        return "triton"
    return "aiter" if kv_heads_per_rank in AITER_MLA_HEADS else "triton"


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


def _sglang(ver, backend, mla, topk, algorithm, spec_v2=None, rocm=False) -> dict:
    facts = [f"attention backend {backend} (sglang get_default_attn_backend on ROCm: MHA → aiter from 0.4.7, MLA → "
             "aiter with 16 or 128 KV heads per rank (0.4.7–0.5.2: and no speculation), else triton)" if rocm else
             f"attention backend {backend} (sglang get_default_attn_backend: MLA → fa3 on SM90, flashinfer on "
             "SM100, triton elsewhere)"]
    split = backend != "triton" and not (backend == "aiter" and not mla)
    if backend == "aiter" and mla and algorithm is not None and ver < AITER_MLA_VERIFY_FIRST:
        facts.append("aiter backend (ROCm): the 0.4.7–0.5.0rc0 wheels have no MLA target-verify branch "
                     "(aiter_backend.py forward_extend); priced as 0.5.0rc2's mla_decode_fwd verify")
    if backend == "aiter":
        facts.append("aiter backend (ROCm): " + (
            "the MLA verify runs aiter's mla_decode_fwd, which splits the KV (0.5.10–0.5.23 pass num_kv_splits), "
            "priced as a split-KV decode, the draft extend alike" if mla else
            "the MHA verify and draft extend run without a KV split (read in 0.4.7, 0.5.2, 0.5.6: "
            "mha_batch_prefill_func, CK FMHA; 0.5.10, 0.5.15, 0.5.23: triton extend_attention_fwd, unless 0.5.15+ "
            "runs unified_attention at topk 1 under SGLANG_USE_AITER_UNIFIED_ATTN=1 or a sliding-window KV pool), "
            "priced as the triton verify below (sglang layers/attention/aiter_backend.py forward_extend)"))
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
    if ver >= SPEC_V2_ONLY:
        return _spec_v2_only(requested)
    if ver >= SPEC_V2_DEFAULT:
        return _spec_v2_by_default(topk, chain, requested)
    return _spec_v2_opt_in(ver, topk, chain, algorithm, requested)


def _spec_v2_only(requested: bool | None) -> tuple[bool, str]:
    """≥ 0.5.13 (spec_info.py ``create_worker``: V2 workers only): (True — spec v2, the reason text); raises
    ``PlanInputError`` where v1 is asked for (``requested`` False)."""
    if requested is False:
        raise PlanInputError("--sglang-spec-v2 off: SGLang 0.5.13 and later have no spec v1 worker "
                             "(eagle_worker.py removed; SGLANG_ENABLE_SPEC_V2 is no longer read); drop the flag "
                             "or give --engine-version 0.5.12 or older")
    return True, ("spec v2 (overlap scheduling) for every EAGLE-family setting from 0.5.13 (spec_info.py "
                  "create_worker: V2 workers only)" + (" — as asked" if requested else ""))


def _spec_v2_by_default(topk: int | None, chain: bool, requested: bool | None) -> tuple[bool, str]:
    """0.5.11–0.5.12 (environ.py SGLANG_ENABLE_SPEC_V2 default True; server_args.py falls back to v1 for topk > 1):
    (whether spec v2 runs, the reason text); raises ``PlanInputError`` for v2 asked with topk > 1 (``chain``
    False)."""
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


def _spec_v2_opt_in(ver: tuple[int, int, int], topk: int | None, chain: bool, algorithm: str,
                    requested: bool | None) -> tuple[bool, str]:
    """Up to 0.5.10 (v1 by default; v2 only when asked: 0.5.4's ``--enable-beta-spec``, 0.5.5–0.5.10's
    SGLANG_ENABLE_SPEC_V2): (whether spec v2 runs, the reason text); raises ``PlanInputError`` for v2 asked where
    the release has no v2 worker (before 0.5.4, STANDALONE before 0.5.8) or refuses topk > 1 (0.5.7–0.5.10)."""
    name = "SGLANG_ENABLE_SPEC_V2" if ver >= (0, 5, 5) else "--enable-beta-spec"
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


ROUTER_FALLBACK_KERNELS = 6
"""small kernels per MoE layer that SGLang's unfused router adds over a fused gate (lower bound;
``router_extra_kernels``)"""
MOE_FUSED_GATE_FIRST = (0, 4, 6, 0)
"""first SGLang release whose ``biased_grouped_topk_gpu`` calls ``moe_fused_gate`` (absent in the 0.4.5 wheel)"""
KIMI_GATE_FIRST = (0, 5, 5, 3)
"""first SGLang release with ``kimi_k2_moe_fused_gate`` for E = 384, n_group = 1 (absent in 0.5.5.post2)"""


def router_extra_kernels(*, num_experts: int, n_group: int, release: tuple[int, int, int, int],
                         label: str) -> tuple[int, str]:
    """(extra small kernels per MoE layer, why) for grouped sigmoid routing with a score-correction bias on NVIDIA
    (DeepSeek-V3 ``noaux_tc``, GLM-4.5/4.6/4.7-Flash/5, Kimi-K2) in SGLang ``release`` (major, minor, patch, post);
    (0, "") when a fused gate runs.  Models whose SGLang module builds ``TopK(use_grouped_topk=True,
    correction_bias=...)`` (``models/deepseek_v2.py``, ``glm4_moe.py``, ``glm4_moe_lite.py``) route through
    ``select_experts`` → ``biased_grouped_topk_gpu`` (``layers/moe/topk.py``; read in the 0.4.3, 0.4.4.post2, 0.4.5,
    0.4.6, 0.4.6.post1, 0.4.7, 0.4.8, 0.5.0rc0, 0.5.2–0.5.5, 0.5.5.post1–post3, 0.5.6, 0.5.8, 0.5.10, 0.5.15 wheels),
    which takes, in this order:

        fused_topk_deepseek     FlashInfer, 0.5.8 and later (absent in 0.5.6): E a power of two, top-k ≤ 8,
                                topk_group ≤ n_group, topk_group × n_group ≥ top-k and, for n_group > 1, E / n_group
                                ≤ 32 (n_group = 1: E ≤ 384).  With n_group = 1 that needs top-k = 1, and every
                                n_group > 1 model it takes also passes moe_fused_gate, so it adds no case here
        moe_fused_gate          sgl-kernel, from 0.4.6: E a power of two and E / n_group ≤ 32
        aiter                   ROCm only (the rule is for NVIDIA GPUs)
        kimi_k2_moe_fused_gate  E = 384, n_group = 1, from 0.5.5.post3
        else                    ``biased_grouped_topk_impl`` under ``@torch.compile(dynamic=True)``: sigmoid + bias,
                                a top-2 per group and its sum, a top-k over the groups, a scatter into a group mask, a
                                masked fill, the top-k over the experts, a gather, the renormalising sum and divide,
                                the casts; before 0.4.6 ``biased_grouped_topk`` itself is this compiled function

    Inductor cannot fuse across ``aten.topk`` (an extern kernel), so the three top-k calls leave four fused regions,
    each ending in a tensor the next top-k or the caller reads: at least 3 + 4 = 7 launches where a fused gate makes
    1, i.e. ``ROUTER_FALLBACK_KERNELS`` more small kernels per MoE layer per forward (a lower bound: the scatter, a
    fused shared expert's id and the casts can add launches), priced like the profile's other small kernels.
    GLM-4.7-Flash (E 64 in one group), GLM-4.5/4.6 (E 160) and GLM-5 (E 256 in one group) run the fallback in every
    release read; DeepSeek-V3/R1 (8 groups of 32) only before 0.4.6; Kimi-K2 up to 0.5.5.post2."""
    def power_of_two(n: int) -> bool:
        return n > 0 and n & (n - 1) == 0

    if release >= MOE_FUSED_GATE_FIRST and power_of_two(num_experts) and num_experts // n_group <= 32:
        return 0, ""
    if release >= KIMI_GATE_FIRST and num_experts == 384 and n_group == 1:
        return 0, ""
    why = ("the compiled biased_grouped_topk of every model before 0.4.6" if release < MOE_FUSED_GATE_FIRST else
           f"no fused gate for {num_experts} experts in {n_group} group{'s' if n_group > 1 else ''} "
           "(moe_fused_gate needs a power of two and ≤ 32 per group)")
    return ROUTER_FALLBACK_KERNELS, (f"SGLang {label} router: {why}, so biased_grouped_topk_impl (torch.compile) "
                                     f"runs: +{ROUTER_FALLBACK_KERNELS} small kernels per MoE layer "
                                     "(layers/moe/topk.py)")


def _spec_v1(rt) -> bool:
    """SGLang speculation without the overlap scheduler (spec v1): its host work each cycle is exposed."""
    return rt.engine == "sglang" and not rt.spec_overlap


def spec_v1_sync_host_us(rt) -> float:
    """Host work per speculative cycle that the GPU waits for when the engine does not overlap it
    (``sglang_spec_v1_host_us``; ``rt``: a ``perf.runtime.Runtime``).  SGLang spec v1 only: vLLM before async
    scheduling (< 0.14) exposes its host work in plain decoding and in speculation alike, and a constant for it fitted
    to zero on the training rows (bench/decode_fit.py)."""
    return C["sglang_spec_v1_host_us"].value if _spec_v1(rt) else 0.0


STREAM_NEW_IDS_FROM = (0, 4, 6, 4)
"""``release_key`` of the first SGLang release whose ``stream_output_generation`` sends only the new output ids
(``decode_ids[req.send_decode_id_offset:]`` in ``managers/scheduler_output_processor_mixin.py``: present in the
0.4.6.post4, 0.4.6.post5, 0.4.7, 0.4.8 and 0.4.9 wheels, absent in 0.4.4.post2, 0.4.5, 0.4.6 and 0.4.6.post3)"""


def streams_new_ids_only(version: str | None) -> bool:
    """The release (``version`` as given; None: the newest) is at or after ``STREAM_NEW_IDS_FROM``; its post number is
    read by ``engines.sglang.versions.release_key``, the one reader of SGLang's post releases."""
    if version is None:
        return True
    from tpkit.engines.sglang.versions import release_key
    return release_key(version) >= STREAM_NEW_IDS_FROM


def spec_v1_request_host_us(rt, running: int) -> float:
    """µs per speculative cycle of per-request host work the GPU waits for: SGLang without spec overlap only
    (``rt``: a ``perf.runtime.Runtime``; cost per request × ``running``; helper sp19b, the release split helper tidy19).

        in:  the cycle's runtime (engine, whether speculation overlaps the host), the running requests
        out: µs of host time per cycle the GPU waits for, on top of the fixed ``sglang_spec_v1_host_us``

    Read in the sglang 0.4.4.post2 wheel (and the same loops in 0.4.9): speculation runs without the overlap scheduler
    (spec v1), so what the scheduler does per request after every cycle is exposed, where plain decoding hides it
    behind the next step:

        ``speculative/eagle_utils.py``  ``EagleVerifyInput.verify``: per request and accepted token
                                        ``req.output_ids.append`` and ``req.check_finished()``
        ``managers/scheduler_output_processor_mixin.py``  ``process_batch_result_decode``: per request
                                        ``req.check_finished()``; then ``stream_output_generation``: per streamed
                                        request ``req.init_incremental_detokenize()`` (prompt + output list, sliced) and
                                        one entry in each list of the ``BatchTokenIDOut`` that ``send_pyobj`` pickles
                                        (0.4.4.post2 sends the whole output so far every cycle; 0.4.9 only the new ids,
                                        ``send_decode_id_offset``)

    Size: ``sglang_spec_v1_host_per_request_us``, these calls of the release's own code timed on a CPU by
    ``bench/sglang_host_per_request.py`` (docs/benchmarks.md §3.10): 6.2 µs per running request per cycle (0.4.4.post2,
    512-token outputs, accept length 2.18), 4.6 µs (0.4.9: ``sglang_spec_v1_host_per_request_new_ids_us``).  The
    per-request cost follows the release: from 0.4.6.post4 (``STREAM_NEW_IDS_FROM``, ``rt.stream_new_ids_only``) the
    0.4.9 figure, before it the 0.4.4.post2 one.  A lower bound: the GPU→CPU copies, the tensor iteration and ZMQ's
    send are not timed.  Spec v2 (overlap) and vLLM: 0 here (their host share is ``spec_host_fraction``).
    """
    if not _spec_v1(rt):
        return 0.0
    key = ("sglang_spec_v1_host_per_request_new_ids_us" if rt.stream_new_ids_only
           else "sglang_spec_v1_host_per_request_us")
    return C[key].value * max(0, running)
