"""SGLang's KV budget bounded from above when the log prints no pre-load free memory.

SGLang sizes the pool from ``rest = available − pre_model_load_memory × (1 − mem_fraction_static)``
(``ModelRunner.profile_max_num_token``, sglang 0.4.x–0.5.9 ``model_executor/model_runner.py``, read 0.4.7.post1,
0.4.10.post2, 0.5.6; ``KVCacheConfigurator._profile_available_bytes``, 0.5.20 / 0.5.23
``mem_cache/kv_cache_configurator.py``, which also takes the multimodal reservation off), where
``pre_model_load_memory`` is the free memory ``init_torch_distributed`` sampled before the weights and ``available``
the free memory sampled after them.  'Load weight end … mem usage' prints the weights as free memory before − after
the load (``load_model``), so ``available`` ≤ pre − weights and ``rest`` ≤ f × pre − weights; and pre is at most what
the device holds in all, its CUDA-reported total (the CUDA context, the stream pool and every other tenant only
lower it): ``rest`` ≤ f × total − weights.  A log that prints the weights but neither 'Load weight begin' nor the
free memory after them gives no budget, yet this top.  It decides one outcome only: a pool of 0 tokens (SGLang's
'Not enough memory' error: the pool's token count ≤ 0) is what a top below one page of the cell predicts, for any
pre the card allows; a positive top decides nothing, and no printed pool above 0 is scored against it.  One rank
only (tp × pp = 1): with more ranks SGLang takes the MIN over the group of pre and of the free memory after the
weights, and one rank's printed weights do not bound the MIN rank's.
"""

from __future__ import annotations

from tpkit.explain.interval import Iv
from tpkit.explain.rows import Row, derived_row
from tpkit.units import Bytes

__all__ = ["ceiling"]


def ceiling(rows: list[Row], load, f, total: Bytes | None, rest: Iv | None, world: int) -> Bytes | None:
    """f × ``total`` − the weights' low end (the highest fraction where the default is not pinned), with its ledger
    row, where the budget ``rest`` was not rebuilt because pre and the free memory after the weights are both
    unprinted while the weights, the fraction and the device total are known, on a one-rank group; else None."""
    if (rest is not None or load.pre is not None or load.free_after is not None or load.weights is None
            or total is None or f.value is None or world != 1):
        return None
    top_f = f.range[1] if f.range is not None else float(f.value)
    top = Bytes(round(total.bytes * top_f)) - load.weights.low
    rows.append(derived_row("KV budget, top (no pre-load free memory printed)", Iv(low=top, high=top),
                            f"f {top_f:.3f} × device total − weights: SGLang's budget is free after weights − (1 − f) × "
                            "pre, free after weights ≤ pre − weights and pre ≤ the device total "
                            "(explain.sgceiling)"))
    return top
