"""vLLM speculative decoding in ``tpkit explain`` (issue 12): the drafter's KV layers in the rebuilt pages, as
``tpkit plan --speculative-config`` puts them (``engines.vllm.drafter.drafter_kv``, ``pages.build_layout``).

vLLM facts (wheels 0.9.1, 0.10.2, 0.11.0, 0.33.0): the drafter's attention layers are registered in the target's
forward context (``v1/spec_decode/eagle.py load_model``: draft layers = layers after − before the load), so
``get_kv_cache_spec`` gives them pages like the target's; a drafter whose spec equals the target's joins its
group (0.9.1/0.10.2 ``_get_kv_cache_config_uniform_type``: one group of every layer); from 0.11.0 a single-type
model with a drafter of another shape is one ``UniformTypeKVCacheSpecs`` group (absent from 0.10.2's
``kv_cache_utils.py``).  The engine config prints ``speculative_config=SpeculativeConfig(method=…, model=…,
num_spec_tokens=…)`` (``config/speculative.py __repr__``, 0.9.1–0.33)."""

import json
from pathlib import Path

import pytest

from explain_testlib import DATA, log_bytes, script
from tpkit.errors import PlanInputError
from tpkit.explain import explain_log

ROOT = Path(__file__).resolve().parents[2]
EAGLE3_8B = str(ROOT / "tests" / "engines" / "data_vllm_issue11" / "SpecForge--llama3-8B-eagle3.json")
"""one Llama decoder layer with 8 KV heads × 128 (the KV an EAGLE or EAGLE-3 head of Llama-3.1-8B adds)"""
QWEN35_27B = str(DATA / "configs" / "Qwen__Qwen3.5-27B" / "config.json")
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
AVAIL = "INFO 06-23 14:21:48 [gpu_worker.py:232] Available KV cache memory: 51.63 GiB\n"
EAGLE = json.dumps({"method": "eagle3", "model": EAGLE3_8B, "num_speculative_tokens": 3})


def _dump(spec: str, version: str = "0.9.1") -> str:
    return (f"INFO 06-23 14:20:00 [core.py:455] Initializing a V1 LLM engine (v{version}) with config: "
            f"model='{LLAMA}', "
            f"speculative_config={spec}, tokenizer='{LLAMA}', dtype=torch.bfloat16, max_seq_len=131072, "
            "tensor_parallel_size=1, pipeline_parallel_size=1, quantization=None, kv_cache_dtype=auto\n")


def test_vl_051_eagle_layer_reproduces_the_printed_capacity():
    """vl_051 (vLLM ~0.9.1, Llama-3.1-8B + EAGLE, H100): 51.63 GiB → 410,128 tokens = 33 layers × 4,096 B per
    token.  The log names neither tp nor the drafter; with --tp 1 and --speculative-config the rebuild holds the
    print, without the drafter it does not (32 layers → 422,896–422,992)."""
    check = script("explain_capacity_check")
    stripped = check.strip_capacity(log_bytes("vl_051"))
    base = {"model": LLAMA, "tp": 1}
    plain = explain_log(stripped, flags=base)
    lo, hi = plain.kv_predicted_range
    assert (lo, hi) == (422_896, 422_992) and plain.context.spec is None
    spec = explain_log(stripped, flags={**base, "speculative_config": EAGLE})
    lo, hi = spec.kv_predicted_range
    assert lo <= 410_128 <= hi
    assert spec.context.spec_source == "flag --speculative-config"
    assert "+ 1 drafter layers" in spec.kv_source  # release not printed: 0.33 rules, the uniform-type group


