"""``tpkit plan --from-log``: the verdict's fixes re-planned at another TP size or quantisation do not reuse the log's
measured weights (vLLM 'Model loading took', SGLang 'Load weight end. mem usage': per rank at the log's layout and
quantisation), as ``cli.plan`` already drops them for a layout given on the command line ("weights not taken from the
log"); they fall back to the derived weights (the load-time lines charged again) and the fix says so
(``memory.band.replan_weights``).  A fix at the log's own layout (utilisation, fraction) keeps the measurement."""

from __future__ import annotations

import json
from pathlib import Path

from clirun import cli

from tpkit.memory.band import measured_term, measured_terms, replan_weights, unmeasured
from tpkit.units import Bytes

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "logs" / "data"
CONFIGS = ROOT / "validation" / "configs"


def _verdict(capsys, *argv) -> str:
    code, out, err = cli(capsys, "plan", *argv, "--json")
    assert code in (0, 3), err
    return json.loads(out)["verdict"]["message"]


def test_vllm_tp_fix_is_replanned_with_derived_weights(capsys):
    # vl_125: vLLM 0.13.0, Qwen2.5-Coder-32B-Instruct-AWQ at tp 1, 'Model loading took 18.1425 GiB' (log line 23
    # of the file; 33 before session 21, when tqdm's CR redraws counted as lines).
    # At utilisation 0.45 of an A100-40GB the measured weights alone exceed the budget.  Before the fix the tp 2
    # re-plan reused the 18.14 GiB (the tp 1 figure) and failed, so only the utilisation fix was named.
    message = _verdict(capsys, str(CONFIGS / "Qwen--Qwen2.5-Coder-32B-Instruct-AWQ.json"), "--from-log",
                       str(LOGS / "vllm/vl_125.log"), "--gpu", "A100-SXM-40GB", "--gpu-memory-utilization", "0.45")
    # the log's layout: the measured weights, unchanged; 0.61 since helper v11b (0.13.0 V1 runs charge the cold-compile
    # scratch: vLLM ≥ 0.11.1 benchmarks Inductor combo kernels; the log compiles cold, 'Compiling a graph … 7.23 s');
    # 0.6 since helper rev13 (2026-12-05): the flag changes only the utilisation, so the plan charges the non-KV
    # memory the log measured (requested − 'Available KV cache memory', log line 39: 19.50 GiB; cli.fromlog_plan
    # .non_kv_from_log), where the planned activation peak had 0.15 GiB more
    # and since helper tot13 (2026-12-05) the A100 40GB total is current drivers' 39.49 GiB (was 39.39)
    assert "--gpu-memory-utilization 0.6;" in message
    assert ("--tensor-parallel-size 2 (re-planned with derived weights at tp 2: the log's measured weights, log line "
            "23 of "
            in message)
    assert "hold per rank at its own tp 1, pp 1 and quantization only)" in message


def test_sglang_tp_and_fp8_fixes_are_replanned_with_derived_weights(capsys):
    # sg_001: SGLang, Llama-3.1-8B-Instruct at tp 1, 'Load weight begin/end' (log lines 3–12): 15.09 GiB measured.
    # At --mem-fraction-static 0.3 on an A100-40GB: before the fix only '--mem-fraction-static ≥ 0.391' was named
    # (the tp 2 and fp8 re-plans reused the tp 1 bf16 measurement)
    message = _verdict(capsys, "meta-llama/Llama-3.1-8B-Instruct", "--from-log", str(LOGS / "sglang/sg_001.log"),
                       "--gpu", "A100-40GB", "--mem-fraction-static", "0.3")
    assert "use --tp 2 (re-planned with derived weights at tp 2: the log's measured weights, log lines 3–12 of " \
        in message
    assert "fp8 weights (--quantization fp8) (re-planned with derived weights at quantization fp8: " in message
    # the log's layout: the measurement, no note; sg_001's formats date it to 0.4.6–0.5.8 (0.391 under the 0.5.10
    # rules it was read by before the formats were intersected, review qual9); 0.388 since plan --from-log caps the
    # release by the log's date as explain does (dated 2025-01-23: 0.4.2 rules; helper tail11)
    # 0.387 since helper tot13 (2026-12-05): the A100 40GB total is current drivers' 39.49 GiB (was 39.39)
    assert message.endswith("or --mem-fraction-static ≥ 0.387")


def test_replan_weights_and_unmeasured():
    assert replan_weights(tp=1, pp=1, changed="tp 2") == (False, "")  # nothing measured
    with measured_terms({"weights": Bytes(10), "activation_peak": Bytes(5)}, source="log line 7 of x.log"):
        assert replan_weights(tp=1, pp=1, changed=None) == (False, "")  # a budget knob: the measurement holds
        drop, words = replan_weights(tp=2, pp=1, changed="tp 4")
        assert drop and words == (" (re-planned with derived weights at tp 4: the log's measured weights, log line 7 "
                                  "of x.log, hold per rank at its own tp 2, pp 1 and quantization only)")
        with unmeasured("weights"):
            assert measured_term("weights") is None and measured_term("activation_peak") is not None
        assert measured_term("weights") == (Bytes(10), "log line 7 of x.log")
