"""The measured start-up costs agree with the measurement file they cite."""

import json
from pathlib import Path


from tpkit.startup.measured import STARTUP_COSTS
from tpkit.units import Bytes, GiB

MEASURED = Path(__file__).resolve().parents[1] / "data" / "measurements" / "h200x2-startup-memory-and-graph-allreduce.json"
"""copied from shared/measurements (tests/data/README.md)"""


def test_costs_are_positive_and_plausible():
    assert set(STARTUP_COSTS) == {"cuda_context", "nccl_process_group", "nccl_first_allreduce", "cublas"}
    assert all(Bytes(0) < v < GiB(1) for v in STARTUP_COSTS.values())


def test_costs_match_the_measurement_file():
    steps = json.loads(MEASURED.read_text())["memory_steps"]
    frees = [steps["after_cuda_context"]["total"]] + [
        steps[k]["free"] for k in ("after_cuda_context", "after_init_process_group",
                                    "after_first_nccl_allreduce", "after_cublas_matmul")]
    drops = [a - b for a, b in zip(frees, frees[1:])]
    assert [c.bytes for c in STARTUP_COSTS.values()] == drops
