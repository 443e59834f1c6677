"""``tpkit plan --from-log``: the measured load delta stands for the weights AND every line the engine allocates inside
it (helper mwt, 2026-12-04).  Per line: with the log's weights it is 0 and says "inside the measured load delta (log
line N …)"; planned from the catalog it is charged; the ledger adds up either way (``ledger.check``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirun import cli

from tpkit.engines.vllm.policy import drafter_in_load_delta, lora_in_load_delta
from tpkit.engines.vllm.versions import resolve_rules
from tpkit.memory.band import measured_terms
from tpkit.units import GiB

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "logs" / "data"
CONFIGS = ROOT / "validation" / "configs"
GPT_OSS = str(CONFIGS / "openai--gpt-oss-120b.json")


def _plan(capsys, *argv):
    code, out, err = cli(capsys, "plan", *argv, "--json")
    assert code in (0, 3), err
    plan = json.loads(out)
    return plan, {r["item"]: r for r in plan["ledger"]}


def _remaining(plan) -> int:
    """capacity − uses − reserves of the JSON ledger (``Ledger.remaining``; the planners assert it equals their own
    arithmetic before they return)."""
    signs = {"capacity": 1, "use": -1, "reserve": -1}
    return sum(signs.get(r["kind"], 0) * r["bytes"] for r in plan["ledger"])


def test_mxfp4_marlin_padding_and_rope_inside_vl_089(capsys):
    # vl_089: gpt-oss-120b, mxfp4, tp 4 on A100s, vLLM 0.10.1: 'Model loading took 17.2217 GiB' (log line 19)
    measured, items = _plan(capsys, GPT_OSS, "--from-log", str(LOGS / "vllm/vl_089.log"), "--gpu", "A100-80GB")
    for item in ("MXFP4 MoE padding (Marlin)", "rotary cos/sin cache"):
        assert items[item]["bytes"] == 0, item
        assert items[item]["source"].startswith("inside the measured load delta (log line 19 of "), item
    assert items["model weights"]["bytes"] == 18_491_659_570
    # the catalog path charges them (same flags as the log's run, no log)
    catalog, planned = _plan(capsys, GPT_OSS, "--gpu", "A100-80GB", "--tp", "4", "--engine", "vllm",
                             "--engine-version", "0.10.1", "--quantization", "mxfp4")
    assert planned["MXFP4 MoE padding (Marlin)"]["bytes"] == pytest.approx(1.96 * 2**30, rel=0.01)
    assert planned["rotary cos/sin cache"]["bytes"] == 32 * 2**20
    assert "planned 1.96 GiB" in items["MXFP4 MoE padding (Marlin)"]["source"]
    # before the fix the padding counted twice (−4.7 % tokens); now the log's 2,640,144 tokens within 0.5 %
    assert abs(measured["kv_tokens"] - 2_640_144) / 2_640_144 < 0.005
    assert _remaining(measured) == 0 and _remaining(catalog) == 0  # vLLM's ledger: capacity − uses − reserves = 0


def test_lora_buffers_inside_vl_151(capsys):
    # vl_151: vLLM 0.22.1 (V1), Qwen3-8B with enable_lora on two T4s: 'Model loading took 7.7 GiB' (log line 46)
    # holds the A/B stacks (v1 gpu_model_runner.load_model: load_lora_model inside the DeviceMemoryProfiler)
    argv = ("Qwen/Qwen3-8B", "--gpu", "T4", "--enable-lora", "--max-lora-rank", "64")
    measured, items = _plan(capsys, *argv, "--from-log", str(LOGS / "vllm/vl_151.log"))
    lora = items["LoRA adapter buffers (A/B stacks)"]
    assert lora["bytes"] == 0 and lora["source"].startswith("inside the measured load delta (log line 46 of ")
    assert "planned 267.70 MiB" in lora["source"]
    catalog, planned = _plan(capsys, *argv, "--tp", "2", "--engine", "vllm", "--engine-version", "0.22.1")
    assert planned["LoRA adapter buffers (A/B stacks)"]["bytes"] > 250 * 2**20
    assert planned["rotary cos/sin cache"]["bytes"] > 0 and items["rotary cos/sin cache"]["bytes"] == 0
    assert _remaining(measured) == 0 and _remaining(catalog) == 0


def test_lora_and_drafter_release_rules():
    # LoRA: V0 ≤ 0.7.3 builds the manager after 'Loading model weights took' (outside); V0 0.8.0+ and every V1 inside
    assert not lora_in_load_delta(resolve_rules("0.7.3:v0"))
    assert lora_in_load_delta(resolve_rules("0.8.0:v0"))
    assert lora_in_load_delta(resolve_rules("0.8.0:v1")) and lora_in_load_delta(resolve_rules("0.22.1"))
    # the drafter: V1 loads it inside the runner's profiler block; V0's spec-decode worker loads it on its own
    assert drafter_in_load_delta(resolve_rules("0.10.1")) and not drafter_in_load_delta(resolve_rules("0.8.0:v0"))


def _vllm(config, version, *, measured=None, **opts):
    from tpkit.engines.vllm import VllmOptions, plan_vllm
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.models.config import from_config_dict
    from tpkit.parallel import ParallelSpec

    spec = from_config_dict(json.loads((CONFIGS / config).read_text()), name=config, source=str(CONFIGS / config))
    args = (spec, lookup_gpu(opts.pop("gpu", "H100")), ParallelSpec(tp=opts.pop("tp", 1)),
            VllmOptions(engine_version=version, **opts))
    if measured is None:
        return plan_vllm(*args)
    with measured_terms({"weights": measured}, source="log line 7 of run.log"):
        return plan_vllm(*args)


def _items(result):
    return {line.item: line for line in result.ledger.items}


def test_lora_outside_on_v0_0_7_3_stays_charged():
    kw = dict(enable_lora=True, max_lora_rank=16, max_model_len=4096)
    items = _items(_vllm("Qwen--Qwen3-8B.json", "0.7.3:v0", measured=GiB(15), **kw))
    assert items["LoRA adapter buffers (A/B stacks)"].bytes.bytes > 0  # created after the measurement
    assert items["rotary cos/sin cache"].bytes.bytes == 0  # built at model init: inside
    items = _items(_vllm("Qwen--Qwen3-8B.json", "0.8.0:v0", measured=GiB(15), **kw))
    assert items["LoRA adapter buffers (A/B stacks)"].bytes.bytes == 0


def test_mla_kv_b_dequantised_copy_inside_the_measured_delta():
    # no vLLM MLA log of the corpus has a config tpkit reads (vl_063: DeepSeek-V4-Flash), so the rule is pinned on
    # DeepSeek-V3's config (fp8 kv_b_proj → the activation-dtype copy, vLLM ≥ 0.8.0 process_weights_after_loading)
    kw = dict(gpu="H200", tp=8, max_model_len=8192)
    planned = _items(_vllm("deepseek-ai--DeepSeek-V3.json", "0.10.1", **kw))
    copy = planned["MLA kv_b_proj dequantised copy"]
    assert copy.bytes.bytes > 0
    measured = _vllm("deepseek-ai--DeepSeek-V3.json", "0.10.1", measured=GiB(80), **kw)
    line = _items(measured)["MLA kv_b_proj dequantised copy"]
    assert line.bytes.bytes == 0 and line.source.startswith("inside the measured load delta (log line 7 of run.log)")
    assert _items(measured)["model weights"].bytes == GiB(80)
    assert measured.ledger.remaining.bytes == 0


def test_sglang_measured_load_usage_is_narrated_and_replaces_its_parts(capsys):
    # sg_010: grok-2 fp8 on SGLang: 'Load weight begin/end' (log lines 23–32) hold the weights, the rotary cache
    # built at model init and the load's other allocations; the plan's one weights line is the measurement, and
    # the pre-expansion after 'Load weight end', the LoRA pool and a draft's own load stay lines of their own
    config = str(LOGS / "configs" / "xai-org__grok-2" / "config.json")
    plan, items = _plan(capsys, config, "--from-log", str(LOGS / "sglang/sg_010.log"))
    w = items["weights"]
    assert w["source"].startswith("'Load weight end. mem usage', log lines 23–32 of ")
    assert "planned " in w["source"] and "rotary cos/sin cache" in w["source"]
    assert abs(plan["kv_tokens"] - 903_439) / 903_439 < 0.01  # the log's max_total_num_tokens


def test_v1_drafter_weights_inside_the_measured_delta():
    # V1 loads the drafter inside the runner's DeviceMemoryProfiler block (gpu_model_runner.load_model); V0's spec
    # decode worker prints its own load: there the drafter stays charged
    spec = json.dumps({"method": "eagle3", "num_speculative_tokens": 3,
                       "model": str(ROOT / "engines" / "data_vllm_issue11" / "SpecForge--llama3-8B-eagle3.json")})
    kw = dict(speculative_config=spec, max_model_len=8192)
    planned = _vllm("meta-llama--Llama-3.1-8B-Instruct.json", "0.10.1", **kw)
    measured = _vllm("meta-llama--Llama-3.1-8B-Instruct.json", "0.10.1", measured=GiB(16), **kw)
    (p,) = [l for l in planned.ledger.items if l.item.startswith("drafter weights")]
    (m,) = [l for l in measured.ledger.items if l.item.startswith("drafter weights")]
    assert p.bytes.bytes > 0 and m.bytes.bytes == 0 and m.source.startswith("inside the measured load delta")
    assert measured.ledger.remaining.bytes == 0 and planned.ledger.remaining.bytes == 0
