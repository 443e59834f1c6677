"""Held-back round ex38 (helper ex38, 2026-12-08, docs/accuracy.md §7.3): 8 public logs judged before adding.

The labels below were written from each thread before tpkit was run on the logs (the first commit of this file holds
only them); the blind results and the rules made after are recorded in docs/accuracy.md's "round ex38" subsection.

| log | source | label (status, phase) | evidence for the phase |
|---|---|---|---|
| vl_1491 | yhfgyyf/vllm-deepseek-v4-sm89#54 (begin2023, 2026-08-07: '[Usage]: 4卡48GB 4090显卡 oom', DeepSeek-V4 on a vLLM fork for sm89, 4 × RTX 4090 48 GB) | crash kv_pool | the flags `--tensor-parallel-size 4 --max-model-len 131072 --gpu-memory-utilization 0.97`, then '(EngineCore pid=1713) ValueError: To serve at least one request with the model's max seq len (131072), (1.34 GiB KV cache is needed, which is larger than the available KV cache memory (0.3 GiB)' — V1's start-up KV check |
| vl_1492 | vllm-project/vllm#43222 (robertgshaw2-redhat, 2026-05-20: '[Bug]: Possible to get GPU OOM for DP/EP', a DeepSeek MLA model under DP/EP) | crash first_request | `Worker_DP0_EP0` frames in `deepseek_v2.py` `forward` -> `mla_attn`, then the engine core's '[dump_input.py:81] Dumping scheduler stats: SchedulerStats(num_running_reqs=809, … kv_cache_usage=0.475…': 809 requests running, the pool half full — a served step; the OOM is in the title |
| vl_1493 | QwenLM/Qwen3-VL#1489 (liuxuexun, 2025-09-24: '8*A100 (80G) deploy Qwen3vl 235B-A22B-Instruct cuda OOM', vllm==0.10.2) | crash weights | '(Worker_TP6 …) WorkerProc failed to start.' in `worker_main` -> `WorkerProc.__init__` -> `self.worker.load_model()` -> `gpu_worker.py` `load_model` -> `self.model_runner.load_model(…)`, cut; the OOM is in the title |
| vl_1494 | yhfgyyf/vllm-deepseek-v4-sm89#41 (krpr, 2026-07-29: '[Usage]: 4x4090 48G 按照示例配置跑 DSpark 模型OOM', the README's example config on 4 × RTX 4090 48 GB) | crash kv_pool | 'ValueError: To serve at least one request with the model's max seq len (262144), (1.93 GiB KV cache is needed, which is larger than the available KV cache memory (1.88 GiB). … the estimated maximum model length is 251136' |
| sg_1032 | gpustack/gpustack#3831 (Finenyaco, 2025-12-11: 'The default value of mem_fraction_static in SGLang did not take effect, resulting in model deployment failure', Qwen3-8B on SGLang 0.5.6.post1, Ascend 910B2) | crash kv_pool | 'RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static=0.2' (SGLang's KV-pool sizing refusal), followed by gpustack's own provisioning lines |
| sg_1033 | sgl-project/sglang#10736 (derwalldrose, 2025-09-22: 'how to run Qwen3-Next-80B-A3B in a single H20 GPU', `--torchao-config int8dq --disable-cuda-graph`) | crash weights | the frame `torch/utils/_device.py` `__torch_function__` (a tensor made under a device context: model construction) and 'Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 95.08 GiB … this process has 93.27 GiB memory in use. Of the allocated memory 92.83 GiB is allocated by PyTorch': an 80B model held in bf16 (about 149 GiB) before torchao quantizes it does not fit one 95 GiB card |
| sg_1034 | sgl-project/sglang PR#14476 (zminglei, 2025-12-05: 'support piecewise cuda graph for Olmo models', OLMo-2-0325-32B-Instruct with `--enable-piecewise-cuda-graph`, 'Before the change') | crash cuda_graph | 'Capturing num tokens (num_tokens=3968 avail_mem=0.05 GB):   2%| … | 1/58' then a traceback through the fx graph module's `forward` (`torch._C._nn.linear` of layer 0's MLP) ending 'torch.OutOfMemoryError:' — the piecewise capture's bar with 0.05 GB left |
| sg_1035 | xorbitsai/inference#3481 (dllucyboy, 2025-05-19: '使用SGLang单卡无法加载qwen3 14b' — SGLang on one card cannot load Qwen3-14B) | crash cuda_graph | 'Load weight end … Qwen3ForCausalLM … avail mem=19.67 GB, mem usage=27.57 GB', 'KV Cache is allocated. #tokens: 91749', 'Capture cuda graph begin … avail mem=4.64 GB', 'Capture cuda graph bs [1, 2, … 160]', and nothing after: the excerpt ends inside the capture and the title says the load failed (the reporter's second run in the thread shows the capture bar moving, then cut) |

Blind results (`tpkit explain LOG` and `--json` as subprocesses on the 8 texts as received, this branch at 8ede728d =
main 4400be1c + the labels; harness /tmp/ex38/run_blind.py, output /tmp/ex38/blind.json), recorded before any change:

| log | parsed | engine | status / phase (label) | capacity | first fix (fits) |
|---|---|---|---|---|---|
| vl_1491 | ✓ exit 0 | vllm ✓ (≥ 0.18) | failed, kv_pool ✓ | n/a (no anchor) | --max-model-len 720 (fits: vLLM's own estimate) ✓ |
| vl_1492 | ✓ exit 0 | vllm ✓ | failed, **other ✗** (first_request): "traceback cut before its exception line" | n/a | none |
| vl_1493 | ✓ exit 0 | vllm ✓ (≥ 0.11) | failed, weights ✓ ("does not print the error") | n/a | none (no memory claimed) ✓ |
| vl_1494 | ✓ exit 0 | vllm ✓ | failed, kv_pool ✓ | n/a | --max-model-len 251136 (fits) ✓; then --kv-cache-dtype fp8 (fits: assumes a 16-bit cache the log does not print) |
| sg_1032 | ✓ exit 0 | sglang ✓ | failed, kv_pool ✓ | n/a | --tp 2 / --quantization fp8 / --kv-cache-dtype fp8_e4m3 (suggestions, fits: false); no larger --mem-fraction-static though the message names 0.2 |
| sg_1033 | ✓ exit 0 | sglang ✓ | failed, **other ✗** (weights): "cuda oom: GPU 0" | n/a | none |
| sg_1034 | ✓ exit 0 | sglang ✓ | failed, **other ✗** (cuda_graph): "cuda oom: torch.OutOfMemoryError:" | n/a | none |
| sg_1035 | ✓ exit 0 | sglang ✓ (0.2.15–0.5.8) | **ok ✗** (crash, cuda_graph) | printed 91,749; rebuilt — (no model in the log) | none |

Parsed 8/8, engine 8/8, status 7/8, phase 4/8, capacity 0/1 blind (no model), a fix that fits and suits 2
(vl_1491, vl_1494).

After the round's three rules (``logs.stepdump``, ``explain.sgpiecewise`` with the piecewise bar as a graph marker,
SGLang 0.4.7's date in ``engines.sglang.versions.RELEASE_DATES``): status 7/8, phase 6/8 (vl_1492 first_request,
sg_1034 cuda_graph), capacity 1/1 (sg_1035 with the thread's Qwen3-14B: 91,749 in 91,717–91,798), fits 2; not fixed:
sg_1033's phase, sg_1035's status (``PHASE_WRONG`` below says why).
"""

