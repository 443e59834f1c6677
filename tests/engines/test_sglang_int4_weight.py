"""``--sglang-int4-weight``: SGLang's SGLANG_INT4_WEIGHT=1 packs an fp8 MoE model's routed experts as int4 on AMD GPUs
(helper i4w25, 2026-12-06, session 25; issue 11: gs25b's six amd/grok-1-W4A8KV8 cases, -9 ... -15 %, planned FP8
experts, 37.07 GiB per rank, where the logs print 19.21 GB).

Read in the sglang 0.4.7, 0.5.6.post2 and 0.5.23 wheels (``layers/quantization/fp8.py``
``Fp8MoEMethod.create_weights``, ``_use_hip_int4``, ``process_weights_hip_int4``): uint32 ``w13_weight`` /
``w2_weight`` of ``hidden // 8`` / ``intermediate // 8`` columns plus fp32 per-channel ``scale1`` on HIP; 0.4.4 –
0.4.6 read it as USE_INT4_WEIGHT; 0.4.3.post2 has neither (``engines.sglang.int4``)."""

import json
import sys
from pathlib import Path

import pytest

from tpkit.cli.pasted import env_notes
from tpkit.engines.sglang import SglangOptions, plan_sglang
from tpkit.engines.sglang.int4 import int4_applies, int4_weights
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.models.spec import QuantSpec
from tpkit.models.weights import plan_weights
from tpkit.parallel import ParallelSpec

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "validation"))
from clirun import cli, refused  # noqa: E402
from sglang_fixtures import llama3_8b  # noqa: E402

import harness  # noqa: E402

CONFIG = Path(__file__).resolve().parents[1] / "validation" / "configs" / "amd--grok-1-W4A8KV8.json"
MI300X, MI355X, H100 = lookup_gpu("MI300X"), lookup_gpu("MI355X"), lookup_gpu("H100-SXM-80GB")
TP8 = ParallelSpec(tp=8)
FP8 = QuantSpec(method="fp8", weight_bits=8, scale_bytes=4, raw_method="fp8")


def _grok():
    return from_config_dict(json.loads(CONFIG.read_text()), name="amd/grok-1-W4A8KV8", source="test")


def _opts(int4=None, version="0.5.6", **kw):
    return SglangOptions(engine_version=version, quantization="fp8", mem_fraction_static=0.85,
                         sglang_int4_weight=int4, **kw)


def _weights(result):
    return result.ledger.get("weights").bytes.bytes


def test_grok_experts_are_int4_words_with_per_channel_scales_on_amd():
    """Grok-1 at tp 8 (64 MoE layers, 8 experts, hidden 6144, expert width 32768 -> 4096 a rank): the routed experts
    are 8 × (2 × 4096 × 6144/8 + 6144 × 4096/8) uint32 words a layer, 18.0 GiB, half the fp8 bytes; each matrix
    has one fp32 per output row (scale1) and one per tensor."""
    model = _grok()
    fp8 = plan_weights(model, TP8, quantization="fp8")
    int4 = int4_weights(fp8, model, TP8)
    experts = {l.item: l.bytes.bytes for l in int4.lines}["routed experts"]
    assert experts == 64 * 8 * (2 * 4096 * 768 + 6144 * 512) * 4 == 18 * 2**30
    assert {l.item: l.bytes.bytes for l in fp8.lines}["routed experts"] == 2 * experts
    scales = {l.item: l.bytes.bytes for l in int4.lines}["quant scales"]
    assert scales - {l.item: l.bytes.bytes for l in fp8.lines}["quant scales"] == 64 * 8 * 3 * 4
    assert int4.bytes_per_rank.bytes == sum(l.bytes.bytes for l in int4.lines) == fp8.bytes_per_rank.bytes - experts \
        + 64 * 8 * 12
    assert "SGLANG_INT4_WEIGHT" in int4.method and not int4_applies(model, MI300X, _opts("on"), int4)  # never twice


@pytest.mark.parametrize("gpu", [MI300X, MI355X])
def test_the_flag_halves_the_expert_weights_on_amd_and_raises_the_pool(gpu):
    on, off = plan_sglang(_grok(), gpu, TP8, _opts("on")), plan_sglang(_grok(), gpu, TP8, _opts("off"))
    unset = plan_sglang(_grok(), gpu, TP8, _opts(None))
    assert _weights(off) == _weights(unset) and off.kv_tokens == unset.kv_tokens
    assert _weights(off) - _weights(on) == pytest.approx(18 * 2**30, rel=0.001)
    assert on.kv_tokens > off.kv_tokens * 1.05
    assert any("int4 packed eight to a 32-bit word" in w for w in on.warnings)
    assert not any("sglang-int4-weight" in w for w in off.warnings + unset.warnings)


def test_on_nvidia_the_flag_changes_nothing_and_says_so():
    on, off = plan_sglang(_grok(), H100, TP8, _opts("on")), plan_sglang(_grok(), H100, TP8, _opts(None))
    assert _weights(on) == _weights(off) and on.kv_tokens == off.kv_tokens
    assert any("read only on AMD GPUs" in w and "changes nothing" in w for w in on.warnings)


def test_a_dense_fp8_model_keeps_its_weights():
    """Only an Fp8MoEMethod layer reads the variable: a dense fp8 model is unchanged, with a note."""
    model = llama3_8b(quant=FP8)
    on = plan_sglang(model, MI300X, ParallelSpec(), SglangOptions(engine_version="0.5.6", sglang_int4_weight="on"))
    off = plan_sglang(model, MI300X, ParallelSpec(), SglangOptions(engine_version="0.5.6"))
    assert _weights(on) == _weights(off)
    assert any("no MoE experts" in w for w in on.warnings)


