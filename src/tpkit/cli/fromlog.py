"""``tpkit plan --from-log LOG``: read the log, fill what the flags leave open (MODEL, engine, release, GPU, layout,
the settings of ``explain.fromlog.LOG_FLAGS``, ``--quantization``) and say where each came from; the measured
start-up terms the plan charges (``measured_from_log``) and the notes on flags read from the log
(``read_from_log_notes``) (split from ``cli.plan``).  The plan with those terms is ``cli.fromlog_plan``'s."""

from __future__ import annotations

from tpkit.cli.pasted import ENV_FLAGS
from tpkit.errors import PlanInputError
from tpkit.units import gib_text

__all__ = ["from_log", "where", "FILLED", "measured_from_log", "read_from_log_notes", "v0_engine_release"]


def where(log, name: str) -> str:
    """Where the log's explanation read a setting ("log line 3"), for a note."""
    return log.context.sources.get(name, "the log").replace(" (log_line)", "")


FILLED = ("tp", "pp", "dp", "ep")
"""the layout a --from-log plan takes from the log where the flags leave it open (the other flags:
``explain.fromlog.LOG_FLAGS``)"""


def _no_engine(path: str, parsed) -> PlanInputError:
    """The refusal of a log with memory or failure lines but no line that names SGLang or vLLM (a training script's
    CUDA OOM, a cut log): what was found, and where the engine's name is (helper tidy32: "neither SGLang nor vLLM
    recognised in the log" said neither)."""
    found = [*(f"line {f.line_no}: {f.evidence[:120]!r}" for f in parsed.failures[:1]),
             *(f"line {a.line_no}: a memory figure" for a in parsed.anchors[:1] if hasattr(a, "line_no"))]
    return PlanInputError(
        f"--from-log {path!r}: no line names SGLang or vLLM (no version line, launch command, server-args dump or "
        f"engine start-up line){'; found ' + ', '.join(found) if found else ''}: the engine's measured terms cannot be "
        "read from it; give the server's own log from its launch command on, or plan without it: tpkit plan MODEL "
        "--gpu NAME")


def from_log(args):
    """Explain ``--from-log``; fill MODEL, --engine, --gpu and the layout the flags leave open from the log (the
    dests the user gave are kept in ``args.user_given``: ``non_kv_from_log`` asks which flags change the run)."""
    args.user_given = frozenset(k for k, v in vars(args).items() if v is not None and v is not False)
    from tpkit.cli.explain import read_log
    from tpkit.explain import explain_log
    from tpkit.explain.fromlog import quantization_from_log

    text = read_log(args.from_log)
    e = explain_log(text)
    from tpkit.explain.npulog import refuse_npu_log  # an Ascend NPU's log: refused, never planned (helper np37)

    refuse_npu_log(e, args.from_log, args.gpu is not None)
    ctx = e.context
    if ctx.engine is None:  # no engine line at all: explain's refusal, word for word (helper tidy28)
        from tpkit.cli.explain import not_an_engine_log

        raise not_an_engine_log(e.parsed, f"--from-log {args.from_log!r}") or _no_engine(args.from_log, e.parsed)
    if args.engine is None:
        args.engine = ctx.engine
    elif args.engine != ctx.engine:
        raise PlanInputError(f"--from-log {args.from_log} is a {ctx.engine} log but --engine is {args.engine}: the "
                             f"measured terms are {ctx.engine}'s; drop --engine or give a {args.engine} log")
    release, capped = _release_from_log(args, e)
    filled = _settings_from_log(args, e)
    quantization, args.log_notes = quantization_from_log(ctx, getattr(args, "quantization", None))
    args.log_release_note = f"--engine-version {release}: {capped} ({where(e, 'log_date')})" if capped else ""
    if quantization is not None:
        args.quantization = quantization
        filled.append("quantization")
    args.log_filled = tuple(filled)
    args.log_links = ctx.links  # what the log prints about the links: used unless --link/--no-p2p/--nnodes say
    if args.model is None and ctx.model is not None:
        # the name explain loaded it by: the log's path, or that path's name where the path is not on this machine
        # (explain.modelpath._by_path_tail)
        args.model = getattr(ctx.model, "name", None) if ctx.model_source.startswith("the log") else None
    stage_gpus_from_log(args, e)
    if args.gpu is None and args.gpu_memory is None and args.machine is None and ctx.gpu is not None:
        if ctx.gpu_source.startswith("printed device total"):
            args.gpu_memory = f"{ctx.gpu.total_bytes.bytes}B"
        else:
            args.gpu = ctx.gpu.name
    return e