from __future__ import annotations

LABELS = {
    "vl_1491": ("vllm", "crash", "kv_pool"),
    "vl_1492": ("vllm", "crash", "first_request"),
    "vl_1493": ("vllm", "crash", "weights"),
    "vl_1494": ("vllm", "crash", "kv_pool"),
    "sg_1032": ("sglang", "crash", "kv_pool"),
    "sg_1033": ("sglang", "crash", "weights"),
    "sg_1034": ("sglang", "crash", "cuda_graph"),
    "sg_1035": ("sglang", "crash", "cuda_graph"),
}

import pytest
from explain_testlib import explain_labelled, log_bytes

from tpkit.explain import explain_log
from tpkit.logs import parse_log
from tpkit.logs.stepdump import step_dump_phase

PHASE_WRONG = {"sg_1033": "other"}
"""the logs still placed apart from their labels (docs/accuracy.md §7.3 round ex38), not fixed:
sg_1033 — torch's OOM under the frame ``torch/utils/_device.py`` ``__torch_function__`` alone: a tensor made under a
``with torch.device(…)`` context, which SGLang's model loader opens (``model_loader/loader.py``) and so do its graph
runners, the piecewise runner, the input buffers and the LoRA back ends (0.5.6 wheel): nothing in the excerpt but
the thread's title says it was the load;
sg_1035 — the excerpt ends at 'Capture cuda graph bs [1 … 160]' with no error, no traceback and no bar: a paste
that stops there reads as a clean start-up; the failure is the thread's title."""


