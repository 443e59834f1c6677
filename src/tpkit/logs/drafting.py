"""vLLM V1's speculative drafting frames place a failure at the served requests (round cr36c).

``GPUModelRunner.propose_draft_token_ids`` is called only from the serving step (``execute_model`` in 0.11.0,
``sample_tokens`` in 0.20.1 and 0.30.0; v1/worker/gpu_model_runner.py), and it alone calls the drafter's ``propose``
(``EagleProposer`` / ``SpecDecodeBaseProposer`` / the DFlash, Step-3.5 and Gemma-4 proposers, v1/spec_decode/).  A
drafter builds attention metadata (``build_for_drafting``, each attention backend's builder) only inside ``propose``:
its start-up runs — ``dummy_run`` under ``profile_run``, the graph profiling and ``capture_model`` — run the draft
model with no metadata (``set_forward_context(None, …)``: v1/spec_decode/llm_base_proposer.py ``dummy_run``, 0.20.1
and 0.30.0; eagle.py, 0.11.0).  So either frame in a traceback is a served request's step, even where a cut excerpt
lost the runner's outer frames that the serving rule of ``logs.phases`` matches.

Why it matters for FlashInfer: the drafter makes its own attention groups and builders
(``initialize_attn_backend`` in llm_base_proposer.py, 0.20.1), whose ``_get_workspace_buffer`` allocates the
workspace (``VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE``, 394 MiB) on their first build — the first ``propose``, i.e. the
first request with speculative decoding, after the start-up's warm-up allocated the target model's.  A lone
``_get_workspace_buffer`` frame stays unplaced (``logs.phases.workspace_phase``): it does not say whose builder ran.

Not ``propose`` alone: the n-gram proposer calls its own ``propose`` in ``__init__`` to compile its kernels
(v1/spec_decode/ngram_proposer.py, 0.11.0, 0.20.1 and 0.30.0), a start-up step."""

from __future__ import annotations

from tpkit.logs.lazyre import lazy

__all__ = ["drafting_phase"]

_DRAFTING = lazy(r"^(?:propose_draft_token_ids|build_for_drafting) \(")


def drafting_phase(frames: list[str]) -> tuple[str, str] | None:
    """``("first_request", evidence)`` for a traceback (frames ``"func (file.py)"``) that runs a drafter's
    proposal (module docstring); None otherwise."""
    frame = next((f for f in reversed(frames) if _DRAFTING.search(f)), None)
    if frame is None:
        return None
    return ("first_request", f"traceback frame {frame}: speculative drafting (propose_draft_token_ids / "
                             "build_for_drafting), a step of a served request")
