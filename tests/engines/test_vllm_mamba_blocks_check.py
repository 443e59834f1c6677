"""vLLM's start-up check that every decode sequence of a mamba-family hybrid gets a state block (helper hyb11,
2026-12-05).

``config/compilation.py CompilationConfig.resolve_cudagraph_mode_and_sizes`` (0.20.0–0.33.0 wheels; vLLM issue
#34094) raises "max_num_seqs (N) exceeds available Mamba cache blocks (B)" once the real KV config is known when
the model has mamba-family layers (GDN, Mamba, short-conv: ``KVCacheConfig.has_mamba_layers``) and FULL decode CUDA
graphs are captured.  0.19.0 has no such check (``adjust_cudagraph_sizes_for_mamba_cache`` caps the capture sizes
instead).  The case that shows it: vp_595 (vLLM 0.26.0, Qwen3.8-27B-FP8 on an L40S, 256 sequences, 184 blocks).
"""

import json
from pathlib import Path

import pytest

from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec

from vllm_fixtures import H200, llama3_8b

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"


def _qwen35_4b():
    path = CONFIGS / "Qwen--Qwen3.5-4B.json"
    return from_config_dict(json.loads(path.read_text()), name="Qwen/Qwen3.5-4B", source=str(path))


def _plan(version, model=None, **kw):
    kw = {"gpu_memory_utilization": 0.1, "max_model_len": 8192, **kw}
    if model is None:
        kw["language_model_only"] = True
    options = VllmOptions(engine_version=version, **kw)
    return plan_vllm(model or _qwen35_4b(), H200, ParallelSpec(), options)


@pytest.mark.parametrize("version", ["0.20.0", "0.26.0", "0.30.0"])
def test_more_sequences_than_blocks_stop_the_start_from_0_20(version):
    plan = _plan(version)  # H200 default: 1,024 sequences; 0.1 × H200 leaves ~100-200 blocks
    blocks = plan.extra["kv_blocks"]
    assert 0 < blocks < 1024 and not plan.verdict.fits
    assert plan.verdict.knob == "--max-num-seqs"
    line = f"max_num_seqs (1024) exceeds available Mamba cache blocks ({blocks})"
    assert line in plan.verdict.message and any(line in l for l in plan.engine_log)
    assert f"--max-num-seqs {blocks} or less" in plan.verdict.message  # re-planned: it fits
    assert _plan(version, max_num_seqs=blocks).verdict.fits
    for seqs in (64, 200, 300, 600):  # fewer sequences free sampler and graph memory: each plan's own blocks decide
        other = _plan(version, max_num_seqs=seqs)
        assert other.verdict.fits == (seqs <= other.extra["kv_blocks"]), (seqs, other.extra["kv_blocks"])


def test_no_check_in_0_19_nor_without_full_graphs_nor_for_attention_only_models():
    assert _plan("0.19.0").verdict.fits                                     # 0.19.0: capture sizes capped instead
    assert _plan("0.26.0", enforce_eager=True).verdict.fits                 # no graphs
    assert _plan("0.26.0", cudagraph_mode="PIECEWISE").verdict.fits          # no FULL decode graphs
    assert not _plan("0.26.0", cudagraph_mode="FULL_DECODE_ONLY").verdict.fits
    dense = _plan("0.26.0", model=llama3_8b(), max_model_len=4096, gpu_memory_utilization=0.125)
    assert dense.verdict.fits and dense.extra["kv_blocks"] < dense.extra["max_num_seqs"]
