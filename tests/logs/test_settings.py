"""Run settings from dumps, single lines and commands (real logs of tests/logs/data)."""

from logs_testlib import log_bytes

from tpkit.logs import parse_log
from tpkit.logs.dumps import literal_dict, split_pairs


def test_sglang_server_args_dump():
    run = parse_log(log_bytes("sg_001")).run
    assert run.engine.engine == "sglang" and run.fraction_key == "mem_fraction_static"
    assert run.value("model") == "meta-llama/Meta-Llama-3.1-8B-Instruct"
    assert (run.value("tp"), run.value("dp"), run.value("ep")) == (1, 1, 1)
    assert run.value("mem_fraction") == 0.88 and run.mem_fraction.source == "server_args"
    assert run.value("chunked_prefill_size") == 8192 and run.value("cuda_graph_max_bs") == 160
    assert run.context_length is not None and run.value("context_length") is None  # printed as None: engine default
    assert run.value("speculative") is None and run.value("cuda_graph_disabled") is False


def test_vllm_v0_engine_config_dump():
    run = parse_log(log_bytes("vl_026")).run
    assert run.engine.version == "0.6.6" and run.engine.version_printed
    assert run.value("model") == "/weights/checkpoints/UI-TARS"
    assert run.value("tp") == 1 and run.value("context_length") == 8192 and run.value("dtype") == "bfloat16"
    assert run.value("cuda_graph_max_bs") == 256       # compilation_config max_capture_size
    assert run.tp.source == "engine_config"


def test_vllm_non_default_args():
    run = parse_log(log_bytes("vl_010")).run
    assert run.value("tp") == 2 and run.value("kv_cache_dtype") == "fp8_e5m2"
    assert run.value("context_length") == 262144 and run.value("max_running_requests") == 2
    assert run.value("disable_custom_all_reduce") is True
    assert run.value("speculative") == {"algorithm": "mtp", "draft_model": None, "num_steps": 3, "topk": None,
                                        "num_draft_tokens": None}


def test_multiline_command_and_conflict_with_the_engine_config():
    # vl_021: the markdown shows a TP4 command; the log that follows ran TP8
    run = parse_log(log_bytes("vl_021")).run
    assert run.value("tp") == 8 and run.tp.source in ("engine_config", "non_default_args")
    assert run.value("ep") == 8 and "experts sharded" in run.ep.text
    assert run.value("context_length") == 32768          # '--max-model-len 32K' is 32 × 1024
    conflict = next(c for c in run.conflicts if c.name == "tp")
    assert conflict.other.value == 4 and conflict.other.source == "command_line"


def test_launch_commands_of_both_engines():
    sg = parse_log("python3 -m sglang.launch_server --model /path/to/Qwen3-235B-A22B-FP8 --tp 4 "
                   "--trust-remote-code --host 0.0.0.0 --port 8000 --mem-fraction-static 0.93\n").run
    assert (sg.engine.engine, sg.value("tp"), sg.value("mem_fraction")) == ("sglang", 4, 0.93)
    vl = parse_log("CUDA_VISIBLE_DEVICES=0,1,2,3 \\\nvllm serve /path/to/Qwen3-235B-A22B-FP8 \\\n"
                   "  --tensor-parallel-size 4 \\\n  --kv-transfer-config '{\"kv_connector\":\"LMCacheConnectorV1\"}'\n").run
    assert (vl.engine.engine, vl.value("tp"), vl.value("model")) == ("vllm", 4, "/path/to/Qwen3-235B-A22B-FP8")


def test_dump_reader_keeps_complete_pairs_of_a_cut_dump():
    pairs = dict(split_pairs("model_path='a,b', tp_size=8, lst=[1, (2, 3)], cut=[1, 2"))
    assert pairs == {"model_path": "'a,b'", "tp_size": "8", "lst": "[1, (2, 3)]"}
    assert literal_dict("{'model': 'x', 'tp': 4, 'sc': {'meth") == {"model": "x", "tp": 4}


