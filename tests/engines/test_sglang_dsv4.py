"""SGLang's DeepSeek-V4 pools (``tpkit.engines.sglang.dsv4``; sglang 0.5.12 - 0.5.19 ``pool_configurator.py``
``DSV4PoolConfigurator``), checked against the numbers sglang#25118 (tests/logs/data/sglang/sg_121.log, SGLang
0.5.11.dev20260512, DeepSeek-V4-Flash on MI300X) prints:

    DSv4 memory calculation: bytes_per_full_token=176983.05, available_bytes=87.26 GB, full_token=529408
    Initialize DeepSeekV4TokenToKVPool with max_num_reqs=256 swa_size=423424 c4_size=132352 c128_size=4136
    c4_state_pool_size=52928 c128_state_pool_size=846848

(its "GB" is bytes / 2^30).  The config is the assembled one (tests/logs/data/configs/deepseek-ai__DeepSeek-V4-Flash,
SOURCE.md there)."""

import json
from pathlib import Path

import pytest

from tpkit.cli import main
from tpkit.engines.sglang.dsv4 import (c128_state_fixed_bytes, dsv4_budget_tokens, dsv4_cell, dsv4_pools,
                                       dsv4_pools_from_tokens, layout_of, ring_sizes)
from tpkit.engines.sglang.pool import compute_cell, pool_buffers
from tpkit.errors import PlanInputError
from tpkit.models.load import load_model

CONFIG_DIR = Path(__file__).resolve().parents[1] / "logs" / "data" / "configs" / "deepseek-ai__DeepSeek-V4-Flash"
GIB = 2 ** 30


def _layout():
    return layout_of(json.loads((CONFIG_DIR / "config.json").read_text()))


def test_the_flash_layout_is_44_ratios_with_21_c4_and_20_c128_layers():
    lay = _layout()
    assert (lay.qk_nope_head_dim, lay.qk_rope_head_dim, lay.index_head_dim, lay.window) == (448, 64, 128, 128)
    assert (lay.layers(), lay.layers(4), lay.layers(128), lay.layers(0)) == (44, 21, 20, 3)


def test_the_dev_build_cell_reproduces_the_printed_bytes_per_full_token_and_pool_split():
    cell = dsv4_cell(_layout(), "0.5.11.dev20260512+g339e36e", swa_ratio=0.8)
    assert (cell.ring4, cell.ring128) == (16, 256)
    assert f"{cell.bytes_per_full_token:.2f}" == "176983.05"
    pools = dsv4_pools_from_tokens(cell, 529_408, 256)
    assert (pools.full, pools.swa, pools.c4, pools.c128, pools.c4_state, pools.c128_state) == (
        529_408, 423_424, 132_352, 4_136, 52_928, 846_848)


def test_the_printed_budget_interval_brackets_the_printed_full_token():
    """87.26 'GB' is printed to 0.01 GiB: the budgets [87.255, 87.265) GiB give 529,152 or 529,408 tokens (pages of
    256); the printed 529,408 is the top page, reached from 87.2610 GiB (= 529,408 × 176,983.05 B)."""
    cell = dsv4_cell(_layout(), "0.5.11.dev20260512", swa_ratio=0.8)
    low = dsv4_pools(cell, int(87.255 * GIB), 256).full
    high = dsv4_pools(cell, int(87.265 * GIB) - 1, 256).full
    assert (low, high) == (529_152, 529_408)
    edge = 529_408 * cell.bytes_per_full_token
    assert dsv4_pools(cell, int(edge) + 1, 256).full == 529_408
    assert dsv4_pools(cell, int(edge) - 1, 256).full == 529_152


@pytest.mark.parametrize("version", ["0.5.12", "0.5.13", "0.5.14"])
def test_released_wheels_size_non_speculative_rings_at_8_and_128(version):
    plain = dsv4_cell(_layout(), version)
    assert (plain.ring4, plain.ring128) == (8, 128)
    assert f"{plain.bytes_per_full_token:.2f}" == "100695.05"
    spec = dsv4_cell(_layout(), version, speculative=True)
    assert (spec.ring4, spec.ring128) == (16, 256)
    assert spec.bytes_per_full_token == pytest.approx(176_983.05 * 45 / 44)


