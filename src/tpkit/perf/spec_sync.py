"""Two vLLM V1-runner facts of the speculative cycle read at the source in round sp32 (issue 13): a drafter that
picks FlashInfer on its own drags the whole speculative engine to PIECEWISE graphs, and a hybrid model's accepted
counts are copied to the host with a blocking copy before the drafter is launched (pure engine facts;
``perf.runtime_vllm._vllm`` applies them, importing this module only when speculating: plain ``tpkit perf`` keeps its
cold-start imports, tests/cli/test_cold_imports.py).

    in:  the vLLM version, the drafter's own attention backend (``Runtime.draft_backend``), compute capability,
         the speculative algorithm, whether the model is hybrid (linear-attention / mamba layers), the runner
    out: whether the speculative engine's decode graphs fall to PIECEWISE because of the drafter's layers; whether
         the drafter starts only after a blocking device-to-host copy (not queued behind the verify)

**The drafter's FlashInfer layers.**  vLLM resolves one CUDA-graph mode for the engine from the lowest support among
*all* attention layers that own KV cache (0.26.0 ``v1/worker/gpu_model_runner.py`` ``initialize_attn_backend``:
``get_attn_backends_for_group`` over every layer of every KV-cache group, each layer's own ``get_attn_backend()``,
then ``_check_and_update_cudagraph_mode`` takes the minimum ``get_cudagraph_support`` and calls
``resolve_cudagraph_mode_and_sizes``); the EAGLE / MTP drafter's attention layers are among them (its group key
even splits on the drafter's own head count: 'a spec-decode draft with fewer attention heads than its target');
the same per-layer minimum is in 0.21.0 and 0.33.0 (``min_cg_support`` over ``layers[layer_name].get_attn_backend()``).
From 0.21.0 the V1 drafter picks its backend itself even when the target's was forced (``perf.triton_verify``
``DRAFT_OWN_BACKEND``: ``_create_draft_vllm_config``, 'Never inherit the attention backend from base').  Where that
own choice is FLASHINFER on a GPU below SM 9.0 (vLLM's automatic choice there with an fp8 KV cache:
``engines.vllm.backend_choice.auto_attention_backend``), FlashInfer's ``UNIFORM_SINGLE_TOKEN_DECODE`` support is the
minimum and the engine runs PIECEWISE (``perf.flashinfer_spec.FLASHINFER_SPEC_PIECEWISE``, 0.11.0–0.32.x) although the
target was forced to a backend with full-graph support.  Observed in a public vLLM 0.28.0 log on an RTX 4090
(syv-ai/qwen38-27b-rtx3090 issue #87: the target 'Using AttentionBackendEnum.TRITON_ATTN backend', the MTP drafter
'Using FLASHINFER attention backend out of potential backends', then 'CUDAGraphMode.FULL_AND_PIECEWISE is not
supported with spec-decode for attention backend FlashInferBackend …; setting cudagraph_mode=PIECEWISE').  Window:
0.21.0 (the drafter's own choice) to 0.32.x (FlashInfer's FA2 native decode below SM 9.0 from 0.33.0); Model Runner
V2's speculators inherit the target's backend (no own choice).

**The hybrid model's blocking copy before the drafter.**  For a hybrid model under EAGLE / MTP speculation
``_update_states_after_model_execute`` (gpu_model_runner.py) counts the accepted tokens per request on the GPU right
after the rejection sampler and, in 0.10.2–0.16.x, brings them to the host with ``.cpu().numpy()`` in every
mamba-cache mode (read: 0.10.2, 0.11.0, 0.11.1, 0.14.0, 0.16.0; called from ``_sample``, before
``propose_draft_token_ids``), so the host waits for the verify and the sampler before it launches the drafter:
``perf.runtime_vllm.DRAFTER_QUEUED`` (launches queued behind the verify, from 0.11.1) does not hold there.  From
0.17.0 the copy is non-blocking when prefix caching is off (vllm PR #35442, 'Copy num_accepted_tokens in
non-blocking way when not using prefix caching': on Qwen3-Next-80B FP8 TP 4 with MTP the function took 'more than
6ms because it causes a CPU-GPU sync', about 200 µs after; 0.17.0 / 0.17.1 ``copy_(…, non_blocking=True)``; 0.18.0
adds ``num_accepted_tokens_event``, which the next step's ``_prepare_inputs`` waits on).  With prefix caching on
(mamba cache mode "align") the blocking ``.cpu()`` stays before the drafter in 0.17.0–0.19.x (read 0.17.0, 0.19.0)
and becomes a GPU-side postprocess by 0.26.0 (``postprocess_mamba_align_gpu``); ``tpkit perf`` has no prefix-caching
input, so that branch is not applied (rows 388 / 389, vLLM 0.19.1 with ``--enable-prefix-caching``, ran it).  What
the blocking copy costs in tpkit's terms is the drafter's launches no longer hidden behind the verify (the draft step
takes max(GPU, host) as before 0.11.1); the host's preparation of the next step, which the copy and the 0.18+ event
also keep from overlapping the verify, has no sourced size and is not charged.
"""

