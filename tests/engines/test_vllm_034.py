"""vLLM 0.34.0 read against 0.33.0 (helper cur17, 2026-12-05; docs/accuracy.md §2): every rule keyed on the 0.34.0
boundary (``engines/vllm/versions.py``), each checked on both sides.

* ``config/cache.py CacheConfig.DEFAULT_BLOCK_SIZE`` 16 → 64 (``VllmRules.default_block_size``);
* ``model_executor/layers/attention/attention.py`` sliding-window layers start from the primary block
  (``sliding_primary_block``), ``platforms/interface.py _align_hybrid_block_size`` aligns hybrids to it
  (``hybrid_align_to_block``);
* ``v1/worker/gpu_model_runner.py`` is gone: Model Runner V2 runs everything (``v1_runner``);
* the extensible KV cache is on by default (``config/vllm.py _resolve_extensible_kv_cache``): utilization 1.0, no
  start-up check, no graph estimate, the pool sized from the memory measured after warm-up and capture less
  max(1 GiB, 0.75 × the transient peak) and the peak itself (``v1/worker/extensible_kv_cache.py
  measure_kv_cache_bytes``; ``extensible_kv_cache``);
* the new log lines ("Extended KV cache to N blocks (X GiB).", "Memory after warmup: …") parse, and the 0.34.0
  logger-call lines bound the release.
"""

import json
import math
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.engines.vllm.budget import extensible_margin
from tpkit.engines.vllm.inputs import uses_v2_runner
from tpkit.engines.vllm.pages import build_layout
from tpkit.engines.vllm.versions import CURRENT, CURRENT_RELEASE, is_newer_than_latest, resolve_rules, rules_for
from tpkit.hardware.machine import GpuState, MachineProfile
from tpkit.logs import engine as eng
from tpkit.logs.reader import parse_log
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes, GiB

from vllm_fixtures import H200, GivenWeights, llama3_8b

ROOT = Path(__file__).resolve().parents[1]
GEMMA4 = ROOT / "logs" / "data" / "configs" / "google__gemma-4-26B-A4B-it" / "config.json"
QWEN3_NEXT = ROOT / "validation" / "configs" / "Qwen--Qwen3-Next-80B-A3B-Instruct.json"
W = GivenWeights(Bytes(8_030_261_248 * 2))
OLD, NEW = (0, 33, 0), (0, 34, 0)


def _plan(version, machine=None, **kw):
    return plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions(engine_version=version, **kw), weights=W,
                     machine=machine)


def test_current_is_0_34_and_only_later_releases_are_warned():
    assert CURRENT == "0.34" and CURRENT_RELEASE == NEW
    assert not is_newer_than_latest("0.34.0") and not is_newer_than_latest("0.33.0")
    assert is_newer_than_latest("0.35.0") and is_newer_than_latest("0.34.1")
    assert resolve_rules("current").release == NEW


def test_the_0_34_fields_flip_at_the_boundary():
    old, new = rules_for(OLD), rules_for(NEW)
    assert (old.default_block_size, new.default_block_size) == (16, 64)
    assert (old.sliding_primary_block, new.sliding_primary_block) == (False, True)
    assert (old.hybrid_align_to_block, new.hybrid_align_to_block) == (False, True)
    assert (old.v1_runner, new.v1_runner) == (True, False)
    assert (old.extensible_kv_cache, new.extensible_kv_cache) == (False, True)
    assert old.default_utilization == new.default_utilization == 0.92  # the estimate-based default, kept


def test_no_v1_runner_from_0_34_whatever_the_variable_says():
    model = llama3_8b()
    assert uses_v2_runner(model, rules_for(OLD), None, override=False) is False
    assert uses_v2_runner(model, rules_for(NEW), None, override=False) is True
    r = _plan("0.34.0", vllm_use_v2_model_runner="0")
    assert any("--vllm-use-v2-model-runner 0 is ignored" in w for w in r.warnings)
    assert "Model Runner V2 request/sampling state" in [l.item for l in r.ledger.items]


def test_default_block_is_64_from_0_34():
    assert _plan("0.33.0").extra["block_size"] == 16
    assert _plan("0.34.0").extra["block_size"] == 64
    assert _plan("0.34.0", block_size=16).extra["block_size"] == 16


