"""``--quantization METHOD`` on a checkpoint without ``quantization_config``: the warning, and the WILL NOT START
verdict where both engines refuse the flag at start-up (helper ux26, 2026-12-06; ux24 / ux25's question).

Read in the wheels: vLLM 0.34.0 ``model_executor/model_loader/weight_utils.py`` ``get_quant_config`` (0.28.0 –
0.33.0 alike) looks for the files the method's config class names (``get_config_filenames``) beside config.json and
raises "Cannot find the config file for METHOD" when there is none; the AWQ and GPTQ families name them
(``AutoAWQConfig``: ``quantize_config.json`` / ``quant_config.json``; ``AutoGPTQConfig``: ``quantize_config.json``;
``awq`` / ``awq_marlin`` / ``auto_awq`` and ``gptq`` / ``gptq_marlin`` / ``auto_gptq`` map to them in
``layers/quantization/__init__.py``).  SGLang 0.5.23 ``srt/model_loader/weight_utils.py`` ``get_quant_config`` raises
the same message.  A method whose config class names no file (vLLM's ``Mxfp4Config``; the online shorthands
``fp8``, ``mxfp4``, ``mxfp8`` of vLLM 0.30+) is built without one, so no refusal is claimed for it.

A plan with such a flag is still computed — ``--quantization METHOD`` on a base config is how tpkit plans the METHOD
checkpoint of the same shape when only the base config is at hand (docs/accuracy.md §5's GB10 check) — but the
engines would not start with that command, so the verdict says WILL NOT START (``Verdict.starts`` False, exit 3 as
DOES NOT FIT), the way ``tpkit plan`` reports every plan whose command the engine would not run to the KV pool.
"""

from __future__ import annotations

__all__ = ["quantization_note", "refusing_method", "will_not_start", "long_len_note"]

_FILE_METHODS = {"awq": "awq", "awq_marlin": "awq", "auto_awq": "awq", "gptq": "gptq", "gptq_marlin": "gptq",
                 "auto_gptq": "gptq"}
"""--quantization spellings whose config class needs a file beside config.json (module docstring) → its family"""
_CONFIG_FILES = {"awq": "quantize_config.json or quant_config.json", "gptq": "quantize_config.json"}
_CONFIG_NAMES = {"awq": ("quantize_config.json", "quant_config.json"), "gptq": ("quantize_config.json",)}
_NO_NOTE = ("none", "auto", "fp8", "bitsandbytes", "deepseek_v4_fp8")
_ENGINE_NAMES = {"vllm": "vLLM", "sglang": "SGLang"}


def _has_config_file(model, family: str) -> bool:
    """True when the folder the config was read from (a path or the HF cache; not the catalog) holds one of the
    family's quantisation config files, which the engines read where config.json has no quantization_config."""
    from pathlib import Path

    source = str(getattr(model, "source", "") or "")
    if not source or source.startswith("catalog"):
        return False
    folder = Path(source) if Path(source).is_dir() else Path(source).parent
    return any((folder / name).is_file() for name in _CONFIG_NAMES[family])


def _unquantised_flag(args, model) -> str | None:
    flag = getattr(args, "quantization", None)
    if not flag or flag.lower() in _NO_NOTE or getattr(model, "quant", None) is not None:
        return None
    return flag


def refusing_method(args, model) -> str | None:
    """The ``--quantization`` value the engines refuse on this checkpoint (an AWQ / GPTQ method on a config without
    ``quantization_config``), else None."""
    flag = _unquantised_flag(args, model)
    if flag is None or flag.lower() not in _FILE_METHODS:
        return None
    return None if _has_config_file(model, _FILE_METHODS[flag.lower()]) else flag


