"""The issue-13 Kimi-K2.5 EAGLE-3 scenario (docs/accuracy.md §4.5): speed-up and break-even accept length on
8× RTX PRO 6000 (PCIe) and 8× H200 (NVLink) by SGLang version, context and accept length (CPU only).

    python bench/decode_kimi_scenario.py

Each cell is ``plan_perf`` with the inputs of ``tpkit perf moonshotai/Kimi-K2.5 --gpu G --tp 8
--speculative-algorithm EAGLE3 --engine-version V --context C [--accept-length L]`` (no accept length = the
EAGLE3 family default, 2.57 at steps 3 / topk 1 / draft tokens 4).  Prints a markdown table; bold = slows.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tpkit.hardware.catalog import lookup_gpu  # noqa: E402
from tpkit.models import load_model  # noqa: E402
from tpkit.perf import PerfRequest, SpecSettings, plan_perf  # noqa: E402

MODEL = load_model("moonshotai/Kimi-K2.5")
EAGLE3 = SpecSettings(algorithm="EAGLE3", num_steps=3, topk=1, num_draft_tokens=4)


def run(gpu: str, version: str, context: int, accept: float | None):
    return plan_perf(PerfRequest(model=MODEL, gpu=lookup_gpu(gpu), tp=8, spec=EAGLE3, engine_version=version,
                                 context=context, accept_length=accept))


def main() -> None:
    print("| GPU | SGLang | context | plain tok/s | break-even τ | τ 2.57 (default) | τ 2.28 | τ 2.04 | τ 1.6 |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for gpu in ("RTX-PRO-6000", "H200"):
        for version in ("0.5.10", "0.5.23"):
            for context in (1024, 8192, 16384, 30000):
                default = run(gpu, version, context, None)
                cells = [default] + [run(gpu, version, context, tau) for tau in (2.28, 2.04, 1.6)]
                speed = [f"**{c.speculative.speedup:.2f}×**" if c.speculative.speedup < 1 else
                         f"{c.speculative.speedup:.2f}×" for c in cells]
                plain = default.baseline.batch / default.baseline.step_us * 1e6
                print(f"| {gpu} × 8 | {version} | {context:,} | {plain:.1f} | "
                      f"{default.speculative.breakeven_accept_length:.2f} | " + " | ".join(speed) + " |")


if __name__ == "__main__":
    main()
