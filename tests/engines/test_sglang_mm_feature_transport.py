"""SGLang's multimodal feature transport pool (helper sgf14, 2026-12-05; issue 11: round sgb14's gs_265, a
Qwen3.6-27B VLM on SGLang 0.5.17 at the default transport, printed 152,448 KV tokens where the same boot with
``--mm-feature-transport cpu`` printed 171,008).

Read in the sglang wheels: ``--mm-feature-transport`` arrives in 0.5.16 (absent from 0.5.15; choices cpu / cuda_ipc,
+ cuda_vmm in 0.5.18 / 0.5.19).  Unset, 0.5.17 resolves it to cuda_ipc on one CUDA node (``server_args.py
_handle_multimodal_feature_transport``; 0.5.16 and 0.5.18 / 0.5.19: cpu).  With cuda_ipc the tokenizer manager's
processor allocates ``SGLANG_MM_FEATURE_CACHE_MB`` (1024 MiB) on the base GPU while the scheduler starts
(``entrypoints/engine.py _launch_subprocesses``, ``MmItemMemoryPool``); from 0.5.18 ``mm_runtime_reservation_gb``
reserves it (+ the 100 MiB VLM cache) out of the KV budget."""

import json
from pathlib import Path

import pytest

from tpkit.engines.sglang import SglangOptions, plan_sglang
from tpkit.engines.sglang.multimodal import mm_reservation, resolved_transport
from tpkit.errors import PlanInputError
from tpkit.explain.fromlog import log_flag_values
from tpkit.hardware.catalog import lookup_gpu
from tpkit.models.config import from_config_dict
from tpkit.parallel import ParallelSpec
from tpkit.units import MiB

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"
A100 = lookup_gpu("A100-PCIe-80GB")
MI355X = lookup_gpu("MI355X")


def _vlm():
    cfg = json.loads((CONFIGS / "Qwen--Qwen3.6-27B.json").read_text())
    return from_config_dict(cfg, name="Qwen/Qwen3.6-27B", source="test")


@pytest.mark.parametrize("version, flag, nnodes, cuda, expected", [
    ("0.5.17", None, 1, True, "cuda_ipc"), ("0.5.16", None, 1, True, "cpu"), ("0.5.18", None, 1, True, "cpu"),
    ("0.5.19", None, 1, True, "cpu"), ("0.5.17", None, 2, True, "cpu"), ("0.5.17", None, 1, False, "cpu"),
    ("0.5.17", "cpu", 1, True, "cpu"), ("0.5.16", "cuda_ipc", 1, True, "cuda_ipc")])
def test_the_transport_resolves_to_cuda_ipc_only_in_0_5_17_on_one_cuda_node(version, flag, nnodes, cuda, expected):
    assert resolved_transport(version, flag, nnodes=nnodes, cuda=cuda)[0] == expected


@pytest.mark.parametrize("version, flag, mib", [
    ("0.5.16", None, 0), ("0.5.16", "cuda_ipc", 1024), ("0.5.17", None, 1024), ("0.5.17", "cpu", 0),
    ("0.5.18", None, 100), ("0.5.18", "cuda_ipc", 1124), ("0.5.19", "cpu", 100), ("0.5.15", None, 0)])
def test_the_feature_pool_comes_out_of_the_kv_budget(version, flag, mib):
    assert mm_reservation(_vlm(), A100, 81_920, version, 4, transport=flag)[0] == MiB(mib)


def test_rocm_keeps_cpu_at_0_5_17():
    assert mm_reservation(_vlm(), MI355X, 294_896, "0.5.17", None)[0] == MiB(0)


def test_the_plan_shows_the_pool_as_a_ledger_line_and_loses_the_tokens():
    kw = dict(engine_version="0.5.17", mem_fraction_static=0.92, context_length=169000, page_size=64,
              max_running_requests=4)
    ipc = plan_sglang(_vlm(), A100, ParallelSpec(), SglangOptions(**kw))
    cpu = plan_sglang(_vlm(), A100, ParallelSpec(), SglangOptions(**kw, mm_feature_transport="cpu"))
    assert ipc.kv_tokens < cpu.kv_tokens
    text = json.dumps(ipc.to_dict() if hasattr(ipc, "to_dict") else str(ipc), default=str)
    assert "SGLANG_MM_FEATURE_CACHE_MB" in text


def test_the_flag_is_checked_per_release():
    with pytest.raises(PlanInputError, match="exists from SGLang 0.5.16"):
        SglangOptions(engine_version="0.5.15", mm_feature_transport="cpu")
    with pytest.raises(PlanInputError, match="cuda_vmm exists from SGLang 0.5.18"):
        SglangOptions(engine_version="0.5.17", mm_feature_transport="cuda_vmm")
    with pytest.raises(PlanInputError, match="must be one of cpu, cuda_ipc, cuda_vmm"):
        SglangOptions(engine_version="0.5.17", mm_feature_transport="shm")
    SglangOptions(engine_version="0.5.16", mm_feature_transport="cuda_ipc")
    SglangOptions(engine_version="0.5.18", mm_feature_transport="cuda_vmm")


class _Ctx:
    engine = "sglang"

    def __init__(self, release, **values):
        self.rules_version, self._values = release, values

    def get(self, name, default=None):
        return self._values.get(name, default)


def test_from_log_takes_the_transport_only_where_the_release_has_it():
    assert ("mm_feature_transport", "mm_feature_transport", "cpu") in log_flag_values(
        _Ctx("0.5.17", mm_feature_transport="cpu"))
    assert not log_flag_values(_Ctx("0.5.15", mm_feature_transport="cpu"))
    assert not log_flag_values(_Ctx("0.5.17", mm_feature_transport="cuda_vmm"))
    assert not log_flag_values(_Ctx("0.5.8", mamba_ssm_dtype="float16"))
    assert log_flag_values(_Ctx("0.5.8", mamba_ssm_dtype="bfloat16"))
