"""``tpkit plan``: predict and itemise per-GPU memory and KV capacity before launch (no GPU, no torch)."""

from __future__ import annotations

import json
import sys

from tpkit.errors import PlanInputError

__all__ = ["register", "run_plan", "build_request", "plan", "HELP"]

HELP = "predict per-GPU memory and KV-cache capacity before launch"
"""one line for ``tpkit --help``"""


def register(sub) -> None:
    from tpkit.cli.engine_flags import add_engine_flags
    from tpkit.engines.registry import DEFAULT_ENGINE, all_engines, engine_names

    labels = ", ".join(e.label for e in all_engines())
    p = sub.add_parser(
        "plan", help=HELP,
        description=f"Itemise per-GPU memory (ledger with sources) and the KV-cache pool the engine ({labels}) "
        "will allocate. Sizes accept units: 96GiB (2^30) or 96GB (10^9).",
    )
    p.add_argument("model", help="HF id (local HF cache or embedded catalog), model dir or config.json path")
    p.add_argument("--engine", choices=engine_names(), default=DEFAULT_ENGINE)
    p.add_argument("--gpu", default=None, help="GPU name, e.g. H100, H200, RTX-PRO-6000 (see --list-gpus)")
    p.add_argument("--gpu-memory", default=None, metavar="SIZE",
                   help="device memory as CUDA reports it, with a unit (e.g. 96GiB) for a GPU not in the catalog")
    p.add_argument("--machine", default=None, metavar="FILE",
                   help="machine profile from `tpkit probe --out`: plan from measured free memory per GPU")
    p.add_argument("--num-gpus", type=int, default=None, help="GPUs on the machine (default tp×pp×dp)")
    for name in ("tp", "pp", "dp", "ep"):
        p.add_argument(f"--{name}", type=int, default=1, help=f"{name.upper()} size (default 1)")
    groups: dict = {}
    add_engine_flags(p, groups)
    _register_allreduce(groups.get("all-reduce") or p.add_argument_group("all-reduce"))
    p.add_argument("--json", action="store_true", help="machine-readable output (stable schema)")
    p.set_defaults(func=run_plan)


def _register_allreduce(a) -> None:
    a.add_argument("--tpkit-allreduce", default=None, metavar="SIZE",
                   help="charge the buffers tpkit's AllReduce.create(max_bytes=SIZE) allocates on the TP group "
                        "(e.g. 8MiB); use it with --disable-custom-all-reduce when tpkit's all-reduce replaces "
                        "the engine's. Topology from --machine, else from the GPU (NVLink GPUs are assumed to be "
                        "a full NVLink mesh); TPKIT_ALLREDUCE_FORCE_PCIE is read from the environment")


def _resolve_gpu(args, machine):
    from tpkit.hardware.catalog import custom_gpu, lookup_gpu
    from tpkit.units import parse_bytes

    if args.gpu_memory is not None:
        total = parse_bytes(args.gpu_memory, what="--gpu-memory")
        if total.bytes <= 0:
            raise PlanInputError(f"--gpu-memory must be > 0, got {args.gpu_memory!r}")
        return custom_gpu(total, name=args.gpu or "custom")
    if args.gpu is not None:
        return lookup_gpu(args.gpu)
    if machine is not None:
        low = machine.min_free
        return lookup_gpu(low.name) if _known(low.name) else custom_gpu(
            low.total_bytes, name=low.name, source=f"--machine {args.machine}: GPU {low.index} cudaMemGetInfo total")
    raise PlanInputError("no GPU given: pass --gpu NAME (e.g. --gpu H100), --gpu-memory SIZE (e.g. 96GiB), "
                         "or --machine machine.json from `tpkit probe --out`")


def _known(name: str) -> bool:
    from tpkit.errors import UnknownGpuError
    from tpkit.hardware.catalog import lookup_gpu

    try:
        lookup_gpu(name)
        return True
    except UnknownGpuError:
        return False


