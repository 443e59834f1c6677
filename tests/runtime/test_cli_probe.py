"""`tpkit probe` on a machine without a GPU, and the text rendering of a profile."""

import json

import pytest

from tpkit.cli import main
from tpkit.cli.probe import format_profile
from tpkit.hardware.machine import GpuState, MachineProfile
from tpkit.runtime.machine_probe import no_gpu_reason
from tpkit.units import GiB

needs_no_gpu = pytest.mark.skipif(no_gpu_reason() is None, reason="a GPU is visible here")


@needs_no_gpu
def test_probe_without_gpu_says_so_and_exits_0(capsys, tmp_path):
    assert main(["probe"]) == 0
    text = capsys.readouterr().out
    assert "no GPU to probe" in text and "Nothing written" in text
    assert main(["probe", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["gpus"] == [] and data["reason"]


def test_format_profile_shows_memory_users_topology_and_p2p():
    gpus = (GpuState(index=0, name="NVIDIA H200", total_bytes=GiB(139.8), free_bytes=GiB(139), compute_capability=(9, 0)),
            GpuState(index=1, name="NVIDIA H200", total_bytes=GiB(139.8), free_bytes=GiB(100), compute_capability=(9, 0),
                     used_by_others_bytes=GiB(39.8), processes=({"pid": 5, "name": "python3", "used_bytes": 39 * 2**30},)))
    prof = MachineProfile(gpus=gpus, nvlink_links=((0, 18), (18, 0)), p2p_access=((True, True), (True, True)),
                          pcie_path=(("X", "NV18"), ("NV18", "X")), hostname="box", extra={"notes": ["NVML ok"]})
    text = format_profile(prof)
    assert "min free: GPU 1, 100.00 GiB" in text
    assert "GPU 1: pid 5 (python3) 39.00 GiB" in text and "GPU 0: none listed" in text
    assert "NV18" in text and "full NVLink mesh: yes" in text and "P2P between all pairs: yes" in text
    assert "  9.0" in text and "total GiB" in text


def test_probe_out_into_a_missing_folder_is_refused_before_probing(capsys, tmp_path):
    """With a GPU this probed every device, then died writing the file (a traceback)."""
    assert main(["probe", "--out", str(tmp_path / "absent" / "m.json")]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and "does not exist or is not writable" in err and "Traceback" not in err


def test_probe_out_into_a_directory_is_refused_before_probing(capsys, tmp_path):
    """`probe --out DIR` probed every GPU, then raised IsADirectoryError."""
    assert main(["probe", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "is a directory" in err and "Traceback" not in err


@needs_no_gpu
def test_probe_out_without_gpu_exits_2_and_writes_nothing(capsys, tmp_path):
    """`probe --out m.json && plan --machine m.json` used to pass the first step (exit 0, no file) and fail the
    second with 'no such file; write one with tpkit probe --out'."""
    out = tmp_path / "m.json"
    assert main(["probe", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "no GPU to probe" in err and str(out) in err and "--gpu" in err and not out.exists()