def _release_from_log(args, e) -> tuple[str | None, str]:
    """(the log's release, why it was capped by the log's date or ""): set as ``args.engine_version`` where the
    flags leave it open and the engine has rules for it (SGLang's capped by the log's date, as explain reads it,
    helper tail11; vLLM's ``v0_engine_release``)."""
    ctx = e.context
    release, capped = ctx.rules_version, ""
    if ctx.engine == "sglang":
        from tpkit.explain.sgrelease import log_release

        release, capped = log_release(ctx)
    elif ctx.engine == "vllm":
        release = v0_engine_release(e, release)
    if getattr(args, "engine_version", None) is None and (ctx.rules_version or capped):
        from tpkit.engines.registry import get_engine
        from tpkit.explain.refusals import REFUSED

        try:  # the log's release when the engine has rules for it
            get_engine(args.engine).options(engine_version=release)
            args.engine_version = release
        except REFUSED:  # a release the engine does not know: its default rules (a bug raises)
            capped = ""
    else:
        capped = ""
    return release, capped


def _settings_from_log(args, e) -> list[str]:
    """Fill the layout (``FILLED``) and the settings of ``explain.fromlog.LOG_FLAGS`` the flags leave open from the
    log; the settings filled, by name."""
    from tpkit.cli.fromlog_extensible import extensible_default_utilization
    from tpkit.explain.fromlog import log_flag_values

    ctx = e.context
    for name in FILLED:
        if getattr(args, name) is None and ctx.get(name) is not None:
            setattr(args, name, int(ctx.get(name)))
    filled = []
    for dest, setting, value in log_flag_values(ctx):
        if getattr(args, dest, "absent") is None:
            setattr(args, dest, value)
            filled.append(setting)
    if ctx.engine == "vllm" and ctx.get("async_scheduling") is False and getattr(args, "no_async_scheduling",
                                                                                 "absent") is None:
        args.no_async_scheduling = True  # the log's 'async_scheduling': False (vLLM --no-async-scheduling)
        filled.append("async_scheduling")
    if "mem_fraction" in filled and extensible_default_utilization(args, e):
        args.gpu_memory_utilization = None  # vLLM 0.34 resolves its non-extensible default then (helper fl34)
        filled.remove("mem_fraction")
    return filled


def v0_engine_release(e, release: str | None) -> str | None:
    """The rule set a --from-log plan of a vLLM log takes: ``"<release>:v0"`` where the log's line formats show the
    V0 engine (``logs.engine``'s V0 formats: the V0 worker's 'the current vLLM instance can use', V0's model runner,
    'Initializing a V0 LLM engine') and none of V1's, and the release lies in 0.8–0.10, whose V0 engine runs with
    VLLM_USE_V1=0 (``engines.vllm.versions._engine_rules``); else ``release``.  The two engines size memory
    differently, and V1's start-up free-memory check (``v1/worker/gpu_worker.py init_device``) is not in V0's worker
    (``worker/worker.py init_device``, read in the 0.8.3 source), so a V0 log planned by V1 rules was refused by
    a check it had passed (vl_071: 'VLLM_USE_V1=0 vllm serve … --gpu-memory-utilization 0.98').  V0's 'Model
    loading took 17.6110 GiB and …' (four decimals, ``[model_runner.py]``: ``logs.settings.V0_LOAD``) shares V1's
    words (and the V1 runner's four decimals) and tells neither engine."""
    from tpkit.explain.runfacts import v0_formats

    return f"{release}:v0" if release and v0_formats(e.parsed, release) else release


