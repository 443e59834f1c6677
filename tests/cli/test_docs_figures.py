"""docs/accuracy.md's Kimi-K2.5 walk-through figures are what ``tpkit plan`` prints now (helper rev11, 2026-12-05).

§1 "Kimi-K2.5 INT4 on 8× RTX PRO 6000" still gave the first plan of 2026-12-01 as the prediction (avail mem 22.88
GiB, 134,538 tokens, the vision tower not counted) while the command printed 22.50 GB and 126,395 tokens; the
section now opens with the current figures, which this test pins.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from clirun import cli

DOC = (Path(__file__).resolve().parents[2] / "docs" / "accuracy.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = DOC.index(title)
    end = DOC.index("\n#", start + len(title))
    return " ".join(DOC[start:end].split())


def test_kimi_walk_through_opens_with_the_current_plan(capsys):
    code, out, err = cli(capsys, "plan", "moonshotai/Kimi-K2.5", "--engine", "sglang", "--gpu", "RTX-PRO-6000", "--tp",
                         "8", "--mem-fraction-static", "0.85", "--json")
    assert code == 0, err
    plan = json.loads(out)
    avail = re.search(r"avail mem=(\d+\.\d+) GB", " ".join(plan["engine_log"])).group(1)
    lo, hi = plan["kv_tokens_range"]
    text = _section("#### Kimi-K2.5 INT4 on 8× RTX PRO 6000, tp 8, --mem-fraction-static 0.85")
    now = text.split("The paragraph below is the first plan")[0]
    assert f'avail mem={avail} GB' in now
    assert f"{plan['kv_tokens']:,} KV tokens per rank (band {lo:,}–{hi:,})" in now
