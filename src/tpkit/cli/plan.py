"""``tpkit plan``: predict and itemise per-GPU memory and KV capacity before launch (no GPU, no torch)."""

from __future__ import annotations

import argparse
import json
import sys

from tpkit.errors import PlanInputError

__all__ = ["register", "run_plan", "build_request"]

SGLANG_ONLY = ("mem_fraction_static", "context_length", "page_size", "max_total_tokens",
               "chunked_prefill_size", "cuda_graph_max_bs", "max_running_requests")
VLLM_ONLY = ("gpu_memory_utilization", "max_model_len", "block_size", "max_num_batched_tokens",
             "max_num_seqs", "kv_cache_memory_bytes", "enforce_eager")
KV_DTYPES = ("auto", "bf16", "bfloat16", "fp16", "float16", "fp8", "fp8_e4m3", "fp8_e5m2")


def _fraction(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}") from None


def register(sub) -> None:
    p = sub.add_parser(
        "plan",
        help="predict per-GPU memory and KV-cache capacity for SGLang or vLLM before launch",
        description="Itemise per-GPU memory (ledger with sources) and the KV-cache pool the engine "
        "will allocate. Sizes accept units: 96GiB (2^30) or 96GB (10^9).",
    )
    p.add_argument("model", help="HF id (local HF cache or embedded catalog), model dir or config.json path")
    p.add_argument("--engine", choices=("sglang", "vllm"), default="sglang")
    p.add_argument("--engine-version", default=None, help="rule set of an older engine release")
    p.add_argument("--gpu", default=None, help="GPU name, e.g. H100, H200, RTX-PRO-6000 (see --list-gpus)")
    p.add_argument("--gpu-memory", default=None, metavar="SIZE",
                   help="device memory as CUDA reports it, with a unit (e.g. 96GiB) for a GPU not in the catalog")
    p.add_argument("--machine", default=None, metavar="FILE",
                   help="machine profile from `tpkit probe --out`: plan from measured free memory per GPU")
    p.add_argument("--num-gpus", type=int, default=None, help="GPUs on the machine (default tp×pp×dp)")
    for name in ("tp", "pp", "dp", "ep"):
        p.add_argument(f"--{name}", type=int, default=1, help=f"{name.upper()} size (default 1)")
    p.add_argument("--dtype", default=None, help="weight dtype: auto, bfloat16, float16")
    p.add_argument("--quantization", default=None, help="weight quantisation override, e.g. fp8")
    p.add_argument("--kv-cache-dtype", default="auto", choices=KV_DTYPES)
    g = p.add_argument_group("SGLang")
    g.add_argument("--mem-fraction-static", type=_fraction, default=None)
    g.add_argument("--context-length", type=int, default=None)
    g.add_argument("--page-size", type=int, default=None)
    g.add_argument("--max-total-tokens", type=int, default=None)
    g.add_argument("--chunked-prefill-size", type=int, default=None)
    g.add_argument("--cuda-graph-max-bs", type=int, default=None)
    g.add_argument("--max-running-requests", type=int, default=None)
    v = p.add_argument_group("vLLM")
    v.add_argument("--gpu-memory-utilization", type=_fraction, default=None)
    v.add_argument("--max-model-len", type=int, default=None)
    v.add_argument("--block-size", type=int, default=None)
    v.add_argument("--max-num-batched-tokens", type=int, default=None)
    v.add_argument("--max-num-seqs", type=int, default=None)
    v.add_argument("--kv-cache-memory-bytes", default=None, metavar="SIZE")
    v.add_argument("--enforce-eager", action="store_true", default=None)
    _register_allreduce(p.add_argument_group("all-reduce (both engines)"))
    p.add_argument("--json", action="store_true", help="machine-readable output (stable schema)")
    p.set_defaults(func=run_plan)


def _register_allreduce(a) -> None:
    a.add_argument("--disable-custom-all-reduce", action="store_true",
                   help="as in SGLang and vLLM: the engine allocates no custom all-reduce buffers (NCCL only)")
    a.add_argument("--tpkit-allreduce", default=None, metavar="SIZE",
                   help="charge the buffers tpkit's AllReduce.create(max_bytes=SIZE) allocates on the TP group "
                        "(e.g. 8MiB); use it with --disable-custom-all-reduce when tpkit's all-reduce replaces "
                        "the engine's. Topology from --machine, else from the GPU (NVLink GPUs are assumed to be "
                        "a full NVLink mesh); TPKIT_ALLREDUCE_FORCE_PCIE is read from the environment")


