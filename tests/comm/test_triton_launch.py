"""The launch step both tpkit Triton backends share (``triton_base.TritonLaunch._dispatch``), checked on the CPU
with a recording stand-in for the compiled kernel: the arguments, the meta-parameters and the grid each backend
passes, and that ``warmup`` compiles instead of launching.  (The kernels themselves run in test_gpu_allreduce.py.)"""

from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")

from tpkit.comm.backends.one_shot import PushOneShotBackend  # noqa: E402
from tpkit.comm.backends.triton_base import TritonSymmBackend  # noqa: E402
from tpkit.comm.registry import MAX_PEER_WORLD_SIZE  # noqa: E402
from tpkit.units import Bytes  # noqa: E402


class _Kernel:
    """Records ``kernel[grid](*args, **meta)`` and ``kernel.warmup(*args, grid=grid, **meta)``."""

    def __init__(self):
        self.calls = []

    def __getitem__(self, grid):
        return lambda *args, **meta: self.calls.append(("launch", grid, args, meta))

    def warmup(self, *args, grid, **meta):
        self.calls.append(("warmup", grid, args, meta))
        return "compiled"


def _common(backend, ws: int, rank: int):
    backend.name, backend.kernel = "test", _Kernel()
    backend.buf = SimpleNamespace(world_size=ws, rank=rank)
    backend.capacity = Bytes(1 << 20)
    backend.max_blocks, backend.num_warps = 4, 8
    backend.counters = "counters"
    backend.errors = SimpleNamespace(address=11, claim_address=12)
    backend.code_base, backend.spin_limit = 13, 14
    return backend


def test_symm_backend_passes_every_rank_pad_and_view():
    b = _common(object.__new__(TritonSymmBackend), ws=2, rank=1)
    b.chunk_bytes, b.regions = 1024, 1
    b.views = {torch.bfloat16: ["v0", "v1"]}
    b.pads8, b.pad_self = ["p0", "p1"] + ["p0"] * (MAX_PEER_WORLD_SIZE - 2), "p1"
    x = torch.zeros(1500, dtype=torch.bfloat16)
    b._launch(x, "out")
    kind, grid, args, meta = b.kernel.calls[-1]
    assert kind == "launch" and grid == (3,)  # 1,500 elements / 512 per block
    assert args == (x, "out", "v1", "v0", "v1", *["v0"] * (MAX_PEER_WORLD_SIZE - 2), *b.pads8, "p1", "counters",
                    1500, (1 << 20) // 2, 1, 11, 12, 13, 14)
    assert meta == dict(WS=2, BLOCK=512, MAXB=4, num_warps=8)
    assert b._launch(x, "out", warmup=True) == "compiled" and b.kernel.calls[-1][0] == "warmup"
    assert b.kernel.calls[-1][1:] == (grid, args, meta)


def test_push_backend_passes_its_int_views_and_sentinel():
    b = _common(object.__new__(PushOneShotBackend), ws=4, rank=2)
    b.chunk_bytes = 2048
    b.views = {2: ["a0", "a1", "a2", "a3"]}
    b.sentinel = {2: 0x7FFF}
    x = torch.zeros(100_000, dtype=torch.float16)
    b._launch(x, "out")
    kind, grid, args, meta = b.kernel.calls[-1]
    assert kind == "launch" and grid == (4,)  # 98 chunks of 1,024 elements, at most 4 blocks
    assert args == (x, "out", "a2", "a0", "a1", "a2", "a3", *["a0"] * (MAX_PEER_WORLD_SIZE - 4), "counters",
                    100_000, (1 << 20) // 2, 2, 11, 12, 13, 14)
    assert meta == dict(WS=4, BLOCK=1024, MAXB=4, SENT=0x7FFF, num_warps=8)
    assert b._launch(x, "out", warmup=True) == "compiled" and b.kernel.calls[-1][1:] == (grid, args, meta)