def _explain(text: str):
    return explain_log(text.encode())


# -- the outcomes after the round's rules (pinned; docs/accuracy.md §7.3 round ex38 has the blind ones) -------------
@pytest.mark.parametrize("case_id", sorted(set(LABELS) - {"sg_1035"}))
def test_each_log_gets_its_engine_status_and_phase(case_id):
    explain_labelled(case_id, LABELS[case_id], PHASE_WRONG.get(case_id))


def test_a_log_that_stops_inside_the_capture_reads_as_clean():
    e = explain_log(log_bytes("sg_1035"))
    assert e.parsed.engine.engine == "sglang" and e.diagnosis.status == "ok"


def test_the_budget_valueerrors_fit_at_vllms_own_estimate():
    for case_id, flags in (("vl_1491", "--max-model-len 720"), ("vl_1494", "--max-model-len 251136")):
        d = explain_log(log_bytes(case_id)).diagnosis
        assert d.fixes[0].flags == flags and d.fixes[0].fits


def test_the_cut_load_traceback_claims_no_memory():
    d = explain_log(log_bytes("vl_1493")).diagnosis
    assert "does not print the error" in d.cause and not d.fixes


# -- vLLM V1's failed-step dump (logs.stepdump: vllm#43222) ----------------------------------------------------------
_FRAME = ("(Worker_DP0_EP0 pid=2) ERROR 05-20 10:42:56 [multiproc_executor.py:962]   File \"/x/vllm/model_executor/"
          "models/deepseek_v2.py\", line 1067, in forward\n")
_STATS = ("(EngineCore_DP0 pid=1) ERROR 05-20 10:42:56 [dump_input.py:81] Dumping scheduler stats: "
          "SchedulerStats(num_running_reqs=809, num_waiting_reqs=0)\n")


def test_a_failed_step_dump_places_a_cut_traceback_in_serving():
    """``EngineCore.log_error_detail`` dumps the step only when a scheduled step's ``execute_model`` raised
    (``step`` returns before scheduling with no request; the start-up's runs never pass through it)."""
    assert step_dump_phase(_FRAME + _STATS, 1)[0] == "first_request"
    d = _explain(_FRAME + _STATS).diagnosis
    assert (d.status, d.phase) == ("failed", "first_request")
    header = ("(EngineCore_DP0 pid=1) ERROR 05-20 10:42:56 [dump_input.py:72] Dumping input data for V1 LLM engine "
              "(v0.11.0) with config: model='m', \n")
    assert _explain(header + _FRAME).diagnosis.phase == "first_request"  # the dump's first line, after the frames too


def test_a_far_or_absent_dump_places_nothing():
    assert step_dump_phase(_FRAME, 1) is None
    assert step_dump_phase(_FRAME + "x\n" * 200 + _STATS, 1) is None
    assert _explain(_FRAME).diagnosis.phase == "other"  # the model's forward alone runs in start-up and serving


