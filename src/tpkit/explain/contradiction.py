"""A flag given on the command line that disagrees with the log (``explain.context`` reports it; the log's value
is kept)."""

from __future__ import annotations

from tpkit.records import dataclass

__all__ = ["Contradiction"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Contradiction:
    """A flag given on the command line that disagrees with the log."""

    flag: str
    given: object
    logged: object
    source: str
    """where the log says so (setting source and line)"""

    def text(self) -> str:
        return (f"--{self.flag.replace('_', '-')} {self.given} contradicts the log ({self.logged}, {self.source}); "
                "the log's value is used")

    def to_dict(self) -> dict:
        return {"flag": self.flag, "given": self.given, "logged": self.logged, "source": self.source}
