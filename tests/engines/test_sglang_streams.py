"""SGLang's forward stream: torch's stream pool taken after the pre sample (``engines.sglang.streams``).

Boundary read in the wheels: ``ModelRunner.__init__`` creates ``forward_stream`` after ``init_torch_distributed``
from 0.5.9 (none in 0.5.8); at world size > 1 PyNccl's warm-up stream builds the pool before the sample.
"""

from tpkit.engines.sglang.options import SglangOptions
from tpkit.engines.sglang.budget import kv_budget
from tpkit.engines.sglang.streams import STREAM_POOL_BYTES, forward_stream_pool
from tpkit.explain import explain_log
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, GiB, MiB


def test_pool_bytes_are_the_measured_70_mib():
    assert STREAM_POOL_BYTES == MiB(70)


def test_boundary_0_5_9_at_world_size_one():
    assert forward_stream_pool("0.5.8", world=1, vendor="NVIDIA") == Bytes(0)
    assert forward_stream_pool("0.5.9", world=1, vendor="NVIDIA") == MiB(70)
    assert forward_stream_pool("0.5.23", world=1, vendor=None) == MiB(70)


def test_no_charge_with_more_ranks_or_on_amd():
    assert forward_stream_pool("0.5.10", world=2, vendor="NVIDIA") == Bytes(0)
    assert forward_stream_pool("0.5.20", world=8, vendor="NVIDIA") == Bytes(0)
    assert forward_stream_pool("0.5.20", world=1, vendor="AMD") == Bytes(0)


def _budget(version: str, tp: int = 1):
    return kv_budget(load_model("Qwen/Qwen3-8B"), lookup_gpu("H100-SXM-80GB"), ParallelSpec(tp=tp),
                     SglangOptions(engine_version=version, mem_fraction_static=0.85), machine=None,
                     weights_bytes=GiB(15))


def test_planner_charges_the_pool_against_the_budget_from_0_5_9():
    old, new = _budget("0.5.8"), _budget("0.5.9")
    assert old.stream_pool == Bytes(0) and new.stream_pool == MiB(70)
    assert old.pre == new.pre and old.slack == new.slack  # the pre sample is taken before the stream
    assert old.rest - new.rest == MiB(70)
    assert new.tokens < old.tokens


def test_planner_no_charge_at_tp_2():
    assert _budget("0.5.10", tp=2).stream_pool == Bytes(0)


_LOG = """\
[2026-03-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=1, mem_fraction_static=0.85, page_size=1)
[2026-03-01 10:00:01] Init torch distributed begin.
[2026-03-01 10:00:02] Init torch distributed ends. mem usage=0.09 GB
[2026-03-01 10:00:03] Load weight begin. avail mem=78.48 GB
[2026-03-01 10:00:09] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=63.20 GB, mem usage=15.28 GB.
"""


def _explained(version: str):
    return explain_log(_LOG, flags={"model": "Qwen/Qwen3-8B", "engine_version": version, "gpu": "H100-SXM-80GB"})


def test_explain_slack_from_the_sample_both_sides_of_0_5_9():
    old, new = _explained("0.5.8"), _explained("0.5.9")
    assert old.anchored.stream_pool is None
    assert new.anchored.stream_pool is not None and new.anchored.stream_pool.low == MiB(70)
    assert any(r.item.startswith("torch stream pool") for r in new.anchored.rows)
    # slack = (1 − f) × ('Load weight begin' + the pool): the budget is 0.15 × 70 MiB smaller
    shift = old.anchored.rest.mid.bytes - new.anchored.rest.mid.bytes
    assert abs(shift - 0.15 * 70 * 2**20) <= 1
    assert new.anchored.tokens_predicted[1] < old.anchored.tokens_predicted[1]


def test_explain_versions_straddling_0_5_9_give_zero_to_the_pool():
    from tpkit.explain.context import Context
    from tpkit.explain.sgrelease import stream_pool_for

    ctx = Context(engine="sglang", version="0.5.3–0.5.10", values={}, sources={}, model=None, model_source="",
                  gpu=lookup_gpu("H100-SXM-80GB"), gpu_source="", contradictions=(), notes=())
    iv, why = stream_pool_for(ctx, 1, 1)
    assert iv.low == Bytes(0) and iv.high == MiB(70) and "0 … the pool" in why
    assert stream_pool_for(ctx, 2, 1) == (None, "")


def test_amd_distributed_init_uses_the_xgmi_cells_nvidia_unchanged():
    """RCCL on MI300X under SGLang's ROCm images (NCCL_MIN_NCHANNELS=112): the start-up table's xgmi cells, from
    sglang#25118 (world 4) and sglang#2384 (world 8); an NVLink board keeps the nvlink cells."""
    from tpkit.engines.sglang.baseline import plan_baseline
    from tpkit.startup.table import nccl_entry

    amd = plan_baseline(lookup_gpu("MI300X"), ParallelSpec(tp=8), "0.4.2", None, version="0.4.2")
    nccl = sum((u.bytes for u in amd.uses if "NCCL" in u.item), Bytes(0))
    assert abs(nccl.bytes - nccl_entry("xgmi", 8).bytes.bytes) <= 1
    # helper amdev26 (2026-12-06): 35 samples since AMD's CI rows (0.5.3-0.5.6 images: 2.1-3.7 GiB; sglang#2384's
    # 0.4.0-era start 7.1 GiB): the median 3.20 GiB, still an order above the NVLink cell; helper gs30 (session 30) left
    # its validation cases' own CI logs out of the rows: 2.94 GiB
    assert GiB(2.5) < nccl < GiB(4)
    nv = plan_baseline(lookup_gpu("H100-SXM-80GB"), ParallelSpec(tp=8), "0.4.2", None, version="0.4.2")
    nv_nccl = sum((u.bytes for u in nv.uses if "NCCL" in u.item), Bytes(0))
    # helper ev32 (2026-12-07): SGLang reads the cells of its own init window (sglang: keys, nccl_entry engine=)
    assert abs(nv_nccl.bytes - nccl_entry("nvlink", 8, engine="sglang").bytes.bytes) <= 1


