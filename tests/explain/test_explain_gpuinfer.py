"""The GPU's total inferred from SGLang's memory arithmetic, and the default fraction it gives (issue 12)."""

from __future__ import annotations

from tpkit.engines.sglang.versions import newest_by_date
from tpkit.explain import explain_log
from tpkit.explain.gpuinfer import infer_sglang_total
from tpkit.logs import parse_log

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def _log(*lines: str) -> str:
    return "\n".join(lines) + "\n"


BEGIN_INIT = _log(
    "[2026-04-27 02:36:03] Init torch distributed ends. elapsed=0.27 s, mem usage=0.09 GB",
    "[2026-04-27 02:36:04] Load weight begin. avail mem=177.57 GB",
    "[2026-04-27 02:36:06] Load weight end. elapsed=1.97 s, type=Qwen3ForCausalLM, avail mem=162.30 GB, "
    "mem usage=15.28 GB.",
)


def test_interval_from_begin_plus_distributed_init():
    """'Load weight begin' avail + the distributed init's usage bound the total from below; the CUDA context's
    highest band end bounds it from above; B200 (178.35 GiB) is the only catalog GPU inside."""
    got = infer_sglang_total(parse_log(BEGIN_INIT), 1)
    assert abs(got.low.gib - (177.57 + 0.09 - 0.01)) < 0.002
    # the highest context band end is cdna3's since MI300X has a sample (1.06 GiB; helper sgr, 2026-12-03); its
    # one-sample band is the context term's derived floor since helper band26 (± 0.61 GiB, was ± 0.26)
    from tpkit.startup.table import entry

    cdna3 = entry("cuda_context", "cdna3")
    assert got.high is not None
    width = got.high.gib - got.low.gib  # that band end plus the two lines' print rounding (0.01 GB each)
    assert abs(width - (cdna3.bytes + cdna3.uncertainty).gib - 0.02) < 0.005
    assert any("highest band end: cdna3" in e for e in got.evidence)
    assert got.candidates == ("B200",)
    assert "line 2" in got.evidence[0] and "distributed init 0.09 GB" in got.evidence[0]


def test_interval_from_load_end_plus_usage_and_tp_widens_it():
    """Without 'Load weight begin': 'Load weight end' avail + mem usage; 8 ranks add NCCL's band above it."""
    text = _log("[2025-03-25 16:37:06 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, "
                "avail mem=63.48 GB, mem usage=15.11 GB.")
    one, eight = infer_sglang_total(parse_log(text), 1), infer_sglang_total(parse_log(text), 8)
    assert abs(one.low.gib - 78.58) < 0.01 and one.low == eight.low
    assert eight.high > one.high
    assert set(one.candidates) == {"H100-SXM-80GB", "H100-PCIe-80GB", "A100-SXM-80GB"}


def test_free_figure_alone_bounds_from_below_only():
    got = infer_sglang_total(parse_log(_log("[2024-12-13 01:44:59 TP0] Load weight end. type=MistralForCausalLM, "
                                            "dtype=torch.bfloat16, avail mem=9.69 GB")), 1)
    assert got.high is None and got.candidates == () and "no upper bound" in got.text()


def test_nothing_to_infer_from_says_so():
    """A log with no free-memory figure: no interval, and explain says what it could not find."""
    e = explain_log(_log("[2025-01-01 00:00:00 TP0] max_total_num_tokens=1000, max_prefill_tokens=16384"),
                    flags={"engine": "sglang"})
    assert e.context.gpu_inferred is None and e.context.gpu is None
    assert any(m.startswith("gpu total: not inferable: no free-memory figure") for m in e.missing)


def test_unique_candidate_becomes_the_gpu_and_the_default_fraction_follows():
    """sg_043-like: B200 inferred; SGLang 0.5.10–0.5.14's default on 183,359 MiB (0.854), reported as inferred."""
    e = explain_log(BEGIN_INIT, flags={"model": "Qwen/Qwen3-8B"})
    assert e.context.gpu.name == "B200" and e.context.gpu_source.startswith("inferred")
    assert abs(e.anchored.fraction - 0.854) < 1e-9 and e.anchored.fraction_range == (0.854, 0.854)
    d = e.to_dict()
    assert d["gpu"]["inferred"]["candidates"] == ["B200"] and d["gpu"]["name"] == "B200"
    assert any(m.startswith("gpu name: not printed; device total inferred") for m in d["missing"])


