"""SGLang releases whose memory rules tpkit models, and how a version string maps to a rule era.

Rules change only at a few releases (read in each release wheel: ``server_args.py`` / ``arg_groups/memory_hook.py``
defaults, ``kv_cache_configurator.py`` request slots, ``custom_all_reduce.py dispatch_custom_allreduce``); a version
selects the newest era that starts at or before it.  Anything newer than the latest examined release uses the latest
rules (and the plan says so in a warning).
"""

from __future__ import annotations

import re
from functools import lru_cache

from tpkit.engines import release_tuple
from tpkit.errors import PlanInputError

__all__ = ["LATEST", "ERAS", "RELEASE_DATES", "parse_version", "release_key", "rule_era", "is_newer_than_latest",
           "at_least", "at_least_post", "newest_by_date", "attention_dp_size", "PP_SPLIT_EACH_LAST", "sglang_pp_split"]

LATEST = "0.5.23"
"""the newest SGLang release whose rules were examined"""

ERAS: tuple[tuple[tuple[int, int, int], str], ...] = (
    ((0, 2, 15), "0.2.15"),
    ((0, 3, 6), "0.3.6"),
    ((0, 4, 3), "0.4.3"),
    ((0, 4, 6), "0.4.6"),
    ((0, 4, 10), "0.4.10"),
    ((0, 5, 3), "0.5.3"),
    ((0, 5, 10), "0.5.10"),
    ((0, 5, 15), "0.5.15"),
    ((0, 5, 20), "0.5.20"),
)
"""(first release, era name): each era keeps its rules until the next one starts"""

@lru_cache(maxsize=256)
def parse_version(text: str) -> tuple[int, int, int]:
    """``"0.5.23"`` → ``(0, 5, 23)``; ``"0.5.0rc0"`` → ``(0, 5, 0)``; ``"0.4.9.post2"`` → ``(0, 4, 9)``."""
    release = release_tuple(text)
    if release is None:
        raise PlanInputError(f"--engine-version: cannot read {text!r} as an SGLang version; "
                             f"write it like {LATEST!r} or '0.4.10'")
    if re.search(r":\s*[vV][01]\s*$", str(text)):  # vLLM's engine suffix (0.8.2:v0); SGLang has one engine
        raise PlanInputError(f"--engine-version: {text!r} ends in vLLM's engine suffix (':v0' / ':v1' picks vLLM's V0 "
                             f"or V1 engine); SGLang has one engine: give the release alone, e.g. {LATEST!r}, or "
                             "--engine vllm")
    return release


def release_key(text: str) -> tuple[int, int, int, int]:
    """``"0.4.6.post3"`` → ``(0, 4, 6, 3)``; no ``.postN`` → post 0.  For rules whose boundary is a post release,
    which ``parse_version`` folds into its base release (the one reader of SGLang's post numbers)."""
    found = re.search(r"post(\d+)", str(text))
    return (*parse_version(text), int(found.group(1)) if found else 0)


@lru_cache(maxsize=256)
def rule_era(version: str) -> str:
    """The era name (first release of the era) whose rules apply to ``version``."""
    parsed = parse_version(version)
    era = None
    for first, name in ERAS:
        if parsed >= first:
            era = name
    if era is None:
        raise PlanInputError(
            f"--engine-version {version}: SGLang releases before {ERAS[0][1]} are not modelled; "
            f"use {ERAS[0][1]} or later (latest examined: {LATEST})"
        )
    return era


@lru_cache(maxsize=1024)
def era_at_least(era: str, first: str) -> bool:
    """True when ``era`` starts at or after release ``first``."""
    return parse_version(era) >= parse_version(first)


def is_newer_than_latest(version: str) -> bool:
    """True for versions after the newest examined release (their rules may differ)."""
    return parse_version(version) > parse_version(LATEST)


@lru_cache(maxsize=2048)
def at_least(version: str, first: str) -> bool:
    """True when release ``version`` is ``first`` or later (for rules that change inside an era: issue 11
    found boundaries at 0.5.12, 0.5.14, 0.5.16–0.5.19 by reading every release's wheel)."""
    return parse_version(version) >= parse_version(first)


