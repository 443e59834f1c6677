"""allocate_kv_pool on CPU: exactly the planned tensors, the ledger check, refusals."""

import warnings

import pytest

torch = pytest.importorskip("torch")

from tpkit.errors import RuntimeSetupError  # noqa: E402
from tpkit.memory.kvpool import KVBuffer, KVPoolPlan  # noqa: E402
from tpkit.runtime.kv_alloc import allocate_kv_pool, allocation_tolerance  # noqa: E402
from tpkit.runtime.probe import FakeProbe  # noqa: E402
from tpkit.units import Bytes, GiB, MiB  # noqa: E402


def _plan(tokens=1000, layers=4, heads=2, dim=64, dtype="bfloat16", element=2, page=1) -> KVPoolPlan:
    rows = tokens + page
    return KVPoolPlan(
        num_tokens=tokens, padded_tokens=rows, cell_bytes=Bytes(heads * 2 * dim * layers * element), page_size=page,
        dtype=dtype,
        buffers=(KVBuffer(name="k", count=layers, shape=(rows, heads, dim), element_bytes=element),
                 KVBuffer(name="v", count=layers, shape=(rows, heads, dim), element_bytes=element)),
    )


def test_allocates_exactly_the_plan_and_passes_when_memory_moved_by_plan():
    plan = _plan()
    planned = plan.total_bytes
    assert planned == Bytes(2 * 4 * 1001 * 2 * 64 * 2)
    probe = FakeProbe(total_bytes=GiB(1), free_bytes=[GiB(0.5), GiB(0.5) - planned - Bytes(4096)])
    alloc = allocate_kv_pool(plan, "cpu", probe)
    assert [len(alloc.tensors[n]) for n in ("k", "v")] == [4, 4]
    t = alloc.tensors["k"][0]
    assert tuple(t.shape) == (1001, 2, 64) and t.dtype == torch.bfloat16 and t.device.type == "cpu"
    assert alloc.ok and alloc.planned_bytes == planned and alloc.difference_bytes == Bytes(4096)
    assert alloc.ledger.get("KV pool").bytes == planned
    assert "difference +4,096 B" in alloc.summary() and alloc.summary().endswith("ok")


def test_mismatch_beyond_tolerance_warns_or_raises_when_strict():
    plan = _plan()
    frees = [GiB(0.5), GiB(0.5) - plan.total_bytes - allocation_tolerance(plan) - MiB(1)]
    with pytest.warns(RuntimeWarning, match="MISMATCH"):
        alloc = allocate_kv_pool(plan, "cpu", FakeProbe(total_bytes=GiB(1), free_bytes=frees))
    assert not alloc.ok and "does not add up" in alloc.problems[0]
    with pytest.raises(RuntimeSetupError, match="MISMATCH"):
        allocate_kv_pool(plan, "cpu", FakeProbe(total_bytes=GiB(1), free_bytes=frees), strict=True)


def test_refuses_before_allocating_when_plan_exceeds_free():
    plan = _plan()
    probe = FakeProbe(total_bytes=GiB(1), free_bytes=plan.total_bytes - Bytes(1))
    with pytest.raises(RuntimeSetupError, match="only .* is free"):
        allocate_kv_pool(plan, "cpu", probe)
    assert probe.calls == 1


def test_fp8_alias_and_mixed_element_buffers():
    plan = KVPoolPlan(
        num_tokens=64, padded_tokens=65, cell_bytes=Bytes(1), dtype="fp8_e4m3",
        buffers=(KVBuffer(name="latent", count=3, shape=(65, 1, 576), element_bytes=1),
                 KVBuffer(name="scales", count=3, shape=(65, 8), element_bytes=4)),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alloc = allocate_kv_pool(plan, "cpu", FakeProbe(total_bytes=GiB(1), free_bytes=GiB(1)))
    assert alloc.tensors["latent"][0].dtype == torch.float8_e4m3fn
    scales = alloc.tensors["scales"][0]
    assert scales.dtype == torch.uint8 and tuple(scales.shape) == (65, 32)


def test_unknown_dtype_is_a_clear_error():
    with pytest.raises(RuntimeSetupError, match="not a torch dtype"):
        allocate_kv_pool(_plan(dtype="bfloat17"), "cpu", FakeProbe(total_bytes=GiB(1), free_bytes=GiB(1)))


def test_allocator_rounding_matches_the_h200_measurement():
    # Llama-3.1-8B TP2 pool measured on 2×H200 (docs/_parts/accuracy-runtime.md): 64 tensors of
    # 1,922,385 rows × 4 heads × 128 × 2 B; free memory dropped by planned + 45,023,232 B.
    from tpkit.runtime.kv_alloc import allocator_rounding

    rows = 1_922_385
    plan = KVPoolPlan(num_tokens=rows - 1, padded_tokens=rows, cell_bytes=Bytes(65536), buffers=(
        KVBuffer(name="k", count=32, shape=(rows, 4, 128), element_bytes=2),
        KVBuffer(name="v", count=32, shape=(rows, 4, 128), element_bytes=2)))
    assert allocator_rounding(plan) == Bytes(45_023_232)
    assert allocator_rounding(_plan()) == Bytes(0)  # small tensors share segments: not modelled
    assert allocation_tolerance(_plan()) == MiB(2) + MiB(20) * 8
