"""Predicted vs measured decode step on a ``bench/decode_reference.py`` run (CPU only).

    python bench/decode_compare.py [docs/runs/decode_h200_2026-12-01.json ...]
    python bench/decode_compare.py docs/runs/decode_h100_dense_2026-12-05.json docs/runs/decode_h100_moe_2026-12-05.json

Predicts every (model, context, batch) row of one or more ``bench/decode_reference.py`` JSONs with tpkit's cost
model (kernel layout ``reference``, the GPU the run names in ``machine.gpu``, looked up in the catalog) and prints a
markdown table: measured µs, predicted µs, error, and the attention part measured alone vs predicted.
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
    from tpkit.perf.kernels import Batch, Shard
    from tpkit.perf.work import forward_kernels

    paths = [Path(a) for a in argv[1:]] or [ROOT / "docs" / "runs" / "decode_h200_2026-12-01.json"]
    runs = [json.loads(p.read_text()) for p in paths]
    gpus = {run["machine"]["gpu"] for run in runs}
    if len(gpus) != 1:
        print(f"decode_compare: the runs name different GPUs {sorted(gpus)}; compare one GPU at a time", file=sys.stderr)
        return 2
    gpu = lookup_gpu(gpus.pop())
    dev, impl = device_rates(gpu), impl_profile("reference")
    print(f"GPU {gpu.name} (the runs' machine.gpu), kernel layout 'reference'\n")
    print("| model | context | batch | measured µs | predicted µs | error | attention measured / predicted µs |")
    print("|---|---:|---:|---:|---:|---:|---|")
    errors = []
    for row in (row for run in runs for row in run["rows"]):
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
