"""vLLM ``--kv-cache-dtype``: which values a release accepts and the bytes one cached head vector costs.

Facts read in the released wheels (``pip download --no-deps vllm==X``):

* accepted values: ``vllm/config/cache.py`` ``CacheDType``.  0.18.0 and 0.19.0: auto, float16, bfloat16, fp8,
  fp8_e4m3, fp8_e5m2, fp8_inc, fp8_ds_mla.  0.20.0 adds turboquant_k8v4 / _4bit_nc / _k3v4_nc / _3bit_nc,
  int8_per_token_head, fp8_per_token_head and nvfp4 (absent in 0.19.0, present in 0.20.0).  int4_per_token_head:
  absent in 0.20.0, present in 0.25.0.  nvfp4_4over6: absent in 0.25.0, present in 0.28.0 and 0.29.0.
* storage element: ``vllm/utils/torch_utils.py`` ``STR_DTYPE_TO_TORCH_DTYPE``: every fp8*/nvfp4*/turboquant value is
  stored as a 1-byte element (uint8; fp8_inc float8_e4m3fn); float16/bfloat16 2 bytes; auto = the model dtype.
* nvfp4 packing: ``vllm/utils/torch_utils.py`` ``nvfp4_kv_cache_full_dim`` (0.20.0–0.29.0): one K (or V) head
  vector of ``h`` elements occupies ``h // 2`` bytes of fp4 data plus ``h // 16`` bytes of fp8 block scales, i.e.
  0.5 + 1/16 bytes per element.  Page size: 0.20.0–0.25.0 ``v1/kv_cache_interface.py`` ``AttentionSpec``
  (``full_dim(h) + full_dim(h_v)`` bytes per KV head and token), 0.28.0–0.29.0 the FlashInfer backend's
  ``customize_spec`` (2 × kv_heads slots of ``full_dim(h)`` bytes each): the same bytes.  MLA layers have no nvfp4
  layout in these wheels (FlashInfer attention only).
* fp8_ds_mla (DeepSeek-V3.2 sparse MLA): a 656-byte record per token and MLA layer (0.18.0–0.19.0
  ``v1/kv_cache_interface.py`` ``MLAAttentionSpec.page_size_bytes``, 0.29.0 ``mla_attention.py``
  ``state_content_bytes=656``).

* checkpoint KV scheme (``--kv-cache-dtype auto``): ``vllm/utils/torch_utils.py`` ``resolve_kv_cache_dtype_string`` /
  ``get_kv_cache_quant_algo_string`` (absent in 0.11.0; present in 0.14.0–0.29.0): only a ``quant_method``
  starting with ``modelopt`` is read; its ``kv_cache_scheme`` or ``kv_cache_quant_algo`` (top level or under
  ``quantization``) "fp8" → fp8_e4m3; a scheme dict ``{num_bits 8, type float, dynamic false}`` → fp8 and
  ``{num_bits 4, type float}`` → nvfp4 (from 0.20.0; 0.18.0–0.19.0 map nvfp4 to auto with a warning); any other
  value → auto.  Other methods (compressed-tensors ``kv_cache_scheme``, fp8 ``kv_cache_quant_algo``) leave auto
  as the model dtype.

* per-token-head KV (int8_per_token_head, fp8_per_token_head: 0.20.0–0.34.0; int4_per_token_head: 0.25.0–0.34.0;
  absent in 0.19.1 / 0.24.0 respectively; helper kvd23 read 0.19.1, 0.20.0–0.26.0, 0.27.0, 0.27.1, 0.28.0, 0.29.0,
  0.30.0 and 0.34.0): a 1-byte element (int8 / uint8 / uint8 packing two int4 values, ``STR_DTYPE_TO_TORCH_DTYPE``)
  plus one fp32 scale per K head vector and one per V head vector of every token.  0.20.0–0.27.1
  ``v1/kv_cache_interface.py`` ``AttentionSpec.unpadded_page_size_bytes`` adds ``2 × block × kv_heads × 4`` B to
  ``real_page_size_bytes``; 0.28.0–0.34.0 ``TritonAttentionBackend.customize_spec`` sets each (head, token) slot to
  ``(h_k + h_v) × 1 + 2 × 4`` B (``state_content_bytes``, applied to every attention spec by
  ``gpu_model_runner.get_kv_cache_spec``): the same bytes.  int4 halves the data (``h // 2`` per K / V vector) in
  ``FullAttentionSpec`` / ``AttentionSpec`` (full, chunked); ``SlidingWindowSpec.real_page_size_bytes`` ignores the
  int4 mode in 0.25.0–0.27.1 (full ``h_k + h_v`` bytes), and from 0.28.0 ``customize_spec`` halves it there too
  (``INT4_SLIDING_HALVED``).  Hybrid attention + mamba alignment sizes the attention page from the same spec
  (0.26.0 ``platforms/interface.py`` ``_align_hybrid_block_size``: ``FullAttentionSpec(block_size=1).page_size_bytes``;
  0.29.0 through ``customize_spec``), scales included.  Only ``TRITON_ATTN`` lists these values in
  ``supported_kv_cache_dtypes`` (no MLA backend does, 0.20.0–0.34.0), so MLA models are refused.

Values vLLM accepts whose layout tpkit does not model (turboquant_*) raise ``PlanInputError``
(what, received, how to fix) instead of being planned as the model dtype.
"""

