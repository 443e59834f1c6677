"""The embedded model catalog (``data/catalog.json``, built by ``scripts/build_catalog.py``).

    in:  an HF id (``moonshotai/Kimi-K2.5``) or a short name (``Kimi-K2.5``), any case
    out: a ``CatalogEntry`` whose ``config`` is an HF-style config dict, plus provenance and facts
"""

from __future__ import annotations

import json
from dataclasses import field
from functools import lru_cache

from tpkit.errors import ConfigError
from tpkit.pkgdata import data_text
from tpkit.records import dataclass

__all__ = ["CatalogEntry", "catalog_entries", "find_entry", "close_matches"]

_ENTRY_KEYS = {"id", "short_name", "verification_status", "config", "facts"}
_TOP_KEYS = {"schema", "generated_from", "generator", "models"}


@dataclass(frozen=True, kw_only=True, slots=True)
class CatalogEntry:
    """One embedded model."""

    id: str
    """Hugging Face repo id"""
    short_name: str
    """repo name without the org"""
    verification_status: str
    """how the config was checked (provenance from the research catalog)"""
    config: dict = field(default_factory=dict)
    """HF-style config.json dict"""
    facts: dict = field(default_factory=dict)
    """parameter counts (count) and checkpoint sizes (bytes) from the research catalog"""


@lru_cache(maxsize=1)
def catalog_entries() -> tuple[CatalogEntry, ...]:
    """All embedded models, read once from the package data."""
    raw = json.loads(data_text(__file__, __package__, "catalog.json"))
    _check_keys(raw, _TOP_KEYS, "catalog.json")
    entries = []
    for item in raw["models"]:
        _check_keys(item, _ENTRY_KEYS, f"catalog.json entry {item.get('id')!r}")
        entries.append(CatalogEntry(**item))
    return tuple(entries)


def _check_keys(obj: dict, allowed: set[str], where: str) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise ConfigError(f"{where}: unknown keys {unknown}; allowed {sorted(allowed)} (rebuild with "
                          "scripts/build_catalog.py)")


def find_entry(name: str) -> CatalogEntry | None:
    """The entry whose HF id or short name equals ``name`` (case-insensitive), else ``None``."""
    key = name.strip().lower()
    for entry in catalog_entries():
        if key in (entry.id.lower(), entry.short_name.lower()):
            return entry
    return None


def close_matches(name: str, *, n: int = 4) -> list[str]:
    """Catalog ids that look like ``name`` (difflib on ids and short names)."""
    by_key = {}
    for entry in catalog_entries():
        by_key[entry.id.lower()] = entry.id
        by_key[entry.short_name.lower()] = entry.id
    key = name.strip().lower()
    import difflib  # only for a name not found

    hits = difflib.get_close_matches(key, list(by_key), n=n * 2, cutoff=0.5)
    # a fragment such as "mixtral" or "405b" is too short for difflib: ids that contain it come first
    contains = [k for k in by_key if len(key) >= 3 and key in k] if key else []
    # a catalog id with a suffix added ("Qwen/Qwen3-8B-Instruct", "…-AWQ"): the ids inside it, longest first (difflib
    # ranked four longer ids above Qwen/Qwen3-8B; helper rev11, 2026-12-05)
    inside = sorted((k for k in by_key if len(k) >= 5 and k in key and k != key), key=len, reverse=True)
    return list(dict.fromkeys(by_key[h] for h in contains + inside + hits))[:n]
