"""``tpkit.comm.plan``: which backends ``AllReduce.create`` would start, and their buffer lines (pure, CPU)."""

import pytest

import tpkit.comm.registry as registry
from tpkit.comm.ledger import DEFAULT_MAX_BLOCKS, SIGNAL_PAD_BYTES, allreduce_buffer_lines
from tpkit.comm.plan import describe_skipped, plan_allreduce, planned_allreduce_lines
from tpkit.errors import ConfigError, PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.hardware.machine import GpuState, MachineProfile
from tpkit.hardware.topology import Topology
from tpkit.units import GiB, MiB

BACKENDS = registry.names()
CUSTOM_BACKENDS = {r.name for r in registry.ROWS.values() if r.peer_memory}

ALL_CUSTOM = ("one_shot", "one_shot_pull", "two_shot", "symm_mem_one_shot", "symm_mem_two_shot")
FORCE = {"TPKIT_ALLREDUCE_FORCE_PCIE": "1"}
H100, L40S = (9, 0), (8, 9)

# world size, gpu_has_nvlink, full_nvlink, p2p, compute capability, env → backends with buffer lines
CASES = [
    pytest.param(1, True, None, None, H100, {}, (), id="ws1-nothing"),
    pytest.param(2, False, None, None, L40S, {}, ALL_CUSTOM, id="ws2-pcie-allowed"),
    pytest.param(2, True, None, None, H100, {}, ALL_CUSTOM, id="ws2-nvlink"),
    pytest.param(4, False, None, None, L40S, {}, (), id="ws4-pcie-skipped"),
    pytest.param(4, False, None, None, L40S, FORCE, ALL_CUSTOM, id="ws4-pcie-forced"),
    pytest.param(4, True, None, None, H100, {}, ALL_CUSTOM, id="ws4-nvlink-assumed-full"),
    pytest.param(4, True, False, None, H100, {}, (), id="ws4-measured-partial-nvlink"),
    pytest.param(4, False, True, None, H100, {}, ALL_CUSTOM, id="ws4-measured-full-nvlink"),
    pytest.param(6, True, None, None, H100, {}, ALL_CUSTOM[:4], id="ws6-no-symm-two-shot"),
    pytest.param(8, True, None, None, H100, {}, ALL_CUSTOM, id="ws8-nvlink"),
    pytest.param(16, True, None, None, H100, {}, (), id="ws16-above-8"),
    pytest.param(2, False, None, False, L40S, {}, (), id="ws2-no-p2p"),
    pytest.param(2, True, None, None, None, {}, (), id="cc-unknown"),
    pytest.param(2, False, None, None, (7, 5), {}, (), id="cc-7.5"),
]


@pytest.mark.parametrize("ws, nvlink, full, p2p, cc, env, expected", CASES)
def test_backends_and_lines_table(ws, nvlink, full, p2p, cc, env, expected):
    lines = planned_allreduce_lines(world_size=ws, max_bytes=MiB(8), gpu_has_nvlink=nvlink, full_nvlink=full,
                                    compute_capability=cc, env=env, p2p=p2p)
    assert [l.item for l in lines] == [f"all-reduce {n} buffers" for n in expected]
    assert all(l.kind == "use" for l in lines)
    # sizes are exactly what the started backends report at run time (AllReduce.ledger_lines)
    runtime = allreduce_buffer_lines(ws, MiB(8), expected, max_blocks=DEFAULT_MAX_BLOCKS)
    assert [l.bytes for l in lines] == [l.bytes for l in runtime]


