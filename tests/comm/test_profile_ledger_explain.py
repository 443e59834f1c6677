"""Bench profiles (JSON round trip, shipped defaults), buffer ledger lines, explain, topology (pure, CPU)."""

import json
from pathlib import Path

import pytest

from tpkit.comm.explain import explain_backends, format_explain
from tpkit.comm.ledger import allreduce_buffer_lines, symm_allocation_bytes
from tpkit.comm.profile import BenchProfile, ProfileRow, default_profile, load_profile, profile_from_dict, profile_to_dict
from tpkit.comm.registry import names
from tpkit.errors import ConfigError
from tpkit.hardware.topology import GroupTopology
from tpkit.units import Bytes, GiB, KiB, MiB

BACKENDS = names()
NVLINK_SINGLE_NODE = GroupTopology(full_nvlink=True, p2p=True, compute_capability=(9, 0))
MEASURED = Path(__file__).resolve().parent / "data" / "h200x2-startup-memory-and-graph-allreduce.json"
"""copied from the team's shared measurements (source noted in data/README.md)"""


def _prof():
    rows = (ProfileRow(nbytes=KiB(1), time_us=(("one_shot", 2.5), ("nccl", 7.0))),
            ProfileRow(nbytes=KiB(2), time_us=(("one_shot", 2.9), ("nccl", 7.5))),
            ProfileRow(nbytes=MiB(4), time_us=(("one_shot_pull", 21.0), ("nccl", 35.0), ("one_shot", 28.0))))
    return BenchProfile(source="unit test", world_sizes=((2, rows),), link_ceiling_gbps=450.0)


def test_profile_round_trip(tmp_path):
    p = tmp_path / "prof.json"
    p.write_text(json.dumps(profile_to_dict(_prof())))
    back = load_profile(p)
    assert back.rows(2)[2].order() == ("one_shot_pull", "one_shot", "nccl")  # re-sorted by time
    assert back.rows(2)[0].nbytes == KiB(1) and back.link_ceiling_gbps == 450.0
    assert back.row_for(2, Bytes(1500)).nbytes == KiB(2) and back.row_for(2, GiB(1)).nbytes == MiB(4)
    assert back.row_for(8, KiB(1)) is None


