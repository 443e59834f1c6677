"""Round cr36c (2026-12-07, session 36): vLLM first-request crash logs — the five wrong phases, four without a fit,
and ex35's lead "vl_1468 utilization mismatch" (docs/accuracy.md §7.3 round cr36c).

- ``logs.drafting``: a drafter's proposal frames (``propose_draft_token_ids``, ``build_for_drafting``) are a served
  request's step (vLLM 0.11.0, 0.20.1, 0.30.0 wheels); the n-gram proposer's own ``propose`` in its constructor and a
  lone FlashInfer workspace frame are not placed by it.
- ``explain.vgraphread``: ``tpkit plan --from-log`` charges a vLLM log's CUDA-graph term as measured only where the
  log printed the estimate or reached the KV sizing; vl_1468 (stopped at the start-up free-memory check) gave
  325,632 tokens in plan --from-log and 320,512 in explain's re-plan of the same fix.
- ``explain.vnonumbers``: the vLLM first-request diagnosis with no number says that no fix can be shown to fit, and
  what would (vl_1471: NO_NUMBERS_UNWORDED -> NO_NUMBERS)."""

from __future__ import annotations

import pytest
from explain_testlib import cases, log_bytes, script

from tpkit.explain import explain_log

ROUNDTRIP = script("explain_roundtrip_check")
_P = "(Worker_TP0 pid=1201) ERROR 09-08 10:00:00 [multiproc_executor.py:962]"
_SITE = "/usr/local/lib/python3.12/dist-packages/vllm"
_OOM = (f"{_P} torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 394.00 MiB. GPU 0 has a total capacity "
        "of 21.48 GiB of which 286.31 MiB is free. Including non-PyTorch memory, this process has 21.19 GiB memory in "
        "use. Of the allocated memory 20.45 GiB is allocated by PyTorch, and 310.12 MiB is reserved by PyTorch but "
        "unallocated.")


def _tb(*frames: tuple[str, int, str, str]) -> bytes:
    """A worker's cut traceback (frames: file under vllm/, line, function, source line) ending in torch's OOM."""
    lines = [f"{_P} Traceback (most recent call last):"]
    for path, line, func, src in frames:
        lines += [f'{_P}   File "{_SITE}/{path}", line {line}, in {func}', f"{_P}     {src}"]
    return ("\n".join(lines + [_OOM]) + "\n").encode()


_WORKSPACE = ("v1/attention/backends/flashinfer.py", 750, "_get_workspace_buffer",
              "self._workspace_buffer = torch.zeros(")
_DRAFT = (("v1/spec_decode/llm_base_proposer.py", 571, "propose",
           "self.build_per_group_and_layer_attn_metadata(common_attn_metadata)"),
          ("v1/spec_decode/llm_base_proposer.py", 828, "build_per_group_and_layer_attn_metadata",
           "attn_metadata = attn_group.get_metadata_builder().build_for_drafting("),
          ("v1/attention/backend.py", 402, "build_for_drafting", "return self.build("),
          ("v1/attention/backends/flashinfer.py", 764, "build", "workspace_buffer=self._get_workspace_buffer(),"),
          _WORKSPACE)


def test_drafter_workspace_oom_is_a_served_request():
    # the drafter's own FlashInfer builder allocates its 394 MiB workspace at its first build: the first propose
    e = explain_log(_tb(*_DRAFT))
    assert e.diagnosis.phase == "first_request"
    assert "build_for_drafting" in e.parsed.primary_failure.phase_evidence


def test_propose_draft_token_ids_alone_is_a_served_request():
    e = explain_log(_tb(("v1/worker/gpu_model_runner.py", 4627, "propose_draft_token_ids",
                         "self._draft_token_ids = self.propose_draft_token_ids("), _WORKSPACE))
    assert e.diagnosis.phase == "first_request"


def test_lone_workspace_frame_is_not_moved():
    # whose builder ran is not said: the target model's is allocated at start-up (graph profiling, the FlashInfer
    # warm-up); vl_1155's abridged excerpt is this frame alone and stays unplaced
    assert explain_log(_tb(_WORKSPACE)).diagnosis.phase == "other"
    assert explain_log(log_bytes("vl_1155")).diagnosis.phase == "other"


def test_ngram_constructor_propose_is_not_moved():
    # NgramProposer.__init__ calls its own propose to compile its kernels: a start-up step, not a request
    e = explain_log(_tb(("v1/spec_decode/ngram_proposer.py", 57, "__init__", "self.propose("),
                        ("v1/spec_decode/ngram_proposer.py", 150, "propose", "self.batch_propose(")))
    assert e.diagnosis.phase != "first_request"


