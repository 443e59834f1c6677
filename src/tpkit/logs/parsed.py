"""The result of reading a log: :class:`ParsedLog`, per-rank views and what was not found.

``parse_log(text_or_bytes)`` never raises on log content; bad *arguments* (an unknown ``--rank``) raise
:class:`RankNotFoundError`, a :class:`~tpkit.errors.TpkitError`.
"""

from __future__ import annotations

from tpkit.errors import TpkitError
from tpkit.logs.anchors import Anchor
from tpkit.logs.engine import EngineGuess
from tpkit.logs.failures import ROOT_KINDS, Failure
from tpkit.logs.prefix import MAIN, RankKey
from tpkit.logs.run import Run
from tpkit.logs.settings import Setting
from tpkit.records import dataclass

__all__ = ["ParsedLog", "RankView", "Missing", "RankNotFoundError", "GLOBAL_ANCHORS", "SCHEMA", "HEADROOM_ANCHORS"]

SCHEMA = "tpkit.logs/1"
GLOBAL_ANCHORS = frozenset({"kv_tokens", "max_concurrency", "concurrency_len", "gpu_blocks", "cpu_blocks"})
"""vLLM prints these once per engine (minimum over workers), not per worker"""
HEADROOM_ANCHORS = ("load_end_avail", "available_kv", "pool_end_avail", "load_begin_avail", "graph_end_avail")
"""free-memory figures that rank the ranks: the tightest rank has the smallest"""


