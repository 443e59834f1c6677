"""Published fused-MoE layer timings at small token counts against tpkit's own cost of the same layer (CPU only).

    python bench/fused_moe_public.py            # table: measured / tpkit µs and the ratio per source and M

Reads ``bench/data/fused_moe_public_timings.json`` (every entry with its source URL, GPU, shape, dtype, config and
timing method).  tpkit's cost of one MoE layer as the engine benchmarks time it: the two grouped expert GEMMs of
``tpkit.perf.work`` (bytes = expected distinct experts × bytes per expert + activations; FLOPs = 2 · M · top_k ·
K · N per matrix) through ``tpkit.perf.forward.kernel_us`` with the vLLM implementation profile, plus five small
kernels (top-k, align, activation, sum, output init) at ``small_kernel_us`` each — the layout of helper spw6's
table in docs/accuracy.md §4.2.  The column ``L2`` flags the entries whose expert bytes touched at that M fit in
the GPU's L2 cache: the benchmarks replay the same weights, so those timings need not stream from HBM.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "data" / "fused_moe_public_timings.json"

L2_MIB = {"H100-SXM-80GB": 50, "H200-SXM-141GB": 50, "B200": 126, "A100-PCIe-40GB": 40, "A100-PCIe-80GB": 40,
          "A100-SXM-80GB": 40, "L40S": 96, "RTX-4090": 72, "RTX-PRO-6000": 128}
"""L2 cache per GPU (MiB; vendor whitepapers: Hopper 50 MB, A100 40 MB, AD102 72-96 MB, GB202 128 MB, B200 126 MB)"""

SMALL_KERNELS = 5


def tpkit_layer_us(src: dict, m: int) -> tuple[float, float]:
    """(µs, expert MiB touched) of one fused-MoE layer of ``src``'s shape at ``m`` tokens, as tpkit prices it."""
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.perf.constants import C
    from tpkit.perf.device import device_rates
    from tpkit.perf.experts import expected_distinct_experts
    from tpkit.perf.forward import kernel_us
    from tpkit.perf.impl import impl_profile
    from tpkit.perf.kernels import ACT_BYTES, Kernel

    dev = device_rates(lookup_gpu(src["gpu"]))
    impl = impl_profile("vllm")
    elem = 1 if src["dtype"] == "fp8" else 2
    e, k, hid, n = src["E"], src["top_k"], src["K"], src["N"]
    distinct = expected_distinct_experts(e, k, m)
    assignments = m * k
    total_us, touched = 0.0, 0.0
    for out, inp in ((2 * n, hid), (hid, n)):
        per_expert = out * inp * elem
        touched += distinct * per_expert
        kern = Kernel(kind="grouped", name="experts", dtype="fp8" if elem == 1 else "bf16",
                      bytes=distinct * per_expert + ACT_BYTES * assignments * (inp + out),
                      flops=2.0 * assignments * inp * out)
        total_us += kernel_us(kern, dev, impl)
    total_us += SMALL_KERNELS * C["small_kernel_us"].value
    return total_us, touched / 2**20


def rows() -> list[dict]:
    data = json.loads(DATA.read_text())
    out = []
    for src in data["sources"]:
        for m_text, measured in src["kernel_us"].items():
            m = int(m_text)
            model_us, mib = tpkit_layer_us(src, m)
            out.append({"id": src["id"], "gpu": src["gpu"], "m": m, "measured_us": measured, "tpkit_us": model_us,
                        "ratio": measured / model_us, "expert_mib": mib,
                        "in_l2": mib <= L2_MIB.get(src["gpu"], 0), "config": src["config"]})
    return out


def main() -> int:
    table = rows()
    print("| source | GPU | M | measured µs | tpkit µs | ratio | expert MiB touched | fits L2 |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for r in table:
        print(f"| {r['id']} | {r['gpu']} | {r['m']} | {r['measured_us']:.1f} | {r['tpkit_us']:.1f} | "
              f"{r['ratio']:.2f} | {r['expert_mib']:.0f} | {'yes' if r['in_l2'] else ''} |")
    print()
    for m in (1, 2, 4, 8, 16, 32, 64):
        rs = [r["ratio"] for r in table if r["m"] == m and not r["in_l2"]]
        if rs:
            print(f"M = {m:>2}: {len(rs)} timings beyond L2, ratio median {statistics.median(rs):.2f}, "
                  f"min {min(rs):.2f}, max {max(rs):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
