"""Helper sgx14 (2026-12-05): SGLang's balance check failing on mixed card sizes (told apart from another process by
the printed numbers), and SGLang's 'Not enough GPU memory for hybrid … state cache' error (wheel text, 0.5.20)."""

from pathlib import Path

from tpkit.explain import explain_log

LOGS = Path(__file__).resolve().parents[1] / "logs" / "data" / "sglang"

# sglang 0.5.20 mem_cache/kv_cache_configurator.py _handle_max_mamba_cache, its f-string filled in
HYBRID = (b"[2026-10-02 10:00:00] Scheduler hit an exception: Traceback (most recent call last):\n"
          b"RuntimeError: Not enough GPU memory for hybrid (mamba/linear-attention) state cache. Computed "
          b"max_mamba_cache_size=0 (total_rest_memory=0.41 GB, mamba_cache_per_req=148.50 MB). Try: (1) reduce "
          b"--max-running-requests, (2) increase --mem-fraction-static, (3) reduce --speculative-num-draft-tokens, "
          b"or (4) use GPUs with more memory.\n")


def _explain(case_id):
    return explain_log((LOGS / f"{case_id}.log").read_bytes())


def test_mixed_card_sizes_are_not_blamed_on_another_process():
    for case_id in ("sg_451", "sg_488"):
        d = _explain(case_id).diagnosis
        assert d.phase == "imbalance" and "mixed card sizes" in d.cause and "another process on" not in d.cause
        flags = [f.flags for f in d.fixes]
        assert any("--pp-size" in f.flags + f.note for f in d.fixes) and any("INBALANCE_CHECK" in f for f in flags)
        assert any(f.fits for f in d.fixes)


def test_another_process_stays_another_process():
    """sg_487: 147.9 GiB free on one rank of idle ~176 GiB cards: no catalog card is that size when idle."""
    d = _explain("sg_487").diagnosis
    assert "another process" in d.cause and "mixed card sizes" not in d.cause


def test_mixed_cards_re_plan_pipeline_parallel_and_note_the_later_state_cache_failure():
    d = _explain("sg_488").diagnosis
    assert "--tp-size 1 --pp-size 2" in [f.flags for f in d.fixes]
    assert any("hybrid state cache" in f and "0.41 GiB" in f for f in d.findings)


def test_hybrid_state_cache_error_is_read_and_re_planned():
    e = explain_log(HYBRID)
    f = e.parsed.primary_failure
    assert f.kind == "hybrid_state_memory" and f.phase == "kv_pool"
    assert abs(f.size("total_rest_memory").value.gib - 0.41) < 0.01
    assert abs(f.size("mamba_cache_per_req").value.bytes / 2 ** 20 - 148.5) < 0.01
    assert f.count("max_mamba_cache_size").value == 0
    d = e.diagnosis
    assert d.phase == "kv_pool" and "state pool gets no request slot" in d.cause
    # 0.41 GiB × 0.9 / 1.9 = 0.194 GiB < two 148.5 MiB states; an explicit size of half the rest fits
    assert "--max-mamba-cache-size 1" in [x.flags for x in d.fixes] and any(x.fits for x in d.fixes)
    assert d.short_by.bytes > 0


def test_mixed_cards_from_the_gpu_names_the_log_prints():
    """No numbers quoted, but the log names two card sizes (an environment list)."""
    log = (b"GPU 0: NVIDIA GeForce RTX 4090\nGPU 1: NVIDIA GeForce RTX 4080\n"
           b"RuntimeError: The memory capacity is unbalanced. Some GPUs may be occupied by other processes.\n")
    d = explain_log(log).diagnosis
    assert d.phase == "imbalance" and "mixed card sizes" in d.cause and "RTX-4080" in d.cause
    one = explain_log(b"GPU 0: NVIDIA GeForce RTX 4090\nGPU 1: NVIDIA GeForce RTX 4090\n" + log.split(b"\n")[2])
    assert "another process" in one.diagnosis.cause
