"""Snapshots, the fake probe and the imbalance rule (pure, no process group)."""

import pytest

from tpkit.errors import RuntimeSetupError
from tpkit.runtime.balance import (
    GroupMemory,
    RankMemory,
    allow_imbalance_from_env,
    format_group_table,
    imbalance_message,
)
from tpkit.runtime.probe import FakeProbe, MemoryProbe, MemorySnapshot, ProcessUsage
from tpkit.units import Bytes, GiB, MiB


def _rank(rank: int, free_gib: float, procs=()) -> RankMemory:
    snap = FakeProbe(total_bytes=GiB(80), free_bytes=GiB(free_gib), device_index=rank, processes=procs).snapshot()
    return RankMemory(rank=rank, hostname="h", snapshot=snap)


def test_fake_probe_scripts_successive_values_and_derives_others():
    p = FakeProbe(total_bytes=GiB(80), free_bytes=[GiB(70), GiB(60)], used_by_this_process_bytes=GiB(2))
    assert isinstance(p, MemoryProbe)
    first, second, third = p.snapshot(), p.snapshot(), p.snapshot()
    assert (first.free_bytes, second.free_bytes, third.free_bytes) == (GiB(70), GiB(60), GiB(60))
    assert second.used_by_others_bytes == GiB(80) - GiB(60) - GiB(2)
    assert second.used_bytes == GiB(20) and p.calls == 3


def test_fake_probe_rejects_impossible_numbers():
    with pytest.raises(RuntimeSetupError, match="between 0 and total"):
        FakeProbe(total_bytes=GiB(80), free_bytes=GiB(81))
    with pytest.raises(RuntimeSetupError, match="at least one"):
        FakeProbe(total_bytes=GiB(80), free_bytes=[])


def test_snapshot_round_trips_through_dict_and_into_gpu_state():
    procs = (ProcessUsage(pid=7, name="vllm", used_bytes=MiB(512)), ProcessUsage(pid=8, name="x", used_bytes=None))
    snap = FakeProbe(total_bytes=GiB(80), free_bytes=GiB(50), device_index=3, processes=procs).snapshot()
    again = MemorySnapshot.from_dict(snap.to_dict())
    assert again == snap
    state = snap.to_gpu_state()
    assert state.index == 3 and state.free_bytes == GiB(50) and state.processes[0]["used_bytes"] == 512 * 2**20
    assert "pid 7 (vllm) 512.00 MiB" in snap.describe_processes() and "unknown amount" in snap.describe_processes()


@pytest.mark.parametrize(
    "frees, ratio, trips",
    [([70, 70], 0.9, False), ([70, 63.1], 0.9, False), ([70, 62.9], 0.9, True), ([70, 62.9], 0.8, False),
     ([50, 70, 70, 70], 0.9, True), ([70], 0.9, False)],
)
def test_imbalance_rule_is_min_below_local_times_ratio(frees, ratio, trips):
    ranks = tuple(_rank(r, f) for r, f in enumerate(frees))
    assert (imbalance_message(ranks, ratio) is not None) is trips


def test_imbalance_message_names_short_rank_every_rank_and_its_users():
    squatter = (ProcessUsage(pid=99, name="jupyter", used_bytes=GiB(25)),)
    ranks = (_rank(0, 70), _rank(1, 70), _rank(2, 45, squatter), _rank(3, 69))
    msg = imbalance_message(ranks, 0.9)
    assert "rank 2 has 45.00 GiB free" in msg and "rank(s) 0, 1, 3" in msg
    assert "pid 99 (jupyter) 25.00 GiB" in msg and "TPKIT_ALLOW_MEMORY_IMBALANCE=1" in msg
    assert msg.count("\n  rank ") == 4


def test_bad_ratio_raises():
    with pytest.raises(RuntimeSetupError, match="imbalance_ratio"):
        imbalance_message((_rank(0, 1),), 1.5)


@pytest.mark.parametrize("value, allowed", [("1", True), ("true", True), ("YES", True), ("0", False), ("", False)])
def test_env_switch_values(value, allowed):
    assert allow_imbalance_from_env({"TPKIT_ALLOW_MEMORY_IMBALANCE": value}) is allowed


def test_env_switch_rejects_unreadable_value():
    with pytest.raises(RuntimeSetupError, match="TPKIT_ALLOW_MEMORY_IMBALANCE must be"):
        allow_imbalance_from_env({"TPKIT_ALLOW_MEMORY_IMBALANCE": "maybe"})


def test_group_memory_min_table_and_machine_profile():
    g = GroupMemory(ranks=(_rank(0, 70), _rank(1, 66), _rank(2, 66)), local_rank=0, imbalance_ratio=0.9)
    assert g.min_rank.rank == 1 and g.min_free_bytes == GiB(66)  # lowest rank wins ties
    table = format_group_table(g)
    assert "← min" in table.splitlines()[2] and "min free: rank 1, 66.00 GiB" in table
    prof = g.to_machine_profile()
    assert len(prof.gpus) == 3 and prof.min_free.free_bytes == GiB(66)
    assert Bytes(sum(x.free_bytes.bytes for x in prof.gpus)) == GiB(202)