def test_several_candidates_of_one_table_era_give_one_fraction():
    """sg_013-like: three 80 GB GPUs fit; SGLang 0.4.4 (the log's date caps the release) defaults by tp: 0.88."""
    text = _log("[2025-03-25 16:37:06 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, "
                "avail mem=63.48 GB, mem usage=15.11 GB.")
    e = explain_log(text, flags={"model": LLAMA})
    assert e.anchored.fraction == 0.88 and "rules of 0.4.4" in e.anchored.fraction_source
    assert e.kv_predicted_range is not None


def test_default_boundary_inside_the_interval_gives_a_range():
    """SGLang 0.4.6's default: the by-tp table up to 81920 MiB, (gpu − 13 GiB) / gpu above.  A total bounded to
    79.6–80.5 GiB (no catalog GPU) straddles 81920 MiB: both sides are reported as a range."""
    text = _log("# pip install sglang==0.4.6", "[2025-05-10 10:00:00 TP0] Load weight begin. avail mem=79.60 GB",
                "[2025-05-10 10:00:00 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, "
                "avail mem=64.60 GB, mem usage=15.00 GB.")
    e = explain_log(text, flags={"model": LLAMA})
    assert e.context.version == "0.4.6"
    assert e.context.gpu is None and e.context.gpu_inferred.candidates == ()
    lo, hi = e.anchored.fraction_range
    assert hi == 0.88 and 0.83 < lo < 0.845  # table 0.88 at ≤ 81920 MiB; (gpu − 13 GiB) / gpu ≈ 0.838 just above
    assert "not pinned" in e.anchored.fraction_source


def test_default_below_the_boundary_is_the_table():
    """The same release with a total well below 81920 MiB (A100 40 GB class): the table value alone."""
    text = _log("# pip install sglang==0.4.6", "[2025-05-10 10:00:00 TP0] Load weight begin. avail mem=38.80 GB",
                "[2025-05-10 10:00:00 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, "
                "avail mem=23.80 GB, mem usage=15.00 GB.")
    e = explain_log(text, flags={"model": LLAMA})
    assert e.anchored.fraction == 0.88 and e.anchored.fraction_range == (0.88, 0.88)


def test_gpu_dependent_default_without_an_upper_bound_is_not_guessed():
    """Only a lower bound (a free figure alone) and a formula-era release: the default is not picked."""
    # no record prefix ('[HH:MM:SS TP0]' alone would date it to 0.2.15–0.3.3, whose default goes by tp only)
    text = _log("Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=176.33 GB")
    e = explain_log(text, flags={"model": LLAMA})  # formats: 0.2.15–0.5.15, no date: 0.5.15's rules
    assert e.anchored.fraction is None and "depends on the GPU's memory" in e.anchored.fraction_source
    assert e.kv_predicted_range is None


def test_pre_from_load_end_plus_config_usage():
    """No 'Load weight begin' nor usage: pre = 'Load weight end' avail + the load usage from the config, marked
    estimated; a by-tp release needs no GPU."""
    text = _log("[2024-12-13 01:44:59 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, "
                "avail mem=60.00 GB")
    e = explain_log(text, flags={"model": LLAMA})
    a = e.anchored
    assert a.pre_estimated and a.fraction == 0.88
    assert 60 + 14.7 < a.pre.low.gib < a.pre.high.gib < 60 + 15.5  # 8.03 B bf16 params = 14.96 GiB ± 1 % + extras
    assert any(m.startswith("pre_model_load_memory: not printed; estimated") for m in e.missing)


def test_tp_from_rank_prefixes():
    text = _log(*(f"[2026-02-26 16:41:18 TP{i}] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, "
                  f"avail mem=60.00 GB, mem usage=15.00 GB." for i in range(4)))
    e = explain_log(text)
    assert e.context.get("tp") == 4 and e.context.sources["tp"].startswith("inferred from the rank prefixes TP0…TP3")
    flagged = explain_log(text, flags={"tp": 8})  # a flag fills the gap: no contradiction with an inferred tp
    assert flagged.context.get("tp") == 8 and not flagged.context.contradictions


