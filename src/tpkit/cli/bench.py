"""``tpkit bench allreduce``: check and time every all-reduce backend, write a dispatch profile.

Flags are checked first (sizes, counts, output paths, backend names, the device), before torch is needed
and before any rank starts; this module imports neither torch nor ``tpkit.comm`` at import time.
"""

from __future__ import annotations

import os
import sys

from tpkit.dtypes import lookup_dtype
from tpkit.errors import PlanInputError

__all__ = ["register", "options_from_args"]

_MODES = ("eager", "graph")
_COUNTS = ("nproc", "iters", "graph_calls", "repeats")
_PLOT_FORMATS = ("png", "svg", "pdf", "jpg", "jpeg", "webp", "eps", "ps", "tif", "tiff")


def _missing_bench(args) -> int:
    """`tpkit bench` with no benchmark named: a user error that names them."""
    raise PlanInputError("name the benchmark to run: tpkit bench allreduce (`tpkit bench allreduce --help` lists "
                         "its flags)")


def register(subparsers, argv: list[str] | None = None) -> None:
    """Add ``bench`` with its ``allreduce`` sub-command."""
    bench = subparsers.add_parser("bench", help="benchmarks (all-reduce)")
    sub = bench.add_subparsers(dest="bench_command", metavar="BENCH")
    p = sub.add_parser("allreduce", help="check + time all-reduce backends (one process per GPU)")
    p.add_argument("--nproc", type=int, metavar="N", default=2,
                   help="processes (ranks) to spawn (default 2; ignored under torchrun)")
    p.add_argument("--backend", action="append", dest="backends", metavar="NAME",
                   help="backend to run (repeatable), a name from tpkit.comm.registry (an unknown name lists "
                        "them); default: all that start")
    p.add_argument("--min-size", default="1KiB", metavar="SIZE",
                   help="smallest message, with a unit (default 1KiB)")
    p.add_argument("--max-size", default=None, metavar="SIZE",
                   help="largest message, with a unit (default 256MiB on GPU, 1MiB on CPU)")
    p.add_argument("--dtype", type=str.lower, default="bf16", choices=("bf16", "fp16", "fp32"),
                   help="element type of the messages (default bf16)")
    p.add_argument("--mode", type=str.lower, action="append", dest="modes", choices=_MODES,
                   help="eager and/or graph (default both on GPU; CPU ranks run eager only)")
    p.add_argument("--device", type=str.lower, default="auto", choices=("auto", "cuda", "cpu"),
                   help="auto: the GPUs when CUDA sees one, else CPU ranks over gloo; cuda refuses without a GPU")
    p.add_argument("--max-bytes", default=None, metavar="SIZE",
                   help="symmetric buffer capacity, with a unit (default: the largest size)")
    p.add_argument("--iters", type=int, metavar="N", default=20, help="eager calls per timed repeat (default 20)")
    p.add_argument("--graph-calls", type=int, metavar="N", default=50,
                   help="calls captured per CUDA graph (default 50)")
    p.add_argument("--repeats", type=int, metavar="N", default=7, help="timed repeats, the median reported (default 7)")
    p.add_argument("--json", default=None, metavar="FILE", help="write the dispatch profile (+ FILE.rows.json)")
    p.add_argument("--plot", default=None, metavar="FILE.png", help="log-log latency vs size per backend")
    p.add_argument("--explain", action="store_true", help="print the dispatch decision and reason per size")
    p.add_argument("--max-blocks", type=int, metavar="N", default=None,
                   help="CUDA blocks of tpkit's Triton kernels (default: comm.ledger.DEFAULT_MAX_BLOCKS)")
    p.add_argument("--keep-profile", action="store_true",
                   help="auto rows use the shipped profile instead of the one just measured")
    p.set_defaults(func=_run)
    bench.set_defaults(func=_missing_bench)