def build_request(args):
    """Parse flags into (model, gpu, parallel, machine) — every check before any planning."""
    from tpkit.cli.engine_flags import check_engine_flags
    from tpkit.engines.registry import get_engine
    from tpkit.models import load_model
    from tpkit.parallel import ParallelSpec

    check_engine_flags(args, get_engine(args.engine))
    parallel = ParallelSpec(tp=args.tp, pp=args.pp, dp=args.dp, ep=args.ep,
                            dp_attention=bool(getattr(args, "enable_dp_attention", None)))
    num_gpus = args.num_gpus if args.num_gpus is not None else parallel.num_gpus
    if num_gpus < 1 or parallel.num_gpus > num_gpus:
        shape = (f"tp×pp = {parallel.tp}×{parallel.pp} (--dp {parallel.dp} is attention DP inside the TP group)"
                 if parallel.dp_attention else f"tp×pp×dp = {parallel.tp}×{parallel.pp}×{parallel.dp}")
        raise PlanInputError(f"{shape} = {parallel.num_gpus} GPUs but --num-gpus is {num_gpus}; raise --num-gpus "
                             "or lower --tp/--pp/--dp")
    machine = None
    if args.machine:
        from tpkit.hardware.profile_io import load_machine_profile, select_gpus

        machine = load_machine_profile(args.machine)
        flag_gpu = _resolve_gpu(args, None) if (args.gpu or args.gpu_memory) else None
        chosen = select_gpus(machine, num_gpus=parallel.num_gpus, gpu=flag_gpu if args.gpu else None)
        machine = machine.first(len(chosen))
    gpu = _resolve_gpu(args, machine)
    model = load_model(args.model)
    return model, gpu, parallel, machine


def _allreduce_size(text: str):
    from tpkit.errors import UnitError
    from tpkit.units import parse_bytes

    try:
        size = parse_bytes(text, what="--tpkit-allreduce")
    except UnitError as exc:
        raise PlanInputError(f"{exc}; tpkit's all-reduce buffer is usually a few MiB, e.g. "
                             "--tpkit-allreduce 8MiB") from None
    if size.bytes <= 0:
        raise PlanInputError(f"--tpkit-allreduce must be a size > 0, got {text!r}; e.g. --tpkit-allreduce 8MiB "
                             "(the largest message tpkit's custom kernels take)")
    return size


def tpkit_allreduce_uses(args, gpu, parallel, machine) -> tuple[tuple, tuple[str, ...]]:
    """(ledger lines of tpkit's all-reduce buffers on the TP group, notes) for ``--tpkit-allreduce``."""
    if args.tpkit_allreduce is None:
        return (), ()
    import os

    from tpkit.comm.plan import describe_skipped, plan_allreduce
    from tpkit.startup import plan_topology

    size = _allreduce_size(args.tpkit_allreduce)
    # the first TP group, as select_gpus chose it
    topology = plan_topology(gpu, machine, parallel.tp if machine is None else len(machine.gpus))
    ar = plan_allreduce(world_size=parallel.tp, max_bytes=size, topology=topology, env=os.environ)
    note = describe_skipped(ar)
    return ar.lines, ((note,) if note else ())


def plan(args):
    """Flags → PlanResult (pure; no torch)."""
    from tpkit.cli.engine_flags import options_from_args
    from tpkit.engines.registry import get_engine
    from tpkit.memory.band import with_band

    engine = get_engine(args.engine)
    model, gpu, parallel, machine = build_request(args)
    options = options_from_args(engine, args)
    extra, notes = tpkit_allreduce_uses(args, gpu, parallel, machine)
    if args.tpkit_allreduce is not None:  # the verdict re-plans fixes at other TP sizes: their buffers too
        from dataclasses import replace as _with

        def extra_for(tp: int, _done={parallel.tp: extra}):  # noqa: B006 - a cache for this one plan
            if tp not in _done:
                _done[tp] = tpkit_allreduce_uses(args, gpu, _with(parallel, tp=tp), machine)[0]
            return _done[tp]
    else:
        extra_for = extra
    result = with_band(engine.plan, model, gpu, parallel, options, machine=machine, extra_uses=extra_for)
    if notes:
        from dataclasses import replace

        result = replace(result, warnings=tuple(result.warnings) + notes)
    return result


def run_plan(args) -> int:
    result = plan(args)
    if args.json:
        json.dump(result.to_json_dict(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        from tpkit.cli.render import format_plan

        sys.stdout.write(format_plan(result))
    return 0
