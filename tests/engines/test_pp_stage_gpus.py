"""Pipeline stages on unlike GPUs, ``tpkit plan --pp N --gpu A,B`` (helper pps16, issues 11 and 12).

vLLM (``v1/core/kv_cache_utils.py get_kv_cache_configs``, read in the 0.13.0, 0.14.0, 0.15.1, 0.16.0 and 0.17.0
wheels): each worker sizes blocks from its own available memory and its own stage's layers, then every worker keeps
the fewest blocks over the workers.  The one-request check: 0.13.0 per worker (own layers, own memory); 0.14.0 –
0.16.x the smallest worker's memory against the KV of all layers; 0.17.0 on per worker again (projected groups)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tpkit.engines.vllm.stages import ALL_LAYER_CHECK, all_layer_check_applies
from tpkit.errors import PlanInputError
from tpkit.parallel import ParallelSpec

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "tests/logs/data/configs/Qwen__Qwen3-Coder-30B-A3B-Instruct-FP8"
"""vl_048's model: 48 decoder layers, 4 KV heads × 128 (32,768 B per token over all layers in bf16)"""
LOG = ROOT / "tests/logs/data/vllm/vl_048.log"


def _plan(*argv: str):
    from tpkit.cli import build_parser
    from tpkit.cli.plan import plan

    return plan(build_parser(["plan"]).parse_args(["plan", *argv]))


def _stages(version: str, *more: str):
    return _plan(str(CONFIG), "--engine", "vllm", "--engine-version", version, "--pp", "2",
                 "--pp-layer-partition", "16,32", "--gpu", "RTX-5070-Ti,RTX-5090", *more)


def test_release_range_of_the_all_layer_check():
    assert ALL_LAYER_CHECK == ((0, 14, 0), (0, 17, 0))
    assert [all_layer_check_applies(v) for v in ("0.13.0", "0.14.0", "0.15.2rc1.dev93+g11a4c9d30", "0.16.0",
                                                 "0.17.0", "current", "v0")] == [False, True, True, True, False,
                                                                                  False, False]


def test_stage_field_is_checked():
    assert ParallelSpec(pp=2, stage=1).stage == 1
    for bad in (2, -1, True, "0"):
        with pytest.raises(PlanInputError, match="stage must be"):
            ParallelSpec(pp=2, stage=bad)


@pytest.mark.parametrize("argv, words", [
    (("--pp", "3", "--gpu", "RTX-5070-Ti,RTX-5090"), "names 2 GPUs but --pp is 3"),
    (("--pp", "2", "--gpu", "RTX-5070-Ti,"), "has an empty name"),
    (("--pp", "2", "--gpu", "RTX-5070-Ti,RTX-5090", "--gpu-memory", "16GiB"), "cannot be combined with --gpu-memory"),
    (("--pp", "2", "--tp", "2", "--gpu", "RTX-5070-Ti,RTX-5090"), "--tp 1 --dp 1 only"),
    (("--pp", "2", "--gpu", "RTX-5070-Ti,RTX-5090", "--engine", "sglang"), "--engine vllm only"),
])
def test_bad_stage_gpus_are_refused(argv, words):
    with pytest.raises(PlanInputError, match=words.replace("-", r"\-")):
        _plan(str(CONFIG), *(("--engine", "vllm") if "--engine" not in argv else ()), *argv)


def test_cli_refuses_without_a_traceback():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "tpkit", "plan", str(CONFIG), "--engine", "vllm", "--pp", "3",
                          "--gpu", "RTX-5070-Ti,RTX-5090"], capture_output=True, text=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}, timeout=300)
    assert out.returncode == 2 and "Traceback" not in out.stderr and "--pp is 3" in out.stderr


def test_one_name_per_stage_of_the_same_gpu_is_todays_plan():
    same = _plan(str(CONFIG), "--engine", "vllm", "--engine-version", "0.17.0", "--pp", "2", "--gpu", "H100,H100")
    one = _plan(str(CONFIG), "--engine", "vllm", "--engine-version", "0.17.0", "--pp", "2", "--gpu", "H100")
    assert same.kv_tokens == one.kv_tokens and "stages" not in same.gpu


