"""The public surface, pinned: every flag of every command (from the real parser) and ``tpkit.__all__``.

A change here is a change for every script and notebook that uses tpkit: update the literal on purpose.
"""

import argparse
import subprocess
import sys
import textwrap

import pytest

import tpkit
from tpkit.cli import COMMANDS, build_parser

PLAN_FLAGS = frozenset({
    "-h", "--help", "--engine", "--engine-version", "--gpu", "--gpu-memory", "--machine", "--num-gpus",
    "--list-gpus", "--list-models", "--link", "--no-p2p", "--p2p", "--nnodes",
    "--tp", "--pp", "--dp", "--ep", "--dtype", "--quantization", "--kv-cache-dtype", "--json",
    # SGLang
    "--mem-fraction-static", "--context-length", "--page-size", "--max-total-tokens", "--chunked-prefill-size",
    "--cuda-graph-max-bs", "--max-running-requests", "--speculative-algorithm", "--speculative-draft-model-path",
    "--speculative-num-steps", "--speculative-eagle-topk", "--speculative-num-draft-tokens", "--enable-dp-attention",
    "--moe-a2a-backend", "--disable-radix-cache", "--disable-overlap-schedule", "--swa-full-tokens-ratio",
    "--moe-runner-backend",  # helper pad30: flashinfer_trtllm pads the expert width (engines.sglang.trtllm_moe)
    "--mamba-full-memory-ratio",
    "--mamba-ssm-dtype", "--mm-feature-transport",  # helper sgf14: the SSM state dtype, the feature pool
    "--disable-cuda-graph",
    "--sglang-int4-weight",  # helper i4w25: SGLANG_INT4_WEIGHT, int4 MoE experts on AMD (engines.sglang.int4)
    "--host-gpus",  # tpkit's own (helper cap27): the host's cards; SGLang sizes its defaults by the smallest
    # vLLM
    "--gpu-memory-utilization", "--max-model-len", "--block-size", "--max-num-batched-tokens", "--max-num-seqs",
    "--kv-cache-memory-bytes", "--enforce-eager", "--speculative-config", "--decode-context-parallel-size",
    "--cpu-offload-gb",  # both engines, GiB per GPU
    "--data-parallel-size", "--enable-expert-parallel", "--topk-topp-sampler", "--skip-mm-profiling",
    "--enable-eplb", "--eplb-config",  # helper vr31: vLLM's expert-parallel load balancer (engines.vllm.eplb)
    "--limit-mm-per-prompt",  # helper lmm: the encoder profile's modalities and items per prompt
    "--language-model-only",  # helper lmo: both engines; the vision tower the release does not build
    "--enable-prefix-caching",  # helper mv5: a hybrid's mamba cache mode (engines.vllm.mamba)
    "--enable-chunked-prefill",  # helper mv20: V0's profile budget when given (engines.vllm.batch_defaults._v0_batch)
    "--no-async-scheduling",  # helper mv7: one batch in flight for the sliding-window need (engines.vllm.capacity)
    "--no-enable-extensible-kv-cache",  # helper cur17: vLLM >= 0.34 sizes the KV cache after warm-up unless given
    "--compile-cache",  # tpkit's own: vLLM's torch.compile cache at start-up (not a vLLM flag)
    "--vllm-entrypoint",  # tpkit's own (helper llmc): vllm serve or the offline vllm.LLM class (not a vLLM flag)
    "--attention-backend",  # vLLM's --attention-backend (helper vcg10: FlashInfer's workspace in the graph estimate)
    "--max-cudagraph-capture-size",  # vLLM's flag (helper mcs10: the graph count of the CUDA-graph estimate)
    "--cudagraph-capture-sizes",  # vLLM's list flag (helper cap11: the graph count of the CUDA-graph estimate)
    "--optimization-level",  # vLLM's -O (helper cap11: which graphs are captured; 0 = no torch.compile)
    "--cudagraph-mode",  # vLLM's compilation_config cudagraph_mode (helper cap11: which graphs are captured)
    "--vllm-use-v2-model-runner",  # vLLM's VLLM_USE_V2_MODEL_RUNNER (the V1 runner or Model Runner V2)
    "--vllm-allow-long-max-model-len",  # vLLM's VLLM_ALLOW_LONG_MAX_MODEL_LEN (ux26)
    "--vllm-mxfp4-use-marlin",  # vLLM's VLLM_MXFP4_USE_MARLIN (mx29: the Marlin MXFP4 MoE backend forced on Hopper)
    "--vllm-memory-profiler-estimate-cudagraphs",  # vLLM's env of that name (helper hyb11: estimate subtracted or not)
    # LoRA (both engines: --enable-lora, --max-lora-rank; vLLM: --max-loras, --max-cpu-loras, --fully-sharded-loras,
    # --lora-dtype, --lora-extra-vocab-size; SGLang: --max-loras-per-batch, --lora-target-modules)
    "--enable-lora", "--max-lora-rank", "--max-loras", "--max-cpu-loras", "--fully-sharded-loras", "--lora-dtype",
    "--lora-extra-vocab-size", "--max-loras-per-batch", "--lora-target-modules",
    # all-reduce
    "--disable-custom-all-reduce", "--tpkit-allreduce",
    # the machine of a log (tpkit explain)
    "--from-log",
    # the engines' spellings of the layout flags (aliases of --tp/--pp/--dp/--ep)
    "--tensor-parallel-size", "--tp-size", "--pipeline-parallel-size", "--pp-size", "--dp-size",
    "--expert-parallel-size", "--ep-size",
    # vLLM's short spellings (helper rev11: a pasted `vllm serve … -tp 8 -dcp 8` was refused)
    "-tp", "-pp", "-dcp", "-dp", "-ep", "-sc",
    # vLLM's -O3 / -O 3 / -O=3 for --optimization-level (helper rev12)
    "-O",
    # the layers of each pipeline stage (VLLM_PP_LAYER_PARTITION / SGLANG_PP_LAYER_PARTITION; helper ppl16)
    "--pp-layer-partition",
})
EXPLAIN_FLAGS = (PLAN_FLAGS - {"--machine", "--num-gpus", "--tpkit-allreduce", "--from-log", "--pp-layer-partition",
                                "--list-gpus", "--list-models", "--link", "--no-p2p", "--p2p", "--nnodes"}) | {
    "--rank", "--model", "--memory-virtualiser"}
