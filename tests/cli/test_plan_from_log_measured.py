"""``plan --from-log``: what the log measured and what it named.  SGLang sizes every rank from the MIN over ranks
(``startup.rankspread``): a log that prints every rank's load lines measured that minimum, so the plan carries no
rank-spread band term, and a log that prints fewer ranks keeps it (``explain.fromlog._ranks_printed``).  A model path
from another machine is planned by the name explain found it by (``explain.modelpath._by_path_tail``)."""

import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "logs" / "data"
SYNTHETIC_KIMI = DATA / "synthetic" / "kimi_k25_8x_rtx_pro_6000_sglang.log"


def _band(capsys, *argv):
    from tpkit.cli import main

    assert main(["plan", *argv, "--json"]) in (0, 3)
    out = json.loads(capsys.readouterr().out)
    return ({t["term"] for t in out["band"]["estimated_terms"]}, {t["term"] for t in out["band"]["measured_terms"]},
            out)


def test_every_rank_printed_measures_the_minimum(capsys):
    estimated, measured, out = _band(capsys, "--from-log", str(SYNTHETIC_KIMI), "--gpu", "RTX-PRO-6000")
    assert "rank_spread" in measured and "rank_spread" not in estimated
    assert any("every one of the 8 ranks prints its load lines" in w for w in out["warnings"])


def test_one_rank_of_eight_keeps_the_band_term(capsys):
    config = DATA / "configs" / "zai-org__GLM-5.1" / "config.json"
    estimated, measured, _ = _band(capsys, str(config), "--from-log", str(DATA / "sglang" / "sg_055.log"),
                                   "--gpu", "RTX-PRO-6000", "--tp", "8")
    assert "rank_spread" in estimated and "rank_spread" not in measured


def test_a_model_path_from_another_machine_is_planned_by_its_name(capsys):
    """vl_206 prints '/public_hw/…/Qwen/Qwen3-VL-30B-A3B-Instruct': explain finds it by its name in the catalog, and
    the --from-log plan takes that model (before: 'model not found' on the raw path)."""
    from tpkit.cli import main

    assert main(["plan", "--from-log", str(DATA / "vllm" / "vl_206.log"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["model"]["source"] == "catalog:Qwen/Qwen3-VL-30B-A3B-Instruct"
    assert abs(out["kv_tokens"] - 813_152) / 813_152 < 0.01  # the printed 'GPU KV cache size'
