"""vLLM's LoRA GPU buffers (``--enable-lora``), planned from the model config and the LoRA flags.

What vLLM allocates (read in the wheels 0.5.4, 0.6.6, 0.7.0, 0.8.5, 0.9.0, 0.10.1.1, 0.11.0, 0.12.0, 0.14.1,
0.18.0, 0.22.0, 0.27.1, 0.33.0):

* ``load_model`` (V0 ``worker/model_runner.py``, V1 ``v1/worker/gpu_model_runner.py``, Model Runner V2
  ``v1/worker/gpu/model_runner.py``) wraps the model with the LoRA manager (``load_lora_model`` →
  ``LoRAModelManager._create_lora_modules`` → each wrapped layer's ``create_lora_weights``) INSIDE the
  ``DeviceMemoryProfiler`` of the load, so the stacked buffers are part of the load delta ("Model loading took")
  and come off the KV budget like the weights.
* ``create_lora_weights`` per wrapped layer (``lora/layers.py`` ≤ 0.10.x, ``lora/layers/*.py`` from 0.11):
  ``lora_a_stacked`` (max_loras, 1, rank, in) and ``lora_b_stacked`` (max_loras, 1, out, rank) per output slice,
  in ``lora_dtype`` (``auto`` = the model dtype).  Column-parallel layers (qkv, gate_up): A full (rank/tp with
  ``--fully-sharded-loras``), B the per-rank output slices; row-parallel layers (o, down): A over the per-rank
  input, B full (out/tp when fully sharded).
* Every linear layer is wrapped (``lora/utils.py`` ``get_supported_lora_modules``), plus ``embed_tokens`` and
  ``lm_head`` of models that declare ``embedding_modules`` (Llama, Qwen2/3, Mistral … all do):
  ``VocabParallelEmbeddingWithLoRA`` A (max_loras, vocab, rank) + B (max_loras, 1, hidden, rank);
  ``LogitsProcessorWithLoRA`` A (max_loras, 1, rank, hidden) + B (max_loras, 1, vocab, rank), not TP-sharded.
* Up to 0.11.x (``LoRAConfig.lora_extra_vocab_size``, default 256; gone in 0.12.0): the embedding A has
  vocab + extra rows, both embedding layers keep an ``embeddings_tensors`` (max_loras, extra, hidden) in the
  model dtype, the logits B is padded to ``lora_vocab_padding_size`` (256 on CUDA), and the models size their
  embedding / lm_head for vocab + extra rows (``unpadded_vocab_size += lora_extra_vocab_size``).
* From 0.12.0 ``FusedMoEWithLoRA`` (``lora/layers/fused_moe.py``; absent in 0.11.0): per MoE layer w13 A
  2 × (max_loras, local experts, rank, hidden), w13 B 2 × (max_loras, local experts, I/tp, rank), w2 A
  (max_loras, local experts, rank, I/tp), w2 B (max_loras, local experts, hidden, rank).  Before 0.12 the
  experts are not wrapped (only the attention, router and shared-expert linears).
* The punica wrapper (``lora/punica_wrapper/punica_base.py`` ``PunicaWrapperBase.__init__``,
  ``punica_gpu.py`` ``LoRAKernelMeta.make``): index tensors of max_num_batched_tokens (rounded up to 8) and
  max_num_seqs entries, about 56 B per token: under 1 MiB at the default sizes, counted in the same line.
* The profile run's dummy LoRAs (``add_dummy_lora`` → ``create_dummy_lora`` /
  ``LoRALayerWeights.create_dummy_lora_weights(..., "cpu")``, every release read; Model Runner V2 in 0.22
  programs a no-LoRA mapping for dummy runs instead, ``execute_model`` ``dummy_run``) are built on the CPU and
  copied into the buffers above: no extra GPU memory.  The LoRA kernels' float32 shrink buffer
  (slices × tokens × rank, ``punica_gpu.py`` ``add_lora_linear``) is transient and far below the MLP peak.
* ``--max-cpu-loras`` sizes the CPU-side adapter cache only.

Not modelled: MLA and linear-attention projections (their LoRA A/B are left out, with a note), the vision
tower of multimodal models (vLLM wraps only the language model unless ``--enable-tower-connector-lora``).
"""

from __future__ import annotations

import math

from tpkit.engines.engine import check_switches, check_whole_numbers
from tpkit.errors import PlanInputError
from tpkit.models.spec import ModelSpec
from tpkit.parallel import ParallelSpec
from tpkit.records import dataclass
from tpkit.units import Bytes, mib_text

__all__ = ["VllmLora", "allowed_ranks", "check_lora_flags", "lora_buffers"]

EXTRA_VOCAB_LAST = (0, 11, 99)
"""last release with ``lora_extra_vocab_size`` (0.11.0 ``config/lora.py``; gone in 0.12.0)"""
FUSED_MOE_LORA_FIRST = (0, 12, 0)
"""first release with ``lora/layers/fused_moe.py`` (absent in 0.11.0, present in 0.12.0)"""
VOCAB_PADDING = 256
"""``lora_vocab_padding_size`` on CUDA (``platforms/cuda.py`` ``get_lora_vocab_padding_size``) up to 0.11.x"""
PUNICA_BYTES_PER_TOKEN = 5 * 8 + 2 * 2 * 4
"""``PunicaWrapperBase``: token, sampler, padded-sampler indices and 2 embedding-index rows (int64) per token;
``LoRAKernelMeta`` × 2: token mapping + sorted indices (int32) per token"""


