"""`tpkit explain` on a vLLM 0.34 log (helper cur17b; ``tpkit.explain.vextensible``).

With 0.34's extensible KV cache (on by default) "Available KV cache memory" (``gpu_worker.py:795``) is the profile's
*reservation*: the block capacity the pool may grow to.  The pool is sized after warm-up and CUDA-graph capture
(``v1/worker/extensible_kv_cache.py measure_kv_cache_bytes``, printed on the "Memory after warmup" line), the capacity
line (``kv_cache_utils.py:1168``) prints the final count, then "Extended KV cache to N blocks".  The test log is
SYNTHETIC (tests/explain/data/vllm034_synthetic_qwen3_8b.log, made by scripts/synth_vllm034_log.py from 0.34.0's
message formats with numbers that follow the formula); no public 0.34 log was in the corpus.  Before this helper,
explain rebuilt 499,856–499,920 tokens from the reservation (block 16) against 484,864 printed."""

import re
from pathlib import Path

from tpkit.explain import explain_log
from tpkit.logs import parse_log

ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "explain" / "data" / "vllm034_synthetic_qwen3_8b.log"
CONFIG = str(ROOT / "validation" / "configs" / "Qwen--Qwen3-8B-FP8.json")
GIB = 2**30


def _explain(text: str):
    return explain_log(text, flags={"model": CONFIG})


def _row(e, item):
    return next((r for r in e.anchored.rows if r.item == item), None)


def _text() -> str:
    return LOG.read_text()


def test_the_log_says_it_is_synthetic_and_follows_0_34_formats():
    head = _text().splitlines()[:5]
    assert head[0].startswith("# SYNTHETIC vLLM 0.34.0 log") and "scripts/synth_vllm034_log.py" in head[0]
    assert "[gpu_worker.py:795] Available KV cache memory" in _text()
    assert "[extensible_kv_cache.py:693] Memory after warmup" in _text()


def test_the_warm_up_line_parses_whole():
    got = {a.name: (a.size.value if a.size is not None else a.count.value) for a in parse_log(_text()).anchors}
    assert got["warmup_fit_blocks"] == 7576 and got["kv_extended_blocks"] == 7576
    assert abs(got["warmup_peak"].bytes / GIB - 1.21) < 0.006 and abs(got["warmup_growth"].bytes / GIB - 0.25) < 0.006
    assert abs(got["warmup_committed"].bytes / GIB - 0.07) < 0.006
    assert abs(got["warmup_requested"].bytes / GIB - 79.19) < 0.006


def test_available_is_the_reservation_and_the_pool_comes_from_the_warm_up_line():
    e = _explain(_text())
    a = e.anchored
    assert abs(a.available.mid.bytes / GIB - 68.65) < 0.006  # printed 'Available KV cache memory': the reservation
    assert "the reservation" in _row(e, "available KV cache memory").meaning
    assert _row(e, "available KV cache memory").check == "reproduced"  # requested − consumed − peak
    # min(79.19 − (78.68 − 68.76 − 0.07), 68.76 + 0.07 − max(1, 0.75 × 1.21)) − 1.21 = 66.62 GiB
    assert abs(a.pool.mid.bytes / GIB - 66.62) < 0.02 and a.pool.high < a.available.low
    assert _row(e, "extensible KV cache margin").value.mid.bytes == GIB
    assert _row(e, "kept for transient activations").check == "reproduced"  # max(peak, growth)
    assert _row(e, "KV pool after warm-up (printed)") is not None


def test_kv_tokens_predicted_follow_the_pool():
    e = _explain(_text())
    lo, hi = e.anchored.tokens_predicted
    assert e.anchored.block_size == 64  # CacheConfig.DEFAULT_BLOCK_SIZE 0.34, no block size printed
    assert lo <= 484_864 <= hi and hi - lo < 1_000
    assert _row(e, "KV tokens").check == "reproduced"
    assert e.to_dict()["kv_tokens"]["predicted_range"] == [lo, hi]


def test_the_smallest_worker_sets_the_pool():
    # a second worker whose warm-up line leaves 1 GiB less free: the pool follows it
    text = _text()
    line = next(l for l in text.splitlines() if "Memory after warmup" in l)
    other = line.replace("EngineCore pid=171", "Worker_TP1 pid=172").replace("68.76 GiB free", "67.76 GiB free")
    e = _explain(text.replace(line, line + "\n" + other))
    assert abs(e.anchored.pool.mid.bytes / GIB - 65.62) < 0.02


def test_a_log_that_is_not_0_34_is_read_as_before():
    # the same numbers labelled 0.33.0 (its logger lines), without the extensible lines: 'Available KV cache memory'
    # is the budget, block 16, nothing here applies (explain's output on main before helper cur17b)
    text = re.sub(r"^#.*\n", "", _text(), flags=re.M)
    text = text.replace("v0.34.0", "v0.33.0").replace("gpu_worker.py:795", "gpu_worker.py:772").replace(
        "kv_cache_utils.py:1168", "kv_cache_utils.py:1147")
    text = "\n".join(l for l in text.splitlines() if "extensible_kv_cache.py" not in l) + "\n"
    e = _explain(text)
    assert e.anchored.pool is None and _row(e, "KV pool measured after warm-up") is None
    assert "reservation" not in _row(e, "available KV cache memory").meaning
    assert e.anchored.block_size == 16 and e.anchored.tokens_predicted == (499_856, 499_920)
