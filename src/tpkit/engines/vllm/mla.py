"""vLLM's MLA backends: what they build after loading beside the checkpoint's tensors (pure).

    in:  ModelSpec (``mla``), ParallelSpec, the release, the activation dtype and ``--quantization``
    out: bytes per rank the backend adds to "Model loading took", or to the profile's torch peak (the V1 0.8.x
         workspace); 0 outside each rule

With matrix absorption on (``VLLM_MLA_PERFORM_MATRIX_ABSORPTION``, default 1), ``MLACommonImpl.
process_weights_after_loading`` (vLLM 0.7.1, 0.7.2, 0.7.3 ``attention/backends/mla/utils.py``) keeps, per MLA
layer and per rank (n = heads / tp, q_in = q_lora_rank or hidden):

    W_QR     q_in × n·qk_rope_head_dim       activation dtype ("small so we don't bother requantizing it")
    W_Q_UK   q_in × n·kv_lora_rank           W_Q absorbed with W_UK (einsum), activation dtype;
                                             fp8 checkpoints: requantised to fp8 with their block scales
    W_UV_O   n·kv_lora_rank × hidden         W_UV absorbed with W_O, same dtype rule

beside the raw q/kv_b/o weights, which prefill still reads ("we end up with absorbed weights for decode and another
copy of raw weights for prefill").  vLLM 0.7.0 has no MLA backend; from 0.8.0 the backend keeps only views of
``kv_b_proj`` (``W_UK_T`` / ``W_UV``), no absorbed copies.  vLLM 0.7.1–0.7.2 turn MLA off under a quantisation
other than fp8 / compressed-tensors (``ModelConfig.use_mla``); 0.7.3 keeps it on (dequantised: activation dtype).

0.7.1–0.7.3 V0 keep such a copy too (helper v11c, 2026-12-05; the three wheels' ``attention/backends/mla/utils.py``
``process_weights_after_loading``): ``kv_b_proj_weight = get_and_maybe_dequant_weights(self.kv_b_proj).T`` is split
into ``self.W_UK`` / ``self.W_UV`` (views, kept on the layer in both the absorption and the non-absorption branch),
so the whole dequantised kv_lora_rank × n·(qk_nope + v_head) tensor stays allocated: in 0.7.1 and 0.7.2 for an fp8
``kv_b_proj`` (``scaled_dequantize``, whose default ``out_dtype`` is float32: 4 B per element), in 0.7.3 for any
quantised one (``quant_method.apply`` on an identity in the activation dtype).  0.7.3 V1 runs FlashAttention, not the
MLA backend: no copy.

From 0.8.0 (``mla_dequant_kv_b_bytes``) those views are of a *dequantised copy* when ``kv_b_proj`` is quantised.
``process_weights_after_loading`` (V0 ``attention/backends/mla/common.py`` 0.8.0, 0.8.4, 0.8.5, 0.9.0, 0.10.2; V1
``v1/attention/backends/mla/common.py`` 0.8.0, 0.8.4, 0.8.5, 0.9.0, 0.10.2, 0.11.0, 0.14.1;
``model_executor/layers/attention/mla_attention.py`` 0.19.0, 0.21.0, 0.33.0 ``split_kv_b_proj``) runs
``get_and_maybe_dequant_weights``: for a layer whose quant method is not ``UnquantizedLinearMethod`` it applies the
layer to an identity matrix in the activation dtype and keeps ``W_UK_T`` / ``W_UV`` as views of that
kv_lora_rank × n·(qk_nope + v_head) result ("we just store fp16/bf16 copies … the extra memory overhead of this is
fairly low"), while the quantised ``kv_b_proj`` stays for prefill (``self.kv_b_proj(kv_c_normed)``); 0.33.0 registers
the views as parameters (``replace_parameter``: a new Parameter shares the view's storage), the same bytes. An
unquantised ``kv_b_proj`` returns its own weight: no copy. It runs inside the load, so it is part of "Model loading
took". (ROCm's AITER fp8/fp4 BMM paths requantise instead; tpkit plans CUDA.)

vLLM 0.8.0–0.8.5 V1 (``mla_prefill_workspace_bytes``): ``GPUModelRunner.__init__`` builds the attention metadata
builder, and the MLA one (``v1/attention/backends/mla/common.py MLACommonMetadataBuilder.__init__``) allocates the
chunked-prefill workspace there, min(max(8 × max_model_len, 4 × max_num_seqs × block_size), 128 Ki) rows ×
``get_head_size()`` (kv_lora_rank + qk_rope_head_dim) in the model dtype: before ``load_model`` (so not in "Model
loading took") and alive through the profile (so in its torch peak). From 0.9.0 the builders are made in
``initialize_attn_backend``, called from ``initialize_kv_cache`` after the KV sizing: not charged.

vLLM 0.8.0–0.10 V0 (``mla_v0_profile_workspace``; helper v11c, 2026-12-05; V0 ``attention/backends/mla/common.py``
read in the 0.8.0, 0.8.2, 0.8.3, 0.8.4, 0.8.5, 0.9.2 and 0.10.0 wheels, absent from 0.7.3's ``mla/utils.py``): when
chunked prefill or prefix caching is on, ``MLACommonState.__init__`` sizes the same context workspace (same rows
formula, ``get_head_size()`` columns, model dtype) and ``begin_forward`` allocates it on the first forward, i.e.
inside the profile run, and keeps it (an attribute of the runner's attention state): in the profile's torch peak
through every phase.  ``MLACommonImpl.forward`` then, while ``attn_metadata.is_profile_run`` (the runner's
``in_profile_run``), allocates ``_ = torch.empty((rows, heads/rank, qk_nope + v_head))`` in the model dtype "to
simulate the worst case output size for ``self.kv_b_proj(kv_c_normed)``"; the local lives until ``forward`` returns,
so it sits on top of the layer's attention tensors.  Both off (no workspace, no simulated tensor) with chunked
prefill and prefix caching off, V0's default for MLA models.
"""

