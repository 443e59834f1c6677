"""The KV dtype SGLang picks for a DeepSeek DSA model at ``--kv-cache-dtype auto``, read from the line it prints
(helper gs31a, 2026-12-07, session 31; ``tpkit.explain.result._KV_DTYPE_DSA``).

Source (the wheels, read for facts): 0.5.6-0.5.7 ``srt/server_args.py`` print 'Setting KV cache dtype to {dtype}
for DeepSeek NSA.'; 0.5.8-0.5.13 ``srt/server_args.py`` and 0.5.15-0.5.23 ``srt/arg_groups/overrides.py`` print
'Setting KV cache dtype to {dtype} for DeepSeek DSA on SM{major} device.', with fp8_e4m3 when the compute capability's
major is 10 or more and bfloat16 below (sg_055's build printed bfloat16 on SM 12: the line is read, not the rule);
0.5.5 and earlier print neither. DeepSeek-V4's '... for DeepseekV4ForCausalLM.' is not read (the NPU override comes
after it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tpkit.explain.result import free_form_settings

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "logs" / "data"


@pytest.mark.parametrize("line, expected", [
    (b"[2026-07-21 16:49:40] Setting KV cache dtype to fp8_e4m3 for DeepSeek DSA on SM10 device.", "fp8_e4m3"),  # 0.5.8+
    (b"WARNING server_args.py: Setting KV cache dtype to bfloat16 for DeepSeek DSA on SM12 device.", "bfloat16"),
    (b"Setting KV cache dtype to bfloat16 for DeepSeek DSA on SM9 device.", "bfloat16"),
    (b"[2025-12-26 18:03:34] WARNING server_args.py:1120: Setting KV cache dtype to fp8_e4m3 for DeepSeek NSA.",
     "fp8_e4m3"),  # 0.5.6-0.5.7's wording
])
def test_the_dsa_line_gives_the_kv_dtype(line, expected):
    got = free_form_settings(line + b"\n")
    assert got["kv_cache_dtype"][0] == expected and got["kv_cache_dtype_line"] == 1


@pytest.mark.parametrize("text", [
    b"Setting KV cache dtype to fp8_e4m3 for DeepseekV4ForCausalLM.\n",  # V4: the NPU override follows the line
    b"Setting page size to 64 for DeepSeek DSA.\n",  # 0.5.5-era logs: no KV-dtype line
])
def test_other_lines_give_no_kv_dtype(text):
    assert "kv_cache_dtype" not in free_form_settings(text)


def _row(case_id: str) -> dict:
    sys.path.insert(0, str(ROOT / "scripts"))
    import explain_capacity_check as check

    case = next(c for c in json.loads((DATA / "cases.json").read_text(encoding="utf-8")) if c["id"] == case_id)
    return check.check(case, check.model_map())


def test_sg_855_rebuilds_with_fp8_latents():
    """sg_855 (DeepSeek-V3.2 at tp 4 on B200, SGLang 0.5.15, mfs 0.95; gs_561's own log): 8.13 GiB / 202,112 tokens /
    61 layers = 708 B per token and layer, the fp8 latent (576) + the indexer (132). With the bf16 latent the rebuild
    gave 111,506-111,676 (+44.8 %); read from the printed line it lands within 0.2 % (still 110 tokens below its
    range: a miss, KNOWN_MISSES)."""
    row = _row("sg_855")
    lo, hi = row["range"]
    assert row["printed"] == 202112 and abs(lo - 202112) / 202112 < 0.002 and hi - lo < 1000


def test_sm12_line_keeps_bf16():
    """sg_055 (DeepSeek-V3.2 on eight RTX PRO 6000, SM 12.0) prints the bfloat16 choice: still a hit."""
    assert _row("sg_055")["outcome"] == "hit"
