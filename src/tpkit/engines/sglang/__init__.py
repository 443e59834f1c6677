"""SGLang memory policy (pure): default fractions, baseline, KV pool sizing, log lines, verdict.

    versions.py  release → rule era          defaults.py  default mem_fraction_static, capacity defaults
    options.py   SglangOptions (flags)       baseline.py  free memory before weights (context, NCCL, custom AR)
    pool.py      cell size, tokens, buffers  sizing.py    every number of one plan (budget, tokens, buffers)
    choices.py   what SGLang settles first: layout check, context, NSA KV defaults, capacity, fraction in effect
    mamba.py     linear-attention state pool verdict.py   fits / which knob
    logs.py      the lines SGLang prints     ledger.py    the plan's ledger lines from its sizing
    policy.py    plan_sglang (entry point)   engine.py    ENGINE: SGLang for the engine registry

The names below are imported on first use, so ``tpkit plan --help`` reads the options without the policy.
"""

from tpkit.lazy import lazy_getattr

__all__ = ["SglangOptions", "plan_sglang", "LATEST"]

_HOME = {"SglangOptions": "options", "plan_sglang": "policy", "LATEST": "versions"}


__getattr__ = lazy_getattr(__name__, _HOME)
