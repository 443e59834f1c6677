"""xGMI (AMD Infinity Fabric) full mesh: the catalog facts, the link model against the published figures, the policy
choice and the default (helper xgmi, 2026-12-04; facts in scripts/gpu_xgmi.py, constants in tpkit.perf.constants)."""

import json

import pytest

from tpkit.cli import main
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.perf import plan as perf_plan
from tpkit.perf.allreduce import allgather_cost, allreduce_cost, make_link
from tpkit.perf.policy import available_policies, default_policy, policy_cost, CommSetup


def xgmi(gpu, world):
    g = lookup_gpu(gpu)
    return make_link(kind="xgmi", world=world, gpu_name=g.name, nvlink_gbps=None, pcie_gbps=g.pcie_gbps_per_direction,
                     compute_capability=None, xgmi_gbps_per_link=g.xgmi_gbps_per_link, xgmi_links=g.xgmi_links)


@pytest.mark.parametrize("name, per_link, links", [("MI300X", 64.0, 7), ("MI325X", 64.0, 7), ("MI355X", 76.8, 7)])
def test_catalog_pins_the_xgmi_mesh_with_a_source(name, per_link, links):
    g = lookup_gpu(name)
    assert (g.xgmi_gbps_per_link, g.xgmi_links) == (per_link, links)
    assert g.nvlink_gbps_per_direction is None
    assert "fully connected" in g.source_of("xgmi") or "full" in g.source_of("xgmi")


@pytest.mark.parametrize("name", ["H200", "RTX-PRO-6000", "A100"])
def test_nvidia_gpus_have_no_xgmi(name):
    g = lookup_gpu(name)
    assert g.xgmi_gbps_per_link is None and g.xgmi_links is None


def test_group_bandwidth_is_n_minus_1_dedicated_links():
    """8× MI300X: 7 × 64 × 0.73 = 327 GB/s usable (TransferBench 315–326); TP 4 uses 3 of the 7 links."""
    assert xgmi("MI300X", 8).link_gbps == pytest.approx(7 * 64 * 0.73)
    assert xgmi("MI300X", 4).link_gbps == pytest.approx(3 * 64 * 0.73)
    assert xgmi("MI355X", 4).link_gbps == pytest.approx(3 * 76.8 * 0.73)


# (GPU, world, bytes, published µs) — rccl-tests -G 1 on 8× MI300X (ROCm blog mi300x-rccl-xgmi, 2025-03-02)
RCCL_MI300X_8 = [(256, 6.77), (262144, 10.26), (1048576, 19.40), (2097152, 35.03), (4194304, 51.83)]
# vLLM custom all-reduce before its tuning: 8× MI355X (PR #39080 'vllm/us'), 4× MI300X (PR #19744 'baseline')
CUSTOM = [("MI355X", 8, 24576, 6.3), ("MI355X", 8, 98304, 7.6), ("MI355X", 8, 196608, 10.0),
          ("MI355X", 8, 393216, 13.1), ("MI355X", 8, 786432, 16.0),
          ("MI300X", 4, 2048, 7.18), ("MI300X", 4, 262144, 14.39), ("MI300X", 4, 1048576, 22.91),
          ("MI300X", 4, 4194304, 63.86), ("MI300X", 4, 8388608, 118.31)]


@pytest.mark.parametrize("nbytes, us", RCCL_MI300X_8, ids=lambda v: str(v))
def test_rccl_model_within_20_percent_of_the_published_8x_mi300x_curve(nbytes, us):
    assert abs(allreduce_cost(nbytes, xgmi("MI300X", 8), "nccl").us / us - 1) <= 0.20


@pytest.mark.parametrize("gpu, world, nbytes, us", CUSTOM, ids=lambda v: str(v))
def test_custom_allreduce_within_25_percent_of_published_vllm_timings(gpu, world, nbytes, us):
    link = xgmi(gpu, world)
    got = policy_cost(nbytes, link, "custom", CommSetup(link=link)).us
    assert abs(got / us - 1) <= 0.25


