"""The start-up cost model both engine policies share (pure; no torch).

What a serving process holds on a GPU before it loads weights, term by term, and which GPU decides:

    cost.py              ``Cost``: one term (bytes, source, ± uncertainty)
    measured.py          the measured start-up steps (one H200 run today)
    terms.py             CUDA context, NCCL init + warm-up, cuBLAS, an engine's process overhead, creation order
    custom_allreduce.py  the engines' own custom all-reduce buffers, per implementation and release
    links.py             ``group_links``: is a TP group a full NVLink mesh with peer access (the one place)
    capacity.py          the tightest GPU of a probed machine, the engines' imbalance check

A machine profile (``tpkit probe``) replaces three things: the capacity (the tightest GPU's free memory
instead of the catalog total), the CUDA context (the probe's own, measured on that machine) and the links
(probed NVLink and peer-access matrices instead of the catalog's NVLink flag).

Each engine's policy (``engines/<name>/baseline.py``) says only what differs: which terms it charges, under
which names, for which world, and when (before or after its memory snapshot).
"""

from tpkit.startup.capacity import Imbalance, TightestRank, find_imbalance, layout_gpus, tightest_rank
from tpkit.startup.cost import KEYS, Cost
from tpkit.startup.custom_allreduce import sglang_custom_allreduce, vllm_custom_allreduce
from tpkit.startup.links import GroupLinks, group_links
from tpkit.startup.terms import SGLANG_PROCESS_OVERHEAD, cublas, cuda_context, nccl_costs, startup_costs

__all__ = [
    "Cost", "KEYS", "cuda_context", "nccl_costs", "cublas", "startup_costs", "SGLANG_PROCESS_OVERHEAD",
    "sglang_custom_allreduce", "vllm_custom_allreduce", "GroupLinks", "group_links",
    "TightestRank", "Imbalance", "layout_gpus", "tightest_rank", "find_imbalance",
]