from __future__ import annotations

from tpkit.dtypes import lookup_dtype
from tpkit.errors import PlanInputError
from tpkit.records import dataclass

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at start (a few ms; issue 12)
if TYPE_CHECKING:
    from tpkit.models.spec import QuantSpec

__all__ = ["KvDtype", "KV_DTYPES", "kv_dtype", "accepted_values", "checkpoint_kv_dtype", "NVFP4_BYTES_PER_ELEMENT",
           "nvfp4_head_bytes", "per_token_head_bytes", "PER_TOKEN_HEAD_SCALE_BYTES", "INT4_SLIDING_HALVED",
           "DS_MLA_TOKEN_BYTES"]

NVFP4_BYTES_PER_ELEMENT = 0.5 + 1 / 16
"""bytes per cached element of the nvfp4 layout (fp4 data + one fp8 scale per 16 elements)"""
DS_MLA_TOKEN_BYTES = 656
"""bytes of one token of one MLA layer in the fp8_ds_mla layout"""


PER_TOKEN_HEAD_SCALE_BYTES = 4
"""one fp32 scale per K (and per V) head vector and token of the per-token-head layouts (module docstring)"""
INT4_SLIDING_HALVED = (0, 28, 0)
"""the first release whose sliding-window pages pack int4_per_token_head two values a byte (0.25.0–0.27.1
``SlidingWindowSpec.real_page_size_bytes`` keeps ``h_k + h_v`` bytes; 0.28.0 ``customize_spec`` halves them)"""


def nvfp4_head_bytes(head_size: int) -> int:
    """Bytes of one nvfp4 K (or V) head vector: ``h // 2`` data + ``h // 16`` scales
    (``vllm/utils/torch_utils.py`` ``nvfp4_kv_cache_full_dim``, 0.20.0–0.29.0)."""
    return head_size // 2 + head_size // 16


