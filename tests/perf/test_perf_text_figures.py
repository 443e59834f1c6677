"""The figures ``tpkit perf`` prints twice agree (helper rev11, 2026-12-05).

The header and the tables were formatted from the JSON (tok/s already rounded to 2 decimals, speed-ups to 3), the
verdict from the exact numbers. A value of 170.0499 tok/s then read "170.1" in the header (170.05 rounded again)
and "170.0" in the verdict: the 8× H200 line of the README's issue-13 scenario printed both. The text now
rounds every number once (``PerfResult.to_dict(rounded=False)``); the JSON keeps its rounding.
"""

import json
import re

import pytest

from tpkit.cli import main

K = ["perf", "moonshotai/Kimi-K2.5", "--tp", "8", "--speculative-algorithm", "EAGLE3", "--engine-version", "0.5.10",
     "--context", "16384", "--accept-length", "2.04"]

CASES = [
    K + ["--gpu", "H200"],  # 170.0499 tok/s: the double rounding
    K + ["--gpu", "RTX-PRO-6000"],
    K + ["--gpu", "RTX-PRO-6000", "--pcie-fabric-gbps", "51.7"],
    ["perf", "moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8", "--speculative-algorithm", "EAGLE3"],
    ["perf", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--tp", "2", "--speculative-algorithm", "EAGLE3",
     "--batch", "4"],
    ["perf", "Qwen/Qwen3-8B", "--gpu", "L40S", "--tp", "2", "--engine", "vllm", "--speculative-config",
     '{"method": "eagle3", "num_speculative_tokens": 3}'],
]


def _run(capsys, argv):
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert main(argv + ["--json"]) == 0
    return text, json.loads(capsys.readouterr().out)


def _header(text):
    plain = re.search(r"^plain decoding   ([\d.]+) tok/s", text, re.M).group(1)
    m = re.search(r"^speculative      ([\d.]+) tok/s .* speed-up ([\d.]+)×", text, re.M)
    return plain, m.group(1), m.group(2)


@pytest.mark.parametrize("argv", CASES, ids=lambda a: " ".join(a[1:2] + a[a.index("--gpu"):a.index("--gpu") + 2]))
def test_verdict_figures_are_the_headers(capsys, argv):
    text, d = _run(capsys, argv)
    plain, spec, speedup = _header(text)
    head = re.search(r"plain decoding ([\d.]+) tok/s, \w+ ([\d.]+) tok/s \(([\d.]+)×", text)
    assert head, text
    assert head.groups() == (plain, spec, speedup), head.group(0)
    default = re.search(r"\w+ \(engine default\): [\d.]+ µs per all-reduce, plain ([\d.]+), speculative ([\d.]+)",
                        text)
    assert default, text
    assert default.groups() == (plain, spec), default.group(0)
    row = re.search(rf"^ +{d['batch']} +([\d.]+) +([\d.]+) +([\d.]+)×$", text, re.M)
    assert row.groups() == (plain, spec, speedup), row.group(0)
    # the JSON keeps its rounding: within half a unit of the text's figure
    assert abs(d["speculative"]["tok_s"] - float(spec)) <= 0.05 + 1e-9


def test_the_h200_line_the_readme_quotes(capsys):
    """README / docs/accuracy.md §4.5 quoted the header's "170.1"; the exact value was 170.0499 tok/s.  Helper
    draft11 (2026-12-05): 171.84 since the EAGLE-3 draft step runs as the engines run it (fc on the extend only,
    qkv from 2·hidden, softmax + top-k per step; docs/accuracy.md §4.2).  Helper tail11 (2026-12-05): 171.86 since
    spec v1's draft extend runs its lm_head on the batch rows only (perf.spec.sglang_extend_logit_rows).  Helper
    draft13 (2026-12-05): 171.31 (1.22×) since the draft softmax has its one-row floor and the EAGLE-3 layer its
    hidden_norm + concat (perf.draft_terms; docs/benchmarks.md §3.7).  Helper sp19b (2026-12-05): 171.22 (1.22×)
    since spec v1 pays 6.2 µs of host work per running request a cycle (perf.runtime_sglang.spec_v1_request_host_us; docs/benchmarks.md
    §3.10).  Helper tidy19 (2026-12-06): 171.24 since that cost is 4.6 µs from sglang 0.4.6.post4, which streams
    only the new ids (perf.runtime_sglang.STREAM_NEW_IDS_FROM)."""
    text, d = _run(capsys, K + ["--gpu", "H200"])
    assert "plain decoding 140.2 tok/s, EAGLE3 171.2 tok/s (1.22×" in text
    assert "speculative      171.2 tok/s" in text
    assert d["speculative"]["tok_s"] == 171.24


def test_a_context_point_has_the_batch_points_tok_s():
    """The two sweep points share one tok/s formula (ContextPoint inlined a copy in its to_dict; the duplicates
    review, helper rev11)."""
    from tpkit.perf.result import BatchPoint, ContextPoint

    c = ContextPoint(context=1024, batch=4, step_us=1000.0, running=2)
    b = BatchPoint(batch=4, step_us=1000.0, running=2)
    assert c.tok_s == b.tok_s == 2000.0 and c.to_dict()["tok_s"] == 2000.0
