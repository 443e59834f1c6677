"""``tpkit plan --from-log`` takes the quantization from the log (issue 12 item 5): the engine prints its internal
name (vLLM's engine config ``quantization=awq_marlin`` / ``auto_awq`` / ``gptq`` / ``compressed-tensors``, SGLang's
``ServerArgs(quantization='fp8')``), which ``explain.fromlog.QUANTIZATION_NAMES`` maps to the planner's
``--quantization`` spelling; a name without one is a stated assumption (the checkpoint's own quantization_config),
a given ``--quantization`` that disagrees with the log is reported and planned, and a log value the plan's
checkpoint refuses is dropped with a note (no error: the user gave no such flag).  Real corpus logs only."""

import json
from pathlib import Path

import pytest
from clirun import cli

from tpkit.cli import build_parser
from tpkit.cli.fromlog import from_log as _from_log
from tpkit.explain.fromlog import QUANTIZATION_NAMES, planned_quantization
from tpkit.models.quant import _FLAG_ALIASES

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "logs" / "data"
CONFIGS = ROOT / "validation" / "configs"
QWEN_3B = str(CONFIGS / "Qwen--Qwen2.5-3B-Instruct.json")
CODER_AWQ = str(CONFIGS / "Qwen--Qwen2.5-Coder-32B-Instruct-AWQ.json")
QWEN3_FP8 = str(CONFIGS / "Qwen--Qwen3-235B-A22B-FP8.json")


def _filled(log: str, *flags: str, model: str = QWEN_3B):
    argv = ["plan", model, "--from-log", str(LOGS / log), *flags]
    args = build_parser(argv).parse_args(argv)
    _from_log(args)
    return args


def test_every_mapped_name_is_a_spelling_the_planner_takes():
    for printed, planned in QUANTIZATION_NAMES.items():
        assert planned in _FLAG_ALIASES, (printed, planned)  # models.quant.resolve_quant's spellings
    # vLLM's own names (0.20+ gpt_oss_mxfp4, 0.22+ auto_gptq, 0.24+ auto_awq) and the kernels kept as printed
    assert planned_quantization("auto_awq") == "awq" and planned_quantization("awq_marlin") == "awq_marlin"
    assert planned_quantization("auto_gptq") == "gptq_marlin" and planned_quantization("gptq") == "gptq"
    assert planned_quantization("gpt_oss_mxfp4") == "mxfp4" and planned_quantization("'FP8'") == "fp8"
    assert planned_quantization("modelopt") is None and planned_quantization("gguf") is None


@pytest.mark.parametrize("log, planned, where", [
    ("vllm/vl_152.log", "awq", "quantization=auto_awq, log line 15 (engine_config)"),  # vLLM 0.30.0: AutoAWQ
    ("vllm/vl_201.log", "awq", "quantization=awq, log line 8 (engine_config)"),  # 0.19.0, before auto_awq
    ("vllm/vl_125.log", "awq_marlin", "quantization=awq_marlin, log line 9 (engine_config)"),  # 0.13.0
    ("vllm/vl_072.log", "gptq", "quantization=gptq, log line 13 (non_default_args)"),  # forced exllama kernel
    ("vllm/vl_157.log", "compressed-tensors", "quantization=compressed-tensors, log line 11 (engine_config)"),
    ("vllm/vl_089.log", "mxfp4", "quantization=mxfp4, log line 9 (engine_config)"),
    ("vllm/vl_021.log", "fp8", "quantization=fp8, log line 37 (engine_config)"),
    ("sglang/sg_010.log", "fp8", "quantization=fp8, log line 8 (server_args)"),  # SGLang ServerArgs 'fp8'
])
def test_the_logs_quantization_fills_the_flag(log, planned, where):
    args = _filled(log)
    assert args.quantization == planned and "quantization" in args.log_filled
    assert args.log_notes == (f"--quantization {planned}: read from the log ({where})",)


@pytest.mark.parametrize("log, printed", [
    ("vllm/vl_032.log", "modelopt"), ("vllm/vl_027.log", "gguf"), ("vllm/vl_010.log", "auto_round")])
def test_a_name_without_a_spelling_is_a_stated_assumption(log, printed):
    args = _filled(log)
    assert args.quantization is None and "quantization" not in args.log_filled
    (note,) = args.log_notes
    assert note.startswith(f"the log's quantization '{printed}' (") and "checkpoint's own quantization_config" in note


def test_a_log_without_quantization_leaves_the_flag():
    args = _filled("vllm/vl_025.log")
    assert args.quantization is None and args.log_notes == ()


def test_a_given_flag_wins_and_a_contradiction_is_reported():
    assert _filled("vllm/vl_152.log", "--quantization", "awq").log_notes == ()  # auto_awq is awq: no contradiction
    args = _filled("vllm/vl_152.log", "--quantization", "fp8")
    assert args.quantization == "fp8" and "quantization" not in args.log_filled
    assert args.log_notes == ("--quantization fp8 contradicts the log (quantization=auto_awq, log line 15 "
                              "(engine_config); --quantization awq in tpkit's words); the flag is planned",)


