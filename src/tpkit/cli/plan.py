"""``tpkit plan``: predict and itemise per-GPU memory and KV capacity before launch (no GPU, no torch)."""

from __future__ import annotations

import argparse
import json
import re
import sys

from tpkit.cli.fromlog import FILLED, from_log, read_from_log_notes
from tpkit.errors import PlanInputError

__all__ = ["register", "run_plan", "build_request", "plan", "HELP", "EXIT_DOES_NOT_FIT", "with_memory"]

HELP = "predict per-GPU memory and KV-cache capacity before launch"
"""one line for ``tpkit --help``"""

EXIT_DOES_NOT_FIT = 3
"""exit status of a plan whose verdict is DOES NOT FIT or WILL NOT START (the plan, text or ``--json``, is still
printed)"""

EPILOG = """\
exit status: 0 the plan fits; 3 DOES NOT FIT, or WILL NOT START (the engine
refuses the command itself, e.g. --quantization awq on a checkpoint without a
quantization config; the plan, text or --json, is still printed); 2 a user
error (a message, no traceback); 1 a bug.

--gpu NAME with --gpu-memory SIZE: the GPU's properties (compute capability,
NVLink, vendor) come from the catalog and SIZE replaces its memory total; the
plan says so in a warning.

--list-gpus / --list-models print the catalogs (with --json: as JSON) and exit."""


def register(sub, argv: list[str] | None = None) -> None:
    """Add ``tpkit plan MODEL`` with the shared flags and every registered engine's flags
    (``tpkit.cli.engine_flags``)."""
    from tpkit.cli import PARALLEL_ALIASES
    from tpkit.cli.engine_flags import add_engine_flags
    from tpkit.engines.registry import DEFAULT_ENGINE, all_engines, engine_names

    labels = ", ".join(e.label for e in all_engines())
    p = sub.add_parser(
        "plan", help=HELP,
        description=f"Itemise per-GPU memory (ledger with sources) and the KV-cache pool the engine ({labels}) "
        "will allocate. Sizes accept units: 96GiB (2^30) or 96GB (10^9).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("model", nargs="?", default=None,
                   help="HF id (local HF cache or embedded catalog, see --list-models), model dir or config.json "
                        "path (default with --from-log: the log's model)")
    p.add_argument("--list-gpus", action="store_true", help="list the catalog GPUs (names, aliases, memory) and exit")
    p.add_argument("--list-models", action="store_true", help="list the embedded catalog models and exit")
    p.add_argument("--engine", type=str.lower, choices=engine_names(), default=None,
                   help=f"default {DEFAULT_ENGINE} (with --from-log: the log's engine)")
    p.add_argument("--from-log", default=None, metavar="LOG",
                   help="plan on the machine of this SGLang/vLLM log: its measured start-up terms (and weights, for "
                        "the same layout) replace the catalog's; other flags change the configuration")
    p.add_argument("--gpu", default=None, help="GPU name, e.g. H100, H200 (see --list-gpus); A,B,…: one per PP stage (vLLM)")
    p.add_argument("--gpu-memory", default=None, metavar="SIZE",
                   help="device memory as CUDA reports it, with a unit (e.g. 96GiB): for a GPU not in the catalog, or "
                        "with --gpu to replace the catalog's total when yours differs (an older driver; WSL2 and "
                        "Windows report nvidia-smi's total: the plan's device-memory line gives the figure)")
    p.add_argument("--machine", default=None, metavar="FILE",
                   help="machine profile from `tpkit probe --out`: plan from measured free memory per GPU")
    p.add_argument("--num-gpus", type=int, default=None, metavar="N", help="GPUs on the machine (default tp×pp×dp)")
    for name in ("tp", "pp", "dp", "ep"):
        p.add_argument(f"--{name}", *PARALLEL_ALIASES[name], dest=name, type=int, default=None,
                       help=f"{name.upper()} size (default 1; with --from-log the log's)")
    p.add_argument("--pp-layer-partition", dest="pp_layer_partition", default=None, metavar="N,N,…",
                   help="decoder layers per pipeline stage as VLLM_PP_LAYER_PARTITION / SGLANG_PP_LAYER_PARTITION "
                        "set them, e.g. 16,32 with --pp 2 (default: the engine's split; with --from-log the log's)")
    groups: dict = {}
    add_engine_flags(p, groups)
    _register_allreduce(groups.get("all-reduce") or p.add_argument_group("all-reduce"))
    _register_links(p.add_argument_group("links (default: --machine's probe, else the GPU catalog: an NVLink GPU in a "
                                         "full NVLink mesh with peer access, a PCIe GPU with the peer access its "
                                         "catalog entry records, one node)"))
    p.add_argument("--json", action="store_true", help="machine-readable output (schema tpkit.plan/1)")
    __import__("tpkit.cli.argtypes").cli.argtypes.add_serving_flags(p)  # pasted `vllm serve` lines
    p.set_defaults(func=run_plan)


