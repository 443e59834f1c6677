"""init_memory in one process (world size 1) and without a process group."""

import re
import socket
import warnings

import pytest

dist = pytest.importorskip("torch.distributed")

from tpkit.errors import RuntimeSetupError  # noqa: E402
from tpkit.runtime.group import init_cpu_group, init_memory  # noqa: E402
from tpkit.runtime.probe import FakeProbe  # noqa: E402
from tpkit.units import GiB  # noqa: E402


def test_without_process_group_is_a_clear_error():
    assert not dist.is_initialized()
    with pytest.raises(RuntimeSetupError, match="initialised torch.distributed"):
        init_memory(probe=FakeProbe(total_bytes=GiB(80), free_bytes=GiB(70)))


def test_world_of_one(monkeypatch):
    monkeypatch.setenv("GLOO_SOCKET_IFNAME", "lo")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    init_cpu_group(rank=0, world_size=1, init_method=f"tcp://127.0.0.1:{port}", timeout_s=10)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            g = init_memory(probe=FakeProbe(total_bytes=GiB(80), free_bytes=GiB(12.5)), timeout_s=5)
        assert g.min_free_bytes == GiB(12.5) and g.local_rank == 0 and g.imbalance is None
    finally:
        dist.destroy_process_group()


def test_rank_that_never_joins_fails_within_the_timeout(monkeypatch):
    import time

    monkeypatch.setenv("GLOO_SOCKET_IFNAME", "lo")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    with pytest.raises(RuntimeSetupError, match=r"rank 0 of 2: the process group .* did not form") as info:
        init_cpu_group(rank=0, world_size=2, init_method=f"tcp://127.0.0.1:{port}", timeout_s=2)
    waited = time.monotonic() - t0
    assert waited < 15
    assert not dist.is_initialized()
    # the message said "within 2 s" although torch gave up 1.2-2.7x later; now it states the time it waited
    stated = float(re.search(r"gave up after ([0-9.]+) s \(timeout_s=2 bounds each rendezvous step\)",
                             str(info.value)).group(1))
    assert abs(stated - waited) < 0.5
