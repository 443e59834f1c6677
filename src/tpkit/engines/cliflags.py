"""Which command-line flags each engine release accepts (helper fix22, session 22).

The table ``engines/data/cli_flags.json`` is built by ``scripts/engine_flag_table.py`` from the released wheels
(``pip download --no-deps``; vLLM 0.5.5–0.34.0 ``vllm/engine/arg_utils.py`` + ``vllm/entrypoints/openai/cli_args.py``,
SGLang 0.2.15–0.5.23 ``sglang/srt/server_args.py`` + ``sglang/srt/arg_groups/**.py``): per flag, the spans
``[first, last]`` of the checked releases whose parser registers it (``add_argument``, ``BooleanOptionalAction``'s
``--no-`` twin, SGLang's ``A[T, Arg(...)]`` fields).

``accepts(engine, flag, version)``: True / False where the release is inside the checked range and the answer is
known (a release between two checked ones counts only when both neighbours agree), None otherwise (no version, a
release older than the oldest checked, a flag tpkit does not know).  A release newer than the newest checked one is
read as the newest.
"""

from __future__ import annotations

import json
from functools import lru_cache

from tpkit.engines import release_tuple

__all__ = ["accepts", "flag_releases", "first_release", "known_flags", "releases_checked", "spelling"]


@lru_cache(maxsize=1)
def _table() -> dict:
    from tpkit.pkgdata import data_text

    return json.loads(data_text(__file__, "tpkit.engines", "cli_flags.json"))


def releases_checked(engine: str) -> list[str]:
    """The releases of ``engine`` whose wheels the table was read from, oldest first."""
    return list(_table()[engine]["releases"])


def known_flags(engine: str) -> frozenset:
    """Every flag some checked release of ``engine`` registers."""
    return frozenset(_table()[engine]["flags"])


def flag_releases(engine: str, flag: str) -> list[list[str]]:
    """The spans ``[[first, last], ...]`` of checked releases that accept ``flag`` ([] when none does)."""
    return [list(s) for s in _table()[engine]["flags"].get(flag, [])]


def first_release(engine: str, flag: str) -> str | None:
    """The oldest checked release of ``engine`` that registers ``flag`` (None when none does)."""
    spans = flag_releases(engine, flag)
    return spans[0][0] if spans else None


@lru_cache(maxsize=256)
def _flags_at(engine: str, release: tuple) -> frozenset:
    spans = _table()[engine]["flags"]
    return frozenset(f for f, runs in spans.items()
                     if any(release_tuple(a) <= release <= release_tuple(b) for a, b in runs))


def _parses(flags: frozenset, flag: str) -> bool:
    """argparse's reading of ``flag``: the exact option, else a unique prefix of one (both engines build a plain
    ``argparse.ArgumentParser`` subclass with the default ``allow_abbrev=True``: vLLM ``FlexibleArgumentParser``,
    SGLang ``argparse.ArgumentParser``)."""
    return flag in flags or sum(1 for f in flags if f.startswith(flag)) == 1


def accepts(engine: str, flag: str, version) -> bool | None:
    """Whether ``engine`` release ``version`` accepts ``flag`` (``--name``, no value); None when unknown.

    ``version`` may be a range ``"A–B ..."`` (explain's inferred release): True only when both ends accept it."""
    if engine not in ("vllm", "sglang") or not version:
        return None
    head = str(version).split(" ")[0]
    ends = [p for p in head.split("–") if p] if "–" in head else [str(version)]
    answers = [_accepts_one(engine, flag, e) for e in ends]
    if False in answers:
        return False
    return True if answers and all(answers) else None


def _accepts_one(engine: str, flag: str, version: str) -> bool | None:
    r = release_tuple(version)
    if r is None:
        return None
    checked = sorted({release_tuple(v) for v in releases_checked(engine)})
    if r < checked[0]:
        return None
    below = max(t for t in checked if t <= r)
    above = min((t for t in checked if t >= r), default=below)
    lo, hi = _parses(_flags_at(engine, below), flag), _parses(_flags_at(engine, above), flag)
    return lo if lo == hi else None


def spelling(engine: str, version, *candidates: str) -> str | None:
    """The first of ``candidates`` that release ``version`` accepts; with no version (or an unknown release) the
    first candidate; None when the release is known to accept none of them."""
    answers = [accepts(engine, c, version) for c in candidates]
    for c, a in zip(candidates, answers):
        if a:
            return c
    if all(a is False for a in answers):
        return None
    return next(c for c, a in zip(candidates, answers) if a is None)
