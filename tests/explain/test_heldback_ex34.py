"""Reader rules from the held-back round ex34 (helper ex34, 2026-12-07, docs/accuracy.md §7.3).

12 public crash logs were explained before they joined the corpus; each rule below is a reader gap they showed,
tested on both sides (a text the rule must leave alone).  The texts are built here, so the tests hold before and
after the logs join the corpus."""

from __future__ import annotations

from tpkit.explain import explain_log
from tpkit.logs.reader import parse_log
from tpkit.logs.recovered import build_notices, join_wrapped_frames
from tpkit.logs.text import prepare

_W = "(Worker_TP5_EP5 pid=408) ERROR 11-25 08:05:06 [multiproc_executor.py:815] "


def _diag(text: str):
    return explain_log(text.encode()).diagnosis


# -- traceback frame lines hard-wrapped mid-path (vllm#29360) ------------------------------------------------------
_WRAPPED = [_W + '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker',
            '/gpu_worker.py", line 425, in compile_or_warm_up_model',
            _W + "    kernel_warmup(self)",
            _W + '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_exe',
            'cutor/warmup/kernel_warmup.py", line 37, in kernel_warmup',
            _W + "    deep_gemm_warmup(model, max_tokens)"]


def test_a_frame_line_wrapped_mid_path_is_joined_and_line_numbers_kept():
    text = "\n".join(_WRAPPED) + "\n"
    joined, notes = join_wrapped_frames(text)
    lines = joined.split("\n")
    assert len(lines) == len(text.split("\n"))  # the continuation line is left blank
    assert lines[0].endswith('vllm/v1/worker/gpu_worker.py", line 425, in compile_or_warm_up_model') and lines[1] == ""
    assert notes and notes[0].startswith("2 traceback frame line(s)")
    assert join_wrapped_frames(text.encode())[0] == joined.encode()  # the bytes path (``text.prepare``) agrees
    assert prepare(text.encode())[0] == prepare(text)[0] == joined


def test_a_cut_worker_traceback_with_wrapped_frames_is_a_failure_placed_by_its_frames():
    d = _diag("\n".join(_WRAPPED) + "\n")
    assert (d.status, d.phase) == ("failed", "first_request")  # kernel_warmup: compile_or_warm_up_model's warm-up


def test_lines_that_are_not_the_rest_of_a_path_are_not_joined():
    other = ['  File "/x/vllm/worker.py", line 3, in f', "    f()"]  # complete frame lines
    quoted = [_W + '  File "/x/vllm/v1/worker', 'say "hi", line 4, in g']  # a quote before '", line': another text
    opens = [_W + '  File "/x/vllm/v1/worker', '  File "/y.py", line 4, in g']  # the next line opens its own frame
    for lines in (other, quoted, opens):
        text = "\n".join(lines) + "\n"
        assert join_wrapped_frames(text) == (text, ())


# -- V0 0.5.x: the worker method header on the traceback's own line (axolotl#1971) --------------------------------
_V0 = "(VllmWorkerProcess pid=624293) ERROR 10-15 14:51:47 multiproc_worker_utils.py:226] "
_OOM = ("CUDA out of memory. Tried to allocate 32.00 MiB. GPU  has a total capacity of 23.68 GiB of which 29.81 MiB "
        "is free.")
_V0_FRAMES = [_V0 + '  File "/x/vllm/executor/multiproc_worker_utils.py", line 223, in _run_worker_process',
              _V0 + "    output = executor(*args, **kwargs)"]


def test_the_worker_method_on_the_tracebacks_own_line_places_it():
    """0.5.5's ``logger.error("Exception in worker %s while processing method %s: %s, %s", …, e, tb)``."""
    header = _V0 + f"Exception in worker VllmWorkerProcess while processing method load_model: {_OOM}, Traceback " \
                   "(most recent call last):"
    d = _diag("\n".join([header, *_V0_FRAMES]) + "\n")
    assert (d.phase, d.cause.startswith("out of memory while loading the weights")) == ("weights", True)
    header = header.replace("load_model", "determine_num_available_blocks")
    assert _diag("\n".join([header, *_V0_FRAMES]) + "\n").phase == "kv_pool"


def test_the_worker_method_far_above_a_traceback_places_nothing():
    header = _V0 + "Exception in worker VllmWorkerProcess while processing method load_model."
    filler = [_V0 + "some other line"] * 3
    text = "\n".join([header, *filler, _V0 + "Traceback (most recent call last):", *_V0_FRAMES, _V0 + _OOM]) + "\n"
    assert _diag(text).phase != "weights"


# -- a native linker's error above a cut start failure (QwenLM/Qwen3-VL#1267) ----------------------------------------
_CORE = "ERROR 06-06 15:54:47 [core.py:500] "
_START = [_CORE + "EngineCore failed to start.", _CORE + "Traceback (most recent call last):",
          _CORE + '  File "/x/vllm/v1/engine/core.py", line 491, in run_engine_core',
          _CORE + "    engine_core = EngineCoreProc(*args, **kwargs)"]
_LD = ["/usr/bin/ld: cannot find -lcuda", "collect2: error: ld returned 1 exit status"]


def test_a_linker_error_above_a_cut_start_failure_is_named():
    cause = _diag("\n".join([*_LD, *_START]) + "\n").cause
    assert "its traceback is cut before the exception line; the native build's error before it: /usr/bin/ld: " \
           "cannot find -lcuda" in cause


def test_a_linker_line_alone_or_before_a_complete_traceback_is_not_the_failure():
    assert [n[:2] for n in build_notices(_LD[1])] == [("exception", "warning")]
    assert build_notices("the ld: linker is fine") == [] and build_notices("collect2 is fine") == []
    alone = parse_log(("\n".join(["INFO 06-06 15:54:38 [gpu_model_runner.py:1549] Model loading took 15.6 GiB",
                                  *_LD]) + "\n").encode())
    assert not [f for f in alone.failures if f.severity == "error"]
    whole = _diag("\n".join([*_LD, *_START, _CORE + "RuntimeError: Failed to find C compiler"]) + "\n").cause
    assert "native build" not in whole and "is cut" not in whole  # the traceback ends in its own exception line


# -- an exception re-logged by logger.exception(e) above a cut traceback (ai-dynamo/dynamo#1229) --------------------
_ERR = "RuntimeError: CUDA error: peer access is not supported between these two devices"
_HINT = "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might " \
        "be incorrect."
_RELOG = [_ERR, _HINT, "2025-05-28T03:35:37.857Z ERROR engine.run_mp_engine: CUDA error: peer access is not "
          "supported between these two devices", _HINT, "Traceback (most recent call last):",
          '  File "/w/vllm-0.8.4/vllm/engine/multiprocessing/engine.py", line 586, in run_mp_engine',
          "    engine = MQLLMEngine.from_vllm_config("]


def test_an_exception_relogged_above_a_cut_traceback_names_it():
    d = _diag("\n".join(_RELOG) + "\n")
    assert d.cause == f"exception: {_ERR}"


def test_a_cut_traceback_whose_record_does_not_repeat_the_exception_stays_cut():
    other = [*_RELOG[:2], "2025-05-28T03:35:37.857Z ERROR engine.run_mp_engine: engine died", *_RELOG[3:]]
    assert _diag("\n".join(other) + "\n").cause == "exception: traceback cut before its exception line"
    far = [_RELOG[0], *(["INFO 05-28 03:35:30 [x.py:1] step"] * 13), *_RELOG[2:]]
    assert _diag("\n".join(far) + "\n").cause == "exception: traceback cut before its exception line"
