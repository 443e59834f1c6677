"""``quantization_config`` (or a ``--quantization`` flag) → ``QuantSpec``, and bytes of one quantised matrix.

Storage formats (bytes of one weight matrix of ``out × in`` elements):

    fp8 block (DeepSeek, Qwen3-FP8)  out·in·1 + ceil(out/b0)·ceil(in/b1)·4       (fp32 ``weight_scale_inv``)
    fp8 per-channel (fbgemm, online) out·in·1 + out·4                           (fp32 scale per output row)
    mxfp4 (gpt-oss experts)          out·in/2 + out·ceil(in/32)·1                (e8m0 scale per 32)
    int4 compressed-tensors          out·in/2 + out·ceil(in/g)·2                 (bf16 scale per group)
    int4 AWQ / GPTQ                  out·in/2 + out·ceil(in/g)·(2 + 0.5)         (fp16 scales + packed int4 zeros)
                                     GPTQ adds ``g_idx``: in·4                   (int32 per input column)
    nvfp4 (ModelOpt, compressed)     out·in/2 + out·ceil(in/16)·1                (fp8 e4m3 scale per 16)
    fp8 per-tensor (ModelOpt)        out·in·1                                    (+ 2 fp32 scalars per shard, ≤ 24 B,
                                                                                  not counted)
    nf4 bitsandbytes (in-flight)     out·in/2 + B·1 + ceil(B/256)·4, B = ceil(out·in/64)
                                     (uint8 absmax per block of 64, compressed; fp32 absmax per 256 of those;
                                      the 1 KiB code tables per tensor not counted)

ModelOpt (``quant_method`` modelopt / modelopt_fp8 / modelopt_fp4; sglang 0.5.10
``layers/quantization/modelopt_quant.py`` ``ModelOptFp8Config`` / ``ModelOptFp4Config.from_config`` and their
``create_weights``): the flat form of config.json ``{quant_algo, kv_cache_scheme, ignore, group_size}`` or the
nested hf_quant_config.json form ``{quantization: {quant_algo, kv_cache_quant_algo, exclude_modules}}``.  FP8 stores
an fp8 weight with per-tensor fp32 weight/input scales; NVFP4 stores two fp4 values per byte, an fp8 scale per
``group_size`` (16) inputs and per-tensor fp32 scales.
"""

from __future__ import annotations

import fnmatch
import math
import re

from tpkit.errors import ConfigError, PlanInputError
from tpkit.models.fields import name_list, optional_int
from tpkit.models.spec import QuantSpec

__all__ = ["parse_quant_config", "online_quant", "bnb_online", "check_quant_engine", "resolve_quant", "is_ignored", "is_quantised", "matrix_bytes"]

_FLAG_ALIASES = {
    "fp8": "fp8", "fbgemm_fp8": "fbgemm_fp8", "mxfp4": "mxfp4",
    "awq": "awq", "awq_marlin": "awq", "gptq": "gptq", "gptq_marlin": "gptq",
    "compressed-tensors": "compressed-tensors", "compressed_tensors": "compressed-tensors",
    "moe_wna16": None,  # a kernel choice for an int4 checkpoint, never a storage format of its own
    "bitsandbytes": "bitsandbytes",  # vLLM's in-flight nf4 of a bf16/fp16 checkpoint (bnb_online)
    "deepseek_v4_fp8": "deepseek_v4_fp8",  # vLLM ≥ 0.20.0: DeepSeek-V4's stored FP8 (+ FP4 experts) layout
    "quark": "quark",  # AMD Quark exports (models/quark.py); the format is read from the checkpoint's config
}

BNB_BLOCK = 64
"""elements per absmax of bitsandbytes' ``quantize_4bit`` (its default blocksize on CUDA)"""
BNB_NESTED_BLOCK = 256
"""absmax values per fp32 absmax of the nested (``compress_statistics=True``) quantisation of the absmax"""