def test_vl_055_mtp_layer_from_the_launch_profile():
    """vl_055 (Qwen3.6-27B MTP, RTX 3090): the ADR's launch profile gives --speculative-config
    {"method":"mtp","num_speculative_tokens":1} and --max-model-len 131072 (models.json flags).  The MTP layer
    (``mtp_num_hidden_layers`` 1, a full-attention layer like the target's) joins the 16 full layers and the
    Gated-DeltaNet conv state grows by the speculative token.  The published Qwen3.6-27B config
    (``tests/logs/data/configs/Qwen__Qwen3.6-27B``) keeps the temporal state in float32 (``mamba_ssm_dtype``):
    block 800.  The log prints no release; the ADR is dated 2026-05-08, when 0.20.1 was the newest release
    (models.json flags: --engine-version 0.20.1, helper capV).  The rules of 0.20.1–0.27 (prefix caching off for
    hybrids: 1 + 1 pages; the print int(max_concurrency × max_model_len)) give the printed 255,975; 0.28+ (hybrid
    prefix caching on, 'align': 2 + 1 pages) 251,537; 0.20.0 prints blocks // groups × block (66,400)."""
    check = script("explain_capacity_check")
    case = next(c for c in json.loads((DATA / "cases.json").read_text(encoding="utf-8")) if c["id"] == "vl_055")
    row = check.check(case, check.model_map())
    assert row["range"] == [255_975, 255_975] and row["outcome"] == "hit"
    assert "speculative mtp (flag --speculative-config): + 1 drafter layers" in row["cell_source"]
    assert "1 + speculative" in row["cell_source"] and "block of 800" in row["cell_source"]
    entry = check.model_map()["vl_055"]
    stripped = check.strip_capacity(log_bytes("vl_055"))
    base = check.cli_flags(check.source_flags(entry))
    base["model"] = check.model_flag(entry)
    for version, expected, mode in (("0.20.0", 66_400, "1 + speculative"), ("0.20.1", 255_975, "1 + speculative"),
                                    ("0.20.2", 255_975, "1 + speculative"), ("0.27.1", 255_975, "1 + speculative"),
                                    ("0.28.0", 251_537, "2 + 1 speculative"), ("0.33.0", 251_537, "2 + 1 speculative")):
        e = explain_log(stripped, flags={**base, "engine_version": version})
        assert e.kv_predicted_range == (expected, expected), version
        assert mode in e.kv_source, version
    flags = check.cli_flags({k: v for k, v in check.source_flags(entry).items() if k != "speculative_config"})
    flags["model"] = check.model_flag(entry)
    without = explain_log(stripped, flags=flags)
    assert without.kv_predicted_range[0] > 262_000  # the target alone: more tokens than the print


def test_the_logs_engine_config_names_the_drafter():
    """0.9.1's dump ``speculative_config=SpeculativeConfig(method='eagle3', model=…, num_spec_tokens=3)``: the
    rebuild takes the drafter from the log, no flag needed, and says where it came from."""
    e = explain_log((_dump(f"SpeculativeConfig(method='eagle3', model='{EAGLE3_8B}', num_spec_tokens=3)")
                     + AVAIL).encode(), flags={"model": LLAMA})
    assert e.context.spec.method == "eagle3" and e.context.spec.num_speculative_tokens == 3
    assert e.context.spec_source.startswith("log line 1")
    lo, hi = e.kv_predicted_range
    assert lo <= 410_128 <= hi and "speculative eagle3 (log line 1" in e.kv_source
    none = explain_log((_dump("None") + AVAIL).encode(), flags={"model": LLAMA})
    assert none.context.spec is None and none.kv_predicted_range[0] > 422_000


def test_non_default_args_mtp_on_a_hybrid_model():
    """vLLM's ``non-default args`` dict with ``'speculative_config': {'method': 'mtp', …}`` (vl_010's form):
    Qwen3.5's MTP layer count is ``mtp_num_hidden_layers`` (0.33 ``config/speculative.py hf_config_override``)."""
    args = ("(APIServer pid=1) INFO 05-08 10:00:00 [utils.py:278] non-default args: {'model': '/m', "
            "'max_model_len': 131072, 'gpu_memory_utilization': 0.97, "
            "'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 1}}\n")
    avail = "(EngineCore pid=2) INFO 05-08 10:01:00 [gpu_worker.py:440] Available KV cache memory: 17.25 GiB\n"
    flags = {"model": QWEN35_27B, "gpu": "RTX 3090", "engine_version": "0.33"}
    e = explain_log((args + avail).encode(), flags=flags)
    assert e.context.spec.method == "mtp" and "non_default_args" in e.context.spec_source
    assert e.kv_predicted_range == (257_707, 257_707)
    plain = explain_log((args.replace("'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 1}",
                                      "'enforce_eager': True") + avail).encode(), flags=flags)
    assert plain.context.spec is None and plain.kv_predicted_range[0] > 262_000