def measured_from_log(args, log, gpu, parallel, model=None) -> tuple[dict, dict, str, tuple[str, ...]]:
    """(measured start-up terms, the measured weights term, where the weights were read, notes) a --from-log plan
    charges: terms the plan's flags make inapplicable (another torch.compile cache or model runner, another
    layout or quantization for the weights) are dropped, with a note saying why."""
    from tpkit.explain.fromlog import measured_startup
    from tpkit.logs.settings import same_quantization

    measured = measured_startup(log, gpu_total=gpu.total_bytes, version=getattr(args, "engine_version", None))
    terms = dict(measured.terms)
    # the measured load delta stands for the weights and every line allocated inside it (the planner charges
    # those 0: engines.vllm.policy.inside_load_delta), so a --quantization read from the log keeps it too
    # a quantization read from the log that the plan's config cannot take (``explain.fromlog.refused_quantization``:
    # the config is not the checkpoint that ran, e.g. its base model's) is still the run's: the user asked for no
    # other, so the weights the log measured at its layout are the checkpoint's and stay, as ``tpkit explain`` sizes
    # its fixes from them (helper rt15: vl_342, compressed-tensors planned on its base model's config)
    kept = getattr(args, "quantization_refused", False) and "quantization" not in getattr(args, "user_given", ())
    same = (measured.layout["tp"] == parallel.tp and measured.layout["pp"] == parallel.pp
            and (kept or same_quantization(measured.layout["quantization"], getattr(args, "quantization", None))))
    notes = measured.notes + getattr(args, "log_notes", ())
    if kept and "weights" in terms and same:
        notes += (f"weights taken from the log ({measured.layout['quantization']}, as it ran), not derived from the "
                  "config, which is not that checkpoint's",)
    logged_cache = log.context.get("compile_cache") if args.engine == "vllm" else None
    if "activation_peak" in terms and logged_cache and args.compile_cache != logged_cache:
        terms.pop("activation_peak")
        if measured.graphs_in_peak:  # the applied CUDA-graph estimate went with it (explain.vpeak)
            terms.pop("cuda_graphs", None)
        notes += (f"activation peak not taken from the log: it ran with a {logged_cache} torch.compile cache "
                  f"({where(log, 'compile_cache')}), this plan assumes "
                  f"--compile-cache {args.compile_cache}"
                  + (" (nor the CUDA-graph estimate it holds)" if measured.graphs_in_peak else ""),)
    logged_runner = log.context.get("vllm_use_v2_model_runner") if args.engine == "vllm" else None
    given_runner = getattr(args, "vllm_use_v2_model_runner", None)
    if logged_runner is not None and given_runner is not None and str(given_runner) != str(logged_runner):
        for term in ("activation_peak", "cuda_graphs"):
            terms.pop(term, None)
        notes += (f"activation peak and CUDA-graph estimate not taken from the log: it ran "
                  f"{'Model Runner V2' if str(logged_runner) == '1' else 'the V1 model runner'} "
                  f"({where(log, 'vllm_use_v2_model_runner')}), this plan --vllm-use-v2-model-runner "
                  f"{given_runner}",)
    given_backend = (getattr(args, "attention_backend", None) or "auto").upper()
    logged_backend = str(log.context.get("attention_backend") or "").upper()
    if "cuda_graphs" in terms and given_backend != "AUTO" and given_backend != logged_backend:
        terms.pop("cuda_graphs")
        notes += (f"CUDA-graph estimate not taken from the log: it was measured with the attention backend that run "
                  f"used{f' ({logged_backend})' if logged_backend else ''}, this plan gives --attention-backend "
                  f"{given_backend} (vLLM's FlashInfer workspace is captured with the graphs)",)
    if "weights" in terms and not same:
        logged = terms.pop("weights")
        scaled = _sglang_scaled(args, log, gpu, parallel, model, logged) if args.engine == "sglang" else None
        if scaled is not None:  # the rule explain's SGLang layout fixes apply (explain.sgreplan.relayout)
            terms["weights"] = scaled[0]
            notes += (scaled[1],)
        else:
            quantized = measured.layout["quantization"] or "of the checkpoint"
            notes += (f"weights not taken from the log: it ran tp {measured.layout['tp']}, pp "
                      f"{measured.layout['pp']}, quantization {quantized}",)
    weights = {"weights": terms.pop("weights")} if "weights" in terms else {}
    return terms, weights, measured.weights_where, tuple(notes)


def _sglang_scaled(args, log, gpu, parallel, model, logged) -> tuple[object, str] | None:
    """(the log's SGLang 'Load weight end. mem usage' at this plan's tp, pp and quantization, the note):
    ``explain.replan.scaled_weights`` of the planner's load usage at the two layouts (``explain.sgreplan.load_at``);
    None where the model is not known here or the rules refuse either layout (the derived weights then)."""
    if model is None:
        return None
    from tpkit.explain.refusals import REFUSED
    from tpkit.explain.replan import scaled_weights
    from tpkit.explain.sgreplan import load_at

    try:
        new, own = load_at(log.context, tp=parallel.tp, pp=parallel.pp,
                           quantization=getattr(args, "quantization", None), model=model, gpu=gpu)
        weights = scaled_weights(logged, own=own, new=new)
    except REFUSED:
        return None
    return weights, (f"weights: the log's {gib_text(logged)} (tp {log.context.get('tp', 1)}, quantization "
                     f"{log.context.get('quantization') or 'of the checkpoint'}) × {gib_text(new, label='')} / "
                     f"{gib_text(own)} "
                     f"(tpkit's load usage at this plan's layout / at the log's) = {gib_text(weights)}")


