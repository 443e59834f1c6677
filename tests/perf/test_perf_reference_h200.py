"""The cost model against the H200 reference decode steps (bench/decode_reference.py, 2026-12-01).

The constants come from the micro-benchmarks of that run, never from its decode steps; every step of
both models at batch 1–256 and contexts 512/2048 must be predicted within 15 % (issue 13).
Data: docs/runs/decode_h200_2026-12-01.json, copied to tests/perf/data.
"""

import json
from pathlib import Path

import pytest

from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.perf.device import device_rates
from tpkit.perf.forward import time_forward
from tpkit.perf.impl import impl_profile
from tpkit.perf.kernels import Batch, Shard
from tpkit.perf.work import forward_kernels

RUN = json.loads((Path(__file__).parent / "data" / "decode_h200_2026-12-01.json").read_text())


def _predict(row):
    spec = load_model(row["model"])
    kernels = forward_kernels(spec, Shard(), Batch(sequences=row["batch"], context=row["context"] - 1),
                              impl_profile("reference"))
    return time_forward(kernels, device_rates(lookup_gpu("H200")), impl=impl_profile("reference")), kernels


def test_the_run_checked_correctness_before_timing():
    assert RUN["checks"]["graph_vs_eager_failures"] == 0 and not RUN["errors"]
    for model in ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-30B-A3B"):
        assert RUN["checks"][model]["attention_max_abs_err"] < 0.02
    assert RUN["checks"]["Qwen/Qwen3-30B-A3B"]["moe_rel_err"] < 0.02
    assert {r["batch"] for r in RUN["rows"]} == {1, 2, 4, 8, 16, 32, 64, 128, 256}
    assert {r["context"] for r in RUN["rows"]} == {512, 2048}


@pytest.mark.parametrize("row", RUN["rows"], ids=lambda r: f"{r['model'].split('/')[1]}-c{r['context']}-b{r['batch']}")
def test_step_time_within_15_percent(row):
    predicted, _ = _predict(row)
    error = predicted.total_us / row["step_us"] - 1
    assert abs(error) <= 0.15, f"predicted {predicted.total_us:.0f} µs vs measured {row['step_us']:.0f} µs"


def test_kernel_count_matches_the_profiler_census():
    for row in RUN["rows"]:
        if "kernels" in row and row["batch"] == 1:
            _, kernels = _predict(row)
            predicted = sum(k.count for k in kernels)
            assert abs(predicted - row["kernels"]["total"]) / row["kernels"]["total"] < 0.03, (row["model"], predicted)


def test_attention_part_follows_kv_bytes():
    """Attention alone (measured separately in the same run) within 15 % where it is more than a tenth of the step."""
    for row in RUN["rows"]:
        _, kernels = _predict(row)
        dev = device_rates(lookup_gpu("H200"))
        from tpkit.perf.forward import kernel_us

        att = sum(k.count * kernel_us(k, dev) for k in kernels if k.kind == "attention")
        if row["attention_only_us"] > 0.1 * row["step_us"]:
            assert abs(att / row["attention_only_us"] - 1) <= 0.15, (row["batch"], row["context"], att)