def test_each_stage_on_its_own_gpu_and_the_fewest_blocks_win():
    from tpkit.engines.vllm import VllmOptions
    from tpkit.engines.vllm.policy import plan_vllm
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.models import load_model

    result = _stages("0.17.0", "--max-model-len", "8192")
    model = load_model(str(CONFIG))
    opts = VllmOptions(engine_version="0.17.0", max_model_len=8192)
    alone = [plan_vllm(model, lookup_gpu(g), ParallelSpec(pp=2, layer_partition="16,32", stage=s), opts)
             for s, g in enumerate(("RTX-5070-Ti", "RTX-5090"))]
    blocks = [p.extra["kv_blocks"] for p in alone]
    assert result.extra["kv_blocks"] == min(blocks) and blocks[0] != blocks[1]
    assert result.gpu["stages"] == ["RTX-5070-Ti", "RTX-5090"] and result.verdict.fits
    # stage 1's 32 layers (19.2 GiB) did not load on the RTX 5070 Ti when every stage was planned on one card
    assert not _plan(str(CONFIG), "--engine", "vllm", "--engine-version", "0.17.0", "--pp", "2",
                     "--pp-layer-partition", "16,32", "--gpu", "RTX-5070-Ti", "--max-model-len", "8192").verdict.fits


@pytest.mark.parametrize("version, fits", [("0.13.0", True), ("0.14.0", False), ("0.16.0", False),
                                           ("0.17.0", True)])
def test_all_layer_check_by_release(version, fits):
    """40,000 tokens: each stage's own layers fit its own memory, all 48 layers do not fit the smallest worker's.
    (Helper pp18: 30,000 before; the first stage no longer carries the sampler, so its 3.14 GiB holds 30,000 tokens
    of all layers; vl_048's own log prints 3.18 GiB and an estimate of 34,736.)"""
    result = _stages(version, "--max-model-len", "40000")
    assert result.verdict.fits is fits
    assert any("over all" in line or "all layers" in line for line in (result.verdict.message,)) is (not fits)


def test_all_layer_check_boundary():
    over = _stages("0.15.1", "--max-model-len", "40000")
    est = int(over.verdict.message.split("--max-model-len ")[1].split()[0])
    assert _stages("0.15.1", "--max-model-len", str(est)).verdict.fits
    assert not _stages("0.15.1", "--max-model-len", str(est + 16)).verdict.fits
    assert any(line.startswith("ValueError: To serve at least one request") for line in over.engine_log)


def test_from_log_reads_the_numbered_devices_as_stages():
    result = _plan(str(CONFIG), "--from-log", str(LOG))
    assert result.gpu["stages"] == ["RTX-5070-Ti", "RTX-5090"]
    assert any("--gpu RTX-5070-Ti,RTX-5090: read from the log (log lines 1, 2" in w for w in result.warnings)
    assert not result.verdict.fits and "over all 48 layers" in result.verdict.message


@pytest.mark.parametrize("lines, want", [
    (["0: NVIDIA GeForce RTX 5070 Ti 16303MiB", "1: NVIDIA GeForce RTX 5090 D 32607MiB"],
     ("RTX-5070-Ti", "RTX-5090")),
    (["1: NVIDIA GeForce RTX 5090 D 32607MiB", "0: NVIDIA GeForce RTX 5070 Ti 16303MiB"], ()),
    (["NVIDIA GeForce RTX 5070 Ti", "NVIDIA GeForce RTX 5090 D"], ()),
])
def test_numbered_device_lines(lines, want):
    from tpkit.logs.reader import parse_log

    run = parse_log("\n".join(lines) + "\nvllm serve m --pipeline-parallel-size 2\n").run
    assert tuple(n for n, _ in run.gpus_by_index) == want