def test_release_capped_by_the_log_date():
    assert newest_by_date("0.5.3", "2024-12-13") == ("0.4.2", newest_by_date("0.5.3", "2024-12-13")[1])
    assert newest_by_date("0.5.15", "2026-04-27")[0] == "0.5.14"
    assert newest_by_date("0.5.15", "2026-07-10") == ("0.5.15", "")  # released that day: not capped
    assert newest_by_date("0.4.4", "2026-01-01") == ("0.4.4", "")
    assert newest_by_date("0.5.3", None) == ("0.5.3", "")


def test_siblings_and_gpus_sglang_refuses_are_no_candidates():
    """An interval around 31.4 GiB holds the RTX 5090 (31.36 GiB) and the V100 32 GB (31.75 GiB): SGLang does not
    run on a V100 (SM70, 'SGLang only supports sm75 and above.'), so the 5090 stays the only candidate.  Around
    79 GiB the H800 and A800 (totals assumed equal to H100 / A100: GpuSpec.total_printed False) do not join."""
    text = _log("[2026-10-04 10:00:00] Init torch distributed ends. mem usage=0.00 GB",
                "[2026-10-04 10:00:01] Load weight begin. avail mem=30.90 GB")
    got = infer_sglang_total(parse_log(text), 1)
    assert got.low.gib < 31.36 < 31.75 < got.high.gib and got.candidates == ("RTX-5090",)
    text = _log("[2025-03-25 16:37:06 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, "
                "avail mem=63.48 GB, mem usage=15.11 GB.")
    assert "H800" not in infer_sglang_total(parse_log(text), 1).candidates


RCCL_TP8 = _log(
    "[2026-05-20 03:30:11 TP0] Init torch distributed ends. elapsed=13.77 s, mem usage=10.04 GB",
    "[2026-05-20 03:30:11 TP2] Init torch distributed ends. elapsed=13.98 s, mem usage=10.46 GB",
    "[2026-05-20 03:30:12 TP0] Load weight begin. avail mem=277.27 GB",
    "[2026-05-20 03:30:12 TP2] Load weight begin. avail mem=276.85 GB",
)


def test_a_printed_distributed_init_bounds_the_total_instead_of_the_nccl_band():
    """sg_120 (MI355X tp 8, RCCL 10.04-10.46 GiB per rank, above NCCL's band): with the band the per-rank upper bound
    (277.27 + context + band) fell below the lower bound 287.30 and no GPU was inferred; the printed init bounds it
    (helper sgz, 2026-12-04)."""
    got = infer_sglang_total(parse_log(RCCL_TP8), 8)
    assert abs(got.low.gib - 287.30) < 0.02
    assert got.high is not None and got.high.gib > 287.98
    assert got.candidates == ("MI355X",)


def test_without_a_printed_init_the_nccl_band_still_bounds_the_total():
    """The same begin figures without the init lines: the table's band is the only bound above (below the low one
    here, so no upper bound and no candidate)."""
    text = "".join(line + "\n" for line in RCCL_TP8.splitlines() if "Load weight begin" in line)
    got = infer_sglang_total(parse_log(text), 8)
    assert got.high is not None and got.high.gib < 287.98 and "MI355X" not in got.candidates


def test_the_distributed_init_bound_covers_rccl_over_xgmi():
    """Helper ev32: the upper bound on the device total takes the highest NCCL band end over every transport,
    xgmi included (an AMD card's RCCL init, 2.94 ± 1.14 GiB at world 8, above the NVLink and PCIe cells)."""
    from tpkit.explain.gpuinfer import _dist_high
    from tpkit.startup.table import nccl_entry

    for tp in (2, 4, 8, 16):
        high, why = _dist_high(tp)
        assert high == max(nccl_entry(t, tp).bytes + nccl_entry(t, tp).uncertainty for t in ("nvlink", "pcie", "xgmi"))
        assert high >= nccl_entry("xgmi", tp).bytes + nccl_entry("xgmi", tp).uncertainty and "NCCL band" in why
