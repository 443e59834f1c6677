"""SGLang's request-capped SWA pool, hand-computed from the release wheels (``model_executor/pool_configurator.py``):

- 0.5.11 – 0.5.13: no such configurator; ``HybridSWAPoolConfigurator`` only (SWA pool = ratio × full pool).
- 0.5.14 – 0.5.21 ``SWAChunkCapPoolConfigurator``, 0.5.22 – 0.5.23 ``SWARequestCapPoolConfigurator``; picked by
  ``create_memory_pool_configurator`` when ``is_applicable``: ``--max-running-requests`` set, radix cache disabled,
  a chunked-prefill size (0.5.22+: > 0; before, only ``None`` is refused), a sliding window, ≥ 1 full layer.
- SWA pool = ceil_page((window + SGLANG_SWA_EVICTION_INTERVAL 128 + page + page) × num_reqs
  + chunks × chunked_prefill_size + page); num_reqs = max_running_requests // attn_dp (0.5.23: max(1, …));
  chunks = 1 with the overlap schedule off, else 2 (no speculative decoding).
- full pool = floor_page((budget − swa_pool × S) // F); with a smaller --max-total-tokens: full = floor_page(cap),
  SWA = min(swa_pool, cap) (``calculate_pool_sizes_from_max_tokens``).

gpt-oss-120b (fixture): 18 full + 18 sliding layers, 8 KV heads × 64, window 128, bf16:
F = S = 8 × (64 + 64) × 2 B × 18 = 36,864 B/token; ratio cell = 36,864 × 1.8 = 66,355.2 B/token.
"""

from __future__ import annotations

import pytest

from sglang_fixtures import gpt_oss_120b, ledger_problems, plan
from tpkit.engines.sglang import SglangOptions
from tpkit.engines.sglang.pool import compute_cell, size_tokens
from tpkit.engines.sglang.swa_cap import swa_pool_choice
from tpkit.errors import PlanInputError
from tpkit.units import GiB

CELL = compute_cell(gpt_oss_120b(), 1, 1, "bfloat16", version="0.5.23")
BUDGET = GiB(40)  # 42,949,672,960 B; / 36,864 = 1,165,084.4


def _choice(version="0.5.23", *, radix_off=True, mrr=64, cpp=8192, page=1, window=128, dp=1, overlap=True,
            cell=CELL, spec=False):
    return swa_pool_choice(cell, version, disable_radix_cache=radix_off, max_running_requests=mrr,
                           chunked_prefill_size=cpp, page_size=page, sliding_window=window, attn_dp=dp,
                           overlap_schedule=overlap, speculative=spec)


def test_cell_halves():
    assert (CELL.full_bytes(), CELL.swa_bytes()) == (36_864, 36_864)
    assert CELL.bytes_per_token == pytest.approx(66_355.2)


@pytest.mark.parametrize("version, name", [("0.5.13", "HybridSWAPoolConfigurator"),
                                           ("0.5.14", "SWAChunkCapPoolConfigurator"),
                                           ("0.5.21", "SWAChunkCapPoolConfigurator"),
                                           ("0.5.22", "SWARequestCapPoolConfigurator"),
                                           ("0.5.23", "SWARequestCapPoolConfigurator")])
def test_first_release_and_name(version, name):
    c = _choice(version)
    assert c.configurator == name
    # (128 + 128 + 1 + 1) × 64 + 2 × 8,192 + 1 = 16,512 + 16,384 + 1
    assert c.swa_cap == (None if version == "0.5.13" else 32_897)


def test_page_and_overlap():
    # page 64: (128 + 128 + 64 + 64) × 64 + 2 × 8,192 + 64 = 41,024 (already a multiple of 64)
    assert _choice(page=64).swa_cap == 41_024
    # overlap off: one chunk in flight: 258 × 64 + 8,192 + 1
    assert _choice(overlap=False).swa_cap == 24_705
    # page 64, 3 requests, overlap off: 384 × 3 + 8,192 + 64 = 9,408 (a multiple of 64)
    assert _choice(page=64, mrr=3, overlap=False).swa_cap == 9_408


def test_chunked_prefill_off_boundary():
    # 0.5.14 – 0.5.21 refuse only None: -1 enters the cap (258 × 64 − 2 + 1 = 16,511)
    assert _choice("0.5.21", cpp=-1).swa_cap == 16_511
    # 0.5.22+: chunked_prefill_size ≤ 0 keeps the ratio pool
    c = _choice("0.5.22", cpp=-1)
    assert (c.configurator, c.swa_cap) == ("HybridSWAPoolConfigurator", None) and "chunked prefill is off" in c.why


