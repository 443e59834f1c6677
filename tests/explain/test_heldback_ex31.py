"""Reader rules from the held-back round ex31 (helper ex31, 2026-12-07, docs/accuracy.md §7.3).

14 public crash logs were explained before they joined the corpus; each rule below is one of the gaps they showed,
tested on both sides (a text the rule must leave alone)."""

from __future__ import annotations

import pytest
from explain_testlib import log_bytes

from tpkit.explain import explain_log
from tpkit.logs.failures import detect
from tpkit.logs.phases import frame_phase

_W = "(VllmWorkerProcess pid=236) ERROR 08-23 08:25:25 multiproc_worker_utils.py:226] "


# --- the NCCL result string ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("line,detail", [
    # vLLM's NCCL_CHECK: RuntimeError(f"NCCL error: {error_str}") (pynccl_wrapper.py, 0.11.0 wheel)
    ("RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)",
     "NCCL error: unhandled system error"),
    ("RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
     "NCCL error: unhandled cuda error"),
    ("RuntimeError: NCCL error: internal error - please report this issue to the NCCL developers",
     "NCCL error: internal error"),
    ("RuntimeError: NCCL error: remote process exited or there was a network error",
     "NCCL error: remote process exited or there was a network error"),
    # torch's C10D_NCCL_CHECK: 'NCCL error in: FILE:LINE, ' + ncclGetErrorWithVersion (NCCLUtils.hpp)
    ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
     "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5",
     "NCCL error: unhandled cuda error"),
    # nothing after the words: the words alone, as before
    ("RuntimeError: NCCL error", "NCCL error"),
])
def test_the_nccl_result_string_is_read(line, detail):
    found = [f for f in detect(line, "") if f[0] == "nccl_error"]
    assert found and found[0][4] == detail


def test_the_raise_statement_quoted_in_a_traceback_is_not_the_error():
    """'raise RuntimeError(f"NCCL error: {error_str}")' is the source line above the exception line (vl_1371)."""
    assert not [f for f in detect('    raise RuntimeError(f"NCCL error: {error_str}")', "")
                if f[0] == "nccl_error"]
    text = (_W + '  File "/x/vllm/distributed/device_communicators/pynccl_wrapper.py", line 223, in NCCL_CHECK\n'
            + _W + '    raise RuntimeError(f"NCCL error: {error_str}")\n'
            + _W + "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)\n")
    assert "unhandled system error" in explain_log(text.encode()).diagnosis.cause


@pytest.mark.parametrize("cid,words", [("vl_1371", "unhandled system error"), ("vl_1372", "unhandled system error"),
                                       ("vl_1375", "unhandled cuda error")])
def test_the_held_back_nccl_logs_name_their_result(cid, words):
    d = explain_log(log_bytes(cid)).diagnosis
    assert d.phase == "other" and words in d.cause


# --- a model class's constructor --------------------------------------------------------------------------------
_TP3 = "(Worker_TP3_EP3 pid=35672) ERROR 09-25 10:53:36 [multiproc_executor.py:585] "


def _cut(path: str, func: str = "__init__") -> bytes:
    return (_TP3 + "WorkerProc failed to start.\n" + _TP3 + "Traceback (most recent call last):\n"
            + _TP3 + f'  File "{path}", line 792, in {func}\n'
            + _TP3 + "    super().__init__(vllm_config=vllm_config, prefix=prefix)\n"
            + _TP3 + '  File "/usr/lib/python3.12/dist-packages/torch/nn/modules/module.py", line 1, in __setattr__\n'
            ).encode()


@pytest.mark.parametrize("path", ["/usr/local/lib/python3.12/dist-packages/vllm/model_executor/models/transformers.py",
                                  "/sgl-workspace/sglang/python/sglang/srt/models/llama.py"])
def test_a_model_class_init_frame_is_the_weight_load(path):
    """vLLM's initialize_model / SGLang's _initialize_model build the model (model_loader/utils.py 0.11.0,
    srt/model_loader/loader.py 0.5.9): an __init__ in a model's own module is that construction (vl_1379)."""
    assert explain_log(_cut(path)).diagnosis.phase == "weights"


@pytest.mark.parametrize("path,func", [
    ("/x/vllm/model_executor/models/transformers.py", "forward"),           # the model running, not being built
    ("/x/vllm/model_executor/layers/quantization/fp8.py", "__init__"),       # not a model's own module (config time)
    ("/x/vllm/model_executor/models/utils/helpers.py", "__init__"),         # a sub-package, not a model module
    ("/x/vllm/v1/worker/gpu_model_runner.py", "__init__"),
])
def test_other_init_frames_are_left_alone(path, func):
    assert explain_log(_cut(path, func)).diagnosis.phase != "weights"


def test_any_placing_frame_wins_over_a_model_constructor():
    frames = ["capture_model (gpu_model_runner.py)", "__init__ (llama.py: a model class's constructor)"]
    assert frame_phase(frames)[0] == "cuda_graph"
    frames = ["execute_model (gpu_worker.py)", "__init__ (llama.py: a model class's constructor)"]
    assert frame_phase(frames)[0] == "first_request"
    assert frame_phase(["__init__ (llama.py: a model class's constructor)"])[0] == "weights"


def test_the_held_back_model_constructor_log_is_the_weight_load():
    d = explain_log(log_bytes("vl_1379")).diagnosis
    assert d.phase == "weights"
