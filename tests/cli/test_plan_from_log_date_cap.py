"""``tpkit plan --from-log`` caps the log's release by its date the way ``tpkit explain`` does, through the same
function (``explain.sgrelease.log_release``; helper tail11, 2026-12-05, issue 12).  sg_484 (DeepSeek-V4-Flash on
Ascend, dated 2026-08-07): its formats allow up to 0.5.23, its date only 0.5.19 (0.5.20 is dated 2026-09-18)."""

from __future__ import annotations

import json
from pathlib import Path

from clirun import cli

ROOT = Path(__file__).resolve().parents[1]
LOG = str(ROOT / "logs" / "data" / "sglang" / "sg_484.log")
MODEL = str(ROOT / "logs" / "data" / "configs" / "deepseek-ai__DeepSeek-V4-Flash")


def test_the_log_date_caps_the_release_plan_uses(capsys):
    code, out, err = cli(capsys, "plan", MODEL, "--from-log", LOG, "--gpu", "H200", "--json")
    assert code in (0, 3), err                       # before: refused as 0.5.23 (DSV4 pool after 0.5.19)
    d = json.loads(out)
    assert d["engine_version"] == "0.5.19"
    assert any("dated 2026-08-07" in str(w) and "0.5.20" in str(w) for w in d["warnings"]), d["warnings"]


def test_explain_and_plan_read_the_same_release(capsys):
    from tpkit.cli.explain import read_log
    from tpkit.explain import explain_log
    from tpkit.explain.sgrelease import log_release

    assert log_release(explain_log(read_log(LOG)).context)[0] == "0.5.19"


def test_an_engine_version_given_is_kept(capsys):
    code, out, err = cli(capsys, "plan", MODEL, "--from-log", LOG, "--gpu", "H200", "--engine-version", "0.5.23")
    assert code == 2 and "0.5.19 or earlier" in err  # the flag wins; 0.5.23's DSV4 pool is still refused