def test_min_one_request_boundary():
    # --max-running-requests 1 over 2 attention-DP ranks: 0.5.22 num_reqs 0 → 2 × 8,192 + 1; 0.5.23 max(1, 0) = 1
    assert _choice("0.5.22", mrr=1, dp=2).swa_cap == 16_385
    assert _choice("0.5.23", mrr=1, dp=2).swa_cap == 16_385 + 258


@pytest.mark.parametrize("change, missing", [(dict(radix_off=False), "radix cache is on"),
                                             (dict(mrr=None), "--max-running-requests is not set"),
                                             (dict(window=None), "no sliding_window")])
def test_each_condition(change, missing):
    c = _choice(**change)
    assert (c.configurator, c.swa_cap) == ("HybridSWAPoolConfigurator", None) and missing in c.why


def test_all_swa_and_non_swa():
    all_swa = compute_cell(gpt_oss_120b(layer_kinds=("sliding",) * 36), 1, 1, "bfloat16", version="0.5.23")
    c = _choice(cell=all_swa)
    assert c.swa_cap is None and "all-SWA" in c.why
    dense = compute_cell(gpt_oss_120b(layer_kinds=("full",) * 36, sliding_window=None), 1, 1, "bfloat16")
    assert _choice(cell=dense) is None


def test_speculative_refused():
    with pytest.raises(PlanInputError, match="speculative"):
        _choice(spec=True)


def test_size_tokens_capped():
    # full = floor((budget − 32,897 × 36,864) / 36,864) = 1,165,084 − 32,897
    assert size_tokens(BUDGET, CELL, page_size=1, max_total_tokens=None, swa_cap=32_897) == (1_132_187, 32_897)
    # page 64: 1,165,084 − 41,024 = 1,124,060 → 1,124,032
    assert size_tokens(BUDGET, CELL, page_size=64, max_total_tokens=None, swa_cap=41_024) == (1_124_032, 41_024)
    # --max-total-tokens below: full = the cap, SWA = min(cap, SWA pool)
    assert size_tokens(BUDGET, CELL, page_size=1, max_total_tokens=100_000, swa_cap=32_897) == (100_000, 32_897)
    assert size_tokens(BUDGET, CELL, page_size=1, max_total_tokens=20_000, swa_cap=32_897) == (20_000, 20_000)
    # a SWA pool larger than the budget: SGLang raises ('leaves no room for the full KV pool'): nothing
    assert size_tokens(GiB(1), CELL, page_size=1, max_total_tokens=None, swa_cap=40_000) == (0, 0)
    # the ratio pool: floor(budget / 66,355.2) = 647,269; SWA int(647,269 × 0.8) = 517,815
    assert size_tokens(BUDGET, CELL, page_size=1, max_total_tokens=None) == (647_269, 517_815)


def test_swa_full_tokens_ratio_flag():
    half = compute_cell(gpt_oss_120b(), 1, 1, "bfloat16", swa_full_tokens_ratio=0.5)
    assert half.bytes_per_token == pytest.approx(36_864 * 1.5)
    # floor(42,949,672,960 / 55,296) = 776,722 (776,722.96); SWA int(776,722 × 0.5) = 388,361
    assert size_tokens(BUDGET, half, page_size=1, max_total_tokens=None) == (776_722, 388_361)
    with pytest.raises(PlanInputError, match="swa-full-tokens-ratio"):
        SglangOptions(swa_full_tokens_ratio=1.5)


def test_plan_names_the_configurator():
    r = plan(gpt_oss_120b(), disable_radix_cache=True, max_running_requests=64)
    x = r.extra["sglang"]
    assert x["swa_pool_configurator"] == "SWARequestCapPoolConfigurator" and x["swa_cap_tokens"] == 32_897
    assert x["swa_tokens"] == 32_897 and not ledger_problems(r)
    budget = x["kv_budget_bytes"] - x["mamba_pool_bytes"]
    # one formula: the plan's full pool is size_tokens' with the cap
    assert r.kv_tokens == (budget - 32_897 * 36_864) // 36_864
    assert not any(line.startswith("Use sliding window memory pool") for line in r.engine_log)
    assert any(line.startswith("# (tpkit) SWA pools sized by SWARequestCapPoolConfigurator") for line in r.engine_log)
    # 0.5.7+: the SWAKVPool line ends with both pool sizes
    assert any(line.startswith("SWAKVPool mem usage: ") and line.endswith(f", swa size: 32897, full size: {r.kv_tokens}")
               for line in r.engine_log)
    swa_line = next(i for i in r.ledger.items if i.item == "KV pool, sliding-window layers")
    assert "SWARequestCapPoolConfigurator" in swa_line.source and "--disable-radix-cache" in swa_line.source
    old = plan(gpt_oss_120b(), disable_radix_cache=True, max_running_requests=64, engine_version="0.5.13")
    assert old.extra["sglang"]["swa_pool_configurator"] == "HybridSWAPoolConfigurator"
    assert old.engine_log[1].startswith("Use sliding window memory pool.") and not ledger_problems(old)
    chunk = plan(gpt_oss_120b(), disable_radix_cache=True, max_running_requests=64, engine_version="0.5.20")
    assert chunk.extra["sglang"]["swa_pool_configurator"] == "SWAChunkCapPoolConfigurator"