def _register_allreduce(a) -> None:
    a.add_argument("--tpkit-allreduce", default=None, metavar="SIZE",
                   help="charge the buffers tpkit's AllReduce.create(max_bytes=SIZE) allocates on the TP group "
                        "(e.g. 8MiB); use it with --disable-custom-all-reduce when tpkit's all-reduce replaces "
                        "the engine's. Topology from --link/--no-p2p/--nnodes, else --machine, else from the GPU "
                        "(NVLink GPUs are assumed to be a full NVLink mesh); TPKIT_ALLREDUCE_FORCE_PCIE is read from "
                        "the environment")


def _register_links(a) -> None:
    from tpkit.startup.links import LINKS

    a.add_argument("--link", type=str.lower, choices=LINKS, default=None,
                   help="interconnect of the TP group, as in tpkit perf: nvlink (a full NVLink mesh) or pcie (no "
                        "NVLink mesh); it sets the start-up NCCL row and whether the engines' custom all-reduce runs")
    a.add_argument("--no-p2p", action="store_true", default=None,
                   help="the GPUs have no CUDA peer access (VMs, one GPU per container, boards whose driver turns it "
                        "off): the engines turn their custom all-reduce off, and NCCL cannot use NVLink (the PCIe row)")
    a.add_argument("--p2p", action="store_true", default=None,
                   help="the GPUs have CUDA peer access where the GPU catalog records none (GeForce boards joined by "
                        "an NVLink bridge, a patched driver, A10/A10G/L4/T4 on bare metal): the start-up terms of GPUs "
                        "with peer access")
    a.add_argument("--nnodes", type=_whole_nodes, default=None, metavar="N",
                   help="hosts the GPUs span (as SGLang's and vLLM's --nnodes; GPUs split evenly, TP ranks "
                        "innermost): a TP group across hosts has no custom all-reduce, and its NCCL memory is "
                        "assumed from the PCIe row with a wide band")


