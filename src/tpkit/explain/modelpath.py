"""The model of an explained run (``explain.context``): ``--model``, else the log's model path through
``tpkit.models.load_model`` (path, HF cache, catalog), else that path's last components looked up by name (a path
written on another machine: HF-cache and ModelScope download layouts read back to the repo id).
"""

from __future__ import annotations

from tpkit.errors import TpkitError
from tpkit.explain.refusals import READ_FAILED
from tpkit.logs import ParsedLog


def _load_model(name: str):
    from tpkit.models import load_model

    return load_model(name)


def resolve_model(parsed: ParsedLog, flags: dict, notes: list) -> tuple[object | None, str]:
    """(the run's model config, where it came from): ``--model``, else the log's model path (locally, by its tail)."""
    given = flags.get("model")
    logged = parsed.run.value("model")
    if given:
        model = _load_model(given)  # a bad --model is the user's error (exit 2)
        _other_model_note(str(given), logged, notes)
        return model, f"--model {given}"
    if logged:
        try:
            return _load_model(str(logged)), f"the log's model path {logged!r}"
        except TpkitError:
            found = _by_path_tail(str(logged), notes)
            if found is not None:
                return found
            notes.append(f"the log's model {logged!r} is not on this machine nor in the catalog: pass --model "
                         "(an HF id, a model dir or a config.json) to get the KV cell size")
        except READ_FAILED as exc:  # a log path must never crash the explanation
            notes.append(f"the log's model {logged!r} could not be read ({type(exc).__name__})")
    return None, "unknown"


def _other_model_note(given: str, logged, notes: list) -> None:
    """A note when ``--model`` and the log's model path are two different catalog models (helper nc20, session 20:
    ``--model deepseek-ai/DeepSeek-V3`` on a Kimi-K2.5 log replaced it without a word).  Only catalog ids are
    compared: a local copy (``/models/kimi``) of the logged model is what ``--model`` is for."""
    if not logged:
        return
    from tpkit.models.catalog import find_entry

    parts = [p for p in str(logged).replace("\\", "/").rstrip("/").split("/") if p]
    ours = find_entry(given)
    theirs = next((e for e in (find_entry(t) for t in (str(logged), *_path_tails(parts)) if t) if e is not None), None)
    if ours is not None and theirs is not None and ours.id != theirs.id:
        notes.append(f"--model {given} is not the model the log names ({logged!r}, the catalog's {theirs.id}): "
                     f"{ours.id}'s config is used; leave --model out to explain the run as logged")


def _by_path_tail(logged: str, notes: list) -> tuple[object, str] | None:
    """The model a path from another machine names by its last components: ``/data/models/Qwen/Qwen3-8B`` →
    ``Qwen/Qwen3-8B`` (then ``Qwen3-8B``), looked up in this machine's HF cache and the embedded catalog.  Used only
    when the whole path is not here; a note says the match is by name (a fine-tune saved under its base model's
    name would be read as the base model), and ``--model`` overrides it."""
    from tpkit.models.catalog import find_entry

    parts = [p for p in logged.replace("\\", "/").rstrip("/").split("/") if p]
    if len(parts) < 2 and not logged.startswith(("/", "~", ".")):
        return None  # an HF id or a bare name: load_model has already looked it up as such
    for tail in _path_tails(parts):
        try:
            model = _load_model(tail)
        except READ_FAILED:  # TpkitError included: the name is neither cached nor in the catalog
            continue
        entry = find_entry(tail)
        where = f"the catalog's {entry.id}" if entry is not None else f"{tail!r} in this machine's HF cache"
        notes.append(f"the log's model path {logged!r} is not on this machine; its name {tail!r} is {where}: "
                     "used, by name (pass --model if the run served a fine-tune or another build)")
        return model, f"the log's model path {logged!r}, by its name {tail!r}"
    return None


def _path_tails(parts: list[str]) -> list[str]:
    """The names a path's last components may be, in the order tried: the last two, then the last.

    Two download layouts are read back to the repo id they were written from:
    - the HF hub cache ``…/models--{org}--{name}/snapshots/{revision}``: the repo folder is
      ``huggingface_hub.file_download.repo_folder_name`` ("models" + "--".join of the id; read in
      huggingface_hub 2.4.0), so a path ending in a snapshot reads as that folder, and ``models--org--name`` as
      ``org/name``;
    - ModelScope's masked directory: ``modelscope.hub.utils.utils.get_model_masked_directory`` (read in
      modelscope 1.40.2) stores ``Qwen/Qwen3-0.6B`` as ``Qwen/Qwen3-0___6B``, so a name with ``___`` is also tried
      with ``.`` (after the name as written)."""
    folders = [i for i, p in enumerate(parts) if p.startswith("models--")]
    if folders and parts[folders[-1] + 1:folders[-1] + 2] == ["snapshots"]:
        parts = parts[:folders[-1] + 1]  # a snapshot of an HF-cache repo folder: the folder names the repo
    tails = ["/".join(parts[-2:]), parts[-1]] if len(parts) >= 2 else [parts[-1]]
    out = []
    for tail in tails:
        if tail.startswith("models--"):  # an HF-cache folder name: models--org--name
            tail = tail[len("models--"):].replace("--", "/", 1)
        out.append(tail)
        if "___" in tail:
            out.append(tail.replace("___", "."))
    return list(dict.fromkeys(out))
