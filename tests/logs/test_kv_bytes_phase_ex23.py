"""Start-up markers the ex23 held-back round found missing (helper ex23, 2026-12-06).

vLLM V1 with ``--kv-cache-memory-bytes`` skips the memory profile: ``Worker.determine_available_memory``
(v1/worker/gpu_worker.py, 0.26.0 wheel) runs ``profile_run`` and logs "Initial free memory X GiB, reserved Y GiB
memory for KV Cache as specified by kv_cache_memory_bytes config …" where it would log 'Available KV cache memory',
then returns that budget to ``_initialize_kv_caches``.  A failure after the line is in the KV sizing (kv_pool).
vl_957 (vllm#49878, a 0.26 Gemma 4 start whose EngineCore fails right after it) was read 'other' blind.  The same
release reworded 'torch.compile takes … in total' to 'torch.compile took … in total' (vllm/compilation/monitor.py,
0.26.0): both close the weights step."""

from pathlib import Path

from tpkit.logs import failures as fl
from tpkit.logs.reader import parse_log

DATA = Path(__file__).resolve().parent / "data"

RESERVED = ("(EngineCore pid=83) INFO 07-26 12:29:34 [gpu_worker.py:479] Initial free memory 93.88 GiB, reserved "
            "49.0 GiB memory for KV Cache as specified by kv_cache_memory_bytes config and skipped memory profiling.")


def test_the_kv_cache_memory_bytes_line_marks_the_kv_step():
    assert fl.marker(RESERVED) == "kv_done"
    assert fl.marker("(EngineCore pid=83) INFO 07-26 12:29:33 [monitor.py:53] torch.compile took 0.45 s in total") \
        == "weights_done"
    # the older wording and the V0 reservation line keep their steps
    assert fl.marker("INFO 03-01 [monitor.py:34] torch.compile takes 48.42 s in total") == "weights_done"
    assert fl.marker("the rest of the memory reserved for KV Cache is 3.76GiB.") == "kv_done"


def test_vl_957_fails_in_the_kv_pool_phase():
    failure = parse_log((DATA / "vllm/vl_957.log").read_bytes()).primary_failure
    assert failure is not None and failure.phase == "kv_pool", failure


def test_a_failure_before_the_line_keeps_its_phase():
    text = "\n".join(["(EngineCore pid=83) INFO 07-26 12:29:10 [gpu_model_runner.py:4879] Starting to load model m...",
                      "(EngineCore pid=83) ERROR 07-26 12:29:35 [core.py:1330] EngineCore failed to start."])
    failure = parse_log(text.encode()).primary_failure
    assert failure is not None and failure.phase != "kv_pool", failure
