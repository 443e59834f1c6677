"""vLLM's sampler / pooler warm-up OOM is placed by the KV lines logged before it (``failures.warmup_phase``).

vLLM V1 runs ``_dummy_sampler_run`` twice: in ``profile_run`` (before the KV cache is sized) and in
``compile_or_warm_up_model`` (after the KV tensors and the CUDA graphs; v1/worker/gpu_worker.py, 0.17.1 wheel). A
log without the traceback frames (a curated excerpt: vl_453) still says which: the KV size lines come first only
in the second case.
"""

from tpkit.logs import parse_log

HEAD = ("(APIServer pid=1) INFO 07-26 10:23:47 [utils.py:238] non-default args: {'model': "
        "'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 8192}\n"
        "(EngineCore_DP0 pid=2) INFO 07-26 10:24:16 [gpu_model_runner.py:4364] Model loading took 14.99 GiB memory "
        "and 18.54 seconds\n")
KV = ("(EngineCore_DP0 pid=2) INFO 07-26 10:24:21 [gpu_worker.py:424] Available KV cache memory: 5.61 GiB\n"
      "(EngineCore_DP0 pid=2) INFO 07-26 10:24:21 [kv_cache_utils.py:1314] GPU KV cache size: 45,968 tokens\n")
OOM = ("(EngineCore_DP0 pid=2) ERROR 07-26 10:24:28 [core.py:1100] torch.OutOfMemoryError: CUDA out of memory. "
       "Tried to allocate 126.00 MiB. GPU 0 has a total capacity of 23.54 GiB of which 139.75 MiB is free.\n")
WARMUP = ("(EngineCore_DP0 pid=2) ERROR 07-26 10:24:28 [core.py:1100] RuntimeError: CUDA out of memory occurred when "
          "warming up sampler with 256 dummy requests. Please try lowering `max_num_seqs` or "
          "`gpu_memory_utilization` when initializing the engine.\n")


def _failure(text: str):
    failure = parse_log(text.encode()).primary_failure
    assert failure is not None and failure.kind == "cuda_oom"
    return failure


def test_warmup_oom_after_the_kv_lines_is_the_post_kv_warmup():
    failure = _failure(HEAD + KV + OOM + WARMUP)
    assert failure.phase == "first_request"
    assert "compile_or_warm_up_model" in failure.phase_evidence


def test_warmup_oom_before_the_kv_lines_is_the_profile_run():
    assert _failure(HEAD + OOM + WARMUP).phase == "kv_pool"


def test_an_oom_after_the_kv_lines_without_the_warmup_message_keeps_the_last_step():
    failure = _failure(HEAD + KV + OOM)
    assert failure.phase == "kv_pool"
    assert failure.phase_evidence == "last start-up step logged before it: kv_done"


def test_the_pooler_warmup_reads_the_same():
    pooler = WARMUP.replace("warming up sampler", "warming up pooler (task='classify')")
    assert _failure(HEAD + KV + OOM + pooler).phase == "first_request"