def parse_quant_config(qc: dict | None, *, where: str) -> QuantSpec | None:
    """Read an HF ``quantization_config`` block; ``None`` for an unquantised checkpoint."""
    if qc is None:
        return None
    if not isinstance(qc, dict):
        raise ConfigError(f"{where}: quantization_config must be an object, got {type(qc).__name__} {qc!r:.80}; fix "
                          "the config.json (HF writes e.g. {\"quant_method\": \"fp8\", …}) or remove the key and "
                          "pass --quantization")
    raw = str(qc.get("quant_method", "")).lower()
    kv_fp8 = str(qc.get("kv_cache_quant_algo") or "").upper() == "FP8"
    parser = _PARSERS.get(raw)
    if parser is None:
        raise ConfigError(
            f"{where}: quantization_config.quant_method {raw or '(missing)'!r} is not supported; "
            f"tpkit knows {', '.join(sorted(_PARSERS))}. Plan with a bf16 config or --quantization fp8"
        )
    spec = parser(qc, where)
    _check_patterns(spec.ignored, where)
    # ModelOpt: SGLang reads an fp8 scheme object as kv_cache_quant_algo FP8 (modelopt_quant.py from_config)
    kv_fp8 = kv_fp8 or spec.kv_cache_scheme in ("fp8", "fp8_dynamic")
    return _replace(spec, kv_cache_fp8=kv_fp8, raw_method=raw)


def _check_patterns(patterns: tuple[str, ...], where: str) -> None:
    """Every ``re:`` pattern of an ignore list must compile (it is matched against module names later)."""
    for pattern in patterns:
        if pattern.startswith("re:"):
            try:
                re.compile(pattern[3:])
            except re.error as exc:
                raise ConfigError(f"{where}: quantization_config ignore pattern {pattern!r} is not a valid "
                                  f"regular expression ({exc}); fix it in the config.json") from None


def _ignored(qc: dict, where: str, *keys: str) -> tuple[str, ...]:
    at = f"{where}: quantization_config"
    return tuple(name for key in keys for name in name_list(qc.get(key), key, at))


def _fp8(qc: dict, where: str) -> QuantSpec:
    block = qc.get("weight_block_size")
    ints = isinstance(block, list) and len(block) == 2 and all(
        isinstance(b, int) and not isinstance(b, bool) and b >= 1 for b in block)
    if block is not None and not ints:
        raise ConfigError(f"{where}: weight_block_size must be [rows, cols], two whole numbers ≥ 1, got {block!r:.60}")
    ignored = _ignored(qc, where, "modules_to_not_convert", "ignored_layers")
    return QuantSpec(method="fp8", weight_bits=8, block_size=tuple(block) if block else None,
                     scale_bytes=4, ignored=ignored, scope="all_linear")


def _fbgemm(qc: dict, where: str) -> QuantSpec:
    ignored = _ignored(qc, where, "modules_to_not_convert")
    return QuantSpec(method="fbgemm_fp8", weight_bits=8, scale_bytes=4, ignored=ignored, scope="mlp_only")


def _mxfp4(qc: dict, where: str) -> QuantSpec:
    return QuantSpec(method="mxfp4", weight_bits=4, group_size=32, scale_bytes=1,
                     ignored=_ignored(qc, where, "modules_to_not_convert"), scope="experts_only")


def _dsv4_fp8(qc: dict, where: str) -> QuantSpec:
    """vLLM's ``deepseek_v4_fp8`` (0.23.0 ``vllm/models/deepseek_v4/quant_config.py`` ``DeepseekV4FP8Config``, an
    ``Fp8Config``): the checkpoint's FP8 block format; the DeepSeek-V4 plan (``models.dsv4_weights``) applies its
    FP8 / FP4-expert mix."""
    spec = _fp8({"weight_block_size": [128, 128], **qc}, where)
    return _replace(spec, raw_method="deepseek_v4_fp8")


def _awq_gptq(qc: dict, where: str) -> QuantSpec:
    bits_key = "bits" if "bits" in qc else "w_bit"
    group_key = "group_size" if "group_size" in qc else "q_group_size"
    bits = optional_int(qc, bits_key, f"{where}: quantization_config", default=4, minimum=1)
    group = optional_int(qc, group_key, f"{where}: quantization_config", default=128, minimum=-1)  # -1: per channel
    ignored = _ignored(qc, where, "modules_to_not_convert")
    return QuantSpec(method="int4" if bits == 4 else f"int{bits}", weight_bits=bits,
                     group_size=group if group > 0 else None, scale_bytes=2,
                     has_zero_point=True, ignored=ignored, scope="all_linear")


