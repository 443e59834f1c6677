"""The top-k/top-p sampler of a run in vLLM's official image (helper img16, 2026-12-05).

vLLM 0.8.0–0.11.0 V1 takes FlashInfer's sampler when flashinfer-python is installed and the PyTorch-native one
otherwise; a plain ``pip install vllm`` has no FlashInfer, while every such release's docker/Dockerfile installs it in
the ``vllm-base`` stage (WORKDIR /vllm-workspace) that the ``vllm-openai`` image is built from (0.8.0–0.9.2 only
for non-arm64 platforms).  A source that shows the image therefore gives FlashInfer, in the validation inputs
(scripts/build_validation_set.py ``_image_sampler``) and in explain's reading of a log
(``explain.context.image_sampler_reading``); pip or no evidence keeps the release's default band.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tpkit.engines.vllm.versions import image_sampler, official_image_marker
from tpkit.engines.vllm.profile_lines import profile_sampler
from tpkit.engines.vllm.versions import resolve_rules
from tpkit.explain import explain_log
from tpkit.explain.context import image_sampler_reading

ROOT = Path(__file__).resolve().parents[2]


def _build():
    spec = importlib.util.spec_from_file_location("bvs_img16", ROOT / "scripts" / "build_validation_set.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("version", ["0.8.0", "0.8.2", "0.8.5", "0.9.0", "0.9.2", "0.10.0", "0.10.1.1", "0.10.2",
                                     "0.11.0"])
def test_image_gives_flashinfer_inside_the_window(version):
    assert image_sampler(version, "RTX-A6000") == "flashinfer"
    # without the image the same release stays on its install-dependent default band
    assert profile_sampler(resolve_rules(version), (8, 6)) == "native_unless_installed"
    assert profile_sampler(resolve_rules(version), (8, 6), image_sampler(version, "RTX-A6000")) == "flashinfer"


@pytest.mark.parametrize("version", ["0.7.3", "0.8.2:v0", "0.10.0:v0", "0.11.1", "0.12.0", "0.20.0", "0.21.0"])
def test_image_says_nothing_outside_the_window(version):
    """0.7.x V1 runs no sampler in its profile, V0 never uses it, 0.11.1–0.20 need VLLM_USE_FLASHINFER_SAMPLER=1,
    0.21+ use FlashInfer by default anyway: the image is no evidence there."""
    assert image_sampler(version, "H100-SXM-80GB") is None


def test_arm64_image_skips_flashinfer_before_0_10():
    """docker/Dockerfile 0.8.0–0.9.2: FlashInfer only ``if [ "$TARGETPLATFORM" != "linux/arm64" ]``."""
    assert image_sampler("0.9.2", "GH200") is None
    assert image_sampler("0.8.5", "GB10-128GB") is None
    assert image_sampler("0.10.2", "GH200") == "flashinfer"
    assert image_sampler("0.9.2", "H100-SXM-80GB") == "flashinfer"


def test_markers():
    assert official_image_marker("root@pod-1:/vllm-workspace# vllm serve Qwen/Qwen3-0.6B") == "/vllm-workspace"
    assert official_image_marker("docker run --gpus all vllm/vllm-openai:v0.8.5 --model x") == "vllm/vllm-openai"
    for pip in ("pip install vllm==0.10.2", "/home/u/.venv/lib/python3.12/site-packages/vllm/config.py",
                "/usr/local/lib/python3.12/dist-packages/vllm/worker.py", "conda activate vllm", ""):
        assert official_image_marker(pip) is None


def _rec(version="0.10.2", gpu="RTX-A6000", **flags):
    return {"id": "t", "engine": "vllm", "tpkit_engine_version": version, "gpu": gpu, "flags": dict(flags)}


def test_build_rule_image_pip_none():
    mod = _build()
    image = mod._image_sampler(_rec(), "root@x:/vllm-workspace# vllm serve m")
    assert image["flags"]["topk_topp_sampler"] == "flashinfer" and "/vllm-workspace" in image["sampler_note"]
    for text in ("pip install vllm==0.10.2", "/home/me/.venv/lib/python3.12/site-packages/vllm/x.py", "no evidence"):
        assert "topk_topp_sampler" not in mod._image_sampler(_rec(), text)["flags"]
    # release outside the window, the log's own sampler line, or a sampler already given: unchanged
    assert "topk_topp_sampler" not in mod._image_sampler(_rec("0.12.0"), "/vllm-workspace")["flags"]
    assert "topk_topp_sampler" not in mod._image_sampler(
        _rec(), "/vllm-workspace ... FlashInfer is not available. Falling back to the PyTorch-native")["flags"]
    assert mod._image_sampler(_rec(topk_topp_sampler="native"), "/vllm-workspace")["flags"] == {
        "topk_topp_sampler": "native"}


def test_vp_683_is_planned_with_the_images_sampler():
    """vp_683 (dynamo#4580, 0.10.2, RTX A6000): the thread's start-up log opens at a /vllm-workspace prompt and prints
    0.52 GiB of peak activation, FlashInfer's 14 B per logit; the built case carries FlashInfer from the rule."""
    cases = {c["id"]: c for c in json.loads((ROOT / "tests/validation/cases/vllm.json").read_text())}
    assert cases["vp_683"]["flags"]["topk_topp_sampler"] == "flashinfer"
    assert "official image" in cases["vp_683"]["sampler_note"]
    # a pip-installed case of the same window keeps the default (vp_616: 'pip install vllm==0.8.5.post1')
    assert "topk_topp_sampler" not in cases["vp_616"]["flags"]


def test_explain_reads_the_image_off_the_log():
    log = (ROOT / "tests/logs/data/vllm/vl_858.log").read_bytes()  # 0.8.5 V1 in vllm/vllm-openai, no sampler line
    ctx = explain_log(log).context
    assert ctx.values["topk_topp_sampler"] == "flashinfer" and "official vLLM image" in ctx.sources["topk_topp_sampler"]
    stripped = log.replace(b"/vllm-workspace", b"/home/user/work").replace(b"vllm/vllm-openai", b"myorg/llm")
    assert "topk_topp_sampler" not in explain_log(stripped).context.values


def test_explain_reading_window_and_given():
    values, sources = {}, {}
    image_sampler_reading(b"cd /vllm-workspace", "0.12.0", None, values, sources)
    assert values == {}
    image_sampler_reading(b"pip install vllm", "0.10.2", None, values, sources)
    assert values == {}
    image_sampler_reading(b"cd /vllm-workspace", None, None, values, sources)
    assert values == {}
    image_sampler_reading(b"cd /vllm-workspace", "0.10.0-0.10.2", None, values, sources)
    assert values == {"topk_topp_sampler": "flashinfer"}
