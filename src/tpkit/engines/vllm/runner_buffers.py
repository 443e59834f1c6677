"""The V1 model runner's ``inputs_embeds`` buffer, charged by vLLM ≥ 0.27.0 (helper enc14, 2026-12-05).

Source (vllm 0.27.1 wheel; the snapshot-then-runner order and the buffer also in the 0.27.0 and 0.33.0 wheels):
``v1/worker/gpu_worker.py`` ``Worker.init_device`` takes the init snapshot (``self.init_snapshot =
MemorySnapshot(...)``) and only then builds the runner (``GPUModelRunnerV1(...)``).
``v1/worker/gpu_model_runner.py`` ``GPUModelRunner.__init__`` allocates, for every model, the persistent
``self.inputs_embeds = self._make_buffer(self.max_num_tokens, self.inputs_embeds_size, dtype=self.dtype)`` on the
GPU: max_num_batched_tokens × hidden × activation bytes.  It lives for the engine's lifetime, outside
"Model loading took" (made before ``load_model``'s ``DeviceMemoryProfiler``).

Whether vLLM charges it to the KV budget depends on ``utils/mem_utils.py`` ``memory_profiling``:

* up to 0.26 (``VllmRules.memory_rule == "increase"``) the non-KV sum is the load delta + torch's peak increase
  during the profile (measured from the allocation level at its start, the buffer included) + the non-torch
  increase: the buffer is never charged;
* from 0.27.0 (``"consumed"``) it is ``total_consumed`` (init-snapshot free − free after the profile) + the
  transient peak headroom, so the buffer, made after the snapshot, is charged like Model Runner V2's state
  (``profile_lines.v2_state_lines``).

The speculative proposer's two activation-sized buffers, by the same rule (helper q38, 2026-12-05).
``GPUModelRunner.__init__`` builds the drafter's proposer (``EagleProposer`` for eagle / eagle3 / mtp,
``DraftModelProposer``, ``DFlashProposer``: all ``v1/spec_decode/llm_base_proposer.py SpecDecodeBaseProposer``), whose
``__init__`` allocates on the GPU, for the engine's life, ``self.hidden_states`` (max_num_batched_tokens × the draft
config's ``get_hidden_size()``, × ``hc_mult`` for DeepSeek-V4's MTP) and ``self.inputs_embeds``
(max_num_batched_tokens × ``get_inputs_embeds_size()``), both in the model dtype, next to small integer tables
(input ids, positions, slot mapping; not modelled).  Read in the 0.27.0, 0.27.1 and 0.33.0 wheels (0.31.0 too):
the same two tensors, made after the init snapshot and outside 'Model loading took', so charged from 0.27.0 by
``total_consumed`` and never up to 0.26.  ngram, suffix and Medusa proposers have no such buffers.

Model Runner V2 has no such buffer in its ``InputBuffers`` (``profile.v2_runner_state_bytes``).  The runner's other
GPU tables made in ``__init__`` (int32/int64 positions, query_start_loc, the initial ``InputBatch`` block table and
sampling vectors) are max_num_batched_tokens- or max_num_seqs-sized integers, not modelled here.
"""

from __future__ import annotations

from tpkit.engines.vllm.inputs import Resolved
from tpkit.engines.vllm.options import VllmOptions
from tpkit.engines.vllm.versions import VllmRules
from tpkit.memory.ledger import LineItem
from tpkit.models.spec import ModelSpec
from tpkit.units import Bytes

__all__ = ["INPUTS_EMBEDS_ITEM", "PROPOSER_BUFFERS_ITEM", "inputs_embeds_bytes", "proposer_buffer_bytes",
           "v1_inputs_embeds_lines", "v1_proposer_buffer_lines"]

INPUTS_EMBEDS_ITEM = "V1 runner inputs_embeds buffer (counted as consumed)"
PROPOSER_BUFFERS_ITEM = "drafter proposer hidden_states + inputs_embeds buffers (counted as consumed)"