def _layout(path, release, block, tp=1):
    model = from_config_dict(json.loads(path.read_text()), name=path.stem, source=str(path))
    rules = rules_for(release)
    layout = build_layout(model, ParallelSpec(tp=tp), block_size=block, era=rules.era, dtype_bytes=2,
                          dtype_name="bfloat16", rules=rules)
    return {g.kind: g.block_size for g in layout.groups}


def test_sliding_layers_start_from_the_primary_block_from_0_34():
    """Gemma 4 at block 64: 0.33 starts its sliding layers (8 KiB a token) at 16 and grows them to the full layers'
    page (64 × 4 KiB) → 32; 0.34 starts them at 64 and the full page grows to theirs → 128."""
    assert _layout(GEMMA4, OLD, 64) == {"sliding": 32, "full": 64}
    assert _layout(GEMMA4, NEW, 64) == {"sliding": 64, "full": 128}
    assert _layout(GEMMA4, OLD, 16) == _layout(GEMMA4, NEW, 16) == {"sliding": 16, "full": 32}


def test_hybrids_align_to_the_block_from_0_34():
    """Qwen3-Next at tp 4: the attention block grows to hold the GDN state page in steps of max(16, block)."""
    assert _layout(QWEN3_NEXT, OLD, 64, tp=4) == {"linear": 272, "full": 272}
    assert _layout(QWEN3_NEXT, NEW, 64, tp=4) == {"linear": 320, "full": 320}
    assert _layout(QWEN3_NEXT, NEW, 16, tp=4) == {"linear": 272, "full": 272}


def _line(r, item):
    return r.ledger.get(item).bytes


def test_extensible_kv_cache_sizes_the_pool_from_the_free_memory_less_the_margin():
    r = _plan("0.34.0")
    total = H200.total_bytes.bytes
    assert r.extra["gpu_memory_utilization"] == 1.0 and r.extra["requested_bytes"] == math.ceil(total * 1.0)
    peak = _line(r, "activation peak (profile run, estimate)")
    margin = _line(r, "extensible KV cache margin")
    assert margin == extensible_margin(peak) == max(GiB(1), Bytes(int(peak.bytes * 0.75)))
    graphs = _line(r, "CUDA graphs (captured before KV sizing)")
    assert graphs > Bytes(0) and "CUDA graphs (estimate)" not in [l.item for l in r.ledger.items]
    uses_after = sum((_line(r, i) for i in ("model weights", "rotary cos/sin cache", "non-torch growth during profiling",
                                            "Model Runner V2 request/sampling state")), Bytes(0))
    start = sum((l.bytes for l in r.ledger.items if l.item in ("CUDA context", "cuBLAS/cuBLASLt handles")), Bytes(0))
    free = H200.total_bytes - start  # free at the init snapshot (nothing else on the card)
    assert r.extra["available_kv_bytes"] == (free - margin - uses_after - graphs - peak).bytes
    assert r.ledger.check(Bytes(0)) == []
    # 0.33: requested = ceil(0.92 × total), the graph estimate subtracted, no margin
    old = _plan("0.33.0")
    assert old.extra["gpu_memory_utilization"] == 0.92
    assert "extensible KV cache margin" not in [l.item for l in old.ledger.items]
    assert r.kv_tokens > old.kv_tokens


def test_a_given_utilization_caps_the_extensible_pool_below_the_free_memory():
    r = _plan("0.34.0", gpu_memory_utilization=0.5)
    assert "extensible KV cache margin" not in [l.item for l in r.ledger.items]
    outside = _line(r, "outside the utilisation budget")
    assert outside >= _line(_plan("0.34.0"), "extensible KV cache margin")
    assert r.ledger.check(Bytes(0)) == []


@pytest.mark.parametrize("kw", [dict(no_enable_extensible_kv_cache=True), dict(kv_cache_memory_bytes=GiB(40))])
def test_the_flags_that_turn_it_off_give_the_estimate_based_sizing(kw):
    r = _plan("0.34.0", **kw)
    items = [l.item for l in r.ledger.items]
    assert "extensible KV cache margin" not in items and "CUDA graphs (captured before KV sizing)" not in items
    if "no_enable_extensible_kv_cache" in kw:
        assert r.extra["gpu_memory_utilization"] == 0.92 and "CUDA graphs (estimate)" in items


def _machine(free: Bytes) -> MachineProfile:
    total = H200.total_bytes
    return MachineProfile(gpus=(GpuState(index=0, name="NVIDIA H200", total_bytes=total, free_bytes=free),))


