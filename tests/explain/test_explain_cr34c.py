"""vLLM pool and first-request crash logs, round cr34c (docs/accuracy.md §7.3, helper cr34c, 2026-12-07).

- ``logs.oommessage.oom_message`` lists each process torch's OOM message names once, where a log prints the message twice
  (vl_453: 'Process 4257 has 83.54 MiB' and 'Process 11017 has 133.29 MiB' on lines 11 and 13 were summed to
  433.66 MiB); two processes of one message are still summed;
- the share of the device under which other processes' memory reads as none has one home,
  ``explain.diagnose.OTHERS_NEGLIGIBLE_FRACTION`` (voom, a vLLM module, imported it from SGLang's ``sgdevice``);
- vl_788's model, which its own docker command names, is given (``FLAGS_FOR``): the tp 2 fix is re-planned from the
  log's measured weights and is a fit; the same post's tp 2 run (vl_789) printed 67,296 tokens.
"""

from __future__ import annotations

import re
from pathlib import Path

from explain_testlib import ROOT, log_bytes

from tpkit.explain import explain_log
from tpkit.logs import parse_log

QWEN3_32B = str(ROOT / "tests/validation/configs/Qwen--Qwen3-32B.json")
OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 126.00 MiB. GPU 0 has a total capacity of "
       "23.54 GiB of which 139.75 MiB is free. Process {a} has 83.54 MiB memory in use. Process {b} has 133.29 MiB "
       "memory in use. Including non-PyTorch memory, this process has 22.97 GiB memory in use.")


def _failure(text: str):
    return parse_log(text.encode()).primary_failure


def test_a_repeated_oom_message_lists_each_process_once():
    """The message printed twice (an engine core logs the exception, then re-raises it): 216.83 MiB, not twice."""
    f = _failure(OOM.format(a=4257, b=11017) + "\n" + OOM.format(a=4257, b=11017))
    held = f.size("other_processes")
    assert held.text == "83.54 MiB + 133.29 MiB"
    assert held.value.bytes == int(83.54 * 2**20) + int(133.29 * 2**20)
    assert f.detail.count("process 4257 holds") == 1


def test_two_processes_of_one_message_are_still_summed():
    """The other side: distinct process ids are distinct holders, in one message or across the window."""
    one = _failure(OOM.format(a=4257, b=11017)).size("other_processes")
    assert one.text == "83.54 MiB + 133.29 MiB"
    two = _failure(OOM.format(a=1, b=2) + "\n" + OOM.format(a=3, b=4)).size("other_processes")
    assert two.text == "83.54 MiB + 133.29 MiB + 83.54 MiB + 133.29 MiB"


def test_vl_453_reads_its_two_processes_once():
    held = parse_log(log_bytes("vl_453")).primary_failure.size("other_processes")
    assert held.text == "83.54 MiB + 133.29 MiB" and round(held.value.bytes / 2**20, 2) == 216.83


def test_the_negligible_share_has_one_home():
    from tpkit.explain import diagnose, sgdevice, voom

    assert sgdevice.OTHERS_NEGLIGIBLE_FRACTION is diagnose.OTHERS_NEGLIGIBLE_FRACTION == 0.01
    text = (Path(voom.__file__)).read_text(encoding="utf-8")
    assert "sgdevice" not in text  # the vLLM module imports no SGLang module for it
    assert not re.search(r"^OTHERS_NEGLIGIBLE_FRACTION\s*=", Path(sgdevice.__file__).read_text(encoding="utf-8"), re.M)


def test_other_processes_at_the_threshold_read_as_none():
    """Both sides of the 1 % share: 0.20 GiB of 23.54 GiB (0.85 %) is none; 0.30 GiB (1.27 %) is named."""
    from tpkit.explain.voom import other_processes

    line = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 500.00 MiB. GPU 0 has a total capacity of "
            "23.54 GiB of which 100.00 MiB is free. Process 7 has {} GiB memory in use. Including non-PyTorch memory, "
            "this process has 20.00 GiB memory in use.")
    assert other_processes(_failure(line.format("0.20"))) is None
    assert other_processes(_failure(line.format("0.30"))).text == "0.30 GiB"


