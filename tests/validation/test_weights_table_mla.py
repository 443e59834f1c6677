"""§6.3 of docs/accuracy.md (``scripts/validate.py _weights_table``) sets the printed 'Model loading took' against
tpkit's derived load, which must hold what the MLA backend builds inside the load (vllm 0.7.3
``model_loader/loader.py _process_weights_after_loading``, run by ``DefaultModelLoader.load_model`` under
``ModelRunner.load_model``'s ``DeviceMemoryProfiler``): the 0.7.1–0.7.3 V0 absorbed decode matrices and the
dequantised ``kv_b_proj`` copy (helper mla15, 2026-12-05).  Before, vp_325 read 79.31 GiB against 83.88 printed."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts/validate.py"


@pytest.fixture(scope="module")
def rows() -> dict[str, str]:
    spec = importlib.util.spec_from_file_location("validate_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {m.group(1): line for line in module._weights_table() if (m := re.match(r"\| (\S+) \|", line))}


@pytest.mark.parametrize("case, printed, derived", [
    ("vp_325", 83.88, 83.78),  # DeepSeek-R1 block FP8, 0.7.3 tp 8: + 4.23 absorbed + 0.24 kv_b copy
    ("vl_058", 3.97, 3.96),  # DeepSeek-Coder-V2-Lite bf16, 0.7.1 tp 8: + the absorbed matrices
])
def test_mla_load_lines_in_the_derived_load(rows, case, printed, derived):
    cells = [c.strip() for c in rows[case].strip("|").split("|")]
    assert cells[3] == f"{printed:.2f} (vLLM)"
    assert float(cells[4]) == pytest.approx(derived, abs=0.005)