def _compressed(qc: dict, where: str) -> QuantSpec:
    groups = qc.get("config_groups") or {}
    if not isinstance(groups, dict) or not all(isinstance(g, dict) for g in groups.values()):
        raise ConfigError(f"{where}: compressed-tensors config_groups must map group names to objects, "
                          f"got {groups!r:.100}")
    weights = qc.get("weights") or next((g.get("weights") for g in groups.values() if g.get("weights")), None)
    if not weights:
        raise ConfigError(f"{where}: compressed-tensors config has no 'weights' scheme (config_groups.*.weights)")
    if not isinstance(weights, dict):
        raise ConfigError(f"{where}: compressed-tensors 'weights' scheme must be an object, got {weights!r:.80}")
    at = f"{where}: quantization_config weights"
    bits = optional_int(weights, "num_bits", at, default=4, minimum=1)
    group = optional_int(weights, "group_size", at, default=None, minimum=-1)
    ignored = tuple(i for i in _ignored(qc, where, "ignore") if not i.startswith("("))
    floating = weights.get("type", "int") != "int"
    # nvfp4 (float, 4 bits) keeps an fp8 e4m3 scale per group (sglang 0.5.10 compressed_tensors_w4a4_nvfp4.py
    # create_weights); the int schemes a bf16 one
    scale = 1 if floating and bits == 4 else 2
    return QuantSpec(method=f"fp{bits}" if floating else f"int{bits}",
                     weight_bits=bits, group_size=group if group and group > 0 else None, scale_bytes=scale,
                     has_zero_point=not weights.get("symmetric", True), ignored=ignored, scope="all_linear")


def _kv_scheme(value) -> str | None:
    """A ModelOpt KV entry (a scheme object or an algorithm name) → ``fp8`` / ``fp8_dynamic`` / ``nvfp4`` / None."""
    if isinstance(value, dict):
        if value.get("type") != "float":
            return None
        if value.get("num_bits") == 8:
            return "fp8_dynamic" if value.get("dynamic") is True else "fp8"
        return "nvfp4" if value.get("num_bits") == 4 else None
    name = str(value or "").strip().upper()
    if name in ("FP8", "FLOAT8"):
        return "fp8"
    return "nvfp4" if name in ("FP4", "FLOAT4", "NVFP4") else None


def _modelopt(qc: dict, where: str) -> QuantSpec:
    flat = "quant_algo" in qc
    section = qc if flat else qc.get("quantization")
    if not isinstance(section, dict) or not section.get("quant_algo"):
        raise ConfigError(f"{where}: a ModelOpt quantization_config needs 'quant_algo' (FP8 or NVFP4) at the top "
                          f"level or under 'quantization' (hf_quant_config.json), got keys {sorted(qc)}; copy the "
                          "checkpoint's hf_quant_config.json 'quantization' block into quantization_config")
    algo = str(section["quant_algo"]).upper()
    kv = qc.get("kv_cache_scheme", qc.get("kv_cache_quant_algo")) if flat else section.get("kv_cache_quant_algo")
    scheme = _kv_scheme(kv)
    ignored = _ignored(section, where, "ignore" if flat else "exclude_modules")
    if algo == "FP8":
        return QuantSpec(method="fp8", weight_bits=8, scale_bytes=0, ignored=ignored, scope="all_linear",
                         kv_cache_scheme=scheme)
    if algo == "NVFP4":
        group = section.get("group_size")
        if group is None:
            group = next((g.get("weights", {}).get("group_size") for g in (qc.get("config_groups") or {}).values()
                          if isinstance(g, dict) and isinstance(g.get("weights"), dict)), None)
        if not isinstance(group, int) or isinstance(group, bool) or group < 1:
            raise ConfigError(f"{where}: a ModelOpt NVFP4 quantization_config needs group_size (16 in NVIDIA's "
                              f"checkpoints), got {group!r}; add \"group_size\": 16 as in the checkpoint's "
                              "hf_quant_config.json")
        return QuantSpec(method="fp4", weight_bits=4, group_size=group, scale_bytes=1, ignored=ignored,
                         scope="all_linear", kv_cache_scheme=scheme)
    raise ConfigError(f"{where}: ModelOpt quant_algo {algo!r} is not modelled; tpkit sizes FP8 and NVFP4 "
                      "ModelOpt checkpoints (what SGLang and vLLM serve). Plan the bf16 base model with "
                      "--quantization fp8 for an estimate")


