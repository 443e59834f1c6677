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

__all__ = ["find_cached_config", "looks_like_repo_id", "default_cache_dir", "expand_user"]

_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def looks_like_repo_id(name: str) -> bool:
    """``org/name`` with HF's allowed characters."""
    return bool(_REPO_ID.match(name))


def expand_user(text: str) -> Path:
    """``Path(text).expanduser()``, or the path as written when it names a user this machine does not know
    (``~nosuchuser/model``: pathlib raises RuntimeError, which reached the user as a traceback)."""
    try:
        return Path(text).expanduser()
    except RuntimeError:
        return Path(text)


def default_cache_dir() -> Path:
    """The hub cache folder as huggingface_hub resolves it (HF_HUB_CACHE, its legacy name
    HUGGINGFACE_HUB_CACHE, HF_HOME/hub, XDG, ~/.cache)."""
    for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(name):
            return expand_user(os.environ[name])
    if os.environ.get("HF_HOME"):
        return expand_user(os.environ["HF_HOME"]) / "hub"
    xdg = os.environ.get("XDG_CACHE_HOME") or "~/.cache"
    return expand_user(xdg) / "huggingface" / "hub"


def find_cached_config(repo_id: str, cache_dir: str | None) -> tuple[Path | None, str]:
    """Path of ``config.json`` of ``repo_id`` in the HF cache (newest cached revision), and a note."""
    if looks_like_repo_id(repo_id):
        # Fast path: a repo the cache has never seen has no ``models--org--name`` folder; skip the
        # huggingface_hub import (≈ 0.15 s) in that case.
        root = expand_user(cache_dir) if cache_dir else default_cache_dir()
        try:
            cached = (root / _folder(repo_id)).is_dir()
            if not cached:  # the Hub's ids are case-insensitive: 'qwen/qwen3-8b' is the 'Qwen/Qwen3-8B' downloaded
                same = _case_insensitive(root, repo_id)
                cached, repo_id = same is not None, same or repo_id
        except OSError as exc:  # e.g. a name longer than the file system allows
            return None, f"HF cache {root}: skipped ({exc.strerror or exc})"
        if not cached:
            return None, f"HF cache {root}: no cached config.json for {repo_id:.120}"
    if not looks_like_repo_id(repo_id):  # before the huggingface_hub import (≈ 0.15 s): nothing to look up
        where = cache_dir or default_cache_dir()
        return None, f"HF cache {where}: skipped ({repo_id!r:.120} is not an org/name repo id)"
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # a plain install: read the cache's own layout
        return _without_hub(expand_user(cache_dir) if cache_dir else default_cache_dir(), repo_id)
    # the folder resolved now, not huggingface_hub's HF_HUB_CACHE constant: that one is read from the environment
    # once, when huggingface_hub is first imported, and misses a later change (HF_HUB_CACHE set in-process)
    where = str(expand_user(cache_dir) if cache_dir else default_cache_dir())
    try:
        found = try_to_load_from_cache(repo_id, "config.json", cache_dir=where)
    except ValueError as exc:  # HFValidationError: a name the hub would refuse
        return None, f"HF cache {where}: skipped ({repo_id!r:.120} is not a valid repo id: {exc})"
    if isinstance(found, str):
        return Path(found), f"HF cache {where}: found {found}"
    # no refs/main (a download pinned to a commit, ``hf download … --revision <sha>``, writes none): the one snapshot
    # that holds a config.json, as a plain install reads the cache (helper ux23: found without huggingface_hub, "no
    # cached config.json" with it)
    path, note = _without_hub(Path(where), repo_id)
    if path is None:
        return None, note
    return path, f"HF cache {where}: found {path} (the one snapshot with a config.json; refs/main names none)"


def _folder(repo_id: str) -> str:
    return "models--" + repo_id.replace("/", "--")


def _case_insensitive(root: Path, repo_id: str) -> str | None:
    """The cached repo whose id equals ``repo_id`` up to case (the Hub resolves ids so), or None."""
    want = _folder(repo_id).lower()
    if not root.is_dir():
        return None
    for entry in root.iterdir():
        if entry.name.lower() == want and entry.is_dir():
            return entry.name[len("models--"):].replace("--", "/", 1)
    return None


def _without_hub(root: Path, repo_id: str) -> tuple[Path | None, str]:
    """``config.json`` of ``repo_id`` read from the hub cache's layout without ``huggingface_hub`` (a plain install):
    ``models--ORG--NAME/refs/main`` names the snapshot ``snapshots/<commit>/`` that holds the files, as
    ``huggingface_hub.try_to_load_from_cache`` reads it; without that ref, the one snapshot that has a config.json."""
    folder = root / _folder(repo_id)
    ref = folder / "refs" / "main"
    try:
        commit = ref.read_text(encoding="utf-8", errors="replace").strip() if ref.is_file() else None
        found = folder / "snapshots" / commit / "config.json" if commit else None
        if found is None or not found.is_file():
            configs = sorted((folder / "snapshots").glob("*/config.json"))
            found = configs[0] if len(configs) == 1 else None
            if found is None:
                why = (f"{len(configs)} snapshots hold one and refs/main names none of them; pass the snapshot folder"
                       if configs else "no snapshot holds one")
                return None, f"HF cache {root}: no cached config.json for {repo_id:.120} ({why})"
    except OSError as exc:
        return None, f"HF cache {root}: skipped ({exc.strerror or exc})"
    return found, f"HF cache {root}: found {found} (read without huggingface_hub)"
