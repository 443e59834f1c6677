"""``tpkit plan --pp N --gpu A,B``: one GPU per pipeline stage (``engines.vllm.stages``)."""

from __future__ import annotations

from tpkit.errors import PlanInputError

__all__ = ["stage_gpu_names", "stage_engine"]


def stage_gpu_names(args, parallel) -> None:
    """``--gpu A,B``: one GPU name per pipeline stage, in stage order.  Sets ``args.stage_gpus`` (the names, when
    they differ) and keeps the first in ``args.gpu``; one name (or the same name for every stage) plans every GPU as
    that one, as before.  A count other than --pp, an empty name, or a list with --gpu-memory / --machine is
    refused (what was received, how to fix)."""
    args.stage_gpus = getattr(args, "stage_gpus", None)
    text = args.gpu
    if not text or "," not in text or parallel.pp == 1:  # --pp 1: the catalog's "plan the smallest" refusal
        return
    names = [n.strip() for n in text.split(",")]
    if any(not n for n in names):
        raise PlanInputError(f"--gpu {text!r} has an empty name; write one GPU name per pipeline stage separated by "
                             "commas, e.g. --gpu RTX-5070-Ti,RTX-5090")
    if len(names) != parallel.pp:
        raise PlanInputError(f"--gpu {text} names {len(names)} GPUs but --pp is {parallel.pp}: name one GPU per "
                             f"pipeline stage in stage order (--pp {len(names)}), or one name for every stage "
                             f"(--gpu {names[0]})")
    if args.gpu_memory is not None or getattr(args, "machine", None):
        raise PlanInputError(f"--gpu {text} (one GPU per pipeline stage) cannot be combined with "
                             f"{'--gpu-memory' if args.gpu_memory is not None else '--machine'}; pass the catalog "
                             "names alone, or one --gpu with --gpu-memory")
    if parallel.tp * parallel.dp > 1:
        raise PlanInputError(f"--gpu {text}: one GPU per pipeline stage is planned for --tp 1 --dp 1 only "
                             f"(got --tp {parallel.tp} --dp {parallel.dp}); name one GPU for every stage")
    args.gpu = names[0]
    if len(set(names)) > 1:
        from tpkit.hardware.catalog import lookup_gpu

        args.stage_gpus = tuple(lookup_gpu(n) for n in names)


def stage_engine(args, engine):
    """The engine whose planner plans each pipeline stage on its own GPU (``args.stage_gpus``; vLLM only:
    ``engines.vllm.stages``), or ``engine`` itself."""
    gpus = getattr(args, "stage_gpus", None)
    if not gpus:
        return engine
    if engine.name != "vllm":
        raise PlanInputError(f"--gpu {','.join(g.name for g in gpus)}: one GPU per pipeline stage is planned for "
                             f"--engine vllm only (got {engine.name}); name one GPU for every stage")
    from dataclasses import replace as _set

    def plan_stages(model, gpu, parallel, options, *, machine=None, extra_uses=(), others_growth=None):
        from tpkit.engines.vllm.stages import plan_vllm_stages  # lazy: only pp > 1 over unlike GPUs

        return plan_vllm_stages(model, gpus, parallel, options, machine=machine,
                                extra_uses=extra_uses(parallel.tp) if callable(extra_uses) else extra_uses,
                                pinned=getattr(args, "stage_pin", None),
                                **({} if others_growth is None else {"others_growth": others_growth}))
    return _set(engine, plan=plan_stages)
