"""Predicted vs measured decode step on the H200 reference run (CPU only).

    python bench/decode_compare.py [docs/runs/decode_h200_2026-12-01.json]

Predicts every (model, context, batch) row of a ``bench/decode_reference.py`` JSON with tpkit's cost model
(kernel layout ``reference``, GPU H200) and prints a markdown table: measured µs, predicted µs, error,
and the attention part measured alone vs predicted.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT / "src"))
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.models import load_model
    from tpkit.perf.device import device_rates
    from tpkit.perf.forward import kernel_us, time_forward
    from tpkit.perf.impl import impl_profile
    from tpkit.perf.work import Batch, Shard, forward_kernels

    path = Path(argv[1]) if len(argv) > 1 else ROOT / "docs" / "runs" / "decode_h200_2026-12-01.json"
    run = json.loads(path.read_text())
    dev, impl = device_rates(lookup_gpu("H200")), impl_profile("reference")
    print("| model | context | batch | measured µs | predicted µs | error | attention measured / predicted µs |")
    print("|---|---:|---:|---:|---:|---:|---|")
    errors = []
    for row in run["rows"]:
        spec = load_model(row["model"])
        kernels = forward_kernels(spec, Shard(), Batch(sequences=row["batch"], context=row["context"] - 1), impl)
        pred = time_forward(kernels, dev, impl=impl).total_us
        att = sum(k.count * kernel_us(k, dev, impl) for k in kernels if k.kind == "attention")
        err = pred / row["step_us"] - 1
        errors.append(abs(err))
        print(f"| {row['model'].split('/')[1]} | {row['context']} | {row['batch']} | {row['step_us']:,.0f} | {pred:,.0f} | "
              f"{err * 100:+.1f} % | {row['attention_only_us']:,.0f} / {att:,.0f} |")
    print(f"\n{len(errors)} rows: max |error| {max(errors) * 100:.1f} %, mean {sum(errors) / len(errors) * 100:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