# -- SGLang's piecewise capture (logs.phases' marker, explain.sgpiecewise: sglang PR#14476) --------------------------
_BAR = "Capturing num tokens (num_tokens=3968 avail_mem=0.05 GB):   2%|▏ | 1/58 [00:00<00:56,  1.01it/s]"
_OOM = ("Traceback (most recent call last):\n  File \"/x/torch/nn/modules/module.py\", line 1775, in _wrapped_call_impl\n"
        "    return self._call_impl(*args, **kwargs)\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
        "20.00 MiB. GPU 0 has a total capacity of 79.19 GiB of which 5.00 MiB is free.\n")


def test_the_piecewise_bar_marks_the_capture_and_its_fixes():
    d = explain_log(log_bytes("sg_1034")).diagnosis
    assert d.phase == "cuda_graph" and "piecewise (prefill) one (its bar was at 3968 tokens)" in d.cause
    assert "--enable-piecewise-cuda-graph turns it on" in d.cause
    assert [f.flags for f in d.fixes] == ["--piecewise-cuda-graph-max-tokens 1984 (half the bar's largest shape)"]
    assert not d.fixes[0].fits
    d = _explain(_BAR + "\n" + _OOM).diagnosis  # no enabling flag printed: the off switch too (0.5.10+)
    assert d.phase == "cuda_graph"
    assert [f.flags.split(" (")[0] for f in d.fixes] == ["--piecewise-cuda-graph-max-tokens 1984",
                                                         "--disable-piecewise-cuda-graph"]
    assert all(f.flags.split()[0] not in ("--cuda-graph-max-bs", "--disable-cuda-graph") for f in d.fixes)


def test_a_decode_capture_after_a_finished_piecewise_one_keeps_the_decode_fixes():
    begin = "[2026-01-01 00:00:00] Capture piecewise CUDA graph begin. avail mem=50.38 GB\n"
    end = "[2026-01-01 00:00:20] Capture piecewise CUDA graph end. Time elapsed: 19.87 s. mem usage=1.27 GB. avail mem=49.11 GB.\n"
    decode = "[2026-01-01 00:00:21] Capture cuda graph begin. This can take up to several minutes. avail mem=49.00 GB\n"
    p = parse_log((begin + _BAR + "\n" + end + decode + _OOM).encode())
    from tpkit.explain.sgpiecewise import piecewise_tokens

    assert piecewise_tokens(p, p.primary_failure) is None
    p = parse_log((begin + _BAR + "\n" + _OOM).encode())
    assert piecewise_tokens(p, p.primary_failure) == 3968
    p = parse_log((begin + _OOM).encode())  # the begin line alone: in the capture, no shape printed
    assert piecewise_tokens(p, p.primary_failure) == 0


# -- the 0.4.7 release date (engines.sglang.versions.RELEASE_DATES: sg_1035's capacity) -----------------------------
def test_a_log_dated_before_0_4_7_takes_the_0_4_6_fractions():
    """The 0.4.7 wheel's files are dated 2025-06-10; 0.4.6.post5 is the release before it.  A log dated 2025-05-19
    ran 0.4.6.post5 or older, whose default fraction for a card ≤ 80 GiB at tp 1 is the table's 0.88, not 0.4.7.post1+'s
    capacity classes (0.792 on a 48 GB card)."""
    from tpkit.engines.sglang.versions import newest_by_date

    assert newest_by_date("0.5.8", "2025-05-19")[0] == "0.4.6.post5"
    assert newest_by_date("0.5.8", "2025-06-20")[0] == "0.4.8"  # after 0.4.7: the next boundary's cap, as before
    assert newest_by_date("0.4.6", "2025-05-19")[0] == "0.4.6"  # a release already below the cap stays


def test_the_anchored_log_rebuilds_its_pool_with_the_threads_model():
    from pathlib import Path

    config = Path(__file__).resolve().parents[1] / "logs" / "data" / "configs" / "Qwen__Qwen3-14B" / "config.json"
    e = explain_log(log_bytes("sg_1035"), flags={"model": str(config), "tp": 1})
    lo, hi = e.kv_predicted_range
    assert e.kv_printed == 91749 and lo <= 91749 <= hi
