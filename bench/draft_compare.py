"""perf's EAGLE-3 draft step against a ``bench/draft_breakdown.py`` run (CPU only, no torch).

    python bench/draft_compare.py docs/runs/draft_breakdown_h100_2026-12-05.json

For every (head, B, topk) row of the run: the measured step as SGLang 0.5.6 runs it (``step_engine_us``: fp32 cast,
softmax, ``fast_topk``, the hot-token gather, the decode attention at topk 1), the reference step
(``step_ref_us``) and the sum of its parts timed alone, against perf's draft step with the fc
(``spec_compare.predict_draft(..., fc=True)``, SGLang ``spec_compare.DRAFT_RELEASE``) on the GPU the run names
(``machine.gpu``, looked up in the catalog), at the run's cached context.  Prints a markdown table and the count
within 15 %.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT / "src"))
    sys.path.insert(0, str(ROOT / "bench"))
    import spec_compare
    from tpkit.hardware.catalog import lookup_gpu

    run = json.loads(Path(argv[1]).read_text())
    gpu = lookup_gpu(run["machine"]["gpu"])
    spec_compare.GPU = gpu.name
    context = int(run["context"])
    print(f"GPU {gpu.name} (the run's machine.gpu), context {context:,}, perf as SGLang {spec_compare.DRAFT_RELEASE}\n")
    print("| draft head | B | topk | measured engine µs | reference µs | sum of parts µs | perf µs | error vs engine |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    errs = []
    for r in run["rows"]:
        model = r["model"].removeprefix("EAGLE3 head for ")
        pred = spec_compare.predict_draft(model, r["batch"], r["topk"], context, fc=True)
        err = pred / r["step_engine_us"] - 1
        errs.append(err)
        print(f"| {model.split('/')[1]} | {r['batch']} | {r['topk']} | {r['step_engine_us']:,.0f} | {r['step_ref_us']:,.0f} | "
              f"{r['sum_ref_parts_us']:,.0f} | {pred:,.0f} | {err * 100:+.1f} % |")
    inside = sum(abs(e) <= 0.15 for e in errs)
    print(f"\n{len(errs)} rows: within 15 % {inside}, mean {sum(errs) / len(errs) * 100:+.1f} %, "
          f"max |error| {max(map(abs, errs)) * 100:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