from __future__ import annotations

import math

from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

__all__ = ["mla_absorbed_bytes", "mla_dequant_kv_b_bytes", "mla_prefill_workspace_bytes", "mla_v0_profile_workspace",
           "mla_v0_attention_width", "ABSORPTION_RELEASES", "DEQUANT_KV_B_FROM", "V1_WORKSPACE_AT_INIT",
           "V0_WORKSPACE_FROM", "V0_PREFILL_READ", "V0_OUTPUT_BUFFER_FROM"]

ABSORPTION_RELEASES = ((0, 7, 1), (0, 7, 3))
"""first and last vLLM release whose V0 MLA backend stores the absorbed decode matrices"""

DEQUANT_KV_B_FROM = (0, 7, 1)
"""first vLLM release whose MLA backend keeps a dequantised copy of a quantised ``kv_b_proj`` (V0 only before 0.8.0,
V0 and V1 from 0.8.0; helper v11c moved it from 0.8.0, see the module docstring)"""

V1_WORKSPACE_AT_INIT = ((0, 8, 0), (0, 8, 5))
"""first and last vLLM release whose V1 runner allocates the MLA chunked-prefill workspace before the profile"""

V0_WORKSPACE_FROM = (0, 8, 0)
"""first vLLM release whose V0 MLA backend allocates the context workspace and the simulated up-projection in the
profile run (the V0 engine ends with 0.10)"""

V0_PREFILL_READ = ((0, 7, 1), (0, 8, 4))
"""first and last vLLM release whose V0 MLA prefill tensors ``mla_v0_attention_width`` counts (the wheels read)"""

V0_OUTPUT_BUFFER_FROM = (0, 8, 0)
"""first release whose V0 ``MLACommonImpl.forward`` allocates its (T, hidden) output before the prefill"""

WORKSPACE_MAX_ROWS = 128 * 1024
"""the workspace's row cap (``MLACommonMetadataBuilder``: "limiting it to 64k tokens" in its comment, 128 Ki in code)"""