def _whole_nodes(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of nodes ≥ 1, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of nodes ≥ 1, got {text!r}")
    return n


def links_from_args(args, parallel):
    """The ``LinkChoice`` of ``--link`` / ``--p2p`` / ``--no-p2p`` / ``--nnodes`` (None when none is given; with
    ``--from-log`` the log's, when the flags say nothing)."""
    from tpkit.startup.links import link_choice

    num_gpus = args.num_gpus if getattr(args, "num_gpus", None) is not None else parallel.num_gpus
    given = link_choice(link=getattr(args, "link", None), no_p2p=bool(getattr(args, "no_p2p", None)),
                        nnodes=getattr(args, "nnodes", None), num_gpus=num_gpus, p2p=bool(getattr(args, "p2p", None)))
    return given if given is not None else getattr(args, "log_links", None)


def _resolve_gpu(args, machine):
    from tpkit.hardware.catalog import custom_gpu, known_gpu, lookup_gpu

    if args.gpu_memory is not None:
        from tpkit.cli.word_hints import device_memory

        total = device_memory(args.gpu_memory)  # a size > 0
        if args.gpu is None:
            return custom_gpu(total, name="custom")
        return with_memory(lookup_gpu(args.gpu), total)
    if args.gpu is not None:
        return lookup_gpu(args.gpu)
    if machine is not None:
        low = machine.min_free
        return lookup_gpu(low.name) if known_gpu(low.name) else custom_gpu(
            low.total_bytes, name=low.name, source=f"--machine {args.machine}: GPU {low.index} cudaMemGetInfo total")
    log = (f" (--from-log {args.from_log} names no GPU and prints no device total: give the GPU that ran it)"
           if getattr(args, "from_log", None) else "")
    raise PlanInputError(f"no GPU given{log}: pass --gpu NAME (e.g. --gpu H100), --gpu-memory SIZE (e.g. 96GiB), "
                         "or --machine machine.json from `tpkit probe --out`")


def with_memory(gpu, total):
    """``--gpu NAME --gpu-memory SIZE``: the catalog GPU with SIZE as its CUDA-reported total (SIZE wins)."""
    from dataclasses import replace

    from tpkit.units import format_bytes

    return replace(gpu, total_bytes=total, nvidia_smi_total_mib=None,
                   total_source=f"--gpu-memory {format_bytes(total)} (replaces the catalog's "
                                f"{format_bytes(gpu.total_bytes)} for {gpu.name})")


def gpu_memory_note(args, gpu) -> tuple[str, ...]:
    """The warning that says which of ``--gpu`` and ``--gpu-memory`` set what, when both are given."""
    if args.gpu_memory is None:
        return ()
    from tpkit.cli.gpu_notes import decimal_size_note  # only with --gpu-memory (tests/cli/test_cold_imports.py)

    if args.gpu is None:
        return decimal_size_note(args, gpu)
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.units import format_bytes

    catalog = lookup_gpu(args.gpu)
    return decimal_size_note(args, gpu, catalog) + (
        f"--gpu-memory {format_bytes(gpu.total_bytes)} replaces the catalog total of {catalog.name} "
        f"({format_bytes(catalog.total_bytes)}); its other properties (compute capability, links, vendor) "
        "come from the catalog",)


_MEMORY_WORD = re.compile(r"\d\s*g", re.I)
"""a memory size in a GPU name ('A100 40GB', 'A100-SXM4-80GB', 'H20-141G'): the name says which card it means"""


def memory_size_note(args, gpu) -> tuple[str, ...]:
    """The warning for a ``--gpu`` name that does not say the memory size (``A100``, ``H20``, ``V100``) when the
    catalog holds the same board with another size (A100 SXM/PCIe 40 and 80 GB, H20 96 and 141 GB, V100 16 and
    32 GB): the catalog's alias picks one, and a plan for the other card is off by the difference.  Nothing to say
    when the name has a size, or when ``--gpu-memory``, ``--machine`` or ``--from-log`` gives the memory."""
    if (args.gpu is None or args.gpu_memory is not None or getattr(args, "machine", None)
            or getattr(args, "from_log", None) or _MEMORY_WORD.search(args.gpu)):
        return ()
    from tpkit.hardware.catalog import list_gpus
    from tpkit.units import format_bytes

    def board(name: str) -> str:  # the catalog name without its memory size: 'A100-SXM-80GB' → 'A100-SXM'
        return re.sub(r"-?\d+GB$", "", name)

    others = [g for g in list_gpus() if g.name != gpu.name and board(g.name) == board(gpu.name)
              and g.total_bytes != gpu.total_bytes]
    if not others:
        return ()
    alternatives = " or ".join(f"--gpu {g.name} ({format_bytes(g.total_bytes)})" for g in others)
    return (f"--gpu {args.gpu!r} does not say the memory size: planned as {gpu.name} ({format_bytes(gpu.total_bytes)} "
            f"as CUDA reports it); for the other card pass {alternatives}",)


def mnnvl_note(args, parallel) -> tuple[str, ...]:
    """The warning for ``--link nvlink --nnodes N`` whose TP group spans nodes: ``startup.links._override`` then
    takes NVLink across the hosts (a multi-node NVLink domain such as GB200 NVL72), which ordinary HGX nodes do not
    have (their GPUs meet over the network); say which was assumed and the flag for the other reading."""
    nnodes = getattr(args, "nnodes", None) or 1
    if getattr(args, "link", None) != "nvlink" or nnodes < 2:
        return ()
    num_gpus = args.num_gpus if args.num_gpus is not None else parallel.num_gpus
    per_node = num_gpus // nnodes
    if parallel.tp <= per_node:
        return ()
    return (f"--link nvlink --nnodes {nnodes}: the TP group of {parallel.tp} spans nodes of {per_node} GPU(s), "
            "so NVLink is assumed across the nodes (one multi-node NVLink domain, e.g. GB200 NVL72); nodes that "
            "meet over the network (InfiniBand/Ethernet, as HGX boards do) are --link pcie --nnodes "
            f"{nnodes}",)


_BOARD_WORDS = ("sxm", "pcie", "nvl", "hgx", "dgx", "hbm3")
"""words in a GPU name that say which board (form factor) is meant (nvidia-smi calls the H100 SXM board
'NVIDIA H100 80GB HBM3', the PCIe one 'NVIDIA H100 PCIe')"""


def board_note(args, gpu, parallel) -> tuple[str, ...]:
    """The warning for a ``--gpu`` name that does not say the board (``A100``, ``H100 80GB``) when the catalog holds
    another board of the same chip and memory with other links (A100/H100 SXM with NVLink vs PCIe): the catalog's
    alias picks one, and at tp > 1 the links set the NCCL start-up row and whether the custom all-reduce runs
    (``startup.links``).  Nothing to say at tp 1, or when ``--link``, ``--machine`` or ``--from-log`` gives the
    links."""
    if (args.gpu is None or parallel.tp < 2 or getattr(args, "link", None) or getattr(args, "machine", None)
            or getattr(args, "from_log", None)):
        return ()
    from tpkit.hardware.catalog import list_gpus, normalise_gpu_name

    if any(word in normalise_gpu_name(args.gpu) for word in _BOARD_WORDS):
        return ()
    nvlink = bool(gpu.nvlink_gbps_per_direction)
    others = [g.name for g in list_gpus() if g.name != gpu.name and g.name.split("-")[0] == gpu.name.split("-")[0]
              and g.total_bytes == gpu.total_bytes and bool(g.nvlink_gbps_per_direction) != nvlink]
    if not others:
        return ()
    return (f"--gpu {args.gpu!r} is read as {gpu.name} ({'NVLink' if nvlink else 'PCIe'}); for the "
            f"{others[0]} board ({'no NVLink' if nvlink else 'NVLink'}: the NCCL start-up row and the custom "
            f"all-reduce follow the links) pass --gpu {others[0]} or --link {'pcie' if nvlink else 'nvlink'}",)


def _sglang_data_parallel(args) -> None:
    """SGLang spells its ``--dp-size`` ``--data-parallel-size`` too (srt/server_args.py ``add_cli_args``, read in
    0.4.4, 0.5.6 and 0.5.8), the flag tpkit keeps for vLLM's ``data_parallel_size``: with ``--engine sglang`` it is
    ``--dp`` (helper rev11, 2026-12-05: it was refused as "a vLLM flag; SGLang has no such flag")."""
    value = getattr(args, "data_parallel_size", None)
    if args.engine != "sglang" or value is None:
        return
    if args.dp not in (None, value) and "dp" not in getattr(args, "log_filled", ()):  # a log's dp gives way
        raise PlanInputError(f"--dp {args.dp} and --data-parallel-size {value} disagree (SGLang reads both as its "
                             "dp_size); give one")
    args.dp, args.data_parallel_size = value, None


def build_request(args):
    """Parse flags into (model, gpu, parallel, machine) — every check before any planning."""
    from tpkit.cli.engine_flags import check_engine_flags
    from tpkit.engines.registry import get_engine
    from tpkit.models import load_model
    from tpkit.parallel import ParallelSpec

    check_engine_flags(args, get_engine(args.engine), engine_from=getattr(args, "engine_from", None))
    partition = getattr(args, "pp_layer_partition", None)
    parallel = ParallelSpec(tp=args.tp, pp=args.pp, dp=args.dp, ep=args.ep,
                            dp_attention=bool(getattr(args, "enable_dp_attention", None)),
                            layer_partition=None if partition in (None, "") else partition)
    if "," in (args.gpu or "") and parallel.pp > 1:  # --gpu A,B: a GPU per pipeline stage (imported only then)
        __import__("tpkit.cli.stagegpus").cli.stagegpus.stage_gpu_names(args, parallel)
    num_gpus = args.num_gpus if args.num_gpus is not None else parallel.num_gpus
    if num_gpus < 1 or parallel.num_gpus > num_gpus:
        shape = (f"tp×pp = {parallel.tp}×{parallel.pp} (--dp {parallel.dp} is attention DP inside the TP group)"
                 if parallel.dp_attention else f"tp×pp×dp = {parallel.tp}×{parallel.pp}×{parallel.dp}")
        from tpkit.cli.parallel_hints import dp_inside_hint

        raise PlanInputError(f"{shape} = {parallel.num_gpus} GPUs but --num-gpus is {num_gpus}; raise --num-gpus "
                             "or lower --tp/--pp/--dp" + dp_inside_hint(args, parallel, num_gpus))
    machine = None
    if args.machine:
        from tpkit.hardware.profile_io import load_machine_profile, select_gpus

        machine = load_machine_profile(args.machine)
        flag_gpu = _resolve_gpu(args, None) if (args.gpu or args.gpu_memory) else None
        chosen = select_gpus(machine, num_gpus=parallel.num_gpus, gpu=flag_gpu if args.gpu else None)
        machine = machine.first(len(chosen))
    gpu = _resolve_gpu(args, machine)
    from tpkit.hardware.catalog import refuse_mig_layout

    refuse_mig_layout(gpu, tp=parallel.tp, pp=parallel.pp, dp=1 if parallel.dp_attention else parallel.dp,
                      num_gpus=num_gpus, command="plan")
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
    topology = plan_topology(gpu, machine, parallel.tp if machine is None else len(machine.gpus),
                             links_from_args(args, parallel))
    ar = plan_allreduce(world_size=parallel.tp, max_bytes=size, topology=topology, env=os.environ)
    note = describe_skipped(ar)
    return ar.lines, ((note,) if note else ())


def _engine_and_model(args, log, given: bool) -> None:
    """Fill --engine (the log's, else the default; ``given``: --engine was on the command line) and the layout left
    open with 1; refuse a plan without MODEL."""
    if not given:
        args.engine_from = "read from the log" if args.engine is not None else "the default"
    if args.engine is None:
        from tpkit.engines.registry import DEFAULT_ENGINE

        args.engine = DEFAULT_ENGINE
    _sglang_data_parallel(args)
    for name in FILLED:
        if getattr(args, name) is None:
            setattr(args, name, 1)
    if args.model is None and log is not None:
        printed = log.parsed.run.value("model")
        what = (f"the log names the model {printed!r}, which is neither on this machine nor in the catalog"
                if printed else "the log prints no model path or name")
        name = str(printed).rstrip("/").rsplit("/", 1)[-1] if printed else "MODEL"
        raise PlanInputError(f"--from-log {args.from_log}: {what}; pass MODEL as well: the config.json or checkpoint "
                             "directory of the model that log ran (copied from its machine), or its HF id once in "
                             f"your local HF cache, e.g. tpkit plan ./{name}/config.json --from-log {args.from_log}")
    if args.model is None:
        raise PlanInputError("no model given: pass MODEL (an HF id, a model dir or a config.json), or --from-log LOG "
                             "with a log that names a model tpkit can read")


def _extra_uses_by_tp(args, gpu, parallel, machine, extra):
    """The extra uses the engine charges: ``extra`` as is, or with --tpkit-allreduce a function of the TP size
    (the verdict re-plans fixes at other TP sizes: their buffers too)."""
    if args.tpkit_allreduce is None:
        return extra
    from dataclasses import replace as _with

    def extra_for(tp: int, _done={parallel.tp: extra}):  # noqa: B006 - a cache for this one plan
        if tp not in _done:
            _done[tp] = tpkit_allreduce_uses(args, gpu, _with(parallel, tp=tp), machine)[0]
        return _done[tp]
    return extra_for


def plan(args):
    """Flags → PlanResult (pure; no torch)."""
    from tpkit.cli.engine_flags import options_from_args
    from tpkit.engines.registry import get_engine
    from tpkit.memory.band import with_band

    given = args.engine is not None
    log = from_log(args) if getattr(args, "from_log", None) else None
    _engine_and_model(args, log, given)
    engine = get_engine(args.engine)
    model, gpu, parallel, machine = build_request(args)
    if getattr(args, "stage_gpus", None):  # --gpu A,B with --pp: each stage on its own GPU
        engine = __import__("tpkit.cli.stagegpus").cli.stagegpus.stage_engine(args, engine)
    if "quantization" in getattr(args, "log_filled", ()):
        from tpkit.explain.fromlog import refused_quantization

        refused = refused_quantization(model, args.quantization, args.engine)
        if refused:
            args.log_notes, args.quantization = (refused,), None
            args.quantization_refused = True  # the log's own: its measured weights stay (fromlog.measured_from_log)
            args.log_filled = tuple(n for n in args.log_filled if n != "quantization")
    options = options_from_args(engine, args)
    links = links_from_args(args, parallel)
    if links is not None:
        from dataclasses import replace as _set

        options = _set(options, links=links)
    extra, notes = tpkit_allreduce_uses(args, gpu, parallel, machine)
    extra_for = _extra_uses_by_tp(args, gpu, parallel, machine, extra)
    if log is not None:
        from tpkit.cli.fromlog_plan import plan_from_log

        result, logged = plan_from_log(args, log, engine, model, gpu, parallel, options, machine, extra_for)
        notes = tuple(notes) + logged
    else:
        result = with_band(engine.plan, model, gpu, parallel, options, machine=machine, extra_uses=extra_for)
    if log is not None:
        notes = tuple(notes) + read_from_log_notes(args, log, result)
    from tpkit.engines.unified import unified_memory_note
    from tpkit.startup.links import catalog_p2p_note
    from tpkit.units import Bytes

    checks = _start_checks(args)
    requested = (result.extra or {}).get("requested_bytes")  # the --json key: an int count of bytes
    notes = (gpu_memory_note(args, gpu) + memory_size_note(args, gpu) + board_note(args, gpu, parallel)
             + mnnvl_note(args, parallel)
             + catalog_p2p_note(gpu, parallel.tp * parallel.pp, machine, links)
             + (checks.quantization_note(args, model) + checks.long_len_note(args, model) if checks else ())
             + unified_memory_note(args.engine, getattr(args, "engine_version", None), gpu,
                                   requested=None if requested is None else Bytes(requested)) + tuple(notes))
    if notes:
        from dataclasses import replace

        result = replace(result, warnings=tuple(result.warnings) + notes)
    return checks.will_not_start(result, args, model) if checks else result


def _start_checks(args):
    """``cli.startcheck`` (an engine refusal of ``--quantization``, vLLM's long ``--max-model-len``), imported only
    when a flag it reads is given (the cold import of a plain plan stays as it was)."""
    if getattr(args, "quantization", None) or (args.engine == "vllm" and getattr(args, "max_model_len", None)):
        import tpkit.cli.startcheck as checks

        return checks
    return None


def run_plan(args) -> int:
    """Print the plan; exit 0 when it fits, ``EXIT_DOES_NOT_FIT`` (3) when it does not."""
    if args.list_gpus or args.list_models:
        from tpkit.cli.catalogs import print_catalogs

        return print_catalogs(gpus=args.list_gpus, models=args.list_models, as_json=args.json)
    if args.model is None and not getattr(args, "from_log", None):
        raise PlanInputError("no MODEL given: pass an HF id, a checkpoint directory or a config.json path, e.g. "
                             "tpkit plan meta-llama/Llama-3.1-8B-Instruct --gpu H100 "
                             "(tpkit plan --list-models lists the embedded catalog), or --from-log LOG")
    result = plan(args)
    if args.json:
        json.dump(result.to_json_dict(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        from tpkit.cli.render import format_plan

        sys.stdout.write(format_plan(result))
    return 0 if result.verdict.fits else EXIT_DOES_NOT_FIT
