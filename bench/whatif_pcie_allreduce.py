"""What-if, not the model: the published rows re-scored with the PCIe custom all-reduce as the rtx6kpro launches set it.

    PYTHONPATH=src python bench/whatif_pcie_allreduce.py A|B|C|D

tpkit prices vLLM on more than two PCIe GPUs with NCCL (stock vLLM refuses its custom all-reduce there), and its
``custom`` policy takes the faster of one-shot and two-shot.  The k26v1 / k26v4 / glm51v2_rtx6k launches run patched
images that enable a PCIe custom all-reduce by environment variables no vLLM release reads (docs/accuracy.md §4.3,
helper kv14).  The variants, each on top of the one before (D replaces C's k26v1 rule):

    A  ``custom`` picks the kernel as vLLM's ``csrc/custom_all_reduce.cuh`` ``allreduce`` does: one-stage when the
       world is 2, or ≤ 4 ranks and < 512 KiB, or ≤ 8 ranks and < 256 KiB; two-stage above (NCCL above 8 MiB)
    B  k26v4 and glm51v2_rtx6k as launched: the C++ custom all-reduce for messages ≤ 56 KiB or ≤ 8 rows
       (``VLLM_CPP_AR_1STAGE_NCCL_CUTOFF=56KB``, ``VLLM_CPP_AR_IGNORE_CUTOFF_MAX_ROWS=8``), NCCL above
    C  k26v1 with ``VLLM_ENABLE_PCIE_ALLREDUCE=1`` read as the C++ custom all-reduce for every size (A's choice)
    D  k26v1 read as one-stage below 256 KiB and NCCL above

Prints every row whose predicted speed-up moves by ≥ 0.01× and the three score lines of ``decode_published.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import decode_published as dp  # noqa: E402
import tpkit.perf.plan as plan  # noqa: E402
import tpkit.perf.policy as policy  # noqa: E402

_HIDDEN = {"k26v1": 7168, "k26v4": 7168, "glm51v2_rtx6k": 6144}
_STOCK = policy.policy_cost


def _priced(variant: str, source: str):
    """policy_cost for ``variant`` on a row of ``source``."""
    hidden = _HIDDEN.get(source, 0)

    def cost_of(nbytes, link, name, setup):
        return policy.allreduce_cost(nbytes, link, name, profile=setup.profile, profile_name=setup.profile_name)

    def stage(nbytes, link, setup):
        n = link.world
        one = n == 2 or (n <= 4 and nbytes < 512 * 1024) or (n <= 8 and nbytes < 256 * 1024)
        return cost_of(nbytes, link, "custom_oneshot" if one else "custom_twoshot", setup)

    def cost(nbytes, link, name, setup):
        if link.kind == "pcie" and hidden:
            if source in ("k26v4", "glm51v2_rtx6k") and variant in "BCD":
                small = nbytes <= 56 * 1024 or nbytes / (2 * hidden) <= 8
                return stage(nbytes, link, setup) if small else cost_of(nbytes, link, "nccl", setup)
            if source == "k26v1" and variant == "C":
                return stage(nbytes, link, setup) if nbytes <= 8 * 2**20 else cost_of(nbytes, link, "nccl", setup)
            if source == "k26v1" and variant == "D":
                return cost_of(nbytes, link, "custom_oneshot" if nbytes < 256 * 1024 else "nccl", setup)
        if name == "custom" and nbytes <= 8 * 2**20:
            return stage(nbytes, link, setup)
        return _STOCK(nbytes, link, name, setup)
    return cost


def main() -> int:
    variant = (sys.argv[1:] or ["A"])[0]
    if variant not in ("A", "B", "C", "D"):
        print(f"variant must be A, B, C or D, got {variant!r}", file=sys.stderr)
        return 2
    data = json.loads(dp.DATA.read_text())
    rows, train = data["rows"], set(data["split"]["train"])
    before, after = [], []
    for i, row in enumerate(rows, 1):
        plan.collectives_us.__globals__["policy_cost"] = _STOCK
        old = dp.predict(row).speculative.speedup
        plan.collectives_us.__globals__["policy_cost"] = _priced(variant, row["source"])
        new = dp.predict(row).speculative.speedup
        before.append(old)
        after.append(new)
        meas = dp.measured_speedup(row)
        if abs(new - old) >= 0.01:
            print(f"row {i} {row['source']} batch {row['batch']} ctx {row['context']}: measured {meas:.2f}x, predicted "
                  f"{old:.2f}x -> {new:.2f}x ({(old / meas - 1) * 100:+.0f} % -> {(new / meas - 1) * 100:+.0f} %)"
                  f"{'' if (old > 1) == (new > 1) else ', sign ' + ('right' if (new > 1) == (meas > 1) else 'wrong')}")
    plan.collectives_us.__globals__["policy_cost"] = _STOCK
    held = [i for i, r in enumerate(rows) if r["source"] not in train]
    fit = [i for i, r in enumerate(rows) if r["source"] in train]
    for name, idx in (("all", range(len(rows))), ("training sources", fit), ("held-out sources", held)):
        for label, preds in (("before", before), ("after", after)):
            s = dp.score([rows[i] for i in idx], [preds[i] for i in idx])
            print(f"{label:6s} {dp.summary_line(name, s)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
