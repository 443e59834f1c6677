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
(amdcap26's table; the CI's 0.5.3.post1 MoE starts 191.26–191.29 too: docs/accuracy.md §7, round cap31a).

Two bounds on X, the first the one explain uses (helper cap32, 2026-12-07, docs/accuracy.md §7 round cap32):

* **device** (``reference="device"``): the free memory before the init is the card's total less the HIP context and
  the process, neither printed; the context is at least 0, so X ≤ the total − this log's sum.  The total is the
  catalog's (``hardware.catalog``, the figure HIP reports in its out-of-memory message: 191.98 GiB on MI300X, 287.98
  on MI355X, printed to 2 decimals, ± 0.005 GiB) — a hardware fact, as a CUDA log's device-total row is.  No floor
  on the HIP context is taken: no source and no hardware fact gives one (the corpus shows ≥ 0.50 GiB on MI300X, the
  figure below, but that is a measured statistic of other hosts).  Only a model class that builds the metadata has X
  from source (``METADATA_CLASSES``, from 0.4.10 on: ``from_model_config`` returns None for a class without
  ``get_model_config_for_expert_location``; before 0.4.10 every class builds a dummy); another class gets no bound.
* **corpus** (``reference="corpus"``, round cap31a): X ≤ the largest sum seen on that GPU model
  (``startup.rankspread.ROCM_FREE_BEFORE_INIT``, measured by ``scripts/rank_spread.py``: the smallest HIP context +
  process on it) − this log's sum, every model class.  Tighter by the smallest context seen (0.50 GiB on MI300X,
  0.43 on MI355X), but that is a statistic of the corpus' hosts: a host with a smaller context is bounded short.

