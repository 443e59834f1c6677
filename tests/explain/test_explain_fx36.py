"""Helper fx36 (2026-12-07, issue 12): four `tpkit explain` leads, each a general rule (docs/accuracy.md §7.3 round
fx36).

1. ``docker run … vllm/vllm-openai:TAG [MODEL] --flags``: the image's entrypoint is vLLM's API server, so the
   arguments after the image are the server's (``logs.docker``); SGLang's and NVIDIA's images name their launcher.
   A Python warning or a usage line that quotes a launcher is no launch command.
3. The host-GPU check counts the data-parallel size where the run's is known (``explain.hostgpus``): vLLM's
   ``--data-parallel-size`` and SGLang's ``--dp-size`` without DP attention multiply tp × pp; with DP attention
   SGLang's dp lives inside tp.
4. A vLLM log whose only sign of its release is V0's engine-loop frames is dated ≤ 0.10.2 once, as a format marker
   (``logs.engine.V0_LOOP_FRAMES``), so every release-dependent rule reads the same release.
"""

from types import SimpleNamespace

from explain_testlib import log_bytes
from test_explain_corpus import FLAGS_FOR

from tpkit.explain import explain_log
from tpkit.explain.diagnose import SUGGESTION, Fix
from tpkit.explain.hostgpus import checked_fixes, dp_factor, gpus_needed, host_gpus_shown, run_gpus
from tpkit.logs import parse_log
from tpkit.logs.command import command_settings, is_command
from tpkit.logs.docker import server_image_args


def _cl(text: str) -> dict:
    return {s.name: s.value for s in parse_log(text).settings if s.source == "command_line"}


# -- 1. docker run with the server image ------------------------------------------------------------------------------

def test_the_server_image_takes_the_model_positionally_and_its_flags():
    line = ("docker run --gpus '\"device=1,4\"' --name vllm-tp2 -p 8101:8000 -v /root/.cache:/root/.cache -e HF_HOME=/x "
            "--ipc=host -d vllm/vllm-openai:v0.10.1 Qwen/Qwen3-32B --tensor-parallel-size 2 "
            "--gpu-memory-utilization 0.8 --max-model-len 8192")
    assert is_command(line)
    engine, found = command_settings(line, line_no=1)
    values = {s.name: s.value for s in found}
    assert engine == "vllm" and values["model"] == "Qwen/Qwen3-32B" and values["tp"] == 2
    assert values["mem_fraction"] == 0.8 and values["context_length"] == 8192
    # '--name vllm-tp2' is an option's value, not the image; a registry prefix and a variant suffix still name it
    assert server_image_args("docker run --name vllm-x ghcr.io/vllm/vllm-openai-rocm:latest --model M".split()) == (
        "vllm", ["--model", "M"])


def test_a_docker_command_over_continuation_lines_and_its_tags_release():
    log = ("docker run -d \\\n  --gpus '\"device=7\"' \\\n  -p 8011:8001 \\\n  vllm/vllm-openai:v0.10.1 \\\n"
           "  --model Qwen/Qwen3-8B-AWQ \\\n  --max-model-len 8192 \\\n  --gpu-memory-utilization 0.30\n"
           "INFO 05-01 10:00:00 [gpu_worker.py:227] Available KV cache memory: 10.00 GiB\n")
    parsed = parse_log(log)
    assert _cl(log) == {"model": "Qwen/Qwen3-8B-AWQ", "context_length": 8192, "mem_fraction": 0.3}
    assert parsed.engine.version == "0.10.1"
    assert any("version 0.10.1 printed" in e.claim and "vllm-openai:v0.10.1" in e.text for e in parsed.engine.evidence)


def test_what_is_no_server_launch():
    # an image mentioned without `docker run`, a Dockerfile's FROM, another image, an SGLang image without a launcher
    assert command_settings("I pulled vllm/vllm-openai:v0.10.1 Qwen/Qwen3-32B", line_no=1) == (None, [])
    assert command_settings("FROM vllm/vllm-openai:latest", line_no=1) == (None, [])
    assert server_image_args("docker run --gpus all my/vllm-spark:main Qwen/Qwen3-32B".split()) is None
    assert server_image_args("docker run --gpus all lmsysorg/sglang:latest Qwen/Qwen3-32B".split()) is None
    # an SGLang image with its launcher: read by the launcher's own path, as before
    engine, found = command_settings("docker run --gpus all lmsysorg/sglang:v0.5.5 python3 -m sglang.launch_server "
                                     "--model-path Qwen/Qwen3-8B --tp 2", line_no=1)
    assert engine == "sglang" and {s.name: s.value for s in found} == {"model": "Qwen/Qwen3-8B", "tp": 2}


