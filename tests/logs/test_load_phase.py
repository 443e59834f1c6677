"""vLLM's weight-load OOM message places the failure at the weights (``failures.load_phase``).

vLLM V1 ``GPUModelRunner.load_model`` (v1/worker/gpu_model_runner.py, from 0.13.0; read in 0.13.0-0.19.0 wheels)
catches the OOM of the model loader, logs "Failed to load model - not enough GPU memory. ... (original error: …)"
and re-raises.  A pasted error line alone (vl_784) or one wrapped over several lines (vl_785) has no start-up step
or traceback to place it; the message does, and only vLLM prints it (not in SGLang 0.5.11 / 0.5.13.post1 /
0.5.23), so it also names the engine.
"""

from logs_testlib import log_bytes

from tpkit.logs import parse_log

LINE = ("(EngineCore pid=7) ERROR 04-07 15:58:28 [gpu_model_runner.py:4818] Failed to load model - not enough GPU "
        "memory. Try lowering --gpu-memory-utilization to free memory for weights, increasing --tensor-parallel-size, "
        "or using --quantization. (original error: CUDA out of memory. Tried to allocate 112.00 MiB. GPU 0 has a total "
        "capacity of 31.36 GiB of which 53.06 MiB is free.)\n")
WRAPPED = ("ERROR [gpu_model_runner.py:5403] Failed to load model - not enough GPU memory.\n"
           "Try lowering --gpu-memory-utilization to free memory for weights, increasing\n"
           "--tensor-parallel-size, or using --quantization.\n"
           "(original error: CUDA out of memory. Tried to allocate 768.00 MiB. GPU 0 has a\n"
           "total capacity of 95.01 GiB of which 438.31 MiB is free.)\n")


def test_the_load_message_is_the_weights_phase():
    failure = parse_log(LINE.encode()).primary_failure
    assert failure.kind == "cuda_oom" and failure.phase == "weights"
    assert "load_model" in failure.phase_evidence
    assert failure.size("requested").text == "112.00 MiB" and failure.size("free").text == "53.06 MiB"


def test_a_wrapped_load_message_keeps_its_numbers_and_names_vllm():
    parsed = parse_log(WRAPPED.encode())
    failure = parsed.primary_failure
    assert failure.line_no == 1 and failure.phase == "weights"
    assert failure.size("requested").text == "768.00 MiB" and failure.size("free").text == "438.31 MiB"
    assert parsed.engine.engine == "vllm"


def test_a_bare_oom_without_the_message_still_has_no_step():
    bare = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 768.00 MiB.\n"
    failure = parse_log(bare.encode()).primary_failure
    assert failure.phase == "other"   # nothing places it: the rule is the message, not the OOM


def test_the_corpus_logs():
    for case_id in ("vl_784", "vl_785"):
        assert parse_log(log_bytes(case_id)).primary_failure.phase == "weights", case_id
