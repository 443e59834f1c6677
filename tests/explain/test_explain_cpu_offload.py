"""``tpkit explain`` on sg_081 (SGLang 0.5.9, Qwen3-14B fp16 tp 2, ``--cpu-offload-gb 48``): the dump's value is read,
the weights row says the printed usage lacks the offloaded layers (with tpkit's rule when the config is given), and
the capacity is still rebuilt from the anchors (the budget reads the free memory after the load)."""

from pathlib import Path

from explain_testlib import log_bytes

from tpkit.explain import explain_log

QWEN3_14B = str(Path(__file__).resolve().parents[1] / "validation" / "configs" / "Qwen--Qwen3-14B.json")


def _weights(e):
    return next(r for r in e.rows if r.item == "weights")


def test_sg_081_weights_row_names_the_offload():
    e = explain_log(log_bytes("sg_081"))
    assert e.context.get("cpu_offload_gb") == 48.0
    assert "--cpu-offload-gb 48" in _weights(e).meaning and "so this usage lacks them" in _weights(e).meaning
    lo, hi = e.kv_predicted_range
    assert lo <= e.kv_printed == 139_814 <= hi


def test_sg_081_with_the_config_gives_tpkit_s_rule():
    e = explain_log(log_bytes("sg_081"), flags={"model": QWEN3_14B})
    assert "all 40 decoder layers" in _weights(e).meaning