@pytest.mark.parametrize("ws", [2, 4, 8])
def test_sizes_match_the_formulas(ws):
    cap, gran = MiB(8).bytes, MiB(2).bytes
    lines = {l.item.split()[1]: l.bytes.bytes for l in planned_allreduce_lines(
        world_size=ws, max_bytes=MiB(8), gpu_has_nvlink=True, full_nvlink=None, compute_capability=H100, env={})}

    def symm(buf: int) -> int:
        return -(-(buf + SIGNAL_PAD_BYTES.bytes) // gran) * gran

    assert lines == {"one_shot": symm(2 * ws * cap) + 4 * DEFAULT_MAX_BLOCKS,
                     "one_shot_pull": symm(2 * cap) + 4 * DEFAULT_MAX_BLOCKS,
                     "two_shot": symm(4 * cap) + 4 * DEFAULT_MAX_BLOCKS,
                     "symm_mem_one_shot": symm(cap), "symm_mem_two_shot": symm(cap)}
    assert lines["one_shot"] == {2: 34, 4: 66, 8: 130}[ws] * 2**20 + 512


def test_sources_say_what_was_assumed():
    nv = planned_allreduce_lines(world_size=4, max_bytes=MiB(8), gpu_has_nvlink=True, full_nvlink=None,
                                 compute_capability=H100, env={})
    assert all("full NVLink mesh (HGX)" in l.source and "TP group of 4" in l.source for l in nv)
    measured = planned_allreduce_lines(world_size=2, max_bytes=MiB(8), gpu_has_nvlink=False, full_nvlink=False,
                                       p2p=True, compute_capability=L40S, env={})
    assert all("(measured)" in l.source and "assumed" not in l.source for l in measured)
    plan = plan_allreduce(world_size=2, max_bytes=MiB(8), gpu_has_nvlink=False, full_nvlink=None,
                          compute_capability=L40S, env={})
    assert not plan.topology.full_nvlink and plan.topology.p2p and "PCIe assumed" in plan.topology_note


def test_backends_subset_and_describe_skipped():
    plan = plan_allreduce(world_size=2, max_bytes=MiB(8), gpu_has_nvlink=True, full_nvlink=None,
                          compute_capability=H100, env={}, backends=("nccl", "one_shot"))
    assert plan.started == ("nccl", "one_shot") and [l.item for l in plan.lines] == ["all-reduce one_shot buffers"]
    pcie = plan_allreduce(world_size=4, max_bytes=MiB(8), gpu_has_nvlink=False, full_nvlink=None,
                          compute_capability=L40S, env={})
    assert pcie.started == ("nccl",) and {n for n, _ in pcie.skipped} == CUSTOM_BACKENDS
    text = describe_skipped(pcie)
    assert "PCIe rule" in text and "TPKIT_ALLREDUCE_FORCE_PCIE=1" in text and text.count("PCIe rule") == 1
    assert describe_skipped(plan) == ""


@pytest.mark.parametrize("kw, err, needle", [
    ({"world_size": 0}, PlanInputError, "world size"),
    ({"max_bytes": 0}, PlanInputError, "max_bytes"),
    ({"backends": ("nccl", "warp")}, PlanInputError, "warp"),
    ({"env": {"TPKIT_ALLREDUCE_FORCE_PCIE": "maybe"}}, ConfigError, "FORCE_PCIE"),
])
def test_bad_input(kw, err, needle):
    args = dict(world_size=2, max_bytes=MiB(8), gpu_has_nvlink=True, full_nvlink=None, compute_capability=H100,
                env={}) | kw
    with pytest.raises(err, match=needle):
        planned_allreduce_lines(**args)


@pytest.mark.parametrize("ws, nvlink, full, p2p, cc, env, expected", CASES)
def test_same_rules_as_allreduce_create(monkeypatch, ws, nvlink, full, p2p, cc, env, expected):
    """``AllReduce.create``'s start-up loop, with the backends faked, starts exactly the planned backends."""
    torch = pytest.importorskip("torch")
    from tpkit.comm import allreduce
    from tpkit.comm.env import parse_env

    class Fake:
        def __init__(self, name):
            self.name = name

        def ledger_lines(self):
            return allreduce_buffer_lines(ws, MiB(8), [self.name])

    monkeypatch.setattr(allreduce, "start_backend", lambda name, group, **kw: Fake(name))
    monkeypatch.setattr(allreduce, "_all_ranks_ok", lambda ok, group, device: True)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: cc)
    plan = plan_allreduce(world_size=ws, max_bytes=MiB(8), gpu_has_nvlink=nvlink, full_nvlink=full, p2p=p2p,
                          compute_capability=cc, env=env)
    started, skipped = allreduce._start_all(BACKENDS, None, MiB(8), torch.device("cuda", 0), ws,
                                            plan.topology, parse_env(env), {})
    assert tuple(started) == plan.started
    assert dict(plan.skipped) == {n: why for n, why in skipped.items() if n in CUSTOM_BACKENDS}
    assert skipped["gloo"] == "needs tensors on the CPU; this group's are on the GPU"
    runtime = tuple(line for b in started.values() for line in b.ledger_lines())
    assert [l.bytes for l in runtime] == [l.bytes for l in plan.lines]


