"""Runtime layer on a real CUDA GPU (skipped when none is visible)."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU visible", allow_module_level=True)

from tpkit.hardware.topology import check_square  # noqa: E402
from tpkit.memory.kvpool import KVBuffer, KVPoolPlan  # noqa: E402
from tpkit.runtime.cuda_probe import CudaProbe  # noqa: E402
from tpkit.runtime.kv_alloc import allocate_kv_pool  # noqa: E402
from tpkit.runtime.machine_probe import probe_machine  # noqa: E402
from tpkit.units import Bytes  # noqa: E402

pytestmark = pytest.mark.gpu


def test_cuda_probe_matches_mem_get_info():
    snap = CudaProbe(0).snapshot()
    free, total = torch.cuda.mem_get_info(0)
    assert snap.total_bytes == Bytes(total)
    assert abs(snap.free_bytes.bytes - free) < 64 * 2**20
    assert snap.used_by_this_process_bytes + snap.used_by_others_bytes >= snap.used_bytes
    assert snap.compute_capability == torch.cuda.get_device_capability(0)


def test_kv_pool_moves_free_memory_by_the_planned_bytes():
    rows = 262_145  # 256 Ki tokens + 1 padding row
    plan = KVPoolPlan(num_tokens=rows - 1, padded_tokens=rows, cell_bytes=Bytes(8 * 256 * 4 * 2),
                      buffers=(KVBuffer(name="k", count=4, shape=(rows, 8, 128), element_bytes=2),
                               KVBuffer(name="v", count=4, shape=(rows, 8, 128), element_bytes=2)))
    alloc = allocate_kv_pool(plan, "cuda:0", CudaProbe(0), strict=True)
    assert alloc.ok, alloc.summary()
    assert alloc.tensors["v"][3].is_cuda


def test_probe_machine_matrices_are_square():
    prof = probe_machine()
    n = torch.cuda.device_count()
    assert len(prof.gpus) == n
    for m, what in ((prof.nvlink_links, "nvlink"), (prof.p2p_access, "p2p"), (prof.pcie_path, "path")):
        check_square(m, n, what)
    assert all(prof.pcie_path[i][i] == "X" for i in range(n))


def test_probed_topology_answers_for_the_visible_gpus():
    from tpkit.runtime.topology import probe_topology

    topo = probe_topology()
    n = torch.cuda.device_count()
    assert topo.num_gpus == n and topo.source.startswith("probed")
    assert topo.group([0]).compute_capability == tuple(torch.cuda.get_device_capability(0))
    check_square(topo.nvlink_links, n, "nvlink")
