#!/usr/bin/env python3
"""Build ``src/tpkit/models/data/catalog.json`` from the research catalog ``models.json``.

Each catalog entry becomes an **HF-style config dict** (real transformers key names; multimodal
wrappers keep the language model in ``text_config``) so that the embedded catalog is read by the
same ``tpkit.models.from_config_dict`` as a real config.json.  Everything else the research
catalog knows (parameter counts, checkpoint bytes, provenance) is kept verbatim under ``facts``.

    python scripts/build_catalog.py [--src /work/shared/catalog/models.json] [--out src/tpkit/models/data/catalog.json]

Entries the research catalog does not hold (models the pinned engine cases need, public EAGLE-3 drafts of
catalog models) come from ``scripts/catalog_extra.json``: HF-style configs with their source, appended after
the research entries (which stay byte-identical).  A draft's ``facts.draft`` names its method and targets.
Last, ``scripts/catalog_tested.json`` names public configs of the test data (``tests/validation/configs``,
``tests/logs/data/configs``) that real start-ups were planned or explained from: each is copied without its
``_``-notes, its note (or SOURCE.md) becomes ``facts.source``, and its parameter count is derived by
``tpkit.models.params.count_params`` (said so in ``facts.params_total_source``).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SRC = Path("/work/shared/catalog/models.json")
DEFAULT_OUT = ROOT / "src/tpkit/models/data/catalog.json"
DEFAULT_EXTRA = ROOT / "scripts/catalog_extra.json"
DEFAULT_TESTED = ROOT / "scripts/catalog_tested.json"
_TESTED_KEYS = {"id", "config", "fidelity", "checked_by"}
_EXTRA_KEYS = {"id", "short_name", "verification_status", "config", "facts"}

_COPY = ("architectures", "model_type", "hidden_size", "intermediate_size", "num_hidden_layers",
         "num_attention_heads", "num_key_value_heads", "head_dim", "vocab_size", "tie_word_embeddings",
         "max_position_embeddings", "torch_dtype", "rope_theta", "rope_scaling", "partial_rotary_factor",
         "use_qk_norm", "rope_local_base_freq", "intermediate_size_mlp")
_MOE_HF_KEYS = ("n_routed_experts", "num_experts", "num_local_experts", "num_experts_per_tok",
                "experts_per_token", "n_shared_experts", "first_k_dense_replace", "moe_layer_freq",
                "decoder_sparse_step", "mlp_only_layers", "n_group", "topk_group", "topk_method",
                "scoring_func", "routed_scaling_factor", "norm_topk_prob", "interleave_moe_layer_step",
                "swiglu_limit", "router_aux_loss_coef")
_NO_MOE_WIDTH_KEY = {"gpt_oss", "mixtral", "llama4"}  # expert width lives in intermediate_size
_FACT_KEYS = ("params_total", "params_total_source", "params_active", "params_active_derived",
              "params_total_derived_main", "params_total_derived_text",
              "params_total_incl_mtp_unique_derived", "kv_cache_bytes_per_token_bf16", "notes", "source")
# Gemma 3 SigLIP tower, as in the HF gemma-3 config.json vision_config (recalled; the parameter count it
# gives, 423,060,336, plus the text decoder matches on_disk_bytes_reported / 2 to 0.0003 %).
_GEMMA3_VISION = {"model_type": "siglip_vision_model", "hidden_size": 1152, "intermediate_size": 4304,
                  "num_hidden_layers": 27, "num_attention_heads": 16, "patch_size": 14, "image_size": 896,
                  "vision_use_head": False}
# Kimi-K2.5 MoonViT tower: the released config.json vision_config as dumped in a public weight-statistics report
# of moonshotai/Kimi-K2.5 (search-index file id 62530201892, which also lists every vision_tower / mm_projector
# tensor shape; their sum, 471,143,920 parameters, is what tpkit.models.vision derives from these keys).
_KIMI_K25_VISION = {"init_pos_emb_height": 64, "init_pos_emb_time": 4, "init_pos_emb_width": 64,
                    "merge_kernel_size": [2, 2], "merge_type": "sd2_tpool", "mm_hidden_size": 1152,
                    "mm_projector_type": "patchmerger", "model_type": "", "patch_size": 14,
                    "pos_emb_type": "divided_fixed", "projector_hidden_act": "gelu", "projector_ln_eps": 1e-05,
                    "text_hidden_size": 7168, "video_attn_type": "spatial_temporal", "vt_hidden_size": 1152,
                    "vt_intermediate_size": 4304, "vt_num_attention_heads": 16, "vt_num_hidden_layers": 27}
# Llama-4-Scout vision tower: the released vision_config as printed by transformers 4.51.0 in a public notes file
# that also lists every vision_model / multi_modal_projector parameter count (search-index file id 41112263523;
# the same block in a TensorRT-LLM test, id 68383952491).  Text (derived) + this tower × 2 B = the on-disk bytes
# to 7e-7.
_LLAMA4_SCOUT_VISION = {"attention_dropout": 0.0, "hidden_act": "gelu", "hidden_size": 1408, "image_size": 336,
                        "initializer_range": 0.02, "intermediate_size": 5632, "model_type": "llama4_vision_model",
                        "multi_modal_projector_bias": False, "norm_eps": 1e-05, "num_attention_heads": 16,
                        "num_channels": 3, "num_hidden_layers": 34, "patch_size": 14, "pixel_shuffle_ratio": 0.5,
                        "projector_dropout": 0.0, "projector_input_dim": 4096, "projector_output_dim": 4096,
                        "rope_theta": 10000, "vision_feature_layer": -1, "vision_feature_select_strategy": "default",
                        "vision_output_dim": 4096}
# Kimi-K2-Thinking / K2.5 style: dense MLP (layer 0) also left in BF16 (UNVERIFIED, see facts).
_KIMI_INT4_IGNORE = ["lm_head", "re:.*self_attn.*", "re:.*shared_experts.*", r"re:.*mlp\.(gate|up|gate_up|down)_proj.*"]


def _expand(text: str) -> list:
    """``"['a','b'] * 12"`` or ``"[1,1,1,0]*12"`` → the list it describes."""
    m = re.fullmatch(r"\s*(\[.*\])\s*\*\s*(\d+)\s*(?:\(.*\))?\s*", text)
    if not m:
        raise ValueError(f"cannot expand {text!r}")
    return ast.literal_eval(m.group(1)) * int(m.group(2))


def _attention_keys(entry: dict) -> dict:
    pat = entry.get("attention_pattern") or {}
    out: dict = {}
    for key in ("use_sliding_window", "max_window_layers", "sliding_window_pattern", "attention_chunk_size"):
        if key in pat:
            out[key] = pat[key]
    if "use_sliding_window" in pat or entry["model_type"] in ("mistral", "mixtral", "gpt_oss", "gemma3"):
        out["sliding_window"] = pat.get("sliding_window")
    if isinstance(pat.get("layer_types"), str):
        out["layer_types"] = _expand(pat["layer_types"])
    if isinstance(pat.get("no_rope_layers"), str):
        out["no_rope_layers"] = _expand(pat["no_rope_layers"].split("(")[0])
    return out


def _moe_keys(entry: dict) -> dict:
    moe = entry.get("moe") or {}
    out = {k: moe[k] for k in _MOE_HF_KEYS if k in moe}
    if out.get("n_shared_experts") == 0 or entry["model_type"] == "llama4":
        out.pop("n_shared_experts", None)  # llama4: the shared expert is architecture, not a config key
    if entry.get("moe_intermediate_size") and entry["model_type"] not in _NO_MOE_WIDTH_KEY:
        out["moe_intermediate_size"] = entry["moe_intermediate_size"]
    return out


def _quant(entry: dict) -> dict | None:
    qc = entry.get("quantization_config")
    if not qc:
        return None
    method = qc["quant_method"]
    if method == "fp8":
        return {k: qc[k] for k in ("quant_method", "fmt", "activation_scheme", "weight_block_size") if k in qc}
    if method == "mxfp4":
        return {"quant_method": "mxfp4", "modules_to_not_convert": qc["modules_to_not_convert"]}
    if method == "fbgemm_fp8":
        last = entry["num_hidden_layers"] - 1
        return {"quant_method": "fbgemm_fp8", "activation_scale_ub": qc["activation_scale_ub"],
                "modules_to_not_convert": ["lm_head", "model.embed_tokens", "model.layers.*.self_attn",
                                           "model.layers.0.mlp", f"model.layers.{last}.mlp"]}
    if method == "compressed-tensors":
        w = dict(qc["weights"], strategy="group")
        return {"quant_method": "compressed-tensors", "format": qc["format"],
                "config_groups": {"group_0": {"targets": ["Linear"], "weights": w, "input_activations": None}},
                "ignore": _KIMI_INT4_IGNORE}
    raise ValueError(f"{entry['model']}: no HF form for quant_method {method!r}")


def hf_config(entry: dict) -> dict:
    """The HF-style config.json of one research-catalog entry."""
    text = {k: entry[k] for k in _COPY if entry.get(k) is not None}
    for key in ("rope_theta", "rope_scaling"):  # research notes ("UNVERIFIED …") are not config values
        if isinstance(text.get(key), str):
            del text[key]
    if isinstance(entry.get("attention_bias"), bool):
        text["attention_bias"] = entry["attention_bias"]
    text.update({k: v for k, v in (entry.get("mla") or {}).items() if k in (
        "q_lora_rank", "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim")})
    text.update(_moe_keys(entry))
    text.update(_attention_keys(entry))
    if "mtp" in entry:
        text["num_nextn_predict_layers"] = entry["mtp"]["num_nextn_predict_layers"]
    quant = _quant(entry)
    wrapper = entry.get("text_config_model_type")
    if not wrapper:
        return {**text, **({"quantization_config": quant} if quant else {})}
    if entry["model_type"] == "gemma3":  # released config.json omits these (library defaults apply)
        text.pop("vocab_size", None)
        text.pop("max_position_embeddings", None)
    text["model_type"] = wrapper
    top = {"architectures": text.pop("architectures"), "model_type": entry["model_type"],
           "torch_dtype": text["torch_dtype"], "text_config": text}
    if entry["model_type"] == "gemma3":
        top["vision_config"] = _GEMMA3_VISION
    if entry["model_type"] == "kimi_k25":
        top["vision_config"] = _KIMI_K25_VISION
    if entry["model_type"] == "llama4" and "Scout" in entry["hf_repo"]:
        top["vision_config"] = _LLAMA4_SCOUT_VISION
    if quant:
        top["quantization_config"] = quant
    return top


def facts(entry: dict) -> dict:
    """What the research catalog knows besides the config (kept verbatim for checks and provenance)."""
    out = {k: entry[k] for k in _FACT_KEYS if k in entry}
    out["checkpoint"] = {k: v for k, v in (entry.get("checkpoint") or {}).items()}
    out.update({f"{k}_note": entry[k] for k in ("rope_theta", "rope_scaling") if isinstance(entry.get(k), str)})
    if entry["model_type"] == "kimi_k25":
        out["assumptions"] = ["quantization ignore list extended with dense-MLP pattern "
                              r"'re:.*mlp\.(gate|up|gate_up|down)_proj.*' (K2-Thinking style; UNVERIFIED)"]
    if entry["model_type"] == "gemma3":
        out["assumptions"] = ["vision_config (SigLIP 27 layers × 1152) recalled from the HF gemma-3 config"]
    return out


def build(src: Path, extra: Path | None = None, tested: Path | None = None) -> dict:
    """The whole embedded catalog (schema 1): the research catalog at ``src``, then the entries of ``extra``, then
    the test data's configs named by ``tested``."""
    entries = json.loads(src.read_text())
    models = [{"id": e["hf_repo"], "short_name": e["model"], "verification_status": e["verification_status"],
               "config": hf_config(e), "facts": facts(e)} for e in entries]
    if extra is not None:
        models += extra_entries(extra, known={m["id"].lower() for m in models})
    if tested is not None:
        models += tested_entries(tested, known={m["id"].lower() for m in models})
    return {"schema": 1, "generated_from": str(src), "generator": "scripts/build_catalog.py", "models": models}


