"""vLLM's LoRA lines of the load delta (``--enable-lora``): the A/B stacks as a ledger line, whether they sit inside
the measured 'Model loading took', and the plan's notes on the LoRA flags (split from ``engines.vllm.load_lines``;
the sizes are ``engines.vllm.lora.lora_buffers``; pure)."""

from __future__ import annotations

from tpkit.engines.vllm.inputs import Resolved
from tpkit.engines.vllm.lora import lora_buffers
from tpkit.engines.vllm.options import VllmOptions
from tpkit.engines.vllm.versions import VllmRules
from tpkit.memory.ledger import LineItem
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec


def lora_in_load_delta(rules: VllmRules) -> bool:
    """Whether vLLM builds the LoRA A/B stacks inside the measured 'Model loading took' block: V1 from its first
    LoRA release (0.7.3 ``v1/worker/gpu_model_runner.py load_model``: ``load_lora_model`` inside the
    ``DeviceMemoryProfiler``, every later release read: 0.8.0, 0.10.1, 0.14.1, 0.19, 0.25.1, 0.27.1, 0.29.0); V0
    from 0.8.0 (``worker/model_runner.py load_model``: ``create_lora_manager`` moved inside the profiler, read 0.8.0,
    0.10.1).  V0 ≤ 0.7.3 (read 0.5.4, 0.7.1, 0.7.2, 0.7.3) creates the LoRA manager after 'Loading model weights took'
    is printed: outside the measurement."""
    return rules.engine == "V1" or rules.release >= (0, 8, 0)


LORA_ITEM = "LoRA adapter buffers (A/B stacks)"
_LORA_DTYPE_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4}


def lora_items(model: ModelSpec, parallel: ParallelSpec, options: VllmOptions, r: Resolved,
          rules: VllmRules) -> tuple[LineItem, ...]:
    """``--enable-lora``: the stacked LoRA A/B buffers and punica metadata vLLM allocates inside the load delta
    (``engines.vllm.lora``: ``load_lora_model`` → ``create_lora_weights``, every release)."""
    if not options.enable_lora:
        return ()
    lora = lora_buffers(model, parallel, release=rules.release, max_loras=options.max_loras or 1,
                        max_lora_rank=options.max_lora_rank or 16, fully_sharded=options.fully_sharded_loras,
                        lora_bytes=_LORA_DTYPE_BYTES.get(options.lora_dtype or "auto", r.act_bytes),
                        model_bytes=r.act_bytes, max_num_batched_tokens=r.max_num_batched_tokens,
                        max_num_seqs=r.max_num_seqs, extra_vocab=options.lora_extra_vocab_size)
    return (LineItem(item=LORA_ITEM, bytes=lora.bytes, source=lora.source),)


def lora_notes(model: ModelSpec, options: VllmOptions, rules: VllmRules) -> tuple[str, ...]:
    """Plan notes on the LoRA flags: given without ``--enable-lora`` (no effect), or parts of the adapters not modelled."""
    if not options.enable_lora:
        given = [f"--{n.replace('_', '-')}" for n in ("max_loras", "max_lora_rank", "max_cpu_loras", "lora_dtype",
                                                     "lora_extra_vocab_size") if getattr(options, n) is not None]
        given += ["--fully-sharded-loras"] if options.fully_sharded_loras else []
        return ((f"{', '.join(given)} without --enable-lora: vLLM builds no LoRA config (EngineArgs."
                 "create_lora_config), so these flags change nothing; add --enable-lora to plan the adapters' "
                 "buffers",) if given else ())
    notes = []
    if model.mla is not None or model.linear_attn is not None:
        notes.append("LoRA: the A/B buffers of MLA / linear-attention projections are not modelled (left out)")
    if model.moe is not None and rules.release < (0, 12, 0):
        notes.append("LoRA: this release does not wrap the routed experts (FusedMoE LoRA from vLLM 0.12.0)")
    return tuple(notes)