def test_sglang_forced_page_size_line():
    """SGLang's ServerArgs attention-backend checks print the page size they force (0.5.10 / 0.5.20
    server_args.py, arg_groups/overrides.py): sg_043's trtllm_mha default sets 64."""
    run = parse_log(log_bytes("sg_043")).run
    assert run.value("page_size") == 64 and run.page_size.source == "log_line"
    text = "[2026-05-01 10:00:00] FA4 backend only supports page size 128 for non-MLA model architectures, " \
           "changing page_size from 1 to 128.\n[2026-05-01 10:00:01] Load weight begin. avail mem=78.48 GB\n"
    assert parse_log(text).run.value("page_size") == 128


def test_vllm_topk_topp_sampler_line():
    """vLLM V1's TopKTopPSampler.__init__ names the sampler of its dummy sampler run (topk_topp_sampler.py,
    0.8.5–0.33.0 wheels): vl_084 (0.10.2) has no FlashInfer; each wording maps to native or flashinfer."""
    run = parse_log(log_bytes("vl_084")).run
    assert run.value("topk_topp_sampler") == "native" and run.topk_topp_sampler.source == "log_line"
    cases = {
        "INFO 10-23 15:10:41 [topk_topp_sampler.py:59] Using FlashInfer for top-p & top-k sampling.": "flashinfer",
        "WARNING 10-23 15:10:41 [topk_topp_sampler.py:62] FlashInfer is available, but it is not enabled. Falling "
        "back to the PyTorch-native implementation of top-p & top-k sampling. For the best performance, please set "
        "VLLM_USE_FLASHINFER_SAMPLER=1.": "native",
        "WARNING 10-23 15:10:41 [topk_topp_sampler.py:36] FlashInfer version >= 0.2.3 required. Falling back to "
        "default sampling implementation.": "native",
    }
    for line, value in cases.items():
        text = "INFO 10-23 15:10:40 [api_server.py:1] vLLM API server version 0.9.2\n" + line + "\n"
        assert parse_log(text).run.value("topk_topp_sampler") == value, line


def test_vllm_skip_mm_profiling_line_and_argument():
    """vLLM V1's profile_run says 'Skipping memory profiling for multimodal encoder and encoder cache.' under
    --skip-mm-profiling (v1/worker/gpu_model_runner.py, 0.10.2 and 0.25.1 wheels); its non-default args dump names
    the flag too.  Either becomes the run setting that a --from-log plan takes (engines/vllm/encoder.py)."""
    head = "INFO 10-23 15:10:40 [api_server.py:1] vLLM API server version 0.20.2\n"
    line = ("(EngineCore_DP0 pid=1) INFO 10-23 15:10:41 [gpu_model_runner.py:5793] Skipping memory profiling for "
            "multimodal encoder and encoder cache.\n")
    run = parse_log(head + line).run
    assert run.value("skip_mm_profiling") is True and run.skip_mm_profiling.source == "log_line"
    args = ("INFO 10-23 15:10:40 [utils.py:233] non-default args: {'model': 'Qwen/Qwen3-VL-8B-Instruct', "
            "'skip_mm_profiling': True}\n")
    assert parse_log(head + args).run.value("skip_mm_profiling") is True
    assert parse_log(head).run.value("skip_mm_profiling") is None


