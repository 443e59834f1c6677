"""``--limit-mm-per-prompt``: how many items of each modality one prompt may carry, and what that does to vLLM V1's
multimodal encoder profile (``engines/vllm/encoder.py``).

Syntax per release (``engine/arg_utils.py``):

* ``image=2,video=0`` (``nullable_kvs``: comma-separated KEY=VALUE, keys lower-cased, integer values): the only
  form up to 0.8.4; 0.8.5–0.9.2 still take it for a value that is not ``{...}`` (``parse_type``); 0.10.0 and later
  parse the flag with ``json.loads`` only (read in the 0.8.0, 0.8.3, 0.8.4, 0.8.5, 0.9.2, 0.10.0 and 0.10.1 wheels).
* ``'{"image": 2, "video": 0}'`` (JSON object): from 0.8.5.
* ``'{"image": {"count": 2}}'``: a per-modality dict of dummy options from 0.11.1 (``config/multimodal.py``
  ``_validate_limit_per_prompt``, ``BaseDummyOptions.count`` ≥ 0; ``dict[str, int]`` only in 0.11.0).  Its other
  keys (width, height, num_frames, length …) change the dummy item's size, which tpkit does not model: refused.

Effect on the encoder profile (vLLM 0.10.0 and later; the 0.10.0, 0.10.1.1, 0.10.2, 0.11.0, 0.11.2, 0.12.0, 0.13.0,
0.14.1, 0.15.0, 0.17.0, 0.19.0, 0.20.0 and 0.25.1 wheels):

* A modality the flag does not name has limit 999 (``get_limit_per_prompt``, V1).
* A modality with limit 0 is not profiled: ``multimodal/registry.py`` ``get_max_tokens_per_item_by_modality``
  counts tokens with ``{modality: 1 for limit > 0}`` (0.10.0–0.16), ``multimodal/encoder_budget.py``
  ``MultiModalBudget`` keeps only ``tower_modalities`` (limit > 0; 0.17 on), so the dummy modality is the one with
  the most tokens among those left.
* Every supported modality 0: no encoder profile at all (``supports_multimodal_inputs`` is False from 0.10.1, and
  0.10.0's ``compute_encoder_budget`` returns 0 for no non-zero modality, so ``profile_run`` skips the encoder).
* Items per prompt = max(1, min(limit, max_model_len // t)) (``encoder_budget.items_per_batch``).
* The dummy item itself is built with ``mm_counts={modality: 1}`` (``_get_mm_dummy_batch``), so its size does not
  depend on the limit.  Only Qwen2-VL / Qwen2.5-VL 0.10.0–0.10.1 let the image's count change the video's t: their
  ``get_num_frames_with_most_features`` takes one image's tokens off seq_len when ``mm_counts["image"]`` is 1,
  i.e. when the image limit is > 0 (``encoder_qwen2vl_dummy``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from tpkit.engines import flag_json
from tpkit.engines.vllm.encoder_budget import DEFAULT_MM_LIMIT
from tpkit.errors import PlanInputError

__all__ = ["DEFAULT_MM_LIMIT", "parse_mm_limits", "mm_limit"]

_KVS_UP_TO = (0, 9, 2)   # KEY=VALUE accepted up to 0.9.2 (nullable_kvs), JSON only from 0.10.0
_JSON_FROM = (0, 8, 5)   # JSON object accepted from 0.8.5 (parse_type)
_DICT_VALUE_FROM = (0, 11, 1)  # {"count": n} values from 0.11.1 (dict[str, int | dict[str, int]])

_HOW = ("pass a JSON object such as '{\"image\": 2, \"video\": 0}' (vLLM 0.8.5 and later) or image=2,video=0 "
        "(vLLM up to 0.9.2)")


def _bad(what: str, value: object) -> PlanInputError:
    return PlanInputError(f"--limit-mm-per-prompt: {what}, got {value!r}; {_HOW}")


def _count(modality: str, value: object, release: tuple[int, int, int], raw: object) -> int:
    if isinstance(value, dict):
        if release < _DICT_VALUE_FROM:
            raise _bad(f"a per-modality dict ({modality!r}: {{\"count\": …}}) exists from vLLM 0.11.1 "
                       "(config/multimodal.py)", raw)
        extra = sorted(set(value) - {"count"})
        if extra:
            raise PlanInputError(
                f"--limit-mm-per-prompt: {modality!r} sets {', '.join(extra)}, which size vLLM's dummy item; tpkit "
                f"models only the count (got {raw!r}); give {{\"{modality}\": {{\"count\": N}}}} or {{\"{modality}\": N}}")
        value = value.get("count", DEFAULT_MM_LIMIT)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _bad(f"the count of {modality!r} must be a whole number ≥ 0", raw)
    return value


def parse_mm_limits(value: str | Mapping | None, release: tuple[int, int, int]) -> dict[str, int]:
    """``--limit-mm-per-prompt`` as {modality: items per prompt} for ``release`` (module docstring); {} for None."""
    if value is None:
        return {}
    raw = value
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("{"):
            if release < _JSON_FROM:
                raise _bad("vLLM before 0.8.5 takes only image=2,video=0 (engine/arg_utils.py nullable_kvs)", raw)
            try:
                value = flag_json(text)
            except json.JSONDecodeError as exc:
                raise _bad(f"not valid JSON ({exc.msg} at column {exc.colno})", raw) from None
        else:
            if release > _KVS_UP_TO:
                raise _bad("vLLM 0.10.0 and later parse this flag as JSON only (engine/arg_utils.py), not "
                           "KEY=VALUE", raw)
            value = {}
            for item in text.split(","):
                parts = [part.strip().lower() for part in item.split("=")]
                if len(parts) != 2 or not parts[0]:
                    raise _bad("each item must be KEY=VALUE", raw)
                try:
                    value[parts[0]] = int(parts[1])
                except ValueError:
                    raise _bad(f"the count of {parts[0]!r} must be a whole number ≥ 0", raw) from None
    if not isinstance(value, Mapping):
        raise _bad("expected an object of modality → count", raw)
    out: dict[str, int] = {}
    for key, count in value.items():
        if not isinstance(key, str) or not key:
            raise _bad("modality names must be strings such as image or video", raw)
        out[key] = _count(key, count, release, raw)
    return out


def mm_limit(limits: Mapping[str, int] | None, modality: str) -> int:
    """Items per prompt of ``modality`` (999 where the flag does not name it)."""
    return (limits or {}).get(modality, DEFAULT_MM_LIMIT)
