"""Two SGLang rules of ``tpkit explain`` pinned on the MI355X logs of round mv15 (docs/accuracy.md §6.4).

* ROCm aiter × 0.85 on mem_fraction_static (``explain.sgrelease.aiter_factor``; ``engines.sglang.choices.
  rocm_aiter_factor``: ModelRunner in 0.4.7–0.5.4, ServerArgs from 0.5.5, read in the 0.5.5–0.5.23 wheels): a
  flag's fraction is multiplied on an AMD GPU when the log prints the aiter backend (or none); not when it prints
  another backend, and not for a fraction the log prints from 0.5.5 on (ServerArgs multiplied it before printing).
* The state pool of a hybrid whose log prints no 'Mamba Cache is allocated' line (``explain.sgstate.
  planned_state_rest``: the planner's ρ/(1 + ρ) split, ``engines.sglang.mamba.plan_mamba_pool``); a dense model,
  or a log that prints the pool, keeps its own path.
"""

from explain_testlib import log_bytes

from tpkit.explain import explain_log

_QWEN06 = "tests/validation/configs/Qwen--Qwen3-0.6B.json"
_QWEN38 = "tests/validation/configs/Qwen--Qwen3.8-27B.json"


def _strip(raw: bytes) -> bytes:
    return b"\n".join(l for l in raw.splitlines() if b"KV Cache is allocated" not in l
                      and b"max_total_num_tokens=" not in l) + b"\n"


def _explain(raw: bytes, **flags):
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    if str(flags.get("model", "")).startswith("tests/"):
        flags["model"] = str(root / flags["model"])
    return explain_log(_strip(raw), flags=flags)


def test_a_flag_fraction_on_mi355x_with_aiter_is_scaled():
    e = _explain(log_bytes("sg_222"), model=_QWEN06, gpu="MI355X", mem_fraction_static=0.6)
    assert abs(e.anchored.fraction - 0.6 * 0.85) < 1e-9 and "aiter" in e.anchored.fraction_source
    lo, hi = e.kv_predicted_range
    assert lo <= 1_360_288 <= hi


def test_another_printed_backend_is_not_scaled():
    raw = log_bytes("sg_222").replace(b"Use aiter backend by default", b"Use triton backend by default")
    raw = b"[01:34:37] server_args=ServerArgs(attention_backend='triton')\n" + raw
    e = _explain(raw, model=_QWEN06, gpu="MI355X", mem_fraction_static=0.6)
    assert e.anchored.fraction == 0.6


def test_a_fraction_the_log_prints_from_0_5_5_is_not_scaled_again():
    raw = b"[01:34:36] server_args=ServerArgs(mem_fraction_static=0.51, tp_size=1)\n" + log_bytes("sg_222")
    e = _explain(raw, model=_QWEN06, gpu="MI355X")
    assert e.anchored.fraction == 0.51
    lo, hi = e.kv_predicted_range
    assert lo <= 1_360_288 <= hi


def test_an_nvidia_gpu_is_not_scaled():
    e = _explain(log_bytes("sg_221"), model="Qwen/Qwen3-8B", mem_fraction_static=0.8)
    assert e.anchored.fraction == 0.8


def test_a_hybrid_without_a_printed_state_pool_takes_the_configs_split():
    e = _explain(log_bytes("sg_224"), model=_QWEN38, gpu="MI355X", mem_fraction_static=0.85,
                 max_running_requests=32)
    rows = [r for r in e.anchored.rows if r.item == "KV budget after the state pool"]
    assert rows and "the config's state pool" in rows[0].meaning
    lo, hi = e.kv_predicted_range
    assert abs(lo - 1_543_256) / 1_543_256 < 0.002 and abs(hi - 1_543_256) / 1_543_256 < 0.002


def test_a_dense_model_has_no_state_split():
    e = _explain(log_bytes("sg_222"), model=_QWEN06, gpu="MI355X", mem_fraction_static=0.6)
    assert not any(r.item == "KV budget after the state pool" for r in e.anchored.rows)


def test_a_printed_state_pool_keeps_its_own_path():
    e = explain_log(_strip(log_bytes("sg_016")))
    assert not any("the config's state pool" in r.meaning for r in e.anchored.rows)


def test_the_planned_state_split_gives_an_ordered_range_when_a_slot_steps_inside_the_budget():
    """sg_333 (Qwen3.5-4B, no 'Mamba Cache is allocated' line): the planner's split is taken at both ends of the
    budget in whole per-request slots, so the high end can carry one slot more and leave less KV budget than the low
    end; the rebuilt range is their hull (it printed 1,865,071–1,863,997 before)."""
    from tpkit.explain.interval import Iv
    from tpkit.explain.sgstate import planned_state_rest
    from tpkit.units import Bytes

    e = _explain(log_bytes("sg_333"), model="tests/logs/data/configs/Qwen__Qwen3.5-4B/config.json", tp=1)
    lo, hi = e.kv_predicted_range
    assert lo <= hi
    rest = e.anchored.rest
    assert rest is not None and rest.low <= rest.high
    # the budget before the split, widened until the two ends straddle a slot step: the split stays a hull
    ctx = e.context
    for widen in range(0, 64 << 20, 1 << 20):
        planned = planned_state_rest(ctx, Iv(low=rest.low - Bytes(widen), high=rest.high + Bytes(widen)), 1, 1)
        assert planned is not None and planned[0].low <= planned[0].high
