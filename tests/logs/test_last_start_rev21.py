"""``last_start`` on logs that hold one start but repeat a start marker (helper rev21, session 21).

Before the fix both texts below read as two starts: the lines of the first part were blanked (the API server's
version and flags, or the first core's lines) and a note claimed a restart."""
from tpkit.logs.text import last_start

API = ("(APIServer pid=1) INFO 06-18 09:16:00 [api_server.py:1] vLLM API server version 0.22.1\n"
       "(APIServer pid=1) INFO 06-18 09:16:00 [utils.py:1] non-default args: {'data_parallel_size': 2, "
       "'data_parallel_backend': 'ray'}\n")


def _ray_core(pid: int) -> str:
    return (f"(DPEngineCoreActor pid={pid}, ip=10.0.0.{pid}) INFO 06-18 09:16:27 [core.py:112] Initializing a V1 LLM "
            "engine (v0.22.1) with config\n")


def test_ray_data_parallel_cores_share_one_name_and_are_one_start():
    """Ray prefixes every DP rank's core with the same actor name (vLLM V1 DPEngineCoreActor)."""
    one = API + _ray_core(7) + _ray_core(8)
    assert last_start(one) == (one, ())
    text, notes = last_start(one + one)
    assert len(notes) == 1 and "2 engine starts" in notes[0] and text.startswith("\n" * 4 + "(APIServer")


def test_an_offline_llm_run_twice_is_still_two_starts():
    core = "INFO 06-18 09:16:27 [core.py:112] Initializing a V1 LLM engine (v0.22.1) with config\n"
    text, notes = last_start(core + "INFO x [gpu_worker.py:1] Available KV cache memory: 10.0 GiB\n" + core)
    assert len(notes) == 1 and text.startswith("\n\nINFO")


DUMP = "[2026-01-01 00:00:00] server_args=ServerArgs(model_path='m', tp_size=2)\n"
SCHEDULER = "[2026-01-01 00:00:05 TP0] Load weight end. type=LlamaForCausalLM\n"


def test_sgl_engine_logs_its_dump_twice_in_one_launch():
    """sglang 0.5.23 ``Engine.__init__`` and ``Engine._launch_subprocesses`` each log ``server_args=``."""
    one = DUMP + "[2026-01-01 00:00:00] publish\n" + DUMP + SCHEDULER
    assert last_start(one) == (one, ())


def test_an_sglang_restart_with_the_same_args_is_still_two_starts():
    tb = "Traceback (most recent call last):\nRuntimeError: boom\n"
    for first in (DUMP + SCHEDULER, DUMP + tb):
        text, notes = last_start(first + DUMP + SCHEDULER)
        assert len(notes) == 1 and text.endswith(DUMP + SCHEDULER) and text.strip() == (DUMP + SCHEDULER).strip()
    text, notes = last_start(DUMP + DUMP.replace("tp_size=2", "tp_size=4") + SCHEDULER)
    assert len(notes) == 1 and "tp_size=4" in text and "tp_size=2" not in text