"""``tpkit explain LOG``: the plan flags that describe a run fill what the log does not print; --memory-virtualiser
(helper miss24): a HAMi slice set in the pod spec, which the log does not print"""
PROBE_FLAGS = frozenset({"-h", "--help", "--json", "--out", "--no-nvml"})
BENCH_ALLREDUCE_FLAGS = frozenset({
    "-h", "--help", "--nproc", "--backend", "--device", "--dtype", "--min-size", "--max-size", "--iters",
    "--repeats", "--graph-calls", "--mode", "--json", "--plot", "--explain", "--keep-profile", "--max-blocks",
    "--max-bytes",
})
PERF_FLAGS = frozenset({
    "-h", "--help", "--gpu", "--tp", "--num-gpus", "--link", "--batch", "--context", "--engine", "--ep", "--dp",
    "--kv-cache-dtype", "--speculative-algorithm", "--speculative-num-steps", "--speculative-eagle-topk",
    "--speculative-num-draft-tokens", "--speculative-draft-model-path", "--speculative-config", "--accept-length",
    "--allreduce-profile",
    "--allreduce-backend", "--pcie-fabric-gbps", "--impl", "--json", "--engine-version", "--attention-backend",
    "--disable-cuda-graph", "--enforce-eager", "--sglang-spec-v2", "--max-running-requests",
    "--tensor-parallel-size", "--tp-size", "--dp-size", "--expert-parallel-size", "--ep-size", "-tp",
    "--enable-dp-attention", "--disable-custom-all-reduce", "--enable-torch-symm-mem",
    # CUDA peer access, as tpkit plan has them (helper ux25: the engines' custom all-reduce needs it)
    "--p2p", "--no-p2p",
    # vLLM's VLLM_NVFP4_GEMM_BACKEND (helper pf38: marlin runs NVFP4 weights as W4A16, perf.fp4_backend)
    "--nvfp4-gemm-backend",
})
SERVING_FLAGS = frozenset({
    "--host", "--port", "--served-model-name", "--api-key", "--root-path", "--ssl-keyfile", "--ssl-certfile",
    "--uvicorn-log-level", "--log-level", "--chat-template", "--tool-call-parser", "--reasoning-parser", "--tokenizer",
    "--tokenizer-path", "--tokenizer-mode", "--download-dir", "--seed", "--trust-remote-code",
    "--enable-auto-tool-choice", "--disable-log-requests", "--enable-log-requests", "--disable-log-stats",
    "--log-requests", "--enable-metrics", "--disable-fastapi-docs", "--disable-uvicorn-access-log",
    # helper ux25: vLLM's host swap space, its worker executor and more API-server settings
    "--swap-space", "--distributed-executor-backend", "--max-log-len", "--allowed-origins", "--response-role",
    "--disable-frontend-multiprocessing",
})
"""the engines' serving flags ``plan`` and ``perf`` take and ignore with a note, hidden from ``--help`` (helper rev12,
2026-12-05: a pasted ``vllm serve`` line was refused word by word)"""
PUBLIC_API = frozenset({
    "__version__", "Bytes", "parse_bytes", "format_bytes", "TpkitError", "ParallelSpec", "load_model", "ModelSpec",
    "lookup_gpu", "GpuSpec", "Engine", "get_engine", "engine_names", "SglangOptions", "plan_sglang", "VllmOptions",
    "plan_vllm", "PlanResult", "Ledger", "LineItem",
})