def test_cli_plans_with_the_logs_quantization_and_its_measured_weights(capsys):
    # vl_125: vLLM 0.13.0, Qwen2.5-Coder-32B-Instruct-AWQ, quantization=awq_marlin: the filled flag is the log's own
    # quantisation, so the plan takes the measured 18.1425 GiB (helper mwt: the lines allocated inside the load
    # delta are charged 0, engines.vllm.policy.inside_load_delta), as the same flag given explicitly does
    argv = ("plan", CODER_AWQ, "--from-log", str(LOGS / "vllm/vl_125.log"), "--gpu", "A100-SXM-40GB", "--json")
    for extra in ((), ("--quantization", "awq_marlin")):
        code, out, _ = cli(capsys, *argv, *extra)
        assert code == 0
        plan = json.loads(out)
        assert not any(w.startswith("weights not taken from the log") for w in plan["warnings"])
        weights = next(r for r in plan["ledger"] if r["item"] == "model weights")
        assert weights["bytes"] == round(18.1425 * 2**30)
        assert weights["source"].startswith("'Model loading took', log line 23 of ")
    assert ("--quantization awq_marlin: read from the log (quantization=awq_marlin, log line 9 (engine_config))"
            not in plan["warnings"])  # given, not read


def test_cli_gpt_oss_measured_weights_hold_the_marlin_padding(capsys):
    # vl_089: gpt-oss-120b, mxfp4, tp 4 on A100s (vLLM 0.10.1): 'Model loading took 17.2217 GiB' holds the Marlin
    # MXFP4 padding (process_weights_after_loading runs inside the runner's DeviceMemoryProfiler block): measured
    # weights, the padding line charged 0 and narrated, and the log's 2,640,144 tokens within 1 %
    code, out, _ = cli(capsys, "plan", str(CONFIGS / "openai--gpt-oss-120b.json"), "--from-log",
                       str(LOGS / "vllm/vl_089.log"), "--gpu", "A100-80GB", "--json")
    assert code == 0
    plan = json.loads(out)
    items = {r["item"]: r for r in plan["ledger"]}
    assert items["model weights"]["bytes"] == 18_491_659_570  # 17.2217 GiB, log line 19
    pad = items["MXFP4 MoE padding (Marlin)"]
    assert pad["bytes"] == 0 and pad["source"].startswith("inside the measured load delta (log line 19 of ")
    assert "planned 1.96 GiB" in pad["source"]
    assert abs(plan["kv_tokens"] - 2_640_144) / 2_640_144 < 0.005  # the log's 'GPU KV cache size: 2,640,144 tokens'


def test_cli_drops_a_log_value_the_checkpoint_refuses(capsys):
    # the same AWQ log planned on an FP8 checkpoint: awq_marlin conflicts with its quantization_config; not an error
    code, out, err = cli(capsys, "plan", QWEN3_FP8, "--from-log", str(LOGS / "vllm/vl_125.log"), "--gpu", "H200",
                         "--tp", "8", "--json")
    assert code == 0, err
    warnings = json.loads(out)["warnings"]
    assert any(w.startswith("--quantization awq_marlin read from the log is not used: --quantization awq_marlin "
                            "conflicts with the checkpoint's quantization_config") for w in warnings)
    assert "weights not taken from the log: it ran tp 1, pp 1, quantization awq_marlin" in warnings


def test_explain_reads_the_printed_name_as_the_flag_would_spell_it(capsys):
    # tpkit explain's contradictions (explain.context) compare through the same map: vLLM 0.30.0's auto_awq is
    # --quantization awq; fp8 contradicts it and the log's value is kept
    for flag, contradicts in (("awq", False), ("AWQ", False), ("fp8", True)):
        code, out, _ = cli(capsys, "explain", str(LOGS / "vllm/vl_152.log"), "--quantization", flag, "--json")
        assert code == 0
        found = [c for c in json.loads(out)["contradictions"] if c["flag"] == "quantization"]
        assert found == ([{"flag": "quantization", "given": flag, "logged": "auto_awq",
                           "source": "log line 15 (engine_config)"}] if contradicts else [])


def test_a_bitsandbytes_load_fills_the_flag_and_plans_it_in_flight(capsys):
    # vl_059 (vLLM 0.8.x, Phi-4 in flight): no dump names the quantization, the loader's line does
    # ("Loading weights with BitsAndBytes quantization", logs.settings._BNB_LINE); the flag is the planner's nf4 and
    # the plan says nothing of a stored-format checkpoint (vLLM quantises a bf16 checkpoint at load time)
    assert planned_quantization("bitsandbytes") == "bitsandbytes"
    phi4 = str(CONFIGS / "microsoft--phi-4.json")
    args = _filled("vllm/vl_059.log", model=phi4)
    assert args.quantization == "bitsandbytes" and "quantization" in args.log_filled
    assert args.log_notes == ("--quantization bitsandbytes: read from the log (quantization=bitsandbytes, log line 2)",)
    code, out, err = cli(capsys, "plan", phi4, "--from-log", str(LOGS / "vllm/vl_059.log"), "--gpu", "H100", "--json")
    assert code == 0, err
    warnings = json.loads(out)["warnings"]
    assert not any("Cannot find the config file" in w for w in warnings)
    assert not any("not used" in w for w in warnings)


def test_a_bitsandbytes_log_value_refused_by_moe_or_sglang_is_dropped_with_a_note():
    from tpkit.explain.fromlog import refused_quantization
    from tpkit.models.load import load_model

    dense = load_model(str(CONFIGS / "microsoft--phi-4.json"))
    moe = load_model(str(CONFIGS / "Qwen--Qwen3-30B-A3B.json"))
    assert refused_quantization(dense, "bitsandbytes", "vllm") is None
    assert "planned for vLLM only" in refused_quantization(dense, "bitsandbytes", "sglang")
    assert "mixture-of-experts" in refused_quantization(moe, "bitsandbytes", "vllm")
