"""``load_model``: a name or path → ``ModelSpec``, looking in this order:

    (a) an existing file            → read it as config.json
    (b) an existing directory       → its config.json (and note its *.safetensors for exact weights)
    (c) an HF id in the local cache → the cached config.json (offline; huggingface_hub's cache API)
    (d) the embedded catalog        → by HF id or short name, case-insensitive

Nothing found → ``UnknownModelError`` listing every place it looked and close catalog names.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from tpkit.errors import ConfigError, UnknownModelError
from tpkit.models.catalog import close_matches, find_entry
from tpkit.models.config import from_config_dict
from tpkit.models.config_file import gguf_refusal, read_config_file
from tpkit.models.hf_cache import expand_user, find_cached_config
from tpkit.models.spec import ModelSpec

__all__ = ["load_model"]


def load_model(name_or_path: str, *, hf_cache_dir: str | None = None) -> ModelSpec:
    """Resolve ``name_or_path`` (file, checkpoint dir, HF cache, catalog) into a ``ModelSpec``."""
    if not isinstance(name_or_path, str) or not name_or_path.strip():
        raise UnknownModelError(f"model must be a non-empty name or path, got {name_or_path!r}; pass an HF id, a "
                                "checkpoint directory or a config.json path")
    path = expand_user(name_or_path)
    kind, why = _path_kind(path)
    if name_or_path.strip() == "-" and kind not in ("file", "dir"):
        raise UnknownModelError("model '-': a model config is read from a file, not from standard input ('-' is "
                                "for logs, in `tpkit explain -`); save the config.json and pass its path, or pass "
                                "a checkpoint directory or an HF id")
    if kind == "file":
        return _with_extra(from_config_dict(read_config_file(path), name=name_or_path, source=str(path)),
                           checkpoint_dir=None)
    if kind == "dir":
        return _from_dir(path, name_or_path)
    repo_id = _as_repo_id(name_or_path)
    if repo_id != name_or_path:  # a pasted hub URL or a trailing slash: the repo id it names
        return load_model(repo_id, hf_cache_dir=hf_cache_dir)
    looked = [f"path {_short(str(path))}: {why}{_near_names(name_or_path, path) if why == 'does not exist' else ''}"]
    cached, note = find_cached_config(name_or_path, hf_cache_dir)
    looked.append(note)
    if cached is not None:
        return _from_dir(cached.parent, name_or_path)
    entry = find_entry(name_or_path)
    if entry is not None:
        spec = from_config_dict(entry.config, name=name_or_path, source=f"catalog:{entry.id}")
        spec = dataclasses.replace(spec, assumptions=spec.assumptions + tuple(entry.facts.get("assumptions", ())))
        return _with_extra(spec, checkpoint_dir=None, provenance=entry.verification_status,
                           catalog_id=entry.id, catalog_facts=entry.facts)
    _refuse_a_revision(name_or_path)
    matches = close_matches(name_or_path)
    looked.append("embedded catalog: no such HF id or short name"
                  + (f"; close matches: {', '.join(matches)}" if matches else ""))
    raise UnknownModelError(
        f"model {_short(name_or_path)!r} not found. Looked at:\n  - " + "\n  - ".join(looked)
        + "\nPass a config.json path, a checkpoint directory, or a catalog name (e.g. meta-llama/Llama-3.1-8B-Instruct;"
        " `tpkit plan --list-models` lists them)." + _download_hint(name_or_path)
    )


def _download_hint(name: str) -> str:
    """For a name shaped like an HF id (``org/model``): tpkit never downloads, so say how to fetch the one file it reads."""
    m = re.fullmatch(r"\s*([A-Za-z0-9][\w.\-]*)/([A-Za-z0-9][\w.\-]*)\s*", name)
    if not m:
        return ""
    org, model = m.groups()
    return (f"\ntpkit reads no network: for a model outside the catalog, fetch its config once, e.g. "
            f"`hf download {org}/{model} config.json --local-dir {model}` (older huggingface_hub: "
            f"`huggingface-cli download …`; a gated model needs your HF login), then pass the folder: "
            f"`tpkit plan {model} …`")


_HUB_URL = re.compile(r"^(?:https?://)?(?:www\.)?(?:huggingface\.co|hf\.co)/(?:models/)?"
                      r"([\w.\-]+/[\w.\-]+)(?:/(?:tree|blob|resolve)/.*)?/?$")


def _as_repo_id(name: str) -> str:
    """``https://huggingface.co/org/name`` (as pasted from a browser, also ``/tree/main``) and ``org/name/`` →
    ``org/name``; anything else unchanged (called only for a name that is not a path on this machine)."""
    text = name.strip()
    m = _HUB_URL.match(text)
    if m:
        return m.group(1)
    if text.endswith("/") and text.count("/") == 2 and not text.startswith(("/", ".", "~")):
        return text.rstrip("/")
    return name


def _refuse_a_revision(name: str) -> None:
    """``org/name@rev`` (or ``org/name:rev``): an HF id with a revision, which no lookup here selects; say what to
    pass instead (the id, or the revision's snapshot directory)."""
    m = re.fullmatch(r"\s*([\w.\-]+/[\w.\-]+)[@:]([\w.\-/]+)\s*", name)
    if not m:
        return
    repo, revision = m.groups()
    org, model = repo.split("/")
    raise UnknownModelError(
        f"model {_short(name)!r} names a revision ({revision!r} of {repo}), and tpkit does not select revisions: "
        f"it reads the config of the local HF cache's current snapshot or of its embedded catalog. Pass {repo}, or "
        f"that revision's config: its snapshot directory (~/.cache/huggingface/hub/models--{org}--{model}/"
        f"snapshots/COMMIT) or a config.json path")


def _path_kind(path: Path) -> tuple[str | None, str]:
    """("file" | "dir" | None, why not a path): an unusable name (too long, …) is not an error here."""
    try:
        if path.is_file():
            return "file", ""
        if path.is_dir():
            return "dir", ""
        if path.exists():  # /dev/null, a pipe such as bash's <(cat config.json)
            return None, "is not a regular file or folder (a device or a pipe); save the config.json to a file"
    except OSError as exc:
        return None, f"cannot be used as a path ({exc.strerror or exc})"
    return None, "does not exist"


_NEAR_SCAN = 5000
"""the most entries of a folder ``_near_names`` reads (a home folder of many files stays quick)"""


def _near_names(given: str, path: Path) -> str:
    """For a path typed with a slip (``mymodel/confg.json``, ``./mymdl``): the entries of its folder whose names
    are close to the one typed (helper tidy28, session 28), as "; near names there: …"; "" when the text is not
    path-like (no slash, no .json: an HF id or a catalog name) or its folder does not exist."""
    import difflib
    import itertools
    import os

    if "/" not in given and os.sep not in given and not given.lower().endswith(".json"):
        return ""
    try:
        if not path.parent.is_dir():
            return ""
        with os.scandir(path.parent) as entries:
            names = [e.name for e in itertools.islice(entries, _NEAR_SCAN)]
    except OSError:
        return ""
    close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.75)
    if not close:
        return ""
    return "; near names there: " + ", ".join(_short(str(path.parent / name)) for name in close)


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def _from_dir(directory: Path, name: str) -> ModelSpec:
    config = directory / "config.json"
    if config.is_dir():
        raise ConfigError(f"{config} is a directory, not a file; pass the checkpoint directory whose config.json is "
                          "the model's JSON config file, or that file itself")
    if not config.is_file():
        raise ConfigError(_no_config(directory))
    spec = from_config_dict(read_config_file(config), name=name, source=str(config))
    files = sorted(p.name for p in directory.glob("*.safetensors"))
    return _with_extra(spec, checkpoint_dir=str(directory), safetensors_files=files)


def _no_config(directory: Path) -> str:
    """Why a directory without config.json is no MODEL: a GGUF download and a diffusers pipeline are named as such."""
    ggufs = sorted(p.name for p in directory.glob("*.gguf"))
    if ggufs:
        return gguf_refusal(f"directory {directory} has no config.json; its {ggufs[0]!r}"
                            + (f" (and {len(ggufs) - 1} more)" if len(ggufs) > 1 else ""))
    if (directory / "model_index.json").is_file():
        return (f"directory {directory} has no config.json but a model_index.json: a diffusers pipeline (image or "
                "video generation), not a text model SGLang or vLLM serves; pass an LLM's checkpoint directory, "
                "config.json or HF id")
    return (f"directory {directory} has no config.json; pass the checkpoint directory that holds config.json "
            "(and *.safetensors), or the config file itself")


def _with_extra(spec: ModelSpec, **items) -> ModelSpec:
    return dataclasses.replace(spec, extra={**spec.extra, **items})