def _sub(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def _flags(parser: argparse.ArgumentParser) -> frozenset:
    return frozenset(o for a in parser._actions for o in a.option_strings)


def test_commands_and_their_flags_are_pinned():
    commands = _sub(build_parser()).choices
    assert set(commands) == {"plan", "probe", "bench", "perf", "explain"}
    assert _flags(commands["plan"]) == PLAN_FLAGS | SERVING_FLAGS
    assert [a.dest for a in commands["plan"]._actions if not a.option_strings] == ["model"]
    assert _flags(commands["probe"]) == PROBE_FLAGS
    assert set(_sub(commands["bench"]).choices) == {"allreduce"}
    assert _flags(_sub(commands["bench"]).choices["allreduce"]) == BENCH_ALLREDUCE_FLAGS
    assert _flags(commands["perf"]) == PERF_FLAGS | SERVING_FLAGS
    assert [a.dest for a in commands["perf"]._actions if not a.option_strings] == ["model"]
    assert _flags(commands["explain"]) == EXPLAIN_FLAGS
    assert [a.dest for a in commands["explain"]._actions if not a.option_strings] == ["log"]


def test_the_listing_of_commands_matches_their_own_parsers():
    """``tpkit --help`` lists commands it did not import: their help lines must be the commands' own."""
    full = {c.dest: c.help for c in _sub(build_parser())._choices_actions}
    listed = {c.dest: c.help for c in _sub(build_parser(["--help"]))._choices_actions}
    assert full == listed == COMMANDS


@pytest.mark.parametrize("name", ["plan", "probe", "bench", "perf", "explain"])
def test_running_one_command_builds_it_in_full(name):
    only = _sub(build_parser([name, "--help"])).choices
    assert _flags(only[name]) == _flags(_sub(build_parser()).choices[name])
    assert all(_flags(p) == {"-h", "--help"} for n, p in only.items() if n != name)


def test_public_api_is_pinned_and_every_name_resolves():
    assert frozenset(tpkit.__all__) == PUBLIC_API
    for name in tpkit.__all__:
        assert getattr(tpkit, name) is not None
    with pytest.raises(AttributeError):
        tpkit.no_such_name  # noqa: B018


def test_plan_imports_neither_the_probe_nor_the_benchmarks_nor_rich_for_json():
    code = textwrap.dedent("""
        import contextlib, io, sys
        from tpkit.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["plan", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--json"]) == 0
        loaded = [m for m in sys.modules if m.startswith(("tpkit.comm", "tpkit.runtime", "tpkit.cli.probe",
                                                           "tpkit.cli.bench", "rich", "torch", "huggingface_hub",
                                                           "tpkit.engines.vllm.policy"))]
        assert not loaded, loaded
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
