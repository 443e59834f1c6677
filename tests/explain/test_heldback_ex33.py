"""Reader rules from the held-back round ex33 (helper ex33, 2026-12-07, docs/accuracy.md §7.3).

14 public crash logs were explained before they joined the corpus; the rule below is the reader gap they showed,
tested on both sides (a text the rule must leave alone).  The texts are built here, so the tests hold before and
after the logs join the corpus."""

from __future__ import annotations

from tpkit.explain import explain_log
from tpkit.logs.failures import TB_FIRST, detect
from tpkit.logs.reader import parse_log

_SG = "[2025-02-24 14:09:34 TP14] "
_NCCL_WARN = ("node5:240:240 [6] misc/socket.cc:533 NCCL WARN socketPollConnect: Connect to 10.0.0.4<56849> returned "
              "113(No route to host) errno 115(Operation now in progress)")
_FRAMES = ['  File "/x/sglang/srt/managers/scheduler.py", line 1816, in run_scheduler_process',
           "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)",
           '  File "/x/sglang/srt/model_executor/model_runner.py", line 187, in __init__',
           "    min_per_gpu_memory = self.init_torch_distributed()"]


def _sglang_header(*, above: list[str] = (), tail: list[str] = ()) -> str:
    """SGLang's ``f"Scheduler hit an exception: {traceback}"`` record: the header line ends in the traceback's first
    line, the frames follow (managers/scheduler.py run_scheduler_process, 0.4.3.post2 and 0.5.9 wheels)."""
    return "\n".join([*above, _SG + f"Scheduler hit an exception: {TB_FIRST}", *_FRAMES, *tail]) + "\n"


def _cause(text: str) -> str:
    return explain_log(text.encode()).diagnosis.cause


def test_the_header_detail_is_not_the_first_line_of_the_traceback_it_quotes():
    found = detect(_SG + f"Scheduler hit an exception: {TB_FIRST}", "")
    assert [(k, d) for k, _, _, _, d in found] == [("engine_start_failed", "Scheduler hit an exception")]
    found = detect("ERROR 03-18 10:25:43 [core.py:337] EngineCore failed to start.", "")
    assert found[0][4] == "EngineCore failed to start."  # a header with nothing after it is kept whole


def test_a_header_whose_own_traceback_is_cut_says_so():
    cause = _cause(_sglang_header())
    assert "Scheduler hit an exception: its traceback is cut before the exception line" in cause
    assert TB_FIRST not in cause


def test_a_header_whose_traceback_ends_in_its_exception_is_explained_by_that_exception():
    cause = _cause(_sglang_header(tail=["RuntimeError: NCCL error: unhandled system error"]))
    assert "unhandled system error" in cause and "is cut" not in cause


def test_nccls_warning_before_a_cut_start_failure_is_named():
    """NCCL's ``ncclDebugLog`` WARN record ('host:pid:tid [dev] file:line NCCL WARN …', src/debug.cc) above the
    header: the only cause the log prints (sglang#3820)."""
    text = _sglang_header(above=[_NCCL_WARN, "node5:240:240 [6] NCCL INFO misc/socket.cc:570 -> 2"])
    assert "NCCL's last warning before it: NCCL WARN socketPollConnect: Connect to 10.0.0.4<56849> returned " \
           "113(No route to host)" in _cause(text)


def test_an_nccl_warning_far_above_or_with_a_complete_traceback_is_not_attached():
    far = _sglang_header(above=[_NCCL_WARN, *(["[2025-02-24 14:09:30 TP14] Load weight begin. avail mem=70 GB"]
                                             * 130)])
    assert "NCCL" not in _cause(far)
    closed = _sglang_header(above=[_NCCL_WARN], tail=["ValueError: something else"])
    assert "NCCL's last warning" not in _cause(closed) and "is cut" not in _cause(closed)


def test_an_nccl_warning_alone_stays_a_warning():
    """A WARN line in a start-up that goes on is no failure: the run's status is not changed by it."""
    text = _NCCL_WARN + "\n" + _SG + "Load weight begin. avail mem=70.00 GB\n"
    parsed = parse_log(text.encode())
    assert parsed.primary_failure is None
    assert [f.detail[:34] for f in parsed.failures] == ["NCCL WARN socketPollConnect: Conne"]


def test_a_vllm_start_failure_cut_in_the_weight_load_keeps_the_unnamed_reading():
    """vLLM's "EngineCore failed to start." header, then its traceback cut in ``load_model``: the phase and the
    "does not print the error" reading hold; the detail drops the header's full stop."""
    ec = "(EngineCore_DP0 pid=1) ERROR 06-06 03:37:20 [core.py:500] "
    text = "\n".join([ec + "EngineCore failed to start.", ec + TB_FIRST,
                      ec + '  File "/x/vllm/v1/engine/core.py", line 1, in run_engine_core',
                      ec + '  File "/x/vllm/v1/worker/gpu_model_runner.py", line 1, in load_model',
                      ec + "    self.model = model_loader.load_model("]) + "\n"
    d = explain_log(text.encode()).diagnosis
    assert d.phase == "weights" and "does not print the error" in d.cause
    assert "EngineCore failed to start: its traceback is cut" in d.cause
