"""SGLang's ``--mamba-full-memory-ratio`` as a plan input (helper fix11, 2026-12-05; issue 11, helper mv31's sixth
gap: a Qwen3.5-9B run on an H100 MIG slice used 0.17, tpkit fixed 0.9).

The flag arrives in SGLang 0.5.4 with the ratio split (absent from the 0.5.3 wheel's ``server_args.py``; default 0.9 in
0.5.4, 0.5.6, 0.5.8, 0.5.15, 0.5.16, and None resolved to 0.9 in 0.5.23): the state pool takes ρ/(1 + ρ) of the KV
budget (``handle_max_mamba_cache`` / ``_handle_max_mamba_cache``)."""

import subprocess
import sys

import pytest

from tpkit.engines.sglang import SglangOptions, plan_sglang
from tpkit.engines.sglang.mamba import plan_mamba_pool
from tpkit.engines.sglang.versions import at_least
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models import load_model
from tpkit.parallel import ParallelSpec
from tpkit.units import GiB

H100 = lookup_gpu("H100")
QWEN_NEXT = "Qwen/Qwen3-Next-80B-A3B-Instruct"


def _qwen35_9b():
    return load_model("Qwen/Qwen3.5-9B")


@pytest.mark.parametrize("version, rho", [("0.5.4", 0.17), ("0.5.16", 0.5), ("0.5.17", 0.17), ("0.5.23", 2.0)])
def test_the_split_takes_rho_over_one_plus_rho(version, rho):
    qn = load_model(QWEN_NEXT)
    rest = GiB(86)
    pool = plan_mamba_pool(qn, 4, 36, rest, version, full_memory_ratio=rho)
    budget = rest * (rho / (1 + rho))
    slot = pool.per_slot
    expected = (budget - slot) // slot if at_least(version, "0.5.17") else budget // slot
    assert pool.slots == expected
    assert f"{rho:g}/{1 + rho:g}" in pool.source


def test_the_default_is_0_9():
    model = _qwen35_9b()
    plans = [plan_sglang(model, H100, ParallelSpec(), SglangOptions(engine_version="0.5.21", **kw))
             for kw in ({}, {"mamba_full_memory_ratio": 0.9})]
    assert plans[0].kv_tokens == plans[1].kv_tokens


def test_a_smaller_ratio_leaves_more_kv_and_fewer_state_slots():
    model = _qwen35_9b()
    plans = [plan_sglang(model, H100, ParallelSpec(), SglangOptions(engine_version="0.5.21", **kw))
             for kw in ({}, {"mamba_full_memory_ratio": 0.17})]
    slots = [p.extra["sglang"]["mamba_slots"] for p in plans]
    assert plans[1].kv_tokens > plans[0].kv_tokens * 1.3
    assert slots[1] < slots[0] / 3


@pytest.mark.parametrize("value", [0, -0.5, float("nan"), float("inf"), True, "0.17"])
def test_bad_ratios_are_refused(value):
    with pytest.raises(PlanInputError, match="--mamba-full-memory-ratio must be a number > 0"):
        SglangOptions(engine_version="0.5.21", mamba_full_memory_ratio=value)


def test_releases_before_0_5_4_have_no_such_flag():
    with pytest.raises(PlanInputError, match="exists from SGLang 0.5.4"):
        SglangOptions(engine_version="0.5.3", mamba_full_memory_ratio=0.5)
    SglangOptions(engine_version="0.5.4", mamba_full_memory_ratio=0.5)


def test_the_command_line_takes_the_flag():
    base = [sys.executable, "-m", "tpkit", "plan", "Qwen/Qwen3.5-9B", "--engine", "sglang", "--gpu", "H100",
            "--engine-version", "0.5.21", "--json"]
    out = subprocess.run(base + ["--mamba-full-memory-ratio", "0.17"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    bad = subprocess.run(base + ["--mamba-full-memory-ratio", "lots"], capture_output=True, text=True)
    assert bad.returncode != 0 and "expected a number" in bad.stderr and "Traceback" not in bad.stderr
    zero = subprocess.run(base + ["--mamba-full-memory-ratio", "0"], capture_output=True, text=True)
    assert zero.returncode != 0 and "must be a number > 0" in (zero.stderr + zero.stdout)
    assert "Traceback" not in zero.stderr
