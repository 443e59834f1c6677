"""Every dispatch rule and every fallback of tpkit.comm.dispatch, table-driven (pure, CPU)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tpkit.comm.dispatch import BACKENDS, CUSTOM_BACKENDS, choose_allreduce, default_order, normalize_dtype
from tpkit.comm.env import parse_env
from tpkit.comm.profile import BenchProfile, ProfileRow
from tpkit.comm.topology import CommTopology
from tpkit.errors import ConfigError, PlanInputError, RuntimeSetupError
from tpkit.units import KiB, MiB, UnitError

NVL = CommTopology(full_nvlink=True, p2p=True)
PCIE = CommTopology(full_nvlink=False, p2p=True)
NO_P2P = CommTopology(full_nvlink=False, p2p=False)
TWO_NODES = CommTopology(full_nvlink=True, p2p=True, num_nodes=2)
CAP = MiB(8)
ALL = {name: (None if name in ("nccl", "gloo") else CAP) for name in BACKENDS if name != "gloo"}


def _profile(ws=2):
    """one_shot fastest up to 64 KiB, symm_mem_two_shot at 1 MiB, nccl at 64 MiB."""
    def row(n, **t):
        return ProfileRow(nbytes=n, time_us=tuple(sorted(t.items(), key=lambda kv: kv[1])))
    rows = (
        row(KiB(64), one_shot=3.0, symm_mem_one_shot=6.0, nccl=8.0, two_shot=9.0),
        row(MiB(1), symm_mem_two_shot=10.0, one_shot=12.0, nccl=16.0, symm_mem_one_shot=15.0),
        row(MiB(64), nccl=250.0, one_shot_pull=260.0, symm_mem_two_shot=280.0),
    )
    return BenchProfile(source="test", world_sizes=((ws, rows),))


def decide(nbytes, *, dtype="bf16", ws=2, topo=NVL, cc=(9, 0), profile=None, env=None, available=None):
    return choose_allreduce(nbytes=nbytes, dtype=dtype, world_size=ws, topology=topo, compute_capability=cc,
                            profile=profile, env=env or {}, available=ALL if available is None else available)


CASES = [
    # (id, kwargs, expected backend, text the reason must contain)
    ("world size 1", dict(nbytes=4096, ws=1), "none", "world size 1"),
    ("not a multiple of 16", dict(nbytes=1000), "nccl", "not a multiple of 16"),
    ("exceeds the buffer", dict(nbytes=MiB(9).bytes), "nccl", "exceeds its 8.00 MiB"),
    ("fp16 skips torch symm-mem", dict(nbytes=4096, dtype="fp16",
                                       available={"symm_mem_one_shot": CAP, "nccl": None}), "nccl",
     "fp16 is not supported by symm_mem_one_shot"),
    ("fp16 takes tpkit one-shot", dict(nbytes=4096, dtype="fp16"), "one_shot", "published crossover"),
    ("PCIe rule, 4 GPUs", dict(nbytes=4096, ws=4, topo=PCIE), "nccl", "PCIe rule"),
    ("PCIe forced", dict(nbytes=4096, ws=4, topo=PCIE, env={"TPKIT_ALLREDUCE_FORCE_PCIE": "1"}), "one_shot",
     "crossover for world size ≤ 4: one-shot below 512.00 KiB"),
    ("2 PCIe GPUs allowed", dict(nbytes=4096, ws=2, topo=PCIE), "one_shot",
     "crossover for world size ≤ 2: one-shot up to 16.00 MiB"),
    ("no P2P", dict(nbytes=4096, topo=NO_P2P), "nccl", "no CUDA P2P"),
    ("two nodes", dict(nbytes=4096, topo=TWO_NODES), "nccl", "spans 2 nodes"),
    ("old GPU", dict(nbytes=4096, cc=(7, 5)), "nccl", "compute capability 7.5"),
    ("no GPU", dict(nbytes=4096, cc=None), "nccl", "compute capability unknown"),
    ("world size 9", dict(nbytes=4096, ws=9), "nccl", "world size 9 > 8"),
    ("torch two-shot needs 2/4/8", dict(nbytes=MiB(1).bytes, ws=6, env={"TPKIT_ALLREDUCE": "symm_mem"},
                                        available={"symm_mem_two_shot": CAP, "nccl": None}), "nccl",
     "world sizes 2, 4, 8 only"),
    ("force nccl", dict(nbytes=4096, env={"TPKIT_ALLREDUCE": "nccl"}), "nccl", "forced by TPKIT_ALLREDUCE=nccl"),
    ("force symm_mem", dict(nbytes=4096, env={"TPKIT_ALLREDUCE": "symm_mem"}), "symm_mem_one_shot", "forced"),
    ("force two_shot", dict(nbytes=4096, env={"TPKIT_ALLREDUCE": "two_shot"}), "two_shot", "forced"),
    ("forced but ineligible", dict(nbytes=1000, env={"TPKIT_ALLREDUCE": "one_shot"}), "nccl",
     "TPKIT_ALLREDUCE=one_shot cannot take it"),
    ("max bytes env", dict(nbytes=MiB(2).bytes, env={"TPKIT_ALLREDUCE_MAX_BYTES": "1MiB"}), "nccl",
     "above TPKIT_ALLREDUCE_MAX_BYTES=1.00 MiB"),
    ("measured small", dict(nbytes=KiB(16).bytes, profile=_profile()), "one_shot", "3.0 µs; next symm_mem_one_shot"),
    ("measured middle", dict(nbytes=KiB(512).bytes, profile=_profile()), "symm_mem_two_shot", "measured at 1.00 MiB"),
    ("measured large", dict(nbytes=MiB(8).bytes, profile=_profile()), "nccl", "measured at 64.00 MiB"),
    ("beyond the last row", dict(nbytes=MiB(256).bytes, profile=_profile()), "nccl", "measured at 64.00 MiB"),
    ("measured best skipped", dict(nbytes=KiB(16).bytes, dtype="fp32", profile=_profile(),
                                   available={"symm_mem_one_shot": CAP, "nccl": None}), "symm_mem_one_shot",
     "fastest eligible, measured at 64.00 KiB"),
    ("profile for another world size", dict(nbytes=KiB(16).bytes, ws=8, profile=_profile(2)), "one_shot",
     "published crossover for world size ≤ 8"),
    ("ws 8 two-shot range", dict(nbytes=MiB(1).bytes, ws=8), "two_shot", "two-shot from 256.00 KiB"),
    ("ws 8 above 8 MiB", dict(nbytes=MiB(16).bytes, ws=8, available={**ALL, "two_shot": MiB(64)}), "nccl",
     "NCCL above 8.00 MiB"),
    ("CPU only", dict(nbytes=4096, cc=None, available={"gloo": None}), "gloo", "first eligible in order"),
]


@pytest.mark.parametrize("kwargs,backend,text", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rule(kwargs, backend, text):
    assert text, "a row must name what its reason says (an empty needle matches any reason)"
    d = decide(**kwargs)
    assert d.backend == backend, d.reason
    assert text in d.reason


def test_reason_names_each_skipped_faster_backend():
    d = decide(1000, available={"one_shot": CAP, "symm_mem_one_shot": CAP, "nccl": None})
    assert "one_shot skipped" in d.reason and "symm_mem_one_shot skipped" in d.reason


def test_no_backend_left_is_a_setup_error():
    with pytest.raises(RuntimeSetupError, match="no all-reduce backend can take 1000 bytes"):
        decide(1000, available={"one_shot": CAP})


def test_invalid_force_lists_the_choices():
    with pytest.raises(ConfigError, match="auto, nccl, symm_mem, one_shot, two_shot"):
        decide(4096, env={"TPKIT_ALLREDUCE": "fastest"})


def test_max_bytes_needs_a_unit():
    with pytest.raises(UnitError, match="has no unit"):
        parse_env({"TPKIT_ALLREDUCE_MAX_BYTES": "1048576"})


def test_force_pcie_must_be_boolean():
    with pytest.raises(ConfigError, match="use 1 or 0"):
        parse_env({"TPKIT_ALLREDUCE_FORCE_PCIE": "maybe"})


def test_dtype_aliases_and_refusal():
    assert normalize_dtype("torch.bfloat16") == normalize_dtype("bfloat16") == "bf16"
    with pytest.raises(PlanInputError, match="int8"):
        decide(4096, dtype="int8")


def test_published_order_moves_with_world_size():
    assert default_order(2, MiB(8).bytes)[0][0] == "one_shot"
    assert default_order(2, MiB(32).bytes)[0][0] == "nccl"
    assert default_order(4, KiB(256).bytes)[0][0] == "one_shot"
    assert default_order(4, MiB(1).bytes)[0][0] == "two_shot"


@settings(max_examples=300, deadline=None)
@given(nbytes=st.integers(0, 1 << 30), dtype=st.sampled_from(["bf16", "fp16", "fp32"]),
       ws=st.integers(2, 12), full=st.booleans(), p2p=st.booleans(), force=st.sampled_from(
           ["auto", "nccl", "symm_mem", "one_shot", "two_shot"]), measured=st.booleans())
def test_choice_is_always_allowed(nbytes, dtype, ws, full, p2p, force, measured):
    topo = CommTopology(full_nvlink=full, p2p=p2p)
    d = decide(nbytes, dtype=dtype, ws=ws, topo=topo, env={"TPKIT_ALLREDUCE": force},
               profile=_profile(ws) if measured else None)
    assert d.backend in ALL and d.reason
    if d.backend in CUSTOM_BACKENDS:
        assert nbytes % 16 == 0 and nbytes <= CAP.bytes and p2p and ws <= 8
        assert full or ws == 2
        assert not (dtype == "fp16" and d.backend.startswith("symm_mem"))


def test_eager_calls_use_eager_rows():
    graph = _profile()
    eager_rows = (ProfileRow(nbytes=KiB(64), time_us=(("symm_mem_one_shot", 25.0), ("one_shot", 50.0))),)
    prof = BenchProfile(source="t", world_sizes=graph.world_sizes, eager_world_sizes=((2, eager_rows),))
    assert decide(4096, profile=prof).backend == "one_shot"
    eager = choose_allreduce(nbytes=4096, dtype="bf16", world_size=2, topology=NVL, compute_capability=(9, 0),
                             profile=prof, env={}, available=ALL, mode="eager")
    assert eager.backend == "symm_mem_one_shot" and "(eager mode)" in eager.reason
    # no eager rows for world size 4: eager calls fall back to the graph rows of the profile
    assert choose_allreduce(nbytes=4096, dtype="bf16", world_size=4, topology=NVL, compute_capability=(9, 0),
                            profile=BenchProfile(source="t", world_sizes=_profile(4).world_sizes,
                                                 eager_world_sizes=((2, eager_rows),)),
                            env={}, available=ALL, mode="eager").backend == "one_shot"