@pytest.mark.parametrize("ws, nvlink, full, p2p, cc, env, expected", CASES)
def test_topology_keyword_gives_the_keywords_answer(ws, nvlink, full, p2p, cc, env, expected):
    """``topology=`` (the one topology model) and the older keywords plan the same backends and bytes."""
    topo = Topology.uniform(max(ws, 1), nvlink=nvlink if full is None else full, p2p=True if p2p is None else p2p,
                            compute_capability=cc, source="test",
                            assumed=frozenset({"nvlink"} if full is None else set()) | ({"p2p"} if p2p is None else set()))
    by_topology = plan_allreduce(world_size=ws, max_bytes=MiB(8), topology=topo, env=env)
    by_keywords = plan_allreduce(world_size=ws, max_bytes=MiB(8), gpu_has_nvlink=nvlink, full_nvlink=full, p2p=p2p,
                                 compute_capability=cc, env=env)
    assert by_topology.lines == by_keywords.lines and by_topology.started == by_keywords.started


def _profile(links, p2p=None, cc=(9, 0)):
    gpus = tuple(GpuState(index=i, name="NVIDIA H200", total_bytes=GiB(140), free_bytes=GiB(139),
                          compute_capability=cc) for i in range(len(links)))
    return MachineProfile(gpus=gpus, nvlink_links=links, p2p_access=p2p or ((True,) * len(links),) * len(links))


def test_machine_profile_topology_decides_the_group_not_the_machine():
    """GPUs 0-1 share NVLink, GPU 2 hangs off PCIe: a TP-2 group is a full mesh, a TP-3 group is not."""
    topo = Topology.from_machine_profile(_profile(((0, 18, 0), (18, 0, 0), (0, 0, 0))), where="m.json")
    two = plan_allreduce(world_size=2, max_bytes=MiB(8), topology=topo, env={})
    three = plan_allreduce(world_size=3, max_bytes=MiB(8), topology=topo, env={})
    assert two.topology.full_nvlink and two.topology.min_nvlink_links == 18 and "(measured)" in two.topology_note
    assert not three.topology.full_nvlink and three.started == ("nccl",)
    assert topo.source == "machine profile m.json"
    with pytest.raises(PlanInputError, match="has 3 GPUs but the all-reduce group needs 4"):
        plan_allreduce(world_size=4, max_bytes=MiB(8), topology=topo, env={})


def test_catalog_topology_names_its_assumption():
    h200, l40s = lookup_gpu("H200"), lookup_gpu("L40S")
    topo = Topology.from_catalog(h200, num_gpus=4)
    assert "assumed a full NVLink mesh" in topo.source and topo.group().min_nvlink_links is None
    plan = plan_allreduce(world_size=4, max_bytes=MiB(8), topology=topo, env={})
    assert plan.topology.full_nvlink and "full NVLink mesh (HGX)" in plan.topology_note
    assert not Topology.from_catalog(l40s, num_gpus=4).group().full_nvlink


def test_max_bytes_is_one_type():
    with pytest.raises(PlanInputError, match="max_bytes must be a size"):
        plan_allreduce(world_size=2, max_bytes=8 << 20, gpu_has_nvlink=True, compute_capability=H100, env={})
