"""AMD Quark checkpoints (``quantization_config.quant_method == "quark"``) → ``QuantSpec`` (helper pl38, 2026-12-08).

Read in the engines' Quark loaders: sglang 0.5.5.post3 ``srt/layers/quantization/quark/quark.py`` (``QuarkConfig``:
``from_config``, ``get_quant_method``, ``_find_matched_config``, ``_is_mx_fp4``, ``_is_fp8_w8a8``) and ``utils.py``
(``should_ignore_layer``), and vllm 0.21.0 ``model_executor/layers/quantization/quark/`` (the same methods).

* **Which layers**: every ``LinearBase`` layer and every ``FusedMoE`` layer (the routed experts) whose name is not in
  ``exclude`` gets the Quark scheme of its first ``layer_quant_config`` pattern that matches (``fnmatch``), else of
  its module type in ``layer_type_quant_config``, else the ``global_quant_config``.  Unlike the HF ``mxfp4`` method
  (gpt-oss: routed experts only), nothing limits a Quark checkpoint to its experts: attention projections, shared
  experts and dense MLPs are quantised unless the checkpoint's own ``exclude`` names them.  The embedding and the
  MoE router (not ``LinearBase``) stay in the model dtype; ``lm_head`` is excluded by name in AMD's exports.
* **exclude**: the engines match a layer's full name exactly or a ``re:`` regex (``_is_equal_or_regex_match``);
  Quark's exports write full names (or ``lm_head``).  tpkit matches the list with its usual rule
  (``models.quant.is_ignored``: the name, a parent, a trailing part, ``re:`` and globs), which agrees on such names.
* **Schemes tpkit reads** (``_is_mx_fp4`` / ``_is_fp8_w8a8``, the two schemes sglang 0.5.5.post3 builds for linear
  layers): MXFP4 (weight ``dtype`` ``fp4``, ``qscheme`` ``per_group``, ``group_size`` 32, ``scale_format`` ``e8m0``:
  two 4-bit values per byte and a one-byte scale per 32, ``method`` ``mxfp4``) and FP8 W8A8 (``fp8_e4m3``
  ``per_tensor`` / ``per_channel``: one byte per element and an fp32 scale per output row, ``method`` ``fp8``; a
  per-tensor scale is one fp32, so tpkit's per-row scales overcount it by 4 B a row).  Any other weight format, or a
  ``layer_quant_config`` / ``layer_type_quant_config`` entry whose weight format differs from the one the checkpoint
  otherwise uses (tpkit keeps one format per checkpoint), is refused with a clear error; a ``layer_quant_config``
  pattern without a weight format leaves its layers unquantised (added to the ignore list).
* A checkpoint whose ``global_quant_config`` has no weight format quantises only the layers its
  ``layer_quant_config`` patterns name: tpkit leaves every other module unquantised (an ignore pattern
  ``re:(?!…)`` that matches what none of the patterns match).
* ``export`` is required, as both engines require it (``from_config`` raises without it).
"""

from __future__ import annotations

import fnmatch

from tpkit.errors import ConfigError
from tpkit.models.fields import name_list
from tpkit.models.spec import QuantSpec

__all__ = ["parse_quark", "quark_weight_format"]

MX_GROUP = 32
"""elements per e8m0 scale of an MXFP4 weight (``_is_mx_fp4`` requires group_size 32)"""


def quark_weight_format(weight: object, where: str) -> QuantSpec | None:
    """The storage of one Quark ``weight`` spec (a dict, or None for an unquantised weight)."""
    if weight is None or weight == {}:
        return None
    if isinstance(weight, list):  # a progressive spec (e.g. fp8 then int4): the last stage is what is stored
        weight = weight[-1] if weight else None
        return quark_weight_format(weight, where)
    if not isinstance(weight, dict):
        raise ConfigError(f"{where}: a Quark weight spec must be an object, got {weight!r:.80}")
    dtype = str(weight.get("dtype") or "").lower()
    qscheme = str(weight.get("qscheme") or "").lower()
    if dtype in ("fp4", "fp4_e2m1") and qscheme == "per_group" and weight.get("group_size") == MX_GROUP \
            and str(weight.get("scale_format") or "").lower() == "e8m0":
        return QuantSpec(method="mxfp4", weight_bits=4, group_size=MX_GROUP, scale_bytes=1, scope="all_linear")
    if dtype in ("fp8_e4m3", "fp8") and qscheme in ("per_tensor", "per_channel"):
        return QuantSpec(method="fp8", weight_bits=8, scale_bytes=4, scope="all_linear")
    raise ConfigError(
        f"{where}: Quark weight format dtype={dtype or '?'} qscheme={qscheme or '?'} "
        f"group_size={weight.get('group_size')} scale_format={weight.get('scale_format')} is not read by tpkit; "
        "tpkit reads MXFP4 (fp4, per_group 32, e8m0) and FP8 (fp8_e4m3 per_tensor / per_channel), the schemes "
        "SGLang's and vLLM's Quark loaders build for linear layers. Plan with --quantization fp8 for an estimate")


