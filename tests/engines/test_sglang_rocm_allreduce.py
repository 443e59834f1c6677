"""SGLang's HIP all-reduce buffers by release (helper xg27, session 27, issue 11).

Read in the sglang wheels 0.5.5.post2-0.5.23 (``custom_all_reduce.py dispatch_custom_allreduce``: aiter's
CustomAllreduce on HIP from 0.5.6, ``SGLANG_USE_AITER_AR`` default true; ``quick_all_reduce.py``: QuickAllReduce only
when ``ROCM_QUICK_REDUCE_QUANTIZATION`` is not NONE, the wheel's default), in ROCm/aiter's
``CustomAllreduce.__init__`` (max_size 64 MiB to v0.1.10.post1, 128 MiB v0.1.10.post2-v0.1.11.post1, 1 GiB from
v0.1.12), in sgl-kernel's quickreduce ``DeviceComms::init`` (2 x kMaxProblemSize of 2 GiB + flags) and in
sgl-project/sglang ``docker/rocm.Dockerfile`` at the releases (aiter pins; ``ROCM_QUICK_REDUCE_QUANTIZATION=INT8``
from the v0.5.9 image, absent from v0.5.5.post3 and v0.5.8).  ``tpkit.engines.sglang.allreduce.ROCM_RELEASES``.
"""

from __future__ import annotations

import json
import statistics

import pytest

from tpkit.engines.sglang.allreduce import ROCM_RELEASES, custom_allreduce_cost, rocm_release
from tpkit.engines.sglang.baseline import plan_baseline
from tpkit.hardware.catalog import lookup_gpu
from tpkit.hardware.topology import GroupTopology
from tpkit.parallel import ParallelSpec
from tpkit.startup.custom_allreduce import sglang_rocm_allreduce
from tpkit.startup.table import table_path
from tpkit.units import Bytes, GiB, MiB

QR = 2 * 2**31  # quickreduce data buffer: 2 x kMaxProblemSize


def _flags(world: int) -> int:
    return 2 * world * 304 * 4 * 4  # 2 x world x kMaxNumBlocks x sizeof(uint32_t)


def _car(gpu: str, tp: int, version: str) -> int:
    return custom_allreduce_cost(lookup_gpu(gpu), ParallelSpec(tp=tp), version).bytes.bytes


@pytest.mark.parametrize("tp", [2, 4, 8])
def test_from_0_5_10_aiter_1_gib_and_quick_reduce(tp):
    want = 3 * 2**30 + 8 * 2**20 + QR + _flags(tp)
    for version in ("0.5.10", "0.5.11", "0.5.17", "0.5.21", "0.5.23"):
        assert _car("MI355X", tp, version) == want
        assert _car("MI300X", tp, version) == want


def test_release_boundaries_on_both_sides():
    # 0.5.5.post2: no dispatch to aiter in the wheel, SGLang's own CustomAllreduce (off beyond 2 GPUs without NVLink)
    old = custom_allreduce_cost(lookup_gpu("MI300X"), ParallelSpec(tp=2), "0.5.5.post2")
    assert old.source.startswith("legacy CustomAllreduce") and rocm_release("0.5.5.post2") is None
    assert _car("MI300X", 8, "0.5.5.post2") == 0
    # 0.5.6 - 0.5.8: aiter at 64 MiB (meta + one IPC buffer + 8 MiB rank_data), no QuickAllReduce
    for v in ("0.5.6", "0.5.6.post2", "0.5.7", "0.5.8"):
        assert _car("MI300X", 8, v) == 2 * 64 * 2**20 + 8 * 2**20
    # 0.5.9: aiter at 128 MiB (meta + input + output) and the image's QuickAllReduce
    assert _car("MI300X", 8, "0.5.9") == 3 * 128 * 2**20 + 8 * 2**20 + QR + _flags(8)
    # 0.5.10: aiter 1 GiB (meta of 2 x max_size + input)
    assert _car("MI300X", 8, "0.5.10") == 3 * 2**30 + 8 * 2**20 + QR + _flags(8)
    assert [first for first, _ in ROCM_RELEASES] == ["0.5.10", "0.5.9", "0.5.6"]


