"""docs/accuracy.md §5's figures are what the commands it quotes print now (helper tidy27, session 27).

§5's GB10 sentence said the quoted command plans 838,064 tokens where it printed 845,296, and §5.1 quoted a band
("930,013 ± 8,511 tokens") with no command at all.  Each number §5 ties to a command is pinned here, as
tests/cli/test_readme_figures.py pins README's; §5's table is pinned by tests/core/test_accuracy_doc_regions.py
(``scripts/build_startup_table.py --doc``).  The other numbers in §5 are dated records of a helper's run (validate.py
figures of that day), not claims about today's output."""

from __future__ import annotations

import json
from pathlib import Path

from clirun import cli

DOC = (Path(__file__).resolve().parents[2] / "docs" / "accuracy.md").read_text(encoding="utf-8")
S5 = " ".join(DOC[DOC.index("\n## 5. "):DOC.index("\n## 6. ")].split())

GB10 = ("mistralai/Mistral-7B-Instruct-v0.3", "--gpu", "GB10", "--engine", "vllm", "--engine-version", "0.11.0",
        "--quantization", "gptq", "--dtype", "float16", "--max-model-len", "32768", "--max-num-batched-tokens", "2048")
GB10_PRINTED = 840_160
"""vl_072's 'GPU KV cache size' (DGX Spark, vLLM 0.11.0 NGC)"""


def _plan(capsys, *argv) -> dict:
    code, out, err = cli(capsys, "plan", *argv, "--json")
    assert code in (0, 3), err
    return json.loads(out)


def test_the_gb10_sentence_quotes_what_its_command_plans(capsys):
    assert f"`tpkit plan {' '.join(GB10)}`" in S5
    tokens = _plan(capsys, *GB10)["kv_tokens"]
    error = (tokens - GB10_PRINTED) / GB10_PRINTED * 100
    assert f"plans {tokens:,} tokens against {GB10_PRINTED:,} printed ({error:+.2f} %" in S5


def test_the_band_example_is_what_its_command_prints(capsys):
    argv = ("meta-llama/Llama-3.1-8B-Instruct", "--engine", "vllm", "--gpu", "H100")
    plan = _plan(capsys, *argv)
    lo, hi = plan["kv_tokens_range"]
    tokens = plan["kv_tokens"]
    band = max(hi - tokens, tokens - lo)
    assert f"`tpkit plan {' '.join(argv)}` prints \"KV cache: {tokens:,} ± {band:,} tokens\"" in S5
