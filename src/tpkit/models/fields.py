"""Optional whole-number fields of an HF config, read with messages that name the field and the file."""

from __future__ import annotations

from tpkit.errors import ConfigError

__all__ = ["optional_int"]


def optional_int(text: dict, key: str, where: str, *, default: int | None, minimum: int = 0) -> int | None:
    """``text[key]`` as a whole number ≥ ``minimum``; ``default`` when the key is absent or null.

    An integral float (``2.0``) is accepted; a string, a bool or a fraction raises ``ConfigError``.
    """
    value = text.get(key)
    if value is None:
        return default
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"{where}: {key} must be a whole number ≥ {minimum}, got {value!r}; "
                          "fix the config.json (HF writes these fields as plain integers)")
    return value