def _sizes(lo, hi, dtype: str) -> tuple:
    """Powers of two × ``lo`` up to ``hi``; each must hold whole ``dtype`` elements."""
    from tpkit.comm.explain import default_sizes

    if lo.bytes <= 0 or hi < lo:
        raise PlanInputError(f"need 0 < --min-size ≤ --max-size, got {lo} and {hi}")
    element = lookup_dtype(dtype).bytes
    if lo.bytes % element:
        raise PlanInputError(f"--min-size {lo.bytes} B is not a whole number of {dtype} elements ({element} B each); "
                             f"use a multiple of {element} B, e.g. --min-size 1KiB")
    return default_sizes(lo, hi)


def _check_counts(args) -> None:
    """Counts must be ≥ 1 (0 repeats or iterations has no median and divides by zero)."""
    for name in _COUNTS:
        value = getattr(args, name)
        if value < 1:
            raise PlanInputError(f"--{name.replace('_', '-')} must be ≥ 1, got {value}; leave it out "
                                 "for the default")
    if args.max_blocks is not None and args.max_blocks < 1:
        raise PlanInputError(f"--max-blocks must be ≥ 1, got {args.max_blocks}; omit it for the default")


def _check_outputs(args) -> None:
    """Output paths are checked before the run (a directory or an unwritable folder used to fail at the end)."""
    from tpkit.comm.benchreport import rows_path
    from tpkit.fileio import check_writable

    if args.json is not None:
        check_writable(args.json, what="--json")
        check_writable(rows_path(args.json), what="--json (its rows file)")
    if args.plot is not None:
        check_writable(args.plot, what="--plot", example="allreduce.png")
        ext = os.path.splitext(args.plot)[1].lstrip(".").lower()
        if ext not in _PLOT_FORMATS:
            raise PlanInputError(f"--plot {args.plot}: the extension {ext or '(none)'!r} is not an image format; "
                                 f"use one of {', '.join('.' + f for f in _PLOT_FORMATS)}, e.g. allreduce.png")
        try:  # drawn by rank 0 after the whole run: without matplotlib it died there, the JSON already written
            import matplotlib  # noqa: F401
        except ImportError:
            raise PlanInputError("--plot needs matplotlib, which is not installed here: pip install -e '.[plot]' "
                                 "(or pip install matplotlib), or leave --plot out") from None


def _backends(args) -> tuple[str, ...] | None:
    import tpkit.comm.registry as registry

    if not args.backends:
        return None
    unknown = [b for b in args.backends if b not in registry.ROWS]
    if unknown:
        raise PlanInputError(f"unknown --backend {', '.join(unknown)}; choose from {', '.join(registry.names())}")
    return tuple(args.backends)


