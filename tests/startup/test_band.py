"""The error band: each estimated term carries ± bytes; the plan re-made at both ends gives ± tokens."""

import json

import pytest

from tpkit.cli import main
from tpkit.engines.sglang import SglangOptions, plan_sglang
from tpkit.engines.vllm import VllmOptions, plan_vllm
from tpkit.hardware.catalog import lookup_gpu
from tpkit.hardware.machine import GpuState, MachineProfile
from tpkit.memory.band import at_band_end, estimated, measured_terms, with_band
from tpkit.models import load_model
from tpkit.parallel import ParallelSpec
from tpkit.startup import cuda_context
from tpkit.units import Bytes, GiB, MiB

MODEL = "meta-llama/Llama-3.1-8B-Instruct"
H100 = lookup_gpu("H100")


def _sglang(**kw):
    return with_band(plan_sglang, load_model(MODEL), H100, ParallelSpec(tp=2), SglangOptions(**kw))


def test_band_brackets_the_nominal_and_lists_the_estimated_terms():
    plan_sglang(load_model(MODEL), H100, ParallelSpec(tp=2), SglangOptions())  # fills the baseline cache first
    assert _sglang().band.estimates  # a cached baseline is still recorded in a band
    r = _sglang()
    lo, hi = r.band.kv_tokens
    assert lo < r.kv_tokens < hi and r.band.plus_minus_tokens == max(hi - r.kv_tokens, r.kv_tokens - lo)
    terms = {e.term for e in r.band.estimates}
    assert {"cuda_context", "nccl_init", "nccl_warmup", "process_overhead", "weights"} <= terms


def test_band_is_the_plan_with_every_estimated_term_at_its_ends():
    nominal = plan_sglang(load_model(MODEL), H100, ParallelSpec(tp=2), SglangOptions())
    with at_band_end(1):
        least = plan_sglang(load_model(MODEL), H100, ParallelSpec(tp=2), SglangOptions())
    uses = {l.item: l for l in nominal.ledger.items if l.kind == "use"}
    moved = {l.item: l.bytes - uses[l.item].bytes for l in least.ledger.items if l.item in uses}
    for item, line in uses.items():
        if line.uncertainty:
            assert moved[item] == line.uncertainty, item  # each start-up line moves by exactly its ±
    assert least.kv_tokens == _sglang().band.kv_tokens[0]


def test_the_cached_baseline_is_not_served_at_the_wrong_end():
    a = plan_sglang(load_model(MODEL), H100, ParallelSpec(tp=2), SglangOptions())
    with at_band_end(-1):
        b = plan_sglang(load_model(MODEL), H100, ParallelSpec(tp=2), SglangOptions())
    assert b.kv_tokens > a.kv_tokens
    assert plan_sglang(load_model(MODEL), H100, ParallelSpec(tp=2), SglangOptions()).kv_tokens == a.kv_tokens


def test_vllm_band_has_blocks_and_its_own_estimates():
    r = with_band(plan_vllm, load_model(MODEL), H100, ParallelSpec(tp=1), VllmOptions())
    lo, hi = r.band.kv_blocks
    assert lo < r.extra["kv_blocks"] < hi
    assert {"activation_peak", "cuda_graphs", "weights"} <= {e.term for e in r.band.estimates}
    doc = r.to_json_dict()
    assert doc["kv_tokens_range"] == list(r.band.kv_tokens) and doc["kv_blocks_range"] == [lo, hi]


def test_a_measured_term_has_no_band():
    with measured_terms({"cuda_context": MiB(500)}, source="log anchor"):
        c = cuda_context(H100)
        r = _sglang()
    assert c.bytes == MiB(500) and c.uncertainty == Bytes(0) and c.source == "log anchor"
    assert "cuda_context" not in {e.term for e in r.band.estimates}
    assert [e.term for e in r.band.measured] == ["cuda_context"]
    assert r.band.plus_minus_tokens < _sglang().band.plus_minus_tokens


def test_a_probed_context_is_a_measurement_without_band():
    state = GpuState(index=0, name="NVIDIA H100", total_bytes=H100.total_bytes, free_bytes=GiB(78),
                     used_by_this_process_bytes=MiB(520), compute_capability=(9, 0))
    machine = MachineProfile(gpus=(state, _other(state)))
    r = with_band(plan_sglang, load_model(MODEL), H100, ParallelSpec(tp=2), SglangOptions(), machine=machine)
    assert "cuda_context" not in {e.term for e in r.band.estimates}
    assert r.ledger.get("CUDA context").uncertainty == Bytes(0)


def _other(state):
    return GpuState(index=1, name=state.name, total_bytes=state.total_bytes, free_bytes=state.free_bytes,
                    used_by_this_process_bytes=state.used_by_this_process_bytes,
                    compute_capability=state.compute_capability)


def test_estimated_moves_only_under_an_end_and_never_below_zero():
    assert estimated(GiB(1), MiB(100), term="x", item="x") == GiB(1)
    with at_band_end(-1):
        assert estimated(MiB(50), MiB(100), term="x", item="x") == Bytes(0)
    with pytest.raises(ValueError):
        with at_band_end(2):
            pass