def test_no_start_up_check_with_the_extensible_kv_cache():
    """Another process holds 40 GiB: 0.33 refuses to start (free < 0.92 × total), 0.34 starts with a smaller pool
    (``request_memory`` skips the check when the extensible KV cache is on)."""
    machine = _machine(H200.total_bytes - GiB(40))
    old, new = _plan("0.33.0", machine=machine), _plan("0.34.0", machine=machine)
    assert not old.verdict.fits and "is less than desired GPU memory utilization" in old.verdict.message
    assert new.verdict.fits and new.kv_tokens < _plan("0.34.0").kv_tokens
    assert new.ledger.check(Bytes(0)) == []


def test_the_engine_log_prints_the_reservation_then_the_extended_pool():
    r = _plan("0.34.0")
    extended = [l for l in r.engine_log if l.startswith("Extended KV cache to ")]
    assert extended == [f"Extended KV cache to {r.extra['kv_blocks']} blocks "
                        f"({r.extra['kv_blocks'] * r.extra['bytes_per_block'] / 2**30:.2f} GiB)."]
    avail = next(l for l in r.engine_log if l.startswith("Available KV cache memory: "))
    assert float(avail.split(": ")[1].split()[0]) > r.extra["available_kv_bytes"] / 2**30  # the reservation
    assert not any(l.startswith("Extended KV cache") for l in _plan("0.33.0").engine_log)
    assert not any("CUDA graph memory profiling is enabled" in l for l in r.engine_log)


LOG_034 = """\
(EngineCore pid=1) INFO 12-05 10:00:00 [gpu_worker.py:795] Available KV cache memory: 61.50 GiB
(EngineCore pid=1) INFO 12-05 10:00:30 [extensible_kv_cache.py:693] Memory after warmup: 60.12 GiB free, 0.02 GiB \
committed to the KV cache, 1.77 GiB kept for transient activations (1.77 GiB allocated at peak, 0.10 GiB of torch \
reservation growth); 7530 KV cache blocks (58.83 GiB) fit within the requested 79.19 GiB. Torch may reserve up to \
2.50 GiB.
(EngineCore pid=1) INFO 12-05 10:00:30 [kv_cache_utils.py:1168] GPU KV cache size: 481,920 tokens, Maximum \
concurrency for 131,072 tokens per request: 3.68x
(EngineCore pid=1) INFO 12-05 10:00:31 [extensible_kv_cache.py:536] Extended KV cache to 7530 blocks (58.83 GiB).
"""


def test_the_0_34_log_lines_parse():
    parsed = parse_log(LOG_034)
    got = {a.name: (a.size.value if a.size is not None else a.count.value) for a in parsed.anchors}
    assert got["kv_extended_blocks"] == 7530 and got["kv_extended"] == Bytes(round(58.83 * 2**30))
    assert got["warmup_free"] == Bytes(round(60.12 * 2**30)) and got["warmup_kept"] == Bytes(round(1.77 * 2**30))
    assert got["kv_tokens"] == 481_920 and got["available_kv"] == Bytes(round(61.50 * 2**30))


@pytest.mark.parametrize("line, versions", [
    ("[gpu_worker.py:795] Available KV cache memory: 61.50 GiB", "≥ 0.34.0"),
    ("[gpu_worker.py:772] Available KV cache memory: 61.50 GiB", "0.30.0–0.33.0"),
    ("[kv_cache_utils.py:1168] GPU KV cache size: 481,920 tokens, Maximum concurrency for 131,072 tokens per "
     "request: 3.68x", "≥ 0.34.0"),
])
def test_the_0_34_logger_lines_bound_the_release(line, versions):
    _, evidence = eng.source_line_format(line)
    assert evidence.claim.split(": ", 1)[1].startswith(versions + " (")


