"""Memory lines of each engine release, as printed in the real logs of tests/logs/data (file named per case)."""

import pytest

from tpkit.logs import parse_log
from tpkit.units import GiB


def _anchors(text: str) -> dict[str, list]:
    out: dict[str, list] = {}
    for a in parse_log(text).anchors:
        out.setdefault(a.name, []).append(a.size.text if a.size else a.count.value)
    return out


@pytest.mark.parametrize("line, expected", [
    # sg_009 (SGLang 0.4.x, 4 × RTX 4090)
    ("[2025-03-08 12:29:13 TP2] Init torch distributed ends. mem usage=0.13 GB", {"init_dist_mem_usage": ["0.13 GB"]}),
    ("[2025-03-08 12:29:21 TP1] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=6.09 GB, "
     "mem usage=15.54 GB.", {"load_end_avail": ["6.09 GB"], "weights_mem_usage": ["15.54 GB"]}),
    ("[2025-03-08 12:29:28 TP0] Capture cuda graph end. Time elapsed: 7.23 s. avail mem=0.53 GB. mem usage=0.93 GB.",
     {"graph_end_avail": ["0.53 GB"], "graph_mem_usage": ["0.93 GB"]}),
    ("[2025-02-07 12:25:38 TP3] max_total_num_tokens=1061980, chunked_prefill_size=8192, max_prefill_tokens=16384, "
     "max_running_requests=3319, context_len=163840",
     {"max_total_num_tokens": [1061980], "chunked_prefill_size": [8192], "max_prefill_tokens": [16384],
      "max_running_requests": [3319], "context_len": [163840]}),
    # sg_020 (SGLang 0.5.2x, MLA: one latent buffer)
    ("[2026-02-26 05:33:19 TP0] Load weight end. elapsed=778.18 s, type=GlmMoeDsaForCausalLM, dtype=torch.bfloat16, "
     "avail mem=193.92 GB, mem usage=89.58 GB.", {"load_end_avail": ["193.92 GB"], "weights_mem_usage": ["89.58 GB"]}),
    ("[2026-02-26 05:35:08 TP7] KV Cache is allocated. #tokens: 3262823, KV size: 186.77 GB",
     {"kv_tokens": [3262823], "kv_size": ["186.77 GB"]}),
    # sg_018 (SGLang 0.5.15+, fp8 KV)
    ("[2026-09-12 00:22:48 TP0] KV Cache is allocated. dtype: torch.float8_e4m3fn, #tokens: 454112, K size: 3.46 GB, "
     "V size: 3.46 GB", {"kv_tokens": [454112], "kv_k_size": ["3.46 GB"], "kv_v_size": ["3.46 GB"]}),
    ("[2026-02-01 00:05:03 TP0] Capture cuda graph bs [1, 2, 4, 8]", {"graph_max_bs": [8]}),
    # validation case_005 (gpt-oss, hybrid sliding window)
    ("Use sliding window memory pool. full_layer_tokens=318715, swa_layer_tokens=254972\nSWAKVPool mem usage: 19.70 GB",
     {"swa_full_tokens": [318715], "swa_swa_tokens": [254972], "swa_pool_mem_usage": ["19.70 GB"]}),
])
def test_sglang_lines(line, expected):
    found = _anchors(line)
    for name, values in expected.items():
        assert found.get(name) == values, name