def inputs_embeds_bytes(*, max_num_batched_tokens: int, hidden_size: int, act_bytes: int) -> Bytes:
    """``GPUModelRunner.inputs_embeds``: max_num_batched_tokens × hidden × activation bytes (module docstring)."""
    for name, value in (("max_num_batched_tokens", max_num_batched_tokens), ("hidden_size", hidden_size),
                        ("act_bytes", act_bytes)):
        if not isinstance(value, int) or value <= 0:
            raise ValueError(f"inputs_embeds_bytes: {name} must be a positive integer, got {value!r}")
    return Bytes(max_num_batched_tokens * hidden_size * act_bytes)


def v1_inputs_embeds_lines(model: ModelSpec, options: VllmOptions, r: Resolved,
                           rules: VllmRules) -> tuple[LineItem, ...]:
    """The buffer as a line on a V1-engine run with the V1 model runner whose release charges ``total_consumed``
    (``memory_rule == "consumed"``, ≥ 0.27.0); () otherwise."""
    del options  # the runner and the release are resolved in ``r`` / ``rules``
    if rules.engine != "V1" or r.v2_runner or rules.memory_rule != "consumed":
        return ()
    nbytes = inputs_embeds_bytes(max_num_batched_tokens=r.max_num_batched_tokens, hidden_size=model.hidden_size,
                                 act_bytes=r.act_bytes)
    return (LineItem(item=INPUTS_EMBEDS_ITEM, bytes=nbytes,
                     source=(f"T {r.max_num_batched_tokens:,} × H {model.hidden_size:,} × {r.act_bytes} B: "
                             "vLLM ≥ 0.27 "
                             "v1/worker/gpu_model_runner.py GPUModelRunner.__init__ self.inputs_embeds, made after "
                             "gpu_worker.init_device's init snapshot and outside the load delta, so in "
                             "utils/mem_utils.py memory_profiling's total_consumed")),)


def proposer_buffer_bytes(*, max_num_batched_tokens: int, hidden_states_width: int, inputs_embeds_width: int,
                          act_bytes: int) -> Bytes:
    """``SpecDecodeBaseProposer.hidden_states`` + ``.inputs_embeds``: max_num_batched_tokens × (hidden-states width +
    inputs-embeds width) × activation bytes (module docstring)."""
    for name, value in (("max_num_batched_tokens", max_num_batched_tokens),
                        ("hidden_states_width", hidden_states_width), ("inputs_embeds_width", inputs_embeds_width),
                        ("act_bytes", act_bytes)):
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ValueError(f"proposer_buffer_bytes: {name} must be a positive integer, got {value!r}")
    return Bytes(max_num_batched_tokens * (hidden_states_width + inputs_embeds_width) * act_bytes)


def v1_proposer_buffer_lines(drafter, r: Resolved, rules: VllmRules) -> tuple[LineItem, ...]:
    """The proposer's two buffers as a line on a V1-engine run with the V1 model runner whose release charges
    ``total_consumed`` (≥ 0.27.0) and a drafter with a ``SpecDecodeBaseProposer`` (``engines.vllm.drafter.Drafter``
    widths > 0); () otherwise."""
    if (drafter is None or rules.engine != "V1" or r.v2_runner or rules.memory_rule != "consumed"
            or drafter.hidden_states_width <= 0 or drafter.inputs_embeds_width <= 0):
        return ()
    nbytes = proposer_buffer_bytes(max_num_batched_tokens=r.max_num_batched_tokens,
                                   hidden_states_width=drafter.hidden_states_width,
                                   inputs_embeds_width=drafter.inputs_embeds_width, act_bytes=r.act_bytes)
    return (LineItem(item=PROPOSER_BUFFERS_ITEM, bytes=nbytes,
                     source=(f"T {r.max_num_batched_tokens:,} × (hidden_states {drafter.hidden_states_width:,} + "
                             f"inputs_embeds {drafter.inputs_embeds_width:,}) × {r.act_bytes} B ({drafter.method}): "
                             "vLLM ≥ 0.27 v1/spec_decode/llm_base_proposer.py SpecDecodeBaseProposer.__init__, "
                             "built in GPUModelRunner.__init__ after gpu_worker.init_device's init snapshot and "
                             "outside the load delta, so in utils/mem_utils.py memory_profiling's total_consumed")),)
