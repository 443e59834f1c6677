"""Seeded fuzz cases for ``tpkit`` (used by ``scripts/fuzz_plan.py``).

A case is a plain dict, so it can be printed, pickled to a worker and replayed:

    {"id": 17, "area": "config", "argv": ["plan", "{D}/m", "--gpu", "H100", "--json"],
     "files": {"m/config.json": {"json": {...}}}, "env": {}, "note": "what was mutated",
     "expect": "error" | None, "timeout_s": 20}

``{D}`` in argv stands for the case's temporary directory. ``files`` maps a path under it to one of
``{"json": obj}``, ``{"text": str}``, ``{"bytes": hex}``, ``{"dir": True}``, ``{"symlink": target}`` or
``{"safetensors": {"header": obj|str, "declared_len": int|None, "data_len": int}}``.
``expect == "error"`` marks input that is broken by construction: planning it without an error is an
impossible answer. Case ``i`` of seed ``s`` depends only on ``(s, i)``.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import random
from pathlib import Path

__all__ = ["make_case", "AREAS", "base_configs", "PLAN_FLAGS"]

ROOT = Path(__file__).resolve().parents[1]


def _models_testlib():
    """tests/models/models_testlib.py, the home of the tiny Llama config and the safetensors layout of the models
    tests, loaded from its path (neither scripts/ nor tests/ is a package)."""
    spec = importlib.util.spec_from_file_location("models_testlib_for_fuzz",
                                                  ROOT / "tests" / "models" / "models_testlib.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_TESTLIB = _models_testlib()
tiny_llama, llama_tensors, safetensors_entries = (_TESTLIB.tiny_llama, _TESTLIB.llama_tensors,
                                                  _TESTLIB.safetensors_entries)

AREAS = (("flags", 0.545), ("config", 0.25), ("safetensors", 0.10), ("machine", 0.07), ("probe", 0.015),
         ("bench", 0.02))
"""(area, share of the cases)"""

GPUS = ("H100", "H200", "A100", "A100-40GB", "L40S", "L4", "4090", "B200", "GB200", "MI300X", "RTX-PRO-6000",
        "H20", "3090", "h100-sxm", "NVIDIA H100 80GB HBM3")
BAD_GPUS = ("H999", "", "a" * 300, "H100\x00", "🙂", "--tp")
TEXT_LONG = "9" * 4400

# flag → (valid values, boundary values, invalid values); None as a value means "flag without value"
PLAN_FLAGS: dict[str, tuple[tuple, tuple, tuple]] = {
    "--engine-version": (("0.5.23", "0.4.0", "0.3.0", "0.2.15", "0.11", "0.9.1", "current", "V0"),
                         ("0.5.99", "0.0.1", "1.0", "0.2.14"), ("abc", "", "1.2.3.4.5", TEXT_LONG, "-1")),
    "--gpu": (GPUS, ("h200", "B200-180GB"), BAD_GPUS),
    "--gpu-memory": (("80GiB", "96GiB", "24GiB", "141GB", "48GiB"),
                     ("1GiB", "512MiB", "1KiB", "1500MiB", "15GiB", "1B", "0.5GiB", "1TiB", "1PiB", "4GiB"),
                     ("0GiB", "-5GiB", "1e300GiB", "80", "abc", "infGiB", "nanGiB", TEXT_LONG + "GiB", "1e-300GiB",
                      "GiB", "80 GiB GiB")),
    "--num-gpus": (("1", "2", "4", "8"), ("16", "64", "3"), ("0", "-1", "2147483648", "x", TEXT_LONG)),
    "--tp": (("1", "2", "4", "8"), ("3", "16", "32", "64", "5", "7"), ("0", "-1", "2147483648", "1.5", TEXT_LONG)),
    "--pp": (("1", "2", "4"), ("3", "8", "61", "200"), ("0", "-2", "2147483648", "x")),
    "--dp": (("1", "2"), ("3", "8", "1024"), ("0", "-1", "2147483648")),
    "--ep": (("1", "2", "4", "8"), ("3", "16", "256", "384"), ("0", "-1", "2147483648")),
    "--dtype": (("auto", "bfloat16", "float16", "bf16", "fp16"), ("float32", "torch.bfloat16", "half", "float"),
                ("int8", "", "fp8", "bfloat17", "FLOAT16")),
    "--quantization": (("fp8", "none", "auto"), ("fbgemm_fp8", "mxfp4", "awq", "gptq", "compressed-tensors",
                                                  "moe_wna16", "awq_marlin", "gptq_marlin", "compressed_tensors"),
                       ("int3", "", "FP8", "bitsandbytes", "gguf")),
    "--kv-cache-dtype": (("auto", "bf16", "fp8_e4m3"), ("fp8", "fp8_e5m2", "fp16", "float16", "bfloat16"),
                         ("int8", "", "fp4")),
    "--mem-fraction-static": (("0.85", "0.9", "0.7", "0.8"), ("1.0", "1", "0.001", "0.999", "0.05", "1e-300"),
                              ("0", "-0.5", "1.5", "nan", "inf", "abc", "-inf", "1e400")),
    "--context-length": (("4096", "32768", "131072"), ("1", "2", "262144", "1000000000", "2147483648"),
                         ("0", "-1", "x", "1.5", TEXT_LONG)),
    "--page-size": (("1", "16", "64"), ("32", "256", "3", "1000000000"), ("0", "-1", "x")),
    "--max-total-tokens": (("4096", "100000"), ("1", "2", "63", "1000000000000"), ("0", "-1", "x")),
    "--chunked-prefill-size": (("8192", "4096", "-1"), ("1", "2", "1000000000000", "2147483648"), ("0", "-2", "x")),
    "--cuda-graph-max-bs": (("160", "8", "256"), ("1", "0", "1000000000"), ("-1", "x")),
    "--max-running-requests": (("64", "1024"), ("1", "1000000000"), ("0", "-1", "x")),
    "--gpu-memory-utilization": (("0.9", "0.92", "0.8", "0.95"), ("1.0", "0.01", "0.999", "1e-300"),
                                 ("0", "-0.5", "1.5", "nan", "inf", "x")),
    "--max-model-len": (("4096", "32768", "131072"), ("1", "16", "1000000000", "2147483648"), ("0", "-1", "x")),
    "--block-size": (("16", "32"), ("1", "8", "64", "128", "7", "1000000"), ("0", "-16", "x")),
    "--max-num-batched-tokens": (("8192", "2048"), ("1", "16", "1000000000"), ("0", "-1", "x")),
    "--max-num-seqs": (("256", "1024"), ("1", "1000000000"), ("0", "-1", "x")),
    "--kv-cache-memory-bytes": (("8GiB", "24GiB", "40GiB"), ("1KiB", "1B", "1TiB", "100GiB", "8"),
                                ("0", "-1GiB", "1e300GiB", "abc", "8G")),
    "--enforce-eager": ((None,), (None,), (None,)),
    "--disable-custom-all-reduce": ((None,), (None,), (None,)),
    "--tpkit-allreduce": (("8MiB", "16MiB", "64MiB"), ("1B", "2B", "24GiB", "1KiB", "1TiB"),
                          ("0", "-1MiB", "1e300GiB", "abc", "8")),
    "--json": ((None,), (None,), (None,)),
}
_COMMON = ("--engine-version", "--gpu", "--gpu-memory", "--num-gpus", "--tp", "--pp", "--dp", "--ep", "--dtype",
           "--quantization", "--kv-cache-dtype", "--disable-custom-all-reduce", "--tpkit-allreduce")
_SGLANG = ("--mem-fraction-static", "--context-length", "--page-size", "--max-total-tokens",
           "--chunked-prefill-size", "--cuda-graph-max-bs", "--max-running-requests")
_VLLM = ("--gpu-memory-utilization", "--max-model-len", "--block-size", "--max-num-batched-tokens",
         "--max-num-seqs", "--kv-cache-memory-bytes", "--enforce-eager")
_ENV_VALUES = {"TPKIT_ALLREDUCE": ("auto", "nccl", "one_shot", "bogus", ""),
               "TPKIT_ALLREDUCE_FORCE_PCIE": ("1", "0", "yes", "x"),
               "TPKIT_ALLREDUCE_MAX_BYTES": ("8MiB", "1B", "0", "-1", "abc", "1e300GiB")}


def _catalog_ids() -> list[str]:
    data = json.loads((ROOT / "src/tpkit/models/data/catalog.json").read_text())
    return [m["id"] for m in data["models"]]


_BASES: list[tuple[str, dict]] | None = None


def base_configs() -> list[tuple[str, dict]]:
    """(name, config dict): the embedded catalog's configs and the validation configs shipped in tests/."""
    global _BASES
    if _BASES is None:
        data = json.loads((ROOT / "src/tpkit/models/data/catalog.json").read_text())
        bases = [(m["id"], m["config"]) for m in data["models"]]
        for path in sorted((ROOT / "tests/validation/data/configs").glob("*.json")):
            bases.append((path.stem, json.loads(path.read_text())))
        _BASES = bases
    return _BASES


