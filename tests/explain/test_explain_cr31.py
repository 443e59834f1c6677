"""Crash logs without a fitting fix, round cr31 (docs/accuracy.md §7.3, helper cr31, 2026-12-07).

- torch's misspelt OOM wording 'has a total capacty of' is the device total (sg_513, sg_514: 2024-01 threads);
- the memory the torch OOM lists as another process's (not the failing process under another PID) is read as
  ``other_processes``, and a freed card is planned from it (``explain.planned._freed_card``): a fit only where the
  plan on the card less that memory fails and on the free card holds a token;
- twice the TP size with fp8 weights is planned where the planner fits neither alone (``explain.planned._both``);
- vLLM's 'RuntimeError: Engine core initialization failed' header names no cause (``explain.unnamed``): the KV-pool
  step is no longer read as "no memory left" with a fix called a fit from no number (vl_1294)."""

from __future__ import annotations

import re

from explain_testlib import ROOT, log_bytes

from tpkit.explain import explain_log
from tpkit.logs import parse_log

MISTRAL_7B = str(ROOT / "tests/validation/configs/mistralai--Mistral-7B-Instruct-v0.2.json")
MIXTRAL = "mistralai/Mixtral-8x7B-Instruct-v0.1"
FREE = "free the other process's memory (nvidia-smi) or CUDA_VISIBLE_DEVICES=<idle GPU>"


def _oom(text: str):
    return parse_log(text.encode()).primary_failure


def test_both_spellings_of_torchs_total_are_read():
    line = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 112.00 MiB. GPU 0 has a total {} of "
            "44.35 GiB of which 9.38 MiB is free.")
    for word in ("capacty", "capacity"):
        f = _oom(line.format(word))
        assert f.kind == "cuda_oom" and f.size("total").text == "44.35 GiB", word
    assert _oom(line.format("capacit")).size("total") is None  # neither wording


def test_sg_513s_card_is_the_logs_printed_total():
    e = explain_log(log_bytes("sg_513"), flags={"model": MIXTRAL})
    assert e.context.gpu is not None and e.context.gpu.name == "GPU of the log"
    assert "give the GPU" not in e.diagnosis.cause


def test_the_failing_process_under_another_pid_is_not_another_process():
    """sg_513: 'Process 2776126 has 44.33 GiB' beside 44.02 GiB allocated by PyTorch on a 44.35 GiB card is the
    process itself (logs.oommessage._own_bytes); sg_514's 'Process 535546 has 40.19 GiB' beside 4.11 GiB is not."""
    assert parse_log(log_bytes("sg_513")).primary_failure.size("other_processes") is None
    assert parse_log(log_bytes("sg_514")).primary_failure.size("other_processes").text == "40.19 GiB"


def test_several_other_processes_are_summed():
    f = _oom("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
             "23.55 GiB of which 5.00 MiB is free. Process 11 has 10.00 GiB memory in use. Process 12 has 3.50 GiB "
             "memory in use. Including non-PyTorch memory, this process has 10.00 GiB memory in use.")
    held = f.size("other_processes")
    assert held.value.bytes == int(13.5 * 2**30) and held.text == "10.00 GiB + 3.50 GiB"


def test_a_weight_oom_with_another_process_held_gets_the_freed_card_as_a_fit():
    """sg_514 (a Mistral-7B fine-tune on an A40, sglang#86): on the card less the 40.19 GiB the other process holds
    the plan fails (13.5 GiB of weights above a ~3 GiB budget), on the free card it fits: freeing it is the fit, planned
    from the catalog with its band; the layout fixes stay planned and are not called fits."""
    d = explain_log(log_bytes("sg_514"), flags={"gpu": "A40", "model": MISTRAL_7B}).diagnosis
    assert d.phase == "weights" and "accounts for the failure" in d.cause and "does not reproduce" not in d.cause
    fits = [f for f in d.fixes if f.fits]
    assert [f.flags for f in fits] == [FREE], [f.to_dict() for f in d.fixes]
    assert fits[0].kv_tokens > 0 and "planned from the catalog" in fits[0].note and "(band " in fits[0].note
    assert "40.19 GiB" in fits[0].why


def test_memory_held_by_another_process_that_leaves_the_plan_fitting_is_no_fit():
    """The same log with the other process holding 1.19 GiB: the plan on the card less that memory still fits, so
    that process does not explain the failure: no freed-card fix, and nothing is called a fit (the OTHER_TENANT rule)."""
    text = log_bytes("sg_514").decode().replace("Process 535546 has 40.19 GiB", "Process 535546 has 1.19 GiB")
    d = explain_log(text.encode(), flags={"gpu": "A40", "model": MISTRAL_7B}).diagnosis
    assert "does not reproduce" in d.cause and not any(f.fits for f in d.fixes)
    assert not any(f.flags == FREE for f in d.fixes)


def test_weights_above_twice_the_card_get_tp_and_fp8_together():
    """sg_513 (bf16 Mixtral-8x7B, 87 GiB, on two 44.35 GiB cards: CUDA_VISIBLE_DEVICES="0,1", sglang#51): the plan
    at tp 1 fails (it reproduces the failure); --tp 2 alone (43.5 GiB per card) and fp8 alone (43.8 GiB) each leave the
    weights above the static budget; both together fit the log's two GPUs."""
    d = explain_log(log_bytes("sg_513"), flags={"model": MIXTRAL}).diagnosis
    fixes = {f.flags: f for f in d.fixes}
    assert not fixes["--tp 2"].fits and not fixes["--quantization fp8"].fits
    both = fixes["--tp 2 --quantization fp8"]
    assert both.fits and both.kv_tokens > 0 and "planned from the catalog" in both.note


def test_tp_and_fp8_together_only_where_neither_fits_alone():
    """sg_514 read on a T4: fp8 alone and --tp 2 alone fit, so the pair is not offered."""
    d = explain_log(log_bytes("sg_514"), flags={"model": MISTRAL_7B, "gpu": "T4"}).diagnosis
    assert not any(re.search(r"--tp \d+ --quantization fp8", f.flags) for f in d.fixes)


def test_vllms_start_up_header_names_no_cause():
    """vl_1294 (gpustack#4963): the engine core's traceback is cut in the vision encoder's SDPA and the API server's
    'RuntimeError: Engine core initialization failed' follows: the RuntimeError is the wrapper's
    (v1/engine/utils.py wait_for_engine_startup), so nothing says it was memory and no fix is called a fit."""
    d = explain_log(log_bytes("vl_1294"), flags={"engine_version": "0.17.1"}).diagnosis
    assert d.phase == "kv_pool" and "does not print the error" in d.cause
    assert "no memory left" not in d.cause and not any(f.fits for f in d.fixes)


def test_a_printed_root_cause_above_the_header_keeps_its_reading():
    """The same log with the engine core's exception line printed (the thread's title: HIP out of memory) is read
    as the OOM it names, not as an unnamed failure."""
    text = log_bytes("vl_1294").decode()
    oom = ("(EngineCore_DP0 pid=43) ERROR 03-20 17:39:14 [core.py:1100] torch.OutOfMemoryError: HIP out of memory. "
           "Tried to allocate 192.00 GiB. GPU 0 has a total capacity of 63.98 GiB of which 61.00 GiB is free.\n")
    cut = text.index("(APIServer pid=7)")
    d = explain_log((text[:cut] + oom + text[cut:]).encode(), flags={"engine_version": "0.17.1"}).diagnosis
    assert "does not print the error" not in d.cause