def test_a_bf16_moe_model_without_fp8_keeps_its_weights():
    on = plan_sglang(_grok(), MI300X, TP8, SglangOptions(engine_version="0.5.6", sglang_int4_weight="on"))
    off = plan_sglang(_grok(), MI300X, TP8, SglangOptions(engine_version="0.5.6"))
    assert _weights(on) == _weights(off)
    assert any("not loaded by SGLang's Fp8MoEMethod" in w for w in on.warnings)


def test_a_block_fp8_moe_keeps_its_block_scales_and_dense_layers():
    """DeepSeek-V3's block fp8 (128 × 128): the routed experts' values halve, the scales stay (no scale1 for a block
    layer); the three dense layers, the shared experts and attention are untouched."""
    cfg = json.loads((CONFIG.parent / "deepseek-ai--DeepSeek-V3.json").read_text())
    model = from_config_dict(cfg, name="deepseek-ai/DeepSeek-V3", source="test")
    assert model.quant.block_size == (128, 128) and model.quant.raw_method == "fp8"
    fp8 = plan_weights(model, TP8)
    int4 = int4_weights(fp8, model, TP8)
    before, after = ({l.item: l.bytes.bytes for l in p.lines} for p in (fp8, int4))
    assert after["routed experts"] * 2 == before["routed experts"]
    assert {k for k in before if before[k] != after[k]} == {"routed experts"}


def test_a_safetensors_plan_is_read_as_stored():
    plan = plan_weights(_grok(), TP8, quantization="fp8")
    from dataclasses import replace

    assert int4_applies(_grok(), MI300X, _opts("on"), plan)
    assert not int4_applies(_grok(), MI300X, _opts("on"), replace(plan, method="safetensors headers"))
    assert not int4_applies(_grok(), H100, _opts("on"), plan)
    assert not int4_applies(_grok(), MI300X, _opts("off"), plan)


def test_online_fp8_and_the_older_variable_name_are_said():
    on = plan_sglang(_grok(), MI300X, TP8, _opts("on", version="0.4.5"))
    assert any("taken to be one" in w for w in on.warnings)
    assert any("USE_INT4_WEIGHT" in w for w in on.warnings)
    assert not any("USE_INT4_WEIGHT" in w for w in plan_sglang(_grok(), MI300X, TP8, _opts("on")).warnings)


@pytest.mark.parametrize("kw, says", [
    (dict(sglang_int4_weight="on", engine_version="0.4.3"), "has no int4 MoE switch"),
    (dict(sglang_int4_weight="maybe"), "must be on or off"),
])
def test_the_flag_is_refused_where_sglang_has_no_such_switch(kw, says):
    with pytest.raises(PlanInputError, match=says):
        SglangOptions(**kw)
    SglangOptions(sglang_int4_weight="off", engine_version="0.4.3")  # off is what every release does


def test_the_cli_takes_on_and_off_and_refuses_it_for_vllm(capsys):
    args = ("plan", str(CONFIG), "--engine", "sglang", "--gpu", "MI300X", "--tp", "8", "--quantization", "fp8",
            "--engine-version", "0.5.6", "--json")
    code_on, out_on, _ = cli(capsys, *args, "--sglang-int4-weight", "on")
    code_off, out_off, _ = cli(capsys, *args, "--sglang-int4-weight", "off")
    assert code_on == code_off == 0
    assert json.loads(out_on)["kv_tokens"] > json.loads(out_off)["kv_tokens"]
    refused(capsys, "plan", str(CONFIG), "--engine", "vllm", "--gpu", "MI300X", "--tp", "8",
            "--sglang-int4-weight", "on", says=("--sglang-int4-weight",))


def test_the_variable_in_tpkits_environment_is_named_with_the_flag():
    notes = env_notes("plan", {"SGLANG_INT4_WEIGHT": "1"})
    assert len(notes) == 1 and "pass --sglang-int4-weight on" in notes[0]
    assert not env_notes("perf", {"SGLANG_INT4_WEIGHT": "1"})


def test_the_w4a8kv8_cases_plan_the_printed_load_usage():
    """The six cases pass the flag (their launch sets SGLANG_INT4_WEIGHT=1): the planned load usage lies within
    1.5 % of the printed 19.21-19.27 GB (GiB); the FP8 Grok-1 cases of the same nodes pass it off. Helper gs30
    (session 30) added three more of that CI's W4A8KV8 starts on older images (gs_494, gs_502, gs_511); helpers gs31b /
    gs31d (session 31) two more (gs_633, gs_662)."""
    cases = [c for c in harness.load_cases("sglang") if c["flags"].get("sglang_int4_weight")]
    on = [c for c in cases if c["flags"]["sglang_int4_weight"] == "on"]
    assert {c["id"] for c in on} == {"gs_397", "gs_398", "gs_399", "gs_400", "gs_405", "gs_406", "gs_494", "gs_502",
                                     "gs_511", "gs_633", "gs_662"}
    assert all("SGLANG_INT4_WEIGHT=1" in c["command"] for c in on)
    assert all("SGLANG_INT4_WEIGHT=0" in c["command"] for c in cases if c not in on)
    for case in on:
        model, gpu, parallel, options = harness.inputs(case)
        load = _weights(plan_sglang(model, gpu, parallel, options))
        printed = case["printed_weights_gib"]["gib"] * 2**30
        assert abs(load - printed) <= 0.015 * printed, (case["id"], load / 2**30)
