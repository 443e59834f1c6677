"""Helper cr33a (2026-12-07, issue 12): SGLang crash logs without a fitting fix — hardware tpkit does not plan, and
whose memory fills the card, from the OOM message's own figures (explain.sgdevice; docs/accuracy.md §7.3)."""

from explain_testlib import log_bytes

from tpkit.explain import explain_log

_NPU = """[2026-03-03 14:53:14] Load weight end. elapsed=20.1 s, type=Qwen3ForCausalLM
  File "/usr/local/lib/python3.11/site-packages/sglang/srt/hardware_backend/npu/memory_pool_npu.py", line 57, in _create_buffers
    self.kv_buffer = torch.zeros(
RuntimeError: NPU out of memory. Tried to allocate {req} GiB (NPU 0; 60.96 GiB total capacity; 25.03 GiB already allocated; 25.03 GiB current active; 35.47 GiB free; 25.08 GiB reserved in total by PyTorch)
"""

_CUDA = """[2026-04-16 01:02:09 TP0] Load weight begin. avail mem=47.20 GB
[2026-04-16 01:02:09 TP0] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 24.00 MiB. GPU 0 has a total capacity of 47.37 GiB of which 4.31 MiB is free. {others}Including non-PyTorch memory, this process has {mine} GiB memory in use. Of the allocated memory 45.63 GiB is allocated by PyTorch, and 1.10 GiB is reserved by PyTorch but unallocated.
"""


def test_an_npu_oom_is_named_as_hardware_tpkit_does_not_plan_and_no_fix_fits():
    d = explain_log(log_bytes("sg_911")).diagnosis
    assert "Ascend NPU" in d.cause and "tpkit does not plan this hardware" in d.cause
    assert "larger than the whole device (98.71 GiB > 60.96 GiB)" in d.cause
    assert "another process" not in d.cause and not d.fixes
    # the allocation below the total: the sizes are shown, the too-large words are not, and still no fix
    d = explain_log(_NPU.format(req="30.00").encode()).diagnosis
    assert "tpkit does not plan this hardware" in d.cause and "larger than the whole device" not in d.cause
    assert "asked for 30.00 GiB, 35.47 GiB free of 60.96 GiB" in d.cause and not d.fixes


def test_a_cuda_oom_is_still_planned():
    d = explain_log(_CUDA.format(others="", mine="47.35").encode()).diagnosis
    assert "tpkit does not plan this hardware" not in d.cause


def test_the_oom_figures_say_whose_memory_fills_the_card():
    d = explain_log(log_bytes("sg_801")).diagnosis
    assert "this process holds 47.35 GiB of the 47.37 GiB device" in d.cause
    assert "no other process is in the way" in d.cause and not any(f.fits for f in d.fixes)
    # the same message with another process's 20 GiB on the card: the figures name it
    d = explain_log(_CUDA.format(others="Process 4242 has 20.00 GiB memory in use. ", mine="27.35").encode()).diagnosis
    assert "other processes 20.02 GiB (total − free − this process)" in d.cause, d.cause


_NOT_ENOUGH = """[2026-08-07 08:48:10 TP0] Load weight end. type=DeepseekV3ForCausalLM
[2026-08-07 08:48:12 TP0] Scheduler hit an exception: Traceback (most recent call last):
RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.
"""


def test_not_enough_memory_reads_by_release_on_both_sides_of_0_5_14():
    from tpkit.explain.sgfloor import FLOOR_CHECK_FROM

    assert FLOOR_CHECK_FROM == (0, 5, 14)
    after = explain_log(_NOT_ENOUGH.encode(), flags={"engine_version": "0.5.14"}).diagnosis
    assert "raises 'Not enough memory' only after its weights check passed" in after.cause
    assert "how much larger the log's numbers do not say" in after.cause and not any(f.fits for f in after.fixes)
    before = explain_log(_NOT_ENOUGH.encode(), flags={"engine_version": "0.5.13"}).diagnosis
    assert "before 0.5.14 SGLang's 'Not enough memory' covers both" in before.cause
    assert not any(f.fits for f in before.fixes)
    # no release printed: the line formats allow 0.2.15–0.5.8, all before the boundary
    assert "before 0.5.14" in explain_log(_NOT_ENOUGH.encode()).diagnosis.cause
    # a range across the boundary (0.5.9's 'Load weight end. elapsed=' format, no release): the generic words
    across = _NOT_ENOUGH.replace("Load weight end. type=", "Load weight end. elapsed=20.1 s, type=")
    assert "0.5.14" not in explain_log(across.encode()).diagnosis.cause
    # the lane's own attempt 2 (0.5.16 named in its lane line): the floor was cleared, the pool still held nothing
    d = explain_log(log_bytes("sg_481")).diagnosis
    assert "SGLang 0.5.16 raises 'Not enough memory' only after its weights check passed" in d.cause


def test_the_weights_check_pasted_without_its_numbers_names_the_fraction_and_claims_nothing():
    d = explain_log(log_bytes("sg_482")).diagnosis  # '... If using speculative decoding': S and M elided
    assert "leave no KV budget at mem_fraction_static 0.8" in d.cause and "which this paste does not keep" in d.cause
    assert not any(f.fits for f in d.fixes)
    one_line = (b"ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.88. "
                b"... If using speculative decoding, draft weights are now counted.\n")
    d = explain_log(one_line).diagnosis
    assert "at mem_fraction_static 0.88" in d.cause and "draft weights are counted" in d.cause
    # with the minimum printed the engine's floor is offered, and still not called a fit
    d = explain_log(b"ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.6"
                    b". Raise --mem-fraction-static above 0.644 (minimum viable = 1 - available/pre = 0.6433).\n"
                    ).diagnosis
    floor = [f for f in d.fixes if f.flags == "--mem-fraction-static 0.644"]
    assert floor and not floor[0].fits and "not called a fit" in floor[0].note