def test_plan_disable_overlap_schedule():
    r = plan(gpt_oss_120b(), disable_radix_cache=True, max_running_requests=64, disable_overlap_schedule=True)
    assert r.extra["sglang"]["swa_cap_tokens"] == 24_705


_LOG = """\
[2026-11-20 10:00:00] server_args=ServerArgs(model_path='openai/gpt-oss-120b', tp_size=1, mem_fraction_static=0.9, \
disable_radix_cache={radix}, max_running_requests=64, chunked_prefill_size=8192, page_size=1)
[2026-11-20 10:00:05 TP0] Load weight begin. avail mem=79.10 GB
[2026-11-20 10:00:30 TP0] Load weight end. elapsed=25.10 s, type=GptOssForCausalLM, dtype=torch.bfloat16, \
avail mem=18.28 GB, mem usage=60.82 GB.
[2026-11-20 10:00:31 TP0] KV Cache is allocated. #tokens: 32897, K size: 0.56 GB, V size: 0.56 GB
[2026-11-20 10:00:31 TP0] KV Cache is allocated. #tokens: 268923, K size: 4.62 GB, V size: 4.62 GB
[2026-11-20 10:00:31 TP0] SWAKVPool mem usage: 10.37 GB, swa size: 32897, full size: 268923
[2026-11-20 10:00:31 TP0] Memory pool end. avail mem=7.80 GB
"""


def _explained_tokens(radix: bool):
    from tpkit.explain import explain_log

    e = explain_log(_LOG.format(radix=radix))
    return next(r for r in e.anchored.rows if r.item == "KV tokens"), next(r for r in e.anchored.rows
                                                                            if r.item == "KV pool")


def test_explain_rebuilds_with_the_same_formula():
    # a 0.5.9+ log ('Load weight end. elapsed='); rest = 18.28 − 0.1 × 79.10 GiB less the RoPE band:
    # full = (rest − 32,897 × 36,864) // 36,864, the plan's size_tokens with the cap
    tokens, pool = _explained_tokens(True)
    assert tokens.check == "reproduced" and "SWA pool × SWA cell" in tokens.meaning
    assert "SWARequestCapPoolConfigurator" in tokens.meaning
    assert pool.check == "reproduced" and "SWAKVPool mem usage" in pool.meaning  # both pools: 10.37 GB
    # the same log with the radix cache on: SGLang would have used the ratio pool, which this print is not
    ratio, _ = _explained_tokens(False)
    assert ratio.check == "differs" and "SWARequestCapPoolConfigurator" not in ratio.meaning


def test_plan_flags_pp_and_dp_attention():
    from tpkit.engines.sglang.defaults import CapacityDefaults
    from tpkit.engines.sglang.budget import plan_swa_pool
    from tpkit.parallel import ParallelSpec

    cap = CapacityDefaults(chunked_prefill_size=8192, cuda_graph_max_bs=256, source="test")
    opts = SglangOptions(disable_radix_cache=True, max_running_requests=64)
    model = gpt_oss_120b()
    # pp > 1: SGLang turns the overlap schedule off (one chunk in flight): 258 × 64 + 8,192 + 1
    assert plan_swa_pool(CELL, model, ParallelSpec(tp=1, pp=2), opts, cap, 1).swa_cap == 24_705
    # DP attention 2 ranks: 64 // 2 = 32 requests and chunked prefill 8,192 // 2 per rank: 258 × 32 + 2 × 4,096 + 1
    dp = ParallelSpec(tp=2, dp=2, dp_attention=True)
    assert plan_swa_pool(CELL, model, dp, opts, cap, 1).swa_cap == 258 * 32 + 8_192 + 1
    # speculative decoding sets max_running_requests 48 when unset: the cap applies, and tpkit refuses it
    with pytest.raises(PlanInputError, match="speculative"):
        plan_swa_pool(CELL, model, ParallelSpec(tp=1), SglangOptions(disable_radix_cache=True,
                                                                     speculative_algorithm="EAGLE"), cap, 1)
