"""SGLang memory policy (pure): default fractions, baseline, KV pool sizing, log lines, verdict.

    versions.py  release → rule era          defaults.py  default mem_fraction_static, capacity defaults
    options.py   SglangOptions (flags)       baseline.py  free memory before weights (context, NCCL, custom AR)
    pool.py      cell size, tokens, buffers  sizing.py    every number of one plan
    mamba.py     linear-attention state pool verdict.py   fits / which knob
    logs.py      the lines SGLang prints
    policy.py    plan_sglang (entry point)
"""

from tpkit.engines.sglang.options import SglangOptions
from tpkit.engines.sglang.policy import plan_sglang
from tpkit.engines.sglang.versions import LATEST

__all__ = ["SglangOptions", "plan_sglang", "LATEST"]