Either widens the budget's low end only (SGLang's pre sample lies between 'Load weight begin' and 'Load weight begin'
+ the bound).  Only ROCm logs are read (CUDA's terms in that window are ``engines.sglang.streams``)."""


from __future__ import annotations

from tpkit.explain.context import Context, is_rocm
from tpkit.explain.interval import Iv
from tpkit.explain.refusals import REFUSED
from tpkit.logs import ParsedLog
from tpkit.startup.rankspread import ROCM_FREE_BEFORE_INIT
from tpkit.units import Bytes, GiB, gib_text, mib_text

__all__ = ["is_rocm", "rocm_pre_gap", "rank_sums", "ROUNDING", "TOTAL_ROUNDING", "METADATA_CLASSES",
           "builds_metadata"]

ROUNDING = GiB(0.01)
"""the two 2-decimal prints ('Load weight begin', 'mem usage') that make one rank's sum: ± 0.005 GiB each"""
TOTAL_ROUNDING = GiB(0.005)
"""the catalog's AMD totals are HIP's 2-decimal GiB print ('total capacity of 191.98 GiB'): ± 0.005 GiB"""

METADATA_CLASSES = frozenset({
    "BailingMoEForCausalLM", "BailingMoeForCausalLM", "BailingMoeForCausalLMNextN", "BailingMoeV2ForCausalLM",
    "BailingMoeV2_5ForCausalLM", "BailingMoeV3ForCausalLM", "BailingMoeV3VLForConditionalGeneration",
    "DeepseekV2ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV3ForCausalLMNextN",
    "DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "Dots3NoteForCausalLM", "Dots3NoteForCausalLMNextN",
    "DotsVLMForCausalLM", "ExaoneMoEForCausalLM", "ExaoneMoEForCausalLMMTP", "ExaoneMoeForCausalLM",
    "Glm4MoeForCausalLM", "Glm4MoeForCausalLMNextN", "Glm4MoeLiteForCausalLM", "Glm4MoeLiteForCausalLMNextN",
    "Glm5NextForConditionalGeneration", "Glm5NextForConditionalGenerationNextN", "GlmMoeDsaForCausalLM",
    "GlmMoeDsaForCausalLMNextN", "GptOssForCausalLM", "InternS1ProForConditionalGeneration",
    "InternS2PreviewForConditionalGeneration", "K2HorizonForCausalLM", "KimiK25ForConditionalGeneration",
    "LLaDA2MoeModelLM", "LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN", "MellumForCausalLM",
    "MiMoV2FlashForCausalLM", "MiMoV2ForCausalLM", "MiMoV2MTP", "MindSporeForCausalLM", "MiniMaxM2ForCausalLM",
    "MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration", "MistralLarge3ForCausalLM",
    "MistralLarge3ForCausalLMEagle", "NemotronHForCausalLM", "NemotronHForCausalLMMTP",
    "NemotronHPuzzleForCausalLM", "NemotronH_Nano_Omni_Reasoning_V3", "NemotronH_Nano_VL_V2",
    "NemotronH_Omni_Reasoning_V3", "Qwen2MoeForCausalLM", "Qwen3MoeForCausalLM", "Qwen3MoeForCausalLMMTP",
    "Qwen3NextForCausalLM", "Qwen3NextForCausalLMMTP", "Qwen3VLMoeForConditionalGeneration", "Qwen3_5ForCausalLM",
    "Qwen3_5ForCausalLMMTP", "Qwen3_5MoeForCausalLM", "Qwen3_5MoeForConditionalGeneration",
    "Qwen4ExpForCausalLMMTP", "Qwen4ExpForConditionalGeneration", "SDARMoeForCausalLM", "SarvamMLAForCausalLM",
    "SarvamMoEForCausalLM", "Step3VLForConditionalGeneration", "Step3p5ForCausalLM", "Step3p5MTP",
    "Step3p7ForConditionalGeneration", "TransformersMoEEmbeddingModel", "TransformersMoEForCausalLM",
    "TransformersMoEForSequenceClassification", "TransformersMultiModalMoEEmbeddingModel",
    "TransformersMultiModalMoEForCausalLM", "TransformersMultiModalMoEForSequenceClassification", "XllmForCausalLM"})
"""The ``EntryClass`` names whose class defines or inherits ``get_model_config_for_expert_location`` (so
``ModelConfigForExpertLocation.from_model_config`` returns a config and ``initialize`` builds the metadata on the
GPU), the union over the sglang 0.5.3, 0.5.4.post1, 0.5.6, 0.5.9, 0.5.12, 0.5.18 and 0.5.23 wheels (``srt/models/*.py``
read with Python's ``ast`` by ``scripts/expert_location_classes.py``, helper cap32): 19, 20, 22, 34, 48, 59 and 76
classes, 77 in all; a class added later is in no release before it, so the union only widens.  Grok1ForCausalLM,
Grok1ModelForCausalLM, LlamaForCausalLM, Llama4ForCausalLM, MixtralForCausalLM and Qwen3ForCausalLM have it in none."""

def builds_metadata(ctx: Context) -> bool:
    """Whether the run's model class may build the expert-location metadata between SGLang's pre sample and 'Load
    weight begin': True for a class of ``METADATA_CLASSES``, a model not known, or a release before
    ``engines.sglang.streams.METADATA_END`` (0.4.10: before it every class builds a one-expert dummy) the log
    allows; False for a known class without the method on 0.4.10+."""
    from tpkit.engines.sglang.streams import METADATA_END
    from tpkit.engines.sglang.versions import release_key

    arch = getattr(ctx.model, "architecture", None)
    if arch is None or arch in METADATA_CLASSES:
        return True
    try:
        return ctx.rules_version is not None and release_key(ctx.rules_version) < release_key(METADATA_END)
    except REFUSED:  # a release string the rules can not order: the bound stays (it only widens)
        return True


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


def rocm_pre_gap(parsed: ParsedLog, ctx: Context, *, reference: str = "device",
                 every_class: bool = False) -> tuple[Iv, str] | None:
    """(0 … the bound on what SGLang's pre sample exceeds 'Load weight begin' by, why) for a ROCm log whose smallest
    'Load weight begin' rank prints its init usage; None where the rule does not read the log, the model class builds
    no metadata (``builds_metadata``; ``every_class`` skips that test, as round cap31a's rule did) or, with the corpus
    reference, the log's sum reaches the measured one.  ``reference``: "device" (the catalog's total, the HIP
    context ≥ 0) or "corpus" (``ROCM_FREE_BEFORE_INIT``); see the module's docstring."""
    if not is_rocm(ctx) or (not every_class and not builds_metadata(ctx)):
        return None
    sums = rank_sums(parsed)
    if not sums:
        return None
    label = min(sums, key=lambda k: sums[k][0].bytes)  # the rank whose 'Load weight begin' is the MIN (pre)
    begin, init = sums[label]
    ceiling = _ceiling(ctx, reference)
    if ceiling is None:
        return None
    top, top_text, rounding = ceiling
    lost = top.bytes - begin.bytes - init.bytes
    if lost <= 0:
        return None
    high = Bytes(lost + rounding.bytes)
    why = (f"ROCm: SGLang samples pre_model_load_memory right after the distributed init and prints 'Load weight "
           f"begin' later (model_runner.py init_torch_distributed → initialize → load_model, 0.5.4.post1 / 0.5.6 "
           "read), "
           f"and {getattr(ctx.model, 'architecture', None) or 'the model'} builds the expert-location metadata on the "
           f"GPU in between; {label}'s 'Load weight begin' + 'Init torch distributed ends. mem usage' = "
           f"{gib_text(Bytes(begin.bytes + init.bytes))} lies {gib_text(Bytes(lost))} under {top_text}, so the pre "
           f"sample may exceed 'Load weight begin' by 0 … {mib_text(high, 0)} (± the prints' rounding)")
    return Iv(low=Bytes(0), high=high), why


def _ceiling(ctx: Context, reference: str) -> tuple[Bytes, str, Bytes] | None:
    """(the free memory before the init can not exceed this, in words, its rounding) for ``reference``."""
    if reference == "device":
        total = getattr(ctx.gpu, "total_bytes", None)
        if total is None:
            return None
        words = (f"{ctx.gpu.name}'s total {gib_text(total)} (the catalog's, as HIP reports it; the HIP context and "
                 "the process, not printed, taken as ≥ 0): a bound from the card and the log")
        return total, words, Bytes(ROUNDING.bytes + TOTAL_ROUNDING.bytes)
    if reference == "corpus":
        ref = ROCM_FREE_BEFORE_INIT.get(str(ctx.gpu.name))
        if ref is None:
            return None
        return ref.largest, (f"the largest seen on {ctx.gpu.name} ({gib_text(ref.largest)} over {ref.logs} corpus "
                             "logs, startup.rankspread.ROCM_FREE_BEFORE_INIT): a bound measured on the corpus"), ROUNDING
    raise ValueError(f"reference must be 'device' or 'corpus', got {reference!r}")
