"""vLLM V1's dummy sampler / pooler run has two callers, so its frame alone names no phase: ``profile_run`` before the
KV cache is sized (kv_pool) and ``compile_or_warm_up_model`` after the KV tensors exist (first_request).  A cut
traceback that keeps only that frame is placed by the rank's last start-up step (lead, 2026-12-06, session 19: vl_951,
bl19b's blind RTX 3060 log, was read as kv_pool)."""

from tpkit.logs import parse_log
from tpkit.logs.failures import dummy_run_phase, frame_phase

FRAME = "_dummy_sampler_run (gpu_model_runner.py)"


def test_the_frame_alone_places_nothing():
    assert frame_phase([FRAME]) is None


def test_after_the_kv_size_it_is_the_warm_up():
    for state in ("kv_done", "graph", "graph_done"):
        assert dummy_run_phase([FRAME], state)[0] == "first_request"


def test_before_the_kv_size_it_is_the_profile_run():
    for state in (None, "weights_done", "profile"):
        assert dummy_run_phase([FRAME], state)[0] == "kv_pool"
    assert dummy_run_phase(["_dummy_pooler_run (gpu_model_runner.py)"], None)[0] == "kv_pool"
    assert dummy_run_phase(["execute_model (gpu_model_runner.py)"], "kv_done") is None


def test_a_full_traceback_is_placed_by_its_caller():
    warm = ["compile_or_warm_up_model (gpu_worker.py)", FRAME]
    prof = ["determine_available_memory (gpu_worker.py)", "profile_run (gpu_model_runner.py)", FRAME]
    assert frame_phase(warm)[0] == "first_request"
    assert frame_phase(prof)[0] == "kv_pool"


def _log(before_kv: bool) -> bytes:
    lines = ["(EngineCore pid=1) INFO 04-03 17:36:33 [gpu_model_runner.py:4820] Model loading took 1.12 GiB memory "
             "and 2.4 seconds"]
    if not before_kv:
        lines += ["(EngineCore pid=1) INFO 04-03 17:36:41 [gpu_worker.py:436] Available KV cache memory: 8.03 GiB",
                  "(EngineCore pid=1) INFO 04-03 17:36:41 [kv_cache_utils.py:1319] GPU KV cache size: 75,152 tokens"]
    lines += ["(EngineCore pid=1) ERROR 04-03 17:36:41 [core.py:1108] EngineCore failed to start.",
              "(EngineCore pid=1) ERROR 04-03 17:36:41 [core.py:1108] Traceback (most recent call last):",
              '(EngineCore pid=1) ERROR 04-03 17:36:41 [core.py:1108]   File "/usr/lib/python3/vllm/v1/worker/'
              'gpu_model_runner.py", line 5596, in _dummy_sampler_run']
    return ("\n".join(lines) + "\n").encode()


def test_a_cut_traceback_after_the_header_takes_the_step_logged_before_it():
    after = parse_log(_log(before_kv=False)).failures
    before = parse_log(_log(before_kv=True)).failures
    assert [f.phase for f in after if f.severity == "error"] == ["first_request"]
    assert [f.phase for f in before if f.severity == "error"] == ["kv_pool"]
