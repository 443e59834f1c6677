"""Set the constants marked ``fitted`` in ``tpkit.perf.constants`` on the training sources only (CPU, no network).

    python bench/decode_fit.py

Training rows: the sources listed in ``split.train`` of ``bench/data/published_spec.json``; every other source
is held out.  Each constant is a host time the engines' sources say is there but no source measures:

    sglang_spec_v1_host_us   host work per speculative cycle the GPU waits for under SGLang spec v1 (no overlap
                             scheduling; sglang ≤ 0.5.10, topk > 1 up to 0.5.12)

(A second candidate, host work per vLLM engine step without async scheduling (< 0.14, charged to plain
decoding and to every cycle alike), fitted to 0 µs on its training rows (vllm16937) on 2026-12-01 and was
dropped from the model.)

Grid search (0–10 ms by 250 µs) minimising the mean |ln(predicted / measured
speed-up)| over the training rows.  Prints the chosen values and the training / held-out scores at them; the
values are then written by hand into ``constants.py`` (the source string names this script).
"""

from __future__ import annotations

import dataclasses
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from decode_published import DATA, measured_speedup, predict, score, summary_line  # noqa: E402
from tpkit.perf.constants import C  # noqa: E402

GRID = {"sglang_spec_v1_host_us": [250.0 * i for i in range(41)]}
ENGINE = {"sglang_spec_v1_host_us": "sglang"}


def _set(name: str, value: float) -> None:
    C[name] = dataclasses.replace(C[name], value=value)


def _loss(rows: list[dict]) -> float:
    return sum(abs(math.log(predict(r).speculative.speedup / measured_speedup(r))) for r in rows) / len(rows)


def main() -> int:
    data = json.loads(DATA.read_text())
    train_sources = set(data["split"]["train"])
    train = [r for r in data["rows"] if r["source"] in train_sources]
    held = [r for r in data["rows"] if r["source"] not in train_sources]
    chosen = {}
    for name, values in GRID.items():  # each constant touches one engine's rows only
        rows = [r for r in train if r["engine"] == ENGINE[name]]
        losses = []
        for v in values:
            _set(name, v)
            losses.append((_loss(rows), v))
        best = min(losses)
        chosen[name] = best[1]
        _set(name, best[1])
        print(f"{name}: {best[1]:g} µs (mean |ln error| {best[0]:.3f} on {len(rows)} training rows of "
              f"{sorted({r['source'] for r in rows})})")
    for label, rows in (("training sources", train), ("held-out sources", held)):
        print(summary_line(label, score(rows, [predict(r).speculative.speedup for r in rows])))
    print(json.dumps(chosen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