@pytest.mark.parametrize("line, example", [
    ("INFO 06-23 14:21:30 [gpu_model_runner.py:1617] Loading drafter model...\n", '"method": "eagle"'),
    ("(EngineCore pid=2) INFO 05-08 10:00:30 [llm_base_proposer.py:1472] Detected MTP model. Sharing target model "
     "embedding weights with the draft model.\n", '"method": "mtp"'),
])
def test_a_drafter_without_its_config_is_named_as_missing(line, example):
    """A drafter line (0.9.1/0.11.0 ``gpu_model_runner.py``, 0.33 ``llm_base_proposer.py``) and no speculative
    config: the rebuild is the target's alone and says what is missing and which flag fills it."""
    e = explain_log((line + AVAIL).encode(), flags={"model": LLAMA, "tp": 1, "engine": "vllm"})
    missing = e.context.spec_missing
    assert missing and "line 1" in missing and "--speculative-config" in missing and example in missing
    assert missing in e.kv_source and e.kv_predicted_range == (422_896, 422_992)
    assert f"speculative config: {missing}" in e.missing
    filled = explain_log((line + AVAIL).encode(), flags={"model": LLAMA, "tp": 1, "engine": "vllm",
                                                         "speculative_config": EAGLE})
    assert filled.context.spec_missing is None and filled.kv_predicted_range[0] <= 410_128


def test_the_flag_fills_the_log_keeps_its_own_and_a_bad_flag_is_refused():
    logged = (_dump(f"SpeculativeConfig(method='eagle3', model='{EAGLE3_8B}', num_spec_tokens=3)") + AVAIL).encode()
    other = json.dumps({"method": "eagle3", "model": EAGLE3_8B, "num_speculative_tokens": 5})
    e = explain_log(logged, flags={"model": LLAMA, "speculative_config": other})
    assert e.context.spec.num_speculative_tokens == 3
    assert [c.flag for c in e.context.contradictions] == ["speculative_config"]
    # the same method and tokens with another draft path: the flag says where the draft's config is read
    remote = (_dump("SpeculativeConfig(method='eagle3', model='/srv/models/eagle3-head', num_spec_tokens=3)")
              + AVAIL).encode()
    far = explain_log(remote, flags={"model": LLAMA})
    assert "block not computable" in far.kv_source and far.kv_predicted_range is None
    assert any(m.startswith("KV bytes per block: block not computable: the eagle3 drafter") for m in far.missing)
    here = explain_log(remote, flags={"model": LLAMA, "speculative_config": EAGLE})
    assert here.context.spec.model == EAGLE3_8B and not here.context.contradictions
    assert here.kv_predicted_range[0] <= 410_128 <= here.kv_predicted_range[1]
    with pytest.raises(PlanInputError, match="not valid JSON"):
        explain_log(logged, flags={"model": LLAMA, "speculative_config": "{method"})


@pytest.mark.parametrize("version", ["0.9.1", "0.10.2", "0.11.0", "0.33"])
def test_a_drafter_of_the_targets_spec_joins_its_group_in_every_release(version):
    """Same spec as the target's: one more layer in the one group before 0.11, one more page in every block of
    the uniform-type group from 0.11 — the same bytes per block either way."""
    e = explain_log(AVAIL.encode(), flags={"model": LLAMA, "tp": 1, "engine": "vllm", "engine_version": version,
                                           "speculative_config": EAGLE, "max_model_len": 131072})
    assert e.anchored.token_bytes == 33 * 4_096
    lo, hi = e.kv_predicted_range
    assert lo <= 410_128 <= hi
    words = "uniform-type group" if version not in ("0.9.1", "0.10.2") else "they join those groups"
    assert words in e.kv_source


