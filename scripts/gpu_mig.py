"""MIG profiles of the catalog GPUs (helper mig18, 2026-12-05): writes ``src/tpkit/hardware/data/mig.json``.

Usage::

    python scripts/gpu_mig.py          # rewrites the packaged file; tests/hardware/test_mig.py pins that it matches

A MIG slice is planned as a GPU of its own (``--gpu A100-40GB-MIG-1g.5gb``, ``hardware.catalog.lookup_gpu``): its
parent's facts with the slice's CUDA total, its SMs and its share of the memory bandwidth.

Facts per profile and where they come from:

* **CUDA total.** On a MIG device ``cudaMemGetInfo`` reports the GPU instance's memory, the figure ``nvidia-smi mig
  -lgip`` prints in its "Memory GiB" column (two decimals, so ±5 MiB): torch's "GPU 0 has a total capacity of 4.75
  GiB" on A100-40GB 1g.5gb slices (search-index ids 69530747152, 56559179856) is -lgip's 4.75; "GPU = H200 MIG slice:
  16.0 GiB usable, 16 SMs" (id 57663898020) is -lgip's 16.00 for 1g.18gb.  The column moves a little between driver
  branches (A100-40GB 2g.10gb prints 9.62 in the MIG user guide's example, 9.75 in later hosts' output), so each
  profile keeps the (low, high) of the prints found; the total is the higher one (the later drivers'), and a
  profile no -lgip print was found for is derived from a sibling with the same memory slices and says so.
* **SMs.** The -lgip "SM" column (exact, per board: an H100 PCIe 1g slice has 14 SMs, an H100 SXM one 16).
* **Memory slices.** The MIG user guide's "Fraction of Memory" (eighths): a slice gets that share of the card's
  memory bandwidth (``memory_bandwidth_tbps`` × fraction); compute scales with SMs / the card's SMs.
* **No peer access.** The -lgip "P2P" column prints "No" for every profile; CUDA IPC between MIG instances is not
  supported and NVLink / NVSwitch are unavailable in MIG mode (RAPIDS deployment docs, "Multi-Instance GPU", which
  cite the MIG user guide); vLLM tensor parallelism across two MIG partitions fails at start-up
  (vllm-project/vllm#7211, closed as stale without a fix).  tpkit therefore refuses tp > 1 and pp > 1 on a slice.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "tpkit" / "hardware" / "data" / "mig.json"

S_A100_40_GUIDE = ("NVIDIA MIG user guide example 'nvidia-smi mig -lgip' on an A100-SXM4-40GB (copy in search-index "
                   "file 34261985429; the same table in ids 36320422980, 34029594197)")
S_A100_40_LATER = ("'nvidia-smi mig -lgip' on A100-40GB hosts of later drivers (search-index ids 47941484816, "
                   "1236335884: 2g.10gb 9.75, 3g.20gb 19.62)")
S_A100_80 = ("'nvidia-smi mig -lgip' on an A100 80GB, driver 515.86.01 (search-index file 37126368659): 1g.10gb 9.50 / "
             "14 SMs, 2g.20gb 19.50 / 28, 3g.40gb 39.25 / 42, 4g.40gb 39.25 / 56, 7g.80gb 79.00 / 98")
S_H100_SXM = ("'nvidia-smi mig -lgip' on an 'NVIDIA H100 80GB HBM3' (search-index file 8225626544): 1g.10gb 9.75 / 16 "
              "SMs, 1g.20gb 19.62 / 26, 2g.20gb 19.62 / 32, 3g.40gb 39.50 / 60, 4g.40gb 39.50 / 64, 7g.80gb 79.25 / "
              "132; an older print of the same profiles 9.62 / 19.50 / 39.25 (ids 59614172776, 59275486674)")
S_H100_PCIE = ("'nvidia-smi mig -lgip' on an 'NVIDIA H100 PCIe', driver 570.169 (search-index file 52712584324): "
               "1g.10gb 9.75 / 14 SMs, 1g.20gb 19.62 / 14, 2g.20gb 19.62 / 30, 3g.40gb 39.50 / 46, 4g.40gb 39.50 / 62, "
               "7g.80gb 79.25 / 114")
S_H100_NVL = ("'nvidia-smi mig -lgip' on an H100 NVL 94GB (NVIDIA/gpu-operator PR 903: 1g.12gb 10.75 / 16 SMs, "
              "1g.24gb 21.62 / 26, 3g.47gb 46.38; search-index files 1264289790, 59145491406, another driver: 1g.24gb "
              "21.50 / 26, 2g.24gb 21.50 / 32, 3g.47gb 46.12 / 60, 4g.47gb 46.12 / 64, 7g.94gb 92.62 / 132)")
S_H200 = ("'nvidia-smi mig -lgip' on an H200 (search-index file 57000499299, a parser test's fixture: 1g.18gb 16.00 / "
          "16 SMs, 2g.35gb 32.50 / 32, 7g.141gb 140.00 / 132); '16.0 GiB usable, 16 SMs' for 'NVIDIA H200 MIG 1g.18gb' "
          "(id 57663898020); 3g.71gb 60 SMs, 4g.71gb 64 SMs on an H200 (vLLM benchmark script, id 26368447233)")
GUIDE = ("NVIDIA MIG user guide, 'Supported MIG Profiles' (docs.nvidia.com/datacenter/tesla/mig-user-guide/"
         "supported-mig-profiles.html, v580; copy in search-index file 20062291686): fraction of memory per profile")

# table name → (the catalog GPUs these profiles belong to, [(profile, total GiB, (low, high), memory eighths, SMs,
# source)])
# total None: no -lgip print found; derived in _derived() and said so
PROFILES: dict[str, tuple[tuple[str, ...], list[tuple]]] = {
    "A100-40GB": (("A100-SXM-40GB", "A100-PCIe-40GB"), [
        ("1g.5gb", 4.75, (4.75, 4.75), 1, 14, S_A100_40_GUIDE + "; " + S_A100_40_LATER),
        ("1g.10gb", 9.75, (9.62, 9.75), 2, 14, S_A100_40_GUIDE + "; " + S_A100_40_LATER),
        ("2g.10gb", 9.75, (9.62, 9.75), 2, 28, S_A100_40_GUIDE + "; " + S_A100_40_LATER),
        ("3g.20gb", 19.62, (19.50, 19.62), 4, 42, S_A100_40_GUIDE + "; " + S_A100_40_LATER),
        ("4g.20gb", 19.62, (19.50, 19.62), 4, 56, S_A100_40_GUIDE + "; " + S_A100_40_LATER),
        ("7g.40gb", 39.25, (39.25, 39.25), 8, 98, S_A100_40_GUIDE),
    ]),
    "A100-80GB": (("A100-SXM-80GB", "A100-PCIe-80GB"), [
        ("1g.10gb", 9.50, (9.50, 9.50), 1, 14, S_A100_80),
        ("1g.20gb", None, (19.50, 19.50), 2, 14, S_A100_80),
        ("2g.20gb", 19.50, (19.50, 19.50), 2, 28, S_A100_80),
        ("3g.40gb", 39.25, (39.25, 39.25), 4, 42, S_A100_80),
        ("4g.40gb", 39.25, (39.25, 39.25), 4, 56, S_A100_80),
        ("7g.80gb", 79.00, (79.00, 79.00), 8, 98, S_A100_80),
    ]),
    "H100-SXM-80GB": (("H100-SXM-80GB",), [
        ("1g.10gb", 9.75, (9.62, 9.75), 1, 16, S_H100_SXM),
        ("1g.20gb", 19.62, (19.50, 19.62), 2, 26, S_H100_SXM),
        ("2g.20gb", 19.62, (19.50, 19.62), 2, 32, S_H100_SXM),
        ("3g.40gb", 39.50, (39.25, 39.50), 4, 60, S_H100_SXM),
        ("4g.40gb", 39.50, (39.25, 39.50), 4, 64, S_H100_SXM),
        ("7g.80gb", 79.25, (79.25, 79.25), 8, 132, S_H100_SXM),
    ]),
    "H100-PCIe-80GB": (("H100-PCIe-80GB",), [
        ("1g.10gb", 9.75, (9.75, 9.75), 1, 14, S_H100_PCIE),
        ("1g.20gb", 19.62, (19.62, 19.62), 2, 14, S_H100_PCIE),
        ("2g.20gb", 19.62, (19.62, 19.62), 2, 30, S_H100_PCIE),
        ("3g.40gb", 39.50, (39.50, 39.50), 4, 46, S_H100_PCIE),
        ("4g.40gb", 39.50, (39.50, 39.50), 4, 62, S_H100_PCIE),
        ("7g.80gb", 79.25, (79.25, 79.25), 8, 114, S_H100_PCIE),
    ]),
    "H100-NVL-94GB": (("H100-NVL-94GB",), [
        ("1g.12gb", 10.75, (10.75, 10.75), 1, 16, S_H100_NVL),
        ("1g.24gb", 21.62, (21.50, 21.62), 2, 26, S_H100_NVL),
        ("2g.24gb", 21.62, (21.50, 21.62), 2, 32, S_H100_NVL),
        ("3g.47gb", 46.38, (46.12, 46.38), 4, 60, S_H100_NVL),
        ("4g.47gb", 46.38, (46.12, 46.38), 4, 64, S_H100_NVL),
        ("7g.94gb", 92.62, (92.62, 92.62), 8, 132, S_H100_NVL),
    ]),
    "H200-SXM-141GB": (("H200-SXM-141GB",), [
        ("1g.18gb", 16.00, (16.00, 16.00), 1, 16, S_H200),
        ("1g.35gb", None, (32.50, 32.50), 2, 16, S_H200),
        ("2g.35gb", 32.50, (32.50, 32.50), 2, 32, S_H200),
        ("3g.71gb", None, None, 4, 60, S_H200),
        ("4g.71gb", None, None, 4, 64, S_H200),
        ("7g.141gb", 140.00, (140.00, 140.00), 8, 132, S_H200),
    ]),
}
"""The boards whose -lgip output was found in public text.  Not here (no -lgip print or SM count found, 2026-12-05):
H20 (1g.12gb … 7g.96gb), H20-141GB, B200 / GB200 (1g.23gb … 7g.180gb / 7g.186gb), RTX PRO 6000 / 4500 / 5000
Blackwell (1g.24gb …, 1g.16gb …), A30, and H800 / A800 (not in the MIG user guide's list of supported GPUs): pass
such a slice by its total, ``--gpu-memory <GiB>``."""


def _derived(rows: list[tuple], profile: str, eighths: int) -> tuple[float, str]:
    """(total GiB, how) for a profile without a -lgip print: a printed sibling with the same memory slices, else
    the full-card profile's total × the half-card share of the H100 SXM print (39.50 / 79.25)."""
    for other, total, _band, e, _sms, _src in rows:
        if total is not None and e == eighths and other != profile:
            return total, f"not printed: the -lgip total of {other}, which has the same {eighths}/8 memory slices"
    full = next(t for p, t, _b, e, _s, _src in rows if e == 8)
    half = round(full * 39.50 / 79.25, 2)
    return half, (f"not printed: {full:.2f} GiB (the 7g profile's -lgip total) × 39.50 / 79.25 (the 4/8 : 8/8 ratio "
                  f"of the H100 SXM print); band 65.00 (2 × 2g.35gb) – {half:.2f}")


def build() -> dict:
    profiles = []
    for table, (parents, rows) in PROFILES.items():
        for profile, total, band, eighths, sms, source in rows:
            how = "printed"
            if total is None:
                total, how = _derived(rows, profile, eighths)
                band = band or (65.00, total)
            profiles.append({
                "table": table, "parents": list(parents), "profile": profile,
                "total_gib": total, "total_band_gib": list(band), "total_how": how,
                "memory_eighths": eighths, "sm_count": sms,
                "source": source + "; memory fraction: " + GUIDE,
            })
    return {"source": "scripts/gpu_mig.py (helper mig18, 2026-12-05)", "profiles": profiles}


def main() -> int:
    OUT.write_text(json.dumps(build(), indent=1) + "\n")
    print(f"wrote {len(build()['profiles'])} MIG profiles to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