from __future__ import annotations

from tpkit.perf.flashinfer_spec import flashinfer_spec_piecewise

__all__ = ["HYBRID_BLOCKING_COPY", "drafter_forces_piecewise", "hybrid_copy_blocks_drafter",
           "DRAFTER_PIECEWISE_FACT", "HYBRID_COPY_FACT"]

HYBRID_BLOCKING_COPY = ((0, 10, 2), (0, 17, 0))
"""[first, end) vLLM releases whose ``_update_states_after_model_execute`` copies a hybrid model's accepted counts
to the host with a blocking ``.cpu()`` in every mamba-cache mode (module docstring)"""

DRAFTER_PIECEWISE_FACT = ("the drafter picks its own attention backend, FLASHINFER (llm_base_proposer.py "
                          "_create_draft_vllm_config, 0.21–0.33), whose layers declare full graphs for single-token "
                          "decode only on this GPU; vLLM resolves one graph mode from every KV-cache layer, the "
                          "drafter's included (gpu_model_runner.py _check_and_update_cudagraph_mode), so the "
                          "speculative engine runs PIECEWISE graphs: the verify's attention runs eagerly between "
                          "graph pieces (syv-ai/qwen38-27b-rtx3090#87, vLLM 0.28.0 log)")

HYBRID_COPY_FACT = ("a hybrid model's accepted-token counts are copied to the host with a blocking .cpu() after the "
                    "rejection sampler and before the drafter is launched (gpu_model_runner.py "
                    "_update_states_after_model_execute, 0.10.2–0.16.x; non-blocking from 0.17.0 without prefix "
                    "caching, vllm PR #35442): the drafter's launches wait for the verify")


def drafter_forces_piecewise(draft_backend: str, cc: tuple[int, int] | None, version: tuple[int, int, int],
                             algorithm: str | None) -> bool:
    """The drafter's own backend (``Runtime.draft_backend``, set only where vLLM's V1 drafter does not inherit a
    forced one, 0.21–0.33) is FLASHINFER on a GPU below SM 9.0 in a release whose FlashInfer declares full graphs
    for single-token decode only (``flashinfer_spec_piecewise``): the whole speculative engine runs PIECEWISE."""
    return bool(draft_backend) and flashinfer_spec_piecewise(draft_backend, cc, version, algorithm)


def hybrid_copy_blocks_drafter(version: tuple[int, int, int], algorithm: str | None, *, hybrid: bool,
                               runner_v2: bool) -> bool:
    """A hybrid model under EAGLE / MTP speculation on the V1 runner of a release in ``HYBRID_BLOCKING_COPY``: the
    accepted counts reach the host with a blocking copy before the drafter is launched."""
    first, end = HYBRID_BLOCKING_COPY
    return (hybrid and not runner_v2 and algorithm in ("EAGLE", "EAGLE3", "NEXTN", "MTP")
            and first <= tuple(version) < end)
