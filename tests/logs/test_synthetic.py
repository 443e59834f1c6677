"""The seed scenario (tests/logs/data/synthetic/, labelled synthetic): Kimi-K2.5 INT4, 8 × RTX PRO 6000, SGLang,
fraction 0.85, custom all-reduce forced on over PCIe, built from the README walk-through's numbers."""

from logs_testlib import DATA

from tpkit.logs import parse_log
from tpkit.units import GiB

LOG = DATA / "synthetic" / "kimi_k25_8x_rtx_pro_6000_sglang.log"


def test_seed_scenario_reads_right():
    parsed = parse_log(LOG.read_bytes())
    run = parsed.run
    assert (run.engine.engine, run.value("model"), run.value("tp"), run.value("mem_fraction")) == (
        "sglang", "moonshotai/Kimi-K2.5", 8, 0.85)
    assert run.value("disable_custom_all_reduce") is False
    assert not any(f.kind == "custom_allreduce_disabled" for f in parsed.failures) and parsed.status == "ok"
    assert len([r for r in parsed.ranks if r.role == "worker"]) == 8
    view = parsed.select_rank()
    assert view.rank.label == "TP0"                       # 93.01 GiB before weights: the tightest rank
    assert view.last("load_end_avail").size.contains(GiB(21.65))
    assert view.last("weights_mem_usage").size.text == "71.36 GB"
    assert view.last("kv_tokens").count.value == 117631 and view.last("graph_mem_usage").size.text == "1.21 GB"
    assert {m.what for m in parsed.missing} >= {"gpu"} and "weights" not in {m.what for m in parsed.missing}