def allowed_ranks(release: tuple[int, ...]) -> tuple[int, ...]:
    """``--max-lora-rank`` values vLLM accepts: ``LoRAConfig.__post_init__`` ``possible_max_ranks`` (0.5.4:
    8-64; 0.6.6, 0.7.0: 8-256; 0.8.5 … 0.11.0: 8-512 with 320) and ``MaxLoRARanks`` (0.12.0 …: adds 1)."""
    if release < (0, 6, 0):
        return (8, 16, 32, 64)
    if release < (0, 8, 0):
        return (8, 16, 32, 64, 128, 256)
    if release < (0, 12, 0):
        return (8, 16, 32, 64, 128, 256, 320, 512)
    return (1, 8, 16, 32, 64, 128, 256, 320, 512)


def check_lora_flags(options, release: tuple[int, ...], version: str) -> None:
    """Refuse LoRA flags vLLM refuses (``LoRAConfig`` validation, ``config/lora.py`` / ``config.py``)."""
    check_whole_numbers(options, ("max_loras", "max_lora_rank", "max_cpu_loras", "lora_extra_vocab_size"))
    check_switches(options, ("enable_lora", "fully_sharded_loras"))
    rank = options.max_lora_rank
    ranks = allowed_ranks(release)
    if rank is not None and rank not in ranks:
        raise PlanInputError(f"--max-lora-rank {rank} is refused by vLLM {version} (LoRAConfig: one of "
                             f"{', '.join(map(str, ranks))}); give the next allowed value ≥ your adapters' r")
    loras = options.max_loras or 1
    if options.max_cpu_loras is not None and options.max_cpu_loras < loras:
        raise PlanInputError(f"--max-cpu-loras {options.max_cpu_loras} is below --max-loras {loras}; vLLM refuses "
                             "it (LoRAConfig: max_cpu_loras must be >= max_loras): raise it or leave it out")
    if options.lora_extra_vocab_size is not None:
        if release > EXTRA_VOCAB_LAST:
            raise PlanInputError(f"--lora-extra-vocab-size exists up to vLLM 0.11.x (removed in 0.12.0), not in "
                                 f"{version}; leave it out")


@dataclass(frozen=True, kw_only=True, slots=True)
class VllmLora:
    """The LoRA buffers of one GPU."""

    bytes: Bytes
    """the A/B buffers and punica metadata on one GPU (bytes)"""
    source: str
    """how they were sized, in words"""
    notes: tuple[str, ...] = ()
    """what is not modelled for this model or release"""


def _linear(rank: int, in_a: int, out_b: int, slices: int = 1, rank_a: int | None = None) -> int:
    """Elements of one wrapped linear: ``slices`` × A (rank_a × in_a) + B (out_b × rank) summed over slices
    (``out_b`` is the sum of the slices' outputs)."""
    return slices * (rank_a if rank_a is not None else rank) * in_a + out_b * rank