def test_vllm_cuda_graph_hint_prints_the_utilization():
    """vLLM V1's CUDA-graph hint (v1/worker/gpu_worker.py determine_available_memory: 0.19.0 prints either
    wording, 0.25.1 and 0.29.0 the second) writes the run's gpu_memory_utilization as %.4f (helper mv3)."""
    from tpkit.logs.settings import settings_from_record

    # vl_154 (0.19.0, estimate off): no non-default utilization, the release default 0.9 printed by the hint
    run = parse_log(log_bytes("vl_154")).run
    assert run.value("mem_fraction") == 0.9 and run.mem_fraction.source == "log_line"
    on = ("INFO 04-25 08:54:58 [gpu_worker.py:455] CUDA graph memory profiling is enabled (default since v0.21.0). "
          "The current --gpu-memory-utilization=0.8500 is equivalent to --gpu-memory-utilization=0.8301 without CUDA "
          "graph memory profiling. To maintain the same effective KV cache size as before, increase "
          "--gpu-memory-utilization to 0.8699.")
    off = ("INFO 04-20 00:18:37 [gpu_worker.py:470] In v0.19, CUDA graph memory profiling will be enabled by default "
           "(VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1), which more accurately accounts for CUDA graph memory during "
           "KV cache allocation. To try it now, set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1 and increase "
           "--gpu-memory-utilization from 0.9200 to 0.9401 to maintain the same effective KV cache size.")
    # vl_160 (a 0.19.2rc1 nightly, estimate on): the hint agrees with the non-default args, which stay the source
    hint = [s for s in parse_log(log_bytes("vl_160")).settings if s.name == "mem_fraction" and s.source == "log_line"]
    assert [s.value for s in hint] == [0.85] and "is equivalent to" in hint[0].text
    assert parse_log(log_bytes("vl_160")).run.mem_fraction.source == "non_default_args"
    for line, want in ((on, 0.85), (off, 0.92)):
        (got,) = [s for s in settings_from_record(line, line_no=1) if s.name == "mem_fraction"]
        assert got.value == want and got.source == "log_line"
    # a launch command's flag is the command reader's, not this line rule's
    assert not [s for s in settings_from_record("vllm serve m --gpu-memory-utilization 0.7", line_no=1)
                if s.name == "mem_fraction"]


def test_lora_settings_from_dumps():
    """vLLM's non-default args (vl_151, 0.22.1: 'enable_lora': True) and its flags; SGLang's ServerArgs dump
    (enable_lora, max_lora_rank, max_loras_per_batch; sg_001 prints the default 8 with LoRA off)."""
    run = parse_log(log_bytes("vl_151")).run
    assert run.value("enable_lora") is True and run.enable_lora.source == "non_default_args"
    assert run.value("max_loras") is None and run.value("max_lora_rank") is None  # vLLM's defaults (1, 16)
    head = "INFO 10-23 15:10:40 [api_server.py:1] vLLM API server version 0.20.2\n"
    args = ("INFO 10-23 15:10:40 [utils.py:233] non-default args: {'model': 'Qwen/Qwen3-8B', 'enable_lora': True, "
            "'max_loras': 4, 'max_lora_rank': 64}\n")
    run = parse_log(head + args).run
    assert (run.value("enable_lora"), run.value("max_loras"), run.value("max_lora_rank")) == (True, 4, 64)
    sg = parse_log(log_bytes("sg_001")).run
    assert sg.value("max_loras_per_batch") == 8 and not sg.value("enable_lora")


def test_same_quantization_reads_both_names_as_the_planner_spells_them():
    # logs.settings.same_quantization: vLLM's printed name against a --quantization flag (explain's contradictions,
    # plan --from-log's measured-weights layout check)
    from tpkit.logs.settings import same_quantization

    assert same_quantization("auto_awq", "awq") and same_quantization("auto_awq", "AWQ")
    assert same_quantization("'fp8'", "fp8") and same_quantization(None, None) and same_quantization("None", "auto")
    assert not same_quantization("awq_marlin", "awq")  # vLLM runs another kernel for an explicit awq
    assert not same_quantization("gptq_marlin", "gptq") and not same_quantization(None, "fp8")
    assert same_quantization("modelopt", "modelopt") and not same_quantization("modelopt", None)


