"""The multimodal caches SGLang reserves out of the KV budget, in ``tpkit explain`` (helper capx).

From 0.5.18 ``mem_cache/kv_cache_configurator.py _profile_available_bytes`` subtracts
``mm_runtime_reservation_gb`` (``SGLANG_VLM_CACHE_SIZE_MB`` = 100, + ``SGLANG_MM_FEATURE_CACHE_MB`` with a GPU
feature transport) from ``rest`` for a multimodal model; 0.5.16 and 0.5.17 have no such term (read in the wheels;
sglang PR #34141).  The planner already charged it (``engines.sglang.multimodal.mm_reservation``); the log
explanation now does too (``explain.sgrelease.mm_reservation_for``).  The synthetic log uses sg_100's numbers
(Qwen3-VL-2B-Instruct on an RTX 5060 Ti, tp 1) with 'Load weight end. elapsed=' (0.5.9–0.5.23) only.
Helper sgf14 (2026-12-05): 0.5.17 resolves an unset --mm-feature-transport to cuda_ipc on one CUDA node and the
tokenizer manager allocates the 1024 MiB feature pool before the KV pool is sized, so the "before" release here is
0.5.16; 0.5.17 takes 1 GiB unless the log (or a flag) says cpu.
"""

from pathlib import Path

from tpkit.explain import explain_log
from tpkit.units import MiB

_CONFIGS = Path(__file__).resolve().parents[2] / "tests/validation/configs"
_VL = str(_CONFIGS / "Qwen--Qwen3-VL-2B-Instruct.json")
_TEXT = str(_CONFIGS / "Qwen--Qwen3-0.6B.json")
_ROW = "multimodal caches reserved out of the KV budget"

_LOG = (
    "[2026-10-01 08:19:36] Load weight begin. avail mem=15.16 GB\n"
    "[2026-10-01 08:19:38] Load weight end. elapsed=1.74 s, type=Qwen3VLForConditionalGeneration, "
    "avail mem=10.98 GB, mem usage=4.18 GB.\n"
).encode()


def _explain(model: str, **flags):
    base = {"model": model, "gpu": "RTX-5060-Ti", "tp": 1, "mem_fraction_static": 0.85}
    return explain_log(_LOG, flags={**base, **flags})


def _row(e):
    return next((r for r in e.rows if r.item == _ROW), None)


def _rest(e):
    return next(r.value for r in e.rows if r.item == "KV budget (rest)")


def test_0_5_17_takes_the_feature_pool_unless_the_transport_is_cpu():
    row = _row(_explain(_VL, engine_version="0.5.17"))
    assert row is not None and row.value.low == row.value.high == MiB(1024)
    assert "SGLANG_MM_FEATURE_CACHE_MB" in row.meaning
    assert _row(_explain(_VL, engine_version="0.5.17", mm_feature_transport="cpu")) is None


def test_reserved_from_0_5_18_not_in_0_5_16():
    old, new = _explain(_VL, engine_version="0.5.16"), _explain(_VL, engine_version="0.5.18")
    assert _row(old) is None
    row = _row(new)
    assert row is not None and row.value.low == row.value.high == MiB(100)
    assert "SGLANG_VLM_CACHE_SIZE_MB" in row.meaning and "0.5.18" in row.meaning
    assert _rest(old).low - _rest(new).low == MiB(100) and _rest(old).high - _rest(new).high == MiB(100)
    assert new.kv_predicted_range[1] < old.kv_predicted_range[0]  # 100 MiB fewer tokens: ~3.4 k of 30,720 B


def test_text_model_and_language_model_only_reserve_nothing():
    assert _row(_explain(_TEXT, engine_version="0.5.18")) is None
    # --language-model-only: ModelConfig.is_multimodal False from 0.5.20 (mm_reservation), not in 0.5.18
    assert _row(_explain(_VL, engine_version="0.5.20", language_model_only=True)) is None
    assert _row(_explain(_VL, engine_version="0.5.18", language_model_only=True)) is not None


def test_releases_straddling_0_5_18_give_zero_to_the_reservation():
    """No version flag: the formats allow 0.5.9–0.5.23, so 0 … 100 MiB (as the stream pool straddles 0.5.9)."""
    row = _row(_explain(_VL))
    assert row is not None and row.value.low == MiB(0) and row.value.high == MiB(100)
    assert "0 before 0.5.18" in row.meaning


def test_qwen3_vl_on_a_large_hopper_gpu_from_0_5_20():
    """0.5.20's Qwen3-VL override on SM90 ≥ 60 GiB: the CUDA-IPC feature cache (1024 MiB) instead of the VLM
    cache; 0.5.19 reserves the default 100 MiB on the same GPU."""
    assert _row(_explain(_VL, engine_version="0.5.20", gpu="H100")).value.high == MiB(1024)
    assert _row(_explain(_VL, engine_version="0.5.19", gpu="H100")).value.high == MiB(100)


def test_replanned_fixes_take_the_reservation_too():
    """The diagnosis re-plans its fixes from the same budget: 0.5.18's reservation comes off every re-planned
    budget (``explain.sgbudget.BudgetReplan``), and the fraction a fix asks for covers it."""
    from tpkit.explain.sgbudget import BudgetReplan

    old, new = _explain(_VL, engine_version="0.5.16"), _explain(_VL, engine_version="0.5.18")
    assert new.anchored.mm_reservation is not None and old.anchored.mm_reservation is None
    for knobs in ({}, {"fraction": 0.7}, {"cell_scale": 0.5}):
        rest_old, _ = BudgetReplan(old.anchored, old.context).budget(**knobs)
        rest_new, _ = BudgetReplan(new.anchored, new.context).budget(**knobs)
        assert rest_old - rest_new == MiB(100).bytes
