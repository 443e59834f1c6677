"""Achievable HBM bandwidth per catalog GPU, where public microbenchmarks measure it (helper amdbw, 2026-12-04).

``scripts/build_gpu_catalog.py`` writes each fact into ``src/tpkit/hardware/data/gpus.json`` as ``hbm_efficiency``
(fraction of the datasheet ``memory_bandwidth_tbps``), ``hbm_efficiency_band`` ([low, high]) and
``sources["hbm_efficiency"]``.  ``tpkit.perf.device`` uses it in place of the H200-measured ``hbm_efficiency``
constant (0.89: torch copy 4.273 of 4.8 TB/s, docs/benchmarks.md §3.2).  A GPU missing here keeps the H200 figure.

Rule (fixed before any published decode row was scored with it): the H200 constant is a copy kernel measured on
this project's H200.  Public tools read lower absolute fractions than that on the H200 itself (Azure BabelStream
copy 4.01 of 4.8 = 0.835; RRZE gpu-roofline 3.78 of 4.8 = 0.79), so an absolute AMD figure would also carry the
method gap.  The fact is therefore the H200 constant × (AMD fraction / H200 fraction) from the *same* public
harness: copy first (the operation behind 0.89), the other same-harness pairs giving the band.

MI300X (CDNA3, 5.3 TB/s HBM3):
  - Azure/AI-benchmarking-guide ``Azure_Results/ND_MI300X_v5_results.md`` vs ``ND_H200_v5_results.md`` (BabelStream
    HIP / CUDA, default 268 MB arrays; read from the samuel-bohman fork): MI300X Copy 4.11, Mul 4.26, Add 4.14,
    Triad 4.09 TB/s; H200 Copy 4.01, Mul 4.00, Add 4.15, Triad 4.15 TB/s.  Copy ratio (4.11/5.3)/(4.01/4.8) = 0.928
    → 0.89 × 0.928 = 0.826; Triad ratio 0.893 → 0.795.
  - RRZE-HPC/gpu-benches ``gpu-roofline/mi300x.txt`` vs ``gpu-roofline/h200.txt`` (same code, 0.25 Flop/B, result
    files of 2025-02-11 / 2024-03): MI300X 4,073 GB/s, H200 3,759–3,780 GB/s → ratio 0.976 → 0.869.
  - absolute MI300X figures, consistent with the above (not used in the value): RRZE ``gpu-stream/mi300x.txt``
    read 4.20 / scale 4.06 TB/s at full occupancy (0.79 / 0.77); ROCm/legacy-rocm-build#5070 (2025-07-21) rocm
    roofline "4.2TB/s" on MI300X; rocprofiler-compute's metric-validation expectation 3,910.62 GB/s (0.74,
    ROCm/rocm-systems PR #2934, 2026-01-28); AMD on ROCm/rocm_bandwidth_test#121 (2025-01-13): 5.3 TB/s is the
    theoretical peak, "not achievable with real-world tests".
  → 0.83, band 0.80–0.87.

MI325X (CDNA3, 6.0 TB/s HBM3E): the one public measurement found is rocprofiler-compute's expectation, same test
as the MI300X figure above: 4,287.31 GB/s (0.715) against MI300X's 3,910.62 (0.738), ratio 0.968 → 0.83 × 0.968 =
0.80, band 0.77–0.84 (the MI300X band × 0.968).

Not listed (no public microbenchmark found): MI355X (CDNA4, 8 TB/s HBM3E) — it keeps the H200 transfer.
"""

from __future__ import annotations

_AZURE = ("Azure/AI-benchmarking-guide Azure_Results ND_MI300X_v5 vs ND_H200_v5 (BabelStream, same harness): MI300X "
          "Copy 4.11 / Triad 4.09 TB/s of 5.3, H200 Copy 4.01 / Triad 4.15 of 4.8")
_RRZE = ("RRZE-HPC/gpu-benches gpu-roofline mi300x.txt vs h200.txt at 0.25 Flop/B: 4,073 of 5,300 vs 3,780 of "
         "4,800 GB/s")
_ROCPROF = ("rocprofiler-compute metric validation (ROCm/rocm-systems PR #2934): HBM bandwidth 3,910.62 GB/s on "
            "MI300X, 4,287.31 GB/s on MI325X")

HBM_EFFICIENCY: dict[str, tuple[float, tuple[float, float], str]] = {
    "MI300X": (0.83, (0.80, 0.87), (
        f"H200 copy efficiency 0.89 × same-harness MI300X/H200 fraction ratio: copy 0.928 → 0.83 ({_AZURE}); band: "
        f"triad 0.893 → 0.80, roofline 0.976 → 0.87 ({_RRZE}); absolute MI300X reads 0.74–0.79 of 5.3 TB/s "
        f"(RRZE gpu-stream read 4.20, ROCm roofline 4.2 in ROCm/legacy-rocm-build#5070, {_ROCPROF}) "
        "(helper amdbw, scripts/gpu_hbm.py)")),
    "MI325X": (0.80, (0.77, 0.84), (
        f"MI300X's 0.83 × MI325X/MI300X fraction ratio 0.968 from one test ({_ROCPROF}: 0.715 vs 0.738 of "
        "datasheet); band = MI300X band × 0.968 (helper amdbw, scripts/gpu_hbm.py)")),
}