def test_plan_from_log_context_leaves_the_stream_pool_to_the_plan():
    """``plan --from-log``: the context measured from a 0.5.9+ tp-1 log is total − 'Load weight begin' − init − the
    pool, since the plan charges the pool after the pre sample itself."""
    from pathlib import Path

    from tpkit.explain.fromlog import measured_startup

    log = Path(__file__).resolve().parents[1] / "logs" / "data" / "sglang" / "sg_062.log"
    e = explain_log(log.read_bytes(), flags={"model": "Qwen/Qwen3-30B-A3B"})
    assert e.anchored.stream_pool is not None and e.anchored.stream_pool.low == MiB(70)
    m = measured_startup(e)
    # and DeepGEMM's 32 MiB workspace, which the plan also charges after the pre sample (0.5.15+ on SM 9.0, gx33)
    expected = e.anchored.device_total - e.anchored.pre.mid - e.anchored.init_dist.mid - MiB(70) - MiB(32)
    assert m.terms["cuda_context"] == expected


def test_no_charge_in_a_hami_slice():
    """HAMi-core's hooked cuMemGetInfo_v2 reports limit − the bytes its allocation hooks recorded; cuStreamCreate is
    passed through unrecorded, so the pool never leaves the free memory SGLang reads (helper cap22)."""
    assert forward_stream_pool("0.5.20", world=1, vendor="NVIDIA", virtualiser="HAMi") == Bytes(0)
    assert forward_stream_pool("0.5.20", world=1, vendor="NVIDIA", virtualiser=None) == MiB(70)


def test_explain_reads_hami_from_the_log_and_drops_the_pool():
    from tpkit.explain.result import free_form_settings

    for said in (b"# each replica in a HAMi slice", b"resources: nvidia.com/gpumem: 38000",
                 b"[HAMI-core Msg(1:140:0)]: Initializing....."):
        assert free_form_settings(said)["memory_virtualiser"][0] == "HAMi", said
    assert "memory_virtualiser" not in free_form_settings(b"hamilton ham iHAMi nvidia.com/gpu: 1")
    plain = _explained("0.5.20")
    sliced = explain_log("# pod in a HAMi slice (nvidia.com/gpumem 38000)\n" + _LOG,
                         flags={"model": "Qwen/Qwen3-8B", "engine_version": "0.5.20", "gpu": "H100-SXM-80GB"})
    assert plain.anchored.stream_pool is not None and sliced.anchored.stream_pool is None
    assert not any(r.item.startswith("torch stream pool") for r in sliced.anchored.rows)
    shift = sliced.anchored.rest.mid.bytes - plain.anchored.rest.mid.bytes
    assert abs(shift - 0.15 * 70 * 2**20) <= 1  # the slack's share of the pool comes back to the budget


def test_memory_virtualiser_flag_says_what_the_pod_spec_says():
    """Helper miss24: a HAMi slice is set in the pod spec (``nvidia.com/gpumem``), which the log need not print;
    ``tpkit explain --memory-virtualiser HAMi`` tells explain, and the pool is dropped as for a log that names HAMi
    (the slack's share comes back to the budget).  Without the flag or the words the pool stays charged."""
    flags = {"model": "Qwen/Qwen3-8B", "engine_version": "0.5.20", "gpu": "H100-SXM-80GB"}
    plain = explain_log(_LOG, flags=flags)
    told = explain_log(_LOG, flags={**flags, "memory_virtualiser": "HAMi"})
    assert plain.anchored.stream_pool is not None and told.anchored.stream_pool is None
    assert told.context.values["memory_virtualiser"] == "HAMi"
    assert told.context.sources["memory_virtualiser"] == "flag --memory-virtualiser"
    assert told.context.contradictions == ()
    shift = told.anchored.rest.mid.bytes - plain.anchored.rest.mid.bytes
    assert abs(shift - 0.15 * 70 * 2**20) <= 1
    said = explain_log("# pod in a HAMi slice (nvidia.com/gpumem 38000)\n" + _LOG,
                       flags={**flags, "memory_virtualiser": "HAMi"})  # the log says it too: the log's line is kept
    assert said.context.sources["memory_virtualiser"].startswith("log line 1")


def test_memory_virtualiser_cli_takes_hami_in_any_case_and_refuses_other_names(tmp_path, capsys):
    import pytest

    from tpkit.cli import main

    log = tmp_path / "server.log"
    log.write_text(_LOG)
    base = ["explain", str(log), "--model", "Qwen/Qwen3-8B", "--engine-version", "0.5.20", "--gpu", "H100-SXM-80GB"]
    assert main(base + ["--memory-virtualiser", "hami", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"memory_virtualiser": "HAMi"' in out and '"memory_virtualiser": "flag --memory-virtualiser"' in out
    with pytest.raises(SystemExit) as exc:
        main(base + ["--memory-virtualiser", "mig"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--memory-virtualiser" in err and "'mig'" in err and "HAMi" in err and "Traceback" not in err