def _pick_value(rng: random.Random, flag: str, quick: bool = False) -> str | None:
    valid, boundary, invalid = PLAN_FLAGS[flag]
    roll = rng.random()
    pool = valid if roll < 0.55 else (boundary if roll < 0.85 else invalid)
    return rng.choice(pool)


def _add_flag(argv: list[str], flag: str, value: str | None) -> None:
    argv.append(flag) if value is None else argv.extend([flag, value])


def _plan_flags(rng: random.Random, engine: str, k: int) -> tuple[list[str], dict]:
    """``k`` random flags for ``engine`` (rarely a flag of the other engine), plus an environment."""
    own = _COMMON + (_SGLANG if engine == "sglang" else _VLLM)
    other = _VLLM if engine == "sglang" else _SGLANG
    argv: list[str] = []
    for flag in rng.sample(own, min(k, len(own))):
        _add_flag(argv, flag, _pick_value(rng, flag))
    if rng.random() < 0.04:
        flag = rng.choice(other)
        _add_flag(argv, flag, _pick_value(rng, flag))
    env = {}
    if "--tpkit-allreduce" in argv and rng.random() < 0.3:
        name = rng.choice(sorted(_ENV_VALUES))
        env[name] = rng.choice(_ENV_VALUES[name])
    return argv, env


