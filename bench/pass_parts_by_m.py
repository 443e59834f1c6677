"""The non-attention part of a decode or verify pass against its GEMM row count M, measured vs tpkit perf (CPU only).

    python bench/pass_parts_by_m.py [docs/runs/spec_h100_llama_c512_2026-12-06.json ...]

Reads ``bench/spec_reference.py`` runs (each row: a pass of B sequences × D tokens at context C, its step µs and its
attention kernels alone, ``attention_only_us``) and prints, per row, M = B·D, the measured step minus the measured
attention, and tpkit's pass (``bench/spec_compare.predict_pass``: the ``reference`` layout on the run's GPU) minus
tpkit's attention: the part that is GEMMs, norms, rotary and the lm_head, priced by ``perf.forward``'s roofline.
The question it answers (helper pf37, issue 13): is a verify of batch × draft tokens (M = 32–512 rows) priced as
compute-bound too early or too late, against the decode at M = B?  The attention is left out because the reference
harness runs its own masked SDPA for the verify, not an engine's kernel.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "docs" / "runs" / "spec_h100_llama_c512_2026-12-06.json"


def rows(run: dict) -> list[dict]:
    """Decode and verify rows with a step and an attention-only time (verify rows: the ``mask`` kernel only), each
    with M and the measured / predicted non-attention µs."""
    sys.path.insert(0, str(ROOT / "bench"))
    import spec_compare as sc
    from tpkit.hardware.catalog import lookup_gpu

    saved, sc.GPU = sc.GPU, lookup_gpu(run.get("machine", {}).get("gpu") or "H200").name
    try:  # spec_compare prices on its module-level GPU: the run's here, restored after (other callers keep theirs)
        return [_row(sc, r) for r in run["rows"] if _timed(r)]
    finally:
        sc.GPU = saved


def _timed(r: dict) -> bool:
    """A decode or verify row (verify: the ``mask`` kernel) with a step and an attention-only time."""
    if r["kind"] not in ("decode", "verify") or r.get("step_us") is None or not r.get("attention_only_us"):
        return False
    return r["kind"] == "decode" or r.get("attention_kernel", "mask") == "mask"


def _row(sc, r: dict) -> dict:
    pred, pred_att = sc.predict_pass(r["model"], r["batch"], r["tokens"], r["context"])
    return {"kind": r["kind"], "model": r["model"].split("/")[-1], "batch": r["batch"], "tokens": r["tokens"],
            "context": r["context"], "m": r["batch"] * r["tokens"],
            "measured_us": r["step_us"] - r["attention_only_us"], "predicted_us": pred - pred_att}


def table(items: list[dict]) -> list[str]:
    lines = ["| pass | model | B | D | M | context | non-attention meas / pred µs | err |",
             "|---|---|---:|---:|---:|---:|---|---:|"]
    for x in items:
        err = x["predicted_us"] / x["measured_us"] - 1
        lines.append(f"| {x['kind']} | {x['model']} | {x['batch']} | {x['tokens']} | {x['m']} | {x['context']} | "
                     f"{x['measured_us']:,.0f} / {x['predicted_us']:,.0f} | {err * 100:+.1f} % |")
    return lines


def summary(items: list[dict], lo: int = 96, hi: int = 320) -> str:
    """One line: the error range of the verify rows with ``lo`` ≤ M ≤ ``hi`` and of the decode rows of the same runs."""
    def errs(kind: str, sel) -> list[float]:
        return [x["predicted_us"] / x["measured_us"] - 1 for x in items if x["kind"] == kind and sel(x["m"])]
    ver = errs("verify", lambda m: lo <= m <= hi)
    dec = errs("decode", lambda m: m <= 64)
    if not ver or not dec:
        return f"verify rows at M {lo}-{hi}: none"
    return (f"verify M {lo}-{hi}: {len(ver)} rows, error {min(ver) * 100:+.1f} … {max(ver) * 100:+.1f} %; "
            f"decode M <= 64: {len(dec)} rows, error {min(dec) * 100:+.1f} … {max(dec) * 100:+.1f} %")


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT / "src"))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*", default=[str(DEFAULT)])
    args = ap.parse_args(argv)
    items = []
    for path in args.paths:
        try:
            run = json.loads(Path(path).read_text())
        except (OSError, ValueError) as exc:
            print(f"cannot read the spec_reference JSON {path!r}: {exc}; give the path of a "
                  "bench/spec_reference.py --out file", file=sys.stderr)
            return 2
        items += rows(run)
    print("\n".join(table(items)))
    print()
    print(summary(items))
    return 0


if __name__ == "__main__":
    sys.exit(main())