def _quark(qc: dict, where: str) -> QuantSpec:
    """AMD Quark exports (``models/quark.py``, imported on use: the cold-import budget of tests/cli)."""
    from tpkit.models.quark import parse_quark

    return parse_quark(qc, where)


_PARSERS = {"fp8": _fp8, "deepseek_v4_fp8": _dsv4_fp8, "fbgemm_fp8": _fbgemm, "mxfp4": _mxfp4, "awq": _awq_gptq, "gptq": _awq_gptq,
            "compressed-tensors": _compressed, "modelopt": _modelopt, "modelopt_fp8": _modelopt,
            "modelopt_fp4": _modelopt, "quark": _quark}


def _replace(spec: QuantSpec, **changes) -> QuantSpec:
    fields = {name: getattr(spec, name) for name in QuantSpec.__slots__}
    fields.update(changes)
    return QuantSpec(**fields)


def online_quant(method: str) -> QuantSpec:
    """``--quantization fp8`` on an unquantised checkpoint: fp8 per-channel for every linear layer
    except embedding and lm_head (what SGLang and vLLM do when they quantise at load time)."""
    if method != "fp8":
        raise PlanInputError(
            f"--quantization {method} needs a checkpoint quantised that way (its config.json has a "
            f"quantization_config); only fp8 can be applied at load time to a bf16/fp16 checkpoint"
        )
    return QuantSpec(method="fp8", weight_bits=8, scale_bytes=4, ignored=("lm_head", "model.embed_tokens"),
                     scope="all_linear", raw_method="fp8 (online)")


def bnb_online() -> QuantSpec:
    """``--quantization bitsandbytes`` on an unquantised checkpoint: vLLM quantises at load time.

    vLLM's ``BitsAndBytesModelLoader`` (0.5.4 and 0.8.5 ``model_executor/model_loader/loader.py``, 0.14.1 and
    0.27.1 ``bitsandbytes_loader.py``; ``_quantized_4bit_generator``): every weight of a ``LinearBase`` module
    (``_get_bnb_target_modules``) is moved to the GPU and passed to bitsandbytes' ``quantize_4bit(...,
    compress_statistics=True, quant_type="nf4")``: two 4-bit values per byte (``BitsAndBytesLinearMethod``'s
    uint8 parameter), a uint8 absmax per block of 64 and, for the nested quantisation of those, an fp32 absmax per
    256 of them.  The embedding and ``lm_head`` (``VocabParallelEmbedding`` / ``ParallelLMHead``, not
    ``LinearBase``) and the norms stay in the model dtype.  The same in every release read (no boundary for dense
    models); FusedMoE experts are quantised only from some release between 0.8.5 (not handled) and 0.14.1
    (``_is_moe_model``), which tpkit does not plan (``check_quant_engine``)."""
    return QuantSpec(method="nf4", weight_bits=4, group_size=BNB_BLOCK, scale_bytes=1,
                     ignored=("lm_head", "model.embed_tokens"), scope="all_linear", raw_method="bitsandbytes (online)")


def check_quant_engine(spec, quant: QuantSpec | None, engine: str | None = None) -> None:
    """Refuse vLLM's ``deepseek_v4_fp8`` method name under SGLang, and in-flight bitsandbytes for a model with routed experts (module doc of ``bnb_online``), and under SGLang:
    its loader (sglang 0.4.2 / 0.5.10 ``model_loader/loader.py`` ``BitsAndBytesModelLoader``) makes the same
    ``quantize_4bit`` call, but picks the weights by name (``default_target_modules``, or the model's
    ``default_bitsandbytes_target_modules``), which e.g. misses a fused ``gate_up_proj``: not the vLLM rule."""
    if quant is not None and quant.raw_method == "deepseek_v4_fp8" and engine == "sglang":
        raise PlanInputError(
            "--quantization deepseek_v4_fp8 is vLLM's method name (vllm/models/deepseek_v4 DeepseekV4FP8Config); "
            "SGLang has no such --quantization choice and reads DeepSeek-V4's FP8 / FP4 layout from the checkpoint's "
            "config: pass the checkpoint's config.json (with its quantization_config), or plan with --engine vllm")
    if quant is None or not quant.raw_method.startswith("bitsandbytes"):
        return
    if engine == "sglang":
        raise PlanInputError(
            "--quantization bitsandbytes is planned for vLLM only: SGLang's bitsandbytes loader quantises the weights "
            "its target-module names match (a fused gate_up_proj is not among its defaults), which tpkit does not "
            "model; plan with --engine vllm, or drop the flag")
    if getattr(spec, "moe", None) is not None:
        raise PlanInputError(
            f"--quantization bitsandbytes on a mixture-of-experts model ({spec.name}) is not planned: vLLM's "
            "bitsandbytes loader leaves the experts in bf16 up to 0.8.5 and quantises them in later releases, which "
            "tpkit has not read; drop --quantization bitsandbytes or plan --quantization fp8 for an estimate")


