"""The README's figures are what the tools print now (newcomer pass, session 10, helper qual10, 2026-12-05).

Each test runs a command the README shows and looks for the numbers it printed in the README's text.  Before this
file the README said 465,472 tokens / 14.21x / band 440,624–490,320 for vLLM Llama-3.1-70B tp 4 (the plan printed
465,440 / 14.20x / 440,592–490,288), band 374,982–412,124 for SGLang (378,954–412,124) and 96,699–153,619 for the
catalog Kimi plan at 0.5.8 (101,505–153,619): a rule change moved a figure and nothing said so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from clirun import SYNTHETIC_KIMI, cli

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
TEXT = " ".join(README.split())  # the README wraps its lines anywhere
LLAMA_70B = "meta-llama/Llama-3.1-70B-Instruct"
KIMI = "moonshotai/Kimi-K2.5"


def _plan(capsys, *argv) -> dict:
    code, out, err = cli(capsys, "plan", *argv, "--json")
    assert code in (0, 3), err
    return json.loads(out)


def _band(plan: dict) -> str:
    lo, hi = plan["kv_tokens_range"]
    return f"{lo:,}–{hi:,}"


def test_the_same_model_on_both_engines(capsys):
    vllm = _plan(capsys, LLAMA_70B, "--engine", "vllm", "--gpu", "H100", "--tp", "4", "--max-model-len", "32768")
    assert (f"GPU KV cache size: {vllm['kv_tokens']:,} tokens, Maximum concurrency for 32,768 tokens per request: "
            f"{vllm['max_concurrency']:.2f}x") in TEXT
    assert f"(band {_band(vllm)})" in TEXT
    sglang = _plan(capsys, LLAMA_70B, "--engine", "sglang", "--gpu", "H100", "--tp", "4", "--context-length", "32768")
    assert f"{sglang['kv_tokens']:,} tokens ({sglang['max_concurrency']:.2f}× a 32,768-token request; band " \
           f"{_band(sglang)}" in TEXT


def test_the_walk_through_and_the_verdict_example(capsys):
    kimi = _plan(capsys, KIMI, "--engine", "sglang", "--gpu", "RTX-PRO-6000", "--tp", "8",
                 "--mem-fraction-static", "0.85")
    lo, hi = kimi["kv_tokens_range"]
    assert f"{kimi['kv_tokens']:,} ± {max(hi - kimi['kv_tokens'], kimi['kv_tokens'] - lo):,} tokens" in TEXT
    one_h100 = _plan(capsys, LLAMA_70B, "--gpu", "H100")
    assert not one_h100["verdict"]["fits"] and f"`{one_h100['verdict']['message']}`" in TEXT


def test_plan_from_log_figures(capsys):
    from_log = _plan(capsys, "--from-log", str(SYNTHETIC_KIMI), "--gpu", "RTX-PRO-6000")
    assert f"gives {from_log['kv_tokens']:,} ± 15 tokens" in TEXT
    at_09 = _plan(capsys, "--from-log", str(SYNTHETIC_KIMI), "--gpu", "RTX-PRO-6000", "--mem-fraction-static", "0.9")
    assert f"at 0.9, gives {at_09['kv_tokens']:,} ± 15 tokens" in TEXT
    catalog = _plan(capsys, KIMI, "--engine", "sglang", "--gpu", "RTX-PRO-6000", "--tp", "8", "--engine-version",
                    "0.5.8", "--mem-fraction-static", "0.85")
    assert f"says {catalog['kv_tokens']:,} tokens (band {_band(catalog)})" in TEXT


def test_perf_figures(capsys):
    base = ["perf", KIMI, "--tp", "8", "--speculative-algorithm", "EAGLE3", "--engine-version", "0.5.10", "--context",
            "16384", "--accept-length", "2.04"]
    for gpu, comment in (("RTX-PRO-6000", "# 8× PCIe: {plain} → {spec} tok/s ({speedup}), break-even accept length "
                                          "{even}"),
                         ("H200", "# 8× NVLink: {plain} → {spec} tok/s ({speedup}), break-even {even}")):
        code, out, err = cli(capsys, *base, "--gpu", gpu)
        assert code == 0, err
        plain = re.search(r"^plain decoding +(\S+) tok/s", out, re.M).group(1)
        spec, speedup = re.search(r"^speculative +(\S+) tok/s .* speed-up (\S+×)", out, re.M).groups()
        even = re.search(r"Break-even accept length (\S+):", out).group(1)
        assert comment.format(plain=plain, spec=spec, speedup=speedup, even=even) in TEXT


def test_the_catalog_counts(capsys):
    code, out, _ = cli(capsys, "plan", "--list-models", "--json")
    assert code == 0
    assert re.search(rf"an embedded catalog id \({len(json.loads(out)['models'])} models", TEXT)


def test_the_forced_one_shot_figure(capsys):
    code, out, err = cli(capsys, "perf", KIMI, "--tp", "8", "--speculative-algorithm", "EAGLE3", "--engine-version",
                         "0.5.10", "--context", "16384", "--accept-length", "2.04", "--gpu", "RTX-PRO-6000",
                         "--pcie-fabric-gbps", "51.7")
    assert code == 0, err
    one_shot, nccl = re.search(r"slower than NCCL for speculation here: (\S+) vs (\S+) tok/s", out).groups()
    assert f"# a forced one-shot all-reduce: {one_shot} vs NCCL {nccl} tok/s" in TEXT


def test_the_python_api_example():
    from tpkit.engines.sglang import SglangOptions, plan_sglang
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.models import load_model
    from tpkit.parallel import ParallelSpec
    from tpkit.units import format_bytes

    plan = plan_sglang(load_model("Qwen/Qwen3-32B"), lookup_gpu("H200"), ParallelSpec(tp=2), SglangOptions())
    assert f"# {plan.kv_tokens} {format_bytes(plan.kv_pool.total_bytes)} {plan.verdict.fits}" in TEXT