def test_vl_788_tp2_is_re_planned_from_the_logs_weights():
    """Qwen3-32B bf16, 61.03 GiB of weights, at 0.426 of a 95.01 GiB card: at tp 2 the log's weights halve by the
    planned sharding and the plan fits; the same post's tp 2 start-up (vl_789) printed 67,296 tokens."""
    d = explain_log(log_bytes("vl_788"), flags={"model": QWEN3_32B}).diagnosis
    fit = next(f for f in d.fixes if f.fits)
    assert fit.flags == "--tensor-parallel-size 2" and "re-planned at tp 2 from the log" in fit.note
    assert abs(fit.kv_tokens - 67_296) / 67_296 < 0.05
    # the higher utilization stays a suggestion: the card's free memory at start-up is not printed
    u = next(f for f in d.fixes if f.flags.startswith("--gpu-memory-utilization"))
    assert not u.fits and u.note.startswith("a suggestion, not shown to fit: ")


def test_vl_788_without_its_model_names_no_fit():
    """The other side: with no model anywhere (the docker line's model argument taken out) no layout is planned.
    Since round fx36 the reader takes the model from the image's argument (``logs.docker``), so the log alone names
    Qwen/Qwen3-32B (tests/explain/test_explain_fx36.py)."""
    text = log_bytes("vl_788").replace(b"vllm/vllm-openai:latest Qwen/Qwen3-32B", b"vllm/vllm-openai:latest")
    d = explain_log(text).diagnosis
    assert not any(f.fits for f in d.fixes)


def test_vl_994_the_swap_spaces_pinned_allocation_not_the_gpu_cache():
    """vllm#188 (WSL2, opt-125m, RTX 3090): '# GPU blocks: 37375, # CPU blocks: 7281', then 'CUDA error: out of memory'
    in CacheEngine.allocate_cpu_cache: the fix is no swap space, the printed GPU cache unchanged (37,375 × 16)."""
    d = explain_log(log_bytes("vl_994")).diagnosis
    assert d.phase == "kv_pool" and "CPU swap space" in d.cause and "37,375 blocks" in d.cause and "7,281" in d.cause
    assert [f.flags for f in d.fixes] == ["--swap-space 0"]
    assert d.fixes[0].fits and d.fixes[0].kv_tokens == 598_000
    assert not any(f.flags.startswith("--max-num-seqs") for f in d.fixes)  # the profile is not what failed


def test_a_swap_space_failure_without_gpu_blocks_names_no_tokens():
    """The same frame with no '# GPU blocks' line: the fix is offered with its tokens unknown, not called a fit."""
    text = "\n".join(line for line in log_bytes("vl_994").decode().splitlines() if "# GPU blocks" not in line)
    d = explain_log(text.encode()).diagnosis
    assert d.fixes and d.fixes[0].flags == "--swap-space 0" and not d.fixes[0].fits and d.fixes[0].kv_tokens is None


def test_other_v0_no_blocks_failures_are_not_the_swap_space():
    """The other side: vl_1149 (V0, '# GPU blocks: 0') keeps the no-memory diagnosis, no swap fix."""
    d = explain_log(log_bytes("vl_1149")).diagnosis
    assert "swap space" not in d.cause and not any(f.flags.startswith("--swap-space") for f in d.fixes)


def test_vl_1378_an_ascend_npu_is_named_and_no_fix_is_called_a_fit():
    """vllm-ascend#3357: torch_npu's 'NPU out of memory' in the plug-in's execute_model: the device named, the printed
    sizes.  Round cr34c offered no fix; helper np37 read the plug-in's worker (utilization applied as vLLM's V1 does,
    explain.npuplan) and offers the lower utilization as a suggestion, never a fit (no KV cache size printed)."""
    d = explain_log(log_bytes("vl_1378")).diagnosis
    assert "on an Ascend NPU" in d.cause and "SGLang" not in d.cause and not any(f.fits for f in d.fixes)
    assert [f.flags for f in d.fixes] == ["--gpu-memory-utilization 0.78"]


def test_a_cuda_oom_in_the_same_phase_keeps_its_fix():
    """The other side: vl_1291 (CUDA, first request) keeps the lower-utilization suggestion."""
    d = explain_log(log_bytes("vl_1291")).diagnosis
    assert "does not plan this hardware" not in d.cause
    assert any(f.flags.startswith("--gpu-memory-utilization") for f in d.fixes)