def test_cli_shows_plus_minus_tokens_and_json_has_the_range(capsys):
    assert main(["plan", MODEL, "--gpu", "H100", "--tp", "2"]) == 0
    out = capsys.readouterr().out
    assert " ± " in out and "tokens" in out.split("KV cache:")[1].split("\n")[0] and "band:" in out
    assert main(["plan", MODEL, "--gpu", "H100", "--tp", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    lo, hi = doc["kv_tokens_range"]
    assert lo <= doc["kv_tokens"] <= hi and doc["band"]["estimated_terms"]
    assert any("uncertainty_bytes" in line for line in doc["ledger"])


def test_a_multi_rank_sglang_band_carries_the_rank_spread_at_its_high_end_only():
    """SGLang sizes every rank from the MIN over the ranks; tpkit's start-up terms are rank 0's (the evidence is
    TP0's lines).  The measured spread below rank 0 of the CUDA deployments (``startup.rankspread.PLATFORM_STATS``,
    the figure ``explain`` uses too) is a named band term: tp 2 lists it, tp 1 does not; the nominal ledger has no
    line for it, the high end charges exactly that p90."""
    from tpkit.startup.rankspread import PLATFORM_STATS

    cuda_p90 = GiB(PLATFORM_STATS["cuda"]["below_rank0"][0])
    two = _sglang()
    spread = [e for e in two.band.estimates if e.term == "rank_spread"]
    assert spread and spread[0].uncertainty == cuda_p90 and spread[0].nominal == Bytes(0)
    assert f"{PLATFORM_STATS['cuda']['below_rank0'][2]} CUDA deployments" in spread[0].source
    one = with_band(plan_sglang, load_model(MODEL), H100, ParallelSpec(tp=1), SglangOptions())
    assert not any(e.term == "rank_spread" for e in one.band.estimates)
    nominal = plan_sglang(load_model(MODEL), H100, ParallelSpec(tp=2), SglangOptions())
    assert not any("rank spread" in l.item for l in nominal.ledger.items)
    with at_band_end(1):
        least = plan_sglang(load_model(MODEL), H100, ParallelSpec(tp=2), SglangOptions())
    assert [l.bytes for l in least.ledger.items if "rank spread" in l.item] == [cuda_p90]
    with at_band_end(-1):
        most = plan_sglang(load_model(MODEL), H100, ParallelSpec(tp=2), SglangOptions())
    assert not any("rank spread" in l.item for l in most.ledger.items)  # never below rank 0's own


def test_an_amd_gpu_takes_the_rocm_rank_spread_and_a_bad_platform_is_refused():
    """An AMD GPU's multi-rank SGLang band takes the ROCm deployments' p90 (rank 0 0.42 GiB above the others on two
    tp-8 hosts), wider than the CUDA one; an unknown platform name raises, naming the choices."""
    from tpkit.startup.rankspread import PLATFORM_STATS, sglang_plan_spread

    rocm_p90 = GiB(PLATFORM_STATS["rocm"]["below_rank0"][0])
    amd = with_band(plan_sglang, load_model(MODEL), lookup_gpu("MI300X"), ParallelSpec(tp=2), SglangOptions())
    spread = [e for e in amd.band.estimates if e.term == "rank_spread"]
    assert spread and spread[0].uncertainty == rocm_p90 > GiB(PLATFORM_STATS["cuda"]["below_rank0"][0])
    assert "ROCm deployments" in spread[0].source
    with pytest.raises(ValueError, match="platform must be one of"):
        sglang_plan_spread(2, "xpu")


def test_every_band_context_restores_the_state_it_found_even_on_error():
    """``band._bound`` is the one set/reset of the band's context variables (at_band_end, measured_terms,
    unmeasured, collecting, aside): each holds its value inside the block and puts back the outer one after it,
    also when the block raises, so nested re-plans see their caller's state again."""
    from contextvars import ContextVar

    from tpkit.memory.band import _bound, aside, band_end, collecting, measured_term, state_key, unmeasured

    var = ContextVar("test_var", default="outer")
    with _bound(var, "inner"):
        assert var.get() == "inner"
    assert var.get() == "outer"
    with pytest.raises(KeyError), _bound(var, "inner"):
        raise KeyError
    assert var.get() == "outer"

    before = state_key()
    with at_band_end(1), measured_terms({"weights": GiB(2)}, source="log"), collecting() as seen:
        assert band_end() == 1 and measured_term("weights") == (GiB(2), "log") and seen == {}
        with unmeasured("weights"), aside():
            assert measured_term("weights") is None and state_key()[2] == 0
        assert measured_term("weights") == (GiB(2), "log") and state_key()[2] != 0
        with pytest.raises(RuntimeError), at_band_end(-1), unmeasured("weights"):
            raise RuntimeError
        assert band_end() == 1 and measured_term("weights") == (GiB(2), "log")
    assert state_key() == before and band_end() == 0 and measured_term("weights") is None
