"""Optional fields of an HF config, read with messages that name the field and the file."""

from __future__ import annotations

from tpkit.errors import ConfigError

__all__ = ["optional_int", "optional_bool", "int_list", "name_list", "MAX_DIM", "grouped_kv_heads"]

MAX_DIM = 2**31 - 1
"""largest size tpkit accepts for one model dimension (elements); no released model comes near it"""


def optional_int(text: dict, key: str, where: str, *, default: int | None, minimum: int = 0,
                 maximum: int = MAX_DIM) -> int | None:
    """``text[key]`` as a whole number in [``minimum``, ``maximum``]; ``default`` when absent or null.

    An integral float (``2.0``) is accepted; a string, a bool or a fraction raises ``ConfigError``.
    """
    value = text.get(key)
    if value is None:
        return default
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise ConfigError(f"{where}: {key} must be a whole number from {minimum} to {maximum:,}, got {value!r:.80}; "
                          "fix the config.json (HF writes these fields as plain integers)")
    return value


def optional_bool(text: dict, key: str, where: str) -> bool:
    """``text[key]`` as a flag; False when absent or null.  ``true``/``false`` and the integers 0 and 1 (which
    transformers' configs take as their truth values) are accepted; anything else raises ``ConfigError``."""
    value = text.get(key, False)
    if value is None:
        return False
    if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    raise ConfigError(f"{where}: {key} must be true or false, got {value!r:.60}; fix the config.json")


def int_list(value, key: str, where: str, *, lo: int, hi: int) -> tuple[int, ...]:
    """A JSON list of whole numbers in [``lo``, ``hi``] (null → empty), or ``ConfigError`` naming ``key``."""
    if value is None:
        return ()
    ok = isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi for v in value)
    if not ok:
        raise ConfigError(f"{where}: {key} must be a list of whole numbers from {lo} to {hi}, got {value!r:.120}; "
                          "fix the config.json")
    return tuple(value)


def name_list(value, key: str, where: str) -> tuple[str, ...]:
    """A JSON list of module names (a single string counts as a list of one; null → empty)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: {key} must be a list of module names (strings), got {value!r:.120}; "
                          "fix the quantization_config")
    return tuple(value)


def grouped_kv_heads(heads: int, kv_heads: int, where: str) -> int:
    """``kv_heads`` when ``heads`` query heads split into whole groups over them (grouped-query attention: the engines
    and transformers give each KV head ``heads / kv_heads`` query heads); else ``ConfigError``."""
    if heads % kv_heads:
        raise ConfigError(f"{where}: num_attention_heads {heads} is not a multiple of num_key_value_heads {kv_heads} "
                          "(each KV head serves a whole group of query heads); fix the config.json")
    return kv_heads