class RankNotFoundError(TpkitError):
    """``--rank`` names a rank the log does not show."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Missing:
    """Something the reader looked for and did not find."""

    what: str
    """e.g. ``"weights"``, ``"engine_version"``"""
    looked_for: str
    """the lines or keys it searched"""

    def to_dict(self) -> dict:
        return {"what": self.what, "looked_for": self.looked_for}


@dataclass(frozen=True, kw_only=True, slots=True)
class RankView:
    """The anchors of one rank, plus the engine-wide ones it did not print itself."""

    rank: RankKey
    anchors: tuple[Anchor, ...]
    reason: str
    """why this rank: asked for, or the tightest (with the figure that decided)"""

    def all(self, name: str, group: str | None = None) -> tuple[Anchor, ...]:
        return tuple(a for a in self.anchors if a.name == name and (group is None or a.group == group))

    def last(self, name: str, group: str | None = None) -> Anchor | None:
        found = self.all(name, group)
        return found[-1] if found else None

    def to_dict(self) -> dict:
        return {"rank": self.rank.to_dict(), "reason": self.reason, "anchors": [a.to_dict() for a in self.anchors]}


@dataclass(frozen=True, kw_only=True, slots=True)
class ParsedLog:
    """Everything read from one log."""

    engine: EngineGuess
    run: Run
    anchors: tuple[Anchor, ...]
    """every memory number, in log order"""
    failures: tuple[Failure, ...]
    """errors and warnings, in log order (repeats merged, see ``occurrences``)"""
    ranks: tuple[RankKey, ...]
    """every process seen, in order of first appearance"""
    settings: tuple[Setting, ...]
    """every setting read, from every source"""
    missing: tuple[Missing, ...]
    notes: tuple[str, ...]
    """what reading had to repair or skip (bad bytes, clipped lines, several start-ups …)"""
    line_count: int

    @property
    def status(self) -> str:
        """``"failed"`` when the log shows an error, else ``"ok"``."""
        return "failed" if any(f.severity == "error" for f in self.failures) else "ok"

    @property
    def primary_failure(self) -> Failure | None:
        """The error that names a cause (OOM, not enough KV, imbalance …), earliest first; else any error."""
        errors = [f for f in self.failures if f.severity == "error"]
        rooted = [f for f in errors if f.kind in ROOT_KINDS]
        pool = rooted or errors
        return min(pool, key=lambda f: (ROOT_KINDS.index(f.kind) if f.kind in ROOT_KINDS else 99, f.line_no),
                   default=None)

    # -- ranks -------------------------------------------------------------------------------------
    def _candidate_ranks(self) -> list[RankKey]:
        per_rank = {a.rank.label for a in self.anchors if a.name not in GLOBAL_ANCHORS}
        ranks = [r for r in self.ranks if r.label in per_rank]
        if not ranks:
            labelled = {a.rank.label for a in self.anchors}
            ranks = [r for r in self.ranks if r.label in labelled]
        return ranks or [r for r in self.ranks if r.role == "worker"] or [MAIN]

    def _view(self, rank: RankKey, reason: str) -> RankView:
        own = [a for a in self.anchors if a.rank.label == rank.label]
        names = {a.name for a in own}
        shared = [a for a in self.anchors if a.name in GLOBAL_ANCHORS and a.name not in names
                  and a.rank.role != "worker" and a.rank.label != rank.label]
        merged = sorted(own + shared, key=lambda a: a.line_no)
        return RankView(rank=rank, anchors=tuple(merged), reason=reason)

    def _tightest(self, ranks: list[RankKey]) -> tuple[RankKey, str]:
        for name in HEADROOM_ANCHORS:
            figures = []
            for r in ranks:
                found = [a for a in self.anchors if a.rank.label == r.label and a.name == name and a.size]
                if found:
                    figures.append((found[-1].size.value, r, found[-1]))
            if figures:
                value, rank, anchor = min(figures, key=lambda t: (t[0].bytes, t[1].label))
                more = f" (smallest of {len(figures)} ranks)" if len(figures) > 1 else ""
                return rank, f"tightest rank: {name} = {anchor.size.text}{more}, line {anchor.line_no}"
        failing = self.primary_failure
        if failing is not None and any(r.label == failing.rank.label for r in ranks):
            return failing.rank, f"the rank of the failure at line {failing.line_no} (no free-memory figure printed)"
        tp = self.run.value("tp")
        indexed = [(r.index(tp_size=tp), r) for r in ranks if r.index(tp_size=tp) is not None]
        if indexed:
            return min(indexed, key=lambda t: t[0])[1], "lowest rank (no free-memory figure printed)"
        return ranks[0], "first rank seen (no free-memory figure printed)"

    def select_rank(self, rank: int | str | None = None) -> RankView:
        """``--rank N`` (a rank number or a label such as ``"DP1 TP3"``); default the tightest rank."""
        ranks = self._candidate_ranks()
        if rank is None:
            chosen, reason = self._tightest(ranks)
            return self._view(chosen, reason)
        return self._view(self._find(rank), f"asked for rank {rank}")

    def _find(self, rank: int | str) -> RankKey:
        tp = self.run.value("tp")
        key = str(rank).replace(" ", "").lower()
        for r in self.ranks:
            if r.label.replace(" ", "").lower() == key:
                return r
        if isinstance(rank, int) or key.isdigit():
            number = int(key)
            for r in self.ranks:
                if r.role == "worker" and r.index(tp_size=tp) == number:
                    return r
            if number == 0:
                # rank 0 prints without a prefix (vLLM V0 driver, single process) or as the engine core
                return next((r for r in self.ranks if r.role == "engine"), MAIN)
        from tpkit.logs.text import starts_read

        known = ", ".join(r.label for r in self.ranks) or "none"
        starts, lines = starts_read(self.notes)
        where = "the log" if starts == 1 else (f"the log holds {starts} engine starts (lines {lines}) and only the "
                                               "last is read; it")
        earlier = "" if starts == 1 else (" A rank of an earlier start: pass that start's lines alone (sed -n "
                                          "FIRST,LASTp LOG | tpkit explain - --rank …).")
        raise RankNotFoundError(
            f"--rank {rank}: {where} shows no such rank; ranks in {'the log' if starts == 1 else 'it'}: {known}. "
            "Give a rank number (TP rank or vLLM worker rank) or one of these labels, or leave --rank out "
            f"to use the tightest rank.{earlier}")

    def to_dict(self, *, rank: int | str | None = None) -> dict:
        """JSON-able, stable keys (``schema`` names the layout)."""
        view = self.select_rank(rank)
        primary = self.primary_failure
        return {
            "schema": SCHEMA, "status": self.status, "engine": self.engine.to_dict(), "run": self.run.to_dict(),
            "selected_rank": view.to_dict(), "ranks": [r.to_dict() for r in self.ranks],
            "anchors": [a.to_dict() for a in self.anchors], "failures": [f.to_dict() for f in self.failures],
            "primary_failure": None if primary is None else primary.to_dict(),
            "settings": [s.to_dict() for s in self.settings], "missing": [m.to_dict() for m in self.missing],
            "notes": list(self.notes), "line_count": self.line_count,
        }
