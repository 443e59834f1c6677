"""SGLang on ROCm: the memory a rank loses between SGLang's pre sample and 'Load weight begin', bounded from the log.

SGLang samples ``pre_model_load_memory`` in ``ModelRunner.init_torch_distributed`` right after the distributed init
(``min_per_gpu_memory = get_available_gpu_memory(distributed=True)``), then this rank's free memory
(``local_gpu_memory``), and prints 'Init torch distributed ends. mem usage' = the free memory before the init − that
local sample; ``load_model`` samples and prints 'Load weight begin. avail mem' later, after ``initialize`` has built the
expert-location metadata, the expert-distribution recorder and the sampler (read in the 0.5.4.post1 and 0.5.6 wheels,
``model_executor/model_runner.py``: ``__init__`` → ``init_torch_distributed`` → ``initialize`` → ``load_model``).  The
slack ``(1 − mem_fraction_static) × pre`` is taken from the first sample, while the rebuild reads the second: memory
taken in between (X) raises the slack by (1 − f) × X and lowers the KV budget by as much, unprinted.

What allocates X is in the source, its size is not: ``initialize`` builds the expert-location metadata on the GPU
(``eplb/expert_location.py`` ``compute_initial_expert_location_metadata``: tensors moved to the device, pads, counts)
only for the model classes with ``get_model_config_for_expert_location`` (gpt-oss, Qwen3-MoE, DeepSeek; not Grok),
read by helper amdcap26 in the 0.5.6, 0.5.6.post2 and 0.5.7 wheels (docs/accuracy.md §7 amdcap26) — its first HIP
kernels, whose cost depends on the image's torch / ROCm, which no log prints.  The logs bound it: 'Load weight begin'
+ 'Init torch distributed ends. mem usage' of one rank is its free memory before the init less X.  On one GPU model
that sum is the same on every rank of a run, and in the ROCm corpus logs every Grok start (no metadata) prints the
largest, 191.47–191.48 GiB on MI300X and 287.55 on MI355X, while the MoE classes print 0–0.22 GiB less by image
(amdcap26's table; the CI's 0.5.3.post1 MoE starts 191.26–191.29 too: docs/accuracy.md §7, round cap31a).  So X ≤ the
largest sum seen on that GPU model (``startup.rankspread.ROCM_FREE_BEFORE_INIT``, measured by
``scripts/rank_spread.py``: the smallest HIP context + process on it) − this log's sum, and SGLang's pre sample lies
between 'Load weight begin' and 'Load weight begin' + that bound.  The rule widens the budget's low end only; it is a
bound from a per-GPU-model figure measured on the corpus, as the device total is a catalog figure — not the log's own
line, not a charge: a host of that GPU with a larger context is widened for nothing, one with a smaller context is
bounded short.  Only ROCm logs are read (the figure is measured on AMD GPUs; CUDA's terms in that window are
``engines.sglang.streams``)."""

from __future__ import annotations

from tpkit.explain.context import Context, is_rocm
from tpkit.explain.interval import Iv
from tpkit.logs import ParsedLog
from tpkit.startup.rankspread import ROCM_FREE_BEFORE_INIT
from tpkit.units import Bytes, GiB, gib_text, mib_text

__all__ = ["is_rocm", "rocm_pre_gap", "rank_sums", "ROUNDING"]

ROUNDING = GiB(0.01)
"""the two 2-decimal prints ('Load weight begin', 'mem usage') that make one rank's sum: ± 0.005 GiB each"""


def rank_sums(parsed: ParsedLog) -> dict[str, tuple[Bytes, Bytes]]:
    """rank label → ('Load weight begin. avail mem', 'Init torch distributed ends. mem usage') of the target model,
    the last of each, for the ranks that print both (``scripts/rank_spread.py`` reads them too)."""
    begin: dict = {}
    init: dict = {}
    for a in parsed.anchors:
        if a.size is None or a.group is not None:
            continue
        if a.name == "load_begin_avail":
            begin[a.rank.label] = a.size.value
        elif a.name == "init_dist_mem_usage":
            init[a.rank.label] = a.size.value
    return {k: (begin[k], init[k]) for k in begin if k in init}


def rocm_pre_gap(parsed: ParsedLog, ctx: Context) -> tuple[Iv, str] | None:
    """(0 … the bound on what SGLang's pre sample exceeds 'Load weight begin' by, why) for a ROCm log whose GPU model
    has a measured ``ROCM_FREE_BEFORE_INIT`` and whose smallest 'Load weight begin' rank prints its init usage; None
    where the log's sum reaches the measured one (nothing lost) or the rule does not read the log."""
    if not is_rocm(ctx):
        return None
    ref = ROCM_FREE_BEFORE_INIT.get(str(ctx.gpu.name))
    sums = rank_sums(parsed)
    if ref is None or not sums:
        return None
    label = min(sums, key=lambda k: sums[k][0].bytes)  # the rank whose 'Load weight begin' is the MIN (pre)
    begin, init = sums[label]
    lost = GiB(ref[0]).bytes - begin.bytes - init.bytes
    if lost <= 0:
        return None
    high = Bytes(lost + ROUNDING.bytes)
    why = (f"ROCm: SGLang samples pre_model_load_memory right after the distributed init and prints 'Load weight "
           f"begin' later (model_runner.py init_torch_distributed → initialize → load_model, 0.5.4.post1 / 0.5.6 read); "
           f"{label}'s 'Load weight begin' + 'Init torch distributed ends. mem usage' = "
           f"{gib_text(Bytes(begin.bytes + init.bytes))} lies {gib_text(Bytes(lost))} under the largest seen on "
           f"{ctx.gpu.name} ({ref[0]:.2f} GiB over {ref[1]} corpus logs, startup.rankspread.ROCM_FREE_BEFORE_INIT), "
           f"so the pre sample may exceed 'Load weight begin' by 0 … {mib_text(high, 0)} (± the two prints' "
           "rounding): a bound measured on the corpus, no term read in the source")
    return Iv(low=Bytes(0), high=high), why