def test_version_boundaries_on_both_sides():
    """0.5.14 prices the c128 compress states in the cell; 0.5.15 – 0.5.19 take them off the budget per request
    (``c128_state_fixed_bytes``, none in the cell); 0.5.20 rewrites the configurator: refused."""
    assert ring_sizes("0.5.11", False) == (16, 256) and ring_sizes("0.5.12", False) == (8, 128)
    old, new = dsv4_cell(_layout(), "0.5.14"), dsv4_cell(_layout(), "0.5.15")
    c128_states = 0.8 * 128 / 128 * (2 * 512 * 4) * 20
    assert old.bytes_per_full_token - new.bytes_per_full_token == pytest.approx(c128_states)
    assert not old.c128_per_request and new.c128_per_request
    assert c128_state_fixed_bytes(_layout(), old, "0.5.14", max_running_requests=8) == 0
    assert c128_state_fixed_bytes(_layout(), new, "0.5.15", max_running_requests=8) > 0
    assert dsv4_cell(_layout(), "0.5.19").bytes_per_full_token == new.bytes_per_full_token
    with pytest.raises(PlanInputError, match="after 0.5.19 is not modelled"):
        dsv4_cell(_layout(), "0.5.20")


def test_0_5_13_counts_the_stage_layers_without_the_mtp_slot():
    """0.5.13+ slice compress_ratios[start_layer:end_layer] and end_layer is num_hidden_layers (43): the MTP slot
    (a 0) drops out of L at pp 1; 0.5.12 counts all 44."""
    model = load_model(str(CONFIG_DIR))
    a = compute_cell(model, 4, 1, "fp8_e4m3", version="0.5.12").bytes_per_token
    b = compute_cell(model, 4, 1, "fp8_e4m3", version="0.5.13").bytes_per_token
    assert a - b == pytest.approx(0.8 * 584)


