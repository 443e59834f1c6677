"""``startup_cache``: ``functools.lru_cache`` for functions that plan start-up terms (pure).

A planned start-up term depends on more than its arguments: the band end being planned and the terms given as
measured (``tpkit.memory.band``).  This cache adds both to the key, so a memoised baseline is never served at the
wrong end of its band.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, wraps

from tpkit.memory.band import state_key

__all__ = ["clear_startup_caches", "startup_cache"]

_CLEARS: list[Callable[[], None]] = []
"""``cache_clear`` of every function wrapped by ``startup_cache``"""


def clear_startup_caches() -> None:
    """Empty every ``startup_cache`` (``tpkit.startup.table.swapped_table`` calls it when the table changes)."""
    for clear in _CLEARS:
        clear()


def startup_cache(maxsize: int = 128) -> Callable:
    """Like ``functools.lru_cache(maxsize=…)``, keyed also on the band state."""

    def wrap(fn: Callable) -> Callable:
        @lru_cache(maxsize=maxsize)
        def keyed(state: tuple, *args, **kwargs):
            return fn(*args, **kwargs)

        @wraps(fn)
        def call(*args, **kwargs):
            return keyed(state_key(), *args, **kwargs)

        call.cache_clear = keyed.cache_clear  # type: ignore[attr-defined]
        call.cache_info = keyed.cache_info  # type: ignore[attr-defined]
        _CLEARS.append(keyed.cache_clear)
        return call

    return wrap
