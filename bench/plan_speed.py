"""Planning-core speed: SGLang plans per second over a sweep (model × GPU × tp × fraction).

    python bench/plan_speed.py [--repeat 3] [--json out.json]

Calls ``tpkit.engines.sglang.plan_sglang`` directly (no CLI start-up): every catalog model (loaded
once, outside the timing) × every catalog GPU × tp ∈ {1, 2, 4, 8} × mem_fraction_static ∈
{default, 0.80, 0.85, 0.90, 0.95}.  Configurations SGLang would refuse (TP does not divide the
heads, linear attention) raise ``PlanInputError`` and count as planned: refusing is the answer.

Pass 1 starts with an empty weights cache (``plan_weights`` runs once per model × layout); later
passes reuse it, as a sweep over fractions and GPUs does.  Target: ≥ 10,000 configurations/s.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

from tpkit.engines.sglang import SglangOptions, plan_sglang
from tpkit.engines.sglang import load
from tpkit.errors import PlanInputError
from tpkit.hardware.catalog import list_gpus
from tpkit.models import load_model
from tpkit.models.catalog import catalog_entries
from tpkit.parallel import ParallelSpec

TPS = (1, 2, 4, 8)
FRACTIONS = (None, 0.80, 0.85, 0.90, 0.95)


def sweep() -> list[tuple]:
    """Every (model, gpu, parallel, options) of the sweep; model loading happens here, untimed."""
    models = [load_model(e.id) for e in catalog_entries()]
    options = [SglangOptions(mem_fraction_static=f) for f in FRACTIONS]
    layouts = [ParallelSpec(tp=tp) for tp in TPS]
    return [(m, g, p, o) for m in models for g in list_gpus() for p in layouts for o in options]


def run_pass(configs: list[tuple]) -> dict:
    """Plan every configuration once; counts and configurations per second."""
    fits = no_fit = refused = 0
    start = time.perf_counter()
    for model, gpu, parallel, options in configs:
        try:
            result = plan_sglang(model, gpu, parallel, options)
        except PlanInputError:
            refused += 1
            continue
        if result.verdict.fits:
            fits += 1
        else:
            no_fit += 1
    seconds = time.perf_counter() - start
    return {"configs": len(configs), "fits": fits, "no_fit": no_fit, "refused": refused,
            "seconds": round(seconds, 4), "configs_per_s": round(len(configs) / seconds)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="warm passes after the cold one")
    parser.add_argument("--json", default=None, help="write the results to this file")
    args = parser.parse_args(argv)
    configs = sweep()
    load._WEIGHTS_CACHE.clear()
    cold = run_pass(configs)
    warm = [run_pass(configs) for _ in range(args.repeat)]
    best = max(warm, key=lambda r: r["configs_per_s"]) if warm else cold
    report = {"python": platform.python_version(), "machine": platform.machine(), "cold": cold, "warm_best": best}
    print(f"cold pass (weights planned once per model × tp): {cold['configs_per_s']:,} configs/s "
          f"({cold['configs']:,} configs in {cold['seconds']} s)")
    print(f"warm pass (best of {args.repeat}): {best['configs_per_s']:,} configs/s; fits {best['fits']}, "
          f"does not fit {best['no_fit']}, refused {best['refused']}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
