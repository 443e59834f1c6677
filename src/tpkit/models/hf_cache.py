"""Find a model's config.json in the local Hugging Face cache, offline only.

    in:  an HF repo id and an optional cache dir
    out: ``(path to config.json or None, a sentence saying where it looked)``

``huggingface_hub`` is imported lazily and only its cache API is used (``try_to_load_from_cache``);
nothing here touches the network.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["find_cached_config", "looks_like_repo_id", "default_cache_dir"]

_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def looks_like_repo_id(name: str) -> bool:
    """``org/name`` with HF's allowed characters."""
    return bool(_REPO_ID.match(name))


def default_cache_dir() -> Path:
    """The hub cache folder as huggingface_hub resolves it (HF_HUB_CACHE, its legacy name
    HUGGINGFACE_HUB_CACHE, HF_HOME/hub, XDG, ~/.cache)."""
    for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(name):
            return Path(os.environ[name]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    xdg = os.environ.get("XDG_CACHE_HOME") or "~/.cache"
    return Path(xdg).expanduser() / "huggingface" / "hub"


def find_cached_config(repo_id: str, cache_dir: str | None) -> tuple[Path | None, str]:
    """Path of ``config.json`` of ``repo_id`` in the HF cache (newest cached revision), and a note."""
    if looks_like_repo_id(repo_id):
        # Fast path: a repo the cache has never seen has no ``models--org--name`` folder; skip the
        # huggingface_hub import (≈ 0.15 s) in that case.
        root = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
        try:
            cached = (root / ("models--" + repo_id.replace("/", "--"))).is_dir()
        except OSError as exc:  # e.g. a name longer than the file system allows
            return None, f"HF cache {root}: skipped ({exc.strerror or exc})"
        if not cached:
            return None, f"HF cache {root}: no cached config.json for {repo_id:.120}"
    if not looks_like_repo_id(repo_id):  # before the huggingface_hub import (≈ 0.15 s): nothing to look up
        where = cache_dir or default_cache_dir()
        return None, f"HF cache {where}: skipped ({repo_id!r:.120} is not an org/name repo id)"
    try:
        from huggingface_hub import try_to_load_from_cache
        from huggingface_hub.constants import HF_HUB_CACHE
    except ImportError:
        return None, "HF cache: skipped (huggingface_hub is not installed; pip install 'tpkit[hf]')"
    where = cache_dir or HF_HUB_CACHE
    try:
        found = try_to_load_from_cache(repo_id, "config.json", cache_dir=cache_dir)
    except ValueError as exc:  # HFValidationError: a name the hub would refuse
        return None, f"HF cache {where}: skipped ({repo_id!r:.120} is not a valid repo id: {exc})"
    if isinstance(found, str):
        return Path(found), f"HF cache {where}: found {found}"
    return None, f"HF cache {where}: no cached config.json for {repo_id:.120}"