@dataclass(frozen=True, kw_only=True, slots=True)
class KvDtype:
    """One ``--kv-cache-dtype`` value as vLLM sizes it."""

    name: str
    """the flag value"""
    element_bytes: int | None
    """storage element size (bytes); None: the model dtype (``auto``)"""
    element_dtype: str | None
    """torch storage dtype name; None: the model's"""
    layout: str = "dense"
    """``dense`` (head × element bytes), ``nvfp4`` (packed data + scales), ``ds_mla`` (656 B per MLA token),
    ``per_token_head`` (data + one fp32 scale per K / V head vector, ``per_token_head_bytes``) or ``unmodelled``"""
    since: tuple[int, int, int] = (0, 0, 0)
    """first release (as verified in the wheels) whose ``CacheDType`` accepts the value"""

    nibbles: bool = False
    """two 4-bit values per storage byte (int4_per_token_head)"""

    def head_bytes(self, head_size: int, act_bytes: int) -> int:
        """Bytes of one cached K (or V) head vector of ``head_size`` elements (``act_bytes``: the model dtype)."""
        if self.layout == "nvfp4":
            return nvfp4_head_bytes(head_size)
        if self.layout != "dense":
            raise PlanInputError(f"--kv-cache-dtype {self.name} has no per-head layout in tpkit")
        return head_size * (self.element_bytes or act_bytes)


_V020 = (0, 20, 0)
KV_DTYPES: dict[str, KvDtype] = {d.name: d for d in (
    KvDtype(name="auto", element_bytes=None, element_dtype=None),
    KvDtype(name="float16", element_bytes=2, element_dtype="float16"),
    KvDtype(name="bfloat16", element_bytes=2, element_dtype="bfloat16"),
    KvDtype(name="fp16", element_bytes=2, element_dtype="float16"),
    KvDtype(name="bf16", element_bytes=2, element_dtype="bfloat16"),
    KvDtype(name="half", element_bytes=2, element_dtype="float16"),
    KvDtype(name="fp8", element_bytes=1, element_dtype="uint8"),
    KvDtype(name="fp8_e4m3", element_bytes=1, element_dtype="uint8"),
    KvDtype(name="fp8_e5m2", element_bytes=1, element_dtype="uint8"),
    KvDtype(name="fp8_inc", element_bytes=1, element_dtype="float8_e4m3fn"),
    KvDtype(name="fp8_ds_mla", element_bytes=1, element_dtype="uint8", layout="ds_mla"),
    KvDtype(name="nvfp4", element_bytes=1, element_dtype="uint8", layout="nvfp4", since=_V020),
    KvDtype(name="nvfp4_4over6", element_bytes=1, element_dtype="uint8", layout="nvfp4", since=(0, 28, 0)),
    KvDtype(name="turboquant_k8v4", element_bytes=1, element_dtype="uint8", layout="unmodelled", since=_V020),
    KvDtype(name="turboquant_4bit_nc", element_bytes=1, element_dtype="uint8", layout="unmodelled", since=_V020),
    KvDtype(name="turboquant_k3v4_nc", element_bytes=1, element_dtype="uint8", layout="unmodelled", since=_V020),
    KvDtype(name="turboquant_3bit_nc", element_bytes=1, element_dtype="uint8", layout="unmodelled", since=_V020),
    KvDtype(name="int8_per_token_head", element_bytes=1, element_dtype="int8", layout="per_token_head", since=_V020),
    KvDtype(name="fp8_per_token_head", element_bytes=1, element_dtype="uint8", layout="per_token_head", since=_V020),
    KvDtype(name="int4_per_token_head", element_bytes=1, element_dtype="uint8", layout="per_token_head",
            since=(0, 25, 0), nibbles=True),
)}
"""every ``--kv-cache-dtype`` value tpkit knows (bf16/fp16/half: tpkit spellings of bfloat16/float16)"""


def per_token_head_bytes(fmt: KvDtype, k_dim: int, v_dim: int, *, kind: str,
                         release: tuple[int, ...] | None = None) -> int:
    """Bytes one KV head of one token costs in one layer of ``kind`` under a per-token-head ``fmt``: the K and V
    data (``h // 2`` each for int4, except sliding-window layers before ``INT4_SLIDING_HALVED``) plus two fp32
    scales (module docstring; ``release`` None: the newest examined)."""
    if fmt.nibbles and (kind != "sliding" or release is None or tuple(release[:3]) >= INT4_SLIDING_HALVED):
        k_dim, v_dim = k_dim // 2, v_dim // 2
    return (k_dim + v_dim) * (fmt.element_bytes or 1) + 2 * PER_TOKEN_HEAD_SCALE_BYTES


