"""AMD Infinity Fabric (xGMI) GPU-to-GPU links of the 8-GPU Instinct platforms (helper xgmi, 2026-12-04).

``scripts/build_gpu_catalog.py`` writes each entry into ``src/tpkit/hardware/data/gpus.json`` as
``xgmi_gbps_per_link`` (raw bandwidth of one link, per direction, GB/s = 10^9 B/s) and ``xgmi_links`` (links per GPU,
count) with its source in ``sources["xgmi"]``.  On these platforms every GPU has a direct link to each of the
seven others (a full mesh, no switch): a TP group of ``n`` GPUs has ``n − 1`` dedicated links per rank.
``tpkit perf`` prices all-reduce over this mesh (``tpkit.perf.allreduce``, link kind ``xgmi``).
"""

from __future__ import annotations

_MI300X_BLOG = ("ROCm blog 'Understanding RCCL Bandwidth and xGMI Performance on AMD Instinct MI300X' (J. Kolla, "
                "P. Alizadeh, G. Lee, 2025-03-02; ROCm/rocm-blogs blogs/software-tools-optimization/mi300x-rccl-xgmi/"
                "README.md): 'Each AMD Instinct MI300X system GPU is connected to its seven peer GPUs via xGMI links, "
                "forming a fully connected mesh'; 64 GB/s per link per direction theoretical (448 GB/s = 7 × 64 per "
                "GPU), 45–48 GB/s realized (TransferBench a2a: 45.1–47.2 GB/s per link)")

XGMI: dict[str, tuple[float, int, str]] = {
    "MI300X": (64.0, 7, _MI300X_BLOG + "; the research catalog's datasheet note '896 GB/s IF' = 7 × 128 GB/s "
                                       "bidirectional"),
    "MI325X": (64.0, 7, "same platform links as MI300X (CDNA 3, 4th-gen Infinity Fabric, 896 GB/s aggregate "
                        "bidirectional per GPU = 7 × 128; AMD MI325X platform brochure as tabulated in public "
                        "repositories: 'IF (MI300) | 448 GB/s | 896 GB/s | MI300X, MI325X'); " + _MI300X_BLOG),
    "MI355X": (76.8, 7, "vllm-project/vllm PR #39080 (2026-04-06, MI355X all-reduce tuning): 'Peak busbw = (N-1) × "
                        "76.8 GB/s: TP2=76.8, TP4=230.4, TP8=537.6 GB/s'; 1075 GB/s bidirectional aggregate per GPU "
                        "for the 8-GPU fully connected CDNA 4 platform (= 7 × 2 × 76.8; AMD MI355X brochure as "
                        "tabulated in public repositories; humeconsulting.co MI355X analysis: ~153 GB/s "
                        "bidirectional per link)"),
}
"""catalog name → (GB/s per link per direction, links per GPU, source)"""