def _gpu_argv(rng: random.Random) -> list[str]:
    roll = rng.random()
    if roll < 0.8:
        return ["--gpu", rng.choice(GPUS)]
    if roll < 0.95:
        return ["--gpu-memory", _pick_value(rng, "--gpu-memory")]
    return []  # no GPU at all: a user error


def _flags_case(rng: random.Random) -> dict:
    engine = rng.choice(("sglang", "vllm"))
    roll = rng.random()
    if roll < 0.93:
        model = rng.choice(_catalog_ids())
        if rng.random() < 0.1:
            model = model.split("/")[-1].lower()
    else:
        model = rng.choice(("FooBar/NoSuchModel", "", " ", "/nonexistent/config.json", "x" * 300,
                            "a/" * 150 + "config.json", "meta-llama/Llama-3.1-8B-Instruct\x00", "-", "..", "/"))
    argv = ["plan", model, "--engine", engine] + _gpu_argv(rng)
    flags, env = _plan_flags(rng, engine, rng.choice((0, 1, 1, 2, 2, 3, 4, 6)))
    argv += flags
    if rng.random() < 0.85 and "--json" not in argv:
        argv.append("--json")
    return {"area": "flags", "argv": argv, "files": {}, "env": env, "note": "plan flags", "expect": None}


# ---- config.json mutations --------------------------------------------------------------------------------

def _deep(depth: int, leaf: str = "1", kind: str = "list") -> str:
    return ("[" * depth + leaf + "]" * depth) if kind == "list" else ('{"a":' * depth + leaf + "}" * depth)


_WEIRD = (None, True, False, 0, -1, 1.5, -2.5, "abc", "", "128", [], {}, [5], {"a": 1}, 10**30, 2**63, -(2**63),
          1e308, [None], [[1]], "NaN")

_KEY_VALUES: dict[str, tuple] = {
    "model_type": (5, ["llama"], {"a": 1}, "", None, "unknown_arch", True, "gemma3", "llama4"),
    "architectures": ("LlamaForCausalLM", 5, [5], [], [None], ["FooBarForCausalLM"], None, [["x"]], {"a": 1}),
    "torch_dtype": ("int8", 5, "torch.float8", None, "float64", ["bfloat16"], "torch.float16", "fp16", ""),
    "num_hidden_layers": (100_000, 30_000, 10_000, 0, 2**31, -4, 1, "32", 32.0, 1e20),
    "hidden_size": (1, 3, 2**40, 7, 0, "4096"),
    "num_attention_heads": (1, 3, 100_000, 0, -8),
    "num_key_value_heads": (0, 3, 1, 100_000, "8", -1),
    "head_dim": (0, "128", 10**6, 1, None, 1.5),
    "intermediate_size": (0, 1, 10**12, "x", None, -5),
    "vocab_size": (1, 2**40, 63, 0, "x"),
    "max_position_embeddings": (1, 2**62, "x", 0, None, 1e30),
    "tie_word_embeddings": ("no", 5, None, [True]),
    "sliding_window": (-1, "4096", 0, 10**20, True, 1, 2**63),
    "sliding_window_pattern": (0, -1, "6", 1.5, 10**9, 1),
    "use_sliding_window": (True, "yes", 5),
    "max_window_layers": (-1, "x", 10**9, 0),
    "layer_types": ("full", [5], ["full_attention"], ["sliding_attention"] * 3, [["full_attention"]], {}),
    "mlp_only_layers": ("abc", [1.5], [None], 5, [[1]], {"a": 1}, [-1], [10**9], ["0"], [0, 0, 0]),
    "decoder_sparse_step": (0, -1, "x", 10**9, 1.5),
    "interleave_moe_layer_step": (0, -1, "x", 10**9),
    "no_rope_layers": ([], [0], "abc", [None], [1.5], [0] * 3, {"a": 1}, [[0]], 5),
    "attention_chunk_size": (8192, 0, -1, "x", 10**12),
    "no_rope_layer_interval": (0, -1, "x", 10**9),
    "num_experts": (1, 0, 10**6, "x", -8), "n_routed_experts": (1, 0, 10**6, "x"),
    "num_local_experts": (1, 10**6, "8"),
    "num_experts_per_tok": (0, 10**6, "x", -2, None),
    "moe_intermediate_size": (0, "x", 1, 10**9),
    "n_shared_experts": (-1, "x", 10**6, 1.5), "num_shared_experts": (-1, "x", 2),
    "shared_expert_intermediate_size": ("x", -1, 0, 10**9),
    "first_k_dense_replace": (10**6, -1, "x", 1.5),
    "moe_layer_freq": (0, -1, "x", 10**6),
    "kv_lora_rank": ("512", -1, 1.5, 10**9), "q_lora_rank": ("x", -1, 0, 1.5),
    "qk_rope_head_dim": (None, 0, "64"), "qk_nope_head_dim": (None, -1), "v_head_dim": (None, 0, "x"),
    "num_nextn_predict_layers": (10**6, -1, "x", 1.5, 3),
    "intermediate_size_mlp": (0, "x", -1),
    "text_config": (5, [], {}, {"model_type": 5}, "x"),
    "rope_scaling": ("x", 5, {"rope_type": 5}),
    "linear_attn_config": ({}, {"num_heads": 1, "head_dim": 1, "kda_layers": "abc"}, 5,
                           {"num_heads": 2, "head_dim": 2, "kda_layers": [1.5], "full_attn_layers": [None]},
                           {"num_heads": "x", "head_dim": 2}, {"num_heads": 2, "head_dim": 2, "kda_layers": [10**9]}),
    "dtype": ("float128", 5, "torch.bfloat16"),
}