def read_from_log_notes(args, log, result) -> tuple[str, ...]:
    """Notes naming the flags a --from-log plan read from the log where the plan depends on them."""
    notes: tuple[str, ...] = (args.log_release_note,) if getattr(args, "log_release_note", "") else ()
    if "compile_cache" in getattr(args, "log_filled", ()) and any(
            str(w).startswith("torch.compile cache assumed") for w in result.warnings):
        notes += (f"--compile-cache {args.compile_cache}: read from the log "
                  f"({where(log, 'compile_cache')})",)
    if "vllm_entrypoint" in getattr(args, "log_filled", ()):
        notes += (f"--vllm-entrypoint {args.vllm_entrypoint}: read from the log ({where(log, 'vllm_entrypoint')})",)
    if "pp_layer_partition" in getattr(args, "log_filled", ()):
        notes += (f"--pp-layer-partition {args.pp_layer_partition}: read from the log "
                  f"({where(log, 'pp_layer_partition')}: the launch sets the layers of each pipeline stage by hand)",)
    for var, commands, flag in ENV_FLAGS:  # the plan's on/off engine variables the log's launch / env lines set
        dest = flag.split()[0][2:].replace("-", "_")
        if "plan" in commands and flag.endswith("{onoff}") and dest in getattr(args, "log_filled", ()):
            notes += (f"--{dest.replace('_', '-')} {getattr(args, dest)}: read from the log ({where(log, dest)}: "
                      f"the server ran with {var} set)",)
    if getattr(args, "log_stage_gpus", None):
        lines = args.log_stage_gpus
        notes += (f"--gpu {','.join(g.name for g in args.stage_gpus)}: read from the log (log lines "
                  f"{', '.join(map(str, lines))}: devices 0–{len(lines) - 1}, one per pipeline stage in rank order); "
                  "each stage is planned on its own GPU",)
    else:
        notes += unlike_gpus_note(args, log)
    if "vllm_use_v2_model_runner" in getattr(args, "log_filled", ()):
        notes += (f"--vllm-use-v2-model-runner {args.vllm_use_v2_model_runner}: read from the log "
                  f"({where(log, 'vllm_use_v2_model_runner')})",)
    filled = getattr(args, "log_filled", ())
    for dest, setting in (("optimization_level", "optimization_level"), ("cudagraph_mode", "cudagraph_mode"),
                          ("max_cudagraph_capture_size", "cuda_graph_max_bs"),
                          ("cudagraph_capture_sizes", "cudagraph_capture_sizes")):
        if setting in filled and getattr(args, dest, None) is not None:  # vLLM's graph settings (helper cap11)
            value = getattr(args, dest)
            shown = " ".join(str(x) for x in value) if isinstance(value, (list, tuple)) else value
            if len(str(shown)) > 60:
                shown = " ".join(str(x) for x in value[:3]) + f" … {value[-1]} ({len(value)} sizes)"
            notes += (f"--{dest.replace('_', '-')} {shown}: read from the log ({where(log, setting)})",)
    return notes


def stage_gpus_from_log(args, log) -> None:
    """``--gpu A,B`` from a vLLM log that numbers exactly --pp devices of more than one model ("0: NVIDIA GeForce
    RTX 5070 Ti …", "1: …": ``logs.run.Run.gpus_by_index``) for a --tp 1 --dp 1 run: PP rank r runs on local
    device r, so stage r is planned on device r (``engines.vllm.stages``).  Sets ``args.log_stage_gpus`` (the
    log lines) for the note.  Nothing where --gpu, --gpu-memory or --machine is given."""
    by_index = getattr(getattr(log.parsed, "run", None), "gpus_by_index", ()) or ()
    pp = int(getattr(args, "pp", 1) or 1)
    if (args.gpu is not None or args.gpu_memory is not None or args.machine is not None or args.engine != "vllm"
            or pp < 2 or len(by_index) != pp or int(getattr(args, "tp", 1) or 1) != 1
            or int(getattr(args, "dp", 1) or 1) != 1 or len({n for n, _ in by_index}) < 2):
        return
    from tpkit.hardware.catalog import known_gpu

    if not all(known_gpu(n) for n, _ in by_index):
        return
    args.gpu = ",".join(n for n, _ in by_index)
    args.log_stage_gpus = tuple(line for _, line in by_index)


def unlike_gpus_note(args, log) -> tuple[str, ...]:
    """A note where the log names GPUs of more than one model and the plan splits the run over several GPUs: tpkit
    plans every GPU as the one ``--gpu`` (the same free memory on each), so a stage that ran on a larger card
    gets less room in the plan than it had, and one on a smaller card more."""
    named = list(dict.fromkeys(getattr(getattr(log.parsed, "run", None), "gpus_named", ()) or ()))
    gpus = int(getattr(args, "tp", 1) or 1) * int(getattr(args, "pp", 1) or 1)
    if len(named) < 2 or gpus < 2:
        return ()
    return (f"the log names unlike GPUs ({', '.join(named)}); tpkit plans every GPU of the run as one "
            f"{getattr(args, 'gpu', None) or 'GPU'} (each pipeline stage and tensor rank on that card's memory): "
            "a stage that ran on a larger card has more room than this plan gives it, so the verdict and KV "
            "tokens hold for that card only",)
