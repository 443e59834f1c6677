"""Release-range arithmetic over version texts: the releases a text names, a format's range, their intersection,
and the releases a pre-release build sits between (split out of :mod:`tpkit.logs.engine`, which re-exports every
public name)."""

from __future__ import annotations

import re

from tpkit.logs.lazyre import lazy

__all__ = ["releases_in", "release_range", "pre_release_ends", "intersect_ranges"]


def releases_in(version: str | None) -> list[str]:
    """The releases an explanation's version text names, in its order: "0.4.6–0.5.3" → ["0.4.6", "0.5.3"], a bare
    release → itself, None → [].  The one reader of a version text's releases (``explain.context``: rules_version,
    the SGLang tag era, the compile-cache note; ``explain.sgrelease``; ``explain.vdiagnose``).  Text in parentheses
    (releases ruled out) is ignored, and so is a PEP 440 local label ("+…", PEP 440 "Local version identifiers":
    NVIDIA's container build prints 'vLLM API server version 0.13.0+faa43dbf.nv26.01', whose '26.01' is the
    container's YY.MM, not a release; a dev build's '+gbda9d0535' likewise)."""
    text = re.sub(r"\(.*?\)", "", version or "")
    text = re.sub(r"\+[\w.]+", "", text)
    return re.findall(r"\d+\.\d+(?:\.\d+)?", text)


_RANGE = lazy(r"^\s*(≥|≤)?\s*(\d+\.\d+(?:\.[\dx]+)?)(?:\.post\d+)?(?:\s*–\s*(\d+\.\d+(?:\.[\dx]+)?))?")
"""a range's ends; a post release ("0.4.8.post1") is read as its base release (0.4.8), which widens a lower end by
the base release and its earlier post releases and leaves an upper end's base release whole"""


def _release(text: str, upper: bool) -> tuple[int, int, int]:
    parts = text.split(".")
    nums = [int(p) for p in parts if p.isdigit()]
    if len(nums) == 3:
        return nums[0], nums[1], nums[2]
    return nums[0], nums[1], 999 if upper else 0


def release_range(text: str) -> tuple[tuple[int, int, int], tuple[int, int, int]] | None:
    """(first, last) release a format's range text allows ("≥ 0.18 (…)", "0.8–0.27 (…)", "≤ 0.10", "0.5.23"):
    a two-part release covers all its patch releases; None when the text names no range."""
    m = _RANGE.match(text)
    if not m:
        return None
    op, a, b = m.groups()
    if op == "≥":
        return _release(a, False), (999, 999, 999)
    if op == "≤":
        return (0, 0, 0), _release(a, True)
    return _release(a, False), _release(b or a, True)


def pre_release_ends(text: str) -> tuple[str, str] | None:
    """(the release before, the release) for a printed pre-release or development build of X.Y.Z
    ("0.20.1rc1.dev23+gde3da0b97", "0.11.0rc2", "0.10.1.dev101+gbda9d0535"): PEP 440 orders ``X.Y.ZrcN``,
    ``X.Y.ZaN``, ``X.Y.ZbN`` and ``X.Y.Z.devN`` before X.Y.Z itself, and vLLM's builds take such numbers from the
    last tag (setuptools-scm), so the build holds some of X.Y.Z's changes and perhaps not all: its rules are those of
    X.Y.Z or of the release before (X.Y.(Z−1); for X.Y.0 the X.(Y−1).0 rules).  None for a release, a post release
    or a version before 0.2 (vLLM releases tpkit does not model; setuptools-scm's ``0.1.devN`` of a source tree
    without tags and a fork's own ``0.1.x.devN`` fall here: the line formats decide), or a major release's X.0.0
    candidates (no minor before it to name).

    A development build counted from a release-candidate tag (``X.Y.ZrcN.devM``: setuptools-scm's next-dev number
    after the tag ``vX.Y.Zrc(N−1)``) is a nightly of vLLM's main branch, and vLLM builds its releases on release
    branches that main does not reach, so main keeps counting from that rc tag past X.Y.Z and up to the next rc
    tag on main: vllm-project/vllm issue #25476 (2025-09-23: the main nightly '0.10.2rc3.dev377' came after the
    0.10.2 release, "The release 0.10.2 does not come from any branch"; again 2025-12-10), docker/model-runner pull
    request #735 (2026-03-05: the nightly 'vllm 0.16.1rc1.dev268' carries Qwen3.5 support "on the main branch ahead
    of 0.17.0", which no 0.16.x release has), vllm pull request #57295 (2026-09-17: main reports
    '0.29.1rc1.dev263').  Such a build may hold changes of the next minor release: its upper end is X.(Y+1).0."""
    m = re.match(r"^\s*v?(\d+)\.(\d+)\.(\d+)(rc\d+\.?dev|rc|a|b|\.?dev)\d*", text)
    if not m:
        return None
    a, b, c = (int(g) for g in m.groups()[:3])
    if (a, b) < (0, 2) or (c == 0 and (a, b - 1) < (0, 2)) or (b, c) == (0, 0):
        return None  # X.0.0: the release before is the newest of major X−1, which the text does not give
    upper = f"{a}.{b + 1}.0" if m.group(4).startswith("rc") and "dev" in m.group(4) else f"{a}.{b}.{c}"
    return (f"{a}.{b}.{c - 1}" if c else f"{a}.{b - 1}"), upper


def _show(r: tuple[int, int, int], upper: bool) -> str:
    return f"{r[0]}.{r[1]}" if r[2] == (999 if upper else 0) else f"{r[0]}.{r[1]}.{r[2]}"


def intersect_ranges(texts: list[str]) -> str | None:
    """The releases every format allows, as "0.18–0.27" ("≥ 0.18" when open above), or None when the ranges do
    not meet (formats that disagree: a pasted mix) or none can be read."""
    ranges = [r for r in (release_range(t) for t in texts) if r is not None]
    if len(ranges) < 2:
        return None
    lo, hi = max(r[0] for r in ranges), min(r[1] for r in ranges)
    if lo > hi:
        return None
    if hi[0] == 999:
        return f"≥ {_show(lo, False)}"
    return _show(lo, False) if (lo[0], lo[1]) == (hi[0], hi[1]) and lo[2] == 0 and hi[2] == 999 else \
        f"{_show(lo, False)}–{_show(hi, True)}"
