"""``plan --from-log``: SGLang sizes every rank from the MIN over ranks (``startup.rankspread``); a log that prints
every rank's load lines measured that minimum, so the plan carries no rank-spread band term; a log that prints
fewer ranks keeps it (``explain.fromlog._ranks_printed``)."""

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