def test_drafter_dummy_run_in_the_profile_stays_kv_pool():
    # the drafter's start-up runs build no metadata; a profile-run traceback through them stays the profile's
    e = explain_log(_tb(("v1/worker/gpu_model_runner.py", 5810, "profile_run", "self._dummy_run("),
                        ("v1/worker/gpu_model_runner.py", 5600, "_dummy_run", "self.drafter.dummy_run("),
                        ("v1/spec_decode/llm_base_proposer.py", 1618, "dummy_run", "self.model(**kwargs)")))
    assert e.diagnosis.phase == "kv_pool"


@pytest.mark.parametrize("case_id", ["vl_1155", "vl_1201", "vl_1204", "vl_1431", "vl_1438"])
def test_the_five_excerpts_stay_unplaced(case_id):
    # round cr36c re-read each against the wheels: none prints a frame, step, request line or message that places
    # its failure (docs/accuracy.md §7.3 round cr36c); no rule places them, and none places them wrongly
    assert explain_log(log_bytes(case_id)).diagnosis.phase == "other"


# -- vl_1468: the CUDA-graph term of a log that stopped before the profile ---------------------------------------

def _explained(case_id: str):
    """(the case, (explanation, model flag, source flags)) as scripts/explain_roundtrip_check.py explains it."""
    case = next(c for c in cases() if c["id"] == case_id)
    return case, ROUNDTRIP.explained(case, ROUNDTRIP.model_map())


def test_startup_check_log_measures_no_graph_term():
    from tpkit.explain.fromlog import measured_startup
    from tpkit.explain.vgraphread import graph_term_read

    _, (e, _model, _given) = _explained("vl_1468")
    assert not graph_term_read(e.anchored)
    assert "cuda_graphs" not in measured_startup(e).terms


def test_a_log_with_its_kv_sizing_keeps_the_graph_reading():
    # a log that printed 'Available KV cache memory' without an estimate still reads 0 (the release unknown)
    from tpkit.explain.fromlog import measured_startup
    from tpkit.explain.vgraphread import graph_term_read

    text = (b"INFO 07-17 10:00:00 [gpu_model_runner.py:1770] Model loading took 14.99 GiB and 3.1 seconds\n"
            b"INFO 07-17 10:00:09 [gpu_worker.py:232] Available KV cache memory: 52.31 GiB\n"
            b"INFO 07-17 10:00:09 [kv_cache_utils.py:716] GPU KV cache size: 428,544 tokens\n")
    e = explain_log(text)
    assert graph_term_read(e.anchored)
    assert measured_startup(e).terms.get("cuda_graphs") is not None


def test_vl_1468_utilization_fix_round_trips():
    case, (e, model, given) = _explained("vl_1468")
    rows = [r for r in ROUNDTRIP.roundtrip(case, e, model, given) if r["flags"].startswith("--gpu-memory-utilization")]
    assert rows and rows[0]["outcome"] == "match", rows
    assert rows[0]["kv_tokens"] == rows[0]["plan_kv_tokens"]


# -- vl_1471: no number, worded ---------------------------------------------------------------------------------

def test_no_number_first_request_is_worded():
    e = explain_log(log_bytes("vl_1471"))
    cause = e.diagnosis.cause
    assert e.diagnosis.phase == "first_request" and not e.diagnosis.fixes
    assert "no fix can be shown to fit" in cause and "more GPUs" in cause and "nor the KV cache" in cause


def test_first_request_with_sizes_keeps_its_shortfall():
    # vl_1432 prints the OOM's sizes: its cause is the shortfall and its suggestion, not the no-number words
    e = explain_log(log_bytes("vl_1432"))
    assert "short by 2.56 MiB" in e.diagnosis.cause and "no fix can be shown" not in e.diagnosis.cause
    assert e.diagnosis.fixes


def test_words_do_not_deny_a_printed_kv_cache():
    from tpkit.explain.vnonumbers import worded_cause

    assert worded_cause("x", None, []).endswith("a smaller or quantized checkpoint")
    said = worded_cause("x", None, [], kv_printed=True)
    assert "prints its KV cache but not the OOM's sizes" in said and "nor the KV cache" not in said
    assert worded_cause("x", object(), []) == "x" and worded_cause("x", None, [object()]) == "x"

