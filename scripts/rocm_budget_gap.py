"""The SGLang KV budget the ROCm near-misses of the capacity rebuild lack, in MiB per rank (docs/accuracy.md §7.2,
"SGLang on ROCm, session 7").

For each log: the budget SGLang's ``_profile_available_bytes`` takes (``rest = free after the weights − (1 − f) ×
pre``, 0.5.11 and 0.5.17 ``kv_cache_configurator.py`` / ``model_runner_kv_cache_mixin.py``) at every corner of the
print rounding of the anchors (±0.005 GB each, SGLang prints GiB as 'GB'), then the deficits ``d`` (0.25 MiB steps)
for which ``rest − d`` gives the printed token count.  Hybrid models go through tpkit's own state split
(``engines.sglang.mamba.plan_mamba_pool``: KV = rest − allocated slots × slot), so the deficit is the one in
``rest`` before the split, comparable across tp.  The cells are the ones ``tpkit explain`` prints for these logs
(its ledger's 'KV tokens' row).

    PYTHONPATH=src python scripts/rocm_budget_gap.py
"""

from __future__ import annotations

from pathlib import Path

from tpkit.engines.sglang.mamba import plan_mamba_pool
from tpkit.engines.sglang.pool import stage_layer_kinds
from tpkit.models.load import load_model
from tpkit.units import Bytes

ROOT = Path(__file__).resolve().parents[1]
MIB = 2 ** 20
GIB = 2 ** 30

# id, free after weights (GB printed), pre or None (= free after + weights), weights (GB printed), f, tp,
# printed tokens, cell bytes, hybrid config or None (the values as printed in tests/logs/data/sglang/ID.log; sg_120 /
# sg_122 print eight ranks whose minimum tpkit takes: their gap is the check's tokens short × the cell)
QWEN38 = "tests/validation/configs/Qwen--Qwen3.8-27B.json"
CASES = (
    ("sg_103", 79.62, 279.13, None, 0.85, 2, 733_731, 55_224, None),  # rank 0; tpkit takes the min over ranks
    ("sg_224", 258.78, None, 28.49, 0.85 * 0.85, 1, 1_543_256, 65_536, QWEN38),
    ("sg_225", 264.75, None, 14.49, 0.85 * 0.85, 2, 3_228_418, 32_768, QWEN38),
)


def _rests(free_gb: float, pre_gb: float | None, weights_gb: float | None, f: float) -> list[float]:
    out = []
    for i in range(11):
        for j in range(11):
            free = (free_gb - 0.005 + 0.001 * i) * GIB
            if pre_gb is None:  # no 'Load weight begin': pre = free after + 'mem usage', each rounded
                pre = free + (weights_gb - 0.005 + 0.001 * j) * GIB
            else:
                pre = (pre_gb - 0.005 + 0.001 * j) * GIB
            out.append(free - (1 - f) * pre)
    return out


def _groups(values: list[float]) -> str:
    spans: list[list[float]] = []
    for v in sorted(set(values)):
        if spans and v - spans[-1][1] <= 1.0:
            spans[-1][1] = v
        else:
            spans.append([v, v])
    return ", ".join(f"{a:.2f}–{b:.2f}" for a, b in spans) or "none below 400 MiB"


def main() -> int:
    for cid, free, pre, weights, f, tp, printed, cell, config in CASES:
        model = load_model(str(ROOT / config)) if config else None

        def tokens(rest: float) -> tuple[int, int]:
            if model is None:
                return int(rest // cell), 0
            layers = stage_layer_kinds(model, 1).count("linear")
            pool = plan_mamba_pool(model, tp, layers, Bytes(int(rest)), "0.5.17")
            return int((rest - pool.allocated_slots * pool.per_slot.bytes) // cell), pool.allocated_slots

        deficits = [q / 4 for r in _rests(free, pre, weights, f) for q in range(0, 1600)
                    if tokens(r - q / 4 * MIB)[0] == printed]
        print(f"{cid}: rest deficit per rank (MiB) giving the printed {printed:,} tokens: {_groups(deficits)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
