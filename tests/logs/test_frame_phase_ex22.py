"""Traceback frames that place an OOM (helper ex22, held-back round, 2026-12-06): a layer's ``create_weights`` is the
model being built inside ``load_model`` (weights), and SGLang <= 0.2's serving loop (``exposed_step`` ->
``forward_step`` -> ``forward_prefill_batch`` / ``forward_decode_batch``) is requests being served (first_request).
Before, both fell through to the last start-up step ('other'): sg_512, sg_517 and sg_518, read blind.  sg_511 (SGLang
0.1's rpyc re-raise of the worker's OOM, the remote traceback naming load_model below it) was read 'other' because a
later traceback of the same rank replaced the remote one before ``Scan.finish`` looked: every traceback is kept now."""

from pathlib import Path

from tpkit.logs import failures as fl
from tpkit.logs.reader import parse_log

DATA = Path(__file__).resolve().parent / "data"


def test_create_weights_frame_is_the_weights_phase():
    frames = ["__init__ (llama2.py)", "__init__ (linear.py)", "create_weights (linear.py)",
              "__torch_function__ (_device.py)"]
    assert fl.frame_phase(frames)[0] == "weights"


def test_old_sglang_serving_loop_is_first_request():
    frames = ["exposed_step (tp_worker.py)", "forward_step (tp_worker.py)", "forward_decode_batch (tp_worker.py)",
              "forward (model_runner.py)", "forward_decode (model_runner.py)", "forward (logits_processor.py)"]
    assert fl.frame_phase(frames)[0] == "first_request"
    assert fl.frame_phase(["forward_prefill_batch (tp_worker.py)", "forward_extend (model_runner.py)"])[0] == \
        "first_request"


def test_the_held_back_logs_get_their_phase():
    want = {"sglang/sg_511.log": "weights", "sglang/sg_512.log": "weights", "sglang/sg_517.log": "first_request",
            "sglang/sg_518.log": "first_request", "vllm/vl_995.log": "weights"}
    for name, phase in want.items():
        failure = parse_log((DATA / name).read_bytes()).primary_failure
        assert failure.kind == "cuda_oom" and failure.phase == phase, (name, failure)
