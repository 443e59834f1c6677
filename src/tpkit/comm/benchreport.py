"""Rendering of ``tpkit bench allreduce`` results: nccl-tests-style table, profile, speed summary, plot."""

from __future__ import annotations

import io
import os
from collections.abc import Iterable

import tpkit.comm.registry as registry
from tpkit.comm.profile import BenchProfile, ProfileRow
from tpkit.fileio import write_atomic
from tpkit.units import Bytes, format_bytes

__all__ = ["rows_path", "busbw_gbps", "algbw_gbps", "format_table", "build_profile", "speed_summary", "plot_rows",
           "link_ceiling_gbps"]


def rows_path(json_path: str) -> str:
    """Where the raw rows go next to the profile ``--json FILE``: ``FILE`` without extension + ``.rows.json``."""
    return os.path.splitext(json_path)[0] + ".rows.json"


def algbw_gbps(nbytes: Bytes, time_us: float) -> float:
    """Algorithm bandwidth in GB/s (10^9 B/s): message bytes / time."""
    return nbytes.bytes / (time_us * 1e-6) / 1e9


def busbw_gbps(nbytes: Bytes, time_us: float, world: int) -> float:
    """nccl-tests bus bandwidth for all-reduce: algbw · 2(n−1)/n."""
    return algbw_gbps(nbytes, time_us) * 2 * (world - 1) / world


def link_ceiling_gbps(device_name: str) -> float | None:
    """Per-direction NVLink ceiling (GB/s) for known GPUs: H100/H200 SXM NVLink 4 = 18 × 25 GB/s."""
    name = device_name.upper()
    if "H100" in name or "H200" in name or "H800" in name or "H20" in name:
        return 450.0
    return None


def format_table(rows: Iterable, world: int, ceiling: float | None) -> str:
    """Rows as text columns (size, backend, mode, time_us, algbw, busbw, #wrong)."""
    head = f"{'size':>10} {'bytes':>11} {'backend':<18} {'mode':<6} {'time_us':>10} {'algbw GB/s':>11} " \
           f"{'busbw GB/s':>11} {'#wrong':>7}  note"
    lines = [head, "-" * len(head)]
    for r in rows:
        if r.time_us is None:
            t = alg = bus = "—"
        else:
            t = f"{r.time_us:.2f}"
            alg = f"{algbw_gbps(r.nbytes, r.time_us):.1f}"
            bus = f"{busbw_gbps(r.nbytes, r.time_us, world):.1f}"
        lines.append(f"{format_bytes(r.nbytes):>10} {r.nbytes.bytes:>11} {r.backend:<18} {r.mode:<6} {t:>10} "
                     f"{alg:>11} {bus:>11} {r.wrong:>7}  {r.note}")
    lines.append(f"link ceiling: {ceiling:.0f} GB/s per direction (busbw cannot exceed it; GB = 10^9 B)"
                 if ceiling else "link ceiling: unknown for this device")
    return "\n".join(lines)


def build_profile(rows: Iterable, world: int, *, source: str, mode: str, dtype: str,
                  ceiling: float | None) -> BenchProfile:
    """Profile of the timed rows of ``mode`` (``auto`` rows excluded), plus eager rows when mode is graph."""
    rows = list(rows)
    eager = _profile_rows(rows, "eager") if mode == "graph" else ()
    return BenchProfile(source=source, mode=mode, dtype=dtype, world_sizes=((world, _profile_rows(rows, mode)),),
                        eager_world_sizes=((world, eager),) if eager else (), link_ceiling_gbps=ceiling)


def _profile_rows(rows, mode: str) -> tuple[ProfileRow, ...]:
    by_size: dict[Bytes, dict[str, float]] = {}
    for r in rows:
        if r.mode == mode and r.time_us is not None and r.wrong == 0 and r.backend != "auto":
            by_size.setdefault(r.nbytes, {})[r.backend] = round(r.time_us, 3)
    return tuple(ProfileRow(nbytes=n, time_us=tuple(sorted(t.items(), key=lambda kv: kv[1])))
                 for n, t in sorted(by_size.items(), key=lambda kv: kv[0].bytes))


def speed_summary(rows: Iterable, world: int, mode: str = "graph") -> str:
    """Per size: auto vs the best baseline (registry rows marked ``baseline``: NCCL, torch symm-mem) measured in
    the same run (ratio); "" when no size has both."""
    baselines = [r.name for r in registry.ROWS.values() if r.baseline]
    table: dict[Bytes, dict[str, float]] = {}
    for r in rows:
        if r.mode == mode and r.time_us is not None:
            table.setdefault(r.nbytes, {})[r.backend] = r.time_us
    lines = [f"{'size':>10} {'auto_us':>9} {'best baseline':<24} {'ratio':>6} {'one_shot_us':>11} {'busbw(auto)':>11}"]
    for n, t in sorted(table.items(), key=lambda kv: kv[0].bytes):
        base = [(t[b], b) for b in baselines if b in t]
        if "auto" not in t or not base:
            continue
        best_t, best_b = min(base)
        one = f"{t['one_shot']:.2f}" if "one_shot" in t else "—"
        lines.append(f"{format_bytes(n):>10} {t['auto']:>9.2f} {best_b + f' {best_t:.2f}':<24} "
                     f"{t['auto'] / best_t:>6.3f} {one:>11} {busbw_gbps(n, t['auto'], world):>11.1f}")
    return "\n".join(lines) if len(lines) > 1 else ""


def plot_rows(rows: Iterable, path: str, *, world: int, chosen: dict[Bytes, str], mode: str = "graph",
              title: str = "") -> None:
    """Log-log latency vs size per backend; the dispatcher's choice at each size is circled."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict[str, list[tuple[int, float]]] = {}
    for r in rows:
        if r.mode == mode and r.time_us is not None and r.backend != "auto":
            series.setdefault(r.backend, []).append((r.nbytes.bytes, r.time_us))
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for name, pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=name)
    picks = [(n.bytes, dict(series.get(b, [])).get(n.bytes)) for n, b in chosen.items()]
    picks = [(n, t) for n, t in picks if t is not None]
    if picks:
        ax.scatter([p[0] for p in picks], [p[1] for p in picks], s=120, facecolors="none", edgecolors="black",
                   label="auto (dispatcher's choice)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel(f"time per all-reduce (µs), {mode} mode")
    ax.set_title(title or f"all-reduce, world size {world}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    image = io.BytesIO()
    fig.savefig(image, dpi=120, format=os.path.splitext(path)[1].lstrip(".").lower() or "png")
    plt.close(fig)
    write_atomic(path, image.getvalue())