def test_oneshot_reads_one_message_per_dedicated_link():
    """Each rank reads S from each peer over its own link: the byte term is S / one link, whatever the group size."""
    s = 1 << 20
    t8 = allreduce_cost(s, xgmi("MI300X", 8), "custom_oneshot").us
    t4 = allreduce_cost(s, xgmi("MI300X", 4), "custom_oneshot").us
    assert t8 == pytest.approx(t4) == pytest.approx(6.0 + s / (64e9 * 0.73) * 1e6)


def test_policies_on_xgmi_custom_is_the_engine_default_symm_mem_is_not_available():
    link = xgmi("MI300X", 8)
    assert default_policy(link) == "custom"
    usable = {p: ok for p, ok, _ in available_policies(link, None)}
    assert usable == {"nccl": True, "custom": True, "oneshot": True, "symm_mem": False}
    # PCIe with 8 GPUs stays NCCL (engines refuse custom all-reduce there)
    pcie = make_link(kind="pcie", world=8, gpu_name="MI300X", nvlink_gbps=None, pcie_gbps=64.0,
                     compute_capability=None)
    assert default_policy(pcie) == "nccl"


def test_allgather_on_xgmi_uses_the_rccl_curve():
    cost = allgather_cost(8 * 14336, xgmi("MI300X", 8))
    assert 6.0 < cost.us < 10.0 and "xGMI" in cost.source


@pytest.mark.parametrize("gpu, world, needle", [("H200", 8, "no xGMI"), ("MI300X", 16, "needs 15 xGMI links")])
def test_bad_xgmi_requests_are_clear_errors(gpu, world, needle):
    g = lookup_gpu(gpu)
    with pytest.raises(PlanInputError, match=needle):
        make_link(kind="xgmi", world=world, gpu_name=g.name, nvlink_gbps=g.nvlink_gbps_per_direction,
                  pcie_gbps=g.pcie_gbps_per_direction, compute_capability=g.compute_capability,
                  xgmi_gbps_per_link=g.xgmi_gbps_per_link, xgmi_links=g.xgmi_links)


def test_default_link_is_xgmi_on_the_amd_meshes():
    """Both engines run their custom all-reduce over the xGMI mesh (docs/accuracy.md §4.4): the default link."""
    assert perf_plan.default_link_kind(lookup_gpu("MI300X")) == "xgmi"
    assert perf_plan.default_link_kind(lookup_gpu("MI355X")) == "xgmi"
    assert perf_plan.default_link_kind(lookup_gpu("RTX-PRO-6000")) == "pcie"
    assert perf_plan.default_link_kind(lookup_gpu("H200")) == "nvlink"


def test_cli_link_xgmi_runs_and_says_so(capsys):
    code = main(["perf", "deepseek-ai/DeepSeek-V3", "--gpu", "MI300X", "--tp", "8", "--link", "xgmi", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    d = json.loads(out)
    assert json.dumps(d).count("xgmi") >= 1 and "xGMI" in json.dumps(d)


def test_cli_link_xgmi_on_an_nvidia_gpu_exits_2(capsys):
    code = main(["perf", "deepseek-ai/DeepSeek-V3", "--gpu", "H200", "--tp", "8", "--link", "xgmi"])
    _, err = capsys.readouterr()
    assert code == 2 and "no xGMI" in err and "Traceback" not in err


@pytest.mark.parametrize("gpu, link", [("MI300X", None), ("RTX-4090", "pcie")])
def test_cli_symm_mem_off_nvlink_exits_2_instead_of_zero_tok_s(capsys, gpu, link):
    # torch symm-mem needs NVLink P2P (allreduce._symm prices it infinite elsewhere): forcing it on the xGMI mesh or
    # PCIe printed "0.0 tok/s, step inf ms"; now a clear refusal.  On NVLink it still runs.
    argv = ["perf", "Qwen/Qwen2.5-7B-Instruct", "--gpu", gpu, "--tp", "4", "--allreduce-backend", "symm_mem"]
    code = main(argv + (["--link", link] if link else []))
    _, err = capsys.readouterr()
    assert code == 2 and "needs NVLink P2P" in err and "Traceback" not in err
    assert main(["perf", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "H200", "--tp", "4", "--allreduce-backend",
                 "symm_mem", "--json"]) == 0
    assert json.loads(capsys.readouterr()[0])["allreduce"]["backend"] == "symm_mem"