def test_vllm_model_runner_lines():
    """The runner a vLLM log shows (``logs.settings.runner_settings``): "Using V2 Model Runner" (gpu_worker.py,
    0.16.0+), vLLM's fall-back warnings (config/vllm.py, 0.22.0+), else the file tag of "Model loading took"
    (V1 ``[gpu_model_runner.py:N]``, V2 ``[model_runner.py:N]``), read off the raw line.  vl_290 (vp_210:
    VLLM_USE_V2_MODEL_RUNNER=0 on 0.29.0) shows V1; vl_270 (vp_190, 0.29.0 default) shows V2."""
    run = parse_log(log_bytes("vl_290")).run
    assert run.value("vllm_use_v2_model_runner") == "0" and run.vllm_use_v2_model_runner.key == "gpu_model_runner.py:5471"
    assert parse_log(log_bytes("vl_270")).run.value("vllm_use_v2_model_runner") == "1"
    head = "INFO 10-02 09:33:00 [api_server.py:1] vLLM API server version 0.29.0\n"
    cases = {
        "(EngineCore pid=1) INFO 10-02 09:33:10 [gpu_worker.py:429] Using V2 Model Runner": "1",
        "(EngineCore pid=1) WARNING 10-02 09:33:10 [vllm.py:680] Model Runner V2 does not yet support ngram/ngram_gpu "
        "speculative decoding; using the V1 model runner instead.": "0",
        "(EngineCore pid=1) INFO 10-02 09:33:10 [model_runner.py:404] Model loading took 8.88 GiB memory and 6.9 "
        "seconds": "1",
        "(EngineCore pid=1) INFO 10-02 09:33:10 [gpu_model_runner.py:5471] Model loading took 8.88 GiB memory and "
        "6.9 seconds": "0",
    }
    for line, value in cases.items():
        assert parse_log(head + line + "\n").run.value("vllm_use_v2_model_runner") == value, line
    # V0's worker/model_runner.py (0.8-0.10) prints "Model loading took" with four decimals (V2's format_gib
    # rounds to two): neither runner; vl_059 (0.8.2-0.8.4, "GB") and the 0.10.1.1 wording
    assert parse_log(log_bytes("vl_059")).run.value("vllm_use_v2_model_runner") is None
    v0 = "INFO 10-02 09:33:10 [model_runner.py:1203] Model loading took 8.8800 GiB and 6.900000 seconds\n"
    assert parse_log(head.replace("0.29.0", "0.10.1.1") + v0).run.value("vllm_use_v2_model_runner") is None
    assert parse_log(head + v0.replace("8.8800", "8.88")).run.value("vllm_use_v2_model_runner") == "1"
    # no runner line, or another model_runner.py line (V0's "Loading model weights took"): unknown
    assert parse_log(head + "INFO 10-02 09:33:10 [model_runner.py:1] Loading model weights took 8.88 GB\n"
                     ).run.value("vllm_use_v2_model_runner") is None


def test_four_part_vllm_release_is_read_whole():
    """vLLM's patch releases 0.9.0.1 / 0.10.1.1 print four numbers (LMCache's committed example log, vl_311); a
    three-part version keeps reading as before."""
    from tpkit.logs.engine import version_in
    assert version_in("INFO 06-02 17:49:48 [api_server.py:1289] vLLM API server version 0.9.0.1") == ("vllm", "0.9.0.1")
    assert version_in("Initializing a V1 LLM engine (v0.10.1.1) with config: model='m'") == ("vllm", "0.10.1.1")
    assert version_in("vLLM API server version 0.9.2.dev325+g2965c99c8") == ("vllm", "0.9.2.dev325+g2965c99c8")
    assert version_in("vLLM API server version 0.10.2") == ("vllm", "0.10.2")
    assert version_in("Initializing a V1 LLM engine (v0.29.0) with config") == ("vllm", "0.29.0")
    run = parse_log(log_bytes("vl_311")).run
    assert run.engine.version == "0.9.0.1" and run.engine.version_printed


def test_the_deep_gemm_warning_example_is_no_launch_command():
    """Helper gs26: SGLang's DeepGEMM warning ends with a fixed example command (``--tp 8``, 0.5.8.post1
    deep_gemm_wrapper/compile_utils.py); sg_595 (a tp-16 decode server, ranks TP0-TP7 of node rank 0) prints it. Neither
    the command reader nor the free-form scan takes its flags, so a given ``--tp 16`` is not contradicted."""
    from tpkit.explain.result import free_form_settings
    from tpkit.logs.command import is_command

    raw = log_bytes("sg_595")
    hint = next(l for l in raw.decode().splitlines() if "compile_deep_gemm --model" in l)
    assert "--tp 8" in hint and not is_command(hint)
    assert is_command("python3 -m sglang.launch_server --model-path /m --tp 16")
    run = parse_log(raw).run
    assert run.tp is None or run.tp.source != "command_line"
    assert "tp" not in free_form_settings(raw)
    assert free_form_settings(b"launch: python3 -m sglang.launch_server --tp 4\n")["tp"][0] == 4