def _flag_only(method: str) -> QuantSpec:
    """A flag on a config without quantization_config: fp8 is applied online; a stored format (awq,
    gptq, mxfp4, compressed-tensors) is taken as the checkpoint's, with that method's defaults."""
    if method in ("fp8", "fbgemm_fp8"):
        return online_quant(method)
    if method == "bitsandbytes":
        return bnb_online()
    if method == "quark":
        raise PlanInputError("--quantization quark reads the format from the checkpoint's Quark quantization_config "
                             "(models/quark.py), and this config has none; pass the Quark checkpoint's config.json")
    spec = _PARSERS[method]({"quant_method": method}, f"--quantization {method}")
    return _replace(spec, raw_method=method, ignored=spec.ignored)


def resolve_quant(checkpoint: QuantSpec | None, flag: str | None) -> QuantSpec | None:
    """The quantisation that will be loaded: the checkpoint's, or a flag's (which must agree)."""
    if flag is None or flag.lower() in ("", "none", "auto"):
        return checkpoint
    key = flag.lower()
    if key not in _FLAG_ALIASES:
        raise PlanInputError(f"--quantization {flag!r} is not known; use one of {', '.join(_FLAG_ALIASES)}")
    method = _FLAG_ALIASES[key]
    if checkpoint is None and method is None:
        raise PlanInputError(
            f"--quantization {flag} selects a kernel for an int4 checkpoint (AWQ, GPTQ or compressed-tensors), "
            "but this model's config has no quantization_config; pass the quantised checkpoint's config.json, "
            "or drop the flag (or use --quantization fp8 to quantise a bf16 checkpoint at load time)")
    if checkpoint is None:
        return _flag_only(method)
    if method is None or method in (checkpoint.raw_method, checkpoint.method):
        return checkpoint
    raise PlanInputError(
        f"--quantization {flag} conflicts with the checkpoint's quantization_config "
        f"(quant_method {checkpoint.raw_method!r}); drop the flag or pass --quantization {checkpoint.raw_method}"
    )


_WRAPPED_TEXT_PREFIXES = ("model.language_model.", "language_model.model.")
"""how a multimodal wrapper's checkpoint spells the text model's ``model.`` prefix: transformers ≥ 4.52
``model.language_model.layers.N…`` (Gemma 3 / 4, Qwen2.5-VL, Mistral 3 …), older ``language_model.model.layers.N…``
(which is also vLLM's own module path); its lm_head is ``lm_head`` or ``language_model.lm_head``"""


def is_ignored(module: str, quant: QuantSpec) -> bool:
    """True when ``module`` (an HF-style name such as ``model.layers.3.self_attn.q_proj``) stays unquantised.

    A multimodal checkpoint's ignore list names the text layers with its wrapper's prefix
    (``_WRAPPED_TEXT_PREFIXES``); vLLM maps such paths onto its modules before matching (0.29.0
    ``compressed_tensors.py`` ``CompressedTensorsConfig.apply_vllm_mapper`` with the model's ``hf_to_vllm_mapper``,
    e.g. ``gemma4_mm.py``: "model.language_model." → "language_model.model."; ``compressed_tensors/utils.py``
    ``should_ignore_layer``), so ``module`` is also tried under each wrapped spelling (plain names and ``re:``
    patterns alike; a text-only list never names them, so it matches as before)."""
    key = (module, quant.ignored)
    found = _IGNORED.get(key)
    if found is None:
        if len(_IGNORED) > _IGNORED_LIMIT:
            _IGNORED.clear()
        found = _IGNORED[key] = _is_ignored(module, quant)
    return found