def extra_entries(path: Path, *, known: set[str]) -> list[dict]:
    """The entries of ``catalog_extra.json``, checked: the catalog's keys only, a source, no duplicate id."""
    out = []
    for entry in json.loads(path.read_text())["models"]:
        if set(entry) != _EXTRA_KEYS or not entry["facts"].get("source"):
            raise ValueError(f"{path}: entry {entry.get('id')!r} needs exactly {sorted(_EXTRA_KEYS)} and facts.source")
        if entry["id"].lower() in known:
            raise ValueError(f"{path}: {entry['id']} is already in the catalog")
        known.add(entry["id"].lower())
        out.append(entry)
    return out


def tested_entries(path: Path, *, known: set[str]) -> list[dict]:
    """One catalog entry per ``catalog_tested.json`` row: the config file without its ``_`` notes, its provenance."""
    import sys

    sys.path.insert(0, str(ROOT / "src"))
    from tpkit.models import from_config_dict
    from tpkit.models.params import count_params

    out = []
    for row in json.loads(path.read_text())["models"]:
        if set(row) != _TESTED_KEYS:
            raise ValueError(f"{path}: row {row.get('id')!r} needs exactly {sorted(_TESTED_KEYS)}")
        if row["id"].lower() in known:
            raise ValueError(f"{path}: {row['id']} is already in the catalog")
        known.add(row["id"].lower())
        raw = json.loads((ROOT / row["config"]).read_text())
        config = {k: v for k, v in raw.items() if not k.startswith("_")}
        note = _tested_note(ROOT / row["config"], raw)
        checked = row["checked_by"]
        status = (f"{row['fidelity']}: the test data's {row['config']}"
                  + (f", checked against the public start-up(s) {', '.join(checked)}" if checked else
                     ", no public start-up of this model in the test data"))
        params = count_params(from_config_dict(config, name=row["id"], source=row["config"]))
        out.append({"id": row["id"], "short_name": row["id"].split("/", 1)[1], "verification_status": status,
                    "config": config,
                    "facts": {"source": note, "fidelity": row["fidelity"], "config": row["config"],
                              "checked_by": checked, "params_total": params,
                              "params_total_source": "derived from the config by tpkit.models.params.count_params "
                                                     "(the language model as stored; no vision tower, no MTP)"}})
    return out