def test_where_each_buffer_initialises():
    rel = rocm_release("0.5.11")
    links = GroupTopology(full_nvlink=False, p2p=True, compute_capability=None)
    mi250 = sglang_rocm_allreduce(lookup_gpu("MI250X"), links, 8, rel)  # gfx90a: no QuickAllReduce
    assert mi250.bytes == GiB(3) + MiB(8) and "QuickAllReduce" not in mi250.source
    six = sglang_rocm_allreduce(lookup_gpu("MI300X"), links, 6, rel)  # QuickAllReduce: world 2, 4, 8 only
    assert six.bytes == GiB(3) + MiB(8)
    assert sglang_rocm_allreduce(lookup_gpu("MI300X"), links, 1, rel).bytes == Bytes(0)
    nodes = GroupTopology(full_nvlink=False, p2p=True, compute_capability=None, num_nodes=2)
    assert sglang_rocm_allreduce(lookup_gpu("MI300X"), nodes, 8, rel).bytes == Bytes(0)
    three = sglang_rocm_allreduce(lookup_gpu("MI300X"), links, 3, rel)
    assert three.bytes == Bytes(0) and "not initialised" in three.source
    # NVIDIA keeps its own rules at the same release
    assert "aiter" not in custom_allreduce_cost(lookup_gpu("H100-SXM-80GB"), ParallelSpec(tp=8), "0.5.11").source


def test_the_plan_charges_it_and_disable_custom_all_reduce_drops_both():
    gpu = lookup_gpu("MI355X")
    on = plan_baseline(gpu, ParallelSpec(tp=2), "0.5.10", None, version="0.5.17")
    line = next(u for u in on.uses if "all-reduce" in u.item)
    assert line.bytes.bytes == 3 * 2**30 + 8 * 2**20 + QR + _flags(2)
    off = plan_baseline(gpu, ParallelSpec(tp=2), "0.5.10", None, version="0.5.17", disable_custom_all_reduce=True)
    assert not any("all-reduce" in u.item for u in off.uses)
    assert on.free_before_weights.bytes == off.free_before_weights.bytes - line.bytes.bytes


def test_the_0_5_10_plus_rows_less_the_rule_agree_with_the_older_images():
    """sg_103 / sg_120 (0.5.11 image, 8.18 / 10.04 GiB) and sglang#25118 (2026-05 image, 8.31 GiB) less the release's
    buffers and the 0.5.8 init term land among the 0.5.3-0.5.6 CI rows of their world (xgmi:4 0.89-1.11 GiB, xgmi:8
    2.07-3.66 GiB): the init grew with the all-reduce buffers, not with RCCL."""
    table = json.loads(table_path().read_text())["terms"]["nccl"]
    evidence = json.loads((table_path().parent / "evidence.json").read_text())["rows"]
    new = {"sg_103": "xgmi:2", "sg_120": "xgmi:8", "sg-issue-25118-mi300x": "xgmi:4"}
    for rid, key in new.items():
        cell = table[key]
        sample = cell["samples_gib"][cell["rows"].index(rid)]
        row = next(r for r in evidence if r["id"] == rid)
        assert row["printed"]["init"] > 8
        assert (2.0 < sample < 3.7) if key == "xgmi:8" else (1.0 < sample < 1.3)
        older = [s for r, s in zip(cell["rows"], cell["samples_gib"]) if r.startswith("sgci-")]
        if older:
            assert abs(sample - statistics.median(older)) <= cell["uncertainty_bytes"] / 2**30
    # xgmi:4's band no longer spans sglang#25118's whole init (3.70 GiB before)
    assert table["xgmi:4"]["uncertainty_bytes"] / 2**30 < 0.25 and table["xgmi:2"]["n"] == 1  # sg_634 (gs28c, session 28), the second xgmi:2 sample, out of the fit since session 36: gs_703's own log
