"""``tpkit bench allreduce``: check and time every all-reduce backend, write a dispatch profile."""

from __future__ import annotations

import sys

from tpkit.comm.dispatch import BACKENDS
from tpkit.comm.ledger import DEFAULT_MAX_BLOCKS
from tpkit.errors import PlanInputError
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


def _sizes(lo: Bytes, hi: Bytes) -> tuple[int, ...]:
    if lo.bytes <= 0 or hi < lo:
        raise PlanInputError(f"need 0 < --min-size ≤ --max-size, got {lo} and {hi}")
    out, n = [], lo.bytes
    while n <= hi.bytes:
        out.append(n)
        n *= 2
    return tuple(out)


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
    sizes = _sizes(parse_bytes(args.min_size, what="--min-size"), hi)
    if args.nproc < 1:
        raise PlanInputError(f"--nproc must be ≥ 1, got {args.nproc}")
    return {
        "nproc": args.nproc, "backends": backends, "sizes": sizes, "dtype": args.dtype,
        "modes": tuple(args.modes) if args.modes else (("eager",) if cpu else _MODES),
        "device": "cpu" if cpu else args.device,
        "max_bytes": parse_bytes(args.max_bytes, what="--max-bytes").bytes if args.max_bytes else 0,
        "iters": args.iters, "graph_calls": args.graph_calls, "repeats": args.repeats, "json": args.json,
        "plot": args.plot, "explain": args.explain, "keep_profile": args.keep_profile, "argv": _argv(),
        "backend_options": {"max_blocks": args.max_blocks} if args.max_blocks else {},
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
