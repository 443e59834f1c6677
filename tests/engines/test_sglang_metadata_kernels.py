"""SGLang 0.4.6.post5-0.4.9.x: the expert-location metadata's first kernels, taken after the pre sample
(``engines.sglang.streams.metadata_kernels``; helper cap26, 2026-12-06, session 26).

Boundaries read in the wheels: 0.4.6.post4's ``ModelRunner.initialize`` builds no metadata; 0.4.6.post5-0.4.9.post6
build it for every model (``init_dummy`` for a class without ``get_model_config_for_expert_location``); from 0.4.10
``from_model_config`` returns None for such a class.  The size is the start-up table's sglang_tp1_init[>=0.5.8].
"""

from pathlib import Path

from tpkit.engines.sglang.streams import (first_kernel_bytes, forward_stream_pool, metadata_kernels,
                                          metadata_kernels_span)
from tpkit.explain import explain_log
from tpkit.startup.table import entry
from tpkit.units import Bytes, MiB

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "logs" / "data"


def test_size_is_the_tp1_init_line_of_0_5_8_and_later():
    assert first_kernel_bytes() == entry("sglang_tp1_init", ">=0.5.8").bytes
    assert MiB(87) < first_kernel_bytes() < MiB(97)  # 0.09 GiB printed, ± 0.005


def test_boundaries_0_4_6_post5_and_0_4_10_at_world_size_one():
    x = first_kernel_bytes()
    assert metadata_kernels("0.4.6.post4", world=1, vendor="NVIDIA") == Bytes(0)
    assert metadata_kernels("0.4.6.post5", world=1, vendor="NVIDIA") == x
    assert metadata_kernels("0.4.7.post1", world=1, vendor=None) == x
    assert metadata_kernels("0.4.9.post6", world=1, vendor="NVIDIA") == x
    assert metadata_kernels("0.4.10", world=1, vendor="NVIDIA") == Bytes(0)
    assert metadata_kernels("0.5.7", world=1, vendor="NVIDIA") == Bytes(0)
    # the stream pool is another release's term: none of these releases has it
    assert forward_stream_pool("0.4.7", world=1, vendor="NVIDIA") == Bytes(0)


def test_no_charge_with_more_ranks_on_amd_or_in_a_hami_slice():
    assert metadata_kernels("0.4.7.post1", world=2, vendor="NVIDIA") == Bytes(0)
    assert metadata_kernels("0.4.8", world=1, vendor="AMD") == Bytes(0)
    assert metadata_kernels("0.4.8", world=1, vendor="NVIDIA", virtualiser="HAMi") == Bytes(0)


def test_span_over_the_releases_a_log_allows():
    x = first_kernel_bytes()
    assert metadata_kernels_span("0.4.7.post1", "0.4.7.post1", date="2025-06-24", world=1, vendor=None) == (x, x)
    assert metadata_kernels_span("0.4.6", "0.4.8", date="2025-05-29", world=1, vendor=None) == (Bytes(0), x)
    assert metadata_kernels_span("0.4.6", "0.4.8", date="2025-05-14", world=1, vendor=None) == (Bytes(0), Bytes(0))
    assert metadata_kernels_span("0.4.10", "0.5.8", date=None, world=1, vendor=None) == (Bytes(0), Bytes(0))
    assert metadata_kernels_span("0.2.15", "0.4.4", date=None, world=1, vendor=None) == (Bytes(0), Bytes(0))
    assert metadata_kernels_span(None, "0.5.23", date=None, world=1, vendor=None) == (Bytes(0), x)


def _stripped(log: str) -> bytes:
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    from explain_capacity_check import strip_capacity

    return strip_capacity((DATA / "sglang" / log).read_bytes())