def _check_engine_flags(args) -> None:
    wrong = VLLM_ONLY if args.engine == "sglang" else SGLANG_ONLY
    hint = {"mem_fraction_static": "--gpu-memory-utilization", "gpu_memory_utilization": "--mem-fraction-static",
            "context_length": "--max-model-len", "max_model_len": "--context-length",
            "page_size": "--block-size", "block_size": "--page-size"}
    for name in wrong:
        if getattr(args, name) is not None:
            flag = "--" + name.replace("_", "-")
            alt = hint.get(name)
            fix = f"; for --engine {args.engine} use {alt}" if alt else ""
            raise PlanInputError(f"{flag} is a {'vLLM' if args.engine == 'sglang' else 'SGLang'} flag, "
                                 f"but --engine is {args.engine}{fix}")


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
    from tpkit.models import load_model
    from tpkit.parallel import ParallelSpec

    _check_engine_flags(args)
    parallel = ParallelSpec(tp=args.tp, pp=args.pp, dp=args.dp, ep=args.ep)
    num_gpus = args.num_gpus if args.num_gpus is not None else parallel.num_gpus
    if num_gpus < 1 or parallel.num_gpus > num_gpus:
        raise PlanInputError(f"tp×pp×dp = {parallel.tp}×{parallel.pp}×{parallel.dp} = {parallel.num_gpus} GPUs "
                             f"but --num-gpus is {num_gpus}; raise --num-gpus or lower --tp/--pp/--dp")
    machine = None
    if args.machine:
        from dataclasses import replace

        from tpkit.hardware.profile_io import load_machine_profile, select_gpus

        machine = load_machine_profile(args.machine)
        flag_gpu = _resolve_gpu(args, None) if (args.gpu or args.gpu_memory) else None
        chosen = select_gpus(machine, num_gpus=parallel.num_gpus, gpu=flag_gpu if args.gpu else None)
        machine = replace(machine, gpus=chosen)
    gpu = _resolve_gpu(args, machine)
    model = load_model(args.model)
    return model, gpu, parallel, machine


def _options(args):
    from tpkit.units import parse_bytes

    if args.engine == "sglang":
        from tpkit.engines.sglang import SglangOptions

        fields = dict(mem_fraction_static=args.mem_fraction_static, context_length=args.context_length,
                      page_size=args.page_size, kv_cache_dtype=args.kv_cache_dtype, dtype=args.dtype,
                      quantization=args.quantization, max_total_tokens=args.max_total_tokens,
                      chunked_prefill_size=args.chunked_prefill_size, cuda_graph_max_bs=args.cuda_graph_max_bs,
                      max_running_requests=args.max_running_requests,
                      disable_custom_all_reduce=bool(args.disable_custom_all_reduce))
        cls = SglangOptions
    else:
        from tpkit.engines.vllm import VllmOptions

        kv_bytes = (parse_bytes(args.kv_cache_memory_bytes, what="--kv-cache-memory-bytes")
                    if args.kv_cache_memory_bytes is not None else None)
        fields = dict(gpu_memory_utilization=args.gpu_memory_utilization, max_model_len=args.max_model_len,
                      block_size=args.block_size, max_num_batched_tokens=args.max_num_batched_tokens,
                      max_num_seqs=args.max_num_seqs, kv_cache_memory_bytes=kv_bytes,
                      enforce_eager=bool(args.enforce_eager), kv_cache_dtype=args.kv_cache_dtype,
                      dtype=args.dtype, quantization=args.quantization,
                      disable_custom_all_reduce=bool(args.disable_custom_all_reduce))
        cls = VllmOptions
    if args.engine_version is not None:
        fields["engine_version"] = args.engine_version
    return cls(**fields)


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

    from tpkit.startup import group_links

    size = _allreduce_size(args.tpkit_allreduce)
    links = group_links(gpu, machine, range(parallel.tp))  # the first TP group, as select_gpus chose it
    ar = plan_allreduce(world_size=parallel.tp, max_bytes=size, full_nvlink=links.full_nvlink, p2p=links.p2p,
                        compute_capability=links.compute_capability, gpu_has_nvlink=links.catalog_nvlink,
                        env=os.environ)
    note = describe_skipped(ar)
    return ar.lines, ((note,) if note else ())


def plan(args):
    """Flags → PlanResult (pure; no torch)."""
    model, gpu, parallel, machine = build_request(args)
    options = _options(args)
    extra, notes = tpkit_allreduce_uses(args, gpu, parallel, machine)
    if args.engine == "sglang":
        from tpkit.engines.sglang import plan_sglang

        result = plan_sglang(model, gpu, parallel, options, machine=machine, extra_uses=extra)
    else:
        from tpkit.engines.vllm import plan_vllm

        result = plan_vllm(model, gpu, parallel, options, machine=machine, extra_uses=extra)
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
