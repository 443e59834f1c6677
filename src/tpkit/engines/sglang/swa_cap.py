"""Which configurator SGLang picks for a hybrid-SWA KV pool (``swa_pool_choice``): the ``swa_full_tokens_ratio``
pool, or from 0.5.14 the SWA pool fixed by the request cap (``--disable-radix-cache`` with
``--max-running-requests``).  Split from ``pool.py`` (helper tidy29); ``swa.py`` decides whether a model is hybrid
at all."""

from __future__ import annotations

from tpkit.engines.sglang.pool import CellSize
from tpkit.engines.sglang.versions import at_least
from tpkit.errors import PlanInputError
from tpkit.records import dataclass

__all__ = ["SWA_REQUEST_CAP_FIRST", "SwaPoolChoice", "swa_pool_choice"]


SWA_REQUEST_CAP_FIRST = "0.5.14"
"""first release with the request-capped SWA pool (``pool_configurator.py SWAChunkCapPoolConfigurator``, read in
0.5.14 – 0.5.21; renamed ``SWARequestCapPoolConfigurator`` in 0.5.22 – 0.5.23; none in 0.5.11 – 0.5.13)"""


SWA_CAP_RENAMED = "0.5.22"
"""``SWAChunkCapPoolConfigurator`` → ``SWARequestCapPoolConfigurator``; from this release also a chunked-prefill size
≤ 0 (``--chunked-prefill-size -1``) keeps the ratio pool (0.5.14 – 0.5.21 only refuse ``None``, so -1 enters the cap
as −1 × chunks in flight)"""


SWA_CAP_MIN_ONE = "0.5.23"
"""``compute_swa_request_cap``: ``num_reqs = max(1, max_running_requests // attn_dp)`` (0.5.14 – 0.5.22: no max)"""


SWA_EVICTION_INTERVAL = 128
"""``SGLANG_SWA_EVICTION_INTERVAL`` default (``environ.py``, 0.5.14 – 0.5.23)"""


@dataclass(frozen=True, kw_only=True, slots=True)
class SwaPoolChoice:
    """Which SGLang configurator sizes a hybrid-SWA pool, why, and the SWA pool it fixes (request cap)."""

    configurator: str
    """``HybridSWAPoolConfigurator`` | ``SWAChunkCapPoolConfigurator`` | ``SWARequestCapPoolConfigurator``"""
    why: str
    """the conditions, in words"""
    swa_cap: int | None = None
    """SWA pool tokens per rank fixed by the request cap (page-aligned); None: ``swa_full_tokens_ratio`` × full"""


def swa_pool_choice(cell: CellSize, version: str, *, disable_radix_cache: bool, max_running_requests: int | None,
                    chunked_prefill_size: int | None, page_size: int, sliding_window: int | None, attn_dp: int,
                    overlap_schedule: bool, speculative: bool = False) -> SwaPoolChoice | None:
    """The configurator SGLang's ``create_memory_pool_configurator`` picks for a hybrid-SWA cell (None for other
    layouts), with the request-capped SWA pool when it applies.

    ``SWAChunkCapPoolConfigurator.is_applicable`` (0.5.14 – 0.5.21) / ``SWARequestCapPoolConfigurator.is_applicable``
    (0.5.22 – 0.5.23, ``model_executor/pool_configurator.py``): ``--max-running-requests`` set, the radix cache
    disabled, a chunked-prefill size (0.5.22+: > 0), a sliding window and at least one full-attention layer.  Its
    SWA pool (``compute_swa_request_cap``; inline in ``__init__`` before 0.5.21), without speculative decoding::

        per_request = window + SGLANG_SWA_EVICTION_INTERVAL (128) × 1 + page + page     (trailing + decode_alloc)
        num_reqs    = max_running_requests // attn_dp          (0.5.23: max(1, …))
        swa_cap     = ceil_page(per_request × num_reqs + chunks × chunked_prefill_size + page)
        chunks      = 1 with the overlap schedule off (--disable-overlap-schedule, or pp > 1), else 2

    ``chunked_prefill_size`` is the per-attention-DP-rank value (``server_args``/``parallel_hook``: // dp).
    PD-disaggregation decode mode and the speculative decode allocation are not modelled (``speculative``: refused).
    """
    if cell.layout != "swa":
        return None
    ratio = "HybridSWAPoolConfigurator"
    if cell.full_layers == 0:
        return SwaPoolChoice(configurator=ratio, why="all-SWA model: one SWA pool, no ratio")
    ratio_why = f"SWA pool = swa_full_tokens_ratio {cell.swa_ratio:g} × full pool"
    if not at_least(version, SWA_REQUEST_CAP_FIRST):
        return SwaPoolChoice(configurator=ratio, why=f"{ratio_why} (no request-capped SWA pool before SGLang "
                                                     f"{SWA_REQUEST_CAP_FIRST})")
    name = "SWARequestCapPoolConfigurator" if at_least(version, SWA_CAP_RENAMED) else "SWAChunkCapPoolConfigurator"
    missing = []
    if max_running_requests is None:
        missing.append("--max-running-requests is not set")
    if not disable_radix_cache:
        missing.append("the radix cache is on (no --disable-radix-cache)")
    if chunked_prefill_size is None or (at_least(version, SWA_CAP_RENAMED) and chunked_prefill_size <= 0):
        missing.append("chunked prefill is off")
    if sliding_window is None:
        missing.append("the model has no sliding_window")
    if missing:
        return SwaPoolChoice(configurator=ratio, why=f"{ratio_why}; {name} does not apply: {'; '.join(missing)}")
    if speculative:
        raise PlanInputError(
            f"--disable-radix-cache with --max-running-requests sizes this hybrid sliding-window model's SWA pool from "
            f"the request cap (SGLang {version} {name}); tpkit does not model that cap with speculative decoding "
            "(draft tokens per eviction, decode allocation, draft layers). Drop --speculative-algorithm, or leave "
            "the radix cache on / --max-running-requests unset to plan the swa_full_tokens_ratio pool")
    num_reqs = max_running_requests // attn_dp
    if at_least(version, SWA_CAP_MIN_ONE):
        num_reqs = max(1, num_reqs)
    per_request = sliding_window + SWA_EVICTION_INTERVAL + page_size + page_size
    chunks = 2 if overlap_schedule else 1
    raw = per_request * num_reqs + chunks * chunked_prefill_size + page_size
    cap = -(-raw // page_size) * page_size
    why = (f"--disable-radix-cache and --max-running-requests {max_running_requests}: SWA pool = "
           f"(window {sliding_window} + eviction interval {SWA_EVICTION_INTERVAL} + 2 × page {page_size}) × "
           f"{num_reqs} requests + {chunks} × chunked prefill {chunked_prefill_size} + page = {raw:,} → "
           f"{cap:,} tokens; the rest of the budget goes to the full pool")
    return SwaPoolChoice(configurator=name, why=why, swa_cap=cap)
