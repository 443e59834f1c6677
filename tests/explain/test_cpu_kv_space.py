"""vLLM's CPU backend refusing the KV space set explicitly (``v1/worker/cpu_worker.py``
``CPUWorker.determine_available_memory``, vLLM 0.27.1-0.30.0): read as its own kind, phase kv_pool, and fixed with a KV
space the NUMA node holds, not with GPU flags.  Helper blind12 (2026-12-05): vl_848 was read blind as 'no memory left
for the KV cache after the weights' with --tensor-parallel-size 2 / --quantization fp8."""

from explain_testlib import log_bytes

from tpkit.explain import explain_log
from tpkit.logs import parse_log


def test_the_cpu_kv_space_error_is_read_with_its_numbers():
    f = parse_log(log_bytes("vl_848")).primary_failure
    assert f.kind == "cpu_kv_space" and f.phase == "kv_pool"
    assert round(f.size("free").value.bytes / 2**30, 2) == 2.5
    assert round(f.size("requested").value.bytes / 2**30, 2) == 12.0


def test_the_fix_is_a_kv_space_the_node_holds_and_no_gpu_flag():
    e = explain_log(log_bytes("vl_848"))
    assert e.context.engine == "vllm" and e.diagnosis.phase == "kv_pool"
    flags = [f.flags for f in e.diagnosis.fixes]
    assert flags[0].startswith("VLLM_CPU_KVCACHE_SPACE=2 ") and e.diagnosis.fixes[0].fits
    assert not any(x.startswith(("--tensor-parallel-size", "--quantization", "--max-num-seqs")) for x in flags)


def test_wrapped_and_too_little_memory():
    data = (b"ValueError: Available memory on node 1 (1.2/15.5 GiB) on kv cache\n"
            b"allocation is less than requested memory for kv (4.0 GiB). Decrease --kv-cache-memory-bytes\n")
    e = explain_log(data)
    assert e.parsed.primary_failure.kind == "cpu_kv_space"
    assert [f.flags for f in e.diagnosis.fixes] == ["free host memory (other processes, a larger container / VM "
                                                    "memory limit)"]
