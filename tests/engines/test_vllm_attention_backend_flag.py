"""``--attention-backend`` end to end (helper rev10, 2026-12-05): vLLM reads the value in any case
(``config/attention.py AttentionConfig.validate_backend_before``: ``AttentionBackendEnum[value.upper()]``, "auto" in any
case is the automatic choice; vLLM 0.29.0, 0.33.0), refuses a backend whose MLA-ness differs from the model's
(``v1/attention/backend.py AttentionBackend.validate_configuration``: "MLA not supported" / "non-MLA not supported",
raised by ``platforms/cuda.py get_attn_backend_cls`` as "Selected backend ... is not valid"), and ``TORCH_SDPA`` is a
ViT-only tag with no decoder class (``v1/attention/backends/registry.py``, 0.20.0–0.33.0).  The plan's JSON names the
backend it planned with."""

import json
from pathlib import Path

import pytest

from tpkit.cli import main
from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.errors import PlanInputError
from tpkit.parallel import ParallelSpec
from tpkit.units import Bytes

from vllm_fixtures import H200, GivenWeights, llama3_8b

W = GivenWeights(Bytes(8_030_261_248 * 2))


def _plan(**kw):
    return plan_vllm(llama3_8b(), H200, ParallelSpec(), VllmOptions(engine_version="0.21.0", **kw), weights=W)


@pytest.mark.parametrize("given", ["flashinfer", "FlashInfer", "FLASHINFER"])
def test_any_case_is_the_same_backend(given, capsys):
    assert main(["plan", "meta-llama/Llama-3.1-8B-Instruct", "--engine", "vllm", "--gpu", "H200",
                 "--engine-version", "0.21.0", "--attention-backend", given, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["vllm"]["attention_backend"] == "FLASHINFER"
    graphs = [line for line in doc["ledger"] if line["item"] == "CUDA graphs (estimate)"]
    assert "FLASHINFER" in graphs[0]["source"] and "394 MiB" in graphs[0]["source"]


def test_auto_in_any_case_and_the_api_take_lower_case():
    assert _plan(attention_backend="AUTO").extra["vllm"]["attention_backend"] == "FLASH_ATTN"  # H200: FA
    assert _plan(attention_backend="triton_attn").extra["vllm"]["attention_backend"] == "TRITON_ATTN"


def test_json_names_the_automatic_choice():
    assert _plan().extra["vllm"]["attention_backend"] == "FLASH_ATTN"


@pytest.mark.parametrize("backend", ["FLASHMLA", "TRITON_MLA", "CUTLASS_MLA"])
def test_mla_backend_for_a_model_without_mla_is_refused(backend):
    with pytest.raises(PlanInputError, match=f"--attention-backend {backend} is an MLA backend.*Llama"):
        _plan(attention_backend=backend)


def test_non_mla_backend_for_an_mla_model_is_refused(capsys):
    assert main(["plan", "deepseek-ai/DeepSeek-V3", "--engine", "vllm", "--gpu", "H200", "--tp", "8",
                 "--attention-backend", "FLASH_ATTN"]) == 2
    err = capsys.readouterr().err
    assert "MLA" in err and "FLASH_ATTN" in err and "Traceback" not in err


def test_torch_sdpa_is_refused_for_the_decoder():
    with pytest.raises(PlanInputError, match="TORCH_SDPA.*vision"):
        _plan(attention_backend="TORCH_SDPA")


def test_wrong_case_hint_names_the_engines_spelling():
    from tpkit.cli import _plainer

    upper = _plainer("argument --x: invalid choice: 'foo' (choose from 'FOO', 'BAR')")
    assert "did you mean 'FOO'?" in upper and "upper case" in upper and "lower case" not in upper
    lower = _plainer("argument --x: invalid choice: 'Foo' (choose from 'foo', 'bar')")
    assert "lower case" in lower


def _graph_line(argv, capsys):
    assert main(["plan", "--from-log", str(Path(__file__).resolve().parents[1] / "logs" / "data" / "vllm" / "vl_104.log"), "--gpu", "H200", "--json", *argv]) in (0, 3)
    doc = json.loads(capsys.readouterr().out)
    line = next(x for x in doc["ledger"] if x["item"] == "CUDA graphs (estimate)")
    return line, " ".join(doc["warnings"])


def test_from_log_keeps_the_measured_estimate_and_says_where_it_is_from(capsys):
    line, _ = _graph_line([], capsys)  # vl_104: vLLM 0.20.2 Gemma 4 on an H200, TRITON_ATTN, prints 0.88 GiB
    assert line["bytes"] == 944_892_805
    assert "vl_104.log" in line["source"] and "mechanism_estimate" not in line["source"]


def test_from_log_with_another_backend_estimates_the_graphs_again(capsys):
    line, warnings = _graph_line(["--attention-backend", "flashinfer"], capsys)
    assert line["bytes"] != 944_892_805 and "FLASHINFER" in line["source"]
    assert "CUDA-graph estimate not taken from the log" in warnings and "--attention-backend FLASHINFER" in warnings


@pytest.mark.parametrize("given", ["flashinfer", "FLASHINFER"])
def test_perf_takes_the_vllm_backend_in_any_case(given, capsys):
    assert main(["perf", "meta-llama/Llama-3.1-8B-Instruct", "--engine", "vllm", "--gpu", "H100",
                 "--attention-backend", given]) == 0
    assert "attention FLASHINFER" in capsys.readouterr().out


def test_amd_gpu_gets_vllm_rocm_choice_and_takes_rocm_names(capsys):
    """vLLM's ROCm platform (``platforms/rocm.py _get_backend_priorities``, 0.20.0, 0.29.0, 0.33.0): ROCM_ATTN first
    (head sizes up to 256), TRITON_ATTN after it; neither has FlashInfer's workspace."""
    from tpkit.engines.vllm.backend_choice import auto_attention_backend

    assert auto_attention_backend(compute_capability=None, head_dim=128, kv_quantized=False, mla=False,
                                  rocm=True) == "ROCM_ATTN"
    assert auto_attention_backend(compute_capability=None, head_dim=512, kv_quantized=False, mla=False,
                                  rocm=True) == "TRITON_ATTN"
    for given, named in ((None, "ROCM_ATTN"), ("rocm_aiter_fa", "ROCM_AITER_FA")):
        argv = ["plan", "meta-llama/Llama-3.1-8B-Instruct", "--engine", "vllm", "--gpu", "MI300X", "--json"]
        assert main(argv + (["--attention-backend", given] if given else [])) == 0
        assert json.loads(capsys.readouterr().out)["vllm"]["attention_backend"] == named
