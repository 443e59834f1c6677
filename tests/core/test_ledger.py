"""The ledger adds up, and says so when it does not."""

import pytest

from tpkit.memory import KVBuffer, KVPoolPlan, Ledger
from tpkit.units import Bytes, GiB, MiB


def test_ledger_remaining_and_check():
    led = (
        Ledger()
        .add("device total", GiB(80), "catalog", kind="capacity")
        .add("CUDA context", MiB(600), "measured")
        .add("weights", GiB(16), "config")
        .add("slack", GiB(10), "(1 - f) x free", kind="reserve")
        .add("note", GiB(1), "explanation", kind="info")
    )
    expected = GiB(80) - MiB(600) - GiB(16) - GiB(10)
    assert led.remaining == expected
    assert led.check(expected) == []
    problems = led.check(expected + Bytes(1))
    assert problems and "off by -1 B" in problems[0]


def test_ledger_is_immutable_and_typed():
    led = Ledger().add("x", GiB(1), "s")
    led2 = led.add("y", GiB(1), "s")
    assert len(led.items) == 1 and len(led2.items) == 2
    with pytest.raises(TypeError):
        Ledger().add("x", 5, "s")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Ledger().add("x", GiB(1), "s", kind="bogus")


def test_kv_pool_plan_bytes():
    plan = KVPoolPlan(
        num_tokens=1000, padded_tokens=1001, cell_bytes=Bytes(131072), page_size=1,
        buffers=(
            KVBuffer(name="k", count=32, shape=(1001, 8, 128), element_bytes=2),
            KVBuffer(name="v", count=32, shape=(1001, 8, 128), element_bytes=2),
        ),
    )
    assert plan.total_bytes == Bytes(1001 * 131072)
    assert plan.to_dict()["buffers"][0]["total_bytes"] == 32 * 1001 * 8 * 128 * 2