def quantization_note(args, model) -> tuple[str, ...]:
    """The warning for ``--quantization METHOD`` (a stored format: awq, gptq, mxfp4, compressed-tensors) on a
    checkpoint without ``quantization_config``: tpkit plans it as that method's checkpoint of the same shape.  fp8 is
    quantised at load time by both engines, and vLLM's bitsandbytes loader quantises a bf16/fp16 checkpoint in flight
    (``models.quant.bnb_online``), so they get no note; nor does ``deepseek_v4_fp8`` (an ``Fp8Config`` with no config
    file to find: vLLM 0.23.0 ``get_quant_config`` returns ``quant_cls()``), planned as DeepSeek-V4's stored FP8 /
    FP4-expert mix (``models.dsv4_weights``)."""
    flag = _unquantised_flag(args, model)
    if flag is None:
        return ()
    head = (f"--quantization {flag}: this checkpoint has no quantization_config, so tpkit planned its weights as if "
            f"stored in {flag} format (the method's default group size); ")
    family = _FILE_METHODS.get(flag.lower())
    if family is not None and _has_config_file(model, family):
        return (head + f"the engines read it from the {' or '.join(_CONFIG_NAMES[family])} beside config.json, "
                "which tpkit does not read: copy its settings into config.json's quantization_config for exact "
                "weights",)
    if family is None:
        return (head + f"whether the engine quantises this checkpoint to {flag} at load is not modelled: serve the "
                f"{flag} checkpoint of the model and plan with its config.json for exact weights",)
    return (head + f"the engines refuse --quantization {flag} on this checkpoint ('Cannot find the config file for "
            f"{flag}': no {_CONFIG_FILES[family]} beside config.json): serve the {flag} checkpoint of the model and "
            "plan with its config.json for exact weights",)


def will_not_start(result, args, model):
    """``result`` with a WILL NOT START verdict when the engines refuse ``--quantization`` on this checkpoint
    (:func:`refusing_method`), whether or not its memory fits: no memory fix makes that command start, so a DOES NOT
    FIT plan's fixes (re-planned for the METHOD checkpoint of this shape) move into the message and leave
    ``verdict.fixes`` (the lead, session 26: the plan fuzzer's seed 25 re-planned ``--tp 2`` from a DOES NOT FIT
    plan and got WILL NOT START).  ``result`` is unchanged when no method is refused, and for a ``--from-log`` plan
    whose quantization the log gave (that server ran with it, on the checkpoint the log names)."""
    flag = refusing_method(args, model)
    if flag is None or "quantization" in getattr(args, "log_filled", ()):
        return result  # a --from-log plan's quantization is the one the log's server started with
    from dataclasses import replace

    message = (f"{_ENGINE_NAMES.get(args.engine, args.engine)} refuses --quantization {flag} on this checkpoint at start-up ('Cannot find the config "
               f"file for {flag}': its config.json has no quantization_config and no "
               f"{_CONFIG_FILES[_FILE_METHODS[flag.lower()]]} lies beside it); serve the {flag} checkpoint of the "
               f"model (its config.json gives exact weights) or drop --quantization; the memory above plans a "
               f"checkpoint of this shape stored in {flag} format ({'' if result.verdict.fits else 'DOES NOT FIT: '}"
               f"{result.verdict.message})")
    verdict = replace(result.verdict, fits=False, starts=False, message=message, knob="--quantization", fixes=())
    return replace(result, verdict=verdict)


def long_len_note(args, model) -> tuple[str, ...]:
    """The warning of a vLLM plan whose ``--max-model-len`` lies above the model's derived maximum under
    ``--vllm-allow-long-max-model-len on`` (VLLM_ALLOW_LONG_MAX_MODEL_LEN=1): vLLM serves it with a warning
    (``_get_and_verify_max_len``; ``engines.vllm.options``), and so does the plan."""
    if args.engine != "vllm" or not getattr(args, "max_model_len", None):
        return ()
    from tpkit.engines.vllm.inputs import long_len_allowed
    from tpkit.engines.vllm.maxlen import derived_max_model_len
    from tpkit.engines.vllm.maxlen import config_model_max_length
    from tpkit.engines.vllm.versions import resolve_rules

    if not long_len_allowed(args):
        return ()
    limit, how = derived_max_model_len(model, resolve_rules(getattr(args, "engine_version", None) or "current"))
    if args.max_model_len <= max(limit, config_model_max_length(model) or 0):  # no warning up to model_max_length
        return ()
    return (f"--max-model-len {args.max_model_len:,} is above {model.name}'s derived maximum of {limit:,} tokens "
            f"({how}); with VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (--vllm-allow-long-max-model-len on) vLLM serves it and "
            "warns that positions past the maximum give NaN with RoPE (out-of-bounds errors with absolute "
            "positions): the memory is planned for the full length, the quality past the maximum is not",)