def test_sg_484_pool_is_rebuilt_from_its_printed_budget():
    """tests/logs/data/sglang/sg_484.log (an SGLang source build dated 2026-08-07, so 0.5.19 rules at the newest,
    DeepSeek-V4 at tp 4, --max-running-requests 8, swa_full_tokens_ratio 0.1 set by SGLang) prints
    'bytes_per_full_token=7705.45, available_bytes=11.89 GB, c128_state_fixed=0.11 GB, full_token=1641472'."""
    model = load_model(str(CONFIG_DIR))
    cell = compute_cell(model, 4, 1, "fp8_e4m3", version="0.5.19", swa_full_tokens_ratio=0.1)
    layout, dcell = cell.dsv4
    assert layout.layers() == 43 and f"{cell.bytes_per_token:.2f}" == "7705.45"
    fixed = c128_state_fixed_bytes(layout, dcell, "0.5.19", max_running_requests=8)
    assert fixed == 1408 * 1024 * 4 * 20 and f"{fixed / GIB:.2f}" == "0.11"   # ceil128(9 × 128 + 129) rows
    low = dsv4_pools(dcell, int(11.885 * GIB), 128, fixed_bytes=fixed).full
    high = dsv4_pools(dcell, int(11.895 * GIB) - 1, 128, fixed_bytes=fixed).full
    assert low <= 1_641_472 <= high
    # without the fixed term (0.5.14's pricing) the printed pool is not reached from the same budget
    assert dsv4_pools(dcell, int(11.885 * GIB), 128).full > 1_641_472
    default = c128_state_fixed_bytes(layout, dcell, "0.5.19", max_running_requests=None)
    assert default == -(-(257 * 128 + 129) // 128) * 128 * 1024 * 4 * 20   # the hook's 256


def test_swa_ratio_weights_the_swa_and_state_terms_only():
    lay = _layout()
    a = dsv4_cell(lay, "0.5.12", swa_ratio=1.0).bytes_per_full_token
    b = dsv4_cell(lay, "0.5.12", swa_ratio=0.5).bytes_per_full_token
    fixed = 584 * (21 / 4 + 20 / 128) + 132 * 21 / 4
    assert (a - fixed) == pytest.approx(2 * (b - fixed))


def test_bad_inputs_are_refused_with_what_was_wrong():
    cfg = json.loads((CONFIG_DIR / "config.json").read_text())
    with pytest.raises(PlanInputError, match="compress_ratios"):
        layout_of({**cfg, "compress_ratios": [0, 8]})
    with pytest.raises(PlanInputError, match="index_head_dim"):
        layout_of({k: v for k, v in cfg.items() if k != "index_head_dim"})
    with pytest.raises(PlanInputError, match="multiple of 128"):
        dsv4_pools(dsv4_cell(_layout(), "0.5.12"), 10 * GIB, 64)


def test_compute_cell_uses_the_dsv4_rule_not_divided_by_tp_and_refuses_pp():
    model = load_model(str(CONFIG_DIR))
    for tp in (1, 4, 8):
        cell = compute_cell(model, tp, 1, "fp8_e4m3", version="0.5.12")
        assert cell.layout == "dsv4" and f"{cell.bytes_per_token:.2f}" == "100695.05"
    with pytest.raises(PlanInputError, match="pipeline parallelism"):
        compute_cell(model, 4, 2, "fp8_e4m3", version="0.5.12")
    with pytest.raises(PlanInputError, match="not modelled"):
        compute_cell(model, 4, 1, "fp8_e4m3", version="0.5.23")
    plan = pool_buffers(compute_cell(model, 4, 1, "fp8_e4m3", version="0.5.12"), 529_408, 0, 256)
    sizes = {b.name: (b.count, b.shape) for b in plan.buffers}
    assert sizes["swa_kv"] == (44, (423_424, 584)) and sizes["c4_kv"] == (21, (132_352, 584))
    assert sizes["c128_state"] == (20, (423_424 // 128 * 128, 1024))
    # the pools at the configurator's prices spend at most tokens × cell: the SWA and state pools are floored to
    # the page (no padding counted, as in the configurator)
    spent = 529_408 * 100_695.05
    assert spent * 0.999 < plan.total_bytes.bytes <= spent


def test_cli_plans_deepseek_v4_on_a_modelled_release_and_refuses_a_later_one(capsys):
    argv = ["plan", str(CONFIG_DIR), "--engine", "sglang", "--gpu", "H200", "--tp", "8", "--page-size", "256"]
    assert main(argv + ["--engine-version", "0.5.12"]) == 0
    out = capsys.readouterr().out
    assert "DSV4" in out and "100,695" in out
    assert main(argv) == 2
    assert "--engine-version 0.5.19 or earlier" in capsys.readouterr().err
    # speculative decoding changes the rings and inflates the cell (0.5.12); the plan does not wire that: refused
    assert main(argv + ["--engine-version", "0.5.12", "--speculative-algorithm", "NEXTN"]) == 2
    assert "speculative decoding is not modelled" in capsys.readouterr().err


def _plan_json(capsys, *extra):
    argv = ["plan", str(CONFIG_DIR), "--engine", "sglang", "--gpu", "H200", "--tp", "8", "--page-size", "256",
            "--json", *extra]
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("old, new", [("0.5.14", "0.5.15"), ("0.5.13", "0.5.16")])
def test_plan_prices_the_c128_states_per_request_from_0_5_15(capsys, old, new):
    """Helper dsv11 (2026-12-05): the plan sizes 0.5.15 – 0.5.19 with ``dsv4_budget_tokens`` (the formula tpkit
    explain uses): the c128 states leave the cell (0.8 × 128/128 × 4096 B × 20 layers = 65,536 B less) and
    ceil128(257 × 128 + 129) = 33,152 rows × 4096 B × 20 layers come off the budget first (the hook's 256
    running requests); 0.5.14 keeps them in the cell, its c128 state pool follows the SWA pool."""
    a, b = _plan_json(capsys, "--engine-version", old), _plan_json(capsys, "--engine-version", new)
    assert a["sglang"]["cell_bytes_per_token"] - b["sglang"]["cell_bytes_per_token"] == pytest.approx(65_536)
    assert a["sglang"]["kv_budget_bytes"] == pytest.approx(b["sglang"]["kv_budget_bytes"], rel=0.05)
    fixed = 33_152 * 4096 * 20
    tokens = int((b["sglang"]["kv_budget_bytes"] - fixed) / b["sglang"]["cell_bytes_per_token"]) // 256 * 256
    assert b["kv_tokens"] == tokens and b["max_running_requests"] == 256
    assert "c128_state_pool_size=33152" in "\n".join(b["engine_log"]) and "=33152" not in "\n".join(a["engine_log"])
    assert b["kv_pool"]["num_tokens"] == tokens
    c = _plan_json(capsys, "--engine-version", new, "--max-running-requests", "8")
    assert "c128_state_pool_size=1408" in "\n".join(c["engine_log"]) and c["kv_tokens"] > b["kv_tokens"]


def test_plan_sizes_0_5_19_and_refuses_0_5_20_with_its_reason(capsys):
    argv = ["plan", str(CONFIG_DIR), "--engine", "sglang", "--gpu", "H200", "--tp", "8", "--page-size", "256"]
    assert main(argv + ["--engine-version", "0.5.19"]) == 0
    assert "c128 states per request" in capsys.readouterr().out
    assert main(argv + ["--engine-version", "0.5.20"]) == 2
    err = capsys.readouterr().err
    assert "0.5.20 rewrites DSV4PoolConfigurator" in err and "Traceback" not in err


def test_plan_and_explain_give_the_same_tokens_for_sg_484(capsys):
    """sg_484 (DeepSeek-V4 at tp 4 on 64 GiB Ascend NPUs, 0.5.19 rules by its date, 8 running requests, page 128,
    ratio 0.1): explain rebuilds the printed 1,641,472 from the log's anchors; the plan given the log's numbers
    (--from-log, 64 GiB, 0.5.19) lands in explain's range, and explain's formula on the plan's budget gives the
    plan's tokens (one function: ``dsv4_budget_tokens``)."""
    import re

    from tpkit.explain.sgpool import _Dsv4Fixed
    from tpkit.units import Bytes

    log = str(Path(__file__).resolve().parents[1] / "logs" / "data" / "sglang" / "sg_484.log")
    assert main(["explain", log, "--model", str(CONFIG_DIR)]) == 0
    out = capsys.readouterr().out
    lo, hi = (int(x.replace(",", "")) for x in re.search(r"rebuilt from the anchors:? ([\d,]+)–([\d,]+)", out).groups())
    assert lo <= 1_641_472 <= hi
    assert main(["plan", str(CONFIG_DIR), "--from-log", log, "--gpu-memory", "64GiB", "--engine-version", "0.5.19",
                 "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert lo <= plan["kv_tokens"] <= hi and abs(plan["kv_tokens"] - 1_641_472) <= 2 * 128
    model = load_model(str(CONFIG_DIR))
    cell = compute_cell(model, 4, 1, "fp8_e4m3", version="0.5.19", swa_full_tokens_ratio=0.1)
    layout, dcell = cell.dsv4
    fixed = c128_state_fixed_bytes(layout, dcell, "0.5.19", max_running_requests=8)
    same = _Dsv4Fixed(Bytes(fixed), layout, dcell, "0.5.19", 8, 1).tokens(Bytes(plan["sglang"]["kv_budget_bytes"]), 128, None)
    assert same == plan["kv_tokens"]


def test_budget_tokens_refuse_bad_running_counts_cleanly():
    lay = _layout()
    cell = dsv4_cell(lay, "0.5.16")
    for bad in (0, -1, True, "8"):
        with pytest.raises(PlanInputError, match="max_running_requests"):
            dsv4_budget_tokens(lay, cell, "0.5.16", 10 * GIB, 128, max_running_requests=bad)
    # before 0.5.15 nothing is priced per request, whatever the count
    old = dsv4_budget_tokens(lay, dsv4_cell(lay, "0.5.14"), "0.5.14", 10 * GIB, 128, max_running_requests=None)
    assert old.c128_fixed_bytes == 0 and old.running is None
    assert dsv4_budget_tokens(lay, cell, "0.5.16", 0, 128, max_running_requests=None).full_tokens == 0


def test_entry_bytes_of_v4_flash_layout():
    """One token's KV entry and c4 indexer key per layer (0.5.12 ``_get_bytes_per_full_token``): V4-Flash's
    head_dim 512 / rope 64 gives 448 fp8 + 64 × 2 bf16 + 8 = 584 B; index_head_dim 128 gives 128 + 4 = 132 B;
    the pool buffers use the same widths."""
    layout = layout_of({"head_dim": 512, "qk_rope_head_dim": 64, "index_head_dim": 128, "sliding_window": 128,
                        "compress_ratios": [0, 4, 128, 4]})
    assert layout.kv_bytes() == 584
    assert layout.indexer_bytes() == 132
    wider = layout_of({"head_dim": 512, "qk_rope_head_dim": 64, "index_head_dim": 256, "sliding_window": 128,
                       "compress_ratios": [4]})
    assert wider.indexer_bytes() == 256 + 8


def test_the_dsv4_backend_sets_its_own_page_size(capsys):
    """Helper tail11 (2026-12-05): SGLang's dsv4 hook overwrites --page-size (256; 128 on an NPU from 0.5.14;
    ``dsv4.dsv4_page_size``).  Unset or 256: 256, no note; 64: 256 and a note saying why; 128 (an NPU log's value):
    kept from 0.5.14, 256 with the note on 0.5.13 (its hook has no NPU branch)."""
    from tpkit.engines.sglang.dsv4 import dsv4_page_size

    assert dsv4_page_size("0.5.19", None) == (256, "") and dsv4_page_size("0.5.19", 256) == (256, "")
    assert dsv4_page_size("0.5.19", 128) == (128, "")
    assert dsv4_page_size("0.5.13", 128)[0] == 256 and "--page-size 128 replaced by 256" in dsv4_page_size("0.5.13", 128)[1]
    argv = ["plan", str(CONFIG_DIR), "--engine", "sglang", "--gpu", "H200", "--tp", "8", "--engine-version", "0.5.19",
            "--json"]
    unset, _ = main(argv), None
    a = json.loads(capsys.readouterr().out)
    assert unset == 0 and a["kv_pool"]["page_size"] == 256 and a["kv_tokens"] % 256 == 0
    assert not any("--page-size" in w for w in a["warnings"])
    assert main(argv + ["--page-size", "64"]) == 0
    b = json.loads(capsys.readouterr().out)
    assert b["kv_pool"]["page_size"] == 256 and b["kv_tokens"] == a["kv_tokens"]
    assert any("--page-size 64 replaced by 256" in w and "deepseek_v4_hook" in w for w in b["warnings"])
