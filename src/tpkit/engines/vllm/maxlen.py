"""vLLM's maximum model length: the length derived from the config, what a given ``--max-model-len`` may reach, and
the tokenizer clamp of one release (``_get_and_verify_max_len``: ``config.py`` ≤ 0.10.2, ``config/model.py`` from
0.11; the key list in ``transformers_utils/model_arch_config_convertor.py derive_max_model_len_and_key`` from 0.16).

Read in the 0.4.3, 0.6.1.post2–0.6.6, 0.7.0, 0.7.2, 0.8.0–0.8.3, 0.9.0–0.9.2, 0.10.0–0.10.2, 0.11.0, 0.13.0, 0.16.0,
0.17.1, 0.19.1–0.34.0 wheels:

* the config's length (of the text config) is the SMALLEST of the keys present among max_position_embeddings,
  n_positions, max_seq_len, seq_length, model_max_length, max_target_positions (listed from 0.7.0; not in 0.6.6),
  max_sequence_length, max_seq_length, seq_len;
* from 0.8.3 (0.8.2 not) a config.json ``model_max_length`` REPLACES it ("For Command-R / Cohere"), larger or not;
* the RoPE factor then applies (:func:`derived_max_model_len`);
* a given ``--max-model-len`` above the derived length is accepted when the config.json has ``model_max_length``
  and the length is at most that (every release read): before 0.8.3 this lets Command-R-style configs
  (max_position_embeddings below model_max_length) serve up to model_max_length; otherwise refused unless
  VLLM_ALLOW_LONG_MAX_MODEL_LEN=1;
* the tokenizer's ``model_max_length`` (tokenizer_config.json): 0.9.1 alone clamps the resolved length of EVERY
  model to it after the check (``ModelConfig.get_and_verify_max_len``: ``min(max_model_len, model_max_length)``,
  a silent clamp); 0.9.2 on reads it only for the pooling runner (0.9.2 comment: it "can be incorrect and unduly
  limit the context window" of generative models), which tpkit does not plan; before 0.9.1 it is not read.
  tpkit reads tokenizer_config.json only when it lies next to the config.json it read (a local path or the HF
  cache snapshot), never over the network: without it the 0.9.1 clamp is not applied.
"""

from __future__ import annotations

import json
from pathlib import Path

from tpkit.models import ModelSpec

_LEN_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
             "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len")
"""``possible_keys`` of ``_get_and_verify_max_len`` / ``derive_max_model_len_and_key``, in vLLM's order"""

COHERE_OVERRIDE = (0, 8, 3)
"""first release whose config ``model_max_length`` replaces the smallest key (0.8.2 does not)"""
TARGET_POSITIONS = (0, 7, 0)
"""first release listing ``max_target_positions`` (Whisper) among the keys (0.6.6 does not)"""
TOKENIZER_CLAMP = ((0, 9, 1), (0, 9, 1))
"""the releases that clamp a generative model's length to the tokenizer's ``model_max_length``"""

_UNSCALED_ROPE = ("su", "longrope", "llama3")
_YARN = ("yarn", "deepseek_yarn", "deepseek_llama_scaling")


def _int_value(value) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value <= 0:
        return None
    return int(min(value, 2 ** 62))


def config_length(model: ModelSpec, release: tuple[int, int, int]) -> tuple[int, str]:
    """(length, key) of the config before RoPE scaling: the smallest key present, or from 0.8.3 the config's
    ``model_max_length`` when it has one (module docstring)."""
    values = dict(model.extra.get("max_len_keys") or {})
    values.setdefault("max_position_embeddings", model.max_position_embeddings)
    mml = _int_value(values.get("model_max_length"))
    if mml and release >= COHERE_OVERRIDE:
        return mml, "model_max_length"
    best, key = None, "max_position_embeddings"
    for name in _LEN_KEYS:
        if name == "max_target_positions" and release < TARGET_POSITIONS:
            continue
        value = _int_value(values.get(name))
        if value is not None and (best is None or value < best):
            best, key = value, name
    return (best, key) if best is not None else (model.max_position_embeddings, "max_position_embeddings")


def config_model_max_length(model: ModelSpec) -> int | None:
    """The config.json's ``model_max_length`` (a given length up to it is accepted), or None."""
    return _int_value((model.extra.get("max_len_keys") or {}).get("model_max_length"))


def derived_max_model_len(model: ModelSpec, rules) -> tuple[int, str]:
    """vLLM's length derived from the config: :func:`config_length`, times the ``rope_scaling`` factor for RoPE
    types other than su / longrope / llama3 (Gemma-3 excluded: its length is already scaled); a YaRN config counts
    from original_max_position_embeddings × factor before 0.30 and is taken as already scaled from 0.30 on
    (``VllmRules.yarn_prescaled``).  Returns (tokens, how)."""
    base, key = config_length(model, rules.release)
    rope = model.extra.get("rope_scaling")
    if not isinstance(rope, dict) or "gemma3" in model.model_type:
        return base, key
    kind = str(rope.get("rope_type") or rope.get("type") or "default")
    kind = {"su": "longrope", "mrope": "default"}.get(kind, kind)
    factor = rope.get("factor") or 1.0
    if kind in _UNSCALED_ROPE or kind == "default" or (kind in _YARN and rules.yarn_prescaled):
        return base, key
    if kind in _YARN:
        original = rope.get("original_max_position_embeddings") or base
        return (int(original * factor),
                f"rope_scaling {kind}: original_max_position_embeddings {original:,} × {factor:g}")
    return int(base * factor), f"rope_scaling {kind}: {key} {base:,} × {factor:g}"


def tokenizer_max_length(model: ModelSpec) -> int | None:
    """``model_max_length`` of the tokenizer_config.json next to the config.json tpkit read (local files only);
    None when there is none, it is unreadable, or it has no usable number."""
    source = Path(str(model.source or ""))
    if source.name != "config.json" or not source.is_file():
        return None
    path = source.with_name("tokenizer_config.json")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return _int_value(data.get("model_max_length")) if isinstance(data, dict) else None


def tokenizer_clamp(model: ModelSpec, rules, length: int) -> tuple[int, str]:
    """(length, note) after vLLM 0.9.1's clamp to the tokenizer's ``model_max_length`` (other releases: unchanged,
    note empty)."""
    low, high = TOKENIZER_CLAMP
    if not low <= rules.release <= high:
        return length, ""
    limit = tokenizer_max_length(model)
    if limit is None or limit >= length:
        return length, ""
    return limit, (f"vLLM {rules.label} clamps max_model_len {length:,} to the tokenizer's model_max_length "
                   f"{limit:,} (tokenizer_config.json; ModelConfig.get_and_verify_max_len, 0.9.1 only)")
