"""V0's long-context chunked-prefill default: when ``--enable-chunked-prefill`` is not given, does vLLM's V0 engine
turn chunked prefill on by itself?  (``engine/arg_utils.py``, ``EngineArgs.create_engine_config`` up to 0.7.3,
``_set_default_args_v0`` from 0.8.0; read in the 0.5.1–0.5.5, 0.6.0–0.6.6, 0.7.0–0.7.3, 0.8.0–0.8.5, 0.9.0, 0.9.2 and
0.10.0 wheels.)

- Up to 0.5.2 ``enable_chunked_prefill`` defaults to ``False``: never on by itself (vp_670, 0.4.2).
- From 0.5.3 the default is ``None`` and a model whose ``max_model_len`` exceeds 32,768 tokens gets it, unless it
  has a sliding window, a speculative model or LoRA (every release from 0.5.3).
- 0.5.3–0.6.0 also keep it off with prefix caching on; 0.5.4–0.6.2 with seqlen-agnostic (mamba-like) layers.
- Multimodal models keep it off from 0.6.2; ROCm from 0.6.5 (``current_platform.is_rocm()`` in 0.6.5–0.7.3, the
  ``is_cuda()`` test from 0.8.0); MLA models from 0.8.0 (``model_config.use_mla``).  In 0.7.1–0.7.3 an MLA model
  still gets the chunked budget: ``VllmConfig.__post_init__`` turns the switch off after ``SchedulerConfig`` sized
  ``max_num_batched_tokens`` from it, and the profile run takes that budget.
"""

from __future__ import annotations

from tpkit.models.spec import ModelSpec

AUTO_CHUNK_FIRST = (0, 5, 3)
"""first release whose ``enable_chunked_prefill`` defaults to None (turned on above 32K tokens)"""
LONG_CONTEXT_TOKENS = 32768
"""``use_long_context = max_model_len > 32768``"""


def v0_auto_chunked_prefill(*, release: tuple[int, ...], length: int, model: ModelSpec, rocm: bool,
                            speculative: bool, lora: bool, prefix_caching: bool) -> bool:
    """True when the V0 engine of ``release`` turns chunked prefill on for a run that did not set the switch
    (module docstring); ``length`` is max_model_len in tokens."""
    if release < AUTO_CHUNK_FIRST or length <= LONG_CONTEXT_TOKENS:
        return False
    if model.sliding_window is not None or speculative or lora:
        return False
    if prefix_caching and release <= (0, 6, 0):
        return False
    if model.linear_attn is not None and (0, 5, 4) <= release <= (0, 6, 2):
        return False
    if model.is_multimodal and release >= (0, 6, 2):
        return False
    if rocm and release >= (0, 6, 5):
        return False
    return not (model.mla is not None and release >= (0, 8, 0))