def test_sg_528_is_rebuilt_with_the_first_kernels_and_not_without():
    """0.4.7.post1 (printed), Qwen3-0.6B-FP8 on one H100 at 0.874: 606,832 printed."""
    config = str(ROOT / "tests" / "validation" / "configs" / "Qwen--Qwen3-0.6B-FP8.json")
    e = explain_log(_stripped("sg_528.log"), flags={"model": config})
    low, high = e.kv_predicted_range
    assert low <= 606_832 <= high
    assert e.anchored.pre_load_kernels.low == e.anchored.pre_load_kernels.high == first_kernel_bytes()
    assert any(r.item.startswith("expert-location metadata's first kernels") for r in e.anchored.rows)
    # the same log read as 0.4.6.post4 (no metadata) is the old, missed range: above the printed count
    old = explain_log(_stripped("sg_528.log").replace(b"0.4.7.post1", b"0.4.6.post4"), flags={"model": config})
    assert old.anchored.pre_load_kernels is None
    assert old.kv_predicted_range[0] > 606_832


def test_a_log_whose_releases_straddle_the_window_gets_zero_to_the_charge():
    """sg_527: 0.4.6-0.5.8 line formats, dated 2025-05-29 (0.4.6.post5 is of 2025-05-24), Llama-3-8B on an H200."""
    config = str(ROOT / "tests" / "validation" / "configs" / "meta-llama--Meta-Llama-3-8B-Instruct.json")
    e = explain_log(_stripped("sg_527.log"), flags={"model": config})
    k = e.anchored.pre_load_kernels
    assert k.low == Bytes(0) and k.high == first_kernel_bytes()
    low, high = e.kv_predicted_range
    assert low <= 871_371 <= high


def test_planner_moves_the_first_kernels_out_of_the_load_usage():
    """The plan's budget stays where it was: the load usage's extra (sglang_load_extra[<0.5.8], measured on releases
    whose first kernels run inside the load) is less by the charge, which is taken after the pre sample instead."""
    from tpkit.engines.sglang.options import SglangOptions
    from tpkit.engines.sglang.load import load_usage
    from tpkit.engines.sglang.budget import kv_budget
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.models import load_model
    from tpkit.parallel import ParallelSpec

    model, gpu, x = load_model("Qwen/Qwen3-8B"), lookup_gpu("H100-SXM-80GB"), first_kernel_bytes()
    for tp in (1, 2):
        old = load_usage(model, ParallelSpec(tp=tp), SglangOptions(engine_version="0.4.6.post4"), gpu=gpu)[0]
        new = load_usage(model, ParallelSpec(tp=tp), SglangOptions(engine_version="0.4.7.post1"), gpu=gpu)[0]
        assert old - new == (x if tp == 1 else Bytes(0))
    opts = SglangOptions(engine_version="0.4.7.post1", mem_fraction_static=0.85)
    b = kv_budget(model, gpu, ParallelSpec(tp=1), opts, machine=None, weights_bytes=Bytes(15 * 2**30))
    assert b.first_kernels == x and b.stream_pool == Bytes(0)
    b2 = kv_budget(model, gpu, ParallelSpec(tp=2), opts, machine=None, weights_bytes=Bytes(15 * 2**30))
    assert b2.first_kernels == Bytes(0)


def test_plan_from_log_charges_the_first_kernels_at_the_plan_release():
    """sg_563 (0.4.7.post1 by its source, RTX 5090): the measured context leaves the first kernels out, the plan
    charges them at the plan's release (so explain's re-planned --mem-fraction-static fix and plan --from-log agree:
    scripts/explain_roundtrip_check.py)."""
    from tpkit.explain.fromlog import measured_startup

    e = explain_log((DATA / "sglang" / "sg_563.log").read_bytes())
    assert e.anchored.pre_load_kernels.low == Bytes(0)  # the log's formats alone straddle the window
    with_release = measured_startup(e, version="0.4.7.post1").terms["cuda_context"]
    outside = measured_startup(e, version="0.4.10").terms["cuda_context"]
    assert outside - with_release == first_kernel_bytes()
