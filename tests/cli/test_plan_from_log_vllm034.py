"""``tpkit plan --from-log`` on a vLLM 0.34 log with the extensible KV cache (helper fl34).

0.34.0 sizes the pool after warm-up (``v1/worker/extensible_kv_cache.py measure_kv_cache_bytes``): min(requested,
F − margin) − used − kept, F the snapshot's free memory, used = F − free after warm-up − committed, margin =
max(1 GiB, 0.75 × peak).  The plan takes F, used, kept and peak from the "Memory after warmup" line
(``cli.fromlog_extensible.extensible_from_log``).  The log is SYNTHETIC
(tests/explain/data/vllm034_synthetic_qwen3_8b.log, helper cur17b): 484,864 tokens printed (7,576 blocks of 64).  Before this helper the plan of the log's own settings
gave 486,656 (the planner's context, sampler peak and graph estimate instead of the log's numbers)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from clirun import cli

ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "explain" / "data" / "vllm034_synthetic_qwen3_8b.log"
CONFIG = str(ROOT / "validation" / "configs" / "Qwen--Qwen3-8B-FP8.json")
GIB = 2**30
PRINTED = 484_864
TOTAL = 79.19 * GIB                                        # 'Free memory on device (78.68/79.19 GiB)'
USED = (78.68 - 68.76 - 0.07) * GIB                        # F − free after warm-up − committed
KEPT = 1.21 * GIB


def _plan(capsys, *argv, log=LOG):
    code, out, err = cli(capsys, "plan", CONFIG, "--from-log", str(log), *argv, "--json")
    assert code in (0, 3), err
    return json.loads(out)


def test_own_settings_reproduce_the_printed_capacity(capsys):
    plan = _plan(capsys)
    # explain's rebuild of the print (two-decimal GiB, blocks_within's 2 MiB granules): 484,480–485,184
    assert 484_480 <= plan["kv_tokens"] <= 485_184 and abs(plan["kv_tokens"] - PRINTED) <= 4 * 64
    assert plan["kv_tokens_range"] == [plan["kv_tokens"], plan["kv_tokens"]]  # every term measured or held
    # pool = min(79.19, 78.68 − 1) − 9.85 − 1.21 = 66.62 GiB
    assert abs(plan["available_kv_bytes"] / GIB - (78.68 - 1 - USED / GIB - 1.21)) < 0.02
    assert any("Memory after warmup" in w for w in plan["warnings"])


def test_fp8_kv_doubles_the_tokens_of_the_same_pool(capsys):
    own, fp8 = _plan(capsys), _plan(capsys, "--kv-cache-dtype", "fp8")
    assert abs(fp8["available_kv_bytes"] - own["available_kv_bytes"]) < 2**20
    assert abs(fp8["kv_tokens"] - 2 * own["kv_tokens"]) <= 64


def test_a_lower_utilization_takes_the_requested_side_of_the_min(capsys):
    plan = _plan(capsys, "--gpu-memory-utilization", "0.8")
    want = math.ceil(0.8 * TOTAL) - USED - KEPT                # requested < F − margin now
    assert abs(plan["available_kv_bytes"] - want) < 0.02 * GIB
    assert 375_000 < plan["kv_tokens"] < 385_000


def test_fewer_sequences_lower_the_transient_peak(capsys):
    own, few = _plan(capsys), _plan(capsys, "--max-num-seqs", "128")
    assert few["kv_tokens"] > own["kv_tokens"] and few["kv_tokens_range"][0] == few["kv_tokens_range"][1]
    assert any("max_num_seqs scaled the peak" in w for w in few["warnings"])


def test_without_the_extensible_cache_the_reservation_anchors_and_the_default_is_0_92(capsys):
    plan = _plan(capsys, "--no-enable-extensible-kv-cache")
    assert plan["gpu_memory_utilization"] == 0.92  # the launch left it at the default: 0.34's non-extensible one
    graphs = plan["cuda_graph_bytes"]
    assert graphs > 0  # the profile's graph estimate is subtracted again
    want = 68.65 * GIB + math.ceil(0.92 * TOTAL) - math.ceil(TOTAL) - graphs
    assert abs(plan["available_kv_bytes"] - want) < 0.02 * GIB
    assert any("--no-enable-extensible-kv-cache" in w and "reservation" in w for w in plan["warnings"])


def test_a_pre_0_34_log_is_planned_as_before(capsys, tmp_path):
    # the same numbers labelled 0.33.0 without the extensible lines: main's plan (499,056 tokens)
    text = re.sub(r"^#.*\n", "", LOG.read_text(), flags=re.M).replace("v0.34.0", "v0.33.0").replace(
        "gpu_worker.py:795", "gpu_worker.py:772").replace("kv_cache_utils.py:1168", "kv_cache_utils.py:1147")
    log = tmp_path / "v033.log"
    log.write_text("\n".join(l for l in text.splitlines() if "extensible_kv_cache.py" not in l) + "\n")
    plan = _plan(capsys, log=log)
    assert plan["kv_tokens"] == 499_056 and not any("Memory after warmup" in w for w in plan["warnings"])


# --- helper g34 (2026-12-05): a relayout (another --tp) of the 0.34 log, anchored on its warm-up line ---------------

F_LOG = 78.68 * GIB                                        # 'Free memory on device (78.68/79.19 GiB)'


def test_a_tp_relayout_keeps_the_logs_snapshot_and_re_plans_the_sharded_terms(capsys):
    own, tp2 = _plan(capsys), _plan(capsys, "--tp", "2")
    note = next(w for w in tp2["warnings"] if "re-planned at tp 2 from the log's 'Memory after warmup'" in w)
    assert "carried: the CUDA context and cuBLAS of the log's snapshot" in note and "weights 4.44 GiB" in note
    # F is the log's less what tp 2 adds before vLLM's snapshot (gpu_worker.py init_device: NCCL, custom all-reduce);
    # the margin is the printed peak's (max(1 GiB, 0.75 × 1.21 GiB))
    before = sum(i["bytes"] for i in tp2["ledger"] if i["item"].startswith(("NCCL", "custom all-reduce")))
    assert 0 < before < 0.5 * GIB and abs(tp2["free_at_snapshot_bytes"] + before - F_LOG) < 0.006 * GIB
    assert tp2["extensible_margin_bytes"] == GIB
    # the pool grows by the weights halved (8.88 → 4.44 GiB) less what tp 2 adds (NCCL, custom all-reduce, graphs)
    grown = (tp2["available_kv_bytes"] - own["available_kv_bytes"]) / GIB
    assert 3.5 < grown < 4.44
    lo, hi = tp2["kv_tokens_range"]
    assert lo < tp2["kv_tokens"] < hi and (hi - lo) / tp2["kv_tokens"] < 0.02  # only the re-planned lines' band


def test_a_relayout_on_another_gpu_or_without_the_extensible_cache_keeps_the_old_path(capsys):
    for argv in (("--tp", "2", "--gpu", "H200"), ("--tp", "2", "--no-enable-extensible-kv-cache")):
        plan = _plan(capsys, *argv)
        assert not any("'Memory after warmup' (same GPU" in w for w in plan["warnings"])
        assert any("explain.replan.relayout" in w for w in plan["warnings"])
