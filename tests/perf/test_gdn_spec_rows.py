"""bench/gdn_spec_rows.py (helper gdn23, issue 13): every hybrid Gated-DeltaNet row with speculation side by side, and
the recorded findings (docs/accuracy.md §4.5, helper gdn23): the wrong signs are all vLLM at TP ≥ 2, whose measured
cycle / step ratio the model misses while it matches it at TP 1 and on the P2P board; and no link term that fits the
plain step turns them right.  Lead (2026-12-08, session 38): sp38's nine Qwen3.6-27B INT8 native-MTP rows on one MI210
(TP 1) are wrong too — their source measures each MTP draft forward at 1.16 target steps — so the TP ≥ 2 finding holds
for every other source, and the link what-if is asked only of wrong rows that have a link (TP ≥ 2)."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))


@pytest.fixture(scope="module")
def items():
    import gdn_spec_rows as g

    return g.rows()


def _wrong(x: dict) -> bool:
    return x["comparable"] and (x["speedup"]["predicted"] > 1) != (x["speedup"]["measured"] > 1)


def test_every_gdn_row_is_listed_and_priced_as_decode_published_does(items):
    # Helper sp36b (2026-12-07): 145 -> 156 with the 11 blind Qwen3.6-27B-FP8 (TP 2) / Qwen3.5-9B-FP8 rows (all hybrid GDN).
    # Helper sp37 (2026-12-07): 156 -> 172 with the 16 blind Qwen3.8-27B MTP rows on one B200 (hybrid GDN).
    # Lead (2026-12-08, session 38): 172 -> 214 with sp38's 9 MI210 Qwen3.6-27B INT8 and 33 Qwen3.8-27B FP8 rows.
    assert len(items) == 214 and {x["class"] for x in items} == {"hybrid GDN", "hybrid GDN MoE"}
    for x in items:
        assert x["speedup"]["predicted"] == pytest.approx(
            x["accept_length"] * x["step_ms"]["predicted"] / x["cycle_ms"]["predicted"], rel=1e-6)
        assert x["parts_ms"]["verify"] > 0 and x["parts_ms"]["draft"] > 0


def test_the_wrong_gdn_rows_are_vllm_at_tp_2_or_more(items):
    wrong = [x for x in items if _wrong(x)]
    assert wrong and all(x["engine"].startswith("vllm") for x in wrong)
    assert {x["source"] for x in wrong if x["tp"] == 1} == {"s38_mi210_q36_w8a8"}   # the MI210 rows (session 38)
    links = {x["row"]: x["link"] for x in items}
    assert links[297] == "pcie no P2P" and links[388] == "nvlink"   # the 3090 rig and the A100 SXM4 pair


def test_the_cycle_step_ratio_is_missed_at_tp_2_or_more_only(items):
    import gdn_spec_rows as g

    def ratios(select):
        xs = [x for x in items if x["comparable"] and x["cycle_ms"]["measured"] and select(x)]
        meas = sorted(x["cycle_ms"]["measured"] / x["step_ms"]["measured"] for x in xs)
        pred = sorted(x["cycle_ms"]["predicted"] / x["step_ms"]["predicted"] for x in xs)
        return meas[len(meas) // 2], pred[len(pred) // 2]

    meas, pred = ratios(lambda x: x["engine"].startswith("vllm") and x["tp"] == 1)
    assert abs(meas / pred - 1) < 0.10              # TP 1: the model's cycle / step is the measured one
    meas, pred = ratios(lambda x: g.group_key(x) == ("vllm", "TP ≥ 2", "pcie P2P"))
    assert abs(meas / pred - 1) < 0.10              # 4× RTX PRO 6000 (P2P): also
    for engine in ("vllm", "sglang"):               # the 3090 rig, both engines: the cycle is missed by far more
        meas, pred = ratios(lambda x: g.group_key(x) == (engine, "TP ≥ 2", "pcie no P2P"))
        assert meas / pred > 1.4


def test_no_link_term_that_fits_the_plain_step_turns_the_wrong_rows(items):
    import gdn_spec_rows as g

    wrong = [x for x in items if _wrong(x) and x["tp"] >= 2]   # TP 1 has no all-reduce to cost
    overshoot = 0
    for x in wrong:
        w = g.link_what_if(x)
        assert w["latency_speedup"] > x["speedup"]["predicted"] > 1   # a per-call cost raises the speed-up
        overshoot += w["bandwidth_step_ms"] > w["measured_step_ms"]
    assert overshoot >= len(wrong) - 1   # a byte-proportional one would need a plain step slower than measured


def test_tp_4_over_tp_2_speeds_plain_decoding_up_and_speculation_not_on_the_3090_rig(items):
    import statistics

    import gdn_spec_rows as g

    pairs = g.tp_pairs(items)
    for engine in ("vllm", "sglang"):
        ps = [p for p in pairs if p["engine"].startswith(engine)]
        assert len(ps) >= 9 and all(p["engine"] == ps[0]["engine"] for p in ps)

        def med(key):
            return statistics.median(p[key] for p in ps)

        assert med("plain_measured") > 1.25 and med("plain_predicted") > 1.4   # the plain step scales as modelled
        assert med("spec_measured") < 1.15 < 1.4 < med("spec_predicted")     # the measured cycle does not