def test_a_warning_or_usage_line_quoting_a_launcher_is_no_command():
    warn = ("/sgl-workspace/sglang/python/sglang/launch_server.py:51: UserWarning: 'python -m sglang.launch_server' "
            "is still supported, but 'sglang serve' is the recommended entrypoint.")
    assert not is_command(warn) and not is_command("  Example: sglang serve --model-path <model> [options]")
    assert _cl(warn + "\n  Example: sglang serve --model-path <model> [options]\n") == {}
    assert is_command("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2")


def test_corpus_docker_logs_name_their_model_and_flags():
    vl789 = _cl(log_bytes("vl_789").decode())
    assert vl789 == {"tp": 2, "mem_fraction": 0.426, "context_length": 32768, "model": "Qwen/Qwen3-32B"}
    assert _cl(log_bytes("vl_788").decode())["model"] == "Qwen/Qwen3-32B"
    vl992 = _cl(log_bytes("vl_992").decode())
    assert vl992["model"] == "meta-llama/Llama-3.2-11B-Vision-Instruct" and vl992["tp"] == 4
    # sg_635's SGLang warning no longer gives the model 'is' nor '<model>'
    assert "model" not in _cl(log_bytes("sg_635").decode())


def test_vl_788_without_its_corpus_flags_is_re_planned_from_its_own_command():
    e = explain_log(log_bytes("vl_788"))  # no --model: the docker line names Qwen/Qwen3-32B
    assert e.context.model_source.startswith("the log's model path 'Qwen/Qwen3-32B'")
    tp = next(f for f in e.diagnosis.fixes if f.flags == "--tensor-parallel-size 2")
    assert tp.fits and tp.kv_tokens and tp.kv_tokens > 0


# -- 3. data parallelism in the host-GPU count ---------------------------------------------------------------------------

def _vals(**kw):
    return SimpleNamespace(get=lambda k, d=None: kw.get(k, d))


def test_dp_factor_both_engines():
    assert dp_factor(_vals(dp=2), "vllm")[0] == 2
    assert dp_factor(_vals(dp=4), "sglang")[0] == 4
    assert dp_factor(_vals(dp=4, enable_dp_attention=True), "sglang") == (1, "")  # dp inside tp
    assert dp_factor(_vals(dp=None), "vllm") == (1, "")
    # a multi-node vLLM run: the ranks on this host
    assert dp_factor(_vals(dp=4), "vllm", b"vllm serve M --data-parallel-size 4 --data-parallel-size-local 2")[0] == 2
    assert run_gpus(_vals(tp=2, pp=2, dp=2), "vllm") == (
        8, "tp × pp × dp = 2 × 2 × 2, dp 2 (vLLM's --data-parallel-size: one tp × pp group per DP rank)", 2)
    assert run_gpus(_vals(tp=2, dp=2, enable_dp_attention=True), "sglang") == (2, "tp × pp = 2", 1)


def test_gpus_needed_keeps_the_runs_dp_unless_the_fix_sets_one():
    assert gpus_needed("--tensor-parallel-size 2", 1, 1, 2) == 4
    assert gpus_needed("--tp 4 --dp-size 1", 2, 1, 2) == 4
    assert gpus_needed("--gpu-memory-utilization 0.8", 1, 1, 2) is None


