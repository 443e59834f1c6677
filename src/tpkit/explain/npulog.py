"""``tpkit plan --from-log`` on an Ascend NPU's log: refused (exit 2), never planned with the CUDA planner's terms
(helper np37, 2026-12-07; ``explain.npuplan`` says what explain plans for such a log, ``hardware.npu`` the NPU
catalog)."""

from __future__ import annotations

__all__ = ["refuse_npu_log"]


def refuse_npu_log(explanation, log_name: str, gpu_named: bool) -> None:
    """``tpkit plan --from-log``: raise ``NpuNotPlannedError`` (exit 2) where the log's failure is torch_npu's OOM and
    no catalog GPU is named (``--gpu``): the log's device is an NPU, which the planner's CUDA terms do not describe."""
    from tpkit.explain.npuplan import npu_catalog_words
    from tpkit.explain.sgdevice import unplanned_device
    from tpkit.hardware.npu import NpuNotPlannedError

    failure = explanation.parsed.primary_failure
    if gpu_named or failure is None or "NPU" not in (unplanned_device(failure) or ""):
        return
    words = npu_catalog_words(failure)
    raise NpuNotPlannedError(
        f"--from-log {log_name}: the log ran on an Ascend NPU (torch_npu's 'NPU out of memory'{words}): tpkit does "
        "not plan an NPU run (its planner's budget has CUDA-only terms: CUDA graphs, NCCL and custom "
        f"all-reduce buffers); `tpkit explain {log_name}` reads its memory; name a catalog GPU with --gpu to plan "
        "the same run on a GPU")