def _device(args, backends: tuple[str, ...] | None) -> str:
    """``cpu`` or ``cuda``, with a message a user can act on when the machine cannot run what was asked."""
    import tpkit.comm.registry as registry

    try:
        import torch
    except ImportError:
        raise PlanInputError("tpkit bench allreduce needs torch (and GPUs, or --device cpu --backend gloo); "
                             "install it with pip install 'tpkit[runtime]'") from None
    wanted = {registry.row(b).device for b in backends} if backends else {"cuda", "cpu"}
    cuda_ok, count = torch.cuda.is_available(), torch.cuda.device_count()
    device = args.device
    if device == "auto":
        device = "cuda" if cuda_ok and "cuda" in wanted else "cpu"
    build = f"torch {torch.__version__}, " + ("a CPU-only build" if torch.version.cuda is None
                                               else f"CUDA {torch.version.cuda}")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if device == "cpu" and "RANK" not in os.environ and args.nproc > max(cores, 2):
        raise PlanInputError(f"--nproc {args.nproc} on the CPU spawns {args.nproc} torch processes on the {cores} "
                             f"CPU core(s) this process may use: ranks that share a core time the scheduler, not the "
                             f"all-reduce; use --nproc {max(cores, 2)} or fewer on this machine (or run on GPUs)")
    if args.device == "auto" and device == "cpu" and not cuda_ok:  # say it before the CPU rows, not after
        print(f"tpkit bench: no CUDA GPU is visible ({build}): running the CPU path (gloo) only; these are not GPU "
              "numbers. --device cuda refuses instead of falling back", file=sys.stderr)
    if device == "cuda" and not cuda_ok:
        raise PlanInputError(f"--device cuda: no CUDA GPU is visible ({build}); run on a GPU machine, or "
                             "check the CPU path with --device cpu --backend gloo")
    if device not in wanted:
        names = ", ".join(backends)
        advice = ("on a CPU, run --backend gloo (or --device cpu without --backend)" if device == "cpu"
                  else "drop --device cuda, or add a GPU backend such as --backend nccl")
        reason = f"no CUDA GPU is visible ({build})" if device == "cpu" and not cuda_ok else f"--device {device}"
        raise PlanInputError(f"--backend {names} cannot run on the {device.upper()} ({reason}): "
                             f"{'they need' if len(backends) > 1 else 'it needs'} "
                             f"{'GPUs' if device == 'cpu' else 'CPU tensors'}; {advice}")
    world = int(os.environ["WORLD_SIZE"]) if "RANK" in os.environ and "WORLD_SIZE" in os.environ else args.nproc
    if device == "cuda" and "LOCAL_RANK" not in os.environ and count < world:
        raise PlanInputError(f"--nproc {world} needs {world} GPUs, this machine shows {count}; lower --nproc, or "
                             "check the CPU path with --device cpu --backend gloo")
    return device


def _host_available_bytes() -> int | None:
    """Memory this process could still get on the host: /proc/meminfo's MemAvailable, capped by a cgroup v2 limit
    (``memory.max`` − ``memory.current``) when the process runs in one; None where neither can be read."""
    found = []
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
                    break
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max", encoding="ascii") as f:
            limit = f.read().strip()
        with open("/sys/fs/cgroup/memory.current", encoding="ascii") as f:
            current = int(f.read().strip())
        if limit.isdigit():
            found.append(max(0, int(limit) - current))
    except (OSError, ValueError):
        pass
    return min(found) if found else None


