"""The all-reduce backend registry: one row per backend, read by dispatch, start-up, ledger, env, bench and
profiles.  A toy CPU backend (one file, ``toy_allreduce_backend.py``, plus one row) shows up in all of them."""

import pytest

import tpkit.comm.registry as registry
from tpkit.comm.dispatch import choose_allreduce, default_order
from tpkit.comm.env import parse_env
from tpkit.comm.explain import explain_backends
from tpkit.comm.ledger import allreduce_buffer_lines, symm_allocation_bytes
from tpkit.comm.profile import profile_from_dict
from tpkit.errors import PlanInputError
from tpkit.hardware.topology import Topology
from tpkit.units import KiB, MiB

TOY = registry.BackendRow(name="toy_cpu", module="toy_allreduce_backend", dtypes=frozenset({"bf16", "fp32"}),
                          device="cpu", peer_memory=False, crossover="fallback", env_name="toy", slots=1,
                          buffer_note="toy staging buffer: 1 × capacity")
CPU2 = Topology.cpu(2).group()


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setattr(registry, "ROWS", dict(registry.ROWS))
    return registry.register(TOY)


def test_the_rules_are_stated_once():
    assert registry.MAX_PEER_WORLD_SIZE == 8 and registry.MIN_COMPUTE_CAPABILITY == (8, 0)
    assert registry.row("symm_mem_two_shot").world_sizes == (2, 4, 8)
    assert [r.name for r in registry.ROWS.values() if r.peer_memory] == [
        "one_shot", "one_shot_pull", "two_shot", "symm_mem_one_shot", "symm_mem_two_shot"]
    with pytest.raises(PlanInputError, match="unknown all-reduce backend 'warp'"):
        registry.row("warp")
    with pytest.raises(PlanInputError, match="already registered"):
        registry.register(registry.row("nccl"))


def test_toy_backend_is_in_dispatch_env_and_explain(toy):
    assert registry.names()[-1] == "toy_cpu" and "toy" in registry.env_choices()
    assert parse_env({"TPKIT_ALLREDUCE": "toy"}).allowed() == ("toy_cpu",)
    avail = {"toy_cpu": None, "gloo": None}
    d = choose_allreduce(nbytes=KiB(4), dtype="bf16", world_size=2, topology=CPU2, profile=None, env={}, available=avail)
    assert d.backend == "toy_cpu"  # a "fallback" row comes before gloo ("last") in the published order
    assert "toy_cpu" in default_order(2, MiB(64))[0][:2]
    forced = choose_allreduce(nbytes=KiB(4), dtype="fp16", world_size=2, topology=CPU2, profile=None,
                              env={"TPKIT_ALLREDUCE": "toy"}, available=avail)
    assert forced.backend == "gloo" and "fp16 is not supported by toy_cpu" in forced.reason
    uses = {u.backend: u for u in explain_backends(world_size=2, dtype="bf16", topology=CPU2, profile=None, env={},
                                                   available=avail, sizes=[KiB(1), KiB(2)])}
    assert uses["toy_cpu"].ranges == ((KiB(1), KiB(2)),) and uses["gloo"].note.startswith("never chosen")


def test_toy_backend_is_in_the_ledger_and_profiles(toy):
    (line,) = allreduce_buffer_lines(2, MiB(1), ["toy_cpu", "gloo"])
    assert line.item == "all-reduce toy_cpu buffers" and line.bytes == symm_allocation_bytes(MiB(1))
    assert line.source.startswith("toy staging buffer: 1 × capacity")
    raw = {"version": 1, "world_sizes": {"2": {"rows": [{"bytes": 1024, "time_us": {"toy_cpu": 5.0, "gloo": 9.0}}]}}}
    assert profile_from_dict(raw).rows(2)[0].order() == ("toy_cpu", "gloo")


def test_toy_backend_is_a_bench_choice(toy):
    from tpkit.cli import build_parser
    from tpkit.cli.bench import options_from_args

    pytest.importorskip("torch")
    args = build_parser().parse_args(["bench", "allreduce", "--device", "cpu", "--backend", "toy_cpu"])
    assert options_from_args(args)["backends"] == ("toy_cpu",)


def test_unknown_bench_backend_lists_the_toy(toy, capsys):
    from tpkit.cli import main

    assert main(["bench", "allreduce", "--device", "cpu", "--backend", "fastest"]) == 2
    assert "toy_cpu" in capsys.readouterr().err


def test_toy_backend_starts_and_runs_in_an_allreduce(toy):
    torch = pytest.importorskip("torch")
    import torch.distributed as dist

    from tpkit.comm.allreduce import AllReduce

    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        ar = AllReduce.create(max_bytes=MiB(1), backends=("toy_cpu", "gloo", "one_shot"), env={})
        assert sorted(ar.backends) == ["gloo", "toy_cpu"]
        assert ar.skipped["one_shot"].startswith("needs tensors on the GPU")
        x = torch.arange(8, dtype=torch.float32)
        assert torch.equal(ar(x, backend="toy_cpu"), x) and ar.backends["toy_cpu"].calls == 1
    finally:
        dist.destroy_process_group()