def test_profile_unknown_key_and_bad_files(tmp_path):
    raw = profile_to_dict(_prof())
    with pytest.raises(ConfigError, match="unknown keys \\['colour'\\]"):
        profile_from_dict({**raw, "colour": "red"})
    raw["world_sizes"]["2"]["rows"][0]["extra"] = 1
    with pytest.raises(ConfigError, match="exactly the keys"):
        profile_from_dict(raw)
    with pytest.raises(ConfigError, match="does not exist"):
        load_profile(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_profile(tmp_path / "bad.json")


def test_eager_rows_round_trip():
    prof = BenchProfile(source="t", world_sizes=_prof().world_sizes,
                        eager_world_sizes=((2, (ProfileRow(nbytes=KiB(1), time_us=(("nccl", 30.0),)),)),))
    back = profile_from_dict(json.loads(json.dumps(profile_to_dict(prof))))
    assert back.rows(2, "eager")[0].order() == ("nccl",) and back.rows(2)[0].order()[0] == "one_shot"
    assert "eager_world_sizes" not in profile_to_dict(_prof())


def test_shipped_defaults_cover_world_size_2_from_1KiB_to_256MiB():
    prof = default_profile()
    rows = prof.rows(2)
    assert rows[0].nbytes == KiB(1) and rows[-1].nbytes == MiB(256) and prof.mode == "graph"
    assert all(set(r.order()) <= set(BACKENDS) for r in rows)
    assert {"nccl", "symm_mem_one_shot"} <= set(rows[0].order())


def test_symm_buffer_bytes_match_the_h200_measurement():
    """8 MiB symmetric buffer + rendezvous took exactly this much free memory on 2×H200."""
    steps = json.loads(MEASURED.read_text())["memory_steps"]
    drop = steps["after_cublas_matmul"]["free"] - steps["after_symm_mem_8MiB"]["free"]
    assert symm_allocation_bytes(MiB(8)) == Bytes(drop)


def test_buffer_lines_per_backend():
    lines = {l.item: l for l in allreduce_buffer_lines(2, MiB(8), BACKENDS, max_blocks=128)}
    assert set(lines) == {f"all-reduce {n} buffers" for n in
                          ("one_shot", "one_shot_pull", "two_shot", "symm_mem_one_shot", "symm_mem_two_shot")}
    assert lines["all-reduce symm_mem_one_shot buffers"].bytes == MiB(10)
    assert lines["all-reduce one_shot buffers"].bytes == MiB(34) + Bytes(512)   # 2 slots × 2 ranks × 8 MiB
    assert lines["all-reduce two_shot buffers"].bytes == MiB(34) + Bytes(512)   # 2 × (in + out) × 8 MiB
    assert lines["all-reduce one_shot_pull buffers"].bytes == MiB(18) + Bytes(512)
    assert all(l.kind == "use" and "signal pad" in l.source for l in lines.values())
    eight = {l.item: l.bytes for l in allreduce_buffer_lines(8, MiB(8), ["one_shot"], max_blocks=128)}
    assert eight["all-reduce one_shot buffers"] == MiB(130) + Bytes(512)
    assert allreduce_buffer_lines(1, GiB(1), BACKENDS) == ()
    assert allreduce_buffer_lines(2, MiB(8), ["nccl", "gloo"]) == ()


def test_explain_lists_ranges_and_reasons():
    uses = {u.backend: u for u in explain_backends(
        world_size=2, dtype="bf16", topology=NVLINK_SINGLE_NODE, profile=_prof(),
        env={}, available={"one_shot": MiB(8), "one_shot_pull": MiB(8), "nccl": None},
        skipped_at_init={"symm_mem_one_shot": "rendezvous failed"},
        sizes=[KiB(1), KiB(2), MiB(4), MiB(16)])}
    assert uses["one_shot"].ranges == ((KiB(1), KiB(2)),)
    assert uses["one_shot_pull"].ranges == ((MiB(4), MiB(4)),)
    assert uses["nccl"].note == "used for sizes 16.00 MiB..16.00 MiB"
    assert uses["symm_mem_one_shot"].note == "skipped at init: rendezvous failed"
    assert uses["two_shot"].note.startswith("skipped: not started")
    text = format_explain(uses.values())
    assert "one_shot" in text and "used for sizes 1.00 KiB..2.00 KiB" in text


def test_explain_pcie_reason():
    uses = {u.backend: u for u in explain_backends(
        world_size=4, dtype="bf16", topology=GroupTopology(full_nvlink=False, p2p=True, compute_capability=(9, 0)),
        profile=None, env={}, available={"one_shot": MiB(8), "nccl": None}, sizes=[Bytes(4096)])}
    assert "PCIe rule" in uses["one_shot"].note and uses["nccl"].ranges


@pytest.mark.parametrize("change", [
    lambda raw: raw["world_sizes"]["2"]["rows"][0].update(time_us=[1.0]),
    lambda raw: raw["world_sizes"]["2"]["rows"][0].update(bytes="1KiB"),
    lambda raw: raw["world_sizes"]["2"]["rows"][0].update(time_us={}),
    lambda raw: raw["world_sizes"].update(two={"rows": []}),
    lambda raw: raw["world_sizes"]["2"].pop("rows"),
])
def test_malformed_profile_values_are_config_errors(change):
    """These raised AttributeError/ValueError/KeyError/IndexError (a traceback) before."""
    raw = profile_to_dict(_prof())
    change(raw)
    with pytest.raises(ConfigError):
        profile_from_dict(raw)


def test_profile_with_an_unknown_backend_is_refused():
    """Profile rows name registry backends; a typo used to be carried into dispatch silently."""
    raw = profile_to_dict(_prof())
    raw["world_sizes"]["2"]["rows"][0]["time_us"]["one_shoot"] = 1.0
    with pytest.raises(ConfigError, match="unknown backends \\['one_shoot'\\]"):
        profile_from_dict(raw)


def test_profile_that_is_not_an_object_or_not_a_file(tmp_path):
    with pytest.raises(ConfigError, match="JSON object"):
        profile_from_dict([1, 2])
    with pytest.raises(ConfigError, match="is a directory"):  # said so since helper tidy32 (was "cannot be read")
        load_profile(tmp_path)


def test_plot_is_written_whole_and_in_the_format_of_its_extension(tmp_path):
    pytest.importorskip("matplotlib")
    from types import SimpleNamespace

    from tpkit.comm.benchreport import plot_rows

    rows = [SimpleNamespace(nbytes=n, backend=b, mode="graph", time_us=t)
            for n in (KiB(1), KiB(2)) for b, t in (("nccl", 20.0), ("one_shot", 8.0))]
    plot_rows(rows, str(tmp_path / "lat.png"), world=2, chosen={KiB(1): "one_shot", KiB(2): "one_shot"})
    plot_rows(rows, str(tmp_path / "lat.svg"), world=2, chosen={})
    assert (tmp_path / "lat.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in (tmp_path / "lat.svg").read_bytes()[:1000]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lat.png", "lat.svg"]
