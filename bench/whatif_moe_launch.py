"""What-if, not the model: the published rows re-scored with a fixed cost per engine fused-MoE launch.

    PYTHONPATH=src python bench/whatif_moe_launch.py US               # decode_published.py's table and scores
    PYTHONPATH=src python bench/whatif_moe_launch.py US C|D            # + whatif_pcie_allreduce.py's variant

tpkit's vLLM / SGLang profiles charge ``gemm_overhead_us`` (2.8 µs) per grouped expert GEMM on top of its bytes; the
H100 run of ``bench/kimi_moe_gpu.py`` (docs/benchmarks.md §3, helper perf27) puts a line's intercept at 28 µs (W4A16)
/ 45 µs (bf16 ``torch._grouped_mm``) a Kimi MoE layer, ~13–23 µs a launch.  This sets both profiles'
``grouped_overhead_us`` to US and runs the scorer (docs/accuracy.md §4.5, helper perf27: 13 µs gives held-out sign
332 → 324).
"""

from __future__ import annotations

import dataclasses
import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: whatif_moe_launch.py US [C|D]", file=sys.stderr)
        return 2
    try:
        us = float(sys.argv[1])
    except ValueError:
        print(f"US must be a number of µs, got {sys.argv[1]!r}", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT / "bench"))
    from tpkit.perf import impl

    for name in ("sglang", "vllm"):
        impl.IMPLS[name] = dataclasses.replace(impl.IMPLS[name], grouped_overhead_us=us)
    script = "whatif_pcie_allreduce.py" if len(sys.argv) > 2 else "decode_published.py"
    sys.argv = [script] + sys.argv[2:]
    runpy.run_path(str(ROOT / "bench" / script), run_name="__main__")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
