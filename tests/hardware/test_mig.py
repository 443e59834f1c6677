"""MIG slices as GPUs (helper mig18, 2026-12-05): ``--gpu <catalog GPU>-MIG-<profile>`` (hardware.catalog), the
slice's CUDA total / SMs / bandwidth share from ``scripts/gpu_mig.py``, and the refusal of tp / pp > 1 on a slice."""

import importlib.util
import json
from pathlib import Path

import pytest

from tpkit.cli import main
from tpkit.engines.registry import get_engine
from tpkit.errors import PlanInputError, UnknownGpuError
from tpkit.hardware.catalog import list_gpus, list_mig_profiles, lookup_gpu, refuse_mig_layout
from tpkit.models import load_model
from tpkit.parallel import ParallelSpec
from tpkit.perf.device import device_rates

ROOT = Path(__file__).resolve().parents[2]
GIB = 2**30


def test_profile_lookup_every_spelling():
    """The documented form, the catalog name, torch's device name and a '+me' / dashed profile find one slice."""
    for name in ("A100-40GB-MIG-1g.5gb", "A100-SXM-40GB-MIG-1g.5gb", "NVIDIA A100-SXM4-40GB MIG 1g.5gb",
                 "a100-40gb mig 1g-5gb", "A100-40GB-MIG-1g.5gb+me"):
        gpu = lookup_gpu(name)
        assert gpu.name == "A100-SXM-40GB-MIG-1g.5gb", name
        assert gpu.total_bytes.bytes == round(4.75 * GIB)
        assert (gpu.sm_count, gpu.mig_parent, gpu.mig_profile, gpu.mig_memory_fraction) == (
            14, "A100-SXM-40GB", "1g.5gb", 1 / 8)
    h200 = lookup_gpu("NVIDIA H200 MIG 1g.18gb")
    assert (h200.total_bytes.bytes, h200.sm_count) == (16 * GIB, 16)
    assert lookup_gpu("H100-PCIe-80GB-MIG-1g.10gb").sm_count == 14  # the PCIe board's slice, not the SXM's 16
    assert lookup_gpu("H100-MIG-1g.10gb").sm_count == 16


def test_slice_has_no_links_and_is_not_a_catalog_card():
    gpu = lookup_gpu("H100-MIG-3g.40gb")
    assert gpu.nvlink_gbps_per_direction is None and gpu.pcie_p2p is False
    assert "vllm-project/vllm#7211" in gpu.source_of("mig")
    assert not gpu.total_printed  # a slice's total never names the GPU of a log's printed total
    assert all(g.mig_profile is None for g in list_gpus())
    assert "H100-SXM-80GB" in [g.name for g in list_gpus()]


def test_unknown_profile_lists_the_known_ones():
    with pytest.raises(UnknownGpuError) as err:
        lookup_gpu("A100-40GB-MIG-1g.6gb")
    text = str(err.value)
    assert "A100-SXM-40GB's MIG profiles: 1g.5gb, 1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb" in text
    assert "--gpu-memory" in text
    with pytest.raises(UnknownGpuError, match=r"1g.5gb is a profile of A100-SXM-40GB"):
        lookup_gpu("A100-MIG-1g.5gb")  # 'A100' is the 80GB board, whose 1g slice is 1g.10gb
    with pytest.raises(UnknownGpuError, match=r"knows no MIG profile of T4.*H200-SXM-141GB: 1g.18gb"):
        lookup_gpu("T4-MIG-1g.5gb")


