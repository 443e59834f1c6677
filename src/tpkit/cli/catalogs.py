"""``tpkit plan --list-gpus`` / ``--list-models``: the catalogs a plan can name, as text or JSON (pure reads)."""

from __future__ import annotations

import json
import sys
import textwrap

__all__ = ["gpu_rows", "mig_rows", "model_rows", "format_rows", "print_catalogs"]


def gpu_rows() -> list[dict]:
    """One dict per catalog GPU: name, CUDA-reported total (bytes and GiB), vendor, compute capability, NVLink mesh,
    CUDA peer access over PCIe (``GpuSpec.pcie_p2p``: None where not recorded), aliases."""
    from tpkit.hardware.catalog import list_gpus

    return [{"name": g.name, "total_bytes": g.total_bytes.bytes, "total_gib": round(g.total_bytes.gib, 2),
             "vendor": g.vendor,
             "compute_capability": ".".join(map(str, g.compute_capability)) if g.compute_capability else None,
             "nvlink": g.nvlink_gbps_per_direction is not None, "pcie_p2p": g.pcie_p2p,
             "aliases": list(g.aliases)} for g in list_gpus()]


def mig_rows() -> list[dict]:
    """One dict per MIG slice tpkit knows (``--gpu <GPU>-MIG-<profile>``): name, the card it is cut from, profile,
    CUDA total, SMs (``hardware/data/mig.json``, helper mig18)."""
    from tpkit.hardware.catalog import list_mig_profiles, lookup_gpu

    rows = []
    for name in list_mig_profiles():
        g = lookup_gpu(name)
        rows.append({"name": g.name, "parent": g.mig_parent, "profile": g.mig_profile,
                     "total_bytes": g.total_bytes.bytes, "total_gib": round(g.total_bytes.gib, 2),
                     "sm_count": g.sm_count})
    return rows


def _params(facts: dict) -> str:
    total = facts.get("params_total")
    if not isinstance(total, (int, float)) or total <= 0:
        return "?"
    active = facts.get("params_active")
    text = f"{total / 1e9:,.1f}B"
    if isinstance(active, (int, float)) and 0 < active < total:
        text += f" ({active / 1e9:,.1f}B active)"
    return text


def model_rows() -> list[dict]:
    """One dict per embedded model: id, short name, architecture, dtype, parameter count."""
    from tpkit.models.catalog import catalog_entries

    rows = []
    for e in catalog_entries():
        arch = e.config.get("architectures")
        rows.append({"id": e.id, "short_name": e.short_name,
                     "architecture": arch[0] if isinstance(arch, list) and arch else None,
                     "torch_dtype": e.config.get("torch_dtype"), "params": _params(e.facts)})
    return rows


def format_rows(title: str, header: tuple[str, ...], rows: list[tuple[str, ...]], width: int) -> str:
    """Columns sized to their content; the last column wraps under itself to fit ``width``."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header[:-1])]
    lead = sum(widths) + 2 * len(widths) + 2
    last = max(20, width - lead)
    out = textwrap.wrap(title, width, subsequent_indent="  ")
    for row in [header, *rows]:
        cells = "  ".join(f"{c:<{w}}" for c, w in zip(row[:-1], widths))
        tail = textwrap.wrap(row[-1], last) or [""]
        out.append(f"  {cells}  {tail[0]}".rstrip())
        out += [" " * lead + t for t in tail[1:]]
    return "\n".join(out) + "\n"


def list_schema(*, gpus: bool, models: bool) -> str:
    """``schema`` of ``tpkit plan --list-gpus`` / ``--list-models --json``: ``tpkit.list.gpus/1``,
    ``tpkit.list.models/1``, or ``tpkit.list.gpus.models/1`` when both flags are given (one object, both parts)."""
    return "tpkit.list." + ".".join(w for w, on in (("gpus", gpus), ("models", models)) if on) + "/1"


def print_catalogs(*, gpus: bool, models: bool, as_json: bool) -> int:
    """Print the GPU and/or model catalog; exit status 0."""
    from tpkit.cli.render import terminal_width

    data = {}
    if gpus:
        data["gpus"] = gpu_rows()
        data["mig_slices"] = mig_rows()
    if models:
        data["models"] = model_rows()
    if as_json:
        json.dump({"schema": list_schema(gpus=gpus, models=models), **data}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    width = terminal_width()
    parts = []
    if gpus:
        rows = [(g["name"], f"{g['total_gib']:.2f} GiB", g["compute_capability"] or "-", ", ".join(g["aliases"]))
                for g in data["gpus"]]
        parts.append(format_rows(f"GPUs in the catalog ({len(rows)}; --gpu takes a name or alias, any case; "
                                 "another card: --gpu-memory SIZE)",
                                 ("name", "memory (CUDA)", "cc", "aliases"), rows, width))
        cards: dict[str, list[str]] = {}
        for m in data["mig_slices"]:
            cards.setdefault(m["parent"], []).append(f"{m['profile']} {m['total_gib']:.2f}")
        parts.append("\n".join(textwrap.wrap(
            "MIG slices (--gpu <GPU>-MIG-<profile>, e.g. A100-40GB-MIG-1g.5gb; one GPU each, tp 1; GiB as CUDA "
            "reports): " + "; ".join(f"{card}: {', '.join(p)}" for card, p in cards.items()),
            width, subsequent_indent="  ")) + "\n")
    if models:
        idw = max(len(m["id"]) for m in data["models"])
        lines = textwrap.wrap(f"Models in the embedded catalog ({len(data['models'])}; MODEL takes the id or the "
                              "part after '/'; any other model: a config.json path or a checkpoint directory)",
                              width, subsequent_indent="  ")
        for m in data["models"]:
            about = f"{m['params']} parameters, {m['architecture'] or '?'}"
            row = f"  {m['id']:<{idw}}  {about}"
            lines += [row] if len(row) <= width else [f"  {m['id']}", *textwrap.wrap(
                about, width, initial_indent=" " * 6, subsequent_indent=" " * 8, break_long_words=False)]
        parts.append("\n".join(lines) + "\n")
    sys.stdout.write("\n".join(parts))
    return 0