_QUANT_CONFIGS = (
    {"quant_method": "fp8", "ignore": [5]},
    {"quant_method": "fp8", "weight_block_size": [None, 128]},
    {"quant_method": "fp8", "weight_block_size": [128]},
    {"quant_method": "fp8", "weight_block_size": "128"},
    {"quant_method": "fp8", "weight_block_size": [0, 128]},
    {"quant_method": "fp8", "weight_block_size": [1.5, 128]},
    {"quant_method": "fp8", "weight_block_size": [True, 128]},
    {"quant_method": "fp8", "weight_block_size": ["128", "128"]},
    {"quant_method": "fp8", "weight_block_size": [128, 128], "modules_to_not_convert": 5},
    {"quant_method": "fp8", "modules_to_not_convert": [None]},
    {"quant_method": "fp8", "modules_to_not_convert": "lm_head"},
    {"quant_method": "fp8", "ignored_layers": ["re:("]},
    {"quant_method": "fp8", "ignored_layers": {"a": 1}},
    {"quant_method": 5}, {"quant_method": None}, {"quant_method": "FP8"}, {"quant_method": "bitsandbytes"},
    {"quant_method": ["fp8"]}, {},
    {"quant_method": "awq", "bits": "four"}, {"quant_method": "awq", "bits": 0}, {"quant_method": "awq", "group_size": 0},
    {"quant_method": "awq", "group_size": 1.5}, {"quant_method": "awq", "group_size": 10**9},
    {"quant_method": "awq", "bits": 3, "group_size": -1}, {"quant_method": "gptq", "bits": 8, "group_size": 7},
    {"quant_method": "gptq", "modules_to_not_convert": [None]}, {"quant_method": "awq", "bits": 10**6},
    {"quant_method": "compressed-tensors", "config_groups": []},
    {"quant_method": "compressed-tensors", "config_groups": {"g": 5}},
    {"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": 5}}},
    {"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {"num_bits": "4"}}}},
    {"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {"num_bits": 4, "group_size": 32}}},
     "ignore": [5]},
    {"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {"num_bits": 4, "group_size": 32}}},
     "ignore": ["re:("]},
    {"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {"num_bits": 4, "group_size": 32}}},
     "ignore": "lm_head"},
    {"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {"num_bits": 4, "type": 5}}}},
    {"quant_method": "compressed-tensors", "weights": {"num_bits": 4, "group_size": 0}},
    {"quant_method": "mxfp4", "modules_to_not_convert": 5},
    {"quant_method": "mxfp4", "modules_to_not_convert": ["re:(", "*["]},
    {"quant_method": "fbgemm_fp8", "modules_to_not_convert": [5]},
    {"quant_method": "fp8", "kv_cache_quant_algo": 5}, {"quant_method": "fp8", "kv_cache_quant_algo": ["FP8"]},
)

_VISION_CONFIGS = (
    {"model_type": "siglip_vision_model"},
    {"model_type": "siglip_vision_model", "hidden_size": "x", "intermediate_size": 4304, "patch_size": 14,
     "image_size": 896, "num_hidden_layers": 27},
    {"model_type": "siglip_vision_model", "hidden_size": 1152, "intermediate_size": 4304, "patch_size": 0,
     "image_size": 896, "num_hidden_layers": 27},
    {"model_type": "siglip_vision_model", "hidden_size": -1152, "intermediate_size": 4304, "patch_size": 14,
     "image_size": 896, "num_hidden_layers": 27},
    {"model_type": "siglip_vision_model", "hidden_size": 1152, "intermediate_size": 4304, "patch_size": 14,
     "image_size": None, "num_hidden_layers": 27},
    {"model_type": "siglip_vision_model", "hidden_size": 1.5, "intermediate_size": [1], "patch_size": 14,
     "image_size": 896, "num_hidden_layers": 27},
    {"model_type": 5}, 5, "x", [], {"model_type": "clip_vision_model", "hidden_size": 5},
)


def _mutate_config(rng: random.Random, cfg: dict) -> tuple[dict, list[str], str | None, str | None]:
    """Apply 1–3 mutations. Returns (config, notes, raw-text override or None, text-level injection)."""
    notes: list[str] = []
    raw = inject = None
    text = cfg["text_config"] if isinstance(cfg.get("text_config"), dict) else cfg
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        roll = rng.random()
        if roll < 0.40:
            key = rng.choice(sorted(_KEY_VALUES))
            value = rng.choice(_KEY_VALUES[key])
            target = cfg if key in ("text_config", "architectures") else text
            if key in ("no_rope_layers", "no_rope_layer_interval"):
                text["attention_chunk_size"] = 8192
            if key in ("mlp_only_layers",):
                text.setdefault("num_experts", 8), text.setdefault("num_experts_per_tok", 2)
                text.setdefault("decoder_sparse_step", 1)
            target[key] = value
            notes.append(f"{key}={json.dumps(value)[:60]}")
        elif roll < 0.55:
            key = rng.choice(sorted(text))
            value = rng.choice(_WEIRD)
            text[key] = value if value != "NaN" else float("nan")
            notes.append(f"{key}={json.dumps(text[key])[:60]}")
        elif roll < 0.65:
            if text:
                key = rng.choice(sorted(text))
                del text[key]
                notes.append(f"del {key}")
        elif roll < 0.78:
            qc = copy.deepcopy(rng.choice(_QUANT_CONFIGS))
            text["quantization_config"] = qc
            notes.append(f"quantization_config={json.dumps(qc)[:120]}")
        elif roll < 0.86:
            vc = copy.deepcopy(rng.choice(_VISION_CONFIGS))
            cfg["vision_config"] = vc
            if "text_config" not in cfg and rng.random() < 0.5:
                cfg = {"model_type": "gemma3", "architectures": ["Gemma3ForConditionalGeneration"],
                       "text_config": dict(text, model_type="gemma3_text"), "vision_config": vc}
                text = cfg["text_config"]
            notes.append(f"vision_config={json.dumps(vc)[:100]}")
        elif roll < 0.92:
            key = rng.choice(("rope_scaling", "quantization_config", "text_config", "num_hidden_layers"))
            depth = rng.choice((50, 1000, 100_000))
            inject = (key, _deep(depth, kind=rng.choice(("list", "dict"))))
            notes.append(f"{key} nested {depth} deep")
        elif roll < 0.96:
            key = rng.choice(("num_hidden_layers", "hidden_size", "vocab_size", "sliding_window"))
            inject = (key, "1" + "0" * rng.choice((4300, 5000, 20)))
            notes.append(f"{key} = an integer literal of {len(inject[1])} digits")
        else:
            raw = rng.choice((
                "", "null", "[]", "[1, 2]", '"x"', "{", '{"model_type": "llama",}', "\ufeff{}", "NaN",
                _deep(100_000), _deep(100_000, kind="dict"), "{\"a\": 1} trailing", "\x00\x01",
                '{"model_type": "llama", "model_type": 5}', "1" * 5000))
            notes.append(f"file is {raw[:40]!r}{'…' if len(raw) > 40 else ''} ({len(raw)} chars)")
    return cfg, notes, raw, inject


def _config_files(cfg: dict, raw: str | None, inject: tuple[str, str] | None, where: str) -> dict:
    if raw is not None:
        return {where: {"text": raw}}
    if inject is not None:
        key, literal = inject
        body = dict(cfg)
        body[key] = "__INJECT__"
        return {where: {"text": json.dumps(body).replace('"__INJECT__"', literal)}}
    return {where: {"text": json.dumps(cfg, allow_nan=True)}}


def _config_case(rng: random.Random) -> dict:
    name, cfg = rng.choice(base_configs())
    cfg, notes, raw, inject = _mutate_config(rng, copy.deepcopy(cfg))
    form = rng.random()
    if form < 0.5:
        files, model = _config_files(cfg, raw, inject, "config.json"), "{D}/config.json"
    elif form < 0.95:
        files, model = _config_files(cfg, raw, inject, "ckpt/config.json"), "{D}/ckpt"
    else:
        long = "d" * 200 + "/" + "e" * 255
        files, model = _config_files(cfg, raw, inject, f"{long}/config.json"), f"{{D}}/{long}"
    engine = rng.choice(("sglang", "vllm"))
    argv = ["plan", model, "--engine", engine, "--gpu", rng.choice(GPUS[:8]), "--json"]
    if rng.random() < 0.5:
        argv += ["--tp", rng.choice(("1", "2", "4", "8"))]
    if rng.random() < 0.2:
        flags, _ = _plan_flags(rng, engine, 2)
        argv += [f for f in flags if f != "--json"]
    return {"area": "config", "argv": argv, "files": files, "env": {},
            "note": f"{name} config with " + "; ".join(notes), "expect": None}


# ---- safetensors headers ----------------------------------------------------------------------------------

def _tensors(cfg: dict) -> dict[str, dict]:
    """The safetensors header entries of the tiny Llama ``cfg``, all BF16: embed, norm, lm_head, then each layer."""
    h, v = cfg["hidden_size"], cfg["vocab_size"]
    tensors = {"model.embed_tokens.weight": ("BF16", [v, h]), "model.norm.weight": ("BF16", [h]),
               "lm_head.weight": ("BF16", [v, h])}
    tensors.update(llama_tensors(cfg, range(cfg["num_hidden_layers"])))
    return safetensors_entries(tensors)[0]


def _data_len(header: dict) -> int:
    ends = [m["data_offsets"][1] for k, m in header.items() if k != "__metadata__"]
    return max(ends, default=0)


# (note, expect error?, mutate(header, rng) -> header or a raw string)
def _st_mutations():
    def entry(h, rng):
        return rng.choice([k for k in h if k != "__metadata__"])

    def set_meta(field, value):
        def f(h, rng):
            h[entry(h, rng)][field] = value
            return h
        return f

    def offsets(kind):
        def f(h, rng):
            name = entry(h, rng)
            b, e = h[name]["data_offsets"]
            h[name]["data_offsets"] = {"negative": [-(e - b), 0], "neg_begin": [-5, e], "end_lt_begin": [e, b],
                                       "out_of_file": [b, e + 10**15], "huge": [0, 2**70],
                                       "floats": [float(b), float(e)], "bools": [False, True],
                                       "three": [b, e, e], "strings": [str(b), str(e)]}[kind]
            return h
        return f

    return [
        ("negative data_offsets", True, offsets("negative")),
        ("negative begin offset", True, offsets("neg_begin")),
        ("data_offsets end < begin", True, offsets("end_lt_begin")),
        ("data_offsets past the end of the file", True, offsets("out_of_file")),
        ("data_offsets of 2^70", True, offsets("huge")),
        ("float data_offsets", True, offsets("floats")),
        ("bool data_offsets", True, offsets("bools")),
        ("three data_offsets", True, offsets("three")),
        ("string data_offsets", True, offsets("strings")),
        ("dtype is a number", True, set_meta("dtype", 5)),
        ("shape is a string", True, set_meta("shape", "x")),
        ("shape has a negative dimension", True, set_meta("shape", [-1, 128])),
        ("shape has strings", True, set_meta("shape", ["a", "b"])),
        ("entry is a list", True, lambda h, rng: {**h, entry(h, rng): [1, 2]}),
        ("entry is null", True, lambda h, rng: {**h, entry(h, rng): None}),
        ("__metadata__ is a number", False, lambda h, rng: {**h, "__metadata__": 5}),
        ("layer index 10^12", False,
         lambda h, rng: {**h, "model.layers.999999999999.mlp.up_proj.weight": h[entry(h, rng)]}),
        ("header is a list", True, lambda h, rng: "[1, 2, 3]"),
        ("header is deeply nested", True, lambda h, rng: _deep(100_000, kind=rng.choice(("list", "dict")))),
        ("header is not JSON", True, lambda h, rng: "{not json"),
        ("header is not UTF-8", True, lambda h, rng: "\udcff\udcfe"),
        ("empty header object", False, lambda h, rng: {}),
        ("integer literal of 5000 digits", True, lambda h, rng: '{"x": {"dtype": "BF16", "shape": [1], '
                                                               '"data_offsets": [0, 1' + "0" * 5000 + "]}}"),
    ]


def _safetensors_case(rng: random.Random) -> dict:
    cfg = tiny_llama(num_hidden_layers=rng.choice((2, 4)))
    header = _tensors(cfg)
    files = {"ckpt/config.json": {"text": json.dumps(cfg)}}
    names = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
    keys = list(header)
    split = len(keys) // 2
    parts = [{k: header[k] for k in keys[:split]}, {k: header[k] for k in keys[split:]}]
    parts = [_rebase(p) for p in parts]
    roll = rng.random()
    expect, note = None, "valid checkpoint"
    if roll < 0.12:
        kind = rng.choice(("dir", "broken_symlink", "symlink_to_dir", "empty", "short", "long_len", "huge_len",
                           "fifo_like_dir_tree"))
        expect = "error"
        note = {"dir": "a *.safetensors entry that is a directory", "broken_symlink": "a broken symlink",
                "symlink_to_dir": "a symlink to a directory", "empty": "an empty file",
                "short": "a 4-byte file", "long_len": "header length larger than the file",
                "huge_len": "header length 2^63", "fifo_like_dir_tree": "a directory with files inside"}[kind]
        victim = f"ckpt/{names[1]}"
        spec = {"dir": {"dir": True}, "broken_symlink": {"symlink": "nowhere.bin"},
                "symlink_to_dir": {"symlink": "."}, "empty": {"text": ""}, "short": {"text": "abcd"},
                "long_len": {"safetensors": {"header": parts[1], "declared_len": 10**7, "data_len": 0}},
                "huge_len": {"safetensors": {"header": parts[1], "declared_len": 2**63, "data_len": 0}},
                "fifo_like_dir_tree": {"dir": True}}[kind]
        files[f"ckpt/{names[0]}"] = {"safetensors": {"header": parts[0], "declared_len": None,
                                                     "data_len": _data_len(parts[0])}}
        files[victim] = spec
        if kind == "fifo_like_dir_tree":
            files[f"{victim}/inner.txt"] = {"text": "x"}
    else:
        note, err, mutate = rng.choice(_st_mutations()) if roll < 0.9 else ("valid checkpoint", False, None)
        expect = "error" if err else None
        i = rng.randrange(2)
        if mutate is not None:
            parts[i] = mutate(copy.deepcopy(parts[i]), rng)
        for j, part in enumerate(parts):
            data = _data_len(part) if isinstance(part, dict) and all(
                isinstance(m, dict) and isinstance(m.get("data_offsets"), list)
                and all(isinstance(o, int) and 0 <= o < 10**9 for o in m["data_offsets"])
                for k, m in part.items() if k != "__metadata__") else 64
            files[f"ckpt/{names[j]}"] = {"safetensors": {"header": part, "declared_len": None, "data_len": data}}
    argv = ["plan", "{D}/ckpt", "--engine", rng.choice(("sglang", "vllm")), "--gpu", "H100", "--json",
            "--tp", rng.choice(("1", "2")), "--pp", rng.choice(("1", "1", "2"))]
    return {"area": "safetensors", "argv": argv, "files": files, "env": {}, "note": f"safetensors: {note}",
            "expect": expect}


def _rebase(header: dict) -> dict:
    start = min(m["data_offsets"][0] for m in header.values())
    return {k: {**m, "data_offsets": [m["data_offsets"][0] - start, m["data_offsets"][1] - start]}
            for k, m in header.items()}


# ---- machine.json --------------------------------------------------------------------------------------------

def machine_profile(n: int = 2, name: str = "NVIDIA H200") -> dict:
    gpus = [{"index": i, "name": name, "total_bytes": 150109880320, "free_bytes": 149250113536 - i * 2**30,
             "used_by_this_process_bytes": 0, "used_by_others_bytes": 858993459, "compute_capability": [9, 0],
             "processes": [{"pid": 10 + i, "name": "python3", "used_bytes": 2**30}]} for i in range(n)]
    return {"profile_version": 1, "hostname": "box", "driver_version": "580.159.04", "gpus": gpus,
            "nvlink_links": [[0 if i == j else 18 for j in range(n)] for i in range(n)],
            "p2p_access": [[True] * n for _ in range(n)],
            "pcie_path": [["X" if i == j else "NV18" for j in range(n)] for i in range(n)], "extra": {"notes": []}}


_MACHINE_BAD = (  # (note, path, value): each makes the profile invalid
    ("negative NVLink count", ("nvlink_links", 0, 1), -18),
    ("negative compute capability", ("gpus", 0, "compute_capability"), [-9, 0]),
    ("pid is a list", ("gpus", 0, "processes", 0, "pid"), [1, 2]),
    ("free larger than total", ("gpus", 0, "free_bytes"), 10**15),
    ("negative free bytes", ("gpus", 0, "free_bytes"), -1),
    ("total is a string", ("gpus", 0, "total_bytes"), "80GiB"),
    ("index is a float", ("gpus", 1, "index"), 1.5),
    ("duplicate GPU index", ("gpus", 1, "index"), 0),
    ("gpus is empty", ("gpus",), []),
    ("gpus is a dict", ("gpus",), {"a": 1}),
    ("p2p matrix of the wrong shape", ("p2p_access",), [[True, True, True]]),  # 1×3: no GPU count has it
    ("nvlink matrix has strings", ("nvlink_links", 1), ["a", "b"]),
    ("profile_version 99", ("profile_version",), 99),
    ("compute capability of one number", ("gpus", 0, "compute_capability"), [9]),
    ("used_by_others negative", ("gpus", 0, "used_by_others_bytes"), -5),
    ("process used_bytes is a string", ("gpus", 0, "processes", 0, "used_bytes"), "1GiB"),
    ("name is a number", ("gpus", 0, "name"), 5),
    ("unknown top-level key", ("bogus",), 1),
)


def _machine_case(rng: random.Random) -> dict:
    n = rng.choice((1, 2, 4, 8))
    prof = machine_profile(n, rng.choice(("NVIDIA H200", "NVIDIA H100 80GB HBM3", "Some Future GPU")))
    expect, note, text = None, "valid profile", None
    roll = rng.random()
    if roll < 0.6:
        note, path, value = rng.choice(_MACHINE_BAD)
        expect = "error"
        try:
            target = prof
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
        except (IndexError, KeyError, TypeError):
            expect, note = None, "valid profile"
    elif roll < 0.75:
        text = rng.choice(("", "[]", "{", _deep(100_000, kind="dict"), "null", '{"gpus": 5}'))
        expect, note = "error", f"file is {text[:30]!r} ({len(text)} chars)"
    files = {"machine.json": {"text": text if text is not None else json.dumps(prof)}}
    machine = rng.choice(("{D}/machine.json", "{D}/machine.json", "{D}/machine.json", "{D}", "{D}/none.json"))
    if machine != "{D}/machine.json":
        expect, note = "error", f"--machine {machine.replace('{D}', 'DIR')}"
    argv = ["plan", rng.choice(_catalog_ids()[:10]), "--machine", machine, "--engine", rng.choice(("sglang", "vllm")),
            "--tp", rng.choice(("1", "2", "4", "8")), "--json"]
    if rng.random() < 0.3:
        argv += ["--gpu", rng.choice(("H200", "H100"))]
    return {"area": "machine", "argv": argv, "files": files, "env": {}, "note": f"machine.json: {note}",
            "expect": expect}


# ---- probe / bench on a CPU ------------------------------------------------------------------------------------

def _probe_case(rng: random.Random) -> dict:
    argv = ["probe"]
    files = {}
    for flag in rng.sample(("--json", "--out", "--no-nvml"), rng.randrange(4)):
        if flag == "--out":
            target = rng.choice(("{D}/m.json", "{D}", "{D}/missing/m.json", "{D}/ro/m.json", ""))
            if target == "{D}/ro/m.json":
                files["ro"] = {"dir": True, "mode": 0o500}
            argv += ["--out", target]
        else:
            argv.append(flag)
    return {"area": "probe", "argv": argv, "files": files, "env": {}, "note": "probe on a CPU", "expect": None,
            "output_dir": True, "timeout_s": 60}  # the first probe of a worker imports torch


_BENCH_FLAGS = {
    "--nproc": (("1", "2"), ("3", "4"), ("0", "-1", "x")),
    "--backend": (("gloo",), ("nccl", "one_shot", "symm_mem_one_shot"), ("bogus", "")),
    "--min-size": (("1KiB", "2KiB"), ("2B", "4B", "1B", "3B"), ("0B", "-1KiB", "1e300GiB", "abc", "1024")),
    "--max-size": (("4KiB", "8KiB"), ("1KiB", "2B", "16KiB"), ("512B", "-1KiB", "abc", "1e300GiB")),
    "--dtype": (("bf16", "fp32"), ("fp16",), ("int8", "")),
    "--mode": (("eager",), ("graph",), ("both",)),
    "--device": (("cpu",), ("auto", "cuda"), ("gpu",)),
    "--max-bytes": (("8KiB",), ("1B", "1KiB"), ("0", "-1", "abc")),
    "--iters": (("1",), ("2",), ("0", "-1", "x")),
    "--graph-calls": (("1",), ("2",), ("0", "-3")),
    "--repeats": (("1",), ("2",), ("0", "-1")),
    "--json": (("{D}/prof.json",), ("{D}/sub/prof.json",), ("{D}", "")),
    "--plot": (("{D}/lat.png",), ("{D}/lat.svg",), ("{D}", "{D}/lat.xyz")),
    "--explain": ((None,), (None,), (None,)),
    "--max-blocks": (("4",), ("1",), ("0", "-3")),
    "--keep-profile": ((None,), (None,), (None,)),
}


def _bench_case(rng: random.Random, quick: bool) -> dict:
    """``bench allreduce`` on a CPU, kept small (1 iteration, KiB sizes) unless a flag says otherwise."""
    argv = ["bench", "allreduce", "--iters", "1", "--repeats", "1", "--max-size", "4KiB"]
    chosen = rng.sample(sorted(_BENCH_FLAGS), rng.randrange(1, 4))
    if quick:  # an invalid count stops the bench before it starts any rank
        argv[argv.index("--iters") + 1] = rng.choice(_BENCH_FLAGS["--iters"][2])
        chosen = [f for f in chosen if f != "--iters"]
    for flag in chosen:
        valid, boundary, invalid = _BENCH_FLAGS[flag]
        roll = rng.random()
        value = rng.choice(invalid if roll < 0.35 else (boundary if roll < 0.65 else valid))
        if flag in ("--iters", "--repeats", "--max-size"):
            i = argv.index(flag)
            argv[i + 1] = value
        else:
            _add_flag(argv, flag, value)
    if "--device" not in argv and rng.random() < 0.8:
        argv += ["--device", "cpu"]
    if "--backend" not in argv and rng.random() < 0.8:
        argv += ["--backend", "gloo"]
    env = {}
    if rng.random() < 0.15:
        name = rng.choice(sorted(_ENV_VALUES))
        env[name] = rng.choice(_ENV_VALUES[name])
    return {"area": "bench", "argv": argv, "files": {}, "env": env, "note": "bench allreduce on a CPU",
            "expect": None, "output_dir": True, "timeout_s": 120}


def make_case(seed: int, index: int, *, quick: bool = False) -> dict:
    """Case ``index`` of ``seed`` (deterministic). ``quick``: bench cases never start ranks (invalid --iters)."""
    rng = random.Random(f"{seed}:{index}")
    roll, acc = rng.random(), 0.0
    area = AREAS[-1][0]
    for name, share in AREAS:
        acc += share
        if roll < acc:
            area = name
            break
    build = {"flags": _flags_case, "config": _config_case, "safetensors": _safetensors_case,
             "machine": _machine_case, "probe": _probe_case}.get(area)
    case = build(rng) if build else _bench_case(rng, quick)
    case.setdefault("timeout_s", 20)
    case.update(id=index, seed=seed)
    return case