def test_sm100_graphs_come_from_the_prefill_and_decode_grids_from_0_34():
    """B200 (SM 10.0, ≥ 160 GiB: 16,384 batched tokens, 1,024 sequences): 0.33 captures its one ladder to 1,024
    tokens as 83 PIECEWISE + 83 FULL graphs; 0.34 the prefill grid to 8,192 tokens (54) and the decode grid to
    1,024 requests (64).  An H200 (SM 9.0) keeps the ladder (51 + 51) in both."""
    from tpkit.hardware.catalog import lookup_gpu

    b200, h200 = lookup_gpu("B200"), lookup_gpu("H200")

    def graphs(gpu, version):
        r = plan_vllm(llama3_8b(), gpu, ParallelSpec(), VllmOptions(engine_version=version), weights=W)
        return next(l.source for l in r.ledger.items if l.item.startswith("CUDA graphs")).split(": first")[0]

    assert graphs(b200, "0.33.0").endswith("83 PIECEWISE + 83 FULL graphs")
    assert graphs(b200, "0.34.0").endswith("54 PIECEWISE + 64 FULL graphs")
    assert graphs(h200, "0.33.0").endswith("51 PIECEWISE + 51 FULL graphs")
    assert graphs(h200, "0.34.0").endswith("51 PIECEWISE + 51 FULL graphs")


# --- helper g34 (2026-12-05): the extensible pool's 2 MiB granule per layer segment (capacity.granule_floor) -------

from tpkit.engines.vllm.capacity import (KV_COMMIT_GRANULE, blocks_within, physical_bytes_for,  # noqa: E402
                                        segment_strides)

MIB = 2**20


def test_blocks_within_drops_the_blocks_whose_granules_do_not_fit():
    """vllm 0.34.0 ``ExtensibleKVCache.blocks_within``: 32 segments of 256 KiB a block (Llama-3-8B at block 64):
    9 blocks map 32 × 4 MiB (2.25 MiB rounded up), so 9 × 8 MiB + 1 byte holds only 8 blocks; 10 × 8 MiB holds 9."""
    strides = (256 * 1024,) * 32
    assert physical_bytes_for(8, strides) == Bytes(8 * 8 * MIB)
    assert physical_bytes_for(9, strides) == Bytes(32 * 4 * MIB)
    assert blocks_within(Bytes(9 * 8 * MIB + 1), strides) == 8
    assert blocks_within(Bytes(128 * MIB), strides) == 16 and blocks_within(Bytes(127 * MIB), strides) == 8
    assert KV_COMMIT_GRANULE == Bytes(2 * MIB)
    # one segment (block-outermost) loses at most a granule: the count is the plain quotient whenever it fits
    assert blocks_within(Bytes(100 * MIB), (8 * MIB,)) == 12


def test_segments_are_the_layer_regions():
    """``get_kv_cache_config_from_groups``: one region per layer of a one-kind model; a hybrid's groups alias from
    byte 0, so ``group_size`` regions of the unified page (Qwen3-Next tp 4: 12 full + 36 linear → 12 slots)."""
    model = llama3_8b()
    rules = rules_for(NEW)
    layout = build_layout(model, ParallelSpec(), block_size=64, era=rules.era, dtype_bytes=2,
                          dtype_name="bfloat16", rules=rules)
    assert segment_strides(layout) == (64 * 8 * 128 * 2 * 2,) * 32 and sum(segment_strides(layout)) == \
        layout.bytes_per_block.bytes
    nxt = from_config_dict(json.loads(QWEN3_NEXT.read_text()), name=QWEN3_NEXT.stem, source=str(QWEN3_NEXT))
    hybrid = build_layout(nxt, ParallelSpec(tp=4), block_size=64, era=rules.era, dtype_bytes=2,
                          dtype_name="bfloat16", rules=rules)
    strides = segment_strides(hybrid)
    assert len(strides) == hybrid.group_size == 12 and sum(strides) == hybrid.bytes_per_block.bytes


