"""vLLM memory policy (pure): budget, profile-run estimate, CUDA-graph estimate, KV pages and blocks.

    plan_vllm(model, gpu, parallel, VllmOptions(...), machine=None, weights=None) -> PlanResult

Modules, in vLLM's start-up order: ``versions`` (the rules of each release, as data; ``rules`` the
``VllmRules`` record and what each field decides), ``options``/``inputs``
(flags and defaults), ``layout`` (--data-parallel-size, --enable-expert-parallel, DCP), ``speculative``
(--speculative-config), ``blocksize`` (block size per backend), ``baseline``/``allreduce`` (start-up memory
and where it counts), ``profile`` (activation peak estimate), ``graphs`` (CUDA-graph estimate),
``profile_lines`` (the profile run's lines of one plan), ``drafter`` (the speculative drafter's weights and KV
layers), ``budget`` (requested and available KV bytes, ledger),
``mamba``/``pages`` (page sizes, groups, mamba cache mode; ``layer_bytes`` the bytes one layer keeps per token
or per request, ``kvgroups`` the ``KvGroup``/``KvLayout``/``DraftKv`` records), ``capacity`` (blocks, printed
tokens, fit check),
``verdict`` and ``logs`` (vLLM's words); ``engine`` registers vLLM with the engine registry.

The names below are imported on first use, so ``tpkit plan --help`` reads the options without the policy.
"""

from tpkit.lazy import lazy_getattr

__all__ = ["plan_vllm", "VllmOptions", "resolve_rules", "RULES", "CURRENT", "rotary_cache_bytes"]

_HOME = {"plan_vllm": "policy", "rotary_cache_bytes": "policy", "VllmOptions": "options",
         "resolve_rules": "versions", "RULES": "versions", "CURRENT": "versions"}


__getattr__ = lazy_getattr(__name__, _HOME)