def _size_flag(size) -> str:
    """A size as a flag value: ``4GiB``, ``512MiB``, ``64KiB``, ``96B``."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size.bytes % scale == 0:
            return f"{size.bytes // scale}{unit}"
    return f"{size.bytes}B"


_CPU_PEAK_PER_MESSAGE = (11, 3)
"""a CPU rank's peak memory ≈ (11 + 3 × world size) × its largest message: ``tpkit.comm.benchrun`` keeps the
message, the ``world`` copies ``check_once`` gathers, their float32 stack, the reference and its absolute sum, and the
output with its float32 difference.  Measured (helper nc17, 2026-12-05, torch 2.13 CPU, bf16, one size, --iters 1
--repeats 1): 256 MiB on 1 rank peaked at 4.17 GB resident (14.3× the message with torch's ~0.5 GB), 128 MiB on 2
ranks at 2.67 GB per rank (17.0×).  fp32 messages need less (their float32 copies are not larger)."""


def _check_host_memory(args, sizes: tuple, device: str) -> None:
    """CPU ranks: the largest message must fit the host, or the ranks start and the kernel's OOM killer ends them
    with no message (``--max-size 80GB`` on a 23 GiB host).  Refused when the ranks' peak (``_CPU_PEAK_PER_MESSAGE``)
    exceeds the memory the host has available."""
    from tpkit.units import Bytes, format_bytes

    if device != "cpu":
        return
    available = _host_available_bytes()
    if available is None:
        return
    world = int(os.environ["WORLD_SIZE"]) if "RANK" in os.environ and "WORLD_SIZE" in os.environ else args.nproc
    ranks = int(os.environ.get("LOCAL_WORLD_SIZE", world)) if "RANK" in os.environ else args.nproc
    factor = _CPU_PEAK_PER_MESSAGE[0] + _CPU_PEAK_PER_MESSAGE[1] * world
    largest = sizes[-1]
    need = largest * (ranks * factor)
    if need.bytes <= available:
        return
    fits = [s for s in sizes if s.bytes * ranks * factor <= available]
    advice = (f"use --max-size {_size_flag(fits[-1])} or less" if fits else
              f"this host cannot hold even --min-size {args.min_size}: free memory, or run on GPUs")
    given = f"--max-size {args.max_size}" if args.max_size else f"--min-size {args.min_size}"
    raise PlanInputError(
        f"{given}: a CPU rank of a {world}-rank run peaks at about {factor}× its largest message (the message, the "
        f"copies gathered to check it and their float32 sums), so {ranks} CPU rank{'s' if ranks != 1 else ''} at "
        f"{format_bytes(largest)} need{'s' if ranks == 1 else ''} about {format_bytes(need)} and this host has "
        f"{format_bytes(Bytes(available))} available; {advice}")


def options_from_args(args) -> dict:
    """The bench's options as a plain (picklable) dict: every flag checked, torch only where it must be."""
    from tpkit.comm.env import parse_env
    from tpkit.units import parse_bytes

    _check_counts(args)
    lo = parse_bytes(args.min_size, what="--min-size")
    hi = parse_bytes(args.max_size, what="--max-size") if args.max_size else None
    max_bytes = parse_bytes(args.max_bytes, what="--max-bytes") if args.max_bytes else None
    if max_bytes is not None and max_bytes.bytes <= 0:
        raise PlanInputError(f"--max-bytes must be a size > 0, got {args.max_bytes!r}")
    _check_outputs(args)
    parse_env(os.environ)  # a bad TPKIT_ALLREDUCE* value is a user error here, before any rank starts
    backends = _backends(args)
    _sizes(lo, hi if hi is not None else lo, args.dtype)  # before the device's note: a flag error comes first
    device = _device(args, backends)
    if device == "cpu" and args.modes and "graph" in args.modes:
        raise PlanInputError(f"--mode graph needs CUDA graphs, and this run is on the CPU "
                             f"({'--device cpu' if args.device == 'cpu' else 'no CUDA GPU is visible'}): CPU ranks "
                             "(gloo) run eager only; drop --mode graph (or pass --mode eager), or run on a GPU "
                             "machine")
    default_hi = parse_bytes("1MiB" if device == "cpu" else "256MiB", what="--max-size")
    if hi is None and lo > default_hi:
        raise PlanInputError(f"--min-size {lo} is above the default --max-size on the {device.upper()} "
                             f"({default_hi}); give --max-size too, e.g. --max-size {args.min_size.strip()}")
    sizes = _sizes(lo, hi or default_hi, args.dtype)
    _check_host_memory(args, sizes, device)
    return {
        "nproc": args.nproc, "backends": backends, "sizes": sizes, "dtype": args.dtype,
        "modes": tuple(args.modes) if args.modes else (("eager",) if device == "cpu" else _MODES),
        "device": device, "max_bytes": max_bytes,
        "iters": args.iters, "graph_calls": args.graph_calls, "repeats": args.repeats, "json": args.json,
        "plot": args.plot, "explain": args.explain, "keep_profile": args.keep_profile, "argv": _argv(),
        "backend_options": {"max_blocks": args.max_blocks} if args.max_blocks is not None else {},
    }


def _argv() -> list[str]:
    """The command as typed, normalised to start with ``bench allreduce`` (also under bench/allreduce.py)."""
    argv = sys.argv[1:]
    return argv if argv[:2] == ["bench", "allreduce"] else ["bench", "allreduce", *argv]


def _run(args) -> int:
    opts = options_from_args(args)
    from tpkit.comm.benchmain import run_bench

    return run_bench(opts)
