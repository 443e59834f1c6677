"""The weight tensors of a model's MTP / nextn layers, stored after the decoder (``mtp_parts``), named by the module
path the checkpoint and the engines give them (``mtp_layer_name``) so that a quantisation ignore list reads them as
the engine does.  Built from ``params.layer_parts``; split from ``params.py`` (helper tidy29)."""

from __future__ import annotations

from tpkit.models.layers import GATED_ATTN_ARCH
from tpkit.models.params import Part, layer_parts
from tpkit.models.spec import ModelSpec

__all__ = ["mtp_parts", "mtp_layer_name"]


def mtp_layer_name(spec: ModelSpec, index: int = 0) -> str:
    """The module path of MTP / nextn layer ``index`` (0-based) as the checkpoint stores it and as vLLM names the
    module it builds, which is the name a quantisation ignore list is matched against (``models.quant.is_ignored``):

    - Qwen3-Next / Qwen3.5 layout: ``mtp.layers.<index>``: vLLM 0.19.1 – 0.34.0 ``qwen3_5_mtp.py``
      ``Qwen3_5MTP`` builds ``Qwen3_5MultiTokenPredictor(prefix=maybe_prefix(prefix, "mtp"))``, whose layers get
      ``prefix=f"{prefix}.layers.{idx}"`` and whose ``fc`` gets ``f"{prefix}.fc"`` (``qwen3_next_mtp.py`` alike); the
      drafter is loaded with an empty prefix (0.19.1 ``v1/spec_decode/eagle.py`` ``_get_model``, 0.34.0
      ``v1/worker/gpu/spec_decode/eagle/utils.py`` ``load_eagle_model``: ``get_model`` without a prefix); SGLang
      0.5.23 ``qwen3_5_mtp.py`` builds its inner model with ``add_prefix("mtp", prefix)`` alike.
    - DeepSeek-V3 / GLM-4.5 layout: ``model.layers.<num_hidden_layers + index>``: vLLM 0.19.1 – 0.34.0
      ``deepseek_mtp.py`` / ``glm4_moe_mtp.py`` (``prefix=f"{prefix}.layers.{idx}"`` with ``idx`` from
      ``mtp_start_layer_idx = num_hidden_layers``, the decoder layer built with that same prefix). SGLang 0.5.23
      ``deepseek_nextn.py`` names its decoder ``model.decoder`` and maps ``model.layers.61`` onto it for the ignore
      lists that take its name mapper (``apply_weight_name_mapper``: fp8, modelopt), so the checkpoint name is the
      one matched there too for DeepSeek-V3's 61 layers."""
    if spec.model_type in GATED_ATTN_ARCH:
        return f"mtp.layers.{index}"
    return f"model.layers.{spec.num_layers + index}"


def _renamed(parts: list[Part], old: str, new: str) -> list[Part]:
    """``parts`` with the module prefix ``old`` replaced by ``new`` (shapes kept)."""
    return [Part(name=new + p.name[len(old):], category=p.category, out=p.out, inp=p.inp, count=p.count,
                 shard=p.shard, linear=p.linear) if p.name.startswith(old + ".") else p for p in parts]


def mtp_parts(spec: ModelSpec, *, fc_split: bool = False, fc_quantised: bool = False, index: int = 0) -> list[Part]:
    """Weights of MTP / nextn layer ``index`` of the ``spec.num_nextn_layers`` stored after the decoder (all alike
    in shape); embedding and lm_head are the main model's (the engines share them). Every weight is named by its
    checkpoint / vLLM module path (``mtp_layer_name``), so that a quantisation ignore list that names the head
    (e.g. ``re:^mtp.*``, ``mtp.fc``, ``model.layers.61.*``) keeps it unquantised as the engine does.

    - DeepSeek-V3 / GLM-4.5 layout: one decoder layer (MoE when the model is: the last MoE layer's shapes) +
      ``eh_proj`` (hidden × 2·hidden, replicated) + enorm, hnorm and the shared-head norm.
    - Qwen3-Next / Qwen3.5 layout (``models.layers.GATED_ATTN_ARCH`` model types): ``mtp.fc`` (hidden ×
      2·hidden, no bias), ``pre_fc_norm_embedding``, ``pre_fc_norm_hidden``, one FULL-attention decoder layer
      (MoE for an MoE model, else the dense MLP; no linear-attention state) and ``mtp.norm``: SGLang 0.5.10.post1
      – 0.5.23 ``models/qwen3_next_mtp.py`` / ``qwen3_5_mtp.py`` (``num_hidden_layers = 1``,
      ``full_attention_interval = 1``; ``fc`` an ``nn.Linear``: replicated, never quantised), vLLM 0.10.2 – 0.33
      ``qwen3_next_mtp.py`` / 0.17.0+ ``qwen3_5_mtp.py`` (``layer_type="full_attention"``; ``fc`` a
      ``ColumnParallelLinear(gather_output=True)``: ``fc_split=True``; built without a quant config in 0.10.2's
      ``qwen3_next_mtp.py``, with the model's from 0.11.0: ``fc_quantised=True``)."""
    name = mtp_layer_name(spec, index)
    if spec.model_type in GATED_ATTN_ARCH:
        kinds = spec.layer_kinds or ()
        full = max((i for i, k in enumerate(kinds) if k == "full"), default=spec.num_layers - 1)
        h = spec.hidden_size
        return _renamed(layer_parts(spec, full, moe_layer=spec.moe is not None), f"model.layers.{full}", name) + [
            Part(name="mtp.fc", category="attention", out=h, inp=2 * h, shard="col" if fc_split else "rep",
                 linear=fc_quantised),
            *(Part(name=f"mtp.{n}", category="norms", out=h)
              for n in ("pre_fc_norm_embedding", "pre_fc_norm_hidden", "norm"))]
    moe_layer = spec.moe.moe_layer_ids[-1] if spec.moe and spec.moe.moe_layer_ids else spec.num_layers - 1
    return _renamed(layer_parts(spec, moe_layer), f"model.layers.{moe_layer}", name) + [
        Part(name=f"{name}.eh_proj", category="attention", out=spec.hidden_size, inp=2 * spec.hidden_size),
        *(Part(name=f"{name}.{n}", category="norms", out=spec.hidden_size)
          for n in ("enorm", "hnorm", "shared_head.norm"))]
