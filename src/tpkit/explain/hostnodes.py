"""How many hosts a run's tensor / pipeline-parallel group spans: ``--nnodes`` (round fx37, issue 12; the host-GPU
check is ``explain.hostgpus``).

A multi-node run's tp × pp group is split over its nodes, so one host holds only its share:

- **SGLang** (0.5.13.post1): ``check_server_args`` asserts ``tp_size × pp_size % nnodes == 0`` and refuses a
  multi-node dp without DP attention ("multi-node data parallel is not supported unless dp attention!",
  ``srt/server_args.py``); a node runs ``pp_size_per_node = max(pp_size // nnodes, 1)`` pipeline stages of
  ``tp_size // max(nnodes // pp_size, 1)`` tp ranks each (``_calculate_rank_ranges``, ``srt/entrypoints/engine.py``;
  the same split in ``managers/data_parallel_controller.py``), which is tp × pp / nnodes GPUs on every split the
  assertion allows.  Its dp adds none there (DP attention keeps the DP ranks inside the tp group: ``dp_factor``).
- **vLLM** (``ParallelConfig.nnodes``, ``vllm/config/parallel.py`` of the 0.16.0 and 0.30.0 wheels; not in 0.11.0):
  a worker process group holds ``local_world_size = world_size // nnodes_within_dp`` ranks, with
  ``nnodes_within_dp = nnodes // (data_parallel_size // data_parallel_size_local)`` (1 when ``nnodes`` is 1): the
  nodes one DP engine's tp × pp world spans.  With dp 1 that is tp × pp / nnodes; with a dp whose per-host count is
  not printed the split is not known, and no division is made (the count stays a bound from the run's own size).

The count is read from the log: the launch command's ``--nnodes N``, SGLang's ServerArgs ``nnodes=N`` or vLLM's
non-default args ``'nnodes': N``.  A fix keeps the run's nodes, so the GPUs it needs on the host are divided the
same way (``hostgpus.gpus_needed``).
"""

from __future__ import annotations

import re

__all__ = ["nodes_spanned"]

_NNODES = re.compile(rb"(?:--nnodes[ =]['\"]?|\bnnodes=|'nnodes'\s*:\s*)(\d{1,4})\b")


def _nnodes(raw: bytes | None) -> int:
    """The largest node count the log states (1 where none)."""
    counts = [int(m.group(1)) for m in _NNODES.finditer((raw or b"")[:4 << 20])]
    return max(counts, default=1) or 1


def nodes_spanned(engine: str | None, tp: int, pp: int, dp: int, dp_host: int, raw: bytes | None) -> tuple[int, str]:
    """(how many hosts the run's tp × pp group spans, the words for it) (module doc); ``dp`` the run's data-parallel
    size, ``dp_host`` the groups its dp puts on this host (``hostgpus.dp_factor``).  (1, "") for a one-node run."""
    nnodes = _nnodes(raw)
    if nnodes <= 1 or engine not in ("sglang", "vllm"):
        return 1, ""
    if engine == "sglang":
        if (tp * pp) % nnodes:  # SGLang refuses this split (check_server_args)
            return 1, ""
        return nnodes, f"--nnodes {nnodes}: SGLang splits tp × pp = {tp * pp} over {nnodes} nodes"
    if dp > 1 and dp_host == dp:  # vLLM: the dp ranks' hosts are not shown
        return 1, ""
    within = nnodes // max(dp // max(dp_host, 1), 1)
    if within <= 1 or (tp * pp) % within:
        return 1, ""
    return within, (f"--nnodes {nnodes}: vLLM's tp × pp = {tp * pp} world spans {within} nodes "
                    f"(ParallelConfig.local_world_size)")