def at_least_post(version: str, first: str) -> bool:
    """``at_least`` with post releases counted (``release_key``): for rules whose boundary is a post release, e.g.
    ``engines.sglang.mla_copies.CUDA_BF16_DEQUANT_FROM`` = 0.4.6.post3, which ``at_least`` would read as 0.4.6."""
    return release_key(version) >= release_key(first)


RELEASE_DATES: tuple[tuple[str, str, str], ...] = (
    ("0.3.6", "0.3.5", "2024-11-22"),
    ("0.4.3", "0.4.2", "2025-02-14"),
    ("0.4.5", "0.4.4", "2025-04-07"),
    ("0.4.6", "0.4.5", "2025-04-27"),
    ("0.4.7", "0.4.6.post5", "2025-06-10"),  # helper ex38: 0.4.7 changes the >80 GiB fractions (wheel read 2026-12-08)
    ("0.4.9", "0.4.8", "2025-07-06"),
    ("0.4.10", "0.4.9", "2025-07-31"),
    ("0.5.3", "0.5.2", "2025-10-06"),
    ("0.5.6", "0.5.5", "2025-12-03"),
    ("0.5.10", "0.5.9", "2026-04-05"),
    ("0.5.15", "0.5.14", "2026-07-10"),
    ("0.5.20", "0.5.19", "2026-09-18"),
)
"""(release that starts a rule era or changes a rule, the release before it, its date): the build date of the
files in the release wheel (``pip download --no-deps sglang==X``; ``unzip -l``, read 2026-12-01).  A log dated
before a release's date cannot come from it nor from a later one."""


def newest_by_date(version: str, date: str | None) -> tuple[str, str]:
    """(``version`` capped to what a log dated ``date`` (YYYY-MM-DD) can run, why in words; "" when not capped):
    the release before the first one of ``RELEASE_DATES`` dated after ``date``, when ``version`` is that release
    or later.  A log from the main branch between two releases holds the older one's rules unless a change
    landed before the next release: the cap names the release it assumes."""
    if not date:
        return version, ""
    for first, before, released in RELEASE_DATES:
        if date < released and parse_version(version) >= parse_version(first):
            return before, f"the log is dated {date}, before SGLang {first} ({released}): rules of {before}"
    return version, ""


def attention_dp_size(version: str, *, tp: int, dp: int, dp_attention: bool) -> int:
    """SGLang's attention DP size for ``--enable-dp-attention``.

    ``ServerArgs.__post_init__`` (``python/sglang/srt/server_args.py``): up to 0.4.4 (read in 0.4.1, 0.4.2, 0.4.3,
    0.4.4) ``--enable-dp-attention`` sets ``dp_size = tp_size`` whatever ``--dp`` says, so attention runs with TP 1
    and its weights are whole on every GPU; from 0.4.5 (read in 0.4.5, 0.4.6, 0.5.10) ``--dp`` is used as given
    (0.4.5 asserts it is > 1).  Without DP attention ``dp`` is returned unchanged."""
    if dp_attention and not at_least(version, "0.4.5"):
        return tp
    return dp


PP_SPLIT_EACH_LAST = "0.5.6"
"""first SGLang release whose ``get_pp_indices`` (``srt/distributed/utils.py``) gives the last num_layers % pp
stages one more layer each; 0.4.4.post2 – 0.5.5 give the last stage the whole remainder (read in the 0.4.4.post2,
0.5.3.post3, 0.5.4, 0.5.5, 0.5.6 and 0.5.23 wheels; ``tpkit.models.layout.PP_SPLITS``; helper ppl16)"""


def sglang_pp_split(version: str = LATEST, parallel=None) -> str:
    """The name of SGLang ``version``'s layer split over PP stages (``tpkit.models.layout.PP_SPLITS``), or the
    hand-set ``SGLANG_PP_LAYER_PARTITION`` a ``parallel`` carries (``layer_partition``; read by
    ``get_pp_indices`` in 0.4.4.post2 – 0.5.23)."""
    if parallel is not None and getattr(parallel, "layer_partition", None) is not None and parallel.pp > 1:
        return ",".join(map(str, parallel.layer_partition))  # tpkit.models.layout.partition_split
    return "sglang" if at_least(version, PP_SPLIT_EACH_LAST) else "sglang-last"