def mla_absorbed_bytes(model: ModelSpec, parallel: ParallelSpec, release: tuple[int, int, int] | None, *,
                       act_bytes: int, quantization: str | None = None) -> Bytes:
    """Bytes per rank of W_QR + W_Q_UK + W_UV_O over the rank's MLA layers (module docstring); 0 when the
    model is not MLA or the release is outside ``ABSORPTION_RELEASES`` (None: unknown release, 0)."""
    m = model.mla
    if m is None or release is None or not ABSORPTION_RELEASES[0] <= release <= ABSORPTION_RELEASES[1]:
        return Bytes(0)
    from tpkit.models.quant import resolve_quant

    quant = resolve_quant(model.quant, quantization)
    fp8 = quant is not None and quant.method == "fp8"  # fp8 checkpoints, compressed-tensors fp8, --quantization fp8
    if release < (0, 7, 3) and quant is not None and not fp8:
        return Bytes(0)  # ModelConfig.use_mla is False: the non-MLA path, no absorption
    n = max(1, model.num_attention_heads // parallel.attn_tp)
    q_in = m.q_lora_rank or model.hidden_size
    from tpkit.engines.vllm.pages import pp_split
    from tpkit.models.layout import stage_sizes

    layers = max(stage_sizes(model.num_layers, parallel.pp, pp_split(release, parallel)))  # the most layers
    w_qr = q_in * n * m.qk_rope_head_dim * act_bytes
    q_uk = q_in * n * m.kv_lora_rank
    uv_o = n * m.kv_lora_rank * model.hidden_size
    if fp8:
        block = quant.block_size
        scales = 0
        if block:
            scales = 4 * (math.ceil(q_in / block[1]) * math.ceil(n * m.kv_lora_rank / block[0])
                          + math.ceil(n * m.kv_lora_rank / block[1]) * math.ceil(model.hidden_size / block[0]))
        absorbed = q_uk + uv_o + scales
    else:
        absorbed = (q_uk + uv_o) * act_bytes
    return Bytes(layers * (w_qr + absorbed))


def mla_dequant_kv_b_bytes(model: ModelSpec, parallel: ParallelSpec, release: tuple[int, int, int] | None, *,
                           act_bytes: int, quantization: str | None = None, engine: str = "V0") -> Bytes:
    """Bytes per rank of the dequantised copy of ``kv_b_proj`` over the rank's MLA layers whose ``kv_b_proj``
    is quantised (module docstring); 0 when the model is not MLA, is unquantised, or the release is before
    ``DEQUANT_KV_B_FROM`` (None: unknown release, 0).  Before 0.8.0 only the V0 engine has the MLA backend (0.7.3
    V1 runs FlashAttention): 0.7.1–0.7.2 keep a float32 copy of an fp8 ``kv_b_proj`` (other quantisations turn MLA
    off), 0.7.3 an activation-dtype copy of any quantised one."""
    m = model.mla
    if m is None or release is None or release < DEQUANT_KV_B_FROM:
        return Bytes(0)
    if release < (0, 8, 0) and engine != "V0":
        return Bytes(0)
    from tpkit.models.params import layer_parts
    from tpkit.models.quant import is_quantised, resolve_quant

    quant = resolve_quant(model.quant, quantization)
    if quant is None:
        return Bytes(0)
    dtype_bytes = act_bytes
    if release < (0, 7, 3):
        if quant.method != "fp8":
            return Bytes(0)
        dtype_bytes = 4  # scaled_dequantize's default out_dtype, float32
    n = max(1, model.num_attention_heads // parallel.attn_tp)
    per_layer = m.kv_lora_rank * n * (m.qk_nope_head_dim + m.v_head_dim) * dtype_bytes
    layers = math.ceil(model.num_layers / parallel.pp)  # rank 0's layers
    count = 0
    for i in range(layers):
        kv_b = [p for p in layer_parts(model, i) if p.name.endswith(".kv_b_proj")]
        count += sum(1 for p in kv_b if is_quantised(p, quant))
    return Bytes(count * per_layer)


def mla_prefill_workspace_bytes(model: ModelSpec, release: tuple[int, int, int] | None, *, engine: str,
                                max_model_len: int, max_num_seqs: int, block_size: int, act_bytes: int) -> Bytes:
    """Bytes per rank of the V1 MLA chunked-prefill workspace charged by the profile (module docstring): V1
    releases in ``V1_WORKSPACE_AT_INIT`` only, else 0 (None: unknown release, 0)."""
    m = model.mla
    if m is None or engine != "V1" or release is None:
        return Bytes(0)
    if not V1_WORKSPACE_AT_INIT[0] <= release <= V1_WORKSPACE_AT_INIT[1]:
        return Bytes(0)
    rows = min(max(8 * max_model_len, 4 * max_num_seqs * block_size), WORKSPACE_MAX_ROWS)
    return Bytes(rows * (m.kv_lora_rank + m.qk_rope_head_dim) * act_bytes)


def mla_v0_profile_workspace(model: ModelSpec, parallel: ParallelSpec, release: tuple[int, int, int] | None, *,
                             engine: str, chunked_prefill: bool, prefix_caching: bool, max_model_len: int,
                             max_num_seqs: int, block_size: int, act_bytes: int) -> tuple[Bytes, Bytes, int]:
    """(workspace kept, simulated up-projection during each MLA layer's forward, rows) per rank in the V0 profile run
    of vLLM 0.8.0–0.10 (module docstring); zeros where the model is not MLA, the engine is not V0, the release is
    before ``V0_WORKSPACE_FROM`` (None: unknown, zeros) or chunked prefill and prefix caching are both off."""
    m = model.mla
    if m is None or engine != "V0" or release is None or release < V0_WORKSPACE_FROM:
        return Bytes(0), Bytes(0), 0
    if not (chunked_prefill or prefix_caching):
        return Bytes(0), Bytes(0), 0
    rows = min(max(8 * max_model_len, 4 * max_num_seqs * block_size), WORKSPACE_MAX_ROWS)
    heads = max(1, model.num_attention_heads // parallel.attn_tp)
    kept = rows * (m.kv_lora_rank + m.qk_rope_head_dim) * act_bytes
    simulated = rows * heads * (m.qk_nope_head_dim + m.v_head_dim) * act_bytes
    return Bytes(kept), Bytes(simulated), rows


def mla_v0_attention_width(model: ModelSpec, parallel: ParallelSpec, release: tuple[int, int, int] | None, *,
                           engine: str, quantization: str | None = None) -> tuple[int, str] | None:
    """Elements per token (activation dtype) the V0 MLA prefill keeps alive at the profile's attention peak, the
    all-reduce of ``o_proj``, beyond what ``profile._attention`` counts for an MLA model (3H, q, kv_a's output,
    kv_b's output, the attention output and the all-reduced copy); None outside ``V0_PREFILL_READ``, for V1, and
    where 0.7.1–0.7.2 turn MLA off (a quantisation other than fp8).

    Helper mla15 (2026-12-05), read in the 0.7.1, 0.7.2, 0.7.3, 0.8.0, 0.8.3 and 0.8.4 wheels (the eager V0 forward
    of the profile run; 0.8.5 moved the padding into ``_flash_attn_varlen_diff_headdims``, which skips it for FA3 on
    Hopper, and 0.9 moved the q projection into the model: not counted here).  Alive at that point, n = heads / tp:

    * ``DeepseekV2MLAAttention.forward`` (``models/deepseek_v2.py``): ``ckq = q_a_proj(h)`` and its
      ``q_a_layernorm`` output (q_lora_rank each, when the model has one), ``kv_a_proj_with_mqa``'s output
      (kv_lora_rank + qk_rope_head_dim; ``k_pe`` stays a view of it), ``kv_c.contiguous()`` and ``kv_a_layernorm``'s
      output (kv_lora_rank each), all locals until ``mla_attn`` returns;
    * ``MLACommonImpl.forward`` (0.7.x ``attention/backends/mla/utils.py``, 0.8.x ``mla/common.py``): ``q_proj``'s
      output n·(qk_nope + qk_rope); from 0.8.0 the (T, hidden) ``output`` it fills from the prefill;
    * ``_forward_prefill`` (0.7.x ``_forward_prefill_flash``): ``kv_b_proj``'s output ``kv_nope`` n·(qk_nope +
      v_head), ``k = cat(k_nope, k_pe)`` and ``v_padded`` (v padded to the q head dim) n·(qk_nope + qk_rope) each,
      and the sliced attention output copied by ``reshape`` n·v_head (the flash output itself is freed when the
      name is rebound), all alive while ``o_proj`` runs and reduces.

    Beyond the generic count that is 2 × q_lora_rank + 2 × kv_lora_rank + 2 n·(qk_nope + qk_rope) (+ hidden from
    0.8.0).  The model's ``fused_add_rms_norm`` normalises the layer input in place, so residual + layer input +
    o_proj output are the generic 3H.  Printed check, vp_323 (0.8.3, DeepSeek-V2.5 tp 8 × pp 2, 8,192 tokens, prefix
    caching on): the driver (stage 0) prints a 1.27 GiB peak; with the context workspace / simulated up-projection
    of ``mla_v0_profile_workspace`` the attention phase gives 1.267 GiB."""
    m = model.mla
    if m is None or engine != "V0" or release is None or not V0_PREFILL_READ[0] <= release <= V0_PREFILL_READ[1]:
        return None
    if release < (0, 7, 3):
        from tpkit.models.quant import resolve_quant

        quant = resolve_quant(model.quant, quantization)
        if quant is not None and quant.method != "fp8":
            return None  # ModelConfig.use_mla is False: the non-MLA attention runs
    n = max(1, model.num_attention_heads // parallel.attn_tp)
    qk = n * (m.qk_nope_head_dim + m.qk_rope_head_dim)
    q_lora = 2 * m.q_lora_rank if m.q_lora_rank else 0
    output = model.hidden_size if release >= V0_OUTPUT_BUFFER_FROM else 0
    extra = q_lora + 2 * m.kv_lora_rank + 2 * qk + output
    note = ((f"q_a 2 × {m.q_lora_rank:,} + " if q_lora else "") + f"kv_c copies 2 × {m.kv_lora_rank:,} + k, "
            f"v_padded 2 × {qk:,}" + (f" + output buffer H {output:,}" if output else ""))
    return extra, f"V0 MLA prefill (vLLM {'.'.join(map(str, release))}): {note}"