def _same(a: QuantSpec | None, b: QuantSpec | None) -> bool:
    return (a is None) == (b is None) and (a is None or (a.method, a.weight_bits, a.group_size)
                                           == (b.method, b.weight_bits, b.group_size))


def _only(patterns: list[str]) -> str:
    """An ignore entry (``re:``) that matches every module none of ``patterns`` (fnmatch, or a child of a match)
    names."""
    alts = "|".join(f"{fnmatch.translate(p)}|{fnmatch.translate(p + '.*')}" for p in patterns)
    return f"re:(?!(?:{alts}))"


def parse_quark(qc: dict, where: str) -> QuantSpec:
    """Read a Quark ``quantization_config`` (module docstring)."""
    at = f"{where}: quantization_config (quark)"
    if not isinstance(qc.get("export"), dict):
        raise ConfigError(f"{at} has no 'export' object; SGLang's and vLLM's Quark loaders refuse such a config "
                          "('The export key should be included in the configurations of Quark quantized model'); "
                          "use the checkpoint's own config.json")
    glob = qc.get("global_quant_config") or {}
    if not isinstance(glob, dict):
        raise ConfigError(f"{at}: global_quant_config must be an object, got {glob!r:.80}")
    base = quark_weight_format(glob.get("weight"), f"{at} global_quant_config")
    layers = qc.get("layer_quant_config") or {}
    types = qc.get("layer_type_quant_config") or {}
    if not isinstance(layers, dict) or not isinstance(types, dict) or not all(
            isinstance(cfg, dict) or cfg is None for cfg in (*layers.values(), *types.values())):
        raise ConfigError(f"{at}: layer_quant_config and layer_type_quant_config must map names to objects")
    per_layer = {name: quark_weight_format((cfg or {}).get("weight"), f"{at} layer_quant_config[{name!r}]")
                 for name, cfg in layers.items()}
    per_type = {name: quark_weight_format((cfg or {}).get("weight"), f"{at} layer_type_quant_config[{name!r}]")
                for name, cfg in types.items()}
    exclude = name_list(qc.get("exclude"), "exclude", at)
    if base is None:
        formats = [f for f in (*per_layer.values(), *per_type.values()) if f is not None]
        if not formats:
            raise ConfigError(f"{at}: no weight format in global_quant_config, layer_quant_config or "
                              "layer_type_quant_config; nothing is quantised — drop the quantization_config")
        if per_type or not all(_same(f, formats[0]) for f in formats):
            raise ConfigError(f"{at}: the layers carry different weight formats (or module-type entries without a "
                              "global format); tpkit reads one format per checkpoint")
        named = [name for name, f in per_layer.items() if f is not None]
        return _with(formats[0], (*exclude, _only(named)))
    odd = [name for name, f in (*per_layer.items(), *per_type.items()) if f is not None and not _same(f, base)]
    if odd or any(f is None for f in per_type.values()):
        raise ConfigError(f"{at}: {', '.join(map(repr, odd[:4])) or 'a module-type entry'} carries a weight format "
                          f"other than the global {base.method}; tpkit reads one format per checkpoint")
    plain = tuple(name for name, f in per_layer.items() if f is None)  # a pattern whose layers keep no weight format
    return _with(base, (*exclude, *plain))


def _with(spec: QuantSpec, ignored: tuple[str, ...]) -> QuantSpec:
    return QuantSpec(method=spec.method, weight_bits=spec.weight_bits, group_size=spec.group_size,
                     scale_bytes=spec.scale_bytes, scope="all_linear", ignored=tuple(ignored), raw_method="quark")
