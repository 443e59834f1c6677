"""vLLM's expert-parallel load balancer as a plan input (``engines.vllm.eplb``, helper vr31, 2026-12-07, session 31):
the state ``EplbState.add_model`` allocates, the redundant experts, the release boundaries (the transfer buffer from
0.12.0, the state inside the load window from 0.20.0 on the V1 runner, ``--eplb-config`` from 0.11.0) and the
refusals, on Qwen3-30B-A3B-FP8 at tp 2 + EP (lyell0710/vllmExperience EXP-017: vp_1016 against its control vp_1015)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpkit.cli import main
from tpkit.engines.vllm import VllmOptions
from tpkit.engines.vllm.eplb import (BUFFER_FROM, EPLB_KEYS, STATE_IN_LOAD_FROM, eplb_settings, eplb_state_bytes,
                                     redundant_expert_bytes, state_charged)
from tpkit.errors import PlanInputError
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"
FP8 = CONFIGS / "Qwen--Qwen3-30B-A3B-FP8.json"
DENSE = CONFIGS / "Qwen--Qwen2-7B-Instruct.json"
MODEL = from_config_dict(json.loads(FP8.read_text()), name="Qwen/Qwen3-30B-A3B-FP8", source=FP8.name)
TP2_EP = ParallelSpec(tp=2, ep=2)
EXP017 = '{"window_size": 50, "step_interval": 100, "num_redundant_experts": 0, "use_async": true}'

BUFFER = 64 * (1536 * 2048 + 2048 * 768) + 64 * (12 * 16 + 16 * 6) * 4  # fp8 experts + fp32 [128, 128] block scales
MAPS = 48 * 128 * 1024 * 8 + 48 * 128 * 8 * 2  # logical_to_physical (1,024 slots), physical_to_logical, replica count
COUNTS = 48 * 128 * 4 + 50 * 48 * 128 * 4  # expert_load_pass, expert_load_window (window 50)


def _state(release, settings=None):
    return eplb_state_bytes(MODEL, TP2_EP, settings or eplb_settings(EXP017), release=release, dtype="bfloat16",
                            quantization=None)[0].bytes


def test_state_is_the_transfer_buffer_the_maps_and_the_window():
    assert _state((0, 25, 1)) == BUFFER + MAPS + COUNTS == 353_746_944
    assert round((BUFFER + MAPS + COUNTS) / 2**30, 2) == 0.33  # 'Model loading took' 14.87 against 14.54 GiB


def test_transfer_buffer_from_0_12_0():
    assert BUFFER_FROM == (0, 12, 0)
    assert _state((0, 11, 2)) == MAPS + COUNTS
    assert _state((0, 12, 0)) == BUFFER + MAPS + COUNTS


def test_default_window_is_1000_steps():
    assert EPLB_KEYS["window_size"] == 1000
    assert _state((0, 25, 1), eplb_settings(None)) == BUFFER + MAPS + 48 * 128 * 4 + 1000 * 48 * 128 * 4


def test_state_in_the_load_delta_from_0_20_0_on_the_v1_runner_only():
    assert STATE_IN_LOAD_FROM == (0, 20, 0)
    assert not state_charged((0, 19, 0), v2_runner=False)
    assert state_charged((0, 20, 0), v2_runner=False)
    assert state_charged((0, 33, 0), v2_runner=False)
    assert not state_charged((0, 25, 1), v2_runner=True)


def test_redundant_experts_grow_every_moe_layer():
    one_expert = (1536 * 2048 + 2048 * 768) + (12 * 16 + 16 * 6) * 4
    assert redundant_expert_bytes(MODEL, TP2_EP, 0, dtype="bfloat16", quantization=None).bytes == 0
    assert redundant_expert_bytes(MODEL, TP2_EP, 2, dtype="bfloat16", quantization=None).bytes == 48 * one_expert
    assert redundant_expert_bytes(MODEL, TP2_EP, 4, dtype="bfloat16", quantization=None).bytes == 48 * 2 * one_expert


def _plan(tmp_path, capsys, *extra, version="0.25.1", model=FP8):
    code = main(["plan", str(model), "--engine", "vllm", "--gpu", "RTX-4090", "--tp", "2", "--engine-version", version,
                 "--gpu-memory-utilization", "0.88", "--max-model-len", "4096", "--disable-custom-all-reduce",
                 "--json", *extra])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else out.err)


def _items(doc):
    return {x["item"]: x["bytes"] for x in doc["ledger"]}


@pytest.mark.parametrize("version, charged", [("0.19.0", False), ("0.20.0", True), ("0.25.1", True)])
def test_plan_charges_the_state_per_release(tmp_path, capsys, version, charged):
    code, base = _plan(tmp_path, capsys, "--enable-expert-parallel", version=version)
    assert code == 0
    code, doc = _plan(tmp_path, capsys, "--enable-expert-parallel", "--enable-eplb", "--eplb-config", EXP017,
                      version=version)
    assert code == 0
    assert ("EPLB state" in _items(doc)) is charged
    if charged:
        assert _items(doc)["EPLB state"] == 353_746_944
        assert doc["kv_tokens"] < base["kv_tokens"]
    else:
        assert doc["kv_tokens"] == base["kv_tokens"]


def test_plan_charges_redundant_experts_in_every_release(tmp_path, capsys):
    for version in ("0.19.0", "0.25.1"):
        code, doc = _plan(tmp_path, capsys, "--enable-expert-parallel", "--enable-eplb", "--eplb-config",
                          '{"num_redundant_experts": 2}', version=version)
        assert code == 0 and _items(doc)["EPLB redundant experts"] == 48 * ((1536 * 2048 + 2048 * 768)
                                                                            + (12 * 16 + 16 * 6) * 4)


@pytest.mark.parametrize("extra, words", [
    (("--enable-eplb",), "--enable-eplb needs --enable-expert-parallel"),
    (("--enable-expert-parallel", "--eplb-config", '{"num_redundant_experts": 4}'), "without --enable-eplb"),
    (("--enable-expert-parallel", "--enable-eplb", "--eplb-config", "{nope"), "--eplb-config is not JSON"),
    (("--enable-expert-parallel", "--enable-eplb", "--eplb-config", '{"redundant": 4}'), "unknown key(s) redundant"),
    (("--enable-expert-parallel", "--enable-eplb", "--eplb-config", '{"window_size": 0}'), "window_size must be"),
    (("--enable-expert-parallel", "--enable-eplb", "--eplb-config", '{"num_redundant_experts": -1}'),
     "num_redundant_experts must be"),
    (("--enable-expert-parallel", "--enable-eplb", "--eplb-config", "[1]"), "must be a JSON object"),
])
def test_bad_eplb_launches_exit_2_with_a_message(tmp_path, capsys, extra, words):
    code, err = _plan(tmp_path, capsys, *extra)
    assert code == 2 and words in err and "Traceback" not in err


def test_eplb_config_from_0_11_0_and_eplb_from_0_10_1():
    with pytest.raises(PlanInputError, match="--eplb-config exists from vLLM 0.11.0"):
        VllmOptions(engine_version="0.10.1", enable_expert_parallel=True, enable_eplb=True, eplb_config=EXP017)
    VllmOptions(engine_version="0.11.0", enable_expert_parallel=True, enable_eplb=True, eplb_config=EXP017)
    VllmOptions(engine_version="0.10.1", enable_expert_parallel=True, enable_eplb=True)
    with pytest.raises(PlanInputError, match="from 0.10.1 on the V1 engine"):
        VllmOptions(engine_version="0.9.2", enable_expert_parallel=True, enable_eplb=True)


def test_dense_model_and_one_rank_are_refused(tmp_path, capsys):
    code, err = _plan(tmp_path, capsys, "--enable-expert-parallel", "--enable-eplb", model=DENSE)
    assert code == 2 and "has no routed experts" in err
    code = main(["plan", str(FP8), "--engine", "vllm", "--gpu", "H200", "--engine-version", "0.25.1",
                 "--enable-expert-parallel", "--enable-eplb"])
    err = capsys.readouterr().err
    assert code == 2 and "tp × dp > 1" in err and "Traceback" not in err


def test_validation_case_carries_its_printed_eplb_flags():
    cases = {c["id"]: c for c in json.loads((Path(__file__).resolve().parents[1] / "validation" / "cases" /
                                             "vllm.json").read_text())}
    flags = cases["vp_1016"]["flags"]
    assert flags["enable_eplb"] is True and json.loads(flags["eplb_config"])["window_size"] == 50
    assert "enable_eplb" not in cases["vp_1015"]["flags"]