@pytest.mark.parametrize("version", ["0.10.2", "0.11.0"])
def test_the_rebuilt_pages_are_the_plans_on_both_sides_of_0_11(version):
    """A drafter of another shape (EAGLE-3 at draft tp 1 under target tp 2: 8 KV heads against 4 per rank):
    0.10.2 cannot pool pages of two sizes (``get_kv_cache_config`` raises NotImplementedError; helper vhy): the
    plan refuses and explain says the block is not computable, with that reason; 0.11.0 puts them in one
    uniform-type group, and explain rebuilds the plan's pages."""
    from tpkit.engines.vllm import VllmOptions, plan_vllm
    from tpkit.errors import PlanInputError
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.models import load_model
    from tpkit.parallel import ParallelSpec
    from tpkit.units import Bytes

    spec = json.dumps({"method": "eagle3", "model": EAGLE3_8B, "num_speculative_tokens": 3,
                       "draft_tensor_parallel_size": 1})
    avail = "INFO 07-06 22:52:09 [gpu_worker.py:508] Available KV cache memory: 30.50 GiB\n"
    options = VllmOptions(engine_version=version, kv_cache_memory_bytes=Bytes(int(30.5 * 2**30)),
                          speculative_config=spec, max_model_len=32_768)
    e = explain_log(avail.encode(), flags={"model": LLAMA, "tp": 2, "engine": "vllm", "engine_version": version,
                                           "speculative_config": spec, "max_model_len": 32_768})
    if version == "0.10.2":
        with pytest.raises(PlanInputError, match=r"vLLM 0\.10\.2 cannot put the drafter's KV layers.*"
                                                 r"NotImplementedError.*--engine-version 0\.11 or later"):
            plan_vllm(load_model(LLAMA), lookup_gpu("H100"), ParallelSpec(tp=2), options)
        assert "block not computable" in e.kv_source and "cannot put the drafter" in e.kv_source
        return
    plan = plan_vllm(load_model(LLAMA), lookup_gpu("H100"), ParallelSpec(tp=2), options)
    assert e.anchored.token_bytes * e.anchored.block_size == plan.extra["bytes_per_block"]
    lo, hi = e.kv_predicted_range
    assert lo <= plan.kv_tokens <= hi
    assert "uniform-type group" in e.kv_source


def test_an_sglang_log_ignores_the_vllm_flag_with_a_note():
    line = "[2025-06-01 10:00:00 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, " \
           "avail mem=60.00 GB, mem usage=15.00 GB.\n"
    e = explain_log(line.encode(), flags={"model": LLAMA, "speculative_config": EAGLE})
    assert e.context.engine == "sglang" and e.context.spec is None
    assert any("--speculative-config" in n and "vLLM" in n for n in e.context.notes)


def test_the_drafters_weights_are_in_model_loading_took_for_the_tp_inference():
    """vLLM loads the drafter inside the target's DeviceMemoryProfiler block (v1/worker/gpu_model_runner.py
    load_model, 0.9.1–0.33): 'Model loading took 15.78 GiB' is Llama-3.1-8B at tp 1 (≈ 14.99 GiB) plus the EAGLE-3
    head (≈ 0.79 GiB), which only the drafter-aware prediction places at tp 1."""
    dump = _dump(f"SpeculativeConfig(method='eagle3', model='{EAGLE3_8B}', num_spec_tokens=3)")
    dump = dump.replace("tensor_parallel_size=1, ", "")
    load = "INFO 06-23 14:21:40 [gpu_model_runner.py:1624] Model loading took 15.78 GiB and 5.2 seconds\n"
    e = explain_log((dump + load + AVAIL).encode(), flags={"model": LLAMA})
    assert e.context.get("tp") == 1
    lo, hi = e.kv_predicted_range
    assert lo <= 410_128 <= hi
    target_only = explain_log((_dump("None").replace("tensor_parallel_size=1, ", "") + load + AVAIL).encode(),
                              flags={"model": LLAMA})
    assert target_only.context.get("tp") is None