@pytest.mark.parametrize("line, expected", [
    # vl_002 (V1 0.8.x: %.4f) and vl_033 (format_gib, 'GiB memory and')
    ("INFO 04-24 16:33:00 [gpu_model_runner.py:1316] Model loading took 14.9889 GiB and 3.652170 seconds",
     {"weights": ["14.9889 GiB"]}),
    ("(Worker_TP0 pid=770) INFO 08-21 18:18:05 [gpu_model_runner.py:5405] Model loading took 55.19 GiB memory and "
     "48.502592 seconds", {"weights": ["55.19 GiB"]}),
    # vl_026 (V0 0.6.6: 'GB', divided by 2**30)
    ("INFO 04-02 21:42:59 model_runner.py:1099] Loading model weights took 15.5083 GB", {"weights": ["15.5083 GB"]}),
    # validation case_021 (V0 0.6.4 profile line)
    ("Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB peak_torch_memory=17.06GiB "
     "memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB kv_cache_size=3.81GiB gpu_memory_utilization=0.90",
     {"total_gpu_memory": ["23.58 GiB"], "peak_torch_memory": ["17.06 GiB"], "non_torch_memory": ["0.35 GiB"],
      "available_kv": ["3.81 GiB"], "gpu_memory_utilization": [0.9]}),
    # vl_001 / vl_036 (V0 0.7–0.10 worker)
    ("INFO 12-20 20:25:46 worker.py:241] the current vLLM instance can use total_gpu_memory (15.77GiB) x "
     "gpu_memory_utilization (0.90) = 14.20GiB\nINFO 12-20 20:25:46 worker.py:241] model weights take 7.51GiB; "
     "non_torch_memory takes 0.39GiB; PyTorch activation peak memory takes 2.53GiB; the rest of the memory reserved "
     "for KV Cache is 3.76GiB.\nINFO 12-20 20:25:46 distributed_gpu_executor.py:57] # GPU blocks: 3852, # CPU blocks: 4096",
     {"total_gpu_memory": ["15.77 GiB"], "gpu_memory_utilization": [0.9], "requested_memory": ["14.20 GiB"],
      "weights": ["7.51 GiB"], "non_torch_memory": ["0.39 GiB"], "activation_peak": ["2.53 GiB"],
      "available_kv": ["3.76 GiB"], "gpu_blocks": [3852], "cpu_blocks": [4096]}),
    # vl_027: lower-case '# cuda blocks'
    ("INFO 03-29 15:53:07 [executor_base.py:111] # cuda blocks: 1395, # CPU blocks: 2340", {"gpu_blocks": [1395]}),
    # vl_1466 (ROCm V0: the platform's device_name, 'rocm'); an XPU/TPU/CPU platform's blocks are not a GPU's
    ("INFO 08-07 16:59:28 [executor_base.py:113] # rocm blocks: 62971, # CPU blocks: 2048",
     {"gpu_blocks": [62971], "cpu_blocks": [2048]}),
    ("INFO 08-07 16:59:28 [executor_base.py:113] # xpu blocks: 62971, # CPU blocks: 2048",
     {"gpu_blocks": None, "cpu_blocks": [2048]}),
    # vl_021 (0.10.2, per worker) and vl_012 (V1 capacity lines)
    ("(Worker_TP3_EP3 pid=2081) INFO 09-24 20:53:41 [gpu_worker.py:298] Available KV cache memory: 10.65 GiB",
     {"available_kv": ["10.65 GiB"]}),
    ("(EngineCore pid=107) INFO 07-06 22:52:09 [kv_cache_utils.py:2146] GPU KV cache size: 567,978 tokens\n"
     "(EngineCore pid=107) INFO 07-06 22:52:09 [kv_cache_utils.py:2147] Maximum concurrency for 131,072 tokens per "
     "request: 4.33x", {"kv_tokens": [567978], "concurrency_len": [131072], "max_concurrency": [4.33]}),
    # vl_032 (≥ 0.21: CUDA-graph pool line)
    ("(Worker_TP2_EP2 pid=4155526) INFO 08-20 17:28:08 [gpu_worker.py:793] CUDA graph pool memory: 4.13 GiB (actual), "
     "4.99 GiB (estimated), difference: 0.86 GiB (20.9%).", {"graph_actual": ["4.13 GiB"], "graph_estimate": ["4.99 GiB"]}),
    # vl_021 (kv-cache-memory suggestion line)
    ("(Worker_TP2_EP2 pid=2080) INFO 09-24 20:54:35 [gpu_worker.py:391] Free memory on device (43.93/44.42 GiB) on "
     "startup. Desired GPU memory utilization is (0.9, 39.98 GiB). Actual usage is 27.72 GiB for weight, 1.4 GiB for "
     "peak activation, 0.21 GiB for non-torch memory, and 3.45 GiB for CUDAGraph memory. Replace "
     "gpu_memory_utilization config with `--kv-cache-memory=7564378828` to fit into requested memory, or "
     "`--kv-cache-memory=11809093120` to fully utilize gpu memory. Current kv cache memory in use is 11423138508 bytes.",
     {"startup_free": ["43.93"], "startup_total": ["44.42 GiB"], "requested_memory": ["39.98 GiB"],
      "weights": ["27.72 GiB"], "activation_peak": ["1.4 GiB"], "non_torch_memory": ["0.21 GiB"],
      "graph_memory": ["3.45 GiB"], "kv_in_use": ["11423138508 bytes"]}),
    # vl_009 (structured logging)
    ('(EngineCore pid=86) level=INFO name=vllm.v1.worker.gpu_worker msg="Available KV cache memory: 5.38 GiB"',
     {"available_kv": ["5.38 GiB"]}),
])
def test_vllm_lines(line, expected):
    found = _anchors(line)
    for name, values in expected.items():
        assert found.get(name) == values, name


def test_every_size_is_gib_whatever_the_word():
    parsed = parse_log("[2025-03-08 12:29:21 TP0] Load weight end. type=X, avail mem=6.09 GB, mem usage=15.54 GB.\n"
                       "INFO 04-02 21:42:59 model_runner.py:1099] Loading model weights took 15.5083 GB\n")
    sizes = {a.name: a.size for a in parsed.anchors}
    assert sizes["load_end_avail"].value == GiB(6.09) and sizes["load_end_avail"].divisor_bytes == 2**30
    assert "2**30" in sizes["load_end_avail"].meaning


def test_sglang_draft_and_swa_pools_are_grouped():
    # sg_018: target then draft pool on each rank (MTP speculative decoding)
    text = (
        "[2026-09-12 00:20:00] server_args=ServerArgs(model_path='m', tp_size=2, speculative_algorithm='EAGLE')\n"
        "[2026-09-12 00:22:48 TP0] KV Cache is allocated. dtype: torch.float8_e4m3fn, #tokens: 454112, K size: 3.46 GB, "
        "V size: 3.46 GB\n[2026-09-12 00:22:48 TP0] Memory pool end. avail mem=8.40 GB\n"
        "[2026-09-12 00:22:48 TP0] KV Cache is allocated. dtype: torch.float8_e4m3fn, #tokens: 454112, K size: 1.08 GB, "
        "V size: 1.08 GB\n[2026-09-12 00:22:48 TP0] Memory pool end. avail mem=6.23 GB\n")
    view = parse_log(text).select_rank(0)
    assert [a.size.text for a in view.all("kv_k_size", None)] == ["3.46 GB", "1.08 GB"]
    assert view.last("kv_k_size", "draft").size.text == "1.08 GB"
    assert view.last("pool_end_avail", "draft").size.text == "6.23 GB"
    assert [a.group for a in view.all("pool_end_avail")] == [None, "draft"]