def test_a_dp_run_needs_tp_times_dp_against_the_host():
    nvsmi = (b"|   0  NVIDIA A100-SXM4-80GB          On  |   00000000:07:00.0 Off |                    0 |\n"
             b"|   1  NVIDIA A100-SXM4-80GB          On  |   00000000:0B:00.0 Off |                    0 |\n")
    ctx = SimpleNamespace(get=lambda k, d=None: {"tp": 1, "pp": 1, "dp": 2}.get(k, d), engine="vllm")
    fix = Fix(flags="--tensor-parallel-size 2", kv_tokens=1000, fits=True, why="why", note="re-planned")
    shown = host_gpus_shown(nvsmi, None, *run_gpus(ctx, "vllm"))
    assert (shown.count, shown.exact, shown.dp) == (2, True, 2)
    out = checked_fixes([fix], ctx, shown)[0]
    assert not out.fits and out.note.startswith(f"{SUGGESTION}: needs 4 GPUs; this host shows 2")
    # what the run used is a lower bound that names its dp
    used = host_gpus_shown(b"", None, *run_gpus(ctx, "vllm"))
    assert (used.count, used.exact) == (2, False) and "tp × pp × dp = 1 × 1 × 2" in used.evidence
    kept = checked_fixes([fix], ctx, used)[0]
    assert kept.fits and "needs 4 GPUs; the log shows 2 in use" in kept.note


def _sg_045_tp2(prefix=b"", **flags):
    e = explain_log(prefix + log_bytes("sg_045"), flags={**(FLAGS_FOR.get("sg_045") or {}), **flags})
    return next(f for f in e.diagnosis.fixes if f.flags == "--tp 2")


def test_sglang_dp_size_without_dp_attention_needs_its_gpus_and_with_it_none():
    row = b"|   %d  NVIDIA GeForce RTX 5090        Off |   00000000:0%d:00.0 Off |                  N/A |\n"
    two = row % (0, 1) + row % (1, 2)
    assert _sg_045_tp2(two).fits  # tp 1 → 2 on two GPUs
    replicas = _sg_045_tp2(two, dp=2)  # two tp-1 replicas already fill both: tp 2 needs 4
    assert not replicas.fits and replicas.note.startswith(f"{SUGGESTION}: needs 4 GPUs; this host shows 2")
    assert _sg_045_tp2(two, dp=2, enable_dp_attention=True).fits  # DP attention: dp inside tp


def test_vl_005_with_dp_2_on_two_gpus():
    nvsmi = (b"|   0  NVIDIA A100-SXM4-80GB          On  |   00000000:07:00.0 Off |                    0 |\n"
             b"|   1  NVIDIA A100-SXM4-80GB          On  |   00000000:0B:00.0 Off |                    0 |\n")
    flags = FLAGS_FOR["vl_005"]
    tp = next(f for f in explain_log(log_bytes("vl_005") + b"\n" + nvsmi, flags=flags).diagnosis.fixes
              if f.flags == "--tensor-parallel-size 2")
    assert tp.fits
    dp = next(f for f in explain_log(log_bytes("vl_005") + b"\n" + nvsmi, flags={**flags, "dp": 2}).diagnosis.fixes
              if f.flags == "--tensor-parallel-size 2")
    assert not dp.fits and "needs 4 GPUs; this host shows 2" in dp.note  # (dp re-plans the tokens too)


# -- 4. V0's engine-loop frames date the log once ------------------------------------------------------------------------

def test_v0_loop_frames_date_the_log_for_every_rule():
    parsed = parse_log(log_bytes("vl_1432"))
    assert parsed.engine.version.startswith("≤ 0.10.2") and parsed.engine.engine_generation == "V0"
    e = explain_log(log_bytes("vl_1432"))
    assert e.context.rules_version == "0.10.2" and e.context.get("vllm_v0_engine") is True
    from tpkit.explain.vtokens import log_rules

    rules = log_rules(e.context)
    assert rules.default_utilization == 0.9 and not rules.ceil_requested  # V0 0.10.2's rules, not 0.33's ceil
    fix = e.diagnosis.fixes[0]
    assert fix.flags == "--gpu-memory-utilization 0.89" and "from the default" not in fix.note


def test_a_v1_log_is_not_dated_by_the_frames():
    # a V1 engine-core traceback names run_busy_loop, no V0 loop frame: no V0 dating
    log = ("(EngineCore_DP0 pid=1) ERROR 05-01 10:00:00 [core.py:700] EngineCore encountered a fatal error.\n"
           "(EngineCore_DP0 pid=1) ERROR 05-01 10:00:00 [core.py:700]   File \"/x/vllm/v1/engine/core.py\", "
           "line 690, in run_busy_loop\n")
    assert "0.10.2" not in (parse_log(log).engine.version or "")