_IGNORED: dict[tuple[str, tuple[str, ...]], bool] = {}
"""(module, ignore list) → ignored: the answer depends on nothing else, and ``tpkit perf`` asks it for every weight
of every layer of every forward it prices (about a sixth of its run time before this cache, cProfile)"""
_IGNORED_LIMIT = 100_000


def _is_ignored(module: str, quant: QuantSpec) -> bool:
    if _ignored_as(module, quant):
        return True
    if module.startswith("model."):
        rest = module[len("model."):]
        if any(_ignored_as(prefix + rest, quant) for prefix in _WRAPPED_TEXT_PREFIXES):
            return True
    return module == "lm_head" and _ignored_as("language_model.lm_head", quant)


def _ignored_as(module: str, quant: QuantSpec) -> bool:
    """``module`` matches an entry of ``quant.ignored``: ``re:`` patterns from the start, globs (``*`` / ``?``) on the
    name or its children, plain names as the module itself, a parent of it or a trailing part of it."""
    exact, regexes = _ignore_matcher(quant.ignored)
    parts = module.split(".")
    for i in range(1, len(parts) + 1):  # the name itself and its parents, then its trailing parts
        if ".".join(parts[:i]) in exact or ".".join(parts[-i:]) in exact:
            return True
    return any(rx.match(module) for rx in regexes)


_MATCHERS: dict[tuple[str, ...], tuple[frozenset[str], tuple[re.Pattern[str], ...]]] = {}
"""one compiled matcher per ignore list: a checkpoint's list (hundreds of entries for an NVFP4 DeepSeek) is tried on
every weight of every layer, tens of thousands of times per plan"""


def _ignore_matcher(ignored: tuple[str, ...]) -> tuple[frozenset[str], tuple[re.Pattern[str], ...]]:
    found = _MATCHERS.get(ignored)
    if found is None:
        exact = frozenset(p for p in ignored if not p.startswith("re:") and "*" not in p and "?" not in p)
        regexes = tuple(re.compile(p[3:]) if p.startswith("re:")
                        else re.compile(fnmatch.translate(p) + "|" + fnmatch.translate(p + ".*"))
                        for p in ignored if p.startswith("re:") or "*" in p or "?" in p)
        found = _MATCHERS[ignored] = (exact, regexes)
    return found


_SCOPES = {"all_linear": None, "mlp_only": {"dense_mlp", "routed_experts", "shared_experts"},
           "experts_only": {"routed_experts"}}
"""``QuantSpec.scope`` → the weight categories (``models.params.Part.category``) it quantises; None: every linear"""


def is_quantised(part, quant: QuantSpec | None) -> bool:
    """True when the weight ``part`` (a ``models.params.Part``: ``linear``, ``category``, ``name``) is stored in
    ``quant``'s format: a linear layer inside the scheme's scope and not on its ignore list."""
    if quant is None or not part.linear:
        return False
    scope = _SCOPES.get(quant.scope)
    if scope is not None and part.category not in scope:
        return False
    return not is_ignored(part.name, quant)


def matrix_bytes(out_f: int, in_f: int, quant: QuantSpec) -> int:
    """Bytes of one quantised ``out_f × in_f`` weight matrix incl. scales/zeros (see module table)."""
    values = math.ceil(out_f * in_f * quant.weight_bits / 8)
    if quant.raw_method.startswith("bitsandbytes"):  # blocks over the flattened tensor (``bnb_online``)
        blocks = math.ceil(out_f * in_f / BNB_BLOCK)
        return values + blocks + math.ceil(blocks / BNB_NESTED_BLOCK) * 4
    if quant.block_size:
        b0, b1 = quant.block_size
        return values + math.ceil(out_f / b0) * math.ceil(in_f / b1) * quant.scale_bytes
    if quant.group_size is None:
        return values + out_f * quant.scale_bytes
    groups = out_f * math.ceil(in_f / quant.group_size)
    extra = groups * quant.scale_bytes
    if quant.has_zero_point:
        packed = math.ceil(groups * quant.weight_bits / 8)
        extra += groups * quant.zero_point_bytes if quant.zero_point_bytes else packed
    if quant.raw_method == "gptq":
        extra += in_f * 4
    return values + extra