def accepted_values(release: tuple[int, ...]) -> tuple[str, ...]:
    """The values the release's ``CacheDType`` accepts (plus tpkit's bf16/fp16/half spellings)."""
    return tuple(n for n, d in KV_DTYPES.items() if tuple(release[:3]) >= d.since)


def kv_dtype(value: str | None, release: tuple[int, ...] | None = None, *, mla: bool = False,
             label: str | None = None) -> KvDtype:
    """The ``KvDtype`` of a ``--kv-cache-dtype`` value for a release (None: the newest examined).

    Raises ``PlanInputError`` for a value unknown to vLLM, one the release does not accept yet, one whose
    layout tpkit does not model, nvfp4 on an MLA model and fp8_ds_mla on a non-MLA model — never falls back
    to the model dtype."""
    name = (value or "auto").strip().lower()
    found = KV_DTYPES.get(name)
    where = f"vLLM {label}" if label else "vLLM"
    if found is None:
        raise PlanInputError(f"--kv-cache-dtype {value!r} is not a value vLLM accepts (vllm/config/cache.py "
                             f"CacheDType); use one of: {', '.join(KV_DTYPES)}")
    if release is not None and tuple(release[:3]) < found.since:
        first = ".".join(map(str, found.since))
        raise PlanInputError(f"--kv-cache-dtype {name} is not accepted by {where} (it arrived in {first}); "
                             f"plan with --engine-version {first} or later, or pick one of: "
                             f"{', '.join(accepted_values(release))}")
    if found.layout == "unmodelled":
        raise PlanInputError(f"--kv-cache-dtype {name}: {where} accepts it but tpkit does not model its KV "
                             "layout, and planning it as the model dtype would be wrong; plan with auto, "
                             "float16, bfloat16, fp8, fp8_e4m3, fp8_e5m2, nvfp4 or a *_per_token_head value instead")
    if found.layout == "per_token_head" and mla:
        raise PlanInputError(f"--kv-cache-dtype {name}: no MLA attention backend of vLLM takes per-token-head KV "
                             "(only TRITON_ATTN lists it in supported_kv_cache_dtypes); use fp8 or auto for this model")
    if found.layout == "nvfp4" and mla:
        raise PlanInputError(f"--kv-cache-dtype {name}: vLLM has no nvfp4 layout for MLA attention (FlashInfer "
                             "attention only); use fp8 or auto for this model")
    if found.layout == "ds_mla" and not mla:
        raise PlanInputError(f"--kv-cache-dtype {name} is the DeepSeek-V3.2 MLA record and applies to MLA "
                             "models only; use fp8 or auto for this model")
    return found


def checkpoint_kv_dtype(quant: QuantSpec | None, release: tuple[int, ...]) -> str | None:
    """The ``--kv-cache-dtype`` that ``auto`` resolves to for a checkpoint in a release (module docstring:
    ``resolve_kv_cache_dtype_string``, 0.14.0–0.29.0); None: auto stays the model dtype.  ``quant.kv_cache_scheme``
    is what the ModelOpt config asks for (``tpkit.models.quant``); vLLM reads it for ModelOpt methods only, takes
    an fp8 scheme object only with static scales, and maps nvfp4 from 0.20.0."""
    if quant is None or tuple(release[:3]) < (0, 14, 0) or not quant.raw_method.startswith("modelopt"):
        return None
    if quant.kv_cache_scheme == "fp8":
        return lookup_dtype("fp8").short  # vLLM maps the bare fp8 scheme to e4m3
    if quant.kv_cache_scheme == "nvfp4" and tuple(release[:3]) >= (0, 20, 0):
        return "nvfp4"
    return None
