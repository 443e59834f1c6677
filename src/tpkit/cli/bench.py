"""``tpkit bench allreduce``: check and time every all-reduce backend, write a dispatch profile."""

from __future__ import annotations

import sys

from tpkit.comm.dispatch import BACKENDS
from tpkit.comm.ledger import DEFAULT_MAX_BLOCKS
from tpkit.errors import PlanInputError
from tpkit.fileio import check_writable
from tpkit.units import Bytes, parse_bytes

__all__ = ["register"]

_MODES = ("eager", "graph")


def register(subparsers) -> None:
    """Add ``bench`` with its ``allreduce`` sub-command."""
    bench = subparsers.add_parser("bench", help="benchmarks (all-reduce)")
    sub = bench.add_subparsers(dest="bench_command", metavar="BENCH")
    p = sub.add_parser("allreduce", help="check + time all-reduce backends (one process per GPU)")
    p.add_argument("--nproc", type=int, default=2, help="processes to spawn (ignored under torchrun)")
    p.add_argument("--backend", action="append", dest="backends", metavar="NAME",
                   help=f"backend to run (repeatable): {', '.join(BACKENDS)}; default: all that start")
    p.add_argument("--min-size", default="1KiB", help="smallest message, with a unit (default 1KiB)")
    p.add_argument("--max-size", default=None, help="largest message (default 256MiB on GPU, 1MiB on CPU)")
    p.add_argument("--dtype", default="bf16", choices=("bf16", "fp16", "fp32"))
    p.add_argument("--mode", action="append", dest="modes", choices=_MODES, help="eager and/or graph (default both)")
    p.add_argument("--device", default="auto", choices=("auto", "cuda", "cpu"))
    p.add_argument("--max-bytes", default=None, help="symmetric buffer capacity (default: the largest size)")
    p.add_argument("--iters", type=int, default=20, help="eager calls per timed repeat")
    p.add_argument("--graph-calls", type=int, default=50, help="calls captured per CUDA graph")
    p.add_argument("--repeats", type=int, default=7, help="timed repeats (median reported)")
    p.add_argument("--json", default=None, metavar="FILE", help="write the dispatch profile (+ FILE.rows.json)")
    p.add_argument("--plot", default=None, metavar="FILE.png", help="log-log latency vs size per backend")
    p.add_argument("--explain", action="store_true", help="print the dispatch decision and reason per size")
    p.add_argument("--max-blocks", type=int, default=None, help=f"CUDA blocks of tpkit's Triton kernels (default {DEFAULT_MAX_BLOCKS})")
    p.add_argument("--keep-profile", action="store_true",
                   help="auto rows use the shipped profile instead of the one just measured")
    p.set_defaults(func=_run)
    bench.set_defaults(func=lambda args: (bench.print_help(), 2)[1])


_ELEMENT_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}
_COUNTS = ("nproc", "iters", "graph_calls", "repeats")


def _sizes(lo: Bytes, hi: Bytes, dtype: str) -> tuple[int, ...]:
    """Powers of two × ``lo`` up to ``hi`` (bytes); each must hold whole ``dtype`` elements."""
    from tpkit.comm.explain import default_sizes

    if lo.bytes <= 0 or hi < lo:
        raise PlanInputError(f"need 0 < --min-size ≤ --max-size, got {lo} and {hi}")
    element = _ELEMENT_BYTES[dtype]
    if lo.bytes % element:
        raise PlanInputError(f"--min-size {lo.bytes} B is not a whole number of {dtype} elements ({element} B each); "
                             f"use a multiple of {element} B, e.g. --min-size 1KiB")
    return default_sizes(lo, hi)


def _check_counts(args) -> None:
    """Counts must be ≥ 1 (0 repeats or iterations has no median and divides by zero)."""
    for name in _COUNTS:
        value = getattr(args, name)
        if value < 1:
            raise PlanInputError(f"--{name.replace('_', '-')} must be ≥ 1, got {value}")
    if args.max_blocks is not None and args.max_blocks < 1:
        raise PlanInputError(f"--max-blocks must be ≥ 1, got {args.max_blocks}; omit it for {DEFAULT_MAX_BLOCKS}")


def options_from_args(args) -> dict:
    """The bench's options as a plain (picklable) dict."""
    import os

    from tpkit.comm.env import parse_env

    parse_env(os.environ)  # a bad TPKIT_ALLREDUCE* value is a user error here, before any rank starts
    backends = tuple(args.backends) if args.backends else None
    unknown = [b for b in backends or () if b not in BACKENDS]
    if unknown:
        raise PlanInputError(f"unknown --backend {', '.join(unknown)}; choose from {', '.join(BACKENDS)}")
    cpu = args.device == "cpu" or backends == ("gloo",)
    if not cpu and args.device == "auto":
        try:
            import torch

            cpu = not torch.cuda.is_available()
        except ImportError:
            raise PlanInputError("tpkit bench needs torch: pip install 'tpkit[runtime]'") from None
    hi = parse_bytes(args.max_size or ("1MiB" if cpu else "256MiB"), what="--max-size")
    sizes = _sizes(parse_bytes(args.min_size, what="--min-size"), hi, args.dtype)
    _check_counts(args)
    for flag, path in (("--json", args.json), ("--plot", args.plot)):
        if path:
            check_writable(path, what=flag)
    return {
        "nproc": args.nproc, "backends": backends, "sizes": sizes, "dtype": args.dtype,
        "modes": tuple(args.modes) if args.modes else (("eager",) if cpu else _MODES),
        "device": "cpu" if cpu else args.device,
        "max_bytes": parse_bytes(args.max_bytes, what="--max-bytes").bytes if args.max_bytes else 0,
        "iters": args.iters, "graph_calls": args.graph_calls, "repeats": args.repeats, "json": args.json,
        "plot": args.plot, "explain": args.explain, "keep_profile": args.keep_profile, "argv": _argv(),
        "backend_options": {"max_blocks": args.max_blocks} if args.max_blocks is not None else {},
    }


def _argv() -> list[str]:
    """The command as typed, normalised to start with ``bench allreduce`` (also under bench/allreduce.py)."""
    argv = sys.argv[1:]
    return argv if argv[:2] == ["bench", "allreduce"] else ["bench", "allreduce", *argv]


def _run(args) -> int:
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        raise PlanInputError("tpkit bench allreduce needs torch (and GPUs, or --device cpu --backend gloo); "
                             "install it with pip install 'tpkit[runtime]'")
    from tpkit.comm.benchmain import run_bench

    return run_bench(options_from_args(args))
