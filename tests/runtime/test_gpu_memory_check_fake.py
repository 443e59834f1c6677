"""The 2-GPU memory check script, run on CPU (gloo, simulated probes): the same code path the
device run takes, so a broken script is caught before device time is spent on it."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gpu_memory_check.py"


def test_fake_run_plans_with_plan_sglang_and_accounts_every_byte(tmp_path):
    run = subprocess.run([sys.executable, str(SCRIPT), "--fake", "--world", "2", "--out", str(tmp_path),
                          "--timeout-s", "30"], capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr[-2000:]
    doc = json.loads((tmp_path / "gpu_memory_check.json").read_text())
    ranks = doc["ranks"]
    assert [r["rank"] for r in ranks] == [0, 1]
    for r in ranks:
        assert r["kv_ok"] and r["kv_unexplained"] == 0
        assert r["kv_tokens"] > 0 and r["kv_planned"] == r["kv_measured"]
        # the planner charges SGLang's start-up terms the script does not allocate: a smaller budget
        assert 0 < r["planned_budget_bytes"] < r["budget_bytes"]
        assert r["imbalance"]["refused"] and r["imbalance"]["allowed_with_env"]
    assert "plan_sglang" in (tmp_path / "gpu_memory_check.md").read_text()