def test_packaged_table_is_the_scripts_output():
    spec = importlib.util.spec_from_file_location("gpu_mig", ROOT / "scripts" / "gpu_mig.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    packaged = json.loads((ROOT / "src" / "tpkit" / "hardware" / "data" / "mig.json").read_text())
    assert packaged == json.loads(json.dumps(module.build()))
    for row in packaged["profiles"]:
        low, high = row["total_band_gib"]
        assert low <= row["total_gib"] <= high, row["profile"]
    assert len(list_mig_profiles()) == 48 and "H200-SXM-141GB-MIG-7g.141gb" in list_mig_profiles()


def test_tp_or_pp_above_one_is_refused_on_a_slice():
    gpu = lookup_gpu("A100-40GB-MIG-1g.5gb")
    refuse_mig_layout(gpu, tp=1)  # one slice: planned
    refuse_mig_layout(lookup_gpu("A100-40GB"), tp=8)  # a whole card: not this check's business
    for kw in ({"tp": 2}, {"pp": 2}, {"dp": 2}, {"num_gpus": 2}):
        with pytest.raises(PlanInputError, match=r"no peer access.*--gpu A100-SXM-40GB .*--tp 1"):
            refuse_mig_layout(gpu, **kw)


def test_cli_plan_and_perf_refuse_tp2_on_a_slice(capsys):
    assert main(["plan", "google/gemma-3-1b-it", "--gpu", "A100-40GB-MIG-1g.5gb", "--engine", "vllm", "--tp", "2"]) != 0
    assert "MIG slice has no peer access" in capsys.readouterr().err
    assert main(["perf", "google/gemma-3-1b-it", "--gpu", "H100-MIG-2g.20gb", "--engine", "vllm", "--tp", "2"]) != 0
    assert "vllm-project/vllm#7211" in capsys.readouterr().err


def test_cli_plan_on_a_slice(capsys):
    code = main(["plan", "google/gemma-3-1b-it", "--gpu", "A100-40GB-MIG-1g.5gb", "--engine", "vllm",
                 "--max-num-seqs", "32"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "GPU A100-SXM-40GB-MIG-1g.5gb (4.75 GiB" in out
    assert "nvidia-smi mig -lgip" in out


def test_planner_uses_the_slice_total():
    model, parallel = load_model("google/gemma-3-1b-it"), ParallelSpec(tp=1)
    engine = get_engine("vllm")
    options = engine.options(engine_version="0.10.1", gpu_memory_utilization=0.86, topk_topp_sampler="flashinfer")
    plan = engine.plan
    on_slice = plan(model, lookup_gpu("A100-40GB-MIG-1g.5gb"), parallel, options)
    whole = plan(model, lookup_gpu("A100-40GB"), parallel, options)
    device = next(item for item in on_slice.ledger.items if item.item == "device memory")
    assert device.bytes.bytes == round(4.75 * GIB)
    assert "MIG 1g.5gb" in device.source
    assert 0 < on_slice.kv_tokens < whole.kv_tokens / 10


def test_perf_uses_the_slice_bandwidth_and_compute_share():
    card, part = lookup_gpu("H100"), lookup_gpu("H100-MIG-1g.10gb")
    assert part.memory_bandwidth_tbps == pytest.approx(card.memory_bandwidth_tbps / 8, rel=1e-3)
    assert part.bf16_dense_tflops == pytest.approx(card.bf16_dense_tflops * 16 / 132, rel=1e-3)
    assert device_rates(part).hbm_bytes_per_s == pytest.approx(device_rates(card).hbm_bytes_per_s / 8, rel=1e-3)
    four = lookup_gpu("H100-MIG-4g.40gb")
    assert four.memory_bandwidth_tbps == pytest.approx(card.memory_bandwidth_tbps / 2, rel=1e-3)
    assert four.bf16_dense_tflops == pytest.approx(card.bf16_dense_tflops * 64 / 132, rel=1e-3)


def test_cuda_context_of_a_slice_is_sized_for_its_sms():
    """Every family cell of the start-up table was measured on whole cards; a slice takes the SM model with its own
    SMs (startup.terms.cuda_context), so a 16-SM H100 slice is charged far less than the hopper cell."""
    from tpkit.startup.terms import cuda_context

    card, part = cuda_context(lookup_gpu("H100")), cuda_context(lookup_gpu("H100-MIG-1g.10gb"))
    assert "cuda_context[hopper]" in card.source and "a MIG slice" in part.source
    assert part.bytes.bytes < card.bytes.bytes / 2
    assert cuda_context(lookup_gpu("H200-MIG-7g.141gb")).bytes.bytes > part.bytes.bytes


def test_a_log_that_names_a_slice_is_read_as_the_slice():
    """torch / nvidia-smi -L print 'NVIDIA A100-SXM4-40GB MIG 1g.5gb': the log reader names the slice, not the card."""
    from tpkit.logs.gpu_names import gpu_in

    assert gpu_in("GPU 0: NVIDIA A100-SXM4-40GB MIG 1g.5gb (UUID: MIG-1)") == (
        "NVIDIA A100-SXM4-40GB MIG 1g.5gb", "A100-SXM-40GB-MIG-1g.5gb")
    assert gpu_in("device NVIDIA H100 80GB HBM3 MIG 1g.10gb")[1] == "H100-SXM-80GB-MIG-1g.10gb"
    assert gpu_in("NVIDIA A100-SXM4-40GB MIG 1g.6gb") == ("NVIDIA A100-SXM4-40GB MIG 1g.6gb", None)
    assert gpu_in("|   0  NVIDIA A100-SXM4-40GB          On  | 00000000:00:04.0 Off |") == (
        "NVIDIA A100-SXM4-40GB", "A100-SXM-40GB")


def test_list_gpus_lists_the_slices(capsys):
    assert main(["plan", "--list-gpus", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [m["name"] for m in doc["mig_slices"]] == list(list_mig_profiles())
    assert main(["plan", "--list-gpus"]) == 0
    assert "MIG slices (--gpu <GPU>-MIG-<profile>" in capsys.readouterr().out


# --- helper mig18b (2026-12-05): no multi-GPU fix on a slice; vLLM 0.34's log of an empty extensible pool --------


def test_planner_refuses_tp_on_a_slice_so_no_replan_can_offer_it():
    """The refusal lives in the planners too (not only the CLI), so a fix re-planned at --tp 2 on a slice is refused
    like the re-run would be."""
    from tpkit.engines.sglang.options import SglangOptions
    from tpkit.engines.sglang.policy import plan_sglang
    from tpkit.engines.vllm.options import VllmOptions
    from tpkit.engines.vllm.policy import plan_vllm

    gpu, model = lookup_gpu("A100-40GB-MIG-1g.5gb"), load_model("google/gemma-3-1b-it")
    with pytest.raises(PlanInputError, match="MIG"):
        plan_vllm(model, gpu, ParallelSpec(tp=2), VllmOptions())
    with pytest.raises(PlanInputError, match="MIG"):
        plan_sglang(model, gpu, ParallelSpec(tp=2), SglangOptions())


def test_larger_slices_then_the_whole_card():
    from tpkit.engines.layoutfix import larger_gpus, tp_candidates

    names = [g.name for g in larger_gpus(lookup_gpu("A100-40GB-MIG-1g.5gb"))]
    assert names == ["A100-SXM-40GB-MIG-1g.10gb", "A100-SXM-40GB-MIG-2g.10gb", "A100-SXM-40GB-MIG-3g.20gb",
                     "A100-SXM-40GB-MIG-4g.20gb", "A100-SXM-40GB-MIG-7g.40gb", "A100-SXM-40GB"]
    assert larger_gpus(lookup_gpu("A100-SXM-40GB")) == ()
    assert tp_candidates(lookup_gpu("H100-MIG-3g.40gb"), 1) == () and tp_candidates(lookup_gpu("H100"), 1)[0] == 2


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_slice_verdict_names_a_larger_slice_not_tp(capsys, engine):
    code = main(["plan", "google/gemma-3-1b-it", "--engine", engine, "--gpu", "A100-40GB-MIG-1g.5gb", "--json"])
    verdict = json.loads(capsys.readouterr().out)["verdict"]
    assert code == 3 and not verdict["fits"]
    assert not any(f.startswith("--tp") for f in verdict["fixes"]) and "--tp" not in verdict["message"]
    assert "--gpu A100-SXM-40GB-MIG-1g.10gb" in verdict["fixes"] and "--gpu A100-SXM-40GB" in verdict["fixes"]
    assert "tensor parallelism across MIG instances is not supported" in verdict["message"]


def test_vllm_034_empty_extensible_pool_log_lines():
    """vLLM 0.34.0 wheel, read by helper mig18b: ``v1/engine/core.py`` ``_initialize_kv_caches`` groups the layers
    (``get_global_kv_cache_groups``: "Add N padding layers") before ``determine_available_memory`` ("Available KV
    cache memory", the reservation); with 0 blocks measured after warm-up ``finalize_extensible_kv_cache`` →
    ``shrink_kv_cache_configs`` → ``_check_enough_kv_cache_memory`` raises 'No available memory for the cache
    blocks' with the extensible hint before "GPU KV cache size" (``update_kv_cache_capacity``) or "Extended KV
    cache" (``extend_kv_cache``) is printed."""
    from tpkit.engines.vllm.options import VllmOptions
    from tpkit.engines.vllm.policy import plan_vllm

    result = plan_vllm(load_model("google/gemma-3-1b-it"), lookup_gpu("A100-40GB-MIG-1g.5gb"), ParallelSpec(),
                       VllmOptions(engine_version="0.34.0"))
    log = list(result.engine_log)
    assert result.kv_tokens == 0 and not result.verdict.fits
    assert [line.split(":")[0].split(" ")[0] for line in log] == ["Model", "Add", "Available", "No"], log
    assert log[-1].startswith("No available memory for the cache blocks. The extensible KV cache already takes all "
                              "device memory left after the model, its activations, CUDA graphs and warmup")
    assert not any(line.startswith(("GPU KV cache size", "Extended KV cache")) for line in log)
    assert "negative 'Available KV cache memory'" not in result.verdict.message
