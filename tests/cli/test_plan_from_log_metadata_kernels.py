"""``tpkit plan --from-log`` across SGLang's expert-location first-kernel window (0.4.6.post5–0.4.9.x at world size 1,
``engines.sglang.streams.metadata_kernels``, 0.09 GiB) (helper tidy27, session 27).

sg_528 (a 0.4.7-era build, Qwen3-0.6B-FP8, H100, tp 1) prints 'Load weight begin' after the kernels.  At its own
release the plan charges them on their own line and takes the context without them; at 0.4.10 (no such line) the
context keeps them: each plan charges them once, and the KV pool moves by 0.09 GiB × (1 − mem_fraction_static)
only (the slack is a share of the pre sample).  That direction was already right on main f2af02a5 (first test).

The other direction was not: sg_200 (SGLang 0.5.9, Qwen2.5-3B, tp 1), whose kernels ran inside its measured init
line (0.08 GiB), re-planned at 0.4.7 charged the 0.09 GiB line on top (1,742,680 tokens against 1,745,301 at 0.4.10,
2,621 tokens = 0.09 GiB less).  The line is now the log's own measurement (0 for a log outside the window), so the
second test fails on main."""

from __future__ import annotations

import json
from pathlib import Path

from clirun import cli

ROOT = Path(__file__).resolve().parents[2]
LOG = ROOT / "tests" / "logs" / "data" / "sglang" / "sg_528.log"
CONFIG = ROOT / "tests" / "validation" / "configs" / "Qwen--Qwen3-0.6B-FP8.json"
KERNELS = "expert-location metadata's first kernels (after the pre sample)"


def _plan(capsys, *extra) -> dict:
    code, out, err = cli(capsys, "plan", "--from-log", str(LOG), "--model", str(CONFIG), "--gpu", "H100", *extra,
                         "--json")
    assert code == 0, err
    return json.loads(out)


def _line(plan: dict, item: str) -> int:
    return sum(row["bytes"] for row in plan["ledger"] if row["item"] == item)


def test_the_first_kernels_are_charged_once_at_every_release(capsys):
    own, later = _plan(capsys), _plan(capsys, "--engine-version", "0.4.10")
    kernels = _line(own, KERNELS)
    assert 0.08 * 2**30 < kernels < 0.1 * 2**30 and _line(later, KERNELS) == 0
    before = _line(own, "CUDA context") + kernels + _line(own, "weights")
    after = _line(later, "CUDA context") + _line(later, "weights")
    assert before == after  # the context at 0.4.10 holds what the window's own line charged
    assert _line(later, "CUDA context") - _line(own, "CUDA context") == kernels
    assert abs(own["kv_tokens"] - 606_832) <= 10  # the log's printed '#tokens: 606832'
    moved = later["kv_tokens"] - own["kv_tokens"]
    per_token = 114_688  # Qwen3-0.6B: 28 layers × 8 KV heads × 128 × 2 (K, V) × 2 B
    assert 0 < moved * per_token <= kernels * (1 - 0.874) * 1.05  # only the slack's share moves


def test_a_log_outside_the_window_replanned_inside_it_is_not_charged_twice(capsys):
    log = ROOT / "tests" / "logs" / "data" / "sglang" / "sg_200.log"
    config = ROOT / "tests" / "validation" / "configs" / "Qwen--Qwen2.5-3B-Instruct.json"
    plans = {}
    for version in ("0.4.7", "0.4.10"):
        code, out, err = cli(capsys, "plan", "--from-log", str(log), "--model", str(config), "--gpu", "H100",
                             "--engine-version", version, "--json")
        assert code == 0, err
        plans[version] = json.loads(out)
    assert _line(plans["0.4.7"], KERNELS) == 0  # measured inside the log's init line, carried over with it
    assert _line(plans["0.4.7"], "SGLang init_torch_distributed (besides NCCL)") > 0.07 * 2**30
    assert abs(plans["0.4.7"]["kv_tokens"] - plans["0.4.10"]["kv_tokens"]) <= 100
