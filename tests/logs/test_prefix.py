"""Record headers and the ranks they name, from real log lines (tests/logs/data)."""

import pytest

from tpkit.logs.prefix import split_records


@pytest.mark.parametrize("line, label, role", [
    ("[2025-03-06 06:14:53 TP2] Init torch distributed ends. mem usage=0.13 GB", "TP2", "worker"),
    ("[2025-12-28 10:40:09 DP1 TP5 EP5] Memory pool end. avail mem=12.45 GB", "DP1 TP5 EP5", "worker"),
    ("[23:17:01 TP7] Memory pool end. avail mem=18.66 GB", "TP7", "worker"),
    ("[2025-01-23 19:34:55] server_args=ServerArgs(model_path='x')", "main", "main"),
    ("(VllmWorker rank=3 pid=5432) INFO 04-25 10:23:30 [gpu_worker.py:1] Model loading took 1 GiB", "VllmWorker rank=3",
     "worker"),
    ("(Worker_TP3_EP3 pid=2081) INFO 09-24 20:53:41 [gpu_worker.py:298] Available KV cache memory: 10.65 GiB",
     "Worker_TP3_EP3", "worker"),
    ("(EngineCore_DP0 pid=1944) INFO 09-24 20:53:41 [kv_cache_utils.py:864] GPU KV cache size: 238,208 tokens",
     "EngineCore_DP0", "engine"),
    ("(APIServer pid=1) INFO 06-01 09:20:16 [utils.py:278] non-default args: {}", "main", "main"),
    ("(RayWorkerWrapper pid=1463574, ip=192.168.10.60) INFO 03-27 10:29:01 [worker.py:267] Memory profiling takes",
     "RayWorkerWrapper pid=1463574", "worker"),
    ("(VllmWorkerProcess pid=90) INFO 12-20 20:25:49 model_runner.py:1413] Capturing cudagraphs", "VllmWorkerProcess pid=90",
     "worker"),
    ("VllmWorker rank=4 pid=5432) INFO 04-25 10:23:30 [monitor.py:33] torch.compile takes 15.78 s", "VllmWorker rank=4",
     "worker"),
    ("(EngineCore pid=86) level=INFO name=vllm.v1.worker.gpu_worker msg=\"Available KV cache memory: 5.38 GiB\"",
     "EngineCore", "engine"),
    ("[2026-02-24T20:21:58Z] (EngineCore_DP0 pid=6940)   File \"/x/worker.py\", line 958, in get_objects",
     "EngineCore_DP0", "engine"),
    ("    vLLM STDOUT: INFO 05-05 15:15:24 [api_server.py:241] Started engine process", "main", "main"),
])
def test_header_names_the_rank(line, label, role):
    records = [r for r in split_records(line) if r.rank is not None]
    assert records and records[0].rank.label == label and records[0].rank.role == role


def test_nested_prefixes_take_the_innermost_worker():
    line = ("(EngineCore_DP0 pid=749) (RayWorkerWrapper pid=347, ip=172.16.17.12) ERROR 01-07 00:15:31 "
            "[worker_base.py:344] Error executing method 'initialize_from_config'.")
    (record,) = split_records(line)
    assert record.rank.label == "RayWorkerWrapper pid=347" and record.rank.host == "172.16.17.12"
    assert record.level == "ERROR" and record.message.strip().startswith("Error executing")


def test_glued_records_are_split():
    # vl_029: a paste that lost its newlines
    line = ("INFO 08-29 13:08:31 [punica_selector.py:18] Using PunicaWrapperGPU. INFO 08-29 13:08:32 "
            "[model_runner.py:1140] Model loading took 0.5153 GiB and 6.204724 seconds INFO 08-29 13:08:35 "
            "[worker.py:287] Memory profiling takes 2.72 seconds")
    messages = [r.message.strip() for r in split_records(line)]
    assert messages == ["Using PunicaWrapperGPU.", "Model loading took 0.5153 GiB and 6.204724 seconds",
                        "Memory profiling takes 2.72 seconds"]


def test_headerless_line_is_a_continuation():
    (record,) = split_records("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB.")
    assert record.rank is None


def test_rank_index_with_pipeline_stages():
    (record,) = split_records("[2025-01-01 00:00:00 PP1 TP2] Load weight begin. avail mem=1.00 GB")
    assert record.rank.index(tp_size=4) == 6 and record.rank.index() == 2
