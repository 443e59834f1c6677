"""``tpkit.comm.benchrun.multicast_off``: the three switches the project keeps on every GPU program (NVLink
multicast off for NCCL, torch symmetric memory and NVSHMEM), set only where the environment does not say otherwise."""

import os

from tpkit.comm.benchrun import multicast_off

_KEYS = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}


def test_multicast_off_sets_all_three_and_keeps_what_the_user_set(monkeypatch):
    for k in _KEYS:
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("NCCL_NVLS_ENABLE", "0")
    multicast_off()
    assert {k: os.environ[k] for k in _KEYS} == _KEYS
    monkeypatch.setenv("TORCH_SYMM_MEM_DISABLE_MULTICAST", "0")  # an explicit user choice is not overwritten
    multicast_off()
    assert os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] == "0"