def test_the_cli_takes_the_plans_flag_and_refuses_bad_json(capsys, tmp_path):
    """``tpkit explain --speculative-config`` is the plan's flag (engine flags); bad JSON is exit 2, no
    traceback; ``--json`` carries the config and its source."""
    from tpkit.cli import main

    log = tmp_path / "run.log"
    log.write_text("INFO 06-23 14:21:30 [gpu_model_runner.py:1617] Loading drafter model...\n" + AVAIL)
    assert main(["explain", str(log), "--model", LLAMA, "--tp", "1", "--speculative-config", "{method"]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    assert main(["explain", str(log), "--model", LLAMA, "--tp", "1", "--json", "--speculative-config", EAGLE]) == 0
    run = json.loads(capsys.readouterr().out)["run"]
    assert run["speculative_config"]["method"] == "eagle3" and run["speculative_missing"] is None
    assert run["speculative_config"]["source"] == "flag --speculative-config"


def test_vl_074_dflash2_drafter_and_prefix_caching_from_the_compose():
    """vl_074 (club-3090 #1086: Qwen3.8-27B FP8, TP 2 on two RTX 5090, vLLM 0.27.1 with the DFlash2 backport): the
    compose the issue names (commit ea24343) runs a DFlash2 drafter (n=7) and --enable-prefix-caching (models.json
    flags).  The drafter's five sliding layers (8 KV heads × 128, window 2,048) are a KV bucket of their own, so
    vLLM's group size is 5; a request holds 4 × 79 full blocks, cdiv(2,047 + 2 × 8,192, 832) + 1 = 24 sliding blocks
    and 10 × (2 + 7) GDN state pages ('align'); 1,405 blocks / 430 × 65,536 = 214,135, the print.  Prefix caching off
    ('none': 1 + 7 pages) gives 218,921–219,233; without the drafter and prefix caching 350,278–351,031."""
    check = script("explain_capacity_check")
    case = next(c for c in json.loads((DATA / "cases.json").read_text(encoding="utf-8")) if c["id"] == "vl_074")
    row = check.check(case, check.model_map())
    assert row["outcome"] == "hit" and row["range"] == [213_830, 214_135]
    assert "sliding" in row["cell_source"] and "2 + 7 speculative" in row["cell_source"]
    entry = check.model_map()["vl_074"]
    stripped = check.strip_capacity(log_bytes("vl_074"))
    base = check.cli_flags(check.source_flags(entry))
    base["model"] = check.model_flag(entry)
    off = explain_log(stripped, flags={**base, "enable_prefix_caching": False})
    assert off.kv_predicted_range == (218_921, 219_233)
    assert off.context.sources["enable_prefix_caching"] == "flag --no-enable-prefix-caching"
    plain = explain_log(stripped, flags={k: v for k, v in base.items()
                                         if k not in ("speculative_config", "enable_prefix_caching")})
    assert plain.kv_predicted_range == (350_278, 351_031)


def test_a_prefix_caching_flag_fills_the_gap_and_the_log_wins():
    """``--enable-prefix-caching`` reaches explain as the plan flag does (``explain.flagmerge.prefix_caching_flag``):
    it sets the mamba mode of a hybrid when the log does not say; where the log prints the setting, the log's value
    stays and a different flag is a contradiction."""
    args = ("(APIServer pid=1) INFO 05-08 10:00:00 [utils.py:278] non-default args: {'model': '/m', "
            "'max_model_len': 131072, 'gpu_memory_utilization': 0.97}\n")
    avail = "(EngineCore pid=2) INFO 05-08 10:01:00 [gpu_worker.py:440] Available KV cache memory: 17.25 GiB\n"
    flags = {"model": QWEN35_27B, "gpu": "RTX 3090", "engine_version": "0.27.1"}
    off = explain_log((args + avail).encode(), flags=flags)
    on = explain_log((args + avail).encode(), flags={**flags, "enable_prefix_caching": True})
    assert on.context.get("enable_prefix_caching") is True and "'align'" in on.kv_source
    assert on.kv_predicted_range[0] < off.kv_predicted_range[0]
    said = args.replace("'gpu_memory_utilization': 0.97", "'gpu_memory_utilization': 0.97, "
                        "'enable_prefix_caching': False")
    e = explain_log((said + avail).encode(), flags={**flags, "enable_prefix_caching": True})
    assert e.context.get("enable_prefix_caching") is False
    assert [c.flag for c in e.context.contradictions] == ["enable_prefix_caching"]


def test_an_sglang_speculative_run_is_shown_as_key_values_not_a_python_dict():
    """sg_082 (SGLang DFLASH): the text said "speculative {'algorithm': 'DFLASH', …}" (review qual9)."""
    from tpkit.explain.render import format_explanation

    line = next(t for t in format_explanation(explain_log(log_bytes("sg_082"))).splitlines()
                if t.startswith("speculative "))
    assert line.startswith("speculative algorithm=DFLASH, draft_model=poolside/Laguna-S-2.1-DFlash-INT4, num_steps=1")
    assert "{" not in line and "'" not in line