def test_the_0_34_pool_counts_whole_granules_and_0_33_does_not():
    """Llama-3-8B on an H200, block 64: 0.34's pool of 128,684,530,401 B is 15,340.39 blocks of 8 MiB; 15,340 would
    map 32 × ⌈15,340 × 256 KiB / 2 MiB⌉ granules = 15,344 blocks' worth, so vLLM commits 15,336 (a multiple of 8).
    0.33.0 (and 0.34 without the extensible cache) allocate num_blocks × bytes_per_block with no rounding of the
    count (``v1/worker/utils.py allocate_kv_cache``): the plain quotient."""
    r = _plan("0.34.0")
    e = r.extra
    strides = (e["bytes_per_block"] // 32,) * 32
    assert e["kv_blocks"] == blocks_within(Bytes(e["available_kv_bytes"]), strides)
    assert e["kv_blocks"] < e["available_kv_bytes"] // e["bytes_per_block"]  # the granule costs blocks here
    assert physical_bytes_for(e["kv_blocks"], strides).bytes <= e["available_kv_bytes"]
    unused = next(l for l in r.ledger.items if l.item.startswith("unused"))
    assert "32 per-layer segments" in unused.source and r.ledger.check(Bytes(0)) == []
    for old in (_plan("0.33.0", block_size=64), _plan("0.34.0", no_enable_extensible_kv_cache=True)):
        o = old.extra
        assert o["kv_blocks"] == o["available_kv_bytes"] // o["bytes_per_block"]
        assert "segments" not in next(l for l in old.ledger.items if l.item.startswith("unused")).source


def test_the_extended_line_prints_the_physical_bytes():
    """``extend_kv_cache`` prints ``physical_bytes`` (granules mapped), not blocks × bytes per block: a DeepSeek-V3-like
    MLA model at tp 8 on an H200 (61 segments of 64 × 576 × 2 = 73,728 B a block): 29,316 blocks fit the bytes, 29,297
    their granules, which map 122.71 GiB (29,297 × 4,497,408 B = 122.71 GiB).  Helper ev33: 29,284 / 29,269 / 122.60
    before; 0.34 creates NCCL before its snapshot and reads the init window's cell (the fixture's H200 has no NVLink
    field, so init:pcie:8, 0.13 GiB, against the pooled 0.265)."""
    from vllm_fixtures import deepseek_v3_like

    r = plan_vllm(deepseek_v3_like(), H200, ParallelSpec(tp=8), VllmOptions(engine_version="0.34.0"))
    e = r.extra
    strides = (73_728,) * 61
    assert e["bytes_per_block"] == sum(strides)
    assert e["kv_blocks"] == blocks_within(Bytes(e["available_kv_bytes"]), strides) == 29_297
    assert e["available_kv_bytes"] // e["bytes_per_block"] == 29_316
    assert "Extended KV cache to 29297 blocks (122.71 GiB)." in r.engine_log


def test_every_term_of_the_0_34_sizing_on_both_sides_of_the_boundary():
    """Each term vllm 0.34.0 ``measure_kv_cache_bytes`` / ``measure_kv_cache_blocks`` subtracts, against 0.33.0's
    ``determine_available_memory`` (docs/accuracy.md §2, helper g34): requested (``request_memory``: ceil(total ×
    util), util 1.0 under the extensible cache, 0.92 before); F − margin (0.34 only: another process's memory comes
    off the pool byte for byte, where 0.33 refuses); the margin max(1 GiB, 0.75 × the profile's transient peak);
    the captured graphs (0.34) for the estimate (0.33), subtracted from the pool but not from the printed
    reservation; kept = max(transient peak, torch reservation growth) with the growth not modelled (0), so the
    peak is subtracted once on both sides; the reservation caps the count (``finalize_extensible_kv_cache``)."""
    old, new = _plan("0.33.0"), _plan("0.34.0")
    total = H200.total_bytes.bytes
    assert old.extra["requested_bytes"] == math.ceil(total * 0.92) and new.extra["requested_bytes"] == total
    held = _plan("0.34.0", machine=_machine(H200.total_bytes - GiB(40)))
    assert new.extra["available_kv_bytes"] - held.extra["available_kv_bytes"] == GiB(40).bytes
    assert not _plan("0.33.0", machine=_machine(H200.total_bytes - GiB(40))).verdict.fits
    peak = _line(new, "activation peak (profile run, estimate)")
    assert _line(new, "extensible KV cache margin") == max(GiB(1), Bytes(int(peak.bytes * 0.75)))
    assert "extensible KV cache margin" not in [l.item for l in old.ledger.items]
    graphs = _line(new, "CUDA graphs (captured before KV sizing)")
    assert _line(old, "CUDA graphs (estimate)") == graphs  # the same capture, estimated before 0.34
    printed = float(next(l for l in new.engine_log if l.startswith("Available KV cache memory: ")).split()[4])
    reservation = new.extra["requested_bytes"] - sum(_line(new, i).bytes for i in (  # the start-up lines: before F
        "model weights", "rotary cos/sin cache", "Model Runner V2 request/sampling state",
        "activation peak (profile run, estimate)", "non-torch growth during profiling"))
    assert abs(printed - reservation / 2**30) < 0.006  # no graph term in the printed reservation
    assert [l.item for l in new.ledger.items].count("activation peak (profile run, estimate)") == 1
    assert new.extra["kv_blocks"] <= int(printed * 2**30) // new.extra["bytes_per_block"]