def lora_buffers(model: ModelSpec, parallel: ParallelSpec, *, release: tuple[int, ...], max_loras: int,
                 max_lora_rank: int, fully_sharded: bool, lora_bytes: int, model_bytes: int,
                 max_num_batched_tokens: int, max_num_seqs: int, extra_vocab: int | None = None) -> VllmLora:
    """Bytes per GPU of vLLM's LoRA buffers (module docstring); ``lora_bytes``: element size of ``lora_dtype``,
    ``model_bytes``: of the model dtype (extra-vocab embeddings)."""
    tp, r, n = parallel.tp, max_lora_rank, max_loras
    if fully_sharded and r % tp:
        raise PlanInputError(f"--fully-sharded-loras splits the rank over --tp {tp}, but --max-lora-rank {r} is not "
                             "divisible by it (vLLM's divide() asserts): pick a rank that is")
    h = model.hidden_size
    dims = (tp, r, r // tp if fully_sharded else r, h, h // tp if fully_sharded else h)  # ra_col, h_row: sharded
    notes: list[str] = []
    total_layers, how = _layer_elements(model, parallel, dims, release, notes)
    per_layer_bytes = total_layers * lora_bytes
    emb_bytes, extra = _embedding_bytes(model, parallel, n, r, release=release, extra_vocab=extra_vocab,
                                        lora_bytes=lora_bytes, model_bytes=model_bytes)
    t8 = math.ceil(max_num_batched_tokens / 8) * 8
    punica = Bytes(t8 * PUNICA_BYTES_PER_TOKEN + 3 * 8 * max_num_seqs)
    total = n * per_layer_bytes + emb_bytes + punica.bytes
    source = (f"vLLM --enable-lora: max_loras {n} × rank {r} × {lora_bytes} B: {how} (A: rank × in, B: out/tp × "
              f"rank{', fully sharded' if fully_sharded else ''}) + embed_tokens/lm_head A/B over vocab "
              f"{model.vocab_size:,}" + (f" + {extra} extra-vocab rows (≤ 0.11)" if extra else "")
              + f" + punica metadata {mib_text(punica)}; in the load delta "
              "(load_lora_model → create_lora_weights, engines/vllm/lora.py)")
    return VllmLora(bytes=Bytes(total), source=source, notes=tuple(notes))


def _dense_elements(inter: int, dims: tuple) -> int:
    """One LoRA slot's gate_up (2 slices) + down A/B elements of a dense MLP of intermediate size ``inter``;
    ``dims``: (tp, rank, rank of a column-parallel A, hidden, hidden of a row-parallel B)."""
    tp, r, ra_col, h, h_row = dims
    i = inter // tp
    return _linear(r, h, 2 * i, slices=2, rank_a=ra_col) + _linear(r, i, h_row)


def _layer_elements(model: ModelSpec, parallel: ParallelSpec, dims: tuple, release: tuple[int, ...],
                    notes: list[str]) -> tuple[int, str]:
    """One LoRA slot's A/B elements over this GPU's decoder layers (attention, the dense MLP or the MoE block's
    routed experts, router and shared expert) and how they add up; what is not modelled goes to ``notes``."""
    tp, r, ra_col, h, h_row = dims
    if model.mla is None and model.linear_attn is None:
        q = model.num_attention_heads * model.head_dim // tp
        kv = max(1, model.num_kv_heads // tp) * model.head_dim
        kv_v = max(1, model.num_kv_heads // tp) * (model.v_head_dim or model.head_dim)
        attn = _linear(r, h, q + kv + kv_v, slices=3, rank_a=ra_col) + _linear(r, q, h_row)
    else:
        attn = 0
        notes.append("LoRA: the A/B buffers of MLA / linear-attention projections are not modelled (left out)")
    layers = math.ceil(model.num_layers / parallel.pp)
    moe = model.moe
    if moe is None:
        return layers * (attn + _dense_elements(model.intermediate_size, dims)), \
            f"{layers} layers × (qkv + o + gate_up + down)"
    ep = parallel.ep if parallel.ep > 1 else 1
    e_local = moe.num_experts // ep
    i_m = moe.moe_intermediate_size // (1 if ep > 1 else tp)
    experts = 0
    if release >= FUSED_MOE_LORA_FIRST:  # w13 A (2 slices) + w13 B + w2 A + w2 B
        experts = e_local * (2 * ra_col * h + 2 * i_m * r + r * i_m + h_row * r)
    else:
        notes.append(f"LoRA: vLLM {'.'.join(map(str, release))} does not wrap the routed experts (FusedMoE "
                     "LoRA from 0.12.0): only attention, router and shared-expert buffers")
    router = _linear(r, h, moe.num_experts)
    shared_i = (moe.shared_intermediate_size or moe.moe_intermediate_size * moe.num_shared_experts
                if moe.num_shared_experts else 0)
    shared = _dense_elements(shared_i, dims) if shared_i else 0
    dense_layers = min(moe.num_dense_layers, layers)
    moe_layers = layers - dense_layers
    total_layers = (dense_layers * (attn + _dense_elements(model.intermediate_size, dims))
                    + moe_layers * (attn + experts + router + shared))
    return total_layers, (f"{moe_layers} MoE layers × (qkv + o + router + {e_local} experts' w13/w2"
                          f"{' + shared expert' if shared else ''}) + {dense_layers} dense layers")


def _embedding_bytes(model: ModelSpec, parallel: ParallelSpec, n: int, r: int, *, release: tuple[int, ...],
                     extra_vocab: int | None, lora_bytes: int, model_bytes: int) -> tuple[int, int]:
    """(bytes of the embed_tokens / lm_head LoRA buffers on this GPU for ``n`` slots of rank ``r``, the extra-vocab
    rows they carry: 0 after ``EXTRA_VOCAB_LAST``)."""
    v, h, tp = model.vocab_size, model.hidden_size, parallel.tp
    extra = 0
    if release <= EXTRA_VOCAB_LAST:
        extra = extra_vocab or 256
        v_pad = math.ceil((v + extra) / VOCAB_PADDING) * VOCAB_PADDING
        emb = n * (v + extra) * r + n * h * r  # VocabParallelEmbeddingWithLoRA A + B
        head = n * r * h + n * v_pad * r  # LogitsProcessorWithLoRA A + padded B
        emb_bytes = (emb + head) * lora_bytes + 2 * n * extra * h * model_bytes  # + embeddings_tensors × 2
        emb_bytes += (1 if model.tie_word_embeddings else 2) * extra * h // tp * model_bytes  # vocab + extra rows
    else:
        emb_bytes = (n * v * r + n * h * r + n * r * h + n * v * r) * lora_bytes
    if parallel.pp > 1:
        emb_bytes //= 2  # embed_tokens on the first stage, lm_head on the last (either one per GPU)
    return emb_bytes, extra