# keys transformers itself writes with a leading underscore: part of a verbatim copy, not a note of ours
_HF_UNDERSCORE_KEYS = {"_name_or_path", "_attn_implementation_autoset", "_commit_hash"}


def _tested_note(config_path: Path, raw: dict) -> str:
    """A config's provenance: its ``_`` notes, or the first paragraph of the SOURCE.md beside it."""
    notes = [str(v) for k, v in raw.items() if k.startswith("_") and k not in _HF_UNDERSCORE_KEYS]
    if notes:
        return " ".join(notes)
    source = config_path.parent / "SOURCE.md"
    if config_path.name == "config.json" and source.exists():
        return " ".join(source.read_text().split("\n\n", 1)[0].split())
    return f"{config_path.relative_to(ROOT)}: config.json fields copied into the validation set (see its README)"


def main() -> None:
    """CLI entry: write the catalog file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=DEFAULT_SRC)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--extra", type=Path, default=DEFAULT_EXTRA)
    parser.add_argument("--tested", type=Path, default=DEFAULT_TESTED)
    args = parser.parse_args()
    catalog = build(args.src, args.extra, args.tested)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(catalog, indent=1) + "\n")
    print(f"wrote {len(catalog['models'])} models to {args.out}")


if __name__ == "__main__":
    main()
