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

__all__ = ["INPUTS_EMBEDS_ITEM", "inputs_embeds_bytes", "v1_inputs_embeds_lines"]

INPUTS_EMBEDS_ITEM = "V1 runner inputs_embeds buffer (counted as consumed)"


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
