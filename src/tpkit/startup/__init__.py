"""The start-up cost model both engine policies share (pure; no torch).

What a serving process holds on a GPU before it loads weights, term by term, and which GPU decides:

    cost.py              ``Cost``: one term (bytes, source, ± uncertainty), resolved at the band end being planned
    families.py          GPU → start-up cost family (turing … hopper, blackwell, blackwell-consumer, cdna3)
    table.py             the start-up table: bytes and ± per family / NCCL transport and world, from data/table.json
                         (written by scripts/build_startup_table.py from data/evidence.json)
    measured.py          tpkit's own step-by-step H200 measurement (one evidence row)
    terms.py             CUDA context, NCCL init + warm-up, cuBLAS, an engine's process overhead, creation order
    cache.py             ``startup_cache``: lru_cache keyed also on the band state
    custom_allreduce.py  the engines' own custom all-reduce buffers, per implementation and release
    links.py             ``group_links``: is a TP group a full NVLink mesh with peer access, on how many hosts (the
                         one place); ``LinkChoice``: what ``--link`` / ``--no-p2p`` / ``--nnodes`` or a log says
    capacity.py          the tightest GPU of a probed machine, the engines' imbalance check
    rankspread.py        the measured spread of free memory across ranks (scripts/rank_spread.py): the band term
                         of a multi-rank SGLang plan, the allowances of ``tpkit explain`` for unprinted ranks

A machine profile (``tpkit probe``) replaces three things: the capacity (the tightest GPU's free memory
instead of the catalog total), the CUDA context (the probe's own, measured on that machine) and the links
(probed NVLink and peer-access matrices instead of the catalog's NVLink flag).

Each engine's policy (``engines/<name>/baseline.py``) says only what differs: which terms it charges, under
which names, for which world, and when (before or after its memory snapshot).

The names below are imported on first use (a plan without a machine profile never loads ``capacity``).
"""

from tpkit.lazy import lazy_getattr

_HOME = {
    "Cost": "cost", "KEYS": "cost",
    "cuda_context": "terms", "nccl_costs": "terms", "cublas": "terms", "startup_costs": "terms",
    "SGLANG_PROCESS_OVERHEAD": "terms", "sglang_process_overhead": "terms", "table_cost": "terms",
    "sglang_load_extra": "terms",
    "vllm_nontorch_growth": "terms",
    "gpu_family": "families", "FAMILIES": "families", "Entry": "table", "entry": "table", "nccl_entry": "table",
    "startup_cache": "cache",
    "sglang_custom_allreduce": "custom_allreduce", "vllm_allreduce_costs": "custom_allreduce",
    "VllmAllreduceRelease": "custom_allreduce",
    "plan_topology": "links", "group_links": "links", "LinkChoice": "links", "link_choice": "links",
    "TightestRank": "capacity", "Imbalance": "capacity", "layout_gpus": "capacity", "tightest_rank": "capacity",
    "find_imbalance": "capacity",
}
__all__ = list(_HOME)


__getattr__ = lazy_getattr(__name__, _HOME)
